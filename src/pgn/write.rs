//! Writing PGN: tags escaped, movetext numbered and wrapped at 80 columns.

use std::fmt::{self, Write};

use super::{MoveNote, PgnGame, Score};
use crate::game::Player;

/// The longest line of movetext the writer makes (a longer word stands on
/// a line of its own).
pub const LINE_WIDTH: usize = 80;

/// `value` as a tag's string: `\` and `"` escaped, control characters
/// (which PGN forbids there) made spaces.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A comment's words in braces: a `}` (which would end it) becomes `)`.
fn comment_words(comment: &str, words: &mut Vec<String>) {
    let clean = comment.replace('}', ")");
    let start = words.len();
    words.extend(clean.split_whitespace().map(str::to_string));
    if words.len() == start {
        words.push(String::new());
    }
    words[start].insert(0, '{');
    if let Some(last) = words.last_mut() {
        last.push('}');
    }
}

/// The text of a note: `+0.61/8 0.100s`, `+M5/12`, `0.100s`, or nothing.
pub(super) fn note_text(note: &MoveNote) -> String {
    let mut text = String::new();
    if let Some(score) = note.score {
        match score {
            Score::Cp(cp) => {
                let sign = match cp {
                    0 => "",
                    c if c > 0 => "+",
                    _ => "-",
                };
                let abs = cp.unsigned_abs();
                let _ = write!(text, "{sign}{}.{:02}", abs / 100, abs % 100);
            }
            Score::Mate(n) if n < 0 => {
                let _ = write!(text, "-M{}", n.unsigned_abs());
            }
            Score::Mate(n) => {
                let _ = write!(text, "+M{n}");
            }
        }
        if let Some(depth) = note.depth {
            let _ = write!(text, "/{depth}");
        }
    }
    if let Some(ms) = note.time_ms {
        if !text.is_empty() {
            text.push(' ');
        }
        let _ = write!(text, "{}.{:03}s", ms / 1000, ms % 1000);
    }
    text
}

impl PgnGame {
    /// The movetext: the moves numbered, with their comments, and the
    /// result, wrapped at 80 columns, with a line break at the end.
    pub fn movetext(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        if let Some(comment) = &self.comment {
            comment_words(comment, &mut words);
        }
        let mut turn = self.first;
        // After a comment (or at the start) an `o` move repeats its number.
        let mut numbered = false;
        for mv in &self.moves {
            match turn.side {
                Player::X => words.push(format!("{}.", turn.number)),
                Player::O if !numbered => words.push(format!("{}...", turn.number)),
                Player::O => {}
            }
            words.push(mv.text.clone());
            words.extend(mv.nags.iter().map(|nag| format!("${nag}")));
            numbered = true;
            if let Some(comment) = &mv.comment {
                comment_words(comment, &mut words);
                numbered = false;
            }
            turn = turn.next();
        }
        words.push(self.result.as_str().to_string());
        let mut text = String::new();
        let mut width = 0;
        for word in &words {
            if width > 0 && width + 1 + word.len() > LINE_WIDTH {
                text.push('\n');
                width = 0;
            }
            if width > 0 {
                text.push(' ');
                width += 1;
            }
            text.push_str(word);
            width += word.len();
        }
        text.push('\n');
        text
    }
}

impl fmt::Display for PgnGame {
    /// The game in PGN: tags, a blank line, the movetext wrapped at 80
    /// columns and ending with the result, and a line break.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.tags {
            writeln!(f, "[{name} \"{}\"]", escape(value))?;
        }
        if !self.tags.is_empty() {
            writeln!(f)?;
        }
        f.write_str(&self.movetext())
    }
}

/// Games as one PGN text, a blank line between games.
pub fn write_games(games: &[PgnGame]) -> String {
    games
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<String>>()
        .join("\n")
}

/// The PGN date (`YYYY.MM.DD`, UTC) of a time in seconds since 1970.
pub fn date_from_unix(seconds: u64) -> String {
    // Howard Hinnant's civil_from_days, for days since 1970-01-01.
    let days = (seconds / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}
