//! The command line: the protocol loop with no arguments, and the tools for
//! people as subcommands (analyze, play, match, bench, perft, codingame,
//! riddles). Each subcommand is a thin front end over the layers below.

pub mod analyze;
pub mod bench;
pub mod datagen;
mod error;
pub mod match_cmd;
pub mod play;
pub mod solve;

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
use crate::display::board::Board;
use crate::rules::Position;
use crate::search::{Evaluator, Limits, Options, Searcher};
use std::sync::Arc;

/// Ultimo, an Ultimate Tic-Tac-Toe engine.
///
/// With no subcommand, Ultimo speaks its UCI/UGI-style protocol on standard
/// input and output (see protocol.md), for GUIs and tournament runners.
#[derive(Parser)]
#[command(name = "ultimo", version, about, long_about)]
pub struct Cli {
    /// The game the protocol loop starts with (`setoption name Game`
    /// changes it)
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
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
    Play {
        /// The game
        #[arg(long, value_enum, default_value_t)]
        game: GameKind,
        /// The side you play: x moves first
        #[arg(long, default_value = "x", value_parser = side)]
        side: Player,
        /// The engine's thinking time per move, in seconds (default 1 when
        /// --nodes is not given)
        #[arg(long, value_parser = seconds)]
        time: Option<Duration>,
        /// The engine's iterations per move (a fixed, repeatable strength;
        /// hints search as many)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// Append the game to FILE in PGN (created if missing, never truncated)
        #[arg(long, value_name = "FILE")]
        pgnout: Option<PathBuf>,
        #[command(flatten)]
        position: PositionArgs,
        #[command(flatten)]
        search: SearchArgs,
        #[command(flatten)]
        eval: EvalArgs,
    },
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
    Gui(crate::gui::GuiArgs),
    /// Search a fixed set of positions and report the speed
    ///
    /// Each of the compiled-in positions (opening, middle game, free-choice
    /// and near-end positions) is searched with the same node budget from a
    /// fresh tree. The last line is `<nodes> nodes <nps> nps`; with one thread
    /// the node count is a checksum of the search's behaviour.
    Bench {
        /// Search threads
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
        /// The game (its own positions)
        #[arg(long, value_enum, default_value_t)]
        game: GameKind,
        /// How leaves are valued (Ultimate Tic-Tac-Toe; Super 1 al 5 has
        /// only playouts)
        #[arg(long, value_enum, default_value_t = datagen::EvalKind::Playout)]
        eval: datagen::EvalKind,
    },
    /// Self-play games for training the net, into a data file
    ///
    /// Each game opens with random plies (seeded by --seed plus the game's
    /// number), then the engine searches every move with --nodes
    /// iterations; every searched position is recorded with the search's
    /// value, its visits per move and the game's result. Runs on all cores.
    /// Stopped or out of disk space? Run the same command again: the file
    /// is checked, an incomplete last game cut off, and the rest played.
    Datagen(datagen::DatagenArgs),
    /// Train a net on datagen's files and write its weights file
    ///
    /// Hand-written and single-threaded, so the same data, settings and
    /// seed give the same file. Prints the losses after every epoch.
    Train(datagen::TrainArgs),
    /// Count the leaves of the move tree (checks the rules, measures speed)
    ///
    /// Prints one line per root move with --divide, then the time and
    /// leaves per second, and last `total <leaves>`.
    Perft {
        /// Plies to look ahead (0-81)
        #[arg(value_parser = clap::value_parser!(u32).range(0..=81))]
        depth: u32,
        /// The game
        #[arg(long, value_enum, default_value_t)]
        game: GameKind,
        #[command(flatten)]
        position: PositionArgs,
        /// Print the count below each legal move
        #[arg(long)]
        divide: bool,
    },
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
    #[arg(long, value_enum, default_value_t = datagen::EvalKind::Net)]
    eval: datagen::EvalKind,
}

/// Search settings.
#[derive(clap::Args)]
struct SearchArgs {
    /// Search threads
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Memory for the search trees, in MiB
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
    /// Seed of the search's random generators
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl SearchArgs {
    fn options(&self) -> Options {
        Options {
            threads: self.threads as usize,
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
        None => crate::protocol::run_stdio(cli.game).map_err(CliError::from),
        Some(Command::Analyze(args)) => analyze::main(&args),
        Some(Command::Solve(args)) => solve::main(&args),
        Some(Command::Play {
            game,
            side,
            time,
            nodes,
            pgnout,
            position,
            search,
            eval,
        }) => {
            let engine = (time, nodes);
            let pgnout = pgnout.as_deref();
            let search = (&search, eval.eval);
            match game {
                GameKind::Uttt => play::<Position>(side, engine, pgnout, &position, search),
                GameKind::Super15 => {
                    play::<crate::super15::Position>(side, engine, pgnout, &position, search)
                }
            }
        }
        Some(Command::Match(args)) => match_cmd::run(*args).map_err(CliError::from),
        Some(Command::Gui(args)) => crate::gui::run(&args).map_err(CliError::from),
        Some(Command::Bench {
            threads,
            game,
            eval,
        }) => {
            let mut out = io::stdout().lock();
            match game {
                GameKind::Uttt => bench::run(threads as usize, eval, &mut out).map(|_| ()),
                GameKind::Super15 => bench::run_super15(threads as usize, &mut out).map(|_| ()),
            }
        }
        Some(Command::Datagen(args)) => datagen::datagen(&args),
        Some(Command::Train(args)) => datagen::train_cmd(&args),
        Some(Command::Perft {
            depth,
            game,
            position,
            divide,
        }) => match game {
            GameKind::Uttt => perft::<Position>(depth, &position, divide),
            GameKind::Super15 => perft::<crate::super15::Position>(depth, &position, divide),
        },
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
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `ultimo play` for one game: the engine's time and nodes per move, and
/// the file the game is appended to.
fn play<G: play::PlayGame>(
    side: Player,
    (time, nodes): (Option<Duration>, Option<u64>),
    pgnout: Option<&Path>,
    position: &PositionArgs,
    (search, eval): (&SearchArgs, datagen::EvalKind),
) -> Result<(), CliError> {
    let start: G = position_from(position.fen.as_deref(), &position.moves)?;
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
        human: side,
        start,
        limits: limits(time, nodes, Duration::from_secs(1)),
        // With --nodes a hint is as repeatable as the engine's moves.
        hint_limits: limits(None, nodes, Duration::from_millis(500)),
        options: Options {
            move_overhead: Duration::ZERO,
            ..search.options()
        },
        eval,
        style: Style::for_terminal(io::stdout().is_terminal()),
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

/// `ultimo perft` for one game.
fn perft<G: CliGame>(depth: u32, position: &PositionArgs, divide: bool) -> Result<(), CliError> {
    let pos: G = position_from(position.fen.as_deref(), &position.moves)?;
    let mut out = io::stdout().lock();
    crate::display::perft::run(&pos, depth, divide, &mut out)
        .and_then(|_| out.flush())
        .map_err(CliError::from)
}

/// A searcher for the tools: with `options`, or, when `eval` asks for the
/// learned net and the game has one, with the net and the engine's search
/// settings for it (as `setoption name Eval value net`).
pub fn searcher<G: CliGame>(
    options: &Options,
    eval: datagen::EvalKind,
    pos: G,
) -> Result<Searcher<G>, CliError> {
    let evaluator = G::evaluator(eval);
    let options = match evaluator {
        Some(_) => datagen::options_for(datagen::EvalKind::Net, options.clone()),
        None => options.clone(),
    };
    let mut searcher = Searcher::new(options, pos)?;
    searcher.set_evaluator(evaluator);
    Ok(searcher)
}

/// A game as the command line's tools need it: its board as text, and its
/// text errors as [`CliError`]s.
pub trait CliGame: Board {
    /// The learned evaluator `eval` asks for, if the game has one.
    fn evaluator(eval: datagen::EvalKind) -> Option<Arc<dyn Evaluator<Self>>>;
    /// `--fen` is not a position of this game.
    fn fen_error(fen: &str, source: Self::FenError) -> CliError;
    /// `--moves` cannot be played.
    fn moves_error(source: Self::MovesError) -> CliError;
}

impl CliGame for Position {
    fn evaluator(eval: datagen::EvalKind) -> Option<Arc<dyn Evaluator<Self>>> {
        match eval {
            datagen::EvalKind::Net => Some(Arc::new(crate::net::Net::builtin().clone())),
            datagen::EvalKind::Playout => None,
        }
    }

    fn fen_error(fen: &str, source: crate::notation::FenError) -> CliError {
        CliError::Fen {
            fen: shorten(fen),
            source,
        }
    }

    fn moves_error(source: crate::notation::MovesError) -> CliError {
        CliError::Moves(source)
    }
}

impl CliGame for crate::super15::Position {
    fn evaluator(_: datagen::EvalKind) -> Option<Arc<dyn Evaluator<Self>>> {
        None
    }

    fn fen_error(fen: &str, source: crate::super15::notation::FenError) -> CliError {
        CliError::Super15Fen {
            fen: shorten(fen),
            source,
        }
    }

    fn moves_error(source: crate::super15::notation::MovesError) -> CliError {
        CliError::Super15Moves(source)
    }
}

/// The position named by an optional FEN and a list of moves played from it
/// (the start position when no FEN is given).
pub fn position_from<G: CliGame>(fen: Option<&str>, moves: &[String]) -> Result<G, CliError> {
    let start = match fen {
        Some(f) => f.parse().map_err(|source| G::fen_error(f, source))?,
        None => G::startpos(),
    };
    start
        .play_moves(moves.iter().map(String::as_str))
        .map_err(G::moves_error)
}
