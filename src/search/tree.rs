//! The search tree that all threads share: an arena of nodes with integer
//! indices, the children of a node stored together; its allocation,
//! expansion, selection, proofs (MCTS-Solver) and compaction between
//! searches (tree reuse).
//!
//! During a search the tree is shared (`&Tree`): node statistics and proofs
//! are atomics ([`super::node`]), a node is expanded by one thread at a
//! time (a lock in its first-child word), and each thread allocates its
//! nodes from blocks of slots that it claims from the arena with one atomic
//! operation, so that threads seldom touch the same allocation counter.
//! Between searches it is held by `&mut`: reset, compaction and the switch
//! to priors need no synchronization.
//!
//! Children may lie below their parent in the arena (another thread's
//! block), so compaction marks the kept subtree by a depth-first walk; the
//! live nodes then slide down in index order, keeping their order.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

use super::node::{DRAW, EXPANDING, LOSS, Node, Padded, VISIT_BITS, zeroed};
use super::{Evaluator, Params, SearchError};
use crate::game::{Game, Packed, Player, Verdict};

/// Score units per half-point with an evaluator: values are kept to 1/128
/// of a point.
pub(crate) const EVAL_UNIT: u32 = 64;

/// The root visits at which statistics are scaled down
/// ([`Tree::rescale`]) with `unit` score units per half-point, so that
/// neither a node's visits nor its score (at most `2 * unit` a visit)
/// outgrow their bits of the stats word ([`VISIT_BITS`]), however long an
/// analysis runs: 15/16 of the count either allows, which leaves the
/// threads' iterations between two checks 16 million and more. 252
/// million with an evaluator, 503 million with playouts.
pub(crate) fn rescale_visits(unit: u32) -> u32 {
    let most = stats_capacity(unit);
    (most - most / 16) as u32
}

/// The visits a node's stats word holds with `unit` score units per
/// half-point, a win each.
fn stats_capacity(unit: u32) -> u64 {
    let by_visits = 1u64 << VISIT_BITS;
    let by_score = (1u64 << (64 - VISIT_BITS)) / (2 * u64::from(unit.max(1)));
    by_visits.min(by_score)
}

/// What [`Tree::rescale`] keeps of the statistics: 3/4. Scaling down
/// makes the search broader for a while (the exploration term grows
/// against the values by the square root of the inverse: 15% here, 41%
/// for a halving), so a gentle step that comes more often disturbs a long
/// analysis less.
const RESCALE_KEEP: (u32, u32) = (3, 4);

/// The share of the capacity a full tree keeps when it recycles itself
/// ([`Tree::recycle`]): the rest is room to grow.
pub(crate) const RECYCLE_KEEP: f64 = 0.5;

/// Visit counts below this have a histogram bucket each in
/// [`Tree::recycle`]; above it, 16 buckets per power of two.
const EXACT_BUCKETS: u32 = 512;

/// The histogram bucket of a visit count (see [`EXACT_BUCKETS`]).
fn bucket(visits: u32) -> usize {
    if visits < EXACT_BUCKETS {
        return visits as usize;
    }
    let e = 31 - visits.leading_zeros();
    let base = EXACT_BUCKETS.trailing_zeros();
    (EXACT_BUCKETS + (e - base) * 16 + ((visits >> (e - 4)) & 15)) as usize
}

/// The least visit count in bucket `b`.
fn bucket_floor(b: usize) -> u32 {
    let b = b as u32;
    if b < EXACT_BUCKETS {
        return b;
    }
    let base = EXACT_BUCKETS.trailing_zeros();
    let e = (b - EXACT_BUCKETS) / 16 + base;
    (1 << e) | ((b - EXACT_BUCKETS) % 16) << (e - 4)
}

/// The most slots a thread claims from the arena at once (see
/// [`Tree::alloc`]).
const MAX_BLOCK: usize = 1024;

/// Bytes the tree uses per node of capacity: the node itself plus the
/// compaction bitmap (1 bit) and its prefix counts (32 bits per 64 nodes).
pub(crate) fn bytes_per_node<M: Packed, C: Packed>() -> f64 {
    std::mem::size_of::<Node<M, C>>() as f64 + 1.5 / 8.0
}

/// Bytes in a MiB.
pub(crate) const MIB: f64 = 1024.0 * 1024.0;

/// The most nodes the tree can index (node indices are `u32`, and
/// `u32::MAX` marks a node being expanded).
pub(crate) const MAX_NODES: usize = u32::MAX as usize;

/// Nodes the tree may hold for it and its scratch to stay within
/// `hash_mb` MiB.
pub(crate) fn capacity_for<M: Packed, C: Packed>(hash_mb: usize) -> usize {
    (hash_mb as f64 * MIB / bytes_per_node::<M, C>()) as usize
}

/// Starts loading the cache line of `node`, so that a read of it that
/// follows soon does not wait for memory.
#[inline(always)]
fn prefetch<T>(node: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of x86-64; a prefetch reads nothing and
        // cannot fault, and the pointer is to a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((node as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
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

/// A thread's current block of arena slots: `next..end` are its own.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Cursor {
    next: usize,
    end: usize,
}

/// What [`Tree::expand`] did.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Expansion {
    /// Created the children; with an evaluator for their priors, its
    /// value of the position.
    Created(Option<f32>),
    /// Proved the node instead (the side to move wins at once).
    Proven,
    /// Another thread is creating the children.
    Busy,
    /// Another thread created them already.
    Expanded,
    /// No room left in the tree.
    Full,
}

/// The search tree over game `G`.
pub(crate) struct Tree<G: Game> {
    /// The arena, zeroed when allocated (see [`zeroed`]).
    nodes: Box<[Node<G::Move, G::ChildCount>]>,
    /// With PUCT ([`Params::policy`]): each node's prior (`f32` bits),
    /// indexed like `nodes` (empty otherwise).
    priors: Box<[AtomicU32]>,
    /// The capacity without priors (what `new` reserved).
    reserved: usize,
    /// Slots handed out: nodes in use lie below it, with the unused ends
    /// of the threads' blocks. Apart from the fields every thread reads.
    len: Padded<AtomicUsize>,
    /// The most slots the tree has handed out (see `bytes_in_use`).
    peak: usize,
    /// Whether an expansion was refused because the tree was full.
    full: Padded<AtomicBool>,
    root_pos: G,
    /// Score units per half-point: a visit scores `2 * unit` for a win,
    /// `unit` for a draw, 0 for a loss. 1 with playouts (whole
    /// half-points); [`EVAL_UNIT`] with an evaluator, whose values fall
    /// between.
    unit: u32,
    /// Root children the search may choose (all when empty).
    root_allowed: Vec<bool>,
    /// Slots a thread claims at once (1 with a single thread: no gaps).
    block: usize,
    /// Compaction scratch, sized once for the capacity.
    live: Vec<u64>,
    prefix: Vec<u32>,
    /// Compaction's walk: families of children left to mark (each marked
    /// family adds its members' families, so it holds at most `MAX_MOVES`
    /// a level).
    stack: Vec<(usize, usize)>,
    /// [`Tree::recycle`]'s children per visits bucket.
    histogram: Vec<u64>,
    /// Times the tree was recycled since it last started afresh.
    recycled: u32,
}

impl<G: Game> Tree<G> {
    /// A tree holding at most `capacity` nodes (at least room for the root
    /// and its children). Its memory is reserved at once, and the reserve
    /// failing is an error, not an abort.
    pub fn new(capacity: usize, root_pos: G) -> Result<Self, SearchError> {
        let capacity = capacity.max(G::MAX_MOVES + 1);
        let words = capacity.div_ceil(64);
        let failed = || SearchError::TreeAlloc {
            mib: (capacity as f64 * bytes_per_node::<G::Move, G::ChildCount>() / MIB).round()
                as u64,
        };
        #[cfg(test)]
        if alloc_hook::refuses(capacity as f64 * bytes_per_node::<G::Move, G::ChildCount>()) {
            return Err(failed());
        }
        let nodes = zeroed(capacity).ok_or_else(failed)?;
        let mut live = Vec::new();
        let mut prefix = Vec::new();
        if live.try_reserve_exact(words).is_err() || prefix.try_reserve_exact(words).is_err() {
            return Err(failed());
        }
        let mut tree = Tree {
            nodes,
            priors: Box::new([]),
            reserved: capacity,
            len: Padded(AtomicUsize::new(0)),
            peak: 0,
            full: Padded(AtomicBool::new(false)),
            root_pos,
            unit: 1,
            root_allowed: Vec::with_capacity(G::MAX_MOVES),
            block: 1,
            live,
            prefix,
            // Grows to the widest walk once and keeps its room between
            // moves (the old depth-first walk's bound no longer holds).
            stack: Vec::new(),
            histogram: Vec::new(),
            recycled: 0,
        };
        tree.reset(root_pos);
        Ok(tree)
    }

    /// The smallest tree (the root and its children), for when no larger
    /// one can be had. Its few kilobytes are allocated like any small
    /// value: failing that aborts the process, as in all of Rust.
    pub fn minimal(root_pos: G) -> Self {
        match Self::new(0, root_pos) {
            Ok(tree) => tree,
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::array::<Node<G::Move, G::ChildCount>>(G::MAX_MOVES + 1)
                    .unwrap_or(std::alloc::Layout::new::<Node<G::Move, G::ChildCount>>()),
            ),
        }
    }

    /// Whether the tree keeps priors (PUCT).
    #[inline(always)]
    pub fn with_priors(&self) -> bool {
        !self.priors.is_empty()
    }

    /// Bytes of memory the tree has actually used so far (the reserve's
    /// pages that were written), as opposed to reserved.
    pub fn bytes_in_use(&self) -> f64 {
        let per_node =
            bytes_per_node::<G::Move, G::ChildCount>() + if self.with_priors() { 4.0 } else { 0.0 };
        self.peak.max(self.len()) as f64 * per_node
    }

    /// Turns priors (PUCT) on or off; a change forgets the tree. Priors
    /// take 4 more bytes a node, so with them the tree holds fewer nodes
    /// in the same memory; without them it holds as many as `new` was
    /// given. Should a reserve fail, the tree falls back to the smallest
    /// one, without priors.
    fn use_priors(&mut self, on: bool) {
        if on == self.with_priors() {
            return;
        }
        let per_node = bytes_per_node::<G::Move, G::ChildCount>();
        let fewer = ((self.reserved as f64 * per_node / (per_node + 4.0)) as usize)
            .max(G::MAX_MOVES + 1)
            .min(self.reserved);
        // The old reserve is freed first, so that old and new are never
        // held together.
        self.nodes = Box::new([]);
        self.priors = Box::new([]);
        let want = if on { fewer } else { self.reserved };
        let nodes = zeroed(want);
        let priors = if on {
            zeroed(want)
        } else {
            Some(Box::new([]) as Box<[_]>)
        };
        match (nodes, priors) {
            (Some(nodes), Some(priors)) => {
                self.nodes = nodes;
                self.priors = priors;
            }
            _ => {
                // The smallest tree, without priors (as `Tree::minimal`).
                self.nodes = zeroed(G::MAX_MOVES + 1).unwrap_or_else(|| {
                    std::alloc::handle_alloc_error(std::alloc::Layout::new::<
                        [Node<G::Move, G::ChildCount>; 1],
                    >())
                });
                self.priors = Box::new([]);
            }
        }
        let root = self.root_pos;
        self.reset(root);
    }

    /// Forgets everything and starts over at `root_pos`.
    pub fn reset(&mut self, root_pos: G) {
        self.peak = self.peak.max(self.len());
        // The tree is held by `&mut`: no other thread sees the root.
        self.nodes[0].init(G::Move::default());
        *self.len.0.get_mut() = 1;
        if let Some(p) = self.priors.first_mut() {
            *p.get_mut() = 1f32.to_bits();
        }
        self.root_pos = root_pos;
        *self.full.0.get_mut() = false;
        self.recycled = 0;
    }

    /// Score units per half-point (see [`EVAL_UNIT`]).
    #[inline(always)]
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

    /// Slots handed out (nodes in use, with the unused ends of blocks).
    pub fn len(&self) -> usize {
        self.len.0.load(Ordering::Relaxed).min(self.capacity())
    }

    /// Most nodes the tree may hold.
    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Times the tree was recycled ([`Tree::recycle`]) since it last
    /// started afresh ([`Tree::reset`]).
    #[cfg(test)]
    pub fn recycled(&self) -> u32 {
        self.recycled
    }

    /// Whether an expansion was refused for want of room in this search.
    pub fn is_full(&self) -> bool {
        self.full.0.load(Ordering::Relaxed)
    }

    /// The root position.
    #[inline(always)]
    pub fn root_pos(&self) -> &G {
        &self.root_pos
    }

    /// A node by index.
    #[inline(always)]
    pub fn node(&self, i: usize) -> &Node<G::Move, G::ChildCount> {
        &self.nodes[i]
    }

    /// The root node.
    #[inline(always)]
    pub fn root(&self) -> &Node<G::Move, G::ChildCount> {
        &self.nodes[0]
    }

    /// A node's prior (PUCT).
    pub fn prior(&self, i: usize) -> f32 {
        f32::from_bits(self.priors[i].load(Ordering::Relaxed))
    }

    /// Whether the root is proven (which ends the search).
    #[inline(always)]
    pub fn root_proven(&self) -> bool {
        self.root().verdict().is_some()
    }

    /// A cursor with no slots yet, for a thread starting a search.
    pub fn cursor(&self) -> Cursor {
        let len = self.len();
        Cursor {
            next: len,
            end: len,
        }
    }

    /// Moves the root to `pos`, keeping the subtree that matches it when
    /// `pos` is the root or lies one or two plies below it; otherwise starts
    /// a fresh tree. Returns whether anything was kept.
    pub fn advance(&mut self, pos: &G) -> bool {
        if *pos == self.root_pos && pos.outcome().is_none() {
            return true;
        }
        let mut found = None;
        'search: for c in self.root().children() {
            let mut p1 = self.root_pos;
            p1.play_unchecked(self.node(c).mv());
            if p1 == *pos {
                found = Some(c);
                break;
            }
            for g in self.node(c).children() {
                let mut p2 = p1;
                p2.play_unchecked(self.node(g).mv());
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
                *self.full.0.get_mut() = false;
                true
            }
            _ => {
                self.reset(*pos);
                false
            }
        }
    }

    /// Keeps only the subtree under `new_root`, which becomes node 0; the
    /// other live nodes slide down in order to `1..`, using a bitmap of
    /// live nodes and its prefix counts as the forwarding table.
    fn compact(&mut self, new_root: usize) {
        self.compact_from(new_root, 0);
    }

    /// [`Tree::compact`], keeping the children only of the nodes visited at
    /// least `min_visits` times (and always the new root's): the others
    /// become leaves again, with their statistics and proofs.
    fn compact_from(&mut self, new_root: usize, min_visits: u32) {
        let len = self.len();
        self.peak = self.peak.max(len);
        let words = len.div_ceil(64);
        self.live.clear();
        self.live.resize(words, 0);
        // Mark the new root's descendants (not the root itself, which goes
        // to 0), a family of siblings at a time, each family's first line
        // asked for as soon as its parent is seen: the families lie all
        // over the arena, and waiting for each in turn took most of the
        // time of a move's tree reuse.
        self.stack.clear();
        let r = self.node(new_root).children();
        self.stack.push((r.start, r.end));
        while let Some((start, end)) = self.stack.pop() {
            for next in start..end {
                self.live[next / 64] |= 1 << (next % 64);
                let node = self.node(next);
                let r = node.children();
                if !r.is_empty() && node.visits() >= min_visits {
                    prefetch(&self.nodes[r.start]);
                    self.stack.push((r.start, r.end));
                }
            }
        }
        self.prefix.clear();
        let mut count = 0u32;
        for &w in &self.live {
            self.prefix.push(count);
            count += w.count_ones();
        }
        // Where live node `i` goes: after the root, in order. Never above
        // `i` (node 0, the old root, is not live), so a forward pass never
        // overwrites a node it has yet to move. A family that was not
        // marked (its parent visited too little) is dropped: the parent
        // becomes a leaf.
        let to = |live: &[u64], prefix: &[u32], i: usize| -> u32 {
            if live[i / 64] & (1u64 << (i % 64)) == 0 {
                return 0;
            }
            1 + prefix[i / 64] + (live[i / 64] & ((1u64 << (i % 64)) - 1)).count_ones()
        };
        let root = self.nodes[new_root].snapshot();
        let root_prior = self.priors.get(new_root).map(|p| p.load(Ordering::Relaxed));
        let with_priors = self.with_priors();
        // The live nodes in order, a word of the bitmap at a time: most of
        // a big tree is dead (the kept subtree is a small part of it).
        let mut dest = 0;
        for word in 0..words {
            let mut bits = self.live[word];
            while bits != 0 {
                let i = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                dest += 1;
                let first = match *self.nodes[i].first_child_mut() {
                    0 | EXPANDING => 0,
                    f => to(&self.live, &self.prefix, f as usize),
                };
                if dest == i {
                    self.nodes[i].set_first_child(first);
                } else {
                    let (low, high) = self.nodes.split_at_mut(i);
                    low[dest].copy_from(&mut high[0], first);
                    if with_priors {
                        let p = *self.priors[i].get_mut();
                        *self.priors[dest].get_mut() = p;
                    }
                }
            }
        }
        let mut root = root;
        let first = match *root.first_child_mut() {
            0 | EXPANDING => 0,
            f => to(&self.live, &self.prefix, f as usize),
        };
        self.nodes[0].copy_from(&mut root, first);
        if let (Some(p), Some(v)) = (self.priors.first_mut(), root_prior) {
            *p.get_mut() = v;
        }
        *self.len.0.get_mut() = 1 + count as usize;
    }

    /// Makes room in a full tree, between two parts of a search: keeps the
    /// children of the most visited nodes, at most [`RECYCLE_KEEP`] of the
    /// capacity in all, and turns the other nodes with children into
    /// leaves (keeping their statistics and proofs), so that the search
    /// goes on growing the tree where it now looks. Returns the slots freed.
    ///
    /// The nodes are chosen by their visits: a histogram of the children
    /// each node holds, by its visits, gives the least count whose nodes'
    /// families fit; a walk from the root then keeps the families of the
    /// nodes with at least that many visits whose parents' were kept. A
    /// family whose parent is dropped goes with it, so the walk keeps at
    /// most what the histogram counted. The root's children always stay
    /// (the search's moves, with their statistics), and so does the order
    /// of every family, so a thread's view of the root is unchanged.
    pub fn recycle(&mut self) -> usize {
        let before = self.len();
        let target = (self.capacity() as f64 * RECYCLE_KEEP) as usize;
        let root_family = self.root().num_children();
        self.histogram.clear();
        self.histogram.resize(bucket(u32::MAX) + 1, 0);
        self.stack.clear();
        let r = self.root().children();
        self.stack.push((r.start, r.end));
        while let Some((start, end)) = self.stack.pop() {
            for next in start..end {
                let node = &self.nodes[next];
                let r = node.children();
                if !r.is_empty() {
                    prefetch(&self.nodes[r.start]);
                    self.histogram[bucket(node.visits())] += r.len() as u64;
                    self.stack.push((r.start, r.end));
                }
            }
        }
        // The lowest bucket from which the families fit.
        let mut kept = root_family as u64;
        let mut from = self.histogram.len();
        while from > 0 && kept + self.histogram[from - 1] <= target as u64 {
            kept += self.histogram[from - 1];
            from -= 1;
        }
        let min_visits = match from {
            0 => 0,
            // Not even the most visited families fit: the root's alone.
            b if b == self.histogram.len() => u32::MAX,
            b => bucket_floor(b),
        };
        self.compact_from(0, min_visits);
        *self.full.0.get_mut() = false;
        self.recycled += 1;
        before.saturating_sub(self.len())
    }

    /// Prepares a new search from the current root for `threads` threads:
    /// expands the root, and restricts the root's moves to `allowed` when
    /// it is not empty. With PUCT ([`Params::policy`] and an evaluator) the
    /// root's priors come from `eval`.
    pub fn begin_search(
        &mut self,
        params: &Params,
        allowed: &[G::Move],
        eval: Option<&dyn Evaluator<G>>,
        threads: usize,
    ) {
        self.use_priors(params.policy > 0.0 && eval.is_some());
        // One thread takes slots one expansion at a time, leaving no gaps;
        // several take blocks, small enough that their unused ends waste
        // little of a small tree.
        self.block = if threads > 1 {
            (self.capacity() / (16 * threads)).clamp(1, MAX_BLOCK)
        } else {
            1
        };
        let root_pos = self.root_pos;
        if root_pos.outcome().is_some() {
            return;
        }
        if !self.root().is_expanded() {
            self.root().unprove();
            let mut cursor = self.cursor();
            self.expand(0, &root_pos, params, &mut cursor, None);
        }
        if let Some(e) = eval.filter(|_| self.with_priors()) {
            let range = self.root().children();
            let moves: Vec<G::Move> = range.clone().map(|c| self.node(c).mv()).collect();
            let mut priors = vec![0.0; moves.len()];
            e.evaluate_with_priors(&root_pos, &moves, &mut priors, params.policy_temperature);
            for (c, p) in range.zip(priors) {
                self.priors[c].store(finite_or_zero(p).to_bits(), Ordering::Relaxed);
            }
        }
        let range = self.root().children();
        self.root_allowed.clear();
        for c in range.clone() {
            let mv = self.node(c).mv();
            self.root_allowed.push(allowed.contains(&mv));
        }
        if !self.root_allowed.contains(&true) {
            // No filter (or none that matches): every move is allowed.
            self.root_allowed.fill(true);
        }
        if params.solver {
            if let Some(w) = root_pos.winning_move() {
                for c in range {
                    if self.node(c).mv() == w {
                        self.node(c).prove(Verdict::Win, 0);
                    }
                }
            }
            // The root's proof counts only the moves the search may choose.
            self.root().unprove();
            self.update_proof(0);
        }
    }

    /// Whether root child `i` (0-based) may be chosen.
    #[inline(always)]
    pub fn root_allowed(&self, i: usize) -> bool {
        self.root_allowed.get(i).copied().unwrap_or(false)
    }

    /// The player who moved into a node `depth` plies below the root.
    #[inline(always)]
    pub fn mover(&self, depth: usize) -> Player {
        let root_side = self.root_pos.side_to_move();
        if depth % 2 == 1 {
            root_side
        } else {
            root_side.opponent()
        }
    }

    /// Gives `n` slots from the thread's block, claiming a new block from
    /// the arena when it has too few (one compare-and-swap a block); `None`
    /// when the tree is full. A new block that follows the old one
    /// directly extends it, so a single thread leaves no gaps.
    fn alloc(&self, cursor: &mut Cursor, n: usize) -> Option<usize> {
        if cursor.end - cursor.next < n {
            let capacity = self.capacity();
            let mut start = self.len.0.load(Ordering::Relaxed);
            loop {
                let have = if start == cursor.end {
                    cursor.end - cursor.next
                } else {
                    0
                };
                let need = n - have;
                if capacity - start.min(capacity) < need {
                    return None;
                }
                let take = need.max(self.block).min(capacity - start);
                match self.len.0.compare_exchange_weak(
                    start,
                    start + take,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        if have == 0 {
                            cursor.next = start;
                        }
                        cursor.end = start + take;
                        break;
                    }
                    Err(now) => start = now,
                }
            }
        }
        let first = cursor.next;
        cursor.next += n;
        Some(first)
    }

    /// Creates the children of `idx` (position `pos`), with their priors
    /// from `priors` (an evaluator and a scratch buffer) when the tree
    /// keeps them, and publishes them; see [`Expansion`] for the other
    /// ends. With the solver on, a position where the side to move wins at
    /// once is proven without creating children (except at the root,
    /// whose children are always created; `begin_search` marks the winning
    /// one).
    pub fn expand(
        &self,
        idx: usize,
        pos: &G,
        params: &Params,
        cursor: &mut Cursor,
        priors: Option<(&dyn Evaluator<G>, &mut Vec<f32>)>,
    ) -> Expansion {
        let node = self.node(idx);
        if let Err(first) = node.lock() {
            return if first == EXPANDING {
                Expansion::Busy
            } else {
                Expansion::Expanded
            };
        }
        if params.solver && idx != 0 && pos.winning_move().is_some() {
            node.prove(Verdict::Loss, 1);
            node.unlock();
            return Expansion::Proven;
        }
        let moves = pos.legal_moves();
        let Some(first) = self.alloc(cursor, moves.len()) else {
            if !self.is_full() {
                self.full.0.store(true, Ordering::Relaxed);
            }
            node.unlock();
            return Expansion::Full;
        };
        for (slot, &m) in self.nodes[first..first + moves.len()]
            .iter()
            .zip(moves.iter())
        {
            // The allocator gave these slots to this thread alone, and they
            // are linked only by `publish` below.
            slot.init(m);
        }
        let mut value = None;
        if self.with_priors() {
            let slots = &self.priors[first..first + moves.len()];
            match priors {
                Some((eval, buf)) => {
                    buf.clear();
                    buf.resize(moves.len(), 0.0);
                    value = Some(eval.evaluate_with_priors(
                        pos,
                        &moves,
                        buf,
                        params.policy_temperature,
                    ));
                    for (slot, &p) in slots.iter().zip(buf.iter()) {
                        slot.store(finite_or_zero(p).to_bits(), Ordering::Relaxed);
                    }
                }
                None => {
                    let p = 1.0 / moves.len().max(1) as f32;
                    for slot in slots {
                        slot.store(p.to_bits(), Ordering::Relaxed);
                    }
                }
            }
        }
        // This thread holds the node's lock and has created its children
        // just above.
        node.publish(first as u32, moves.len());
        Expansion::Created(value)
    }

    /// Picks the child of `idx` to descend into: UCT with first-play
    /// urgency (PUCT with priors), skipping children proven lost for the
    /// player choosing. `pending` (visits, score) are the thread's own not
    /// yet added to `idx`, and `child_pending` its children's (empty, or
    /// one pair per child: the root's with several threads); `values` is
    /// scratch.
    #[inline]
    pub fn select(
        &self,
        idx: usize,
        params: &Params,
        pending: (u32, u64),
        child_pending: &[(u32, u64)],
        values: &mut Vec<f32>,
    ) -> usize {
        let node = self.node(idx);
        let (visits, score) = node.stats();
        let (visits, score) = (visits + pending.0, score + pending.1);
        if self.with_priors() {
            return self.select_puct(idx, visits, score, params, child_pending);
        }
        let explore = params.exploration * sqrt_ln(visits);
        let range = node.children();
        let first = range.start;
        let children = &self.nodes[range];
        let fpu = params.fpu;
        let half = 0.5 / self.unit as f32;
        let value = |child: &Node<G::Move, G::ChildCount>| {
            uct(child.stats(), child.proof_code(), explore, fpu, half)
        };
        let best = if !child_pending.is_empty() {
            values.clear();
            values.extend(children.iter().zip(child_pending).map(|(child, &(n, s))| {
                let (visits, score) = child.stats();
                let stats = (visits + n, score + s);
                uct(stats, child.proof_code(), explore, fpu, half)
            }));
            argmax(values)
        } else if children.len() <= 16 {
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
            // Wide nodes (81 children at the start): the values, then their
            // maximum in a pass that the compiler vectorizes, then the first
            // child that has it.
            values.clear();
            values.extend(children.iter().map(value));
            argmax(values)
        };
        if idx == 0 && !self.root_allowed[best] {
            return self.select_allowed(first, explore, fpu, half, child_pending);
        }
        first + best
    }

    /// PUCT selection: the child with the most
    /// `q + c * prior * sqrt(N) / (1 + n)`, an unvisited child's `q` being
    /// the parent's less [`Params::fpu_reduction`]; proven losses for the
    /// player choosing (and, at the root, moves not allowed) skipped.
    fn select_puct(
        &self,
        idx: usize,
        visits: u32,
        score: u64,
        params: &Params,
        child_pending: &[(u32, u64)],
    ) -> usize {
        let node = self.node(idx);
        let half = 0.5 / self.unit as f32;
        let parent_q = if visits > 0 {
            1.0 - half * score as f32 / visits as f32
        } else {
            0.5
        };
        let fpu = (parent_q - params.fpu_reduction).max(0.0);
        let explore = params.policy * (visits as f32).sqrt();
        let range = node.children();
        let first = range.start;
        let mut best = first;
        let mut top = f32::NEG_INFINITY;
        for (k, (child, prior)) in self.nodes[range.clone()]
            .iter()
            .zip(&self.priors[range])
            .enumerate()
        {
            let proof = child.proof_code();
            if proof == LOSS || (idx == 0 && !self.root_allowed[k]) {
                continue;
            }
            let (n, s) = child.stats();
            let (n, s) = match child_pending.get(k) {
                Some(&(dn, ds)) => (n + dn, s + ds),
                None => (n, s),
            };
            let q = if proof == DRAW {
                0.5
            } else if n == 0 {
                fpu
            } else {
                half * s as f32 / n as f32
            };
            let prior = f32::from_bits(prior.load(Ordering::Relaxed));
            let v = q + explore * prior / (1 + n) as f32;
            if v > top {
                top = v;
                best = first + k;
            }
        }
        best
    }

    /// Root selection when the search is restricted to some moves.
    #[cold]
    fn select_allowed(
        &self,
        first: usize,
        explore: f32,
        fpu: f32,
        half: f32,
        child_pending: &[(u32, u64)],
    ) -> usize {
        let n = self.root().num_children();
        let mut best = first;
        let mut best_value = f32::NEG_INFINITY;
        for k in (0..n).filter(|&k| self.root_allowed[k]) {
            let child = self.node(first + k);
            let (visits, score) = child.stats();
            let (n, s) = child_pending.get(k).copied().unwrap_or((0, 0));
            let value = uct(
                (visits + n, score + s),
                child.proof_code(),
                explore,
                fpu,
                half,
            );
            if value > best_value {
                best_value = value;
                best = first + k;
            }
        }
        best
    }

    /// Re-derives the proof of `idx` from its children after one of them was
    /// proven. Returns whether this call proved `idx`. Under concurrency a
    /// proof is set once (compare-and-swap) and only from children's
    /// proofs, which never change: whichever thread sets it, it is right,
    /// and its distance is that of a line of play that achieves it.
    pub fn update_proof(&self, idx: usize) -> bool {
        let node = self.node(idx);
        if node.verdict().is_some() {
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
            match self.node(c).proof() {
                Some((Verdict::Win, d)) => win_dist = Some(win_dist.map_or(d, |w| w.min(d))),
                Some((Verdict::Loss, d)) => longest = longest.max(d),
                Some((Verdict::Draw, d)) => {
                    any_draw = true;
                    longest = longest.max(d);
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
        node.prove(proof, dist.saturating_add(1))
    }

    /// Scales every node's statistics down by [`RESCALE_KEEP`] (see
    /// [`rescale_visits`]), rounding up. Only while
    /// no other thread searches: the threads' virtual visits must all have
    /// been taken back.
    pub fn rescale(&self) {
        for node in &self.nodes[..self.len()] {
            let (visits, score) = node.stats();
            let (keep, of) = RESCALE_KEEP;
            let visits = (u64::from(visits) * u64::from(keep)).div_ceil(u64::from(of));
            let score = (score * u64::from(keep)).div_ceil(u64::from(of));
            node.set_stats(visits as u32, score.min(2 * u64::from(self.unit) * visits));
        }
    }

    /// The principal variation below node `from`: the best child at each
    /// step by [`best_child`] (proven wins first, then visits).
    pub fn pv_from(&self, from: usize, max_len: usize) -> Vec<G::Move> {
        let mut pv = Vec::new();
        let mut idx = from;
        while pv.len() < max_len {
            let Some(best) = best_child(self, idx, |_| true) else {
                break;
            };
            pv.push(self.node(best).mv());
            idx = best;
        }
        pv
    }
}

/// A prior as stored: one that is not a number counts as 0.
fn finite_or_zero(p: f32) -> f32 {
    if p.is_finite() { p } else { 0.0 }
}

/// A child's UCT value from its stats and proof code, `q + explore / sqrt(n)` with `q = half * score / n`
/// (`half` is 1/2 over the tree's score unit)
/// (a proven draw counts as `q = 1/2`), computed as
/// `(score / 2 / sqrt(n) + explore) / sqrt(n)`; `fpu` when unvisited; minus
/// infinity when proven lost for the player choosing. `explore` is
/// `c * sqrt(ln N)` for the parent's `N` visits.
#[inline(always)]
fn uct((visits, score): (u32, u64), proof: u8, explore: f32, fpu: f32, half: f32) -> f32 {
    let inv = inv_sqrt(visits);
    let half_score = if proof == DRAW {
        0.5 * visits as f32
    } else {
        half * score as f32
    };
    let value = if visits == 0 {
        fpu
    } else {
        (half_score * inv + explore) * inv
    };
    if proof == LOSS {
        f32::NEG_INFINITY
    } else {
        value
    }
}

/// The index of the first largest of `values` (0 when empty): their
/// maximum in a pass that the compiler vectorizes, then the first value
/// that has it.
#[inline(always)]
fn argmax(values: &[f32]) -> usize {
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
/// proven loss that lasts longest. `allowed` filters children by number.
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
        let (proof, dist) = child.proof().map_or((None, 0), |(v, d)| (Some(v), d));
        let (visits, score) = child.stats();
        let key = preference(proof, dist, visits as u64, score);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;
    use crate::search::worker::{Share, Worker};

    fn params() -> Params {
        Params::default()
    }

    #[test]
    fn visit_buckets_are_ordered_and_floors_fall_in_them() {
        let mut last = 0;
        for v in (0..5_000u32).chain([1 << 20, (1 << 20) + 1, 1 << 30, u32::MAX - 1, u32::MAX]) {
            let b = bucket(v);
            assert!(b >= last, "{v}");
            last = b;
            assert!(bucket_floor(b) <= v && bucket(bucket_floor(b)) == b, "{v}");
        }
        assert_eq!(bucket(u32::MAX), bucket(u32::MAX - 1));
        assert!(bucket(u32::MAX) < 1_000);
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

    /// Runs `n` iterations on one thread.
    fn iterate(
        tree: &mut Tree<Position>,
        p: &Params,
        eval: Option<&dyn Evaluator<Position>>,
        n: u32,
    ) {
        tree.begin_search(p, &[], eval, 1);
        let share = Share::new(tree.root().num_children());
        let mut worker = Worker::new(1);
        worker.begin(tree, 1);
        for _ in 0..n {
            worker.iterate(tree, &share, p, eval, false);
        }
    }

    #[test]
    fn visits_add_up() {
        let p = params();
        let mut tree = Tree::new(100_000, Position::startpos()).unwrap();
        iterate(&mut tree, &p, None, 5_000);
        let root = tree.root();
        assert_eq!(root.visits(), 5_000);
        let sum: u32 = root.children().map(|c| tree.node(c).visits()).sum();
        assert_eq!(sum, 5_000);
        for i in 0..tree.len() {
            let n = tree.node(i);
            assert!(n.score() <= 2 * u64::from(tree.unit()) * u64::from(n.visits()));
            for c in n.children() {
                assert!(c > i, "with one thread children lie after their parent");
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
            _: f32,
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
        check_priors_and(tree, true)
    }

    /// [`check_priors`], the visits checked only with `visits_add_up`
    /// (a node that lost its children to recycling and was expanded
    /// again has more visits than its new children).
    fn check_priors_and(tree: &Tree<Position>, visits_add_up: bool) {
        assert!(tree.with_priors());
        for i in 0..tree.len() {
            let range = tree.node(i).children();
            if range.is_empty() {
                continue;
            }
            let total: f32 = range.clone().map(|c| weight(tree.node(c).mv())).sum();
            for c in range.clone() {
                let want = weight(tree.node(c).mv()) / total;
                assert!((tree.prior(c) - want).abs() < 1e-6, "node {c}");
            }
            if visits_add_up && i != 0 && tree.node(i).verdict().is_none() {
                let sum: u32 = range.map(|c| tree.node(c).visits()).sum();
                assert_eq!(sum + 1, tree.node(i).visits(), "node {i}");
            }
        }
    }

    #[test]
    fn statistics_scale_down_before_they_outgrow_their_bits() {
        assert_eq!(rescale_visits(EVAL_UNIT), 251_658_240);
        assert_eq!(rescale_visits(1), 503_316_480);
        for unit in [1, 2, 16, EVAL_UNIT] {
            // Room for 16 million more visits, and their score at a win
            // a visit.
            let at = u64::from(rescale_visits(unit)) + (1 << 24);
            assert!(at <= 1 << VISIT_BITS, "unit {unit}");
            assert!(
                at * 2 * u64::from(unit) <= 1 << (64 - VISIT_BITS),
                "unit {unit}"
            );
        }
    }

    #[test]
    fn rescaling_keeps_three_quarters_and_the_values() {
        let mut tree = Tree::new(10_000, Position::startpos()).unwrap();
        tree.set_unit(EVAL_UNIT);
        let params = Params::default();
        let mut cursor = tree.cursor();
        tree.expand(0, &Position::startpos(), &params, &mut cursor, None);
        let children = tree.root().children();
        tree.root().set_stats(1_000_001, 64_000_064);
        for (k, c) in children.clone().enumerate() {
            let visits = 1_000 * k as u32 + 1;
            tree.node(c)
                .set_stats(visits, u64::from(visits) * (k as u64 % 129));
        }
        tree.rescale();
        assert_eq!(tree.root().stats(), (750_001, 48_000_048));
        for (k, c) in children.enumerate() {
            let before = 1_000 * k as u64 + 1;
            let (visits, score) = tree.node(c).stats();
            assert_eq!(u64::from(visits), (3 * before).div_ceil(4));
            let q = score as f64 / f64::from(visits);
            assert!((q - (k % 129) as f64).abs() < 1e-3, "child {k}: {q}");
        }
    }

    #[test]
    fn puct_keeps_priors_through_tree_reuse() {
        let p = Params {
            policy: 1.0,
            ..params()
        };
        let mut tree = Tree::new(1_000_000, Position::startpos()).unwrap();
        tree.set_unit(EVAL_UNIT);
        iterate(&mut tree, &p, Some(&Favours), 5_000);
        check_priors(&tree);
        // With equal values the most favoured moves get the most visits.
        let root = tree.root().children();
        let top_prior = root
            .clone()
            .map(|c| weight(tree.node(c).mv()))
            .fold(0.0, f32::max);
        let best = best_child(&tree, 0, |_| true).unwrap();
        assert_eq!(weight(tree.node(best).mv()), top_prior);
        let mut pos = Position::startpos();
        pos.play(tree.node(best).mv());
        assert!(tree.advance(&pos));
        check_priors(&tree);
        iterate(&mut tree, &p, Some(&Favours), 2_000);
        check_priors(&tree);
        // Turning PUCT off forgets the tree and its priors.
        tree.begin_search(&params(), &[], Some(&Favours), 1);
        assert!(!tree.with_priors());
        assert_eq!(tree.root().visits(), 0);
    }

    #[test]
    fn compaction_keeps_the_subtree() {
        let p = params();
        let mut tree = Tree::new(1_000_000, Position::startpos()).unwrap();
        iterate(&mut tree, &p, None, 20_000);
        let best = best_child(&tree, 0, |_| true).unwrap();
        let mv = tree.node(best).mv();
        let visits = tree.node(best).visits();
        let pv_before = tree.pv_from(best, 10);
        let mut pos = Position::startpos();
        pos.play(mv);
        assert!(tree.advance(&pos));
        assert_eq!(tree.root().visits(), visits);
        assert_eq!(tree.pv_from(0, 10), pv_before);
        let sum: u32 = tree.root().children().map(|c| tree.node(c).visits()).sum();
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

    /// Recycling keeps the root's children as they were, in order, the
    /// families of the most visited nodes with their priors, and every
    /// kept node's statistics and proof; it frees at least half the tree.
    #[test]
    fn recycling_keeps_the_most_visited_families() {
        let p = Params {
            policy: 1.0,
            ..params()
        };
        let mut tree = Tree::new(60_000, Position::startpos()).unwrap();
        tree.set_unit(EVAL_UNIT);
        iterate(&mut tree, &p, Some(&Favours), 20_000);
        assert!(tree.is_full());
        let root_before: Vec<_> = tree
            .root()
            .children()
            .map(|c| (tree.node(c).mv(), tree.node(c).stats(), tree.prior(c)))
            .collect();
        // Every node by its line of moves from the root, with what it held.
        fn walk(tree: &Tree<Position>) -> Vec<(Vec<u8>, (u32, u64), usize)> {
            let mut out = Vec::new();
            let mut stack = vec![(0usize, Vec::new())];
            while let Some((i, line)) = stack.pop() {
                let node = tree.node(i);
                out.push((line.clone(), node.stats(), node.num_children()));
                for c in node.children() {
                    let mut l = line.clone();
                    l.push(tree.node(c).mv().index());
                    stack.push((c, l));
                }
            }
            out.sort();
            out
        }
        let before = walk(&tree);
        let freed = tree.recycle();
        assert!(!tree.is_full());
        assert_eq!(tree.recycled(), 1);
        assert!(tree.len() <= tree.capacity() / 2 + 1, "{}", tree.len());
        assert!(freed >= tree.capacity() / 2 - 100, "{freed}");
        let root_after: Vec<_> = tree
            .root()
            .children()
            .map(|c| (tree.node(c).mv(), tree.node(c).stats(), tree.prior(c)))
            .collect();
        assert_eq!(root_after, root_before);
        check_priors(&tree);
        let after = walk(&tree);
        // Every node kept is one that was there, with the same statistics;
        // a family dropped goes whole, and only from nodes visited less
        // than any node that kept its family.
        let old: std::collections::HashMap<_, _> = before
            .iter()
            .map(|(l, s, n)| (l.clone(), (*s, *n)))
            .collect();
        let mut least_kept = u32::MAX;
        let mut most_dropped = 0;
        for (line, stats, n) in &after {
            let (old_stats, old_n) = old[line];
            assert_eq!(*stats, old_stats);
            assert!(*n == old_n || *n == 0);
            if line.is_empty() {
                continue;
            }
            if *n > 0 {
                least_kept = least_kept.min(stats.0);
            } else if old_n > 0 {
                most_dropped = most_dropped.max(stats.0);
            }
        }
        assert!(most_dropped > 0, "some families were dropped");
        assert!(most_dropped <= least_kept, "{most_dropped} > {least_kept}");
        // The search goes on in the recycled tree.
        let visits = tree.root().visits();
        iterate(&mut tree, &p, Some(&Favours), 5_000);
        assert_eq!(tree.root().visits(), visits + 5_000);
        check_priors_and(&tree, false);
    }

    /// Children below their parent (as another thread's block leaves
    /// them) survive compaction, the new root at 0.
    #[test]
    fn compaction_keeps_children_that_lie_below_their_parent() {
        let p = params();
        let mut tree = Tree::new(10_000, Position::startpos()).unwrap();
        tree.begin_search(&p, &[], None, 1);
        let root_pos = Position::startpos();
        // Expand root child 0 with its children placed high, then its first
        // child's with their children placed low (a gap left before).
        let c0 = tree.root().children().start;
        let mut pos0 = root_pos;
        pos0.play(tree.node(c0).mv());
        let mut high = Cursor {
            next: 5_000,
            end: 6_000,
        };
        assert_eq!(
            tree.expand(c0, &pos0, &p, &mut high, None),
            Expansion::Created(None)
        );
        let g0 = tree.node(c0).children().start;
        assert_eq!(g0, 5_000);
        let mut pos1 = pos0;
        pos1.play(tree.node(g0).mv());
        let mut low = Cursor {
            next: 200,
            end: 1_000,
        };
        tree.len.0.store(6_000, Ordering::Relaxed);
        assert_eq!(
            tree.expand(g0, &pos1, &p, &mut low, None),
            Expansion::Created(None)
        );
        let grand = tree.node(g0).children();
        assert_eq!(grand.start, 200);
        let moves: Vec<_> = grand.clone().map(|c| tree.node(c).mv()).collect();
        tree.node(grand.start).add(3, 4);
        let kids = tree.node(c0).num_children();
        assert!(tree.advance(&pos0));
        assert_eq!(tree.len(), 1 + kids + moves.len());
        let kids = tree.root().children();
        assert_eq!(
            kids.start,
            1 + moves.len(),
            "the low grandchildren came first"
        );
        let g = tree.node(kids.start).children();
        assert_eq!(g.start, 1);
        let got: Vec<_> = g.clone().map(|c| tree.node(c).mv()).collect();
        assert_eq!(got, moves);
        assert_eq!(tree.node(g.start).stats(), (3, 4));
    }

    /// Two blocks of one thread that follow each other leave no gap; a
    /// full tree refuses what does not fit.
    #[test]
    fn blocks_extend_and_fill() {
        let mut tree = Tree::new(1_000, Position::startpos()).unwrap();
        tree.block = 100;
        let mut cursor = tree.cursor();
        assert_eq!(tree.alloc(&mut cursor, 60), Some(1));
        assert_eq!(
            tree.alloc(&mut cursor, 60),
            Some(61),
            "the next block extends it"
        );
        assert_eq!(tree.len(), 201);
        let mut other = tree.cursor();
        assert_eq!(tree.alloc(&mut other, 10), Some(201));
        // The first cursor's block no longer ends at the top: a new block.
        assert_eq!(tree.alloc(&mut cursor, 90), Some(301));
        assert_eq!(tree.alloc(&mut cursor, 2_000), None);
        assert_eq!(tree.alloc(&mut other, 90), Some(211), "its own block still");
    }
}
