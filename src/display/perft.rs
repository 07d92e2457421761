//! `ultimo perft`: counts the leaves of the move tree, for checking the rules
//! and measuring move generation speed.

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
    let total = if divide && depth > 0 {
        let mut total = 0;
        for &m in pos.legal_moves().iter() {
            let mut child = *pos;
            child.play_unchecked(m);
            let n = child.perft(depth - 1);
            writeln!(out, "{m} {n}")?;
            total += n;
        }
        total
    } else {
        pos.perft(depth)
    };
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
    }
}
