//! What can be wrong with a game's text: [`PgnProblem`] and [`PgnError`]
//! (a PGN text, its line), [`GameTextError`] (a FEN or a move of either
//! game), and the limits they name. Reading (`read`) and replaying
//! (`typed`) both report with these.

use super::{PgnResult, Turn};
use crate::game::{Outcome, Player};
use crate::{notation, rules, super15};

/// Why a PGN text cannot be read, or a game in it does not stand up to the
/// rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnProblem {
    /// A `[` tag without its `]` on the same line.
    #[error("the tag is not closed with ']'")]
    UnterminatedTag,
    /// A tag's `"` string without its closing `"` on the same line.
    #[error("the tag's value is not closed with '\"'")]
    UnterminatedString,
    /// A `{` comment without its `}`.
    #[error("the comment opened here is not closed with '}}'")]
    UnterminatedComment,
    /// A `(` variation without its `)`.
    #[error("the variation opened here is not closed with ')'")]
    UnterminatedVariation,
    /// A tag that is not `[Name "value"]`.
    #[error("bad tag '{0}': expected [Name \"value\"]")]
    BadTag(String),
    /// A `)` without its `(`.
    #[error("')' without '('")]
    UnopenedVariation,
    /// A character that has no place in PGN.
    #[error("unexpected '{}'", .0.escape_debug())]
    UnexpectedChar(char),
    /// The movetext does not end with a result.
    #[error("the game's moves do not end with a result (1-0, 0-1, 1/2-1/2 or *) {0}")]
    MissingResult(&'static str),
    /// A `Result` tag that is no result.
    #[error("the Result tag '{0}' is not 1-0, 0-1, 1/2-1/2 or *")]
    ResultTag(String),
    /// A `Result` tag other than the movetext's result.
    #[error("the Result tag says {tag} but the moves end with {movetext}")]
    ResultMismatch {
        /// The tag's result.
        tag: PgnResult,
        /// The result at the end of the movetext.
        movetext: PgnResult,
    },
    /// A `Variant` tag that is not one of our games.
    #[error("the Variant '{found}' is not {expected} (games: Ultimate Tic-Tac-Toe, Super 1 al 5)")]
    Variant {
        /// The tag's value, shortened.
        found: String,
        /// The variant expected.
        expected: &'static str,
    },
    /// `SetUp "1"` without a `FEN` tag.
    #[error("SetUp \"1\" needs a FEN tag")]
    NoFen,
    /// A `FEN` that is not a position of the game.
    #[error("bad FEN '{fen}': {problem}")]
    Fen {
        /// The FEN, shortened.
        fen: String,
        /// What is wrong with it.
        problem: GameTextError,
    },
    /// A move that is not a move of the game.
    #[error("move {turn} {text}: {problem}")]
    Move {
        /// The move's number as the movetext writes it (`12.`, `12...`).
        turn: String,
        /// The move, shortened.
        text: String,
        /// Why it is no move.
        problem: GameTextError,
    },
    /// A move the rules forbid where it comes.
    #[error("move {turn} {text} is illegal: {problem}")]
    Illegal {
        /// The move's number as the movetext writes it.
        turn: String,
        /// The move.
        text: String,
        /// Why it is illegal.
        problem: GameTextError,
    },
    /// A line longer than [`MAX_LINE`] bytes.
    #[error("the line is longer than {MAX_LINE} bytes (the most a PGN line may have)")]
    LongLine,
    /// A game longer than [`MAX_GAME`] bytes.
    #[error("the game is longer than {MAX_GAME} bytes (the most a PGN game may have)")]
    LongGame,
    /// A line that is not UTF-8.
    #[error("the line is not UTF-8 text")]
    NotUtf8,
    /// The file cannot be read.
    #[error("cannot read it: {0}")]
    Io(String),
    /// A result other than the rules' at a position where the rules ended
    /// the game.
    #[error("the result is {given} but the rules give {}", PgnResult::from_outcome(Some(*rules)))]
    WrongResult {
        /// The result of the movetext.
        given: PgnResult,
        /// The rules' result.
        rules: Outcome,
    },
}

/// Why a PGN file cannot be read: the file, the line (from 1) and the
/// problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {problem}")]
pub struct PgnError {
    /// The file's name.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// What is wrong there (boxed: the variants are large).
    pub problem: Box<PgnProblem>,
}

impl PgnError {
    /// The error `problem` at `line` of `file`.
    pub fn new(file: &str, line: usize, problem: PgnProblem) -> PgnError {
        PgnError {
            file: file.to_string(),
            line,
            problem: Box::new(problem),
        }
    }
}

/// The move number text of `turn`: `12.` or `12...`.
pub(super) fn turn_text(turn: Turn) -> String {
    match turn.side {
        Player::X => format!("{}.", turn.number),
        Player::O => format!("{}...", turn.number),
    }
}

/// The longest line a PGN text may have, in bytes (a game's movetext
/// written on one line with a note on every move takes a few KiB).
pub const MAX_LINE: usize = 64 * 1024;
/// The most text one game may take, in bytes, from its first tag to its
/// result.
pub const MAX_GAME: usize = 1024 * 1024;

/// Why a game's text was refused, for any of our games: each game's own
/// typed error, shown as it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameTextError {
    /// An Ultimate Tic-Tac-Toe FEN.
    #[error(transparent)]
    UtttFen(#[from] notation::FenError),
    /// An Ultimate Tic-Tac-Toe move that is not a cell.
    #[error(transparent)]
    UtttMove(#[from] notation::ParseMoveError),
    /// An illegal Ultimate Tic-Tac-Toe move.
    #[error(transparent)]
    UtttPlay(#[from] rules::PlayError),
    /// Ultimate Tic-Tac-Toe moves that cannot be played.
    #[error(transparent)]
    UtttMoves(#[from] notation::MovesError),
    /// A Super 1 al 5 FEN.
    #[error(transparent)]
    Super15Fen(#[from] super15::notation::FenError),
    /// A Super 1 al 5 move that cannot be read.
    #[error(transparent)]
    Super15Move(#[from] super15::notation::ParseMoveError),
    /// An illegal Super 1 al 5 move.
    #[error(transparent)]
    Super15Play(#[from] super15::PlayError),
    /// Super 1 al 5 moves that cannot be played.
    #[error(transparent)]
    Super15Moves(#[from] super15::notation::MovesError),
}
