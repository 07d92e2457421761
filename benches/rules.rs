//! Speed of the rules: perft from the start, uniform random playouts and
//! winning-move playouts from the start. Run: `cargo bench --bench rules`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::hint::black_box;
use ultimo::rules::{Position, perft};

fn bench_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    let depth = 6;
    g.throughput(Throughput::Elements(perft(&Position::startpos(), depth)));
    g.bench_function("startpos depth 6", |b| {
        b.iter(|| perft(black_box(&Position::startpos()), depth))
    });
    g.finish();
}

fn bench_playouts(c: &mut Criterion) {
    const BATCH: u64 = 1_000;
    let mut g = c.benchmark_group("playouts");
    g.throughput(Throughput::Elements(BATCH));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    g.bench_function("uniform random from startpos", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(black_box(Position::startpos()).random_playout(&mut rng));
            }
        })
    });
    g.bench_function("winning-move from startpos", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(black_box(Position::startpos()).winning_playout(&mut rng));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_perft, bench_playouts);
criterion_main!(benches);
