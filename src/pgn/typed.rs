//! PGN and the games: a game's text read into its positions and moves
//! (with the rules checked), and a game's moves written as PGN.

use super::error::{GameTextError, PgnError, PgnProblem, turn_text};
use super::{Annotation, PgnGame, PgnMove, PgnResult, Turn};
use crate::game::{GameKind, Notation};
use crate::quote::shorten;

/// A game whose text errors the layers above can hold without knowing
/// the game: its [`Notation`], with every error it reports convertible to a
/// [`GameTextError`]. PGN, the match referee and the tools read games
/// through it.
pub trait PgnNotation:
    Notation<
        FenError: Into<GameTextError>,
        MoveError: Into<GameTextError>,
        PlayError: Into<GameTextError>,
        MovesError: Into<GameTextError>,
    >
{
}

impl<G> PgnNotation for G where
    G: Notation<
            FenError: Into<GameTextError>,
            MoveError: Into<GameTextError>,
            PlayError: Into<GameTextError>,
            MovesError: Into<GameTextError>,
        >
{
}

/// The name of a game in the `Variant` tag: `Ultimate Tic-Tac-Toe` or
/// `Super 1 al 5`.
pub const fn variant_name(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Uttt => "Ultimate Tic-Tac-Toe",
        GameKind::Super15 => "Super 1 al 5",
    }
}

/// The game a `Variant` tag names (its name, or our short name `uttt` or
/// `super15`, in any case).
pub fn variant_kind(name: &str) -> Option<GameKind> {
    GameKind::ALL
        .into_iter()
        .find(|&k| variant_name(k).eq_ignore_ascii_case(name.trim()))
        .or_else(|| GameKind::from_name(name.trim()))
}

impl PgnGame {
    /// The game the `Variant` tag names; Ultimate Tic-Tac-Toe without one.
    /// `None` for a variant that is not one of ours.
    pub fn kind(&self) -> Option<GameKind> {
        match self.tag("Variant") {
            None => Some(GameKind::Uttt),
            Some(name) => variant_kind(name),
        }
    }

    /// Sets the result: the movetext's and the `Result` tag.
    pub fn set_result(&mut self, result: PgnResult) {
        self.result = result;
        self.set_tag("Result", result.as_str());
    }

    /// Adds the game's tags (`Variant`, and `SetUp` and `FEN` unless the game
    /// starts from `start` = the game's start position) and the moves, each
    /// with its annotation's comment (`annotations` may be shorter than the
    /// moves). The result and the other tags are the caller's.
    pub fn set_moves<G: Notation>(
        &mut self,
        start: &G,
        moves: &[G::Move],
        annotations: &[Annotation],
    ) {
        self.set_tag("Variant", variant_name(G::KIND));
        if *start != G::startpos() {
            self.set_tag("SetUp", "1");
            self.set_tag("FEN", start.to_string());
        }
        self.first = Turn::after_plies(start.ply());
        self.moves = moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let comment = annotations.get(i).and_then(Annotation::to_comment);
                PgnMove::new(m.to_string(), comment)
            })
            .collect();
    }
}

/// A game read from PGN and replayed with the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed<G: Notation> {
    /// The position the game starts from.
    pub start: G,
    /// Whether it came from a `FEN` tag.
    pub set_up: bool,
    /// The moves, all legal in turn.
    pub moves: Vec<G::Move>,
    /// What each move's comment says (one per move).
    pub annotations: Vec<Annotation>,
    /// The position after the moves.
    pub end: G,
    /// The result.
    pub result: PgnResult,
}

impl<G: PgnNotation> Replayed<G> {
    /// Replays `game` (read from `file`, for the errors): its variant must
    /// be `G`'s, its start is its `FEN` (or `G`'s start position), every
    /// move must be legal in turn, and when the rules have ended the game
    /// its result must be theirs.
    pub fn new(game: &PgnGame, file: &str) -> Result<Replayed<G>, PgnError> {
        let at = |line: usize, problem| PgnError::new(file, line, problem);
        let kind = game.kind();
        if kind != Some(G::KIND) {
            let found = game.tag("Variant").unwrap_or_default();
            let problem = PgnProblem::Variant {
                found: shorten(found),
                expected: variant_name(G::KIND),
            };
            return Err(at(game.line, problem));
        }
        let fen = game.tag("FEN");
        let start = match (fen, game.tag("SetUp")) {
            (Some(fen), _) => fen.parse::<G>().map_err(|problem| {
                let problem = PgnProblem::Fen {
                    fen: shorten(fen),
                    problem: problem.into(),
                };
                at(game.line, problem)
            })?,
            (None, Some("1")) => return Err(at(game.line, PgnProblem::NoFen)),
            (None, _) => G::startpos(),
        };
        let mut pos = start;
        let mut turn = Turn::after_plies(start.ply());
        let mut moves = Vec::with_capacity(game.moves.len());
        let mut annotations = Vec::with_capacity(game.moves.len());
        for mv in &game.moves {
            let m = G::parse_move(&mv.text).map_err(|problem| {
                let problem = PgnProblem::Move {
                    turn: turn_text(turn),
                    text: shorten(&mv.text),
                    problem: problem.into(),
                };
                at(mv.line, problem)
            })?;
            pos.check(m).map_err(|problem| {
                let problem = PgnProblem::Illegal {
                    turn: turn_text(turn),
                    text: m.to_string(),
                    problem: problem.into(),
                };
                at(mv.line, problem)
            })?;
            pos.play_unchecked(m);
            moves.push(m);
            annotations.push(
                mv.comment
                    .as_deref()
                    .map(Annotation::parse)
                    .unwrap_or_default(),
            );
            turn = turn.next();
        }
        if let Some(rules) = pos.outcome()
            && game.result.outcome() != Some(rules)
        {
            let line = game.moves.last().map_or(game.line, |m| m.line);
            let problem = PgnProblem::WrongResult {
                given: game.result,
                rules,
            };
            return Err(at(line, problem));
        }
        Ok(Replayed {
            start,
            set_up: fen.is_some(),
            moves,
            annotations,
            end: pos,
            result: game.result,
        })
    }
}
