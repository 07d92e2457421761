//! One search on several threads: the budget of iterations they share, the
//! helper threads' loop, and the reporting thread's, which searches too and
//! also watches the limits, the clock and the statistics' range.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::time::{Progress, should_stop};
use super::tree::{Tree, preference, rescale_visits};
use super::worker::{Share, Worker};
use super::{Control, DEPTH_STALL, Evaluator, Params, Report, TimePlan, build_report};
use crate::game::{Game, Verdict};

/// Iterations between two looks at the limits by the reporting thread
/// (at most, with a clock; see [`MainLoop::run`]).
const CHECK_EVERY: u32 = 256;
/// With a clock, the reporting thread's chunks of iterations grow while they
/// take less than this...
const CHUNK_FAST: Duration = Duration::from_micros(500);
/// ...and shrink while they take more than this.
const CHUNK_SLOW: Duration = Duration::from_millis(2);
/// Iterations between two yields of a helper thread when the threads
/// occupy every core (about a millisecond).
const YIELD_EVERY: u32 = 1024;
/// The most iterations a thread claims from a node budget at once.
const MAX_BATCH: u64 = 256;
/// How long an idle thread sleeps before it looks again.
const IDLE: Duration = Duration::from_micros(200);

/// The search's node budget, which the threads claim in batches (one
/// atomic add a batch), so that they run exactly the iterations asked for
/// in all.
#[repr(align(128))]
pub(crate) struct Budget {
    limit: Option<u64>,
    claimed: AtomicU64,
}

impl Budget {
    /// A budget of `limit` iterations, if any.
    pub fn new(limit: Option<u64>) -> Self {
        Budget {
            limit,
            claimed: AtomicU64::new(0),
        }
    }

    /// Takes one iteration for `worker` (one of `workers`): from its batch,
    /// else from a new batch. `false` once the budget is spent.
    #[inline]
    fn take<G: Game>(&self, worker: &mut Worker<G>, workers: usize) -> bool {
        if worker.budget > 0 {
            worker.budget -= 1;
            return true;
        }
        let Some(limit) = self.limit else {
            return true;
        };
        let claimed = self.claimed.load(Ordering::Relaxed);
        if claimed >= limit {
            return false;
        }
        // Smaller batches as the end nears, so that the threads finish
        // together.
        let batch = ((limit - claimed) / (4 * workers as u64)).clamp(1, MAX_BATCH);
        let from = self.claimed.fetch_add(batch, Ordering::Relaxed);
        if from >= limit {
            return false;
        }
        worker.budget = batch.min(limit - from) - 1;
        true
    }
}

/// Flags the reporting thread raises for the others.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Flags {
    /// The search is over.
    done: AtomicBool,
    /// The helpers are to pause (for [`Tree::rescale`]).
    pause: AtomicBool,
    /// Helpers pausing.
    parked: AtomicUsize,
}

/// What every search thread shares.
pub(crate) struct Run<'a, G: Game> {
    pub tree: &'a Tree<G>,
    pub params: &'a Params,
    /// Values leaves in place of playouts, when set.
    pub eval: Option<&'a dyn Evaluator<G>>,
    pub control: &'a Control,
    /// One per thread, the reporting thread's first.
    pub shares: &'a [Share],
    pub budget: &'a Budget,
    pub flags: &'a Flags,
    /// Whether several threads search (see `Worker::iterate`).
    pub shared: bool,
    pub infinite: bool,
    /// Whether the search threads occupy every core, so that they should
    /// yield now and then to the thread that reads `stop`.
    pub yield_cpu: bool,
}

impl<G: Game> Run<'_, G> {
    fn stopped(&self) -> bool {
        self.control.is_stopped() || self.flags.done.load(Ordering::Relaxed)
    }

    fn workers(&self) -> usize {
        self.shares.len()
    }

    /// A helper thread: searches until told to stop; waits while the root
    /// is proven or the budget is spent (the reporting thread decides when
    /// the search ends), and while the reporting thread rescales.
    pub fn helper(&self, worker: &mut Worker<G>, share: &Share) {
        let mut count = 0u32;
        while !self.stopped() {
            if self.flags.pause.load(Ordering::SeqCst) {
                self.park();
                continue;
            }
            if self.tree.root_proven() || !self.budget.take(worker, self.workers()) {
                std::thread::sleep(IDLE);
                continue;
            }
            worker.iterate(self.tree, share, self.params, self.eval, self.shared);
            count = count.wrapping_add(1);
            if self.yield_cpu && count.is_multiple_of(YIELD_EVERY) {
                // Let the input thread run promptly when every core
                // searches (stop latency); one system call a millisecond.
                std::thread::yield_now();
            }
        }
        worker.flush(self.tree);
    }

    /// Waits while the reporting thread rescales.
    #[cold]
    fn park(&self) {
        self.flags.parked.fetch_add(1, Ordering::SeqCst);
        while self.flags.pause.load(Ordering::SeqCst) && !self.control.is_stopped() {
            std::thread::yield_now();
        }
        self.flags.parked.fetch_sub(1, Ordering::SeqCst);
    }

    /// Scales the tree's statistics down once every other thread is between
    /// iterations, with none of their virtual visits left in the tree.
    #[cold]
    fn rescale(&self) {
        let others = self.workers() - 1;
        if others > 0 {
            self.flags.pause.store(true, Ordering::SeqCst);
            while self.flags.parked.load(Ordering::SeqCst) < others {
                if self.control.is_stopped() {
                    // The search ends; the statistics have room for its
                    // last few iterations.
                    self.flags.pause.store(false, Ordering::SeqCst);
                    return;
                }
                std::thread::yield_now();
            }
        }
        self.tree.rescale();
        self.flags.pause.store(false, Ordering::SeqCst);
    }

    /// Iterations done so far, all threads.
    fn iterations(&self) -> u64 {
        self.shares
            .iter()
            .map(|s| s.iterations.load(Ordering::Relaxed))
            .sum()
    }
}

/// Iterations (all threads) since the last new playout, for
/// [`DEPTH_STALL`].
#[derive(Default)]
pub(crate) struct Stall {
    playouts: u64,
    iterations: u64,
}

impl Stall {
    /// Whether [`DEPTH_STALL`] iterations passed since the last look that
    /// saw `playouts` grow, `iterations` being the count so far.
    fn stalled(&mut self, playouts: u64, iterations: u64) -> bool {
        if playouts != self.playouts {
            self.playouts = playouts;
            self.iterations = iterations;
        }
        iterations - self.iterations >= DEPTH_STALL
    }
}

/// How one pass of the search threads ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// The search is over.
    Done,
    /// The tree is full: the caller recycles it ([`Tree::recycle`]) and
    /// starts another pass.
    Recycle,
}

/// The reporting thread: searches like a helper, and also watches the
/// limits, stops the others and reports progress. Its state lasts the
/// whole search, over the passes between which the tree is recycled.
pub(crate) struct MainLoop<'b, G: Game> {
    pub plan: Option<TimePlan>,
    /// Whether the smart time manager decides when a timed search stops
    /// (else the plain one; see [`should_stop`]).
    pub smart: bool,
    /// The root move (its index among the root's children) that led at the
    /// last checkpoint, for the smart manager.
    pub leader: Option<usize>,
    /// Since when it has led.
    pub leader_since: Instant,
    pub depth_limit: Option<u32>,
    pub stall: Stall,
    pub start: Instant,
    pub on_info: &'b mut (dyn FnMut(&Report<G::Move>) + Send),
    pub last_info: Instant,
    pub info_interval: Duration,
    /// Whether a full tree ends the pass to be recycled (else the search
    /// goes on refining the tree it has).
    pub recycle: bool,
    /// Whether the search was pondering at the last look.
    pub was_pondering: bool,
    /// When the clock started: at the start, or at `ponderhit`.
    pub time_base: Instant,
    /// Iterations between two looks at the limits.
    pub chunk: u32,
    /// Chunks run so far.
    pub chunks: u32,
}

impl<G: Game> MainLoop<'_, G> {
    /// The reporting thread's state for a search that started at `start`
    /// (pondering or not), on a clock or not.
    pub fn new(
        plan: Option<TimePlan>,
        smart: bool,
        depth_limit: Option<u32>,
        start: Instant,
        pondering: bool,
        on_info: &mut (dyn FnMut(&Report<G::Move>) + Send),
        recycle: bool,
    ) -> MainLoop<'_, G> {
        // With a clock, the chunk between two looks at it adapts to the
        // game's speed: 256 UTTT iterations take a quarter of a
        // millisecond, 256 slow ones (long playouts, as in Super 1 al 5
        // with uniform playouts) could take longer than the whole move.
        // Without one the chunk is fixed, so that with one thread a depth
        // or node limit ends, and the tree is recycled, at the same
        // iteration on every machine.
        let chunk = if plan.is_some() { 1 } else { CHECK_EVERY };
        MainLoop {
            plan,
            smart,
            leader: None,
            leader_since: start,
            depth_limit,
            stall: Stall::default(),
            start,
            on_info,
            last_info: start,
            info_interval: Duration::from_millis(1000),
            recycle: recycle && depth_limit.is_none(),
            was_pondering: pondering,
            time_base: start,
            chunk,
            chunks: 0,
        }
    }

    /// Searches in chunks of iterations, looking at the limits between
    /// them, until the search ends or the tree is full (with
    /// [`MainLoop::recycle`]); then tells the helpers.
    pub fn run(&mut self, run: &Run<'_, G>, worker: &mut Worker<G>) -> Pass {
        let share = &run.shares[0];
        let timed = self.plan.is_some();
        let pass = loop {
            if run.control.is_stopped() {
                break Pass::Done;
            }
            let pondering = run.control.is_pondering();
            if self.was_pondering && !pondering {
                // ponderhit: the clock starts now.
                self.time_base = Instant::now();
                self.was_pondering = false;
            }
            let waiting = run.infinite || pondering;
            let began = timed.then(Instant::now);
            let mut ran = 0;
            let mut spent = false;
            let chunk = self.chunk;
            while ran < chunk && !run.control.is_stopped() && !run.tree.root_proven() {
                if !run.budget.take(worker, run.workers()) {
                    spent = true;
                    break;
                }
                worker.iterate(run.tree, share, run.params, run.eval, run.shared);
                ran += 1;
            }
            if let Some(began) = began
                && ran == chunk
            {
                let took = began.elapsed();
                if took < CHUNK_FAST {
                    self.chunk = (chunk * 2).min(CHECK_EVERY);
                } else if took > CHUNK_SLOW {
                    self.chunk = (chunk / 2).max(1);
                }
            }
            if run.tree.root().visits() >= rescale_visits(run.tree.unit()) {
                run.rescale();
            }
            let idle = ran < chunk;
            if idle {
                // The root is proven or the budget spent: the search is
                // over once the others have finished their iterations,
                // unless it waits for `stop` or `ponderhit`.
                let finished = run.tree.root_proven()
                    || (spent && run.budget.limit.is_some_and(|n| run.iterations() >= n));
                if (finished && !waiting) || run.control.is_stopped() {
                    break Pass::Done;
                }
                self.maybe_info(run);
                std::thread::sleep(IDLE);
                continue;
            }
            self.chunks += 1;
            if run.yield_cpu && self.chunks.is_multiple_of(4) {
                // As in the helpers: let the input thread run promptly.
                std::thread::yield_now();
            }
            let time_base = self.time_base;
            if run.control.is_stopped() || (!waiting && self.limits_reached(run, time_base)) {
                break Pass::Done;
            }
            self.maybe_info(run);
            if self.recycle && run.tree.is_full() {
                break Pass::Recycle;
            }
        };
        worker.flush(run.tree);
        run.flags.done.store(true, Ordering::SeqCst);
        pass
    }

    /// Time, depth and settledness checks.
    fn limits_reached(&mut self, run: &Run<'_, G>, time_base: Instant) -> bool {
        if let Some(d) = self.depth_limit {
            // The depth is the mean depth at which playouts start; iterations
            // that end in proven nodes do not count, since they cannot
            // deepen the tree. Stop too once the best move is proven, the
            // tree is full or no iteration reached a playout for a long
            // while (solver off and only finished games in the tree), so
            // that a depth limit always ends.
            let (mut playouts, mut depth_sum) = (0, 0);
            for s in run.shares {
                playouts += s.playouts.load(Ordering::Relaxed);
                depth_sum += s.depth_sum.load(Ordering::Relaxed);
            }
            let iterations = run.iterations();
            let depth_reached = match depth_sum.checked_div(playouts) {
                Some(mean) => mean >= d as u64,
                // Every iteration ended in a proven node: nothing is left to
                // deepen.
                None => iterations > 0,
            };
            if depth_reached
                || run.tree.is_full()
                || self.stall.stalled(playouts, iterations)
                || self.best_is_proven(run)
            {
                return true;
            }
        }
        let Some(plan) = self.plan else {
            return false;
        };
        let elapsed = time_base.elapsed();
        let progress = if self.smart {
            self.smart_progress(run, elapsed, time_base)
        } else {
            let (best, second) = self.top_two(run);
            Progress {
                elapsed,
                iterations: run.iterations(),
                best,
                second,
                choices: 0,
                stable_for: Duration::ZERO,
            }
        };
        should_stop(&plan, &progress, self.smart)
    }

    /// The checkpoint's view for the smart manager: the top two of the
    /// root moves the search may still choose, and how long the first has
    /// led (a tie keeps the leader).
    fn smart_progress(
        &mut self,
        run: &Run<'_, G>,
        elapsed: Duration,
        time_base: Instant,
    ) -> Progress {
        let tree = run.tree;
        let range = tree.root().children();
        let (mut best, mut second, mut choices) = (0, 0, 0);
        let mut best_k = None;
        for (k, c) in range.enumerate() {
            let node = tree.node(c);
            if !tree.root_allowed(k) || node.verdict() == Some(Verdict::Loss) {
                continue;
            }
            choices += 1;
            let v = node.visits() as u64;
            let leads = match best_k {
                None => true,
                Some(_) => v > best || (v == best && Some(k) == self.leader),
            };
            if leads {
                if best_k.is_some() {
                    second = second.max(best);
                }
                best = v;
                best_k = Some(k);
            } else if v > second {
                second = v;
            }
        }
        if best_k != self.leader {
            // The first look only names the leader: it has led since the
            // search began.
            self.leader_since = if self.leader.is_none() {
                time_base
            } else {
                Instant::now()
            };
            self.leader = best_k;
        }
        Progress {
            elapsed,
            iterations: run.iterations(),
            best,
            second,
            choices,
            stable_for: self.leader_since.elapsed().min(elapsed),
        }
    }

    /// Whether the best root move is proven.
    fn best_is_proven(&self, run: &Run<'_, G>) -> bool {
        let tree = run.tree;
        tree.root()
            .children()
            .map(|c| {
                let node = tree.node(c);
                let (proof, dist) = node.proof().map_or((None, 0), |(v, d)| (Some(v), d));
                let key = preference(proof, dist, node.visits() as u64, node.score());
                (key, proof)
            })
            .max_by_key(|&(key, _)| key)
            .is_some_and(|(_, proof)| proof.is_some())
    }

    /// Visits of the two most visited root moves.
    fn top_two(&self, run: &Run<'_, G>) -> (u64, u64) {
        let tree = run.tree;
        let (mut best, mut second) = (0, 0);
        for c in tree.root().children() {
            let v = tree.node(c).visits() as u64;
            if v > best {
                second = best;
                best = v;
            } else if v > second {
                second = v;
            }
        }
        (best, second)
    }

    fn maybe_info(&mut self, run: &Run<'_, G>) {
        if self.last_info.elapsed() < self.info_interval {
            return;
        }
        self.last_info = Instant::now();
        let report = build_report(run.tree, run.shares, self.start.elapsed());
        (self.on_info)(&report);
    }
}
