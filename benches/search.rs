//! Search speed: iterations per second from the start position, with one
//! and two threads. Run: `cargo bench --bench search`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ultimo::rules::Position;
use ultimo::search::{Control, Limits, Options, Searcher};

const NODES: u64 = 200_000;

fn bench_iterations(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(20);
    g.throughput(Throughput::Elements(NODES));
    for threads in [1, 2] {
        let options = Options {
            threads,
            hash_mb: 256,
            ..Options::default()
        };
        let mut searcher = Searcher::new(options, Position::startpos()).unwrap();
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

criterion_group!(benches, bench_iterations);
criterion_main!(benches);
