//! The engine's line protocol on stdin/stdout (UCI/UGI conventions); see
//! `protocol.md` for the full specification.
//!
//! Input is read on its own thread and handed over a channel; a
//! [`Server`] handles the lines, one game's at a time. Searches run in the
//! background ([`AsyncSearcher`]), so that `stop`, `ponderhit`, `isready`
//! and `quit` are served while one runs; the commands that need the engine
//! idle wait for the search, with every line after them, in the order they
//! came ([`Server::handle_line`]). Every line that cannot be carried out
//! gets one `info string error: ...` line and changes nothing.

pub mod codingame;
pub mod command;
pub mod input;
pub mod options;
pub mod riddles;
mod solve;

pub use solve::GoSolveError;

use crate::engine::{
    AsyncError, AsyncSearcher, Event, LoadedNet, NetGame, SearchRequest, Strength, level_rng,
};
use crate::game::{Game, GameKind, Notation, Outcome, Player};
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard};

use command::{Command, CommandError, Go, Query};
use options::{EngineOptions, OptionError};
use thiserror::Error;

use crate::display::Style;
use crate::display::board::Board;
use crate::display::score::score;
use crate::net::NetError;
use crate::rules::Position;
use crate::search::{Clock, Limits, Line, Report, SearchError, Searcher};

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
    /// A command that needs the search tree came during a search.
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
    /// The searcher cannot be made or refused its options (e.g. memory).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The searcher is lost, refused its new settings, or cannot start
    /// its search thread.
    #[error(transparent)]
    Searcher(#[from] AsyncError),
    /// `perft` deeper than the game allows (it would take hours and
    /// block the protocol meanwhile).
    #[error("perft: depth must be 1-{max} in {game}, got {depth}")]
    PerftTooDeep {
        /// The game.
        game: GameKind,
        /// Its deepest perft.
        max: u32,
        /// The depth asked for.
        depth: u32,
    },
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
    /// The debug log cannot be opened; nothing is logged (or the log
    /// goes on to the file it had).
    #[error("DebugLogFile: cannot open {}: {source}", crate::quote::path(.path))]
    DebugLog {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// `go solve` cannot start.
    #[error(transparent)]
    Solve(#[from] GoSolveError),
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

/// Where answers go: whole lines, flushed at once, from any thread; and,
/// with a debug log (the DebugLogFile option, `ultimo --log`), every line in
/// (`>> `) and out (`<< `) to that file as well.
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Sink>>,
}

/// The output and the debug log.
struct Sink {
    out: Box<dyn Write + Send>,
    log: Option<File>,
}

impl Output {
    /// Lines to `w`.
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output {
            inner: Arc::new(Mutex::new(Sink {
                out: Box::new(w),
                log: None,
            })),
        }
    }

    fn sink(&self) -> MutexGuard<'_, Sink> {
        match self.inner.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Writes one line (a reader that is gone is ignored), and logs it.
    pub fn line(&self, text: &str) {
        let mut sink = self.sink();
        let _ = writeln!(sink.out, "{text}").and_then(|_| sink.out.flush());
        if let Some(log) = &mut sink.log {
            let _ = writeln!(log, "<< {text}");
        }
    }

    /// Logs a line that came in (a log that cannot be written is ignored).
    pub fn log_input(&self, line: &str) {
        if let Some(log) = &mut self.sink().log {
            let _ = writeln!(log, ">> {}", line.trim_end_matches(['\n', '\r']));
        }
    }

    /// Logs every line to `log` from now on (`None`: no more logging).
    pub fn set_log(&self, log: Option<File>) {
        self.sink().log = log;
    }

    /// Writes an error line.
    pub fn error(&self, text: &str) {
        self.line(&format!("info string error: {text}"));
    }
}

/// The longest command line taken, in bytes (without its newline): a
/// longer one is skipped to its end, read in pieces, and answered with one
/// error line, so that memory stays bounded whatever comes in.
pub const MAX_LINE: usize = 64 * 1024;

/// What the reader thread passes on.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// A line, newline included when it had one.
    Line(String),
    /// A line longer than [`MAX_LINE`] bytes, skipped.
    TooLong,
}

/// Reads lines on a thread of its own; `None` at end of input. Bytes that
/// are not UTF-8 are replaced, so such a line gets an error, not a hang-up.
/// A line longer than [`MAX_LINE`] is never held whole: [`Input::TooLong`].
pub fn spawn_reader(input: impl BufRead + Send + 'static) -> Receiver<Option<Input>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut input = input;
        loop {
            let next = read_input(&mut input);
            let end = next.is_none();
            if tx.send(next).is_err() || end {
                return;
            }
        }
    });
    rx
}

/// The next line of `input`, at most [`MAX_LINE`] bytes of it held;
/// `None` at end of input or on a read error.
fn read_input(input: &mut impl BufRead) -> Option<Input> {
    let mut buf = Vec::new();
    let mut limited = Read::take(&mut *input, MAX_LINE as u64 + 1);
    match limited.read_until(b'\n', &mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') => {
            skip_line(input);
            Some(Input::TooLong)
        }
        Ok(_) => Some(Input::Line(String::from_utf8_lossy(&buf).into_owned())),
    }
}

/// Consumes `input` up to and including the next newline (or to its end).
fn skip_line(input: &mut impl BufRead) {
    loop {
        let (used, done) = match input.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(bytes) => match bytes.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (bytes.len(), false),
            },
        };
        input.consume(used);
        if done {
            return;
        }
    }
}

/// Opens the debug log `path` (appending to it).
pub fn open_log(path: &Path) -> Result<File, io::Error> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Runs the protocol on stdin and stdout until `quit` or end of input,
/// starting with `game` (`setoption name Game` changes it), logging every
/// line to `log` if given (as `setoption name DebugLogFile` does).
pub fn run_stdio(game: GameKind, log: Option<&Path>) -> Result<(), ProtocolError> {
    let out = Output::new(io::stdout());
    let mut options = EngineOptions::default();
    if let Some(path) = log {
        let file = open_log(path).map_err(|source| ProtocolError::DebugLog {
            path: path.to_owned(),
            source,
        })?;
        out.set_log(Some(file));
        options.debug_log = Some(path.to_owned());
    }
    let rx = spawn_reader(io::BufReader::new(io::stdin()));
    run(game, options, out, &rx)
}

/// Runs the protocol on lines from `rx` until `quit` or end of input,
/// starting with `game` and `options`, and switching to another game's
/// server when `setoption name Game` asks for it (the other options are
/// kept).
pub fn run(
    game: GameKind,
    options: EngineOptions,
    out: Output,
    rx: &Receiver<Option<Input>>,
) -> Result<(), ProtocolError> {
    let (mut game, mut options) = (game, options);
    let mut waiting = VecDeque::new();
    loop {
        let next = match game {
            GameKind::Uttt => {
                Server::<Position>::with_options(out.clone(), options)?.run(rx, waiting)
            }
            GameKind::Super15 => {
                Server::<crate::super15::Position>::with_options(out.clone(), options)?
                    .run(rx, waiting)
            }
        };
        match next {
            Some((g, o, w)) => (game, options, waiting) = (g, o, w),
            None => return Ok(()),
        }
    }
}

/// The most bytes of lines that may wait for a search (see
/// [`Server::handle_line`]); a line past it is refused with an error. Each
/// line counts `WAITING_OVERHEAD` bytes more than its text.
pub const MAX_WAITING_BYTES: usize = 1024 * 1024;

/// What a waiting line costs beyond its text, so that a flood of empty or
/// overlong lines is bounded too.
const WAITING_OVERHEAD: usize = 64;

/// How often the server looks whether the running search has ended while
/// lines wait for it.
const WAIT_POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// What a waiting input counts against [`MAX_WAITING_BYTES`].
fn waiting_cost(input: &Input) -> usize {
    WAITING_OVERHEAD
        + match input {
            Input::Line(line) => line.len(),
            Input::TooLong => 0,
        }
}

/// The version of `net`, or `none`.
fn net_version<G: Game>(net: Option<&LoadedNet<G>>) -> String {
    net.map_or("none".into(), |n| n.version.clone())
}

/// The protocol's state between lines, for one game: the position, the
/// options, the net and the searcher (its searches run in the background).
pub struct Server<G: Board + NetGame + std::hash::Hash = Position> {
    out: Output,
    pos: G,
    options: EngineOptions,
    /// The game's net, if it has one.
    net: Option<LoadedNet<G>>,
    searcher: AsyncSearcher<G>,
    /// The proof-number solver of `go solve`, and its running solve.
    solver: solve::SolveThread,
    /// The game `setoption name Game` asked for.
    switch: Option<GameKind>,
    /// The moves drawn with the RandomMove option since the start or the
    /// last new game (each draw's generator is seeded from Seed and this
    /// count).
    random_draws: u64,
    /// Lines that wait for the running search or solve to end, oldest
    /// first (see [`Server::handle_line`]).
    waiting: VecDeque<Input>,
    /// The `stop` lines among `waiting`: while there are any, every search
    /// a waiting line starts is stopped at once (a `stop` stops the
    /// searches sent before it, not only the running one).
    stops_waiting: usize,
    /// The bytes `waiting` holds, by [`MAX_WAITING_BYTES`]'s count.
    waiting_bytes: usize,
    /// Whether the last `go` has no end of its own (`infinite`, `ponder`,
    /// or no limit), for `quit`.
    open_ended: bool,
}

impl<G: Board + NetGame + std::hash::Hash> Server<G> {
    /// A server at the start position with default options.
    pub fn new(out: Output) -> Result<Server<G>, ProtocolError> {
        Server::with_options(out, EngineOptions::default())
    }

    /// A server at the start position with these options.
    pub fn with_options(
        out: Output,
        mut options: EngineOptions,
    ) -> Result<Server<G>, ProtocolError> {
        let net = match options.setup.load_net::<G>() {
            Ok(net) => net,
            Err(e) => {
                // The file was read before (another game's server): tell,
                // and go on with the built-in net.
                let net = G::net(None).ok().flatten();
                let kept = net_version(net.as_ref());
                out.error(&ProtocolError::<G>::NetFile { source: e, kept }.to_string());
                options.setup.net_file = None;
                net
            }
        };
        let searcher = AsyncSearcher::new(&options.setup, net.as_ref(), G::startpos())?;
        Ok(Server {
            out,
            pos: G::startpos(),
            options,
            net,
            searcher,
            solver: solve::SolveThread::default(),
            switch: None,
            random_draws: 0,
            waiting: VecDeque::new(),
            stops_waiting: 0,
            waiting_bytes: 0,
            open_ended: false,
        })
    }

    /// Handles lines until `quit` or end of input (`None`), or until
    /// `setoption name Game` asks for another game: then the game, the
    /// options to start its server with and the lines still waiting.
    /// `waiting`: lines a server of the other game left waiting.
    pub fn run(
        mut self,
        rx: &Receiver<Option<Input>>,
        waiting: VecDeque<Input>,
    ) -> Option<(GameKind, EngineOptions, VecDeque<Input>)> {
        self.stops_waiting = waiting
            .iter()
            .filter(|i| matches!(i, Input::Line(l) if self.is_stop(l)))
            .count();
        self.waiting_bytes = waiting.iter().map(waiting_cost).sum();
        self.waiting = waiting;
        loop {
            self.run_waiting();
            if let Some(game) = self.switch.take() {
                self.end_searches();
                let waiting = std::mem::take(&mut self.waiting);
                return Some((game, self.options.clone(), waiting));
            }
            let input = if self.waiting.is_empty() {
                rx.recv().ok().flatten()
            } else {
                // Lines wait for the search: look again soon whether it
                // has ended.
                match rx.recv_timeout(WAIT_POLL) {
                    Ok(input) => input,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => None,
                }
            };
            let Some(input) = input else { break };
            if !self.take_input(input) {
                break;
            }
        }
        self.quit();
        None
    }

    /// Takes one input from the reader: a line, or one too long (an
    /// error, in its turn among the lines that wait); `false` at `quit`.
    fn take_input(&mut self, input: Input) -> bool {
        match input {
            Input::Line(line) => self.handle_line(&line),
            Input::TooLong if !self.waiting.is_empty() => {
                self.wait_for_search(Input::TooLong);
                true
            }
            Input::TooLong => {
                self.too_long();
                true
            }
        }
    }

    /// The error for a line longer than [`MAX_LINE`].
    fn too_long(&self) {
        self.out.error(&format!(
            "line longer than {MAX_LINE} bytes ignored (the most a command may have)"
        ));
    }

    /// Whether a search or a solve runs (and was not told to stop).
    fn busy(&mut self) -> bool {
        let reaped = self.searcher.reap();
        self.recover(reaped);
        self.searcher.is_searching() || self.solver.is_running()
    }

    /// Carries out the lines that wait, oldest first, as long as no search
    /// or solve runs (a `go` among them starts one: the rest wait for it)
    /// and no other game was asked for.
    fn run_waiting(&mut self) {
        while self.switch.is_none() && !self.waiting.is_empty() && !self.busy() {
            self.finish_stopped();
            let next = self.waiting.pop_front();
            if let Some(input) = &next {
                self.waiting_bytes -= waiting_cost(input);
            }
            match next {
                Some(Input::Line(line)) => {
                    if self.is_stop(&line) {
                        self.stops_waiting -= 1;
                    }
                    self.carry_out(&line);
                }
                Some(Input::TooLong) => self.too_long(),
                None => {}
            }
            if self.stops_waiting > 0 {
                self.searcher.stop();
                self.solver.stop();
            }
        }
    }

    /// Waits for a search or a solve that was told to stop (it writes its
    /// `bestmove` as it ends), so that whatever comes next is answered
    /// after it. Only when none runs that was not told to stop.
    fn finish_stopped(&mut self) {
        self.finish_solve();
        let waited = self.searcher.wait();
        self.recover(waited);
    }

    /// Whether `line` is `stop`.
    fn is_stop(&self, line: &str) -> bool {
        matches!(command::parse(line, &self.pos), Ok(Some(Command::Stop)))
    }

    /// Handles one line; `false` when the engine should exit.
    ///
    /// `stop` and `ponderhit` act at once on the running search, and
    /// `quit` ends the loop; a `stop` also stops the searches that lines
    /// waiting before it start, as they start. A command that needs the engine idle (`go`,
    /// `setoption`, `ucinewgame`, `perft`) waits while a search or a solve
    /// runs, and every line after it waits behind it, so that commands
    /// are carried out in the order they came and none is lost (as
    /// Stockfish does: its `go` waits for the search before). Anything
    /// else (`position` included: it sets up the next search, not the
    /// running one) is carried out at once when nothing waits.
    pub fn handle_line(&mut self, line: &str) -> bool {
        self.out.log_input(line);
        let busy = self.busy();
        match command::parse(line, &self.pos) {
            Ok(Some(Command::Quit)) => return false,
            Ok(Some(Command::Stop)) => {
                self.carry_out_parsed(Ok(Some(Command::Stop)));
                if !self.waiting.is_empty() && self.wait_for_search(Input::Line(line.to_string())) {
                    self.stops_waiting += 1;
                }
            }
            Ok(Some(Command::PonderHit)) => self.carry_out_parsed(Ok(Some(Command::PonderHit))),
            _ if !self.waiting.is_empty() => {
                self.wait_for_search(Input::Line(line.to_string()));
            }
            Ok(Some(
                Command::Go(_) | Command::SetOption { .. } | Command::NewGame | Command::Perft(_),
            )) if busy => {
                self.wait_for_search(Input::Line(line.to_string()));
            }
            parsed => {
                if !busy {
                    self.finish_stopped();
                }
                self.carry_out_parsed(parsed.map_err(ProtocolError::from))
            }
        }
        true
    }

    /// Puts `input` at the end of the lines that wait for the search;
    /// `false`, with an error line, when they hold [`MAX_WAITING_BYTES`]
    /// already.
    fn wait_for_search(&mut self, input: Input) -> bool {
        let cost = waiting_cost(&input);
        if self.waiting_bytes + cost > MAX_WAITING_BYTES {
            self.out.error(&format!(
                "line ignored: {} bytes of commands already wait for the search \
                 (the most is {MAX_WAITING_BYTES}); send stop",
                self.waiting_bytes
            ));
            return false;
        }
        self.waiting_bytes += cost;
        self.waiting.push_back(input);
        true
    }

    /// Carries out a line that waited (parsed now, against the position
    /// the lines before it set up).
    fn carry_out(&mut self, line: &str) {
        match command::parse(line, &self.pos) {
            // Never waits (see `handle_line`).
            Ok(Some(Command::Quit)) => {}
            parsed => self.carry_out_parsed(parsed.map_err(ProtocolError::from)),
        }
    }

    /// Carries out a parsed command, or answers its error.
    fn carry_out_parsed(&mut self, parsed: Result<Option<Command<G>>, ProtocolError<G>>) {
        let done = match parsed {
            Ok(Some(cmd)) => self.execute(cmd),
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = done {
            self.out.error(&e.to_string());
        }
    }

    /// `quit` or the end of input. The lines that wait came before it, so
    /// they are carried out first, each in its turn as if `quit` had not
    /// been read yet: each search runs to its limits (one with no end of
    /// its own is stopped) before the next line. The last search, the one
    /// `quit` comes during, is stopped at once, as in Stockfish, whose
    /// input blocks on a `go` until the search before it ends. Every `go`
    /// gets its `bestmove`.
    fn quit(&mut self) {
        while !self.waiting.is_empty() && self.switch.is_none() {
            if self.open_ended {
                self.searcher.stop();
                self.solver.stop();
            }
            self.finish_solve();
            let waited = self.searcher.wait();
            self.recover(waited);
            self.run_waiting();
        }
        self.end_searches();
    }

    /// Stops any search and waits for it (it still writes its `bestmove`,
    /// so that every `go` gets one).
    fn end_searches(&mut self) {
        self.solver.stop();
        self.finish_solve();
        self.searcher.stop();
        let waited = self.searcher.wait();
        self.recover(waited);
    }

    /// Waits for a solve that finished or was told to stop; after a
    /// solver's thread that failed, says so (the next solve starts
    /// afresh).
    fn finish_solve(&mut self) {
        if !self.solver.wait() {
            self.out
                .error("internal error: the solver failed; its table reset");
        }
    }

    /// After a search thread that failed: says so and starts over with a
    /// fresh searcher, so that the engine keeps working.
    fn recover(&mut self, result: Result<(), AsyncError>) {
        if let Err(AsyncError::Panicked) = result {
            self.out
                .error("internal error: the search failed; search tree reset");
            let _ = self
                .searcher
                .rebuild(&self.options.setup, self.net.as_ref(), self.pos);
        }
    }

    /// The searcher for a command that needs it: waits for a search that
    /// was told to stop; refuses while one is still running.
    fn idle_searcher(&mut self, what: &'static str) -> Result<&mut Searcher<G>, ProtocolError<G>> {
        if self.searcher.is_searching() || self.solver.is_running() {
            return Err(ProtocolError::Busy(what));
        }
        self.finish_solve();
        let waited = self.searcher.wait();
        self.recover(waited);
        Ok(self.searcher.idle()?)
    }

    fn execute(&mut self, cmd: Command<G>) -> Result<(), ProtocolError<G>> {
        match cmd {
            Command::Hello { ugi } => self.hello(ugi),
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } if name.eq_ignore_ascii_case(GAME_OPTION) => {
                self.set_game(&value.unwrap_or_default())?
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::NewGame => {
                let pos = self.pos;
                self.idle_searcher("ucinewgame")?.clear(pos);
                self.solver.clear();
                // A new game draws the same random moves as a fresh engine.
                self.random_draws = 0;
            }
            // The running search, if any, has its own copy: this sets up
            // the next one.
            Command::Position(pos) => self.pos = pos,
            Command::Go(go) => self.go(go)?,
            Command::Stop => {
                self.searcher.stop();
                self.solver.stop();
            }
            Command::PonderHit => {
                if !self.searcher.ponderhit() {
                    return Err(ProtocolError::NotPondering);
                }
            }
            Command::Quit => {}
            Command::Query(q) => self.out.line(&query(&self.pos, q)),
            Command::Display => self.display(),
            Command::Moves => self.out.line(&moves_line(&self.pos)),
            Command::Perft(depth) => self.perft(depth)?,
            Command::Help => self.out.line(
                "commands: uci ugi isready setoption ucinewgame uginewgame position go stop \
                 ponderhit query quit d moves perft help (see protocol.md)",
            ),
        }
        Ok(())
    }

    /// `uci` or `ugi`: the engine's name, its options, `uciok`/`ugiok`.
    fn hello(&self, ugi: bool) {
        match &self.net {
            Some(net) => self
                .out
                .line(&format!("id name {ENGINE_NAME} (net {})", net.version)),
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

    /// `setoption name Game value <game>`: another game's server takes
    /// over after this line.
    fn set_game(&mut self, text: &str) -> Result<(), ProtocolError<G>> {
        let game = GameKind::from_name(text)
            .ok_or_else(|| ProtocolError::UnknownGame(crate::quote::shorten(text)))?;
        self.idle_searcher("setoption")?;
        if game != G::KIND {
            self.switch = Some(game);
        }
        Ok(())
    }

    /// `setoption`: the new options, the net they name, the debug log and
    /// the searcher's new settings are all made before anything changes, so
    /// that a failure (a bad value, a net file that is no net, a log that
    /// cannot be opened, memory the machine does not have) leaves
    /// everything as it was.
    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), ProtocolError<G>> {
        let mut new = self.options.clone();
        let action = new.set(name, value)?;
        self.idle_searcher("setoption")?;
        let net = if new.setup.net_file == self.options.setup.net_file {
            self.net.clone()
        } else {
            new.setup
                .load_net::<G>()
                .map_err(|source| ProtocolError::NetFile {
                    source,
                    kept: net_version(self.net.as_ref()),
                })?
        };
        let log = match &new.debug_log {
            Some(path) if new.debug_log != self.options.debug_log => {
                let file = open_log(path).map_err(|source| ProtocolError::DebugLog {
                    path: path.clone(),
                    source,
                })?;
                Some(Some(file))
            }
            None if self.options.debug_log.is_some() => Some(None),
            _ => None,
        };
        // The searcher takes its new settings whole or not at all.
        self.searcher
            .configure(&new.setup, net.as_ref(), self.pos)?;
        self.options = new;
        self.net = net;
        if let Some(log) = log {
            self.out.set_log(log);
        }
        if action == options::Action::ClearHash {
            let pos = self.pos;
            self.idle_searcher("setoption")?.clear(pos);
            self.solver.clear();
        }
        Ok(())
    }

    /// `d`: the board and what it shows.
    fn display(&self) {
        for line in self.pos.diagram(Style::default()).lines() {
            self.out.line(line);
        }
        for line in self.pos.summary().lines() {
            self.out.line(line);
        }
    }

    /// `perft N`: the count below each move, then the total.
    fn perft(&mut self, depth: u32) -> Result<(), ProtocolError<G>> {
        self.idle_searcher("perft")?;
        let max = G::KIND.protocol_perft_depth();
        if depth > max {
            return Err(ProtocolError::PerftTooDeep {
                game: G::KIND,
                max,
                depth,
            });
        }
        let mut buf = Vec::new();
        crate::display::perft::run(&self.pos, depth, true, &mut buf)
            .map_err(ProtocolError::Perft)?;
        for line in String::from_utf8_lossy(&buf).lines() {
            self.out.line(line);
        }
        Ok(())
    }

    /// `go`: a search in the background that writes its `info` lines and
    /// its `bestmove`, or with RandomMove a random move at once.
    fn go(&mut self, go: Go<G::Move>) -> Result<(), ProtocolError<G>> {
        let since = std::time::Instant::now();
        if self.searcher.is_searching() || self.solver.is_running() {
            return Err(ProtocolError::AlreadySearching);
        }
        self.open_ended = go.is_open_ended();
        if go.solve {
            let side = self.pos.side_to_move();
            let limits = solve::limits(&go, side, self.options.setup.search.move_overhead)?;
            self.idle_searcher("go")?;
            let format = InfoFormat {
                multipv: 1,
                show_wdl: self.options.show_wdl,
            };
            let hash = self.options.setup.search.hash_mb;
            let out = self.out.clone();
            self.solver
                .start(self.pos, limits, since, hash, format, out)?;
            return Ok(());
        }
        if go.ponder && !self.options.ponder {
            return Err(ProtocolError::PonderOff);
        }
        self.idle_searcher("go")?;
        if self.options.random_move {
            let best = self.random_move(&go.searchmoves);
            self.out.line(&best);
            return Ok(());
        }
        let limits = limits(&go, self.pos.side_to_move());
        let strength = self.options.strength();
        if let (Strength::Elo(asked), Some(at)) = (strength, strength.elo(G::KIND))
            && asked != at
        {
            self.out.line(&format!(
                "info string UCI_Elo {asked} is beyond the levels of {}: playing at Elo {at}",
                G::KIND
            ));
        }
        let weakening = strength.weakening(G::KIND);
        let limits = match &weakening {
            Some(w) => w.limits(&limits),
            None => limits,
        };
        let root = self.pos;
        let request = SearchRequest {
            root,
            limits,
            searchmoves: go.searchmoves,
            ponder: go.ponder,
        };
        let out = self.out.clone();
        let format = InfoFormat {
            multipv: self.options.multipv,
            show_wdl: self.options.show_wdl,
        };
        let ponder = self.options.ponder;
        let mut rng = level_rng();
        self.searcher.start(request, move |event| match event {
            Event::Info(report) => format.write(&out, report),
            Event::Done(report) => {
                format.write(&out, report);
                let line = match weakening {
                    Some(w) => {
                        let mut weak = report.clone();
                        w.pick(&root, &mut weak, &mut rng);
                        bestmove(&weak, ponder)
                    }
                    None => bestmove(report, ponder),
                };
                out.line(&line);
            }
        })?;
        Ok(())
    }

    /// `bestmove` with a uniformly random legal move (among `searchmoves`
    /// when given), drawn with a generator seeded from Seed and the draws
    /// since the last new game.
    fn random_move(&mut self, searchmoves: &[G::Move]) -> String {
        use rand::SeedableRng;
        let seed = self.options.setup.search.seed ^ self.random_draws.wrapping_mul(0x9E37_79B9);
        self.random_draws += 1;
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
        let legal: Vec<G::Move> = self
            .pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| searchmoves.is_empty() || searchmoves.contains(m))
            .collect();
        match legal.get(rand::RngExt::random_range(&mut rng, 0..legal.len().max(1))) {
            Some(m) => format!("bestmove {m}"),
            None => "bestmove 0000".to_string(),
        }
    }
}

/// The search limits of `go` for `side`, the side to move (its clock).
fn limits<M>(go: &Go<M>, side: Player) -> Limits {
    let clock = go.clock(side.index()).map(|(time, inc)| Clock {
        time,
        inc,
        movestogo: go.movestogo,
    });
    Limits {
        nodes: go.nodes,
        movetime: go.movetime,
        clock,
        depth: go.depth,
        infinite: go.infinite,
        as_levels_measured: false,
    }
}

/// The `bestmove` line of a final report, with a ponder move when the
/// Ponder option is on and the report has one.
fn bestmove<M: std::fmt::Display + Copy>(report: &Report<M>, ponder: bool) -> String {
    match report.best_move() {
        Some(m) => match (ponder, report.ponder_move()) {
            (true, Some(p)) => format!("bestmove {m} ponder {p}"),
            _ => format!("bestmove {m}"),
        },
        None => "bestmove 0000".to_string(),
    }
}

/// `moves`: the legal moves, sorted.
fn moves_line<G: Notation>(pos: &G) -> String {
    let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    format!("moves {}", moves.join(" ")).trim_end().to_string()
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
    /// Writes the `info` lines of `report` to `out`.
    fn write<M: std::fmt::Display + Copy>(&self, out: &Output, report: &Report<M>) {
        for line in self.lines(report) {
            out.line(&line);
        }
    }

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
    fn overlong_lines_are_skipped_without_being_held() {
        let long = "x".repeat(MAX_LINE + 1);
        let exact = "y".repeat(MAX_LINE);
        let text = format!("isready\n{long}\n{exact}\nquit");
        // A small buffer, so the skipped line comes in many pieces.
        let mut input = io::BufReader::with_capacity(1024, text.as_bytes());
        let mut read = std::iter::from_fn(|| read_input(&mut input));
        assert_eq!(read.next(), Some(Input::Line("isready\n".into())));
        assert_eq!(read.next(), Some(Input::TooLong));
        assert_eq!(read.next(), Some(Input::Line(format!("{exact}\n"))));
        assert_eq!(read.next(), Some(Input::Line("quit".into())));
        assert_eq!(read.next(), None);
        // An overlong last line without a newline ends the input.
        let mut input = io::BufReader::new(long.as_bytes());
        assert_eq!(read_input(&mut input), Some(Input::TooLong));
        assert_eq!(read_input(&mut input), None);
    }

    /// An output whose lines the test reads.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        /// The lines written since the last call.
        fn take(&self) -> Vec<String> {
            let bytes = std::mem::take(&mut *self.0.lock().unwrap());
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    #[test]
    fn setoption_changes_everything_or_nothing() {
        let captured = Captured::default();
        let mut server = Server::<Position>::new(Output::new(captured.clone())).unwrap();
        server.handle_line("setoption name Eval value playout");
        server.handle_line("setoption name MultiPV value 3");
        assert!(captured.take().is_empty());
        let options = server.options.clone();
        let version = net_version(server.net.as_ref());
        // A net file that is no net: one error, the options, the net and
        // the searcher's settings as they were.
        let missing = std::env::temp_dir().join("ultimo-no-such-net.nnue");
        server.handle_line(&format!(
            "setoption name EvalFile value {}",
            missing.display()
        ));
        let lines = captured.take();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("info string error: EvalFile: "),
            "{lines:?}"
        );
        assert!(
            lines[0].ends_with(&format!("; keeping net {version}")),
            "{lines:?}"
        );
        assert_eq!(server.options, options);
        assert_eq!(net_version(server.net.as_ref()), version);
        assert!(!server.searcher.idle().unwrap().has_evaluator());
        // A change that is accepted takes the evaluator with its
        // parameters.
        server.handle_line("setoption name Eval value net");
        let searcher = server.searcher.idle().unwrap();
        assert!(searcher.has_evaluator());
        assert_eq!(searcher.options().params.expand_visits, 1);
        assert_eq!(server.options.multipv, 3);
    }

    #[test]
    fn the_debug_log_has_every_line_in_and_out() {
        let dir = std::env::temp_dir().join(format!("ultimo-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("engine.log");
        let _ = std::fs::remove_file(&log);
        let captured = Captured::default();
        let mut server = Server::<Position>::new(Output::new(captured.clone())).unwrap();
        server.handle_line("isready\n");
        server.handle_line(&format!(
            "setoption name DebugLogFile value {}\n",
            log.display()
        ));
        server.handle_line("isready\n");
        server.handle_line("bogus\n");
        server.handle_line("setoption name DebugLogFile value <empty>\n");
        server.handle_line("isready\n");
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            text,
            ">> isready\n<< readyok\n>> bogus\n\
             << info string error: unknown command 'bogus' (try 'uci' or 'help')\n\
             >> setoption name DebugLogFile value <empty>\n"
        );
        // A file that cannot be opened: one error, the option as it was.
        captured.take();
        server.handle_line(&format!(
            "setoption name DebugLogFile value {}\n",
            dir.display()
        ));
        let lines = captured.take();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("info string error: DebugLogFile: cannot open"),
            "{lines:?}"
        );
        assert_eq!(server.options.debug_log, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

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
