//! A riddles.io bot session: `settings`, `update game` and `action move`
//! lines through the real loop (`protocol::riddles::run`).
//!
//! Small limits: every number past 4 in a word of its own is brought down
//! (`ultimo_fuzz::small_numbers`), so no move is given long to think; the
//! tree is 4 MiB. Invariants: no panic; the loop ends only with the input;
//! every answer is `place_move col row` in range. Memory: rss limit 512 MB
//! in scripts/fuzz.sh.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use ultimo::protocol::riddles;
use ultimo::search::Options;

fuzz_target!(|data: &[u8]| {
    let text = ultimo_fuzz::small_numbers(&String::from_utf8_lossy(data), 4);
    let options = Options {
        hash_mb: 4,
        ..Options::default()
    };
    let (mut out, mut log) = (Vec::new(), Vec::new());
    riddles::run(&options, &mut Cursor::new(text), &mut out, &mut log)
        .expect("the loop ends only with its input");
    for answer in String::from_utf8(out).expect("answers are text").lines() {
        let words: Vec<&str> = answer.split(' ').collect();
        assert_eq!(words.len(), 3, "{answer:?}");
        assert_eq!(words[0], "place_move", "{answer:?}");
        for n in &words[1..] {
            assert!(n.parse::<u8>().is_ok_and(|n| n < 9), "{answer:?}");
        }
    }
});
