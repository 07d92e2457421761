//! `ultimo datagen`: self-play games for training the net, and
//! `ultimo train`: a net from them.
//!
//! Datagen plays game `i` of a run from a random opening drawn with seed
//! `seed + i`, searching every later position with a fixed node budget and
//! recording it with the search's value and visits (see
//! [`crate::net::data`] for the file format). Games run on all cores, one
//! search thread each; each finished game is appended and flushed. Run the
//! same command again after a stop (or a full disk): an incomplete last
//! record is cut off, and only the games not yet in the file are played.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use super::CliError;
use crate::game::Outcome;
use crate::net::Net;
use crate::net::data::{self, GameRecord, PositionRecord, Writer};
use crate::net::features::Planes;
use crate::net::train::{self, Config};
use crate::protocol::options::{EngineOptions, Eval};
use crate::rules::Position;
use crate::search::{Control, Evaluator, Limits, Options, Searcher};

/// How the engine values its leaves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalKind {
    /// Playouts (random games with winning moves taken).
    Playout,
    /// The learned net.
    Net,
}

/// `ultimo datagen`'s arguments.
#[derive(clap::Args, Debug)]
pub struct DatagenArgs {
    /// Games in the run (a file that has some already gets the rest)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    /// Search iterations per move
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Uniformly random plies that open each game (not recorded)
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(0..=60))]
    random_plies: u8,
    /// Seed of the run: game i uses seed + i
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The data file (created, or continued)
    #[arg(long)]
    out: PathBuf,
    /// Games played at once (default: the cores)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// How the engine values leaves
    #[arg(long, value_enum, default_value_t = EvalKind::Playout)]
    eval: EvalKind,
    /// The net for --eval net (default: the built-in one)
    #[arg(long, value_name = "FILE")]
    net: Option<PathBuf>,
    /// Memory per search tree, in MiB
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
    /// An engine option for the searches, as `setoption` takes it, e.g.
    /// `--option NetPolicy=100` (repeatable; Eval, EvalFile, Threads, Hash
    /// and Game have their own flags)
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
}

/// The evaluator for `kind` (the file's net, else the built-in one).
pub fn evaluator(
    kind: EvalKind,
    file: Option<&PathBuf>,
) -> Result<Option<Arc<dyn Evaluator<Position>>>, CliError> {
    Ok(match kind {
        EvalKind::Playout => None,
        EvalKind::Net => Some(match file {
            Some(f) => Arc::new(Net::load(f)?),
            None => Arc::new(Net::builtin().clone()),
        }),
    })
}

/// The engine's options for `kind` with `--option NAME=VALUE`s applied.
pub fn engine_options(kind: EvalKind, options: &[String]) -> Result<EngineOptions, CliError> {
    let mut engine = EngineOptions {
        eval: match kind {
            EvalKind::Playout => Eval::Playout,
            EvalKind::Net => Eval::Net,
        },
        ..EngineOptions::default()
    };
    for o in options {
        let (name, value) = o.split_once('=').unwrap_or((o.as_str(), ""));
        let name = name.trim();
        if ["eval", "evalfile", "threads", "hash", "game"]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
        {
            return Err(CliError::DatagenOptionFlag(crate::quote::shorten(name)));
        }
        engine.set(name, Some(value.trim()))?;
    }
    Ok(engine)
}

/// The search options for `kind`: with the net, the engine's defaults for
/// it (exploration, first-play urgency, expansion), as `Eval net` sets them.
pub fn options_for(kind: EvalKind, options: Options) -> Options {
    let eval = match kind {
        EvalKind::Playout => Eval::Playout,
        EvalKind::Net => Eval::Net,
    };
    EngineOptions {
        search: options,
        eval,
        ..EngineOptions::default()
    }
    .search_options()
}

/// Plays game `index` of the run.
fn play_game(
    index: u64,
    args: &DatagenArgs,
    searcher: &mut Searcher<Position>,
) -> Result<GameRecord, CliError> {
    let seed = args.seed.wrapping_add(index);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut pos = Position::startpos();
    let mut plies = 0u8;
    while plies < args.random_plies {
        let Some(m) = pos.random_move(&mut rng) else {
            break;
        };
        let mut next = pos;
        next.play(m);
        if next.is_over() {
            break;
        }
        pos = next;
        plies += 1;
    }
    let options = Options {
        seed,
        ..searcher.options().clone()
    };
    searcher.set_options(options, pos)?;
    searcher.clear(pos);
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    let control = Control::new();
    let mut positions = Vec::new();
    while !pos.is_over() {
        let report = searcher.search(&pos, &limits, &[], &control, &mut |_| {});
        let Some(best) = report.lines.first() else {
            return Err(CliError::NoMove);
        };
        let planes = Planes::from_position(&pos);
        positions.push(PositionRecord {
            marks: planes.marks,
            side: planes.side,
            last: pos.last_move().map(|m| m.index()),
            value: best.q as f32,
            visits: report
                .lines
                .iter()
                .map(|l| (l.mv.index(), l.visits.min(u32::MAX as u64) as u32))
                .collect(),
        });
        pos.play(best.mv);
    }
    Ok(GameRecord {
        index,
        result: pos.outcome().unwrap_or(Outcome::Draw),
        random_plies: plies,
        positions,
    })
}

/// Runs `ultimo datagen`.
pub fn datagen(args: &DatagenArgs) -> Result<(), CliError> {
    let eval = evaluator(args.eval, args.net.as_ref())?;
    let engine = engine_options(args.eval, &args.options)?;
    let (mut writer, contents) = Writer::open(&args.out)?;
    let mut stderr = std::io::stderr();
    if contents.truncated {
        writeln!(
            stderr,
            "datagen: cut an incomplete last record off {} (at byte {})",
            args.out.display(),
            contents.valid_len
        )?;
    }
    let done: HashSet<u64> = contents.games.iter().map(|g| g.index).collect();
    let todo: Vec<u64> = (0..args.games).filter(|i| !done.contains(i)).collect();
    let had = args.games - todo.len() as u64;
    let mut positions: u64 = contents
        .games
        .iter()
        .map(|g| g.positions.len() as u64)
        .sum();
    if todo.is_empty() {
        writeln!(
            stderr,
            "datagen: {} already holds the {} games",
            args.out.display(),
            args.games
        )?;
        return Ok(());
    }
    let threads = args
        .threads
        .map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |t| t as usize,
        )
        .min(todo.len());
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<GameRecord, CliError>>();
    let terminal = stderr.is_terminal();
    let start = Instant::now();
    std::thread::scope(|s| -> Result<(), CliError> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (todo, next, stop, eval, engine) = (&todo, &next, &stop, eval.clone(), &engine);
            s.spawn(move || {
                let mut options = engine.search_options();
                options.threads = 1;
                options.hash_mb = args.hash as usize;
                let mut searcher = match Searcher::new(options, Position::startpos()) {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e.into()));
                        return;
                    }
                };
                searcher.set_evaluator(eval);
                while !stop.load(Ordering::Relaxed) {
                    let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    if tx.send(play_game(index, args, &mut searcher)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut played = 0u64;
        let mut last_line = Instant::now();
        for game in rx {
            let game = match game {
                Ok(g) => g,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            };
            if let Err(e) = writer.append(&game) {
                stop.store(true, Ordering::Relaxed);
                return Err(e.into());
            }
            played += 1;
            positions += game.positions.len() as u64;
            let all_done = played == todo.len() as u64;
            if terminal || all_done || last_line.elapsed() >= Duration::from_secs(10) {
                last_line = Instant::now();
                let secs = start.elapsed().as_secs_f64();
                let rate = played as f64 / secs.max(1e-9);
                let left = (todo.len() as u64 - played) as f64 / rate.max(1e-9);
                let end = if terminal && !all_done { "\r" } else { "\n" };
                write!(
                    stderr,
                    "datagen: {}/{} games, {positions} positions, {rate:.1} games/s, {:.0} s left   {end}",
                    had + played,
                    args.games,
                    left
                )?;
            }
        }
        Ok(())
    })
}

/// `ultimo train`'s arguments.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Data files from ultimo datagen
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// The net file to write (its folder must exist)
    #[arg(long, value_parser = train::parse_out)]
    out: PathBuf,
    /// The net's name (1 to 16 printable ASCII characters, no spaces),
    /// shown in its version
    #[arg(long, default_value = "net", value_parser = train::parse_name)]
    name: String,
    /// Passes over the data
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10000))]
    epochs: u32,
    /// Positions per step
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch: u32,
    /// Adam's learning rate at the start (falls linearly to a tenth)
    #[arg(long, default_value_t = 0.002)]
    lr: f32,
    /// Weight of the game's result in the target; the search's value has
    /// the rest
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// Seed of the weights, the shuffles and the symmetries
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weight of the policy head's cross-entropy (against the search's
    /// visits) in the loss; 0 leaves the policy head untrained
    #[arg(long, default_value_t = 1.0)]
    policy_weight: f32,
    /// Start from this net instead of fresh weights
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
}

/// Runs `ultimo train`.
pub fn train_cmd(args: &TrainArgs) -> Result<(), CliError> {
    if !((0.0..=1.0).contains(&args.lambda)
        && args.lr > 0.0
        && args.lr < 1.0
        && (0.0..=100.0).contains(&args.policy_weight))
    {
        return Err(CliError::TrainSettings);
    }
    let start_net = args.init.as_ref().map(|f| Net::load(f)).transpose()?;
    let mut games = Vec::new();
    let mut out = std::io::stdout();
    for f in &args.data {
        let contents = data::read(f)?;
        if contents.truncated {
            writeln!(
                out,
                "train: {} ends with an incomplete record (ignored)",
                f.display()
            )?;
        }
        games.extend(contents.games);
    }
    let config = Config {
        epochs: args.epochs,
        batch: args.batch as usize,
        lr: args.lr,
        lambda: args.lambda,
        seed: args.seed,
        policy_weight: args.policy_weight,
    };
    let (train_set, valid) = train::split(&games, config.lambda, config.seed);
    writeln!(
        out,
        "train: {} games, {} positions ({} held out)",
        games.len(),
        train_set.len() + valid.len(),
        valid.len()
    )?;
    let start = Instant::now();
    let mut io_error = None;
    let trainer = train::train(&train_set, &valid, &config, start_net.as_ref(), &mut |e| {
        let r = writeln!(out, "{}", e.line(args.epochs, start.elapsed()));
        if let Err(e) = r {
            io_error.get_or_insert(e);
        }
    });
    if let Some(e) = io_error {
        return Err(e.into());
    }
    let net = trainer.net(&args.name);
    net.save(&args.out)?;
    writeln!(out, "wrote {} (net {})", args.out.display(), net.version())?;
    Ok(())
}
