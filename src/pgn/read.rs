//! Reading PGN files: tags, movetext, comments, NAGs, variations, several
//! games; every error names the file and the line.

use super::error::{MAX_GAME, MAX_LINE, PgnError, PgnProblem};
use super::{MoveNote, PgnGame, PgnMove, PgnResult, Score, Turn};
use crate::game::Player;
use crate::quote::shorten;
use std::io::BufRead;

/// A PGN text being read line by line: the text of the game being read
/// (only its lines are kept), the line of the next character. Line breaks
/// are `\n`, `\r\n` or `\r` alone; all are read as `\n`.
struct Scanner<'a> {
    src: Box<dyn BufRead + 'a>,
    /// The lines read of the current game (or since the last game).
    text: String,
    pos: usize,
    line: usize,
    /// Whether the next character starts a line.
    line_start: bool,
    /// Lines read from `src` so far.
    lines_read: usize,
    /// Whether a game is being read (its text is kept whole).
    in_game: bool,
    /// Whether a `\n` after a `\r` is still to be skipped.
    skip_lf: bool,
    eof: bool,
    /// What stopped the reading (a line too long, not UTF-8, an I/O
    /// error): the text ends there.
    failed: Option<(usize, PgnProblem)>,
}

impl<'a> Scanner<'a> {
    fn new(src: impl BufRead + 'a) -> Scanner<'a> {
        Scanner {
            src: Box::new(src),
            text: String::new(),
            pos: 0,
            line: 1,
            line_start: true,
            lines_read: 0,
            in_game: false,
            skip_lf: false,
            eof: false,
            failed: None,
        }
    }

    /// Starts a game at the next character: the text before it is dropped.
    fn begin_game(&mut self) {
        self.text.drain(..self.pos);
        self.pos = 0;
        self.in_game = true;
    }

    /// Ends a game: the text read up to here may be dropped.
    fn end_game(&mut self) {
        self.in_game = false;
    }

    /// Appends the next line of `src` to the text; at the end, or once
    /// reading failed, does nothing.
    fn fill(&mut self) {
        if self.eof || self.failed.is_some() {
            return;
        }
        if !self.in_game && self.pos == self.text.len() {
            self.text.clear();
            self.pos = 0;
        }
        let number = self.lines_read + 1;
        if self.in_game && self.text.len() > MAX_GAME {
            self.failed = Some((self.line, PgnProblem::LongGame));
            return;
        }
        let mut bytes = Vec::new();
        let mut ended = false;
        while !ended {
            let chunk = match self.src.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.failed = Some((number, PgnProblem::Io(e.to_string())));
                    return;
                }
            };
            if chunk.is_empty() {
                self.eof = true;
                break;
            }
            if std::mem::take(&mut self.skip_lf) && chunk[0] == b'\n' {
                self.src.consume(1);
                continue;
            }
            let (take, used) = match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    ended = true;
                    self.skip_lf = chunk[i] == b'\r';
                    (i, i + 1)
                }
                None => (chunk.len(), chunk.len()),
            };
            if bytes.len() + take > MAX_LINE {
                self.failed = Some((number, PgnProblem::LongLine));
                return;
            }
            bytes.extend_from_slice(&chunk[..take]);
            self.src.consume(used);
        }
        if bytes.is_empty() && !ended {
            return;
        }
        self.lines_read = number;
        let Ok(mut line) = String::from_utf8(bytes) else {
            self.failed = Some((number, PgnProblem::NotUtf8));
            return;
        };
        if number == 1 && line.starts_with('\u{feff}') {
            // A byte order mark: not text.
            line.drain(..'\u{feff}'.len_utf8());
        }
        self.text.push_str(&line);
        if ended {
            self.text.push('\n');
        }
    }
}

/// Characters of a symbol: moves, move numbers, results.
fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric() || "_+#=:-/.!?".contains(c)
}

impl Scanner<'_> {
    fn peek(&mut self) -> Option<char> {
        if self.pos == self.text.len() {
            self.fill();
        }
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        self.line_start = c == '\n';
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Whether the next character starts a line.
    fn at_line_start(&self) -> bool {
        self.line_start
    }

    /// Skips to the end of the line (the line break stays).
    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    /// Skips whitespace, `;` comments and `%` escape lines.
    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == ';' || (c == '%' && self.at_line_start()) {
                self.skip_line();
            } else {
                break;
            }
        }
    }

    /// Reads a `{...}` comment (the `{` is next): its words, one space apart.
    fn comment(&mut self) -> Result<String, (usize, PgnProblem)> {
        let line = self.line;
        self.bump();
        let start = self.pos;
        loop {
            match self.bump() {
                Some('}') => break,
                Some(_) => {}
                None => return Err((line, PgnProblem::UnterminatedComment)),
            }
        }
        let inner = &self.text[start..self.pos - 1];
        Ok(inner.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// Skips a `(...)` variation (the `(` is next), nested ones and comments
    /// included.
    fn variation(&mut self) -> Result<(), (usize, PgnProblem)> {
        let line = self.line;
        self.bump();
        let mut depth = 1;
        while depth > 0 {
            self.skip_space();
            match self.peek() {
                None => return Err((line, PgnProblem::UnterminatedVariation)),
                Some('{') => {
                    self.comment()?;
                }
                Some('(') => {
                    self.bump();
                    depth += 1;
                }
                Some(')') => {
                    self.bump();
                    depth -= 1;
                }
                Some(_) => {
                    self.bump();
                }
            }
        }
        Ok(())
    }

    /// Reads a tag (the `[` is next).
    fn tag(&mut self) -> Result<(String, String), (usize, PgnProblem)> {
        let line = self.line;
        let rest = shorten(self.text[self.pos..].lines().next().unwrap_or(""));
        let bad = || (line, PgnProblem::BadTag(rest.clone()));
        self.bump();
        self.skip_blanks();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        let name = self.text[start..self.pos].to_string();
        self.skip_blanks();
        if name.is_empty() || self.peek() != Some('"') {
            return Err(match self.peek() {
                None | Some('\n') => (line, PgnProblem::UnterminatedTag),
                _ => bad(),
            });
        }
        self.bump();
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return Err((line, PgnProblem::UnterminatedString)),
                Some('"') => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        Some(c @ ('\\' | '"')) => {
                            self.bump();
                            value.push(c);
                        }
                        _ => value.push('\\'),
                    }
                }
                // PGN forbids control characters in a string; they read
                // as the spaces that the writer makes of them.
                Some(c) if c.is_control() => {
                    self.bump();
                    value.push(' ');
                }
                Some(c) => {
                    self.bump();
                    value.push(c);
                }
            }
        }
        self.skip_blanks();
        match self.peek() {
            Some(']') => {
                self.bump();
                Ok((name, value))
            }
            None | Some('\n') => Err((line, PgnProblem::UnterminatedTag)),
            Some(_) => Err(bad()),
        }
    }

    /// Skips spaces and tabs, not line breaks.
    fn skip_blanks(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '\r')
        {
            self.bump();
        }
    }

    /// Reads a NAG (`$` is next): its number, `None` past 255.
    fn nag(&mut self) -> Option<u8> {
        self.bump();
        let mut nag: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            nag = (nag * 10 + d).min(u32::from(u8::MAX) + 1);
            self.bump();
        }
        u8::try_from(nag).ok()
    }

    /// Reads a symbol (its first character is next).
    fn symbol(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(is_symbol_char) {
            self.bump();
        }
        &self.text[start..self.pos]
    }
}

/// The turn a move number token (`12.`, `12...`, `12`) names, and the rest
/// of the token after its dots (`12.e5` -> `e5`); `None` if it is no move
/// number.
fn move_number(token: &str) -> Option<(Turn, &str)> {
    let digits = token
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(token.len());
    if digits == 0 {
        return None;
    }
    let number: u32 = token[..digits].parse().ok()?;
    let after = &token[digits..];
    let rest = after.trim_start_matches('.');
    let dots = after.len() - rest.len();
    if dots == 0 && !rest.is_empty() {
        return None;
    }
    let side = if dots >= 3 { Player::O } else { Player::X };
    Some((Turn { number, side }, rest))
}

/// Reads every game of a PGN text from file `file` (for the errors).
pub fn read(text: &str, file: &str) -> Result<Vec<PgnGame>, PgnError> {
    games(text.as_bytes(), file).collect()
}

/// The games of a PGN file `src` named `file` (for the errors), read one at
/// a time: no more than a game's text ([`MAX_GAME`]) is kept, no line may
/// be longer than [`MAX_LINE`]. A byte order mark at the start is skipped.
/// The first error ends the games.
pub fn games<'a>(src: impl BufRead + 'a, file: &str) -> Games<'a> {
    Games {
        scanner: Scanner::new(src),
        file: file.to_string(),
        done: false,
    }
}

/// The games of a PGN file, read one at a time (see [`games`]).
pub struct Games<'a> {
    scanner: Scanner<'a>,
    file: String,
    done: bool,
}

impl Iterator for Games<'_> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let s = &mut self.scanner;
        s.end_game();
        s.skip_space();
        let game = if s.peek().is_none() {
            match s.failed.take() {
                Some(failed) => Err(failed),
                None => {
                    self.done = true;
                    return None;
                }
            }
        } else {
            s.begin_game();
            let game = read_game(s);
            // A problem of reading explains why the game ended early.
            match s.failed.take() {
                Some(failed) => Err(failed),
                None => game,
            }
        };
        if game.is_err() {
            self.done = true;
        }
        Some(game.map_err(|(line, p)| PgnError::new(&self.file, line, p)))
    }
}

/// Reads one game: tags, then movetext up to its result.
fn read_game(s: &mut Scanner) -> Result<PgnGame, (usize, PgnProblem)> {
    let mut game = PgnGame {
        line: s.line,
        ..PgnGame::default()
    };
    let mut numbered: Option<Turn> = None;
    loop {
        s.skip_space();
        let line = s.line;
        let Some(c) = s.peek() else {
            return Err((line, PgnProblem::MissingResult("at the end of the file")));
        };
        match c {
            '[' if game.moves.is_empty() && game.comment.is_none() => {
                let (name, value) = s.tag()?;
                game.tags.push((name, value));
            }
            '[' => {
                return Err((
                    line,
                    PgnProblem::MissingResult("before the next game's tags"),
                ));
            }
            '{' => {
                let comment = s.comment()?;
                add_comment(&mut game, comment);
            }
            '(' => s.variation()?,
            ')' => return Err((line, PgnProblem::UnopenedVariation)),
            '$' => {
                // NAGs run from 0 to 255; one out of range is skipped.
                if let (Some(nag), Some(mv)) = (s.nag(), game.moves.last_mut()) {
                    mv.nags.push(nag);
                }
            }
            '*' => {
                s.bump();
                game.result = PgnResult::Unknown;
                break;
            }
            c if is_symbol_char(c) => {
                let token = s.symbol();
                if let Some(result) = PgnResult::parse(token) {
                    game.result = result;
                    break;
                }
                if let Some(result) = add_token(&mut game, &mut numbered, token, line) {
                    game.result = result;
                    break;
                }
            }
            c => return Err((line, PgnProblem::UnexpectedChar(c))),
        }
    }
    // A move number before no move numbers nothing (the writer writes
    // none).
    game.first = match game.moves.is_empty() {
        true => Turn::START,
        false => numbered.unwrap_or(Turn::START),
    };
    check_result_tag(&game, s.line)?;
    Ok(game)
}

/// A comment read after the last move (it is that move's, unless it has
/// one), or before the first (the game's).
fn add_comment(game: &mut PgnGame, comment: String) {
    match game.moves.last_mut() {
        Some(mv) if mv.comment.is_none() => mv.comment = Some(comment),
        Some(_) => {}
        None if game.comment.is_none() => game.comment = Some(comment),
        None => {}
    }
}

/// A symbol of the movetext on `line` that is no result: move numbers
/// (the first sets `numbered`), then a move with its suffix, if any, or a
/// result (`1.1-0` and `1-0!?` end the game as `1. 1-0` does, and as the
/// writer's `1-0` reads back), which is returned.
fn add_token(
    game: &mut PgnGame,
    numbered: &mut Option<Turn>,
    mut token: &str,
    line: usize,
) -> Option<PgnResult> {
    // `8.6` is two move numbers, as `8. 6` is (and as the writer's `6`
    // reads back).
    while let Some((turn, rest)) = move_number(token) {
        if game.moves.is_empty() && numbered.is_none() {
            *numbered = Some(turn);
        }
        token = rest;
    }
    let text = token.trim_end_matches(['!', '?']);
    // A result, with or without a suffix (`1-0!?`), ends the game: the
    // writer would write such a move as the result.
    if let Some(result) = PgnResult::parse(text) {
        return Some(result);
    }
    // Digits alone are a move number (`6!!` too), never a move: the writer
    // would write them as one.
    if !text.is_empty() && !text.bytes().all(|b| b.is_ascii_digit()) {
        let nags = suffix_nag(&token[text.len()..]).into_iter().collect();
        game.moves.push(PgnMove {
            text: text.to_string(),
            nags,
            comment: None,
            line,
        });
    }
    None
}

/// The `Result` tag, if any, names a result and the one the movetext
/// ends with (`line`, the movetext's end, for the error).
fn check_result_tag(game: &PgnGame, line: usize) -> Result<(), (usize, PgnProblem)> {
    let Some(tag) = game.tag("Result") else {
        return Ok(());
    };
    let Some(tag) = PgnResult::parse(tag) else {
        return Err((game.line, PgnProblem::ResultTag(shorten(tag))));
    };
    if tag != game.result {
        return Err((
            line,
            PgnProblem::ResultMismatch {
                tag,
                movetext: game.result,
            },
        ));
    }
    Ok(())
}

/// A decimal `text` with at most `places` digits after the point, times
/// `10^places` (`0.61` at 2 places is 61); optional sign.
fn fixed_point(text: &str, places: u32) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !ok(whole) || !ok(fraction) || fraction.len() > places as usize {
        return None;
    }
    let scale = 10i64.pow(places - fraction.len() as u32);
    let value = whole
        .parse::<i64>()
        .ok()?
        .checked_mul(10i64.pow(places))?
        .checked_add(fraction.parse::<i64>().unwrap_or(0) * scale)?;
    Some(if negative { -value } else { value })
}

/// A score with an optional depth: `+0.61/8`, `-M3`, `0.00`.
fn parse_score(token: &str) -> Option<(Score, Option<u32>)> {
    let (score, depth) = match token.split_once('/') {
        Some((score, depth)) => (score, Some(depth.parse().ok()?)),
        None => (token, None),
    };
    let mate = |sign: i32, n: &str| -> Option<Score> {
        let n: i32 = n.parse().ok()?;
        (n >= 0).then_some(Score::Mate(sign * n))
    };
    let score = if let Some(n) = score.strip_prefix("+M").or(score.strip_prefix("M")) {
        mate(1, n)?
    } else if let Some(n) = score.strip_prefix("-M") {
        mate(-1, n)?
    } else if score.split_once('.').is_some_and(|(_, f)| f.len() == 2) {
        Score::Cp(i32::try_from(fixed_point(score, 2)?).ok()?)
    } else {
        return None;
    };
    Some((score, depth))
}

/// Reads a note written by the writer (`+0.61/8 0.100s`, `+M5`, `0.100s`);
/// `None` for any other text.
pub(super) fn parse_note(text: &str) -> Option<MoveNote> {
    let mut note = MoveNote::default();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut rest = &words[..];
    if let Some((first, tail)) = rest.split_first()
        && let Some((score, depth)) = parse_score(first)
    {
        note.score = Some(score);
        note.depth = depth;
        rest = tail;
    }
    match rest {
        [] => {}
        [time] => {
            let ms = fixed_point(time.strip_suffix('s')?, 3)?;
            note.time_ms = Some(u64::try_from(ms).ok()?);
            if time.starts_with(['-', '+']) {
                return None;
            }
        }
        _ => return None,
    }
    (!note.is_empty()).then_some(note)
}

/// The NAG of a move's `!`/`?` suffix, if it is one of the six standard
/// ones.
fn suffix_nag(suffix: &str) -> Option<u8> {
    match suffix {
        "!" => Some(1),
        "?" => Some(2),
        "!!" => Some(3),
        "??" => Some(4),
        "!?" => Some(5),
        "?!" => Some(6),
        _ => None,
    }
}
