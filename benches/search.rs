//! Search speed: iterations per second from the start position, with one
//! and two threads; and the time from `stop` to the search's return, with
//! one, two and 64 threads (more than the cores). Run: `cargo bench --bench
//! search`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

criterion_group!(benches, bench_iterations, bench_stop);
criterion_main!(benches);
