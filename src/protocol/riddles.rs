//! `ultimo riddles`: the bot loop of theaigames.com and riddles.io.
//!
//! The engine reads `settings`, `update game` and `action move <ms>` lines
//! and answers `place_move <x> <y>` (column and row, 0-8 from the
//! top-left). The field is read in either dialect: theaigames used `0` for
//! empty and `1`/`2` for the players, riddles.io `.` for empty and `0`/`1`.
//! In the macroboard, `-1` marks the boards that may be played.

use crate::game::Player;
use std::io::{BufRead, Write};
use std::time::Duration;

use crate::rules::{ALL_CELLS, Move, Position, board_name};
use crate::search::{Clock, Control, Limits, Options, Searcher};

/// What the game has told the bot so far.
#[derive(Clone, Debug, Default)]
struct State {
    time_per_move: Option<Duration>,
    bot_id: Option<String>,
    field: Option<Vec<String>>,
    macroboard: Option<Vec<String>>,
}

/// The position described by the field and macroboard, with our mark
/// `bot_id`: we are the side to move.
fn position(field: &[String], macroboard: &[String], bot_id: &str) -> Result<Position, String> {
    if field.len() != 81 {
        return Err(format!("the field has {} cells, expected 81", field.len()));
    }
    if macroboard.len() != 9 {
        return Err(format!(
            "the macroboard has {} boards, expected 9",
            macroboard.len()
        ));
    }
    // riddles.io marks empty cells '.', theaigames '0' (its field has no '.').
    let empty_mark = if field.iter().any(|c| c == ".") {
        "."
    } else {
        "0"
    };
    let mut mine = 0u128;
    let mut theirs = 0u128;
    for (i, c) in field.iter().enumerate() {
        let m = Move::from_grid((i % 9) as u8, (i / 9) as u8).ok_or("cell out of range")?;
        let bit = 1u128 << m.bit();
        if c == empty_mark {
            continue;
        }
        if c == bot_id {
            mine |= bit;
        } else if ["0", "1", "2"].contains(&c.as_str()) {
            theirs |= bit;
        } else {
            return Err(format!("field cell {i} holds '{c}'"));
        }
    }
    // We are to move: with as many marks as the opponent we are x.
    let (n_mine, n_theirs) = (mine.count_ones(), theirs.count_ones());
    let (me, marks) = if n_mine == n_theirs {
        (Player::X, [mine, theirs])
    } else if n_theirs == n_mine + 1 {
        (Player::O, [theirs, mine])
    } else {
        return Err(format!(
            "we have {n_mine} marks and the opponent {n_theirs}: not our turn"
        ));
    };
    debug_assert_eq!((mine | theirs) & !ALL_CELLS, 0);
    // The boards we may play: pick an opponent mark that sends us there as
    // the last move, or none (free choice) when several boards are open.
    let playable: Vec<u8> = (0..9u8)
        .filter(|&b| macroboard[b as usize] == "-1")
        .collect();
    let them = marks[me.opponent().index()];
    let last = match playable.as_slice() {
        [b] => (0..81u8)
            .filter_map(Move::from_index)
            .find(|m| m.cell() == *b && them >> m.bit() & 1 == 1),
        _ => None,
    };
    let pos = Position::from_parts(marks, me, last);
    // Check the macroboard against our reading of it.
    for &b in &playable {
        if pos.closed_boards() >> b & 1 == 1 {
            return Err(format!(
                "the macroboard says the {} board is playable, but it is closed",
                board_name(b)
            ));
        }
    }
    if pos.legal_mask() == 0 {
        return Err("no legal move in this position".into());
    }
    Ok(pos)
}

/// Runs the loop until end of input. Problems with the input are reported
/// on `log`; the loop ends only when the input does.
pub fn run(
    options: &Options,
    input: &mut impl BufRead,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), String> {
    let mut searcher =
        Searcher::new(options.clone(), Position::startpos()).map_err(|e| e.to_string())?;
    let control = Control::new();
    let mut state = State::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read input: {e}")),
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
            ["settings", "time_per_move", ms] => match ms.parse() {
                Ok(ms) => state.time_per_move = Some(Duration::from_millis(ms)),
                Err(_) => {
                    let _ = writeln!(log, "error: time_per_move '{ms}' is not a number");
                }
            },
            ["settings", "your_botid", id] => state.bot_id = Some(id.to_string()),
            ["settings", ..] => {}
            ["update", "game", "field", cells] => state.field = Some(list(cells)),
            ["update", "game", "macroboard", boards] => state.macroboard = Some(list(boards)),
            ["update", ..] => {}
            ["action", "move", ms] => {
                let bank = match ms.parse() {
                    Ok(ms) => Duration::from_millis(ms),
                    Err(_) => {
                        let _ = writeln!(log, "error: time bank '{ms}' is not a number");
                        Duration::from_millis(500)
                    }
                };
                let (Some(field), Some(macroboard), Some(id)) =
                    (&state.field, &state.macroboard, &state.bot_id)
                else {
                    let _ = writeln!(log, "error: action before the field, macroboard and bot id");
                    continue;
                };
                let pos = match position(field, macroboard, id) {
                    Ok(pos) => pos,
                    Err(e) => {
                        let _ = writeln!(log, "error: {e}");
                        continue;
                    }
                };
                let limits = Limits {
                    clock: Some(Clock {
                        time: bank,
                        inc: state.time_per_move.unwrap_or(Duration::from_millis(500)),
                        movestogo: None,
                    }),
                    ..Limits::default()
                };
                let report = searcher.search(&pos, &limits, &[], &control, &mut |_| {});
                let Some(m) = report.best_move() else {
                    let _ = writeln!(log, "error: no move found");
                    continue;
                };
                writeln!(out, "place_move {} {}", m.col(), m.row())
                    .and_then(|_| out.flush())
                    .map_err(|e| format!("cannot write the move: {e}"))?;
            }
            _ => {
                let _ = writeln!(log, "error: cannot read '{line}'");
            }
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
}
