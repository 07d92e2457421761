//! The game on the page: the moves, the position shown, who plays which
//! side, and the latest analysis. Every command from the page is checked
//! here and either changes the session or is refused with one error,
//! changing nothing. [`Session::view`] is what the page draws.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::game::{GameKind, Outcome, Player};

use super::GuiError;
use super::game::{AnyLine, BoardView, GameName};

/// The engine seats: who plays x, who plays o, who analyses the position
/// shown, and who analyses the whole game.
pub const SEATS: usize = 4;
/// The seat of the engine that analyses the position shown.
pub const ANALYSIS: usize = 2;
/// The seat of the whole-game analysis (always Ultimo).
pub const SCAN: usize = 3;

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

/// What is known about one seat's engine.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeatView {
    /// Index into the engine list.
    pub engine: usize,
    /// Why the engine stopped working, until it is restarted.
    pub error: Option<String>,
    /// Whether it is thinking now.
    pub busy: bool,
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
        game: Option<GameName>,
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
        game: Option<GameName>,
    },
    /// Load a game from the text of a saved game.
    Load {
        /// The file's text.
        text: String,
    },
    /// Choose who plays and how long engines think.
    Mode {
        /// Who plays.
        mode: Mode,
        /// The person's side against an engine.
        #[serde(default = "default_human")]
        human: PlayerName,
        /// The engine (index) playing x.
        #[serde(default)]
        x: usize,
        /// The engine (index) playing o.
        #[serde(default)]
        o: usize,
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
}

fn default_human() -> PlayerName {
    PlayerName::X
}

fn default_multipv() -> usize {
    3
}

/// `x` or `o` in JSON.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerName {
    /// x, who moves first.
    X,
    /// o.
    O,
}

impl From<PlayerName> for Player {
    fn from(p: PlayerName) -> Player {
        match p {
            PlayerName::X => Player::X,
            PlayerName::O => Player::O,
        }
    }
}

impl From<Player> for PlayerName {
    fn from(p: Player) -> PlayerName {
        match p {
            Player::X => PlayerName::X,
            Player::O => PlayerName::O,
        }
    }
}

/// The longest text the page may send in one field.
const MAX_TEXT: usize = 100_000;

/// The game and everything the page shows.
#[derive(Clone, Debug)]
pub struct Session {
    /// The names of the engines; 0 is Ultimo.
    pub engines: Vec<String>,
    line: AnyLine,
    cursor: usize,
    /// Who plays.
    pub mode: Mode,
    /// The person's side in [`Mode::Hve`].
    pub human: Player,
    /// Thinking per engine move.
    pub limit: MoveLimit,
    /// Clocks (x, o) in milliseconds under [`MoveLimit::Clock`].
    pub clocks: [u64; 2],
    /// Engine-vs-engine play is paused.
    pub paused: bool,
    /// Analysis of the position shown is on.
    pub analysis: bool,
    /// Lines of analysis.
    pub multipv: usize,
    /// The seats' engines and errors.
    pub seats: [SeatView; SEATS],
    /// The latest analysis of the position shown.
    pub live: Option<AnalysisView>,
    /// Whole-game analysis: x's expected score after each ply, by ply
    /// (index 0 is the start position).
    pub scan: Vec<Option<f64>>,
    /// A whole-game analysis is wanted (or running).
    pub scanning: bool,
    /// The last message for the status line.
    pub status: String,
    /// Bumped at every change (the page's event stream sends new views).
    pub version: u64,
    /// The job each seat's updates belong to (0: none).
    pub jobs: [u64; SEATS],
    /// When the side to move began to think (for clocks).
    pub turn_started: Instant,
}

/// What the page draws (sent as JSON on every change).
#[derive(Serialize)]
pub struct View<'a> {
    version: u64,
    engines: &'a [String],
    /// "uttt" or "super15".
    game: GameName,
    start_fen: String,
    moves: Vec<String>,
    cursor: usize,
    fen: String,
    side: PlayerName,
    /// The board, as the game draws it.
    #[serde(flatten)]
    board: BoardView,
    /// "x", "o" or "draw" when the game is over.
    outcome: Option<&'static str>,
    mode: Mode,
    human: PlayerName,
    limit: MoveLimit,
    clocks: [u64; 2],
    paused: bool,
    analysis: bool,
    multipv: usize,
    seats: &'a [SeatView; SEATS],
    live: Option<&'a AnalysisView>,
    scan: &'a [Option<f64>],
    scanning: bool,
    status: &'a str,
    /// The game in the saved-game format.
    record: String,
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win(Player::X) => "x",
        Outcome::Win(Player::O) => "o",
        Outcome::Draw => "draw",
    }
}

/// Shortens echoed input to 40 characters.
fn cut(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(40).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

impl Session {
    /// A new game at the empty board, a person (x) against Ultimo.
    pub fn new(engines: Vec<String>) -> Session {
        Session {
            engines,
            line: AnyLine::new(GameName::Uttt),
            cursor: 0,
            mode: Mode::Hve,
            human: Player::X,
            limit: MoveLimit::Movetime { ms: 1000 },
            clocks: [0; 2],
            paused: false,
            analysis: false,
            multipv: 3,
            seats: Default::default(),
            live: None,
            scan: Vec::new(),
            scanning: false,
            status: String::new(),
            version: 0,
            jobs: [0; SEATS],
            turn_started: Instant::now(),
        }
    }

    /// The game: its start and all its moves.
    pub fn line(&self) -> &AnyLine {
        &self.line
    }

    /// All moves of the game, as text.
    pub fn moves(&self) -> Vec<String> {
        self.line.moves_text()
    }

    /// Plies shown.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The FEN of the position shown.
    pub fn shown_fen(&self) -> String {
        self.line.fen_at(self.cursor)
    }

    /// Whether the game is over in the position shown.
    pub fn shown_over(&self) -> bool {
        self.line.outcome_at(self.cursor).is_some()
    }

    /// The side an engine plays now, when it is an engine's turn at the end
    /// of the game and nothing holds it back; with the seat.
    pub fn engine_to_move(&self) -> Option<Player> {
        if self.cursor != self.line.len() || self.shown_over() {
            return None;
        }
        let side = self.line.side_at(self.cursor);
        let engine_plays = match self.mode {
            Mode::Hve => side != self.human,
            Mode::Eve => !self.paused,
            Mode::Hvh => false,
        };
        (engine_plays && self.seats[side.index()].error.is_none()).then_some(side)
    }

    fn changed(&mut self) {
        self.version += 1;
    }

    /// Sets the status line.
    pub fn say(&mut self, text: impl Into<String>) {
        self.status = text.into();
        self.changed();
    }

    fn reset_game(&mut self, line: AnyLine) {
        self.cursor = line.len();
        self.line = line;
        self.live = None;
        self.scan.clear();
        self.scanning = false;
        self.reset_clocks();
    }

    fn reset_clocks(&mut self) {
        if let MoveLimit::Clock { base_ms, .. } = self.limit {
            self.clocks = [base_ms; 2];
        }
    }

    /// Plays the move `mv` in the position shown, dropping the moves after
    /// it. The mover's clock is charged `took` (a clock game).
    pub fn play(&mut self, mv: &str, took: Duration) -> Result<(), GuiError> {
        let played = self.line.play(self.cursor, mv)?;
        let mover = played.mover;
        self.cursor += 1;
        self.scan.truncate(self.cursor);
        self.live = None;
        if let MoveLimit::Clock { inc_ms, .. } = self.limit {
            let left = &mut self.clocks[mover.index()];
            *left = left.saturating_sub(took.as_millis() as u64) + inc_ms;
        }
        self.status = match played.outcome {
            Some(Outcome::Win(p)) => format!("{mv}: {p} wins"),
            Some(Outcome::Draw) => format!("{mv}: the game is drawn"),
            None => String::new(),
        };
        self.changed();
        Ok(())
    }

    /// Carries out a command from the page (not `Restart`, which the
    /// server handles). `took` is how long the person thought (clocks).
    pub fn apply(&mut self, command: Command, took: Duration) -> Result<(), GuiError> {
        match command {
            Command::Play { mv } => {
                self.line.check_word(&mv)?;
                if self.cursor == self.line.len() {
                    let side = self.line.side_at(self.cursor);
                    let engine_turn = match self.mode {
                        Mode::Hve => side != self.human,
                        Mode::Eve => true,
                        Mode::Hvh => false,
                    };
                    if engine_turn && !self.shown_over() {
                        return Err(GuiError::Illegal(format!(
                            "it is the engine's turn ({side} to move)"
                        )));
                    }
                }
                self.play(&mv, took)
            }
            Command::Goto { ply } => {
                if ply > self.line.len() {
                    return Err(GuiError::BadRequest(format!(
                        "ply {ply} is past the end of the game ({} moves)",
                        self.line.len()
                    )));
                }
                self.cursor = ply;
                self.live = None;
                self.status.clear();
                self.changed();
                Ok(())
            }
            Command::New { game } => {
                let game = game.unwrap_or(self.line.game());
                self.reset_game(AnyLine::new(game));
                self.say(match game {
                    GameName::Uttt => "new game",
                    GameName::Super15 => "new game of Super 1 al 5",
                });
                Ok(())
            }
            Command::Undo {} => {
                if self.cursor == 0 {
                    return Err(GuiError::Illegal("nothing to take back".into()));
                }
                let mut ply = self.cursor - 1;
                if self.mode == Mode::Hve {
                    // Back to a position where the person is to move.
                    while ply > 0 && self.line.side_at(ply) != self.human {
                        ply -= 1;
                    }
                    if self.line.side_at(ply) != self.human {
                        ply = self.cursor - 1;
                    }
                }
                self.line.truncate(ply);
                self.cursor = ply;
                self.scan.truncate(ply + 1);
                self.live = None;
                self.say("taken back");
                Ok(())
            }
            Command::Setup { fen, moves, game } => {
                let game = game.unwrap_or(self.line.game());
                let line = parse_game(game, &fen, &moves)?;
                self.reset_game(line);
                self.say("position set up");
                Ok(())
            }
            Command::Load { text } => {
                if text.len() > MAX_TEXT {
                    return Err(GuiError::BadRequest("the game is too long".into()));
                }
                let line = parse_record(&text, self.line.game())?;
                self.reset_game(line);
                self.say("game loaded");
                Ok(())
            }
            Command::Mode {
                mode,
                human,
                x,
                o,
                limit,
            } => {
                for e in [x, o] {
                    if e >= self.engines.len() {
                        return Err(GuiError::BadRequest(format!("there is no engine {e}")));
                    }
                }
                match limit {
                    MoveLimit::Movetime { ms } if !(10..=3_600_000).contains(&ms) => {
                        return Err(GuiError::BadRequest(
                            "the time per move must be 10 ms to 1 hour".into(),
                        ));
                    }
                    MoveLimit::Nodes { nodes } if !(1..=1_000_000_000).contains(&nodes) => {
                        return Err(GuiError::BadRequest("nodes must be 1 to 1000000000".into()));
                    }
                    MoveLimit::Clock { base_ms, inc_ms }
                        if !(100..=36_000_000).contains(&base_ms) || inc_ms > 600_000 =>
                    {
                        return Err(GuiError::BadRequest(
                            "the clock must be 0.1 s to 10 hours, the increment at most 10 minutes"
                                .into(),
                        ));
                    }
                    _ => {}
                }
                let limit_changed = self.limit != limit;
                self.mode = mode;
                self.human = human.into();
                self.limit = limit;
                if limit_changed {
                    self.reset_clocks();
                }
                for (seat, engine) in [(0, x), (1, o)] {
                    // Another engine in a seat starts without the old one's error.
                    if self.seats[seat].engine != engine {
                        self.seats[seat].engine = engine;
                        self.seats[seat].error = None;
                    }
                }
                self.paused = mode == Mode::Eve;
                self.say(match mode {
                    Mode::Hve => format!("you play {}", self.human),
                    Mode::Eve => "engine against engine: press start".to_string(),
                    Mode::Hvh => "two players on one screen".to_string(),
                });
                Ok(())
            }
            Command::Pause { paused } => {
                self.paused = paused;
                self.say(if paused { "paused" } else { "playing" });
                Ok(())
            }
            Command::Analysis {
                on,
                multipv,
                engine,
            } => {
                if !(1..=9).contains(&multipv) {
                    return Err(GuiError::BadRequest("lines must be 1 to 9".into()));
                }
                if engine >= self.engines.len() {
                    return Err(GuiError::BadRequest(format!("there is no engine {engine}")));
                }
                self.analysis = on;
                self.multipv = multipv;
                if self.seats[ANALYSIS].engine != engine {
                    self.seats[ANALYSIS].engine = engine;
                    self.seats[ANALYSIS].error = None;
                }
                self.live = None;
                self.changed();
                Ok(())
            }
            Command::Scan {} => {
                self.scan = vec![None; self.line.len() + 1];
                self.scanning = true;
                self.say("analysing the whole game");
                Ok(())
            }
            Command::Restart { .. } => Ok(()),
        }
    }

    /// What the page draws.
    pub fn view(&self) -> View<'_> {
        let n = self.cursor;
        View {
            version: self.version,
            engines: &self.engines,
            game: self.line.game(),
            start_fen: self.line.start_fen(),
            moves: self.line.moves_text(),
            cursor: n,
            fen: self.line.fen_at(n),
            side: self.line.side_at(n).into(),
            board: self.line.board_at(n),
            outcome: self.line.outcome_at(n).map(outcome_name),
            mode: self.mode,
            human: self.human.into(),
            limit: self.limit,
            clocks: self.clocks,
            paused: self.paused,
            analysis: self.analysis,
            multipv: self.multipv,
            seats: &self.seats,
            live: self.live.as_ref(),
            scan: &self.scan,
            scanning: self.scanning,
            status: &self.status,
            record: self.record(),
        }
    }

    /// The game in the saved-game format: a `variant` line for a game
    /// other than Ultimate Tic-Tac-Toe, `opening` (startpos or a FEN) and
    /// `moves`, as in a match record's game line; a result when over.
    pub fn record(&self) -> String {
        let variant = match self.line.game() {
            GameName::Uttt => String::new(),
            game => format!("variant {}\n", GameKind::from(game)),
        };
        let mut text = format!(
            "# ultimo game\n{variant}opening {}\nmoves {}\n",
            self.line.opening(),
            self.line.moves_text().join(" ")
        );
        if let Some(o) = self.line.outcome_at(self.line.len()) {
            text.push_str(&format!(
                "result {}\n",
                crate::arena::record::result_text(o)
            ));
        }
        text
    }
}

/// A game of `game` from a FEN (empty: the start position) and a move
/// list.
pub fn parse_game(game: GameName, fen: &str, moves: &str) -> Result<AnyLine, GuiError> {
    if fen.len() > MAX_TEXT || moves.len() > MAX_TEXT {
        return Err(GuiError::BadRequest("the text is too long".into()));
    }
    AnyLine::parse(game, fen, moves)
}

/// A saved game: `variant`, `opening` and `moves` lines (`#` comments,
/// other keys ignored), or a bare FEN, or a bare move list. The `variant`
/// line names the game; without one, a saved game (with `opening` or
/// `moves`) is Ultimate Tic-Tac-Toe, as in match records, and a bare FEN or
/// move list is of `current`, the game being played.
pub fn parse_record(text: &str, current: GameName) -> Result<AnyLine, GuiError> {
    let mut opening = None;
    let mut moves = None;
    let mut variant = None;
    let mut bare = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once(char::is_whitespace) {
            Some(("opening", rest)) => opening = Some(rest.trim().to_string()),
            Some(("moves", rest)) => moves = Some(rest.trim().to_string()),
            Some(("variant", rest)) => {
                let name = rest.trim();
                let game = GameKind::from_name(name).ok_or_else(|| {
                    GuiError::BadRequest(format!(
                        "unknown variant '{}' (uttt or super15)",
                        cut(name)
                    ))
                })?;
                variant = Some(GameName::from(game));
            }
            None if line == "moves" => moves = Some(String::new()),
            Some(("result" | "x" | "o" | "game" | "end" | "reason", _)) => {}
            _ => bare.push(line),
        }
    }
    if opening.is_none() && moves.is_none() {
        let game = variant.unwrap_or(current);
        return match bare.as_slice() {
            [] => Err(GuiError::BadRequest("the game is empty".into())),
            [one] if one.contains('/') => parse_game(game, one, ""),
            lines => parse_game(game, "", &lines.join(" ")),
        };
    }
    let game = variant.unwrap_or(GameName::Uttt);
    let opening = opening.unwrap_or_default();
    // An opening may itself be a move list from the start position.
    if !opening.contains('/') && opening != "startpos" && !opening.is_empty() {
        let all = format!("{opening} {}", moves.unwrap_or_default());
        return parse_game(game, "", &all);
    }
    parse_game(game, &opening, &moves.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::new(vec!["Ultimo".into()])
    }

    fn cmd(json: &str) -> Command {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn plays_and_refuses_moves() {
        let mut s = session();
        s.apply(
            cmd(r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"nodes","nodes":100}}"#),
            Duration::ZERO,
        )
        .unwrap();
        s.apply(cmd(r#"{"cmd":"play","mv":"e5"}"#), Duration::ZERO)
            .unwrap();
        let v = s.version;
        let err = s
            .apply(cmd(r#"{"cmd":"play","mv":"a1"}"#), Duration::ZERO)
            .unwrap_err();
        assert_eq!(err.to_string(), "a1: the move must be on the centre board");
        assert_eq!(s.version, v, "a refused move changes nothing");
        let err = s
            .apply(cmd(r#"{"cmd":"play","mv":"z99"}"#), Duration::ZERO)
            .unwrap_err();
        assert_eq!(err.to_string(), "'z99' is not a cell");
        s.apply(cmd(r#"{"cmd":"play","mv":"e4"}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.moves().len(), 2);
        s.apply(cmd(r#"{"cmd":"goto","ply":1}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.cursor(), 1);
        assert!(
            s.apply(cmd(r#"{"cmd":"goto","ply":3}"#), Duration::ZERO)
                .is_err()
        );
        // A move in the past drops the rest of the game.
        s.apply(cmd(r#"{"cmd":"play","mv":"f6"}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.moves().len(), 2);
        assert_eq!(s.moves()[1].to_string(), "f6");
    }

    #[test]
    fn person_cannot_move_for_the_engine() {
        let mut s = session();
        s.apply(cmd(r#"{"cmd":"play","mv":"e5"}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.engine_to_move(), Some(Player::O));
        let err = s
            .apply(cmd(r#"{"cmd":"play","mv":"e4"}"#), Duration::ZERO)
            .unwrap_err();
        assert!(err.to_string().contains("engine's turn"), "{err}");
        // Take back returns to the person's turn.
        s.play("e4", Duration::ZERO).unwrap();
        s.apply(Command::Undo {}, Duration::ZERO).unwrap();
        assert_eq!(s.moves().len(), 0);
    }

    #[test]
    fn sets_up_and_loads_games() {
        let mut s = session();
        s.apply(
            cmd(r#"{"cmd":"setup","fen":"","moves":"e5, e4 d2"}"#),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(s.moves().len(), 3);
        let record = s.record();
        assert_eq!(record, "# ultimo game\nopening startpos\nmoves e5 e4 d2\n");
        let mut t = session();
        t.apply(Command::Load { text: record }, Duration::ZERO)
            .unwrap();
        assert_eq!(t.moves(), s.moves());
        let line = parse_record("e5 e4\n", GameName::Uttt).unwrap();
        assert_eq!(line, parse_game(GameName::Uttt, "", "e5 e4").unwrap());
        let line = parse_record("opening e5 e4\nmoves d2\n", GameName::Super15).unwrap();
        assert_eq!(line.moves_text(), ["e5", "e4", "d2"]);
        let fen = s.shown_fen();
        let line = parse_record(&fen, GameName::Uttt).unwrap();
        assert_eq!((line.start_fen(), line.len()), (fen, 0));
        let err = s
            .apply(
                cmd(r#"{"cmd":"setup","fen":"","moves":"e5 a1"}"#),
                Duration::ZERO,
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (a1) is illegal: the move must be on the centre board"
        );
        assert_eq!(s.moves().len(), 3, "a refused setup changes nothing");
        let err = parse_game(GameName::Uttt, &"x".repeat(100), "")
            .unwrap_err()
            .to_string();
        assert!(err.len() < 160 && err.contains("..."), "{err}");
    }

    #[test]
    fn view_shows_the_board() {
        let mut s = session();
        s.mode = Mode::Hvh;
        for m in ["e5", "e4"] {
            s.play(m, Duration::ZERO).unwrap();
        }
        let v = serde_json::to_value(s.view()).unwrap();
        assert_eq!(v["cells"][4 * 9 + 4], "x");
        assert_eq!(v["cells"][5 * 9 + 4], "o");
        assert_eq!(v["last"], 5 * 9 + 4);
        assert_eq!(v["side"], "x");
        // x must play in the bottom-centre board (cell e4 sends there).
        let legal = v["legal"].as_array().unwrap();
        assert_eq!(
            legal.iter().filter(|b| b.as_bool() == Some(true)).count(),
            9
        );
        assert_eq!(legal[8 * 9 + 4], true);
    }

    #[test]
    fn clocks_count_down() {
        let mut s = session();
        s.apply(
            cmd(r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"clock","base_ms":60000,"inc_ms":1000}}"#),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(s.clocks, [60000, 60000]);
        s.play("e5", Duration::from_secs(5)).unwrap();
        assert_eq!(s.clocks, [56000, 60000]);
    }

    #[test]
    fn plays_super15() {
        let mut s = session();
        s.apply(
            cmd(r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"nodes","nodes":100}}"#),
            Duration::ZERO,
        )
        .unwrap();
        s.apply(cmd(r#"{"cmd":"new","game":"super15"}"#), Duration::ZERO)
            .unwrap();
        let v = serde_json::to_value(s.view()).unwrap();
        assert_eq!(v["game"], "super15");
        assert_eq!(v["legal"].as_array().unwrap().len(), 44);
        assert_eq!(v["pieces"].as_array().unwrap().len(), 80);
        assert_eq!(v["pieces"][1]["number"], 2, "b1 holds light's 2");
        s.apply(cmd(r#"{"cmd":"play","mv":"e2e3"}"#), Duration::ZERO)
            .unwrap();
        let version = s.version;
        let err = s
            .apply(cmd(r#"{"cmd":"play","mv":"e7e4"}"#), Duration::ZERO)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "e7e4: no piece may stop on the central cell e4"
        );
        let err = s
            .apply(cmd(r#"{"cmd":"play","mv":"e5"}"#), Duration::ZERO)
            .unwrap_err();
        assert!(err.to_string().starts_with("'e5' is not a move"), "{err}");
        assert_eq!(s.version, version, "a refused move changes nothing");
        let v = serde_json::to_value(s.view()).unwrap();
        assert_eq!(v["last"], serde_json::json!([14, 24]));
        assert_eq!(v["side"], "o");
        // The record names the game, and loads back as it.
        let record = s.record();
        assert_eq!(
            record,
            "# ultimo game\nvariant super15\nopening startpos\nmoves e2e3\n"
        );
        s.apply(cmd(r#"{"cmd":"new","game":"uttt"}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.line().game(), GameName::Uttt);
        s.apply(Command::Load { text: record }, Duration::ZERO)
            .unwrap();
        assert_eq!(
            (s.line().game(), s.moves()),
            (GameName::Super15, vec!["e2e3".to_string()])
        );
        // New keeps the game; a setup may name another.
        s.apply(cmd(r#"{"cmd":"new"}"#), Duration::ZERO).unwrap();
        assert_eq!(s.line().game(), GameName::Super15);
        s.apply(
            cmd(r#"{"cmd":"setup","game":"uttt","moves":"e5"}"#),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(s.line().game(), GameName::Uttt);
        let err = parse_record("variant chess\nmoves e5\n", GameName::Uttt).unwrap_err();
        assert_eq!(err.to_string(), "unknown variant 'chess' (uttt or super15)");
    }
}
