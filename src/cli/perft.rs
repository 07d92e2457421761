//! `ultimo perft`: the leaves of the move tree below a position, as text
//! or JSON (see [`crate::display::perft`]).

use std::io::{self, Write};

use super::{CliError, PositionArgs, position_from};
use crate::display::board::Board;
use crate::game::GameKind;
use crate::pgn::PgnNotation;
use crate::rules::Position;

/// The command line of `ultimo perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
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
    /// Print the result as JSON instead of lines: game, fen, depth, total,
    /// divide (with --divide), time_ms and leaves_per_second
    #[arg(long)]
    json: bool,
}

/// Runs `ultimo perft`.
pub fn main(args: &PerftArgs) -> Result<(), CliError> {
    match args.game {
        GameKind::Uttt => perft::<Position>(args),
        GameKind::Super15 => perft::<crate::super15::Position>(args),
    }
}

/// `ultimo perft` for one game.
fn perft<G: Board + PgnNotation>(args: &PerftArgs) -> Result<(), CliError> {
    let pos: G = position_from(args.position.fen.as_deref(), &args.position.moves)?;
    let mut out = io::stdout().lock();
    if args.json {
        let value = crate::display::perft::json(&pos, args.depth, args.divide);
        writeln!(out, "{value:#}")?;
    } else {
        crate::display::perft::run(&pos, args.depth, args.divide, &mut out)?;
    }
    out.flush()?;
    Ok(())
}
