//! One search tree: an arena of 16-byte nodes with integer indices, the
//! children of a node stored together, and the MCTS iteration over it
//! (selection, expansion, playout, backpropagation with MCTS-Solver).
//!
//! Invariant: a node's children always lie at higher indices than the node
//! itself. Allocation only appends, and compaction (tree reuse) slides live
//! nodes down in order, so the invariant survives both; compaction relies on
//! it to mark the kept subtree in one forward pass.

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use super::{Evaluator, Params, Playout, SearchError};
use crate::game::{ChildCount, Game, Outcome, Player, Verdict};

/// Statistics are halved when the root reaches this many visits, so that
/// visit counts (and half-point scores, at most twice the visits) never
/// overflow a `u32`, however long an analysis runs.
const RESCALE_VISITS: u32 = 1 << 30;

/// A tree node: 16 bytes for a one-byte move and a `u8` child count.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Node<M, C> {
    /// Index of the first child; 0 while the node is not expanded (the root,
    /// index 0, is nobody's child).
    pub first_child: u32,
    /// Iterations through this node.
    pub visits: u32,
    /// Half-points won by the player who moved into this node (win 2,
    /// draw 1, loss 0 per visit).
    pub score: u32,
    /// The move that leads here.
    pub mv: M,
    /// Number of children once expanded.
    pub num_children: C,
    /// The proven result for the player who moved here, if any.
    pub proof: Option<Verdict>,
    /// For proven nodes, plies from this node's position to the game's end
    /// under best play.
    pub dist: u8,
}

impl<M: Copy, C: ChildCount> Node<M, C> {
    fn new(mv: M) -> Self {
        Node {
            first_child: 0,
            visits: 0,
            score: 0,
            mv,
            num_children: C::default(),
            proof: None,
            dist: 0,
        }
    }

    /// The children's index range.
    #[inline(always)]
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.num_children.to_usize()
    }
}

/// Bytes the tree uses per node of capacity: the node itself plus the
/// compaction bitmap (1 bit) and its prefix counts (32 bits per 64 nodes).
pub(crate) fn bytes_per_node<M, C>() -> f64 {
    std::mem::size_of::<Node<M, C>>() as f64 + 1.5 / 8.0
}

/// Bytes in a MiB.
pub(crate) const MIB: f64 = 1024.0 * 1024.0;

/// The most nodes one tree can index (node indices are `u32`).
pub(crate) const MAX_NODES: usize = u32::MAX as usize;

/// Nodes each of `threads` trees may hold for the trees and their scratch
/// to stay within `hash_mb` MiB in all.
pub(crate) fn capacity_for<M, C>(hash_mb: usize, threads: usize) -> usize {
    (hash_mb as f64 * MIB / bytes_per_node::<M, C>() / threads.max(1) as f64) as usize
}

/// Test seam: makes tree allocations fail above a size, per thread, and
/// records the sizes asked for.
#[cfg(test)]
pub(crate) mod alloc_hook {
    use std::cell::{Cell, RefCell};

    thread_local! {
        static LIMIT: Cell<f64> = const { Cell::new(f64::INFINITY) };
        static ASKED: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    }

    /// Trees of more than `bytes` fail to allocate on this thread.
    pub fn refuse_above(bytes: f64) {
        LIMIT.with(|l| l.set(bytes));
    }

    /// The sizes of the trees this thread asked for since the last call.
    pub fn take_asked() -> Vec<f64> {
        ASKED.with(|a| std::mem::take(&mut *a.borrow_mut()))
    }

    pub(super) fn refuses(bytes: f64) -> bool {
        ASKED.with(|a| a.borrow_mut().push(bytes));
        bytes > LIMIT.with(|l| l.get())
    }
}

/// A search tree over game `G`, with its own random generator.
pub(crate) struct Tree<G: Game> {
    nodes: Vec<Node<G::Move, G::ChildCount>>,
    capacity: usize,
    /// The capacity without priors (what `new` reserved).
    reserved: usize,
    /// The most nodes the tree has held (see `bytes_in_use`).
    peak: usize,
    root_pos: G,
    /// Compaction scratch, sized once for the capacity.
    live: Vec<u64>,
    prefix: Vec<u32>,
    /// The current iteration's path of node indices.
    path: Vec<u32>,
    /// Scratch for the children's values in selection.
    values: Vec<f32>,
    /// With PUCT ([`Params::policy`]): each node's prior, indexed like
    /// `nodes` (empty otherwise).
    priors: Vec<f32>,
    /// Whether the tree keeps priors (PUCT).
    with_priors: bool,
    /// Scratch for a node's moves and their priors.
    moves: Vec<G::Move>,
    prior_buf: Vec<f32>,
    rng: Xoshiro256PlusPlus,
    /// Wins, draws and losses for the side to move at the root, per root
    /// child, over this search's iterations (for the WDL report).
    pub root_wdl: Vec<[u32; 3]>,
    /// Root children the search may choose (all when empty).
    root_allowed: Vec<bool>,
    /// Iterations in the current search.
    pub iterations: u64,
    /// Iterations of this search that ended in a playout (rather than in a
    /// terminal or proven node).
    pub playouts: u64,
    /// Sum of the depths at which those playouts started.
    pub depth_sum: u64,
    /// Deepest leaf of this search.
    pub max_depth: u32,
    /// Whether an expansion was refused because the tree was full.
    pub full: bool,
    /// Score units per half-point: a visit scores `2 * unit` for a win,
    /// `unit` for a draw, 0 for a loss. 1 with playouts (whole half-points);
    /// [`EVAL_UNIT`] with an evaluator, whose values fall between.
    unit: u32,
}

/// Score units per half-point with an evaluator: values are kept to 1/128
/// of a point. Statistics are then halved at `RESCALE_VISITS / EVAL_UNIT`
/// root visits (16.7 million), so that scores still fit a `u32`.
pub(crate) const EVAL_UNIT: u32 = 64;

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

impl<G: Game> Tree<G> {
    /// A tree holding at most `capacity` nodes (at least room for the root
    /// and its children). Its memory is reserved at once, and the reserve
    /// failing is an error, not an abort.
    pub fn new(capacity: usize, root_pos: G, seed: u64) -> Result<Self, SearchError> {
        let capacity = capacity.max(G::MAX_MOVES + 1);
        let words = capacity.div_ceil(64);
        let failed = SearchError::TreeAlloc {
            mib: (capacity as f64 * bytes_per_node::<G::Move, G::ChildCount>() / MIB).round()
                as u64,
        };
        #[cfg(test)]
        if alloc_hook::refuses(capacity as f64 * bytes_per_node::<G::Move, G::ChildCount>()) {
            return Err(failed);
        }
        let mut nodes = Vec::new();
        let mut live = Vec::new();
        let mut prefix = Vec::new();
        let reserved = nodes.try_reserve_exact(capacity).is_ok()
            && live.try_reserve_exact(words).is_ok()
            && prefix.try_reserve_exact(words).is_ok();
        if !reserved {
            return Err(failed);
        }
        let mut tree = Tree {
            nodes,
            capacity,
            reserved: capacity,
            peak: 0,
            root_pos,
            live,
            prefix,
            path: Vec::with_capacity(G::MAX_PLIES + 2),
            values: Vec::with_capacity(G::MAX_MOVES),
            priors: Vec::new(),
            with_priors: false,
            moves: Vec::with_capacity(G::MAX_MOVES),
            prior_buf: Vec::with_capacity(G::MAX_MOVES),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            root_wdl: Vec::with_capacity(G::MAX_MOVES),
            root_allowed: Vec::with_capacity(G::MAX_MOVES),
            iterations: 0,
            playouts: 0,
            depth_sum: 0,
            max_depth: 0,
            full: false,
            unit: 1,
        };
        tree.reset(root_pos);
        Ok(tree)
    }

    /// The smallest tree (the root and its children), for when no larger
    /// one can be had. Its few kilobytes are allocated like any small
    /// value: failing that aborts the process, as in all of Rust.
    pub fn minimal(root_pos: G, seed: u64) -> Self {
        match Self::new(0, root_pos, seed) {
            Ok(tree) => tree,
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::array::<Node<G::Move, G::ChildCount>>(G::MAX_MOVES + 1)
                    .unwrap_or(std::alloc::Layout::new::<Node<G::Move, G::ChildCount>>()),
            ),
        }
    }

    /// Bytes of memory the tree has actually used so far (the reserve's
    /// pages that were written), as opposed to reserved.
    pub fn bytes_in_use(&self) -> f64 {
        let per_node =
            bytes_per_node::<G::Move, G::ChildCount>() + if self.with_priors { 4.0 } else { 0.0 };
        self.peak.max(self.nodes.len()) as f64 * per_node
    }

    /// Turns priors (PUCT) on or off; a change forgets the tree. Priors
    /// take 4 more bytes a node, so with them the tree holds fewer nodes
    /// in the same memory; without them it holds as many as `new` was
    /// given. Should a reserve fail, the tree falls back to the smallest
    /// one, without priors.
    fn use_priors(&mut self, on: bool) {
        if on == self.with_priors {
            return;
        }
        let per_node = bytes_per_node::<G::Move, G::ChildCount>();
        let fewer = ((self.reserved as f64 * per_node / (per_node + 4.0)) as usize)
            .max(G::MAX_MOVES + 1)
            .min(self.reserved);
        // The old reserve is freed first, so that old and new are never
        // held together.
        self.nodes = Vec::new();
        self.priors = Vec::new();
        let want = if on { fewer } else { self.reserved };
        let ok = self.nodes.try_reserve_exact(want).is_ok()
            && (!on || self.priors.try_reserve_exact(want).is_ok());
        if ok {
            self.with_priors = on;
            self.capacity = want;
        } else {
            // The smallest tree, without priors (as `Tree::minimal`).
            self.nodes = Vec::with_capacity(G::MAX_MOVES + 1);
            self.priors = Vec::new();
            self.with_priors = false;
            self.capacity = G::MAX_MOVES + 1;
        }
        let root = self.root_pos;
        self.reset(root);
    }

    /// Forgets everything and starts over at `root_pos`.
    pub fn reset(&mut self, root_pos: G) {
        self.peak = self.peak.max(self.nodes.len());
        self.nodes.clear();
        self.nodes.push(Node::new(G::Move::default()));
        self.priors.clear();
        if self.with_priors {
            self.priors.push(1.0);
        }
        self.root_pos = root_pos;
        self.full = false;
    }

    /// Score units per half-point (see [`EVAL_UNIT`]).
    pub fn unit(&self) -> u32 {
        self.unit
    }

    /// Sets the score units per half-point and forgets the tree (its
    /// scores were in the old units).
    pub fn set_unit(&mut self, unit: u32) {
        self.unit = unit.max(1);
        let root = self.root_pos;
        self.reset(root);
    }

    /// Reseeds the random generator.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Most nodes the tree may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// A node by index.
    #[inline(always)]
    pub fn node(&self, i: usize) -> &Node<G::Move, G::ChildCount> {
        &self.nodes[i]
    }

    /// The root node.
    pub fn root(&self) -> &Node<G::Move, G::ChildCount> {
        &self.nodes[0]
    }

    /// Moves the root to `pos`, keeping the subtree that matches it when
    /// `pos` is the root or lies one or two plies below it; otherwise starts
    /// a fresh tree. Returns whether anything was kept.
    pub fn advance(&mut self, pos: &G) -> bool {
        if *pos == self.root_pos && pos.outcome().is_none() {
            return true;
        }
        let mut found = None;
        'search: for c in self.nodes[0].children() {
            let mut p1 = self.root_pos;
            p1.play_unchecked(self.nodes[c].mv);
            if p1 == *pos {
                found = Some(c);
                break;
            }
            for g in self.nodes[c].children() {
                let mut p2 = p1;
                p2.play_unchecked(self.nodes[g].mv);
                if p2 == *pos {
                    found = Some(g);
                    break 'search;
                }
            }
        }
        match found {
            Some(i) if pos.outcome().is_none() => {
                self.compact(i);
                self.root_pos = *pos;
                self.full = false;
                true
            }
            _ => {
                self.reset(*pos);
                false
            }
        }
    }

    /// Keeps only the subtree under `new_root`, which becomes node 0; live
    /// nodes slide down in order (see the module docs), using a bitmap of
    /// live nodes and its prefix counts as the forwarding table.
    fn compact(&mut self, new_root: usize) {
        let len = self.nodes.len();
        self.peak = self.peak.max(len);
        let words = len.div_ceil(64);
        self.live.clear();
        self.live.resize(words, 0);
        self.live[new_root / 64] |= 1 << (new_root % 64);
        for i in new_root..len {
            if self.live[i / 64] >> (i % 64) & 1 == 1 {
                for c in self.nodes[i].children() {
                    self.live[c / 64] |= 1 << (c % 64);
                }
            }
        }
        self.prefix.clear();
        let mut count = 0u32;
        for &w in &self.live {
            self.prefix.push(count);
            count += w.count_ones();
        }
        let rank = |live: &[u64], prefix: &[u32], i: usize| -> u32 {
            prefix[i / 64] + (live[i / 64] & ((1u64 << (i % 64)) - 1)).count_ones()
        };
        for i in new_root..len {
            if self.live[i / 64] >> (i % 64) & 1 == 1 {
                let mut node = self.nodes[i];
                if node.first_child != 0 {
                    node.first_child = rank(&self.live, &self.prefix, node.first_child as usize);
                }
                let to = rank(&self.live, &self.prefix, i) as usize;
                self.nodes[to] = node;
                if self.with_priors {
                    self.priors[to] = self.priors[i];
                }
            }
        }
        self.nodes.truncate(count as usize);
        self.priors
            .truncate(if self.with_priors { count as usize } else { 0 });
    }

    /// Prepares a new search from the current root: clears the per-search
    /// counters, expands the root, and restricts the root's moves to
    /// `allowed` when it is not empty. With PUCT ([`Params::policy`] and an
    /// evaluator) the root's priors come from `eval`.
    pub fn begin_search(
        &mut self,
        params: &Params,
        allowed: &[G::Move],
        eval: Option<&dyn Evaluator<G>>,
    ) {
        self.use_priors(params.policy > 0.0 && eval.is_some());
        self.iterations = 0;
        self.playouts = 0;
        self.depth_sum = 0;
        self.max_depth = 0;
        let root_pos = self.root_pos;
        if root_pos.outcome().is_some() {
            return;
        }
        if self.nodes[0].first_child == 0 {
            self.nodes[0].proof = None;
            self.expand(0, &root_pos, params);
        }
        if let Some(e) = eval.filter(|_| self.with_priors) {
            self.set_priors(0, &root_pos, e);
        }
        let range = self.nodes[0].children();
        self.root_wdl.clear();
        self.root_wdl.resize(range.len(), [0; 3]);
        self.root_allowed.clear();
        for c in range.clone() {
            let mv = self.nodes[c].mv;
            self.root_allowed.push(allowed.contains(&mv));
        }
        if !self.root_allowed.contains(&true) {
            // No filter (or none that matches): every move is allowed.
            self.root_allowed.fill(true);
        }
        if params.solver {
            if let Some(w) = root_pos.winning_move() {
                for c in range {
                    if self.nodes[c].mv == w {
                        self.nodes[c].proof = Some(Verdict::Win);
                        self.nodes[c].dist = 0;
                    }
                }
            }
            // The root's proof counts only the moves the search may choose.
            self.nodes[0].proof = None;
            self.update_proof(0);
        }
    }

    /// Whether root child `i` (0-based) may be chosen.
    pub fn root_allowed(&self, i: usize) -> bool {
        self.root_allowed.get(i).copied().unwrap_or(false)
    }

    /// The player who moved into a node `depth` plies below the root.
    #[inline(always)]
    fn mover(&self, depth: usize) -> Player {
        let root_side = self.root_pos.side_to_move();
        if depth % 2 == 1 {
            root_side
        } else {
            root_side.opponent()
        }
    }

    /// Runs one MCTS iteration; leaves are valued by `eval` when given,
    /// else by a playout.
    pub fn iterate(&mut self, params: &Params, eval: Option<&dyn Evaluator<G>>) {
        let mut pos = self.root_pos;
        let mut idx = 0usize;
        self.path.clear();
        self.path.push(0);
        let mut newly_proven = false;
        let mut played = false;
        let leaf = loop {
            let node = self.nodes[idx];
            if let Some(proof) = node.proof {
                break Leaf::Outcome(proof_outcome(proof, self.mover(self.path.len() - 1)));
            }
            if node.first_child == 0
                && idx != 0
                && self.with_priors
                && let Some(e) = eval
            {
                // PUCT: expanded and valued at once, the value's pass
                // giving the children's priors.
                if !self.expand(idx, &pos, params) {
                    played = true;
                    break self.evaluate(e, &pos, params);
                }
                if let Some(proof) = self.nodes[idx].proof {
                    newly_proven = true;
                    break Leaf::Outcome(proof_outcome(proof, self.mover(self.path.len() - 1)));
                }
                played = true;
                let v = self.set_priors(idx, &pos, e);
                break self.leaf_value(v, &pos, params, e);
            }
            if node.first_child == 0 {
                let expand = idx == 0 || node.visits >= params.expand_visits;
                if !expand || !self.expand(idx, &pos, params) {
                    played = true;
                    break match eval {
                        None => Leaf::Outcome(self.playout(pos, params)),
                        Some(e) => self.evaluate(e, &pos, params),
                    };
                }
                if let Some(proof) = self.nodes[idx].proof {
                    newly_proven = true;
                    break Leaf::Outcome(proof_outcome(proof, self.mover(self.path.len() - 1)));
                }
            }
            let child = self.select(idx, params);
            pos.play_unchecked(self.nodes[child].mv);
            idx = child;
            self.path.push(child as u32);
            if let Some(o) = pos.outcome() {
                let mover = self.mover(self.path.len() - 1);
                let node = &mut self.nodes[child];
                if node.proof.is_none() && params.solver {
                    node.proof = Some(o.verdict_for(mover));
                    node.dist = 0;
                    newly_proven = true;
                }
                break Leaf::Outcome(o);
            }
        };
        self.backpropagate(leaf, newly_proven, played);
    }

    /// The evaluator's value of `pos` (mixed with a playout's result when
    /// [`Params::eval_weight`] is below 1) as a [`Leaf::Value`] for the
    /// side to move at the root, in score units. A value that is not a
    /// number counts as a draw.
    #[inline]
    fn evaluate(&mut self, eval: &dyn Evaluator<G>, pos: &G, params: &Params) -> Leaf {
        let v = eval.evaluate(pos);
        self.leaf_value(v, pos, params, eval)
    }

    /// Sets the priors of `idx`'s children (just created) from `eval`;
    /// returns its value of `pos`, the position at `idx`.
    fn set_priors(&mut self, idx: usize, pos: &G, eval: &dyn Evaluator<G>) -> f32 {
        let range = self.nodes[idx].children();
        self.moves.clear();
        self.moves
            .extend(self.nodes[range.clone()].iter().map(|n| n.mv));
        self.prior_buf.clear();
        self.prior_buf.resize(range.len(), 0.0);
        let v = eval.evaluate_with_priors(pos, &self.moves, &mut self.prior_buf);
        for (p, &q) in self.priors[range].iter_mut().zip(&self.prior_buf) {
            *p = if q.is_finite() { q } else { 0.0 };
        }
        v
    }

    /// An evaluator's value `v` of `pos` (mixed with a playout's result
    /// when [`Params::eval_weight`] is below 1) as a [`Leaf::Value`], with
    /// its draw share from [`Evaluator::draw_share`].
    #[inline]
    fn leaf_value(&mut self, v: f32, pos: &G, params: &Params, eval: &dyn Evaluator<G>) -> Leaf {
        let mut v = if v.is_nan() { 0.5 } else { v.clamp(0.0, 1.0) };
        let side = pos.side_to_move();
        if params.eval_weight < 1.0 {
            let w = params.eval_weight.max(0.0);
            let result = self.playout(*pos, params).verdict_for(side).score() as f32;
            v = w * v + (1.0 - w) * result;
        }
        let units = (v * (2 * self.unit) as f32).round() as u32;
        let units = if side == self.root_pos.side_to_move() {
            units
        } else {
            2 * self.unit - units
        };
        // A draw share the value cannot hold (more than twice the smaller
        // of the two sides' scores) is cut to what it can.
        let draw = eval.draw_share(v);
        let draw = if draw.is_finite() { draw.max(0.0) } else { 0.0 };
        let draw = ((draw * self.unit as f32).round() as u32)
            .min(units)
            .min(2 * self.unit - units);
        Leaf::Value(units, draw)
    }

    /// Picks the child of `idx` to descend into: UCT with first-play
    /// urgency, skipping children proven lost for the player choosing.
    #[inline]
    fn select(&mut self, idx: usize, params: &Params) -> usize {
        if self.with_priors {
            return self.select_puct(idx, params);
        }
        let node = &self.nodes[idx];
        let explore = params.exploration * sqrt_ln(node.visits);
        let range = node.children();
        let first = range.start;
        let children = &self.nodes[range];
        let fpu = params.fpu;
        let half = 0.5 / self.unit as f32;
        let value = |child: &Node<G::Move, G::ChildCount>| uct(child, explore, fpu, half);
        let best = if children.len() <= 16 {
            // Narrow nodes: one pass.
            let mut best = 0;
            let mut top = f32::NEG_INFINITY;
            for (i, child) in children.iter().enumerate() {
                let v = value(child);
                if v > top {
                    top = v;
                    best = i;
                }
            }
            best
        } else {
            // Wide nodes (81 children at the start): three passes that the
            // compiler vectorizes: the values, their maximum, and the first
            // child that has it.
            let values = &mut self.values;
            values.clear();
            values.extend(children.iter().map(value));
            let mut lanes = [f32::NEG_INFINITY; 8];
            let chunks = values.chunks_exact(8);
            let rest = chunks.remainder();
            for chunk in chunks {
                for (lane, &v) in lanes.iter_mut().zip(chunk) {
                    *lane = if v > *lane { v } else { *lane };
                }
            }
            for (lane, &v) in lanes.iter_mut().zip(rest) {
                *lane = if v > *lane { v } else { *lane };
            }
            let mut top = lanes[0];
            for &v in &lanes[1..] {
                top = if v > top { v } else { top };
            }
            values.iter().position(|&v| v == top).unwrap_or(0)
        };
        if idx == 0 && !self.root_allowed[best] {
            return self.select_allowed(first, explore, fpu, half);
        }
        first + best
    }

    /// PUCT selection: the child with the most
    /// `q + c * prior * sqrt(N) / (1 + n)`, an unvisited child's `q` being
    /// the parent's less [`Params::fpu_reduction`]; proven losses for the
    /// player choosing (and, at the root, moves not allowed) skipped.
    fn select_puct(&self, idx: usize, params: &Params) -> usize {
        let node = &self.nodes[idx];
        let half = 0.5 / self.unit as f32;
        let parent_q = if node.visits > 0 {
            1.0 - half * node.score as f32 / node.visits as f32
        } else {
            0.5
        };
        let fpu = (parent_q - params.fpu_reduction).max(0.0);
        let explore = params.policy * (node.visits as f32).sqrt();
        let range = node.children();
        let first = range.start;
        let mut best = first;
        let mut top = f32::NEG_INFINITY;
        for (k, (child, &prior)) in self.nodes[range.clone()]
            .iter()
            .zip(&self.priors[range])
            .enumerate()
        {
            if child.proof == Some(Verdict::Loss) || (idx == 0 && !self.root_allowed[k]) {
                continue;
            }
            let q = if child.proof == Some(Verdict::Draw) {
                0.5
            } else if child.visits == 0 {
                fpu
            } else {
                half * child.score as f32 / child.visits as f32
            };
            let v = q + explore * prior / (1 + child.visits) as f32;
            if v > top {
                top = v;
                best = first + k;
            }
        }
        best
    }

    /// Root selection when the search is restricted to some moves.
    #[cold]
    fn select_allowed(&self, first: usize, explore: f32, fpu: f32, half: f32) -> usize {
        let n = self.nodes[0].num_children.to_usize();
        let mut best = first;
        let mut best_value = f32::NEG_INFINITY;
        for k in (0..n).filter(|&k| self.root_allowed[k]) {
            let value = uct(&self.nodes[first + k], explore, fpu, half);
            if value > best_value {
                best_value = value;
                best = first + k;
            }
        }
        best
    }

    /// Creates the children of `idx` (position `pos`). Returns `false` when
    /// the tree has no room. With the solver on, a position where the side
    /// to move wins at once is proven without creating children (except at
    /// the root, whose children are always created; `begin_search` marks the
    /// winning one).
    fn expand(&mut self, idx: usize, pos: &G, params: &Params) -> bool {
        if params.solver
            && idx != 0
            && let Some(_) = pos.winning_move()
        {
            let node = &mut self.nodes[idx];
            node.proof = Some(Verdict::Loss);
            node.dist = 1;
            return true;
        }
        let moves = pos.legal_moves();
        if self.nodes.len() + moves.len() > self.capacity {
            self.full = true;
            return false;
        }
        let first = self.nodes.len();
        self.nodes.extend(moves.iter().map(|&m| Node::new(m)));
        if self.with_priors {
            let p = 1.0 / moves.len().max(1) as f32;
            self.priors.resize(self.nodes.len(), p);
        }
        let node = &mut self.nodes[idx];
        node.first_child = first as u32;
        node.num_children = G::ChildCount::from_usize(moves.len());
        true
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

    /// Adds the iteration's result along the path; when the leaf was just
    /// proven, carries the proof upwards as far as it goes. `played` tells
    /// whether the result came from a playout (for the depth statistics).
    fn backpropagate(&mut self, leaf: Leaf, mut proven: bool, played: bool) {
        let len = self.path.len();
        // Score units for whoever moved into a node at an odd depth (the
        // side to move at the root) and at an even depth (the other side).
        let root_side = self.root_pos.side_to_move();
        let unit = self.unit;
        let (odd, even) = match leaf {
            Leaf::Outcome(Outcome::Win(p)) if p == root_side => (2 * unit, 0),
            Leaf::Outcome(Outcome::Win(_)) => (0, 2 * unit),
            Leaf::Outcome(Outcome::Draw) => (unit, unit),
            Leaf::Value(v, _) => (v, 2 * unit - v),
        };
        for d in (0..len).rev() {
            let idx = self.path[d] as usize;
            let reward = if d % 2 == 1 { odd } else { even };
            let node = &mut self.nodes[idx];
            node.visits += 1;
            node.score += reward;
            if proven && d + 1 < len {
                proven = self.update_proof(idx);
            }
        }
        if len > 1 {
            // In score units: a result adds `unit` to its count, a value
            // splits `unit` between wins and losses.
            let child = self.path[1] as usize - self.nodes[0].first_child as usize;
            let wdl = &mut self.root_wdl[child];
            match leaf {
                Leaf::Outcome(Outcome::Win(p)) if p == root_side => wdl[0] += unit,
                Leaf::Outcome(Outcome::Draw) => wdl[1] += unit,
                Leaf::Outcome(_) => wdl[2] += unit,
                Leaf::Value(v, draw) => {
                    // Wins and half the draws make the expected score.
                    let win = (v - draw) / 2;
                    wdl[0] += win;
                    wdl[1] += draw;
                    wdl[2] += unit - win - draw;
                }
            }
        }
        self.iterations += 1;
        if played {
            self.playouts += 1;
            self.depth_sum += (len - 1) as u64;
        }
        self.max_depth = self.max_depth.max((len - 1) as u32);
        if self.nodes[0].visits >= RESCALE_VISITS / self.unit {
            self.rescale();
        }
    }

    /// Re-derives the proof of `idx` from its children after one of them was
    /// proven. Returns whether `idx` is now proven.
    fn update_proof(&mut self, idx: usize) -> bool {
        let node = self.nodes[idx];
        if node.proof.is_some() {
            return false;
        }
        let mut win_dist = None::<u8>;
        let mut all_proven = true;
        let mut any_draw = false;
        let mut longest = 0u8;
        for (k, c) in node.children().enumerate() {
            if idx == 0 && !self.root_allowed.get(k).copied().unwrap_or(true) {
                continue;
            }
            let child = &self.nodes[c];
            match child.proof {
                Some(Verdict::Win) => {
                    win_dist = Some(win_dist.map_or(child.dist, |d| d.min(child.dist)))
                }
                Some(Verdict::Loss) => longest = longest.max(child.dist),
                Some(Verdict::Draw) => {
                    any_draw = true;
                    longest = longest.max(child.dist);
                }
                None => all_proven = false,
            }
        }
        let (proof, dist) = if let Some(d) = win_dist {
            (Verdict::Loss, d)
        } else if !all_proven {
            return false;
        } else if any_draw {
            (Verdict::Draw, longest)
        } else {
            (Verdict::Win, longest)
        };
        let node = &mut self.nodes[idx];
        node.proof = Some(proof);
        node.dist = dist.saturating_add(1);
        true
    }

    /// Halves every node's statistics (see `RESCALE_VISITS`).
    fn rescale(&mut self) {
        for node in &mut self.nodes {
            node.visits = node.visits.div_ceil(2);
            node.score = node.score.div_ceil(2).min(2 * self.unit * node.visits);
        }
        for wdl in &mut self.root_wdl {
            for x in wdl {
                *x /= 2;
            }
        }
    }

    /// The principal variation below node `from`: the best child at each
    /// step by [`best_child`] (proven wins first, then visits).
    pub fn pv_from(&self, from: usize, max_len: usize) -> Vec<G::Move> {
        let mut pv = Vec::new();
        let mut idx = from;
        while pv.len() < max_len {
            let node = &self.nodes[idx];
            if node.first_child == 0 {
                break;
            }
            let Some(best) = best_child(self, idx, |_| true) else {
                break;
            };
            pv.push(self.nodes[best].mv);
            idx = best;
        }
        pv
    }
}

/// A child's UCT value, `q + explore / sqrt(n)` with `q = half * score / n`
/// (`half` is 1/2 over the tree's score unit)
/// (a proven draw counts as `q = 1/2`), computed as
/// `(score / 2 / sqrt(n) + explore) / sqrt(n)`; `fpu` when unvisited; minus
/// infinity when proven lost for the player choosing. `explore` is
/// `c * sqrt(ln N)` for the parent's `N` visits.
#[inline(always)]
fn uct<M, C>(child: &Node<M, C>, explore: f32, fpu: f32, half: f32) -> f32 {
    let inv = inv_sqrt(child.visits);
    let half_score = if child.proof == Some(Verdict::Draw) {
        0.5 * child.visits as f32
    } else {
        half * child.score as f32
    };
    let value = if child.visits == 0 {
        fpu
    } else {
        (half_score * inv + explore) * inv
    };
    if child.proof == Some(Verdict::Loss) {
        f32::NEG_INFINITY
    } else {
        value
    }
}

/// The order of the children to play, larger better: proven wins
/// (shortest first), then the rest by visits and score, then proven losses
/// (longest first). `dist` is the proven distance, `score` in half-points.
#[inline]
pub(crate) fn preference(
    proof: Option<Verdict>,
    dist: u8,
    visits: u64,
    score: u64,
) -> (u8, i64, u64, u64) {
    match proof {
        Some(Verdict::Win) => (2, -(dist as i64), 0, 0),
        Some(Verdict::Loss) => (0, dist as i64, 0, 0),
        _ => (1, 0, visits, score),
    }
}

/// The child of `idx` to play: a proven win (the shortest), else the most
/// visited child not proven lost (ties to the better score), else the
/// proven loss that lasts longest. `allowed` filters children by index.
pub(crate) fn best_child<G: Game>(
    tree: &Tree<G>,
    idx: usize,
    allowed: impl Fn(usize) -> bool,
) -> Option<usize> {
    let node = tree.node(idx);
    let mut best: Option<(usize, (u8, i64, u64, u64))> = None;
    for (k, c) in node.children().enumerate() {
        if !allowed(k) {
            continue;
        }
        let child = tree.node(c);
        let key = preference(
            child.proof,
            child.dist,
            child.visits as u64,
            child.score as u64,
        );
        if best.is_none_or(|(_, k)| key > k) {
            best = Some((c, key));
        }
    }
    best.map(|(c, _)| c)
}

/// Table of `1 / sqrt(n)` for small `n` (16 KiB, stays in L1).
static INV_SQRT: [f32; 4096] = {
    let mut t = [0f32; 4096];
    let mut n = 1;
    while n < 4096 {
        // const fn has no sqrt: Newton iterations from a power-of-two guess.
        let x = n as f64;
        let mut y = 1.0;
        while y * y * x > 2.0 {
            y /= 2.0;
        }
        let mut i = 0;
        while i < 8 {
            y = y * (1.5 - 0.5 * x * y * y);
            i += 1;
        }
        t[n] = y as f32;
        n += 1;
    }
    t
};

/// The natural logarithm by plain arithmetic (the atanh series on the
/// mantissa), for the compile-time table: the search computes bit-identical
/// values on every platform, where `f32::ln` would come from the system's
/// libm. Accurate to about 1e-12 for the `x >= 1` it is used on.
const fn ln(x: f64) -> f64 {
    // x = m * 2^k with m in [1, 2), read off the float's bits.
    let bits = x.to_bits();
    let k = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    // m in [1, 2): ln m = 2 atanh(z) with z = (m - 1) / (m + 1) < 1/3,
    // atanh(z) = z (1 + z^2/3 + z^4/5 + ...), by Horner's rule.
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut poly = 1.0 / 23.0;
    let mut i = 21.0;
    while i > 0.0 {
        poly = poly * z2 + 1.0 / i;
        i -= 2.0;
    }
    let sum = z * poly;
    2.0 * sum + k as f64 * std::f64::consts::LN_2
}

/// Table of `sqrt(ln n)` for `n` below 4096 (0 for `n` = 0 and 1).
static SQRT_LN: [f32; 4096] = {
    let mut t = [0f32; 4096];
    let mut n = 2;
    while n < 4096 {
        // const fn has no sqrt: Newton's method.
        let l = ln(n as f64);
        let mut r = if l > 1.0 { l } else { 1.0 };
        let mut i = 0;
        while i < 30 {
            r = 0.5 * (r + l / r);
            i += 1;
        }
        t[n] = r as f32;
        n += 1;
    }
    t
};

/// `sqrt(ln n)`, 0 for `n <= 1`: one lookup below 4096. Above, `ln n` is
/// taken as `ln(n >> s) + s ln 2` with `n >> s` in the table: the
/// shifted-out bits change the result by less than 3e-4.
#[inline(always)]
fn sqrt_ln(n: u32) -> f32 {
    if n < 4096 {
        return SQRT_LN[n as usize];
    }
    let shift = 20 - n.leading_zeros();
    let r = SQRT_LN[(n >> shift) as usize & 4095];
    (r * r + shift as f32 * std::f32::consts::LN_2).sqrt()
}

/// `1 / sqrt(n)` for `n >= 1`.
#[inline(always)]
fn inv_sqrt(n: u32) -> f32 {
    match INV_SQRT.get(n as usize) {
        Some(&v) => v,
        None => 1.0 / (n as f32).sqrt(),
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

    fn params() -> Params {
        Params::default()
    }

    #[test]
    fn sqrt_ln_table() {
        assert_eq!(sqrt_ln(0), 0.0);
        assert_eq!(sqrt_ln(1), 0.0);
        for n in [2u32, 3, 10, 100, 4095] {
            let want = (n as f64).ln().sqrt();
            assert!((sqrt_ln(n) as f64 - want).abs() < 1e-6 * want, "{n}");
        }
        for n in [4096u32, 4097, 100_000, 1 << 30, u32::MAX] {
            let want = (n as f64).ln().sqrt();
            assert!((sqrt_ln(n) as f64 - want).abs() < 1e-4, "{n}");
        }
    }

    #[test]
    fn inv_sqrt_table() {
        for n in [1u32, 2, 3, 10, 100, 4095, 4096, 100_000] {
            let want = 1.0 / (n as f64).sqrt();
            assert!((inv_sqrt(n) as f64 - want).abs() < 1e-6 * want, "{n}");
        }
    }

    #[test]
    fn node_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Node<crate::rules::Move, u8>>(), 16);
    }

    #[test]
    fn visits_add_up() {
        let p = params();
        let mut tree = Tree::new(100_000, Position::startpos(), 1).unwrap();
        tree.begin_search(&p, &[], None);
        for _ in 0..5_000 {
            tree.iterate(&p, None);
        }
        let root = tree.root();
        assert_eq!(root.visits, 5_000);
        let sum: u32 = root.children().map(|c| tree.node(c).visits).sum();
        assert_eq!(sum, 5_000);
        // Every expanded node's visits are its children's plus its own
        // first visits (before expansion).
        for i in 0..tree.len() {
            let n = tree.node(i);
            assert!(n.score <= 2 * tree.unit() * n.visits);
            for c in n.children() {
                assert!(c > i, "children lie after their parent");
            }
        }
    }

    /// An evaluator with a flat value and priors that depend only on the
    /// move, so that every stored prior can be checked.
    struct Favours;

    fn weight(m: crate::rules::Move) -> f32 {
        1.0 + (m.index() as u32 * 7 % 11) as f32
    }

    impl Evaluator<Position> for Favours {
        fn evaluate(&self, _: &Position) -> f32 {
            0.5
        }
        fn evaluate_with_priors(
            &self,
            _: &Position,
            moves: &[crate::rules::Move],
            priors: &mut [f32],
        ) -> f32 {
            let total: f32 = moves.iter().map(|&m| weight(m)).sum();
            for (p, &m) in priors.iter_mut().zip(moves) {
                *p = weight(m) / total;
            }
            0.5
        }
    }

    /// Every expanded node's children carry their priors, and visits add
    /// up (a node is expanded at its first visit).
    fn check_priors(tree: &Tree<Position>) {
        assert_eq!(tree.priors.len(), tree.len());
        for i in 0..tree.len() {
            let range = tree.node(i).children();
            if range.is_empty() {
                continue;
            }
            let total: f32 = range.clone().map(|c| weight(tree.node(c).mv)).sum();
            for c in range.clone() {
                let want = weight(tree.node(c).mv) / total;
                assert!((tree.priors[c] - want).abs() < 1e-6, "node {c}");
            }
            if i != 0 && tree.node(i).proof.is_none() {
                let sum: u32 = range.map(|c| tree.node(c).visits).sum();
                assert_eq!(sum + 1, tree.node(i).visits, "node {i}");
            }
        }
    }

    #[test]
    fn puct_keeps_priors_through_tree_reuse() {
        let p = Params {
            policy: 1.0,
            ..params()
        };
        let mut tree = Tree::new(1_000_000, Position::startpos(), 2).unwrap();
        tree.set_unit(EVAL_UNIT);
        tree.begin_search(&p, &[], Some(&Favours));
        for _ in 0..5_000 {
            tree.iterate(&p, Some(&Favours));
        }
        check_priors(&tree);
        // With equal values the most favoured moves get the most visits.
        let root = tree.root().children();
        let top_prior = root
            .clone()
            .map(|c| weight(tree.node(c).mv))
            .fold(0.0, f32::max);
        let best = best_child(&tree, 0, |_| true).unwrap();
        assert_eq!(weight(tree.node(best).mv), top_prior);
        let mut pos = Position::startpos();
        pos.play(tree.node(best).mv);
        assert!(tree.advance(&pos));
        check_priors(&tree);
        tree.begin_search(&p, &[], Some(&Favours));
        for _ in 0..2_000 {
            tree.iterate(&p, Some(&Favours));
        }
        check_priors(&tree);
        // Turning PUCT off forgets the tree and its priors.
        tree.begin_search(&params(), &[], Some(&Favours));
        assert!(tree.priors.is_empty());
        assert_eq!(tree.root().visits, 0);
    }

    #[test]
    fn compaction_keeps_the_subtree() {
        let p = params();
        let mut tree = Tree::new(1_000_000, Position::startpos(), 2).unwrap();
        tree.begin_search(&p, &[], None);
        for _ in 0..20_000 {
            tree.iterate(&p, None);
        }
        let best = best_child(&tree, 0, |_| true).unwrap();
        let mv = tree.node(best).mv;
        let visits = tree.node(best).visits;
        let pv_before = tree.pv_from(best, 10);
        let mut pos = Position::startpos();
        pos.play(mv);
        assert!(tree.advance(&pos));
        assert_eq!(tree.root().visits, visits);
        assert_eq!(tree.pv_from(0, 10), pv_before);
        let sum: u32 = tree.root().children().map(|c| tree.node(c).visits).sum();
        assert_eq!(sum + p.expand_visits, visits);
        for i in 0..tree.len() {
            for c in tree.node(i).children() {
                assert!(c > i && c < tree.len());
            }
        }
        // A position not in the tree starts afresh.
        let far: Position = "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1".parse().unwrap();
        assert!(!tree.advance(&far));
        assert_eq!(tree.len(), 1);
    }
}
