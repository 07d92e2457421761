//! Search results as text: protocol scores (`cp`/`mate`), proven results
//! and chances in words, and the analysis table.

use std::fmt::Display;
use std::time::Duration;

use crate::game::Verdict;
use crate::pgn::{MoveNote, Score};
use crate::search::{Line, Proven, Report};

/// `cp <n>` from the expected score, or `mate <n>` for a proven result.
pub fn score<M>(line: &Line<M>) -> String {
    match line.proven {
        Some(p) => match p.verdict {
            Verdict::Win => format!("mate {}", p.moves()),
            Verdict::Loss => format!("mate -{}", p.moves()),
            Verdict::Draw => "cp 0".into(),
        },
        None => format!("cp {}", centipawns(line.q)),
    }
}

/// `round(400 * log10(q / (1 - q)))`, clamped to -2000..2000.
pub fn centipawns(q: f64) -> i32 {
    let q = q.clamp(1e-6, 1.0 - 1e-6);
    (400.0 * (q / (1.0 - q)).log10())
        .round()
        .clamp(-2000.0, 2000.0) as i32
}

/// The note on an engine's move for its game record: the score of its
/// best line from the mover's view (a mate distance when proven), the
/// depth, and `took`, the time it thought.
pub fn move_note<M>(report: &Report<M>, took: Duration) -> MoveNote {
    let score = report.lines.first().map(|line| match line.proven {
        Some(p) => match p.verdict {
            Verdict::Win => Score::Mate(p.moves() as i32),
            Verdict::Loss => Score::Mate(-(p.moves() as i32)),
            Verdict::Draw => Score::Cp(0),
        },
        None => Score::Cp(centipawns(line.q)),
    });
    MoveNote {
        score,
        depth: Some(report.depth),
        time_ms: Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
    }
}

/// A proven result in words, e.g. "wins in 3" (plies).
pub fn proven_text(p: Proven) -> String {
    let n = p.plies;
    match p.verdict {
        Verdict::Win => format!("wins in {n}"),
        Verdict::Loss => format!("loses in {n}"),
        Verdict::Draw => format!("draws in {n}"),
    }
}

/// A line's result for people: "wins in 3" when proven, else the chances,
/// e.g. "win 52%, draw 10%, loss 38%".
pub fn proven_text_or_score<M>(line: &Line<M>) -> String {
    match line.proven {
        Some(p) => proven_text(p),
        None => {
            let [w, d, l] = line.wdl.map(|x| (x as f64 / 10.0).round());
            format!("win {w}%, draw {d}%, loss {l}%")
        }
    }
}

/// The table of the `multipv` best moves.
pub fn table<M: Display + Copy>(report: &Report<M>, multipv: usize) -> Vec<String> {
    let mut rows = vec![format!(
        "{:>3}  {:<4} {:>9}  {:>5} {:>5} {:>5}  {:<10} {:<12} pv",
        "#", "move", "visits", "win%", "draw%", "loss%", "score", "proven"
    )];
    for (i, line) in report.lines.iter().take(multipv).enumerate() {
        let [w, d, l] = line.wdl;
        let pct = |x: u32| format!("{:.1}", x as f64 / 10.0);
        let pv: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
        rows.push(format!(
            "{:>3}  {:<4} {:>9}  {:>5} {:>5} {:>5}  {:<10} {:<12} {}",
            i + 1,
            line.mv.to_string(),
            line.visits,
            pct(w),
            pct(d),
            pct(l),
            score(line),
            line.proven.map_or("-".to_string(), proven_text),
            pv.join(" ")
        ));
    }
    rows.push(format!(
        "nodes {}  time {:.1} s  nps {}  depth {}  seldepth {}  hashfull {}",
        report.nodes,
        report.elapsed.as_secs_f64(),
        report.nps(),
        report.depth,
        report.seldepth,
        report.hashfull
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    #[test]
    fn centipawn_formula() {
        assert_eq!(centipawns(0.5), 0);
        assert_eq!(centipawns(0.75), 191);
        assert_eq!(centipawns(0.25), -191);
        assert_eq!(centipawns(1.0), 2000);
        assert_eq!(centipawns(0.0), -2000);
    }

    #[test]
    fn mate_scores_count_own_moves() {
        let line = |verdict, plies| Line {
            mv: Move::default(),
            visits: 1,
            q: 1.0,
            wdl: [1000, 0, 0],
            proven: Some(Proven { verdict, plies }),
            pv: vec![],
            prior: None,
        };
        assert_eq!(score(&line(Verdict::Win, 1)), "mate 1");
        assert_eq!(score(&line(Verdict::Win, 3)), "mate 2");
        assert_eq!(score(&line(Verdict::Loss, 2)), "mate -1");
        assert_eq!(score(&line(Verdict::Loss, 4)), "mate -2");
        assert_eq!(score(&line(Verdict::Draw, 5)), "cp 0");
        assert_eq!(
            proven_text(Proven {
                verdict: Verdict::Loss,
                plies: 4
            }),
            "loses in 4"
        );
    }
}
