//! PGN, the game record of the whole project: games as text that people,
//! Ultimo's tools and generic PGN tools can read.
//!
//! The format is chess's Portable Game Notation with our moves:
//!
//! ```text
//! [Event "ultimo match"]
//! [Site "?"]
//! [Date "2025.01.31"]
//! [Round "1"]
//! [White "base"]
//! [Black "new"]
//! [Result "1-0"]
//! [Variant "Ultimate Tic-Tac-Toe"]
//! [TimeControl "movetime=100ms"]
//! [Termination "normal"]
//! [PlyCount "3"]
//!
//! 1. e5 {book} 1... e4 {+0.61/8 0.100s} 2. d2 {-0.12/7 0.098s, x has three
//! boards in a line} 1-0
//! ```
//!
//! - The Seven Tag Roster first (Event, Site, Date `YYYY.MM.DD` or
//!   `????.??.??`, Round, White, Black, Result); White is `x` (who moves
//!   first), Black is `o`. Then `Variant` (`Ultimate Tic-Tac-Toe` or
//!   `Super 1 al 5`; without one a game is Ultimate Tic-Tac-Toe), `SetUp
//!   "1"` and `FEN` when the game does not start from the start position,
//!   `TimeControl`, `Termination` and `PlyCount`; other tags may follow
//!   (PGN allows any).
//! - `TimeControl` is PGN's `BASE+INC` in seconds for a clock, `-` for none,
//!   and the readable non-standard `movetime=100ms` (a fixed time per move)
//!   or `nodes=200` (a fixed number of iterations per move).
//! - `Termination` is `normal` (the rules ended the game), `time forfeit`,
//!   `illegal move` or `abandoned` (an engine crashed, exited or could not
//!   be started), as cutechess writes them.
//! - Movetext: numbered moves (`1. e5 e4 2. ...`, `1... e4` when `o` moves
//!   first in a set-up position), each optionally followed by one comment:
//!   cutechess-style notes `{+0.61/8 0.100s}` (score in hundredths from the
//!   mover's view, or `+M5`/`-M3` for mates; depth; time), `{book}` for
//!   opening moves, and after the last move the reason the game ended,
//!   joined with `, ` (`{-0.12/7 0.098s, x has three boards in a line}`).
//!
//! [`read`] reads whole files: several games, `{...}` and `;` comments,
//! `%` escape lines, NAGs (`$1`), move numbers, `!`/`?` suffixes and
//! variations `( ... )` (skipped); an error names the file, the line and the
//! reason ([`PgnError`]). [`PgnGame`]'s `Display` writes a game. [`typed`]
//! turns the text into a game's positions and moves and back.

mod error;
mod read;
pub mod typed;
mod write;

pub use error::{GameTextError, MAX_GAME, MAX_LINE, PgnError, PgnProblem};
pub use read::{Games, games, read};
pub use typed::{PgnNotation, Replayed, variant_kind, variant_name};
pub use write::{date_from_unix, write_games};

use std::fmt;

use crate::game::{Outcome, Player};

/// The date tag's value when the date is unknown.
pub const UNKNOWN_DATE: &str = "????.??.??";

/// The result at the end of a game's movetext (and in its `Result` tag).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PgnResult {
    /// `1-0`: White (`x`) won.
    XWins,
    /// `0-1`: Black (`o`) won.
    OWins,
    /// `1/2-1/2`: a draw.
    Draw,
    /// `*`: unfinished or unknown.
    Unknown,
}

impl PgnResult {
    /// Every result, as the reader accepts them.
    pub const ALL: [PgnResult; 4] = [
        PgnResult::XWins,
        PgnResult::OWins,
        PgnResult::Draw,
        PgnResult::Unknown,
    ];

    /// The token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PgnResult::XWins => "1-0",
            PgnResult::OWins => "0-1",
            PgnResult::Draw => "1/2-1/2",
            PgnResult::Unknown => "*",
        }
    }

    /// The result of a token, if it is one.
    pub fn parse(token: &str) -> Option<PgnResult> {
        PgnResult::ALL.into_iter().find(|r| r.as_str() == token)
    }

    /// The result of a game's outcome (`*` while it goes on).
    pub const fn from_outcome(outcome: Option<Outcome>) -> PgnResult {
        match outcome {
            Some(Outcome::Win(Player::X)) => PgnResult::XWins,
            Some(Outcome::Win(Player::O)) => PgnResult::OWins,
            Some(Outcome::Draw) => PgnResult::Draw,
            None => PgnResult::Unknown,
        }
    }

    /// The outcome, or `None` for `*`.
    pub const fn outcome(self) -> Option<Outcome> {
        match self {
            PgnResult::XWins => Some(Outcome::Win(Player::X)),
            PgnResult::OWins => Some(Outcome::Win(Player::O)),
            PgnResult::Draw => Some(Outcome::Draw),
            PgnResult::Unknown => None,
        }
    }
}

impl fmt::Display for PgnResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who makes the first move of the movetext, and its move number:
/// `1. e5` is number 1 by `x`, `12... e4` number 12 by `o`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The move number, from 1 (it grows after each `o` move).
    pub number: u32,
    /// The player who moves.
    pub side: Player,
}

impl Turn {
    /// The first move of a game from the start: `1.` by `x`.
    pub const START: Turn = Turn {
        number: 1,
        side: Player::X,
    };

    /// The turn after `plies` plies played from the start (`x` first).
    pub const fn after_plies(plies: u32) -> Turn {
        Turn {
            number: plies / 2 + 1,
            side: if plies.is_multiple_of(2) {
                Player::X
            } else {
                Player::O
            },
        }
    }

    /// The turn after this one.
    pub const fn next(self) -> Turn {
        match self.side {
            Player::X => Turn {
                number: self.number,
                side: Player::O,
            },
            Player::O => Turn {
                number: self.number.saturating_add(1),
                side: Player::X,
            },
        }
    }
}

impl Default for Turn {
    fn default() -> Turn {
        Turn::START
    }
}

/// One move of the movetext, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    /// The move in the game's notation (`e5`, `b2b3`), without move number,
    /// NAGs or `!`/`?` suffixes.
    pub text: String,
    /// Its numeric annotation glyphs, in order (`$2` is 2; a `!`/`?`
    /// suffix is read as its NAG: `!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5,
    /// `?!` 6).
    pub nags: Vec<u8>,
    /// The comment after it, without braces (the first one, if several).
    pub comment: Option<String>,
    /// The line it was read from (from 1), or 0 when not read from a file.
    pub line: usize,
}

impl PgnMove {
    /// A move with a comment, not read from a file.
    pub fn new(text: impl Into<String>, comment: Option<String>) -> PgnMove {
        PgnMove {
            text: text.into(),
            nags: Vec::new(),
            comment,
            line: 0,
        }
    }
}

/// One game, as text: tags in their order, the moves, the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag names and values, in order (values unescaped).
    pub tags: Vec<(String, String)>,
    /// A comment before the first move (e.g. why a game without moves
    /// ended), without braces.
    pub comment: Option<String>,
    /// The first move's number and player.
    pub first: Turn,
    /// The moves.
    pub moves: Vec<PgnMove>,
    /// The result token at the end of the movetext.
    pub result: PgnResult,
    /// The line the game starts on (from 1), or 0 when not read from a file.
    pub line: usize,
}

impl Default for PgnGame {
    fn default() -> PgnGame {
        PgnGame {
            tags: Vec::new(),
            comment: None,
            first: Turn::START,
            moves: Vec::new(),
            result: PgnResult::Unknown,
            line: 0,
        }
    }
}

impl PgnGame {
    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` to `value`: in place if the game has it, else at the
    /// end.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(tag) => tag.1 = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }

    /// The Seven Tag Roster with unknown values (`?`, `????.??.??`) and
    /// result `*`, to be filled in.
    pub fn with_roster() -> PgnGame {
        let mut game = PgnGame::default();
        for (name, value) in [
            ("Event", "?"),
            ("Site", "?"),
            ("Date", UNKNOWN_DATE),
            ("Round", "?"),
            ("White", "?"),
            ("Black", "?"),
            ("Result", "*"),
        ] {
            game.set_tag(name, value);
        }
        game
    }
}

/// A score from the mover's view, as the protocol's `info` gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// `score cp N`: hundredths of a "pawn", written `+0.61`.
    Cp(i32),
    /// `score mate N`: the mover mates with its `N`-th move (`+M5`), or is
    /// mated after `-N` of its moves (`-M3`).
    Mate(i32),
}

/// What an engine said about its move: score, depth and the time it took.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct MoveNote {
    /// The score from the mover's view.
    pub score: Option<Score>,
    /// The search depth (written only with a score, as `+0.61/8`).
    pub depth: Option<u32>,
    /// The time the move took, in milliseconds.
    pub time_ms: Option<u64>,
}

impl MoveNote {
    /// Whether the note says nothing.
    pub fn is_empty(&self) -> bool {
        self.score.is_none() && self.time_ms.is_none()
    }

    /// Reads the protocol's `info` line: its `score cp N` or `score mate N`
    /// and `depth N`, for the first line (`multipv` absent or 1) only;
    /// `None` for other lines. The time is not set.
    pub fn from_info(line: &str) -> Option<MoveNote> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut note = MoveNote::default();
        let mut seen = false;
        while let Some(word) = words.next() {
            match word {
                "depth" => {
                    note.depth = words.next().and_then(|d| d.parse().ok());
                    seen |= note.depth.is_some();
                }
                "multipv" if words.next() != Some("1") => return None,
                "score" => {
                    note.score = match (words.next(), words.next().map(str::parse)) {
                        (Some("cp"), Some(Ok(n))) => Some(Score::Cp(n)),
                        (Some("mate"), Some(Ok(n))) => Some(Score::Mate(n)),
                        _ => None,
                    };
                    seen |= note.score.is_some();
                }
                // The rest of the line is the engine's text, or moves.
                "string" | "pv" => break,
                _ => {}
            }
        }
        seen.then_some(note)
    }
}

/// What a move's comment says, as the writer writes it: `book` or a note,
/// and after `, ` a remark in words (`{+0.61/8 0.100s, x wins}`). A comment
/// in another form is all remark.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Annotation {
    /// `{book}`: an opening move, not chosen by the player.
    pub book: bool,
    /// The engine's note.
    pub note: MoveNote,
    /// Words after the note (or the whole comment when it is no note).
    pub remark: Option<String>,
}

impl Annotation {
    /// A book move.
    pub fn book() -> Annotation {
        Annotation {
            book: true,
            ..Annotation::default()
        }
    }

    /// A note.
    pub fn note(note: MoveNote) -> Annotation {
        Annotation {
            note,
            ..Annotation::default()
        }
    }

    /// The same with a remark added (after any remark it has).
    pub fn with_remark(mut self, remark: &str) -> Annotation {
        self.remark = Some(match self.remark.take() {
            Some(before) => format!("{before}, {remark}"),
            None => remark.to_string(),
        });
        self
    }

    /// The comment's text, or `None` when there is nothing to say.
    pub fn to_comment(&self) -> Option<String> {
        let head = if self.book {
            "book".to_string()
        } else {
            write::note_text(&self.note)
        };
        match (head.is_empty(), &self.remark) {
            (true, None) => None,
            (true, Some(remark)) => Some(remark.clone()),
            (false, None) => Some(head),
            (false, Some(remark)) => Some(format!("{head}, {remark}")),
        }
    }

    /// Reads a comment written by [`Annotation::to_comment`]; any other
    /// comment is a remark.
    pub fn parse(comment: &str) -> Annotation {
        let comment = comment.trim();
        let (head, rest) = match comment.split_once(", ") {
            Some((head, rest)) => (head.trim(), Some(rest.trim())),
            None => (comment, None),
        };
        let remark = rest.filter(|r| !r.is_empty()).map(str::to_string);
        if head == "book" {
            return Annotation {
                book: true,
                note: MoveNote::default(),
                remark,
            };
        }
        match read::parse_note(head) {
            Some(note) => Annotation {
                book: false,
                note,
                remark,
            },
            None if comment.is_empty() => Annotation::default(),
            None => Annotation {
                remark: Some(comment.to_string()),
                ..Annotation::default()
            },
        }
    }
}

#[cfg(test)]
mod tests;
