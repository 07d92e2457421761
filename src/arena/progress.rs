//! The match's progress on standard error: a line per game when piped, or
//! on a terminal an updating status line below the lines that stay.

use std::io::{self, IsTerminal, Write};

use super::openings::ArenaGame;
use super::record::{self, GameRecord};

/// Progress on standard error: plain lines, or on a terminal an updating
/// status line below the lines that stay.
pub(super) struct Progress {
    terminal: bool,
    status_shown: bool,
}

impl Progress {
    /// Progress on standard error, a status line where it is a terminal
    /// (not `TERM=dumb`).
    pub(super) fn new() -> Progress {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        Progress {
            terminal: io::stderr().is_terminal() && !dumb,
            status_shown: false,
        }
    }

    /// A line that stays.
    pub(super) fn line(&mut self, text: &str) {
        let mut err = io::stderr().lock();
        if self.status_shown {
            let _ = write!(err, "\r\x1b[K");
            self.status_shown = false;
        }
        let _ = writeln!(err, "{text}");
    }

    /// A finished game (`text`), its pairing's score so far (`score`) and
    /// the state of the match (`status`, which starts with the games
    /// played): one line when piped (with `status` when it says more than
    /// the score); on a terminal the status line, with faults on a line of
    /// their own above it.
    pub(super) fn game(&mut self, text: &str, score: &str, status: &str, fault: bool) {
        if !self.terminal {
            self.line(&format!("{text}; {score}"));
            return;
        }
        if fault {
            self.line(text);
        }
        let _ = write!(io::stderr().lock(), "\r\x1b[K{status}");
        self.status_shown = true;
    }

    /// Ends the status line.
    pub(super) fn finish(&mut self) {
        if self.status_shown {
            let _ = writeln!(io::stderr().lock());
            self.status_shown = false;
        }
    }
}

/// The progress text of a finished game, e.g.
/// `game 3/100: base vs new 1-0 (x has three boards in a line)` (x first).
pub(super) fn game_text<G: ArenaGame>(game: &GameRecord<G>, total: u64) -> String {
    format!(
        "game {}/{total}: {} vs {} {} ({})",
        game.game,
        game.x,
        game.o,
        record::result_text(game.outcome),
        game.reason
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::openings;

    #[test]
    fn game_texts() {
        let game = GameRecord {
            game: 3,
            pair: 2,
            x: "base".into(),
            o: "new".into(),
            opening: openings::Opening::<crate::rules::Position>::Moves(vec![]),
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: record::Termination::Timeout,
            reason: "x (base) lost on time: no move within 150 ms".into(),
        };
        assert_eq!(
            game_text(&game, 10),
            "game 3/10: base vs new 0-1 (x (base) lost on time: no move within 150 ms)"
        );
    }
}
