//! Speed of the rules of "Super 1 al 5": perft from the start, and uniform
//! random and capture-first playouts from the start.
//! Run: `cargo bench --bench super15`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::hint::black_box;
use ultimo::super15::{Position, perft};

fn bench_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("super15 perft");
    g.sample_size(10);
    for depth in [3, 4] {
        g.throughput(Throughput::Elements(perft(&Position::startpos(), depth)));
        g.bench_function(format!("startpos depth {depth}"), |b| {
            b.iter(|| perft(black_box(&Position::startpos()), depth))
        });
    }
    g.finish();
}

fn bench_playouts(c: &mut Criterion) {
    const BATCH: u64 = 100;
    let mut g = c.benchmark_group("super15 playouts");
    g.sample_size(10);
    g.throughput(Throughput::Elements(BATCH));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    g.bench_function("uniform random from startpos", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(black_box(Position::startpos()).random_playout(&mut rng));
            }
        })
    });
    g.bench_function("capture-first from startpos", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(black_box(Position::startpos()).capture_first_playout(&mut rng));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_perft, bench_playouts);
criterion_main!(benches);
