//! Loading a game from text, as the page's Load does: PGN (a game of a
//! file, its moves' comments kept), a bare FEN, a bare move list, or an
//! old saved game; which of them a text is, sniffed from its first lines.

use crate::game::GameKind;
use crate::pgn::{self, Annotation, PgnGame, PgnNotation, PgnResult, Replayed};
use crate::quote::shorten;
use crate::{rules, super15};

use super::GuiError;
use super::game::{AnyLine, GuiGame, Line};

/// The longest text the page may send in one field (a FEN, moves).
const MAX_TEXT: usize = 100_000;
/// The longest text of a game to load (a PGN file may hold many games).
pub const MAX_LOAD: usize = 1_000_000;

/// A game of `game` from a FEN (empty: the start position) and a move
/// list.
pub fn parse_game(game: GameKind, fen: &str, moves: &str) -> Result<AnyLine, GuiError> {
    if fen.len() > MAX_TEXT || moves.len() > MAX_TEXT {
        return Err(GuiError::BadRequest("the text is too long".into()));
    }
    AnyLine::parse(game, fen, moves)
}

/// A game loaded from text: the game, its moves' comments, and what the
/// status line says.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The game.
    pub line: AnyLine,
    /// Each move's comment (PGN only; may be shorter than the moves).
    pub notes: Vec<Annotation>,
    /// What the status line says.
    pub status: String,
}

/// Whether `text` is an old saved game (`# ultimo game`, `opening`,
/// `moves` or `variant` lines).
fn is_old_record(text: &str) -> bool {
    text.lines().map(str::trim).any(|line| {
        line.starts_with('#')
            || matches!(
                line.split_whitespace().next(),
                Some("opening" | "moves" | "variant")
            )
    })
}

/// Whether `text` is PGN: tags (`[`), a comment (`{`), a move number
/// (`1.`) first, or a result (`1-0`, `0-1`, `1/2-1/2`, `*`) last.
fn is_pgn(text: &str) -> bool {
    if is_old_record(text) {
        return false;
    }
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let number = first.trim_end_matches('.');
    let numbered = number.len() < first.len()
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit());
    first.starts_with('[')
        || first.starts_with('{')
        || numbered
        || text
            .split_whitespace()
            .last()
            .is_some_and(|w| PgnResult::parse(w).is_some())
}

/// Replays a PGN game of `G` into the page's game and the moves' comments.
fn replay<G: GuiGame + PgnNotation>(
    game: &PgnGame,
    file: &str,
) -> Result<(AnyLine, Vec<Annotation>), GuiError> {
    let replayed = Replayed::<G>::new(game, file)?;
    let line = Line {
        start: replayed.start,
        moves: replayed.moves,
    };
    Ok((G::wrap(line), replayed.annotations))
}

/// Loads game `number` (from 1; default the first) of a PGN text read from
/// the file `name` (empty for pasted text): of the game its `Variant` tag
/// names, every move checked. A text the reader refuses, or a game that
/// does not replay, gives the line and the reason.
pub fn load_pgn(text: &str, name: &str, number: Option<usize>) -> Result<Loaded, GuiError> {
    let file = shorten(name.trim());
    let games = pgn::read(text, &file)?;
    let count = games.len();
    let n = number.unwrap_or(1);
    let Some(game) = n.checked_sub(1).and_then(|i| games.get(i)) else {
        return Err(GuiError::BadRequest(match count {
            0 => "the PGN holds no game".to_string(),
            1 => format!("there is no game {n}: the PGN holds one game"),
            _ => format!("there is no game {n}: the PGN holds {count} games"),
        }));
    };
    let (line, notes) = match game.kind() {
        Some(GameKind::Super15) => replay::<super15::Position>(game, &file)?,
        // Any other Variant is refused by the replay with its name.
        _ => replay::<rules::Position>(game, &file)?,
    };
    let player = |tag| shorten(game.tag(tag).unwrap_or("?"));
    let which = match count {
        1 => "game loaded".to_string(),
        _ => format!("game {n} of {count} loaded"),
    };
    let status = format!(
        "{which}: {} - {}, {}",
        player("White"),
        player("Black"),
        game.result
    );
    Ok(Loaded {
        line,
        notes,
        status,
    })
}

/// What a `load` command reads, without the session: the game of `text`
/// (see [`load`]), refused past [`MAX_LOAD`] bytes; `current` gives the
/// game shown, asked only for a text that is not PGN (a bare move list is
/// of that game). The server calls it before it takes the session, so
/// that reading a long text holds up no one.
pub fn prepare_load(
    text: &str,
    current: impl FnOnce() -> GameKind,
    name: &str,
    number: Option<usize>,
) -> Result<Loaded, GuiError> {
    if text.len() > MAX_LOAD {
        return Err(GuiError::BadRequest("the game is too long".into()));
    }
    if is_pgn(text) {
        return load_pgn(text, name, number);
    }
    load(text, current(), name, number)
}

/// Loads a game from text: PGN (see [`load_pgn`]), or else as
/// [`parse_record`] reads it (a bare FEN, a move list, or an old saved
/// game).
pub fn load(
    text: &str,
    current: GameKind,
    name: &str,
    number: Option<usize>,
) -> Result<Loaded, GuiError> {
    if is_pgn(text) {
        return load_pgn(text, name, number);
    }
    Ok(Loaded {
        line: parse_record(text, current)?,
        notes: Vec::new(),
        status: "game loaded".to_string(),
    })
}

/// An old saved game: `variant`, `opening` and `moves` lines (`#` comments,
/// other keys ignored), or a bare FEN, or a bare move list. The `variant`
/// line names the game; without one, a saved game (with `opening` or
/// `moves`) is Ultimate Tic-Tac-Toe, as in match records, and a bare FEN or
/// move list is of `current`, the game being played.
pub fn parse_record(text: &str, current: GameKind) -> Result<AnyLine, GuiError> {
    let mut opening = None;
    let mut moves = None;
    let mut variant = None;
    let mut bare = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once(char::is_whitespace) {
            Some(("opening", rest)) => opening = Some(rest.trim().to_string()),
            Some(("moves", rest)) => moves = Some(rest.trim().to_string()),
            Some(("variant", rest)) => {
                let name = rest.trim();
                let game = GameKind::from_name(name).ok_or_else(|| {
                    GuiError::BadRequest(format!(
                        "unknown variant '{}' (uttt or super15)",
                        shorten(name)
                    ))
                })?;
                variant = Some(game);
            }
            None if line == "moves" => moves = Some(String::new()),
            Some(("result" | "x" | "o" | "game" | "end" | "reason", _)) => {}
            _ => bare.push(line),
        }
    }
    if opening.is_none() && moves.is_none() {
        let game = variant.unwrap_or(current);
        return match bare.as_slice() {
            [] => Err(GuiError::BadRequest("the game is empty".into())),
            [one] if one.contains('/') => parse_game(game, one, ""),
            lines => parse_game(game, "", &lines.join(" ")),
        };
    }
    let game = variant.unwrap_or(GameKind::Uttt);
    let opening = opening.unwrap_or_default();
    // An opening may itself be a move list from the start position.
    if !opening.contains('/') && opening != "startpos" && !opening.is_empty() {
        let all = format!("{opening} {}", moves.unwrap_or_default());
        return parse_game(game, "", &all);
    }
    parse_game(game, &opening, &moves.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_is_sniffed_from_its_text() {
        assert!(is_pgn("e5 e4 *") && is_pgn("12. e5") && !is_pgn("e5 e4"));
        assert!(!is_pgn("# ultimo game\nmoves e5\nresult 1-0\n"));
    }
}
