//! `ultimo analyze`: the board, then a table of the best moves with visits,
//! win/draw/loss, proven results and principal variations; the table is
//! redrawn while the search runs when the output is a terminal.

use std::io::Write;
use std::time::Duration;

use super::CliError;
use super::CliGame;
use crate::display::Style;
use crate::display::score::table;
use crate::rules::Position;
use crate::search::{Control, Limits, Options, Report, Searcher};

/// What to analyse and how long.
#[derive(Clone, Debug)]
pub struct Settings<G: CliGame = Position> {
    /// The position.
    pub pos: G,
    /// Search limits (time and/or nodes).
    pub limits: Limits,
    /// Moves shown in the table.
    pub multipv: usize,
    /// Search options.
    pub options: Options,
    /// Colours in the board, and whether the table is redrawn while the
    /// search runs (both only where the terminal policy allows escape
    /// codes: see [`Style::for_terminal`]).
    pub style: Style,
}

/// The default thinking time when neither time nor nodes are given.
pub const DEFAULT_TIME: Duration = Duration::from_secs(3);

/// Runs the analysis, writing to `out`.
pub fn run<G: CliGame>(
    settings: &Settings<G>,
    out: &mut (impl Write + Send),
) -> Result<Report<G::Move>, CliError> {
    write!(out, "{}", settings.pos.diagram(settings.style))?;
    write!(out, "{}", settings.pos.summary())?;
    if settings.pos.is_over() {
        return Err(CliError::GameOver);
    }
    writeln!(out)?;
    let mut searcher = Searcher::new(settings.options.clone(), settings.pos)?;
    let control = Control::new();
    let mut drawn = 0usize;
    let multipv = settings.multipv;
    // The redraw moves the cursor with escape codes: only where the one
    // terminal policy allows them (a terminal, no NO_COLOR, not TERM=dumb).
    let live = settings.style.ansi;
    let mut failed = None;
    let report = {
        let mut on_info = |r: &Report<G::Move>| {
            if !live || failed.is_some() {
                return;
            }
            let rows = table(r, multipv);
            // Move the cursor back over the previous table and redraw it.
            let mut text = String::new();
            if drawn > 0 {
                text.push_str(&format!("\x1b[{drawn}A"));
            }
            for row in &rows {
                text.push_str(&format!("\x1b[2K{row}\n"));
            }
            drawn = rows.len();
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                failed = Some(e);
            }
        };
        searcher.search(&settings.pos, &settings.limits, &[], &control, &mut on_info)
    };
    if let Some(e) = failed {
        return Err(e.into());
    }
    let rows = table(&report, multipv);
    let mut text = String::new();
    if drawn > 0 {
        text.push_str(&format!("\x1b[{drawn}A"));
    }
    for row in &rows {
        if live {
            text.push_str("\x1b[2K");
        }
        text.push_str(row);
        text.push('\n');
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_reports_a_forced_win() {
        let pos: Position = "xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"
            .parse()
            .unwrap();
        let settings = Settings {
            pos,
            limits: Limits {
                nodes: Some(100_000),
                ..Limits::default()
            },
            multipv: 3,
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
            style: Style::PLAIN,
        };
        let mut out = Vec::new();
        let report = run(&settings, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains('\x1b'));
        let best = text
            .lines()
            .skip_while(|l| !l.contains(" visits "))
            .nth(1)
            .unwrap();
        assert!(
            best.contains("i9") && best.contains("mate 1") && best.contains("wins in 1"),
            "{text}"
        );
        assert_eq!(report.best_move(), Some("i9".parse().unwrap()));
    }

    #[test]
    fn the_live_table_follows_the_terminal_policy() {
        let settings = |style| Settings {
            pos: Position::startpos(),
            limits: Limits {
                nodes: Some(2_000),
                ..Limits::default()
            },
            multipv: 2,
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
            style,
        };
        let mut out = Vec::new();
        run(&settings(Style { ansi: true }), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\x1b[2K"), "{text:?}");
        let mut out = Vec::new();
        run(&settings(Style::PLAIN), &mut out).unwrap();
        assert!(!out.contains(&b'\x1b'));
    }

    #[test]
    fn refuses_finished_games() {
        let fen = "oxo1xooxx/xo1oooo2/xxo3oo1/oo1xxx2x/xo2o1xo1/1xo1oxoxo/1xx5x/xx1xxx1ox/o1xo1ooox x 28 a9";
        let settings = Settings {
            pos: fen.parse::<Position>().unwrap(),
            limits: Limits::default(),
            multipv: 1,
            options: Options::default(),
            style: Style::PLAIN,
        };
        let err = run(&settings, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, CliError::GameOver), "{err}");
        assert!(err.to_string().contains("game is over"));
    }
}
