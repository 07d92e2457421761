//! The analysis panel's Solve button: `POST /solve` proves the position
//! shown won, drawn or lost with the proof-number solver
//! ([`crate::solve`]), within [`SOLVE_TIME`], and answers with the result
//! as JSON. It runs on the request's own thread and touches nothing of the
//! session, so the game goes on meanwhile; at most [`MAX_SOLVES`] run at
//! once.

use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::GuiError;
use crate::game::{GameKind, Notation, Verdict};
use crate::search::Control;
use crate::solve::{Limits, Options, Solver};

/// The longest a Solve press searches.
pub const SOLVE_TIME: Duration = Duration::from_secs(10);
/// The solver's table, in MiB.
const SOLVE_HASH_MB: usize = 256;
/// Solves that run at once: each holds a table of [`SOLVE_HASH_MB`], so a
/// press while one runs is refused (429) rather than another table taken.
pub const MAX_SOLVES: usize = 1;

/// One of the [`MAX_SOLVES`] places, counted in `running`, given back when
/// dropped.
pub struct SolveSlot<'a> {
    running: &'a AtomicUsize,
}

impl<'a> SolveSlot<'a> {
    /// A place among the solves counted in `running`, or `None` when all
    /// are taken.
    pub fn take(running: &'a AtomicUsize) -> Option<SolveSlot<'a>> {
        running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_SOLVES).then_some(n + 1)
            })
            .ok()
            .map(|_| SolveSlot { running })
    }
}

impl Drop for SolveSlot<'_> {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Solves the position `fen` of `game` within `time`: `{"result":
/// "win"|"draw"|"loss"|"unknown", "side", "plies", "pv", "nodes",
/// "time_ms", "text"}`, `text` the sentence the page shows.
pub fn solve(game: GameKind, fen: &str, time: Duration) -> Result<Value, GuiError> {
    match game {
        GameKind::Uttt => solve_for::<crate::rules::Position>(fen, time),
        GameKind::Super15 => solve_for::<crate::super15::Position>(fen, time),
    }
}

fn solve_for<G: Notation + Hash>(fen: &str, time: Duration) -> Result<Value, GuiError> {
    let pos: G = fen
        .parse()
        .map_err(|e: G::FenError| GuiError::BadRequest(e.to_string()))?;
    let side = pos.side_to_move();
    let options = Options {
        hash_mb: SOLVE_HASH_MB,
        ..Options::default()
    };
    let mut solver = Solver::new(&options).map_err(|e| GuiError::BadRequest(e.to_string()))?;
    let limits = Limits {
        nodes: None,
        time: Some(time),
    };
    let s = solver.solve(&pos, &limits, &Control::new(), &mut |_| {});
    let word = match s.verdict {
        Some(Verdict::Win) => "win",
        Some(Verdict::Draw) => "draw",
        Some(Verdict::Loss) => "loss",
        None => "unknown",
    };
    let pv: Vec<String> = s.pv.iter().map(|m| m.to_string()).collect();
    let text = match (s.verdict, s.plies) {
        (Some(Verdict::Draw), _) => "proven draw".to_string(),
        (Some(v), Some(n)) => {
            let who = if v == Verdict::Win {
                side
            } else {
                side.opponent()
            };
            let unit = if n == 1 { "ply" } else { "plies" };
            format!("proven: {who} wins in {n} {unit}")
        }
        (Some(v), None) => {
            let who = if v == Verdict::Win {
                side
            } else {
                side.opponent()
            };
            format!("proven: {who} wins")
        }
        (None, _) => match (s.lower, s.upper) {
            (Verdict::Draw, _) => {
                format!("not solved in {} s: {side} does not lose", time.as_secs())
            }
            (_, Verdict::Draw) => {
                format!("not solved in {} s: {side} does not win", time.as_secs())
            }
            _ => format!("not solved in {} s", time.as_secs()),
        },
    };
    Ok(json!({
        "result": word,
        "side": side.to_string(),
        "plies": s.plies,
        "pv": pv,
        "nodes": s.nodes,
        "time_ms": s.elapsed.as_millis() as u64,
        "text": text,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_the_position_it_is_given() {
        let v = solve(
            GameKind::Uttt,
            "xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4",
            SOLVE_TIME,
        )
        .unwrap();
        assert_eq!(v["result"], "win");
        assert_eq!(v["text"], "proven: x wins in 1 ply");
        assert_eq!(v["pv"], json!(["i3"]));
        let v = solve(
            GameKind::Uttt,
            "9/9/9/9/9/9/9/9/9 x 1 0000",
            Duration::from_millis(20),
        )
        .unwrap();
        assert_eq!(v["result"], "unknown");
        assert!(solve(GameKind::Uttt, "nonsense", SOLVE_TIME).is_err());
    }
}
