//! Quoting outside input in messages: an error repeats at most
//! [`QUOTE_CHARS`] characters of what it was given, so that a huge token
//! never becomes a huge error line.

/// The most characters of input a message quotes.
pub const QUOTE_CHARS: usize = 40;

/// `text` as a message may quote it: unchanged when it has at most
/// [`QUOTE_CHARS`] characters, else its first [`QUOTE_CHARS`] characters
/// and `...`.
pub fn shorten(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => text.to_string(),
        Some((end, _)) => format!("{}...", &text[..end]),
    }
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
}
