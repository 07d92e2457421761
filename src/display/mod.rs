//! Text for people: board diagrams, scores and chances, perft reports, the
//! progress of long work, and the one terminal policy: colour where the
//! stream takes it (anstream's rules: a terminal, `NO_COLOR`, `CLICOLOR`,
//! `CLICOLOR_FORCE`, `TERM`), live redraws on any terminal but `TERM=dumb`.

pub mod board;
pub mod perft;
pub mod progress;
pub mod score;

use std::ffi::OsString;

use anstream::stream::RawStream;
use anstream::{AutoStream, ColorChoice};
use anstyle::AnsiColor;

/// How to draw text: whether with colours, and whether with the cursor
/// movement that redraws a live table or progress bar in place.
///
/// [`Style::for_stdout`] and [`Style::for_stderr`] are the one terminal
/// policy every command uses. The two are apart: `NO_COLOR` asks for no
/// colour, not for a still screen.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Colour escape codes (the marks of a diagram).
    pub color: bool,
    /// Cursor movement: a live table or bar redrawn in place.
    pub live: bool,
}

/// The colour of x's marks.
const X_MARK: anstyle::Style = AnsiColor::Cyan.on_default();
/// The colour of o's marks.
const O_MARK: anstyle::Style = AnsiColor::Yellow.on_default();
/// The cells the side to move may play.
const LEGAL: anstyle::Style = AnsiColor::Green.on_default();
/// The last move.
const LAST: anstyle::Style = anstyle::Style::new().bold();

impl Style {
    /// Plain text: no colour, no cursor movement (pipes, files, protocol
    /// output).
    pub const PLAIN: Style = Style {
        color: false,
        live: false,
    };

    /// The policy for standard output.
    pub fn for_stdout() -> Style {
        Style::of(&std::io::stdout())
    }

    /// The policy for standard error.
    pub fn for_stderr() -> Style {
        Style::of(&std::io::stderr())
    }

    /// The policy for `stream`: colour as anstream decides it, live where
    /// the stream is a terminal (see [`Style::live_with_env`]).
    fn of<S: RawStream>(stream: &S) -> Style {
        let terminal = stream.is_terminal();
        Style {
            color: AutoStream::choice(stream) != ColorChoice::Never,
            live: Style::live_with_env(terminal, |name| std::env::var_os(name)),
        }
    }

    /// Whether a stream takes live redraws, with the environment injected
    /// (`var(name)` is the variable `name`, or `None` when unset): when it
    /// is a terminal and `TERM` is not `dumb`. `NO_COLOR` has no say.
    pub fn live_with_env(is_terminal: bool, var: impl Fn(&str) -> Option<OsString>) -> bool {
        // A dumb terminal understands no escape codes (Emacs shells, some CI).
        is_terminal && var("TERM").is_none_or(|t| t != "dumb")
    }

    /// `text` in `colour`, when this style has colour.
    fn paint(&self, colour: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{colour}{text}{colour:#}")
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a stream is live with `vars` as the whole environment.
    fn live(is_terminal: bool, vars: &[(&str, &str)]) -> bool {
        Style::live_with_env(is_terminal, |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn live_redraws_on_any_terminal_but_a_dumb_one() {
        assert!(live(true, &[]));
        assert!(live(true, &[("TERM", "xterm-256color")]));
        // No colour is not a still screen.
        assert!(live(true, &[("NO_COLOR", "1")]));
        // A pipe or file never gets cursor movement.
        assert!(!live(false, &[]));
        assert!(!live(false, &[("TERM", "xterm-256color")]));
        // A dumb terminal.
        assert!(!live(true, &[("TERM", "dumb")]));
    }

    #[test]
    fn paint_only_with_colour() {
        assert_eq!(Style::PLAIN.paint(LAST, "X"), "X");
        let colour = Style {
            color: true,
            live: false,
        };
        // The same codes as before anstyle drew them.
        assert_eq!(colour.paint(LAST, "X"), "\x1b[1mX\x1b[0m");
        assert_eq!(colour.paint(X_MARK, "x"), "\x1b[36mx\x1b[0m");
        assert_eq!(colour.paint(O_MARK, "o"), "\x1b[33mo\x1b[0m");
        assert_eq!(colour.paint(LEGAL, "*"), "\x1b[32m*\x1b[0m");
    }
}
