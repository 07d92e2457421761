//! Reading PGN files: tags, movetext, comments, NAGs, variations, several
//! games; every error names the file and the line.

use super::{MoveNote, PgnGame, PgnMove, PgnResult, Score, Turn};
use crate::game::{Outcome, Player};
use crate::pgn::typed::GameTextError;
use crate::quote::shorten;

/// Why a PGN text cannot be read, or a game in it does not stand up to the
/// rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnProblem {
    /// A `[` tag without its `]` on the same line.
    #[error("the tag is not closed with ']'")]
    UnterminatedTag,
    /// A tag's `"` string without its closing `"` on the same line.
    #[error("the tag's value is not closed with '\"'")]
    UnterminatedString,
    /// A `{` comment without its `}`.
    #[error("the comment opened here is not closed with '}}'")]
    UnterminatedComment,
    /// A `(` variation without its `)`.
    #[error("the variation opened here is not closed with ')'")]
    UnterminatedVariation,
    /// A tag that is not `[Name "value"]`.
    #[error("bad tag '{0}': expected [Name \"value\"]")]
    BadTag(String),
    /// A `)` without its `(`.
    #[error("')' without '('")]
    UnopenedVariation,
    /// A character that has no place in PGN.
    #[error("unexpected '{0}'")]
    UnexpectedChar(char),
    /// The movetext does not end with a result.
    #[error("the game's moves do not end with a result (1-0, 0-1, 1/2-1/2 or *) {0}")]
    MissingResult(&'static str),
    /// A `Result` tag that is no result.
    #[error("the Result tag '{0}' is not 1-0, 0-1, 1/2-1/2 or *")]
    ResultTag(String),
    /// A `Result` tag other than the movetext's result.
    #[error("the Result tag says {tag} but the moves end with {movetext}")]
    ResultMismatch {
        /// The tag's result.
        tag: PgnResult,
        /// The result at the end of the movetext.
        movetext: PgnResult,
    },
    /// A `Variant` tag that is not one of our games.
    #[error("the Variant '{found}' is not {expected} (games: Ultimate Tic-Tac-Toe, Super 1 al 5)")]
    Variant {
        /// The tag's value, shortened.
        found: String,
        /// The variant expected.
        expected: &'static str,
    },
    /// `SetUp "1"` without a `FEN` tag.
    #[error("SetUp \"1\" needs a FEN tag")]
    NoFen,
    /// A `FEN` that is not a position of the game.
    #[error("bad FEN '{fen}': {problem}")]
    Fen {
        /// The FEN, shortened.
        fen: String,
        /// What is wrong with it.
        problem: GameTextError,
    },
    /// A move that is not a move of the game.
    #[error("move {turn} {text}: {problem}")]
    Move {
        /// The move's number as the movetext writes it (`12.`, `12...`).
        turn: String,
        /// The move, shortened.
        text: String,
        /// Why it is no move.
        problem: GameTextError,
    },
    /// A move the rules forbid where it comes.
    #[error("move {turn} {text} is illegal: {problem}")]
    Illegal {
        /// The move's number as the movetext writes it.
        turn: String,
        /// The move.
        text: String,
        /// Why it is illegal.
        problem: GameTextError,
    },
    /// A result other than the rules' at a position where the rules ended
    /// the game.
    #[error("the result is {given} but the rules give {}", PgnResult::from_outcome(Some(*rules)))]
    WrongResult {
        /// The result of the movetext.
        given: PgnResult,
        /// The rules' result.
        rules: Outcome,
    },
}

/// Why a PGN file cannot be read: the file, the line (from 1) and the
/// problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {problem}")]
pub struct PgnError {
    /// The file's name.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// What is wrong there (boxed: the variants are large).
    pub problem: Box<PgnProblem>,
}

impl PgnError {
    /// The error `problem` at `line` of `file`.
    pub fn new(file: &str, line: usize, problem: PgnProblem) -> PgnError {
        PgnError {
            file: file.to_string(),
            line,
            problem: Box::new(problem),
        }
    }
}

/// The move number text of `turn`: `12.` or `12...`.
pub(super) fn turn_text(turn: Turn) -> String {
    match turn.side {
        Player::X => format!("{}.", turn.number),
        Player::O => format!("{}...", turn.number),
    }
}

/// A text being read, with the line of the next character.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

/// Characters of a symbol: moves, move numbers, results.
fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric() || "_+#=:-/.!?".contains(c)
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Whether the next character starts a line.
    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.text.as_bytes()[self.pos - 1] == b'\n'
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
        let rest = self.text[self.pos..].lines().next().unwrap_or("");
        let bad = || (line, PgnProblem::BadTag(shorten(rest)));
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
    let mut scanner = Scanner {
        text,
        pos: 0,
        line: 1,
    };
    let mut games = Vec::new();
    loop {
        scanner.skip_space();
        if scanner.peek().is_none() {
            return Ok(games);
        }
        let game = read_game(&mut scanner).map_err(|(line, p)| PgnError::new(file, line, p))?;
        games.push(game);
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
                match game.moves.last_mut() {
                    Some(mv) if mv.comment.is_none() => mv.comment = Some(comment),
                    Some(_) => {}
                    None if game.comment.is_none() => game.comment = Some(comment),
                    None => {}
                }
            }
            '(' => s.variation()?,
            ')' => return Err((line, PgnProblem::UnopenedVariation)),
            '$' => {
                s.bump();
                let mut nag: u32 = 0;
                while let Some(d) = s.peek().and_then(|c| c.to_digit(10)) {
                    nag = (nag * 10 + d).min(u32::from(u8::MAX) + 1);
                    s.bump();
                }
                // NAGs run from 0 to 255; one out of range is skipped.
                if let (Some(mv), Ok(nag)) = (game.moves.last_mut(), u8::try_from(nag)) {
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
                let mut token = token;
                if let Some((turn, rest)) = move_number(token) {
                    if game.moves.is_empty() && numbered.is_none() {
                        numbered = Some(turn);
                    }
                    token = rest;
                }
                let text = token.trim_end_matches(['!', '?']);
                if !text.is_empty() {
                    let nags = suffix_nag(&token[text.len()..]).into_iter().collect();
                    game.moves.push(PgnMove {
                        text: text.to_string(),
                        nags,
                        comment: None,
                        line,
                    });
                }
            }
            c => return Err((line, PgnProblem::UnexpectedChar(c))),
        }
    }
    game.first = numbered.unwrap_or(Turn::START);
    if let Some(tag) = game.tag("Result") {
        let Some(tag) = PgnResult::parse(tag) else {
            return Err((game.line, PgnProblem::ResultTag(shorten(tag))));
        };
        if tag != game.result {
            return Err((
                s.line,
                PgnProblem::ResultMismatch {
                    tag,
                    movetext: game.result,
                },
            ));
        }
    }
    Ok(game)
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
