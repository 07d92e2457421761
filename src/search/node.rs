//! A node of the tree that every search thread shares: every field an
//! atomic, so that nodes need no `unsafe`; its move and child count are
//! written once, before any other thread can reach the node.
//!
//! A node is 16 bytes for a game with one-byte moves and a `u8` child count
//! (Ultimate Tic-Tac-Toe): visits and score in one 64-bit word, so that one
//! atomic add updates both and a thread always reads a matching pair
//! ([`VISIT_BITS`] of visits, the rest score); the
//! first child's index; the proof and its distance in one 16-bit word, set
//! once by compare-and-swap; the move and the child count.
//!
//! # Publication
//!
//! A thread creates a node's children in slots that the allocator gave it
//! alone, writes each child's move, the parent's child count and the
//! children's priors, and only then stores the first child's index with
//! `Release`. Every other thread finds the children through that index,
//! loaded with `Acquire`, so it sees them complete; the move and the count
//! are never written again while a search runs (compaction and reset take
//! the tree by `&mut`). The move and the count are Relaxed atomics (one
//! byte each in Ultimate Tic-Tac-Toe, where a Relaxed load is a plain
//! load): the `Release` store and the `Acquire` load of the link order
//! them. [`super::tree::Tree`] keeps that invariant: indices come only from
//! published links, or from the root.

use std::alloc::Layout;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};

use crate::game::{AtomicWord, ChildCount, Packed, Verdict};

/// `first_child` while a thread creates the node's children.
pub(crate) const EXPANDING: u32 = u32::MAX;

/// The low bits of the stats word that count visits; the 35 above them
/// hold the score. A score needs 7 bits more than the count (128 units a
/// visit for a win with an evaluator), so an even split of the word (32
/// and 32) made a long analysis halve its statistics at 16.7 million root
/// visits, about every 40 seconds on one core, and each halving made the
/// search as broad again as at that count: its tree stopped deepening.
/// With 29 and 35 bits they hold 268 million visits with an evaluator.
pub(crate) const VISIT_BITS: u32 = 29;

/// The visits of a stats word.
const VISIT_MASK: u64 = (1 << VISIT_BITS) - 1;

/// One node; see the module docs.
#[repr(C)]
pub(crate) struct Node<M: Packed, C: Packed> {
    /// Visits (low [`VISIT_BITS`] bits) and score (the bits above them):
    /// half-points won by
    /// the player who moved into this node, in the tree's score units (a
    /// win scores two units a visit, a draw one). Visits include other
    /// threads' virtual visits while they are under way.
    stats: AtomicU64,
    /// Index of the first child; 0 while the node has none (the root,
    /// index 0, is nobody's child), [`EXPANDING`] while a thread creates
    /// them.
    first_child: AtomicU32,
    /// The proof for the player who moved here (low byte, see
    /// [`encode`]) and, for a proven node, the plies from its position to
    /// the game's end under best play (high byte); 0 while unproven.
    proof: AtomicU16,
    /// The move that leads here, written when the node is created.
    mv: M::Word,
    /// The number of children, written just before they are published.
    count: C::Word,
}

/// The low byte of [`Node::proof`] for a proven loss...
pub(crate) const LOSS: u8 = 2;
/// ...and for a proven draw.
pub(crate) const DRAW: u8 = 3;

/// A proof as the low byte of [`Node::proof`].
fn encode(proof: Verdict) -> u16 {
    match proof {
        Verdict::Win => 1,
        Verdict::Loss => LOSS as u16,
        Verdict::Draw => DRAW as u16,
    }
}

/// The proof the low byte `code` stands for.
#[inline(always)]
pub(crate) fn decode(code: u16) -> Option<Verdict> {
    match code & 0xff {
        1 => Some(Verdict::Win),
        2 => Some(Verdict::Loss),
        3 => Some(Verdict::Draw),
        _ => None,
    }
}

/// Visits and score to add (either may be negative) as one wrapping
/// addend of the stats word.
#[inline(always)]
fn delta(visits: i32, score: i64) -> u64 {
    (score << VISIT_BITS).wrapping_add(visits as i64) as u64
}

/// A visit count and score as one stats word.
#[inline(always)]
fn pack(visits: u32, score: u64) -> u64 {
    debug_assert!(u64::from(visits) <= VISIT_MASK && score < 1 << (64 - VISIT_BITS));
    score << VISIT_BITS | u64::from(visits)
}

impl<M: Packed, C: ChildCount> Node<M, C> {
    /// Makes the node a fresh leaf reached by `mv`. No other thread may
    /// read the node meanwhile: it was just given to this thread by the
    /// allocator and is not linked yet (or the tree is held by `&mut`).
    #[inline(always)]
    pub fn init(&self, mv: M) {
        let r = Ordering::Relaxed;
        self.stats.store(0, r);
        self.first_child.store(0, r);
        self.proof.store(0, r);
        self.mv.set(mv.pack());
    }

    /// Visits and score, read together.
    #[inline(always)]
    pub fn stats(&self) -> (u32, u64) {
        let s = self.stats.load(Ordering::Relaxed);
        ((s & VISIT_MASK) as u32, s >> VISIT_BITS)
    }

    /// Visits.
    #[inline(always)]
    pub fn visits(&self) -> u32 {
        self.stats().0
    }

    /// Score, in the tree's units.
    #[inline(always)]
    pub fn score(&self) -> u64 {
        self.stats().1
    }

    /// Adds `visits` and `score` (either may be negative as long as the
    /// totals stay in range: a virtual visit taken back) in one atomic add.
    #[inline(always)]
    pub fn add(&self, visits: i32, score: i64) {
        self.stats
            .fetch_add(delta(visits, score), Ordering::Relaxed);
    }

    /// [`Node::add`] for a thread that searches alone: a load and a store,
    /// where a locked add would cost about 7% of a playout search's speed.
    #[inline(always)]
    pub fn add_alone(&self, visits: i32, score: i64) {
        let s = self.stats.load(Ordering::Relaxed);
        self.stats
            .store(s.wrapping_add(delta(visits, score)), Ordering::Relaxed);
    }

    /// Sets visits and score (with no other thread searching).
    pub fn set_stats(&self, visits: u32, score: u64) {
        self.stats.store(pack(visits, score), Ordering::Relaxed);
    }

    /// The raw first-child word: 0, [`EXPANDING`] or an index.
    #[inline(always)]
    pub fn first_child(&self) -> u32 {
        self.first_child.load(Ordering::Acquire)
    }

    /// Whether the node's children are published.
    #[inline(always)]
    pub fn is_expanded(&self) -> bool {
        let f = self.first_child();
        f != 0 && f != EXPANDING
    }

    /// The children's index range (empty while there are none).
    #[inline(always)]
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child();
        if first == 0 || first == EXPANDING {
            return 0..0;
        }
        // `first` was loaded with `Acquire` and is published, so the count
        // was written before it and is not written again (module docs).
        let n = C::unpack(self.count.get()).to_usize();
        first as usize..first as usize + n
    }

    /// The child count (0 while there are no children).
    pub fn num_children(&self) -> usize {
        self.children().len()
    }

    /// The move that leads here.
    #[inline(always)]
    pub fn mv(&self) -> M {
        // Every node a thread can reach was created with its move (`init`)
        // before it was published (module docs).
        M::unpack(self.mv.get())
    }

    /// Tries to become the thread that expands the node: `Ok` when it
    /// does, else the current first-child word.
    #[inline]
    pub fn lock(&self) -> Result<(), u32> {
        self.first_child
            .compare_exchange(0, EXPANDING, Ordering::Acquire, Ordering::Acquire)
            .map(|_| ())
    }

    /// Gives up the expansion begun by [`Node::lock`] without children.
    pub fn unlock(&self) {
        self.first_child.store(0, Ordering::Release);
    }

    /// Publishes `count` children from index `first`, ending the
    /// expansion begun by [`Node::lock`]: the caller holds the node's lock
    /// and has created the children (with [`Node::init`]) in
    /// `first..first + count`.
    pub fn publish(&self, first: u32, count: usize) {
        // No other thread reads the count before the store below makes the
        // children visible, and none writes it (the caller holds the lock).
        self.count.set(C::from_usize(count).pack());
        self.first_child.store(first, Ordering::Release);
    }

    /// The proof and its distance, if proven.
    #[inline(always)]
    pub fn proof(&self) -> Option<(Verdict, u8)> {
        let p = self.proof.load(Ordering::SeqCst);
        decode(p).map(|v| (v, (p >> 8) as u8))
    }

    /// The proof's code (0, or [`LOSS`], [`DRAW`] or a win's), for
    /// selection, which needs no ordering with other nodes' proofs.
    #[inline(always)]
    pub fn proof_code(&self) -> u8 {
        self.proof.load(Ordering::Relaxed) as u8
    }

    /// The proof alone.
    #[inline(always)]
    pub fn verdict(&self) -> Option<Verdict> {
        decode(self.proof.load(Ordering::SeqCst))
    }

    /// Proves the node, unless it is proven already: returns whether this
    /// call did. Sequentially consistent, like [`Node::proof`]: of two
    /// threads that prove two children of one node and then look at the
    /// siblings, at least one sees both proofs, so a parent whose children
    /// are all proven is always proven in turn.
    #[inline]
    pub fn prove(&self, verdict: Verdict, dist: u8) -> bool {
        let p = encode(verdict) | (dist as u16) << 8;
        self.proof
            .compare_exchange(0, p, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Forgets the proof (with no other thread searching).
    pub fn unprove(&self) {
        self.proof.store(0, Ordering::SeqCst);
    }

    /// A copy of `other` with its first child at `first_child`, written
    /// over this node (compaction, with the tree held by `&mut`).
    pub fn copy_from(&mut self, other: &mut Self, first_child: u32) {
        *self.stats.get_mut() = *other.stats.get_mut();
        *self.first_child.get_mut() = first_child;
        *self.proof.get_mut() = *other.proof.get_mut();
        self.mv.set(other.mv.get());
        self.count.set(other.count.get());
    }

    /// A copy of the node's fields, for moving it (compaction).
    pub fn snapshot(&mut self) -> Self {
        Node {
            stats: AtomicU64::new(*self.stats.get_mut()),
            first_child: AtomicU32::new(*self.first_child.get_mut()),
            proof: AtomicU16::new(*self.proof.get_mut()),
            mv: M::Word::new(self.mv.get()),
            count: C::Word::new(self.count.get()),
        }
    }

    /// Sets the first-child word (with the tree held by `&mut`).
    pub fn set_first_child(&mut self, first: u32) {
        *self.first_child.get_mut() = first;
    }

    /// The first-child word (with the tree held by `&mut`).
    pub fn first_child_mut(&mut self) -> &mut u32 {
        self.first_child.get_mut()
    }
}

/// A value on cache lines of its own (128 bytes: two lines, as adjacent
/// lines are fetched in pairs), so that the threads that write it do not
/// slow down those that read its neighbours.
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Padded<T>(pub T);

/// Types whose all-zero bytes are a valid value.
///
/// # Safety
///
/// Implement only for such types.
pub(crate) unsafe trait Zeroed {}

// SAFETY: every field is an atomic integer, of which zero is a value.
unsafe impl<M: Packed, C: Packed> Zeroed for Node<M, C> {}
// SAFETY: an atomic integer of zero.
unsafe impl Zeroed for AtomicU32 {}

/// `n` zeroed values, or `None` when the memory cannot be had. The memory
/// is requested zeroed from the system, which hands out fresh pages of
/// zeros as they are first written: a large tree takes memory as it
/// grows, not all at once (the hash size is a bound, not a cost).
pub(crate) fn zeroed<T: Zeroed>(n: usize) -> Option<Box<[T]>> {
    let layout = Layout::array::<T>(n).ok()?;
    if layout.size() == 0 {
        return Some(Box::new([]));
    }
    // SAFETY: the layout's size is not zero.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` is a fresh allocation by the global allocator with the
    // layout of `[T; n]`, the one a `Box<[T]>` of `n` values frees with, and
    // all-zero bytes are `n` valid values (`Zeroed`).
    Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Node<crate::rules::Move, u8>>(), 16);
    }

    #[test]
    fn stats_take_virtual_visits_back() {
        let nodes = zeroed::<Node<u8, u8>>(2).unwrap();
        let n = &nodes[1];
        n.init(7);
        n.add(1, 2);
        // Three virtual losses, then the visit's result (a win, 2 units).
        n.add(3, 0);
        assert_eq!(n.stats(), (4, 2));
        n.add(1 - 3, 2);
        assert_eq!(n.stats(), (2, 4));
        // A virtual visit scored as a draw, taken back by a loss.
        n.add(1, 1);
        n.add(0, -1);
        assert_eq!(n.stats(), (3, 4));
        assert_eq!(n.mv(), 7);
        assert!(n.prove(Verdict::Loss, 3));
        assert!(!n.prove(Verdict::Win, 1), "a proof is set once");
        assert_eq!(n.proof(), Some((Verdict::Loss, 3)));
    }

    /// Scores past 32 bits, the visit count's field full and virtual
    /// visits taken back at those sizes: the fields never spill into each
    /// other.
    #[test]
    fn stats_hold_long_analyses() {
        let nodes = zeroed::<Node<u8, u8>>(1).unwrap();
        let n = &nodes[0];
        n.init(0);
        let visits = (1u32 << (VISIT_BITS - 2)) + 12_345;
        let score = 128 * u64::from(visits);
        assert!(score > u64::from(u32::MAX));
        n.set_stats(visits, score);
        assert_eq!(n.stats(), (visits, score));
        n.add(3, 0);
        n.add(-3, 128);
        assert_eq!(n.stats(), (visits, score + 128));
        n.set_stats(VISIT_MASK as u32, (1 << (64 - VISIT_BITS)) - 1);
        assert_eq!(n.stats(), (VISIT_MASK as u32, (1 << (64 - VISIT_BITS)) - 1));
        n.add(-1, -1);
        assert_eq!(
            n.stats(),
            (VISIT_MASK as u32 - 1, (1 << (64 - VISIT_BITS)) - 2)
        );
    }
}
