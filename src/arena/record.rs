//! The match record: every game as one line of plain text, written while the
//! match runs and read back by `ultimo match --replay`.
//!
//! ```text
//! # ultimo match record 1
//! engines base new
//! game 1; pair 1; x base; o new; opening e5 e4; moves d1 c3 f8; result 1-0; end normal; reason x has three boards in a line
//! ```
//!
//! Lines starting with `#` and blank lines are comments. A `variant super15`
//! line before the games says the games are Super 1 al 5 (without one they
//! are Ultimate Tic-Tac-Toe; moves and FENs are the game's). One `engines` line
//! names the engines, two or more (with two, the statistics are the first
//! engine's), and comes before the games. Each `game` line has these fields,
//! separated by `;`, each a key and its value:
//!
//! - `game N`: the game's number, from 1; `pair P`: its pair (the two games
//!   of a pair start from the same opening with colours swapped).
//! - `x NAME`, `o NAME`: the engines playing `x` (first) and `o`.
//! - `opening O`: `startpos`, moves from the empty board, or a FEN.
//! - `moves M...`: the moves played from the opening (may be empty).
//! - `result R`: `1-0` (x won), `0-1` (o won) or `1/2-1/2`.
//! - `end E`: `normal` (the rules ended the game), or the fault the loser
//!   committed: `illegal` (an illegal or unreadable move), `timeout` (too
//!   slow, or silent), `crash` (exited, or could not be started).
//! - `reason TEXT`: the same in words.

use fxhash::FxHashMap;
use std::fmt;
use std::str::FromStr;

use crate::arena::openings::{ArenaGame, Opening, OpeningError, TextProblem};
use crate::game::{GameKind, Outcome, Player, Verdict};
use crate::quote::shorten;
use crate::rules::Position;

/// The first line of every record file.
pub const HEADER: &str = "# ultimo match record 1";

/// A game's result as the record writes it: `1-0` (x won), `0-1` (o won)
/// or `1/2-1/2`.
pub fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Player::X) => "1-0",
        Outcome::Win(Player::O) => "0-1",
        Outcome::Draw => "1/2-1/2",
    }
}

/// Reads a result written by [`result_text`].
pub fn parse_result(s: &str) -> Result<Outcome, GameLineError> {
    match s {
        "1-0" => Ok(Outcome::Win(Player::X)),
        "0-1" => Ok(Outcome::Win(Player::O)),
        "1/2-1/2" => Ok(Outcome::Draw),
        _ => Err(GameLineError::Result(shorten(s))),
    }
}

/// What is wrong with a `game` line of a record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameLineError {
    /// Not nine fields.
    #[error(
        "expected {} fields separated by ';' ({}), found {found}",
        FIELDS.len(),
        FIELDS.join(", ")
    )]
    FieldCount {
        /// The number of fields found.
        found: usize,
    },
    /// A field with another key than expected there.
    #[error("field {index} should be '{expected}', found '{found}'")]
    FieldName {
        /// The field's place, from 1.
        index: usize,
        /// The key expected there.
        expected: &'static str,
        /// The key found, shortened.
        found: String,
    },
    /// A game or pair number that is not a positive number.
    #[error("{key} '{text}' is not a positive number")]
    NotPositive {
        /// `game` or `pair`.
        key: &'static str,
        /// The value, shortened.
        text: String,
    },
    /// An engine name that is empty or more than one word.
    #[error("{key} '{text}' is not an engine name (one word)")]
    NotName {
        /// `x` or `o`.
        key: &'static str,
        /// The value, shortened.
        text: String,
    },
    /// A move that is not a cell.
    #[error("moves: {0}")]
    Move(TextProblem),
    /// An opening that is refused.
    #[error("opening: {0}")]
    Opening(OpeningError),
    /// A result other than `1-0`, `0-1` and `1/2-1/2`.
    #[error("result '{0}' is not 1-0, 0-1 or 1/2-1/2")]
    Result(String),
    /// An end other than those of [`Termination`].
    #[error("end '{0}' is not normal, illegal, timeout or crash")]
    End(String),
}

/// Why a game read from a record does not stand up to the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    /// A move that is illegal where it comes.
    #[error("move {index} ({mv}) is illegal: {problem}")]
    Illegal {
        /// The move's place from the opening, from 1.
        index: usize,
        /// The move, as written.
        mv: String,
        /// Why it is illegal.
        problem: TextProblem,
    },
    /// A `normal` end before the game is over.
    #[error("the game ended normally but is not over")]
    NotOver,
    /// A `normal` end with another result than the rules'.
    #[error("the result is {} but the rules give {}", result_text(*given), result_text(*rules))]
    WrongResult {
        /// The recorded result.
        given: Outcome,
        /// The rules' result.
        rules: Outcome,
    },
    /// A fault after the game was over.
    #[error("the game is over, yet it ended by {0}")]
    FaultAfterEnd(Termination),
    /// A fault with a drawn result.
    #[error("a game ended by {0} cannot be a draw")]
    FaultDraw(Termination),
}

/// What is wrong with a line of a record file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordLineError {
    /// A second `engines` line.
    #[error("a second 'engines' line")]
    SecondEngines,
    /// An `engines` line without two or more different names.
    #[error("'engines' needs two or more different names, found '{0}'")]
    Engines(String),
    /// A game before the `engines` line.
    #[error("a game before the 'engines' line")]
    GameFirst,
    /// A `variant` line that is not one game's name, comes late or twice,
    /// or is missing for a game other than Ultimate Tic-Tac-Toe.
    #[error(
        "'variant' must name the record's game once, before the games (uttt or super15), found '{0}'"
    )]
    Variant(String),
    /// A line that is neither `engines` nor `game`.
    #[error("expected an 'engines' or a 'game' line, found '{0}'")]
    Kind(String),
    /// A game line that does not parse.
    #[error(transparent)]
    Game(#[from] GameLineError),
    /// A game that does not stand up to the rules.
    #[error("game {game}: {problem}")]
    Invalid {
        /// The game's number.
        game: u64,
        /// What is wrong with it.
        problem: ValidateError,
    },
    /// A game number read before.
    #[error("game {game} again (first on line {first_line})")]
    Repeated {
        /// The game's number.
        game: u64,
        /// The line where it came first.
        first_line: usize,
    },
    /// A game played by other engines than the `engines` line names.
    #[error("game {game}: x {x} and o {o} are not two of the engines {}", .engines.join(", "))]
    Strangers {
        /// The game's number.
        game: u64,
        /// The engine playing x.
        x: String,
        /// The engine playing o.
        o: String,
        /// The engines of the record.
        engines: Vec<String>,
    },
    /// A third game of a pair.
    #[error("game {game}: pair {pair} already has two games")]
    PairFull {
        /// The game's number.
        game: u64,
        /// The pair's number.
        pair: u64,
    },
    /// Both games of a pair with the same engine playing x.
    #[error("game {game}: {engine} plays x in both games of pair {pair}")]
    SameColours {
        /// The game's number.
        game: u64,
        /// The engine playing x twice.
        engine: String,
        /// The pair's number.
        pair: u64,
    },
    /// The games of a pair from different openings.
    #[error(
        "game {game}: pair {pair} started from '{first}' in game {first_game} but from '{here}' here"
    )]
    OpeningMismatch {
        /// The game's number.
        game: u64,
        /// The pair's number.
        pair: u64,
        /// The opening of the pair's other game, as the record writes it.
        first: String,
        /// The number of the pair's other game.
        first_game: u64,
        /// This game's opening, as the record writes it.
        here: String,
    },
}

/// Why a record file cannot be read back.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// A line that is wrong.
    #[error("{file}:{line}: {problem}")]
    Line {
        /// The file's name.
        file: String,
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it (boxed: the variants are large).
        problem: Box<RecordLineError>,
    },
    /// No `engines` line in the whole file.
    #[error("{file}: no 'engines' line")]
    NoEngines {
        /// The file's name.
        file: String,
    },
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// The rules ended it: a line of three boards, or every board closed.
    Normal,
    /// The loser sent an illegal or unreadable move.
    Illegal,
    /// The loser was too slow, or did not answer.
    Timeout,
    /// The loser's process exited, broke its pipe, or could not start.
    Crash,
}

impl Termination {
    /// Every termination, in the order the summary lists them.
    pub const ALL: [Termination; 4] = [
        Termination::Normal,
        Termination::Illegal,
        Termination::Timeout,
        Termination::Crash,
    ];

    /// The word in the record.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Illegal => "illegal",
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Termination {
    type Err = GameLineError;

    fn from_str(s: &str) -> Result<Termination, GameLineError> {
        Termination::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| GameLineError::End(shorten(s)))
    }
}

/// One game of a match, as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<G: ArenaGame = Position> {
    /// The game's number, from 1.
    pub game: u64,
    /// The pair's number, from 1.
    pub pair: u64,
    /// The engine that played `x`.
    pub x: String,
    /// The engine that played `o`.
    pub o: String,
    /// Where the game started.
    pub opening: Opening<G>,
    /// The moves played from the opening.
    pub moves: Vec<G::Move>,
    /// The result.
    pub outcome: Outcome,
    /// How it ended.
    pub termination: Termination,
    /// How it ended, in words (no `;` and no line breaks).
    pub reason: String,
}

impl<G: ArenaGame> GameRecord<G> {
    /// The name of the engine that played `player`.
    pub fn engine(&self, player: Player) -> &str {
        match player {
            Player::X => &self.x,
            Player::O => &self.o,
        }
    }

    /// The loser, if the game was decisive.
    pub fn loser(&self) -> Option<Player> {
        match self.outcome {
            Outcome::Win(Player::X) => Some(Player::O),
            Outcome::Win(Player::O) => Some(Player::X),
            Outcome::Draw => None,
        }
    }

    /// The result for the engine called `name`, or `None` if it did not play.
    pub fn result_for(&self, name: &str) -> Option<Verdict> {
        [Player::X, Player::O]
            .into_iter()
            .find(|&p| self.engine(p) == name)
            .map(|p| self.outcome.verdict_for(p))
    }

    /// Checks the game with the rules: the moves must be legal from the
    /// opening; a `normal` end must be where the rules end the game, with
    /// the rules' result; a fault must come before the end and lose the game.
    pub fn validate(&self) -> Result<(), ValidateError> {
        let mut pos: G = self.opening.position();
        for (i, &mv) in self.moves.iter().enumerate() {
            pos.check(mv).map_err(|problem| ValidateError::Illegal {
                index: i + 1,
                mv: mv.to_string(),
                problem: problem.into(),
            })?;
            pos.play(mv);
        }
        match self.termination {
            Termination::Normal => match pos.outcome() {
                None => Err(ValidateError::NotOver),
                Some(rules) if rules != self.outcome => Err(ValidateError::WrongResult {
                    given: self.outcome,
                    rules,
                }),
                Some(_) => Ok(()),
            },
            fault => {
                if pos.is_over() {
                    Err(ValidateError::FaultAfterEnd(fault))
                } else if self.outcome == Outcome::Draw {
                    Err(ValidateError::FaultDraw(fault))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// Makes engine text safe for a record field: no `;`, no control characters,
/// at most `max` characters.
pub fn sanitize(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .map(|c| if c == ';' || c.is_control() { '?' } else { c })
        .collect()
}

impl<G: ArenaGame> fmt::Display for GameRecord<G> {
    /// The game's line in the record (without the line break).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        write!(
            f,
            "game {}; pair {}; x {}; o {}; opening {}; moves {}; result {}; end {}; reason {}",
            self.game,
            self.pair,
            self.x,
            self.o,
            self.opening,
            moves.join(" "),
            result_text(self.outcome),
            self.termination,
            self.reason
        )
    }
}

/// The field names of a game line, in order.
const FIELDS: [&str; 9] = [
    "game", "pair", "x", "o", "opening", "moves", "result", "end", "reason",
];

impl<G: ArenaGame> FromStr for GameRecord<G> {
    type Err = GameLineError;

    /// Reads a game line; the error says which field is wrong.
    fn from_str(line: &str) -> Result<GameRecord<G>, GameLineError> {
        let parts: Vec<&str> = line.split(';').collect();
        if parts.len() != FIELDS.len() {
            return Err(GameLineError::FieldCount { found: parts.len() });
        }
        let mut values = [""; 9];
        for (i, (part, key)) in parts.iter().zip(FIELDS).enumerate() {
            let part = part.trim();
            let (found, value) = part.split_once(' ').unwrap_or((part, ""));
            if found != key {
                return Err(GameLineError::FieldName {
                    index: i + 1,
                    expected: key,
                    found: shorten(found),
                });
            }
            values[i] = value.trim();
        }
        let [game, pair, x, o, opening, moves, result, end, reason] = values;
        let number = |key: &'static str, text: &str| -> Result<u64, GameLineError> {
            match text.parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(GameLineError::NotPositive {
                    key,
                    text: shorten(text),
                }),
            }
        };
        let name = |key: &'static str, text: &str| -> Result<String, GameLineError> {
            if text.is_empty() || text.contains(char::is_whitespace) {
                Err(GameLineError::NotName {
                    key,
                    text: shorten(text),
                })
            } else {
                Ok(text.to_string())
            }
        };
        let moves = moves
            .split_whitespace()
            .map(|m| G::parse_move(m).map_err(|e| GameLineError::Move(e.into())))
            .collect::<Result<Vec<G::Move>, GameLineError>>()?;
        Ok(GameRecord {
            game: number("game", game)?,
            pair: number("pair", pair)?,
            x: name("x", x)?,
            o: name("o", o)?,
            opening: Opening::parse(opening).map_err(GameLineError::Opening)?,
            moves,
            outcome: parse_result(result)?,
            termination: end.parse()?,
            reason: reason.to_string(),
        })
    }
}

/// A record file read back: the engines and the games.
#[derive(Clone, Debug, PartialEq)]
pub struct Record<G: ArenaGame = Position> {
    /// The first and the second engine.
    pub engines: Vec<String>,
    /// The games in the order they were written.
    pub games: Vec<GameRecord<G>>,
}

/// The game a record's text is of: the game its `variant` line names
/// (read by [`Record::parse`]), Ultimate Tic-Tac-Toe without one.
pub fn record_game(text: &str) -> GameKind {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("variant "))
        .find_map(|name| GameKind::from_name(name.trim()))
        .unwrap_or_default()
}

impl<G: ArenaGame> Record<G> {
    /// Reads a record file's text and checks every game with the rules and
    /// against the others (known engines, colours swapped within a pair,
    /// one opening per pair, no number twice). An error names `file` and
    /// the line.
    pub fn parse(text: &str, file: &str) -> Result<Record<G>, RecordError> {
        let mut engines: Option<Vec<String>> = None;
        let mut variant: Option<GameKind> = None;
        let mut games: Vec<GameRecord<G>> = Vec::new();
        let mut seen_games: FxHashMap<u64, usize> = FxHashMap::default();
        let mut pairs: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        for (i, line) in text.lines().enumerate() {
            let at = |problem: RecordLineError| RecordError::Line {
                file: file.to_string(),
                line: i + 1,
                problem: Box::new(problem),
            };
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            match kind {
                "engines" => {
                    if engines.is_some() {
                        return Err(at(RecordLineError::SecondEngines));
                    }
                    let names: Vec<String> = rest.split_whitespace().map(String::from).collect();
                    let distinct = names
                        .iter()
                        .enumerate()
                        .all(|(i, n)| !names[..i].contains(n));
                    if names.len() < 2 || !distinct {
                        return Err(at(RecordLineError::Engines(shorten(rest))));
                    }
                    engines = Some(names);
                }
                "variant" => {
                    let kind = GameKind::from_name(rest.trim())
                        .ok_or_else(|| at(RecordLineError::Variant(shorten(rest))))?;
                    if variant.is_some() || !games.is_empty() || kind != G::KIND {
                        return Err(at(RecordLineError::Variant(shorten(rest))));
                    }
                    variant = Some(kind);
                }
                "game" => {
                    let Some(names) = &engines else {
                        return Err(at(RecordLineError::GameFirst));
                    };
                    if variant.is_none() && G::KIND != GameKind::Uttt {
                        return Err(at(RecordLineError::Variant(String::new())));
                    }
                    let game: GameRecord<G> =
                        line.parse().map_err(|e| at(RecordLineError::Game(e)))?;
                    game.validate().map_err(|problem| {
                        at(RecordLineError::Invalid {
                            game: game.game,
                            problem,
                        })
                    })?;
                    let pair = pairs.entry(game.pair).or_default();
                    let partners: Vec<&GameRecord<G>> = pair.iter().map(|&k| &games[k]).collect();
                    check_against(&game, names, &partners, &seen_games).map_err(at)?;
                    seen_games.insert(game.game, i + 1);
                    pair.push(games.len());
                    games.push(game);
                }
                _ => return Err(at(RecordLineError::Kind(shorten(kind)))),
            }
        }
        let engines = engines.ok_or_else(|| RecordError::NoEngines {
            file: file.to_string(),
        })?;
        Ok(Record { engines, games })
    }
}

/// Checks a new game against the engines, the games of its pair read before
/// it, and the game numbers seen so far (with their lines).
fn check_against<G: ArenaGame>(
    game: &GameRecord<G>,
    engines: &[String],
    partners: &[&GameRecord<G>],
    seen_games: &FxHashMap<u64, usize>,
) -> Result<(), RecordLineError> {
    let n = game.game;
    if let Some(&first_line) = seen_games.get(&n) {
        return Err(RecordLineError::Repeated {
            game: n,
            first_line,
        });
    }
    let players = [game.x.as_str(), game.o.as_str()];
    let known = |name: &str| engines.iter().any(|e| e == name);
    if !known(players[0]) || !known(players[1]) || players[0] == players[1] {
        return Err(RecordLineError::Strangers {
            game: n,
            x: shorten(&game.x),
            o: shorten(&game.o),
            engines: engines.to_vec(),
        });
    }
    let pair = game.pair;
    if partners.len() >= 2 {
        return Err(RecordLineError::PairFull { game: n, pair });
    }
    if let Some(other) = partners.first() {
        if other.x == game.x {
            return Err(RecordLineError::SameColours {
                game: n,
                engine: game.x.clone(),
                pair,
            });
        }
        if other.opening != game.opening {
            return Err(RecordLineError::OpeningMismatch {
                game: n,
                pair,
                first: other.opening.to_string(),
                first_game: other.game,
                here: game.opening.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    type Record = super::Record<Position>;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    /// A game played to its end by random moves.
    fn finished_game() -> GameRecord {
        let mut pos = Position::startpos();
        let mut played = Vec::new();
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
        while let Some(m) = pos.random_move(&mut rng) {
            pos.play(m);
            played.push(m);
        }
        GameRecord {
            game: 1,
            pair: 1,
            x: "base".into(),
            o: "new".into(),
            opening: Opening::Moves(vec![]),
            moves: played,
            outcome: pos.outcome().unwrap(),
            termination: Termination::Normal,
            reason: "the rules".into(),
        }
    }

    fn fault_game() -> GameRecord {
        GameRecord {
            game: 2,
            pair: 1,
            x: "new".into(),
            o: "base".into(),
            opening: Opening::Moves(vec![]),
            moves: moves("e5"),
            outcome: Outcome::Win(Player::X),
            termination: Termination::Illegal,
            reason: "o (base) played e5, which is illegal: the cell is already taken".into(),
        }
    }

    #[test]
    fn outcomes() {
        assert_eq!(Outcome::Win(Player::X).verdict_for(Player::X), Verdict::Win);
        assert_eq!(
            Outcome::Win(Player::X).verdict_for(Player::O),
            Verdict::Loss
        );
        assert_eq!(Outcome::Win(Player::O).verdict_for(Player::O), Verdict::Win);
        assert_eq!(Outcome::Draw.verdict_for(Player::X), Verdict::Draw);
        for o in [
            Outcome::Win(Player::X),
            Outcome::Win(Player::O),
            Outcome::Draw,
        ] {
            assert_eq!(parse_result(result_text(o)), Ok(o));
        }
        assert!(parse_result("1-1").is_err());
        for t in Termination::ALL {
            assert_eq!(t.to_string().parse(), Ok(t));
        }
        assert!("resign".parse::<Termination>().is_err());
    }

    #[test]
    fn game_lines_round_trip() {
        for game in [finished_game(), fault_game()] {
            let line = game.to_string();
            assert!(line.starts_with("game "), "{line}");
            assert_eq!(line.parse::<GameRecord>(), Ok(game.clone()), "{line}");
            game.validate().unwrap();
        }
        let line = fault_game().to_string();
        assert_eq!(
            line,
            "game 2; pair 1; x new; o base; opening startpos; moves e5; result 1-0; \
             end illegal; reason o (base) played e5, which is illegal: the cell is already taken"
        );
        // A game with no moves at all, from a FEN.
        let mut game = fault_game();
        game.moves.clear();
        game.opening = Opening::parse("9/9/9/9/4x4/9/9/9/9 o 1 e5").unwrap();
        assert_eq!(game.to_string().parse::<GameRecord>(), Ok(game));
    }

    #[test]
    fn results_for_each_engine() {
        let game = fault_game();
        assert_eq!(game.result_for("new"), Some(Verdict::Win));
        assert_eq!(game.result_for("base"), Some(Verdict::Loss));
        assert_eq!(game.result_for("other"), None);
        assert_eq!(game.loser(), Some(Player::O));
        assert_eq!(game.engine(Player::O), "base");
    }

    #[test]
    fn bad_game_lines() {
        let good = fault_game().to_string();
        let cases = [
            ("", "expected 9 fields"),
            ("game 1; pair 1", "expected 9 fields"),
            (
                &good.replace("pair 1", "pear 1"),
                "field 2 should be 'pair'",
            ),
            (
                &good.replace("game 2", "game 0"),
                "game '0' is not a positive",
            ),
            (
                &good.replace("game 2", "game x"),
                "game 'x' is not a positive",
            ),
            (&good.replace("x new", "x "), "x '' is not an engine name"),
            (
                &good.replace("moves e5", "moves e0"),
                "moves: 'e0' is not a cell",
            ),
            (
                &good.replace("opening startpos", "opening e5 e5"),
                "opening: bad moves",
            ),
            (&good.replace("result 1-0", "result 2-0"), "result '2-0'"),
            (&good.replace("end illegal", "end resign"), "end 'resign'"),
        ];
        for (line, expected) in cases {
            let err = line.parse::<GameRecord>().unwrap_err().to_string();
            assert!(err.contains(expected), "{line}\n{err}");
        }
    }

    #[test]
    fn validation_uses_the_rules() {
        let mut game = finished_game();
        game.outcome = match game.outcome {
            Outcome::Draw => Outcome::Win(Player::X),
            _ => Outcome::Draw,
        };
        let error = |game: &GameRecord| game.validate().unwrap_err().to_string();
        assert!(error(&game).contains("the rules give"));
        let mut game = finished_game();
        game.moves.pop();
        assert_eq!(game.validate(), Err(ValidateError::NotOver));
        assert!(error(&game).contains("not over"));
        let mut game = finished_game();
        game.termination = Termination::Timeout;
        assert!(error(&game).contains("the game is over"));
        let mut game = fault_game();
        game.outcome = Outcome::Draw;
        assert!(error(&game).contains("cannot be a draw"));
        let mut game = fault_game();
        game.moves = moves("e5 e5");
        assert_eq!(
            error(&game),
            "move 2 (e5) is illegal: the cell is already taken"
        );
    }

    fn file(lines: &[String]) -> String {
        let mut text = format!("{HEADER}\nengines base new\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text
    }

    #[test]
    fn record_files_round_trip() {
        let games = vec![finished_game(), fault_game()];
        let lines: Vec<String> = games.iter().map(|g| g.to_string()).collect();
        let record = Record::parse(&file(&lines), "r.txt").unwrap();
        assert_eq!(record.engines, ["base".to_string(), "new".to_string()]);
        assert_eq!(record.games, games);
    }

    #[test]
    fn record_file_errors_name_the_line() {
        let a = finished_game().to_string();
        let b = fault_game().to_string();
        let check = |text: &str, expected: &str| {
            let err = Record::parse(text, "r.txt").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}\n{err}");
        };
        check("", "r.txt: no 'engines' line");
        check(
            &format!("{a}\n"),
            "r.txt:1: a game before the 'engines' line",
        );
        check(
            "engines a\n",
            "r.txt:1: 'engines' needs two or more different names",
        );
        check("engines a a\n", "two or more different names");
        check("engines a b a\n", "two or more different names");
        check(
            "engines a b\nengines a b\n",
            "r.txt:2: a second 'engines' line",
        );
        check(
            "engines a b\nplayer x\n",
            "r.txt:2: expected an 'engines' or a 'game'",
        );
        check(
            &file(&[a.clone(), a.clone()]),
            "r.txt:4: game 1 again (first on line 3)",
        );
        let twice_x = b.replace(
            "game 2; pair 1; x new; o base",
            "game 2; pair 1; x base; o new",
        );
        check(
            &file(&[a.clone(), twice_x]),
            "base plays x in both games of pair 1",
        );
        let stranger = b.replace("x new", "x other");
        check(
            &file(&[stranger]),
            "r.txt:3: game 2: x other and o base are not",
        );
        let third = b.replace("game 2", "game 3");
        check(
            &file(&[a.clone(), b.clone(), third]),
            "pair 1 already has two games",
        );
        let other_opening = b
            .replace("opening startpos; moves e5", "opening e5; moves e4")
            .replace("o (base) played e5", "o (base) played e4");
        check(
            &file(&[a.clone(), other_opening]),
            "pair 1 started from 'startpos'",
        );
        let illegal = b.replace("moves e5", "moves e5 e5");
        check(&file(&[illegal]), "r.txt:3: game 2: move 2 (e5) is illegal");
        let long = format!("engines a b\n{}\n", "z".repeat(1000));
        check(&long, &format!("found '{}...'", "z".repeat(40)));
        let err = Record::parse("engines a b\nengines a b\n", "r.txt").unwrap_err();
        let RecordError::Line { line, problem, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!((line, *problem), (2, RecordLineError::SecondEngines));
    }

    #[test]
    fn sanitizes_engine_text() {
        assert_eq!(sanitize("e5;\n\tx", 10), "e5???x");
        assert_eq!(sanitize("abcdef", 3), "abc");
    }

    #[test]
    fn variant_lines_name_the_game() {
        use crate::super15;
        let text = "variant super15\nengines a b\n\
            game 1; pair 1; x a; o b; opening startpos; moves c2c3; result 1-0; end crash; reason o (b) crashed\n";
        assert_eq!(record_game(text), GameKind::Super15);
        assert_eq!(record_game("engines a b\n"), GameKind::Uttt);
        let record = super::Record::<super15::Position>::parse(text, "r.txt").unwrap();
        assert_eq!(record.games[0].moves.len(), 1);
        assert_eq!(record.games[0].to_string(), text.lines().nth(2).unwrap());
        let err = Record::parse(text, "r.txt").unwrap_err().to_string();
        assert!(err.starts_with("r.txt:1: 'variant' must name"), "{err}");
        let no_variant = text.replace("variant super15\n", "");
        let err = super::Record::<super15::Position>::parse(&no_variant, "r.txt").unwrap_err();
        assert!(err.to_string().starts_with("r.txt:2: 'variant'"), "{err}");
        let twice = format!("variant super15\n{text}");
        let err = super::Record::<super15::Position>::parse(&twice, "r.txt").unwrap_err();
        assert!(err.to_string().starts_with("r.txt:2: 'variant'"), "{err}");
    }
}
