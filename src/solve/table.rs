//! The transposition table: buckets of four entries in one block reserved
//! at the start within the hash budget, never grown. A bucket is two cache
//! lines; an entry keeps the full 64-bit key (a proof must not rest on a
//! collision of a shorter check), and a new entry replaces the bucket's
//! entry with the least work: the subtrees that cost most to rebuild stay.
//!
//! Threads share the table without locks (Hyatt and Mann's lockless
//! hashing): an entry is three 64-bit words written one by one, the first
//! holding the key XORed with the other two, so that a reader that sees
//! words from two different writes finds a key that is not its own and
//! takes the entry for missing. Alone, a thread pays nothing for it:
//! relaxed atomic loads and stores are plain moves.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Proof and disproof numbers: `INF` marks a solved node (a proof number of
/// 0 and a disproof number of `INF`, or the other way round); unsolved
/// numbers stay below it.
pub(super) const INF: u32 = u32::MAX;

/// The most an unsolved proof or disproof number can be.
pub(super) const MAX_UNSOLVED: u32 = INF - 1;

/// A distance that is not known (a position proven by
/// [`Game::may_win`](crate::game::Game::may_win), with no line to the end).
pub(super) const NO_DIST: u16 = u16::MAX;

/// No move recorded.
pub(super) const NO_MOVE: u16 = u16::MAX;

/// What the search knows of one position and question.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry {
    /// The position's and question's key; 0 with both numbers 0 is an
    /// empty slot.
    pub key: u64,
    /// Proof number: 0 once the side to move is proven to reach the goal.
    pub pn: u32,
    /// Disproof number: 0 once it is proven not to.
    pub dn: u32,
    /// Nodes searched below this position, all visits together (saturates).
    pub work: u32,
    /// The index in the legal moves of the proving move (proven), the
    /// longest-resisting move (disproven), or the last move searched.
    pub best: u16,
    /// Plies to the end of the game along the proof, once solved, if known.
    pub dist: u16,
}

impl Entry {
    /// A fresh entry for `key` with the numbers `pn` and `dn`.
    pub fn new(key: u64, pn: u32, dn: u32) -> Entry {
        Entry {
            key,
            pn,
            dn,
            work: 0,
            best: NO_MOVE,
            dist: NO_DIST,
        }
    }

    /// Whether the question is answered either way.
    pub fn solved(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }

    fn is_empty(&self) -> bool {
        self.pn == 0 && self.dn == 0
    }

    /// The two data words.
    #[inline(always)]
    fn data(&self) -> [u64; 2] {
        [
            self.pn as u64 | (self.dn as u64) << 32,
            self.work as u64 | (self.best as u64) << 32 | (self.dist as u64) << 48,
        ]
    }

    /// The entry of `key` with the data words `d`.
    #[inline(always)]
    fn from_data(key: u64, d: [u64; 2]) -> Entry {
        Entry {
            key,
            pn: d[0] as u32,
            dn: (d[0] >> 32) as u32,
            work: d[1] as u32,
            best: (d[1] >> 32) as u16,
            dist: (d[1] >> 48) as u16,
        }
    }
}

/// An entry as the table holds it: the key XORed with the data words, then
/// the data words; all zero when empty.
#[derive(Default)]
struct Slot([AtomicU64; 3]);

impl Slot {
    /// The entry, if the slot holds a whole one (not empty, not torn).
    #[inline(always)]
    fn load(&self) -> Option<Entry> {
        let r = Ordering::Relaxed;
        let (check, d0, d1) = (self.0[0].load(r), self.0[1].load(r), self.0[2].load(r));
        let e = Entry::from_data(check ^ d0 ^ d1, [d0, d1]);
        (!e.is_empty()).then_some(e)
    }

    #[inline(always)]
    fn store(&self, e: &Entry) {
        let r = Ordering::Relaxed;
        let [d0, d1] = e.data();
        self.0[0].store(e.key ^ d0 ^ d1, r);
        self.0[1].store(d0, r);
        self.0[2].store(d1, r);
    }

    fn clear(&self) {
        for w in &self.0 {
            w.store(0, Ordering::Relaxed);
        }
    }
}

/// Entries per bucket.
const WAYS: usize = 4;

#[derive(Default)]
#[repr(C, align(32))]
struct Bucket([Slot; WAYS]);

/// The bytes one bucket takes.
pub(super) const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();

/// The transposition table.
pub(super) struct Table {
    buckets: Vec<Bucket>,
}

/// Why a table cannot be made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct AllocError;

impl Table {
    /// A table of at most `bytes` bytes (at least one bucket).
    pub fn with_bytes(bytes: usize) -> Result<Table, AllocError> {
        let n = (bytes / BUCKET_BYTES).max(1);
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets.try_reserve_exact(n).map_err(|_| AllocError)?;
        huge_pages(buckets.as_ptr().cast(), n * BUCKET_BYTES);
        buckets.resize_with(n, Bucket::default);
        Ok(Table { buckets })
    }

    /// The bytes the table holds (its reserved capacity).
    pub fn bytes(&self) -> usize {
        self.buckets.capacity() * BUCKET_BYTES
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        for b in &self.buckets {
            for slot in &b.0 {
                slot.clear();
            }
        }
    }

    #[inline(always)]
    fn bucket_index(&self, key: u64) -> usize {
        // Multiply-shift: the key's high bits pick the bucket, for any
        // number of buckets.
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Starts loading the bucket of `key` into the cache, so that the
    /// [`Table::get`] that follows does not wait for memory: a node looks
    /// up all its children, and their buckets load at once.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = &self.buckets[self.bucket_index(key)];
            // SAFETY: SSE is part of x86-64; a prefetch reads nothing and
            // cannot fault, and the pointer is to a bucket of the table
            // anyway. Both of its cache lines are asked for.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(bucket.cast());
                _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>().add(64));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry of `key`, if the table holds it.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let bucket = &self.buckets[self.bucket_index(key)];
        bucket
            .0
            .iter()
            .filter_map(Slot::load)
            .find(|e| e.key == key)
    }

    /// Stores `entry`, over the entry of the same key if there is one, else
    /// over the bucket's entry with the least work (an empty one first).
    #[inline]
    pub fn put(&self, entry: Entry) {
        debug_assert!(!entry.is_empty());
        let bucket = &self.buckets[self.bucket_index(entry.key)].0;
        let mut slot = 0;
        let mut least = u64::MAX;
        for (k, s) in bucket.iter().enumerate() {
            let work = match s.load() {
                Some(e) if e.key == entry.key => {
                    slot = k;
                    break;
                }
                Some(e) => 1 + e.work as u64,
                None => 0,
            };
            if work < least {
                least = work;
                slot = k;
            }
        }
        bucket[slot].store(&entry);
    }

    /// Permille of the first thousand entries in use (as chess engines
    /// report `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.iter().flat_map(|b| b.0.iter()).take(1000);
        let (mut used, mut seen) = (0, 0);
        for slot in sample {
            seen += 1;
            used += slot.load().is_some() as u32;
        }
        used * 1000 / seen.max(1)
    }
}

/// Asks the kernel to back `len` bytes from `ptr` (not yet touched) with
/// huge pages where it can: the table is read at random, and with 4 KiB
/// pages nearly every look-up also misses the TLB.
#[cfg(target_os = "linux")]
fn huge_pages(ptr: *const u8, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside the allocation that `ptr` starts;
        // the advice only changes how the kernel backs those pages, never
        // their contents or validity. A refusal (no transparent huge
        // pages) changes nothing.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_: *const u8, _: usize) {}

/// The key of a position and question: a 64-bit hash of the whole position
/// (everything its future depends on, so that no two positions with
/// different futures share an entry but by a 64-bit collision) and the
/// question's goal.
#[inline]
pub(super) fn key<G: Hash>(pos: &G, goal: u8) -> u64 {
    let mut h = fxhash::FxHasher64::default();
    pos.hash(&mut h);
    mix(h.finish() ^ (goal as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// A 64-bit finaliser (MurmurHash3's): every input bit moves every output
/// bit, so the high bits that pick a bucket are as good as the rest.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_and_bucket_sizes() {
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(BUCKET_BYTES, 96);
    }

    #[test]
    fn stays_within_its_bytes() {
        for bytes in [1, 95, 96, 1000, 1 << 20, (1 << 20) + 50] {
            let t = Table::with_bytes(bytes).unwrap();
            assert!(
                t.bytes() <= bytes.max(BUCKET_BYTES),
                "{bytes}: {}",
                t.bytes()
            );
            assert!(t.bytes() + BUCKET_BYTES > bytes, "{bytes}: {}", t.bytes());
        }
    }

    #[test]
    fn replaces_least_work() {
        let t = Table::with_bytes(BUCKET_BYTES).unwrap();
        for k in 1..=4u64 {
            let mut e = Entry::new(k, 1, 1);
            e.work = 10 * k as u32;
            t.put(e);
        }
        for k in 1..=4 {
            assert!(t.get(k).is_some());
        }
        let mut e = Entry::new(5, 2, 3);
        e.work = 1;
        t.put(e);
        assert_eq!(t.get(1), None, "the least work goes");
        assert_eq!(t.get(5).map(|e| (e.pn, e.dn)), Some((2, 3)));
        // The same key is overwritten in place.
        let mut e = Entry::new(4, 0, INF);
        e.work = 0;
        t.put(e);
        assert_eq!(t.get(4).map(|e| e.pn), Some(0));
        assert!(t.get(2).is_some() && t.get(3).is_some() && t.get(5).is_some());
        let mut t = t;
        t.clear();
        assert_eq!(t.get(4), None);
    }

    #[test]
    fn a_torn_entry_reads_as_missing() {
        let t = Table::with_bytes(BUCKET_BYTES).unwrap();
        let mut e = Entry::new(77, 5, 6);
        e.work = 9;
        t.put(e);
        assert_eq!(t.get(77), Some(e));
        // Half of another write to the same slot: the key no longer checks.
        let [d0, _] = Entry::new(77, 1, 2).data();
        t.buckets[0].0[0].0[1].store(d0, Ordering::Relaxed);
        assert_eq!(t.get(77), None);
    }

    #[test]
    fn keys_of_different_positions_differ() {
        use crate::game::Player;
        use crate::rules::Position;
        use rand::SeedableRng;
        use std::collections::hash_map::Entry as Seen;
        // Every position along 3,000 random games, both goals: two keys
        // are equal only for positions the key does not tell apart (the
        // same marks, side, board to play and status), and the buckets
        // the distinct keys pick are spread evenly.
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(5);
        let mut seen = std::collections::HashMap::new();
        let table = Table::with_bytes(64 * BUCKET_BYTES).unwrap();
        let mut per_bucket = [0u32; 64];
        for _ in 0..3000 {
            let mut pos = Position::startpos();
            loop {
                let what = (
                    pos.marks(Player::X),
                    pos.marks(Player::O),
                    pos.side_to_move(),
                    pos.target_board(),
                    pos.outcome(),
                );
                for goal in [1, 2] {
                    let k = key(&pos, goal);
                    match seen.entry(k) {
                        Seen::Occupied(e) => assert_eq!(*e.get(), (what, goal)),
                        Seen::Vacant(e) => {
                            e.insert((what, goal));
                            per_bucket[table.bucket_index(k)] += 1;
                        }
                    }
                }
                if !pos.random_step(&mut rng) {
                    break;
                }
            }
        }
        let all: u32 = per_bucket.iter().sum();
        for n in per_bucket {
            assert!((n as f64 - all as f64 / 64.0).abs() < all as f64 / 64.0 * 0.1);
        }
    }
}
