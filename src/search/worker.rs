//! One search thread: its random generator, scratch and block of arena
//! slots; the MCTS iteration it runs over the shared tree (selection with
//! virtual loss, expansion, playout or evaluation, backpropagation with
//! MCTS-Solver); and the statistics it publishes for the thread that
//! reports.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use super::node::{EXPANDING, Node};
use super::tree::{Cursor, Expansion, Tree};
use super::{Evaluator, LeafSolver, Params, Playout};
use crate::game::{ChildCount, Game, Outcome, Packed, Player, Verdict};

/// Virtual visits a thread adds to each node two plies or more below the
/// root as it descends (the root's children get none: a thread's visits to
/// them wait in its own counts, see [`ROOT_FLUSH`]), scored as losses for
/// the player who moved into the node, and takes back when it adds the
/// iteration's result: while a thread is on a path, the path looks worse
/// and less urgent to the others, so that they look elsewhere (only with
/// several threads). See the module docs of [`super`] for the sizes and
/// kinds measured.
pub(crate) const VIRTUAL_LOSS: u32 = 1;

/// What one thread has done in the current search, written by that thread
/// alone and read by the one that reports. Aligned to its own cache lines,
/// so that threads never write the same line.
#[repr(align(128))]
pub(crate) struct Share {
    /// Iterations.
    pub iterations: AtomicU64,
    /// Iterations that ended in a playout or an evaluation (rather than
    /// in a terminal or proven node).
    pub playouts: AtomicU64,
    /// Sum of the depths at which those started.
    pub depth_sum: AtomicU64,
    /// Deepest leaf.
    pub max_depth: AtomicU32,
    /// Per root child: wins, draws and losses for the side to move at the
    /// root, in score units (a result adds `unit` to its count, a value
    /// splits `unit` between them), for the WDL report.
    pub root_wdl: Box<[[AtomicU64; 3]]>,
}

impl Share {
    /// Zero counts for a root with `children` children.
    pub fn new(children: usize) -> Self {
        Share {
            iterations: AtomicU64::new(0),
            playouts: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            max_depth: AtomicU32::new(0),
            root_wdl: (0..children).map(|_| Default::default()).collect(),
        }
    }
}

/// Adds `x` to a counter that only this thread writes (a load and a
/// store, not a locked add).
#[inline(always)]
fn bump(counter: &AtomicU64, x: u64) {
    counter.store(counter.load(Ordering::Relaxed) + x, Ordering::Relaxed);
}

/// What ended an iteration: a game result (a playout's, a terminal or a
/// proven node's), or an evaluator's value.
#[derive(Copy, Clone, Debug)]
enum Leaf {
    /// The game's result.
    Outcome(Outcome),
    /// An evaluator's value: the expected score of the side to move at
    /// the root in score units (0 to `2 * unit`), and the share of it that
    /// is drawn, in units of one visit (0 to `unit`; for the WDL report).
    Value(u32, u32),
}

/// What an iteration found on its way down, for the backup.
#[derive(Default, Clone, Copy)]
struct Found {
    /// Whether it proved a node (the proofs go up with the result).
    newly_proven: bool,
    /// Whether its leaf was valued (a playout or the evaluator), not
    /// proven or ended.
    played: bool,
}

/// The score units a leaf gives whoever moved into a node at an odd depth
/// (the side to move at the root) and at an even depth, `2 unit` in all:
/// with `contempt` (0 to 0.5), a draw's share is worth that much less than
/// half a point to the root's side and more to the other.
#[inline(always)]
fn rewards(leaf: Leaf, root_side: Player, unit: u32, contempt: f32) -> (u32, u32) {
    // Units a whole draw costs the root's side: at most `unit` (contempt
    // 0.5), so no reward falls below 0.
    let cost = ((contempt.clamp(0.0, 0.5) * (2 * unit) as f32) as u32).min(unit);
    match leaf {
        Leaf::Outcome(Outcome::Win(p)) if p == root_side => (2 * unit, 0),
        Leaf::Outcome(Outcome::Win(_)) => (0, 2 * unit),
        Leaf::Outcome(Outcome::Draw) => (unit - cost, unit + cost),
        Leaf::Value(v, draw) => {
            // `draw` is at most `v` (leaf_value cuts it), so `shift` too.
            let shift = (u64::from(cost) * u64::from(draw) / u64::from(unit)) as u32;
            (v - shift, 2 * unit - v + shift)
        }
    }
}

/// What to do at a node that is not expanded yet.
enum AtNode {
    /// Back up this value.
    Leaf(Leaf),
    /// Look at the node again (it changed: proven, or expanded by
    /// another thread).
    Again,
    /// Go down into its children.
    Descend,
}

/// A node on the current path, with the virtual visits this thread added
/// to it.
#[derive(Copy, Clone, Debug)]
struct Step {
    idx: u32,
    virtual_visits: u32,
}

/// One search thread's own state, written on every iteration (the path's
/// length, the generator, the budget, the pending root visits). The
/// searcher keeps its workers side by side in one `Vec`, so each is
/// aligned to cache lines of its own: unaligned (168 bytes), two
/// neighbours shared a line, and both threads wrote to it on every
/// iteration.
#[repr(align(128))]
pub(crate) struct Worker<G: Game> {
    rng: Xoshiro256PlusPlus,
    /// The current iteration's path.
    path: Vec<Step>,
    /// Scratch for the children's values in selection.
    values: Vec<f32>,
    /// Scratch for a new node's priors.
    priors: Vec<f32>,
    /// This thread's slots in the arena.
    cursor: Cursor,
    /// The root's first child in this search.
    root_first: usize,
    /// Visits and score this thread has yet to add to the root (see
    /// [`ROOT_FLUSH`]).
    root_pending: (u32, u64),
    /// The same for each of the root's children.
    child_pending: Vec<(u32, u64)>,
    /// Iterations left of the budget this thread claimed.
    pub budget: u64,
    /// This thread's leaf solver, once the search has one.
    pub leaf: Option<Box<dyn LeafSolver<G>>>,
    game: PhantomData<fn(G)>,
}

impl<G: Game> Worker<G> {
    /// A thread's state, its generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Worker {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            path: Vec::with_capacity(G::MAX_PLIES + 2),
            values: Vec::with_capacity(G::MAX_MOVES),
            priors: Vec::with_capacity(G::MAX_MOVES),
            cursor: Cursor::default(),
            root_first: 0,
            root_pending: (0, 0),
            child_pending: Vec::with_capacity(G::MAX_MOVES),
            budget: 0,
            leaf: None,
            game: PhantomData,
        }
    }

    /// Prepares for a search of `tree` (after `Tree::begin_search`), the
    /// generator seeded with `seed`.
    pub fn begin(&mut self, tree: &Tree<G>, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        self.cursor = tree.cursor();
        let children = tree.root().children();
        self.root_first = children.start;
        self.root_pending = (0, 0);
        self.child_pending.clear();
        self.child_pending.resize(children.len(), (0, 0));
        self.budget = 0;
    }

    /// Goes on with the same search after [`Tree::recycle`] moved the
    /// nodes: a fresh block of slots, and the root's children where they
    /// now lie (their order unchanged). The thread's visits were all
    /// added before (`flush`).
    pub fn resume(&mut self, tree: &Tree<G>) {
        self.cursor = tree.cursor();
        self.root_first = tree.root().children().start;
        debug_assert!(self.child_pending.iter().all(|&p| p == (0, 0)));
    }

    /// Runs one MCTS iteration; leaves are valued by `eval` when given,
    /// else by a playout. `shared`: other threads search the tree too (a
    /// virtual loss marks the path, updates are atomic adds); with one
    /// thread, plain stores. Nothing is done once the root is proven.
    pub fn iterate(
        &mut self,
        tree: &Tree<G>,
        share: &Share,
        params: &Params,
        eval: Option<&dyn Evaluator<G>>,
        shared: bool,
    ) {
        let mut pos = *tree.root_pos();
        let mut idx = 0usize;
        self.path.clear();
        self.path.push(Step {
            idx: 0,
            virtual_visits: 0,
        });
        let mut found = Found::default();
        let leaf = loop {
            let node = tree.node(idx);
            if let Some(proof) = node.verdict() {
                if idx == 0 {
                    // Another thread proved the root just now: the search
                    // is over, and this iteration does not count.
                    return;
                }
                break Leaf::Outcome(proof_outcome(proof, tree.mover(self.path.len() - 1)));
            }
            if !node.is_expanded() {
                match self.expand_or_value(tree, idx, &pos, params, eval, &mut found) {
                    AtNode::Leaf(leaf) => break leaf,
                    AtNode::Again => continue,
                    AtNode::Descend => {}
                }
            }
            let (child, outcome) = self.descend(tree, idx, &mut pos, params, shared, &mut found);
            idx = child;
            if let Some(o) = outcome {
                break Leaf::Outcome(o);
            }
        };
        self.backpropagate(tree, share, leaf, found, shared, params.contempt);
    }

    /// At node `idx` (position `pos`), not expanded yet: expands it when
    /// it is due, or values it (a playout, or the evaluator; with PUCT,
    /// expanded and valued at once, the value's pass giving the children's
    /// priors).
    #[inline(always)]
    fn expand_or_value(
        &mut self,
        tree: &Tree<G>,
        idx: usize,
        pos: &G,
        params: &Params,
        eval: Option<&dyn Evaluator<G>>,
        found: &mut Found,
    ) -> AtNode {
        let node = tree.node(idx);
        if idx != 0 && self.settle(tree, idx, pos, params, found) {
            return AtNode::Again;
        }
        if idx != 0
            && let Some(e) = eval.filter(|_| tree.with_priors())
        {
            let priors = Some((e, &mut self.priors));
            return match tree.expand(idx, pos, params, &mut self.cursor, priors) {
                Expansion::Created(v) => {
                    found.played = true;
                    let v = v.unwrap_or_else(|| e.evaluate(pos));
                    AtNode::Leaf(self.leaf_value(tree, v, pos, params, e))
                }
                Expansion::Full => {
                    found.played = true;
                    AtNode::Leaf(self.evaluate(tree, e, pos, params))
                }
                Expansion::Proven => {
                    found.newly_proven = true;
                    AtNode::Again
                }
                // Another thread is evaluating this leaf: its children come
                // in a few microseconds.
                Expansion::Busy => {
                    wait_for_children(node);
                    AtNode::Again
                }
                Expansion::Expanded => AtNode::Again,
            };
        }
        let expand = idx == 0 || node.visits() >= params.expand_visits;
        let expansion = if expand {
            tree.expand(idx, pos, params, &mut self.cursor, None)
        } else {
            Expansion::Full
        };
        match expansion {
            Expansion::Created(_) | Expansion::Expanded => AtNode::Descend,
            Expansion::Proven => {
                found.newly_proven = true;
                AtNode::Again
            }
            // Not to be expanded yet, no room, or another thread expanding
            // it: a playout from here.
            Expansion::Full | Expansion::Busy => {
                found.played = true;
                AtNode::Leaf(match eval {
                    None => Leaf::Outcome(self.playout(*pos, params)),
                    Some(e) => self.evaluate(tree, e, pos, params),
                })
            }
        }
    }

    /// Gives node `idx` (position `pos`, not the root, not expanded) to the
    /// leaf solver when it is near enough to the end
    /// ([`Params::leaf_solve`]); whether it came back proven.
    #[inline(always)]
    fn settle(
        &mut self,
        tree: &Tree<G>,
        idx: usize,
        pos: &G,
        params: &Params,
        found: &mut Found,
    ) -> bool {
        if !params.solver || pos.plies_left_bound() > params.leaf_solve {
            return false;
        }
        let Some(solver) = self.leaf.as_mut() else {
            return false;
        };
        let Some((verdict, plies)) = solver.settle(pos, params.leaf_solve_nodes) else {
            return false;
        };
        // The node's proof is for the player who moved into it.
        if tree
            .node(idx)
            .prove(verdict.flip(), plies.min(u8::MAX as u32) as u8)
        {
            found.newly_proven = true;
        }
        true
    }

    /// From node `idx`, expanded, one step down: selects a child, plays its
    /// move on `pos` and adds it to the path (with a virtual loss when the
    /// tree is shared); the child and the game's outcome if it ends there
    /// (then proved, with the solver).
    #[inline(always)]
    fn descend(
        &mut self,
        tree: &Tree<G>,
        idx: usize,
        pos: &mut G,
        params: &Params,
        shared: bool,
        found: &mut Found,
    ) -> (usize, Option<Outcome>) {
        // The root's statistics and its children's as this thread knows
        // them.
        let (pending, child_pending) = if idx != 0 {
            ((0, 0), &[][..])
        } else if shared {
            (self.root_pending, &self.child_pending[..])
        } else {
            (self.root_pending, &[][..])
        };
        let child = tree.select(idx, params, pending, child_pending, &mut self.values);
        let node = tree.node(child);
        // No virtual loss on the root's children: a thread's visits to them
        // wait in its own counts (see `ROOT_FLUSH`).
        let virtual_visits = if shared && idx != 0 {
            node.add(VIRTUAL_LOSS as i32, 0);
            VIRTUAL_LOSS
        } else {
            0
        };
        pos.play_unchecked(node.mv());
        self.path.push(Step {
            idx: child as u32,
            virtual_visits,
        });
        let outcome = pos.outcome();
        if let Some(o) = outcome {
            let mover = tree.mover(self.path.len() - 1);
            if params.solver && node.prove(o.verdict_for(mover), 0) {
                found.newly_proven = true;
            }
        }
        (child, outcome)
    }

    /// The evaluator's value of `pos` (mixed with a playout's result when
    /// [`Params::eval_weight`] is below 1) as a [`Leaf::Value`] for the
    /// side to move at the root, in score units.
    #[inline]
    fn evaluate(
        &mut self,
        tree: &Tree<G>,
        eval: &dyn Evaluator<G>,
        pos: &G,
        params: &Params,
    ) -> Leaf {
        let v = eval.evaluate(pos);
        self.leaf_value(tree, v, pos, params, eval)
    }

    /// An evaluator's value `v` of `pos` (mixed with a playout's result
    /// when [`Params::eval_weight`] is below 1) as a [`Leaf::Value`], with
    /// its draw share from [`Evaluator::draw_share`]. A value that is not
    /// a number counts as a draw.
    #[inline]
    fn leaf_value(
        &mut self,
        tree: &Tree<G>,
        v: f32,
        pos: &G,
        params: &Params,
        eval: &dyn Evaluator<G>,
    ) -> Leaf {
        let unit = tree.unit();
        let mut v = if v.is_nan() { 0.5 } else { v.clamp(0.0, 1.0) };
        let side = pos.side_to_move();
        if params.eval_weight < 1.0 {
            let w = params.eval_weight.max(0.0);
            let result = self.playout(*pos, params).verdict_for(side).score() as f32;
            v = w * v + (1.0 - w) * result;
        }
        let units = (v * (2 * unit) as f32).round() as u32;
        let units = if side == tree.root_pos().side_to_move() {
            units
        } else {
            2 * unit - units
        };
        // A draw share the value cannot hold (more than twice the smaller
        // of the two sides' scores) is cut to what it can.
        let draw = eval.draw_share(v);
        let draw = if draw.is_finite() { draw.max(0.0) } else { 0.0 };
        let draw = ((draw * unit as f32).round() as u32)
            .min(units)
            .min(2 * unit - units);
        Leaf::Value(units, draw)
    }

    /// Plays the game out from `pos` by the playout policy.
    #[inline]
    fn playout(&mut self, start: G, params: &Params) -> Outcome {
        // Local copies of the position and the generator stay in registers.
        let mut pos = start;
        let mut rng = self.rng.clone();
        match params.playout {
            Playout::Uniform => while pos.play_random(&mut rng) {},
            Playout::Winning => while pos.play_winning_or_random(&mut rng) {},
        }
        self.rng = rng;
        pos.outcome().unwrap_or(Outcome::Draw)
    }

    /// Adds the iteration's result along the path, taking back the virtual
    /// visits; when the leaf was just proven, carries the proof upwards as
    /// far as it goes. `played` tells whether the result came from a
    /// playout or an evaluation (for the depth statistics).
    fn backpropagate(
        &mut self,
        tree: &Tree<G>,
        share: &Share,
        leaf: Leaf,
        found: Found,
        shared: bool,
        contempt: f32,
    ) {
        let Found {
            newly_proven: mut proven,
            played,
        } = found;
        let len = self.path.len();
        // Score units for whoever moved into a node at an odd depth (the
        // side to move at the root) and at an even depth (the other side).
        let root_side = tree.root_pos().side_to_move();
        let unit = tree.unit();
        let (odd, even) = rewards(leaf, root_side, unit, contempt);
        for d in (0..len).rev() {
            let step = self.path[d];
            let idx = step.idx as usize;
            let reward = if d % 2 == 1 { odd } else { even } as i64;
            let node = tree.node(idx);
            if !shared {
                node.add_alone(1, reward);
            } else if d == 0 {
                self.root_pending.0 += 1;
                self.root_pending.1 += reward as u64;
                if self.root_pending.0 >= ROOT_FLUSH {
                    self.flush(tree);
                }
            } else if d == 1 {
                let pending = &mut self.child_pending[idx - self.root_first];
                pending.0 += 1;
                pending.1 += reward as u64;
            } else {
                node.add(1 - step.virtual_visits as i32, reward);
            }
            if proven && d + 1 < len {
                proven = tree.update_proof(idx);
            }
        }
        if len > 1 {
            let wdl = &share.root_wdl[self.path[1].idx as usize - self.root_first];
            match leaf {
                Leaf::Outcome(Outcome::Win(p)) if p == root_side => bump(&wdl[0], unit as u64),
                Leaf::Outcome(Outcome::Draw) => bump(&wdl[1], unit as u64),
                Leaf::Outcome(_) => bump(&wdl[2], unit as u64),
                Leaf::Value(v, draw) => {
                    // Wins and half the draws make the expected score.
                    let win = (v - draw) / 2;
                    bump(&wdl[0], win as u64);
                    bump(&wdl[1], draw as u64);
                    bump(&wdl[2], (unit - win - draw) as u64);
                }
            }
        }
        bump(&share.iterations, 1);
        if played {
            bump(&share.playouts, 1);
            bump(&share.depth_sum, (len - 1) as u64);
        }
        let depth = (len - 1) as u32;
        if depth > share.max_depth.load(Ordering::Relaxed) {
            share.max_depth.store(depth, Ordering::Relaxed);
        }
    }
}

/// With several threads, each adds its visits to the root and to the
/// root's children this many iterations at a time: every iteration passes
/// through the root and one of its children, and a cache line that every
/// thread writes on every iteration moves between the cores each time
/// (the children's lines are read by every selection at the root). A
/// thread selects at the root with its own visits added; the others see
/// them at the next flush.
const ROOT_FLUSH: u32 = 64;

impl<G: Game> Worker<G> {
    /// Adds the visits this thread has yet to add to the root and its
    /// children (at the end of a search, and every [`ROOT_FLUSH`]
    /// iterations).
    pub fn flush(&mut self, tree: &Tree<G>) {
        let (visits, score) = std::mem::take(&mut self.root_pending);
        if visits > 0 {
            tree.root().add(visits as i32, score as i64);
        }
        for (k, pending) in self.child_pending.iter_mut().enumerate() {
            let (visits, score) = std::mem::take(pending);
            if visits > 0 {
                tree.node(self.root_first + k)
                    .add(visits as i32, score as i64);
            }
        }
    }
}

/// Waits while another thread creates `node`'s children: spins a little,
/// then gives up the core in turn.
#[cold]
fn wait_for_children<M: Packed, C: ChildCount>(node: &Node<M, C>) {
    let mut spins = 0u32;
    while node.first_child() == EXPANDING {
        if spins < 256 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The outcome a proof stands for, given the player who moved into the node.
#[inline(always)]
fn proof_outcome(proof: Verdict, mover: Player) -> Outcome {
    match proof {
        Verdict::Win => Outcome::Win(mover),
        Verdict::Loss => Outcome::Win(mover.opponent()),
        Verdict::Draw => Outcome::Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    /// The searcher's workers, side by side in a `Vec`, never share a
    /// 128-byte block (two cache lines, which the prefetcher fetches as
    /// a pair).
    #[test]
    fn workers_side_by_side_share_no_cache_line() {
        let workers: Vec<Worker<Position>> = (0..4).map(Worker::new).collect();
        for pair in workers.windows(2) {
            let end = (&pair[0] as *const Worker<Position> as usize)
                + std::mem::size_of::<Worker<Position>>()
                - 1;
            let next = &pair[1] as *const Worker<Position> as usize;
            assert!(end / 128 < next / 128, "two workers on one cache line");
        }
    }

    #[test]
    fn contempt_takes_a_share_of_the_draws_from_the_root_side() {
        let unit = 1000;
        let x = Player::X;
        // Without contempt, the leaf's units as they are.
        assert_eq!(rewards(Leaf::Value(1200, 600), x, unit, 0.0), (1200, 800));
        assert_eq!(
            rewards(Leaf::Outcome(Outcome::Draw), x, unit, 0.0),
            (1000, 1000)
        );
        // Contempt 0.1: a whole draw costs the root's side 0.1 of 2 units a
        // point; a leaf with 60% draws loses 60% of that.
        assert_eq!(
            rewards(Leaf::Outcome(Outcome::Draw), x, unit, 0.1),
            (800, 1200)
        );
        assert_eq!(rewards(Leaf::Value(1200, 600), x, unit, 0.1), (1080, 920));
        // Wins and losses are untouched, and the largest contempt leaves
        // no reward below 0 or above 2 units.
        let win = Leaf::Outcome(Outcome::Win(x));
        assert_eq!(rewards(win, x, unit, 0.5), (2000, 0));
        assert_eq!(rewards(Leaf::Value(400, 400), x, unit, 9.0), (0, 2000));
    }
}
