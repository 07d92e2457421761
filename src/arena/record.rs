//! The match record: every game in PGN (see [`crate::pgn`]), appended to
//! the `--pgnout` file as it finishes and read back by
//! `ultimo match --replay`.
//!
//! ```text
//! [Event "ultimo match 2025.01.31 14:05:09.250"]
//! [Site "?"]
//! [Date "2025.01.31"]
//! [Round "1"]
//! [White "base"]
//! [Black "new"]
//! [Result "1-0"]
//! [Variant "Ultimate Tic-Tac-Toe"]
//! [TimeControl "nodes=200"]
//! [Termination "normal"]
//! [PlyCount "31"]
//! [Pair "1"]
//! [Games "100"]
//! [Engines "base new"]
//! [Seed "42"]
//! [Shard "1/8"]
//!
//! 1. e5 {book} 1... e4 {book} 2. d1 {+0.12/5 0.010s} c3 {-0.20/5 0.011s} ...
//! 16. a7 {+M1/3 0.009s, x has three boards in a line} 1-0
//! ```
//!
//! - `Round` is the game's number (from 1) and `Pair` its pair: the two
//!   games of a pair start from the same opening with colours swapped.
//!   `White` played `x` (first), `Black` `o`.
//! - The opening is in the movetext from the start position, its moves
//!   marked `{book}`, or is the `FEN` (with `SetUp "1"`) of a set-up
//!   position. Each engine move has the engine's last score and depth and
//!   the time the runner measured.
//! - `Termination` is `normal` (the rules ended the game) or the fault the
//!   loser committed: `illegal move` (an illegal or unreadable move), `time
//!   forfeit` (too slow, or silent), `abandoned` (exited, or could not be
//!   started). The reason in words closes the comment of the last move.
//! - `TimeControl` is the players' limit (see [`time_control_tag`](crate::client::clock::time_control_tag)); when
//!   their limits differ (an engine's own `tc=`, `nodes=` or `movetime=`),
//!   `WhiteTimeControl` and `BlackTimeControl` instead, as cutechess
//!   writes them. The reader needs none of them.
//! - `Event` names the match and when it started (`ultimo match 2025.01.31
//!   14:05:09.250`), which tells apart the matches appended to one file
//!   ([`Record::from_games`]); the shards of one match (`--shard`, each
//!   with its own start) are read together by [`Record::merge`].
//! - `Games` (the whole match's games, every shard's), `Engines` (in
//!   `--engine` order), `Seed` (of random openings, if they are) and
//!   `Shard` (`K/N`, for a shard) tell a match from another: the shards
//!   [`Record::merge`] reads must agree on them (all but `K`), and
//!   [`Record::missing`] names the games no shard has.
//! - The engines are in the order they first play, by `Round`: White then
//!   Black of the lowest `Round`, then any new one of the next, and so on
//!   (games finish out of order). That is the `--engine` order of the match:
//!   the first game of every pairing is numbered below the next pairing's,
//!   its first engine playing White, and a gauntlet's or a round robin's
//!   pairings bring the engines in in order. The first engine is the one
//!   whose statistics the summary of two engines gives.

use fxhash::FxHashMap;
use std::fmt;

use crate::arena::openings::{ArenaGame, Opening, TextProblem};
use crate::client::engine::MAX_NAME_CHARS;
use crate::game::{Outcome, Player, Verdict};
use crate::pgn::{self, Annotation, MoveNote, PgnError, PgnGame, PgnNotation, PgnResult, Replayed};
use crate::quote::shorten;
use crate::rules::Position;

/// A game's result as the record writes it: `1-0` (x won), `0-1` (o won)
/// or `1/2-1/2`.
pub fn result_text(outcome: Outcome) -> &'static str {
    PgnResult::from_outcome(Some(outcome)).as_str()
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

/// What is wrong with a game of a record file, beyond PGN and the rules.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordLineError {
    /// A tag the match record needs is missing.
    #[error("no {0} tag (ultimo match writes it; --replay needs it)")]
    MissingTag(&'static str),
    /// A `Round` or `Pair` that is not a positive number.
    #[error("{tag} '{text}' is not a positive number")]
    NotPositive {
        /// `Round` or `Pair`.
        tag: &'static str,
        /// The value, shortened.
        text: String,
    },
    /// A `White` or `Black` that is not an engine name.
    #[error(
        "{tag} '{text}' is not an engine name (one word of at most {MAX_NAME_CHARS} characters, no control characters)"
    )]
    NotName {
        /// `White` or `Black`.
        tag: &'static str,
        /// The value, shortened.
        text: String,
    },
    /// A `Termination` other than those of [`Termination`].
    #[error("Termination '{0}' is not normal, illegal move, time forfeit or abandoned")]
    Termination(String),
    /// A game without a result (`*`).
    #[error("game {0} has no result (*)")]
    Unfinished(u64),
    /// A game that does not stand up to the rules.
    #[error("game {game}: {problem}")]
    Invalid {
        /// The game's number.
        game: u64,
        /// What is wrong with it.
        problem: ValidateError,
    },
    /// A `Games`, `Seed` or `Shard` tag that does not read.
    #[error("{tag} '{text}' is not {expected}")]
    BadMatchTag {
        /// The tag.
        tag: &'static str,
        /// The value, shortened.
        text: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A game of another match than the first game read (`--merge`).
    #[error(
        "game {game} is of another match: {tag} {here}, but {there} in {first_file} (game {first_game})"
    )]
    OtherMatch {
        /// The game's number.
        game: u64,
        /// The tag that differs.
        tag: &'static str,
        /// Its value here (quoted, or `none`).
        here: String,
        /// Its value in the first game read.
        there: String,
        /// The file of the first game read.
        first_file: String,
        /// The first game's number.
        first_game: u64,
    },
    /// A game numbered past the match's `Games`.
    #[error("game {game} is past the match's {games} games (its Games tag)")]
    PastTheEnd {
        /// The game's number.
        game: u64,
        /// The match's games.
        games: u64,
    },
    /// A game number read before.
    #[error("game {game} again (first on line {first_line})")]
    Repeated {
        /// The game's number.
        game: u64,
        /// The line where it came first.
        first_line: usize,
    },
    /// A game number read before in another file (of `--merge`).
    #[error("game {game} again (first in {first_file}, line {first_line})")]
    RepeatedIn {
        /// The game's number.
        game: u64,
        /// The file where it came first.
        first_file: String,
        /// The line where it came first.
        first_line: usize,
    },
    /// One engine playing both sides.
    #[error("game {game}: {engine} plays both x and o")]
    SelfPlay {
        /// The game's number.
        game: u64,
        /// The engine.
        engine: String,
    },
    /// A game of a pair played by other engines than the pair's other game.
    #[error("game {game}: x {x} and o {o} are not the engines of pair {pair}, {} and {} (game {first_game})", .engines[0], .engines[1])]
    Strangers {
        /// The game's number.
        game: u64,
        /// The engine playing x.
        x: String,
        /// The engine playing o.
        o: String,
        /// The pair's number.
        pair: u64,
        /// The engines of the pair's other game, x first.
        engines: [String; 2],
        /// The number of the pair's other game.
        first_game: u64,
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
        /// The opening of the pair's other game.
        first: String,
        /// The number of the pair's other game.
        first_game: u64,
        /// This game's opening.
        here: String,
    },
}

/// Why a record file cannot be read back.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The file is not PGN, or a game's moves or result break the rules.
    #[error(transparent)]
    Pgn(#[from] PgnError),
    /// A game that is wrong as a game of a match.
    #[error("{file}:{line}: {problem}")]
    Line {
        /// The file's name.
        file: String,
        /// The line the game starts on, from 1.
        line: usize,
        /// What is wrong with it (boxed: the variants are large).
        problem: Box<RecordLineError>,
    },
    /// No game in the whole file.
    #[error("{file}: no games")]
    NoGames {
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

    /// The word in the summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Illegal => "illegal",
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
        }
    }

    /// The PGN `Termination` tag, as cutechess writes it.
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Illegal => "illegal move",
            Termination::Timeout => "time forfeit",
            Termination::Crash => "abandoned",
        }
    }

    /// The termination of a PGN `Termination` tag (the summary's words are
    /// understood too).
    pub fn from_pgn_tag(tag: &str) -> Option<Termination> {
        Termination::ALL
            .into_iter()
            .find(|t| t.pgn_tag() == tag || t.as_str() == tag)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    /// What the engine said about each move of `moves` and the time it
    /// took (may be shorter than `moves`: the rest have no note).
    pub notes: Vec<MoveNote>,
    /// The result.
    pub outcome: Outcome,
    /// How it ended.
    pub termination: Termination,
    /// How it ended, in words (no line breaks).
    pub reason: String,
}

/// The tags every game of a match shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchTags {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date`, `YYYY.MM.DD` or `????.??.??`.
    pub date: String,
    /// The time controls of White and Black (see [`time_control_tag`](crate::client::clock::time_control_tag)):
    /// one `TimeControl` when they are equal, else `WhiteTimeControl` and
    /// `BlackTimeControl`.
    pub time_controls: [String; 2],
    /// `Games`, `Engines`, `Seed` and `Shard`: which match this is.
    pub id: MatchId,
}

/// What tells the shards of one match from those of another
/// (`--merge`): tags that every game of a match carries (records written
/// before them carry none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchId {
    /// `Games`: the games of the whole match, every shard's.
    pub games: Option<u64>,
    /// `Engines`: the match's engines in `--engine` order, separated by
    /// spaces.
    pub engines: Option<String>,
    /// `Seed`: the seed of the random openings, if they are random.
    pub seed: Option<u64>,
    /// `Shard`: `K/N`, the share of the match this game's run played.
    pub shard: Option<(u64, u64)>,
}

impl MatchId {
    /// The tags of a game as [`GameRecord::to_pgn`] writes them.
    fn tags(&self) -> Vec<(&'static str, String)> {
        let mut tags = Vec::new();
        if let Some(games) = self.games {
            tags.push(("Games", games.to_string()));
        }
        if let Some(engines) = &self.engines {
            tags.push(("Engines", engines.clone()));
        }
        if let Some(seed) = self.seed {
            tags.push(("Seed", seed.to_string()));
        }
        if let Some((k, n)) = self.shard {
            tags.push(("Shard", format!("{k}/{n}")));
        }
        tags
    }

    /// The tags of `pgn`.
    fn from_pgn(pgn: &PgnGame) -> Result<MatchId, RecordLineError> {
        let bad =
            |tag: &'static str, text: &str, expected: &'static str| RecordLineError::BadMatchTag {
                tag,
                text: shorten(text),
                expected,
            };
        let number = |tag: &'static str| -> Result<Option<u64>, RecordLineError> {
            pgn.tag(tag)
                .map(|text| text.parse().map_err(|_| bad(tag, text, "a number")))
                .transpose()
        };
        let games = number("Games")?;
        if games == Some(0) {
            return Err(bad("Games", "0", "a positive number"));
        }
        let shard = match pgn.tag("Shard") {
            None => None,
            Some(text) => {
                let parsed = text
                    .split_once('/')
                    .and_then(|(k, n)| Some((k.parse().ok()?, n.parse().ok()?)));
                match parsed {
                    Some((k, n)) if 1 <= k && k <= n => Some((k, n)),
                    _ => return Err(bad("Shard", text, "K/N with 1 <= K <= N")),
                }
            }
        };
        Ok(MatchId {
            games,
            engines: pgn.tag("Engines").map(str::to_string),
            seed: number("Seed")?,
            shard,
        })
    }

    /// The first tag in which `self` and `other` are of different
    /// matches (the shard's `K` may differ, its `N` not): its name and
    /// both values as an error shows them.
    fn differs(&self, other: &MatchId) -> Option<(&'static str, String, String)> {
        fn show<T: fmt::Display>(value: Option<T>) -> String {
            value.map_or("none".to_string(), |v| {
                format!("'{}'", shorten(&v.to_string()))
            })
        }
        if self.games != other.games {
            return Some(("Games", show(self.games), show(other.games)));
        }
        if self.engines != other.engines {
            let (a, b) = (self.engines.as_ref(), other.engines.as_ref());
            return Some(("Engines", show(a), show(b)));
        }
        if self.seed != other.seed {
            return Some(("Seed", show(self.seed), show(other.seed)));
        }
        let shards = |id: &MatchId| id.shard.map(|(_, n)| n);
        if shards(self) != shards(other) {
            let show_n = |id: &MatchId| show(id.shard.map(|(k, n)| format!("{k}/{n}")));
            return Some(("Shard", show_n(self), show_n(other)));
        }
        None
    }
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
            pos.try_play(mv).map_err(|problem| ValidateError::Illegal {
                index: i + 1,
                mv: mv.to_string(),
                problem: problem.into(),
            })?;
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

    /// The game in PGN, with the match's `tags`: the Seven Tag Roster
    /// (`Round` the game's number, `White` x's engine), `Variant`, the
    /// opening (its moves `{book}`, or `SetUp` and `FEN`), `TimeControl`
    /// (or `WhiteTimeControl` and `BlackTimeControl`),
    /// `Termination`, `PlyCount` and `Pair`; each move's note; the reason
    /// after the last move.
    pub fn to_pgn(&self, tags: &MatchTags) -> PgnGame {
        let mut pgn = PgnGame::with_roster();
        pgn.set_tag("Event", tags.event.as_str());
        pgn.set_tag("Site", tags.site.as_str());
        pgn.set_tag("Date", tags.date.as_str());
        pgn.set_tag("Round", self.game.to_string());
        pgn.set_tag("White", self.x.as_str());
        pgn.set_tag("Black", self.o.as_str());
        pgn.set_result(PgnResult::from_outcome(Some(self.outcome)));
        let (start, book) = match &self.opening {
            Opening::Fen(pos) => (*pos, &[][..]),
            Opening::Moves(moves) => (G::startpos(), &moves[..]),
        };
        let moves: Vec<G::Move> = book.iter().chain(&self.moves).copied().collect();
        let mut annotations: Vec<Annotation> = book.iter().map(|_| Annotation::book()).collect();
        annotations.extend(
            (0..self.moves.len())
                .map(|i| Annotation::note(self.notes.get(i).copied().unwrap_or_default())),
        );
        match annotations.last_mut() {
            Some(last) if !self.reason.is_empty() => {
                *last = last.clone().with_remark(&self.reason);
            }
            None if !self.reason.is_empty() => pgn.comment = Some(self.reason.clone()),
            _ => {}
        }
        pgn.set_moves(&start, &moves, &annotations);
        match &tags.time_controls {
            [white, black] if white == black => pgn.set_tag("TimeControl", white.as_str()),
            [white, black] => {
                pgn.set_tag("WhiteTimeControl", white.as_str());
                pgn.set_tag("BlackTimeControl", black.as_str());
            }
        }
        pgn.set_tag("Termination", self.termination.pgn_tag());
        pgn.set_tag("PlyCount", moves.len().to_string());
        pgn.set_tag("Pair", self.pair.to_string());
        for (tag, value) in tags.id.tags() {
            pgn.set_tag(tag, value);
        }
        pgn
    }
}

impl<G: ArenaGame + PgnNotation> GameRecord<G> {
    /// Reads a game of a match from PGN (from `file`, for the errors): the
    /// rules are checked (moves, result), then the match's tags; the
    /// leading `{book}` moves are the opening.
    pub fn from_pgn(pgn: &PgnGame, file: &str) -> Result<GameRecord<G>, RecordError> {
        let replayed = Replayed::<G>::new(pgn, file)?;
        let at = |problem| RecordError::Line {
            file: file.to_string(),
            line: pgn.line,
            problem: Box::new(problem),
        };
        let tag = |name: &'static str| {
            pgn.tag(name)
                .ok_or_else(|| at(RecordLineError::MissingTag(name)))
        };
        let number = |name: &'static str| -> Result<u64, RecordError> {
            let text = tag(name)?;
            match text.parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(at(RecordLineError::NotPositive {
                    tag: name,
                    text: shorten(text),
                })),
            }
        };
        let name = |name: &'static str| -> Result<String, RecordError> {
            let text = tag(name)?;
            if text.is_empty()
                || text.contains(|c: char| c.is_whitespace() || c.is_control())
                || text.chars().nth(MAX_NAME_CHARS).is_some()
            {
                return Err(at(RecordLineError::NotName {
                    tag: name,
                    text: shorten(text),
                }));
            }
            Ok(text.to_string())
        };
        let game = number("Round")?;
        let pair = number("Pair")?;
        let (x, o) = (name("White")?, name("Black")?);
        if x == o {
            return Err(at(RecordLineError::SelfPlay {
                game,
                engine: shorten(&x),
            }));
        }
        let termination = tag("Termination")?;
        let termination = Termination::from_pgn_tag(termination)
            .ok_or_else(|| at(RecordLineError::Termination(shorten(termination))))?;
        let outcome = replayed
            .result
            .outcome()
            .ok_or_else(|| at(RecordLineError::Unfinished(game)))?;
        let Replayed {
            start,
            set_up,
            moves,
            annotations,
            ..
        } = replayed;
        let book = match set_up {
            true => 0,
            false => annotations.iter().take_while(|a| a.book).count(),
        };
        let opening = match set_up {
            true => Opening::Fen(start),
            false => Opening::Moves(moves[..book].to_vec()),
        };
        let reason = match annotations.last() {
            Some(last) => last.remark.clone(),
            None => pgn.comment.clone(),
        };
        let record = GameRecord {
            game,
            pair,
            x,
            o,
            opening,
            moves: moves[book..].to_vec(),
            notes: annotations[book..].iter().map(|a| a.note).collect(),
            outcome,
            termination,
            reason: reason.unwrap_or_default(),
        };
        record
            .validate()
            .map_err(|problem| at(RecordLineError::Invalid { game, problem }))?;
        Ok(record)
    }
}

/// A record file (or the shards of a match) read back: the engines and
/// the games.
#[derive(Clone, Debug, PartialEq)]
pub struct Record<G: ArenaGame = Position> {
    /// The engines, two or more, in the order they first play by `Round`
    /// (White then Black of the lowest `Round`, and so on): the match's
    /// `--engine` order.
    pub engines: Vec<String>,
    /// The games in the order they were read.
    pub games: Vec<GameRecord<G>>,
    /// The match's `Games`, `Engines`, `Seed` and `Shard` tags, the same in
    /// every game, when read as the shards of one match
    /// ([`Record::merge`]); the `K` of `Shard` is the first game's.
    pub id: Option<MatchId>,
    /// The shards (their `K`) that games came from, in order
    /// ([`Record::merge`]).
    pub shards: Vec<u64>,
}

impl<G: ArenaGame> Record<G> {
    /// The game numbers of the match (its `Games` tag) that no game read
    /// has, as ranges `(first, last)`: empty when every game is there, or
    /// when the match's size is not known.
    pub fn missing(&self) -> Vec<(u64, u64)> {
        let Some(total) = self.id.as_ref().and_then(|id| id.games) else {
            return Vec::new();
        };
        let mut numbers: Vec<u64> = self.games.iter().map(|g| g.game).collect();
        numbers.sort_unstable();
        let mut missing = Vec::new();
        let mut next = 1;
        for n in numbers.into_iter().chain([total + 1]) {
            if n > next {
                missing.push((next, n - 1));
            }
            next = next.max(n + 1);
        }
        missing
    }
}

impl<G: ArenaGame + PgnNotation> Record<G> {
    /// Reads a record file's text (see [`Record::from_games`]).
    pub fn parse(text: &str, file: &str) -> Result<Record<G>, RecordError> {
        Record::from_games(&pgn::read(text, file)?, file)
    }

    /// The record of the games read from `file`, each checked with the
    /// rules and against the others (the same engines in both games of a
    /// pair, colours swapped, one opening per pair, no number twice in a
    /// match). Games with another `Event` are of another match (appended to
    /// the same file): their numbers and pairs are their own. An error names
    /// `file` and the line.
    pub fn from_games(pgn_games: &[PgnGame], file: &str) -> Result<Record<G>, RecordError> {
        Record::read_files(&[(file, pgn_games)], Scope::Event)
    }

    /// The record of the shards of one match (`--shard`, each file written
    /// by one): every game checked as by [`Record::from_games`], but as
    /// games of one match whatever their `Event` (each shard has its own
    /// start): a game number comes once over all the files. An error names
    /// the file and the line.
    pub fn merge(files: &[(&str, &[PgnGame])]) -> Result<Record<G>, RecordError> {
        Record::read_files(files, Scope::Whole)
    }

    /// The games of `files` (name, games), checked, with matches told apart
    /// as `scope` says.
    fn read_files(files: &[(&str, &[PgnGame])], scope: Scope) -> Result<Record<G>, RecordError> {
        let mut reader = RecordReader::new(scope == Scope::Whole);
        for &(file, pgn_games) in files {
            reader.file(file);
            for pgn in pgn_games {
                reader.add(pgn)?;
            }
        }
        reader.finish()
    }
}

/// A record read one game at a time (from [`crate::pgn::games`]): each
/// game is checked as it comes, against the games read before it; only
/// the checked games are kept, not their PGN.
pub struct RecordReader<G: ArenaGame = Position> {
    scope: Scope,
    games: Vec<GameRecord<G>>,
    /// The files, in the order given; games come from the last.
    files: Vec<String>,
    /// Where each game number was read (file index, line), and the games
    /// of each pair, by match and number.
    seen_games: FxHashMap<(String, u64), (usize, usize)>,
    pairs: FxHashMap<(String, u64), Vec<usize>>,
    /// The first game's match tags, file and number (shards of one match).
    first: Option<(MatchId, String, u64)>,
    shards: Vec<u64>,
}

impl<G: ArenaGame + PgnNotation> RecordReader<G> {
    /// A reader of one record file (`merge` false: games with another
    /// `Event` are of another match) or of the shards of one match.
    pub fn new(merge: bool) -> RecordReader<G> {
        RecordReader {
            scope: if merge { Scope::Whole } else { Scope::Event },
            games: Vec::new(),
            files: Vec::new(),
            seen_games: FxHashMap::default(),
            pairs: FxHashMap::default(),
            first: None,
            shards: Vec::new(),
        }
    }

    /// The next games come from `file`.
    pub fn file(&mut self, file: &str) {
        self.files.push(file.to_string());
    }

    /// Checks a game of the current file and keeps it.
    pub fn add(&mut self, pgn: &PgnGame) -> Result<(), RecordError> {
        let index = self.files.len().saturating_sub(1);
        let file = self.files.get(index).map_or("", String::as_str);
        let game = GameRecord::<G>::from_pgn(pgn, file)?;
        let at = |problem| RecordError::Line {
            file: file.to_string(),
            line: pgn.line,
            problem: Box::new(problem),
        };
        if self.scope == Scope::Whole {
            let id = MatchId::from_pgn(pgn).map_err(at)?;
            match &self.first {
                None => self.first = Some((id.clone(), file.to_string(), game.game)),
                Some((first, first_file, first_game)) => {
                    if let Some((tag, here, there)) = id.differs(first) {
                        return Err(at(RecordLineError::OtherMatch {
                            game: game.game,
                            tag,
                            here,
                            there,
                            first_file: first_file.clone(),
                            first_game: *first_game,
                        }));
                    }
                }
            }
            if let Some(games) = id.games.filter(|&n| game.game > n) {
                return Err(at(RecordLineError::PastTheEnd {
                    game: game.game,
                    games,
                }));
            }
            if let Some((k, _)) = id.shard.filter(|(k, _)| !self.shards.contains(k)) {
                self.shards.push(k);
            }
        }
        let event = match self.scope {
            Scope::Event => pgn.tag("Event").unwrap_or_default().to_string(),
            Scope::Whole => String::new(),
        };
        let pair = self.pairs.entry((event.clone(), game.pair)).or_default();
        let partners: Vec<&GameRecord<G>> = pair.iter().map(|&k| &self.games[k]).collect();
        let seen = self
            .seen_games
            .get(&(event.clone(), game.game))
            .map(|&(i, line)| (self.files[i].as_str(), line));
        check_against(&game, &partners, file, seen).map_err(at)?;
        self.seen_games
            .insert((event, game.game), (index, pgn.line));
        pair.push(self.games.len());
        self.games.push(game);
        Ok(())
    }

    /// The record of the games read: an error when there is none.
    pub fn finish(self) -> Result<Record<G>, RecordError> {
        if self.games.is_empty() {
            return Err(RecordError::NoGames {
                file: self.files.join(", "),
            });
        }
        let engines = engines_by_round(&self.games);
        Ok(Record {
            engines,
            games: self.games,
            id: self.first.map(|(id, _, _)| id),
            shards: self.shards,
        })
    }
}

/// Which games are of one match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// Those with the same `Event` (the matches appended to one file).
    Event,
    /// All (the shards of one match).
    Whole,
}

/// The engines in the order they first play by game number: x then o of
/// the lowest number, then any new one of the next, and so on (ties, from
/// matches appended to one file, in the order read).
fn engines_by_round<G: ArenaGame>(games: &[GameRecord<G>]) -> Vec<String> {
    let mut order: Vec<&GameRecord<G>> = games.iter().collect();
    order.sort_by_key(|g| g.game); // stable: ties stay in the order read
    let mut engines: Vec<String> = Vec::new();
    for name in order.iter().flat_map(|g| [&g.x, &g.o]) {
        if !engines.contains(name) {
            engines.push(name.clone());
        }
    }
    engines
}

/// Checks a new game from `file` against the games of its pair read before
/// it, and where its match had a game of its number before (file, line).
fn check_against<G: ArenaGame>(
    game: &GameRecord<G>,
    partners: &[&GameRecord<G>],
    file: &str,
    seen: Option<(&str, usize)>,
) -> Result<(), RecordLineError> {
    let n = game.game;
    match seen {
        Some((first_file, first_line)) if first_file == file => {
            return Err(RecordLineError::Repeated {
                game: n,
                first_line,
            });
        }
        Some((first_file, first_line)) => {
            return Err(RecordLineError::RepeatedIn {
                game: n,
                first_file: first_file.to_string(),
                first_line,
            });
        }
        None => {}
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
        if other.x != game.o || other.o != game.x {
            return Err(RecordLineError::Strangers {
                game: n,
                x: shorten(&game.x),
                o: shorten(&game.o),
                pair,
                engines: [other.x.clone(), other.o.clone()],
                first_game: other.game,
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
    use crate::pgn::Score;
    use crate::rules::Move;
    use crate::super15;

    type Record = super::Record<Position>;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    fn tags() -> MatchTags {
        MatchTags {
            event: "ultimo match".into(),
            site: "?".into(),
            date: "2025.01.31".into(),
            time_controls: ["nodes=200".into(), "nodes=200".into()],
            id: MatchId::default(),
        }
    }

    /// A game of `G` played to its end by random moves after `opening`,
    /// with a note on each move.
    fn finished<G: ArenaGame>(opening: Opening<G>, seed: u64) -> GameRecord<G> {
        let mut pos = opening.position();
        let mut played = Vec::new();
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(seed);
        while let Some(m) = pos.random_move(&mut rng) {
            pos.play_unchecked(m);
            played.push(m);
        }
        let notes = (0..played.len())
            .map(|i| MoveNote {
                score: Some(Score::Cp(i as i32 * 7 - 50)),
                depth: Some(i as u32 % 9),
                time_ms: Some(i as u64 * 3),
            })
            .collect();
        GameRecord {
            game: 1,
            pair: 1,
            x: "base".into(),
            o: "new".into(),
            opening,
            moves: played,
            notes,
            outcome: pos.outcome().unwrap(),
            termination: Termination::Normal,
            reason: "the rules".into(),
        }
    }

    fn finished_game() -> GameRecord {
        finished(Opening::Moves(vec![]), 3)
    }

    fn fault_game() -> GameRecord {
        GameRecord {
            game: 2,
            pair: 1,
            x: "new".into(),
            o: "base".into(),
            opening: Opening::Moves(vec![]),
            moves: moves("e5"),
            notes: vec![MoveNote {
                score: Some(Score::Mate(-3)),
                depth: Some(4),
                time_ms: Some(1234),
            }],
            outcome: Outcome::Win(Player::X),
            termination: Termination::Illegal,
            reason: "o (base) played e5, which is illegal: the cell is already taken".into(),
        }
    }

    /// The game written as PGN and read back.
    fn through_pgn<G: ArenaGame + PgnNotation>(game: &GameRecord<G>) -> GameRecord<G> {
        let text = game.to_pgn(&tags()).to_string();
        let games = pgn::read(&text, "r.pgn").unwrap();
        assert_eq!(games.len(), 1);
        GameRecord::from_pgn(&games[0], "r.pgn").unwrap()
    }

    #[test]
    fn results_and_terminations() {
        assert_eq!(result_text(Outcome::Win(Player::X)), "1-0");
        assert_eq!(result_text(Outcome::Win(Player::O)), "0-1");
        assert_eq!(result_text(Outcome::Draw), "1/2-1/2");
        for t in Termination::ALL {
            assert_eq!(Termination::from_pgn_tag(t.pgn_tag()), Some(t));
            assert_eq!(Termination::from_pgn_tag(t.as_str()), Some(t));
        }
        assert_eq!(Termination::Crash.pgn_tag(), "abandoned");
        assert_eq!(Termination::from_pgn_tag("resign"), None);
    }

    #[test]
    fn games_round_trip_through_pgn() {
        for game in [finished_game(), fault_game()] {
            assert_eq!(through_pgn(&game), game);
            game.validate().unwrap();
        }
        // An opening of moves (in the movetext, marked book), and a FEN.
        let book: GameRecord = finished(Opening::parse("e5 e4 d2").unwrap(), 5);
        let text = book.to_pgn(&tags()).to_string();
        assert!(
            text.contains("\n\n1. e5 {book} 1... e4 {book} 2. d2 {book} 2... "),
            "{text}"
        );
        assert_eq!(through_pgn(&book), book);
        let fen: GameRecord = finished(Opening::parse("9/9/9/9/4x4/9/9/9/9 o 1 e5").unwrap(), 6);
        let text = fen.to_pgn(&tags()).to_string();
        assert!(
            text.contains("[SetUp \"1\"]\n[FEN \"9/9/9/9/4x4/9/9/9/9 o 1 e5\"]\n"),
            "{text}"
        );
        assert!(text.contains("\n\n1... "), "{text}");
        assert_eq!(through_pgn(&fen), fen);
        // No moves at all: the reason is the comment before the result.
        let mut crash = fault_game();
        crash.moves.clear();
        crash.notes.clear();
        crash.termination = Termination::Crash;
        crash.reason = "o (base) could not be started: no such file".into();
        let text = crash.to_pgn(&tags()).to_string();
        assert!(text.ends_with("\n\n{o (base) could not be started: no such file} 1-0\n"));
        assert_eq!(through_pgn(&crash), crash);
        // Super 1 al 5, from a random opening.
        let opening = crate::arena::openings::random_opening::<super15::Position>(2, 4, 0).unwrap();
        let game = finished(opening, 7);
        let text = game.to_pgn(&tags()).to_string();
        assert!(text.contains("[Variant \"Super 1 al 5\"]"), "{text}");
        assert_eq!(through_pgn(&game), game);
    }

    #[test]
    fn the_pgn_of_a_fault() {
        assert_eq!(
            fault_game().to_pgn(&tags()).to_string(),
            "[Event \"ultimo match\"]\n[Site \"?\"]\n[Date \"2025.01.31\"]\n[Round \"2\"]\n\
             [White \"new\"]\n[Black \"base\"]\n[Result \"1-0\"]\n\
             [Variant \"Ultimate Tic-Tac-Toe\"]\n[TimeControl \"nodes=200\"]\n\
             [Termination \"illegal move\"]\n[PlyCount \"1\"]\n[Pair \"1\"]\n\n\
             1. e5 {-M3/4 1.234s, o (base) played e5, which is illegal: the cell is already\n\
             taken} 1-0\n"
        );
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

    fn file(games: &[GameRecord]) -> String {
        let pgn: Vec<PgnGame> = games.iter().map(|g| g.to_pgn(&tags())).collect();
        pgn::write_games(&pgn)
    }

    #[test]
    fn record_files_round_trip() {
        let games = vec![finished_game(), fault_game()];
        let record = Record::parse(&file(&games), "r.pgn").unwrap();
        assert_eq!(record.engines, ["base".to_string(), "new".to_string()]);
        assert_eq!(record.games, games);
        // Game 2 (new plays x) finished first: base, x in game 1, is first.
        let reversed = [fault_game(), finished_game()];
        let record = Record::parse(&file(&reversed), "r.pgn").unwrap();
        assert_eq!(record.engines, ["base".to_string(), "new".to_string()]);
    }

    #[test]
    fn matches_appended_to_one_file() {
        let games = vec![finished_game(), fault_game()];
        let mut later = tags();
        later.event = "ultimo match 2025.02.01 10:00:00".into();
        let again: Vec<PgnGame> = games.iter().map(|g| g.to_pgn(&later)).collect();
        let text = format!("{}\n{}", file(&games), pgn::write_games(&again));
        let record = Record::parse(&text, "r.pgn").unwrap();
        assert_eq!(record.games.len(), 4);
        assert_eq!(record.games[2..], games);
    }

    #[test]
    fn record_file_errors_name_the_line() {
        let (a, b) = (finished_game(), fault_game());
        let check = |text: &str, expected: &str| {
            let err = Record::parse(text, "r.pgn").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}\n{err}");
        };
        check("", "r.pgn: no games");
        check("; only a comment\n", "r.pgn: no games");
        let b_text = file(std::slice::from_ref(&b));
        // The second game of a file starts after the first and a blank line.
        let second = file(std::slice::from_ref(&a)).lines().count() + 2;
        for tag in ["Round", "Pair", "White", "Black", "Termination"] {
            let without: String = b_text
                .lines()
                .filter(|l| !l.starts_with(&format!("[{tag} ")))
                .map(|l| format!("{l}\n"))
                .collect();
            check(
                &without,
                &format!("r.pgn:1: no {tag} tag (ultimo match writes it; --replay needs it)"),
            );
        }
        check(
            &b_text.replace("[Round \"2\"]", "[Round \"0\"]"),
            "r.pgn:1: Round '0' is not a positive number",
        );
        check(
            &b_text.replace("[Pair \"1\"]", "[Pair \"x\"]"),
            "r.pgn:1: Pair 'x' is not a positive number",
        );
        check(
            &b_text.replace("[White \"new\"]", "[White \"new engine\"]"),
            "r.pgn:1: White 'new engine' is not an engine name",
        );
        // Regression (hostile input round 2, P3): a name with escape
        // sequences retitled the terminal in the summary, and a 10 MB one
        // was printed whole. (Since round 3 the PGN reader makes control
        // characters in a tag spaces, as the writer does.)
        check(
            &b_text.replace("[White \"new\"]", "[White \"\x1b]0;pwned\x07\x1b[31mRED\"]"),
            "r.pgn:1: White ' ]0;pwned  [31mRED' is not an engine name",
        );
        check(
            &b_text.replace(
                "[White \"new\"]",
                &format!("[White \"{}\"]", "n".repeat(101)),
            ),
            &format!(
                "r.pgn:1: White '{}...' is not an engine name",
                "n".repeat(40)
            ),
        );
        check(
            &b_text.replace("illegal move", "resignation"),
            "r.pgn:1: Termination 'resignation' is not",
        );
        check(
            &b_text.replace("1-0", "*"),
            "r.pgn:1: game 2 has no result (*)",
        );
        check(
            &b_text.replace("illegal move", "normal"),
            "r.pgn:1: game 2: the game ended normally but is not over",
        );
        check(
            &file(&[a.clone(), a.clone()]),
            &format!("r.pgn:{second}: game 1 again (first on line 1)"),
        );
        let mut twice_x = b.clone();
        (twice_x.x, twice_x.o) = (b.o.clone(), b.x.clone());
        check(
            &file(&[a.clone(), twice_x]),
            "base plays x in both games of pair 1",
        );
        let mut stranger = b.clone();
        stranger.x = "other".into();
        check(
            &file(&[a.clone(), stranger]),
            &format!(
                "r.pgn:{second}: game 2: x other and o base are not the engines of pair 1, base and new (game 1)"
            ),
        );
        check(
            &b_text.replace("[White \"new\"]", "[White \"base\"]"),
            "r.pgn:1: game 2: base plays both x and o",
        );
        let mut third = b.clone();
        third.game = 3;
        check(
            &file(&[a.clone(), b.clone(), third]),
            "pair 1 already has two games",
        );
        let mut other_opening = b.clone();
        other_opening.opening = Opening::parse("e5").unwrap();
        other_opening.moves = moves("e4");
        check(
            &file(&[a.clone(), other_opening]),
            "pair 1 started from 'startpos' in game 1 but from 'e5' here",
        );
        // The rules are the PGN reader's: the move's line is named.
        let illegal = b_text.replace("1. e5 {", "1. e5 e5 {");
        let line = illegal
            .lines()
            .position(|l| l.starts_with("1. e5"))
            .unwrap()
            + 1;
        check(
            &illegal,
            &format!("r.pgn:{line}: move 1... e5 is illegal: the cell is already taken"),
        );
        let err = Record::parse(&b_text.replace("1-0", "2-0"), "r.pgn").unwrap_err();
        assert!(matches!(err, RecordError::Pgn(_)), "{err:?}");
        let long = b_text.replace("[Round \"2\"]", &format!("[Round \"{}\"]", "9".repeat(100)));
        check(&long, &format!("Round '{}...'", "9".repeat(40)));
        let err = Record::parse(&b_text.replace("1-0", "*"), "r.pgn").unwrap_err();
        let RecordError::Line { line, problem, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!((line, *problem), (1, RecordLineError::Unfinished(2)));
    }

    #[test]
    fn the_variant_names_the_game() {
        let game = finished(Opening::<super15::Position>::Moves(vec![]), 8);
        let text = game.to_pgn(&tags()).to_string();
        let record = super::Record::<super15::Position>::parse(&text, "r.pgn").unwrap();
        assert_eq!(record.games, [game]);
        let err = Record::parse(&text, "r.pgn").unwrap_err().to_string();
        assert!(
            err.starts_with("r.pgn:1: the Variant 'Super 1 al 5' is not Ultimate"),
            "{err}"
        );
        // Without a Variant tag a game is Ultimate Tic-Tac-Toe.
        let no_variant = text.replace("[Variant \"Super 1 al 5\"]\n", "");
        let err = Record::parse(&no_variant, "r.pgn").unwrap_err().to_string();
        assert!(err.contains("is not a cell"), "{err}");
    }
}
