//! "Super 1 al 5" as a [`Game`] for the search.
//!
//! Uniform random playouts ([`Game::play_random`]) stay uniform. The
//! search's winning-move playouts ([`Game::play_winning_or_random`]) are
//! the capture-first playouts of [`Position::capture_first_move`]: a
//! winning move, else a random capture, else a random move. Uniform
//! playouts mostly run to the ply limit (63% of them from the start);
//! capture-first ones end in about 43 plies, cost about an eighth as much,
//! and make the search much stronger in the same time (figures in
//! `docs/super-1-al-5.md`).

use super::{MAX_MOVES, Move, MoveList, PLY_LIMIT, Position};
use crate::game::{Game, Outcome, Player};

impl Game for Position {
    type Move = Move;
    type Moves = MoveList;
    type ChildCount = u16;
    // More than a `u8` child count holds: a legal position with 260 moves
    // exists (see the tests).
    const MAX_MOVES: usize = MAX_MOVES;
    // Games run 26-300 plies; capture-first playouts end in about 43
    // plies, searched games last longer (an estimate, not yet measured).
    const EXPECTED_PLIES: u32 = 80;
    const MAX_PLIES: usize = PLY_LIMIT as usize;

    fn side_to_move(&self) -> Player {
        Position::side_to_move(self)
    }

    fn ply(&self) -> u32 {
        Position::ply(self)
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        Position::outcome(self)
    }

    fn legal_moves(&self) -> MoveList {
        Position::legal_moves(self)
    }

    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        Position::play_unchecked(self, m);
    }

    fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        Position::random_move(self, rng)
    }

    fn winning_move(&self) -> Option<Move> {
        Position::winning_move(self)
    }

    /// Plays a capture-first move ([`Position::capture_first_move`]): a
    /// winning move if there is one, else a random capture, else a random
    /// move.
    fn play_winning_or_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.capture_first_move(rng) {
            Some(m) => {
                self.play_unchecked(m);
                true
            }
            None => false,
        }
    }
}
