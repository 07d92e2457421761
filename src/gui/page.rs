//! What the page and the server say to each other, besides the view: the
//! commands the page sends (`POST /api`), and the parts of the view that
//! the engines' workers fill in (lines, analysis, the whole-game scan).

use serde::{Deserialize, Serialize};

use crate::game::{GameKind, Player};
use crate::review;

/// Lines of analysis in a new session (and when the page does not say).
pub(super) const DEFAULT_MULTIPV: usize = 3;

/// Who plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A person against an engine.
    Hve,
    /// Two engines.
    Eve,
    /// Two people on one screen (analysis mode is this with analysis on).
    Hvh,
}

/// How long an engine thinks per move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum MoveLimit {
    /// Milliseconds per move.
    Movetime {
        /// Milliseconds.
        ms: u64,
    },
    /// Iterations per move.
    Nodes {
        /// Iterations.
        nodes: u64,
    },
    /// A clock per side: base and increment, in milliseconds.
    Clock {
        /// Milliseconds on each clock at the start.
        base_ms: u64,
        /// Milliseconds added after each move.
        inc_ms: u64,
    },
}

/// One move the search considers, for the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LineView {
    /// The move, e.g. `e5`.
    pub mv: String,
    /// Win, draw, loss for the side to move, permille, when known.
    pub wdl: Option<[u32; 3]>,
    /// Expected score for the side to move, 0-1.
    pub q: f64,
    /// Protocol-style score in centipawns (or a mate distance in `proven`).
    pub cp: i32,
    /// A proven result in words, e.g. "x wins in 5".
    pub proven: Option<String>,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<String>,
    /// Iterations through the move, when the engine says.
    pub visits: Option<u64>,
}

/// An engine's current view of one position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalysisView {
    /// The position analysed (FEN) — the page shows it only there.
    pub fen: String,
    /// The engine's name.
    pub engine: String,
    /// Iterations so far.
    pub nodes: u64,
    /// The search's depth (Ultimo: its mean depth), when known.
    pub depth: Option<u32>,
    /// The deepest line the search reached, when known.
    pub seldepth: Option<u32>,
    /// Milliseconds since the analysis of this position started.
    pub ms: u64,
    /// Best lines first.
    pub lines: Vec<LineView>,
    /// Share of the visits per cell in permille: in Ultimate Tic-Tac-Toe
    /// by grid index (row * 9 + col from the top-left), in Super 1 al 5 by
    /// the cell where the moves stop (`10 * rank + file`); empty when the
    /// engine does not say.
    pub heat: Vec<u32>,
}

/// What the whole-game analysis found in one position: its evaluation for
/// the side to move and the best move (none in a finished game).
#[derive(Clone, Debug, PartialEq)]
pub struct ScanPoint {
    /// The evaluation, for the side to move.
    pub eval: review::Eval,
    /// The best move, as the game writes it.
    pub best: Option<String>,
}

/// A move judged by the whole-game analysis, as `ultimo analyze --review`
/// judges it ([`review::move_loss`], [`review::THRESHOLDS`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgedView {
    /// The drop in the mover's winning chances (-1 to 1), at least 0.
    pub loss: f64,
    /// `?!`, `?` or `??`, when the loss earns a mark.
    pub mark: Option<&'static str>,
    /// `inaccuracy`, `mistake` or `blunder`, with the mark.
    pub name: Option<&'static str>,
    /// The engine's best move there, when another was played.
    pub best: Option<String>,
}

/// One side's moves summed up, as the command line's review does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryView {
    /// Moves judged.
    pub moves: usize,
    /// Moves marked `?!`.
    pub inaccuracies: usize,
    /// Moves marked `?`.
    pub mistakes: usize,
    /// Moves marked `??`.
    pub blunders: usize,
    /// The mean loss in winning chances.
    pub average_loss: f64,
}

/// What is known about one seat's engine.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeatView {
    /// Index into the engine list.
    pub engine: usize,
    /// Why the engine stopped working, until it is restarted.
    pub error: Option<String>,
    /// Whether it is thinking now.
    pub busy: bool,
    /// Ultimo's level when it plays in this seat: 1 to 10, 0 for full
    /// strength.
    pub level: u8,
}

/// A command from the page (`POST /api`, JSON with a `cmd` tag).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "cmd", rename_all = "lowercase", deny_unknown_fields)]
pub enum Command {
    /// Play a move in the position shown (a person's move).
    Play {
        /// The move, e.g. `e5`.
        mv: String,
    },
    /// Show the position after `ply` moves.
    Goto {
        /// Plies from the start, 0 to the number of moves.
        ply: usize,
    },
    /// A new game from the start position: of `game`, or of the game
    /// being played.
    New {
        /// The game.
        #[serde(default)]
        game: Option<GameKind>,
    },
    /// Take back: to the last position where a person is to move.
    Undo {},
    /// Set up a position: a FEN (empty for the start position) and moves,
    /// of `game` or of the game being played.
    Setup {
        /// A FEN, or empty.
        #[serde(default)]
        fen: String,
        /// Moves separated by spaces or commas.
        #[serde(default)]
        moves: String,
        /// The game.
        #[serde(default)]
        game: Option<GameKind>,
    },
    /// Load a game from text: PGN (the first game, or game `number`),
    /// a bare FEN, a move list, or an old saved game (`opening`/`moves`).
    Load {
        /// The file's text.
        text: String,
        /// The file's name, for errors (empty for pasted text).
        #[serde(default)]
        name: String,
        /// Which game of a PGN file, from 1 (default: the first).
        #[serde(default)]
        number: Option<usize>,
    },
    /// Choose who plays and how long engines think.
    Mode {
        /// Who plays.
        mode: Mode,
        /// The person's side against an engine.
        #[serde(default = "default_human")]
        human: Player,
        /// The engine (index) playing x.
        #[serde(default)]
        x: usize,
        /// The engine (index) playing o.
        #[serde(default)]
        o: usize,
        /// Ultimo's level playing x and o (0 full strength, 1-10 a level;
        /// only for Ultimo).
        #[serde(default)]
        levels: [u8; 2],
        /// Thinking per move.
        limit: MoveLimit,
    },
    /// Start or pause engine-vs-engine play.
    Pause {
        /// Whether to pause.
        paused: bool,
    },
    /// Analysis on or off, with the number of lines and the engine.
    Analysis {
        /// On or off.
        on: bool,
        /// Lines shown (1-9).
        #[serde(default = "default_multipv")]
        multipv: usize,
        /// The engine (index).
        #[serde(default)]
        engine: usize,
    },
    /// Analyse every position of the game (Ultimo, a fixed budget each).
    Scan {},
    /// Restart a seat's engine after an error (0 x, 1 o, 2 analysis).
    Restart {
        /// The seat.
        seat: usize,
    },
    /// The person to move resigns (against an engine: the person).
    Resign {},
    /// A draw: offered by the person (an engine accepts when its last
    /// move's score is even or worse for it), or, between people, offered
    /// and then `accept`ed or declined by the other.
    Draw {
        /// Between people: accept (true) or decline (false) the offer;
        /// absent to offer.
        #[serde(default)]
        accept: Option<bool>,
    },
}

/// How a game ended other than by the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// This side resigned.
    Resigned(Player),
    /// The players agreed to a draw.
    Agreed,
}

fn default_human() -> Player {
    Player::X
}

fn default_multipv() -> usize {
    DEFAULT_MULTIPV
}
