//! `ultimo gui`: a board in the browser that plays, analyses and hosts
//! UGI/UCI engines, for Ultimate Tic-Tac-Toe and Super 1 al 5 (the page
//! chooses; see [`game`]).
//!
//! A small synchronous HTTP server ([`http`], bounded) on loopback serves the
//! page (HTML, CSS and JavaScript compiled into the binary), a stream of
//! server-sent events (`GET /events`, the whole [`session::View`] as JSON
//! on every change) and commands (`POST /api`, JSON, see
//! [`session::Command`]). One game is shared by every page that is open.
//! A command is answered `{"ok": true}`, or `{"ok": false, "error": why}`
//! when the game refuses it (status 200 both: the page shows the reason);
//! a request that is no command at all (not JSON, too long, from another
//! site) gets a 4xx status with `{"error": why}`.
//!
//! Safety: engines come only from the command line; the page can never
//! name a program. Requests whose `Host` is not the server's own address,
//! or whose `Origin` is another site, are refused (DNS rebinding, cross-site
//! requests); commands must be `application/json`, which a cross-site form
//! cannot send without the browser asking first. A bad message gets an
//! error reply and changes nothing.

pub mod engines;
pub mod game;
pub mod http;
pub mod load;
pub mod page;
pub mod session;
pub mod solve;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use http::{Request, Response, Server};

use crate::client::engine::{EngineSpec, kill_all_engines};
use crate::client::signal;
use crate::game::Player;
use crate::pgn::{Annotation, PgnError};
use crate::quote::shorten;
use engines::{Assignment, EngineChoice, Task, Update, Worker};
use game::AnyLine;
use session::{ANALYSIS, Command, SEATS, Session};

/// Why the GUI failed, or a command from the page was refused.
#[derive(Debug, thiserror::Error)]
pub enum GuiError {
    /// The move breaks the rules in the position shown.
    #[error("{mv}: {reason}")]
    Illegal {
        /// The move.
        mv: String,
        /// The rules' reason.
        #[source]
        reason: IllegalMove,
    },
    /// The text is no move of the game played (the reason, e.g. `'zz' is
    /// not a cell`).
    #[error("{0}")]
    NotAMove(String),
    /// The command cannot be carried out in the game as it stands.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A number the page sent lies outside what the server accepts.
    #[error("{what} must be {min} to {max}{unit} (not {value})")]
    OutOfRange {
        /// What the number is, e.g. `nodes`.
        what: &'static str,
        /// Its unit after the numbers (e.g. ` ms`), or nothing.
        unit: &'static str,
        /// The number sent.
        value: u64,
        /// The least accepted.
        min: u64,
        /// The most accepted.
        max: u64,
    },
    /// The page sent something the server does not accept.
    #[error("{0}")]
    BadRequest(String),
    /// The request does not come from the server's own page.
    #[error("{0}")]
    Forbidden(String),
    /// The server could not listen.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `--host` names an address other machines could reach: the page has
    /// no login, and browsers elsewhere would send a `Host` the server
    /// cannot know, so only loopback is served.
    #[error(
        "--host {host}: the GUI listens only on this machine (127.0.0.1, localhost or ::1); \
         it has no login, so other machines must not reach it (use an SSH tunnel: ssh -L PORT:127.0.0.1:PORT)"
    )]
    NotLoopback {
        /// The address asked for.
        host: String,
    },
    /// A PGN text the reader refuses, or a game in it that does not
    /// replay: the line and the reason (the file's name first when the
    /// page gave one).
    #[error("{}", pgn_message(.0))]
    Pgn(#[from] PgnError),
    /// An `--engine` value is wrong.
    #[error(transparent)]
    Engine(#[from] crate::client::engine::EngineSpecError),
}

/// A PGN error as the status line shows it: `game.pgn:7: why`, or
/// `line 7: why` for pasted text (no file name).
fn pgn_message(e: &PgnError) -> String {
    match e.file.is_empty() {
        true => format!("line {}: {}", e.line, e.problem),
        false => e.to_string(),
    }
}

/// Why a move breaks the rules, in the game it was played in.
#[derive(Debug, thiserror::Error)]
pub enum IllegalMove {
    /// Ultimate Tic-Tac-Toe's reason.
    #[error(transparent)]
    Uttt(#[from] crate::rules::PlayError),
    /// Super 1 al 5's reason.
    #[error(transparent)]
    Super15(#[from] crate::super15::PlayError),
}

/// A command the game as it stands does not allow.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The game is over (by the rules, a resignation or an agreed draw).
    #[error("the game is over")]
    GameOver,
    /// A person's move where an engine is to move.
    #[error("it is the engine's turn ({0} to move)")]
    EnginesTurn(Player),
    /// Take back at the start.
    #[error("nothing to take back")]
    NothingToTakeBack,
    /// An answer to a draw offer nobody made.
    #[error("no draw is offered")]
    NoDrawOffered,
    /// Resignation between engines.
    #[error("engines do not resign here")]
    EnginesDoNotResign,
    /// A draw offer between engines.
    #[error("engines do not agree draws here")]
    EnginesDoNotAgreeDraws,
    /// A ply past the end of the game.
    #[error("ply {ply} is past the end of the game ({moves} moves)")]
    PastTheEnd {
        /// The ply asked for.
        ply: usize,
        /// The game's moves.
        moves: usize,
    },
    /// An engine number the server does not have.
    #[error("there is no engine {0}")]
    NoEngine(usize),
    /// A seat number the server does not have.
    #[error("there is no seat {0}")]
    NoSeat(usize),
    /// A level that does not exist.
    #[error("there is no level {0} (1 to {max}, or 0 for full strength)", max = crate::engine::LEVELS)]
    NoLevel(u8),
    /// A level for an engine other than Ultimo.
    #[error("levels are Ultimo's: {0} plays at its own strength")]
    LevelNotOurs(String),
}

/// Where `ultimo gui` listens and which engines it offers (the command
/// line's `ultimo gui` options).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Port to listen on (0: a free one).
    pub port: u16,
    /// Address to listen on: 127.0.0.1, localhost or ::1 (other machines
    /// are refused).
    pub host: String,
    /// Other engines, each a spec as `ultimo match --engine` takes them
    /// (Ultimo is always there).
    pub engines: Vec<String>,
    /// Whether to open the page in the default browser.
    pub open: bool,
}

/// The page.
const INDEX_HTML: &str = include_str!("assets/index.html");
/// Its script.
const APP_JS: &str = include_str!("assets/app.js");
/// Its style.
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Most event streams at once.
const MAX_STREAMS: usize = 32;
/// An event stream with nothing new sends a comment this often, so that a
/// closed page's slot is freed (at the second write that fails) within
/// about two of these.
const PING_EVERY: Duration = Duration::from_secs(1);
/// Iterations per position in whole-game analysis.
const SCAN_NODES: u64 = 20_000;

/// What the request handlers and the driver share.
struct Shared {
    session: Mutex<Session>,
    changed: Condvar,
    /// The engines, by index (0 is Ultimo).
    choices: Vec<EngineChoice>,
    /// `host:port` values a request's `Host` may have.
    hosts: Vec<String>,
    streams: Mutex<usize>,
    /// The running solve's stop, while one runs.
    solves: solve::Running,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Session> {
        match self.session.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// A running GUI server.
pub struct Gui {
    server: Server,
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl Gui {
    /// Parses the engines and listens on `host:port`.
    pub fn bind(args: &Settings) -> Result<Gui, GuiError> {
        if !is_loopback(&args.host) {
            return Err(GuiError::NotLoopback {
                host: shorten(&args.host),
            });
        }
        let mut choices = vec![EngineChoice::Ultimo];
        let mut names = vec!["Ultimo".to_string()];
        for text in &args.engines {
            let spec = EngineSpec::parse(text).map_err(GuiError::Engine)?;
            names.push(spec.name.clone());
            choices.push(EngineChoice::External(spec));
        }
        let addr = match args.host.as_str() {
            "::1" => format!("[::1]:{}", args.port),
            host => format!("{host}:{}", args.port),
        };
        let listen_error = |source| GuiError::Listen {
            addr: addr.clone(),
            source,
        };
        let server = Server::bind(&addr).map_err(listen_error)?;
        let local = server.local_addr().map_err(listen_error)?;
        let port = local.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let own = format!("{}:{port}", args.host);
        if !hosts.contains(&own) {
            hosts.push(own);
        }
        let shared = Arc::new(Shared {
            session: Mutex::new(Session::new(names)),
            changed: Condvar::new(),
            choices,
            hosts,
            streams: Mutex::new(0),
            solves: Mutex::new(None),
        });
        Ok(Gui {
            server,
            shared,
            addr: local,
        })
    }

    /// The page's address.
    pub fn url(&self) -> String {
        let host = if self.addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            self.addr.ip().to_string()
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// Serves until the process ends.
    pub fn serve(self) -> ! {
        let shared = Arc::clone(&self.shared);
        thread::spawn(move || drive(shared));
        let shared = self.shared;
        self.server.serve(move |request| handle(&shared, request))
    }
}

/// Runs `ultimo gui`: prints the URL and serves until interrupted.
pub fn run(args: &Settings) -> Result<(), GuiError> {
    let gui = Gui::bind(args)?;
    let url = gui.url();
    println!("Ultimo GUI: {url}");
    let _ = std::io::stdout().flush();
    if args.open {
        open_browser(&url);
    }
    end_engines_on_signals();
    gui.serve()
}

/// Makes Ctrl-C, SIGTERM and SIGHUP kill the outside engines (their
/// process groups: what they started too) before the GUI ends; the
/// engines run in groups of their own, which the signal does not reach.
fn end_engines_on_signals() {
    signal::on_signal(|| {
        if let Some(status) = signal::exit_status() {
            kill_all_engines();
            std::process::exit(status);
        }
    });
    if let Err(e) = signal::install() {
        eprintln!("ultimo gui: {e}; the outside engines may outlive it");
    }
}

fn is_loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost" | "::1" | "[::1]")
}

/// Opens `url` with the desktop's opener; a failure is only reported.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({opener}: {e}); open {url} yourself");
    }
}

// ---------------------------------------------------------------------------
// The driver: starts and cancels the engines' jobs as the session changes.

/// What a seat should be doing: the engine, the game and the task (a job
/// without its number). A seat whose wanted job is the same goes on with
/// the one it has.
#[derive(Clone, Debug, PartialEq)]
struct Wanted {
    engine: usize,
    line: AnyLine,
    task: Task,
}

fn wanted(s: &Session, seat: usize) -> Option<Wanted> {
    if s.seat(seat).error.is_some() {
        return None;
    }
    let line = s.line();
    let engine = s.seat(seat).engine;
    let (moves, task, engine) = match seat {
        0 | 1 => {
            let side = if seat == 0 { Player::X } else { Player::O };
            if s.engine_to_move() != Some(side) {
                return None;
            }
            let task = Task::Move {
                limit: s.limit(),
                clocks: s.clocks(),
                strength: s.strength(side),
            };
            (line.len(), task, engine)
        }
        ANALYSIS => {
            let multipv = s.analysis().filter(|_| !s.shown_over())?;
            (s.cursor(), Task::Analyse { multipv }, engine)
        }
        _ => {
            if !s.scanning() {
                return None;
            }
            (line.len(), Task::Scan { nodes: SCAN_NODES }, 0)
        }
    };
    Some(Wanted {
        engine,
        line: line.prefix(moves),
        task,
    })
}

/// One seat's worker (with its engine) and what it is doing.
#[derive(Default)]
struct Seat {
    worker: Option<(Worker, usize)>,
    doing: Option<Wanted>,
}

/// The driver's loop: after every change of the session, each seat's
/// wanted job is compared with the one it has, and started (cancelling the
/// old one) when they differ.
fn drive(shared: Arc<Shared>) {
    let mut seats: [Seat; SEATS] = Default::default();
    let mut next_id = 1u64;
    let mut seen = u64::MAX;
    let mut s = shared.lock();
    loop {
        while s.version() == seen {
            s = match shared.changed.wait_timeout(s, Duration::from_millis(500)) {
                Ok((s, _)) => s,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        seen = s.version();
        for (i, seat) in seats.iter_mut().enumerate() {
            if s.seat(i).error.is_some() {
                // A failed engine is stopped (its process killed).
                seat.worker = None;
                seat.doing = None;
                s.assign(i, None);
                continue;
            }
            let want = wanted(&s, i);
            if want == seat.doing {
                continue;
            }
            seat.doing = want.clone();
            if let Some((w, _)) = &seat.worker {
                w.cancel();
            }
            let Some(want) = want else {
                s.assign(i, None);
                continue;
            };
            if seat.worker.as_ref().is_some_and(|(_, e)| *e != want.engine) {
                seat.worker = None;
            }
            let job = Assignment {
                id: next_id,
                line: want.line,
                task: want.task,
            };
            next_id += 1;
            s.assign(i, Some(job.id));
            let started = match &seat.worker {
                Some((w, _)) => w.run(job.clone()),
                None => false,
            };
            if !started {
                let name = s.engines()[want.engine].clone();
                match spawn_worker(&shared, i, want.engine, name) {
                    Ok(worker) => {
                        worker.run(job);
                        seat.worker = Some((worker, want.engine));
                    }
                    Err(e) => s.engine_failed(i, &format!("cannot start its thread: {e}")),
                }
            }
        }
        if s.version() != seen {
            // The seats shown busy or idle: nothing the jobs depend on.
            seen = s.version();
            shared.changed.notify_all();
        }
    }
}

/// Starts a worker for `engine` in `seat` (the caller holds the session).
fn spawn_worker(
    shared: &Arc<Shared>,
    seat: usize,
    engine: usize,
    name: String,
) -> std::io::Result<Worker> {
    let choice = shared.choices[engine.min(shared.choices.len() - 1)].clone();
    let weak = Arc::downgrade(shared);
    let sink: engines::Sink = Arc::new(move |id, update| {
        if let Some(shared) = weak.upgrade() {
            on_update(&shared, seat, id, update);
        }
    });
    Worker::spawn(choice, name, sink)
}

/// Takes a worker's update into the session, if its job is still wanted.
fn on_update(shared: &Shared, seat: usize, id: u64, update: Update) {
    let mut s = shared.lock();
    let current = s.job(seat) == id;
    let before = s.version();
    match update {
        Update::Info(view) if current => s.live_analysis(view),
        Update::Best(mv, took, note) if current => {
            s.engine_move(seat, &mv, took, Annotation::note(note))
        }
        Update::ScanPoint(ply, q) if current => s.scan_point(ply, q),
        Update::Failed(why) if current || s.seat(seat).busy => s.engine_failed(seat, &why),
        Update::Done if current => s.job_done(seat),
        _ => {}
    }
    if s.version() != before {
        shared.changed.notify_all();
    }
}

// ---------------------------------------------------------------------------
// HTTP.

/// Whether the request comes from the server's own page: its `Host` is one
/// of the server's addresses, and its `Origin`, if any, is the same.
fn same_origin(shared: &Shared, request: &Request) -> Result<(), GuiError> {
    let host = request
        .header("host")
        .ok_or_else(|| GuiError::Forbidden("no Host header".into()))?;
    if !shared.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(GuiError::Forbidden(format!(
            "the Host '{}' is not this server",
            shorten(host)
        )));
    }
    if let Some(origin) = request.header("origin") {
        let ok = origin
            .strip_prefix("http://")
            .is_some_and(|o| shared.hosts.iter().any(|h| h.eq_ignore_ascii_case(o)));
        if !ok {
            return Err(GuiError::Forbidden(format!(
                "the Origin '{}' is not this server",
                shorten(origin)
            )));
        }
    }
    Ok(())
}

fn json_reply(status: u16, body: &serde_json::Value) -> Response {
    Response::new(status, "application/json", body.to_string())
        .with_header("Cache-Control", "no-store")
}

fn error_reply(status: u16, why: &str) -> Response {
    json_reply(status, &serde_json::json!({ "error": why }))
}

fn handle(shared: &Shared, request: Request) {
    if let Err(why) = same_origin(shared, &request) {
        request.respond(error_reply(403, &why.to_string()));
        return;
    }
    let asset = |body: &str, kind: &str| {
        Response::new(200, kind, body)
            .with_header("Cache-Control", "no-cache")
            .with_header("X-Content-Type-Options", "nosniff")
    };
    let response = match (request.method(), request.path()) {
        ("GET", "/") => asset(INDEX_HTML, "text/html; charset=utf-8").with_header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
        ),
        ("GET", "/app.js") => asset(APP_JS, "text/javascript; charset=utf-8"),
        ("GET", "/style.css") => asset(STYLE_CSS, "text/css; charset=utf-8"),
        ("GET", "/state") => {
            let s = shared.lock();
            match serde_json::to_value(s.view()) {
                Ok(v) => json_reply(200, &v),
                Err(e) => error_reply(500, &e.to_string()),
            }
        }
        ("GET", "/events") => return stream(shared, request),
        ("POST", "/api") => {
            let (status, body) = command(shared, &request);
            json_reply(status, &body)
        }
        ("POST", "/solve") if !is_json(&request) => {
            error_reply(415, "commands must be application/json")
        }
        ("POST", "/solve") => match solve::SolveSlot::take(&shared.solves) {
            None => error_reply(429, "a solve is already running: wait for its result"),
            Some(slot) => {
                let (game, fen) = {
                    let s = shared.lock();
                    (s.line().game(), s.shown_fen())
                };
                match solve::solve(game, &fen, solve::SOLVE_TIME, &slot.control) {
                    Ok(v) => json_reply(200, &v),
                    Err(e) => error_reply(400, &e.to_string()),
                }
            }
        },
        ("POST", "/solve/stop") => json_reply(
            200,
            &serde_json::json!({ "stopped": solve::stop(&shared.solves) }),
        ),
        (
            _,
            "/" | "/app.js" | "/style.css" | "/state" | "/events" | "/api" | "/solve"
            | "/solve/stop",
        ) => error_reply(405, "method not allowed"),
        _ => error_reply(404, "not found"),
    };
    request.respond(response);
}

/// Carries out a `POST /api` command: status and JSON reply.
/// Whether the request's body is JSON (which a cross-site form cannot
/// send without the browser asking first).
fn is_json(request: &Request) -> bool {
    request
        .header("content-type")
        .is_some_and(|t| t.trim_start().starts_with("application/json"))
}

fn command(shared: &Shared, request: &Request) -> (u16, serde_json::Value) {
    if !is_json(request) {
        return (
            415,
            serde_json::json!({ "error": "commands must be application/json" }),
        );
    }
    let Ok(body) = std::str::from_utf8(request.body()) else {
        return (
            400,
            serde_json::json!({ "error": "the body is not UTF-8 text" }),
        );
    };
    run_command(shared, body)
}

/// Carries out the command `body` (JSON): status and JSON reply.
fn run_command(shared: &Shared, body: &str) -> (u16, serde_json::Value) {
    let command: Command = match serde_json::from_str(body) {
        Ok(c) => c,
        Err(e) => {
            let why = format!("bad command: {}", shorten(&e.to_string()));
            return (400, serde_json::json!({ "error": why }));
        }
    };
    let result = match command {
        // The text is read before the session is taken: a long one holds
        // up no event stream.
        Command::Load { text, name, number } => {
            let game = || shared.lock().line().game();
            load::prepare_load(&text, game, &name, number)
                .map(|loaded| shared.lock().take_loaded(loaded))
        }
        command => shared.lock().command(command),
    };
    shared.changed.notify_all();
    // A command understood but refused (an illegal move, a bad set-up) is
    // an answer, not a failed request: 200 with the reason, which the page
    // shows, so that the browser logs no error for a person's mistake.
    match result {
        Ok(()) => (200, serde_json::json!({ "ok": true })),
        Err(e) => (
            200,
            serde_json::json!({ "ok": false, "error": e.to_string() }),
        ),
    }
}

/// Serves the event stream: the view now, then on every change (at most
/// about 12 a second), with a comment every [`PING_EVERY`] to notice closed
/// pages.
fn stream(shared: &Shared, request: Request) {
    {
        let mut n = match shared.streams.lock() {
            Ok(n) => n,
            Err(p) => p.into_inner(),
        };
        if *n >= MAX_STREAMS {
            request.respond(error_reply(503, "too many pages are open"));
            return;
        }
        *n += 1;
    }
    let w = request.into_stream();
    let _ = serve_stream(shared, &mut &*w);
    if let Ok(mut n) = shared.streams.lock() {
        *n -= 1;
    }
}

fn serve_stream(shared: &Shared, w: &mut dyn Write) -> std::io::Result<()> {
    w.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
    )?;
    w.flush()?;
    let mut sent = None;
    loop {
        let text = {
            let mut s = shared.lock();
            let deadline = Instant::now() + PING_EVERY;
            while Some(s.version()) == sent && Instant::now() < deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                s = match shared.changed.wait_timeout(s, left) {
                    Ok((s, _)) => s,
                    Err(p) => p.into_inner().0,
                };
            }
            if Some(s.version()) == sent {
                None
            } else {
                sent = Some(s.version());
                serde_json::to_string(&s.view()).ok()
            }
        };
        match text {
            Some(json) => write!(w, "event: state\ndata: {json}\n\n")?,
            None => w.write_all(b": ping\n\n")?,
        }
        w.flush()?;
        thread::sleep(Duration::from_millis(80));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use session::MoveLimit;

    #[test]
    fn loopback_names() {
        assert!(is_loopback("127.0.0.1"));
        assert!(!is_loopback("0.0.0.0"));
        let args = Settings {
            port: 0,
            host: "0.0.0.0".into(),
            engines: Vec::new(),
            open: false,
        };
        let err = Gui::bind(&args)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("--host 0.0.0.0: the GUI listens only on this machine"),
            "{err}"
        );
    }

    /// A PGN to load is read before the session is taken (hostile input
    /// round 2): here a 1 MB text refused at its last line is answered
    /// while the session is held. Before, the load waited for the
    /// session, and held it while reading, stalling every event stream.
    #[test]
    fn a_load_is_read_without_the_session() {
        let shared = Arc::new(Shared {
            session: Mutex::new(Session::new(vec!["Ultimo".into()])),
            changed: Condvar::new(),
            choices: vec![EngineChoice::Ultimo],
            hosts: Vec::new(),
            streams: Mutex::new(0),
            solves: Mutex::new(None),
        });
        let mut text = "[Event \"x\"]\n\n1. e5 e4 *\n\n".repeat(40_000);
        text.truncate(load::MAX_LOAD - 100);
        let lines = text.lines().count();
        text.push_str("\n\n1. e5 {unclosed *\n");
        let body = serde_json::json!({ "cmd": "load", "text": text }).to_string();
        let held = shared.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        let other = Arc::clone(&shared);
        thread::spawn(move || {
            let _ = tx.send(run_command(&other, &body));
        });
        let (status, reply) = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the load waited for the session");
        drop(held);
        // Refused: an answer (200) with the reason.
        assert_eq!((status, &reply["ok"]), (200, &serde_json::json!(false)));
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(&format!("line {}: ", lines + 3)),
            "{error}"
        );
    }

    #[test]
    fn errors_carry_their_causes() {
        use crate::rules::PlayError;
        // An illegal move: the rules' own reason.
        let mut line = game::Line::<crate::rules::Position>::new();
        assert!(line.play(0, "e5").is_ok());
        let err = line.play(1, "a1").err();
        assert!(
            matches!(
                err,
                Some(GuiError::Illegal {
                    reason: IllegalMove::Uttt(PlayError::WrongBoard { expected: 4 }),
                    ..
                })
            ),
            "{err:?}"
        );
        // Out of range: the value and the bounds.
        let mut s = Session::new(vec!["Ultimo".into()]);
        let lines = Command::Analysis {
            on: true,
            multipv: 12,
            engine: 0,
        };
        let err = s.apply(lines, Duration::ZERO).err();
        assert!(
            matches!(
                err,
                Some(GuiError::OutOfRange {
                    value: 12,
                    min: 1,
                    max: 9,
                    ..
                })
            ),
            "{err:?}"
        );
        assert_eq!(
            err.map(|e| e.to_string()).unwrap_or_default(),
            "lines must be 1 to 9 (not 12)"
        );
        // Listening: the system's error.
        let Ok(taken) = std::net::TcpListener::bind("127.0.0.1:0") else {
            return; // no loopback here
        };
        let port = taken.local_addr().map(|a| a.port()).unwrap_or(0);
        let args = Settings {
            port,
            host: "127.0.0.1".into(),
            engines: Vec::new(),
            open: false,
        };
        match Gui::bind(&args).err() {
            Some(GuiError::Listen { source, .. }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::AddrInUse)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn limits_are_checked() {
        let mut s = Session::new(vec!["Ultimo".into()]);
        let bad = Command::Mode {
            mode: session::Mode::Hve,
            human: Player::X,
            x: 0,
            o: 5,
            levels: [0, 0],
            limit: MoveLimit::Movetime { ms: 100 },
        };
        assert_eq!(
            s.apply(bad, Duration::ZERO).unwrap_err().to_string(),
            "there is no engine 5"
        );
    }

    #[test]
    fn levels_are_checked_and_named() {
        let mut s = Session::new(vec!["Ultimo".into(), "Other".into()]);
        let mode = |levels, o| Command::Mode {
            mode: session::Mode::Hve,
            human: Player::X,
            x: 0,
            o,
            levels,
            limit: MoveLimit::Movetime { ms: 100 },
        };
        assert_eq!(
            s.apply(mode([0, 11], 0), Duration::ZERO)
                .unwrap_err()
                .to_string(),
            "there is no level 11 (1 to 10, or 0 for full strength)"
        );
        assert_eq!(
            s.apply(mode([0, 2], 1), Duration::ZERO)
                .unwrap_err()
                .to_string(),
            "levels are Ultimo's: Other plays at its own strength"
        );
        assert_eq!(s.strength(Player::O), crate::engine::Strength::Full);
        s.apply(mode([0, 2], 0), Duration::ZERO).unwrap();
        let two = crate::engine::Strength::level(2).unwrap();
        assert_eq!(s.strength(Player::O), two);
        let elo = crate::engine::levels(crate::game::GameKind::Uttt)[1].elo;
        let name = format!("Ultimo (level 2, Elo {elo})");
        assert_eq!(s.pgn().tag("Black"), Some(name.as_str()));
        assert_eq!(s.pgn().tag("White"), Some("Human"));
    }
}
