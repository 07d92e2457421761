//! The match's progress on standard error: a line per game when piped, or
//! on a terminal a bar below the lines that stay.

use crate::display::Style;
use crate::display::progress::Progress as Bar;

use super::openings::ArenaGame;
use super::record::{self, GameRecord};

/// The match's progress on standard error: a line per game when piped; on
/// a terminal a bar (games played, time left, the score) below the lines
/// that stay.
pub(super) struct Progress {
    bar: Bar,
}

impl Progress {
    /// Progress of a match of `games` games on standard error, a bar where
    /// it is a terminal (not `TERM=dumb`).
    pub(super) fn new(games: u64) -> Progress {
        Progress {
            bar: Bar::new("match", games, Style::for_stderr().live),
        }
    }

    /// A line that stays.
    pub(super) fn line(&mut self, text: &str) {
        self.bar.line(text);
    }

    /// A finished game (`text`), its pairing's score so far (`score`), the
    /// games played and the state of the match (`status`): one line when
    /// piped; on a terminal the bar, with faults on a line of their own
    /// above it.
    pub(super) fn game(&mut self, text: &str, score: &str, played: u64, status: &str, fault: bool) {
        if !self.bar.is_live() {
            self.line(&format!("{text}; {score}"));
            return;
        }
        if fault {
            self.line(text);
        }
        self.bar.set(played, status.to_string());
    }

    /// Clears the bar.
    pub(super) fn finish(&mut self) {
        self.bar.finish();
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
