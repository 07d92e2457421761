//! `ultimo riddles`: the bot loop of theaigames.com and riddles.io.
//!
//! The engine reads `settings`, `update game` and `action move <ms>` lines
//! and answers `place_move <x> <y>` (column and row, 0-8 from the
//! top-left). The field is read in either dialect: theaigames used `0` for
//! empty and `1`/`2` for the players, riddles.io `.` for empty and `0`/`1`.
//! In the macroboard, `-1` marks the boards that may be played; when it
//! contradicts the field, a warning goes to the log and the macroboard
//! decides where to play. Times are capped: the bank of `action move` at
//! the `settings timebank` maximum (10 s when not given), every time at
//! [`MAX_TIME`](super::input::MAX_TIME), and a move's thinking at
//! [`MAX_MOVE_TIME`].

use crate::game::Player;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use thiserror::Error;

use super::input::millis;
use crate::quote::shorten;
use crate::rules::{ALL_CELLS, Move, Position, board_name};
use crate::search::{Clock, Control, Limits, Options, SearchError, Searcher};

/// The time bank assumed when `settings timebank` was not given (the value
/// both sites used). A bank given with `action move` never counts for more
/// than the `settings timebank` maximum.
const DEFAULT_TIMEBANK: Duration = Duration::from_secs(10);
/// The time per move assumed when `settings time_per_move` was not given.
const DEFAULT_TIME_PER_MOVE: Duration = Duration::from_millis(500);
/// The longest a move may take, whatever the bank (ten times the sites'
/// time per move): a bank of hours would otherwise give minutes a move.
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(5);

/// Why the riddles loop cannot start or go on.
#[derive(Debug, Error)]
pub enum RiddlesError {
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

/// Why the field and macroboard give no position to move in. Quoted input
/// is shortened.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The field does not have 81 cells.
    #[error("the field has {0} cells, expected 81")]
    FieldSize(usize),
    /// The macroboard does not have 9 boards.
    #[error("the macroboard has {0} boards, expected 9")]
    MacroboardSize(usize),
    /// A field cell holds no mark of either dialect.
    #[error("field cell {index} holds '{text}'")]
    BadCell {
        /// The cell's place in the field (0-80).
        index: usize,
        /// What it holds.
        text: String,
    },
    /// A macroboard entry that is none of `-1`, `.`, `0`, `1`, `2`.
    #[error("macroboard entry {index} is '{text}', expected -1, ., 0, 1 or 2")]
    BadBoard {
        /// The entry's place in the macroboard (0-8).
        index: usize,
        /// What it is (shortened).
        text: String,
    },
    /// The mark counts do not make it our turn.
    #[error("we have {mine} marks and the opponent {theirs}: not our turn")]
    NotOurTurn {
        /// Our marks.
        mine: u32,
        /// The opponent's marks.
        theirs: u32,
    },
    /// Every board the macroboard marks playable is closed on the field.
    #[error("the macroboard says the {} board is playable, but it is closed", board_name(*.0))]
    ClosedBoard(u8),
    /// The game is over on the field.
    #[error("no legal move in this position")]
    NoLegalMove,
}

/// A line that cannot be used: reported on the log as `error: ...`, and
/// the loop goes on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
enum LineError {
    /// A time that is no number of milliseconds.
    #[error("{what} '{text}' is not a number of milliseconds")]
    Time {
        /// Which time.
        what: &'static str,
        /// What was given.
        text: String,
    },
    /// `action move` before the game was described.
    #[error("action before the field, macroboard and bot id")]
    NotReady,
    /// The field and macroboard give no position.
    #[error("{0}")]
    Position(#[from] PositionError),
    /// The search found nothing to play.
    #[error("no move found")]
    NoMove,
    /// A line of no known form.
    #[error("cannot read '{0}'")]
    Unreadable(String),
}

/// Writes `e` on the log (a log that is gone is ignored).
fn report(log: &mut impl Write, e: LineError) {
    let _ = writeln!(log, "error: {e}");
}

/// What the game has told the bot so far.
#[derive(Clone, Debug, Default)]
struct State {
    timebank: Option<Duration>,
    time_per_move: Option<Duration>,
    bot_id: Option<String>,
    field: Option<Vec<String>>,
    macroboard: Option<Vec<String>>,
}

/// The position to search, read from the field and macroboard.
#[derive(Clone, Debug, PartialEq)]
struct Reading {
    pos: Position,
    /// The moves to choose from when the macroboard allows fewer than
    /// `pos` does (empty: all of `pos`'s legal moves).
    allowed: Vec<Move>,
    /// Why the macroboard and the field disagree, when they do.
    warning: Option<String>,
}

/// The boards that hold moves of `moves`, as a mask.
fn boards_of(moves: &[Move]) -> u16 {
    moves.iter().fold(0, |acc, m| acc | 1 << m.board())
}

/// Boards of a mask, by name.
fn board_names(boards: u16) -> String {
    let names: Vec<&str> = (0..9u8)
        .filter(|b| boards >> b & 1 == 1)
        .map(board_name)
        .collect();
    names.join(", ")
}

/// Our marks and the opponent's on a field of 81 cells (our mark is
/// `bot_id`), as cell bits, and the cells in field order.
fn read_field(field: &[String], bot_id: &str) -> Result<(u128, u128, Vec<Move>), PositionError> {
    // riddles.io marks empty cells '.', theaigames '0' (its field has no '.').
    let empty_mark = if field.iter().any(|c| c == ".") {
        "."
    } else {
        "0"
    };
    let mut mine = 0u128;
    let mut theirs = 0u128;
    let mut cells = Vec::with_capacity(81);
    for (i, c) in field.iter().enumerate() {
        // A cell past the 81st is no cell.
        let Some(m) = Move::from_grid((i % 9) as u8, (i / 9) as u8) else {
            return Err(PositionError::FieldSize(field.len()));
        };
        cells.push(m);
        let bit = 1u128 << m.bit();
        if c == empty_mark {
            continue;
        }
        if c == bot_id {
            mine |= bit;
        } else if ["0", "1", "2"].contains(&c.as_str()) {
            theirs |= bit;
        } else {
            return Err(PositionError::BadCell {
                index: i,
                text: shorten(c),
            });
        }
    }
    Ok((mine, theirs, cells))
}

/// Our side (we are to move: with as many marks as the opponent we are x)
/// and the marks as x's and o's.
fn sides(mine: u128, theirs: u128) -> Result<(Player, [u128; 2]), PositionError> {
    let (n_mine, n_theirs) = (mine.count_ones(), theirs.count_ones());
    if n_mine == n_theirs {
        Ok((Player::X, [mine, theirs]))
    } else if n_theirs == n_mine + 1 {
        Ok((Player::O, [theirs, mine]))
    } else {
        Err(PositionError::NotOurTurn {
            mine: n_mine,
            theirs: n_theirs,
        })
    }
}

/// The position described by the field and macroboard, with our mark
/// `bot_id`: we are the side to move. The last move is not in the input:
/// it is taken as an opponent mark that sends us where the macroboard
/// says. When no mark does, the macroboard contradicts the field: the
/// reading then says so, and the referee decides: we play only on the
/// boards its macroboard allows.
fn position(
    field: &[String],
    macroboard: &[String],
    bot_id: &str,
) -> Result<Reading, PositionError> {
    if field.len() != 81 {
        return Err(PositionError::FieldSize(field.len()));
    }
    if macroboard.len() != 9 {
        return Err(PositionError::MacroboardSize(macroboard.len()));
    }
    if let Some((index, text)) = macroboard
        .iter()
        .enumerate()
        .find(|(_, t)| !["-1", ".", "0", "1", "2"].contains(&t.as_str()))
    {
        return Err(PositionError::BadBoard {
            index,
            text: shorten(text),
        });
    }
    let (mine, theirs, cells) = read_field(field, bot_id)?;
    let (me, marks) = sides(mine, theirs)?;
    debug_assert_eq!((mine | theirs) & !ALL_CELLS, 0);
    let playable: u16 = (0..9u8)
        .filter(|&b| macroboard[b as usize] == "-1")
        .fold(0, |acc, b| acc | 1 << b);
    // With a free choice every open board is playable.
    let free = Position::from_parts(marks, me, None);
    let free_moves = free.legal_moves();
    if free_moves.is_empty() {
        return Err(PositionError::NoLegalMove);
    }
    let exact = |pos| Reading {
        pos,
        allowed: Vec::new(),
        warning: None,
    };
    if boards_of(&free_moves) == playable {
        return Ok(exact(free));
    }
    // An opponent mark that, as the last move, sends us to the boards the
    // macroboard allows.
    let them = marks[me.opponent().index()];
    let fits = cells
        .iter()
        .filter(|m| them >> m.bit() & 1 == 1)
        .map(|&m| Position::from_parts(marks, me, Some(m)))
        .find(|pos| boards_of(&pos.legal_moves()) == playable);
    match fits {
        Some(pos) => Ok(exact(pos)),
        None => follow_the_macroboard(free, &free_moves, playable),
    }
}

/// The macroboard contradicts the field: the moves it allows in `free`
/// (the position with a free choice), and why they differ.
fn follow_the_macroboard(
    free: Position,
    free_moves: &[Move],
    playable: u16,
) -> Result<Reading, PositionError> {
    let allowed: Vec<Move> = free_moves
        .iter()
        .copied()
        .filter(|m| playable >> m.board() & 1 == 1)
        .collect();
    let closed = playable & free.closed_boards();
    let warning = if playable == 0 {
        "the macroboard marks no board playable; playing anywhere the field allows".to_string()
    } else if allowed.is_empty() {
        return Err(PositionError::ClosedBoard(closed.trailing_zeros() as u8));
    } else if closed != 0 {
        format!(
            "the macroboard marks the closed {} board(s) playable; playing on its open ones ({})",
            board_names(closed),
            board_names(playable & !closed)
        )
    } else {
        format!(
            "the macroboard's playable boards ({}) fit no last move on the field, which allows {}; \
             playing where the macroboard allows",
            board_names(playable),
            board_names(boards_of(free_moves))
        )
    };
    Ok(Reading {
        pos: free,
        allowed,
        warning: Some(warning),
    })
}

/// A time setting's value, capped ([`millis`]); the error says which.
fn time_setting(what: &'static str, text: &str) -> Result<Duration, LineError> {
    millis(text).ok_or_else(|| LineError::Time {
        what,
        text: shorten(text),
    })
}

/// `action move <ms>`: the move for the game `state` describes, searched
/// within the time bank `ms`, written as `place_move`. A problem with the
/// input is reported on `log`, and the loop goes on.
fn act(
    state: &State,
    ms: &str,
    searcher: &mut Searcher<Position>,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), RiddlesError> {
    // The bank never holds more than the game's maximum.
    let max_bank = state.timebank.unwrap_or(DEFAULT_TIMEBANK);
    let bank = match time_setting("time bank", ms) {
        Ok(t) => t.min(max_bank),
        Err(e) => {
            report(log, e);
            DEFAULT_TIME_PER_MOVE.min(max_bank)
        }
    };
    let (Some(field), Some(macroboard), Some(id)) =
        (&state.field, &state.macroboard, &state.bot_id)
    else {
        report(log, LineError::NotReady);
        return Ok(());
    };
    let reading = match position(field, macroboard, id) {
        Ok(reading) => reading,
        Err(e) => {
            report(log, e.into());
            return Ok(());
        }
    };
    if let Some(w) = &reading.warning {
        let _ = writeln!(log, "warning: {w}");
    }
    let limits = Limits {
        clock: Some(Clock {
            time: bank,
            inc: state.time_per_move.unwrap_or(DEFAULT_TIME_PER_MOVE),
            movestogo: None,
        }),
        movetime: Some(MAX_MOVE_TIME),
        ..Limits::default()
    };
    let control = Control::new();
    let found = searcher.search(
        &reading.pos,
        &limits,
        &reading.allowed,
        &control,
        &mut |_| {},
    );
    let Some(m) = found.best_move() else {
        report(log, LineError::NoMove);
        return Ok(());
    };
    writeln!(out, "place_move {} {}", m.col(), m.row())
        .and_then(|_| out.flush())
        .map_err(RiddlesError::Write)
}

/// Runs the loop until end of input. Problems with the input are reported
/// on `log`; the loop ends only when the input does.
pub fn run(
    options: &Options,
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), RiddlesError> {
    let mut searcher = Searcher::new(options.clone(), Position::startpos())?;
    searcher.set_leaf_solver(Some(crate::solve::Leaves::maker()));
    let mut state = State::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(RiddlesError::Read(e)),
        }
        let line = String::from_utf8_lossy(&buf).trim().to_string();
        let words: Vec<&str> = line.split_whitespace().collect();
        let list = |s: &str| {
            s.split(',')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        };
        match words.as_slice() {
            [] => {}
            ["settings", "timebank", ms] => match time_setting("timebank", ms) {
                Ok(t) => state.timebank = Some(t),
                Err(e) => report(log, e),
            },
            ["settings", "time_per_move", ms] => match time_setting("time_per_move", ms) {
                Ok(t) => state.time_per_move = Some(t),
                Err(e) => report(log, e),
            },
            ["settings", "your_botid", id] => state.bot_id = Some(id.to_string()),
            ["settings", ..] => {}
            ["update", "game", "field", cells] => state.field = Some(list(cells)),
            ["update", "game", "macroboard", boards] => state.macroboard = Some(list(boards)),
            ["update", ..] => {}
            ["action", "move", ms] => act(&state, ms, &mut searcher, out, log)?,
            _ => report(log, LineError::Unreadable(shorten(&line))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            hash_mb: 16,
            ..Options::default()
        }
    }

    /// Regression (hostile input round 2): a macroboard entry `zz` was
    /// read as an unplayable board; now it is an error.
    #[test]
    fn macroboard_entries_are_checked() {
        let field = field_of(&Position::startpos(), [".", "0", "1"]);
        let field: Vec<String> = field.split(',').map(String::from).collect();
        let mut boards = vec!["-1".to_string(); 9];
        boards[4] = "zz".into();
        assert_eq!(
            position(&field, &boards, "1").err().map(|e| e.to_string()),
            Some("macroboard entry 4 is 'zz', expected -1, ., 0, 1 or 2".to_string())
        );
        boards[4] = ".".into();
        assert!(position(&field, &boards, "1").is_ok());
    }

    fn field_of(pos: &Position, dialect: [&str; 3]) -> String {
        (0..81)
            .map(|i| {
                let m = Move::from_grid(i % 9, i / 9).unwrap();
                match pos.mark_at(m) {
                    None => dialect[0],
                    Some(Player::X) => dialect[1],
                    Some(Player::O) => dialect[2],
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn macro_of(pos: &Position) -> String {
        (0..9u8)
            .map(|b| {
                let open = pos.legal_mask() >> crate::rules::board_offset(b as usize) & 0x1ff != 0;
                if open { "-1" } else { "0" }
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn play(pos: &Position, dialect: [&str; 3], id: &str) -> (String, String) {
        let input = format!(
            "settings timebank 10000\nsettings time_per_move 50\nsettings your_botid {id}\n\
             update game round 3\nupdate game field {}\nupdate game macroboard {}\naction move 200\n",
            field_of(pos, dialect),
            macro_of(pos)
        );
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&options(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(log).unwrap(),
        )
    }

    fn parse_place(text: &str) -> Move {
        let w: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(w[0], "place_move", "{text}");
        Move::from_grid(w[1].parse().unwrap(), w[2].parse().unwrap()).unwrap()
    }

    #[test]
    fn both_dialects_give_legal_moves() {
        let pos = crate::notation::play_moves(&Position::startpos(), ["e5", "e4", "d1"]).unwrap();
        // o to move; theaigames: o is player 2; riddles.io: o is player 1.
        for (dialect, id) in [(["0", "1", "2"], "2"), ([".", "0", "1"], "1")] {
            let (out, log) = play(&pos, dialect, id);
            assert!(log.is_empty(), "{log}");
            let m = parse_place(&out);
            assert!(pos.is_legal(m), "{m}");
        }
        // x to move at the start, in both dialects.
        for (dialect, id) in [(["0", "1", "2"], "1"), ([".", "0", "1"], "0")] {
            let (out, _) = play(&Position::startpos(), dialect, id);
            assert!(Position::startpos().is_legal(parse_place(&out)));
        }
    }

    #[test]
    fn bad_input_is_reported() {
        let input = "nonsense here\nsettings your_botid 1\naction move 100\nupdate game field 0,0\nupdate game macroboard -1\naction move 100\n";
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&options(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("cannot read 'nonsense here'"), "{log}");
        assert!(log.contains("action before the field"), "{log}");
        assert!(log.contains("the field has 2 cells"), "{log}");
        assert!(out.is_empty());
    }

    /// The field (theaigames dialect) of `pos`, and a macroboard that
    /// allows `boards`.
    fn reading(pos: &Position, boards: &[u8]) -> Result<Reading, PositionError> {
        let field: Vec<String> = field_of(pos, ["0", "1", "2"])
            .split(',')
            .map(String::from)
            .collect();
        let macroboard: Vec<String> = (0..9u8)
            .map(|b| if boards.contains(&b) { "-1" } else { "0" }.to_string())
            .collect();
        let id = if pos.side_to_move() == Player::X {
            "1"
        } else {
            "2"
        };
        position(&field, &macroboard, id)
    }

    #[test]
    fn a_macroboard_that_fits_the_field_is_read_silently() {
        // e5 e4 d1: o is sent to the bottom-left board (6).
        let pos = crate::notation::play_moves(&Position::startpos(), ["e5", "e4", "d1"]).unwrap();
        let r = reading(&pos, &[6]).unwrap();
        assert_eq!(r.warning, None);
        assert!(r.allowed.is_empty());
        assert_eq!(r.pos.legal_moves().to_vec(), pos.legal_moves().to_vec());
        // At the start, every board.
        let r = reading(&Position::startpos(), &[0, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!((r.warning, r.allowed.len()), (None, 0));
    }

    #[test]
    fn a_macroboard_that_contradicts_the_field_is_followed_with_a_warning() {
        // e5: x's only mark sends o to the centre; the macroboard says the
        // top-left board.
        let pos = crate::notation::play_moves(&Position::startpos(), ["e5"]).unwrap();
        let r = reading(&pos, &[0]).unwrap();
        let w = r.warning.unwrap();
        assert!(w.contains("(top-left) fit no last move"), "{w}");
        assert_eq!(r.allowed.len(), 9);
        assert!(r.allowed.iter().all(|m| m.board() == 0));
        // Two boards where the field allows one.
        let r = reading(&pos, &[0, 4]).unwrap();
        assert!(r.warning.is_some());
        assert_eq!(r.allowed.len(), 9 + 8);
        // No board at all: the field decides.
        let r = reading(&pos, &[]).unwrap();
        assert!(r.warning.unwrap().contains("no board playable"));
        assert!(r.allowed.is_empty());
        // A closed board marked playable beside an open one.
        let won: Position = "xxx6/9/9/9/4o4/o8/9/9/9 o 3 c9".parse().unwrap();
        let r = reading(&won, &[0, 2]).unwrap();
        assert!(r.warning.unwrap().contains("closed top-left board"));
        assert!(r.allowed.iter().all(|m| m.board() == 2));
        // Only closed boards marked playable: nothing to follow.
        assert_eq!(reading(&won, &[0]), Err(PositionError::ClosedBoard(0)));
    }

    #[test]
    fn time_settings_are_capped() {
        let pos = crate::notation::play_moves(&Position::startpos(), ["e5", "e4", "d1"]).unwrap();
        let input = format!(
            "settings timebank 99999999999999999999999\nsettings time_per_move x\n\
             settings time_per_move 50\nsettings your_botid 2\n\
             update game field {}\nupdate game macroboard {}\naction move 100\n",
            field_of(&pos, ["0", "1", "2"]),
            macro_of(&pos)
        );
        let mut out = Vec::new();
        let mut log = Vec::new();
        run(&options(), &mut input.as_bytes(), &mut out, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert_eq!(
            log,
            "error: time_per_move 'x' is not a number of milliseconds\n"
        );
        assert!(pos.is_legal(parse_place(&String::from_utf8(out).unwrap())));
    }

    #[test]
    fn long_lines_are_quoted_short() {
        let long = "w".repeat(1 << 20);
        let input = format!(
            "{long}\nsettings time_per_move {long}\naction move {long}\n\
             settings your_botid 1\nupdate game field {long},{}\n\
             update game macroboard -1,-1,-1,-1,-1,-1,-1,-1,-1\naction move 10\n",
            vec!["0"; 80].join(",")
        );
        let mut log = Vec::new();
        run(&options(), &mut input.as_bytes(), &mut Vec::new(), &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 5, "{log}");
        for line in lines {
            assert!(line.len() < 200, "{line}");
        }
        assert!(log.contains("field cell 0 holds 'wwww"), "{log}");
    }
}
