//! `ultimo perft`: counts the leaves of the move tree, for checking the rules
//! and measuring move generation speed.

use std::convert::Infallible;
use std::io::{self, Write};
use std::time::Instant;

use crate::game::Notation;
#[cfg(test)]
use crate::rules::Position;

/// Runs perft to `depth` from `pos`, writing one `<move> <count>` line per
/// root move when `divide` is set, then a line with the time and speed, and
/// last `total <leaves>`. Returns the leaf count.
pub fn run<G: Notation>(
    pos: &G,
    depth: u32,
    divide: bool,
    out: &mut impl Write,
) -> io::Result<u64> {
    let start = Instant::now();
    let total = count(pos, depth, divide, |m, n| writeln!(out, "{m} {n}"))?;
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "time {:.3} s, {:.1}M leaves/s",
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    )?;
    writeln!(out, "total {total}")?;
    Ok(total)
}

/// Perft to `depth` from `pos` as JSON: the game, the position, the depth,
/// the leaves (`total`), the time and the speed, and with `divide` the
/// count below each root move (`divide`: `[{"move", "leaves"}, ..]`, else
/// null).
pub fn json<G: Notation>(pos: &G, depth: u32, divide: bool) -> serde_json::Value {
    let start = Instant::now();
    let mut moves = Vec::new();
    let counted = count(pos, depth, divide, |m, n| {
        moves.push(serde_json::json!({ "move": m.to_string(), "leaves": n }));
        Ok::<(), Infallible>(())
    });
    let total = match counted {
        Ok(total) => total,
        Err(never) => match never {},
    };
    let time = start.elapsed();
    serde_json::json!({
        "game": G::KIND.name(),
        "fen": pos.to_string(),
        "depth": depth,
        "total": total,
        "divide": divide.then_some(moves),
        "time_ms": time.as_millis() as u64,
        "leaves_per_second": (total as f64 / time.as_secs_f64().max(1e-9)) as u64,
    })
}

/// The leaves of the move tree `depth` plies below `pos`; with `divide`
/// (and a depth), `on_move` hears each root move and its count first.
fn count<G: Notation, E>(
    pos: &G,
    depth: u32,
    divide: bool,
    mut on_move: impl FnMut(G::Move, u64) -> Result<(), E>,
) -> Result<u64, E> {
    if !divide || depth == 0 {
        return Ok(pos.perft(depth));
    }
    let mut total = 0;
    for &m in pos.legal_moves().iter() {
        let mut child = *pos;
        child.play_unchecked(m);
        let n = child.perft(depth - 1);
        on_move(m, n)?;
        total += n;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_lines_add_up() {
        let mut out = Vec::new();
        let pos: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
        let total = run(&pos, 3, true, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8 + 2);
        let sum: u64 = lines[..8]
            .iter()
            .map(|l| l.split(' ').nth(1).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum, total);
        assert_eq!(lines[9], format!("total {total}"));
        let value = json(&pos, 3, true);
        assert_eq!(value["total"], total);
        assert_eq!(value["game"], "uttt");
        let divided = value["divide"].as_array().unwrap();
        assert_eq!(divided.len(), 8);
        let first = lines[0].split(' ').nth(1).unwrap().parse::<u64>().unwrap();
        assert_eq!(divided[0]["leaves"], first);
        assert_eq!(json(&pos, 3, false)["divide"], serde_json::Value::Null);
    }
}
