//! FEN and move text of Ultimate Tic-Tac-Toe: the first line a FEN, the
//! rest moves. Invariants (see `ultimo_fuzz::notation`): no panic, and
//! every position and move that reads prints text that reads back the same.
//! Memory: nothing grows with the input beyond its text (rss limit 256 MB
//! in scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::rules::Position;

fuzz_target!(|text: &str| {
    ultimo_fuzz::notation::<Position>(text);
});
