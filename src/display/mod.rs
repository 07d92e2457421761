//! Text for people: board diagrams, scores and chances, perft reports, and
//! the one terminal policy (colour on a terminal, none with `NO_COLOR`,
//! `TERM=dumb` or a pipe).

pub mod board;
pub mod perft;
pub mod score;

/// How to draw text: with colours or without.
#[derive(Copy, Clone, Debug, Default)]
pub struct Style {
    /// Use ANSI colours (only for terminals, and never with `NO_COLOR`).
    pub color: bool,
}

impl Style {
    /// Colours when `stdout_is_terminal` and `NO_COLOR` is unset or empty.
    pub fn for_terminal(stdout_is_terminal: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: stdout_is_terminal && !no_color,
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}
