//! `ultimo datagen`: self-play games for training the net (see
//! [`crate::selfplay`]).
//!
//! Datagen plays the games on all cores and appends each finished game,
//! flushed. Run the same command again after a stop (or a full disk): an
//! incomplete last record is cut off, and only the games not yet in the
//! file are played. A file made with other settings is refused, naming
//! them.
//!
//! `--shard K/N` plays only the run's games numbered `i % N == K - 1`,
//! into a file that records its part of the run; `--merge FILE...` checks
//! the shards' files and writes them as one file, the one a single run
//! would have written.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::CliError;
use crate::display::Style;
use crate::display::progress::{Progress as Bar, duration_text};
use crate::engine::Eval;
use crate::net::data::{self, Writer};
use crate::protocol::options::EngineOptions;
use crate::rules::Position;
use crate::selfplay::merge::{self, Input};
use crate::selfplay::{self, Part, Run};
use crate::shard::Shard;

/// `ultimo datagen`'s arguments.
#[derive(clap::Args, Debug)]
pub struct DatagenArgs {
    /// Games in the run (a file that has some already gets the rest; with
    /// --shard, the whole run's, of which the shard plays its share)
    #[arg(long, required_unless_present = "merge", value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// Search iterations per move
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Uniformly random plies that open each game (not recorded)
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(0..=60))]
    random_plies: u8,
    /// Seed of the run: game i uses seed + i
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The data file (created, or continued; with --merge, a new file)
    #[arg(long)]
    out: PathBuf,
    /// Play only the K-th of N shares of the games: those numbered i with
    /// i % N == K - 1 (for a cluster); merge the files with --merge
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Play nothing: check the files of a run's shards (--shard) and write
    /// their games as one file to --out, the file one run would have
    /// written (ultimo train also takes the shards' files as they are)
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["games", "nodes", "random_plies", "seed", "threads", "eval", "net", "hash", "options", "shard"]
    )]
    merge: Vec<PathBuf>,
    /// With --merge: merge the games there are when some are missing (a
    /// shard without a file, or one stopped early), instead of refusing
    #[arg(long, requires = "merge")]
    allow_incomplete: bool,
    /// Games played at once (default: the cores)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// How the engine values leaves (default: net with --net, else
    /// playout)
    #[arg(long, value_enum)]
    eval: Option<Eval>,
    /// The net to search with (implies --eval net, which without it
    /// searches with the built-in net)
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

/// The engine's options for `kind` with `--option NAME=VALUE`s applied.
pub fn engine_options(eval: Eval, options: &[String]) -> Result<EngineOptions, CliError> {
    let mut engine = EngineOptions::default();
    engine.setup.eval = eval;
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

/// The run of `games` games that `args` ask for: `--net` without `--eval`
/// means `--eval net`.
fn run_settings(args: &DatagenArgs, games: u64) -> Result<Run, CliError> {
    let part = match &args.shard {
        Some(text) => Some(Part {
            games,
            shard: text.parse::<Shard>()?,
        }),
        None => None,
    };
    let eval = match (args.eval, &args.net) {
        (Some(Eval::Playout), Some(net)) => {
            return Err(CliError::DatagenNetWithPlayouts(net.display().to_string()));
        }
        (Some(eval), _) => eval,
        (None, Some(_)) => Eval::Net,
        (None, None) => Eval::Playout,
    };
    let mut setup = engine_options(eval, &args.options)?.setup;
    setup.net_file = args.net.clone();
    setup.search.threads = 1;
    setup.search.hash_mb = args.hash as usize;
    Ok(Run {
        nodes: args.nodes,
        random_plies: args.random_plies,
        seed: args.seed,
        setup,
        part,
    })
}

/// Runs `ultimo datagen`: the games not yet in the file, appended as they
/// finish, with progress on stderr (a bar on a terminal, else a line
/// every 10 seconds and at the end).
pub fn datagen(args: &DatagenArgs) -> Result<(), CliError> {
    if !args.merge.is_empty() {
        return merge_files(args);
    }
    if args.allow_incomplete {
        return Err(CliError::DatagenAllowIncomplete);
    }
    let games = args.games.ok_or(CliError::DatagenGames)?;
    let run = run_settings(args, games)?;
    let net = run.setup.load_net::<Position>()?;
    let (mut writer, contents) = Writer::open(&args.out, &run.recorded(net.as_ref()))?;
    let mut stderr = std::io::stderr();
    let file = crate::quote::name(&args.out.display().to_string());
    if contents.settings.is_none() {
        writeln!(
            stderr,
            "datagen: {file} records no settings (format version 1); not checked against these"
        )?;
    }
    if contents.truncated {
        writeln!(
            stderr,
            "datagen: cut an incomplete last record off {file} (at byte {})",
            contents.valid_len
        )?;
    }
    let wanted: Vec<u64> = match run.part {
        Some(part) => {
            let wanted: Vec<u64> = part.games().collect();
            writeln!(
                stderr,
                "datagen: shard {}: {} of the run's {games} games",
                part.shard,
                wanted.len()
            )?;
            wanted
        }
        None => (0..games).collect(),
    };
    let done: HashSet<u64> = contents.games.iter().map(|g| g.index).collect();
    let todo: Vec<u64> = wanted
        .iter()
        .copied()
        .filter(|i| !done.contains(i))
        .collect();
    if todo.is_empty() {
        writeln!(
            stderr,
            "datagen: {file} already holds the {} games",
            wanted.len()
        )?;
        return Ok(());
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let had = (wanted.len() - todo.len()) as u64;
    let mut progress = Progress {
        bar: Bar::new("datagen", wanted.len() as u64, Style::for_stderr().live)
            .lines_every(PROGRESS_EVERY)
            .starting_at(had),
        had,
        games: wanted.len() as u64,
        played: 0,
        positions: contents
            .games
            .iter()
            .map(|g| g.positions.len() as u64)
            .sum(),
        start: Instant::now(),
    };
    selfplay::play(&run, net.as_ref(), &todo, threads, |game| {
        writer.append(&game)?;
        progress.game(game.positions.len() as u64);
        Ok(())
    })
}

/// Runs `ultimo datagen --merge`: reads the shards' files, checks them
/// ([`merge::merge`]) and writes their games, in the order of their
/// numbers, to the new file `--out`; one line on stdout says what it holds.
fn merge_files(args: &DatagenArgs) -> Result<(), CliError> {
    let name = |path: &std::path::Path| crate::quote::name(&path.display().to_string());
    // Checked before the files are read, and again as it is written.
    if std::fs::symlink_metadata(&args.out).is_ok() {
        return Err(data::DataError::Exists(args.out.clone()).into());
    }
    let mut inputs = Vec::with_capacity(args.merge.len());
    for path in &args.merge {
        inputs.push(Input {
            name: name(path),
            contents: data::read(path)?,
        });
    }
    let merged = merge::merge(inputs, args.allow_incomplete)?;
    data::write_new(&args.out, &merged.settings, &merged.games)?;
    let positions: usize = merged.games.iter().map(|g| g.positions.len()).sum();
    let shards = if merged.shards == merged.shard_count {
        format!("the {} shards", merged.shard_count)
    } else {
        format!("{} of the {} shards", merged.shards, merged.shard_count)
    };
    let missing = merged
        .missing
        .map_or(String::new(), |missing| format!("; {missing}"));
    writeln!(
        std::io::stdout(),
        "datagen: merged {shards} of a run of {} games into {}: {} games, {positions} positions{missing}",
        merged.run_games,
        name(&args.out),
        merged.games.len(),
    )?;
    Ok(())
}

/// How often the progress line is written when stderr is no terminal.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// Datagen's progress: a bar on a terminal, else a line every
/// [`PROGRESS_EVERY`] and at the end.
struct Progress {
    bar: Bar,
    /// Games the file held at the start.
    had: u64,
    /// Games in the run.
    games: u64,
    /// Games played since the start.
    played: u64,
    /// Positions in the file.
    positions: u64,
    start: Instant,
}

impl Progress {
    /// One more game, of `positions` positions.
    fn game(&mut self, positions: u64) {
        self.played += 1;
        self.positions += positions;
        let done = self.had + self.played;
        let rate = self.played as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        let status = format!("{} positions, {rate:.1} games/s", self.positions);
        if self.bar.is_live() {
            self.bar.set(done, status.clone());
            if done == self.games {
                // The last line stays when the bar goes.
                self.bar
                    .line(&format!("datagen: {done}/{} games, {status}", self.games));
            }
            return;
        }
        let mut line = format!("datagen: {done}/{} games, {status}", self.games);
        if done < self.games {
            let left = (self.games - done) as f64 / rate.max(1e-9);
            let left = duration_text(Duration::from_secs_f64(left.min(1e9)));
            line = format!("{line}, about {left} left");
        }
        self.bar.set(done, line);
    }
}
