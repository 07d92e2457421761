//! FEN and move text of Super 1 al 5: the first line a FEN, the rest
//! moves. Invariants (see `ultimo_fuzz::notation`): no panic, and every
//! position and move that reads prints text that reads back the same.
//! Memory: nothing grows with the input beyond its text (rss limit 256 MB
//! in scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::super15::Position;

fuzz_target!(|text: &str| {
    ultimo_fuzz::notation::<Position>(text);
});
