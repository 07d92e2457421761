//! A review written into a PGN game: each judged move's comment holds the
//! score after it from the mover's view and the depth (`{+0.61/8}`,
//! cutechess-style), then the mark in words with the loss and the best move
//! where it differs; the mark itself follows the move as a NAG (`$6` `?!`,
//! `$2` `?`, `$4` `??`).

use super::{Mark, MoveReview, Review, Score};
use crate::game::Notation;
use crate::pgn::{self, Annotation, MoveNote, PgnGame, PgnMove, PgnResult};

/// The comment of a judged move, given the depth of the search of the
/// position it led to (`None` when that position is over or was proven
/// before any search).
pub fn comment<M: std::fmt::Display + PartialEq>(
    m: &MoveReview<M>,
    after_depth: Option<u32>,
) -> Annotation {
    let score = match m.after.score() {
        Score::Cp(n) => pgn::Score::Cp(n),
        Score::Mate(n) => pgn::Score::Mate(n),
    };
    let note = MoveNote {
        score: Some(score),
        depth: after_depth,
        time_ms: None,
    };
    let mut words = Vec::new();
    if let Some(mark) = m.mark {
        words.push(format!("{} (loss {:.2})", mark.name(), m.loss));
    }
    if let Some(best) = m.search.best.as_ref().filter(|_| !m.is_best()) {
        words.push(format!("best {best}"));
    }
    let annotation = Annotation::note(note);
    if words.is_empty() {
        annotation
    } else {
        annotation.with_remark(&words.join(", "))
    }
}

/// The NAGs of a move with `mark` (none, or the mark's own).
fn nags(mark: Option<Mark>) -> Vec<u8> {
    mark.map(Mark::nag).into_iter().collect()
}

/// A new PGN game of `moves` from `start`: the Seven Tag Roster (Event
/// `event`, Date `date`), the game's tags (Variant, SetUp and FEN), the
/// moves and the result the rules give (`*` while the game goes on).
pub fn new_game<G: Notation>(start: &G, moves: &[G::Move], event: &str, date: &str) -> PgnGame {
    let mut game = PgnGame::with_roster();
    game.set_tag("Event", event);
    game.set_tag("Date", date);
    game.set_moves(start, moves, &[]);
    let mut end = *start;
    for &m in moves {
        end.play_unchecked(m);
    }
    game.set_result(PgnResult::from_outcome(end.outcome()));
    game
}

/// Writes `review` into `game`, the PGN of the same game (see
/// [`new_game`]): the judged moves get the review's comments and NAGs
/// (the others, book moves among them, keep theirs), the game an
/// `Annotator` tag naming `annotator`.
pub fn annotate<G: Notation>(review: &Review<G>, game: &mut PgnGame, annotator: &str) {
    for (i, m) in review.moves.iter().enumerate() {
        if m.book && i < game.moves.len() {
            continue;
        }
        let after = review
            .moves
            .get(i + 1)
            .map(|next| &next.search)
            .or(review.end_search.as_ref())
            .filter(|s| s.best.is_some() && s.depth > 0)
            .map(|s| s.depth);
        let comment = comment(m, after).to_comment();
        match game.moves.get_mut(i) {
            Some(pm) => {
                pm.text = m.mv.to_string();
                pm.nags = nags(m.mark);
                pm.comment = comment;
            }
            // Not the review's game: its moves are added.
            None => {
                let mut pm = PgnMove::new(m.mv.to_string(), comment);
                pm.nags = nags(m.mark);
                game.moves.push(pm);
            }
        }
    }
    game.set_tag("Annotator", annotator);
}
