//! `ultimo solve`: proves a position won, drawn or lost for the side to
//! move with the proof-number solver ([`crate::solve`]), and prints the
//! proving line and one last line `result win|draw|loss|unknown for x|o
//! [in N]`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::analyze::interruptible;
use super::{CliError, PositionArgs, position_from, seconds};
use crate::display::Style;
use crate::display::board::Board;
use crate::engine::NetGame;
use crate::game::{GameKind, Verdict};
use crate::pgn::PgnNotation;
use crate::rules::Position;
use crate::search::Control;
use crate::solve::{Limits, Options, Progress, Solution, Solver};

/// The command line of `ultimo solve`.
#[derive(clap::Args)]
#[command(after_long_help = SOLVE_HELP)]
pub struct SolveArgs {
    /// The game
    #[arg(long, value_enum, default_value_t)]
    game: GameKind,
    #[command(flatten)]
    position: PositionArgs,
    /// Give up after this many seconds (default: no limit; Ctrl-C stops
    /// and prints what is known)
    #[arg(long, value_parser = seconds)]
    time: Option<Duration>,
    /// Give up after this many nodes (a repeatable limit)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Search threads: 1, or 2 to search "does the side to move win?" and
    /// "does it avoid a loss?" at once (each with half of --nodes)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    threads: u16,
    /// Memory for the transposition table, in MiB
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    hash: u32,
    /// Print the result as JSON instead of text
    #[arg(long)]
    json: bool,
}

/// The help's words on the result.
const SOLVE_HELP: &str = "\
Output:
  The board, then when the solve ends: nodes, time, speed and how full the
  table is; the proving line (pv: the winner's moves and the loser's
  longest resistance, or moves that hold the draw for both); and last
  'result win|draw|loss|unknown for <side to move> in N', N the plies to
  the end of the game along that line (an upper bound on a win's length,
  not the shortest), left out when not known. While unsolved, a line
  'known' says what is proven (e.g. 'x does not lose'). Progress goes to
  stderr once a second.";

/// Runs `ultimo solve`.
pub fn main(args: &SolveArgs) -> Result<(), CliError> {
    match args.game {
        GameKind::Uttt => main_for::<Position>(args),
        GameKind::Super15 => main_for::<crate::super15::Position>(args),
    }
}

fn main_for<G: Board + NetGame + PgnNotation + std::hash::Hash>(
    args: &SolveArgs,
) -> Result<(), CliError> {
    let pos: G = position_from(args.position.fen.as_deref(), &args.position.moves)?;
    let options = Options {
        hash_mb: args.hash as usize,
        threads: args.threads as usize,
        ..Options::default()
    };
    let mut solver = Solver::new(&options)?;
    let limits = Limits {
        nodes: args.nodes,
        time: args.time,
    };
    let mut out = io::stdout().lock();
    if !args.json {
        let style = Style::for_stdout();
        write!(out, "{}", pos.diagram(style))?;
        writeln!(out, "{}", pos.summary())?;
        out.flush()?;
    }
    let control = Control::new();
    let side = pos.side_to_move();
    let mut last_report = Instant::now();
    let solution = until_interrupted(&control, || {
        solver.solve(&pos, &limits, &control, &mut |p: &Progress| {
            if last_report.elapsed() >= Duration::from_secs(1) {
                last_report = Instant::now();
                eprintln!("{}", progress_line(p, side));
            }
        })
    });
    if args.json {
        writeln!(out, "{:#}", json(&pos, &solution))?;
    } else {
        for line in text(&solution, side) {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Runs `work` with Ctrl-C (and SIGTERM or SIGHUP on Unix) stopping
/// `control` instead of ending the process, so that what is known so far
/// is printed.
fn until_interrupted<R>(control: &Control, work: impl FnOnce() -> R) -> R {
    let interrupted = interruptible();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if interrupted() {
                    control.stop();
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        let result = work();
        done.store(true, Ordering::SeqCst);
        result
    })
}

/// A verdict's word.
fn word(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::Win) => "win",
        Some(Verdict::Draw) => "draw",
        Some(Verdict::Loss) => "loss",
        None => "unknown",
    }
}

/// What the bounds say, in words, when they say something and the
/// position is not solved (e.g. "x does not lose").
fn known(lower: Verdict, upper: Verdict, side: crate::game::Player) -> Option<String> {
    match (lower, upper) {
        (a, b) if a == b => None,
        (Verdict::Draw, _) => Some(format!("{side} does not lose")),
        (_, Verdict::Draw) => Some(format!("{side} does not win")),
        _ => None,
    }
}

/// A progress line for stderr.
fn progress_line(p: &Progress, side: crate::game::Player) -> String {
    let question = match p.goal {
        Verdict::Win => "wins",
        _ => "does not lose",
    };
    let nps = (p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9)) as u64;
    let mut line = format!(
        "info nodes {} time {:.1} s nps {nps} hashfull {} searching '{side} {question}' pn {} dn {}",
        p.nodes,
        p.elapsed.as_secs_f64(),
        p.hashfull,
        p.pn,
        p.dn
    );
    if let Some(k) = known(p.lower, p.upper, side) {
        line.push_str(&format!(" known '{k}'"));
    }
    line
}

/// The text after the board: figures, what is known, the line, the result.
fn text<M: std::fmt::Display>(s: &Solution<M>, side: crate::game::Player) -> Vec<String> {
    let mut lines = vec![format!(
        "nodes {}  time {:.1} s  nps {}  hashfull {}",
        s.nodes,
        s.elapsed.as_secs_f64(),
        s.nps(),
        s.hashfull
    )];
    if let Some(k) = known(s.lower, s.upper, side) {
        lines.push(format!("known {k}"));
    }
    let pv: Vec<String> = s.pv.iter().map(|m| m.to_string()).collect();
    lines.push(format!("pv {}", pv.join(" ")).trim_end().to_string());
    let mut result = format!("result {} for {side}", word(s.verdict));
    if let (Some(_), Some(n)) = (s.verdict, s.plies) {
        result.push_str(&format!(" in {n}"));
    }
    lines.push(result);
    lines
}

/// The solution as JSON.
fn json<G: Board>(pos: &G, s: &Solution<G::Move>) -> serde_json::Value {
    serde_json::json!({
        "game": G::KIND.name(),
        "fen": pos.to_string(),
        "side": pos.side_to_move().to_string(),
        "result": word(s.verdict),
        "lower": word(Some(s.lower)),
        "upper": word(Some(s.upper)),
        "plies": s.plies,
        "pv": s.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "nodes": s.nodes,
        "time_ms": s.elapsed.as_millis() as u64,
        "nps": s.nps(),
        "hashfull": s.hashfull,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Player;

    fn solution(
        verdict: Option<Verdict>,
        lower: Verdict,
        upper: Verdict,
    ) -> Solution<&'static str> {
        Solution {
            verdict,
            lower,
            upper,
            plies: verdict.map(|_| 3),
            pv: vec!["a1", "b2", "c3"],
            nodes: 10,
            elapsed: Duration::from_millis(5),
            hashfull: 1,
        }
    }

    #[test]
    fn result_lines() {
        let s = solution(Some(Verdict::Win), Verdict::Win, Verdict::Win);
        let t = text(&s, Player::O);
        assert_eq!(t.last().unwrap(), "result win for o in 3");
        assert_eq!(t[t.len() - 2], "pv a1 b2 c3");
        let s = solution(None, Verdict::Draw, Verdict::Win);
        let t = text(&s, Player::X);
        assert_eq!(t.last().unwrap(), "result unknown for x");
        assert!(t.contains(&"known x does not lose".to_string()), "{t:?}");
        let s = solution(None, Verdict::Loss, Verdict::Draw);
        assert!(text(&s, Player::X).contains(&"known x does not win".to_string()));
        let s = solution(None, Verdict::Loss, Verdict::Win);
        assert_eq!(text(&s, Player::X).len(), 3);
    }
}
