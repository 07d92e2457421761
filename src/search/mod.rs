//! Parallel Monte Carlo tree search with MCTS-Solver, over any [`Game`],
//! all threads on one shared tree.
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
//! parent's less [`Params::fpu_reduction`]. The priors sit in an array
//! beside the nodes (4 bytes a node, within the same memory bound), so the
//! 16-byte node and the playout search are unchanged.
//!
//! # Parallelism: one tree for all threads
//!
//! All threads search one tree, so that a selective search (PUCT with the
//! net) sees every iteration, whichever thread ran it: a tree per thread,
//! with the root statistics summed, scales perfectly in iterations but
//! gives each tree half of a search made to go deep. The figures that
//! chose each part of this design are in `docs/search.md`.
//!
//! - A node (`search::node`) keeps its visits and score in one 64-bit atomic
//!   word (one atomic add updates both, and a reader always gets a
//!   matching pair) and its proof in another, set once by
//!   compare-and-swap; its move and its child count are written before
//!   any other thread can reach it.
//! - Expansion: one thread locks a node (its first-child word), creates
//!   the children in slots of its own block of the arena (one
//!   compare-and-swap a block of up to 1024 slots, so that threads seldom
//!   touch the allocation counter), sets their priors and publishes them
//!   with one release store. A thread that meets a node being expanded
//!   plays out from it (a playout needs no children) or, with PUCT, waits
//!   the few microseconds the evaluation takes.
//! - Virtual loss: a thread adds one virtual visit, scored as a loss, to
//!   each node two plies or more below the root as it descends, and takes
//!   it back with the result, so that the others look elsewhere meanwhile.
//!   Of the kinds and sizes measured, one loss everywhere is the simplest
//!   of the best.
//! - Proofs: a proof is set once (compare-and-swap) and derived only from
//!   the children's proofs, which never change, so whichever thread sets
//!   it, it is right, and its distance is that of a line of play that
//!   achieves it. Proof loads and stores are sequentially consistent: of
//!   two threads that prove the last two unproven children of a node, at
//!   least one sees both and proves the parent, so no proof is lost on the
//!   way up. An iteration that finds the root proven by another thread
//!   does not count.
//! - Contention: every iteration passes through the root and one of its
//!   children, so each thread adds its visits to them 64 iterations at a
//!   time (selecting at the root with its own visits counted); the
//!   threads' counters and flags sit on cache lines of their own. What
//!   remains is the traffic on the lines of the nodes two plies and more
//!   below the root, which every thread reads and writes. It costs most
//!   with playouts, whose iterations are as short as a cache line's trip
//!   between cores; a tree per thread would avoid it but splits the
//!   search, which costs about as much.
//!
//! With one thread the search is as it was, deterministic under a fixed
//! seed and node limit (the `ultimo bench` checksum is unchanged): no
//! virtual loss, and plain stores where several threads need atomic adds.
//! With several, a `go nodes` search runs exactly that many iterations in
//! all (the threads claim the budget in batches), but the result depends
//! on how the threads interleave, so it may differ from run to run.
//!
//! Threads run as long loops on a rayon pool (one job per thread, not one
//! per iteration), the caller's thread searching too and watching the
//! limits, and they yield once a millisecond when they occupy every core
//! so that the input thread sees `stop` at once. No more threads run than
//! the machine has cores (`threads` above that runs as many as there are
//! cores): with more, the reporting thread, which watches the clock,
//! would get a small share of the CPU (256 threads on 2 cores made `go
//! movetime 100` take up to a second), and threads that wait for one
//! another's expansions would wait for the scheduler.
//!
//! Statistics are scaled down to 3/4 when the root's visits near the
//! range of their fields (252 million with an evaluator, see
//! `tree::rescale_visits`): the reporting thread waits until the others
//! are between iterations, with no virtual visit left in the tree, and
//! scales them. Scaling makes the search broader (the exploration term
//! grows against the values), so it is rare and gentle: before, the
//! statistics were halved every 16.7 million root visits (40 seconds of
//! a one-core analysis with the net), and the tree stopped deepening.
//!
//! # Memory
//!
//! The `hash` size bounds the tree, whatever the threads, counting the
//! nodes and the scratch used to compact it. The arena is reserved once,
//! zeroed (the system hands out its pages as they are first written), and
//! never grows past its capacity.
//!
//! When the tree is full it recycles itself, so that a long analysis keeps
//! deepening on any hash size: the threads finish their iterations and
//! leave the tree, the tree keeps the families of children of its most
//! visited nodes (half its capacity; see `Tree::recycle`) and turns the
//! others back into leaves with their statistics and proofs, and the
//! threads go on with the same search where the tree now has room. The
//! root's children, and so every statistic the report shows, are kept as
//! they were; `hashfull` rises to 1000 and falls back to about 500 with
//! each recycling. Under a depth limit the search ends at a full tree
//! instead (see [`Limits::depth`]), and a recycling that frees less than
//! an eighth of the tree is the search's last: from then on, as in a tree
//! too small to be worth recycling, iterations end in playouts or
//! evaluations from the leaves of the tree it has. With one thread the
//! tree fills, and is recycled, at the same iteration on every run.
//!
//! Between moves the subtree of the position actually reached is kept and
//! slid to the front of the arena (tree reuse); pondering uses the same
//! mechanism.

mod error;
mod memory;
mod node;
mod report;
mod run;
mod time;
mod tree;
mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use error::SearchError;
use memory::Memory;
use report::build_report;
use run::{Budget, Flags, MainLoop, Pass, Run};
pub use time::{TimePlan, plan};
use tree::{Tree, bytes_per_node};
use worker::{Share, Worker};

use crate::game::{Game, Verdict};

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
    /// ([`Params::policy`]), at softmax `temperature`
    /// ([`Params::policy_temperature`]: 1 as the policy gives them, above
    /// 1 flatter). Without a policy: uniform priors.
    fn evaluate_with_priors(
        &self,
        pos: &G,
        moves: &[G::Move],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        let _ = temperature;
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

/// Settles positions near the end of the game exactly, for the search's
/// leaves ([`Params::leaf_solve`], [`Searcher::set_leaf_solver`]): each
/// search thread has its own, and keeps it from search to search.
///
/// The search sees positions only through [`Game`]; the `solve` module's
/// proof-number solver is the engine's.
pub trait LeafSolver<G: Game>: Send + Sync {
    /// The result for the side to move in `pos` (not over) and the plies
    /// to the end along the proof, when proven within about `nodes` nodes
    /// of its own search; `None` when not.
    fn settle(&mut self, pos: &G, nodes: u64) -> Option<(Verdict, u32)>;
}

/// Makes a [`LeafSolver`] for each search thread.
pub type NewLeafSolver<G> = Arc<dyn Fn() -> Box<dyn LeafSolver<G>> + Send + Sync>;

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
    /// With PUCT: the softmax temperature of the priors (1 as the
    /// evaluator's policy gives them; above 1 flatter, below sharper).
    pub policy_temperature: f32,
    /// Contempt: what a draw is worth less than half a point to the side
    /// to move at the root (and more to the other), 0 to 0.5, taken off
    /// each backed-up value in proportion to its draw share. 0 (the
    /// default) values draws as they are.
    pub contempt: f32,
    /// With MCTS-Solver ([`Params::solver`]) and a leaf solver
    /// ([`Searcher::set_leaf_solver`]): a new leaf with at most this many
    /// plies left ([`Game::plies_left_bound`]) is first given to the leaf
    /// solver, and a proof settles it; 0 never does.
    pub leaf_solve: u32,
    /// The nodes the leaf solver may search for one leaf.
    pub leaf_solve_nodes: u64,
}

/// The default [`Params::leaf_solve`]: measured, see docs/search.md.
pub const LEAF_SOLVE: u32 = 20;

/// The default [`Params::leaf_solve_nodes`] (the `SolveLeafNodes` option):
/// measured, see docs/search.md.
pub const LEAF_SOLVE_NODES: u64 = 300;

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
            policy_temperature: 1.0,
            contempt: 0.0,
            leaf_solve: LEAF_SOLVE,
            leaf_solve_nodes: LEAF_SOLVE_NODES,
        }
    }
}

/// Engine settings that outlive one search.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Search threads, all on one tree (1 to [`MAX_THREADS`]); at most as
    /// many as there are cores run (see the module docs).
    pub threads: usize,
    /// Memory for the tree, in MiB.
    pub hash_mb: usize,
    /// Seed of the random generators (thread `i` uses `seed + i`).
    pub seed: u64,
    /// Time kept back from every move for communication delays.
    pub move_overhead: Duration,
    /// Whether a search on a clock spends more time when the best move is
    /// unclear or changes and less when one move dominates (the smart time
    /// manager, see `search::time`); off, the plain rule decides. Fixed
    /// `movetime` and `nodes` searches are the same either way.
    pub smart_time: bool,
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
            smart_time: true,
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
    /// iterations in a row valued no new position).
    pub depth: Option<u32>,
    /// Search until stopped, even past the other limits.
    pub infinite: bool,
    /// Search as the levels for people were measured: without the leaf
    /// solver ([`Params::leaf_solve`] taken as 0) and with the priors as
    /// the evaluator gives them ([`Params::policy_temperature`] taken as
    /// 1), both added since.
    pub as_levels_measured: bool,
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
    /// The evaluator's prior for the move, with PUCT ([`Params::policy`]);
    /// `None` when the search has no priors.
    pub prior: Option<f32>,
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
    /// How full the tree is, in permille (it falls back to about 500 each
    /// time the full tree is recycled).
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

/// The cores this process may use (at least 1): the most search threads
/// that run at once, and the thread count of the tools that use every core
/// unless told otherwise (`analyze`, `play`, the GUI's engine).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Under a depth limit, the search ends once this many iterations in a row
/// (all threads) ended in a finished or proven position: the depth cannot
/// grow any more (a tree of finished games with the solver off).
pub const DEPTH_STALL: u64 = 1 << 16;

/// A recycling of the full tree that frees less than this fraction
/// (1/`MIN_FREED`) of its capacity is the search's last.
const MIN_FREED: usize = 8;

/// The most search threads a searcher takes.
pub const MAX_THREADS: usize = 256;

/// The search: one tree that all its threads share, kept between moves.
pub struct Searcher<G: Game> {
    options: Options,
    tree: Tree<G>,
    /// The helper threads; the caller's thread searches too.
    pool: Option<rayon::ThreadPool>,
    /// Each running thread's own state, the caller's first.
    workers: Vec<Worker<G>>,
    /// Reads the machine's memory (a stand-in in tests).
    memory: fn() -> Option<Memory>,
    /// Values the leaves instead of playouts, when set.
    evaluator: Option<Arc<dyn Evaluator<G>>>,
    /// Whether a full tree is recycled (always, but for tests that
    /// compare with the tree that stays full).
    recycle: bool,
    /// Makes each thread's leaf solver, when set.
    leaf_solver: Option<NewLeafSolver<G>>,
}

impl<G: Game> Searcher<G> {
    /// A searcher with these options, its tree at `root`.
    pub fn new(options: Options, root: G) -> Result<Self, SearchError> {
        Self::with_memory(options, root, memory::probe)
    }

    fn with_memory(
        options: Options,
        root: G,
        memory: fn() -> Option<Memory>,
    ) -> Result<Self, SearchError> {
        let (capacity, _) = check_sizes::<G>(&options, memory, 0.0, 0.0)?;
        let pool = build_pool(options.threads)?;
        let tree = Tree::new(capacity, root)?;
        Ok(Searcher {
            options,
            tree,
            pool,
            workers: Vec::new(),
            memory,
            evaluator: None,
            recycle: true,
            leaf_solver: None,
        })
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Values the leaves with `evaluator` instead of playouts (`None`: back
    /// to playouts). Forgets the tree, whose scores were made the other
    /// way.
    pub fn set_evaluator(&mut self, evaluator: Option<Arc<dyn Evaluator<G>>>) {
        self.evaluator = evaluator;
        let unit = self.unit();
        self.tree.set_unit(unit);
    }

    /// Settles new leaves near the end of the game with the leaf solvers
    /// `new` makes, one for each thread, as [`Params::leaf_solve`] says
    /// (`None`: never). The tree stays: its proofs hold either way.
    pub fn set_leaf_solver(&mut self, new: Option<NewLeafSolver<G>>) {
        self.leaf_solver = new;
        for w in &mut self.workers {
            w.leaf = None;
        }
    }

    /// The tree's score unit: finer with an evaluator.
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

    /// Changes the options: a threads change replaces the thread pool, a
    /// hash change the tree. On error nothing changes (see
    /// [`SearchError`]).
    ///
    /// The tree stays within the hash size, which must fit in the
    /// machine's memory: the memory available now plus what the current
    /// tree uses.
    pub fn set_options(&mut self, options: Options, root: G) -> Result<(), SearchError> {
        let new_threads = options.threads != self.options.threads;
        let new_hash = options.hash_mb != self.options.hash_mb;
        if new_threads || new_hash {
            let in_use = self.tree.bytes_in_use();
            let reserved = self.tree_capacity() as f64 * bytes_per_node::<G::Move, G::ChildCount>();
            let (capacity, both_fit) = check_sizes::<G>(&options, self.memory, in_use, reserved)?;
            let pool = if new_threads {
                Some(build_pool(options.threads)?)
            } else {
                None
            };
            if new_hash {
                self.replace_tree(capacity, root, both_fit)?;
            }
            if let Some(pool) = pool {
                self.pool = pool;
            }
        }
        self.options = options;
        Ok(())
    }

    /// Replaces the tree by one of `capacity` nodes. The new tree is made
    /// first, while the old one stays, wherever the system lets both be
    /// reserved (reserving takes address space, not memory, where memory
    /// is overcommitted): a failure then leaves everything as it was.
    /// Otherwise (`both_fit` false: old and new may not fit together, on a
    /// system that commits memory when it is reserved) the old tree is
    /// freed and the new one tried again; failing that, the old size comes
    /// back (its contents are gone), or at worst the smallest tree.
    fn replace_tree(
        &mut self,
        capacity: usize,
        root: G,
        both_fit: bool,
    ) -> Result<(), SearchError> {
        match Tree::new(capacity, root) {
            Ok(tree) => self.tree = tree,
            Err(e) if both_fit => return Err(e),
            Err(_) => {
                let old = tree::capacity_for::<G::Move, G::ChildCount>(self.options.hash_mb);
                self.tree = Tree::minimal(root);
                match Tree::new(capacity, root) {
                    Ok(tree) => self.tree = tree,
                    Err(e) => {
                        self.tree = Tree::new(old, root).unwrap_or_else(|_| Tree::minimal(root));
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    }

    /// Forgets the tree and what the leaf solvers learnt (a new game).
    pub fn clear(&mut self, root: G) {
        self.tree.reset(root);
        // The leaf solvers' tables too, so that a new game searches as
        // the first did.
        for w in &mut self.workers {
            w.leaf = None;
        }
    }

    /// Most nodes the tree can hold.
    pub fn tree_capacity(&self) -> usize {
        self.tree.capacity()
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
        let mut params = self.options.params;
        if limits.as_levels_measured {
            params.leaf_solve = 0;
            params.policy_temperature = 1.0;
        }
        let threads = self
            .pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1)
            .min(self.options.threads);
        let unit = self.unit();
        if self.tree.unit() != unit {
            // A rebuilt tree starts in playout units.
            self.tree.set_unit(unit);
        }
        self.tree.advance(root);
        let eval = self.evaluator.as_deref();
        self.tree.begin_search(&params, searchmoves, eval, threads);
        self.workers.truncate(threads);
        while self.workers.len() < threads {
            self.workers.push(Worker::new(0));
        }
        for (i, w) in self.workers.iter_mut().enumerate() {
            w.begin(&self.tree, self.options.seed.wrapping_add(i as u64));
            if w.leaf.is_none()
                && params.leaf_solve > 0
                && let Some(new) = &self.leaf_solver
            {
                w.leaf = Some(new());
            }
        }
        let children = self.tree.root().num_children();
        let shares: Vec<Share> = (0..threads).map(|_| Share::new(children)).collect();
        if root.outcome().is_some() {
            // Nothing to search; an infinite or ponder search still waits.
            while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            return build_report(&self.tree, &shares, start.elapsed());
        }
        let budget = Budget::new(limits.nodes.map(|n| n.max(1)));
        let mut main = MainLoop::new(
            plan(
                limits,
                self.options.move_overhead,
                root.ply(),
                G::EXPECTED_PLIES,
            ),
            self.options.smart_time,
            limits.depth,
            start,
            control.is_pondering(),
            on_info,
            self.recycle,
        );
        loop {
            let flags = Flags::default();
            let run = Run {
                tree: &self.tree,
                params: &params,
                eval,
                control,
                shares: &shares,
                budget: &budget,
                flags: &flags,
                shared: threads > 1,
                infinite: limits.infinite,
                yield_cpu: threads >= cores(),
            };
            let (first, rest) = self.workers.split_first_mut().expect("at least one thread");
            let pass = match &self.pool {
                Some(pool) if !rest.is_empty() => pool.in_place_scope(|s| {
                    for (worker, share) in rest.iter_mut().zip(&shares[1..]) {
                        let run = &run;
                        s.spawn(move |_| run.helper(worker, share));
                    }
                    main.run(&run, first)
                }),
                _ => main.run(&run, first),
            };
            if pass == Pass::Done {
                break;
            }
            // Every thread has added its visits and left the tree: make
            // room, and go on from where each thread was.
            let freed = self.tree.recycle();
            if freed < self.tree.capacity() / MIN_FREED {
                // Too little to be worth the passes (a tree too small for
                // more than the nodes it must keep): refine it as it is.
                main.recycle = false;
            }
            for w in &mut self.workers {
                w.resume(&self.tree);
            }
        }
        build_report(&self.tree, &shares, start.elapsed())
    }
}

/// Checks the thread count and hash size of `options`: the tree's
/// capacity, and whether a new tree fits in memory beside the current one
/// (which uses `in_use` bytes of the `reserved` it holds). Refuses a hash
/// the machine cannot hold: the memory available now plus what the
/// current tree uses.
fn check_sizes<G: Game>(
    options: &Options,
    memory: fn() -> Option<Memory>,
    in_use: f64,
    reserved: f64,
) -> Result<(usize, bool), SearchError> {
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
    let per_node = bytes_per_node::<G::Move, G::ChildCount>();
    let capacity = tree::capacity_for::<G::Move, G::ChildCount>(hash_mb);
    if capacity > tree::MAX_NODES {
        return Err(SearchError::TreeTooLarge {
            hash_mb,
            max_mb: (tree::MAX_NODES as f64 * per_node / tree::MIB) as u64,
        });
    }
    let needed = capacity as f64 * per_node;
    // Whether the new tree fits in memory while the old one still exists,
    // as if all of both were in use (unknown without figures).
    let mut both_fit = false;
    if let Some(mem) = memory() {
        // The tree's memory once it is full, against what the machine has
        // left plus what the current tree holds (freed with it).
        let usable = (mem.available as f64 + in_use).min(mem.total as f64);
        if needed > usable {
            return Err(SearchError::NotEnoughMemory {
                hash_mb,
                available_mb: (usable / tree::MIB) as u64,
            });
        }
        both_fit = needed + reserved <= usable;
    }
    Ok((capacity, both_fit))
}

/// The helper threads for `threads` search threads: one fewer, the
/// caller's thread searching too, and no more threads than cores in all
/// (see the module docs).
fn build_pool(threads: usize) -> Result<Option<rayon::ThreadPool>, SearchError> {
    let running = threads.min(cores());
    if running <= 1 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(running - 1)
        .thread_name(|i| format!("ultimo-search-{}", i + 1))
        .build()
        .map(Some)
        .map_err(|source| SearchError::ThreadPool { threads, source })
}

#[cfg(test)]
mod tests;
