//! The engine as the protocol and the tools run it, between the search
//! and their front ends:
//!
//! - [`Setup`] says how the engine searches: the search options, how the
//!   leaves are valued ([`Eval`]), the net's own search parameters
//!   ([`NetParams`]) and the net's file. It is the one place that builds a
//!   searcher, choosing the evaluator and the parameters that go with it
//!   together.
//! - [`NetGame`] says which net a game has (Ultimate Tic-Tac-Toe its
//!   learned one, Super 1 al 5 none).

mod setup;

pub use setup::{Eval, LoadedNet, NetGame, NetParams, Setup};
