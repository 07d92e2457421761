//! The game on the page: the moves, the position shown, who plays which
//! side, and the latest analysis. Every command from the page is checked
//! here and either changes the session or is refused with one error,
//! changing nothing. [`Session::view`] is what the page draws.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::client::clock::TimeControl;
use crate::client::clock::time_control_tag;
use crate::engine::{Strength, levels};
use crate::game::{GameKind, Outcome, Player};
use crate::pgn::{self, Annotation, PgnGame, PgnResult};
use crate::review;

use super::game::{AnyLine, BoardView, each};
use super::load::{Loaded, parse_game, prepare_load};
use super::page::DEFAULT_MULTIPV;
pub use super::page::{
    AnalysisView, Command, Ending, JudgedView, LineView, Mode, MoveLimit, ScanPoint, SeatView,
    SummaryView,
};
use super::{GuiError, Refusal};

/// The engine seats: who plays x, who plays o, who analyses the position
/// shown, and who analyses the whole game.
pub const SEATS: usize = 4;
/// The seat of the engine that analyses the position shown.
pub const ANALYSIS: usize = 2;
/// The seat of the whole-game analysis (always Ultimo).
pub const SCAN: usize = 3;

/// The game and everything the page shows. Every change goes through a
/// method that bumps [`Session::version`], so that the pages and the
/// engines' driver see it.
#[derive(Clone, Debug)]
pub struct Session {
    /// The names of the engines; 0 is Ultimo.
    engines: Vec<String>,
    line: AnyLine,
    /// What is known of each move (engine notes, a loaded game's
    /// comments); never longer than the game.
    notes: Vec<Annotation>,
    /// When the game began (seconds since 1970), for the PGN's date.
    started: u64,
    cursor: usize,
    /// Who plays.
    mode: Mode,
    /// The person's side in [`Mode::Hve`].
    human: Player,
    /// Thinking per engine move.
    limit: MoveLimit,
    /// Clocks (x, o) in milliseconds under [`MoveLimit::Clock`].
    clocks: [u64; 2],
    /// Engine-vs-engine play is paused.
    paused: bool,
    /// Analysis of the position shown is on.
    analysis: bool,
    /// Lines of analysis.
    multipv: usize,
    /// The seats' engines and errors.
    seats: [SeatView; SEATS],
    /// The latest analysis of the position shown.
    live: Option<AnalysisView>,
    /// Whole-game analysis: what the search found after each ply, by ply
    /// (index 0 is the start position).
    scan: Vec<Option<ScanPoint>>,
    /// A whole-game analysis is wanted (or running).
    scanning: bool,
    /// The last message for the status line.
    status: String,
    /// Bumped at every change (the page's event stream sends new views).
    version: u64,
    /// The job each seat's updates belong to (0: none).
    jobs: [u64; SEATS],
    /// When the side to move began to think (for clocks).
    turn_started: Instant,
    /// A resignation or agreed draw at the end of the game.
    ending: Option<Ending>,
    /// The side that offers a draw to the other person (between people).
    draw_offer: Option<Player>,
}

/// The shortest and longest time per move, in milliseconds.
const MOVETIME_MS: std::ops::RangeInclusive<u64> = 10..=3_600_000;
/// The fewest and most iterations per move.
const NODES: std::ops::RangeInclusive<u64> = 1..=1_000_000_000;
/// The shortest and longest clock, in milliseconds.
const CLOCK_MS: std::ops::RangeInclusive<u64> = 100..=36_000_000;
/// The shortest and longest increment, in milliseconds.
const INCREMENT_MS: std::ops::RangeInclusive<u64> = 0..=600_000;
/// The fewest and most lines of analysis.
const MULTIPV: std::ops::RangeInclusive<u64> = 1..=9;
/// Thinking per move in a new session, in milliseconds.
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// What the page draws (sent as JSON on every change).
#[derive(Serialize)]
pub struct View<'a> {
    version: u64,
    engines: &'a [String],
    /// The players' names, x's and o's, as the record has them.
    players: [String; 2],
    /// Each of Ultimo's levels' nominal Elo in this game, level 1 first.
    levels: Vec<u32>,
    /// "uttt" or "super15".
    game: GameKind,
    start_fen: String,
    moves: Vec<String>,
    cursor: usize,
    fen: String,
    side: Player,
    /// The board, as the game draws it.
    #[serde(flatten)]
    board: BoardView,
    /// "x", "o" or "draw" when the game is over in the position shown.
    outcome: Option<&'static str>,
    /// "x", "o" or "draw" when the game is over at its end (by the rules,
    /// a resignation or an agreed draw).
    result: Option<&'static str>,
    /// "x resigns", "draw agreed", or none.
    ending: Option<String>,
    /// The side offering a draw to the other person.
    draw_offer: Option<Player>,
    mode: Mode,
    human: Player,
    limit: MoveLimit,
    clocks: [u64; 2],
    paused: bool,
    analysis: bool,
    multipv: usize,
    seats: &'a [SeatView; SEATS],
    live: Option<&'a AnalysisView>,
    /// Plies before the start position (move numbers of a set-up game).
    start_ply: u32,
    /// Whether the game starts from a set-up position.
    set_up: bool,
    /// Whole-game analysis: x's expected score by ply.
    scan: Vec<Option<f64>>,
    /// Whole-game analysis: each move judged, by move.
    judged: Vec<Option<JudgedView>>,
    /// Whole-game analysis: x's and o's moves summed up, once judged.
    summary: Option<[SummaryView; 2]>,
    scanning: bool,
    status: &'a str,
    /// The game in PGN, as "Save game" writes it.
    record: String,
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win(Player::X) => "x",
        Outcome::Win(Player::O) => "o",
        Outcome::Draw => "draw",
    }
}

/// An error unless `limit` is within the page's bounds.
fn check_limit(limit: MoveLimit) -> Result<(), GuiError> {
    match limit {
        MoveLimit::Movetime { ms } if !MOVETIME_MS.contains(&ms) => {
            Err(out_of_range("the time per move", " ms", ms, &MOVETIME_MS))
        }
        MoveLimit::Nodes { nodes } if !NODES.contains(&nodes) => {
            Err(out_of_range("nodes", "", nodes, &NODES))
        }
        MoveLimit::Clock { base_ms, .. } if !CLOCK_MS.contains(&base_ms) => {
            Err(out_of_range("the clock", " ms", base_ms, &CLOCK_MS))
        }
        MoveLimit::Clock { inc_ms, .. } if !INCREMENT_MS.contains(&inc_ms) => {
            Err(out_of_range("the increment", " ms", inc_ms, &INCREMENT_MS))
        }
        _ => Ok(()),
    }
}

/// `value` refused for lying outside `range`.
fn out_of_range(
    what: &'static str,
    unit: &'static str,
    value: u64,
    range: &std::ops::RangeInclusive<u64>,
) -> GuiError {
    GuiError::OutOfRange {
        what,
        unit,
        value,
        min: *range.start(),
        max: *range.end(),
    }
}

impl Session {
    /// A new game at the empty board, a person (x) against Ultimo.
    pub fn new(engines: Vec<String>) -> Session {
        Session {
            engines,
            line: AnyLine::new(GameKind::Uttt),
            notes: Vec::new(),
            started: now_unix(),
            cursor: 0,
            mode: Mode::Hve,
            human: Player::X,
            limit: MoveLimit::Movetime {
                ms: DEFAULT_MOVETIME_MS,
            },
            clocks: [0; 2],
            paused: false,
            analysis: false,
            multipv: DEFAULT_MULTIPV,
            seats: Default::default(),
            live: None,
            scan: Vec::new(),
            scanning: false,
            status: String::new(),
            version: 0,
            jobs: [0; SEATS],
            turn_started: Instant::now(),
            ending: None,
            draw_offer: None,
        }
    }

    /// The names of the engines; 0 is Ultimo.
    pub fn engines(&self) -> &[String] {
        &self.engines
    }

    /// Bumped at every change: a view of another version is out of date.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// What is known about the engine in `seat`.
    pub fn seat(&self, seat: usize) -> &SeatView {
        &self.seats[seat]
    }

    /// The job the updates of `seat` belong to (0: none).
    pub fn job(&self, seat: usize) -> u64 {
        self.jobs[seat]
    }

    /// Thinking per engine move.
    pub fn limit(&self) -> MoveLimit {
        self.limit
    }

    /// x's and o's clocks, in milliseconds (clock games).
    pub fn clocks(&self) -> [u64; 2] {
        self.clocks
    }

    /// The lines of analysis wanted, when analysis of the position shown
    /// is on.
    pub fn analysis(&self) -> Option<usize> {
        self.analysis.then_some(self.multipv)
    }

    /// Whether a whole-game analysis is wanted (or running).
    pub fn scanning(&self) -> bool {
        self.scanning
    }

    /// The status line.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Gives `seat` the job `id` (`None`: no job), and shows the seat busy
    /// while it has one.
    pub fn assign(&mut self, seat: usize, id: Option<u64>) {
        self.jobs[seat] = id.unwrap_or(0);
        let busy = id.is_some();
        if self.seats[seat].busy != busy {
            self.seats[seat].busy = busy;
            self.changed();
        }
    }

    /// An analysis of the position shown (one of another position, come
    /// late, is dropped).
    pub fn live_analysis(&mut self, view: AnalysisView) {
        if view.fen == self.shown_fen() {
            self.live = Some(view);
            self.changed();
        }
    }

    /// The engine in `seat` played `mv` after `took`, saying `note` of it;
    /// an illegal move stops that engine, and the game is kept.
    pub fn engine_move(&mut self, seat: usize, mv: &str, took: Duration, note: Annotation) {
        self.assign(seat, None);
        if let Err(e) = self.play(mv, took, note) {
            let name = self.seat_name(seat);
            self.seats[seat].error = Some(format!("{name} played an illegal move: {e}"));
            self.status = format!("{name} played an illegal move; the game is kept");
        }
        self.turn_started = Instant::now();
        self.changed();
    }

    /// Whole-game analysis: what the search found at `ply`.
    pub fn scan_point(&mut self, ply: usize, point: ScanPoint) {
        if let Some(slot) = self.scan.get_mut(ply) {
            *slot = Some(point);
        }
        self.changed();
    }

    /// The engine in `seat` failed (`why`): it stays stopped until
    /// restarted.
    pub fn engine_failed(&mut self, seat: usize, why: &str) {
        self.assign(seat, None);
        let name = self.seat_name(seat);
        self.seats[seat].error = Some(format!("{name} {why}"));
        self.status = format!("{name} failed; the game is kept: restart it to go on");
        self.changed();
    }

    /// The job of `seat` ended (a whole-game analysis, or a solved
    /// position).
    pub fn job_done(&mut self, seat: usize) {
        self.assign(seat, None);
        if seat == SCAN {
            self.scanning = false;
            self.status = "whole-game analysis done".into();
        }
        self.changed();
    }

    /// The name of the engine in `seat`.
    fn seat_name(&self, seat: usize) -> String {
        self.engines[self.seats[seat].engine].clone()
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
        if self.cursor != self.line.len() || self.shown_over() || self.ending.is_some() {
            return None;
        }
        let side = self.line.side_at(self.cursor);
        // Only engine-against-engine play pauses.
        let paused = self.mode == Mode::Eve && self.paused;
        (self.engine_plays(side) && !paused && self.seats[side.index()].error.is_none())
            .then_some(side)
    }

    fn changed(&mut self) {
        self.version += 1;
    }

    /// Sets the status line.
    pub fn say(&mut self, text: impl Into<String>) {
        self.status = text.into();
        self.changed();
    }

    /// How the game ended: by the rules at its end, or a resignation or
    /// agreed draw.
    pub fn end_outcome(&self) -> Option<Outcome> {
        match self.ending {
            Some(Ending::Resigned(p)) => Some(Outcome::Win(p.opponent())),
            Some(Ending::Agreed) => Some(Outcome::Draw),
            None => self.line.outcome_at(self.line.len()),
        }
    }

    /// An error when the game cannot go on (it is over, or resigned).
    fn check_open(&self) -> Result<(), GuiError> {
        match self.end_outcome() {
            Some(_) => Err(Refusal::GameOver.into()),
            None => Ok(()),
        }
    }

    /// The person resigns: the side to move between people, the person's
    /// side against an engine.
    fn resign(&mut self) -> Result<(), GuiError> {
        self.check_open()?;
        let side = match self.mode {
            Mode::Hve => self.human,
            Mode::Hvh => self.line.side_at(self.line.len()),
            Mode::Eve => return Err(Refusal::EnginesDoNotResign.into()),
        };
        self.ending = Some(Ending::Resigned(side));
        self.draw_offer = None;
        self.cursor = self.line.len();
        self.say(format!("{side} resigns: {} wins", side.opponent()));
        Ok(())
    }

    /// A draw offer, or an answer to one (see [`Command::Draw`]).
    fn draw(&mut self, accept: Option<bool>) -> Result<(), GuiError> {
        self.check_open()?;
        let side = self.line.side_at(self.line.len());
        match (self.mode, accept, self.draw_offer) {
            (Mode::Eve, ..) => Err(Refusal::EnginesDoNotAgreeDraws.into()),
            (Mode::Hve, _, _) => {
                // The engine's last word on the game: its last move's score.
                let engine_side = self.human.opponent();
                let score = (0..self.line.len())
                    .rev()
                    .filter(|&k| self.line.side_at(k) == engine_side)
                    .find_map(|k| self.notes.get(k).and_then(|n| n.note.score));
                let accepts = match score {
                    Some(pgn::Score::Cp(cp)) => cp <= 10,
                    Some(pgn::Score::Mate(n)) => n < 0,
                    None => false,
                };
                if accepts {
                    self.ending = Some(Ending::Agreed);
                    self.cursor = self.line.len();
                    self.say("the engine accepts: draw agreed");
                } else {
                    self.say("the engine declines the draw");
                }
                Ok(())
            }
            (Mode::Hvh, None, _) => {
                self.draw_offer = Some(side);
                self.say(format!("{side} offers a draw"));
                Ok(())
            }
            (Mode::Hvh, Some(_), None) => Err(Refusal::NoDrawOffered.into()),
            (Mode::Hvh, Some(yes), Some(by)) => {
                self.draw_offer = None;
                if yes {
                    self.ending = Some(Ending::Agreed);
                    self.cursor = self.line.len();
                    self.say("draw agreed");
                } else {
                    self.say(format!("{} declines the draw", by.opponent()));
                }
                Ok(())
            }
        }
    }

    fn reset_game(&mut self, line: AnyLine, notes: Vec<Annotation>) {
        self.ending = None;
        self.draw_offer = None;
        self.cursor = line.len();
        self.line = line;
        self.notes = notes;
        self.notes.truncate(self.line.len());
        self.started = now_unix();
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

    /// Shows a game that [`prepare_load`] read, in place of this one.
    pub fn take_loaded(&mut self, loaded: Loaded) {
        self.reset_game(loaded.line, loaded.notes);
        self.say(loaded.status);
        self.turn_started = Instant::now();
    }

    /// Plays the move `mv` in the position shown, dropping the moves after
    /// it, with `note` (what an engine said of it, for the PGN). The
    /// mover's clock is charged `took` (a clock game).
    pub fn play(&mut self, mv: &str, took: Duration, note: Annotation) -> Result<(), GuiError> {
        if self.cursor == self.line.len() {
            self.check_open()?;
        }
        let played = self.line.play(self.cursor, mv)?;
        self.ending = None;
        self.draw_offer = None;
        self.notes.truncate(self.cursor);
        self.notes.resize(self.cursor, Annotation::default());
        self.notes.push(note);
        let mover = played.mover;
        self.cursor += 1;
        self.scan.truncate(self.cursor);
        self.live = None;
        if let MoveLimit::Clock { inc_ms, .. } = self.limit {
            let left = &mut self.clocks[mover.index()];
            *left = left.saturating_sub(took.as_millis() as u64) + inc_ms;
        }
        self.status = match played.outcome {
            // The status line says the result already ("Game over: x wins").
            Some(Outcome::Win(_)) => format!("the winning move: {mv}"),
            Some(Outcome::Draw) => format!("the last move: {mv}"),
            None => String::new(),
        };
        self.changed();
        Ok(())
    }

    /// Carries out a command from the page. `took` is how long the person
    /// thought (clocks).
    pub fn apply(&mut self, command: Command, took: Duration) -> Result<(), GuiError> {
        match command {
            Command::Play { mv } => self.persons_move(&mv, took),
            Command::Goto { ply } => self.goto(ply),
            Command::New { game } => {
                let game = game.unwrap_or(self.line.game());
                self.reset_game(AnyLine::new(game), Vec::new());
                self.say(match game {
                    GameKind::Uttt => "new game",
                    GameKind::Super15 => "new game of Super 1 al 5",
                });
                Ok(())
            }
            Command::Undo {} => self.undo(),
            Command::Setup { fen, moves, game } => {
                let game = game.unwrap_or(self.line.game());
                let line = parse_game(game, &fen, &moves)?;
                self.reset_game(line, Vec::new());
                self.say("position set up");
                Ok(())
            }
            Command::Load { text, name, number } => {
                let game = self.line.game();
                let loaded = prepare_load(&text, || game, &name, number)?;
                self.take_loaded(loaded);
                Ok(())
            }
            Command::Mode {
                mode,
                human,
                x,
                o,
                levels,
                limit,
            } => self.set_mode(mode, human, [x, o], levels, limit),
            Command::Pause { paused } => {
                self.paused = paused;
                self.say(if paused { "paused" } else { "playing" });
                Ok(())
            }
            Command::Analysis {
                on,
                multipv,
                engine,
            } => self.set_analysis(on, multipv, engine),
            Command::Scan {} => {
                self.scan = vec![None; self.line.len() + 1];
                self.scanning = true;
                self.say("analysing the whole game");
                Ok(())
            }
            Command::Restart { seat } => self.restart(seat),
            Command::Resign {} => self.resign(),
            Command::Draw { accept } => self.draw(accept),
        }
    }

    /// Carries out a command from the page now: the person thought since
    /// the turn began, and a move starts the next turn.
    pub fn command(&mut self, command: Command) -> Result<(), GuiError> {
        let took = self.turn_started.elapsed();
        let before = self.line.len();
        let result = self.apply(command, took);
        if self.line.len() != before {
            self.turn_started = Instant::now();
        }
        result
    }

    /// A person's move in the position shown, unless an engine is to move
    /// there.
    fn persons_move(&mut self, mv: &str, took: Duration) -> Result<(), GuiError> {
        self.line.check_word(mv)?;
        if self.cursor == self.line.len() {
            let side = self.line.side_at(self.cursor);
            if self.engine_plays(side) && !self.shown_over() {
                return Err(Refusal::EnginesTurn(side).into());
            }
        }
        self.play(mv, took, Annotation::default())
    }

    /// Whether an engine plays `side` in this mode (paused or not).
    fn engine_plays(&self, side: Player) -> bool {
        match self.mode {
            Mode::Hve => side != self.human,
            Mode::Eve => true,
            Mode::Hvh => false,
        }
    }

    /// Shows the position after `ply` moves.
    fn goto(&mut self, ply: usize) -> Result<(), GuiError> {
        if ply > self.line.len() {
            return Err(Refusal::PastTheEnd {
                ply,
                moves: self.line.len(),
            }
            .into());
        }
        self.cursor = ply;
        self.live = None;
        self.status.clear();
        self.changed();
        Ok(())
    }

    /// Takes back to the last position where the person is to move (the
    /// last move between people).
    fn undo(&mut self) -> Result<(), GuiError> {
        if self.cursor == 0 {
            return Err(Refusal::NothingToTakeBack.into());
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
        self.ending = None;
        self.draw_offer = None;
        self.notes.truncate(ply);
        self.cursor = ply;
        self.scan.truncate(ply + 1);
        self.live = None;
        self.say("taken back");
        Ok(())
    }

    /// Who plays (`engines`: x's and o's) and how long engines think.
    fn set_mode(
        &mut self,
        mode: Mode,
        human: Player,
        engines: [usize; 2],
        levels: [u8; 2],
        limit: MoveLimit,
    ) -> Result<(), GuiError> {
        for (e, level) in engines.into_iter().zip(levels) {
            self.check_engine(e)?;
            if Strength::level(level as usize).is_none() && level != 0 {
                return Err(Refusal::NoLevel(level).into());
            }
            if level != 0 && e != 0 {
                return Err(Refusal::LevelNotOurs(self.engines[e].clone()).into());
            }
        }
        check_limit(limit)?;
        let limit_changed = self.limit != limit;
        self.mode = mode;
        self.human = human;
        self.limit = limit;
        if limit_changed {
            self.reset_clocks();
        }
        for (seat, engine) in engines.into_iter().enumerate() {
            self.seat_engine(seat, engine);
            self.seats[seat].level = levels[seat];
        }
        self.paused = mode == Mode::Eve;
        self.say(match mode {
            Mode::Hve => format!("you play {}", self.human),
            Mode::Eve => "engine against engine: press start".to_string(),
            Mode::Hvh => "two players on one screen".to_string(),
        });
        Ok(())
    }

    /// Analysis on or off, with `multipv` lines, by `engine`.
    fn set_analysis(&mut self, on: bool, multipv: usize, engine: usize) -> Result<(), GuiError> {
        let lines = u64::try_from(multipv).unwrap_or(u64::MAX);
        if !MULTIPV.contains(&lines) {
            return Err(out_of_range("lines", "", lines, &MULTIPV));
        }
        self.check_engine(engine)?;
        self.analysis = on;
        self.multipv = multipv;
        self.seat_engine(ANALYSIS, engine);
        self.live = None;
        self.say(match on {
            true => format!("analysis by {}", self.engines[engine]),
            false => "analysis off".to_string(),
        });
        Ok(())
    }

    /// Restarts a seat's engine after an error.
    fn restart(&mut self, seat: usize) -> Result<(), GuiError> {
        let Some(s) = self.seats.get_mut(seat) else {
            return Err(Refusal::NoSeat(seat).into());
        };
        s.error = None;
        self.say("engine restarted");
        Ok(())
    }

    /// An error unless `engine` is one of the engines.
    fn check_engine(&self, engine: usize) -> Result<(), GuiError> {
        match engine < self.engines.len() {
            true => Ok(()),
            false => Err(Refusal::NoEngine(engine).into()),
        }
    }

    /// Puts `engine` in `seat`; another engine starts without the old one's
    /// error.
    fn seat_engine(&mut self, seat: usize, engine: usize) {
        if self.seats[seat].engine != engine {
            self.seats[seat].engine = engine;
            self.seats[seat].error = None;
        }
    }

    /// What the page draws.
    pub fn view(&self) -> View<'_> {
        let n = self.cursor;
        View {
            version: self.version,
            engines: &self.engines,
            players: [self.player_name(Player::X), self.player_name(Player::O)],
            levels: levels(self.line.game()).iter().map(|l| l.elo).collect(),
            game: self.line.game(),
            start_fen: self.line.start_fen(),
            moves: self.line.moves_text(),
            cursor: n,
            fen: self.line.fen_at(n),
            side: self.line.side_at(n),
            board: self.line.board_at(n),
            outcome: self.line.outcome_at(n).map(outcome_name),
            result: self.end_outcome().map(outcome_name),
            ending: self.ending.map(|e| match e {
                Ending::Resigned(p) => format!("{p} resigns"),
                Ending::Agreed => "draw agreed".to_string(),
            }),
            draw_offer: self.draw_offer,
            mode: self.mode,
            human: self.human,
            limit: self.limit,
            clocks: self.clocks,
            paused: self.paused,
            analysis: self.analysis,
            multipv: self.multipv,
            seats: &self.seats,
            live: self.live.as_ref(),
            start_ply: self.line.start_ply(),
            set_up: self.line.opening() != "startpos",
            scan: self.scan_curve(),
            judged: self.judged(),
            summary: self.summary(),
            scanning: self.scanning,
            status: &self.status,
            record: self.record(),
        }
    }

    /// x's expected score at each ply the whole-game analysis has reached.
    fn scan_curve(&self) -> Vec<Option<f64>> {
        let for_x = |ply: usize, p: &ScanPoint| match self.line.side_at(ply) {
            Player::X => p.eval.expected(),
            Player::O => 1.0 - p.eval.expected(),
        };
        let points = self.scan.iter().enumerate();
        points
            .map(|(ply, p)| p.as_ref().map(|p| for_x(ply, p)))
            .collect()
    }

    /// Each move judged by the whole-game analysis, once the positions
    /// before and after it are searched: the review's judgement.
    fn judged(&self) -> Vec<Option<JudgedView>> {
        let moves = self.line.moves_text();
        let judge = |k: usize| {
            let (Some(Some(before)), Some(Some(after))) = (self.scan.get(k), self.scan.get(k + 1))
            else {
                return None;
            };
            let best = before.best.as_deref() == Some(moves[k].as_str());
            let loss = review::move_loss(before.eval, after.eval.flip(), best);
            let mark = review::THRESHOLDS.mark(loss);
            Some(JudgedView {
                loss,
                mark: mark.map(|m| m.symbol()),
                name: mark.map(|m| m.name()),
                best: before.best.clone().filter(|_| !best),
            })
        };
        let judged = (0..moves.len()).map(judge);
        judged.take(self.scan.len().saturating_sub(1)).collect()
    }

    /// x's and o's judged moves summed up, when any move is judged.
    fn summary(&self) -> Option<[SummaryView; 2]> {
        let judged = self.judged();
        if judged.iter().all(Option::is_none) {
            return None;
        }
        let side = |p: Player| {
            let mine = judged.iter().enumerate().filter_map(|(k, j)| {
                let j = j.as_ref().filter(|_| self.line.side_at(k) == p)?;
                let mark = review::Mark::ALL
                    .into_iter()
                    .find(|m| Some(m.symbol()) == j.mark);
                Some((j.loss, mark))
            });
            let s = review::SideSummary::of(mine);
            SummaryView {
                moves: s.moves,
                inaccuracies: s.inaccuracies,
                mistakes: s.mistakes,
                blunders: s.blunders,
                average_loss: s.average_loss,
            }
        };
        Some([side(Player::X), side(Player::O)])
    }

    /// The name of who plays `side` for the PGN and the page: `Human`, or
    /// the engine's name, with Ultimo's level when it has one (as
    /// [`Strength::player_name`] writes it).
    fn player_name(&self, side: Player) -> String {
        match self.engine_plays(side) {
            true => {
                let seat = &self.seats[side.index()];
                self.strength(side)
                    .player_name(&self.engines[seat.engine], self.line.game())
            }
            false => "Human".to_string(),
        }
    }

    /// How strongly the engine playing `side` plays: Ultimo's level, or
    /// full strength.
    pub fn strength(&self, side: Player) -> Strength {
        Strength::level(self.seats[side.index()].level as usize).unwrap_or_default()
    }

    /// The game as PGN: the Seven Tag Roster (Event `ultimo gui`, the date
    /// the game began, White and Black who play x and o now), the game's
    /// tags (`Variant`; `SetUp` and `FEN` for a set-up position),
    /// `TimeControl` (`-` between people), `Termination` (`normal` when the
    /// rules ended the game, else `unterminated`), `PlyCount`, and each
    /// move's note (score, depth and time of an engine's move).
    pub fn pgn(&self) -> PgnGame {
        let mut game = PgnGame::with_roster();
        game.set_tag("Event", "ultimo gui");
        game.set_tag("Date", pgn::date_from_unix(self.started));
        game.set_tag("Round", "-");
        game.set_tag("White", self.player_name(Player::X));
        game.set_tag("Black", self.player_name(Player::O));
        let end = self.end_outcome();
        game.set_result(PgnResult::from_outcome(end));
        let notes = &self.notes[..self.notes.len().min(self.line.len())];
        each!(&self.line, l => game.set_moves(&l.start, &l.moves, notes));
        let control = match (self.mode, self.limit) {
            (Mode::Hvh, _) => "-".to_string(),
            (_, MoveLimit::Movetime { ms }) => {
                time_control_tag(&TimeControl::Movetime(Duration::from_millis(ms)))
            }
            (_, MoveLimit::Nodes { nodes }) => time_control_tag(&TimeControl::Nodes(nodes)),
            (_, MoveLimit::Clock { base_ms, inc_ms }) => time_control_tag(&TimeControl::Clock {
                base: Duration::from_millis(base_ms),
                increment: Duration::from_millis(inc_ms),
            }),
        };
        game.set_tag("TimeControl", control);
        // A resignation or an agreed draw ends the game normally too (as
        // PGN's Termination says); the status line and the result tell how.
        let termination = match end {
            Some(_) => "normal",
            None => "unterminated",
        };
        game.set_tag("Termination", termination);
        game.set_tag("PlyCount", self.line.len().to_string());
        game
    }

    /// The game as PGN text (see [`Session::pgn`]).
    pub fn record(&self) -> String {
        self.pgn().to_string()
    }
}

/// Seconds since 1970 now (0 if the clock is before 1970).
fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::load::parse_record;
    use crate::pgn::Replayed;
    use crate::rules;

    fn session() -> Session {
        Session::new(vec!["Ultimo".into()])
    }

    fn cmd(json: &str) -> Command {
        serde_json::from_str(json).unwrap()
    }

    fn load_cmd(text: &str) -> Command {
        Command::Load {
            text: text.to_string(),
            name: String::new(),
            number: None,
        }
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
        s.play("e4", Duration::ZERO, Annotation::default()).unwrap();
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
        assert!(
            record.ends_with("\n\n1. e5 e4 2. d2 *\n"),
            "the record is PGN: {record}"
        );
        let mut t = session();
        t.apply(load_cmd(&record), Duration::ZERO).unwrap();
        assert_eq!(t.moves(), s.moves());
        // Old saved games still load.
        let old = "# ultimo game\nopening startpos\nmoves e5 e4 d2\nresult *\n";
        t.apply(load_cmd(old), Duration::ZERO).unwrap();
        assert_eq!(t.moves(), s.moves());
        let line = parse_record("e5 e4\n", GameKind::Uttt).unwrap();
        assert_eq!(line, parse_game(GameKind::Uttt, "", "e5 e4").unwrap());
        let line = parse_record("opening e5 e4\nmoves d2\n", GameKind::Super15).unwrap();
        assert_eq!(line.moves_text(), ["e5", "e4", "d2"]);
        let fen = s.shown_fen();
        let line = parse_record(&fen, GameKind::Uttt).unwrap();
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
        let err = parse_game(GameKind::Uttt, &"x".repeat(100), "")
            .unwrap_err()
            .to_string();
        assert!(err.len() < 160 && err.contains("..."), "{err}");
    }

    #[test]
    fn saves_pgn_with_players_notes_and_set_up_positions() {
        let mut s = Session::new(vec!["Ultimo".into(), "other".into()]);
        s.apply(
            cmd(r#"{"cmd":"mode","mode":"hve","human":"o","x":1,"limit":{"kind":"nodes","nodes":300}}"#),
            Duration::ZERO,
        )
        .unwrap();
        let note = pgn::MoveNote {
            score: Some(pgn::Score::Cp(61)),
            depth: Some(8),
            time_ms: Some(100),
        };
        s.play("e5", Duration::ZERO, Annotation::note(note))
            .unwrap();
        s.play("e4", Duration::ZERO, Annotation::default()).unwrap();
        let game = s.pgn();
        let tags: Vec<&str> = game.tags.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            tags,
            [
                "Event",
                "Site",
                "Date",
                "Round",
                "White",
                "Black",
                "Result",
                "Variant",
                "TimeControl",
                "Termination",
                "PlyCount"
            ]
        );
        assert_eq!(game.tag("White"), Some("other"));
        assert_eq!(game.tag("Black"), Some("Human"));
        assert_eq!(game.tag("Variant"), Some("Ultimate Tic-Tac-Toe"));
        assert_eq!(game.tag("TimeControl"), Some("nodes=300"));
        assert_eq!(game.tag("Termination"), Some("unterminated"));
        assert_eq!(game.tag("Date").map(str::len), Some(10));
        assert_eq!(game.movetext(), "1. e5 {+0.61/8 0.100s} 1... e4 *\n");
        // It reads back with its note, and replays to the same position.
        let text = s.record();
        let read = pgn::read(&text, "saved.pgn").unwrap();
        let replayed = Replayed::<rules::Position>::new(&read[0], "saved.pgn").unwrap();
        assert_eq!(replayed.end.to_string(), s.shown_fen());
        assert_eq!(replayed.annotations[0].note, note);
        // Loaded, the note is kept (and saved again); a move played in the
        // past drops the notes after it.
        let mut t = session();
        t.apply(load_cmd(&text), Duration::ZERO).unwrap();
        assert_eq!(t.status, "game loaded: other - Human, *");
        assert!(t.record().contains("1. e5 {+0.61/8 0.100s} 1... e4 *"));
        t.mode = Mode::Hvh;
        t.apply(cmd(r#"{"cmd":"goto","ply":0}"#), Duration::ZERO)
            .unwrap();
        t.apply(cmd(r#"{"cmd":"play","mv":"d5"}"#), Duration::ZERO)
            .unwrap();
        assert!(t.record().ends_with("\n\n1. d5 *\n"), "{}", t.record());
        // Between people: Human - Human, no time control; a set-up
        // position has SetUp and FEN, and an ended game its result.
        let mut u = session();
        u.mode = Mode::Hvh;
        let fen = s.shown_fen();
        let setup = serde_json::json!({ "cmd": "setup", "fen": fen });
        u.apply(cmd(&setup.to_string()), Duration::ZERO).unwrap();
        let game = u.pgn();
        assert_eq!(game.tag("White"), Some("Human"));
        assert_eq!(game.tag("TimeControl"), Some("-"));
        assert_eq!(game.tag("SetUp"), Some("1"));
        assert_eq!(game.tag("FEN"), Some(fen.as_str()));
        // A game played to its end (the first legal move each time).
        let mut pos = <rules::Position as crate::game::Notation>::startpos();
        let mut moves = Vec::new();
        while pos.outcome().is_none() {
            let m = pos.legal_moves().iter().next().copied().unwrap();
            moves.push(m.to_string());
            pos.play(m);
        }
        let setup = serde_json::json!({ "cmd": "setup", "moves": moves.join(" ") });
        u.apply(cmd(&setup.to_string()), Duration::ZERO).unwrap();
        let game = u.pgn();
        let result = PgnResult::from_outcome(pos.outcome());
        assert_eq!(game.result, result);
        assert_eq!(game.tag("Result"), Some(result.as_str()));
        assert_eq!(game.tag("Termination"), Some("normal"));
        assert_eq!(game.tag("PlyCount"), Some(moves.len().to_string().as_str()));
        let read = pgn::read(&u.record(), "").unwrap();
        let replayed = Replayed::<rules::Position>::new(&read[0], "").unwrap();
        assert_eq!(replayed.end, pos);
    }

    #[test]
    fn loads_pgn_of_both_games_and_refuses_broken_pgn() {
        let mut s = session();
        let uttt = "[Event \"m\"]\n[White \"base\"]\n[Black \"new\"]\n[Result \"*\"]\n\n\
                    1. e5 {book} 1... e4 {+0.10/3 0.050s} 2. d2 *\n";
        s.apply(load_cmd(uttt), Duration::ZERO).unwrap();
        assert_eq!(s.moves(), ["e5", "e4", "d2"]);
        assert_eq!(s.status, "game loaded: base - new, *");
        assert!(
            s.record()
                .contains("1. e5 {book} 1... e4 {+0.10/3 0.050s} 2. d2 *")
        );
        // Movetext alone is PGN too, and several games: the first, or the
        // one asked for.
        let two = "1. e5 e4 *\n\n[Variant \"Super 1 al 5\"]\n\n1. e2e3 e7e6 *\n";
        s.apply(load_cmd(two), Duration::ZERO).unwrap();
        assert_eq!((s.line().game(), s.moves().len()), (GameKind::Uttt, 2));
        assert!(s.status.starts_with("game 1 of 2 loaded"), "{}", s.status);
        let second = Command::Load {
            text: two.to_string(),
            name: "two.pgn".into(),
            number: Some(2),
        };
        s.apply(second, Duration::ZERO).unwrap();
        assert_eq!(s.line().game(), GameKind::Super15);
        assert_eq!(s.moves(), ["e2e3", "e7e6"]);
        let version = s.version;
        let fen = s.shown_fen();
        let refused = |s: &mut Session, text: &str, name: &str, number| {
            let command = Command::Load {
                text: text.to_string(),
                name: name.to_string(),
                number,
            };
            s.apply(command, Duration::ZERO).unwrap_err().to_string()
        };
        assert_eq!(
            refused(&mut s, two, "two.pgn", Some(3)),
            "there is no game 3: the PGN holds 2 games"
        );
        assert_eq!(
            refused(
                &mut s,
                "[Event \"x\"]\n[White \"a\n1. e5 *\n",
                "bad.pgn",
                None
            ),
            "bad.pgn:2: the tag's value is not closed with '\"'"
        );
        assert_eq!(
            refused(&mut s, "[Event \"x\"]\n\n1. e5 a1 *\n", "", None),
            "line 3: move 1... a1 is illegal: the move must be on the centre board"
        );
        let chess = "[Variant \"chess\"]\n\n1. e4 *\n";
        let err = refused(&mut s, chess, "", None);
        assert!(err.starts_with("line 1: the Variant 'chess'"), "{err}");
        let err = refused(&mut s, "1. e5 e4 2. d2", "", None);
        assert!(err.contains("do not end with a result"), "{err}");
        assert_eq!(
            (s.version, s.shown_fen()),
            (version, fen),
            "nothing changed"
        );
    }

    #[test]
    fn view_shows_the_board() {
        let mut s = session();
        s.mode = Mode::Hvh;
        for m in ["e5", "e4"] {
            s.play(m, Duration::ZERO, Annotation::default()).unwrap();
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
    fn whole_game_analysis_judges_moves_as_the_review_does() {
        let mut s = session();
        s.mode = Mode::Hvh;
        s.apply(
            cmd(r#"{"cmd":"setup","fen":"","moves":"e5 e4 d2"}"#),
            Duration::ZERO,
        )
        .unwrap();
        s.apply(Command::Scan {}, Duration::ZERO).unwrap();
        let point = |q: f64, best: &str| ScanPoint {
            eval: review::Eval { q, proven: None },
            best: Some(best.to_string()),
        };
        // x's e5 is the best move; o's e4 drops o from 0.45 to 0.20
        // (0.50 in winning chances: a blunder); d2, the best move, loses
        // nothing though the score drops (two searches differ).
        s.scan_point(0, point(0.55, "e5"));
        s.scan_point(1, point(0.45, "f5"));
        s.scan_point(2, point(0.80, "d2"));
        s.scan_point(3, point(0.26, "a1"));
        let v = serde_json::to_value(s.view()).unwrap();
        assert_eq!(v["judged"][0]["mark"], serde_json::Value::Null);
        assert_eq!(v["judged"][1]["mark"], "??");
        assert_eq!(v["judged"][1]["best"], "f5");
        assert_eq!(v["judged"][2]["mark"], serde_json::Value::Null);
        assert_eq!(v["scan"][1], 0.55);
        assert_eq!(v["summary"][1]["blunders"], 1);
        assert_eq!(v["summary"][0]["moves"], 2);
        let loss = review::move_loss(
            review::Eval {
                q: 0.45,
                proven: None,
            },
            review::Eval {
                q: 0.20,
                proven: None,
            },
            false,
        );
        assert!((loss - 0.5).abs() < 1e-9);
        assert_eq!(v["start_ply"], 0);
        // A set-up position counts its moves from its own number.
        let fen = s.shown_fen();
        let setup = serde_json::json!({ "cmd": "setup", "fen": fen });
        s.apply(cmd(&setup.to_string()), Duration::ZERO).unwrap();
        assert_eq!(serde_json::to_value(s.view()).unwrap()["start_ply"], 3);
    }

    #[test]
    fn resigns_and_agrees_draws_in_the_record() {
        let mut s = session();
        s.mode = Mode::Hvh;
        s.play("e5", Duration::ZERO, Annotation::default()).unwrap();
        s.apply(Command::Resign {}, Duration::ZERO).unwrap();
        assert_eq!(s.status, "o resigns: x wins");
        let game = s.pgn();
        assert_eq!(game.tag("Result"), Some("1-0"));
        assert_eq!(game.tag("Termination"), Some("normal"));
        let err = s.apply(cmd(r#"{"cmd":"play","mv":"e4"}"#), Duration::ZERO);
        assert_eq!(err.unwrap_err().to_string(), "the game is over");
        // Taking back reopens the game; a draw offered and accepted.
        s.apply(Command::Undo {}, Duration::ZERO).unwrap();
        assert_eq!(s.pgn().tag("Result"), Some("*"));
        let err = s.apply(cmd(r#"{"cmd":"draw","accept":true}"#), Duration::ZERO);
        assert_eq!(err.unwrap_err().to_string(), "no draw is offered");
        s.apply(cmd(r#"{"cmd":"draw"}"#), Duration::ZERO).unwrap();
        assert_eq!(s.status, "x offers a draw");
        s.apply(cmd(r#"{"cmd":"draw","accept":true}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.pgn().tag("Result"), Some("1/2-1/2"));
        // Against an engine with no score yet, the engine declines.
        let mut t = session();
        t.apply(cmd(r#"{"cmd":"draw"}"#), Duration::ZERO).unwrap();
        assert_eq!(t.status, "the engine declines the draw");
        assert_eq!(t.end_outcome(), None);
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
        s.play("e5", Duration::from_secs(5), Annotation::default())
            .unwrap();
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
        assert!(
            record.contains("[Variant \"Super 1 al 5\"]\n") && record.ends_with("1. e2e3 *\n"),
            "{record}"
        );
        s.apply(cmd(r#"{"cmd":"new","game":"uttt"}"#), Duration::ZERO)
            .unwrap();
        assert_eq!(s.line().game(), GameKind::Uttt);
        s.apply(load_cmd(&record), Duration::ZERO).unwrap();
        assert_eq!(
            (s.line().game(), s.moves()),
            (GameKind::Super15, vec!["e2e3".to_string()])
        );
        // New keeps the game; a setup may name another.
        s.apply(cmd(r#"{"cmd":"new"}"#), Duration::ZERO).unwrap();
        assert_eq!(s.line().game(), GameKind::Super15);
        s.apply(
            cmd(r#"{"cmd":"setup","game":"uttt","moves":"e5"}"#),
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(s.line().game(), GameKind::Uttt);
        let err = parse_record("variant chess\nmoves e5\n", GameKind::Uttt).unwrap_err();
        assert_eq!(err.to_string(), "unknown variant 'chess' (uttt or super15)");
    }
}
