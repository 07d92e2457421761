//! Search speed: iterations per second from the start position, with one
//! and two threads; with the net (its priors and values, one thread), from
//! the start and from a middle game, where the walk through a large tree
//! costs most; and the time from `stop` to the search's return, with one,
//! two and 64 threads (more than the cores). Run: `cargo bench --bench
//! search`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ultimo::cli::bench;
use ultimo::engine::{Eval, Setup};
use ultimo::rules::Position;
use ultimo::search::{Control, Limits, Options, Searcher};

const NODES: u64 = 200_000;

fn searcher(threads: usize) -> Searcher<Position> {
    let options = Options {
        threads,
        hash_mb: 256,
        ..Options::default()
    };
    Searcher::new(options, Position::startpos()).unwrap()
}

fn bench_iterations(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(20);
    g.throughput(Throughput::Elements(NODES));
    for threads in [1, 2] {
        let mut searcher = searcher(threads);
        let control = Control::new();
        let limits = Limits {
            nodes: Some(NODES),
            ..Limits::default()
        };
        g.bench_function(
            format!("startpos {NODES} iterations, {threads} thread(s)"),
            |b| {
                b.iter(|| {
                    searcher.clear(Position::startpos());
                    searcher.search(&Position::startpos(), &limits, &[], &control, &mut |_| {})
                })
            },
        );
    }
    g.finish();
}

/// Iterations with the net in a fresh tree (of 256 MiB, as the engine's
/// default), as `ultimo bench --eval net` searches: without the leaf
/// solver, whose nodes are not iterations.
const NET_NODES: u64 = 300_000;

/// A middle game: the sixth of `ultimo bench`'s positions (move 17).
const MIDDLE_GAME: &str = bench::POSITIONS[5];

fn bench_net_iterations(c: &mut Criterion) {
    let setup = Setup::new(
        Options {
            hash_mb: 256,
            ..bench::options(1)
        },
        Eval::Net,
    );
    let net = setup
        .load_net::<Position>()
        .expect("the built-in net loads");
    let mut searcher = setup
        .searcher(net.as_ref(), Position::startpos())
        .expect("a 256 MiB tree");
    let mut g = c.benchmark_group("search with the net");
    g.sample_size(10);
    g.throughput(Throughput::Elements(NET_NODES));
    let middle: Position = MIDDLE_GAME.parse().expect("a legal position");
    for (name, pos) in [("startpos", Position::startpos()), ("middle game", middle)] {
        let control = Control::new();
        let limits = Limits {
            nodes: Some(NET_NODES),
            ..Limits::default()
        };
        g.bench_function(format!("{name} {NET_NODES} iterations"), |b| {
            b.iter(|| {
                searcher.clear(pos);
                searcher.search(&pos, &limits, &[], &control, &mut |_| {})
            })
        });
    }
    g.finish();
}

/// Searches for `run` on another thread, then stops the search: the time
/// from `stop` until the search returns.
fn stop_latency(searcher: &mut Searcher<Position>, run: Duration) -> Duration {
    let control = Arc::new(Control::new());
    control.reset(false);
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    std::thread::scope(|s| {
        let c = Arc::clone(&control);
        let handle = s.spawn(move || {
            searcher.search(&Position::startpos(), &limits, &[], &c, &mut |_| {});
            Instant::now()
        });
        std::thread::sleep(run);
        let stopped = Instant::now();
        control.stop();
        let returned = handle.join().expect("the search returns");
        returned.saturating_duration_since(stopped)
    })
}

fn bench_stop(c: &mut Criterion) {
    let mut g = c.benchmark_group("stop");
    g.sample_size(10);
    for threads in [1, 2, 64] {
        let mut searcher = searcher(threads);
        g.bench_function(format!("stop to return, {threads} thread(s)"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| stop_latency(&mut searcher, Duration::from_millis(20)))
                    .sum()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_iterations, bench_net_iterations, bench_stop);
criterion_main!(benches);
