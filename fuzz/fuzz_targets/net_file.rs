//! The net's weights file (`net::Net::from_bytes`). With the first byte
//! odd, the rest gets a right checksum in its last 4 bytes before it is
//! read, so that the fuzzer gets past the checksum to the weights.
//!
//! Invariants: no panic; a net that reads writes a file that reads back
//! as the same net, and values the start position as a finite win
//! probability, policy included. Memory: a net's size whatever the input
//! (rss limit 512 MB in scripts/fuzz.sh; inputs up to 600 kB).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::net::features::Planes;
use ultimo::net::{Net, fnv1a};
use ultimo::rules::Position;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= 4 {
        let end = bytes.len() - 4;
        let sum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(net) = Net::from_bytes(&bytes) else {
        return;
    };
    // What reads writes a file in the current format that reads back as
    // the same net (the input itself may differ: an older format, bytes
    // after the name's end).
    let written = net.to_bytes();
    let again = Net::from_bytes(&written).expect("a written net reads");
    assert_eq!(again.to_bytes(), written, "a written net reads as another");
    assert_eq!(again.name(), net.name());
    let pos = Position::startpos();
    let cells: Vec<u8> = pos.legal_moves().iter().map(|m| m.index()).collect();
    let mut priors = vec![0.0; cells.len()];
    let v = net.evaluate_with_policy(&Planes::from_position(&pos), &cells, &mut priors, 1.6);
    assert!((0.0..=1.0).contains(&v), "value {v}");
    assert!(priors.iter().all(|p| p.is_finite()), "{priors:?}");
});
