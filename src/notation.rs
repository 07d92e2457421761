//! Moves (`a1`-`i9`) and FEN, read and written.
//!
//! A move names a cell of the 9x9 grid: the file `a`-`i` from left to right,
//! then the rank `1`-`9` from bottom to top; `e5` is the centre cell.
//!
//! A FEN has four fields: the ranks from 9 down to 1 separated by `/` (`x`
//! and `o` for marks, a digit for a run of empty cells), the side to move,
//! the full-move number (1 at the start, growing after each `o` move), and
//! the last move or `0000`, which decides where the side to move is sent.
//!
//! ```
//! use ultimo::rules::Position;
//!
//! let mut pos = Position::startpos();
//! for m in ["e5", "e4", "d1"] {
//!     pos.try_play(m.parse().unwrap()).unwrap();
//! }
//! assert_eq!(pos.to_string(), "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1");
//! let back: Position = pos.to_string().parse().unwrap();
//! assert!(back == pos);
//! assert!("9/9/9 x 1 0000".parse::<Position>().is_err());
//! ```

use crate::game::Player;
use std::fmt;
use std::str::FromStr;

use crate::rules::{ALL_CELLS, Move, Position, board_bits, board_name, is_line};

/// The FEN of the empty board.
pub const STARTPOS_FEN: &str = "9/9/9/9/9/9/9/9/9 x 1 0000";

/// Why a move's text is not a cell.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseMoveError {
    text: String,
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a cell (expected a file a-i and a rank 1-9, like e5)",
            self.text
        )
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let err = || ParseMoveError {
            text: crate::quote::shorten(s),
        };
        match s.as_bytes() {
            &[file @ b'a'..=b'i', rank @ b'1'..=b'9'] => {
                Move::from_grid(file - b'a', b'9' - rank).ok_or_else(err)
            }
            _ => Err(err()),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, 9 - self.row())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a FEN does not describe a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenError {
    /// Not four space-separated fields.
    FieldCount(usize),
    /// Not nine ranks.
    RankCount(usize),
    /// A character other than `x`, `o` or a digit 1-9 in a rank.
    BadChar {
        /// The rank (9 at the top).
        rank: u8,
        /// The character.
        ch: char,
    },
    /// A rank with more than nine cells.
    RankTooLong {
        /// The rank (9 at the top).
        rank: u8,
    },
    /// A rank with fewer than nine cells.
    RankTooShort {
        /// The rank (9 at the top).
        rank: u8,
    },
    /// The side to move is not `x` or `o`.
    BadSide(String),
    /// The full-move number is not a positive number.
    BadFullmove(String),
    /// The full-move number does not fit the marks on the board.
    FullmoveMismatch {
        /// The number in the FEN.
        given: u32,
        /// The number the marks imply.
        expected: u32,
    },
    /// The last move is neither a cell nor `0000`.
    BadLastMove(String),
    /// The last move's cell is not a mark of the side that just moved.
    LastMoveNotMover {
        /// The last move.
        last: Move,
        /// The side that just moved.
        mover: Player,
    },
    /// `0000` as the last move on a board that already holds marks.
    LastMoveMissing,
    /// The number of marks does not fit the side to move.
    MarkCounts {
        /// Marks of `x`.
        x: u32,
        /// Marks of `o`.
        o: u32,
        /// The side to move in the FEN.
        side: Player,
    },
    /// A small board holds three in a row for both players.
    BothWinBoard {
        /// The board (0-8).
        board: u8,
    },
    /// Both players have three won boards in a line.
    BothWinGame,
    /// The game was won, but the winner is the side to move.
    WinnerToMove(Player),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(
                f,
                "a FEN has 4 fields (ranks, side, move number, last move), this one has {n}"
            ),
            FenError::RankCount(n) => {
                write!(f, "a FEN has 9 ranks separated by '/', this one has {n}")
            }
            FenError::BadChar { rank, ch } => write!(
                f,
                "rank {rank} holds '{ch}'; only x, o and the digits 1-9 may appear"
            ),
            FenError::RankTooLong { rank } => write!(f, "rank {rank} has more than 9 cells"),
            FenError::RankTooShort { rank } => write!(f, "rank {rank} has fewer than 9 cells"),
            FenError::BadSide(s) => write!(f, "side to move '{s}' is neither x nor o"),
            FenError::BadFullmove(s) => write!(f, "move number '{s}' is not a positive number"),
            FenError::FullmoveMismatch { given, expected } => write!(
                f,
                "move number {given} does not fit the marks on the board (expected {expected})"
            ),
            FenError::BadLastMove(s) => {
                write!(f, "last move '{s}' is neither a cell like e5 nor 0000")
            }
            FenError::LastMoveNotMover { last, mover } => write!(
                f,
                "last move {last} is not a mark of {mover}, the side that just moved"
            ),
            FenError::LastMoveMissing => write!(
                f,
                "last move 0000 on a board with marks; give the last move, it decides where the side to move plays"
            ),
            FenError::MarkCounts { x, o, side } => write!(
                f,
                "{x} x marks and {o} o marks do not fit {side} to move (x moves first)"
            ),
            FenError::BothWinBoard { board } => write!(
                f,
                "the {} board has three in a row for both players",
                board_name(*board)
            ),
            FenError::BothWinGame => {
                write!(f, "both players have three won boards in a line")
            }
            FenError::WinnerToMove(p) => write!(
                f,
                "{p} has already won the game, so {p} cannot be the side to move"
            ),
        }
    }
}

impl std::error::Error for FenError {}

impl FromStr for Position {
    type Err = FenError;

    /// Reads a FEN: first its text (`Setup::read`), then whether the
    /// position it gives can arise (`Setup::position`).
    fn from_str(s: &str) -> Result<Position, FenError> {
        Setup::read(s)?.position()
    }
}

/// What a FEN's text says, before any check that the position can arise
/// (as shakmaty's `Setup` before its `Position`).
struct Setup {
    marks: [u128; 2],
    side: Player,
    fullmove: u32,
    last: Option<Move>,
}

impl Setup {
    /// The four fields of a FEN, each read on its own.
    fn read(s: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        let [grid, side, fullmove, last] = fields[..] else {
            return Err(FenError::FieldCount(fields.len()));
        };
        let marks = read_grid(grid)?;
        let side = match side {
            "x" => Player::X,
            "o" => Player::O,
            _ => return Err(FenError::BadSide(side.to_string())),
        };
        let fullmove: u32 = match fullmove.parse() {
            // Digits only: `parse` would take a leading `+`.
            Ok(n) if n > 0 && fullmove.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => return Err(FenError::BadFullmove(fullmove.to_string())),
        };
        let last = match last {
            "0000" => None,
            _ => Some(
                last.parse::<Move>()
                    .map_err(|_| FenError::BadLastMove(last.to_string()))?,
            ),
        };
        Ok(Setup {
            marks,
            side,
            fullmove,
            last,
        })
    }

    /// The position, if it can arise: the marks' counts fit the side to
    /// move and the move number, the last move is the mover's, no board
    /// (nor the game) is won by both, and the side to move has not won.
    fn position(self) -> Result<Position, FenError> {
        let Setup {
            marks,
            side,
            fullmove,
            last,
        } = self;
        let (x, o) = (marks[0].count_ones(), marks[1].count_ones());
        let counts_fit = match side {
            Player::X => x == o,
            Player::O => x == o + 1,
        };
        if !counts_fit {
            return Err(FenError::MarkCounts { x, o, side });
        }
        if fullmove != 1 + o {
            return Err(FenError::FullmoveMismatch {
                given: fullmove,
                expected: 1 + o,
            });
        }
        let mover = side.opponent();
        match last {
            Some(m) if marks[mover.index()] >> m.bit() & 1 == 0 => {
                return Err(FenError::LastMoveNotMover { last: m, mover });
            }
            None if x + o > 0 => return Err(FenError::LastMoveMissing),
            _ => {}
        }
        for b in 0..9 {
            if is_line(board_bits(marks[0], b)) && is_line(board_bits(marks[1], b)) {
                return Err(FenError::BothWinBoard { board: b as u8 });
            }
        }
        debug_assert_eq!((marks[0] | marks[1]) & !ALL_CELLS, 0);
        let pos = Position::from_parts(marks, side, last);
        let x_line = is_line(pos.won_boards(Player::X));
        let o_line = is_line(pos.won_boards(Player::O));
        if x_line && o_line {
            return Err(FenError::BothWinGame);
        }
        if (x_line && side == Player::X) || (o_line && side == Player::O) {
            return Err(FenError::WinnerToMove(side));
        }
        Ok(pos)
    }
}

/// The marks of a FEN's grid: nine ranks, 9 to 1, of `x`, `o` and runs of
/// empty cells.
fn read_grid(grid: &str) -> Result<[u128; 2], FenError> {
    let ranks: Vec<&str> = grid.split('/').collect();
    if ranks.len() != 9 {
        return Err(FenError::RankCount(ranks.len()));
    }
    let mut marks = [0u128; 2];
    for (row, text) in ranks.iter().enumerate() {
        let rank = 9 - row as u8;
        let mut col = 0u8;
        for ch in text.chars() {
            let (run, mark) = match ch {
                'x' => (1, Some(Player::X)),
                'o' => (1, Some(Player::O)),
                '1'..='9' => (ch as u8 - b'0', None),
                _ => return Err(FenError::BadChar { rank, ch }),
            };
            if col + run > 9 {
                return Err(FenError::RankTooLong { rank });
            }
            if let Some(p) = mark {
                let m = Move::from_grid(col, row as u8).ok_or(FenError::RankTooLong { rank })?;
                marks[p.index()] |= 1u128 << m.bit();
            }
            col += run;
        }
        if col < 9 {
            return Err(FenError::RankTooShort { rank });
        }
    }
    Ok(marks)
}

impl fmt::Display for Position {
    /// Writes the position's FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..9u8 {
            if row > 0 {
                write!(f, "/")?;
            }
            let mut empty = 0;
            for col in 0..9u8 {
                let m = Move::from_grid(col, row).expect("grid coordinates are in range");
                match self.mark_at(m) {
                    Some(p) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{p}")?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        write!(f, " {} {} ", self.side_to_move(), self.fullmove())?;
        match self.last_move() {
            Some(m) => write!(f, "{m}"),
            None => write!(f, "0000"),
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// Why a list of moves cannot be played from a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MovesError {
    /// A token is not a cell.
    Parse(ParseMoveError),
    /// A move is not legal where it comes.
    Illegal {
        /// The move.
        mv: Move,
        /// Its 1-based place in the list.
        index: usize,
        /// Why it is illegal.
        reason: crate::rules::PlayError,
    },
}

impl fmt::Display for MovesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesError::Parse(e) => write!(f, "{e}"),
            MovesError::Illegal { mv, index, reason } => {
                write!(f, "move {index} ({mv}) is illegal: {reason}")
            }
        }
    }
}

impl std::error::Error for MovesError {}

/// Plays a list of moves from `pos`, all or nothing: on an error `pos`'s
/// copy is dropped and the caller keeps its position.
pub fn play_moves<'a, I>(pos: &Position, moves: I) -> Result<Position, MovesError>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut pos = *pos;
    for (i, text) in moves.into_iter().enumerate() {
        let mv: Move = text.parse().map_err(MovesError::Parse)?;
        pos.try_play(mv).map_err(|reason| MovesError::Illegal {
            mv,
            index: i + 1,
            reason,
        })?;
    }
    Ok(pos)
}

impl crate::game::Notation for Position {
    const KIND: crate::game::GameKind = crate::game::GameKind::Uttt;
    type FenError = FenError;
    type MoveError = ParseMoveError;
    type PlayError = crate::rules::PlayError;
    type MovesError = MovesError;

    fn startpos() -> Position {
        Position::startpos()
    }

    fn parse_move(text: &str) -> Result<Move, ParseMoveError> {
        text.parse()
    }

    fn check(&self, m: Move) -> Result<(), crate::rules::PlayError> {
        Position::check(self, m)
    }

    fn perft(&self, depth: u32) -> u64 {
        crate::rules::perft(self, depth)
    }

    fn play_moves<'a, I: IntoIterator<Item = &'a str>>(
        &self,
        moves: I,
    ) -> Result<Position, MovesError> {
        play_moves(self, moves)
    }

    fn is_over(&self) -> bool {
        Position::is_over(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Outcome;

    fn fen_err(s: &str) -> FenError {
        s.parse::<Position>().expect_err(s)
    }

    #[test]
    fn moves_round_trip() {
        for i in 0..81 {
            let m = Move::from_index(i).unwrap();
            assert_eq!(m.to_string().parse::<Move>(), Ok(m));
        }
        assert_eq!("a9".parse::<Move>().unwrap().index(), 0);
        assert_eq!("i1".parse::<Move>().unwrap().index(), 80);
        for bad in ["", "e", "e0", "j5", "E5", "e55", "5e", " e5", "é5"] {
            let err = bad.parse::<Move>().unwrap_err();
            assert!(err.to_string().contains("is not a cell"), "{bad}");
        }
    }

    #[test]
    fn startpos_fen() {
        let pos: Position = STARTPOS_FEN.parse().unwrap();
        assert!(pos == Position::startpos());
        assert_eq!(Position::startpos().to_string(), STARTPOS_FEN);
    }

    #[test]
    fn every_fen_error() {
        use FenError::*;
        assert_eq!(fen_err("9/9/9/9/9/9/9/9/9 x 1"), FieldCount(3));
        assert_eq!(fen_err(""), FieldCount(0));
        assert_eq!(fen_err("9/9/9/9/9/9/9/9 x 1 0000"), RankCount(8));
        assert_eq!(fen_err("9/9/9/9/9/9/9/9/9/9 x 1 0000"), RankCount(10));
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/8y x 1 0000"),
            BadChar { rank: 1, ch: 'y' }
        );
        assert_eq!(
            fen_err("9/9/9/9/0/9/9/9/9 x 1 0000"),
            BadChar { rank: 5, ch: '0' }
        );
        assert_eq!(
            fen_err("9x/9/9/9/9/9/9/9/9 x 1 0000"),
            RankTooLong { rank: 9 }
        );
        assert_eq!(
            fen_err("9/55/9/9/9/9/9/9/9 x 1 0000"),
            RankTooLong { rank: 8 }
        );
        assert_eq!(
            fen_err("9/9/8/9/9/9/9/9/9 x 1 0000"),
            RankTooShort { rank: 7 }
        );
        assert_eq!(fen_err("9/9/9/9/9/9/9/9/9 y 1 0000"), BadSide("y".into()));
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/9 x 0 0000"),
            BadFullmove("0".into())
        );
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/9 x one 0000"),
            BadFullmove("one".into())
        );
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/9 x +1 0000"),
            BadFullmove("+1".into())
        );
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/9 x 3 0000"),
            FullmoveMismatch {
                given: 3,
                expected: 1
            }
        );
        assert_eq!(
            fen_err("9/9/9/9/9/9/9/9/9 x 1 z9"),
            BadLastMove("z9".into())
        );
        assert_eq!(
            fen_err("9/9/9/9/4x4/9/9/9/9 o 1 a1"),
            LastMoveNotMover {
                last: "a1".parse().unwrap(),
                mover: Player::X
            }
        );
        assert_eq!(
            fen_err("9/9/9/9/4x4/4o4/9/9/9 x 2 e5"),
            LastMoveNotMover {
                last: "e5".parse().unwrap(),
                mover: Player::O
            }
        );
        assert_eq!(fen_err("9/9/9/9/4x4/9/9/9/9 o 1 0000"), LastMoveMissing);
        assert_eq!(
            fen_err("9/9/9/9/4x4/9/9/9/9 x 1 e5"),
            MarkCounts {
                x: 1,
                o: 0,
                side: Player::X
            }
        );
        assert_eq!(
            fen_err("9/9/9/9/4o4/9/9/9/9 o 1 e5"),
            MarkCounts {
                x: 0,
                o: 1,
                side: Player::O
            }
        );
        // Top-left board: x on the top row, o on the bottom row.
        assert_eq!(
            fen_err("xxx6/9/ooo6/9/9/9/9/9/9 x 4 a7"),
            BothWinBoard { board: 0 }
        );
        // o has the top row of boards, x the bottom row.
        let both = "ooooooooo/9/9/9/9/9/9/9/xxxxxxxxx x 10 a9";
        assert_eq!(fen_err(both), BothWinGame);
        // x has won the game (boards 0, 1, 2) and is to move.
        let won = "xxxxxxxxx/o1o1o1o1o/1o1o1o1o1/9/9/9/9/9/9 x 10 a8";
        assert_eq!(fen_err(won), WinnerToMove(Player::X));
        for e in [FieldCount(3), BothWinGame, WinnerToMove(Player::O)] {
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn won_game_fen_is_read() {
        let won = "xxxxxxxxx/o1o1o1o1o/1o1o1o3/9/9/9/9/9/9 o 9 c9";
        let pos: Position = won.parse().unwrap();
        assert_eq!(pos.outcome(), Some(Outcome::Win(Player::X)));
        assert_eq!(pos.to_string(), won);
    }

    #[test]
    fn play_moves_is_all_or_nothing() {
        let start = Position::startpos();
        let pos = play_moves(&start, ["e5", "e4", "d1"]).unwrap();
        assert_eq!(pos.to_string(), "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1");
        let err = play_moves(&start, ["e5", "a1"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (a1) is illegal: the move must be on the centre board"
        );
        assert!(matches!(
            play_moves(&start, ["e5", "zz"]),
            Err(MovesError::Parse(_))
        ));
    }
}
