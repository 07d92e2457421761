//! The Hash option bounds the search's memory: every byte the search
//! allocates is counted by a global allocator, and the peak stays within
//! the bound (plus a little for threads' and reports' small buffers).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use ultimo::rules::Position;
use ultimo::search::{Control, Limits, Options, Searcher};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, which we pass on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1024 * 1024;
/// The tests share the counters, so they run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// Allowance for what is not the tree: thread pools, reports, scratch.
const SLACK: usize = MIB / 2;

fn search(s: &mut Searcher<Position>, pos: &Position, nodes: u64) {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let report = s.search(pos, &limits, &[], &Control::new(), &mut |_| {});
    assert!(report.best_move().is_some());
}

#[test]
fn hash_bounds_all_allocations() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let baseline = CURRENT.load(Ordering::SeqCst);
    PEAK.store(baseline, Ordering::SeqCst);
    let hash_mb = 8;
    let options = Options {
        threads: 2,
        hash_mb,
        ..Options::default()
    };
    let mut s = Searcher::new(options.clone(), Position::startpos()).unwrap();
    // Enough iterations to fill the tree, then tree reuse along a game.
    let mut pos = Position::startpos();
    for _ in 0..6 {
        search(&mut s, &pos, 300_000);
        let peak = PEAK.load(Ordering::SeqCst) - baseline;
        assert!(peak <= hash_mb * MIB + SLACK, "peak {peak} bytes");
        let m = pos.legal_moves()[0];
        pos.play(m);
    }
    // Changing the size makes the new trees before freeing the old ones
    // (so that a failure keeps them), when the machine has room for both:
    // for that moment old and new are reserved together.
    let new_mb = 4;
    s.set_options(
        Options {
            hash_mb: new_mb,
            ..options
        },
        pos,
    )
    .unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - baseline;
    assert!(
        peak <= (hash_mb + new_mb) * MIB + SLACK,
        "peak {peak} bytes"
    );
    // From then on the new bound holds.
    PEAK.store(CURRENT.load(Ordering::SeqCst), Ordering::SeqCst);
    search(&mut s, &pos, 100_000);
    let peak = PEAK.load(Ordering::SeqCst) - baseline;
    assert!(peak <= new_mb * MIB + SLACK, "peak {peak} bytes");
}

/// With the net's priors (PUCT) each node takes 4 more bytes: the tree
/// holds fewer nodes, and the bound still holds.
#[test]
fn hash_bounds_allocations_with_priors() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The net (its f32 weights and their integers, 711 KB) is made before
    // the baseline: the bound is the tree's.
    let net: std::sync::Arc<dyn ultimo::search::Evaluator<Position>> =
        std::sync::Arc::new(ultimo::net::Net::builtin().clone());
    let baseline = CURRENT.load(Ordering::SeqCst);
    let hash_mb = 8;
    let mut options = Options {
        threads: 1,
        hash_mb,
        ..Options::default()
    };
    options.params.policy = 0.5;
    options.params.expand_visits = 1;
    let mut s = Searcher::new(options, Position::startpos()).unwrap();
    s.set_evaluator(Some(net));
    PEAK.store(CURRENT.load(Ordering::SeqCst), Ordering::SeqCst);
    let mut pos = Position::startpos();
    for _ in 0..4 {
        // 100,000 expansions fill the 8 MiB tree several times over.
        search(&mut s, &pos, 100_000);
        let peak = PEAK.load(Ordering::SeqCst) - baseline;
        assert!(peak <= hash_mb * MIB + SLACK, "peak {peak} bytes");
        let m = pos.legal_moves()[0];
        pos.play(m);
    }
}
