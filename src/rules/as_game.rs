//! Ultimate Tic-Tac-Toe as a [`Game`] for the search, and the variant
//! CodinGame's referee plays.

use super::{Move, MoveList, Position};
use crate::game::{Game, Outcome, Player};

impl Game for Position {
    type Move = Move;
    type Moves = MoveList;
    type ChildCount = u8;
    const MAX_MOVES: usize = 81;
    // Games between strong players run about 50-60 plies.
    const EXPECTED_PLIES: u32 = 60;
    const MAX_PLIES: usize = 81;

    #[inline(always)]
    fn side_to_move(&self) -> Player {
        Position::side_to_move(self)
    }

    #[inline(always)]
    fn outcome(&self) -> Option<Outcome> {
        Position::outcome(self)
    }

    fn ply(&self) -> u32 {
        Position::ply(self)
    }

    fn plies_left_bound(&self) -> u32 {
        self.open_cells()
    }

    #[inline]
    fn legal_moves(&self) -> MoveList {
        Position::legal_moves(self)
    }

    #[inline(always)]
    fn mobility(&self) -> u32 {
        self.legal_mask().count_ones()
    }

    #[inline(always)]
    fn play_unchecked(&mut self, m: Move) {
        Position::play_unchecked(self, m);
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

    #[inline]
    fn may_win(&self, player: Player) -> bool {
        Position::may_win(self, player)
    }
}

/// The rules of CodinGame's referee: a drawn big board goes to the player
/// with more small boards won (still a draw when they won as many).
/// Everything else is [`Position`]'s, except [`Game::may_win`]: a drawn
/// board can be a win here, so it keeps the default.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct BoardCountTiebreak(pub Position);

impl std::fmt::Display for BoardCountTiebreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl Game for BoardCountTiebreak {
    type Move = Move;
    type Moves = MoveList;
    type ChildCount = u8;
    const MAX_MOVES: usize = 81;
    // Games between strong players run about 50-60 plies.
    const EXPECTED_PLIES: u32 = 60;
    const MAX_PLIES: usize = 81;

    fn side_to_move(&self) -> Player {
        self.0.side_to_move()
    }

    fn ply(&self) -> u32 {
        self.0.ply()
    }

    fn plies_left_bound(&self) -> u32 {
        self.0.open_cells()
    }

    #[inline(always)]
    fn outcome(&self) -> Option<Outcome> {
        match self.0.outcome() {
            Some(Outcome::Draw) => {
                let x = self.0.won_boards(Player::X).count_ones();
                let o = self.0.won_boards(Player::O).count_ones();
                Some(match x.cmp(&o) {
                    std::cmp::Ordering::Greater => Outcome::Win(Player::X),
                    std::cmp::Ordering::Less => Outcome::Win(Player::O),
                    std::cmp::Ordering::Equal => Outcome::Draw,
                })
            }
            other => other,
        }
    }

    fn legal_moves(&self) -> MoveList {
        self.0.legal_moves()
    }

    #[inline(always)]
    fn mobility(&self) -> u32 {
        self.0.legal_mask().count_ones()
    }

    #[inline(always)]
    fn play_unchecked(&mut self, m: Move) {
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
            if end.outcome() != Some(Outcome::Draw) {
                assert_eq!(Game::outcome(&BoardCountTiebreak(end)), Game::outcome(&end));
                continue;
            }
            let x = end.won_boards(Player::X).count_ones();
            let o = end.won_boards(Player::O).count_ones();
            let want = match x.cmp(&o) {
                std::cmp::Ordering::Greater => Outcome::Win(Player::X),
                std::cmp::Ordering::Less => Outcome::Win(Player::O),
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

    #[test]
    fn mobility_is_the_number_of_legal_moves() {
        // Along random games: sent to one board, free to choose, and over.
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(5);
        let mut free_choice = 0;
        for _ in 0..200 {
            let mut pos = Position::startpos();
            loop {
                let n = Game::legal_moves(&pos).len() as u32;
                assert_eq!(Game::mobility(&pos), n, "{pos}");
                assert_eq!(Game::mobility(&BoardCountTiebreak(pos)), n, "{pos}");
                free_choice += usize::from(pos.target_board().is_none() && n > 0);
                if !pos.play_random(&mut rng) {
                    break;
                }
            }
        }
        assert!(free_choice > 200, "{free_choice}");
    }
}
