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
//! - [`AsyncSearcher`] runs a searcher's searches on a thread of its own,
//!   with stop, ponder and a stream of reports: the protocol, `analyze` and
//!   the GUI search through it.
//! - [`Job`] runs work on a thread of its own, with a control to stop it
//!   and a panic turned into an error: searches, solves and the GUI's
//!   engine workers all run as jobs.
//! - [`Strength`] and [`Weakening`]: the levels for people, an engine
//!   weakened to a measured Elo.

mod async_searcher;
mod job;
mod level;
mod setup;

pub use async_searcher::{AsyncError, AsyncSearcher, Event, SearchRequest};
pub use job::{Finish, Job, Panicked};
pub use level::{
    DEFAULT_ELO, LEVELS, Level, MAX_ELO, MIN_ELO, Strength, Weakening, level_rng, levels,
};
pub use setup::{Eval, LoadedNet, NetGame, NetParams, Setup};
