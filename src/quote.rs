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

#[cfg(test)]
mod tests {
    use super::*;

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
