//! `go solve`: the proof-number solver ([`crate::solve`]) run from the
//! protocol, on a thread of its own so that `stop`, `isready` and `quit`
//! are served meanwhile. A proven result is reported as the search reports
//! one (`score mate N`, a proven draw as `score cp 0`), followed by one
//! `info string solve result ...` line and the `bestmove`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::command::Go;
use super::{InfoFormat, Output, bestmove};
use crate::engine::Job;
use crate::game::{Game, Player, Verdict};
use crate::search::{Control, Line, Proven, Report};
use crate::solve::{self, Solution, SolveError, Solver};

/// Why `go solve` cannot start.
#[derive(Debug, thiserror::Error)]
pub enum GoSolveError {
    /// A `go` parameter the solver does not take.
    #[error("go solve: {0} is not allowed with solve")]
    Parameter(&'static str),
    /// The solver's table cannot be reserved.
    #[error("go solve: {0}")]
    Solver(#[from] SolveError),
    /// The solver's thread cannot be started.
    #[error("go solve: cannot start the solver's thread: {0}")]
    Thread(std::io::Error),
}

/// The solver's limits for `go` (the `solve` flag set) with `side` to move:
/// `movetime`, `nodes`, or with only a clock a twentieth of the time left
/// plus half the increment, less `overhead`; none (until solved or `stop`)
/// without any. `depth`, `ponder` and `searchmoves` are refused.
pub(super) fn limits<M>(
    go: &Go<M>,
    side: Player,
    overhead: Duration,
) -> Result<solve::Limits, GoSolveError> {
    if go.depth.is_some() {
        return Err(GoSolveError::Parameter("depth"));
    }
    if go.ponder {
        return Err(GoSolveError::Parameter("ponder"));
    }
    if !go.searchmoves.is_empty() {
        return Err(GoSolveError::Parameter("searchmoves"));
    }
    let clock = go.clock(side.index()).map(|(t, inc)| t / 20 + inc / 2);
    let time = match (go.movetime, clock) {
        _ if go.infinite => None,
        (Some(t), _) => Some(t),
        (None, Some(t)) => Some(t.saturating_sub(overhead)),
        (None, None) => None,
    };
    Ok(solve::Limits {
        nodes: go.nodes,
        time,
    })
}

/// The solver and the solve running on its thread, if any.
#[derive(Default)]
pub(super) struct SolveThread {
    /// The solver while no solve runs (made at the first `go solve`, kept
    /// for what its table learnt).
    solver: Option<Solver>,
    running: Option<Running>,
}

/// A solve in progress: it gives the solver back, and says it has
/// finished just before its closing lines.
type Running = Job<Solver>;

impl SolveThread {
    /// Whether a solve runs that was not told to stop.
    pub fn is_running(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.is_running())
    }

    /// Tells a running solve to stop; it still writes its `bestmove`.
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.stop();
        }
    }

    /// Waits for the solve (told to stop, or finished); `false` when its
    /// thread failed (the solver is then made again at the next solve).
    pub fn wait(&mut self) -> bool {
        let Some(r) = self.running.take() else {
            return true;
        };
        match r.join() {
            Ok(solver) => {
                self.solver = Some(solver);
                true
            }
            Err(_) => false,
        }
    }

    /// Forgets what the solver's table learnt.
    pub fn clear(&mut self) {
        if let Some(s) = &mut self.solver {
            s.clear();
        }
    }

    /// Starts solving `pos` within `limits`, counted from `since` (the
    /// `go`), with a table of `hash_mb` MiB; `info` lines about once a
    /// second, then the result and the `bestmove` to `out`.
    pub fn start<G: Game>(
        &mut self,
        pos: G,
        mut limits: solve::Limits,
        since: Instant,
        hash_mb: usize,
        format: InfoFormat,
        out: Output,
    ) -> Result<(), GoSolveError> {
        self.stop();
        self.wait();
        let mut solver = match self.solver.take() {
            Some(s) if s.options().hash_mb == hash_mb => s,
            other => {
                // The old table goes before the new one is reserved.
                drop(other);
                Solver::new(&solve::Options {
                    hash_mb,
                    ..solve::Options::default()
                })?
            }
        };
        // The table's set-up counts against the time.
        limits.time = limits.time.map(|t| t.saturating_sub(since.elapsed()));
        let job = Job::spawn("solve", Arc::new(Control::new()), move |control, finish| {
            let mut last = Instant::now();
            let solution = solver.solve(&pos, &limits, control, &mut |p| {
                if last.elapsed() >= Duration::from_secs(1) {
                    last = Instant::now();
                    let nps = (p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9)) as u64;
                    out.line(&format!(
                        "info nodes {} nps {nps} hashfull {} time {}",
                        p.nodes,
                        p.hashfull,
                        p.elapsed.as_millis()
                    ));
                }
            });
            // Finished before the `bestmove` is written, so that a `go`
            // sent on reading it is not refused as busy; the next search
            // joins this thread first, so the lines keep their order.
            finish.done();
            for line in lines(&pos, &solution, format) {
                out.line(&line);
            }
            solver
        })
        .map_err(GoSolveError::Thread)?;
        self.running = Some(job);
        Ok(())
    }
}

/// A solve's closing lines: the `info` line (with a score when solved),
/// `info string solve result ...` and the `bestmove` (the line's first
/// move; unsolved, the one the search spent most on, or the first legal
/// move).
pub(super) fn lines<G: Game>(pos: &G, s: &Solution<G::Move>, format: InfoFormat) -> Vec<String> {
    let side = pos.side_to_move();
    let mut out = Vec::new();
    let report = report(pos, s);
    match s.verdict {
        Some(_) => out.extend(format.lines(&report)),
        None => {
            let pv: String = s.pv.iter().map(|m| format!(" {m}")).collect();
            out.push(format!(
                "info nodes {} nps {} hashfull {} time {} pv{pv}",
                s.nodes,
                s.nps(),
                s.hashfull,
                s.elapsed.as_millis()
            ));
        }
    }
    out.push(result_line(s, side));
    out.push(bestmove(&report, false));
    out
}

/// `info string solve result win|draw|loss|unknown for <side> [in N]`,
/// with what is known of an unsolved position (`known x does not lose`).
pub(super) fn result_line<M>(s: &Solution<M>, side: Player) -> String {
    let word = match s.verdict {
        Some(Verdict::Win) => "win",
        Some(Verdict::Draw) => "draw",
        Some(Verdict::Loss) => "loss",
        None => "unknown",
    };
    let mut line = format!("info string solve result {word} for {side}");
    match (s.verdict, s.plies) {
        (Some(_), Some(n)) => line.push_str(&format!(" in {n}")),
        (Some(_), None) => {}
        (None, _) => match (s.lower, s.upper) {
            (Verdict::Draw, _) => line.push_str(&format!(" known {side} does not lose")),
            (_, Verdict::Draw) => line.push_str(&format!(" known {side} does not win")),
            _ => {}
        },
    }
    line
}

/// The solution as a search report of one line (the proven one when
/// solved), so that it is written as the search's are.
fn report<G: Game>(pos: &G, s: &Solution<G::Move>) -> Report<G::Move> {
    let plies = s.plies.unwrap_or(s.pv.len() as u32).max(1);
    let (q, wdl) = match s.verdict {
        Some(Verdict::Win) => (1.0, [1000, 0, 0]),
        Some(Verdict::Loss) => (0.0, [0, 0, 1000]),
        _ => (0.5, [0, 1000, 0]),
    };
    let first =
        s.pv.first()
            .copied()
            .or_else(|| pos.legal_moves().first().copied());
    let lines = first
        .map(|mv| Line {
            mv,
            visits: s.nodes,
            q,
            wdl,
            proven: s.verdict.map(|verdict| Proven { verdict, plies }),
            pv: if s.pv.is_empty() {
                vec![mv]
            } else {
                s.pv.clone()
            },
            prior: None,
        })
        .into_iter()
        .collect();
    let depth = s.pv.len() as u32;
    Report {
        lines,
        nodes: s.nodes,
        elapsed: s.elapsed,
        depth,
        seldepth: depth,
        hashfull: s.hashfull,
    }
}
