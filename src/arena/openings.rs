//! Openings: the positions games start from, read from a file or made of
//! random moves.
//!
//! An opening is written as a FEN (it contains `/`), as `startpos` for the
//! empty board, or as moves played from the empty board (`e5 e4 d1`).

use std::fmt;

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use crate::quote::shorten;
use crate::rules::Position;

/// Why a game's text or move was refused, for any game the arena plays:
/// the PGN layer's error, which wraps each game's own typed error.
pub use crate::pgn::GameTextError as TextProblem;

/// A game the arena can referee: its notation, with every error it reports
/// convertible to a [`TextProblem`] (the PGN layer's trait).
pub use crate::pgn::PgnNotation as ArenaGame;

/// Why an opening is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// Nothing at all.
    #[error("an empty opening (write startpos for the empty board)")]
    Empty,
    /// A FEN that does not describe a position.
    #[error("bad FEN '{text}': {problem}")]
    Fen {
        /// The FEN, shortened.
        text: String,
        /// What is wrong with it.
        problem: TextProblem,
    },
    /// Moves that cannot be played from the empty board.
    #[error("bad moves '{text}': {problem}")]
    Moves {
        /// The moves, shortened.
        text: String,
        /// The first that cannot be played, and why.
        problem: TextProblem,
    },
    /// An opening whose game is already over.
    #[error("the game is already over after '{text}'")]
    Over {
        /// The opening, shortened.
        text: String,
    },
    /// `--random-plies` so high that every try ended or decided the game.
    #[error("--random-plies {plies}: found no random opening that is not decided already")]
    NoRandom {
        /// The number of random moves asked for.
        plies: u32,
    },
}

/// Why an openings file is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsFileError {
    /// A line that is not an opening.
    #[error("{file}:{line}: {problem}")]
    Line {
        /// The file's name.
        file: String,
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        problem: OpeningError,
    },
    /// A file with comments and blank lines only.
    #[error("{file}: no openings in the file")]
    Empty {
        /// The file's name.
        file: String,
    },
}

/// The position a game starts from.
#[derive(Clone, Debug, PartialEq)]
pub enum Opening<G: ArenaGame = Position> {
    /// A position given by its FEN.
    Fen(G),
    /// Moves played from the empty board (none for the empty board itself).
    Moves(Vec<G::Move>),
}

impl<G: ArenaGame> Opening<G> {
    /// Reads an opening: `startpos`, a FEN, or moves from the empty board.
    /// An opening whose game is already over is refused.
    pub fn parse(text: &str) -> Result<Opening<G>, OpeningError> {
        let text = text.trim();
        let opening = if text.is_empty() {
            return Err(OpeningError::Empty);
        } else if text == "startpos" {
            Opening::Moves(Vec::new())
        } else if text.contains('/') {
            let pos: G = text
                .parse()
                .map_err(|problem: G::FenError| OpeningError::Fen {
                    text: shorten(text),
                    problem: problem.into(),
                })?;
            Opening::Fen(pos)
        } else {
            let words = text.split_whitespace();
            G::startpos()
                .play_moves(words.clone())
                .map_err(|problem| OpeningError::Moves {
                    text: shorten(text),
                    problem: problem.into(),
                })?;
            // play_moves checked every word, so they all parse.
            let moves = words.filter_map(|w| G::parse_move(w).ok()).collect();
            Opening::Moves(moves)
        };
        if opening.position().is_over() {
            return Err(OpeningError::Over {
                text: shorten(text),
            });
        }
        Ok(opening)
    }

    /// The position the opening leads to.
    pub fn position(&self) -> G {
        match self {
            Opening::Fen(pos) => *pos,
            Opening::Moves(moves) => {
                let mut pos = G::startpos();
                for &m in moves {
                    if pos.check(m).is_err() {
                        break;
                    }
                    pos.play_unchecked(m);
                }
                pos
            }
        }
    }

    /// The protocol's `position` command for the opening followed by
    /// `moves`.
    pub fn position_command(&self, moves: &[G::Move]) -> String {
        let mut command = match self {
            Opening::Fen(pos) => format!("position fen {pos}"),
            Opening::Moves(_) => "position startpos".to_string(),
        };
        let opening_moves = match self {
            Opening::Fen(_) => &[][..],
            Opening::Moves(m) => &m[..],
        };
        if !opening_moves.is_empty() || !moves.is_empty() {
            command.push_str(" moves");
            for m in opening_moves.iter().chain(moves) {
                command.push(' ');
                command.push_str(&m.to_string());
            }
        }
        command
    }
}

impl<G: ArenaGame> fmt::Display for Opening<G> {
    /// The form [`Opening::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opening::Fen(pos) => write!(f, "{pos}"),
            Opening::Moves(moves) if moves.is_empty() => write!(f, "startpos"),
            Opening::Moves(moves) => {
                let words: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                write!(f, "{}", words.join(" "))
            }
        }
    }
}

/// Reads an openings file's text: one opening per line; blank lines and
/// lines starting with `#` are skipped. An error names `file` and the line.
pub fn parse_openings<G: ArenaGame>(
    text: &str,
    file: &str,
) -> Result<Vec<Opening<G>>, OpeningsFileError> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening = Opening::parse(line).map_err(|problem| OpeningsFileError::Line {
            file: file.to_string(),
            line: i + 1,
            problem,
        })?;
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err(OpeningsFileError::Empty {
            file: file.to_string(),
        });
    }
    Ok(openings)
}

/// How many random tries one opening may take before giving up.
const TRIES_PER_OPENING: u32 = 10_000;

/// An opening of `plies` uniformly random moves from the empty board for
/// pair `pair` (from 0), the same for the same `seed` and pair. An opening
/// whose game is over, or where the side to move can win at once (the game
/// is decided), is skipped and drawn again.
pub fn random_opening<G: ArenaGame>(
    plies: u32,
    seed: u64,
    pair: u64,
) -> Result<Opening<G>, OpeningError> {
    // Each pair has its own generator, so that any pair's opening can be
    // made without the ones before it (seed_from_u64 mixes the bits).
    let pair_seed = seed.wrapping_add(pair.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(pair_seed);
    for _ in 0..TRIES_PER_OPENING {
        let mut pos = G::startpos();
        let mut moves = Vec::new();
        while moves.len() < plies as usize {
            let Some(m) = pos.random_move(&mut rng) else {
                break;
            };
            pos.play_unchecked(m);
            moves.push(m);
        }
        if moves.len() == plies as usize && !pos.is_over() && pos.winning_move().is_none() {
            return Ok(Opening::Moves(moves));
        }
    }
    Err(OpeningError::NoRandom { plies })
}

/// Where a match's openings come from.
#[derive(Clone, Debug, PartialEq)]
pub enum OpeningBook<G: ArenaGame = Position> {
    /// These openings, taken in turn by the pairs (from the top again when
    /// they run out).
    List(Vec<Opening<G>>),
    /// A fresh opening of `plies` random moves for each pair.
    Random {
        /// The number of random moves.
        plies: u32,
        /// The seed; each pair's generator is made from it.
        seed: u64,
    },
}

impl<G: ArenaGame> OpeningBook<G> {
    /// The opening of pair `pair` (from 0).
    pub fn opening(&self, pair: u64) -> Result<Opening<G>, OpeningError> {
        match self {
            OpeningBook::List(list) if list.is_empty() => Ok(Opening::Moves(Vec::new())),
            OpeningBook::List(list) => Ok(list[(pair % list.len() as u64) as usize].clone()),
            &OpeningBook::Random { plies, seed } => random_opening(plies, seed, pair),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    type Opening = super::Opening<Position>;
    type OpeningBook = super::OpeningBook<Position>;

    fn random_opening(plies: u32, seed: u64, pair: u64) -> Result<Opening, OpeningError> {
        super::random_opening(plies, seed, pair)
    }

    fn parse_openings(text: &str, file: &str) -> Result<Vec<Opening>, OpeningsFileError> {
        super::parse_openings(text, file)
    }

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    #[test]
    fn parses_each_form() {
        assert_eq!(Opening::parse("startpos"), Ok(Opening::Moves(vec![])));
        assert_eq!(
            Opening::parse(" e5 e4  d1 "),
            Ok(Opening::Moves(moves("e5 e4 d1")))
        );
        let fen = "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1";
        let opening = Opening::parse(fen).unwrap();
        assert_eq!(opening.position().to_string(), fen);
        assert_eq!(
            Opening::parse("e5 e4 d1").unwrap().position(),
            opening.position()
        );
    }

    #[test]
    fn round_trips_through_text() {
        for text in ["startpos", "e5 e4 d1", "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1"] {
            let opening = Opening::parse(text).unwrap();
            assert_eq!(opening.to_string(), text);
        }
    }

    #[test]
    fn position_commands() {
        let start = Opening::parse("startpos").unwrap();
        assert_eq!(start.position_command(&[]), "position startpos");
        assert_eq!(
            start.position_command(&moves("e5")),
            "position startpos moves e5"
        );
        let opening = Opening::parse("e5 e4").unwrap();
        assert_eq!(
            opening.position_command(&moves("d1")),
            "position startpos moves e5 e4 d1"
        );
        let fen = Opening::parse("9/9/9/9/4x4/9/9/9/9 o 1 e5").unwrap();
        assert_eq!(
            fen.position_command(&[]),
            "position fen 9/9/9/9/4x4/9/9/9/9 o 1 e5"
        );
        assert_eq!(
            fen.position_command(&moves("e4")),
            "position fen 9/9/9/9/4x4/9/9/9/9 o 1 e5 moves e4"
        );
    }

    #[test]
    fn refuses_bad_openings() {
        for bad in ["e5 e5", "e5 zz", "9/9/9 x 1 0000", "", "startpos e5"] {
            assert!(Opening::parse(bad).is_err(), "{bad}");
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let over = Position::startpos().random_playout(&mut rng);
        assert!(over.is_over());
        let err = Opening::parse(&over.to_string()).unwrap_err();
        assert!(matches!(err, OpeningError::Over { .. }), "{err}");
        assert!(err.to_string().contains("already over"), "{err}");
        let long = "e5 ".repeat(100);
        let err = Opening::parse(&long).unwrap_err().to_string();
        assert!(
            err.starts_with("bad moves 'e5 e5 e5 e5 e5 e5 e5 e5 e5 e5 e5 e5 e5 e...': move 2"),
            "{err}"
        );
    }

    #[test]
    fn reads_files_with_comments_and_line_numbers() {
        let text = "# openings\n\nstartpos\n  e5 e4\n# done\n";
        let openings = parse_openings(text, "book.txt").unwrap();
        assert_eq!(openings.len(), 2);
        let err = parse_openings("e5\ne5 e5\n", "book.txt").unwrap_err();
        assert!(
            matches!(err, OpeningsFileError::Line { line: 2, .. }),
            "{err}"
        );
        let err = err.to_string();
        assert!(err.starts_with("book.txt:2: bad moves 'e5 e5'"), "{err}");
        let err = parse_openings("# nothing\n\n", "empty.txt").unwrap_err();
        assert_eq!(err.to_string(), "empty.txt: no openings in the file");
    }

    #[test]
    fn random_openings_are_reproducible_and_open() {
        let make = |seed, pair| random_opening(8, seed, pair).unwrap();
        let a: Vec<Opening> = (0..20).map(|p| make(7, p)).collect();
        assert_eq!(a, (0..20).map(|p| make(7, p)).collect::<Vec<_>>());
        assert_ne!(a, (0..20).map(|p| make(8, p)).collect::<Vec<_>>());
        assert_ne!(a[0], a[1]);
        for opening in &a {
            let Opening::Moves(m) = opening else {
                panic!("random openings are move lists")
            };
            assert_eq!(m.len(), 8);
            let pos = opening.position();
            assert!(!pos.is_over() && pos.winning_move().is_none());
        }
        assert_eq!(random_opening(0, 1, 5), Ok(Opening::Moves(vec![])));
        let err = random_opening(81, 1, 0).unwrap_err();
        assert_eq!(err, OpeningError::NoRandom { plies: 81 });
        assert!(
            err.to_string().starts_with("--random-plies 81: found no"),
            "{err}"
        );
    }

    #[test]
    fn books_hand_out_openings_by_pair() {
        let list = OpeningBook::List(vec![
            Opening::parse("e5").unwrap(),
            Opening::parse("a1").unwrap(),
        ]);
        let shown: Vec<String> = (0..5)
            .map(|p| list.opening(p).unwrap().to_string())
            .collect();
        assert_eq!(shown, ["e5", "a1", "e5", "a1", "e5"]);
        let empty = OpeningBook::List(vec![]);
        assert_eq!(empty.opening(3), Ok(Opening::Moves(vec![])));
        let random = OpeningBook::Random { plies: 6, seed: 3 };
        assert_eq!(random.opening(4), random_opening(6, 3, 4));
    }

    #[test]
    fn super15_openings() {
        use crate::super15;
        let make = |pair| super::random_opening::<super15::Position>(2, 1, pair).unwrap();
        let opening = make(0);
        assert_eq!(opening, make(0));
        let super::Opening::Moves(moves) = &opening else {
            panic!("random openings are move lists")
        };
        assert_eq!(moves.len(), 2);
        let text = opening.to_string();
        assert_eq!(
            super::Opening::<super15::Position>::parse(&text),
            Ok(opening.clone())
        );
        assert!(
            opening
                .position_command(&[])
                .starts_with("position startpos moves ")
        );
        let err = super::Opening::<super15::Position>::parse("e5").unwrap_err();
        assert!(matches!(err, OpeningError::Moves { .. }), "{err}");
    }
}
