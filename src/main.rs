//! The `ultimo` command line: the protocol loop with no arguments, tools as
//! subcommands.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use ultimo::tools;

/// Ultimo, an Ultimate Tic-Tac-Toe engine.
///
/// With no subcommand, Ultimo speaks its UCI/UGI-style protocol on standard
/// input and output (see protocol.md), for GUIs and tournament runners.
#[derive(Parser)]
#[command(name = "ultimo", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
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
    },
    /// Count the leaves of the move tree (checks the rules, measures speed)
    ///
    /// Prints one line per root move with --divide, then the time and
    /// leaves per second, and last `total <leaves>`.
    Perft {
        /// Plies to look ahead (0-81)
        #[arg(value_parser = clap::value_parser!(u32).range(0..=81))]
        depth: u32,
        /// Start from this position instead of the empty board
        #[arg(long)]
        fen: Option<String>,
        /// Moves to play first (e.g. --moves e5 e4)
        #[arg(long, num_args = 1.., allow_hyphen_values = false)]
        moves: Vec<String>,
        /// Print the count below each legal move
        #[arg(long)]
        divide: bool,
    },
    /// Play a match between two engines, or summarize a recorded one
    ///
    /// Referees every move with Ultimo's rules and reports the first
    /// engine's score, Elo, LOS and an optional SPRT.
    Match(tools::match_runner::MatchArgs),
}

/// Search settings shared by the bot-arena loops.
#[derive(clap::Args)]
struct SearchArgs {
    /// Search threads
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Memory for the search trees, in MiB
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
}

impl SearchArgs {
    fn options(&self) -> ultimo::search::Options {
        ultimo::search::Options {
            threads: self.threads as usize,
            hash_mb: self.hash as usize,
            ..ultimo::search::Options::default()
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => ultimo::protocol::run_stdio(),
        Some(Command::Codingame {
            first_ms,
            turn_ms,
            search,
        }) => {
            let settings = ultimo::protocol::codingame::Settings {
                first_turn: Duration::from_millis(first_ms),
                turn: Duration::from_millis(turn_ms),
                options: search.options(),
            };
            ultimo::protocol::codingame::run(
                &settings,
                &mut io::stdin().lock(),
                &mut io::stdout().lock(),
                &mut io::stderr(),
            )
        }
        Some(Command::Riddles { search }) => ultimo::protocol::riddles::run(
            &search.options(),
            &mut io::stdin().lock(),
            &mut io::stdout().lock(),
            &mut io::stderr(),
        ),
        Some(Command::Bench { threads }) => {
            let mut out = io::stdout().lock();
            tools::bench::run(threads as usize, &mut out).map(|_| ())
        }
        Some(Command::Perft {
            depth,
            fen,
            moves,
            divide,
        }) => tools::position_from(fen.as_deref(), &moves).and_then(|pos| {
            let mut out = io::stdout().lock();
            tools::perft::run(&pos, depth, divide, &mut out)
                .and_then(|_| out.flush())
                .map_err(|e| e.to_string())
        }),
        Some(Command::Match(args)) => tools::match_runner::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
