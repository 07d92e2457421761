//! A CodinGame bot session: the input is what the referee sends (the
//! opponent's move, the count of valid moves, the moves), each turn
//! searched for 1 ms, through the real loop (`protocol::codingame::run`).
//!
//! Invariants: no panic; the loop ends only with the input (bad turns are
//! reported on the log and skipped, never end the bot); every answer is a
//! `row col` pair in range. Memory: the tree is 4 MiB (rss limit 512 MB in
//! scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use std::time::Duration;
use ultimo::protocol::codingame::{self, Settings};
use ultimo::search::Options;

fuzz_target!(|data: &[u8]| {
    let settings = Settings {
        first_turn: Duration::from_millis(1),
        turn: Duration::from_millis(1),
        options: Options {
            hash_mb: 4,
            ..Options::default()
        },
    };
    let (mut out, mut log) = (Vec::new(), Vec::new());
    codingame::run(&settings, &mut Cursor::new(data), &mut out, &mut log)
        .expect("the loop ends only with its input");
    for answer in String::from_utf8(out).expect("answers are text").lines() {
        let rc: Vec<u8> = answer
            .split(' ')
            .map(|n| n.parse().expect("a number"))
            .collect();
        assert!(rc.len() == 2 && rc[0] < 9 && rc[1] < 9, "{answer:?}");
    }
});
