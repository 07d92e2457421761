//! What the fuzz targets share: the notation checks for both games, and
//! the limits that keep a protocol session quick.

use std::fmt::Debug;
use ultimo::game::Notation;

/// Checks FEN and move text for game `G`. The first line of `text` is read
/// as a FEN, the rest as moves, one word each, played on that position (or
/// on the start position when the FEN was refused).
///
/// Invariants: no panic; a position that reads prints a FEN that reads
/// back to the same position and the same text; a move that reads prints
/// text that reads back to the same move; a move refused by `try_play`
/// leaves the position as it was; `play_moves` is all or nothing and
/// agrees with playing the moves one by one.
pub fn notation<G: Notation>(text: &str)
where
    G::Move: std::str::FromStr + Debug,
{
    let (fen, moves) = text.split_once('\n').unwrap_or((text, ""));
    let start = match fen.parse::<G>() {
        Ok(pos) => {
            let printed = pos.to_string();
            let again: G = printed
                .parse()
                .unwrap_or_else(|e| panic!("{printed:?} was printed but does not read: {e}"));
            assert_eq!(pos, again, "{printed:?} reads back as another position");
            assert_eq!(printed, again.to_string(), "{printed:?} prints differently");
            pos
        }
        Err(e) => {
            // The error prints (and says something).
            assert!(!e.to_string().is_empty());
            G::startpos()
        }
    };
    let words: Vec<&str> = moves.split_whitespace().take(100).collect();
    let mut pos = start;
    let mut all_played = true;
    for word in &words {
        let m = match G::parse_move(word) {
            Ok(m) => m,
            Err(_) => {
                all_played = false;
                continue;
            }
        };
        let printed = m.to_string();
        let again = G::parse_move(&printed)
            .unwrap_or_else(|_| panic!("move {printed:?} was printed but does not read"));
        assert_eq!(m, again, "move {printed:?} reads back as another move");
        let before = pos;
        if pos.try_play(m).is_err() {
            assert_eq!(pos, before, "a refused move changed the position");
            all_played = false;
        }
    }
    match start.play_moves(words.iter().copied()) {
        Ok(end) => {
            assert!(
                all_played,
                "play_moves took moves that one by one were refused"
            );
            assert_eq!(end, pos, "play_moves and one by one end apart");
        }
        Err(_) => assert!(
            !all_played,
            "play_moves refused moves that one by one played"
        ),
    }
}

/// `text` with every word that is a number past `most` (and fits in 64
/// bits) brought down to `n % (most + 1)`, so that a fuzzed session never
/// asks for a long search, a deep perft or a large table. Digits inside a
/// word (moves, FENs) are kept, and so are numbers too long for 64 bits:
/// they reach the parsers' overflow errors.
pub fn small_numbers(text: &str, most: u64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        match word.parse::<u64>() {
            Ok(n) if n > most && word.bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str(&(n % (most + 1)).to_string())
            }
            _ => out.push_str(word),
        }
        let space = after.len() - after.trim_start().len();
        out.push_str(&after[..space]);
        rest = &after[space..];
    }
    out
}

/// Whether a protocol line names a file (the debug log, the net file):
/// a fuzzed session neither writes nor reads files.
pub fn names_a_file(line: &str) -> bool {
    line.to_ascii_lowercase().contains("file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_brought_down() {
        assert_eq!(
            small_numbers("go movetime 100000 depth 3", 4),
            "go movetime 0 depth 3"
        );
        assert_eq!(
            small_numbers("x99999999999999999999999", 4),
            "x99999999999999999999999"
        );
        assert_eq!(
            small_numbers("moves a9 e5\n\n7 0000", 4),
            "moves a9 e5\n\n2 0000"
        );
    }
}
