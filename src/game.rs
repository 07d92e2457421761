//! The small interface through which the search sees a game.
//!
//! The search knows nothing of Ultimate Tic-Tac-Toe: it plays moves, asks
//! whether the game is over and draws random or winning moves, all through
//! [`Game`]. A second two-player game can be searched by implementing it.

use std::fmt::{Debug, Display};

use crate::rules::{Move, MoveList, Player, Position, Status};

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
}

/// The rules of CodinGame's referee: a drawn big board goes to the player
/// with more small boards won (still a draw when they won as many).
/// Everything else is [`Position`]'s.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct BoardCountTiebreak(pub Position);

impl std::fmt::Display for BoardCountTiebreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl Game for BoardCountTiebreak {
    type Move = Move;
    type Moves = MoveList;
    const MAX_MOVES: usize = 81;
    const MAX_PLIES: usize = 81;

    fn side_to_move(&self) -> u8 {
        Game::side_to_move(&self.0)
    }

    fn ply(&self) -> u32 {
        self.0.ply()
    }

    #[inline(always)]
    fn outcome(&self) -> Option<Outcome> {
        match self.0.status() {
            Status::Drawn => {
                let x = self.0.won_boards(Player::X).count_ones();
                let o = self.0.won_boards(Player::O).count_ones();
                Some(match x.cmp(&o) {
                    std::cmp::Ordering::Greater => Outcome::Win(0),
                    std::cmp::Ordering::Less => Outcome::Win(1),
                    std::cmp::Ordering::Equal => Outcome::Draw,
                })
            }
            _ => Game::outcome(&self.0),
        }
    }

    fn legal_moves(&self) -> MoveList {
        self.0.legal_moves()
    }

    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.0.play_unchecked(m);
    }

    #[inline(always)]
    fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        self.0.random_move(rng)
    }

    #[inline(always)]
    fn play_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        self.0.random_step(rng)
    }

    #[inline(always)]
    fn winning_move(&self) -> Option<Move> {
        self.0.winning_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiebreak_counts_boards() {
        // A drawn game: every board closed, no line of boards.
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
        let mut seen = [0; 3];
        for _ in 0..2_000 {
            let end = Position::startpos().random_playout(&mut rng);
            if end.status() != Status::Drawn {
                assert_eq!(Game::outcome(&BoardCountTiebreak(end)), Game::outcome(&end));
                continue;
            }
            let x = end.won_boards(Player::X).count_ones();
            let o = end.won_boards(Player::O).count_ones();
            let want = match x.cmp(&o) {
                std::cmp::Ordering::Greater => Outcome::Win(0),
                std::cmp::Ordering::Less => Outcome::Win(1),
                std::cmp::Ordering::Equal => Outcome::Draw,
            };
            assert_eq!(Game::outcome(&BoardCountTiebreak(end)), Some(want));
            seen[match want {
                Outcome::Win(p) => p as usize,
                Outcome::Draw => 2,
            }] += 1;
        }
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }
}
