//! Self-play data (`net::data`). With the first byte even, the rest is one
//! record's body (`decode`); odd, a whole data file (`parse`: header,
//! settings, checksummed records, a cut-off last record).
//!
//! Invariants: no panic; a record that decodes encodes to a body that
//! decodes to the same record; a file's valid length is within it, and
//! every record of a file that reads encodes and decodes back the same.
//! Memory: records hold what the bytes give (rss limit 512 MB in
//! scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use ultimo::net::data::{self, GameRecord};

fn round_trip(game: &GameRecord) {
    // `encode` frames the body: its length before, its checksum after.
    let record = data::encode(game);
    let again = data::decode(&record[4..record.len() - 4]).expect("an encoded record decodes");
    assert_eq!(&again, game, "a record changes through encode and decode");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        if let Ok(game) = data::decode(rest) {
            round_trip(&game);
        }
    } else if let Ok(contents) = data::parse(Path::new("fuzz.data"), rest) {
        assert!(contents.valid_len <= rest.len() as u64);
        assert_eq!(contents.truncated, contents.valid_len < rest.len() as u64);
        contents.games.iter().for_each(round_trip);
    }
});
