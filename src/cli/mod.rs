//! The command line: the protocol loop with no arguments, and the tools for
//! people as subcommands (analyze, play, match, gui, bench, datagen, train,
//! perft, codingame, riddles, completions, man). Each subcommand is a thin
//! front end over the layers below.

pub mod analyze;
pub mod bench;
pub mod datagen;
pub mod docs;
mod error;
pub mod levels;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod solve;
#[cfg(feature = "train")]
pub mod train;
mod values;

pub use error::{CliError, ValueError};

use crate::game::{GameKind, Player};
use crate::quote::shorten;
use std::fs::OpenOptions;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::display::Style;
use crate::engine::{AsyncSearcher, Eval, NetGame, Setup, Strength};
use crate::pgn::{GameTextError, PgnNotation};
use crate::rules::Position;
use crate::search::{Limits, MAX_THREADS, Options, cores};

/// Ultimo, an Ultimate Tic-Tac-Toe engine.
///
/// With no subcommand, Ultimo speaks its UCI/UGI-style protocol on standard
/// input and output (see protocol.md), for GUIs and tournament runners.
#[derive(Parser)]
#[command(name = "ultimo", version = docs::VERSION, about, long_about)]
pub struct Cli {
    /// The game the protocol loop starts with (`setoption name Game`
    /// changes it)
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
    /// Log every line the protocol loop reads (`>> `) and writes (`<< `)
    /// to FILE, appending (as `setoption name DebugLogFile` does)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Analyse a position, or review a whole game
    ///
    /// Prints the board, then a table of the best moves with visits,
    /// win/draw/loss chances, score, proven results and principal
    /// variations. On a terminal the table updates while the engine thinks;
    /// --infinite searches until Ctrl-C. With --review, every position of
    /// the game is searched and every move judged: a table of the moves
    /// with their scores before and after and marks for inaccuracies,
    /// mistakes and blunders, then a summary per side.
    Analyze(analyze::AnalyzeArgs),
    /// Prove a position won, drawn or lost for the side to move
    ///
    /// Proof-number search (df-pn) until the position is solved, --time or
    /// --nodes runs out, or Ctrl-C. Prints the board, the proving line and
    /// last `result win|draw|loss|unknown for x|o in N` (N plies to the end
    /// along the line).
    Solve(solve::SolveArgs),
    /// Play a game against the engine in the terminal
    ///
    /// Type moves like e5; also undo, hint, board, help and quit. Works
    /// through a pipe too (one command per line, no colours). The moves are
    /// printed at the end; --pgnout saves the game.
    Play(PlayArgs),
    /// Play a match between two engines or a tournament of more, or summarize recorded ones
    ///
    /// Referees every move with Ultimo's rules and reports the first
    /// engine's score, Elo, LOS and an optional SPRT, or with more engines
    /// each pairing's score and a rating table.
    Match(Box<match_cmd::MatchArgs>),
    /// Play and analyse in the browser: a board, engines, analysis lines
    ///
    /// Serves a page on 127.0.0.1 (a free port unless --port) and prints
    /// its address. Ultimo is always there; --engine adds UGI/UCI engines.
    Gui(GuiArgs),
    /// Search a fixed set of positions and report the speed
    ///
    /// Each of the compiled-in positions (opening, middle game, free-choice
    /// and near-end positions) is searched with the same node budget from a
    /// fresh tree. The last line is `<nodes> nodes <nps> nps`; with one thread
    /// the node count is a checksum of the search's behaviour.
    Bench(bench::BenchArgs),
    /// Self-play games for training the net, into a data file
    ///
    /// Each game opens with random plies (seeded by --seed plus the game's
    /// number), then the engine searches every move with --nodes
    /// iterations; every searched position is recorded with the search's
    /// value, its visits per move and the game's result. Runs on all cores.
    /// Stopped or out of disk space? Run the same command again: the file
    /// is checked, an incomplete last game cut off, and the rest played.
    ///
    /// On many machines: --shard K/N plays only the games numbered i with
    /// i % N == K - 1, the very games one run would play, into a file of
    /// the shard's own (resumed the same way). Then `ultimo datagen --merge
    /// SHARD1 SHARD2 .. --out FILE` checks that the files are the shards of
    /// one run (their settings, --games and N the same) with every game
    /// there (unless --allow-incomplete), and writes them as one file, the
    /// file one run on one thread would have written. `ultimo train --data`
    /// also takes the shards' files as they are.
    Datagen(datagen::DatagenArgs),
    /// Train a net on datagen's files and write its weights file
    ///
    /// Hand-written and single-threaded, so the same data, settings and
    /// seed give the same file. Prints the losses after every epoch.
    #[cfg(feature = "train")]
    Train(train::TrainArgs),
    /// Count the leaves of the move tree (checks the rules, measures speed)
    ///
    /// Prints one line per root move with --divide, then the time and
    /// leaves per second, and last `total <leaves>`; --json prints all of
    /// it as one JSON object.
    Perft(perft::PerftArgs),
    /// List the levels for people: each level's Elo and how it plays
    ///
    /// One line per level: its nominal Elo (0 is the uniformly random
    /// mover, in each game on its own scale), the nodes it searches, the
    /// temperature of its choice among the moves, and the chances that it
    /// takes a win it has and avoids a move that loses at once. `play
    /// --level N`, the GUI's level picker and the protocol's `UCI_Elo`
    /// play these.
    Levels(levels::LevelsArgs),
    /// Play on CodinGame: its turn loop on stdin/stdout
    ///
    /// Each turn reads the opponent's move (`-1 -1` when Ultimo opens), the
    /// number of valid actions and those actions, and prints `row col`.
    /// Rows and columns are 0-8 from the top-left. The search plays by
    /// CodinGame's rule that a drawn big board goes to the player with more
    /// small boards won. Problems with the input are reported on stderr.
    Codingame {
        /// Thinking time on the first turn, in milliseconds
        #[arg(long, default_value_t = 900)]
        first_ms: u64,
        /// Thinking time on later turns, in milliseconds
        #[arg(long, default_value_t = 90)]
        turn_ms: u64,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Play on theaigames.com or riddles.io: their bot loop on stdin/stdout
    ///
    /// Reads `settings`, `update game field|macroboard` and `action move`
    /// lines and answers `place_move <column> <row>`. Both field dialects
    /// (0/1/2 and ./0/1) are understood. Problems are reported on stderr.
    Riddles {
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    ///
    /// For example, for bash: `ultimo completions bash >
    /// ~/.local/share/bash-completion/completions/ultimo`; for zsh, into a
    /// folder of $fpath as `_ultimo`; for fish:
    /// `~/.config/fish/completions/ultimo.fish`.
    Completions(docs::CompletionsArgs),
    /// Print the manual page, or write one per command with --dir
    ///
    /// `ultimo man | man -l -` reads it at once; `ultimo man --dir DIR`
    /// writes ultimo.1 and ultimo-analyze.1, ultimo-match.1 and so on, for a
    /// folder of MANPATH (e.g. ~/.local/share/man/man1).
    Man(docs::ManArgs),
}

/// `ultimo play`'s arguments.
#[derive(clap::Args)]
struct PlayArgs {
    /// The game
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
    /// The side you play: x moves first
    #[arg(long, default_value = "x", value_parser = side)]
    side: Player,
    /// The engine's thinking time per move, in seconds (default 1 when
    /// --nodes is not given)
    #[arg(long, value_parser = seconds, allow_negative_numbers = true)]
    time: Option<Duration>,
    /// The engine's iterations per move (a fixed strength, repeatable with
    /// --threads 1; hints search as many)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Play at level N, 1 (a beginner can win) to 10, each with a measured
    /// Elo (README.md, "Levels for people"); without it the engine plays at full
    /// strength. A level searches its own few nodes, within --time
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=crate::engine::LEVELS as i64))]
    level: Option<u8>,
    /// Append the game to FILE in PGN (created if missing, never truncated)
    #[arg(long, value_name = "FILE")]
    pgnout: Option<PathBuf>,
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    eval: EvalArgs,
}

/// A starting position: a FEN and moves played from it.
#[derive(clap::Args)]
struct PositionArgs {
    /// Start from this position (FEN) instead of the empty board
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first, e.g. --moves e5 e4
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
}

/// How a tool's searches value positions.
#[derive(clap::Args)]
struct EvalArgs {
    /// How the search values positions: the learned net with its move
    /// priors (the engine's default), or random playouts; Super 1 al 5 has
    /// only playouts
    #[arg(long, value_enum, default_value_t = Eval::Net)]
    eval: Eval,
}

/// Search settings.
#[derive(clap::Args)]
struct SearchArgs {
    /// Search threads, all on one tree [default: every core]; with more
    /// than one, a --nodes search may give other moves from run to run
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Memory for the search tree, in MiB
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
    /// Seed of the search's random generators
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl SearchArgs {
    fn options(&self) -> Options {
        Options {
            threads: self
                .threads
                .map_or_else(|| cores().min(MAX_THREADS), usize::from),
            hash_mb: self.hash as usize,
            seed: self.seed,
            ..Options::default()
        }
    }
}

// The value parsers below return a typed `ValueError`: clap takes any
// `std::error::Error + Send + Sync` and prints it as `error: invalid value
// '...' for '--option <VALUE>': <message>`, exit code 2.

/// A positive number of seconds, at most a day (and not so small that it
/// rounds to no time at all).
fn seconds(text: &str) -> Result<Duration, ValueError> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 && !Duration::from_secs_f64(s).is_zero() => {
            Ok(Duration::from_secs_f64(s))
        }
        _ => Err(ValueError::Seconds(shorten(text))),
    }
}

/// `x` or `o`.
fn side(text: &str) -> Result<Player, ValueError> {
    match text {
        "x" | "X" => Ok(Player::X),
        "o" | "O" => Ok(Player::O),
        _ => Err(ValueError::Side(shorten(text))),
    }
}

/// Limits from optional time and nodes, with a default time.
fn limits(time: Option<Duration>, nodes: Option<u64>, default: Duration) -> Limits {
    Limits {
        movetime: time.or(if nodes.is_none() { Some(default) } else { None }),
        nodes,
        ..Limits::default()
    }
}

/// Parses the command line, runs what it asks and returns the exit code:
/// 0 on success, 2 (after an `error:` line on stderr) on failure.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), CliError> = match cli.command {
        None => crate::protocol::run_stdio(cli.game, cli.log.as_deref()).map_err(CliError::from),
        Some(_) if cli.log.is_some() => Err(CliError::LogWithCommand),
        Some(Command::Analyze(args)) => analyze::main(&args),
        Some(Command::Solve(args)) => solve::main(&args),
        Some(Command::Play(args)) => match args.game {
            GameKind::Uttt => play::<Position>(&args),
            GameKind::Super15 => play::<crate::super15::Position>(&args),
        },
        Some(Command::Match(args)) => match_cmd::run(*args).map_err(CliError::from),
        Some(Command::Gui(args)) => crate::gui::run(&crate::gui::Settings {
            port: args.port,
            host: args.host,
            engines: args.engines,
            open: args.open,
        })
        .map_err(CliError::from),
        Some(Command::Bench(args)) => bench::main(&args),
        Some(Command::Datagen(args)) => datagen::datagen(&args),
        #[cfg(feature = "train")]
        Some(Command::Train(args)) => train::train_cmd(&args),
        Some(Command::Perft(args)) => perft::main(&args),
        Some(Command::Levels(args)) => levels::write(&args, &mut io::stdout().lock()),
        Some(Command::Codingame {
            first_ms,
            turn_ms,
            search,
        }) => {
            let settings = crate::protocol::codingame::Settings {
                first_turn: Duration::from_millis(first_ms),
                turn: Duration::from_millis(turn_ms),
                options: search.options(),
            };
            crate::protocol::codingame::run(
                &settings,
                &mut io::stdin().lock(),
                &mut io::stdout().lock(),
                &mut io::stderr(),
            )
            .map_err(CliError::from)
        }
        Some(Command::Completions(args)) => docs::completions(&args),
        Some(Command::Man(args)) => docs::man(&args),
        Some(Command::Riddles { search }) => crate::protocol::riddles::run(
            &search.options(),
            &mut io::stdin().lock(),
            &mut io::stdout().lock(),
            &mut io::stderr(),
        )
        .map_err(CliError::from),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Whoever read standard output stopped (`ultimo analyze | head`):
        // nothing is wrong and there is nobody left to tell.
        Err(CliError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", crate::quote::escape_lines(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// `ultimo play` for one game: the engine's time and nodes per move, and
/// the file the game is appended to.
fn play<G: play::PlayGame>(args: &PlayArgs) -> Result<(), CliError> {
    let (time, nodes) = (args.time, args.nodes);
    let pgnout = args.pgnout.as_deref();
    let start: G = position_from(args.position.fen.as_deref(), &args.position.moves)?;
    let file_error = |path: &Path| {
        let path = path.display().to_string();
        move |source| CliError::PgnOut { path, source }
    };
    // Opened first, so that a bad path is refused before the game.
    let mut file = match pgnout {
        Some(path) => Some((
            path,
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(file_error(path))?,
        )),
        None => None,
    };
    let interactive = io::stdin().is_terminal() && io::stdout().is_terminal();
    let settings = play::Settings {
        human: args.side,
        start,
        limits: limits(time, nodes, Duration::from_secs(1)),
        // With --nodes a hint is as repeatable as the engine's moves.
        hint_limits: limits(None, nodes, Duration::from_millis(500)),
        options: Options {
            move_overhead: Duration::ZERO,
            ..args.search.options()
        },
        eval: args.eval.eval,
        strength: args
            .level
            .and_then(|n| Strength::level(n as usize))
            .unwrap_or_default(),
        style: Style::for_stdout(),
        prompt: interactive,
    };
    let game = play::run(&settings, &mut io::stdin().lock(), &mut io::stdout())?;
    if let Some((path, file)) = file.as_mut() {
        writeln!(file, "{game}")
            .and_then(|_| file.flush())
            .map_err(file_error(path))?;
    }
    Ok(())
}

/// A searcher for the tools: with `options`, or, when `eval` asks for the
/// learned net and the game has one, with the built-in net and the
/// engine's search settings for it (as `setoption name Eval value net`).
pub fn searcher<G: NetGame>(
    options: &Options,
    eval: Eval,
    pos: G,
) -> Result<AsyncSearcher<G>, CliError> {
    let setup = Setup::new(options.clone(), eval);
    let net = setup.load_net::<G>()?;
    Ok(AsyncSearcher::new(&setup, net.as_ref(), pos)?)
}

/// The position named by an optional FEN and a list of moves played from it
/// (the start position when no FEN is given).
pub fn position_from<G: PgnNotation>(fen: Option<&str>, moves: &[String]) -> Result<G, CliError> {
    let start = match fen {
        Some(f) => f.parse().map_err(|source| fen_error(f, source))?,
        None => G::startpos(),
    };
    start
        .play_moves(moves.iter().map(String::as_str))
        .map_err(|e| CliError::Moves(e.into()))
}

/// `fen` is no position: why.
pub fn fen_error(fen: &str, source: impl Into<GameTextError>) -> CliError {
    CliError::Fen {
        fen: shorten(fen),
        source: source.into(),
    }
}

/// `ultimo gui`'s command line.
#[derive(clap::Args, Clone, Debug)]
pub struct GuiArgs {
    /// Port to listen on (default: a free one)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Address to listen on: 127.0.0.1, localhost or ::1 (other machines
    /// are refused; reach it from elsewhere with an SSH tunnel)
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Another engine: "cmd=PROGRAM [arg=ARG]... [name=NAME] [proto=ugi|uci]
    /// [option.NAME=VALUE]..." (repeatable); Ultimo is always there
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
}
