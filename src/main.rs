//! The `ultimo` command line: the protocol loop with no arguments, tools as
//! subcommands.

use std::io::{self, Write};
use std::process::ExitCode;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => ultimo::protocol::run_stdio(),
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
