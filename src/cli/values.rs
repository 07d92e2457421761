//! How the command line names the core's choices (`--game`, `--eval`,
//! `--tournament`): clap's [`ValueEnum`] for types of the layers below,
//! which know nothing of the command line.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::arena::Tournament;
use crate::engine::Eval;
use crate::game::GameKind;

impl ValueEnum for GameKind {
    fn value_variants<'a>() -> &'a [Self] {
        &GameKind::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(match self {
            GameKind::Uttt => "Ultimate Tic-Tac-Toe (the default)",
            GameKind::Super15 => "Super 1 al 5 (see `docs/super-1-al-5.md`)",
        }))
    }
}

impl ValueEnum for Eval {
    fn value_variants<'a>() -> &'a [Self] {
        &[Eval::Playout, Eval::Net]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(match self {
            Eval::Playout => "Playouts (random games with winning moves taken)",
            Eval::Net => "The learned net with its move priors (games without one keep playouts)",
        }))
    }
}

impl ValueEnum for Tournament {
    fn value_variants<'a>() -> &'a [Self] {
        &[Tournament::Gauntlet, Tournament::RoundRobin]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(match self {
            Tournament::Gauntlet => "The first engine against each other one",
            Tournament::RoundRobin => "Every engine against every other",
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value reads back from its name, as the help shows it.
    #[test]
    fn values_read_back_from_their_names() {
        for g in GameKind::ALL {
            assert_eq!(GameKind::from_str(g.name(), false), Ok(g));
        }
        for e in Eval::value_variants() {
            assert_eq!(Eval::from_str(e.name(), false).as_ref(), Ok(e));
        }
        assert_eq!(
            Tournament::from_str("round-robin", false),
            Ok(Tournament::RoundRobin)
        );
    }
}
