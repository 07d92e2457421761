//! The settings of a match as the command line gives them, unchecked
//! ([`MatchConfig`]), and how more than two engines meet ([`Tournament`]).
//! The plan checks them all before anything starts.

use std::path::PathBuf;

use super::{
    DEFAULT_GAMES, DEFAULT_MOVE_TIMEOUT_MS, DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEMARGIN_MS,
};
use crate::game::GameKind;

/// The settings of a match as given, unchecked: [`super::run`] checks them all
/// before anything starts. Times are in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The engines, each `cmd=PROGRAM [arg=ARG].. [name=NAME]
    /// [proto=ugi|uci] [option.NAME=VALUE].. [tc=|nodes=|movetime=]`.
    pub engines: Vec<String>,
    /// How more than two engines meet.
    pub tournament: Option<Tournament>,
    /// Games to play per pairing, even.
    pub games: u64,
    /// A file of openings, one per line.
    pub openings: Option<PathBuf>,
    /// Start each pair from this many random moves instead.
    pub random_plies: Option<u32>,
    /// The seed of the random openings (default: from the clock).
    pub seed: Option<u64>,
    /// Time per move.
    pub movetime: Option<u64>,
    /// Iterations per move.
    pub nodes: Option<u64>,
    /// A clock per side, `BASE+INC` in seconds.
    pub tc: Option<String>,
    /// Grace past the clock or the move time before a move loses on time.
    pub timemargin: u64,
    /// With `nodes`, the longest a move may take.
    pub move_timeout: u64,
    /// The longest an engine may take to answer the handshake or `isready`.
    pub startup_timeout: u64,
    /// Games played at once.
    pub concurrency: usize,
    /// The SPRT's settings (ELO0 ELO1 ALPHA BETA), if any.
    pub sprt: Option<Vec<f64>>,
    /// The PGN file every game is appended to (`--pgnout`).
    pub record: Option<PathBuf>,
    /// The directory where each engine's standard error is appended to
    /// `NAME.log` (created if missing); without it, it is discarded.
    pub log: Option<PathBuf>,
    /// The game to play.
    pub game: GameKind,
    /// `K/N`: play only the K-th of N shares of the pairs.
    pub shard: Option<String>,
    /// Where to write the summary as JSON, if anywhere.
    pub json: Option<PathBuf>,
}

/// How the engines of a match of more than two meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tournament {
    /// The first engine against each other one.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

impl Tournament {
    /// The pairings of `n` engines, as pairs of indices (first below
    /// second), in order.
    pub fn pairings(self, n: usize) -> Vec<(usize, usize)> {
        match self {
            Tournament::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Tournament::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tournament::Gauntlet => "gauntlet",
            Tournament::RoundRobin => "round-robin",
        }
    }
}

impl Default for MatchConfig {
    /// No engines and no time control yet; the other settings at their
    /// defaults.
    fn default() -> MatchConfig {
        MatchConfig {
            engines: Vec::new(),
            games: DEFAULT_GAMES,
            openings: None,
            random_plies: None,
            seed: None,
            movetime: None,
            nodes: None,
            tc: None,
            timemargin: DEFAULT_TIMEMARGIN_MS,
            move_timeout: DEFAULT_MOVE_TIMEOUT_MS,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT_MS,
            concurrency: 1,
            sprt: None,
            record: None,
            log: None,
            game: GameKind::Uttt,
            tournament: None,
            shard: None,
            json: None,
        }
    }
}
