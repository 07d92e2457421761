//! The proof-number solver's speed: the search's leaf solver on leaves
//! near the end of middle games (its whole job in play, where it takes
//! most of a search's time from about ply 20), and `ultimo solve`'s long
//! search of one middle game. Run: `cargo bench --bench solve`.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use ultimo::game::Game;
use ultimo::notation::play_moves;
use ultimo::rules::Position;
use ultimo::search::{Control, LEAF_SOLVE, LEAF_SOLVE_NODES, LeafSolver};
use ultimo::solve::{Leaves, Limits, Options, Solver};

/// Ten middle games (ply 26) of Ultimo against itself at 100 ms a move.
const GAMES: [&str; 10] = [
    "f7 i1 h2 d5 a5 b6 e7 d2 c5 i5 g4 b3 d7 b2 f6 g8 b5 d6 c8 i4 h1 f2 h4 e1 e2 f5",
    "a5 a6 a9 c7 i1 h3 e9 e7 e1 d2 c5 i5 h4 f2 h6 f7 h1 e2 d4 a1 a3 c9 g9 a8 c6 g7",
    "e5 e6 d8 c6 i9 g8 b4 e1 e3 e9 f8 i5 h6 e8 d6 a9 c7 i1 g2 c5 h4 f1 h2 f5 g5 b6",
    "g4 b3 e8 d5 a5 b4 f2 g5 a4 b1 f3 i9 h7 f1 h3 f7 h2 d4 c2 i5 h4 e1 e3 d7 a2 a6",
    "h3 e9 d8 b5 e5 f4 g3 a8 b6 d9 c8 i5 g5 a5 c5 i6 i9 g7 a2 a6 c7 i3 g9 b9 f8 i4",
    "h2 f5 i5 i4 h3 e9 e7 d2 a5 b6 d7 a1 b3 d9 b7 f2 g5 b4 e2 f6 g9 a7 c3 g8 c5 h4",
    "g5 b4 f1 h2 f6 g8 a5 b6 e9 e7 e1 d1 a1 c3 h7 d3 a9 c7 h3 f7 g3 c8 i5 h5 f4 i2",
    "i8 h4 e2 d5 b4 d2 b6 d8 b5 d4 b3 f8 h6 e9 d7 c2 g6 c7 i1 h3 f7 h1 e1 d1 a3 c9",
    "e1 f2 i5 i6 i9 g8 a5 c4 i1 g2 c5 h6 e9 e7 f1 g3 a9 b7 d1 a2 b5 f6 i8 g6 c9 i7",
    "h5 d6 c8 i6 h7 e1 d3 b7 e3 e9 d7 a1 b3 f9 g7 b1 f3 i7 i1 g2 a5 c5 h6 d9 c7 g1",
];

/// Leaves for each game.
const LEAVES_A_GAME: usize = 30;

fn game(moves: &str) -> Position {
    play_moves(&Position::startpos(), moves.split(' ')).expect("the moves of a game")
}

/// Leaves like those the leaf solver meets: each game played on by random
/// moves (a fixed seed) until the search would give them to the leaf
/// solver (at most `SolveLeaves`' default, [`LEAF_SOLVE`], plies left),
/// the game still going on.
fn leaves() -> Vec<Position> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(26);
    let mut out = Vec::new();
    for moves in GAMES {
        let root = game(moves);
        let mut found = 0;
        while found < LEAVES_A_GAME {
            let mut pos = root;
            while pos.plies_left_bound() > LEAF_SOLVE && pos.play_random(&mut rng) {}
            if pos.outcome().is_none() {
                out.push(pos);
                found += 1;
            }
        }
    }
    out
}

fn bench_leaves(c: &mut Criterion) {
    let leaves = leaves();
    let mut g = c.benchmark_group("leaf solver");
    g.sample_size(10);
    g.throughput(Throughput::Elements(leaves.len() as u64));
    g.bench_function(
        format!(
            "{} leaves of middle games, {LEAF_SOLVE_NODES} nodes each",
            leaves.len()
        ),
        |b| {
            b.iter_batched_ref(
                Leaves::new,
                |solver| {
                    for pos in &leaves {
                        std::hint::black_box(solver.settle(pos, LEAF_SOLVE_NODES));
                    }
                },
                BatchSize::PerIteration,
            )
        },
    );
    g.finish();
}

/// Nodes of `ultimo solve`'s search of the first game.
const SOLVE_NODES: u64 = 1_000_000;

fn bench_solve(c: &mut Criterion) {
    let pos = game(GAMES[0]);
    let mut g = c.benchmark_group("solver");
    g.sample_size(10);
    g.throughput(Throughput::Elements(SOLVE_NODES));
    let options = Options {
        hash_mb: 64,
        ..Options::default()
    };
    let limits = Limits {
        nodes: Some(SOLVE_NODES),
        time: None,
    };
    g.bench_function(
        format!("a middle game (ply 26), {SOLVE_NODES} nodes"),
        |b| {
            b.iter_batched_ref(
                || Solver::new(&options).expect("64 MiB"),
                |solver| solver.solve(&pos, &limits, &Control::new(), &mut |_| {}),
                BatchSize::PerIteration,
            )
        },
    );
    g.finish();
}

criterion_group!(benches, bench_leaves, bench_solve);
criterion_main!(benches);
