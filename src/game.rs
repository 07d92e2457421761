//! The small interface through which the search sees a game.
//!
//! The search knows nothing of Ultimate Tic-Tac-Toe: it plays moves, asks
//! whether the game is over and draws random or winning moves, all through
//! [`Game`]. A second two-player game can be searched by implementing it.

use std::fmt::{Debug, Display};

use crate::rules::{Move, MoveList, Position, Status};

/// How a finished game ended, with players numbered 0 (first) and 1.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Outcome {
    /// Player 0 or 1 won.
    Win(u8),
    /// Nobody won.
    Draw,
}

/// A two-player, zero-sum, perfect-information game with win, draw and loss.
pub trait Game: Copy + Send + Sync + PartialEq + Debug + Display + 'static {
    /// A move. The search stores one per tree node, so keep it small.
    type Move: Copy + Eq + Send + Sync + Debug + Display + Default + 'static;

    /// A list of moves, without allocation.
    type Moves: std::ops::Deref<Target = [Self::Move]>;

    /// The most legal moves any position can have (at most 255).
    const MAX_MOVES: usize;

    /// The most plies a game can last from any position.
    const MAX_PLIES: usize;

    /// The player to move: 0 or 1.
    fn side_to_move(&self) -> u8;

    /// Plies played so far (for time management).
    fn ply(&self) -> u32;

    /// How the game ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// The legal moves; empty once the game is over.
    fn legal_moves(&self) -> Self::Moves;

    /// Plays a legal move; the caller guarantees legality.
    fn play(&mut self, m: Self::Move);

    /// A uniformly random legal move, or `None` once the game is over.
    fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Self::Move>;

    /// Plays one uniformly random legal move; `false` once the game is over.
    /// Games may override this with a faster path.
    #[inline]
    fn play_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.random_move(rng) {
            Some(m) => {
                self.play(m);
                true
            }
            None => false,
        }
    }

    /// A move that wins the game at once, if the side to move has one.
    fn winning_move(&self) -> Option<Self::Move> {
        None
    }

    /// Plays a game-winning move if there is one, else a uniformly random
    /// move; `false` once the game is over. Games may override this with a
    /// faster path.
    #[inline]
    fn play_winning_or_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.winning_move() {
            Some(m) => {
                self.play(m);
                true
            }
            None => self.play_random(rng),
        }
    }
}

impl Game for Position {
    type Move = Move;
    type Moves = MoveList;
    const MAX_MOVES: usize = 81;
    const MAX_PLIES: usize = 81;

    #[inline(always)]
    fn side_to_move(&self) -> u8 {
        self.side_to_move() as u8
    }

    #[inline(always)]
    fn outcome(&self) -> Option<Outcome> {
        match self.status() {
            Status::Ongoing => None,
            Status::Won(p) => Some(Outcome::Win(p as u8)),
            Status::Drawn => Some(Outcome::Draw),
        }
    }

    fn ply(&self) -> u32 {
        Position::ply(self)
    }

    #[inline]
    fn legal_moves(&self) -> MoveList {
        Position::legal_moves(self)
    }

    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.play_unchecked(m);
    }

    #[inline(always)]
    fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        Position::random_move(self, rng)
    }

    #[inline(always)]
    fn play_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        self.random_step(rng)
    }

    #[inline(always)]
    fn winning_move(&self) -> Option<Move> {
        Position::winning_move(self)
    }

    #[inline(always)]
    fn play_winning_or_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        self.winning_step(rng)
    }
}
