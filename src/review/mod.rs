//! Whole-game analysis: every position of a game searched, every move
//! judged by how much it lost of the mover's winning chances.
//!
//! # How a move is judged
//!
//! Each position of the game, from the start to the end, is searched from
//! a fresh tree within the same limits (time or iterations). Its
//! evaluation, for the side to move, is the best line's: a proven result
//! when the solver found one, else the search's expected score `E` (win 1,
//! draw 1/2, loss 0). A finished position is evaluated by its result.
//!
//! For a move, *before* is the evaluation of the position it was played
//! in (what best play keeps) and *after* is the evaluation of the position
//! it leads to, seen from the mover's side. Both become **winning chances**
//! `W = 2E - 1`, from -1 (lost) to 1 (won), with a proven win 1, a proven
//! draw 0 and a proven loss -1 (lichess's scale). The move's **loss** is
//! `max(0, W(before) - W(after))`, and 0 when the move played is the
//! engine's own best move (a difference between two searches then is
//! noise, not the move's fault). The marks, by [`THRESHOLDS`]:
//!
//! | mark | name       | loss      | PGN NAG |
//! |------|------------|-----------|---------|
//! | `?!` | inaccuracy | >= 0.10   | `$6`    |
//! | `?`  | mistake    | >= 0.20   | `$2`    |
//! | `??` | blunder    | >= 0.30   | `$4`    |
//!
//! A position the search does not prove is handed to the proof-number
//! solver ([`crate::solve`]) for a small budget of nodes
//! ([`PROOF_NODES`]), when the caller gives one: what it proves counts as
//! the search's proofs do.
//!
//! Scores are written as the protocol writes them, from the mover's view:
//! `cp N` from the expected score (`400 log10(E / (1 - E))`), `mate N` for
//! a proven win in N own moves, `mate -N` for a proven loss.

mod annotate;
mod text;

pub use annotate::{annotate, comment, new_game};
pub use text::{json, legend, report_json, summary_lines, table};

use std::hash::Hash;
use std::time::Duration;

use thiserror::Error;

use crate::display::score::centipawns;
use crate::game::{Game, Outcome, Player, Verdict};
use crate::search::{Control, Limits, Proven, Report, Searcher};
use crate::solve::{self, Solver};

/// The solver's budget for a position the search did not prove: about a
/// tenth of a second.
pub const PROOF_NODES: u64 = 100_000;

/// A solver's proof: the proven result and its line.
pub type Proof<M> = (Proven, Vec<M>);

/// The solver's table for the proofs of a review or an analysis, in MiB.
pub const PROOF_HASH_MB: usize = 16;

/// A solver for the proofs of a review or an analysis: a table of
/// [`PROOF_HASH_MB`] MiB, the rest default.
pub fn proof_solver() -> Result<Solver, solve::SolveError> {
    Solver::new(&solve::Options {
        hash_mb: PROOF_HASH_MB,
        ..solve::Options::default()
    })
}

/// Tries to prove `pos` with `solver` within [`PROOF_NODES`] (or until
/// `control` stops): the proven result for its side to move and its
/// proving line, or `None`.
pub fn prove<G: Game>(solver: &mut Solver, pos: &G, control: &Control) -> Option<Proof<G::Move>> {
    let limits = solve::Limits {
        nodes: Some(PROOF_NODES),
        time: None,
    };
    let s = solver.solve(pos, &limits, control, &mut |_| {});
    let verdict = s.verdict?;
    let plies = s.plies.unwrap_or(s.pv.len() as u32);
    Some((Proven { verdict, plies }, s.pv))
}

/// The drops in winning chances (from -1 to 1) that earn a mark.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Thresholds {
    /// An inaccuracy (`?!`) loses at least this much.
    pub inaccuracy: f64,
    /// A mistake (`?`) loses at least this much.
    pub mistake: f64,
    /// A blunder (`??`) loses at least this much.
    pub blunder: f64,
}

/// The thresholds of the marks: lichess's, 0.10, 0.20 and 0.30 in winning
/// chances from -1 to 1 (so 0.05, 0.10 and 0.15 in expected score).
pub const THRESHOLDS: Thresholds = Thresholds {
    inaccuracy: 0.10,
    mistake: 0.20,
    blunder: 0.30,
};

impl Thresholds {
    /// The mark a move that loses `loss` earns, if any.
    pub fn mark(&self, loss: f64) -> Option<Mark> {
        if loss >= self.blunder {
            Some(Mark::Blunder)
        } else if loss >= self.mistake {
            Some(Mark::Mistake)
        } else if loss >= self.inaccuracy {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }
}

/// How bad a move was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    /// `?!`: lost a little.
    Inaccuracy,
    /// `?`: lost a lot.
    Mistake,
    /// `??`: lost the most, typically the game.
    Blunder,
}

impl Mark {
    /// Every mark, mildest first.
    pub const ALL: [Mark; 3] = [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder];

    /// The annotation symbol: `?!`, `?` or `??`.
    pub const fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    /// The PGN numeric annotation glyph: 6, 2 or 4 (`$6` is `?!`).
    pub const fn nag(self) -> u8 {
        match self {
            Mark::Inaccuracy => 6,
            Mark::Mistake => 2,
            Mark::Blunder => 4,
        }
    }

    /// The word: `inaccuracy`, `mistake` or `blunder`.
    pub const fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// An evaluation for one side: a search's expected score, or a proven
/// result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Eval {
    /// The expected score (win 1, draw 1/2, loss 0), in [0, 1].
    pub q: f64,
    /// The proven result with the plies until the end, if known.
    pub proven: Option<Proven>,
}

/// A score as the protocol writes it: `cp N` or `mate N` (`mate -N` when
/// losing).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like, from the expected score.
    Cp(i32),
    /// A proven win (positive) or loss (negative) in this many own moves.
    Mate(i32),
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(n) => write!(f, "cp {n}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

impl Eval {
    /// The evaluation of a finished game for `side`: its result, proven,
    /// with no plies left.
    pub fn of_outcome(outcome: Outcome, side: Player) -> Eval {
        let verdict = outcome.verdict_for(side);
        Eval {
            q: verdict.score(),
            proven: Some(Proven { verdict, plies: 0 }),
        }
    }

    /// The evaluation a search reports for the side to move: its best
    /// line's, or `None` when it has no line.
    pub fn of_report<M>(report: &Report<M>) -> Option<Eval> {
        report.lines.first().map(|l| Eval {
            q: l.q,
            proven: l.proven,
        })
    }

    /// The same evaluation from the other side, one ply earlier: the
    /// evaluation of a position seen by the player who moved into it.
    pub fn flip(self) -> Eval {
        Eval {
            q: 1.0 - self.q,
            proven: self.proven.map(|p| Proven {
                verdict: p.verdict.flip(),
                plies: p.plies + 1,
            }),
        }
    }

    /// The expected score: the proven result's (1, 1/2 or 0) when there is
    /// one, else the search's.
    pub fn expected(self) -> f64 {
        match self.proven {
            Some(p) => p.verdict.score(),
            None => self.q.clamp(0.0, 1.0),
        }
    }

    /// Winning chances from -1 (lost) to 1 (won): `2E - 1`.
    pub fn chances(self) -> f64 {
        2.0 * self.expected() - 1.0
    }

    /// The score as the protocol writes it.
    pub fn score(self) -> Score {
        match self.proven {
            Some(p) => match p.verdict {
                Verdict::Win => Score::Mate(p.moves() as i32),
                Verdict::Loss => Score::Mate(-(p.moves() as i32)),
                Verdict::Draw => Score::Cp(0),
            },
            None => Score::Cp(centipawns(self.q)),
        }
    }
}

/// What the search found in one position of the game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReview<M> {
    /// The evaluation for the side to move.
    pub eval: Eval,
    /// The best move, `None` in a finished game.
    pub best: Option<M>,
    /// The best line, starting with the best move (empty when finished).
    pub line: Vec<M>,
    /// Iterations searched (0 for a finished game).
    pub nodes: u64,
    /// The search's mean depth.
    pub depth: u32,
    /// The search's time.
    pub elapsed: Duration,
}

/// One move of the game, judged.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview<M> {
    /// The ply the move makes: 1 for the first move of a game from the
    /// empty board.
    pub ply: u32,
    /// Who played it.
    pub side: Player,
    /// The move.
    pub mv: M,
    /// The position's evaluation before the move (best play), mover's view.
    pub before: Eval,
    /// The evaluation after the move, mover's view.
    pub after: Eval,
    /// The drop in winning chances (see the module docs), at least 0.
    pub loss: f64,
    /// The mark the loss earns.
    pub mark: Option<Mark>,
    /// Whether it is a book move of the game's opening: not judged (no
    /// loss, no mark, not in the summary).
    pub book: bool,
    /// The search of the position before the move.
    pub search: PositionReview<M>,
}

impl<M: PartialEq> MoveReview<M> {
    /// Whether the move played is the engine's best.
    pub fn is_best(&self) -> bool {
        self.search.best.as_ref() == Some(&self.mv)
    }
}

/// A per-side summary of a review.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// Moves judged (book moves are not).
    pub moves: usize,
    /// Moves marked `?!`.
    pub inaccuracies: usize,
    /// Moves marked `?`.
    pub mistakes: usize,
    /// Moves marked `??`.
    pub blunders: usize,
    /// The mean loss in winning chances per move (0 with no moves).
    pub average_loss: f64,
}

impl SideSummary {
    /// The count of moves with `mark`.
    pub fn count(&self, mark: Mark) -> usize {
        match mark {
            Mark::Inaccuracy => self.inaccuracies,
            Mark::Mistake => self.mistakes,
            Mark::Blunder => self.blunders,
        }
    }
}

/// A whole game analysed.
#[derive(Clone, Debug, PartialEq)]
pub struct Review<G: Game> {
    /// The position the game started from.
    pub start: G,
    /// The moves judged, in order.
    pub moves: Vec<MoveReview<G::Move>>,
    /// The last position reached by the judged moves, and its search.
    pub end: G,
    /// The search of [`Review::end`] (its evaluation when finished);
    /// `None` when stopped before the first position was searched.
    pub end_search: Option<PositionReview<G::Move>>,
    /// Whether every move was judged (`false` when stopped early).
    pub complete: bool,
    /// The thresholds the marks used.
    pub thresholds: Thresholds,
}

impl SideSummary {
    /// The summary of judged moves, each by its loss and mark.
    pub fn of(moves: impl IntoIterator<Item = (f64, Option<Mark>)>) -> SideSummary {
        let mut s = SideSummary::default();
        let mut total = 0.0;
        for (loss, mark) in moves {
            s.moves += 1;
            total += loss;
            match mark {
                Some(Mark::Inaccuracy) => s.inaccuracies += 1,
                Some(Mark::Mistake) => s.mistakes += 1,
                Some(Mark::Blunder) => s.blunders += 1,
                None => {}
            }
        }
        if s.moves > 0 {
            s.average_loss = total / s.moves as f64;
        }
        s
    }
}

impl<G: Game> Review<G> {
    /// The summary of `side`'s moves.
    pub fn summary(&self, side: Player) -> SideSummary {
        let judged = self.moves.iter().filter(|m| m.side == side && !m.book);
        SideSummary::of(judged.map(|m| (m.loss, m.mark)))
    }
}

/// Why a game cannot be reviewed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReviewError {
    /// A move of the game is not legal where it is played.
    #[error("move {ply} ({mv}) is not legal in its position")]
    Illegal {
        /// The ply the move would make.
        ply: u32,
        /// The move as text.
        mv: String,
    },
}

/// Where a review stands, for a progress line.
#[derive(Clone, Debug)]
pub struct Progress<'a, M> {
    /// The position just searched, from 0 (the start).
    pub index: usize,
    /// The positions to search in all (moves + 1).
    pub total: usize,
    /// What the search found there.
    pub found: &'a PositionReview<M>,
}

/// Searches every position of the game `start` + `moves` with `searcher`
/// (its tree cleared before each position) within `limits`, and judges
/// every move but the first `book` (the opening's book moves, which the
/// players did not choose). `progress` hears about each position once
/// searched.
///
/// With a `solver`, a position the search does not prove gets
/// [`prove`]'s try.
///
/// When `control` is stopped (e.g. Ctrl-C) the review ends early: the
/// moves whose both positions were searched in full are judged and
/// [`Review::complete`] is `false`.
#[allow(clippy::too_many_arguments)]
pub fn review<G: Game>(
    searcher: &mut Searcher<G>,
    mut solver: Option<&mut Solver>,
    start: G,
    moves: &[G::Move],
    book: usize,
    limits: &Limits,
    control: &Control,
    progress: &mut dyn FnMut(Progress<'_, G::Move>),
) -> Result<Review<G>, ReviewError> {
    // All positions first: nothing is searched for a game with a bad move.
    let positions = replay(start, moves)?;
    let total = positions.len();
    let mut found = Vec::with_capacity(total);
    for (index, pos) in positions.iter().enumerate() {
        if control.is_stopped() {
            break;
        }
        let Some(review) = search_one(searcher, solver.as_deref_mut(), pos, limits, control) else {
            break;
        };
        progress(Progress {
            index,
            total,
            found: &review,
        });
        found.push(review);
    }
    let thresholds = THRESHOLDS;
    let judged = found.len().saturating_sub(1);
    let reviews = (0..judged)
        .map(|i| {
            let searches = [&found[i], &found[i + 1]];
            judge(&positions[i], moves[i], searches, i < book, &thresholds)
        })
        .collect();
    let end_index = judged.min(positions.len() - 1);
    Ok(Review {
        start,
        moves: reviews,
        end: positions[end_index],
        end_search: found.get(end_index).cloned(),
        complete: judged == moves.len(),
        thresholds,
    })
}

/// Every position of the game `start` + `moves`, from the start to the
/// end, each move checked.
fn replay<G: Game>(start: G, moves: &[G::Move]) -> Result<Vec<G>, ReviewError> {
    let mut positions = Vec::with_capacity(moves.len() + 1);
    positions.push(start);
    for &m in moves {
        let pos = positions[positions.len() - 1];
        if !pos.legal_moves().contains(&m) {
            return Err(ReviewError::Illegal {
                ply: pos.ply() + 1,
                mv: crate::quote::shorten(&m.to_string()),
            });
        }
        let mut next = pos;
        next.play_unchecked(m);
        positions.push(next);
    }
    Ok(positions)
}

/// What a full search of `pos` from a fresh tree finds (a finished
/// position's result without a search), proven by `solver` where the
/// search did not prove it; `None` when `control` cut the search short or
/// it found no line.
fn search_one<G: Game>(
    searcher: &mut Searcher<G>,
    solver: Option<&mut Solver>,
    pos: &G,
    limits: &Limits,
    control: &Control,
) -> Option<PositionReview<G::Move>> {
    if let Some(outcome) = pos.outcome() {
        return Some(PositionReview {
            eval: Eval::of_outcome(outcome, pos.side_to_move()),
            best: None,
            line: Vec::new(),
            nodes: 0,
            depth: 0,
            elapsed: Duration::ZERO,
        });
    }
    searcher.clear(*pos);
    let report = searcher.search(pos, limits, &[], control, &mut |_| {});
    if control.is_stopped() {
        // Cut short: not a full search of this position.
        return None;
    }
    let mut eval = Eval::of_report(&report)?;
    if let Some(solver) = solver.filter(|_| eval.proven.is_none()) {
        eval.proven = prove(solver, pos, control).map(|(p, _)| p);
        if control.is_stopped() {
            return None;
        }
    }
    Some(PositionReview {
        eval,
        best: report.best_move(),
        line: report.lines[0].pv.clone(),
        nodes: report.nodes,
        depth: report.depth,
        elapsed: report.elapsed,
    })
}

/// A move's loss in winning chances (see the module docs): from `before`,
/// the evaluation of the position it was played in, to `after`, that of the
/// position it leads to, both from the mover's side; 0 for the engine's
/// own `best` move. [`THRESHOLDS`]`.mark` turns it into a mark. The one
/// judgement of every tool that marks moves (`analyze --review`, the GUI's
/// whole-game analysis).
pub fn move_loss(before: Eval, after: Eval, best: bool) -> f64 {
    match best {
        true => 0.0,
        false => (before.chances() - after.chances()).max(0.0),
    }
}

/// The move `mv` played in `pos`, judged by the searches of `pos` and of
/// the position it leads to; a `book` move is not judged (no loss, no
/// mark).
fn judge<G: Game>(
    pos: &G,
    mv: G::Move,
    [search, next]: [&PositionReview<G::Move>; 2],
    book: bool,
    thresholds: &Thresholds,
) -> MoveReview<G::Move> {
    let before = search.eval;
    let after = next.eval.flip();
    let loss = match book {
        true => 0.0,
        false => move_loss(before, after, search.best == Some(mv)),
    };
    MoveReview {
        ply: pos.ply() + 1,
        side: pos.side_to_move(),
        mv,
        before,
        after,
        loss,
        mark: thresholds.mark(loss),
        book,
        search: search.clone(),
    }
}

#[cfg(test)]
mod tests;
