//! `ultimo codingame`: the turn loop of CodinGame's Ultimate Tic-Tac-Toe.
//!
//! Each turn: `opponentRow opponentCol` (`-1 -1` when we open the game),
//! `validActionCount`, that many `row col` lines; we answer `row col`. Rows
//! and columns are 0-8 from the top-left. The referee gives a drawn big
//! board to the player with more small boards won, so the search plays by
//! [`BoardCountTiebreak`].

use std::io::{BufRead, Write};
use std::time::Duration;

use crate::rules::BoardCountTiebreak;
use crate::rules::{Move, Position};
use crate::search::{Control, Limits, Options, Searcher};

/// Settings of the CodinGame loop.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Thinking time on our first turn.
    pub first_turn: Duration,
    /// Thinking time on later turns.
    pub turn: Duration,
    /// Search options (threads, hash, seed).
    pub options: Options,
}

/// Reads one line; `Ok(None)` at end of input.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    match input.read_until(b'\n', &mut buf) {
        Ok(0) => Ok(None),
        Ok(_) => Ok(Some(String::from_utf8_lossy(&buf).trim().to_string())),
        Err(e) => Err(format!("cannot read input: {e}")),
    }
}

/// Two integers on a line.
fn pair(line: &str, what: &str) -> Result<(i32, i32), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [a, b] => match (a.parse(), b.parse()) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            _ => Err(format!("expected {what} as two integers, got '{line}'")),
        },
        _ => Err(format!("expected {what} as two integers, got '{line}'")),
    }
}

/// The cell at `row col` (0-8 from the top-left).
fn cell(row: i32, col: i32) -> Option<Move> {
    let (row, col) = (u8::try_from(row).ok()?, u8::try_from(col).ok()?);
    Move::from_grid(col, row)
}

/// Runs the loop until end of input. Problems with the input are reported
/// on `log` (stderr); the loop ends only when the input does.
pub fn run(
    settings: &Settings,
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), String> {
    let mut game = BoardCountTiebreak(Position::startpos());
    let mut searcher = Searcher::new(settings.options.clone(), game).map_err(|e| e.to_string())?;
    let control = Control::new();
    let mut first = true;
    loop {
        let Some(line) = read_line(input)? else {
            return Ok(());
        };
        if line.is_empty() {
            continue;
        }
        match pair(&line, "the opponent's move") {
            Ok((-1, -1)) => {}
            Ok((row, col)) => match cell(row, col) {
                Some(m) => {
                    if let Err(e) = game.0.try_play(m) {
                        let _ = writeln!(log, "error: the opponent's move {row} {col} ({m}): {e}");
                    }
                }
                None => {
                    let _ = writeln!(log, "error: no cell at row {row} column {col}");
                }
            },
            Err(e) => {
                let _ = writeln!(log, "error: {e}");
                continue;
            }
        }
        let Some(count_line) = read_line(input)? else {
            return Ok(());
        };
        let count: usize = match count_line.parse() {
            Ok(n @ 0..=81) => n,
            _ => {
                let _ = writeln!(
                    log,
                    "error: expected the number of valid actions (0-81), got '{count_line}'"
                );
                continue;
            }
        };
        let mut valid = Vec::with_capacity(count);
        for _ in 0..count {
            let Some(line) = read_line(input)? else {
                return Ok(());
            };
            match pair(&line, "a valid action").map(|(r, c)| cell(r, c)) {
                Ok(Some(m)) => valid.push(m),
                Ok(None) | Err(_) => {
                    let _ = writeln!(log, "error: bad valid action '{line}'");
                }
            }
        }
        let mut ours: Vec<Move> = game.0.legal_moves().to_vec();
        ours.sort();
        let mut theirs = valid.clone();
        theirs.sort();
        if ours != theirs {
            let _ = writeln!(
                log,
                "warning: the referee's valid actions differ from ours; playing among theirs"
            );
        }
        let limits = Limits {
            movetime: Some(if first {
                settings.first_turn
            } else {
                settings.turn
            }),
            ..Limits::default()
        };
        first = false;
        let allowed: Vec<Move> = valid
            .iter()
            .copied()
            .filter(|&m| game.0.is_legal(m))
            .collect();
        let report = searcher.search(&game, &limits, &allowed, &control, &mut |_| {});
        let choice = report
            .best_move()
            .filter(|m| valid.contains(m))
            .or_else(|| valid.first().copied());
        let Some(m) = choice else {
            let _ = writeln!(log, "error: no valid action to play");
            continue;
        };
        if game.0.is_legal(m) {
            game.0.play(m);
        }
        writeln!(out, "{} {}", m.row(), m.col())
            .and_then(|_| out.flush())
            .map_err(|e| format!("cannot write the move: {e}"))?;
        if let Some(line) = report.lines.first() {
            let _ = writeln!(
                log,
                "{m}: {} nodes, score {}",
                report.nodes,
                crate::display::score::score(line)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            first_turn: Duration::from_millis(30),
            turn: Duration::from_millis(10),
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
        }
    }

    fn turn(opponent: &str, pos: &Position) -> String {
        let moves = pos.legal_moves();
        let mut s = format!("{opponent}\n{}\n", moves.len());
        for m in moves.iter() {
            s.push_str(&format!("{} {}\n", m.row(), m.col()));
        }
        s
    }

    #[test]
    fn plays_legal_moves_as_first_player() {
        let mut input = turn("-1 -1", &Position::startpos());
        // Our reply will be unknown; feed a second turn after a move that
        // is legal whatever we play: we check only the first answer here.
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&settings(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        let text = String::from_utf8(out).unwrap();
        let (r, c) = pair(text.trim(), "move").unwrap();
        assert!(cell(r, c).is_some());
        input.clear();
    }

    #[test]
    fn follows_the_opponent() {
        // We are o: the opponent opened in the centre (row 4, col 4).
        let mut pos = Position::startpos();
        pos.play("e5".parse().unwrap());
        let input = turn("4 4", &pos);
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&settings(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        let text = String::from_utf8(out).unwrap();
        let (r, c) = pair(text.trim(), "move").unwrap();
        let m = cell(r, c).unwrap();
        assert!(pos.is_legal(m), "{m} after e5");
        assert!(!String::from_utf8(log).unwrap().contains("error"));
    }

    #[test]
    fn bad_lines_are_reported_not_fatal() {
        let input = "hello\n-1 -1\n2\n0 0\nx y\n";
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&settings(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("expected the opponent's move"), "{log}");
        assert!(log.contains("bad valid action 'x y'"), "{log}");
        assert_eq!(String::from_utf8(out).unwrap(), "0 0\n");
    }

    #[test]
    fn absurd_counts_and_early_end_are_not_fatal() {
        let mut log = Vec::new();
        let input = "-1 -1\n99999999999999\n-1 -1\n5000000\n";
        run(
            &settings(),
            &mut input.as_bytes(),
            &mut Vec::new(),
            &mut log,
        )
        .unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("(0-81), got '99999999999999'"), "{log}");
        assert_eq!(log.lines().count(), 2, "{log}");
        // The input ends in the middle of the list of valid actions.
        let mut out = Vec::new();
        let input = "-1 -1\n3\n0 0\n";
        run(
            &settings(),
            &mut input.as_bytes(),
            &mut out,
            &mut Vec::new(),
        )
        .unwrap();
        assert!(out.is_empty());
    }
}
