//! The analysis panel's Solve button: `POST /solve` proves the position
//! shown won, drawn or lost with the proof-number solver
//! ([`crate::solve`]), within [`SOLVE_TIME`], and answers with the result
//! as JSON. It runs on the request's own thread and touches nothing of the
//! session, so the game goes on meanwhile. One runs at once ([`Running`]);
//! `POST /solve/stop` stops it.

use std::sync::{Arc, Mutex};
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

/// The one solve that may run at once (each holds a table of
/// `SOLVE_HASH_MB` MiB, so a press while one runs is refused rather than
/// another table taken): its stop, while it runs.
pub type Running = Mutex<Option<Arc<Control>>>;

/// The place of the running solve in a [`Running`], given back when
/// dropped.
pub struct SolveSlot<'a> {
    running: &'a Running,
    /// Stops it ([`stop`]).
    pub control: Arc<Control>,
}

impl<'a> SolveSlot<'a> {
    /// The place in `running`, or `None` while another solve holds it.
    pub fn take(running: &'a Running) -> Option<SolveSlot<'a>> {
        let mut slot = lock(running);
        if slot.is_some() {
            return None;
        }
        let control = Arc::new(Control::new());
        *slot = Some(Arc::clone(&control));
        Some(SolveSlot { running, control })
    }
}

impl Drop for SolveSlot<'_> {
    fn drop(&mut self) {
        *lock(self.running) = None;
    }
}

/// Stops the running solve, if any (it answers at once with what it has);
/// whether one was running.
pub fn stop(running: &Running) -> bool {
    match &*lock(running) {
        Some(control) => {
            control.stop();
            true
        }
        None => false,
    }
}

fn lock(running: &Running) -> std::sync::MutexGuard<'_, Option<Arc<Control>>> {
    running
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Solves the position `fen` of `game` within `time`: `{"result":
/// "win"|"draw"|"loss"|"unknown", "side", "plies", "pv", "nodes",
/// "time_ms", "text"}`, `text` the sentence the page shows.
/// `control` stops it early.
pub fn solve(
    game: GameKind,
    fen: &str,
    time: Duration,
    control: &Control,
) -> Result<Value, GuiError> {
    match game {
        GameKind::Uttt => solve_for::<crate::rules::Position>(fen, time, control),
        GameKind::Super15 => solve_for::<crate::super15::Position>(fen, time, control),
    }
}

fn solve_for<G: Notation>(fen: &str, time: Duration, control: &Control) -> Result<Value, GuiError> {
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
    let s = solver.solve(&pos, &limits, control, &mut |_| {});
    let within = match control.is_stopped() {
        true => "when stopped".to_string(),
        false => format!("in {} s", time.as_secs()),
    };
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
            (Verdict::Draw, _) => format!("not solved {within}: {side} does not lose"),
            (_, Verdict::Draw) => format!("not solved {within}: {side} does not win"),
            _ => format!("not solved {within}"),
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
        let go = Control::new();
        let v = solve(
            GameKind::Uttt,
            "xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4",
            SOLVE_TIME,
            &go,
        )
        .unwrap();
        assert_eq!(v["result"], "win");
        assert_eq!(v["text"], "proven: x wins in 1 ply");
        assert_eq!(v["pv"], json!(["i3"]));
        let start = "9/9/9/9/9/9/9/9/9 x 1 0000";
        let v = solve(GameKind::Uttt, start, Duration::from_millis(20), &go).unwrap();
        assert_eq!(v["result"], "unknown");
        assert!(
            v["text"].as_str().unwrap().starts_with("not solved in 0 s"),
            "{v}"
        );
        assert!(solve(GameKind::Uttt, "nonsense", SOLVE_TIME, &go).is_err());
        // Stopped: at once, and says so.
        let stopped = Control::new();
        stopped.stop();
        let v = solve(GameKind::Uttt, start, SOLVE_TIME, &stopped).unwrap();
        assert_eq!(v["result"], "unknown");
        assert!(
            v["text"]
                .as_str()
                .unwrap()
                .starts_with("not solved when stopped"),
            "{v}"
        );
    }

    #[test]
    fn one_solve_holds_the_place_and_can_be_stopped() {
        let running: Running = Mutex::new(None);
        assert!(!stop(&running), "nothing to stop");
        let slot = SolveSlot::take(&running).unwrap();
        assert!(SolveSlot::take(&running).is_none(), "one at a time");
        assert!(stop(&running));
        assert!(slot.control.is_stopped());
        drop(slot);
        assert!(SolveSlot::take(&running).is_some(), "free again");
    }
}
