//! `ultimo match`: plays games between engines that speak the Ultimo
//! protocol (or UGI/UCI), referees every move with Ultimo's rules, and
//! reports the first engine's score, Elo, LOS and an optional SPRT (two
//! engines), or a gauntlet or round robin of more engines with a rating
//! table.
//!
//! - [`engine`]: starting engines and talking to them.
//! - [`game`]: one game, refereed.
//! - [`clock`]: time controls and the referee's clocks.
//! - [`openings`]: openings from a file or random moves.
//! - [`record`]: the games in PGN, appended to `--pgnout` and read back
//!   (`--replay`, and `--merge` for the files of a match's shards).
//! - [`tally`]: the running score and the summary.
//! - [`stats`]: Elo, LOS, SPRT and maximum-likelihood ratings.
//!
//! [`run`] takes a [`Job`]: a match ([`MatchConfig`], the settings as given,
//! checked here before anything starts) or a replay. The command line (`ultimo match`)
//! makes one from its arguments. Errors are [`ArenaError`], which
//! wraps each module's own error type.
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

pub mod clock;
pub mod engine;
pub mod game;
pub mod openings;
pub mod record;
pub mod signal;
pub mod stats;
pub mod tally;

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clock::{ClockError, TimeControl};
use engine::{Engine, EngineError, EngineSpec, EngineSpecError};
use game::{GameSettings, GameSetup};
use openings::{ArenaGame, OpeningBook, OpeningError, OpeningsFileError};
use record::{GameRecord, MatchTags, Record, RecordError};

use crate::game::GameKind;
use crate::pgn::{self, PgnGame, PgnNotation};
use tally::{Sprt, SprtError, Standings, TallyError};

use crate::arena::stats::SprtDecision;

/// Why a match or a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
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
    #[error("--shard '{0}': expected K/N with 1 <= K <= N, e.g. 2/8")]
    Shard(String),
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
    /// A record file that does not read back.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A game the tally cannot count.
    #[error(transparent)]
    Tally(#[from] TallyError),
    /// A file that cannot be read.
    #[error("cannot read {}: {problem}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A file that cannot be opened for writing.
    #[error("cannot open {} for writing: {problem}", .path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A directory that cannot be created.
    #[error("cannot create {}: {problem}", .path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        problem: io::Error,
    },
    /// A file that cannot be written.
    #[error("cannot write to {}: {problem}", .path.display())]
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

/// What the match runner is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// Play a match (boxed: the settings are large).
    Match(Box<MatchConfig>),
    /// Play nothing: read PGN files of a match back (one with `--replay`,
    /// which may hold several matches; the shards of one match with
    /// `--merge`), check every game with the rules and print the summary of
    /// all their games.
    Replay {
        /// The PGN files.
        records: Vec<PathBuf>,
        /// Whether the files are the shards of one match (`--merge`): their
        /// `Event`s may differ, a game number comes once over all of them.
        merge: bool,
        /// The SPRT's settings (ELO0 ELO1 ALPHA BETA), if any.
        sprt: Option<Vec<f64>>,
        /// Where to write the summary as JSON, if anywhere.
        json: Option<PathBuf>,
    },
}

/// The settings of a match as given, unchecked: [`run`] checks them all
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
    fn name(self) -> &'static str {
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

/// Runs `job`: plays a match and prints its progress (standard error) and
/// summary (standard output), or prints the summary of records.
pub fn run(job: &Job) -> Result<(), ArenaError> {
    match job {
        Job::Match(config) => match config.game {
            GameKind::Uttt => run_match(&Plan::<crate::rules::Position>::new(config)?),
            GameKind::Super15 => run_match(&Plan::<crate::super15::Position>::new(config)?),
        },
        Job::Replay {
            records,
            merge,
            sprt,
            json,
        } => {
            let sprt = sprt.as_deref().map(Sprt::new).transpose()?;
            let summary = replay(records, *merge, sprt.as_ref(), &mut io::stdout().lock())?;
            match json {
                Some(path) => write_json(path, &summary),
                None => Ok(()),
            }
        }
    }
}

/// Prints the summary of the games of the PGN files `paths` (one with
/// `--replay`, or the shards of one match with `merge`) after checking
/// them, and returns it as JSON. The game is the first game's `Variant`.
fn replay(
    paths: &[PathBuf],
    merge: bool,
    sprt: Option<&Sprt>,
    out: &mut impl Write,
) -> Result<serde_json::Value, ArenaError> {
    let files = paths
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let games = pgn::read(&read(path)?, &name).map_err(RecordError::from)?;
            Ok((name, games))
        })
        .collect::<Result<Vec<(String, Vec<PgnGame>)>, ArenaError>>()?;
    // An unknown variant is reported by the game's replay.
    let kind = files
        .iter()
        .find_map(|(_, games)| games.first())
        .and_then(PgnGame::kind)
        .unwrap_or_default();
    match kind {
        GameKind::Uttt => replay_game::<crate::rules::Position>(&files, merge, sprt, out),
        GameKind::Super15 => replay_game::<crate::super15::Position>(&files, merge, sprt, out),
    }
}

/// Prints the summary of the games of `files` (name, games) of game `G`
/// as if one run had played them all, and returns it as JSON.
fn replay_game<G: ArenaGame + PgnNotation>(
    files: &[(String, Vec<PgnGame>)],
    merge: bool,
    sprt: Option<&Sprt>,
    out: &mut impl Write,
) -> Result<serde_json::Value, ArenaError> {
    let named: Vec<(&str, &[PgnGame])> = files
        .iter()
        .map(|(name, games)| (name.as_str(), games.as_slice()))
        .collect();
    let record = match (merge, &named[..]) {
        (false, [(name, games)]) => Record::<G>::from_games(games, name)?,
        _ => Record::<G>::merge(&named)?,
    };
    let engines = record.engines.clone();
    if engines.len() > 2 && sprt.is_some() {
        return Err(ArenaError::SprtEngines(engines.len()));
    }
    // With two engines their pairing shows even without a game.
    let pairings: &[(usize, usize)] = if engines.len() == 2 { &[(0, 1)] } else { &[] };
    let mut standings = Standings::new(engines, pairings);
    for game in &record.games {
        standings.add(game)?;
    }
    write!(out, "{}", standings.summary(sprt)).map_err(ArenaError::Output)?;
    for (name, games) in files {
        writeln!(
            out,
            "{:<12}{name}: {} games, every move legal",
            "record",
            games.len()
        )
        .map_err(ArenaError::Output)?;
    }
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    Ok(serde_json::json!({
        "settings": null,
        "records": names,
        "standings": standings.json(sprt),
        "end": null,
    }))
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

/// Two engines that meet, with what a game between them needs.
#[derive(Debug)]
struct Pairing {
    /// Their indices among the engines.
    engines: [usize; 2],
    /// Their specs (the first plays `x` in the first game of each pair).
    specs: [EngineSpec; 2],
    /// Their time controls.
    controls: [TimeControl; 2],
}

/// `--shard K/N`: the pairs with index `i % n == k - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shard {
    k: u64,
    n: u64,
}

impl Shard {
    /// Reads `K/N` with 1 <= K <= N.
    fn parse(text: &str) -> Result<Shard, ArenaError> {
        let bad = || ArenaError::Shard(crate::quote::shorten(text));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n) = (k.trim().parse::<u64>(), n.trim().parse::<u64>());
        match (k, n) {
            (Ok(k), Ok(n)) if 1 <= k && k <= n => Ok(Shard { k, n }),
            _ => Err(bad()),
        }
    }

    /// Whether the pair with global index `pair` (from 0) is this shard's.
    fn has(self, pair: u64) -> bool {
        pair % self.n == self.k - 1
    }
}

/// Everything a match needs, checked before it starts.
#[derive(Debug)]
struct Plan<G: ArenaGame> {
    /// The engines, in `--engine` order.
    specs: Vec<EngineSpec>,
    /// Each engine's time control.
    controls: Vec<TimeControl>,
    /// How more than two engines meet.
    tournament: Option<Tournament>,
    /// The pairings, in order.
    pairings: Vec<Pairing>,
    /// Games per pairing.
    games: u64,
    /// The global indices of the pairs this run plays (all, or a shard's).
    pairs: Vec<u64>,
    shard: Option<Shard>,
    /// The openings of the pairs.
    openings: OpeningBook<G>,
    /// Where the openings come from, in words.
    openings_source: String,
    settings: GameSettings,
    concurrency: usize,
    sprt: Option<Sprt>,
    record: Option<PathBuf>,
    json: Option<PathBuf>,
}

impl<G: ArenaGame> Plan<G> {
    /// Checks the settings and reads or makes the openings.
    fn new(args: &MatchConfig) -> Result<Plan<G>, ArenaError> {
        let sprt = args.sprt.as_deref().map(Sprt::new).transpose()?;
        let count = args.engines.len();
        if count < 2 {
            return Err(ArenaError::EngineCount(count));
        }
        let tournament = match args.tournament {
            None if count > 2 => return Err(ArenaError::Tournament(count)),
            t => t,
        };
        if sprt.is_some() && count > 2 {
            return Err(ArenaError::SprtEngines(count));
        }
        let mut specs = args
            .engines
            .iter()
            .map(|e| EngineSpec::parse(e))
            .collect::<Result<Vec<_>, _>>()?;
        engine::distinct_names(&mut specs)?;
        if G::KIND != GameKind::Uttt {
            // The game first, before the engine's own options.
            for spec in &mut specs {
                let game = ("Game".to_string(), G::KIND.to_string());
                spec.options.insert(0, game);
            }
        }
        let controls = Self::controls(args, &specs)?;
        if args.games == 0 || !args.games.is_multiple_of(2) {
            return Err(ArenaError::Games(args.games));
        }
        if !(1..=MAX_CONCURRENCY).contains(&args.concurrency) {
            return Err(ArenaError::Concurrency(args.concurrency));
        }
        let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
        if shard.is_some() && sprt.is_some() {
            return Err(ArenaError::Conflict("--sprt", "--shard"));
        }
        // Without a seed every shard would draw openings of its own.
        if shard.is_some() && args.random_plies.is_some() && args.seed.is_none() {
            return Err(ArenaError::Requires(
                "--shard with --random-plies",
                "--seed",
            ));
        }
        let settings = GameSettings {
            margin: clock::millis("--timemargin", args.timemargin)?,
            move_timeout: clock::millis("--move-timeout", args.move_timeout)?,
            startup_timeout: clock::millis("--startup-timeout", args.startup_timeout)?,
            log: args.log.clone(),
        };
        let (openings, openings_source) = match (&args.openings, args.random_plies) {
            (Some(_), Some(_)) => {
                return Err(ArenaError::Conflict("--openings", "--random-plies"));
            }
            (_, None) if args.seed.is_some() => {
                return Err(ArenaError::Requires("--seed", "--random-plies"));
            }
            (Some(path), None) => {
                let name = path.display().to_string();
                let text = read(path)?;
                let list = openings::parse_openings(&text, &name)?;
                let source = format!("{} from {name}", list.len());
                (OpeningBook::List(list), source)
            }
            (None, Some(plies)) => {
                let seed = args.seed.unwrap_or_else(seed_from_clock);
                let book = OpeningBook::Random { plies, seed };
                // Fails at once when no such opening can be found.
                book.opening(0)?;
                (book, format!("{plies} random plies, seed {seed}"))
            }
            (None, None) => (OpeningBook::List(Vec::new()), "startpos".to_string()),
        };
        let pairings: Vec<Pairing> = tournament
            .unwrap_or(Tournament::RoundRobin)
            .pairings(count)
            .into_iter()
            .map(|(a, b)| Pairing {
                engines: [a, b],
                specs: [specs[a].clone(), specs[b].clone()],
                controls: [controls[a], controls[b]],
            })
            .collect();
        let all_pairs = pairings.len() as u64 * (args.games / 2);
        let pairs = (0..all_pairs)
            .filter(|&i| shard.is_none_or(|s| s.has(i)))
            .collect();
        Ok(Plan {
            specs,
            controls,
            tournament,
            pairings,
            games: args.games,
            pairs,
            shard,
            openings,
            openings_source,
            settings,
            concurrency: args.concurrency,
            sprt,
            record: args.record.clone(),
            json: args.json.clone(),
        })
    }

    /// Each engine's time control: its own `tc=`, `nodes=` or `movetime=`,
    /// else the match's `--tc`, `--nodes` or `--movetime`.
    fn controls(args: &MatchConfig, specs: &[EngineSpec]) -> Result<Vec<TimeControl>, ArenaError> {
        let given = [
            args.movetime.is_some(),
            args.nodes.is_some(),
            args.tc.is_some(),
        ];
        let global = match given.iter().filter(|&&g| g).count() {
            0 if specs.iter().all(|s| s.control.is_none()) => {
                return Err(ClockError::NotOne.into());
            }
            0 => None,
            _ => Some(TimeControl::from_options(
                args.movetime,
                args.nodes,
                args.tc.as_deref(),
            )?),
        };
        specs
            .iter()
            .map(|spec| {
                spec.control
                    .or(global)
                    .ok_or_else(|| ArenaError::NoControl(spec.name.clone()))
            })
            .collect()
    }

    /// The games this run plays.
    fn run_games(&self) -> u64 {
        2 * self.pairs.len() as u64
    }

    /// The games of the whole match (all shards).
    fn all_games(&self) -> u64 {
        self.pairings.len() as u64 * self.games
    }

    /// The `index`-th game this run plays (from 0): its pairing and its
    /// number, pair, opening and colours, as in the whole match.
    fn setup(&self, index: u64) -> Result<(usize, GameSetup<G>), OpeningError> {
        let pair = self.pairs[(index / 2) as usize];
        let per_pairing = self.games / 2;
        let pairing = (pair / per_pairing) as usize;
        let second = index % 2;
        Ok((
            pairing,
            GameSetup {
                game: 2 * pair + second + 1,
                pair: pair + 1,
                opening: self.openings.opening(pair % per_pairing)?,
                x_engine: second as usize,
                controls: self.pairings[pairing].controls,
            },
        ))
    }

    /// The engines as `a, b` or, when their controls differ, `a (nodes
    /// 100), b (tc 1+0.1 s)`, joined by `sep`; and the common control if
    /// there is one.
    fn engines_text(&self, sep: &str) -> (String, Option<TimeControl>) {
        let same = self.controls.iter().all(|&c| c == self.controls[0]);
        let names: Vec<String> = self
            .specs
            .iter()
            .zip(&self.controls)
            .map(|(spec, control)| match same {
                true => spec.name.clone(),
                false => format!("{} ({control})", spec.name),
            })
            .collect();
        (names.join(sep), same.then_some(self.controls[0]))
    }

    /// The first line of progress: who plays, how long, from where.
    fn describe(&self) -> String {
        let game = match G::KIND {
            GameKind::Uttt => String::new(),
            kind => format!(" of {kind}"),
        };
        let control = |c: Option<TimeControl>| c.map_or(String::new(), |c| format!(", {c}"));
        let head = match self.tournament.filter(|_| self.specs.len() > 2) {
            None => {
                let (engines, common) = self.engines_text(" vs ");
                format!(
                    "match: {engines}, {} games{game}{}",
                    self.games,
                    control(common)
                )
            }
            Some(t) => {
                let (engines, common) = self.engines_text(", ");
                format!(
                    "{}: {engines}; {} pairings of {} games{game} ({} games){}",
                    t.name(),
                    self.pairings.len(),
                    self.games,
                    self.all_games(),
                    control(common)
                )
            }
        };
        let shard = match self.shard {
            Some(Shard { k, n }) => format!(
                ", shard {k}/{n}: {} of {} pairs",
                self.pairs.len(),
                self.all_games() / 2
            ),
            None => String::new(),
        };
        format!(
            "{head}, openings: {}, concurrency {}{shard}",
            self.openings_source, self.concurrency
        )
    }

    /// Empty standings of the match's engines and pairings.
    fn standings(&self) -> Standings {
        let names = self.specs.iter().map(|s| s.name.clone()).collect();
        let pairings: Vec<(usize, usize)> = self
            .pairings
            .iter()
            .map(|p| (p.engines[0], p.engines[1]))
            .collect();
        Standings::new(names, &pairings)
    }

    /// The settings as JSON.
    fn json(&self) -> serde_json::Value {
        let engines: Vec<serde_json::Value> = self
            .specs
            .iter()
            .zip(&self.controls)
            .map(|(spec, control)| {
                serde_json::json!({
                    "name": spec.name,
                    "program": spec.program,
                    "control": control.to_string(),
                })
            })
            .collect();
        serde_json::json!({
            "game": G::KIND.to_string(),
            "engines": engines,
            "tournament": self.tournament.map(Tournament::name),
            "games_per_pairing": self.games,
            "games": self.run_games(),
            "shard": self.shard.map(|s| format!("{}/{}", s.k, s.n)),
            "openings": self.openings_source,
            "concurrency": self.concurrency,
        })
    }
}

/// A seed from the clock, for when none is given.
fn seed_from_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Seconds since 1970 (UTC), for the PGN's dates.
fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The PGN file the games are appended to.
struct RecordFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// The tags every game shares (the date and the time controls are
    /// set per game).
    tags: MatchTags,
    /// Each engine's name and `TimeControl` tag.
    controls: Vec<(String, String)>,
}

impl RecordFile {
    /// Opens the file to append to, creating it if missing (it is never
    /// truncated). The games' `Event` is the match's start (UTC, to the
    /// millisecond), which tells the matches in one file apart.
    fn create<G: ArenaGame>(path: &Path, plan: &Plan<G>) -> Result<RecordFile, ArenaError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|problem| ArenaError::Create {
                path: path.to_path_buf(),
                problem,
            })?;
        // To the millisecond: matches run one after another into the same
        // file start in the same second.
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let secs = (now / 1000) as u64;
        let time = secs % 86_400;
        let event = format!(
            "ultimo match {} {:02}:{:02}:{:02}.{:03}",
            pgn::date_from_unix(secs),
            time / 3600,
            time / 60 % 60,
            time % 60,
            now % 1000
        );
        Ok(RecordFile {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            tags: MatchTags {
                event,
                site: "?".to_string(),
                date: pgn::UNKNOWN_DATE.to_string(),
                time_controls: [String::new(), String::new()],
            },
            controls: plan
                .specs
                .iter()
                .zip(&plan.controls)
                .map(|(spec, control)| (spec.name.clone(), record::time_control_tag(control)))
                .collect(),
        })
    }

    /// Appends a finished game (dated today, with its players' time
    /// controls) and a blank line, and flushes them, so the file is
    /// complete at any moment.
    fn write_game<G: ArenaGame>(&mut self, game: &GameRecord<G>) -> Result<(), ArenaError> {
        self.tags.date = pgn::date_from_unix(unix_seconds());
        for (tag, player) in self.tags.time_controls.iter_mut().zip([&game.x, &game.o]) {
            if let Some((_, control)) = self.controls.iter().find(|(name, _)| name == player) {
                tag.clone_from(control);
            }
        }
        let text = game.to_pgn(&self.tags).to_string();
        writeln!(self.out, "{text}")
            .and_then(|_| self.out.flush())
            .map_err(|problem| ArenaError::Write {
                path: self.path.clone(),
                problem,
            })
    }
}

/// Progress on standard error: plain lines, or on a terminal an updating
/// status line below the lines that stay.
struct Progress {
    terminal: bool,
    status_shown: bool,
}

impl Progress {
    fn new() -> Progress {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        Progress {
            terminal: io::stderr().is_terminal() && !dumb,
            status_shown: false,
        }
    }

    /// A line that stays.
    fn line(&mut self, text: &str) {
        let mut err = io::stderr().lock();
        if self.status_shown {
            let _ = write!(err, "\r\x1b[K");
            self.status_shown = false;
        }
        let _ = writeln!(err, "{text}");
    }

    /// A finished game (`text`), its pairing's score so far (`score`) and
    /// the state of the match (`status`, which starts with the games
    /// played): one line when piped (with `status` when it says more than
    /// the score); on a terminal the status line, with faults on a line of
    /// their own above it.
    fn game(&mut self, text: &str, score: &str, status: &str, fault: bool) {
        if !self.terminal {
            self.line(&format!("{text}; {score}"));
            return;
        }
        if fault {
            self.line(text);
        }
        let _ = write!(io::stderr().lock(), "\r\x1b[K{status}");
        self.status_shown = true;
    }

    /// Ends the status line.
    fn finish(&mut self) {
        if self.status_shown {
            let _ = writeln!(io::stderr().lock());
            self.status_shown = false;
        }
    }
}

/// The progress text of a finished game, e.g.
/// `game 3/100: base vs new 1-0 (x has three boards in a line)` (x first).
fn game_text<G: ArenaGame>(game: &GameRecord<G>, total: u64) -> String {
    format!(
        "game {}/{total}: {} vs {} {} ({})",
        game.game,
        game.x,
        game.o,
        record::result_text(game.outcome),
        game.reason
    )
}

/// Why the match ended early, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// The first Ctrl-C: no new games.
    Interrupted,
    /// The second Ctrl-C: running games aborted.
    Aborted,
    /// The SPRT decided.
    Sprt,
    /// An error: the PGN file could not be written, or no opening made.
    Failed,
    /// SIGTERM or SIGHUP (named): running games aborted.
    Terminated(&'static str),
}

/// The flags the main thread sets and the workers read.
#[derive(Default)]
struct Flags {
    /// Start no new games.
    stop_starting: AtomicBool,
    /// Abort the running games.
    abort: AtomicBool,
}

impl Flags {
    /// Stops starting games, and with `abort` also aborts the running ones.
    fn stop(&self, abort: bool) {
        self.stop_starting.store(true, Ordering::SeqCst);
        if abort {
            self.abort.store(true, Ordering::SeqCst);
        }
    }

    fn aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }
}

/// What the main thread keeps while the match runs.
struct Referee<'a, G: ArenaGame> {
    plan: &'a Plan<G>,
    flags: &'a Flags,
    standings: Standings,
    /// Games started so far.
    started: &'a AtomicU64,
    record: Option<RecordFile>,
    progress: Progress,
    stop: Option<Stop>,
    error: Option<ArenaError>,
    seen_interrupts: usize,
}

impl<G: ArenaGame> Referee<'_, G> {
    /// Ends the match early for `why`; `abort` also aborts running games.
    fn stop(&mut self, why: Stop, abort: bool) {
        let overrides = matches!(why, Stop::Aborted | Stop::Failed | Stop::Terminated(_));
        if self.stop.is_none() || overrides {
            self.stop = Some(why);
        }
        self.flags.stop(abort);
    }

    /// Stops the match on an error, which `run` returns at the end.
    fn fail(&mut self, error: ArenaError) {
        self.progress
            .line(&format!("error: {error}; stopping the match"));
        self.error.get_or_insert(error);
        self.stop(Stop::Failed, true);
    }

    /// Counts, records and shows a finished game, and runs the SPRT.
    fn game_over(&mut self, game: GameRecord<G>) {
        if self.flags.aborted() {
            return; // finished as the match was aborted: not counted
        }
        let score = match self.standings.add(&game) {
            Ok(tally) => tally.progress(self.plan.sprt.as_ref()),
            Err(e) => return self.fail(e.into()),
        };
        if let Some(file) = self.record.as_mut()
            && let Err(e) = file.write_game(&game)
        {
            self.fail(e);
        }
        let fault = game.termination != record::Termination::Normal;
        let text = game_text(&game, self.plan.all_games());
        let played = self.standings.games();
        let running = self.started.load(Ordering::SeqCst).saturating_sub(played);
        let total = self.plan.run_games();
        let pairings = match self.plan.specs.len() {
            2 => score.clone(),
            _ => self.standings.status(),
        };
        let status = format!("{played}/{total} games, {running} running: {pairings}");
        self.progress.game(&text, &score, &status, fault);
        let decided = match (&self.plan.sprt, self.standings.tallies().next()) {
            (Some(sprt), Some(tally)) => {
                sprt.state(&tally.penta).decision() != SprtDecision::Continue
            }
            _ => false,
        };
        if decided {
            self.stop(Stop::Sprt, true);
        }
    }

    /// Acts on new Ctrl-Cs: the first stops new games, the next aborts;
    /// and on SIGTERM or SIGHUP, which abort at once.
    fn check_interrupts(&mut self) {
        if let Some(name) = signal::termination()
            && !matches!(self.stop, Some(Stop::Terminated(_) | Stop::Failed))
        {
            self.progress
                .line(&format!("{name}: aborting the running games"));
            self.stop(Stop::Terminated(name), true);
            return;
        }
        let interrupts = signal::interrupts();
        if interrupts <= self.seen_interrupts || self.flags.aborted() {
            return;
        }
        self.seen_interrupts = interrupts;
        if interrupts == 1 {
            self.progress.line(
                "Ctrl-C: no new games; finishing the running ones (Ctrl-C again to abort them)",
            );
            self.stop(Stop::Interrupted, false);
        } else {
            self.progress.line("Ctrl-C: aborting the running games");
            self.stop(Stop::Aborted, true);
        }
    }

    /// How the match ended, in words.
    fn ending(&self) -> String {
        match self.stop {
            None => format!("all {} games played", self.plan.run_games()),
            Some(Stop::Sprt) => "the SPRT decided".to_string(),
            Some(Stop::Interrupted) => "stopped by Ctrl-C".to_string(),
            Some(Stop::Aborted) => "stopped by Ctrl-C, running games aborted".to_string(),
            Some(Stop::Failed) => "stopped by an error".to_string(),
            Some(Stop::Terminated(name)) => format!("stopped by {name}, running games aborted"),
        }
    }
}

/// Plays the match of `plan` and prints its summary.
fn run_match<G: ArenaGame>(plan: &Plan<G>) -> Result<(), ArenaError> {
    let started = Instant::now();
    let flags = Flags::default();
    // Caught from the start, so that the engines are stopped (with what they
    // started) however the runner is stopped.
    let signals = signal::install();
    if let Some(dir) = &plan.settings.log {
        std::fs::create_dir_all(dir).map_err(|problem| ArenaError::CreateDir {
            path: dir.clone(),
            problem,
        })?;
    }
    check_engines(plan, &flags)?;
    let record = match &plan.record {
        Some(path) => Some(RecordFile::create(path, plan)?),
        None => None,
    };
    let games_started = AtomicU64::new(0);
    let mut referee = Referee {
        plan,
        flags: &flags,
        standings: plan.standings(),
        started: &games_started,
        record,
        progress: Progress::new(),
        stop: None,
        error: None,
        seen_interrupts: 0,
    };
    referee.progress.line(&plan.describe());
    if let Err(e) = signals {
        referee.progress.line(&format!("warning: {e}"));
    }

    let next_game = AtomicU64::new(0);
    let (sender, results) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..plan.concurrency {
            let sender = sender.clone();
            let (next_game, flags, games_started) = (&next_game, &flags, &games_started);
            scope.spawn(move || worker(plan, next_game, games_started, flags, sender));
        }
        drop(sender);
        loop {
            match results.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(game)) => referee.game_over(game),
                Ok(Err(error)) => referee.fail(error.into()),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            referee.check_interrupts();
        }
    });
    referee.progress.finish();

    let mut out = io::stdout().lock();
    let seconds = started.elapsed().as_secs_f64();
    write!(out, "{}", referee.standings.summary(plan.sprt.as_ref()))
        .and_then(|_| writeln!(out, "{:<12}{}", "end", referee.ending()))
        .and_then(|_| writeln!(out, "{:<12}{seconds:.1} s", "time"))
        .and_then(|_| out.flush())
        .map_err(ArenaError::Output)?;
    if let Some(path) = &plan.json {
        let summary = serde_json::json!({
            "settings": plan.json(),
            "records": plan.record.as_ref().map(|p| vec![p.display().to_string()]),
            "standings": referee.standings.json(plan.sprt.as_ref()),
            "end": referee.ending(),
        });
        write_json(path, &summary)?;
    }
    match referee.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Starts each engine once, to find problems before the match starts, and
/// quits it; a Ctrl-C, SIGTERM or SIGHUP meanwhile stops the check (and the
/// engine being started).
fn check_engines<G: ArenaGame>(plan: &Plan<G>, flags: &Flags) -> Result<(), ArenaError> {
    let checked = AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| {
            while !checked.load(Ordering::SeqCst) {
                if signal::stop_requested() {
                    flags.stop(true);
                }
                thread::sleep(Duration::from_millis(20));
            }
        });
        let result = plan.specs.iter().try_for_each(|spec| {
            let timeout = plan.settings.startup_timeout;
            let log = plan.settings.log.as_deref();
            match Engine::start_logged(spec, timeout, &flags.abort, log) {
                Ok(engine) => {
                    engine.quit();
                    Ok(())
                }
                Err(EngineError::Aborted) => {
                    let name = signal::termination().unwrap_or("Ctrl-C");
                    Err(ArenaError::Stopped(name))
                }
                Err(problem) => Err(ArenaError::Engine {
                    name: spec.name.clone(),
                    program: spec.program.clone(),
                    problem,
                }),
            }
        });
        checked.store(true, Ordering::SeqCst);
        result?;
        if flags.aborted() {
            // A signal just as the check ended.
            return Err(ArenaError::Stopped(
                signal::termination().unwrap_or("Ctrl-C"),
            ));
        }
        Ok(())
    })
}

/// One thread of the match: takes the next game until there are none or
/// the match stops, and sends each finished game (or an error) to
/// `results`. It keeps the processes of its current pairing's engines;
/// moving on to another pairing, it keeps an engine the two share and quits
/// the other.
fn worker<G: ArenaGame>(
    plan: &Plan<G>,
    next_game: &AtomicU64,
    started: &AtomicU64,
    flags: &Flags,
    results: mpsc::Sender<Result<GameRecord<G>, OpeningError>>,
) {
    let mut slots: [Option<Engine>; 2] = [None, None];
    let mut current: Option<usize> = None;
    while !flags.stop_starting.load(Ordering::SeqCst) {
        let index = next_game.fetch_add(1, Ordering::SeqCst);
        if index >= plan.run_games() {
            break;
        }
        let (pairing, setup) = match plan.setup(index) {
            Ok(setup) => setup,
            Err(e) => {
                let _ = results.send(Err(e));
                break;
            }
        };
        if current != Some(pairing) {
            let old = current.map_or([usize::MAX; 2], |p| plan.pairings[p].engines);
            let mut held: Vec<(usize, Engine)> = old
                .into_iter()
                .zip(slots.iter_mut())
                .filter_map(|(i, slot)| slot.take().map(|e| (i, e)))
                .collect();
            for (slot, want) in slots.iter_mut().zip(plan.pairings[pairing].engines) {
                if let Some(at) = held.iter().position(|(i, _)| *i == want) {
                    *slot = Some(held.swap_remove(at).1);
                }
            }
            for (_, engine) in held {
                engine.quit();
            }
            current = Some(pairing);
        }
        started.fetch_add(1, Ordering::SeqCst);
        let Some(game) = game::play_game(
            &mut slots,
            &plan.pairings[pairing].specs,
            &plan.settings,
            &setup,
            &flags.abort,
        ) else {
            break; // aborted
        };
        if results.send(Ok(game)).is_err() {
            break;
        }
    }
    if !flags.aborted() {
        for engine in slots.into_iter().flatten() {
            engine.quit();
        }
    }
    // Otherwise the engines are dropped, which kills them.
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A match between `cmd=a name=one` and `cmd=b` with nothing else set.
    fn config() -> MatchConfig {
        MatchConfig {
            engines: vec!["cmd=a name=one".into(), "cmd=b".into()],
            ..MatchConfig::default()
        }
    }

    /// [`config`] with `nodes` iterations per move.
    fn nodes(n: u64) -> MatchConfig {
        MatchConfig {
            nodes: Some(n),
            ..config()
        }
    }

    #[test]
    fn plans_a_match() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            games: 4,
            ..nodes(100)
        })
        .unwrap();
        assert_eq!(plan.specs[0].name, "one");
        assert_eq!(plan.specs[1].name, "b");
        assert_eq!(plan.controls, [TimeControl::Nodes(100); 2]);
        assert_eq!(plan.settings.margin, Duration::from_millis(50));
        assert_eq!(plan.settings.move_timeout, Duration::from_secs(10));
        assert_eq!(plan.settings.startup_timeout, Duration::from_secs(5));
        assert_eq!(plan.sprt, None);
        assert_eq!(
            plan.describe(),
            "match: one vs b, 4 games, nodes 100, openings: startpos, concurrency 1"
        );
        let setups: Vec<(u64, u64, usize)> = (0..4)
            .map(|i| plan.setup(i).unwrap().1)
            .map(|s| (s.game, s.pair, s.x_engine))
            .collect();
        assert_eq!(setups, [(1, 1, 0), (2, 1, 1), (3, 2, 0), (4, 2, 1)]);
    }

    #[test]
    fn pairs_share_random_openings() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            tc: Some("1+0.01".into()),
            random_plies: Some(6),
            seed: Some(9),
            games: 6,
            sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
            ..config()
        })
        .unwrap();
        assert!(
            plan.describe()
                .contains("tc 1+0.01 s, openings: 6 random plies, seed 9")
        );
        assert_eq!(plan.sprt.map(|s| s.elo1), Some(5.0));
        let opening = |i| plan.setup(i).unwrap().1.opening;
        assert_eq!(opening(2), opening(3));
        assert_ne!(opening(1), opening(2));
    }

    #[test]
    fn refuses_bad_plans() {
        let check = |config: MatchConfig, expected: &str| {
            let err = Plan::<crate::rules::Position>::new(&config)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{config:?}: {err}");
        };
        check(config(), "give one time control");
        check(nodes(0), "--nodes must be at least 1");
        let movetime = |ms| MatchConfig {
            movetime: Some(ms),
            ..config()
        };
        check(movetime(0), "--movetime must be at least 1");
        check(
            MatchConfig {
                nodes: Some(5),
                ..movetime(5)
            },
            "give one time control",
        );
        check(
            MatchConfig {
                games: 3,
                ..nodes(5)
            },
            "--games must be a positive even number",
        );
        check(
            MatchConfig {
                games: 0,
                ..nodes(5)
            },
            "--games must be a positive even number",
        );
        check(
            MatchConfig {
                concurrency: 0,
                ..nodes(5)
            },
            "--concurrency must be between 1 and 256, got 0",
        );
        check(
            MatchConfig {
                tc: Some("x".into()),
                ..config()
            },
            "--tc x",
        );
        check(movetime(86_400_001), "--movetime 86400001 is too long");
        check(
            MatchConfig {
                timemargin: 86_400_001,
                ..nodes(5)
            },
            "--timemargin 86400001 is too long",
        );
        check(
            MatchConfig {
                move_timeout: 86_400_001,
                ..nodes(5)
            },
            "--move-timeout 86400001 is too long",
        );
        check(
            MatchConfig {
                startup_timeout: 86_400_001,
                ..nodes(5)
            },
            "--startup-timeout 86400001 is too long",
        );
        check(
            MatchConfig {
                openings: Some("/nonexistent/book".into()),
                ..nodes(5)
            },
            "cannot read /nonexistent/book",
        );
        check(
            MatchConfig {
                openings: Some("book".into()),
                random_plies: Some(2),
                ..nodes(5)
            },
            "--openings and --random-plies cannot be used together",
        );
        check(
            MatchConfig {
                seed: Some(1),
                ..nodes(5)
            },
            "--seed needs --random-plies",
        );
        check(
            MatchConfig {
                sprt: Some(vec![5.0, 0.0, 0.05, 0.05]),
                ..nodes(5)
            },
            "--sprt: ELO0 must be below ELO1",
        );
        check(
            MatchConfig {
                engines: vec!["cmd=a".into()],
                ..nodes(5)
            },
            "give at least two engines with --engine (got 1)",
        );
        check(
            MatchConfig {
                engines: vec!["cmd=a".into(), "cmd=b proto=x".into()],
                ..nodes(5)
            },
            "--engine 'cmd=b proto=x': proto must be ugi or uci",
        );
    }

    #[test]
    fn cycles_through_file_openings() {
        let dir = std::env::temp_dir().join(format!("ultimo-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.txt");
        std::fs::write(&path, "# two openings\ne5\ne5 e4\n").unwrap();
        let with_book = |games| MatchConfig {
            games,
            openings: Some(path.clone()),
            ..nodes(5)
        };
        let plan = Plan::<crate::rules::Position>::new(&with_book(6)).unwrap();
        let shown: Vec<String> = (0..6)
            .map(|i| plan.setup(i).unwrap().1.opening.to_string())
            .collect();
        assert_eq!(shown, ["e5", "e5", "e5 e4", "e5 e4", "e5", "e5"]);
        std::fs::write(&path, "e5\nbad line\n").unwrap();
        let err = Plan::<crate::rules::Position>::new(&with_book(2)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:2: bad moves 'bad line': 'bad' is not a cell (expected a file a-i and a rank 1-9, like e5)",
                path.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn game_texts() {
        let game = GameRecord {
            game: 3,
            pair: 2,
            x: "base".into(),
            o: "new".into(),
            opening: openings::Opening::<crate::rules::Position>::Moves(vec![]),
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: record::Termination::Timeout,
            reason: "x (base) lost on time: no move within 150 ms".into(),
        };
        assert_eq!(
            game_text(&game, 10),
            "game 3/10: base vs new 0-1 (x (base) lost on time: no move within 150 ms)"
        );
    }

    #[test]
    fn replays_a_pgn_file() {
        let dir = std::env::temp_dir().join(format!("ultimo-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        let text = "[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\
            [Termination \"abandoned\"]\n[Pair \"1\"]\n\n1. e5 {x (a) crashed} 0-1\n";
        std::fs::write(&path, text).unwrap();
        let mut out = Vec::new();
        replay(std::slice::from_ref(&path), false, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("games       1: W 0 D 0 L 1"), "{out}");
        assert!(out.contains("faults      a 1 (1 crash), b none"), "{out}");
        assert!(
            out.ends_with("games.pgn: 1 games, every move legal\n"),
            "{out}"
        );
        std::fs::write(&path, "\n[Round \"1\"]\n1. e5 e5 *\n").unwrap();
        let err = replay(std::slice::from_ref(&path), false, None, &mut Vec::new()).unwrap_err();
        assert!(
            matches!(
                err,
                ArenaError::Record(RecordError::Pgn(pgn::PgnError { line: 3, .. }))
            ),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(
            err.contains("games.pgn:3: move 1... e5 is illegal"),
            "{err}"
        );
        std::fs::write(&path, "").unwrap();
        let err = replay(std::slice::from_ref(&path), false, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("games.pgn: no games"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pgn_file_is_appended_to() {
        let dir = std::env::temp_dir().join(format!("ultimo-pgnout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        std::fs::write(&path, "; kept\n").unwrap();
        let plan = Plan::<crate::rules::Position>::new(&nodes(100)).unwrap();
        let game = GameRecord {
            game: 1,
            pair: 1,
            x: "one".into(),
            o: "b".into(),
            opening: openings::Opening::<crate::rules::Position>::Moves(vec![]),
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: record::Termination::Crash,
            reason: "x (one) could not be started".into(),
        };
        for _ in 0..2 {
            let mut file = RecordFile::create(&path, &plan).unwrap();
            file.write_game(&game).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("; kept\n[Event \"ultimo match 20"),
            "{text}"
        );
        assert!(text.contains("[TimeControl \"nodes=100\"]\n"), "{text}");
        assert!(text.contains("[Termination \"abandoned\"]\n"), "{text}");
        assert!(
            text.contains("\n\n{x (one) could not be started} 0-1\n\n["),
            "{text}"
        );
        let games = pgn::read(&text, "games.pgn").unwrap();
        assert_eq!(games.len(), 2);
        let date = games[0].tag("Date").unwrap();
        assert!(date.len() == 10 && date.starts_with("20"), "{date}");
        let err = RecordFile::create(&dir, &plan).err().unwrap().to_string();
        assert!(err.starts_with("cannot open "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Engines `a`, `b`, .. with `nodes` each, meeting as `tournament`.
    fn many(names: &[&str], tournament: Option<Tournament>) -> MatchConfig {
        MatchConfig {
            engines: names.iter().map(|n| format!("cmd={n}")).collect(),
            tournament,
            ..nodes(5)
        }
    }

    #[test]
    fn gauntlets_and_round_robins_pair_the_engines() {
        let names = ["a", "b", "c", "d"];
        let plan = |t| Plan::<crate::rules::Position>::new(&many(&names, Some(t))).unwrap();
        let pairings = |p: &Plan<crate::rules::Position>| -> Vec<[usize; 2]> {
            p.pairings.iter().map(|p| p.engines).collect()
        };
        let gauntlet = plan(Tournament::Gauntlet);
        assert_eq!(pairings(&gauntlet), [[0, 1], [0, 2], [0, 3]]);
        assert_eq!(gauntlet.run_games(), 3 * DEFAULT_GAMES);
        let round_robin = plan(Tournament::RoundRobin);
        assert_eq!(
            pairings(&round_robin),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(round_robin.run_games(), 6 * DEFAULT_GAMES);
        assert!(
            round_robin.describe().starts_with(
                "round-robin: a, b, c, d; 6 pairings of 100 games (600 games), nodes 5"
            ),
            "{}",
            round_robin.describe()
        );
        // Two engines make one pairing, with or without --tournament.
        let two = Plan::<crate::rules::Position>::new(&many(&names[..2], None)).unwrap();
        assert_eq!(pairings(&two), [[0, 1]]);
        let err = |config: MatchConfig| {
            Plan::<crate::rules::Position>::new(&config)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(many(&names, None)),
            "with 4 engines, say how they meet: --tournament gauntlet or round-robin"
        );
        assert_eq!(
            err(MatchConfig {
                sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
                ..many(&names, Some(Tournament::Gauntlet))
            }),
            "--sprt needs exactly two engines (got 4)"
        );
    }

    #[test]
    fn every_pairing_plays_the_same_openings() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            games: 4,
            random_plies: Some(4),
            seed: Some(3),
            ..many(&["a", "b", "c"], Some(Tournament::RoundRobin))
        })
        .unwrap();
        assert_eq!(plan.run_games(), 12);
        let setups: Vec<(usize, GameSetup<crate::rules::Position>)> =
            (0..12).map(|i| plan.setup(i).unwrap()).collect();
        let numbers: Vec<(usize, u64, u64, usize)> = setups
            .iter()
            .map(|(p, s)| (*p, s.game, s.pair, s.x_engine))
            .collect();
        assert_eq!(
            numbers[..4],
            [(0, 1, 1, 0), (0, 2, 1, 1), (0, 3, 2, 0), (0, 4, 2, 1)]
        );
        assert_eq!(numbers[11], (2, 12, 6, 1));
        // Pair p of each pairing starts from opening p.
        for k in 0..3 {
            assert_eq!(setups[4 * k].1.opening, setups[0].1.opening);
            assert_eq!(setups[4 * k + 2].1.opening, setups[2].1.opening);
        }
        assert_ne!(setups[0].1.opening, setups[2].1.opening);
    }

    #[test]
    fn shards_play_their_share_as_the_whole_match_would() {
        let config = |shard: Option<&str>| MatchConfig {
            games: 4,
            random_plies: Some(4),
            seed: Some(3),
            shard: shard.map(String::from),
            ..many(&["a", "b", "c"], Some(Tournament::RoundRobin))
        };
        let whole = Plan::<crate::rules::Position>::new(&config(None)).unwrap();
        let key = |(p, s): (usize, GameSetup<crate::rules::Position>)| {
            (p, s.game, s.pair, s.x_engine, s.opening.to_string())
        };
        let all: Vec<_> = (0..whole.run_games())
            .map(|i| key(whole.setup(i).unwrap()))
            .collect();
        let mut union = Vec::new();
        for k in 1..=4 {
            let shard =
                Plan::<crate::rules::Position>::new(&config(Some(&format!("{k}/4")))).unwrap();
            assert_eq!(
                shard.pairs,
                (0..6).filter(|i| i % 4 == k - 1).collect::<Vec<u64>>()
            );
            assert!(
                shard
                    .describe()
                    .ends_with(&format!("shard {k}/4: {} of 6 pairs", shard.pairs.len())),
                "{}",
                shard.describe()
            );
            union.extend((0..shard.run_games()).map(|i| key(shard.setup(i).unwrap())));
        }
        union.sort_by_key(|g| g.1);
        // Shards without a seed would not share their openings.
        let unseeded = MatchConfig {
            seed: None,
            ..config(Some("1/4"))
        };
        let err = Plan::<crate::rules::Position>::new(&unseeded).unwrap_err();
        assert_eq!(err.to_string(), "--shard with --random-plies needs --seed");
        assert_eq!(union, all);
        // More shards than pairs: some play nothing.
        let empty = Plan::<crate::rules::Position>::new(&config(Some("8/8"))).unwrap();
        assert_eq!(empty.run_games(), 0);
        for bad in ["0/2", "3/2", "1", "a/b", "1/0", "-1/2"] {
            let err = Plan::<crate::rules::Position>::new(&config(Some(bad))).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("--shard '{bad}': expected K/N with 1 <= K <= N, e.g. 2/8")
            );
        }
        let err = Plan::<crate::rules::Position>::new(&MatchConfig {
            sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
            shard: Some("1/2".into()),
            ..nodes(5)
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "--sprt and --shard cannot be used together"
        );
    }

    #[test]
    fn each_engine_has_exactly_one_limit() {
        let engines = |specs: &[&str]| specs.iter().map(|s| s.to_string()).collect();
        let plan = |config: MatchConfig| Plan::<crate::rules::Position>::new(&config);
        // Its own limit overrides the match's.
        let odds = plan(MatchConfig {
            engines: engines(&["cmd=a tc=2+0.1", "cmd=b"]),
            nodes: Some(300),
            ..MatchConfig::default()
        })
        .unwrap();
        assert_eq!(
            odds.controls,
            [
                TimeControl::parse_clock("2+0.1").unwrap(),
                TimeControl::Nodes(300)
            ]
        );
        assert_eq!(
            odds.pairings[0].controls,
            [odds.controls[0], odds.controls[1]]
        );
        assert!(
            odds.describe()
                .starts_with("match: a (tc 2+0.1 s) vs b (nodes 300), 100 games, openings"),
            "{}",
            odds.describe()
        );
        // Every engine with its own: no match-wide limit needed.
        let own = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1", "cmd=b movetime=20"]),
            ..MatchConfig::default()
        })
        .unwrap();
        assert_eq!(
            own.controls[1],
            TimeControl::Movetime(Duration::from_millis(20))
        );
        let err = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1", "cmd=b"]),
            ..MatchConfig::default()
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "engine b has no time control: give --movetime, --nodes or --tc, or movetime=, nodes= or tc= in its --engine"
        );
        let err = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1 movetime=5", "cmd=b"]),
            ..nodes(5)
        })
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("give at most one of tc=, nodes= and movetime="),
            "{err}"
        );
    }

    #[test]
    fn merges_shards_into_one_summary() {
        let dir = std::env::temp_dir().join(format!("ultimo-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (dir.join("a.pgn"), dir.join("b.pgn"), dir.join("c.pgn"));
        // Game n of a shard started at `event`: o wins as x crashes.
        let game = |event: &str, n: u64, x: &str, o: &str| {
            format!(
                "[Event \"{event}\"]\n[Round \"{n}\"]\n[White \"{x}\"]\n[Black \"{o}\"]\n\
                 [Result \"0-1\"]\n[Termination \"abandoned\"]\n[Pair \"{}\"]\n\n\
                 1. e5 {{x crashed}} 0-1\n\n",
                n.div_ceil(2)
            )
        };
        // Each shard has its own start, so its own Event.
        std::fs::write(&a, game("shard 1", 1, "p", "q")).unwrap();
        std::fs::write(&b, game("shard 2", 3, "p", "r")).unwrap();
        std::fs::write(&c, game("shard 3", 1, "q", "r")).unwrap();
        let mut out = Vec::new();
        let json = replay(&[b.clone(), a.clone()], true, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        // The engines by Round, whatever the order of the files.
        assert!(
            out.starts_with("engines     p, q, r (2 pairings, 2 games)\n"),
            "{out}"
        );
        assert!(
            out.contains("Score of p vs q: 0 - 1 - 0  [0.000] 1\n"),
            "{out}"
        );
        assert!(
            out.contains("Score of p vs r: 0 - 1 - 0  [0.000] 1\n"),
            "{out}"
        );
        assert!(
            out.contains("b.pgn: 1 games, every move legal\nrecord      "),
            "{out}"
        );
        assert_eq!(json["standings"]["games"], 2);
        assert_eq!(json["records"].as_array().unwrap().len(), 2);
        let err = replay(&[a.clone(), c.clone()], true, None, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:1: game 1 again (first in {}, line 1)",
                c.display(),
                a.display()
            )
        );
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let err = replay(&[a.clone(), b.clone()], true, Some(&sprt), &mut Vec::new()).unwrap_err();
        assert_eq!(err.to_string(), "--sprt needs exactly two engines (got 3)");
        // One file of two matches (two Events): --replay takes each game 1
        // as its match's; --merge takes the file as one match.
        let both = dir.join("both.pgn");
        let text = game("match 1", 1, "p", "q") + &game("match 2", 1, "p", "q");
        std::fs::write(&both, text).unwrap();
        let mut out = Vec::new();
        replay(std::slice::from_ref(&both), false, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("games       2: W 0 D 0 L 2"), "{out}");
        let err = replay(std::slice::from_ref(&both), true, None, &mut Vec::new()).unwrap_err();
        assert!(
            err.to_string().contains("game 1 again (first on line 1)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The game of `setup` in `plan`'s pairing `pairing`, lost by x's crash
    /// before any move.
    fn crashed(
        plan: &Plan<crate::rules::Position>,
        (pairing, setup): (usize, GameSetup<crate::rules::Position>),
    ) -> GameRecord {
        let engines = plan.pairings[pairing].engines;
        let name = |i: usize| plan.specs[engines[i]].name.clone();
        GameRecord {
            game: setup.game,
            pair: setup.pair,
            x: name(setup.x_engine),
            o: name(1 - setup.x_engine),
            opening: setup.opening,
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: record::Termination::Crash,
            reason: "x crashed".into(),
        }
    }

    #[test]
    fn records_give_the_engines_in_engine_order() {
        let names = ["d", "b", "a", "c"];
        for tournament in [Tournament::Gauntlet, Tournament::RoundRobin] {
            let config = |shard: Option<String>| MatchConfig {
                games: 4,
                random_plies: Some(2),
                seed: Some(5),
                shard,
                ..many(&names, Some(tournament))
            };
            let tags = |event: &str| MatchTags {
                event: event.into(),
                site: "?".into(),
                date: pgn::UNKNOWN_DATE.into(),
                time_controls: ["nodes=5".into(), "nodes=5".into()],
            };
            // The whole match, its games finished in reverse order.
            let whole = Plan::<crate::rules::Position>::new(&config(None)).unwrap();
            let games: Vec<PgnGame> = (0..whole.run_games())
                .rev()
                .map(|i| crashed(&whole, whole.setup(i).unwrap()).to_pgn(&tags("whole")))
                .collect();
            let record = Record::<crate::rules::Position>::from_games(&games, "w.pgn").unwrap();
            assert_eq!(record.engines, names, "{tournament:?}");
            // Its three shards, each with its own Event, read in reverse.
            let shards: Vec<(String, Vec<PgnGame>)> = (1..=3)
                .rev()
                .map(|k| {
                    let plan = Plan::<crate::rules::Position>::new(&config(Some(format!("{k}/3"))))
                        .unwrap();
                    let event = format!("shard {k}");
                    let games = (0..plan.run_games())
                        .map(|i| crashed(&plan, plan.setup(i).unwrap()).to_pgn(&tags(&event)))
                        .collect();
                    (format!("{k}.pgn"), games)
                })
                .collect();
            let files: Vec<(&str, &[PgnGame])> = shards
                .iter()
                .map(|(name, games)| (name.as_str(), games.as_slice()))
                .collect();
            let merged = Record::<crate::rules::Position>::merge(&files).unwrap();
            assert_eq!(merged.engines, names, "{tournament:?}");
            assert_eq!(merged.games.len(), record.games.len());
        }
    }

    #[test]
    fn pgn_gives_each_side_its_own_time_control() {
        let dir = std::env::temp_dir().join(format!("ultimo-controls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            engines: vec!["cmd=a tc=2+0.1".into(), "cmd=b".into(), "cmd=c".into()],
            tournament: Some(Tournament::Gauntlet),
            nodes: Some(300),
            ..MatchConfig::default()
        })
        .unwrap();
        let mut file = RecordFile::create(&path, &plan).unwrap();
        // a (its own clock) against b, then b against c (the same nodes).
        let mut game = crashed(&plan, plan.setup(1).unwrap());
        assert_eq!((game.x.as_str(), game.o.as_str()), ("b", "a"));
        file.write_game(&game).unwrap();
        let mut third = crashed(&plan, plan.setup(2).unwrap());
        (third.x, third.o) = ("b".into(), "c".into());
        file.write_game(&third).unwrap();
        drop(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let games = pgn::read(&text, "games.pgn").unwrap();
        assert_eq!(games[0].tag("WhiteTimeControl"), Some("nodes=300"));
        assert_eq!(games[0].tag("BlackTimeControl"), Some("2+0.1"));
        assert_eq!(games[0].tag("TimeControl"), None);
        assert_eq!(games[1].tag("TimeControl"), Some("nodes=300"));
        assert_eq!(games[1].tag("WhiteTimeControl"), None);
        // The reader takes both forms.
        let record = Record::<crate::rules::Position>::from_games(&games, "games.pgn").unwrap();
        game.notes.clear();
        assert_eq!(record.games[0], game);
        assert_eq!(record.engines, ["b", "a", "c"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
