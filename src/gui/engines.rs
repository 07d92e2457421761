//! The engines behind the page. Each seat (x, o, analysis, whole-game
//! analysis) has a worker thread that owns one engine and carries out one
//! job at a time: find a move, analyse a position until told to stop, or
//! analyse every position of a game.
//!
//! Every job is of either game (see [`super::game`]): the worker keeps a
//! searcher for the game it was last asked about, and tells an engine
//! process `setoption name Game value ...` when the game changes.
//!
//! Ultimo itself runs in-process (an [`AsyncSearcher`], stopped when the
//! job is cancelled): its reports carry every root move's visits (the heat
//! map) and proven results directly, and short searches that keep their
//! tree give the first analysis line within a tenth of a second. Other engines are processes
//! driven over UGI/UCI with the match runner's code
//! ([`crate::client::engine::EngineProcess`]), their `info` lines read while they
//! think.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use crate::client::engine::{EngineError, EngineProcess, EngineSpec};
use crate::client::referee::referee;
use crate::display::score::{centipawns, move_note, proven_text};
use crate::engine::{AsyncSearcher, Eval, Job, SearchRequest, Setup, Strength, level_rng};
use crate::game::{GameKind, Player, Verdict};
use crate::pgn::MoveNote;
use crate::protocol::GAME_OPTION;
use crate::review;
use crate::search::{Clock, Control, Limits, MAX_THREADS, Options, Report, Searcher, cores};
use crate::{rules, super15};

use super::game::{AnyLine, GuiGame, Line};
use super::session::{AnalysisView, LineView, MoveLimit, ScanPoint};

/// An engine the page can use: Ultimo, or an engine process.
#[derive(Clone, Debug)]
pub enum EngineChoice {
    /// Ultimo, in-process.
    Ultimo,
    /// A UGI/UCI engine process.
    External(EngineSpec),
}

/// What a job asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Find a move; `clocks` are x's and o's times left (clock games).
    Move {
        /// Thinking per move.
        limit: MoveLimit,
        /// Milliseconds left on x's and o's clocks.
        clocks: [u64; 2],
        /// How strongly Ultimo plays (other engines play at their own).
        strength: Strength,
    },
    /// Analyse until cancelled, reporting the `multipv` best lines.
    Analyse {
        /// Lines reported.
        multipv: usize,
    },
    /// Analyse every position of the game, `nodes` iterations each.
    Scan {
        /// Iterations per position.
        nodes: u64,
    },
}

/// A job for a worker: a game (start and moves) and what to do at its end,
/// with the job's number.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// Its number; a job is cancelled when the worker's wanted number
    /// changes.
    pub id: u64,
    /// The game, of either kind.
    pub line: AnyLine,
    /// What to do.
    pub task: Task,
}

/// What a worker tells the page.
#[derive(Clone, Debug)]
pub enum Update {
    /// The current analysis.
    Info(AnalysisView),
    /// The move found (as the game writes it), how long it took, and what
    /// the engine said of it (its last score and depth, and the time).
    Best(String, Duration, MoveNote),
    /// Whole-game analysis: what the search found at this ply.
    ScanPoint(usize, ScanPoint),
    /// The engine failed (crashed, hung, illegal or unreadable move); the
    /// worker has ended.
    Failed(String),
    /// The job ended (a whole-game analysis, or a proven analysis).
    Done,
}

/// Why an engine stopped working (the worker ends, and the process is
/// killed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// It could not be started.
    #[error("could not be started: {0}")]
    Start(String),
    /// Its process failed (crashed, closed its output, a broken pipe).
    #[error("{0}")]
    Process(String),
    /// It sent an illegal or unreadable move.
    #[error("{0}")]
    Illegal(String),
    /// It did not answer in time.
    #[error("{0}: it seems to hang")]
    Hung(String),
}

/// Where a worker sends its updates: the job number and the update.
pub type Sink = Arc<dyn Fn(u64, Update) + Send + Sync>;

/// How long an engine may take past its time before it counts as hung.
const GRACE: Duration = Duration::from_secs(5);
/// The longest a move with a node limit may take.
const NODES_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest an engine may take to start.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a waiting worker looks at its wanted job.
const POLL: Duration = Duration::from_millis(20);
/// Memory for Ultimo's search tree, in MiB (its threads, one per core,
/// share it).
const ULTIMO_HASH_MB: usize = 64;
/// Time Ultimo keeps back from every move (it runs in-process: no pipe to
/// cross).
const ULTIMO_MOVE_OVERHEAD: Duration = Duration::from_millis(5);
/// Ultimo's first search of an analysis: short, so that lines show at once.
const FIRST_CHUNK: Duration = Duration::from_millis(60);
/// The longest of its later searches (each twice the last), so that the
/// lines still change several times a second.
const LONGEST_CHUNK: Duration = Duration::from_millis(400);
/// The least time between two updates of an engine process's analysis
/// (unless every line has come in).
const INFO_INTERVAL: Duration = Duration::from_millis(150);

/// A worker and its engine, running as a [`Job`]: assignments come to it
/// one at a time, and the latest wanted is the one it works on.
pub struct Worker {
    tx: Sender<Assignment>,
    wanted: Arc<AtomicU64>,
    job: Job<()>,
}

impl Worker {
    /// Starts a worker for the engine `choice`, named `name`; the error
    /// when its thread cannot be started. A worker that fails (its engine,
    /// or the worker itself: a panic) sends [`Update::Failed`] for the job
    /// it was on, and ends.
    pub fn spawn(choice: EngineChoice, name: String, sink: Sink) -> std::io::Result<Worker> {
        let (tx, rx) = mpsc::channel();
        let wanted = Arc::new(AtomicU64::new(0));
        let w = Arc::clone(&wanted);
        let job = Job::spawn("gui-engine", Arc::new(Control::new()), move |_, _| {
            let (on, report) = (Arc::clone(&w), Arc::clone(&sink));
            let worked = panic::catch_unwind(AssertUnwindSafe(|| work(choice, name, rx, w, sink)));
            if worked.is_err() {
                let why = "internal error: the engine's worker failed";
                report(on.load(Ordering::SeqCst), Update::Failed(why.into()));
            }
        })?;
        Ok(Worker { tx, wanted, job })
    }

    /// Starts `job`, cancelling any other; false when the worker has ended.
    pub fn run(&self, job: Assignment) -> bool {
        if self.job.is_finished() {
            return false;
        }
        self.wanted.store(job.id, Ordering::SeqCst);
        self.tx.send(job).is_ok()
    }

    /// Cancels the current job.
    pub fn cancel(&self) {
        self.wanted.store(0, Ordering::SeqCst);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Ultimo's searcher for the game it plays now (one at a time: the
/// other's tree is freed).
#[derive(Default)]
struct Ultimo {
    uttt: Option<Slot<rules::Position>>,
    super15: Option<Slot<super15::Position>>,
}

/// Ultimo's searcher for a game, with its number of threads.
type Slot<G> = (Box<AsyncSearcher<G>>, usize);

/// The threads for `task`: one for the whole-game review, which must give
/// the same marks on every run and the same as `ultimo analyze --review
/// --threads 1` (a tree shared by several threads is searched in another
/// order each time), every core for the rest.
fn threads_for(task: &Task) -> usize {
    match task {
        Task::Scan { .. } => 1,
        _ => cores().min(MAX_THREADS),
    }
}

/// An engine, once started.
enum Backend {
    Ultimo(Ultimo),
    /// A process, and the game it was told to play.
    External(EngineProcess, GameKind),
}

/// The worker's loop: jobs until the channel closes or the engine fails.
fn work(
    choice: EngineChoice,
    name: String,
    rx: Receiver<Assignment>,
    wanted: Arc<AtomicU64>,
    sink: Sink,
) {
    let mut backend = None;
    while let Ok(mut job) = rx.recv() {
        // Only the latest job matters.
        while let Ok(newer) = rx.try_recv() {
            job = newer;
        }
        if wanted.load(Ordering::SeqCst) != job.id {
            continue;
        }
        if backend.is_none() {
            match start(&choice) {
                Ok(b) => backend = Some(b),
                Err(e) => {
                    sink(job.id, Update::Failed(e.to_string()));
                    return;
                }
            }
        }
        let Some(b) = backend.as_mut() else { return };
        let ctx = Ctx {
            id: job.id,
            wanted: &wanted,
            sink: &sink,
            name: &name,
        };
        let result = match (b, &job.line) {
            (Backend::Ultimo(u), AnyLine::Uttt(line)) => {
                u.super15 = None;
                searcher(&mut u.uttt, threads_for(&job.task))
                    .and_then(|s| ultimo_job(s, line, &job.task, &ctx))
            }
            (Backend::Ultimo(u), AnyLine::Super15(line)) => {
                u.uttt = None;
                searcher(&mut u.super15, threads_for(&job.task))
                    .and_then(|s| ultimo_job(s, line, &job.task, &ctx))
            }
            (Backend::External(engine, game), line) => switch_game(engine, game, line.game())
                .and_then(
                    |()| super::game::each!(line, l => external_job(engine, l, &job.task, &ctx)),
                ),
        };
        if let Err(why) = result {
            sink(job.id, Update::Failed(why.to_string()));
            return; // drops the engine: the process is killed
        }
    }
}

fn start(choice: &EngineChoice) -> Result<Backend, Failure> {
    let fail = |e: &dyn std::fmt::Display| Failure::Start(e.to_string());
    match choice {
        EngineChoice::Ultimo => Ok(Backend::Ultimo(Ultimo::default())),
        EngineChoice::External(spec) => {
            let never = AtomicBool::new(false);
            let mut engine =
                EngineProcess::start(spec, START_TIMEOUT, &never).map_err(|e| fail(&e))?;
            engine
                .new_game(START_TIMEOUT, &never)
                .map_err(|e| fail(&e))?;
            // An engine starts in its default game, Ultimate Tic-Tac-Toe.
            Ok(Backend::External(engine, GameKind::Uttt))
        }
    }
}

/// Ultimo's searcher in `slot` with `threads` threads, made when there is
/// none or it has another number of threads.
fn searcher<G: GuiGame>(
    slot: &mut Option<Slot<G>>,
    threads: usize,
) -> Result<&mut AsyncSearcher<G>, Failure> {
    if slot.as_ref().is_some_and(|(_, t)| *t != threads) {
        *slot = None;
    }
    if slot.is_none() {
        // The built-in net, where the game has one, with the engine's own
        // settings for it (`Eval net`).
        let setup = Setup::new(
            Options {
                threads,
                hash_mb: ULTIMO_HASH_MB,
                move_overhead: ULTIMO_MOVE_OVERHEAD,
                ..Options::default()
            },
            Eval::Net,
        );
        let fail = |e: &dyn std::fmt::Display| Failure::Start(e.to_string());
        let net = setup.load_net::<G>().map_err(|e| fail(&e))?;
        let s = AsyncSearcher::new(&setup, net.as_ref(), G::startpos()).map_err(|e| fail(&e))?;
        *slot = Some((Box::new(s), threads));
    }
    slot.as_mut()
        .map(|(s, _)| &mut **s)
        .ok_or_else(|| Failure::Start("no searcher".into()))
}

/// Tells an engine process to play `wanted` when it plays another game:
/// `setoption name Game value ...`, a new game, and `readyok`; an engine
/// that answers `info string error` does not play that game.
fn switch_game(
    engine: &mut EngineProcess,
    current: &mut GameKind,
    wanted: GameKind,
) -> Result<(), Failure> {
    if *current == wanted {
        return Ok(());
    }
    let never = AtomicBool::new(false);
    engine
        .send(&format!("setoption name {GAME_OPTION} value {wanted}"))
        .map_err(process)?;
    let mut error = None;
    engine.send("isready").map_err(process)?;
    engine
        .wait_for(START_TIMEOUT, &never, |line| {
            if let Some(e) = line.strip_prefix("info string error") {
                error.get_or_insert_with(|| e.trim_start_matches(':').trim().to_string());
            }
            line == "readyok"
        })
        .map_err(process)?;
    if let Some(e) = error {
        return Err(Failure::Start(format!("cannot play {wanted}: {e}")));
    }
    engine.new_game(START_TIMEOUT, &never).map_err(process)?;
    *current = wanted;
    Ok(())
}

/// What a job reports to.
struct Ctx<'a> {
    id: u64,
    wanted: &'a AtomicU64,
    sink: &'a Sink,
    name: &'a str,
}

impl Ctx<'_> {
    fn cancelled(&self) -> bool {
        self.wanted.load(Ordering::SeqCst) != self.id
    }

    fn send(&self, update: Update) {
        (self.sink)(self.id, update);
    }
}

fn position<G: GuiGame>(line: &Line<G>) -> G {
    line.position_at(line.moves.len())
}

/// Searches with `limits`, stopping early when the job is cancelled.
fn search<G: GuiGame>(
    searcher: &mut AsyncSearcher<G>,
    pos: &G,
    limits: Limits,
    ctx: &Ctx,
) -> Result<Report<G::Move>, Failure> {
    let request = SearchRequest::new(*pos, limits);
    searcher
        .run(request, &mut |_| {}, &|| ctx.cancelled())
        .map_err(|e| Failure::Process(e.to_string()))
}

/// Win/draw/loss counts per root move over an analysis's back-to-back
/// searches. Each search counts only its own iterations, so a move that a
/// later search hardly visits would show `0%` draws; here every search's
/// shares are added up, weighted by the visits it gave the move.
#[derive(Default)]
struct WdlSums {
    /// By move: the weighted sums and the visits seen so far.
    moves: std::collections::HashMap<String, ([f64; 3], u64)>,
}

impl WdlSums {
    /// Adds a report's line for `mv` (`visits` in all, `wdl` in permille
    /// over this search's iterations) and gives the shares over all of
    /// them.
    fn add(&mut self, mv: String, visits: u64, wdl: [u32; 3]) -> [u32; 3] {
        let (sums, seen) = self.moves.entry(mv).or_insert(([0.0; 3], 0));
        let new = visits.saturating_sub(*seen).max(u64::from(*seen == 0));
        *seen = visits.max(*seen);
        for (s, w) in sums.iter_mut().zip(wdl) {
            *s += f64::from(w) * new as f64;
        }
        let total: f64 = sums.iter().sum();
        if total <= 0.0 {
            return wdl;
        }
        let w = (1000.0 * sums[0] / total).round() as u32;
        let d = ((1000.0 * sums[1] / total).round() as u32).min(1000 - w.min(1000));
        [w.min(1000), d, 1000 - w.min(1000) - d]
    }
}

/// The page's view of an Ultimo report.
fn view<G: GuiGame>(
    report: &Report<G::Move>,
    pos: &G,
    name: &str,
    nodes: u64,
    since: Instant,
    multipv: usize,
    sums: &mut WdlSums,
) -> AnalysisView {
    let side = pos.side_to_move();
    let total: u64 = report.lines.iter().map(|l| l.visits).sum::<u64>().max(1);
    let mut visits = vec![0; G::HEAT_CELLS];
    for l in &report.lines {
        visits[G::heat_cell(l.mv)] += l.visits;
    }
    let heat = visits.iter().map(|v| (v * 1000 / total) as u32).collect();
    let lines = report
        .lines
        .iter()
        .take(multipv)
        .map(|l| LineView {
            mv: l.mv.to_string(),
            wdl: Some(match l.proven {
                Some(_) => l.wdl,
                None => sums.add(l.mv.to_string(), l.visits, l.wdl),
            }),
            q: l.q,
            cp: centipawns(l.q),
            proven: l.proven.map(|p| format!("{side} {}", proven_text(p))),
            pv: l.pv.iter().map(|m| m.to_string()).collect(),
            visits: Some(l.visits),
        })
        .collect();
    AnalysisView {
        fen: pos.to_string(),
        engine: name.to_string(),
        nodes,
        depth: Some(report.depth),
        seldepth: Some(report.seldepth),
        ms: since.elapsed().as_millis() as u64,
        lines,
        heat,
    }
}

/// Carries out `task` with Ultimo's searcher.
fn ultimo_job<G: GuiGame>(
    searcher: &mut AsyncSearcher<G>,
    line: &Line<G>,
    task: &Task,
    ctx: &Ctx,
) -> Result<(), Failure> {
    match *task {
        Task::Move {
            limit,
            clocks,
            strength,
        } => ultimo_move(searcher, line, limit, clocks, strength, ctx),
        Task::Analyse { multipv } => ultimo_analysis(searcher, line, multipv, ctx),
        Task::Scan { nodes } => ultimo_scan(searcher, line, nodes, ctx),
    }
}

/// Ultimo finds a move at the end of `line`.
fn ultimo_move<G: GuiGame>(
    searcher: &mut AsyncSearcher<G>,
    line: &Line<G>,
    limit: MoveLimit,
    clocks: [u64; 2],
    strength: Strength,
    ctx: &Ctx,
) -> Result<(), Failure> {
    let pos = position(line);
    let started = Instant::now();
    let limits = match limit {
        MoveLimit::Movetime { ms } => Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        },
        MoveLimit::Nodes { nodes } => Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
        MoveLimit::Clock { inc_ms, .. } => Limits {
            clock: Some(Clock {
                time: Duration::from_millis(clocks[pos.side_to_move().index()]),
                inc: Duration::from_millis(inc_ms),
                movestogo: None,
            }),
            ..Limits::default()
        },
    };
    let report = match strength.weakening(G::KIND) {
        Some(w) => {
            let mut report = search(searcher, &pos, w.limits(&limits), ctx)?;
            w.pick(&pos, &mut report, &mut level_rng());
            report
        }
        None => search(searcher, &pos, limits, ctx)?,
    };
    if ctx.cancelled() {
        return Ok(());
    }
    match report.best_move() {
        Some(mv) => {
            let took = started.elapsed();
            ctx.send(Update::Best(mv.to_string(), took, move_note(&report, took)));
        }
        None => ctx.send(Update::Failed("found no move".into())),
    }
    Ok(())
}

/// Ultimo analyses the position at the end of `line` until cancelled (or
/// solved): short searches first, so that the first lines show at once,
/// each going on in the tree the last one left.
fn ultimo_analysis<G: GuiGame>(
    searcher: &mut AsyncSearcher<G>,
    line: &Line<G>,
    multipv: usize,
    ctx: &Ctx,
) -> Result<(), Failure> {
    let pos = position(line);
    let since = Instant::now();
    let mut nodes = 0;
    let mut chunk = FIRST_CHUNK;
    let mut sums = WdlSums::default();
    while !ctx.cancelled() && !pos.is_over() {
        let limits = Limits {
            movetime: Some(chunk),
            ..Limits::default()
        };
        let report = search(searcher, &pos, limits, ctx)?;
        nodes += report.nodes;
        if ctx.cancelled() {
            return Ok(());
        }
        ctx.send(Update::Info(view(
            &report, &pos, ctx.name, nodes, since, multipv, &mut sums,
        )));
        let solved = report
            .lines
            .first()
            .is_some_and(|l| l.proven.is_some_and(|p| p.verdict == Verdict::Win))
            || report.lines.iter().all(|l| l.proven.is_some());
        if solved {
            ctx.send(Update::Done);
            return Ok(());
        }
        chunk = (chunk * 2).min(LONGEST_CHUNK);
    }
    Ok(())
}

/// Ultimo reviews the game `line` as `ultimo analyze --review --threads 1`
/// does ([`review::review`]: every position from a fresh tree, `nodes`
/// iterations each, one thread: see [`threads_for`]), sending each position's evaluation and best move as
/// it is found; the session judges the moves with the review's rules.
fn ultimo_scan<G: GuiGame>(
    searcher: &mut AsyncSearcher<G>,
    line: &Line<G>,
    nodes: u64,
    ctx: &Ctx,
) -> Result<(), Failure> {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut solver = review::proof_solver().map_err(|e| Failure::Start(e.to_string()))?;
    let work = |s: &mut Searcher<G>, control: &Control| {
        let solver = Some(&mut solver);
        review::review(
            s,
            solver,
            line.start,
            &line.moves,
            0,
            &limits,
            control,
            &mut |p| {
                let point = ScanPoint {
                    eval: p.found.eval,
                    best: p.found.best.map(|m| m.to_string()),
                };
                ctx.send(Update::ScanPoint(p.index, point));
            },
        )
    };
    let reviewed = searcher
        .run_with(work, &|| ctx.cancelled())
        .map_err(|e| Failure::Process(e.to_string()))?;
    match reviewed {
        Ok(_) if ctx.cancelled() => {}
        Ok(_) => ctx.send(Update::Done),
        Err(e) => ctx.send(Update::Failed(e.to_string())),
    }
    Ok(())
}

/// `position startpos|fen F moves ...`.
fn position_command<G: GuiGame>(line: &Line<G>) -> String {
    let mut text = if line.start == G::startpos() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", line.start)
    };
    if !line.moves.is_empty() {
        text.push_str(" moves");
        for m in &line.moves {
            text.push_str(&format!(" {m}"));
        }
    }
    text
}

/// One `info` line with a `pv`: its rank (from 1), the line, and the nodes.
pub fn parse_info<G: GuiGame>(line: &str, side: Player) -> Option<(usize, LineView, u64)> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    let mut rank = 1;
    let mut nodes = 0;
    let mut cp = None;
    let mut mate: Option<i64> = None;
    let mut wdl = None;
    let mut pv = Vec::new();
    while let Some(w) = words.next() {
        match w {
            "multipv" => rank = words.next()?.parse().ok()?,
            "nodes" => nodes = words.next()?.parse().ok()?,
            "score" => match words.next()? {
                "cp" => cp = Some(words.next()?.parse::<i32>().ok()?),
                "mate" => mate = Some(words.next()?.parse().ok()?),
                _ => return None,
            },
            "wdl" => {
                let mut n = || words.next().and_then(|t| t.parse::<u32>().ok());
                wdl = Some([n()?, n()?, n()?]);
            }
            "pv" => {
                for m in words.by_ref() {
                    let mv = G::parse_move(m).ok()?;
                    pv.push(mv.to_string());
                }
            }
            "string" => return None,
            _ => {}
        }
    }
    let mv = pv.first()?.clone();
    let (q, proven) = match mate {
        Some(n) if n > 0 => (1.0, Some(format!("{side} wins (mate {n})"))),
        Some(n) => (0.0, Some(format!("{} wins (mate {})", side.opponent(), -n))),
        None => {
            let cp = cp.unwrap_or(0).clamp(-4000, 4000);
            let q = match wdl {
                Some([w, d, l]) if w + d + l > 0 => {
                    (w as f64 + d as f64 / 2.0) / (w + d + l) as f64
                }
                _ => 1.0 / (1.0 + 10f64.powf(-cp as f64 / 400.0)),
            };
            (q, None)
        }
    };
    Some((
        rank.max(1),
        LineView {
            mv,
            wdl,
            q,
            cp: cp.unwrap_or_else(|| centipawns(q)),
            proven,
            pv,
            visits: None,
        },
        nodes,
    ))
}

/// Waits for `bestmove` after `stop`; an engine that does not answer is
/// hung.
fn stop_engine(engine: &mut EngineProcess) -> Result<(), Failure> {
    let never = AtomicBool::new(false);
    engine.send("stop").map_err(process)?;
    engine
        .wait_for(GRACE, &never, |l| l.starts_with("bestmove"))
        .map(|_| ())
        .map_err(|e| match e {
            EngineError::Timeout(_) => {
                Failure::Hung(format!("did not stop within {} s", GRACE.as_secs()))
            }
            e => process(e),
        })
}

/// A process failure from the engine code's error.
fn process(e: EngineError) -> Failure {
    Failure::Process(e.to_string())
}

/// The `go` command for `task` with the side to move `side`, after the
/// MultiPV it needs: the command, the longest the move may take (`None`
/// for an analysis), and the lines reported. `None` for a whole-game
/// analysis, which is Ultimo's.
fn start_task(
    engine: &mut EngineProcess,
    task: &Task,
    side: Player,
) -> Result<Option<(String, Option<Duration>, usize)>, Failure> {
    let (go, allowed, multipv) = match task {
        Task::Move { limit, clocks, .. } => {
            let (go, allowed) = match *limit {
                MoveLimit::Movetime { ms } => (
                    format!("go movetime {ms}"),
                    Duration::from_millis(ms) + GRACE,
                ),
                MoveLimit::Nodes { nodes } => (format!("go nodes {nodes}"), NODES_TIMEOUT),
                MoveLimit::Clock { inc_ms, .. } => {
                    let [x, o] = *clocks;
                    let go = match engine.dialect {
                        crate::client::clock::Dialect::Ugi => {
                            format!("go p1time {x} p2time {o} p1inc {inc_ms} p2inc {inc_ms}")
                        }
                        crate::client::clock::Dialect::Uci => {
                            format!("go wtime {x} btime {o} winc {inc_ms} binc {inc_ms}")
                        }
                    };
                    (go, Duration::from_millis(clocks[side.index()]) + GRACE)
                }
            };
            (go, Some(allowed), 1)
        }
        Task::Analyse { multipv } => ("go infinite".to_string(), None, *multipv),
        Task::Scan { .. } => return Ok(None),
    };
    engine
        .send(&format!("setoption name MultiPV value {multipv}"))
        .map_err(process)?;
    Ok(Some((go, allowed, multipv)))
}

/// What an engine process has said of its search so far.
struct Heard {
    /// The best lines, by rank.
    lines: Vec<Option<LineView>>,
    /// The most nodes it reported.
    nodes: u64,
    /// Whether a line came since the page last heard.
    fresh: bool,
    /// When the page last heard.
    last_sent: Instant,
    /// Its last word on its move (score and depth), for the record.
    note: MoveNote,
    /// The last `seldepth` it gave.
    seldepth: Option<u32>,
}

impl Heard {
    /// Takes in an output line of the engine; `true` at `bestmove`.
    fn take<G: GuiGame>(&mut self, line: &str, side: Player) -> bool {
        if let Some(info) = MoveNote::from_info(line) {
            self.note = info;
        }
        if line.starts_with("info ")
            && let Some(d) = line
                .split_whitespace()
                // The engine's text and the moves come last.
                .take_while(|&w| w != "string" && w != "pv")
                .skip_while(|&w| w != "seldepth")
                .nth(1)
                .and_then(|d| d.parse().ok())
        {
            self.seldepth = Some(d);
        }
        if let Some((rank, view, n)) = parse_info::<G>(line, side)
            && rank <= self.lines.len()
        {
            self.lines[rank - 1] = Some(view);
            self.nodes = self.nodes.max(n);
            self.fresh = true;
        }
        line.starts_with("bestmove")
    }

    /// The analysis so far, when there is news and it is due (every
    /// [`INFO_INTERVAL`], at once when every line has come, or when the
    /// search has `ended`, so that its last lines are not lost).
    fn due(
        &mut self,
        fen: &str,
        name: &str,
        started: Instant,
        ended: bool,
    ) -> Option<AnalysisView> {
        let due = ended
            || self.last_sent.elapsed() >= INFO_INTERVAL
            || self.lines.iter().all(Option::is_some);
        if !self.fresh || !due {
            return None;
        }
        self.fresh = false;
        self.last_sent = Instant::now();
        Some(AnalysisView {
            fen: fen.to_string(),
            engine: name.to_string(),
            nodes: self.nodes,
            depth: self.note.depth,
            seldepth: self.seldepth,
            ms: started.elapsed().as_millis() as u64,
            lines: self.lines.iter().flatten().cloned().collect(),
            heat: Vec::new(),
        })
    }
}

/// Carries out `task` with an engine process: its move, checked by the
/// rules, or its analysis passed on while it thinks.
fn external_job<G: GuiGame>(
    engine: &mut EngineProcess,
    line: &Line<G>,
    task: &Task,
    ctx: &Ctx,
) -> Result<(), Failure> {
    let never = AtomicBool::new(false);
    let pos = position(line);
    let side = pos.side_to_move();
    let Some((go, limit, multipv)) = start_task(engine, task, side)? else {
        return Ok(());
    };
    engine.send(&position_command(line)).map_err(process)?;
    engine.send(&go).map_err(process)?;
    let started = Instant::now();
    let mut heard = Heard {
        lines: vec![None; multipv],
        nodes: 0,
        fresh: false,
        last_sent: started,
        note: MoveNote::default(),
        seldepth: None,
    };
    let fen = pos.to_string();
    loop {
        let got = engine.wait_for(POLL, &never, |l| heard.take::<G>(l, side));
        if limit.is_none()
            && let Some(view) = heard.due(&fen, ctx.name, started, got.is_ok())
        {
            ctx.send(Update::Info(view));
        }
        match got {
            Ok(_) if ctx.cancelled() => return Ok(()),
            Ok(_) if limit.is_none() => {
                // An analysis that ended by itself (a solved position).
                ctx.send(Update::Done);
                return Ok(());
            }
            Ok((at, line)) => {
                let mv = referee(&mut pos.clone(), &line)
                    .map_err(|e| Failure::Illegal(e.to_string()))?;
                let took = at.saturating_duration_since(started);
                let mut note = heard.note;
                note.time_ms = Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
                ctx.send(Update::Best(mv.to_string(), took, note));
                return Ok(());
            }
            Err(EngineError::Timeout(_)) if ctx.cancelled() => return stop_engine(engine),
            Err(EngineError::Timeout(_)) => {
                if let Some(allowed) = limit
                    && started.elapsed() > allowed
                {
                    return Err(Failure::Hung(format!(
                        "sent no move within {} ms",
                        allowed.as_millis()
                    )));
                }
            }
            Err(e) => return Err(process(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_adds_up_over_searches() {
        let mut sums = WdlSums::default();
        assert_eq!(sums.add("g2".into(), 1000, [58, 841, 101]), [58, 841, 101]);
        // A later search that visits g2 no more says nothing of draws.
        assert_eq!(sums.add("g2".into(), 1000, [480, 0, 520]), [58, 841, 101]);
        // One that visits it 1000 more times counts half.
        assert_eq!(
            sums.add("g2".into(), 2000, [158, 741, 101]),
            [108, 791, 101]
        );
    }

    #[test]
    fn reads_info_lines() {
        let (rank, line, nodes) = parse_info::<rules::Position>(
            "info depth 6 seldepth 10 multipv 2 score cp 61 wdl 539 96 365 nodes 844410 nps 1 pv d2 c6 h7",
            Player::X,
        )
        .unwrap();
        assert_eq!((rank, nodes), (2, 844410));
        assert_eq!(line.mv, "d2");
        assert_eq!(line.pv, ["d2", "c6", "h7"]);
        assert_eq!(line.wdl, Some([539, 96, 365]));
        assert_eq!(line.cp, 61);
        let (_, line, _) =
            parse_info::<rules::Position>("info score mate -3 pv a1", Player::O).unwrap();
        assert_eq!(line.proven.as_deref(), Some("x wins (mate 3)"));
        assert_eq!(line.q, 0.0);
        assert!(parse_info::<rules::Position>("info string hello pv e5", Player::X).is_none());
        assert!(parse_info::<rules::Position>("info depth 3 nodes 5", Player::X).is_none());
        assert!(parse_info::<rules::Position>("info score cp x pv e5", Player::X).is_none());
        assert!(parse_info::<rules::Position>("info pv z9", Player::X).is_none());
        let (_, line, _) =
            parse_info::<super15::Position>("info score cp 10 pv e2e3 e7e6", Player::X).unwrap();
        assert_eq!(line.pv, ["e2e3", "e7e6"]);
        assert!(parse_info::<super15::Position>("info score cp 10 pv e5", Player::X).is_none());
    }

    /// An outside engine's analysis carries its depth, seldepth, nodes
    /// and lines to the page.
    #[test]
    fn heard_lines_give_depth_and_seldepth() {
        let started = Instant::now();
        let mut heard = Heard {
            lines: vec![None; 1],
            nodes: 0,
            fresh: false,
            last_sent: started,
            note: MoveNote::default(),
            seldepth: None,
        };
        assert!(!heard.take::<rules::Position>(
            "info depth 9 seldepth 27 multipv 1 score cp 12 nodes 5000 pv e1 d2",
            Player::X
        ));
        assert!(!heard.take::<rules::Position>("info string seldepth 99", Player::X));
        let view = heard.due("fen", "other", started, true).unwrap();
        assert_eq!(
            (view.depth, view.seldepth, view.nodes),
            (Some(9), Some(27), 5000)
        );
        assert_eq!(view.lines[0].pv, ["e1", "d2"]);
        assert!(heard.take::<rules::Position>("bestmove e1", Player::X));
    }
}
