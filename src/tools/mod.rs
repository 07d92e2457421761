//! The subcommands for people: perft, bench, analyze, play and match.

pub mod analyze;
pub mod bench;
pub mod board;
pub mod match_runner;
pub mod perft;
pub mod play;
pub mod stats;

use crate::notation::play_moves;
use crate::rules::Position;

/// The position named by an optional FEN and a list of moves played from it
/// (the empty board when no FEN is given).
pub fn position_from(fen: Option<&str>, moves: &[String]) -> Result<Position, String> {
    let start = match fen {
        Some(f) => f.parse().map_err(|e| format!("bad FEN '{f}': {e}"))?,
        None => Position::startpos(),
    };
    play_moves(&start, moves.iter().map(String::as_str)).map_err(|e| e.to_string())
}
