//! `ultimo bench`: a fixed set of positions searched with a fixed budget,
//! for measuring speed and as a checksum of the search's behaviour.
//!
//! Each position gets [`NODES_PER_POSITION`] iterations from a fresh tree
//! with seed 0, without the leaf solver (`SolveLeaves 0`, so that the
//! figures time the tree search alone); searches that prove their result
//! stop earlier. With one
//! thread the total node count is the same on every machine and changes
//! only when the search's behaviour changes (a test pins it).
//!
//! The first line names the evaluation (`eval playout`, or `eval net` and
//! the net's version), then comes one line per position and last
//! `<nodes> nodes <nps> nps`; `--json` prints all of it as one object.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use super::CliError;
use crate::display::score::score;
use crate::engine::{Eval, NetGame, Setup};
use crate::game::GameKind;
use crate::rules::Position;
use crate::search::{Control, Limits, Options, Params};
use crate::super15;

/// The bench positions: the start, an opening, middle games, positions
/// where the side to move may play anywhere, and near-end positions.
pub const POSITIONS: [&str; 10] = [
    "9/9/9/9/9/9/9/9/9 x 1 0000",
    "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1",
    "8o/9/2o6/9/9/1xx2xx2/3x4x/o4o1o1/1o3oxxo x 9 i9",
    "1x1oo4/5x3/5x1o1/9/1o7/4xo1xo/4x2ox/x2ox3o/2x1oooxx x 13 d2",
    "o3x3o/5xx2/2xo2ox1/2x4o1/2x2x1o1/1o2x2oo/o1ox1x3/1oxo2o1x/x2xoox2 x 17 a3",
    "4oo1xo/9/1xo2xx1x/4x4/2x3o2/1xxx1xx1o/2ox2o1x/oo2oo1o1/1o3oxxo x 17 i4",
    "2x2oxx1/xoxoo2x1/2oo2o2/1xoxxo3/o1oxo1xxo/xoxoxooox/o3x1ox1/xxx1o1oxo/2x2xo2 x 25 d4",
    "2xoxoxxo/xoo1oo1ox/x3o3x/3xxxoxo/1xooxx1ox/ox1o2xo1/ox3o1o1/ooxxo4/2xxx1o2 x 25 i6",
    "1x1xxoxxo/1xo1oo1x1/xo1oo2x1/1oooox1xo/3ox1xx1/1ox1oo2x/3ox1o2/1o1x1oxxx/1xoxxo1o1 x 25 e4",
    "ox1xxo1xo/3ooxx1x/o1xooxoxx/1ox4o1/x1x2x1o1/oo1xx2oo/oxoxxxooo/xoxo2o1x/xo1xoox2 x 28 g3",
];

/// The Super 1 al 5 bench positions (`ultimo bench --game super15`): the
/// start and positions from one game after 8, 16, 24 and 30 plies.
pub const SUPER15_POSITIONS: [&str; 5] = [
    ".o2o3o4o5o5o4o3o2./.o1o1o2o3o3o2o1o1./........../........../........../........../.x1x1x2x3x3x2x1x1./.x2x3x4x5x5x4x3x2. x 0 1",
    "o1.o3o4o5o5o4o3o2./.o2o1.o3o3o2.o1./...o2..o1.../........../........x2./..x1..x3.x1../.x1.x2x3x3..x1./.x2x3x4x5x5x4.x2. x 8 5",
    "o1..o4o5o5o4o2o2./.o2o1o3o3o3..o1./...o2....../......o1o3../........x2./..x1..x3.x1../..x2.x3x5.x3x1./x1x2x3x4.x5x4.x2. x 16 9",
    "o1o2.o4o5o5.o2o2./..o1o3o3o4(8)..../.......o1../...o2..x4(1)x3(3)../........x2./..x1.x3..x1../..x2.x3..x3x1./x1x2.x4.x5..x2. x 2 13",
    "o1o4..o5o5.o2o2./.x4(4)o1.o3o4(8)..../.......x4(2)../.o3.....x3(3)../........x2./..x1.x3..x1../..x2.x3..x3x1./x1x2...x5..x2. x 1 16",
];

/// Iterations per position.
pub const NODES_PER_POSITION: u64 = 50_000;

/// The command line of `ultimo bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search threads, all on one tree (1 by default: with one thread the
    /// node count is a checksum of the search; with more it may vary)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// The game (its own positions)
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
    /// How leaves are valued: playouts (the bench's default, whose node
    /// count is the checksum), or the net (Ultimate Tic-Tac-Toe; Super 1
    /// al 5 has only playouts)
    #[arg(long, value_enum, default_value_t = Eval::Playout)]
    eval: Eval,
    /// Print the result as JSON instead of lines: game, eval, net, threads,
    /// one object per position (fen, bestmove, score, nodes, time_ms), and
    /// the totals (nodes, time_ms, nps)
    #[arg(long)]
    json: bool,
}

/// Runs `ultimo bench`.
pub fn main(args: &BenchArgs) -> Result<(), CliError> {
    let threads = args.threads as usize;
    let mut out = io::stdout().lock();
    let mut lines = io::sink();
    let text: &mut dyn Write = if args.json { &mut lines } else { &mut out };
    let result = match args.game {
        GameKind::Uttt => run(threads, args.eval, text)?,
        GameKind::Super15 => run_super15(threads, text)?,
    };
    if args.json {
        let value = result.json(args.game, threads);
        writeln!(out, "{value:#}")?;
    }
    out.flush()?;
    Ok(())
}

/// One position's search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionResult {
    /// The position's FEN.
    pub fen: String,
    /// The best move, `0000` when there is none.
    pub best: String,
    /// Its score as the protocol writes it, `none` without a move.
    pub score: String,
    /// Iterations searched.
    pub nodes: u64,
    /// Time spent searching.
    pub time: Duration,
}

/// What the bench measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// The evaluation: `playout` or `net`.
    pub eval: &'static str,
    /// The net's version, with the net.
    pub net: Option<String>,
    /// Each position's search, in order.
    pub positions: Vec<PositionResult>,
    /// Iterations over all positions.
    pub nodes: u64,
    /// Time spent searching.
    pub time: Duration,
}

impl BenchResult {
    /// Iterations per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64
    }

    /// The result as JSON, for `game` searched with `threads` threads.
    pub fn json(&self, game: GameKind, threads: usize) -> serde_json::Value {
        let positions: Vec<serde_json::Value> = self
            .positions
            .iter()
            .map(|p| {
                serde_json::json!({
                    "fen": p.fen,
                    "bestmove": p.best,
                    "score": p.score,
                    "nodes": p.nodes,
                    "time_ms": p.time.as_millis() as u64,
                })
            })
            .collect();
        serde_json::json!({
            "game": game.name(),
            "eval": self.eval,
            "net": self.net,
            "threads": threads,
            "nodes_per_position": NODES_PER_POSITION,
            "positions": positions,
            "nodes": self.nodes,
            "time_ms": self.time.as_millis() as u64,
            "nps": self.nps(),
        })
    }
}

/// Runs the bench with `threads` threads, leaves valued by `eval`: writes
/// the evaluation (`eval playout`, or `eval net` and the net's version),
/// one line per position and last `<nodes> nodes <nps> nps`.
pub fn run(threads: usize, eval: Eval, out: &mut dyn Write) -> Result<BenchResult, CliError> {
    let setup = Setup::new(options(threads), eval);
    let parse = |index, fen: &str| {
        fen.parse()
            .map_err(|source| CliError::BenchPosition { index, source })
    };
    run_positions::<Position>(&setup, &POSITIONS, out, parse)
}

/// Runs the Super 1 al 5 bench ([`SUPER15_POSITIONS`]) like [`run`], with
/// playouts (the game has no net).
pub fn run_super15(threads: usize, out: &mut dyn Write) -> Result<BenchResult, CliError> {
    let setup = Setup::new(options(threads), Eval::Playout);
    let parse = |_, fen: &str| fen.parse().map_err(|source| super::fen_error(fen, source));
    run_positions::<super15::Position>(&setup, &SUPER15_POSITIONS, out, parse)
}

/// The bench's search options: 64 MiB, seed 0, and no leaf solver.
pub fn options(threads: usize) -> Options {
    Options {
        threads,
        hash_mb: 64,
        seed: 0,
        // Without the leaf solver, whose nodes are not iterations: the
        // bench times the tree search, comparable from build to build.
        params: Params {
            leaf_solve: 0,
            ..Params::default()
        },
        ..Options::default()
    }
}

/// Searches `positions` (read with `parse`, given the position's number
/// from 1 and its FEN) as [`run`] describes.
fn run_positions<G: NetGame>(
    setup: &Setup,
    positions: &[&str],
    out: &mut dyn Write,
    parse: impl Fn(usize, &str) -> Result<G, CliError>,
) -> Result<BenchResult, CliError> {
    let loaded = setup.load_net::<G>()?;
    let mut searcher = setup.searcher(loaded.as_ref(), G::startpos())?;
    let eval = if searcher.has_evaluator() {
        "net"
    } else {
        "playout"
    };
    let net = loaded.filter(|_| eval == "net").map(|n| n.version);
    let control = Control::new();
    let limits = Limits {
        nodes: Some(NODES_PER_POSITION),
        ..Limits::default()
    };
    match &net {
        Some(version) => writeln!(out, "eval {eval} {version}")?,
        None => writeln!(out, "eval {eval}")?,
    }
    let mut total = BenchResult {
        eval,
        net,
        positions: Vec::with_capacity(positions.len()),
        nodes: 0,
        time: Duration::ZERO,
    };
    for (i, fen) in positions.iter().enumerate() {
        let pos = parse(i + 1, fen)?;
        searcher.clear(pos);
        let start = Instant::now();
        let report = searcher.search(&pos, &limits, &[], &control, &mut |_| {});
        let time = start.elapsed();
        total.nodes += report.nodes;
        total.time += time;
        let (best, score) = match report.lines.first() {
            Some(line) => (line.mv.to_string(), score(line)),
            None => ("0000".into(), "none".into()),
        };
        writeln!(
            out,
            "{:>2}/{} {fen:<84} bestmove {best} score {score:<9} nodes {:>6} time {:>4} ms",
            i + 1,
            positions.len(),
            report.nodes,
            time.as_millis()
        )?;
        total.positions.push(PositionResult {
            fen: fen.to_string(),
            best,
            score,
            nodes: report.nodes,
            time,
        });
    }
    writeln!(out, "{} nodes {} nps", total.nodes, total.nps())?;
    Ok(total)
}
