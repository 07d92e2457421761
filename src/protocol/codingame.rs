//! `ultimo codingame`: the turn loop of CodinGame's Ultimate Tic-Tac-Toe.
//!
//! Each turn: `opponentRow opponentCol` (`-1 -1` when we open the game),
//! `validActionCount`, that many `row col` lines; we answer `row col`. Rows
//! and columns are 0-8 from the top-left. The referee gives a drawn big
//! board to the player with more small boards won, so the search plays by
//! [`BoardCountTiebreak`].

use std::io::{self, BufRead, Write};
use std::time::Duration;

use thiserror::Error;

use super::input::MAX_TIME;
use crate::quote::shorten;
use crate::rules::BoardCountTiebreak;
use crate::rules::{Move, PlayError, Position};
use crate::search::{Control, Limits, Options, SearchError, Searcher};

/// Settings of the CodinGame loop.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Thinking time on our first turn (at most [`MAX_TIME`]).
    pub first_turn: Duration,
    /// Thinking time on later turns (at most [`MAX_TIME`]).
    pub turn: Duration,
    /// Search options (threads, hash, seed).
    pub options: Options,
}

/// Why the CodinGame loop cannot start or go on.
#[derive(Debug, Error)]
pub enum CodingameError {
    /// A thinking time in the settings is longer than [`MAX_TIME`].
    #[error(
        "the {what} time of {ms} ms is longer than the {} ms (24 hours) allowed",
        MAX_TIME.as_millis()
    )]
    TooLong {
        /// Which time: `first-turn` or `turn`.
        what: &'static str,
        /// The time asked for.
        ms: u128,
    },
    /// The input cannot be read.
    #[error("cannot read input: {0}")]
    Read(io::Error),
    /// The move cannot be written.
    #[error("cannot write the move: {0}")]
    Write(io::Error),
    /// The searcher cannot be made or refused its options (e.g. memory).
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// A turn's input that cannot be used: reported on the log as
/// `error: ...`, and the loop goes on. Quoted input is shortened.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
enum TurnError {
    /// A line that should hold two integers.
    #[error("expected {what} as two integers, got '{line}'")]
    Pair {
        /// What the line should hold.
        what: &'static str,
        /// The line.
        line: String,
    },
    /// The opponent's move is illegal on our board.
    #[error("the opponent's move {row} {col} ({mv}): {reason}")]
    Illegal {
        /// Its row.
        row: i32,
        /// Its column.
        col: i32,
        /// The cell.
        mv: Move,
        /// Why it cannot be played.
        reason: PlayError,
    },
    /// Row and column outside the grid.
    #[error("no cell at row {row} column {col}")]
    NoCell {
        /// The row.
        row: i32,
        /// The column.
        col: i32,
    },
    /// The count of valid actions is not 0-81.
    #[error("expected the number of valid actions (0-81), got '{0}'")]
    Count(String),
    /// A valid action that is no cell.
    #[error("bad valid action '{0}'")]
    Action(String),
    /// Nothing to play.
    #[error("no valid action to play")]
    NoAction,
}

/// Writes `e` on the log (a log that is gone is ignored).
fn report(log: &mut impl Write, e: TurnError) {
    let _ = writeln!(log, "error: {e}");
}

/// Reads one line; `Ok(None)` at end of input.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, CodingameError> {
    let mut buf = Vec::new();
    match input.read_until(b'\n', &mut buf) {
        Ok(0) => Ok(None),
        Ok(_) => Ok(Some(String::from_utf8_lossy(&buf).trim().to_string())),
        Err(e) => Err(CodingameError::Read(e)),
    }
}

/// Two integers on a line.
fn pair(line: &str, what: &'static str) -> Result<(i32, i32), TurnError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if let [a, b] = words.as_slice()
        && let (Ok(a), Ok(b)) = (a.parse(), b.parse())
    {
        return Ok((a, b));
    }
    Err(TurnError::Pair {
        what,
        line: shorten(line),
    })
}

/// The cell at `row col` (0-8 from the top-left).
fn cell(row: i32, col: i32) -> Option<Move> {
    let (row, col) = (u8::try_from(row).ok()?, u8::try_from(col).ok()?);
    Move::from_grid(col, row)
}

/// What one turn's input gave.
enum TurnInput {
    /// The input ended.
    End,
    /// Input that could not be used (reported): wait for the next turn.
    Skip,
    /// The valid actions the referee lists (the opponent's move played).
    Actions(Vec<Move>),
}

/// Plays the opponent's move `row col` on our board (`-1 -1`: none, we
/// open); a move that cannot be played is reported, and our board kept.
fn opponent_move(game: &mut Position, (row, col): (i32, i32), log: &mut impl Write) {
    if (row, col) == (-1, -1) {
        return;
    }
    match cell(row, col) {
        Some(mv) => {
            if let Err(reason) = game.try_play(mv) {
                report(
                    log,
                    TurnError::Illegal {
                        row,
                        col,
                        mv,
                        reason,
                    },
                );
            }
        }
        None => report(log, TurnError::NoCell { row, col }),
    }
}

/// Reads one turn: the opponent's move (played on `game`), the count of
/// valid actions and the actions.
fn read_turn(
    input: &mut impl BufRead,
    game: &mut Position,
    log: &mut impl Write,
) -> Result<TurnInput, CodingameError> {
    let Some(line) = read_line(input)? else {
        return Ok(TurnInput::End);
    };
    if line.is_empty() {
        return Ok(TurnInput::Skip);
    }
    match pair(&line, "the opponent's move") {
        Ok(rc) => opponent_move(game, rc, log),
        Err(e) => {
            report(log, e);
            return Ok(TurnInput::Skip);
        }
    }
    let Some(count_line) = read_line(input)? else {
        return Ok(TurnInput::End);
    };
    let count: usize = match count_line.parse() {
        Ok(n @ 0..=81) => n,
        _ => {
            report(log, TurnError::Count(shorten(&count_line)));
            return Ok(TurnInput::Skip);
        }
    };
    let mut valid = Vec::with_capacity(count);
    for _ in 0..count {
        let Some(line) = read_line(input)? else {
            return Ok(TurnInput::End);
        };
        match pair(&line, "a valid action").map(|(r, c)| cell(r, c)) {
            Ok(Some(m)) => valid.push(m),
            Ok(None) | Err(_) => report(log, TurnError::Action(shorten(&line))),
        }
    }
    Ok(TurnInput::Actions(valid))
}

/// Searches for `time` among the referee's `valid` actions, plays the move
/// on `game` and writes it; a note on the log.
fn play_turn(
    searcher: &mut Searcher<BoardCountTiebreak>,
    game: &mut BoardCountTiebreak,
    valid: &[Move],
    time: Duration,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), CodingameError> {
    let mut ours: Vec<Move> = game.0.legal_moves().to_vec();
    ours.sort();
    let mut theirs = valid.to_vec();
    theirs.sort();
    if ours != theirs {
        let _ = writeln!(
            log,
            "warning: the referee's valid actions differ from ours; playing among theirs"
        );
    }
    let limits = Limits {
        movetime: Some(time),
        ..Limits::default()
    };
    let allowed: Vec<Move> = valid
        .iter()
        .copied()
        .filter(|&m| game.0.is_legal(m))
        .collect();
    let found = searcher.search(game, &limits, &allowed, &Control::new(), &mut |_| {});
    let choice = found
        .best_move()
        .filter(|m| valid.contains(m))
        .or_else(|| valid.first().copied());
    let Some(m) = choice else {
        report(log, TurnError::NoAction);
        return Ok(());
    };
    if game.0.is_legal(m) {
        game.0.play(m);
    }
    writeln!(out, "{} {}", m.row(), m.col())
        .and_then(|_| out.flush())
        .map_err(CodingameError::Write)?;
    if let Some(line) = found.lines.first() {
        let _ = writeln!(
            log,
            "{m}: {} nodes, score {}",
            found.nodes,
            crate::display::score::score(line)
        );
    }
    Ok(())
}

/// Runs the loop until end of input. Problems with the input are reported
/// on `log` (stderr); the loop ends only when the input does. Thinking
/// times longer than [`MAX_TIME`] are refused before anything is read.
pub fn run(
    settings: &Settings,
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), CodingameError> {
    for (what, time) in [("first-turn", settings.first_turn), ("turn", settings.turn)] {
        if time > MAX_TIME {
            return Err(CodingameError::TooLong {
                what,
                ms: time.as_millis(),
            });
        }
    }
    let mut game = BoardCountTiebreak(Position::startpos());
    let mut searcher = Searcher::new(settings.options.clone(), game)?;
    searcher.set_leaf_solver(Some(crate::solve::Leaves::maker()));
    let mut first = true;
    loop {
        let valid = match read_turn(input, &mut game.0, log)? {
            TurnInput::End => return Ok(()),
            TurnInput::Skip => continue,
            TurnInput::Actions(valid) => valid,
        };
        let time = match first {
            true => settings.first_turn,
            false => settings.turn,
        };
        first = false;
        play_turn(&mut searcher, &mut game, &valid, time, out, log)?;
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

    #[test]
    fn long_lines_are_quoted_short() {
        let long = "7".repeat(1 << 20);
        let input = format!("{long}\n-1 -1\n{long}\n-1 -1\n1\n0 {long}\n");
        let mut log = Vec::new();
        run(
            &settings(),
            &mut input.as_bytes(),
            &mut Vec::new(),
            &mut log,
        )
        .unwrap();
        let log = String::from_utf8(log).unwrap();
        let quoting: Vec<&str> = log.lines().filter(|l| l.contains("777")).collect();
        assert_eq!(quoting.len(), 3, "{log}");
        for line in quoting {
            assert!(line.len() < 200 && line.contains("7777..."), "{line}");
        }
    }

    #[test]
    fn thinking_times_over_the_cap_are_refused() {
        for (first, turn, what) in [
            (Duration::MAX, Duration::from_millis(10), "first-turn"),
            (
                Duration::from_millis(10),
                MAX_TIME + Duration::from_millis(1),
                "turn",
            ),
        ] {
            let settings = Settings {
                first_turn: first,
                turn,
                ..settings()
            };
            let mut out = Vec::new();
            let e = run(
                &settings,
                &mut "-1 -1\n".as_bytes(),
                &mut out,
                &mut Vec::new(),
            )
            .unwrap_err()
            .to_string();
            assert!(e.starts_with(&format!("the {what} time of ")), "{e}");
            assert!(
                e.ends_with("longer than the 86400000 ms (24 hours) allowed"),
                "{e}"
            );
            assert!(out.is_empty());
        }
        let at_cap = Settings {
            first_turn: MAX_TIME,
            turn: MAX_TIME,
            ..settings()
        };
        // At the cap is allowed (nothing to play here, so no search).
        run(
            &at_cap,
            &mut "".as_bytes(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .unwrap();
    }
}
