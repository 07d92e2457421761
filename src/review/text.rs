//! A review as text for people (the table and the summary) and as JSON.

use serde_json::{Value, json};

use super::{Eval, Mark, PositionReview, Review, SideSummary, Thresholds};
use crate::game::{Notation, Player, Verdict};
use crate::search::Proven;

/// The table of the judged moves: one row per move with its ply, side,
/// move, mark, score before and after (mover's view), loss in winning
/// chances and the engine's best move where it differs; a header first.
pub fn table<G: Notation>(review: &Review<G>) -> Vec<String> {
    let width = review
        .moves
        .iter()
        .map(|m| m.mv.to_string().len())
        .max()
        .unwrap_or(0)
        .max("move".len());
    let mut rows = vec![format!(
        "{:>4}  {:<4}  {:<width$}  {:<4}  {:<9}  {:<9}  {:>5}  best",
        "ply", "side", "move", "mark", "before", "after", "loss"
    )];
    for m in &review.moves {
        let best = match &m.search.best {
            Some(b) if !m.is_best() => b.to_string(),
            _ => String::new(),
        };
        let row = format!(
            "{:>4}  {:<4}  {:<width$}  {:<4}  {:<9}  {:<9}  {:>5.2}  {}",
            m.ply,
            m.side.to_string(),
            m.mv.to_string(),
            if m.book {
                "book"
            } else {
                m.mark.map_or("", Mark::symbol)
            },
            m.before.score().to_string(),
            m.after.score().to_string(),
            m.loss,
            best
        );
        rows.push(row.trim_end().to_string());
    }
    rows
}

/// `1 inaccuracy` / `2 inaccuracies`, and so on.
fn count(n: usize, mark: Mark) -> String {
    let word = match (mark, n) {
        (Mark::Inaccuracy, 1) => "inaccuracy",
        (Mark::Inaccuracy, _) => "inaccuracies",
        (Mark::Mistake, 1) => "mistake",
        (Mark::Mistake, _) => "mistakes",
        (Mark::Blunder, 1) => "blunder",
        (Mark::Blunder, _) => "blunders",
    };
    format!("{n} {word}")
}

/// One line per side, e.g. `x: 20 moves, 1 inaccuracy, 0 mistakes,
/// 1 blunder, average loss 0.04`, then a line saying where the review
/// stopped when it did not finish.
pub fn summary_lines<G: Notation>(review: &Review<G>) -> Vec<String> {
    let mut lines: Vec<String> = [Player::X, Player::O]
        .into_iter()
        .map(|side| {
            let s = review.summary(side);
            format!(
                "{side}: {} move{}, {}, {}, {}, average loss {:.2}",
                s.moves,
                if s.moves == 1 { "" } else { "s" },
                count(s.inaccuracies, Mark::Inaccuracy),
                count(s.mistakes, Mark::Mistake),
                count(s.blunders, Mark::Blunder),
                s.average_loss
            )
        })
        .collect();
    if !review.complete {
        lines.push(format!(
            "stopped: {} of the game's moves judged",
            review.moves.len()
        ));
    }
    lines
}

/// What the marks mean, in one line.
pub fn legend(t: &Thresholds) -> String {
    format!(
        "loss: the drop in winning chances (2 x expected score - 1, from -1 to 1); \
         ?! inaccuracy >= {:.2}, ? mistake >= {:.2}, ?? blunder >= {:.2}",
        t.inaccuracy, t.mistake, t.blunder
    )
}

/// A proven result as JSON: `{"result": "win", "plies": 3}`.
fn proven_json(p: Option<Proven>) -> Value {
    match p {
        None => Value::Null,
        Some(p) => json!({
            "result": match p.verdict {
                Verdict::Win => "win",
                Verdict::Draw => "draw",
                Verdict::Loss => "loss",
            },
            "plies": p.plies,
        }),
    }
}

/// An evaluation as JSON.
fn eval_json(e: Eval) -> Value {
    json!({
        "score": e.score().to_string(),
        "expected": round(e.expected()),
        "chances": round(e.chances()),
        "proven": proven_json(e.proven),
    })
}

/// Six decimals are plenty, and keep the JSON readable.
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A position's search as JSON.
fn search_json<M: std::fmt::Display>(p: &PositionReview<M>) -> Value {
    json!({
        "best": p.best.as_ref().map(|m| m.to_string()),
        "line": p.line.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "nodes": p.nodes,
        "depth": p.depth,
        "time_ms": p.elapsed.as_millis() as u64,
    })
}

/// A side's summary as JSON.
fn summary_json(s: &SideSummary) -> Value {
    json!({
        "moves": s.moves,
        "inaccuracies": s.inaccuracies,
        "mistakes": s.mistakes,
        "blunders": s.blunders,
        "average_loss": round(s.average_loss),
    })
}

/// The whole review as JSON: the game, the thresholds, one object per
/// judged move (its position's FEN, the evaluations before and after, the
/// loss, the mark and the search of the position before it), the end
/// position's search and the per-side summaries.
pub fn json<G: Notation>(review: &Review<G>) -> Value {
    let mut pos = review.start;
    let mut moves = Vec::with_capacity(review.moves.len());
    for m in &review.moves {
        let mut search = search_json(&m.search);
        search["eval"] = eval_json(m.search.eval);
        moves.push(json!({
            "ply": m.ply,
            "side": m.side.to_string(),
            "move": m.mv.to_string(),
            "fen": pos.to_string(),
            "before": eval_json(m.before),
            "after": eval_json(m.after),
            "loss": round(m.loss),
            "mark": m.mark.map(Mark::symbol),
            "mark_name": m.mark.map(Mark::name),
            "nag": m.mark.map(Mark::nag),
            "is_best": m.is_best(),
            "book": m.book,
            "search": search,
        }));
        pos.play_unchecked(m.mv);
    }
    let end = review.end_search.as_ref().map(|s| {
        let mut v = search_json(s);
        v["eval"] = eval_json(s.eval);
        v
    });
    let t = &review.thresholds;
    json!({
        "game": G::KIND.name(),
        "start": review.start.to_string(),
        "thresholds": {
            "scale": "winning chances, 2 x expected score - 1, from -1 to 1",
            "inaccuracy": t.inaccuracy,
            "mistake": t.mistake,
            "blunder": t.blunder,
        },
        "complete": review.complete,
        "moves": moves,
        "end": {
            "fen": review.end.to_string(),
            "side": review.end.side_to_move().to_string(),
            "over": review.end.is_over(),
            "search": end,
        },
        "summary": {
            "x": summary_json(&review.summary(Player::X)),
            "o": summary_json(&review.summary(Player::O)),
        },
    })
}

/// One position's search as JSON: its FEN, side to move, the search's
/// figures and one object per root move for the `multipv` best (visits,
/// win/draw/loss in permille, score as the protocol prints it, proven
/// result, line).
pub fn report_json<G: Notation>(
    pos: &G,
    report: &crate::search::Report<G::Move>,
    multipv: usize,
) -> Value {
    let lines: Vec<Value> = report
        .lines
        .iter()
        .take(multipv)
        .map(|l| {
            json!({
                "move": l.mv.to_string(),
                "visits": l.visits,
                "wdl": l.wdl,
                "expected": round(l.q),
                "score": Eval { q: l.q, proven: l.proven }.score().to_string(),
                "proven": proven_json(l.proven),
                "pv": l.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "game": G::KIND.name(),
        "fen": pos.to_string(),
        "side": pos.side_to_move().to_string(),
        "nodes": report.nodes,
        "time_ms": report.elapsed.as_millis() as u64,
        "depth": report.depth,
        "seldepth": report.seldepth,
        "hashfull": report.hashfull,
        "lines": lines,
    })
}
