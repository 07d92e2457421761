//! The net's inputs: what a position shows each player, as sparse binary
//! features, and the first layer kept as an accumulator.
//!
//! Cells are numbered `9 * board + cell` (0-80) here, as in the data files,
//! whatever the rules' bit layout. From the view of player `p` ("mine" are
//! `p`'s), the features are:
//!
//! | index | feature |
//! |---|---|
//! | 0-80 | my mark in cell `i` |
//! | 81-161 | the other player's mark in cell `i - 81` |
//! | 162-170 | small board `i - 162` won by me |
//! | 171-179 | small board `i - 171` won by the other player |
//! | 180-188 | small board `i - 180` full with no winner |
//!
//! The first layer's sums (the accumulator, one per view) add up the rows
//! of the features that are on. The search sums them from scratch for each
//! position it values ([`Accumulator::new`]). Every feature, once on, stays
//! on for the rest of the game (marks are only added), so the trainer,
//! which walks through whole games, brings the sums of one position up to
//! date with the next by adding only the rows of the features that appeared
//! ([`Accumulator::update`]). The board to play on (0-8, or 9 for any) is
//! not one of them: it changes back and forth, and its row is added at
//! evaluation time, to the side to move's half only.

use crate::game::Player;
use crate::rules::{Position, board_bits, completing, is_line};

use super::{DYNAMIC, FEATURES, HIDDEN, Net};

/// A position as the net sees it: each player's marks, the side to move
/// and the board to play on. Won and drawn boards follow from the marks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Planes {
    /// The cells marked by `x` and by `o`, bit `9 * board + cell`.
    pub marks: [u128; 2],
    /// The side to move.
    pub side: Player,
    /// The board to play on (0-8), or 9 for any open board.
    pub target: u8,
}

/// The 81 cell bits in the index layout.
pub const CELLS: u128 = (1u128 << 81) - 1;

/// The 9 bits of board `b` in an index-layout mask.
#[inline(always)]
fn board9(marks: u128, b: usize) -> u16 {
    ((marks >> (9 * b)) & 0x1ff) as u16
}

impl Planes {
    /// The planes of a rules position.
    pub fn from_position(pos: &Position) -> Planes {
        let mut marks = [0u128; 2];
        for (p, m) in [Player::X, Player::O].into_iter().zip(&mut marks) {
            let bits = pos.marks(p);
            for b in 0..9 {
                *m |= (board_bits(bits, b) as u128) << (9 * b);
            }
        }
        Planes {
            marks,
            side: pos.side_to_move(),
            target: pos.target_board().unwrap_or(9),
        }
    }

    /// The planes from marks (index layout), the side to move and the last
    /// move's index (0-80), as a data file stores them: the board to play
    /// on is the last move's cell unless that board is closed.
    pub fn from_record(marks: [u128; 2], side: Player, last: Option<u8>) -> Planes {
        let mut planes = Planes {
            marks,
            side,
            target: 9,
        };
        if let Some(last) = last {
            let b = last % 9;
            if planes.closed() & (1 << b) == 0 {
                planes.target = b;
            }
        }
        planes
    }

    /// The boards won by `x` and by `o`, and the boards full with no
    /// winner, one bit per board.
    #[inline]
    pub fn boards(&self) -> ([u16; 2], u16) {
        let mut won = [0u16; 2];
        let mut drawn = 0u16;
        for b in 0..9 {
            let x = board9(self.marks[0], b);
            let o = board9(self.marks[1], b);
            if is_line(x) {
                won[0] |= 1 << b;
            } else if is_line(o) {
                won[1] |= 1 << b;
            } else if x | o == 0x1ff {
                drawn |= 1 << b;
            }
        }
        (won, drawn)
    }

    /// The legal moves' cells (bit `9 * board + cell`): the empty cells of
    /// the board to play on, or of every open board.
    pub fn legal_cells(&self) -> u128 {
        let closed = self.closed();
        let taken = self.marks[0] | self.marks[1];
        let mut out = 0u128;
        for b in 0..9 {
            if closed >> b & 1 == 0 && (self.target == 9 || self.target as usize == b) {
                out |= (!board9(taken, b) as u128 & 0x1ff) << (9 * b);
            }
        }
        out
    }

    /// The boards that are won or full.
    pub fn closed(&self) -> u16 {
        let (won, drawn) = self.boards();
        won[0] | won[1] | drawn
    }

    /// The active features from `view`'s side, in increasing order, into
    /// `out`; returns how many.
    pub fn features(&self, view: Player, out: &mut [u16; MAX_ACTIVE]) -> usize {
        self.features_with(self.boards(), view, out)
    }

    /// [`Planes::features`] with the boards ([`Planes::boards`]) given.
    #[inline(always)]
    fn features_with(
        &self,
        (won, drawn): ([u16; 2], u16),
        view: Player,
        out: &mut [u16; MAX_ACTIVE],
    ) -> usize {
        let (me, them) = (view.index(), view.opponent().index());
        let mut n = 0;
        let mut push = |mut bits: u128, base: u16| {
            while bits != 0 {
                out[n] = base + bits.trailing_zeros() as u16;
                n += 1;
                bits &= bits - 1;
            }
        };
        push(self.marks[me], 0);
        push(self.marks[them], 81);
        push(won[me] as u128, 162);
        push(won[them] as u128, 171);
        push(drawn as u128, 180);
        n
    }

    /// The dynamic features from `view`'s side (they may turn off again,
    /// so they are not in the accumulator), in increasing order, into
    /// `out`; returns how many. Of the open boards (not won, not full):
    ///
    /// | index | feature |
    /// |---|---|
    /// | 0-8 | I can win board `i` with one move |
    /// | 9-17 | the other player can win board `i - 9` with one move |
    /// | 18-26 | winning board `i - 18` would give me three boards in a row |
    /// | 27-35 | winning board `i - 27` would give the other player three in a row |
    pub fn dynamic(&self, view: Player, out: &mut [u8; DYNAMIC]) -> usize {
        let boards = self.boards();
        self.dynamic_with(boards, self.threats(boards), view, out)
    }

    /// The open boards each player (`x`, `o`) can win with one move,
    /// given the boards ([`Planes::boards`]).
    #[inline(always)]
    fn threats(&self, (won, drawn): ([u16; 2], u16)) -> [u16; 2] {
        let closed = won[0] | won[1] | drawn;
        let mut threats = [0u16; 2];
        for b in (0..9).filter(|b| closed >> b & 1 == 0) {
            let empty = !(board9(self.marks[0], b) | board9(self.marks[1], b)) & 0x1ff;
            for (p, t) in threats.iter_mut().enumerate() {
                if completing(board9(self.marks[p], b)) & empty != 0 {
                    *t |= 1 << b;
                }
            }
        }
        threats
    }

    /// [`Planes::dynamic`] with the boards and the threats given.
    #[inline(always)]
    fn dynamic_with(
        &self,
        (won, drawn): ([u16; 2], u16),
        threats: [u16; 2],
        view: Player,
        out: &mut [u8; DYNAMIC],
    ) -> usize {
        let closed = won[0] | won[1] | drawn;
        let (me, them) = (view.index(), view.opponent().index());
        let open = !closed & 0x1ff;
        let groups = [
            threats[me],
            threats[them],
            completing(won[me]) & open,
            completing(won[them]) & open,
        ];
        let mut n = 0;
        for (g, bits) in groups.into_iter().enumerate() {
            for b in 0..9 {
                if bits >> b & 1 == 1 {
                    out[n] = (9 * g + b) as u8;
                    n += 1;
                }
            }
        }
        n
    }

    /// The planes under symmetry `s` of the square (0-7; 0 is the
    /// identity): the same map applied to boards and to the cells inside
    /// them, which keeps the rules (a cell sends to the board of the same
    /// number).
    pub fn transform(&self, s: usize) -> Planes {
        let map = |m: u128| -> u128 {
            let mut out = 0u128;
            let mut bits = m;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (b, c) = (i / 9, i % 9);
                let j = 9 * SYMMETRY[s][b] as usize + SYMMETRY[s][c] as usize;
                out |= 1u128 << j;
            }
            out
        };
        Planes {
            marks: [map(self.marks[0]), map(self.marks[1])],
            side: self.side,
            target: if self.target < 9 {
                SYMMETRY[s][self.target as usize]
            } else {
                9
            },
        }
    }
}

/// The most features active at once from one view: 81 cells and 9 boards.
pub const MAX_ACTIVE: usize = 90;

/// The 8 symmetries of a 3x3 square as maps of the cells 0-8 (reading
/// order): rotations by 0, 90, 180 and 270 degrees, then each mirrored.
pub const SYMMETRY: [[u8; 9]; 8] = {
    let mut t = [[0u8; 9]; 8];
    let mut s = 0;
    while s < 8 {
        let mut i = 0;
        while i < 9 {
            let (mut r, mut c) = (i / 3, i % 3);
            if s >= 4 {
                c = 2 - c;
            }
            let mut k = 0;
            while k < s % 4 {
                // Rotate by 90 degrees clockwise: (r, c) -> (c, 2 - r).
                let nr = c;
                c = 2 - r;
                r = nr;
                k += 1;
            }
            t[s][i] = (3 * r + c) as u8;
            i += 1;
        }
        s += 1;
    }
    t
};

/// The first layer's sums for both views (`x`'s and `o`'s), and the
/// features they hold, so that they can be brought up to date with a later
/// position of the same game by adding only what appeared.
#[derive(Clone, Debug)]
pub struct Accumulator {
    /// The sums, indexed by [`Player::index`] of the view, in the
    /// quantised first layer's integers (`quant.rs` shows they fit).
    pub sums: [[i16; HIDDEN]; 2],
    /// The marks summed so far (index layout).
    marks: [u128; 2],
    /// The won boards summed so far, per player.
    won: [u16; 2],
    /// The drawn boards summed so far.
    drawn: u16,
}

impl Accumulator {
    /// The sums for `planes`, from scratch.
    #[inline(always)]
    pub fn new(net: &Net, planes: &Planes) -> Accumulator {
        // From scratch: each view's active features' rows summed in a
        // local array, which stays in vector registers (adding rows in
        // place, as `update` does, goes through memory at every row).
        let (won, drawn) = planes.boards();
        let mut feats = [0u16; MAX_ACTIVE];
        let mut sums = [net.quant.b1; 2];
        for (view, sums) in [Player::X, Player::O].into_iter().zip(&mut sums) {
            let n = planes.features_with((won, drawn), view, &mut feats);
            let mut local = *sums;
            for &f in &feats[..n] {
                add_row(&mut local, &net.quant.w1[f as usize]);
            }
            *sums = local;
        }
        Accumulator {
            sums,
            marks: planes.marks,
            won,
            drawn,
        }
    }

    /// The dynamic features of `planes` from `views`' sides into `out`
    /// ([`Planes::dynamic`]), with the boards these sums hold: `planes`
    /// must be the position they are up to date with.
    #[inline(always)]
    pub(super) fn dynamic(
        &self,
        planes: &Planes,
        views: [Player; 2],
        out: &mut [[u8; DYNAMIC]; 2],
    ) -> [usize; 2] {
        let boards = (self.won, self.drawn);
        let threats = planes.threats(boards);
        let [mine, theirs] = out;
        [
            planes.dynamic_with(boards, threats, views[0], mine),
            planes.dynamic_with(boards, threats, views[1], theirs),
        ]
    }

    /// Brings the sums up to date with `planes`, a position that has every
    /// mark the sums hold (a later position of the same game): adds the
    /// rows of the features that appeared. A position without some of
    /// those marks gets sums from scratch.
    pub fn update(&mut self, net: &Net, planes: &Planes) {
        let (won, drawn) = planes.boards();
        let grows = (0..2).all(|p| self.marks[p] & !planes.marks[p] == 0)
            && (0..2).all(|p| self.won[p] & !won[p] == 0)
            && self.drawn & !drawn == 0;
        if !grows {
            *self = Accumulator::new(net, planes);
            return;
        }
        for view in 0..2 {
            let other = 1 - view;
            let sums = &mut self.sums[view];
            let mut add = |mut bits: u128, base: usize| {
                while bits != 0 {
                    let f = base + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    add_row(sums, &net.quant.w1[f]);
                }
            };
            add(planes.marks[view] & !self.marks[view], 0);
            add(planes.marks[other] & !self.marks[other], 81);
            add((won[view] & !self.won[view]) as u128, 162);
            add((won[other] & !self.won[other]) as u128, 171);
            add((drawn & !self.drawn) as u128, 180);
        }
        self.marks = planes.marks;
        self.won = won;
        self.drawn = drawn;
    }
}

/// `sums += row`, a loop the compiler vectorizes (16 lanes with AVX2).
/// The adds wrap: the net's scale is chosen so that no sum overflows
/// (`quant.rs`), and a net for which that cannot hold only evaluates
/// wrongly, without a panic.
#[inline(always)]
pub(super) fn add_row(sums: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (s, &r) in sums.iter_mut().zip(row) {
        *s = s.wrapping_add(r);
    }
}

const _: () = assert!(FEATURES == 189);

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    /// Positions of random games, with their last moves.
    pub(crate) fn random_positions(n: usize, seed: u64) -> Vec<(Position, Option<u8>)> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::startpos();
            out.push((pos, None));
            while let Some(m) = pos.random_move(&mut rng) {
                pos.play(m);
                if pos.is_over() {
                    break;
                }
                out.push((pos, Some(m.index())));
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn planes_from_a_record_match_the_position() {
        for (pos, last) in random_positions(3000, 7) {
            let planes = Planes::from_position(&pos);
            let again = Planes::from_record(planes.marks, planes.side, last);
            assert_eq!(planes, again, "{pos}");
            let (won, _) = planes.boards();
            assert_eq!(won[0], pos.won_boards(Player::X));
            assert_eq!(won[1], pos.won_boards(Player::O));
            assert_eq!(planes.closed(), pos.closed_boards());
        }
    }

    #[test]
    fn symmetries_are_a_group_of_eight_maps() {
        let mut seen = std::collections::HashSet::new();
        for s in &SYMMETRY {
            let mut sorted = *s;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
            assert_eq!(s[4], 4, "the centre stays");
            assert!(seen.insert(*s));
        }
        // A symmetry maps lines to lines, so won boards map to won boards.
        for (pos, _) in random_positions(500, 8) {
            let planes = Planes::from_position(&pos);
            for (s, sym) in SYMMETRY.iter().enumerate() {
                let t = planes.transform(s);
                let (won, drawn) = planes.boards();
                let (twon, tdrawn) = t.boards();
                let map = |m: u16| -> u16 {
                    (0..9)
                        .filter(|&b| m >> b & 1 == 1)
                        .map(|b| 1u16 << sym[b])
                        .sum()
                };
                assert_eq!(twon, [map(won[0]), map(won[1])]);
                assert_eq!(tdrawn, map(drawn));
            }
        }
    }

    #[test]
    fn features_are_sorted_and_in_range() {
        for (pos, _) in random_positions(500, 9) {
            let planes = Planes::from_position(&pos);
            let mut f = [0u16; MAX_ACTIVE];
            for view in [Player::X, Player::O] {
                let n = planes.features(view, &mut f);
                assert!(f[..n].windows(2).all(|w| w[0] < w[1]));
                assert!(f[..n].iter().all(|&i| (i as usize) < FEATURES));
                assert_eq!(
                    f[..n].iter().filter(|&&i| i < 162).count() as u32,
                    pos.ply()
                );
            }
        }
    }
}
