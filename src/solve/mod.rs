//! A proof-number solver: proves a position won, drawn or lost for the side
//! to move, over any [`Game`].
//!
//! The search behind it is depth-first proof-number search (`dfpn`),
//! which answers yes-or-no questions. The solver asks two of them about the
//! root: "does the side to move win?" and "does the side to move avoid
//! losing?". A win needs the first proven, a loss the second disproven, a
//! draw both the first disproven and the second proven. The two questions
//! are searched in turns, each for a budget of nodes that doubles (up to a
//! cap), so that whichever is easy is answered first; both share one
//! transposition table, their entries told apart by the question, and
//! everything it holds stays valid between solves of positions of the
//! same game.
//!
//! A [`Solver`] runs until the position is solved, a [`Limits`] is reached
//! or its [`Control`] is stopped (from another thread, honoured within
//! a fraction of a millisecond), and returns a [`Solution`]: the verdict or
//! what is known of it, the plies to the end along the proof, the line,
//! and the nodes and time it took.
//!
//! ```
//! use ultimo::game::Verdict;
//! use ultimo::rules::Position;
//! use ultimo::search::Control;
//! use ultimo::solve::{Limits, Options, Solver};
//!
//! // x has won the top-left and the centre boards, and is sent to the
//! // bottom-right one, where i3 wins it and the game.
//! let pos: Position = "xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4".parse().unwrap();
//! let mut solver = Solver::new(&Options { hash_mb: 1, ..Options::default() }).unwrap();
//! let solution = solver.solve(&pos, &Limits::default(), &Control::new(), &mut |_| {});
//! assert_eq!(solution.verdict, Some(Verdict::Win));
//! assert_eq!(solution.plies, Some(1));
//! assert_eq!(solution.pv, ["i3".parse().unwrap()]);
//! ```

mod dfpn;
mod table;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::game::{Game, Verdict};
use crate::search::{Control, LeafSolver, NewLeafSolver};
use dfpn::{NOT_LOSE, Stops, WIN, Worker, child_goal, settled, verdict};
use table::{NO_DIST, NO_MOVE, Table, key};

/// The solver's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Memory for the transposition table, in MiB.
    pub hash_mb: usize,
    /// Search threads: 1, or 2 to search the two questions at once.
    pub threads: usize,
    /// Epsilon of the 1 + epsilon trick, in 1/256ths (0 is plain df-pn).
    pub epsilon: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 256,
            threads: 1,
            epsilon: 64,
        }
    }
}

/// The most MiB of hash the solver takes.
pub const MAX_HASH_MB: usize = 1 << 20;

/// What ends a solve before the position is solved; with none, it runs
/// until solved or stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Nodes searched (a repeatable limit).
    pub nodes: Option<u64>,
    /// Time.
    pub time: Option<Duration>,
}

/// Why the solver could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Zero MiB of hash was asked for, or more than [`MAX_HASH_MB`].
    #[error("hash must be between 1 and {MAX_HASH_MB} MiB, got {0}")]
    Hash(usize),
    /// A thread count other than those the solver runs.
    #[error("the solver runs on 1 or 2 threads, got {0}")]
    Threads(usize),
    /// The table's memory could not be reserved.
    #[error("cannot allocate a transposition table of {0} MiB")]
    Alloc(usize),
}

/// What a solve found. Verdicts are for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<M> {
    /// The result, once proven.
    pub verdict: Option<Verdict>,
    /// The worst result proven possible for the side to move (`Loss` when
    /// nothing is known); equal to `upper` once solved.
    pub lower: Verdict,
    /// The best result not yet ruled out (`Win` when nothing is known).
    pub upper: Verdict,
    /// Plies to the end of the game along the proof's line, when known: at
    /// most this many for the winner, at least for the loser, as far as
    /// the proof found (not necessarily the shortest win).
    pub plies: Option<u32>,
    /// The proving line: the winner's proving moves and the loser's
    /// longest resistance, or moves that hold the draw for both; while
    /// unsolved, the line the search spent most on.
    pub pv: Vec<M>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// Permille of the table in use.
    pub hashfull: u32,
}

impl<M> Solution<M> {
    /// Nodes a second.
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// A look at a running solve, for progress reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// What is known so far (see [`Solution::lower`]).
    pub lower: Verdict,
    /// What is known so far (see [`Solution::upper`]).
    pub upper: Verdict,
    /// The question being searched: does the side to move win (`Win`) or
    /// avoid a loss (`Draw`)?
    pub goal: Verdict,
    /// Its root's proof and disproof numbers.
    pub pn: u32,
    /// See `pn`.
    pub dn: u32,
    /// Permille of the table in use.
    pub hashfull: u32,
}

/// The first budget of nodes for one turn of a question.
const FIRST_TURN: u64 = 1 << 12;
/// The most nodes for one turn (a fraction of a second).
const MAX_TURN: u64 = 1 << 18;
/// Nodes a search to rebuild a lost entry of the line may take.
const LINE_REPAIR: u64 = 1 << 14;

/// The solver: its table and settings, kept between solves. With two
/// threads, each searches one of the two questions on the shared table.
pub struct Solver {
    options: Options,
    tt: Table,
}

impl Solver {
    /// A solver with `options`, its table reserved at once.
    pub fn new(options: &Options) -> Result<Solver, SolveError> {
        if options.hash_mb == 0 || options.hash_mb > MAX_HASH_MB {
            return Err(SolveError::Hash(options.hash_mb));
        }
        if !(1..=2).contains(&options.threads) {
            return Err(SolveError::Threads(options.threads));
        }
        let tt = Table::with_bytes(options.hash_mb << 20)
            .map_err(|_| SolveError::Alloc(options.hash_mb))?;
        Ok(Solver {
            options: options.clone(),
            tt,
        })
    }

    /// The settings.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The bytes the transposition table holds: at most the hash size.
    pub fn table_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Forgets everything learnt (the table stays reserved).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// One search's settings over this solver's table: stopped by
    /// `control`, at `deadline` and after `max_nodes` nodes, if given.
    fn run<'a>(
        &'a self,
        control: &'a Control,
        deadline: Option<Instant>,
        max_nodes: Option<u64>,
        start: Instant,
    ) -> Run<'a> {
        Run {
            tt: &self.tt,
            control,
            deadline,
            epsilon: self.options.epsilon as u64,
            max_nodes: max_nodes.unwrap_or(u64::MAX),
            start,
        }
    }

    /// Solves `pos` for its side to move, until it is solved, `limits` are
    /// reached or `control` is stopped; calls `progress` after each turn of
    /// search (a fraction of a second). The table keeps what was learnt
    /// for the next solve (of any position of the same game).
    pub fn solve<G: Game>(
        &mut self,
        pos: &G,
        limits: &Limits,
        control: &Control,
        progress: &mut dyn FnMut(&Progress),
    ) -> Solution<G::Move> {
        let start = Instant::now();
        let run = self.run(control, limits.time.map(|t| start + t), limits.nodes, start);
        let mut known = Known::default();
        let (nodes, last) = if self.options.threads > 1 {
            run.both_at_once(pos, &mut known, progress)
        } else {
            run.in_turns(pos, &mut known, Some(progress))
        };
        let mut w = run.worker::<G>(None);
        let solved = known.verdict();
        let (pv, plies) = match solved {
            Some(v) => proof_line(&mut w, pos, v),
            None => (searched_line(&w, pos, last), None),
        };
        Solution {
            verdict: solved,
            lower: verdict(known.lower),
            upper: verdict(known.upper),
            plies,
            pv,
            nodes: nodes + w.nodes,
            elapsed: start.elapsed(),
            hashfull: self.tt.hashfull(),
        }
    }

    /// The value of `pos` for its side to move if one thread proves it
    /// within `nodes` nodes, with its plies to the end along the proof (0
    /// where unknown), as [`Solver::solve`] gives them: the leaf solver's
    /// question, without the table's fill and the progress reports.
    pub fn verdict_within<G: Game>(
        &mut self,
        pos: &G,
        nodes: u64,
        control: &Control,
    ) -> Option<(Verdict, u32)> {
        let run = self.run(control, None, Some(nodes), Instant::now());
        let mut known = Known::default();
        run.in_turns(pos, &mut known, None);
        let value = known.verdict()?;
        let (_, plies) = proof_line(&mut run.worker::<G>(None), pos, value);
        Some((value, plies.unwrap_or(0)))
    }
}

/// What is known of the root's value: `lower <= value <= upper`, as levels
/// (loss 0, draw 1, win 2).
#[derive(Copy, Clone, Debug)]
struct Known {
    lower: u8,
    upper: u8,
}

impl Default for Known {
    fn default() -> Self {
        Known { lower: 0, upper: 2 }
    }
}

impl Known {
    /// Whether the question `goal` can still change what is known.
    fn needs(&self, goal: u8) -> bool {
        if goal == WIN {
            self.upper == 2 && self.lower < 2
        } else {
            self.lower == 0 && self.upper >= 1
        }
    }

    /// Takes in the root's entry for `goal`.
    fn learn(&mut self, goal: u8, e: &table::Entry) {
        match (goal, e.pn == 0, e.dn == 0) {
            (WIN, true, _) => self.lower = 2,
            (WIN, _, true) => self.upper = self.upper.min(1),
            (_, true, _) => self.lower = self.lower.max(1),
            (_, _, true) => self.upper = 0,
            _ => {}
        }
    }

    fn verdict(&self) -> Option<Verdict> {
        (self.lower == self.upper).then(|| verdict(self.lower))
    }
}

/// One solve's shared settings.
struct Run<'a> {
    tt: &'a Table,
    control: &'a Control,
    deadline: Option<Instant>,
    epsilon: u64,
    max_nodes: u64,
    start: Instant,
}

impl Run<'_> {
    fn worker<'b, G: Game>(&'b self, cancel: Option<&'b AtomicBool>) -> Worker<'b, G> {
        let stops = Stops {
            control: self.control,
            deadline: self.deadline,
            cancel,
        };
        Worker::new(self.tt, stops, self.epsilon)
    }

    fn progress(&self, known: &Known, goal: u8, e: &table::Entry, nodes: u64) -> Progress {
        Progress {
            nodes,
            elapsed: self.start.elapsed(),
            lower: verdict(known.lower),
            upper: verdict(known.upper),
            goal: verdict(goal),
            pn: e.pn,
            dn: e.dn,
            hashfull: self.tt.hashfull(),
        }
    }

    /// One thread: the two questions in turns, each for a budget of nodes
    /// that doubles up to [`MAX_TURN`], until the value is known or the
    /// search ends. Returns the nodes and the last question searched.
    fn in_turns<G: Game>(
        &self,
        pos: &G,
        known: &mut Known,
        mut progress: Option<&mut dyn FnMut(&Progress)>,
    ) -> (u64, u8) {
        let mut w = self.worker::<G>(None);
        let mut turn = FIRST_TURN;
        let mut last = WIN;
        loop {
            for goal in [WIN, NOT_LOSE] {
                if !known.needs(goal) || w.stopped || w.nodes >= self.max_nodes {
                    continue;
                }
                let e = w.run(pos, goal, turn.min(self.max_nodes - w.nodes));
                known.learn(goal, &e);
                last = goal;
                if let Some(progress) = progress.as_mut() {
                    progress(&self.progress(known, goal, &e, w.nodes));
                }
            }
            if known.verdict().is_some() || w.stopped || w.nodes >= self.max_nodes {
                return (w.nodes, last);
            }
            turn = (turn * 2).min(MAX_TURN);
        }
    }

    /// Two threads, one question each (on the shared table): a win or a
    /// loss ends both, a draw needs both answers. Each has half the node
    /// limit. Returns the nodes of both.
    fn both_at_once<G: Game>(
        &self,
        pos: &G,
        known: &mut Known,
        progress: &mut dyn FnMut(&Progress),
    ) -> (u64, u8) {
        let cancel = AtomicBool::new(false);
        let helper_nodes = AtomicU64::new(0);
        let budget = (self.max_nodes / 2).max(1);
        // Searches `goal` in turns of [`MAX_TURN`] nodes, calling `each`
        // after each; raises `cancel` once its answer settles the value.
        let search = |goal: u8, each: &mut dyn FnMut(&table::Entry, u64)| {
            let mut w = self.worker::<G>(Some(&cancel));
            loop {
                let e = w.run(pos, goal, MAX_TURN.min(budget - w.nodes));
                each(&e, w.nodes);
                let settles = (goal == WIN && e.pn == 0) || (goal == NOT_LOSE && e.dn == 0);
                if settles {
                    cancel.store(true, Ordering::Relaxed);
                }
                if e.solved() || w.stopped || w.nodes >= budget {
                    return (e, w.nodes);
                }
            }
        };
        std::thread::scope(|s| {
            let helper = s.spawn(|| {
                search(NOT_LOSE, &mut |_, nodes| {
                    helper_nodes.store(nodes, Ordering::Relaxed)
                })
            });
            let mut shown = *known;
            let (win, nodes) = search(WIN, &mut |e, nodes| {
                shown.learn(WIN, e);
                let all = nodes + helper_nodes.load(Ordering::Relaxed);
                progress(&self.progress(&shown, WIN, e, all));
            });
            known.learn(WIN, &win);
            let mut total = nodes;
            // A panic in the helper is a bug; it is re-raised here.
            let (not_lose, helper) = helper
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            if known.needs(NOT_LOSE) {
                known.learn(NOT_LOSE, &not_lose);
            }
            total += helper;
            progress(&self.progress(known, WIN, &win, total));
            (total, WIN)
        })
    }
}

/// The line of a solved root whose value is `value`, and its plies to the
/// end: the line's length where it reaches the end, else the distance
/// stored for a win or a loss (none for a draw).
fn proof_line<G: Game>(w: &mut Worker<G>, pos: &G, value: Verdict) -> (Vec<G::Move>, Option<u32>) {
    let (pv, complete) = line(w, pos, value);
    let plies = match value {
        _ if complete => Some(pv.len() as u32),
        Verdict::Win => root_dist(w, pos, WIN),
        Verdict::Loss => root_dist(w, pos, NOT_LOSE),
        Verdict::Draw => None,
    };
    (pv, plies)
}

/// The distance stored for the root's question `goal`, if known.
fn root_dist<G: Game>(w: &Worker<G>, pos: &G, goal: u8) -> Option<u32> {
    let dist = match settled(pos, goal) {
        Some((_, _, d)) => d,
        None => w.tt.get(key(pos, goal))?.dist,
    };
    (dist != NO_DIST).then_some(dist as u32)
}

/// The line of a solved position of value `value`, and whether it reaches
/// the end of the game. Along a win or loss each side's move comes from its
/// own question (the winner's "win" proven, the loser's "avoid a loss"
/// disproven), along a draw from each side's "avoid a loss" proven. An
/// entry the table has lost is searched again (briefly, unless stopped).
fn line<G: Game>(w: &mut Worker<G>, root: &G, value: Verdict) -> (Vec<G::Move>, bool) {
    let mut pos = *root;
    let mut pv = Vec::new();
    let mut goal = match value {
        Verdict::Win => WIN,
        _ => NOT_LOSE,
    };
    let draw = value == Verdict::Draw;
    while pv.len() < G::MAX_PLIES {
        if pos.outcome().is_some() {
            return (pv, true);
        }
        let moves = pos.legal_moves();
        let mv = match best_move(w, &pos, goal) {
            Some(i) => moves[i],
            None => break,
        };
        pv.push(mv);
        pos.play_unchecked(mv);
        if !draw {
            goal = child_goal(goal);
        }
    }
    (pv, false)
}

/// The move of the solved entry of `pos` and `goal` (an index in its legal
/// moves), searching again when the table lost it.
fn best_move<G: Game>(w: &mut Worker<G>, pos: &G, goal: u8) -> Option<usize> {
    if let Some(m) = pos.winning_move() {
        return pos.legal_moves().iter().position(|&x| x == m);
    }
    match settled(pos, goal) {
        // The opponent can no longer win: every move holds what the side
        // to move has (in a drawn position, every move keeps the draw).
        Some((0, _, _)) => return Some(0),
        // Settled by `may_win` alone: no move is known.
        Some(_) => return None,
        None => {}
    }
    let k = key(pos, goal);
    let mut e = w.tt.get(k);
    if !e.is_some_and(|e| e.solved()) && !w.stopped {
        w.run(pos, goal, LINE_REPAIR);
        e = w.tt.get(k);
    }
    let e = e.filter(|e| e.solved() && e.best != NO_MOVE)?;
    let i = e.best as usize;
    (i < pos.legal_moves().len()).then_some(i)
}

/// The line the search of `goal` at `root` follows, while the table has it
/// (for an unsolved position).
fn searched_line<G: Game>(w: &Worker<G>, root: &G, goal: u8) -> Vec<G::Move> {
    let mut pos = *root;
    let mut goal = goal;
    let mut pv = Vec::new();
    while pv.len() < G::MAX_PLIES && pos.outcome().is_none() {
        let Some(e) = w.tt.get(key(&pos, goal)) else {
            break;
        };
        let moves = pos.legal_moves();
        let Some(&mv) = moves.get(e.best as usize) else {
            break;
        };
        pv.push(mv);
        pos.play_unchecked(mv);
        goal = child_goal(goal);
    }
    pv
}

/// The table of each search thread's leaf solver, in MiB (beside the
/// search's `Hash`).
pub const LEAF_HASH_MB: usize = 2;

/// The search's leaf solver ([`LeafSolver`]): a [`Solver`] with a table
/// of [`LEAF_HASH_MB`], one for each search thread, that settles the
/// search's leaves near the end of the game. What its table learns stays
/// for the next leaves, and the next searches.
pub struct Leaves {
    /// `None` where its table could not be reserved: it settles nothing.
    solver: Option<Solver>,
    control: Control,
}

impl Leaves {
    /// A leaf solver, its table reserved at once.
    pub fn new() -> Leaves {
        let options = Options {
            hash_mb: LEAF_HASH_MB,
            ..Options::default()
        };
        Leaves {
            solver: Solver::new(&options).ok(),
            control: Control::new(),
        }
    }

    /// What makes one for each thread of a search over `G`
    /// ([`crate::search::Searcher::set_leaf_solver`]).
    pub fn maker<G: Game>() -> NewLeafSolver<G> {
        Arc::new(|| Box::new(Leaves::new()))
    }
}

impl Default for Leaves {
    fn default() -> Self {
        Leaves::new()
    }
}

impl<G: Game> LeafSolver<G> for Leaves {
    fn settle(&mut self, pos: &G, nodes: u64) -> Option<(Verdict, u32)> {
        let solver = self.solver.as_mut()?;
        solver.verdict_within(pos, nodes, &self.control)
    }
}
