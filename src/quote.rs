//! Quoting outside input in messages: an error repeats at most
//! [`QUOTE_CHARS`] characters of what it was given, so that a huge token
//! never becomes a huge error line, and control characters escaped, so
//! that a file's escape sequences never reach the terminal.

/// The most characters of input a message quotes.
pub const QUOTE_CHARS: usize = 40;

/// `text` as a message may quote it: its first [`QUOTE_CHARS`] characters
/// (and `...` when there are more), control characters escaped as Rust
/// writes them (`\u{1b}`, `\n`).
pub fn shorten(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == QUOTE_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The most characters of a name (a file's, an engine's) a message shows
/// whole; a longer one keeps its start and its end.
pub const NAME_CHARS: usize = 100;

/// A name from outside (a file's path, an engine's name) as a message or a
/// summary shows it: control characters escaped as in [`shorten`]; past
/// [`NAME_CHARS`] characters, its first 30 and last 60 (where a path's
/// file name is) around `...`.
pub fn name(text: &str) -> String {
    let count = text.chars().count();
    if count <= NAME_CHARS {
        return escape(text);
    }
    let head: String = text.chars().take(30).collect();
    let tail: String = text.chars().skip(count - 60).collect();
    format!("{}...{}", escape(&head), escape(&tail))
}

/// A path as [`name`] shows it.
pub fn path(path: &std::path::Path) -> String {
    name(&path.display().to_string())
}

/// `text` with every control character but the line break escaped as in
/// [`shorten`], whatever its length: for a message of several lines that
/// may hold outside text (an error as the command line prints it).
pub fn escape_lines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// `text` with its control characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_ends_and_lose_their_escapes() {
        assert_eq!(name("a/b\x1b[31m.pgn"), "a/b\\u{1b}[31m.pgn");
        let long = format!("{}{}", "d/".repeat(100), "file.pgn");
        let shown = name(&long);
        assert!(shown.starts_with(&"d/".repeat(15)), "{shown}");
        assert!(shown.ends_with("d/d/file.pgn"), "{shown}");
        assert_eq!(shown.chars().count(), 93);
        assert_eq!(name(&"n".repeat(NAME_CHARS)), "n".repeat(NAME_CHARS));
        assert_eq!(
            escape_lines("first\x07\nsecond \x1b"),
            "first\\u{7}\nsecond \\u{1b}"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary() {
        assert_eq!(shorten("e5"), "e5");
        let long = "x".repeat(100);
        assert_eq!(shorten(&long), format!("{}...", "x".repeat(40)));
        assert_eq!(shorten(&"é".repeat(41)), format!("{}...", "é".repeat(40)));
        assert_eq!(shorten(&"é".repeat(40)), "é".repeat(40));
    }

    /// Regression (hostile input round 2, P3): error messages quoted ESC
    /// and BEL raw, so a file could retitle the terminal.
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            shorten("\x1b]0;pwned\x07\x1b[31mRED\n"),
            "\\u{1b}]0;pwned\\u{7}\\u{1b}[31mRED\\n"
        );
    }
}
