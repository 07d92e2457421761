//! The referee's part of talking to an engine: its `bestmove` judged by the
//! rules, and engine text made safe for a record.

use crate::pgn::{GameTextError as TextProblem, PgnNotation as ArenaGame};

/// Why an engine's answer to `go` loses the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefereeError {
    /// A line that is not `bestmove MOVE`.
    #[error("sent '{0}' instead of a move")]
    NoMove(String),
    /// A `bestmove` that is not a cell.
    #[error("sent '{0}', which is not a move")]
    NotAMove(String),
    /// A move the rules forbid.
    #[error("played {mv}, which is illegal: {problem}")]
    Illegal {
        /// The move, as the game writes it.
        mv: String,
        /// Why it is illegal.
        problem: TextProblem,
    },
}

/// The referee's verdict on an engine's `bestmove` line: the move (played
/// on `pos`), or why it loses the game (`pos` unchanged). The engine's text
/// in the error is shortened and made safe for the record.
pub fn referee<G: ArenaGame>(pos: &mut G, line: &str) -> Result<G::Move, RefereeError> {
    let mut words = line.split_whitespace();
    let text = match (words.next(), words.next()) {
        (Some("bestmove"), Some(text)) => text,
        _ => return Err(RefereeError::NoMove(sanitize(line, 40))),
    };
    let mv = G::parse_move(text).map_err(|_| RefereeError::NotAMove(sanitize(text, 20)))?;
    pos.try_play(mv).map_err(|problem| RefereeError::Illegal {
        mv: mv.to_string(),
        problem: problem.into(),
    })?;
    Ok(mv)
}

/// Makes engine text safe for a record: no control characters, at most
/// `max` characters.
pub fn sanitize(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .map(|c| if c == ';' || c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes_engine_text() {
        assert_eq!(sanitize("e5;\n\tx", 10), "e5???x");
        assert_eq!(sanitize("abcdef", 3), "abc");
    }
}
