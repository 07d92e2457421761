//! The net's speed on one core: evaluations per second from scratch, with
//! the policy's priors of the legal moves (what the search does at a leaf)
//! and without, incremental updates of the accumulator along a game, and
//! search iterations per second with the net (the engine's `Eval net`
//! settings: PUCT; and UCT with the value alone).
//! Run: `cargo bench --bench nnue`.

use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use ultimo::engine::{Eval, Setup};
use ultimo::net::features::{Accumulator, Planes};
use ultimo::net::{Kernels, Net};
use ultimo::rules::Position;
use ultimo::search::{Control, Evaluator, Limits, Options, Searcher};

/// Positions of random games (not over), with the games' move sequences.
fn games(n: usize) -> Vec<Vec<Position>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    (0..n)
        .map(|_| {
            let mut pos = Position::startpos();
            let mut game = Vec::new();
            while let Some(m) = pos.random_move(&mut rng) {
                pos.play(m);
                if pos.is_over() {
                    break;
                }
                game.push(pos);
            }
            game
        })
        .collect()
}

fn bench_eval(c: &mut Criterion) {
    let net = Net::builtin();
    let games = games(20);
    let positions: Vec<Position> = games.iter().flatten().copied().collect();
    let mut g = c.benchmark_group("nnue");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("evaluate from scratch", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| net.evaluate(std::hint::black_box(p)))
                .sum::<f32>()
        })
    });
    let moves: Vec<Vec<ultimo::rules::Move>> = positions
        .iter()
        .map(|p| p.legal_moves().iter().copied().collect())
        .collect();
    g.bench_function("evaluate with priors", |b| {
        let mut priors = [0f32; 81];
        b.iter(|| {
            positions
                .iter()
                .zip(&moves)
                .map(|(p, m)| {
                    net.evaluate_with_priors(std::hint::black_box(p), m, &mut priors, 1.0)
                })
                .sum::<f32>()
        })
    });
    let planes: Vec<Planes> = positions.iter().map(Planes::from_position).collect();
    g.bench_function("incremental update and output", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for game in &games {
                let mut acc = Accumulator::new(net, &Planes::from_position(&Position::startpos()));
                for p in game {
                    let planes = Planes::from_position(p);
                    acc.update(net, &planes);
                    sum += net.value(&acc, &planes);
                }
            }
            sum
        })
    });
    g.bench_function("output layers only", |b| {
        let accs: Vec<Accumulator> = planes.iter().map(|p| Accumulator::new(net, p)).collect();
        b.iter(|| {
            accs.iter()
                .zip(&planes)
                .map(|(a, p)| net.value(std::hint::black_box(a), p))
                .sum::<f32>()
        })
    });
    g.finish();

    const NODES: u64 = 100_000;
    let mut g = c.benchmark_group("search with the net");
    g.sample_size(10);
    g.throughput(Throughput::Elements(NODES));
    let limits = Limits {
        nodes: Some(NODES),
        ..Limits::default()
    };
    let control = Control::new();
    let engine = |policy: bool| {
        let mut setup = Setup::new(
            Options {
                hash_mb: 256,
                ..Options::default()
            },
            Eval::Net,
        );
        if !policy {
            setup.net.policy = 0.0;
        }
        setup.search_options(true)
    };
    for (name, policy) in [("PUCT", true), ("UCT, value only", false)] {
        let mut searcher = Searcher::new(engine(policy), Position::startpos()).unwrap();
        searcher.set_evaluator(Some(Arc::new(net.clone()) as Arc<dyn Evaluator<Position>>));
        g.bench_function(
            format!("{name}: startpos {NODES} iterations, 1 thread"),
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

/// The whole evaluation with priors (what a leaf costs) with each set of
/// kernels the processor runs, side by side in one run: plain, AVX2/FMA
/// and AVX-512 where it has them.
fn bench_kernels(c: &mut Criterion) {
    let net = Net::builtin();
    let positions: Vec<Position> = games(20).into_iter().flatten().collect();
    let inputs: Vec<(Planes, Vec<u8>)> = positions
        .iter()
        .map(|p| {
            let cells = p.legal_moves().iter().map(|m| m.index()).collect();
            (Planes::from_position(p), cells)
        })
        .collect();
    let mut g = c.benchmark_group("nnue kernels");
    g.throughput(Throughput::Elements(inputs.len() as u64));
    for kernels in Kernels::supported() {
        g.bench_function(format!("evaluate with priors, {}", kernels.name()), |b| {
            let mut priors = [0f32; 81];
            b.iter(|| {
                inputs
                    .iter()
                    .map(|(planes, cells)| {
                        net.evaluate_with_policy_using(
                            kernels,
                            std::hint::black_box(planes),
                            cells,
                            &mut priors[..cells.len()],
                            1.0,
                        )
                    })
                    .sum::<f32>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_eval, bench_kernels);
criterion_main!(benches);
