//! `ultimo play`: a game against the engine in the terminal (or through a
//! pipe: it reads one command per line and writes plain text).

use crate::game::{Outcome, Player};
use std::io::{BufRead, Write};

use crate::display::Style;
use crate::display::board;
use crate::rules::{Move, Position, board_name};
use crate::search::{Control, Limits, Options, Searcher};

/// How the game is set up.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The side the person plays.
    pub human: Player,
    /// The position the game starts from.
    pub start: Position,
    /// The engine's limits for each of its moves.
    pub limits: Limits,
    /// The engine's limits for a hint.
    pub hint_limits: Limits,
    /// Search options.
    pub options: Options,
    /// Colours in the board.
    pub style: Style,
    /// Write a prompt before reading (for terminals).
    pub prompt: bool,
}

const HELP: &str = "Type a move as its cell, e.g. e5 (file a-i left to right, rank 1-9 bottom \
to top). Other commands: undo (take back your last move), hint (the engine suggests a move), \
board (show the board again), help, quit. On the board, * marks the cells you may play and \
the last move is in capitals.";

/// Plays one game, reading commands from `input`. Returns the final status
/// (ongoing when the person quit or the input ended).
pub fn run(
    settings: &Settings,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Option<Outcome>, String> {
    let io_err = |e: std::io::Error| e.to_string();
    let mut searcher =
        Searcher::new(settings.options.clone(), settings.start).map_err(|e| e.to_string())?;
    let control = Control::new();
    // Positions before each move, for undo.
    let mut history: Vec<Position> = Vec::new();
    let mut pos = settings.start;
    writeln!(
        out,
        "You play {} against Ultimo. Type help for the commands.",
        settings.human
    )
    .map_err(io_err)?;
    // The board, and where to play when it is the person's turn.
    let show = |out: &mut dyn Write, pos: &Position| -> Result<(), String> {
        write!(out, "\n{}", board::diagram(pos, settings.style)).map_err(io_err)?;
        if pos.is_over() || pos.side_to_move() != settings.human {
            return Ok(());
        }
        let place = match pos.target_board() {
            Some(b) => format!("the {} board", board_name(b)),
            None => "any open board".to_string(),
        };
        writeln!(out, "Your move ({}), on {place}:", pos.side_to_move()).map_err(io_err)
    };
    if pos.side_to_move() == settings.human {
        show(out, &pos)?;
    }
    loop {
        match pos.outcome() {
            Some(Outcome::Win(p)) => {
                let who = if p == settings.human {
                    "You win"
                } else {
                    "Ultimo wins"
                };
                writeln!(out, "Game over: {p} has three boards in a line. {who}.")
                    .map_err(io_err)?;
                return Ok(pos.outcome());
            }
            Some(Outcome::Draw) => {
                writeln!(out, "Game over: every board is closed. A draw.").map_err(io_err)?;
                return Ok(pos.outcome());
            }
            None => {}
        }
        if pos.side_to_move() != settings.human {
            let report = searcher.search(&pos, &settings.limits, &[], &control, &mut |_| {});
            let Some(m) = report.best_move() else {
                return Err("the engine found no move".into());
            };
            let line = &report.lines[0];
            history.push(pos);
            pos.play(m);
            writeln!(
                out,
                "\nUltimo plays {m} (for Ultimo: {}; {} nodes)",
                crate::display::score::proven_text_or_score(line),
                report.nodes
            )
            .map_err(io_err)?;
            show(out, &pos)?;
            continue;
        }
        if settings.prompt {
            write!(out, "> ").map_err(io_err)?;
            out.flush().map_err(io_err)?;
        }
        let mut buf = Vec::new();
        let n = input.read_until(b'\n', &mut buf).map_err(io_err)?;
        if n == 0 {
            writeln!(out, "\nInput ended; the game is left unfinished.").map_err(io_err)?;
            return Ok(pos.outcome());
        }
        let text = String::from_utf8_lossy(&buf).trim().to_lowercase();
        match text.as_str() {
            "" => {}
            "quit" | "exit" => {
                writeln!(out, "Bye.").map_err(io_err)?;
                return Ok(pos.outcome());
            }
            "help" | "?" => writeln!(out, "{HELP}").map_err(io_err)?,
            "board" | "d" => show(out, &pos)?,
            "undo" => {
                // Back to the position before the person's last move.
                let mut undone = false;
                while let Some(prev) = history.pop() {
                    pos = prev;
                    if pos.side_to_move() == settings.human {
                        undone = true;
                        break;
                    }
                }
                if undone {
                    writeln!(out, "Took back your last move.").map_err(io_err)?;
                } else {
                    pos = settings.start;
                    history.clear();
                    writeln!(out, "Nothing to take back.").map_err(io_err)?;
                }
                show(out, &pos)?;
            }
            "hint" => {
                let report = searcher.search(&pos, &settings.hint_limits, &[], &control, &mut |_| {});
                match report.lines.first() {
                    Some(line) => writeln!(
                        out,
                        "Hint: {} (for you: {})",
                        line.mv,
                        crate::display::score::proven_text_or_score(line)
                    )
                    .map_err(io_err)?,
                    None => writeln!(out, "No hint: no legal move.").map_err(io_err)?,
                }
            }
            _ => match text.parse::<Move>() {
                Ok(m) => match pos.check(m) {
                    Ok(()) => {
                        history.push(pos);
                        pos.play(m);
                        writeln!(out, "You play {m}").map_err(io_err)?;
                        if pos.is_over() {
                            show(out, &pos)?;
                        }
                    }
                    Err(e) => {
                        writeln!(out, "{m} is not possible: {e}. The cells marked * are.")
                            .map_err(io_err)?
                    }
                },
                Err(_) => writeln!(
                    out,
                    "'{text}' is neither a move nor a command. Moves look like e5; type help for more."
                )
                .map_err(io_err)?,
            },
        }
    }
}
