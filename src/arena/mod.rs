//! `ultimo match`: plays games between two engines that speak the Ultimo
//! protocol (or UGI/UCI), referees every move with Ultimo's rules, and
//! reports the first engine's score, Elo, LOS and an optional SPRT.
//!
//! - [`engine`]: starting engines and talking to them.
//! - [`game`]: one game, refereed.
//! - [`clock`]: time controls and the referee's clocks.
//! - [`openings`]: openings from a file or random moves.
//! - [`record`]: the games in PGN, appended to `--pgnout` and read back
//!   (`--replay`).
//! - [`tally`]: the running score and the summary.
//!
//! [`run`] takes a [`Job`]: a match ([`MatchConfig`], the settings as given,
//! checked here before anything starts) or a replay. The command line (`ultimo match`)
//! makes one from its arguments. Errors are [`ArenaError`], which
//! wraps each module's own error type.
//!
//! Each opening is played by a pair of games with colours swapped: in the
//! first game of pair `p` (game `2p - 1`) the first engine plays `x`, in the
//! second `o`. The games run on `--concurrency` threads, each with its own
//! two engine processes, kept from game to game (`uginewgame` between
//! games) until one commits a fault, when it is killed and started afresh.
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
use tally::{Sprt, SprtError, Tally, TallyError};

use crate::arena::stats::SprtDecision;

/// Why a match or a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// Not exactly two `--engine` values.
    #[error("give exactly two engines with --engine (got {0})")]
    EngineCount(usize),
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
    /// Play a match.
    Match(MatchConfig),
    /// Play nothing: read a PGN file of a match back, check every game with
    /// the rules and print its summary.
    Replay {
        /// The PGN file.
        record: PathBuf,
        /// The SPRT's settings (ELO0 ELO1 ALPHA BETA), if any.
        sprt: Option<Vec<f64>>,
    },
}

/// The settings of a match as given, unchecked: [`run`] checks them all
/// before anything starts. Times are in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The two engines, each `cmd=PROGRAM [arg=ARG].. [name=NAME]
    /// [proto=ugi|uci] [option.NAME=VALUE]..`.
    pub engines: Vec<String>,
    /// Games to play, even.
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
        }
    }
}

/// Runs `job`: plays a match and prints its progress (standard error) and
/// summary (standard output), or prints the summary of a record.
pub fn run(job: &Job) -> Result<(), ArenaError> {
    match job {
        Job::Match(config) => match config.game {
            GameKind::Uttt => run_match(&Plan::<crate::rules::Position>::new(config)?),
            GameKind::Super15 => run_match(&Plan::<crate::super15::Position>::new(config)?),
        },
        Job::Replay { record, sprt } => {
            let sprt = sprt.as_deref().map(Sprt::new).transpose()?;
            replay(record, sprt.as_ref(), &mut io::stdout().lock())
        }
    }
}

/// Prints the summary of the PGN file at `path` after checking it. The
/// game is the first game's `Variant`.
fn replay(path: &Path, sprt: Option<&Sprt>, out: &mut impl Write) -> Result<(), ArenaError> {
    let name = path.display().to_string();
    let text = read(path)?;
    let games = pgn::read(&text, &name).map_err(RecordError::from)?;
    // An unknown variant is reported by the game's replay.
    let kind = games.first().and_then(PgnGame::kind).unwrap_or_default();
    match kind {
        GameKind::Uttt => replay_game::<crate::rules::Position>(&games, &name, sprt, out),
        GameKind::Super15 => replay_game::<crate::super15::Position>(&games, &name, sprt, out),
    }
}

/// Prints the summary of the `games` of game `G`, from file `name`.
fn replay_game<G: ArenaGame + PgnNotation>(
    games: &[PgnGame],
    name: &str,
    sprt: Option<&Sprt>,
    out: &mut impl Write,
) -> Result<(), ArenaError> {
    let record = Record::<G>::from_games(games, name)?;
    let mut tally = Tally::new(record.engines.clone());
    for game in &record.games {
        tally.add(game)?;
    }
    write!(out, "{}", tally.summary(sprt))
        .and_then(|_| {
            writeln!(
                out,
                "{:<12}{name}: {} games, every move legal",
                "record",
                record.games.len()
            )
        })
        .map_err(ArenaError::Output)
}

/// The text of the file at `path`.
fn read(path: &Path) -> Result<String, ArenaError> {
    std::fs::read_to_string(path).map_err(|problem| ArenaError::Read {
        path: path.to_path_buf(),
        problem,
    })
}

/// Everything a match needs, checked before it starts.
#[derive(Debug)]
struct Plan<G: ArenaGame> {
    specs: [EngineSpec; 2],
    games: u64,
    /// The openings of the pairs.
    openings: OpeningBook<G>,
    /// Where the openings come from, in words.
    openings_source: String,
    settings: GameSettings,
    concurrency: usize,
    sprt: Option<Sprt>,
    record: Option<PathBuf>,
}

impl<G: ArenaGame> Plan<G> {
    /// Checks the settings and reads or makes the openings.
    fn new(args: &MatchConfig) -> Result<Plan<G>, ArenaError> {
        let sprt = args.sprt.as_deref().map(Sprt::new).transpose()?;
        let mut specs = match &args.engines[..] {
            [a, b] => [EngineSpec::parse(a)?, EngineSpec::parse(b)?],
            _ => return Err(ArenaError::EngineCount(args.engines.len())),
        };
        engine::distinct_names(&mut specs)?;
        if G::KIND != GameKind::Uttt {
            // The game first, before the engine's own options.
            for spec in &mut specs {
                let game = ("Game".to_string(), G::KIND.to_string());
                spec.options.insert(0, game);
            }
        }
        let control = TimeControl::from_options(args.movetime, args.nodes, args.tc.as_deref())?;
        if args.games == 0 || !args.games.is_multiple_of(2) {
            return Err(ArenaError::Games(args.games));
        }
        if !(1..=MAX_CONCURRENCY).contains(&args.concurrency) {
            return Err(ArenaError::Concurrency(args.concurrency));
        }
        let settings = GameSettings {
            control,
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
        Ok(Plan {
            specs,
            games: args.games,
            openings,
            openings_source,
            settings,
            concurrency: args.concurrency,
            sprt,
            record: args.record.clone(),
        })
    }

    /// The game at `index` (from 0): number, pair, opening and colours.
    fn setup(&self, index: u64) -> Result<GameSetup<G>, OpeningError> {
        let pair = index / 2;
        Ok(GameSetup {
            game: index + 1,
            pair: pair + 1,
            opening: self.openings.opening(pair)?,
            x_engine: (index % 2) as usize,
        })
    }

    /// The first line of progress: who plays, how long, from where.
    fn describe(&self) -> String {
        let game = match G::KIND {
            GameKind::Uttt => String::new(),
            kind => format!(" of {kind}"),
        };
        format!(
            "match: {} vs {}, {} games{game}, {}, openings: {}, concurrency {}",
            self.specs[0].name,
            self.specs[1].name,
            self.games,
            self.settings.control,
            self.openings_source,
            self.concurrency
        )
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
    /// The tags every game shares (the date is set per game).
    tags: MatchTags,
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
                time_control: record::time_control_tag(&plan.settings.control),
            },
        })
    }

    /// Appends a finished game (dated today) and a blank line, and flushes
    /// them, so the file is complete at any moment.
    fn write_game<G: ArenaGame>(&mut self, game: &GameRecord<G>) -> Result<(), ArenaError> {
        self.tags.date = pgn::date_from_unix(unix_seconds());
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

    /// A finished game (`text`) and the score so far (`status`): one line
    /// when piped; on a terminal the status line, `played/total` first,
    /// with faults on a line of their own above it.
    fn game(&mut self, text: &str, status: &str, fault: bool, played: u64, total: u64) {
        if !self.terminal {
            self.line(&format!("{text}; {status}"));
            return;
        }
        if fault {
            self.line(text);
        }
        let _ = write!(
            io::stderr().lock(),
            "\r\x1b[K{played}/{total} games: {status}"
        );
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
/// `game 3/100: base-new 1-0 (x has three boards in a line)`.
fn game_text<G: ArenaGame>(game: &GameRecord<G>, total: u64) -> String {
    format!(
        "game {}/{total}: {}-{} {} ({})",
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
    tally: Tally,
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
        if let Err(e) = self.tally.add(&game) {
            return self.fail(e.into());
        }
        if let Some(file) = self.record.as_mut()
            && let Err(e) = file.write_game(&game)
        {
            self.fail(e);
        }
        let fault = game.termination != record::Termination::Normal;
        let text = game_text(&game, self.plan.games);
        let (played, total) = (self.tally.games(), self.plan.games);
        self.progress
            .game(&text, &self.tally.progress(), fault, played, total);
        if let Some(sprt) = &self.plan.sprt
            && sprt.state(&self.tally.penta).decision() != SprtDecision::Continue
        {
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
            None => format!("all {} games played", self.plan.games),
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
    let mut referee = Referee {
        plan,
        flags: &flags,
        tally: Tally::new([plan.specs[0].name.clone(), plan.specs[1].name.clone()]),
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
            let (next_game, flags) = (&next_game, &flags);
            scope.spawn(move || worker(plan, next_game, flags, sender));
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
    write!(out, "{}", referee.tally.summary(plan.sprt.as_ref()))
        .and_then(|_| writeln!(out, "{:<12}{}", "end", referee.ending()))
        .and_then(|_| {
            let seconds = started.elapsed().as_secs_f64();
            writeln!(out, "{:<12}{seconds:.1} s", "time")
        })
        .and_then(|_| out.flush())
        .map_err(ArenaError::Output)?;
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
/// `results`.
fn worker<G: ArenaGame>(
    plan: &Plan<G>,
    next_game: &AtomicU64,
    flags: &Flags,
    results: mpsc::Sender<Result<GameRecord<G>, OpeningError>>,
) {
    let mut slots: [Option<Engine>; 2] = [None, None];
    while !flags.stop_starting.load(Ordering::SeqCst) {
        let index = next_game.fetch_add(1, Ordering::SeqCst);
        if index >= plan.games {
            break;
        }
        let setup = match plan.setup(index) {
            Ok(setup) => setup,
            Err(e) => {
                let _ = results.send(Err(e));
                break;
            }
        };
        let Some(game) = game::play_game(
            &mut slots,
            &plan.specs,
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
        assert_eq!(plan.settings.control, TimeControl::Nodes(100));
        assert_eq!(plan.settings.margin, Duration::from_millis(50));
        assert_eq!(plan.settings.move_timeout, Duration::from_secs(10));
        assert_eq!(plan.settings.startup_timeout, Duration::from_secs(5));
        assert_eq!(plan.sprt, None);
        assert_eq!(
            plan.describe(),
            "match: one vs b, 4 games, nodes 100, openings: startpos, concurrency 1"
        );
        let setups: Vec<(u64, u64, usize)> = (0..4)
            .map(|i| plan.setup(i).unwrap())
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
        let opening = |i| plan.setup(i).unwrap().opening;
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
            "give exactly two engines with --engine (got 1)",
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
            .map(|i| plan.setup(i).unwrap().opening.to_string())
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
            "game 3/10: base-new 0-1 (x (base) lost on time: no move within 150 ms)"
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
        replay(&path, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("games       1: W 0 D 0 L 1"), "{out}");
        assert!(out.contains("faults      a 1 (1 crash), b none"), "{out}");
        assert!(
            out.ends_with("games.pgn: 1 games, every move legal\n"),
            "{out}"
        );
        std::fs::write(&path, "\n[Round \"1\"]\n1. e5 e5 *\n").unwrap();
        let err = replay(&path, None, &mut Vec::new()).unwrap_err();
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
        let err = replay(&path, None, &mut Vec::new())
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
}
