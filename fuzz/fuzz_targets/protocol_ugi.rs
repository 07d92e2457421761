//! A protocol session in the UGI/UCI dialect: the input's lines go through
//! the real command loop (`protocol::run`, its reader thread included),
//! starting in the game the first byte picks, and end of input quits.
//!
//! Small limits: every number past 4 in a word of its own is brought down
//! (`ultimo_fuzz::small_numbers`), so no `go`, `perft` or `Hash` runs long
//! or large; lines that name a file (DebugLogFile, EvalFile) are left out;
//! the tree starts at 4 MiB. Invariants: no panic, and the session ends
//! (a hang is a finding: libFuzzer's -timeout). Memory: rss limit 2048 MB
//! in scripts/fuzz.sh (a solve table and a tree at their defaults fit).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use ultimo::game::GameKind;
use ultimo::protocol::options::EngineOptions;
use ultimo::protocol::{self, Output};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let game = if first & 1 == 0 {
        GameKind::Uttt
    } else {
        GameKind::Super15
    };
    let text = String::from_utf8_lossy(rest);
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .filter(|l| !ultimo_fuzz::names_a_file(l))
        .map(|l| ultimo_fuzz::small_numbers(l, 4))
        .collect();
    let mut options = EngineOptions::default();
    options.setup.search.hash_mb = 4;
    let rx = protocol::spawn_reader(Cursor::new(lines.concat().into_bytes()));
    protocol::run(game, options, Output::new(std::io::sink()), &rx).expect("the session runs");
});
