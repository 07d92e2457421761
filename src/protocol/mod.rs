//! The engine's line protocol on stdin/stdout (UCI/UGI conventions); see
//! `protocol.md` for the full specification.
//!
//! Input is read on its own thread and handed over a channel, so that
//! `stop`, `isready` and `quit` are served while a search runs on another
//! thread. A search owns the [`Searcher`] while it runs and hands it back
//! when it ends. Every line that cannot be carried out gets one
//! `info string error: ...` line and changes nothing.

pub mod codingame;
pub mod command;
pub mod input;
pub mod options;
pub mod riddles;

use crate::engine::{LoadedNet, NetGame};
use crate::game::{Game, GameKind, Notation, Outcome, Player};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use command::{Command, CommandError, Go, Query};
use options::{EngineOptions, OptionError};
use thiserror::Error;

use crate::display::Style;
use crate::display::board::Board;
use crate::display::score::score;
use crate::net::NetError;
use crate::rules::Position;
use crate::search::{Clock, Control, Limits, Line, Report, SearchError, Searcher};

/// Why a protocol line cannot be carried out (answered by one
/// `info string error: ...` line), or why the protocol cannot start.
#[derive(Debug, Error)]
pub enum ProtocolError<G: Notation = Position> {
    /// The line does not parse.
    #[error(transparent)]
    Command(#[from] CommandError<G>),
    /// `setoption` cannot set the option.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A command that needs the search trees came during a search.
    #[error("{0} is not allowed during a search; send stop first")]
    Busy(&'static str),
    /// `go` while a search runs.
    #[error("go: a search is already running")]
    AlreadySearching,
    /// `go ponder` with the Ponder option off.
    #[error("go ponder: set the Ponder option to true first")]
    PonderOff,
    /// `ponderhit` without a ponder search.
    #[error("ponderhit: no ponder search is running")]
    NotPondering,
    /// An earlier rebuild of the search trees failed.
    #[error("no search trees (an earlier allocation failed); set Hash lower")]
    NoSearcher,
    /// The searcher cannot be made or refused its options (e.g. memory).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The search thread could not be started.
    #[error("go: cannot start the search thread: {0}")]
    Thread(io::Error),
    /// `perft` could not write its report.
    #[error("perft: {0}")]
    Perft(io::Error),
    /// `setoption name EvalFile` with a file that is no net; the engine
    /// keeps the net it has.
    #[error("EvalFile: {source}; keeping net {kept}")]
    NetFile {
        /// Why the file cannot be used.
        source: NetError,
        /// The version of the net kept.
        kept: String,
    },
    /// `setoption name Game` with a name that is no game.
    #[error("setoption: Game must be one of {names}, got '{0}'", names = game_names())]
    UnknownGame(String),
}

/// The games' names, separated by spaces.
fn game_names() -> String {
    GameKind::ALL.map(GameKind::name).join(" ")
}

/// The name of the option that chooses the game.
pub const GAME_OPTION: &str = "Game";

/// The engine's name and version, as `id name` reports it.
pub const ENGINE_NAME: &str = concat!("Ultimo ", env!("CARGO_PKG_VERSION"));
/// The `id author` line's text.
pub const ENGINE_AUTHOR: &str = "The Ultimo developers";

/// Where answers go: whole lines, flushed at once, from any thread.
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// Lines to `w`.
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output {
            inner: Arc::new(Mutex::new(Box::new(w))),
        }
    }

    /// Writes one line (a reader that is gone is ignored).
    pub fn line(&self, text: &str) {
        let mut w = match self.inner.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = writeln!(w, "{text}").and_then(|_| w.flush());
    }

    /// Writes an error line.
    pub fn error(&self, text: &str) {
        self.line(&format!("info string error: {text}"));
    }
}

/// Reads lines on a thread of its own; `None` at end of input. Bytes that
/// are not UTF-8 are replaced, so such a line gets an error, not a hang-up.
pub fn spawn_reader(input: impl BufRead + Send + 'static) -> Receiver<Option<String>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut input = input;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(None);
                    return;
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send(Some(line)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// Runs the protocol on stdin and stdout until `quit` or end of input,
/// starting with `game` (`setoption name Game` changes it).
pub fn run_stdio(game: GameKind) -> Result<(), ProtocolError> {
    let rx = spawn_reader(io::BufReader::new(io::stdin()));
    run(game, Output::new(io::stdout()), &rx)
}

/// Runs the protocol on lines from `rx` until `quit` or end of input,
/// starting with `game` and switching engines when `setoption name Game`
/// asks for another game (the other options are kept).
pub fn run(
    game: GameKind,
    out: Output,
    rx: &Receiver<Option<String>>,
) -> Result<(), ProtocolError> {
    let mut game = game;
    let mut options = EngineOptions::default();
    loop {
        let next = match game {
            GameKind::Uttt => Engine::<Position>::with_options(out.clone(), options)?.run(rx),
            GameKind::Super15 => {
                Engine::<crate::super15::Position>::with_options(out.clone(), options)?.run(rx)
            }
        };
        match next {
            Some((g, o)) => (game, options) = (g, o),
            None => return Ok(()),
        }
    }
}

/// The version of `net`, or `none`.
fn net_version<G: Game>(net: Option<&LoadedNet<G>>) -> String {
    net.map_or("none".into(), |n| n.version.clone())
}

/// A search running on its own thread.
struct Running<G: Board> {
    control: Arc<Control>,
    /// Set by the search thread just before it writes `bestmove`.
    finished: Arc<AtomicBool>,
    handle: JoinHandle<Searcher<G>>,
}

/// The engine's state between lines, for one game.
pub struct Engine<G: Board + NetGame = Position> {
    out: Output,
    pos: G,
    options: EngineOptions,
    /// The game's net, if it has one.
    net: Option<LoadedNet<G>>,
    /// The searcher, while no search holds it.
    searcher: Option<Searcher<G>>,
    running: Option<Running<G>>,
    /// The game `setoption name Game` asked for.
    switch: Option<GameKind>,
    /// The moves drawn with the RandomMove option since the start or the
    /// last new game (each draw's generator is seeded from Seed and this
    /// count).
    random_draws: u64,
}

impl<G: Board + NetGame> Engine<G> {
    /// An engine at the start position with default options.
    pub fn new(out: Output) -> Result<Engine<G>, ProtocolError> {
        Engine::with_options(out, EngineOptions::default())
    }

    /// An engine at the start position with these options.
    pub fn with_options(
        out: Output,
        mut options: EngineOptions,
    ) -> Result<Engine<G>, ProtocolError> {
        let net = match options.setup.load_net::<G>() {
            Ok(net) => net,
            Err(e) => {
                // The file was read before (another game's engine): tell,
                // and go on with the built-in net.
                let net = G::net(None).ok().flatten();
                let kept = net_version(net.as_ref());
                out.error(&ProtocolError::<G>::NetFile { source: e, kept }.to_string());
                options.setup.net_file = None;
                net
            }
        };
        let mut engine = Engine {
            out,
            pos: G::startpos(),
            options,
            net,
            searcher: None,
            running: None,
            switch: None,
            random_draws: 0,
        };
        engine.searcher = Some(
            engine
                .options
                .setup
                .searcher(engine.net.as_ref(), G::startpos())?,
        );
        Ok(engine)
    }

    /// Handles lines until `quit` or end of input (`None`), or until
    /// `setoption name Game` asks for another game: then the game and the
    /// options to start its engine with.
    pub fn run(mut self, rx: &Receiver<Option<String>>) -> Option<(GameKind, EngineOptions)> {
        while let Ok(Some(line)) = rx.recv() {
            if !self.handle_line(&line) {
                break;
            }
            if let Some(game) = self.switch.take() {
                self.quit();
                return Some((game, self.options));
            }
        }
        self.quit();
        None
    }

    /// Handles one line; `false` when the engine should exit.
    pub fn handle_line(&mut self, line: &str) -> bool {
        self.reap_finished();
        let parsed = command::parse(line, &self.pos);
        match parsed {
            Ok(None) => true,
            Ok(Some(Command::Quit)) => false,
            Ok(Some(cmd)) => {
                if let Err(e) = self.execute(cmd) {
                    self.out.error(&e.to_string());
                }
                true
            }
            Err(e) => {
                self.out.error(&e.to_string());
                true
            }
        }
    }

    /// Stops any search and waits for it (it still writes its `bestmove`,
    /// so that every `go` gets one).
    fn quit(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
        self.join();
    }

    /// Takes the searcher back from a search that has written `bestmove`.
    fn reap_finished(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.finished.load(Ordering::SeqCst))
        {
            self.join();
        }
    }

    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    // The search thread panicked; start over with a fresh
                    // searcher so that the engine keeps working.
                    self.out
                        .error("internal error: the search failed; search trees reset");
                    self.searcher = self
                        .options
                        .setup
                        .searcher(self.net.as_ref(), self.pos)
                        .ok();
                }
            }
        }
    }

    /// The searcher for a command that needs it: waits for a search that
    /// was told to stop; refuses while one is still running.
    fn idle_searcher(&mut self, what: &'static str) -> Result<&mut Searcher<G>, ProtocolError<G>> {
        if let Some(r) = &self.running {
            if r.control.is_stopped() {
                self.join();
            } else {
                return Err(ProtocolError::Busy(what));
            }
        }
        self.searcher.as_mut().ok_or(ProtocolError::NoSearcher)
    }

    fn execute(&mut self, cmd: Command<G>) -> Result<(), ProtocolError<G>> {
        match cmd {
            Command::Hello { ugi } => {
                match &self.net {
                    Some(LoadedNet { version, .. }) => self
                        .out
                        .line(&format!("id name {ENGINE_NAME} (net {version})")),
                    None => self.out.line(&format!("id name {ENGINE_NAME}")),
                }
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                if ugi {
                    // The games this engine plays, the one being played first.
                    let others = GameKind::ALL.into_iter().filter(|&g| g != G::KIND);
                    let games: Vec<&str> = std::iter::once(G::KIND)
                        .chain(others)
                        .map(GameKind::name)
                        .collect();
                    self.out.line(&format!(
                        "option name {GAME_OPTION} type combo default {} var {}",
                        G::KIND,
                        games.join(" var ")
                    ));
                }
                for line in options::describe() {
                    self.out.line(&line);
                }
                self.out.line(if ugi { "ugiok" } else { "uciok" });
            }
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } if name.eq_ignore_ascii_case(GAME_OPTION) => {
                let text = value.unwrap_or_default();
                let game = GameKind::from_name(&text)
                    .ok_or_else(|| ProtocolError::UnknownGame(crate::quote::shorten(&text)))?;
                self.idle_searcher("setoption")?;
                if game != G::KIND {
                    self.switch = Some(game);
                }
            }
            Command::SetOption { name, value } => {
                let mut new = self.options.clone();
                let action = new.set(&name, value.as_deref())?;
                let pos = self.pos;
                self.idle_searcher("setoption")?;
                // A new net file is read before anything changes.
                let new_net =
                    if new.setup.net_file != self.options.setup.net_file {
                        Some(new.setup.load_net::<G>().map_err(|source| {
                            ProtocolError::NetFile {
                                source,
                                kept: net_version(self.net.as_ref()),
                            }
                        })?)
                    } else {
                        None
                    };
                let old = std::mem::replace(&mut self.options, new);
                let old_net = match new_net {
                    Some(net) => Some(std::mem::replace(&mut self.net, net)),
                    None => None,
                };
                let changed_eval = old_net.is_some() || old.setup.eval != self.options.setup.eval;
                let (search_options, evaluator) = self.options.setup.choose(self.net.as_ref());
                let searcher = self.idle_searcher("setoption")?;
                if let Err(e) = searcher.set_options(search_options, pos) {
                    self.options = old;
                    if let Some(net) = old_net {
                        self.net = net;
                    }
                    return Err(e.into());
                }
                if action == options::Action::ClearHash {
                    searcher.clear(pos);
                }
                if changed_eval {
                    searcher.set_evaluator(evaluator);
                }
            }
            Command::NewGame => {
                let pos = self.pos;
                self.idle_searcher("ucinewgame")?.clear(pos);
                // A new game draws the same random moves as a fresh engine.
                self.random_draws = 0;
            }
            Command::Position(pos) => {
                self.idle_searcher("position")?;
                self.pos = pos;
            }
            Command::Go(go) => self.go(go)?,
            Command::Stop => {
                if let Some(r) = &self.running {
                    r.control.stop();
                }
            }
            Command::PonderHit => match &self.running {
                Some(r) if r.control.is_pondering() => r.control.ponderhit(),
                _ => return Err(ProtocolError::NotPondering),
            },
            Command::Quit => {}
            Command::Query(q) => self.out.line(&query(&self.pos, q)),
            Command::Display => {
                for line in self.pos.diagram(Style::default()).lines() {
                    self.out.line(line);
                }
                for line in self.pos.summary().lines() {
                    self.out.line(line);
                }
            }
            Command::Moves => {
                let mut moves: Vec<String> = self
                    .pos
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                moves.sort();
                self.out
                    .line(format!("moves {}", moves.join(" ")).trim_end());
            }
            Command::Perft(depth) => {
                self.idle_searcher("perft")?;
                let mut buf = Vec::new();
                crate::display::perft::run(&self.pos, depth, true, &mut buf)
                    .map_err(ProtocolError::Perft)?;
                for line in String::from_utf8_lossy(&buf).lines() {
                    self.out.line(line);
                }
            }
            Command::Help => self.out.line(
                "commands: uci ugi isready setoption ucinewgame uginewgame position go stop \
                 ponderhit query quit d moves perft help (see protocol.md)",
            ),
        }
        Ok(())
    }

    fn go(&mut self, go: Go<G::Move>) -> Result<(), ProtocolError<G>> {
        if self
            .running
            .as_ref()
            .is_some_and(|r| !r.control.is_stopped())
        {
            return Err(ProtocolError::AlreadySearching);
        }
        if go.ponder && !self.options.ponder {
            return Err(ProtocolError::PonderOff);
        }
        let pos = self.pos;
        self.idle_searcher("go")?;
        if self.options.random_move {
            use rand::SeedableRng;
            let seed = self.options.setup.search.seed ^ self.random_draws.wrapping_mul(0x9E37_79B9);
            self.random_draws += 1;
            let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
            let legal: Vec<G::Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| go.searchmoves.is_empty() || go.searchmoves.contains(m))
                .collect();
            match legal.get(rand::RngExt::random_range(&mut rng, 0..legal.len().max(1))) {
                Some(m) => self.out.line(&format!("bestmove {m}")),
                None => self.out.line("bestmove 0000"),
            }
            return Ok(());
        }
        let mut searcher = self.searcher.take().ok_or(ProtocolError::NoSearcher)?;
        let side = pos.side_to_move().index();
        let clock = go.time[side].map(|time| Clock {
            time,
            inc: go.inc[side].unwrap_or_default(),
            movestogo: go.movestogo,
        });
        let limits = Limits {
            nodes: go.nodes,
            movetime: go.movetime,
            clock,
            depth: go.depth,
            infinite: go.infinite,
        };
        let control = Arc::new(Control::new());
        control.reset(go.ponder);
        let finished = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let format = InfoFormat {
            multipv: self.options.multipv,
            show_wdl: self.options.show_wdl,
        };
        let ponder_option = self.options.ponder;
        let searchmoves = go.searchmoves;
        let (c, f) = (Arc::clone(&control), Arc::clone(&finished));
        let handle = std::thread::Builder::new()
            .name("ultimo-search".into())
            .spawn(move || {
                let report = searcher.search(&pos, &limits, &searchmoves, &c, &mut |r| {
                    for line in format.lines(r) {
                        out.line(&line);
                    }
                });
                let report_lines = format.lines(&report);
                for line in report_lines {
                    out.line(&line);
                }
                let best = match report.best_move() {
                    Some(m) => match (ponder_option, report.ponder_move()) {
                        (true, Some(p)) => format!("bestmove {m} ponder {p}"),
                        _ => format!("bestmove {m}"),
                    },
                    None => "bestmove 0000".to_string(),
                };
                f.store(true, Ordering::SeqCst);
                out.line(&best);
                searcher
            })
            .map_err(ProtocolError::Thread)?;
        self.running = Some(Running {
            control,
            finished,
            handle,
        });
        Ok(())
    }
}

/// The answer to a UGI query.
fn query<G: Notation>(pos: &G, q: Query) -> String {
    let answer = match q {
        Query::P1Turn => (pos.side_to_move() == Player::X).to_string(),
        Query::GameOver => pos.is_over().to_string(),
        Query::Result => match pos.outcome() {
            None => "none".into(),
            Some(Outcome::Win(Player::X)) => "p1win".into(),
            Some(Outcome::Win(Player::O)) => "p2win".into(),
            Some(Outcome::Draw) => "draw".into(),
        },
    };
    format!("response {answer}")
}

/// How `info` lines are written.
#[derive(Copy, Clone)]
struct InfoFormat {
    multipv: usize,
    show_wdl: bool,
}

impl InfoFormat {
    /// One `info` line per reported move (at most `multipv`).
    fn lines<M: std::fmt::Display + Copy>(&self, report: &Report<M>) -> Vec<String> {
        report
            .lines
            .iter()
            .take(self.multipv)
            .enumerate()
            .map(|(i, line)| self.line(report, i + 1, line))
            .collect()
    }

    fn line<M: std::fmt::Display + Copy>(
        &self,
        report: &Report<M>,
        rank: usize,
        line: &Line<M>,
    ) -> String {
        let mut s = format!(
            "info depth {} seldepth {} multipv {rank} score {}",
            report.depth,
            report.seldepth,
            score(line)
        );
        if self.show_wdl {
            let [w, d, l] = line.wdl;
            s.push_str(&format!(" wdl {w} {d} {l}"));
        }
        s.push_str(&format!(
            " nodes {} nps {} hashfull {} time {} pv",
            report.nodes,
            report.nps(),
            report.hashfull,
            report.elapsed.as_millis()
        ));
        for m in &line.pv {
            s.push_str(&format!(" {m}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries() {
        let pos = Position::startpos();
        assert_eq!(query(&pos, Query::P1Turn), "response true");
        assert_eq!(query(&pos, Query::GameOver), "response false");
        assert_eq!(query(&pos, Query::Result), "response none");
        let won: Position = "xxxxxxxxx/o1o1o1o1o/1o1o1o3/9/9/9/9/9/9 o 9 c9"
            .parse()
            .unwrap();
        assert_eq!(query(&won, Query::Result), "response p1win");
        assert_eq!(query(&won, Query::GameOver), "response true");
    }
}
