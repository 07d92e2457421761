//! The rules of Ultimate Tic-Tac-Toe on bitboards.
//!
//! The 81 cells are numbered board-major: board `b` (0-8, reading order from
//! the top-left) holds cells `c` (0-8, reading order), and a move in cell `c`
//! sends the opponent to board `c`. Each player's marks are bits of a `u128`
//! in which boards 0-6 take bits 0-62 and boards 7-8 take bits 64-81, so that
//! every small board lies inside one 64-bit half and each per-board operation
//! is a single 64-bit shift.
//!
//! [`Position`] is `Copy` and keeps its masks incremental: the empty cells of
//! open boards ([`Position::legal_mask`] is one AND with it), the boards each
//! player has won, and the closed boards.
//!
//! ```
//! use ultimo::rules::Position;
//!
//! let mut pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 81);
//! let e5 = "e5".parse().unwrap();
//! pos.try_play(e5).unwrap();
//! assert_eq!(pos.legal_moves().len(), 8); // sent to the centre board
//! assert_eq!(pos.outcome(), None);
//! ```

use std::fmt;

use crate::game::{Outcome, Player};

/// Bit offset of board `b`'s first cell inside the `u128`: `9 * b` for
/// boards 0-6, and one more for boards 7-8 so that they start at bit 64.
#[inline(always)]
pub(crate) const fn board_offset(b: usize) -> u32 {
    9 * b as u32 + (b >= 7) as u32
}

/// The bits of every cell.
pub const ALL_CELLS: u128 = ((1u128 << 63) - 1) | (((1u128 << 18) - 1) << 64);

/// Marker for "no board": the side to move may play on any open board.
pub(crate) const ANY_BOARD: u8 = 9;

const NO_MOVE: u8 = u8::MAX;

/// `CELLS_OF[b]` is the mask of board `b`'s cells; `CELLS_OF[9]` is every cell
/// (padded to 16 entries).
const CELLS_OF: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut b = 0;
    while b < 9 {
        t[b] = 0x1ffu128 << board_offset(b);
        b += 1;
    }
    t[9] = ALL_CELLS;
    t
};

/// The eight lines of a 3x3 board as 9-bit masks.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

const fn has_line(mask: u16) -> bool {
    let mut i = 0;
    while i < 8 {
        if mask & LINES[i] == LINES[i] {
            return true;
        }
        i += 1;
    }
    false
}

/// Does the 9-bit mask `m` contain three in a row?
#[inline(always)]
pub(crate) fn is_line(m: u16) -> bool {
    IS_LINE[(m & 0x1ff) as usize]
}

/// The cells outside the 9-bit mask `m` that would give it three in a row.
#[inline(always)]
pub(crate) fn completing(m: u16) -> u16 {
    COMPLETING[(m & 0x1ff) as usize]
}

const IS_LINE: [bool; 512] = {
    let mut t = [false; 512];
    let mut m = 0;
    while m < 512 {
        t[m] = has_line(m as u16);
        m += 1;
    }
    t
};

const COMPLETING: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut m = 0;
    while m < 512 {
        let mut c = 0;
        while c < 9 {
            let bit = 1u16 << c;
            if m as u16 & bit == 0 && has_line(m as u16 | bit) {
                t[m] |= bit;
            }
            c += 1;
        }
        m += 1;
    }
    t
};

/// `SELECT9[m][k]`: the index of the `k`-th set bit of the 9-bit mask `m`
/// (rows padded to 16).
const SELECT9: [[u8; 16]; 512] = {
    let mut t = [[0u8; 16]; 512];
    let mut m = 0;
    while m < 512 {
        let mut k = 0;
        let mut c = 0;
        while c < 9 {
            if m >> c & 1 == 1 {
                t[m][k] = c as u8;
                k += 1;
            }
            c += 1;
        }
        m += 1;
    }
    t
};

/// Board and cell of each bit index (`0xff` for the unused bits 63 and 82+).
const BIT_SQUARE: [(u8, u8); 128] = {
    let mut t = [(0xffu8, 0xffu8); 128];
    let mut b = 0;
    while b < 9 {
        let mut c = 0;
        while c < 9 {
            t[(board_offset(b) + c) as usize] = (b as u8, c as u8);
            c += 1;
        }
        b += 1;
    }
    t
};

/// The 9 bits of board `b` in `bits`, with one 64-bit shift.
#[inline(always)]
pub(crate) fn board_bits(bits: u128, b: usize) -> u16 {
    let half = if b >= 7 {
        (bits >> 64) as u64
    } else {
        bits as u64
    };
    // Boards 7 and 8 start at bit 64 + 9 * (b - 7) = 9 * b + 1.
    let shift = if b >= 7 {
        9 * b as u32 - 63
    } else {
        9 * b as u32
    };
    ((half >> (shift & 63)) & 0x1ff) as u16
}

/// The index of the `k`-th set bit of `x` (`k` counted from 0, `k < popcount(x)`).
#[inline(always)]
fn select64(x: u64, k: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the `bmi2` target feature is enabled at compile time, so the
        // instruction exists on every CPU this build runs on.
        unsafe { std::arch::x86_64::_pdep_u64(1u64 << k, x).trailing_zeros() }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut x = x;
        for _ in 0..k {
            x &= x - 1;
        }
        x.trailing_zeros()
    }
}

/// The index of the `k`-th set bit of a 128-bit mask.
#[inline(always)]
pub(crate) fn select128(x: u128, k: u32) -> u32 {
    let lo = x as u64;
    let n = lo.count_ones();
    if k < n {
        select64(lo, k)
    } else {
        64 + select64((x >> 64) as u64, k - n)
    }
}

/// A random number in `0..n` from 32 random bits (multiply-shift).
#[inline(always)]
fn below(random: u32, n: u32) -> u32 {
    ((random as u64 * n as u64) >> 32) as u32
}

/// A cell to play in. The default is `a9`, a placeholder for unused slots.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u8);

impl crate::game::Packed for Move {
    type Word = std::sync::atomic::AtomicU8;
    #[inline(always)]
    fn pack(self) -> u8 {
        self.0
    }
    #[inline(always)]
    fn unpack(bits: u8) -> Move {
        Move(bits)
    }
}

impl Move {
    /// The move in cell `cell` (0-8, reading order) of board `board` (0-8,
    /// reading order from the top-left), or `None` when either is out of range.
    pub const fn new(board: u8, cell: u8) -> Option<Move> {
        if board < 9 && cell < 9 {
            Some(Move(board_offset(board as usize) as u8 + cell))
        } else {
            None
        }
    }

    /// The move from its index `9 * board + cell` (0-80).
    pub const fn from_index(index: u8) -> Option<Move> {
        if index < 81 {
            Move::new(index / 9, index % 9)
        } else {
            None
        }
    }

    /// The move from a bit index of the cell masks; the caller guarantees
    /// that `bit` is a cell's bit.
    #[inline(always)]
    pub(crate) const fn from_bit(bit: u32) -> Move {
        Move(bit as u8)
    }

    /// The move on the 9x9 grid: `col` 0-8 left to right, `row` 0-8 top to
    /// bottom.
    pub const fn from_grid(col: u8, row: u8) -> Option<Move> {
        if col < 9 && row < 9 {
            Move::new(3 * (row / 3) + col / 3, 3 * (row % 3) + col % 3)
        } else {
            None
        }
    }

    /// The small board of this move (0-8), also the board it sends to when
    /// read as a cell.
    #[inline(always)]
    pub const fn board(self) -> u8 {
        BIT_SQUARE[(self.0 & 127) as usize].0
    }

    /// The cell inside its small board (0-8); the opponent is sent to the
    /// board of that number.
    #[inline(always)]
    pub const fn cell(self) -> u8 {
        BIT_SQUARE[(self.0 & 127) as usize].1
    }

    /// `9 * board + cell`, 0-80.
    pub const fn index(self) -> u8 {
        9 * self.board() + self.cell()
    }

    /// Column on the 9x9 grid, 0-8 from the left (the file `a`-`i`).
    pub const fn col(self) -> u8 {
        3 * (self.board() % 3) + self.cell() % 3
    }

    /// Row on the 9x9 grid, 0-8 from the top (rank 9 is row 0).
    pub const fn row(self) -> u8 {
        3 * (self.board() / 3) + self.cell() / 3
    }

    #[inline(always)]
    pub(crate) const fn bit(self) -> u32 {
        self.0 as u32
    }

    #[inline(always)]
    const fn mask(self) -> u128 {
        1u128 << (self.0 & 127)
    }
}

/// Why a move cannot be played.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PlayError {
    /// The game is already over.
    GameOver,
    /// The move's small board is won or full.
    BoardClosed {
        /// The closed board (0-8).
        board: u8,
    },
    /// The cell already holds a mark.
    CellTaken,
    /// The side to move was sent to another board.
    WrongBoard {
        /// The board the side to move must play on (0-8).
        expected: u8,
    },
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::GameOver => write!(f, "the game is over"),
            PlayError::BoardClosed { board } => {
                write!(f, "the {} board is closed", board_name(*board))
            }
            PlayError::CellTaken => write!(f, "the cell is already taken"),
            PlayError::WrongBoard { expected } => {
                write!(f, "the move must be on the {} board", board_name(*expected))
            }
        }
    }
}

impl std::error::Error for PlayError {}

/// A person's name for a small board, e.g. "top-left" or "centre".
pub fn board_name(board: u8) -> &'static str {
    const NAMES: [&str; 9] = [
        "top-left",
        "top",
        "top-right",
        "left",
        "centre",
        "right",
        "bottom-left",
        "bottom",
        "bottom-right",
    ];
    NAMES.get(board as usize).copied().unwrap_or("unknown")
}

/// A fixed-capacity list of moves; no allocation.
#[derive(Copy, Clone)]
pub struct MoveList {
    moves: [Move; 81],
    len: u8,
}

impl MoveList {
    /// The moves of a cell mask, in increasing cell order.
    pub fn from_mask(mut mask: u128) -> MoveList {
        let mut list = MoveList {
            moves: [Move(0); 81],
            len: 0,
        };
        while mask != 0 {
            list.moves[list.len as usize] = Move::from_bit(mask.trailing_zeros());
            list.len += 1;
            mask &= mask - 1;
        }
        list
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A position: the marks, the state of the big board, the board the side to
/// move is sent to, and the side to move.
///
/// The marks and won boards are kept relative to the side to move (`us`,
/// `them`) and swapped after each move, so that a copy in a playout loop
/// lives in registers; only the free-line mask, of which a move changes
/// one bit, is indexed by player.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Position {
    /// The marks of the side to move.
    us: u128,
    /// The marks of the side that just moved.
    them: u128,
    /// The empty cells of open boards: the legal moves when the side to
    /// move may go anywhere; zero once the game is over.
    open: u128,
    /// The small boards won by the side to move (bits 0-8) and by the side
    /// that just moved (bits 16-24); one word, so that swapping sides is a
    /// rotation of the same size as the updates (no store-forwarding stall).
    won: u32,
    /// The small boards where `x` has a line free of `o`'s marks (bits
    /// 0-8), and where `o` has one free of `x`'s (bits 16-24), won or
    /// closed or not: kept up move by move (a move can only take the other
    /// side's lines on its board), so that [`Position::may_win`] is one
    /// look-up. Indexed by player, so that a move leaves the word alone
    /// but for one bit.
    free: u32,
    /// The small boards that are won or full.
    closed: u16,
    /// Side to move as 0 (x) or 1 (o).
    side: u8,
    /// The board the side to move must play on, or `ANY_BOARD`.
    target: u8,
    /// The bit of the last move, or `NO_MOVE`.
    last: u8,
    /// The game's status, as 0 ongoing, 1 x won, 2 o won, 3 drawn.
    status: u8,
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// The marks, the side to move, the board to play and the status: not the
/// last move, which matters only through the board to play, so positions
/// reached by different last moves that send to the same
/// board (or anywhere) hash alike, so that the solver's table shares them.
impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The marks decide the boards won and closed.
        self.us.hash(state);
        self.them.hash(state);
        state.write_u32(self.side as u32 | (self.target as u32) << 8 | (self.status as u32) << 16);
    }
}

impl Position {
    /// The empty board, `x` to move anywhere.
    pub const fn startpos() -> Position {
        Position {
            us: 0,
            them: 0,
            open: ALL_CELLS,
            won: 0,
            free: 0x01ff_01ff,
            closed: 0,
            side: 0,
            target: ANY_BOARD,
            last: NO_MOVE,
            status: 0,
        }
    }

    /// Builds a position from marks, side to move and last move, checking
    /// only what the bitboards need (disjoint marks on real cells). The FEN
    /// parser checks the rest.
    pub(crate) fn from_parts(marks: [u128; 2], side: Player, last: Option<Move>) -> Position {
        debug_assert_eq!(marks[0] & marks[1], 0);
        debug_assert_eq!((marks[0] | marks[1]) & !ALL_CELLS, 0);
        let mut won = [0u16; 2];
        let mut free = [0u16; 2];
        let mut closed = 0u16;
        let mut open = 0u128;
        let empty = ALL_CELLS & !(marks[0] | marks[1]);
        for (b, &cells) in CELLS_OF[..9].iter().enumerate() {
            let bit = 1u16 << b;
            for (p, &m) in marks.iter().enumerate() {
                if is_line(board_bits(m, b)) {
                    won[p] |= bit;
                    closed |= bit;
                }
                // The other side has a line free of these marks.
                if is_line(!board_bits(m, b)) {
                    free[1 - p] |= bit;
                }
            }
            if board_bits(empty, b) == 0 {
                closed |= bit;
            }
            if closed & bit == 0 {
                open |= empty & cells;
            }
        }
        let status = if is_line(won[0]) {
            1
        } else if is_line(won[1]) {
            2
        } else if open == 0 {
            3
        } else {
            0
        };
        if status != 0 {
            open = 0;
        }
        let target = match last {
            Some(m) if closed & (1 << m.cell()) == 0 => m.cell(),
            _ => ANY_BOARD,
        };
        let (me, you) = (side.index(), side.opponent().index());
        Position {
            us: marks[me],
            them: marks[you],
            open,
            won: won[me] as u32 | (won[you] as u32) << 16,
            free: free[0] as u32 | (free[1] as u32) << 16,
            closed,
            side: side as u8,
            target,
            last: last.map_or(NO_MOVE, |m| m.0),
            status,
        }
    }

    /// The small boards won by the side to move.
    #[inline(always)]
    fn won_us(&self) -> u16 {
        self.won as u16
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        if self.side == 0 { Player::X } else { Player::O }
    }

    /// The game's status.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.status {
            0 => None,
            1 => Some(Outcome::Win(Player::X)),
            2 => Some(Outcome::Win(Player::O)),
            _ => Some(Outcome::Draw),
        }
    }

    /// Whether the game is over.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        self.status != 0
    }

    /// The last move played, if known.
    pub fn last_move(&self) -> Option<Move> {
        (self.last != NO_MOVE).then_some(Move(self.last))
    }

    /// The board the side to move must play on, or `None` when it may play
    /// on any open board (or the game is over).
    pub fn target_board(&self) -> Option<u8> {
        (self.target != ANY_BOARD && !self.is_over()).then_some(self.target)
    }

    /// The mark in a cell, if any.
    pub fn mark_at(&self, m: Move) -> Option<Player> {
        if self.marks(Player::X) & m.mask() != 0 {
            Some(Player::X)
        } else if self.marks(Player::O) & m.mask() != 0 {
            Some(Player::O)
        } else {
            None
        }
    }

    /// The cells a player has marked, as bits (see the module docs).
    pub fn marks(&self, p: Player) -> u128 {
        if p == self.side_to_move() {
            self.us
        } else {
            self.them
        }
    }

    /// The small boards a player has won, one bit per board.
    pub fn won_boards(&self, p: Player) -> u16 {
        if p == self.side_to_move() {
            self.won_us()
        } else {
            (self.won >> 16) as u16
        }
    }

    /// The small boards that are won or full, one bit per board.
    pub fn closed_boards(&self) -> u16 {
        self.closed
    }

    /// The number of marks on the board (plies played).
    pub fn ply(&self) -> u32 {
        (self.us | self.them).count_ones()
    }

    /// The full-move number: 1 at the start, growing after each `o` move.
    pub fn fullmove(&self) -> u32 {
        1 + self.marks(Player::O).count_ones()
    }

    /// The empty cells of open boards: at most the plies left to play.
    pub fn open_cells(&self) -> u32 {
        self.open.count_ones()
    }

    /// The legal moves as a cell mask; zero when the game is over.
    #[inline(always)]
    pub fn legal_mask(&self) -> u128 {
        self.open & CELLS_OF[(self.target & 15) as usize]
    }

    /// The legal moves in increasing cell order.
    pub fn legal_moves(&self) -> MoveList {
        MoveList::from_mask(self.legal_mask())
    }

    /// Whether `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_mask() & m.mask() != 0
    }

    /// Why `m` is illegal here, or `Ok` when it is legal.
    pub fn check(&self, m: Move) -> Result<(), PlayError> {
        if self.is_over() {
            Err(PlayError::GameOver)
        } else if self.closed & (1 << m.board()) != 0 {
            Err(PlayError::BoardClosed { board: m.board() })
        } else if (self.us | self.them) & m.mask() != 0 {
            Err(PlayError::CellTaken)
        } else if self.target != ANY_BOARD && m.board() != self.target {
            Err(PlayError::WrongBoard {
                expected: self.target,
            })
        } else {
            Ok(())
        }
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
            panic!("illegal move {m}: {e}");
        }
        self.play_unchecked(m);
    }

    /// Plays `m` without checking it: the search's fast path.
    ///
    /// `m` must be in [`Position::legal_mask`]; otherwise the position's
    /// masks no longer describe a reachable position (it never causes
    /// undefined behaviour, only wrong results). Debug builds assert it.
    #[inline(always)]
    pub fn play_unchecked(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "illegal move {m}");
        let (b, c) = (m.board() as usize, m.cell());
        let cell = 1u16 << c;
        let mine = board_bits(self.us, b) | cell;
        let empty = board_bits(self.open, b) & !cell;
        self.play_at(b, c, m.0, mine, empty);
    }

    /// Plays in cell `c` of board `b` (bit index `index`); `mine` and
    /// `empty` are the board's marks of the side to move and its empty
    /// cells once the move is made. The fast path behind
    /// [`Position::play_unchecked`], also fed directly by playouts.
    #[inline(always)]
    fn play_at(&mut self, b: usize, c: u8, index: u8, mine: u16, empty: u16) {
        let bit = 1u128 << (index & 127);
        self.us |= bit;
        self.open &= !bit;
        let board_bit = 1u16 << b;
        // Only the other side's free lines on this board can close.
        let theirs = 16 * (self.side as usize ^ 1) + b;
        self.free &= !(((!is_line(!mine)) as u32) << (theirs & 31));
        // The game can only end when a board closes.
        if is_line(mine) {
            self.won |= board_bit as u32;
            self.closed |= board_bit;
            self.open &= !CELLS_OF[b & 15];
            if self.open == 0 || is_line(self.won_us()) {
                self.finish();
            }
        } else if empty == 0 {
            self.closed |= board_bit;
            if self.open == 0 {
                self.finish();
            }
        }
        self.target = if self.closed & (1 << c) != 0 {
            ANY_BOARD
        } else {
            c
        };
        std::mem::swap(&mut self.us, &mut self.them);
        self.won = self.won.rotate_left(16);
        self.side ^= 1;
        self.last = index;
    }

    /// Sets the status once the side to move has won or every board is
    /// closed; called before the sides swap.
    #[inline(always)]
    fn finish(&mut self) {
        self.status = if is_line(self.won_us()) {
            1 + self.side
        } else {
            3
        };
        self.open = 0;
    }

    /// A move that wins the game at once, if the side to move has one.
    #[inline]
    pub fn winning_move(&self) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        let mut boards = completing(self.won_us()) & !self.closed;
        if self.target != ANY_BOARD {
            boards &= 1 << self.target;
        }
        while boards != 0 {
            let b = boards.trailing_zeros() as usize;
            boards &= boards - 1;
            let cells = completing(board_bits(self.us, b)) & board_bits(self.open, b);
            if cells != 0 {
                return Move::new(b as u8, cells.trailing_zeros() as u8);
            }
        }
        None
    }

    /// Whether `player` may still win: some line of the big board holds
    /// only boards `player` has won and open boards with a line free of the
    /// other side's marks. `false` is a proof that `player` cannot win
    /// (`true` is no proof of anything).
    #[inline]
    pub fn may_win(&self, player: Player) -> bool {
        match self.outcome() {
            Some(Outcome::Win(p)) => return p == player,
            Some(Outcome::Draw) => return false,
            None => {}
        }
        let free = (self.free >> (16 * player.index())) as u16;
        is_line(self.won_boards(player) | (free & !self.closed))
    }

    /// A uniformly random legal move, or `None` when the game is over.
    #[inline(always)]
    pub fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        let mask = self.legal_mask();
        if mask == 0 {
            return None;
        }
        let k = below(rng.next_u32(), mask.count_ones());
        Some(Move::from_bit(select128(mask, k)))
    }

    /// Plays one uniformly random move; `false` when the game is over.
    #[inline(always)]
    pub(crate) fn random_step<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        if self.target != ANY_BOARD {
            // Sent to one board: pick among its (at most 9) empty cells,
            // without going through the 128-bit mask.
            let t = (self.target & 15) as usize;
            let cells = board_bits(self.open, t);
            if cells == 0 {
                return false;
            }
            let mine = board_bits(self.us, t);
            let k = below(rng.next_u32(), cells.count_ones());
            let c = SELECT9[(cells & 0x1ff) as usize][(k & 15) as usize];
            let cell = 1u16 << c;
            let index = board_offset(t) as u8 + c;
            self.play_at(t, c, index, mine | cell, cells & !cell);
            true
        } else {
            match self.random_move(rng) {
                Some(m) => {
                    self.play_unchecked(m);
                    true
                }
                None => false,
            }
        }
    }

    /// Plays a game-winning move if the side to move has one, else a
    /// uniformly random move; `false` when the game is over.
    #[inline(always)]
    pub(crate) fn winning_step<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.winning_move() {
            Some(m) => {
                self.play_unchecked(m);
                true
            }
            None => self.random_step(rng),
        }
    }

    /// Plays uniformly random moves to the end of the game; returns the
    /// final position.
    pub fn random_playout<R: rand::Rng + ?Sized>(self, rng: &mut R) -> Position {
        let mut pos = self;
        while pos.random_step(rng) {}
        pos
    }

    /// Plays to the end of the game, taking a game-winning move whenever the
    /// side to move has one and a uniformly random move otherwise; returns
    /// the final position.
    pub fn winning_playout<R: rand::Rng + ?Sized>(self, rng: &mut R) -> Position {
        let mut pos = self;
        while pos.winning_step(rng) {}
        pos
    }
}

/// Counts the leaves of the move tree `depth` plies deep (bulk counting at
/// the last ply).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_mask().count_ones() as u64,
        _ => {
            let mut mask = pos.legal_mask();
            let mut total = 0;
            while mask != 0 {
                let mut child = *pos;
                child.play_unchecked(Move::from_bit(mask.trailing_zeros()));
                mask &= mask - 1;
                total += perft(&child, depth - 1);
            }
            total
        }
    }
}

mod as_game;
pub use as_game::BoardCountTiebreak;

#[cfg(test)]
mod reference_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn tables() {
        assert!(is_line(0b111));
        assert!(!is_line(0b011));
        assert_eq!(completing(0b011), 0b100);
        assert_eq!(completing(0b000_010_001), 0b100_000_000);
        assert_eq!(ALL_CELLS.count_ones(), 81);
        for (b, &cells) in CELLS_OF[..9].iter().enumerate() {
            assert_eq!(cells.count_ones(), 9);
            assert_eq!(cells & !ALL_CELLS, 0);
            assert_eq!(board_bits(cells, b), 0x1ff);
        }
    }

    #[test]
    fn move_geometry() {
        let e5 = mv("e5");
        assert_eq!((e5.board(), e5.cell()), (4, 4));
        let a9 = mv("a9");
        assert_eq!((a9.board(), a9.cell()), (0, 0));
        let i1 = mv("i1");
        assert_eq!((i1.board(), i1.cell()), (8, 8));
        for i in 0..81 {
            let m = Move::from_index(i).unwrap();
            assert_eq!(m.index(), i);
            assert_eq!(Move::from_grid(m.col(), m.row()), Some(m));
        }
        assert_eq!(Move::new(9, 0), None);
        assert_eq!(Move::from_index(81), None);
    }

    #[test]
    fn select_matches_scan() {
        let mask = ALL_CELLS & 0x5555_5555_5555_5555_5555_5555_5555_5555;
        let bits: Vec<u32> = (0..128).filter(|&i| mask >> i & 1 == 1).collect();
        for (k, &b) in bits.iter().enumerate() {
            assert_eq!(select128(mask, k as u32), b);
        }
    }

    #[test]
    fn play_errors() {
        let mut pos = Position::startpos();
        pos.play(mv("e5"));
        assert_eq!(
            pos.try_play(mv("a1")),
            Err(PlayError::WrongBoard { expected: 4 })
        );
        assert_eq!(pos.try_play(mv("e5")), Err(PlayError::CellTaken));
        let before = pos;
        assert!(pos.try_play(mv("a1")).is_err());
        assert!(pos == before, "a failed move changes nothing");

        // x completes the top-left board's diagonal; a move there is then refused.
        let mut pos: Position = "x2o2o2/1x7/9/9/9/9/9/9/9 x 3 g9".parse().unwrap();
        assert_eq!(pos.target_board(), Some(0));
        pos.play(mv("c7"));
        assert_eq!(pos.won_boards(Player::X), 1);
        assert_eq!(pos.target_board(), Some(8));
        assert_eq!(
            pos.check(mv("a8")),
            Err(PlayError::BoardClosed { board: 0 })
        );
    }

    #[test]
    fn game_over_refuses_moves() {
        let fen = "oxo1xooxx/xo1oooo2/xxo3oo1/oo1xxx2x/xo2o1xo1/1xo1oxoxo/1xx5x/xx1xxx1ox/o1xo1ooox x 28 a9";
        let pos: Position = fen.parse().unwrap();
        assert_eq!(pos.outcome(), Some(Outcome::Win(Player::O)));
        assert_eq!(pos.check(mv("a1")), Err(PlayError::GameOver));
        assert_eq!(pos.legal_mask(), 0);
        assert_eq!(pos.winning_move(), None);
    }

    #[test]
    fn winning_move_found() {
        // x has won boards 0 and 1; board 2 is one x move from being won.
        // Build with from_parts: x holds a line in boards 0 and 1, two cells
        // of board 2's top row, and o holds scattered cells.
        let mut x = 0u128;
        for m in ["a9", "b9", "c9", "d9", "e9", "f9", "g9", "h9"] {
            x |= mv(m).mask();
        }
        let mut o = 0u128;
        for m in ["a1", "b1", "c2", "d1", "e2", "f1", "g2", "h1"] {
            o |= mv(m).mask();
        }
        let pos = Position::from_parts([x, o], Player::X, None);
        assert_eq!(pos.winning_move(), Some(mv("i9")));
        let mut after = pos;
        after.play(mv("i9"));
        assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));
        // Sent to another board, the win is out of reach.
        let pos = Position::from_parts([x, o], Player::X, Some(mv("h1")));
        assert_eq!(pos.target_board(), Some(7));
        assert_eq!(pos.winning_move(), None);
    }

    #[test]
    fn may_win_is_sound() {
        // Along random games, a side said unable to win never wins, from
        // that position or any later one (each checked by many endings).
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(9);
        let mut ruled_out = 0;
        for _ in 0..300 {
            let mut pos = Position::startpos();
            while !pos.is_over() {
                for p in [Player::X, Player::O] {
                    if !pos.may_win(p) {
                        ruled_out += 1;
                        for _ in 0..20 {
                            let end = pos.random_playout(&mut rng);
                            assert_ne!(end.outcome(), Some(Outcome::Win(p)), "{pos}");
                        }
                    }
                }
                pos.random_step(&mut rng);
            }
            let winner = match pos.outcome() {
                Some(Outcome::Win(w)) => Some(w),
                _ => None,
            };
            for p in [Player::X, Player::O] {
                assert_eq!(pos.may_win(p), winner == Some(p));
            }
        }
        assert!(ruled_out > 500, "{ruled_out}");
    }

    #[test]
    fn free_lines_kept_move_by_move_match_the_marks() {
        // The free-line masks that `may_win` reads, kept up by each move
        // (random moves and winning ones, as playouts play them), agree
        // with the marks at every position, as does a position rebuilt
        // from its marks alone.
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(10);
        for game in 0..2000 {
            let mut pos = Position::startpos();
            loop {
                for p in [Player::X, Player::O] {
                    let theirs = pos.marks(p.opponent());
                    let want = (0..9)
                        .filter(|&b| is_line(!board_bits(theirs, b)))
                        .fold(0u16, |m, b| m | 1 << b);
                    let got = pos.free >> (16 * p.index());
                    assert_eq!(got & 0x1ff, want as u32, "{pos}");
                }
                let rebuilt = Position::from_parts(
                    [pos.marks(Player::X), pos.marks(Player::O)],
                    pos.side_to_move(),
                    pos.last_move(),
                );
                assert!(rebuilt == pos, "{pos}");
                let moved = if game % 2 == 0 {
                    pos.winning_step(&mut rng)
                } else {
                    pos.random_step(&mut rng)
                };
                if !moved {
                    break;
                }
            }
        }
    }

    #[test]
    fn perft_shallow() {
        let pos = Position::startpos();
        assert_eq!(perft(&pos, 0), 1);
        assert_eq!(perft(&pos, 1), 81);
        assert_eq!(perft(&pos, 2), 720);
        assert_eq!(perft(&pos, 3), 6336);
    }
}
