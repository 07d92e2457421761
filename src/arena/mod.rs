//! `ultimo match`: plays games between engines that speak the Ultimo
//! protocol (or UGI/UCI), referees every move with Ultimo's rules, and
//! reports the first engine's score, Elo, LOS and an optional SPRT (two
//! engines), or a gauntlet or round robin of more engines with a rating
//! table.
//!
//! [`run`] takes a [`MatchCommand`]: play a match ([`MatchConfig`], the
//! settings as given, checked into a plan before anything starts) or replay
//! records ([`ReplayConfig`]). The command line (`ultimo match`) makes one
//! from its arguments. Errors are [`ArenaError`], which wraps each module's
//! own error type. The engines are talked to through [`crate::client`]
//! (processes, dialects, clocks, the referee, signals). One file per job:
//!
//! - [`config`]: the settings of a match as given.
//! - `plan`: the settings checked, the pairings, shards and openings, and
//!   which game each thread plays next.
//! - `runner`: the match's threads: the workers that play the games, and
//!   the check of every engine before the start.
//! - `referee`: the main thread's part: counting, recording and showing
//!   each finished game, the SPRT, Ctrl-C and signals.
//! - `progress`: the progress lines on standard error.
//! - `record_file`: the `--pgnout` file the games are appended to.
//! - `replay`: `--replay` and `--merge`: the summary of recorded games.
//! - [`game`]: one game, refereed.
//! - [`openings`]: openings from a file or random moves.
//! - [`record`]: the games in PGN, written and read back.
//! - [`tally`]: the running score and the summary.
//! - [`stats`]: Elo, LOS, SPRT and maximum-likelihood ratings.
//!
//! The engines meet in pairings: one with two engines; with more, the first
//! against each other one (`gauntlet`) or every engine against every other
//! (`round-robin`), in the order of the engines ((1, 2), (1, 3), .., (2, 3),
//! ..). Each pairing plays `--games` games, as pairs of games with colours
//! swapped from one opening: pair `p` (from 0) of pairing `k` has the global
//! index `i = k * pairs_per_pairing + p`, its games are numbered `2i + 1`
//! (the pairing's first engine plays `x`) and `2i + 2`, and its opening is
//! opening `p` of the book (or random opening `p` of the seed), so every
//! pairing plays the same openings. `--shard K/N` plays the pairs with
//! `i % N == K - 1`, exactly as the whole match would; `--merge` reads the
//! shards' records back into one summary.
//!
//! The games run on `--concurrency` threads, each with the processes of its
//! current pairing's two engines, kept from game to game (`uginewgame`
//! between games) until one commits a fault, when it is killed and started
//! afresh; a thread that moves on to another pairing keeps the engine the
//! pairings share and starts the other.
//! An engine is killed with its whole process group (what it started goes
//! with it) wherever the runner stops it: a fault, the end of the match,
//! Ctrl-C twice, SIGTERM or SIGHUP, or an error.

pub mod config;
pub mod game;
pub mod openings;
mod plan;
mod progress;
pub mod record;
mod record_file;
mod referee;
mod replay;
mod runner;
pub mod stats;
pub mod tally;

use std::io;
use std::path::{Path, PathBuf};

use crate::client::clock::ClockError;
use crate::client::engine::{EngineError, EngineSpecError};
use openings::{OpeningError, OpeningsFileError};
use record::RecordError;
use tally::{SprtError, TallyError};

use crate::game::GameKind;

pub use config::{MatchConfig, Tournament};
pub use replay::ReplayConfig;

/// Why a match or a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// `--allow-incomplete` without `--merge`.
    #[error("--allow-incomplete goes with --merge only")]
    AllowIncompleteWithoutMerge,
    /// Fewer than two `--engine` values.
    #[error("give at least two engines with --engine (got {0})")]
    EngineCount(usize),
    /// More than two engines without `--tournament`.
    #[error("with {0} engines, say how they meet: --tournament gauntlet or round-robin")]
    Tournament(usize),
    /// `--sprt` with more than two engines.
    #[error("--sprt needs exactly two engines (got {0})")]
    SprtEngines(usize),
    /// An engine without a time control.
    #[error(
        "engine {0} has no time control: give --movetime, --nodes or --tc, or movetime=, nodes= or tc= in its --engine"
    )]
    NoControl(String),
    /// A `--shard` that is not `K/N` with 1 <= K <= N.
    #[error(transparent)]
    Shard(#[from] crate::shard::ShardError),
    /// An `--engine` value that does not parse, or two engines with one name.
    #[error(transparent)]
    Spec(#[from] EngineSpecError),
    /// An engine that could not be started or did not answer at the start.
    #[error("engine {name} ({program}): {problem}")]
    Engine {
        /// The engine's name.
        name: String,
        /// Its program.
        program: String,
        /// What went wrong.
        problem: EngineError,
    },
    /// A bad time setting.
    #[error(transparent)]
    Clock(#[from] ClockError),
    /// `--games` zero or odd.
    #[error("--games must be a positive even number (each opening is played twice), got {0}")]
    Games(u64),
    /// Two settings that exclude each other.
    #[error("{0} and {1} cannot be used together")]
    Conflict(&'static str, &'static str),
    /// A setting that needs another.
    #[error("{0} needs {1}")]
    Requires(&'static str, &'static str),
    /// `--concurrency` out of range.
    #[error("--concurrency must be between 1 and {MAX_CONCURRENCY}, got {0}")]
    Concurrency(usize),
    /// An opening that cannot be used.
    #[error(transparent)]
    Opening(#[from] OpeningError),
    /// An openings file that cannot be used.
    #[error(transparent)]
    OpeningsFile(#[from] OpeningsFileError),
    /// Bad `--sprt` settings.
    #[error(transparent)]
    Sprt(#[from] SprtError),
    /// A record file given twice to `--merge`.
    #[error("{} is given twice: give each shard's record once", crate::quote::path(.0))]
    RecordTwice(PathBuf),
    /// Shards that do not hold every game of their match (`--merge`
    /// without `--allow-incomplete`).
    #[error(
        "the records hold {have} of the match's {games} games: {missing}; \
         merge every shard's record, or give --allow-incomplete"
    )]
    Incomplete {
        /// The games read.
        have: u64,
        /// The match's games.
        games: u64,
        /// The game numbers missing, and the shards given none, in words.
        missing: String,
    },
    /// A record file that does not read back.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A game the tally cannot count.
    #[error(transparent)]
    Tally(#[from] TallyError),
    /// A file that cannot be read.
    #[error("cannot read {}: {problem}", crate::quote::path(.path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A file that cannot be opened for writing.
    #[error("cannot open {} for writing: {problem}", crate::quote::path(.path))]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A directory that cannot be created.
    #[error("cannot create {}: {problem}", crate::quote::path(.path))]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A file that cannot be written.
    #[error("cannot write to {}: {problem}", crate::quote::path(.path))]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// The summary could not be written to standard output.
    #[error("cannot write the summary: {0}")]
    Output(io::Error),
    /// Ctrl-C, SIGTERM or SIGHUP (named) while the engines were checked,
    /// before the match started.
    #[error("stopped by {0} before the match started")]
    Stopped(&'static str),
}

/// The most games played at once.
pub const MAX_CONCURRENCY: usize = 256;

/// The number of games of a match when none is given.
pub const DEFAULT_GAMES: u64 = 100;
/// The grace past a clock or a move time when none is given, in ms.
pub const DEFAULT_TIMEMARGIN_MS: u64 = 50;
/// The longest a `nodes` move may take when no limit is given, in ms.
pub const DEFAULT_MOVE_TIMEOUT_MS: u64 = 10_000;
/// The longest the handshake may take when no limit is given, in ms.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 5_000;

/// What `ultimo match` asks the match runner to do.
#[derive(Clone, Debug, PartialEq)]
pub enum MatchCommand {
    /// Play a match (boxed: the settings are large).
    Play(Box<MatchConfig>),
    /// Play nothing: read recorded games back and print their summary.
    Replay(ReplayConfig),
}

/// Runs `command`: plays a match and prints its progress (standard error)
/// and summary (standard output), or prints the summary of records.
pub fn run(command: &MatchCommand) -> Result<(), ArenaError> {
    match command {
        MatchCommand::Play(config) => match config.game {
            GameKind::Uttt => {
                runner::run_match(&plan::Plan::<crate::rules::Position>::new(config)?)
            }
            GameKind::Super15 => {
                runner::run_match(&plan::Plan::<crate::super15::Position>::new(config)?)
            }
        },
        MatchCommand::Replay(config) => replay::run(config),
    }
}

/// Writes `value` as JSON to the file at `path`.
fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), ArenaError> {
    let text = serde_json::to_string_pretty(value).unwrap_or_default() + "\n";
    std::fs::write(path, text).map_err(|problem| ArenaError::Write {
        path: path.to_path_buf(),
        problem,
    })
}

/// The text of the file at `path`.
fn read(path: &Path) -> Result<String, ArenaError> {
    std::fs::read_to_string(path).map_err(|problem| ArenaError::Read {
        path: path.to_path_buf(),
        problem,
    })
}
