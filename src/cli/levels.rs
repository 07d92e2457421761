//! `ultimo levels`: the levels for people, each with its nominal Elo and
//! how it weakens the engine in a game.

use std::io::Write;

use super::CliError;
use crate::engine::{LEVELS, MAX_ELO, MIN_ELO, levels};
use crate::game::GameKind;

/// The command line of `ultimo levels`.
#[derive(clap::Args)]
pub struct LevelsArgs {
    /// The game whose weakenings to show
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
}

/// Writes the table of levels for `args.game` to `out`: a header, then
/// one line per level (level, nominal Elo, nodes, temperature, chances of
/// seeing a win and a threat).
pub fn write(args: &LevelsArgs, out: &mut impl Write) -> Result<(), CliError> {
    writeln!(
        out,
        "level   elo  nodes  temperature  wins seen  threats seen"
    )?;
    let table = levels(args.game);
    for (i, level) in table.iter().enumerate() {
        let w = level.weakening;
        writeln!(
            out,
            "{:>5}  {:>4}  {:>5}  {:>11.2}  {:>8.0}%  {:>11.0}%",
            i + 1,
            level.elo,
            w.nodes,
            w.temperature,
            w.see_win * 100.0,
            w.see_threat * 100.0
        )?;
    }
    writeln!(
        out,
        "Elo: 0 is the uniformly random mover in this game ({}). UCI_Elo takes {MIN_ELO} to {MAX_ELO}; \
in this game below {} plays level 1, above {} level {LEVELS}.",
        args.game,
        table[0].elo,
        table[LEVELS - 1].elo
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_a_level() {
        let mut out = Vec::new();
        write(
            &LevelsArgs {
                game: GameKind::Uttt,
            },
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), LEVELS + 2);
        let first: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(first[0], "1");
        assert_eq!(first[1], levels(GameKind::Uttt)[0].elo.to_string());
    }
}
