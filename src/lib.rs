//! Ultimo: an Ultimate Tic-Tac-Toe engine.
//!
//! - [`rules`]: the bitboard position, moves, outcome, perft and playouts.
//! - [`notation`]: moves `a1`-`i9` and FEN, read and written.
//! - [`tools`]: the subcommands for people (perft, bench, analyze, play, match).
#![deny(missing_docs)]

pub mod game;
pub mod notation;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod tools;
