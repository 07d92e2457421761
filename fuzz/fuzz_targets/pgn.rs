//! PGN: a whole file of games, read, replayed with the rules of the game
//! its Variant tag names, written and read again.
//!
//! Invariants: no panic; a file that reads writes text that reads back as
//! the same games (tags, moves, comments, result); a game that replays
//! replays the same after the round trip. Memory: the games read are
//! bounded by the text (rss limit 512 MB in scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::game::GameKind;
use ultimo::pgn::{self, Replayed};

fuzz_target!(|text: &str| {
    let Ok(games) = pgn::read(text, "fuzz.pgn") else {
        return;
    };
    let written = pgn::write_games(&games);
    let again = pgn::read(&written, "written.pgn")
        .unwrap_or_else(|e| panic!("written PGN does not read: {e}\n{written}"));
    assert_eq!(games.len(), again.len(), "{written}");
    for (a, b) in games.iter().zip(&again) {
        assert_eq!(a.tags, b.tags, "{written}");
        // The moves, but not the lines they stood on.
        let moves = |g: &pgn::PgnGame| -> Vec<_> {
            g.moves
                .iter()
                .map(|m| (m.text.clone(), m.nags.clone(), m.comment.clone()))
                .collect()
        };
        assert_eq!(moves(a), moves(b), "{written}");
        assert_eq!(a.result, b.result, "{written}");
        assert_eq!(a.comment, b.comment, "{written}");
        assert_eq!(a.first, b.first, "{written}");
        let replayed = |g: &pgn::PgnGame| match g.kind() {
            Some(GameKind::Super15) => Replayed::<ultimo::super15::Position>::new(g, "f")
                .map(|r| r.moves.len())
                .ok(),
            _ => Replayed::<ultimo::rules::Position>::new(g, "f")
                .map(|r| r.moves.len())
                .ok(),
        };
        assert_eq!(replayed(a), replayed(b), "{written}");
    }
});
