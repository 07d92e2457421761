//! Cells, moves and positions of "Super 1 al 5" as text, read and written.
//!
//! A cell is a file `a`-`j` (left to right, from light's side) and a rank
//! `1`-`8` (light starts on ranks 1-2). A move is the cell a piece leaves
//! and the cell where it stops: `e2e3`; what it captures follows from the
//! position.
//!
//! A position has four fields separated by spaces:
//!
//! 1. the ranks from 8 down to 1, separated by `/`, each of ten cells: `.`
//!    for an empty cell, and for a piece its owner (`x` light, `o` dark;
//!    upper case `X`, `O` for a super piece), its number `1`-`5`, and its
//!    points in brackets when it has any: `x3`, `o2(4)`, `X1(12)`;
//! 2. the side to move, `x` or `o`;
//! 3. the plies since the last capture (for the ending of few pieces);
//! 4. the full-move number, 1 at the start and growing after each `o` move.
//!
//! ```
//! use ultimo::super15::Position;
//! use ultimo::super15::notation::{STARTPOS_FEN, play_moves};
//!
//! assert_eq!(Position::startpos().to_string(), STARTPOS_FEN);
//! let pos = play_moves(&Position::startpos(), ["e2h5", "e7b4"]).unwrap();
//! let fen = pos.to_string();
//! assert!(fen.ends_with(" x 2 2"));
//! assert!(fen.parse::<Position>().unwrap() == pos);
//! ```

use crate::quote::shorten;
use std::fmt;
use std::str::FromStr;

use super::{
    CELLS, FILES, Move, PLY_LIMIT, Piece, PlayError, Position, RANKS, START_COUNTS, Square,
    TOTAL_VALUE,
};
use crate::game::Player;

/// The starting position.
pub const STARTPOS_FEN: &str = ".o2o3o4o5o5o4o3o2./.o1o1o2o3o3o2o1o1./........../........../\
                                ........../........../.x1x1x2x3x3x2x1x1./.x2x3x4x5x5x4x3x2. x 0 1";

/// Why a text is not a cell.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("'{text}' is not a cell (expected a file a-j and a rank 1-8, like e2)")]
pub struct SquareParseError {
    text: String,
}

/// Why a text is not a move.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("'{text}' is not a move (expected two cells like e2e3: files a-j, ranks 1-8)")]
pub struct ParseMoveError {
    text: String,
}

/// The cell of a file byte `a`-`j` and a rank byte `1`-`8`.
fn square_of(file: u8, rank: u8) -> Option<Square> {
    Square::new(file.checked_sub(b'a')?, rank.checked_sub(b'1')?)
}

impl FromStr for Square {
    type Err = SquareParseError;

    fn from_str(s: &str) -> Result<Square, SquareParseError> {
        match s.as_bytes() {
            &[file, rank] => square_of(file, rank),
            _ => None,
        }
        .ok_or_else(|| SquareParseError { text: shorten(s) })
    }
}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        match s.as_bytes() {
            &[f1, r1, f2, r2] => square_of(f1, r1).zip(square_of(f2, r2)),
            _ => None,
        }
        .map(|(from, to)| Move::new(from, to))
        .ok_or_else(|| ParseMoveError { text: shorten(s) })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text does not describe a position.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum FenError {
    /// Not four space-separated fields.
    #[error(
        "a position has 4 fields (ranks, side to move, plies since a capture, move number), this one has {0}"
    )]
    FieldCount(usize),
    /// Not eight ranks.
    #[error("a position has 8 ranks separated by '/', this one has {0}")]
    RankCount(usize),
    /// A character that starts no cell.
    #[error("rank {rank} holds '{ch}'; a cell is '.' or a piece like x3, o2(4) or X1(12)")]
    BadChar {
        /// The rank (8 at the top).
        rank: u8,
        /// The character.
        ch: char,
    },
    /// A piece without a number 1-5.
    #[error("rank {rank}: a piece needs a number 1-5 after its letter, like x3")]
    BadNumber {
        /// The rank.
        rank: u8,
    },
    /// Points that are not a number 0-83 in brackets.
    #[error("rank {rank}: a piece's points are a number 0-83 in brackets, like x3(12)")]
    BadPoints {
        /// The rank.
        rank: u8,
    },
    /// A rank with more than ten cells.
    #[error("rank {rank} has more than 10 cells")]
    RankTooLong {
        /// The rank.
        rank: u8,
    },
    /// A rank with fewer than ten cells.
    #[error("rank {rank} has fewer than 10 cells")]
    RankTooShort {
        /// The rank.
        rank: u8,
    },
    /// A piece on a central cell.
    #[error("a piece stands on the central cell {square}, where no piece may stop")]
    Central {
        /// The cell.
        square: Square,
    },
    /// Upper case for a piece with fewer than 10 points, or lower case for
    /// one with 10 or more.
    #[error("the piece on {square} is super exactly when it has 10 points or more (upper case)")]
    SuperMismatch {
        /// The piece's cell.
        square: Square,
    },
    /// More pieces of one number than a player starts with.
    #[error("{player} has {count} pieces numbered {number}, more than the {start} it starts with")]
    TooMany {
        /// The player.
        player: Player,
        /// The number.
        number: u8,
        /// How many the position has.
        count: u8,
        /// How many a player starts with.
        start: u8,
    },
    /// Numbers and points that add up to more than the value of all pieces.
    #[error(
        "the numbers and points on the board add up to {found}, more than the {TOTAL_VALUE} of all pieces"
    )]
    Value {
        /// The sum in the position.
        found: u32,
    },
    /// The side that just moved has one piece or none: the game ended
    /// before its move.
    #[error(
        "{0} has one piece or none, so the game ended before {0} moved; {0} cannot have just moved"
    )]
    MoverLost(Player),
    /// The side to move is not `x` or `o`.
    #[error("side to move '{0}' is neither x nor o")]
    BadSide(String),
    /// The plies since a capture are not a number.
    #[error("plies since a capture '{0}' is not a number")]
    BadQuiet(String),
    /// The full-move number is not a positive number.
    #[error("move number '{0}' is not a positive number")]
    BadFullmove(String),
    /// The move number is past the end of every game.
    #[error("move number {fullmove} is past ply {PLY_LIMIT}, where every game ends")]
    PastLimit {
        /// The full-move number.
        fullmove: u32,
    },
    /// More plies since a capture than plies in the game.
    #[error("{quiet} plies since a capture, but only {ply} plies played")]
    QuietPastPly {
        /// The plies since a capture.
        quiet: u32,
        /// The plies played.
        ply: u32,
    },
}

/// The cells of one rank of a position's text.
fn read_rank(text: &str, rank: u8) -> Result<Vec<Option<(bool, Piece)>>, FenError> {
    let mut cells = Vec::with_capacity(FILES as usize);
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        let (owner, is_super) = match ch {
            '.' => {
                cells.push(None);
                continue;
            }
            'x' => (Player::X, false),
            'o' => (Player::O, false),
            'X' => (Player::X, true),
            'O' => (Player::O, true),
            _ => return Err(FenError::BadChar { rank, ch }),
        };
        let number = match chars.next() {
            Some(d @ '1'..='5') => d as u8 - b'0',
            _ => return Err(FenError::BadNumber { rank }),
        };
        let mut points = 0;
        if chars.next_if_eq(&'(').is_some() {
            let mut digits = String::new();
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                digits.push(d);
            }
            points = match (digits.parse::<u8>(), chars.next()) {
                (Ok(p), Some(')')) if (p as u32) < TOTAL_VALUE => p,
                _ => return Err(FenError::BadPoints { rank }),
            };
        }
        let piece = Piece {
            owner,
            number,
            points,
        };
        cells.push(Some((is_super, piece)));
    }
    match cells.len().cmp(&(FILES as usize)) {
        std::cmp::Ordering::Greater => Err(FenError::RankTooLong { rank }),
        std::cmp::Ordering::Less => Err(FenError::RankTooShort { rank }),
        std::cmp::Ordering::Equal => Ok(cells),
    }
}

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
    pieces: Vec<(Square, Piece)>,
    side: Player,
    quiet: u32,
    ply: u32,
}

impl Setup {
    /// The four fields of a FEN, each read on its own, and the ply they
    /// give within the game's limit.
    fn read(s: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        let [board, side, quiet, fullmove] = fields[..] else {
            return Err(FenError::FieldCount(fields.len()));
        };
        let pieces = read_board(board)?;
        let side = match side {
            "x" => Player::X,
            "o" => Player::O,
            _ => return Err(FenError::BadSide(shorten(side))),
        };
        // Digits only: `parse` would take a leading `+`.
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        let quiet: u32 = match quiet.parse() {
            Ok(n) if digits(quiet) => n,
            _ => return Err(FenError::BadQuiet(shorten(quiet))),
        };
        let fullmove: u32 = match fullmove.parse() {
            Ok(n) if n > 0 && digits(fullmove) => n,
            _ => return Err(FenError::BadFullmove(shorten(fullmove))),
        };
        let ply = 2 * (fullmove as u64 - 1) + side.index() as u64;
        if ply > PLY_LIMIT as u64 {
            return Err(FenError::PastLimit { fullmove });
        }
        Ok(Setup {
            pieces,
            side,
            quiet,
            ply: ply as u32,
        })
    }

    /// The position, if it can arise: no more pieces of a number than the
    /// start has, no more value, the player who just moved with more than
    /// one piece, and no more quiet plies than plies.
    fn position(self) -> Result<Position, FenError> {
        let Setup {
            pieces,
            side,
            quiet,
            ply,
        } = self;
        if quiet > ply {
            return Err(FenError::QuietPastPly { quiet, ply });
        }
        for player in [Player::X, Player::O] {
            for number in 1..=5u8 {
                let count = pieces
                    .iter()
                    .filter(|(_, p)| p.owner == player && p.number == number)
                    .count() as u8;
                let start = START_COUNTS[number as usize];
                if count > start {
                    return Err(FenError::TooMany {
                        player,
                        number,
                        count,
                        start,
                    });
                }
            }
        }
        let found = pieces.iter().map(|(_, p)| p.value()).sum();
        if found > TOTAL_VALUE {
            return Err(FenError::Value { found });
        }
        let mover = side.opponent();
        if pieces.iter().filter(|(_, p)| p.owner == mover).count() <= 1 {
            return Err(FenError::MoverLost(mover));
        }
        let mut pos = Position::empty(side, quiet as u16, ply as u16);
        for (square, piece) in pieces {
            pos.put(square, piece);
        }
        pos.outcome = pos.judge();
        Ok(pos)
    }
}

/// The pieces of a FEN's board: eight ranks, 8 to 1, none on the central
/// cells, a super piece marked as such.
fn read_board(board: &str) -> Result<Vec<(Square, Piece)>, FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != RANKS as usize {
        return Err(FenError::RankCount(ranks.len()));
    }
    let mut pieces = Vec::with_capacity(CELLS);
    for (row, text) in ranks.iter().enumerate() {
        let rank = RANKS - row as u8;
        for (file, cell) in read_rank(text, rank)?.into_iter().enumerate() {
            let square = Square::new(file as u8, rank - 1).expect("a cell of the board");
            if let Some((is_super, piece)) = cell {
                if square.is_central() {
                    return Err(FenError::Central { square });
                }
                if is_super != piece.is_super() {
                    return Err(FenError::SuperMismatch { square });
                }
                pieces.push((square, piece));
            }
        }
    }
    Ok(pieces)
}

impl fmt::Display for Position {
    /// Writes the position's text (see the module docs).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..RANKS).rev() {
            for file in 0..FILES {
                let square = Square::new(file, rank).expect("a cell of the board");
                match self.piece_at(square) {
                    None => write!(f, ".")?,
                    Some(piece) => {
                        let letter = match (piece.owner, piece.is_super()) {
                            (Player::X, false) => 'x',
                            (Player::O, false) => 'o',
                            (Player::X, true) => 'X',
                            (Player::O, true) => 'O',
                        };
                        write!(f, "{letter}{}", piece.number)?;
                        if piece.points > 0 {
                            write!(f, "({})", piece.points)?;
                        }
                    }
                }
            }
            if rank > 0 {
                write!(f, "/")?;
            }
        }
        let fullmove = 1 + self.ply() / 2;
        write!(
            f,
            " {} {} {fullmove}",
            self.side_to_move(),
            self.quiet_plies()
        )
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// Why a list of moves cannot be played from a position.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum MovesError {
    /// A token is not a move.
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    /// A move is not legal where it comes.
    #[error("move {index} ({mv}) is illegal: {reason}")]
    Illegal {
        /// The move.
        mv: Move,
        /// Its 1-based place in the list.
        index: usize,
        /// Why it is illegal.
        reason: PlayError,
    },
}

/// Plays a list of moves from `pos`, all or nothing: on an error the
/// caller keeps its position.
pub fn play_moves<'a, I>(pos: &Position, moves: I) -> Result<Position, MovesError>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut pos = *pos;
    for (i, text) in moves.into_iter().enumerate() {
        let mv: Move = text.parse()?;
        pos.try_play(mv).map_err(|reason| MovesError::Illegal {
            mv,
            index: i + 1,
            reason,
        })?;
    }
    Ok(pos)
}

impl crate::game::Notation for Position {
    const KIND: crate::game::GameKind = crate::game::GameKind::Super15;
    type FenError = FenError;
    type MoveError = ParseMoveError;
    type PlayError = PlayError;
    type MovesError = MovesError;

    fn startpos() -> Position {
        Position::startpos()
    }

    fn parse_move(text: &str) -> Result<Move, ParseMoveError> {
        text.parse()
    }

    fn check(&self, m: Move) -> Result<(), PlayError> {
        Position::check(self, m)
    }

    fn perft(&self, depth: u32) -> u64 {
        super::perft(self, depth)
    }

    fn play_moves<'a, I: IntoIterator<Item = &'a str>>(
        &self,
        moves: I,
    ) -> Result<Position, MovesError> {
        play_moves(self, moves)
    }
}
