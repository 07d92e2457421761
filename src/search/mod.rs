//! Parallel Monte Carlo tree search with MCTS-Solver, over any [`Game`].
//!
//! Each iteration walks down the tree by UCT (first-play urgency for
//! unvisited children), expands a node once it has been visited
//! [`Params::expand_visits`] times, plays the game out by the playout policy
//! (by default taking a game-winning move whenever one exists), and adds the
//! result (win 1, draw 1/2, loss 0) along the path. Proven wins, losses and
//! draws propagate up the tree (MCTS-Solver); a proven win at the root ends
//! the search at once, proven losses are never chosen while anything else
//! is left, and distances to the end are reported.
//!
//! # With an evaluator
//!
//! An [`Evaluator`] (a learned net, say) replaces the playout by its value
//! of the leaf, or is mixed with one ([`Params::eval_weight`]). With
//! [`Params::policy`] above 0 the walk is PUCT instead of UCT: each leaf is
//! expanded at its first visit, and one call gives both its value and its
//! moves' priors ([`Evaluator::evaluate_with_priors`]); a child's score is
//! `q + c * prior * sqrt(N) / (1 + n)`, an unvisited child's `q` its
//! parent's less [`Params::fpu_reduction`]. The priors sit in a vector
//! beside the nodes (4 bytes a node, within the same memory bound), so the
//! 16-byte node and the playout search are unchanged.
//!
//! # Parallelism: one tree per thread (root parallelism)
//!
//! Each thread searches its own tree from the same root with its own random
//! generator; the root statistics are summed when the search ends, and the
//! reporting thread reads the others' root statistics through atomics that
//! they publish every 1024 iterations. Chosen over a shared lock-free tree
//! (virtual loss, atomic counters), by these measurements on the 2-core
//! development machines:
//!
//! - throughput: threads share no cache line in the hot path, so 2 threads
//!   give 2.05x the iterations per second of 1 (2.07M/s against 1.01M/s,
//!   `cargo bench --bench search`), above the 1.9x the project asks for. A
//!   shared tree writes the few nodes near the root from every thread on
//!   every iteration; the one shared-tree MCTS measured on these machines
//!   (the `mcts` crate) reached only 1.6-1.7x on 2 threads;
//! - strength: 2 threads beat 1 by +35 Elo [+10, +60] at 50 ms a move (200
//!   games). Splitting costs -67 [-96, -39] at an equal total of iterations,
//!   so a shared tree that kept its throughput would gain more; that is the
//!   open question for many cores, where Chaslot, Winands and van den Herik
//!   (2008) still found root parallelism the strongest simple scheme up to
//!   16 threads;
//! - each thread's search stays deterministic under a fixed seed and node
//!   budget, so a multi-threaded `go nodes` is reproducible too.
//!
//! Proofs hold in every tree: a root proven in any thread ends the search.
//! Threads run as long loops on a rayon pool (one job per thread, not one
//! per iteration), and yield once a millisecond when they occupy every core
//! so that the input thread sees `stop` at once.
//!
//! No more threads run than the machine has cores: with more trees than
//! that (`threads` above the core count), each thread searches several
//! trees in turn, a few hundred iterations at a time. Otherwise the
//! reporting thread, which watches the clock, would get a small share of
//! the CPU: 256 threads on 2 cores made `go movetime 100` take up to a
//! second. Each tree still runs its own iterations with its own generator
//! and node budget, so a search with a node limit gives the same result
//! whatever the number of cores.
//!
//! # Memory
//!
//! The `hash` size bounds all trees together (each thread gets an equal
//! share), counting the nodes and the scratch used to compact a tree. The
//! node arena is reserved once and never grows past its capacity: when a
//! tree is full it stops adding nodes and goes on refining the statistics
//! of the tree it has (iterations end in playouts from its leaves), so the
//! search keeps returning good moves. Between moves the subtree of the
//! position actually reached is kept and slid to the front of the arena
//! (tree reuse); pondering uses the same mechanism.

mod error;
mod memory;
mod time;
mod tree;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub use error::SearchError;
use memory::Memory;
pub use time::{TimePlan, plan};
use tree::{Tree, bytes_per_node};

use crate::game::{ChildCount, Game, Verdict};

/// A static evaluation of positions, to value the search's leaves in place
/// of playouts ([`Searcher::set_evaluator`]).
///
/// The search sees positions only through [`Game`], so an evaluator works
/// for any game; Ultimate Tic-Tac-Toe's learned one is the `net` module's.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The expected score of the side to move in `pos` (win 1, draw 1/2,
    /// loss 0), in [0, 1]. Called only on positions that are not over.
    fn evaluate(&self, pos: &G) -> f32;

    /// The value of `pos` as [`Evaluator::evaluate`] gives it, and the
    /// prior probability of each of `moves` (its legal moves) being the
    /// best, into `priors` (as long as `moves`), for PUCT
    /// ([`Params::policy`]). Without a policy: uniform priors.
    fn evaluate_with_priors(&self, pos: &G, moves: &[G::Move], priors: &mut [f32]) -> f32 {
        let p = 1.0 / moves.len().max(1) as f32;
        priors[..moves.len()].fill(p);
        self.evaluate(pos)
    }

    /// The share of draws in an expected score `value` (for the win, draw
    /// and loss chances the search reports; the search itself uses only
    /// the value). Cut to at most twice the smaller of `value` and
    /// `1 - value`. Without a model: 0, the value all wins and losses.
    fn draw_share(&self, value: f32) -> f32 {
        let _ = value;
        0.0
    }
}

/// How playouts choose moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Playout {
    /// Uniformly random moves.
    Uniform,
    /// A game-winning move when the side to move has one, else random.
    Winning,
}

/// The search's tunable parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// UCT exploration constant `c` in `q + c * sqrt(ln N / n)`.
    pub exploration: f32,
    /// Value given to an unvisited child (first-play urgency); above 1
    /// visits every child once before revisiting any.
    pub fpu: f32,
    /// Visits a leaf needs before it is expanded.
    pub expand_visits: u32,
    /// The playout policy.
    pub playout: Playout,
    /// Whether proven results propagate (MCTS-Solver).
    pub solver: bool,
    /// With an evaluator: the weight of its value in a leaf's value, the
    /// rest going to a playout's result from the leaf (1: the evaluator
    /// alone, no playouts).
    pub eval_weight: f32,
    /// With an evaluator: the PUCT constant `c` in
    /// `q + c * prior * sqrt(N) / (1 + n)`, the priors coming from
    /// [`Evaluator::evaluate_with_priors`] and every leaf being expanded at
    /// its first visit; 0 keeps UCT (`exploration`, `fpu`).
    pub policy: f32,
    /// With PUCT: an unvisited child's value is its parent's, for the
    /// player choosing, less this.
    pub fpu_reduction: f32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            exploration: 0.5,
            fpu: 1.1,
            expand_visits: 2,
            playout: Playout::Winning,
            solver: true,
            eval_weight: 1.0,
            policy: 0.0,
            fpu_reduction: 0.2,
        }
    }
}

/// Engine settings that outlive one search.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Search threads, one tree each (1 to [`MAX_THREADS`]); at most as
    /// many as there are cores run at once (see the module docs).
    pub threads: usize,
    /// Memory for all trees together, in MiB.
    pub hash_mb: usize,
    /// Seed of the random generators (thread `i` uses `seed + i`).
    pub seed: u64,
    /// Time kept back from every move for communication delays.
    pub move_overhead: Duration,
    /// Search parameters.
    pub params: Params,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mb: 256,
            seed: 0,
            move_overhead: Duration::from_millis(10),
            params: Params::default(),
        }
    }
}

/// A chess-style clock for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left.
    pub time: Duration,
    /// Increment per move.
    pub inc: Duration,
    /// Moves until the next time control, if any.
    pub movestogo: Option<u32>,
}

/// What ends a search; several may be set, the first reached wins. With
/// none set (and not infinite) the search runs until stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Iterations (playouts), over all threads.
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// The clock of the side to move.
    pub clock: Option<Clock>,
    /// Stop once the mean depth at which playouts start reaches this (or
    /// the best move is proven, or the tree is full, or [`DEPTH_STALL`]
    /// iterations in a row valued no position). The reporting thread then
    /// searches the main tree only, so that the depth is reached in the same
    /// number of iterations whatever the thread count.
    pub depth: Option<u32>,
    /// Search until stopped, even past the other limits.
    pub infinite: bool,
}

/// Signals from outside a running search (another thread).
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    pondering: AtomicBool,
}

impl Control {
    /// A control with no stop raised.
    pub fn new() -> Self {
        Control::default()
    }

    /// Prepares for a new search; `pondering` searches without time limits
    /// until [`Control::ponderhit`].
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
    }

    /// Asks the search to stop and return its move as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: the ponder search becomes a
    /// normal one, its time counted from now.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// Whether the search is pondering.
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }
}

/// A proven result of a root move for the side to move, with the plies
/// from the root to the end under best play.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// Whether the move wins, draws or loses.
    pub verdict: Verdict,
    /// Plies until the game ends, this move included.
    pub plies: u32,
}

impl Proven {
    /// Moves of the side to move until the end (`mate N` counts these).
    pub fn moves(self) -> u32 {
        self.plies.div_ceil(2)
    }
}

/// What the search found about one root move.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<M> {
    /// The root move.
    pub mv: M,
    /// Iterations through it (all threads).
    pub visits: u64,
    /// Expected score for the side to move (win 1, draw 1/2), in [0, 1].
    pub q: f64,
    /// Win, draw and loss chances for the side to move, in permille
    /// (summing to 1000), from this search's playouts.
    pub wdl: [u32; 3],
    /// The proven result, if any.
    pub proven: Option<Proven>,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<M>,
}

/// A search's results, best root move first.
#[derive(Clone, Debug, PartialEq)]
pub struct Report<M> {
    /// One line per root move the search could choose, best first.
    pub lines: Vec<Line<M>>,
    /// Iterations in this search (all threads).
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Mean depth at which playouts started (iterations that ended in a
    /// terminal or proven node do not count).
    pub depth: u32,
    /// Deepest leaf reached.
    pub seldepth: u32,
    /// How full the fullest tree is, in permille.
    pub hashfull: u32,
}

impl<M: Copy> Report<M> {
    /// The move to play, if any.
    pub fn best_move(&self) -> Option<M> {
        self.lines.first().map(|l| l.mv)
    }

    /// The expected reply to the best move, if known.
    pub fn ponder_move(&self) -> Option<M> {
        self.lines.first().and_then(|l| l.pv.get(1).copied())
    }

    /// Iterations per second.
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// A proof as a byte, for the atomics of [`Share`].
fn encode_proof(proof: Option<Verdict>) -> u8 {
    match proof {
        None => 0,
        Some(Verdict::Win) => 1,
        Some(Verdict::Loss) => 2,
        Some(Verdict::Draw) => 3,
    }
}

/// The proof [`encode_proof`] made `byte` from.
fn decode_proof(byte: u8) -> Option<Verdict> {
    match byte {
        1 => Some(Verdict::Win),
        2 => Some(Verdict::Loss),
        3 => Some(Verdict::Draw),
        _ => None,
    }
}

/// Root statistics one thread publishes for the thread that reports.
struct Share {
    /// The thread's iteration budget, if any.
    quota: Option<u64>,
    iterations: AtomicU64,
    /// The proof of the thread's root (proofs hold in every tree).
    root_proof: AtomicU8,
    playouts: AtomicU64,
    depth_sum: AtomicU64,
    max_depth: AtomicU32,
    hashfull: AtomicU32,
    /// Per root child: visits, score, wins, draws, losses.
    stats: Vec<[AtomicU32; 5]>,
    /// Per root child: proof (see [`encode_proof`]) and distance.
    proof: Vec<[AtomicU8; 2]>,
}

impl Share {
    fn new(children: usize, quota: Option<u64>) -> Self {
        Share {
            quota,
            iterations: AtomicU64::new(0),
            root_proof: AtomicU8::new(encode_proof(None)),
            playouts: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            max_depth: AtomicU32::new(0),
            hashfull: AtomicU32::new(0),
            stats: (0..children).map(|_| Default::default()).collect(),
            proof: (0..children).map(|_| Default::default()).collect(),
        }
    }

    fn publish<G: Game>(&self, tree: &Tree<G>) {
        let r = Ordering::Relaxed;
        self.iterations.store(tree.iterations, r);
        self.root_proof.store(encode_proof(tree.root().proof), r);
        self.playouts.store(tree.playouts, r);
        self.depth_sum.store(tree.depth_sum, r);
        self.max_depth.store(tree.max_depth, r);
        self.hashfull.store(hashfull(tree), r);
        for (k, c) in tree.root().children().enumerate() {
            let node = tree.node(c);
            let [w, d, l] = tree.root_wdl[k];
            for (slot, v) in self.stats[k].iter().zip([node.visits, node.score, w, d, l]) {
                slot.store(v, r);
            }
            self.proof[k][0].store(encode_proof(node.proof), r);
            self.proof[k][1].store(node.dist, r);
        }
    }
}

impl Share {
    /// Adds this thread's published root statistics into `sums`.
    fn add_to(&self, sums: &mut [ChildSum]) {
        let r = Ordering::Relaxed;
        for (k, sum) in sums.iter_mut().enumerate() {
            let [visits, score, w, d, l] = self.stats[k].each_ref().map(|a| a.load(r));
            sum.add(
                visits,
                score,
                [w, d, l],
                decode_proof(self.proof[k][0].load(r)),
                self.proof[k][1].load(r),
            );
        }
    }
}

/// The published root statistics of all threads, summed.
fn sum_shares(shares: &[Share]) -> Vec<ChildSum> {
    let n = shares.first().map_or(0, |s| s.stats.len());
    let mut sums = vec![ChildSum::default(); n];
    for s in shares {
        s.add_to(&mut sums);
    }
    sums
}

/// The report from the threads' published statistics: one line per root
/// child that `tree` allows, best first, each with its PV from `pv_of`
/// (given the child's number).
fn build_report<G: Game>(
    shares: &[Share],
    tree: &Tree<G>,
    elapsed: Duration,
    pv_of: impl Fn(usize) -> Vec<G::Move>,
) -> Report<G::Move> {
    let r = Ordering::Relaxed;
    let (mut nodes, mut playouts, mut depth_sum, mut seldepth, mut full) = (0, 0, 0, 0, 0);
    for s in shares {
        nodes += s.iterations.load(r);
        playouts += s.playouts.load(r);
        depth_sum += s.depth_sum.load(r);
        seldepth = seldepth.max(s.max_depth.load(r));
        full = full.max(s.hashfull.load(r));
    }
    let sums = sum_shares(shares);
    let first = tree.root().first_child as usize;
    let mut order: Vec<usize> = (0..sums.len()).filter(|&k| tree.root_allowed(k)).collect();
    order.sort_by(|&a, &b| sums[b].key().cmp(&sums[a].key()));
    let lines = order
        .into_iter()
        .map(|k| sums[k].line(tree.node(first + k).mv, pv_of(k), tree.unit()))
        .collect();
    Report {
        lines,
        nodes,
        elapsed,
        depth: depth_sum.checked_div(playouts).unwrap_or(0) as u32,
        seldepth,
        hashfull: full,
    }
}

/// The PV from node `child` of `tree` (the move into it first).
fn pv_through<G: Game>(tree: &Tree<G>, child: usize) -> Vec<G::Move> {
    let mut pv = vec![tree.node(child).mv];
    pv.extend(tree.pv_from(child, MAX_PV - 1));
    pv
}

fn hashfull<G: Game>(tree: &Tree<G>) -> u32 {
    (tree.len() as u64 * 1000 / tree.capacity() as u64) as u32
}

/// Summed statistics of one root child over all trees.
#[derive(Copy, Clone, Default)]
struct ChildSum {
    visits: u64,
    score: u64,
    wdl: [u64; 3],
    proof: Option<Verdict>,
    dist: u8,
}

impl ChildSum {
    fn add(&mut self, visits: u32, score: u32, wdl: [u32; 3], proof: Option<Verdict>, dist: u8) {
        self.visits += visits as u64;
        self.score += score as u64;
        for (a, b) in self.wdl.iter_mut().zip(wdl) {
            *a += b as u64;
        }
        if proof.is_some() && self.proof.is_none() {
            self.proof = proof;
            self.dist = dist;
        }
    }

    /// Ordering key: larger is better (the same as `tree::best_child`'s).
    fn key(&self) -> (u8, i64, u64, u64) {
        tree::preference(self.proof, self.dist, self.visits, self.score)
    }

    /// The line for move `mv`; `unit` is the trees' score unit.
    fn line<M>(&self, mv: M, pv: Vec<M>, unit: u32) -> Line<M> {
        let proven = self.proof.map(|verdict| Proven {
            verdict,
            plies: self.dist as u32 + 1,
        });
        let q = match self.proof {
            Some(v) => v.score(),
            None if self.visits == 0 => 0.5,
            None => self.score as f64 / (2.0 * unit as f64 * self.visits as f64),
        };
        let wdl = match self.proof {
            Some(Verdict::Win) => [1000, 0, 0],
            Some(Verdict::Loss) => [0, 0, 1000],
            Some(Verdict::Draw) => [0, 1000, 0],
            None => permille(self.wdl, q),
        };
        Line {
            mv,
            visits: self.visits,
            q,
            wdl,
            proven,
            pv,
        }
    }
}

/// Win/draw/loss counts as permille summing to 1000; with no counts, an
/// estimate from the expected score `q` with no draws.
fn permille(counts: [u64; 3], q: f64) -> [u32; 3] {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        let w = (q * 1000.0).round() as u32;
        return [w, 0, 1000 - w.min(1000)];
    }
    let w = (counts[0] * 1000 + total / 2) / total;
    let d = (counts[1] * 1000 + total / 2) / total;
    let w = w.min(1000) as u32;
    let d = (d as u32).min(1000 - w);
    [w, d, 1000 - w - d]
}

/// The cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Iterations between two looks at the limits by the reporting thread
/// (at most, with a clock; see [`MainLoop::run`]).
const CHECK_EVERY: u32 = 256;
/// With a clock, the reporting thread's chunks of iterations grow while they
/// take less than this...
const CHUNK_FAST: Duration = Duration::from_micros(500);
/// ...and shrink while they take more than this.
const CHUNK_SLOW: Duration = Duration::from_millis(2);
/// Iterations between two publications of a thread's root statistics.
const PUBLISH_EVERY: u32 = 1024;
/// Longest PV reported.
const MAX_PV: usize = 32;
/// Under a depth limit, the search ends once this many iterations of the
/// main tree in a row ended in a finished or proven position: the depth
/// cannot grow any more (a whole tree of finished games with the solver off).
pub const DEPTH_STALL: u64 = 1 << 16;

/// The most search threads (trees) a searcher takes.
pub const MAX_THREADS: usize = 256;

/// The search: one tree per thread, kept between moves.
pub struct Searcher<G: Game> {
    options: Options,
    /// One per thread; never empty once the searcher exists.
    trees: Vec<Tree<G>>,
    pool: Option<rayon::ThreadPool>,
    /// Reads the machine's memory (a stand-in in tests).
    memory: fn() -> Option<Memory>,
    /// Values the leaves instead of playouts, when set.
    evaluator: Option<Arc<dyn Evaluator<G>>>,
}

impl<G: Game> Searcher<G> {
    /// A searcher with these options, its trees at `root`.
    pub fn new(options: Options, root: G) -> Result<Self, SearchError> {
        Self::with_memory(options, root, memory::probe)
    }

    fn with_memory(
        options: Options,
        root: G,
        memory: fn() -> Option<Memory>,
    ) -> Result<Self, SearchError> {
        let mut s = Searcher {
            options: options.clone(),
            trees: Vec::new(),
            pool: None,
            memory,
            evaluator: None,
        };
        s.rebuild(&options, root)?;
        Ok(s)
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Values the leaves with `evaluator` instead of playouts (`None`: back
    /// to playouts). Forgets the trees, whose scores were made the other
    /// way.
    pub fn set_evaluator(&mut self, evaluator: Option<Arc<dyn Evaluator<G>>>) {
        self.evaluator = evaluator;
        let unit = self.unit();
        for tree in &mut self.trees {
            tree.set_unit(unit);
        }
    }

    /// The trees' score unit: finer with an evaluator.
    fn unit(&self) -> u32 {
        if self.evaluator.is_some() {
            tree::EVAL_UNIT
        } else {
            1
        }
    }

    /// Whether the leaves are valued by an evaluator (not playouts).
    pub fn has_evaluator(&self) -> bool {
        self.evaluator.is_some()
    }

    /// Changes the options; threads and hash changes rebuild the trees.
    /// On error nothing changes (see [`SearchError`]).
    ///
    /// The trees of all threads together stay within the hash size, which
    /// must fit in the machine's memory: the memory available now plus
    /// what the current trees use.
    pub fn set_options(&mut self, options: Options, root: G) -> Result<(), SearchError> {
        if options.threads != self.options.threads || options.hash_mb != self.options.hash_mb {
            self.rebuild(&options, root)?;
        }
        self.options = options;
        Ok(())
    }

    /// Checks the thread count and hash size of `options` and replaces the
    /// trees and the thread pool by new ones of those sizes.
    fn rebuild(&mut self, options: &Options, root: G) -> Result<(), SearchError> {
        let (threads, hash_mb) = (options.threads, options.hash_mb);
        if threads == 0 {
            return Err(SearchError::NoThreads);
        }
        if threads > MAX_THREADS {
            return Err(SearchError::TooManyThreads {
                threads,
                max: MAX_THREADS,
            });
        }
        if hash_mb == 0 {
            return Err(SearchError::NoHash);
        }
        let capacity = tree::capacity_for::<G::Move, G::ChildCount>(hash_mb, threads);
        if capacity > tree::MAX_NODES {
            return Err(SearchError::TreeTooLarge {
                hash_mb,
                threads,
                max_mb: (tree::MAX_NODES as f64 * bytes_per_node::<G::Move, G::ChildCount>()
                    / tree::MIB) as u64,
            });
        }
        let needed = capacity as f64 * bytes_per_node::<G::Move, G::ChildCount>() * threads as f64;
        // Whether the new trees fit in memory while the old ones still
        // exist, as if all of both were in use (unknown without figures).
        let mut both_fit = false;
        if let Some(mem) = (self.memory)() {
            // The trees' memory once they are full, against what the machine
            // has left plus what the current trees hold (freed with them).
            let in_use: f64 = self.trees.iter().map(|t| t.bytes_in_use()).sum();
            let usable = (mem.available as f64 + in_use).min(mem.total as f64);
            if needed > usable {
                return Err(SearchError::NotEnoughMemory {
                    hash_mb,
                    available_mb: (usable / tree::MIB) as u64,
                });
            }
            let reserved = self.tree_capacity() as f64
                * bytes_per_node::<G::Move, G::ChildCount>()
                * self.trees.len() as f64;
            both_fit = needed + reserved <= usable;
        }
        // No more threads than cores: each runs its share of the trees in
        // turn (see the module docs).
        let workers = threads.min(cores());
        let pool = if workers > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers - 1)
                .thread_name(|i| format!("ultimo-search-{}", i + 1))
                .build()
                .map_err(|source| SearchError::ThreadPool { threads, source })?;
            Some(pool)
        } else {
            None
        };
        // New trees first, while the old ones stay, wherever the system
        // lets both be reserved (reserving takes address space, not memory,
        // where memory is overcommitted): a failure then leaves everything
        // as it was.
        let trees = match Self::build_trees(options, capacity, root) {
            Ok(trees) => trees,
            Err(e) if self.trees.is_empty() || both_fit => return Err(e),
            Err(_) => {
                // Old and new may not fit together (on a system that commits
                // memory when it is reserved): free the old trees and try
                // again.
                let old_capacity = self.tree_capacity();
                let old_count = self.trees.len();
                self.trees = Vec::new();
                match Self::build_trees(options, capacity, root) {
                    Ok(trees) => trees,
                    Err(e) => {
                        // Back to the old sizes; the old contents are gone.
                        // If even that fails, the smallest trees: a searcher
                        // always has one tree per thread.
                        let old = Options {
                            threads: old_count,
                            ..self.options.clone()
                        };
                        self.trees =
                            Self::build_trees(&old, old_capacity, root).unwrap_or_else(|_| {
                                (0..old_count)
                                    .map(|i| Tree::minimal(root, old.seed.wrapping_add(i as u64)))
                                    .collect()
                            });
                        return Err(e);
                    }
                }
            }
        };
        self.trees = trees;
        self.pool = pool;
        Ok(())
    }

    fn build_trees(
        options: &Options,
        capacity: usize,
        root: G,
    ) -> Result<Vec<Tree<G>>, SearchError> {
        (0..options.threads)
            .map(|i| Tree::new(capacity, root, options.seed.wrapping_add(i as u64)))
            .collect()
    }

    /// Forgets all trees (a new game).
    pub fn clear(&mut self, root: G) {
        for tree in &mut self.trees {
            tree.reset(root);
        }
    }

    /// Most nodes one thread's tree can hold.
    pub fn tree_capacity(&self) -> usize {
        self.trees.first().map_or(0, |t| t.capacity())
    }

    /// Searches `root` within `limits`, calling `on_info` about once a
    /// second with the current results, and returns the final results.
    /// With `searchmoves` not empty, only those root moves are considered.
    pub fn search(
        &mut self,
        root: &G,
        limits: &Limits,
        searchmoves: &[G::Move],
        control: &Control,
        on_info: &mut (dyn FnMut(&Report<G::Move>) + Send),
    ) -> Report<G::Move> {
        let start = Instant::now();
        let params = self.options.params;
        let threads = self.trees.len();
        let workers = self
            .pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1)
            .min(threads);
        let unit = self.unit();
        for (i, tree) in self.trees.iter_mut().enumerate() {
            if tree.unit() != unit {
                // Rebuilt trees start in playout units.
                tree.set_unit(unit);
            }
            tree.advance(root);
            tree.reseed(self.options.seed.wrapping_add(i as u64));
            tree.begin_search(&params, searchmoves, self.evaluator.as_deref());
        }
        if root.outcome().is_some() {
            // Nothing to search; an infinite or ponder search still waits.
            while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            return self.report(start);
        }
        let quota = |i: usize| {
            limits.nodes.map(|n| {
                let n = n.max(1);
                n / threads as u64 + u64::from((i as u64) < n % threads as u64)
            })
        };
        let children = self.trees[0].root().num_children.to_usize();
        let shares: Vec<Share> = (0..threads)
            .map(|i| Share::new(children, quota(i)))
            .collect();
        for (tree, share) in self.trees.iter().zip(&shares) {
            // Proofs found by begin_search count from the start.
            share.publish(tree);
        }
        let done = AtomicBool::new(false);
        let plan = plan(
            limits,
            self.options.move_overhead,
            root.ply(),
            G::EXPECTED_PLIES,
        );
        let ctx = RunContext {
            params: &params,
            eval: self.evaluator.as_deref(),
            control,
            done: &done,
            infinite: limits.infinite,
            yield_cpu: workers >= cores(),
        };

        let mut groups = groups(&mut self.trees, &shares, workers);
        let (main_group, rest) = groups.split_first_mut().expect("at least one group");
        let mut main = MainLoop {
            ctx: &ctx,
            plan,
            depth_limit: limits.depth,
            stall: Stall::default(),
            start,
            shares: &shares,
            on_info,
            last_info: start,
            info_interval: Duration::from_millis(1000),
        };
        match &self.pool {
            Some(pool) if !rest.is_empty() => pool.in_place_scope(|s| {
                for group in rest.iter_mut() {
                    let ctx = &ctx;
                    s.spawn(move |_| worker(group, ctx));
                }
                main.run(main_group);
            }),
            _ => main.run(main_group),
        }
        drop(groups);
        self.report(start)
    }

    /// The results summed over all trees, with each line's PV from the tree
    /// that searched that move most.
    fn report(&self, start: Instant) -> Report<G::Move> {
        let main_tree = &self.trees[0];
        let n = main_tree.root().num_children.to_usize();
        let shares: Vec<Share> = self
            .trees
            .iter()
            .map(|tree| {
                let share = Share::new(n, None);
                share.publish(tree);
                share
            })
            .collect();
        build_report(&shares, main_tree, start.elapsed(), |k| {
            let (tree, child) = self
                .trees
                .iter()
                .map(|t| (t, t.root().first_child as usize + k))
                .max_by_key(|(t, c)| t.node(*c).visits)
                .expect("at least one tree");
            pv_through(tree, child)
        })
    }
}

/// What every search thread needs.
struct RunContext<'a, G: Game> {
    params: &'a Params,
    /// Values leaves in place of playouts, when set.
    eval: Option<&'a dyn Evaluator<G>>,
    control: &'a Control,
    done: &'a AtomicBool,
    infinite: bool,
    /// Whether the search threads occupy every core, so that they should
    /// yield now and then to the thread that reads `stop`.
    yield_cpu: bool,
}

impl<G: Game> RunContext<'_, G> {
    fn stopped(&self) -> bool {
        self.control.is_stopped() || self.done.load(Ordering::Relaxed)
    }
}

/// One tree as a search thread runs it: the tree, where it publishes and
/// its iteration budget.
struct Slot<'a, G: Game> {
    tree: &'a mut Tree<G>,
    share: &'a Share,
    quota: Option<u64>,
}

impl<G: Game> Slot<'_, G> {
    /// Whether the tree has work left: budget, and a root not yet proven.
    fn active(&self) -> bool {
        self.tree.root().proof.is_none() && self.quota.is_none_or(|q| self.tree.iterations < q)
    }

    /// Runs up to `n` iterations, fewer when the search stops, the root is
    /// proven or the budget is spent, and publishes the statistics.
    fn run(&mut self, n: u32, ctx: &RunContext<G>) {
        for _ in 0..n {
            if ctx.stopped() || !self.active() {
                break;
            }
            self.tree.iterate(ctx.params, ctx.eval);
        }
        self.share.publish(self.tree);
    }
}

/// Splits the trees (with their shares and budgets) into `threads` groups,
/// tree `i` to group `i % threads`: each search thread runs its group's
/// trees in turn. Tree 0 goes to group 0, the reporting thread's.
fn groups<'a, G: Game>(
    trees: &'a mut [Tree<G>],
    shares: &'a [Share],
    threads: usize,
) -> Vec<Vec<Slot<'a, G>>> {
    let mut groups: Vec<Vec<Slot<'a, G>>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, (tree, share)) in trees.iter_mut().zip(shares).enumerate() {
        groups[i % threads].push(Slot {
            tree,
            share,
            quota: share.quota,
        });
    }
    groups
}

/// A helper thread: runs its trees in turn until told to stop; waits once
/// none has anything left to do.
fn worker<G: Game>(group: &mut [Slot<G>], ctx: &RunContext<G>) {
    while !ctx.stopped() {
        let mut busy = false;
        for slot in group.iter_mut().filter(|s| s.active()) {
            busy = true;
            slot.run(PUBLISH_EVERY, ctx);
            if ctx.yield_cpu {
                // Let the input thread run promptly when every core
                // searches (stop latency); one system call a millisecond.
                std::thread::yield_now();
            }
        }
        if !busy {
            // Nothing left to do; wait for the reporting thread.
            for slot in group.iter() {
                slot.share.publish(slot.tree);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    for slot in group.iter() {
        slot.share.publish(slot.tree);
    }
}

/// Iterations of the main tree since its last playout, for [`DEPTH_STALL`].
#[derive(Default)]
struct Stall {
    playouts: u64,
    iterations: u64,
}

impl Stall {
    /// Whether [`DEPTH_STALL`] iterations of `tree` passed since the last
    /// look that saw a new playout.
    fn stalled(&mut self, tree: &Tree<impl Game>) -> bool {
        if tree.playouts != self.playouts {
            self.playouts = tree.playouts;
            self.iterations = tree.iterations;
        }
        tree.iterations - self.iterations >= DEPTH_STALL
    }
}

/// The reporting thread: searches like a worker, and also watches the
/// limits, stops the others and reports progress.
struct MainLoop<'a, 'b, G: Game> {
    ctx: &'a RunContext<'a, G>,
    plan: Option<TimePlan>,
    depth_limit: Option<u32>,
    stall: Stall,
    start: Instant,
    shares: &'a [Share],
    on_info: &'b mut (dyn FnMut(&Report<G::Move>) + Send),
    last_info: Instant,
    info_interval: Duration,
}

impl<G: Game> MainLoop<'_, '_, G> {
    /// Runs the group's trees in turn, the main tree (the one whose depth
    /// the depth limit reads and whose PVs the info reports show) first.
    fn run(&mut self, group: &mut [Slot<G>]) {
        let ctx = self.ctx;
        let mut was_pondering = ctx.control.is_pondering();
        let mut time_base = self.start;
        let mut chunks = 0u32;
        // With a clock, the chunk between two looks at it adapts to the
        // game's speed: 256 UTTT iterations take a quarter of a millisecond,
        // 256 slow ones (long playouts, as in Super 1 al 5 with uniform
        // playouts) could take longer than the whole move. Without one the
        // chunk is fixed, so that a depth limit ends at the same iteration
        // on every machine.
        let timed = self.plan.is_some();
        let mut chunk = if timed { 1 } else { CHECK_EVERY };
        'search: loop {
            if ctx.control.is_stopped() {
                break;
            }
            let pondering = ctx.control.is_pondering();
            if was_pondering && !pondering {
                // ponderhit: the clock starts now.
                time_base = Instant::now();
                was_pondering = false;
            }
            let waiting = ctx.infinite || pondering;
            let proven = self.root_proven();
            if proven || !group.iter().any(|s| s.active()) {
                if !waiting && (proven || self.others_finished()) {
                    break;
                }
                for slot in group.iter() {
                    slot.share.publish(slot.tree);
                }
                self.maybe_info(group[0].tree);
                std::thread::sleep(Duration::from_micros(200));
                continue;
            }
            // Under a depth limit only the main tree runs here (while it has
            // work): the depth read is its own, and with many trees per
            // thread (Threads 256 on 2 cores) taking turns it would deepen a
            // hundred times slower.
            let turns = if self.depth_limit.is_some() && group[0].active() {
                1
            } else {
                group.len()
            };
            for i in 0..turns {
                if !group[i].active() {
                    continue;
                }
                let began = timed.then(Instant::now);
                group[i].run(chunk, ctx);
                if let Some(began) = began {
                    let took = began.elapsed();
                    if took < CHUNK_FAST {
                        chunk = (chunk * 2).min(CHECK_EVERY);
                    } else if took > CHUNK_SLOW {
                        chunk = (chunk / 2).max(1);
                    }
                }
                chunks += 1;
                if ctx.yield_cpu && chunks.is_multiple_of(4) {
                    // As in the workers: let the input thread run promptly.
                    std::thread::yield_now();
                }
                if ctx.control.is_stopped()
                    || (!waiting && self.limits_reached(group[0].tree, time_base))
                {
                    break 'search;
                }
                self.maybe_info(group[0].tree);
            }
        }
        self.ctx.done.store(true, Ordering::SeqCst);
        for slot in group.iter() {
            slot.share.publish(slot.tree);
        }
    }

    /// Whether any tree has proven the root (proofs hold in every tree),
    /// or a root move is proven a win in any tree (which proves the root).
    fn root_proven(&self) -> bool {
        let win = encode_proof(Some(Verdict::Win));
        self.shares.iter().any(|s| {
            decode_proof(s.root_proof.load(Ordering::Relaxed)).is_some()
                || s.proof.iter().any(|p| p[0].load(Ordering::Relaxed) == win)
        })
    }

    /// With node quotas, whether every thread has spent its own.
    fn others_finished(&self) -> bool {
        self.shares.iter().all(|s| {
            decode_proof(s.root_proof.load(Ordering::Relaxed)).is_some()
                || s.quota
                    .is_none_or(|q| s.iterations.load(Ordering::Relaxed) >= q)
        })
    }

    /// Time, depth and settledness checks.
    fn limits_reached(&mut self, tree: &Tree<G>, time_base: Instant) -> bool {
        if let Some(d) = self.depth_limit {
            // The depth is the mean depth at which playouts start; iterations
            // that end in proven nodes do not count, since they cannot
            // deepen the tree. Stop too once the best move is proven or the
            // tree is full, so that a depth limit always ends.
            let depth_reached = match tree.depth_sum.checked_div(tree.playouts) {
                Some(mean) => mean >= d as u64,
                // Every iteration ended in a proven node: nothing is left to
                // deepen.
                None => tree.iterations > 0,
            };
            if depth_reached || tree.full || self.stall.stalled(tree) || self.best_is_proven() {
                return true;
            }
        }
        let Some(plan) = self.plan else {
            return false;
        };
        let elapsed = time_base.elapsed();
        if elapsed >= plan.hard {
            return true;
        }
        let (best, second) = self.top_two();
        if elapsed >= plan.soft {
            // Past the soft limit, go on only while the choice is close.
            return best >= second.saturating_mul(2) || plan.soft == plan.hard;
        }
        // Before it, stop early when the runner-up cannot catch up in the
        // time left to the soft limit at the current speed.
        if elapsed >= plan.soft / 4 && plan.soft != plan.hard {
            let rate = self.total_iterations() as f64 / elapsed.as_secs_f64().max(1e-6);
            let left = (plan.soft - elapsed).as_secs_f64() * rate;
            return (best - second) as f64 > left;
        }
        false
    }

    /// Whether the best root move (over all threads) is proven.
    fn best_is_proven(&self) -> bool {
        sum_shares(self.shares)
            .into_iter()
            .max_by_key(|c| c.key())
            .is_some_and(|c| c.proof.is_some())
    }

    fn total_iterations(&self) -> u64 {
        self.shares
            .iter()
            .map(|s| s.iterations.load(Ordering::Relaxed))
            .sum()
    }

    /// Visits of the two most visited root moves, over all threads.
    fn top_two(&self) -> (u64, u64) {
        let mut visits: Vec<u64> = sum_shares(self.shares).iter().map(|c| c.visits).collect();
        visits.sort_unstable_by(|a, b| b.cmp(a));
        (
            visits.first().copied().unwrap_or(0),
            visits.get(1).copied().unwrap_or(0),
        )
    }

    fn maybe_info(&mut self, tree: &Tree<G>) {
        if self.last_info.elapsed() < self.info_interval {
            return;
        }
        self.last_info = Instant::now();
        let report = self.snapshot(tree);
        (self.on_info)(&report);
    }

    /// Current results from the published statistics, PVs from this
    /// thread's tree.
    fn snapshot(&self, tree: &Tree<G>) -> Report<G::Move> {
        let first = tree.root().first_child as usize;
        build_report(self.shares, tree, self.start.elapsed(), |k| {
            pv_through(tree, first + k)
        })
    }
}

#[cfg(test)]
mod tests;
