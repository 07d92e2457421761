//! Text for people: board diagrams, scores and chances, perft reports, and
//! the one terminal policy (colour on a terminal, none with `NO_COLOR`,
//! `TERM=dumb` or a pipe).

pub mod board;
pub mod perft;
pub mod score;

use std::ffi::OsString;

/// How to draw text: with ANSI escape codes (colours, and cursor movement
/// for live redraws) or as plain text.
///
/// [`Style::for_terminal`] is the one terminal policy every command uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Use ANSI escape codes: colours, and the cursor movement that redraws
    /// a live table. Only for terminals; see [`Style::for_terminal`].
    pub ansi: bool,
}

impl Style {
    /// Plain text, no escape codes (pipes, files, protocol output).
    pub const PLAIN: Style = Style { ansi: false };

    /// The terminal policy for an output stream, from the process
    /// environment: escape codes only when the stream is a terminal, `TERM`
    /// is not `dumb` and `NO_COLOR` is unset or empty.
    pub fn for_terminal(is_terminal: bool) -> Style {
        Style::with_env(is_terminal, |name| std::env::var_os(name))
    }

    /// The same policy as [`Style::for_terminal`] with the environment
    /// injected: `var(name)` is the variable `name`, or `None` when unset.
    pub fn with_env(is_terminal: bool, var: impl Fn(&str) -> Option<OsString>) -> Style {
        // https://no-color.org: set and not empty means no colour.
        let no_color = var("NO_COLOR").is_some_and(|v| !v.is_empty());
        // A dumb terminal understands no escape codes (Emacs shells, some CI).
        let dumb = var("TERM").is_some_and(|t| t == "dumb");
        Style {
            ansi: is_terminal && !no_color && !dumb,
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.ansi {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy with `vars` as the whole environment.
    fn style(is_terminal: bool, vars: &[(&str, &str)]) -> Style {
        Style::with_env(is_terminal, |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn escape_codes_only_on_a_capable_terminal() {
        assert!(style(true, &[]).ansi);
        assert!(style(true, &[("TERM", "xterm-256color")]).ansi);
        // An empty NO_COLOR counts as unset.
        assert!(style(true, &[("NO_COLOR", "")]).ansi);
        // A pipe or file never gets escape codes.
        assert!(!style(false, &[]).ansi);
        assert!(!style(false, &[("TERM", "xterm-256color")]).ansi);
        // NO_COLOR set to anything.
        assert!(!style(true, &[("NO_COLOR", "1")]).ansi);
        assert!(!style(true, &[("NO_COLOR", "0")]).ansi);
        // A dumb terminal.
        assert!(!style(true, &[("TERM", "dumb")]).ansi);
        assert!(!style(true, &[("TERM", "dumb"), ("NO_COLOR", "")]).ansi);
    }

    #[test]
    fn paint_only_with_escape_codes() {
        assert_eq!(Style::PLAIN.paint("1", "X"), "X");
        assert_eq!(Style { ansi: true }.paint("1", "X"), "\x1b[1mX\x1b[0m");
    }
}
