//! The rules of "Super 1 al 5" on bitboards.
//!
//! Two players, light (`x`, moving first) and dark (`o`), each with 16
//! numbered pieces on a board of 10 files (`a`-`j`) by 8 ranks (`1`-`8`).
//! A piece numbered `n` moves up to `n` cells in one of the 8 directions
//! over empty cells, and may capture the first piece of the other side it
//! meets within that range by taking its cell. Captured numbers and points
//! are added to the capturer's points; at 10 points a piece becomes
//! *super*: it moves without a limit of cells and, along a line that holds
//! pieces of the other side, captures all of them and stops on the last.
//! No piece may stop on the four central cells `e4 f4 e5 f5`. A player
//! left with one piece (or none) loses. The full rules, and the reason for
//! each choice where the original text leaves one open, are in
//! `docs/super-1-al-5.md`; the text of cells, moves and positions is in
//! [`notation`].
//!
//! The cells are numbered `10 * rank + file` (`a1` = 0, `j1` = 9, `j8` =
//! 79), one bit each of a `u128` per player. [`Position`] is `Copy`; move
//! generation works one piece at a time on those masks and never allocates.
//!
//! ```
//! use ultimo::game::Outcome;
//! use ultimo::super15::{Position, perft};
//!
//! let mut pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 44);
//! pos.try_play("e2e3".parse().unwrap()).unwrap();
//! assert_eq!(pos.outcome(), None::<Outcome>);
//! assert!(pos.try_play("e7e4".parse().unwrap()).is_err()); // a central cell
//! assert_eq!(perft(&Position::startpos(), 2), 1_934);
//! ```

use crate::game::{Outcome, Player};

mod as_game;
pub mod notation;

#[cfg(test)]
mod tests;

/// Files on the board, `a`-`j`.
pub const FILES: u8 = 10;
/// Ranks on the board, `1`-`8`.
pub const RANKS: u8 = 8;
/// Cells on the board.
pub const CELLS: usize = 80;
/// Captured points that make a piece super.
pub const SUPER_POINTS: u8 = 10;
/// The ending of few pieces: when both players have the same number of
/// pieces, at most this many, ...
pub const FEW_PIECES: u32 = 3;
/// ... and this many plies have gone by without a capture, the game ends
/// and the greater [`Position::value`] wins.
pub const FEW_PIECES_PLIES: u16 = 20;
/// A game ends after this many plies whatever the position, and the
/// greater [`Position::value`] wins.
pub const PLY_LIMIT: u16 = 300;
/// The value (numbers plus points) of all pieces at the start, the same in
/// every position of a game: a capture moves value, never creates it. The
/// position reader accepts less (as a chess FEN accepts positions no game
/// reaches), never more.
pub const TOTAL_VALUE: u32 = 84;
/// A bound on the legal moves of any position the reader accepts: a player
/// has at most 16 pieces, and a piece reaches at most the 30 cells a queen
/// reaches from the middle of an empty 10 x 8 board. Positions with 260
/// legal moves exist (see the tests); the search must hold that many
/// children.
pub const MAX_MOVES: usize = 16 * 30;

/// The four central cells `e4 f4 e5 f5`, where no piece may stop.
pub const CENTRAL: u128 = 1 << 34 | 1 << 35 | 1 << 44 | 1 << 45;

/// The numbers of the 16 pieces at the start, by file `a`-`j`, on the back
/// rank (rank 1 for light, rank 8 for dark) and on the front rank (rank 2
/// for light, rank 7 for dark); 0 is an empty cell.
pub const START_NUMBERS: [[u8; FILES as usize]; 2] = [
    [0, 2, 3, 4, 5, 5, 4, 3, 2, 0],
    [0, 1, 1, 2, 3, 3, 2, 1, 1, 0],
];

/// How many pieces of each number (index 1-5) a player starts with.
pub const START_COUNTS: [u8; 6] = {
    let mut counts = [0u8; 6];
    let mut row = 0;
    while row < 2 {
        let mut file = 0;
        while file < FILES as usize {
            counts[START_NUMBERS[row][file] as usize] += 1;
            file += 1;
        }
        row += 1;
    }
    counts[0] = 0;
    counts
};

/// The eight directions as (file step, rank step).
const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The cells from one cell to the edge of the board in one direction,
/// nearest first.
#[derive(Copy, Clone)]
struct Ray {
    len: u8,
    cells: [u8; 9],
}

impl Ray {
    #[inline(always)]
    fn cells(&self) -> &[u8] {
        &self.cells[..self.len as usize]
    }

    /// The ray's cells as a mask.
    fn mask(&self) -> u128 {
        self.cells().iter().fold(0, |mask, &cell| mask | 1 << cell)
    }
}

/// `RAYS[cell][direction]`.
const RAYS: [[Ray; 8]; CELLS] = {
    let mut rays = [[Ray {
        len: 0,
        cells: [0; 9],
    }; 8]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRECTIONS[d];
            let mut file = (cell % 10) as i8 + df;
            let mut rank = (cell / 10) as i8 + dr;
            let ray = &mut rays[cell][d];
            while file >= 0 && file < FILES as i8 && rank >= 0 && rank < RANKS as i8 {
                ray.cells[ray.len as usize] = (10 * rank + file) as u8;
                ray.len += 1;
                file += df;
                rank += dr;
            }
            d += 1;
        }
        cell += 1;
    }
    rays
};

/// The cells after `from` up to and including `to`, which must lie on one
/// of its rays (0 otherwise).
fn line_between(from: usize, to: usize) -> u128 {
    for ray in &RAYS[from] {
        if let Some(k) = ray.cells().iter().position(|&cell| cell as usize == to) {
            return ray.cells()[..=k]
                .iter()
                .fold(0, |mask, &cell| mask | 1 << cell);
        }
    }
    0
}

/// A cell of the board. The default is `a1`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Square(u8);

impl Square {
    /// The cell on `file` (0-9 for `a`-`j`) and `rank` (0-7 for `1`-`8`),
    /// or `None` off the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < FILES && rank < RANKS {
            Some(Square(10 * rank + file))
        } else {
            None
        }
    }

    /// The cell of index `10 * rank + file` (0-79).
    pub const fn from_index(index: u8) -> Option<Square> {
        if (index as usize) < CELLS {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The file, 0-9 for `a`-`j`.
    pub const fn file(self) -> u8 {
        self.0 % 10
    }

    /// The rank, 0-7 for `1`-`8`.
    pub const fn rank(self) -> u8 {
        self.0 / 10
    }

    /// `10 * rank + file`, 0-79: the cell's bit in the masks.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Whether no piece may stop here.
    pub const fn is_central(self) -> bool {
        CENTRAL >> self.0 & 1 == 1
    }

    #[inline(always)]
    const fn bit(self) -> u128 {
        1 << self.0
    }
}

/// A move of the piece on one cell to another; two bytes. What it captures
/// follows from the position. The default, `a1a1`, is never legal.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Move {
    from: Square,
    to: Square,
}

impl crate::game::Packed for Move {
    type Word = std::sync::atomic::AtomicU16;
    #[inline(always)]
    fn pack(self) -> u16 {
        self.from.0 as u16 | (self.to.0 as u16) << 8
    }
    #[inline(always)]
    fn unpack(bits: u16) -> Move {
        Move {
            from: Square(bits as u8),
            to: Square((bits >> 8) as u8),
        }
    }
}

impl Move {
    /// The move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// The cell the piece leaves.
    pub const fn from(self) -> Square {
        self.from
    }

    /// The cell where the piece stops.
    pub const fn to(self) -> Square {
        self.to
    }
}

/// A piece as the rules see it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub owner: Player,
    /// Its number, 1-5: how far it moves while not super.
    pub number: u8,
    /// The points it has captured.
    pub points: u8,
}

impl Piece {
    /// Whether it has captured [`SUPER_POINTS`] or more.
    pub const fn is_super(self) -> bool {
        self.points >= SUPER_POINTS
    }

    /// What capturing it adds to the capturer's points: its number plus
    /// its own points.
    pub const fn value(self) -> u32 {
        self.number as u32 + self.points as u32
    }
}

/// Why a move cannot be played.
#[derive(Copy, Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PlayError {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// The move starts on a cell without a piece of the side to move.
    #[error("{square} holds no piece of the side to move")]
    NotYourPiece {
        /// The cell.
        square: Square,
    },
    /// The move stops on a central cell.
    #[error("no piece may stop on the central cell {square}")]
    Central {
        /// The cell.
        square: Square,
    },
    /// A super piece must capture the whole line it moves along.
    #[error("a super piece moving this way must capture the whole line and stop on {stop}")]
    SuperStopsOnLast {
        /// The cell of the last piece of the line.
        stop: Square,
    },
    /// The piece cannot reach the cell.
    #[error(
        "the piece on {from} cannot reach {to} (not on a line, too far, blocked, or its own piece)"
    )]
    Unreachable {
        /// The piece's cell.
        from: Square,
        /// The cell asked for.
        to: Square,
    },
}

/// A fixed-capacity list of moves; no allocation. [`Position::legal_moves`]
/// lists captures first.
#[derive(Copy, Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: u16,
}

impl MoveList {
    fn new() -> MoveList {
        MoveList {
            moves: [Move::default(); MAX_MOVES],
            len: 0,
        }
    }

    /// Adds a move from `from` to every cell of `targets`.
    #[inline(always)]
    fn push_targets(&mut self, from: u8, mut targets: u128) {
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            self.moves[self.len as usize] = Move::new(Square(from), Square(to));
            self.len += 1;
        }
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A random number in `0..n` from 32 random bits (multiply-shift).
#[inline(always)]
fn below(random: u32, n: u32) -> u32 {
    ((random as u64 * n as u64) >> 32) as u32
}

/// A position: the pieces, their numbers and points, the side to move and
/// the counters of the end rules. The outcome is worked out once, when the
/// position is made.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    /// The cells of each player's pieces, indexed by [`Player::index`].
    pieces: [u128; 2],
    /// The number of the piece on each cell; 0 on empty cells.
    number: [u8; CELLS],
    /// The points of the piece on each cell; 0 on empty cells.
    points: [u8; CELLS],
    /// The side to move.
    side: Player,
    /// Plies since the last capture.
    quiet: u16,
    /// Plies since the start.
    ply: u16,
    /// How the game ended, if it did.
    outcome: Option<Outcome>,
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    /// The starting position, light (`x`) to move.
    pub fn startpos() -> Position {
        let mut pos = Position::empty(Player::X, 0, 0);
        for (row, numbers) in START_NUMBERS.iter().enumerate() {
            for (file, &number) in numbers.iter().enumerate() {
                if number == 0 {
                    continue;
                }
                for (owner, rank) in [(Player::X, row), (Player::O, 7 - row)] {
                    let square = Square(10 * rank as u8 + file as u8);
                    let points = 0;
                    let piece = Piece {
                        owner,
                        number,
                        points,
                    };
                    pos.put(square, piece);
                }
            }
        }
        pos.outcome = pos.judge();
        pos
    }

    /// An empty board; with [`Position::put`] and [`Position::judge`], how
    /// the FEN reader builds a position it has checked.
    fn empty(side: Player, quiet: u16, ply: u16) -> Position {
        Position {
            pieces: [0; 2],
            number: [0; CELLS],
            points: [0; CELLS],
            side,
            quiet,
            ply,
            outcome: None,
        }
    }

    /// Puts a piece on an empty cell.
    fn put(&mut self, square: Square, piece: Piece) {
        let i = square.index() as usize;
        debug_assert!(self.piece_at(square).is_none());
        self.pieces[piece.owner.index()] |= square.bit();
        self.number[i] = piece.number;
        self.points[i] = piece.points;
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        self.side
    }

    /// Plies played since the start.
    pub fn ply(&self) -> u32 {
        self.ply as u32
    }

    /// Plies played since the last capture (or the start).
    pub fn quiet_plies(&self) -> u32 {
        self.quiet as u32
    }

    /// How the game ended, or `None` while it goes on.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game is over.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The piece on a cell, if any.
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let i = square.index() as usize;
        let owner = if self.pieces[0] & square.bit() != 0 {
            Player::X
        } else if self.pieces[1] & square.bit() != 0 {
            Player::O
        } else {
            return None;
        };
        Some(Piece {
            owner,
            number: self.number[i],
            points: self.points[i],
        })
    }

    /// The cells of a player's pieces, one bit per cell (see the module
    /// docs).
    pub fn pieces(&self, player: Player) -> u128 {
        self.pieces[player.index()]
    }

    /// How many pieces a player has.
    pub fn count(&self, player: Player) -> u32 {
        self.pieces(player).count_ones()
    }

    /// The value of a player's pieces: their numbers plus their points.
    /// The two players' values add up to [`TOTAL_VALUE`]; the end rules
    /// give the game to the greater.
    pub fn value(&self, player: Player) -> u32 {
        let mut cells = self.pieces(player);
        let mut total = 0;
        while cells != 0 {
            let i = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            total += self.number[i] as u32 + self.points[i] as u32;
        }
        total
    }

    /// Whether the piece on cell `i` is super.
    #[inline(always)]
    fn is_super_at(&self, i: usize) -> bool {
        self.points[i] >= SUPER_POINTS
    }

    /// The cells where the piece of the side to move on cell `from` may
    /// stop.
    #[inline]
    fn targets(&self, from: usize) -> u128 {
        let own = self.pieces[self.side.index()];
        let other = self.pieces[self.side.opponent().index()];
        let mut targets = 0;
        if self.is_super_at(from) {
            // Along a line holding pieces of the other side, the only stop
            // is the last of them before the piece's own side or the edge;
            // along a line without any, every cell up to the first own piece.
            for ray in &RAYS[from] {
                let mut last = 0;
                let mut free = 0;
                for &cell in ray.cells() {
                    let bit = 1u128 << cell;
                    if own & bit != 0 {
                        break;
                    }
                    if other & bit != 0 {
                        last = bit;
                    } else if last == 0 {
                        free |= bit;
                    }
                }
                targets |= if last != 0 { last } else { free };
            }
        } else {
            // Up to `number` empty cells, or the first piece of the other
            // side within that range.
            let occupied = own | other;
            let range = self.number[from] as usize;
            for ray in &RAYS[from] {
                for &cell in ray.cells().iter().take(range) {
                    let bit = 1u128 << cell;
                    if occupied & bit != 0 {
                        targets |= bit & other;
                        break;
                    }
                    targets |= bit;
                }
            }
        }
        targets & !CENTRAL
    }

    /// The legal moves: every capture first, then the other moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.is_over() {
            return list;
        }
        let other = self.pieces[self.side.opponent().index()];
        // At most 16 pieces: the FEN reader allows no more.
        let mut targets = [(0u8, 0u128); 16];
        let mut n = 0;
        let mut cells = self.pieces[self.side.index()];
        while cells != 0 {
            let from = cells.trailing_zeros() as u8;
            cells &= cells - 1;
            targets[n] = (from, self.targets(from as usize));
            n += 1;
        }
        for &(from, t) in &targets[..n] {
            list.push_targets(from, t & other);
        }
        for &(from, t) in &targets[..n] {
            list.push_targets(from, t & !other);
        }
        list
    }

    /// The number of legal moves (perft's last ply).
    pub fn count_moves(&self) -> u32 {
        if self.is_over() {
            return 0;
        }
        let mut cells = self.pieces[self.side.index()];
        let mut total = 0;
        while cells != 0 {
            let from = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            total += self.targets(from).count_ones();
        }
        total
    }

    /// Whether `m` captures.
    pub fn is_capture(&self, m: Move) -> bool {
        self.pieces[self.side.opponent().index()] & m.to.bit() != 0
    }

    /// Whether `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        self.check(m).is_ok()
    }

    /// Why `m` is illegal here, or `Ok` when it is legal.
    pub fn check(&self, m: Move) -> Result<(), PlayError> {
        let from = m.from.index() as usize;
        if self.is_over() {
            Err(PlayError::GameOver)
        } else if self.pieces[self.side.index()] & m.from.bit() == 0 {
            Err(PlayError::NotYourPiece { square: m.from })
        } else if self.targets(from) & m.to.bit() != 0 {
            Ok(())
        } else if m.to.is_central() {
            Err(PlayError::Central { square: m.to })
        } else if let Some(stop) = self.super_stop(m) {
            Err(PlayError::SuperStopsOnLast { stop })
        } else {
            Err(PlayError::Unreachable {
                from: m.from,
                to: m.to,
            })
        }
    }

    /// When `m` moves a super piece along a line holding pieces of the other
    /// side but does not stop on the last of them: that piece's cell.
    fn super_stop(&self, m: Move) -> Option<Square> {
        let from = m.from.index() as usize;
        if !self.is_super_at(from) {
            return None;
        }
        let line = RAYS[from]
            .iter()
            .find(|ray| ray.cells().contains(&m.to.0))?
            .mask();
        // On such a line the super piece's only target is that last piece.
        let stop = self.targets(from) & line & self.pieces[self.side.opponent().index()];
        (stop != 0).then_some(Square(stop.trailing_zeros() as u8))
    }

    /// Plays `m` if it is legal; otherwise says why and leaves the position
    /// as it was.
    pub fn try_play(&mut self, m: Move) -> Result<(), PlayError> {
        self.check(m)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays `m`, panicking if it is illegal. For tests and trusted input.
    pub fn play(&mut self, m: Move) {
        if let Err(e) = self.check(m) {
            panic!("illegal move {m} in {self}: {e}");
        }
        self.play_unchecked(m);
    }

    /// Plays `m` without checking it: the search's fast path.
    ///
    /// `m` must be legal; otherwise the position no longer follows the
    /// rules (it never causes undefined behaviour, only wrong results).
    /// Debug builds assert it.
    pub fn play_unchecked(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "illegal move {m} in {self}");
        let (from, to) = (m.from.index() as usize, m.to.index() as usize);
        let other = self.side.opponent().index();
        let taken = self.captured(m);
        let mut gained = 0;
        let mut cells = taken;
        while cells != 0 {
            let i = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            gained += self.number[i] + self.points[i];
            self.number[i] = 0;
            self.points[i] = 0;
        }
        self.pieces[other] &= !taken;
        self.pieces[self.side.index()] ^= m.from.bit() | m.to.bit();
        self.number[to] = self.number[from];
        self.points[to] = self.points[from] + gained;
        self.number[from] = 0;
        self.points[from] = 0;
        self.quiet = if taken != 0 { 0 } else { self.quiet + 1 };
        self.ply += 1;
        self.side = self.side.opponent();
        self.outcome = self.judge();
    }

    /// The cells of the pieces `m` captures: for a super piece, every piece
    /// of the other side on its way; else the piece it stops on, if any.
    #[inline]
    fn captured(&self, m: Move) -> u128 {
        let other = self.pieces[self.side.opponent().index()];
        if self.is_super_at(m.from.index() as usize) {
            line_between(m.from.index() as usize, m.to.index() as usize) & other
        } else {
            m.to.bit() & other
        }
    }

    /// The end rules, for the position as it stands with the side to move
    /// about to play (`None`: the game goes on). A player with a piece
    /// always has a legal move (see the docs), so there is no rule for a
    /// player who cannot move.
    fn judge(&self) -> Option<Outcome> {
        let to_move = self.side;
        let mover = to_move.opponent();
        if self.count(to_move) <= 1 {
            Some(Outcome::Win(mover))
        } else if self.limit_reached(self.quiet, self.ply) {
            Some(self.by_value())
        } else {
            None
        }
    }

    /// Whether, with the pieces as they stand, `quiet` plies without a
    /// capture at ply `ply` stop the game: the ending of few pieces, or
    /// the ply limit.
    fn limit_reached(&self, quiet: u16, ply: u16) -> bool {
        let (x, o) = (self.count(Player::X), self.count(Player::O));
        (x == o && x <= FEW_PIECES && quiet >= FEW_PIECES_PLIES) || ply >= PLY_LIMIT
    }

    /// The result when the end rules stop the game: the greater value wins.
    fn by_value(&self) -> Outcome {
        let (x, o) = (self.value(Player::X), self.value(Player::O));
        match x.cmp(&o) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::X),
            std::cmp::Ordering::Less => Outcome::Win(Player::O),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// A move that wins the game at once, if the side to move has one: a
    /// capture that leaves the other side one piece or none, or a move
    /// after which an end rule stops the game with the side to move ahead
    /// in value.
    pub fn winning_move(&self) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        let me = self.side;
        if self.limit_reached(self.quiet + 1, self.ply + 1) {
            // Rare: a move that captures nothing ends the game, so try
            // every move.
            return self.legal_moves().iter().copied().find(|&m| {
                let mut after = *self;
                after.play_unchecked(m);
                after.outcome() == Some(Outcome::Win(me))
            });
        }
        // Otherwise only a capture that leaves one piece or none wins.
        let theirs = self.count(me.opponent());
        let other = self.pieces[me.opponent().index()];
        let mut cells = self.pieces[me.index()];
        while cells != 0 {
            let from = Square(cells.trailing_zeros() as u8);
            cells &= cells - 1;
            let mut stops = self.targets(from.index() as usize) & other;
            while stops != 0 {
                let m = Move::new(from, Square(stops.trailing_zeros() as u8));
                stops &= stops - 1;
                if theirs - self.captured(m).count_ones() <= 1 {
                    return Some(m);
                }
            }
        }
        None
    }

    /// A uniformly random legal move, or `None` when the game is over.
    pub fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        let moves = self.legal_moves();
        if moves.is_empty() {
            return None;
        }
        Some(moves[below(rng.next_u32(), moves.len() as u32) as usize])
    }

    /// The move of the capture-first playout: a game-winning move if
    /// [`Position::winning_move`] finds one, else a uniformly random
    /// capture, else a uniformly random move; `None` when the game is over.
    pub fn capture_first_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        if let Some(m) = self.winning_move() {
            return Some(m);
        }
        let moves = self.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let captures = moves.iter().take_while(|&&m| self.is_capture(m)).count();
        let n = if captures > 0 { captures } else { moves.len() };
        Some(moves[below(rng.next_u32(), n as u32) as usize])
    }

    /// Plays uniformly random moves to the end of the game; returns the
    /// final position.
    pub fn random_playout<R: rand::Rng + ?Sized>(self, rng: &mut R) -> Position {
        let mut pos = self;
        while let Some(m) = pos.random_move(rng) {
            pos.play_unchecked(m);
        }
        pos
    }

    /// Plays capture-first moves ([`Position::capture_first_move`]) to the
    /// end of the game; returns the final position.
    pub fn capture_first_playout<R: rand::Rng + ?Sized>(self, rng: &mut R) -> Position {
        let mut pos = self;
        while let Some(m) = pos.capture_first_move(rng) {
            pos.play_unchecked(m);
        }
        pos
    }
}

/// Counts the leaves of the move tree `depth` plies deep (bulk counting at
/// the last ply); a finished game is a leaf only at depth 0.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = *pos;
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}
