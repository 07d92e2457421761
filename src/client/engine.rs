//! Engine processes: how an engine is named on the command line, and
//! talking to it over its standard input and output.
//!
//! Each engine runs in a process group of its own (on Unix), and stopping
//! an engine kills the whole group, so that what the engine started (a
//! `sleep` in a script, helper processes) goes with it. A line of its
//! output may be at most [`MAX_LINE`] bytes long, and at most
//! [`LINE_QUEUE`] lines wait to be read: the runner's memory stays bounded
//! whatever the engine writes.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use super::clock::{ClockError, Dialect, TimeControl};
use crate::quote::shorten;

/// The longest engine name, in characters (names are printed in the
/// summaries, in full, and a record may give no longer one).
pub const MAX_NAME_CHARS: usize = 100;

/// How to start an engine and set it up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The engine's name in the output and the record (one word).
    pub name: String,
    /// Whether the name was given (`name=`) rather than taken from the
    /// program.
    pub named: bool,
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Options sent with `setoption name N value V`, in order.
    pub options: Vec<(String, String)>,
    /// The dialect to speak; `None` tries `ugi`, then `uci`.
    pub dialect: Option<Dialect>,
    /// Its own limit (`tc=`, `nodes=` or `movetime=`), overriding the
    /// match's `--tc`, `--nodes` or `--movetime`.
    pub control: Option<TimeControl>,
}

impl EngineSpec {
    /// Reads an `--engine` value: words separated by whitespace (see
    /// [`split_words`]), each `key=value`: `cmd=PROGRAM` (required),
    /// `arg=ARG` (repeatable), `name=NAME`, `proto=ugi|uci`,
    /// `option.NAME=VALUE` (repeatable), and at most one of `tc=BASE+INC`,
    /// `nodes=N` and `movetime=MS` (the engine's own limit). The name
    /// defaults to the program's file name.
    pub fn parse(text: &str) -> Result<EngineSpec, EngineSpecError> {
        let bad = |problem| EngineSpecError::Bad {
            spec: shorten(text),
            problem,
        };
        let mut program = None;
        let mut name = None;
        let mut args = Vec::new();
        let mut options = Vec::new();
        let mut dialect = None;
        let mut control = None;
        for word in split_words(text).map_err(bad)? {
            let word = word.as_str();
            let Some((key, value)) = word.split_once('=') else {
                return Err(bad(SpecProblem::NotKeyValue(shorten(word))));
            };
            if value.is_empty() {
                return Err(bad(SpecProblem::NoValue(shorten(word))));
            }
            match key {
                "cmd" if program.is_some() => return Err(bad(SpecProblem::Twice("cmd"))),
                "cmd" => program = Some(value.to_string()),
                "arg" => args.push(value.to_string()),
                "name" if name.is_some() => return Err(bad(SpecProblem::Twice("name"))),
                "name"
                    if value
                        .contains(|c: char| c == ';' || c.is_whitespace() || c.is_control())
                        || value.chars().nth(MAX_NAME_CHARS).is_some() =>
                {
                    return Err(bad(SpecProblem::BadName));
                }
                "name" => name = Some(value.to_string()),
                "proto" => {
                    dialect = Some(match value {
                        "ugi" => Dialect::Ugi,
                        "uci" => Dialect::Uci,
                        _ => return Err(bad(SpecProblem::BadProto(shorten(value)))),
                    })
                }
                "tc" | "nodes" | "movetime" if control.is_some() => {
                    return Err(bad(SpecProblem::TwoLimits));
                }
                "tc" | "nodes" | "movetime" => {
                    control = Some(parse_control(key, value).map_err(bad)?);
                }
                _ => match key.strip_prefix("option.") {
                    Some(option) if !option.is_empty() => {
                        options.push((option.to_string(), value.to_string()))
                    }
                    _ => return Err(bad(SpecProblem::UnknownKey(shorten(key)))),
                },
            }
        }
        let program = program.ok_or_else(|| bad(SpecProblem::NoCommand))?;
        let named = name.is_some();
        let name = name.unwrap_or_else(|| default_name(&program));
        Ok(EngineSpec {
            name,
            named,
            program,
            args,
            options,
            dialect,
            control,
        })
    }
}

/// The limit of an engine's `tc=`, `nodes=` or `movetime=` key.
fn parse_control(key: &str, value: &str) -> Result<TimeControl, SpecProblem> {
    let number = || {
        value
            .parse::<u64>()
            .map_err(|_| SpecProblem::NotNumber(key.to_string(), shorten(value)))
    };
    let control = match key {
        "nodes" => TimeControl::from_options(None, Some(number()?), None),
        "movetime" => TimeControl::from_options(Some(number()?), None, None),
        _ => TimeControl::parse_clock(value),
    };
    control.map_err(SpecProblem::Control)
}

/// What is wrong with an `--engine` value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecProblem {
    /// A quote that is not closed, or a backslash at the very end.
    #[error("a quote is not closed, or a backslash ends the text")]
    Unbalanced,
    /// A word without `=`.
    #[error(
        "'{0}' is not key=value (keys: cmd, arg, name, proto, option.NAME, tc, nodes, movetime)"
    )]
    NotKeyValue(String),
    /// A word with nothing after `=`.
    #[error("'{0}' has no value")]
    NoValue(String),
    /// A key that may be given once was given again.
    #[error("{0}= is given twice")]
    Twice(&'static str),
    /// A name that would break the record's fields.
    #[error(
        "a name is at most {MAX_NAME_CHARS} characters, without ';', spaces or control characters"
    )]
    BadName,
    /// A `proto=` other than `ugi` or `uci`.
    #[error("proto must be ugi or uci, got '{0}'")]
    BadProto(String),
    /// A key the runner does not know.
    #[error("unknown key '{0}' (keys: cmd, arg, name, proto, option.NAME, tc, nodes, movetime)")]
    UnknownKey(String),
    /// No `cmd=`.
    #[error("cmd= is missing")]
    NoCommand,
    /// More than one of `tc=`, `nodes=` and `movetime=`.
    #[error("give at most one of tc=, nodes= and movetime=")]
    TwoLimits,
    /// A `nodes=` or `movetime=` that is not a number.
    #[error("{0}= must be a whole number, got '{1}'")]
    NotNumber(String, String),
    /// A limit that is refused (the words name the match's option).
    #[error(transparent)]
    Control(ClockError),
}

/// Why the engines given on the command line cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineSpecError {
    /// An `--engine` value that does not parse (`spec` is shortened).
    #[error("--engine '{spec}': {problem}")]
    Bad {
        /// The value, shortened.
        spec: String,
        /// What is wrong with it.
        problem: SpecProblem,
    },
    /// Two engines were given the same `name=`, or a name taken from a
    /// program is another engine's `name=`.
    #[error("two engines are called '{0}': give them different name= values")]
    SameName(String),
}

/// Splits `text` into words as a POSIX shell does (with [`shlex`]): at
/// whitespace, except inside double or single quotes, which are removed,
/// and a backslash escapes the next character: `cmd="/my engines/ultimo"`,
/// `'cmd=/my engines/ultimo'` and `cmd=/my\ engines/ultimo` are all one word,
/// `cmd=/my engines/ultimo`. A word starting with `#` starts a comment to
/// the end of the line.
pub fn split_words(text: &str) -> Result<Vec<String>, SpecProblem> {
    shlex::split(text).ok_or(SpecProblem::Unbalanced)
}

/// The file name of `program`, without its directory, as an engine name
/// (`;` and spaces replaced, since records use them as separators).
fn default_name(program: &str) -> String {
    let file = program.rsplit('/').next().unwrap_or(program);
    let file = if file.is_empty() { "engine" } else { file };
    let name = file.replace(
        |c: char| c == ';' || c.is_whitespace() || c.is_control(),
        "_",
    );
    // Its end, where a version or a variant usually is.
    let count = name.chars().count();
    name.chars()
        .skip(count.saturating_sub(MAX_NAME_CHARS))
        .collect()
}

/// Gives the engines different names: engines whose names are taken from
/// their programs and equal get `#` and their place in the `--engine` list
/// (from 1) appended, e.g. `ultimo#1` and `ultimo#2` (not a dash, which would
/// read as a pairing `ultimo-1`-`ultimo-2`); a name given twice with `name=`,
/// or equal to another engine's name after this, is an error.
pub fn distinct_names(specs: &mut [EngineSpec]) -> Result<(), EngineSpecError> {
    let count = |specs: &[EngineSpec], name: &str| specs.iter().filter(|s| s.name == name).count();
    let shared: Vec<bool> = specs
        .iter()
        .map(|s| !s.named && count(specs, &s.name) > 1)
        .collect();
    for (i, spec) in specs.iter_mut().enumerate() {
        if shared[i] {
            spec.name = format!("{}#{}", spec.name, i + 1);
        }
    }
    match specs.iter().find(|s| count(specs, &s.name) > 1) {
        Some(spec) => Err(EngineSpecError::SameName(spec.name.clone())),
        None => Ok(()),
    }
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The process could not be started, or its pipe broke, or it ended its
    /// output (exited or crashed); the words say which.
    #[error("{0}")]
    Crashed(String),
    /// No expected answer within the time allowed.
    #[error("no answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// No answer to the handshake: to `ugi` and then to `uci` when no
    /// dialect is forced, or to the one forced; `None` for one not tried.
    #[error("{}", unanswered(*.ugi, *.uci))]
    NoHandshake {
        /// How long `ugi` was waited for, if it was sent.
        ugi: Option<Duration>,
        /// How long `uci` was waited for, if it was sent.
        uci: Option<Duration>,
    },
    /// A line of output longer than [`MAX_LINE`] bytes (an engine that
    /// floods its output): a protocol violation, and the line is not read
    /// any further.
    #[error("sent a line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// The log file for the engine's standard error cannot be opened.
    #[error("cannot open the log file {}: {problem}", crate::quote::path(.path))]
    Log {
        /// The file.
        path: PathBuf,
        /// Why, in words.
        problem: String,
    },
    /// The match is being stopped.
    #[error("the match was stopped")]
    Aborted,
}

/// The words for a handshake without an answer: `no answer to ugi within
/// 5000 ms, nor to uci within 5000 ms`.
fn unanswered(ugi: Option<Duration>, uci: Option<Duration>) -> String {
    let tried: Vec<String> = [("ugi", ugi), ("uci", uci)]
        .into_iter()
        .filter_map(|(hello, waited)| {
            waited.map(|w| format!("to {hello} within {} ms", w.as_millis()))
        })
        .collect();
    match &tried[..] {
        [] => "no answer to the handshake".to_string(),
        [first, rest @ ..] => {
            let mut text = format!("no answer {first}");
            for more in rest {
                text.push_str(", nor ");
                text.push_str(more);
            }
            text
        }
    }
}

/// The longest line an engine may write, in bytes (64 KiB, newline not
/// counted): far more than any protocol line needs (a `position` with every
/// move is about 250 bytes, an `info` line with a long PV a few KiB). A
/// longer line is [`EngineError::LineTooLong`].
pub const MAX_LINE: usize = 64 * 1024;

/// The most lines read from an engine and not yet looked at. When they
/// pile up (an engine writing while the runner waits for the other one),
/// the reader stops reading and the engine waits on its full pipe, so at
/// most `LINE_QUEUE * MAX_LINE` bytes (16 MiB, short lines far less) wait
/// per engine.
pub const LINE_QUEUE: usize = 256;

/// A line of the engine's output and when it arrived.
type Line = (Instant, String);

/// What the reader thread passes on: a line, or the news that a line was
/// too long (after which it reads no more).
enum Output {
    Line(Line),
    TooLong,
}

/// How often a wait looks at the abort flag.
const POLL: Duration = Duration::from_millis(50);

/// How long `quit` may take before the process is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// The file in `dir` that keeps the standard error of the engine called
/// `name`: `dir/name.log`, with `/` and `\` in the name made `_`.
pub fn log_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{}.log", name.replace(['/', '\\'], "_")))
}

/// Opens (creates, or appends to) the log of engine `name` in `dir`.
fn open_log(dir: &Path, name: &str) -> Result<File, EngineError> {
    let path = log_path(dir, name);
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| EngineError::Log {
            path,
            problem: e.to_string(),
        })
}

/// A running engine process, in a process group of its own on Unix.
/// Dropping it kills the whole group.
pub struct EngineProcess {
    /// The engine's name.
    pub name: String,
    /// The dialect it answered the handshake in.
    pub dialect: Dialect,
    child: Child,
    /// The exit status, once the process has been reaped (after its group
    /// was killed).
    status: Option<ExitStatus>,
    stdin: ChildStdin,
    lines: Receiver<Output>,
}

impl EngineProcess {
    /// Starts the engine of `spec`, does the handshake (`ugi` -> `ugiok`,
    /// or `uci` -> `uciok`), sends its options and waits for `readyok`;
    /// every answer within `timeout`. An `info string error` answer to an
    /// option is an error. The engine's standard error is discarded.
    pub fn start(
        spec: &EngineSpec,
        timeout: Duration,
        abort: &AtomicBool,
    ) -> Result<EngineProcess, EngineError> {
        EngineProcess::start_logged(spec, timeout, abort, None)
    }

    /// [`EngineProcess::start`], with the engine's standard error appended to its
    /// log in the directory `log` (see [`log_path`]) if given.
    pub fn start_logged(
        spec: &EngineSpec,
        timeout: Duration,
        abort: &AtomicBool,
        log: Option<&Path>,
    ) -> Result<EngineProcess, EngineError> {
        let stderr = match log {
            Some(dir) => Stdio::from(open_log(dir, &spec.name)?),
            None => Stdio::null(),
        };
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        // Own process group: a Ctrl-C in the terminal reaches the runner,
        // which decides what to do, and not the engines; and the runner
        // can kill the engine with everything it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Crashed(format!("cannot start '{}': {e}", spec.program)))?;
        #[cfg(unix)]
        live_groups().push(child.id());
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            let _ = child.wait();
            return Err(EngineError::Crashed("no pipes to the engine".to_string()));
        };
        let (sender, lines) = mpsc::sync_channel(LINE_QUEUE);
        thread::spawn(move || read_lines(stdout, sender));
        let mut engine = EngineProcess {
            name: spec.name.clone(),
            dialect: spec.dialect.unwrap_or(Dialect::Ugi),
            child,
            status: None,
            stdin,
            lines,
        };
        engine.handshake(spec.dialect, timeout, abort)?;
        for (name, value) in &spec.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.send("isready")?;
        let mut error = None;
        engine.wait_for(timeout, abort, |line| {
            if let Some(e) = line.strip_prefix("info string error") {
                error.get_or_insert_with(|| e.trim_start_matches(':').trim().to_string());
            }
            line == "readyok"
        })?;
        match error {
            Some(e) => Err(EngineError::Crashed(format!(
                "the engine refused an option: {e}"
            ))),
            None => Ok(engine),
        }
    }

    /// Sends `ugi` (or `uci`) and waits for `ugiok` or `uciok`; without a
    /// forced dialect, falls back to `uci` when `ugi` gets no answer.
    fn handshake(
        &mut self,
        forced: Option<Dialect>,
        timeout: Duration,
        abort: &AtomicBool,
    ) -> Result<(), EngineError> {
        let first = forced.unwrap_or(Dialect::Ugi);
        let hello = |d| if d == Dialect::Ugi { "ugi" } else { "uci" };
        self.send(hello(first))?;
        let answer = self.wait_for(timeout, abort, |l| l == "ugiok" || l == "uciok");
        let answer = match (answer, forced) {
            (Err(EngineError::Timeout(_)), None) => {
                self.send("uci")?;
                match self.wait_for(timeout, abort, |l| l == "uciok") {
                    Err(EngineError::Timeout(_)) => Err(EngineError::NoHandshake {
                        ugi: Some(timeout),
                        uci: Some(timeout),
                    }),
                    other => other,
                }
            }
            (Err(EngineError::Timeout(_)), Some(Dialect::Ugi)) => Err(EngineError::NoHandshake {
                ugi: Some(timeout),
                uci: None,
            }),
            (Err(EngineError::Timeout(_)), Some(Dialect::Uci)) => Err(EngineError::NoHandshake {
                ugi: None,
                uci: Some(timeout),
            }),
            (other, _) => other,
        }?;
        self.dialect = if answer.1 == "ugiok" {
            Dialect::Ugi
        } else {
            Dialect::Uci
        };
        Ok(())
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| EngineError::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// Waits up to `timeout` for a line (trimmed) that `wanted` accepts, and
    /// returns it with the time it arrived; other lines are skipped.
    pub fn wait_for(
        &mut self,
        timeout: Duration,
        abort: &AtomicBool,
        mut wanted: impl FnMut(&str) -> bool,
    ) -> Result<Line, EngineError> {
        // A timeout past the clock's range has no deadline.
        let deadline = Instant::now().checked_add(timeout);
        loop {
            if abort.load(Ordering::Relaxed) {
                return Err(EngineError::Aborted);
            }
            let now = Instant::now();
            let left = match deadline {
                Some(deadline) if now >= deadline => return Err(EngineError::Timeout(timeout)),
                Some(deadline) => deadline - now,
                None => POLL,
            };
            match self.lines.recv_timeout(POLL.min(left)) {
                Ok(Output::Line((at, line))) => {
                    if wanted(&line) {
                        return Ok((at, line));
                    }
                }
                Ok(Output::TooLong) => return Err(EngineError::LineTooLong),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // Usually it has exited: give it a moment to, for its
                    // status. The engine is finished either way.
                    let exited = self.wait_exit(EXIT_GRACE);
                    let status = match self.end() {
                        Some(status) if exited => format!(" ({status})"),
                        _ => String::new(),
                    };
                    return Err(EngineError::Crashed(format!(
                        "the engine closed its output{status}"
                    )));
                }
            }
        }
    }

    /// Prepares a new game: `uginewgame` (or `ucinewgame`), then `isready`
    /// until `readyok` within `timeout`.
    pub fn new_game(&mut self, timeout: Duration, abort: &AtomicBool) -> Result<(), EngineError> {
        let new_game = match self.dialect {
            Dialect::Ugi => "uginewgame",
            Dialect::Uci => "ucinewgame",
        };
        self.send(new_game)?;
        self.send("isready")?;
        self.wait_for(timeout, abort, |l| l == "readyok")
            .map(|_| ())
    }

    /// Asks the engine to quit, waits up to half a second for it to exit,
    /// then kills its process group (what it started and left running
    /// too).
    pub fn quit(mut self) {
        let _ = self.send("quit");
        self.wait_exit(QUIT_GRACE);
        // Drop kills the group.
    }

    /// Waits up to `grace` for the engine's process to exit, without
    /// reaping it (its process group id stays its own until the group is
    /// killed); whether it exited.
    fn wait_exit(&mut self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        loop {
            if self.exited() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the engine's process has exited (it is not reaped).
    #[cfg(unix)]
    fn exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        let pid = libc::id_t::from(self.child.id());
        // SAFETY: `siginfo_t` is plain data, for which all zeroes is a
        // valid value, and `waitid` only writes into it. With `WNOWAIT`
        // the child stays waitable, so `Child::wait` reaps it later.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            libc::waitid(libc::P_PID, pid, &mut info, flags) == 0 && info.si_pid() != 0
        }
    }

    /// Whether the engine's process has exited (reaped at once where
    /// process groups are not used).
    #[cfg(not(unix))]
    fn exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        match self.child.try_wait() {
            Ok(Some(status)) => {
                self.status = Some(status);
                true
            }
            _ => false,
        }
    }

    /// Kills the engine's process group and reaps the engine: its exit
    /// status (`None` if it could not be had).
    fn end(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            kill_group(&mut self.child);
            self.status = self.child.wait().ok();
        }
        self.status
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.end();
    }
}

/// How long an engine that closed its output may take to exit before its
/// exit status is left out of the error.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// Kills `child`'s process group with SIGKILL: the child and everything it
/// started that stayed in its group. The child must not have been reaped
/// yet: until it is, its process id (the group's id) cannot be reused.
#[cfg(unix)]
fn kill_group(child: &mut Child) {
    let mut live = live_groups();
    if !kill_group_of(child.id()) {
        let _ = child.kill();
    }
    live.retain(|&pid| pid != child.id());
}

/// Kills the process group led by `pid` with SIGKILL; whether `pid` could
/// name one.
#[cfg(unix)]
fn kill_group_of(pid: u32) -> bool {
    // The child leads its own group (`process_group(0)`): the group's id is
    // its process id.
    match libc::pid_t::try_from(pid) {
        // SAFETY: `kill` takes no pointers; a negative pid names the
        // process group, which is the engine's own.
        Ok(pgid) if pgid > 0 => unsafe {
            libc::kill(-pgid, libc::SIGKILL);
            true
        },
        _ => false,
    }
}

/// The engines started and not reaped yet, by process id (each leads its
/// group): [`kill_group`] removes one before it is reaped, so that no id
/// here can belong to another process.
#[cfg(unix)]
fn live_groups() -> std::sync::MutexGuard<'static, Vec<u32>> {
    static LIVE: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());
    match LIVE.lock() {
        Ok(live) => live,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Kills every engine this process started and has not ended yet, with
/// everything each started (its process group), as [`EngineProcess`]'s
/// drop does one by one: for a program ending on a signal, whose engines
/// would otherwise go on running. The engines are reaped by their owners,
/// or with the program.
#[cfg(unix)]
pub fn kill_all_engines() {
    let mut live = live_groups();
    for pid in live.drain(..) {
        kill_group_of(pid);
    }
}

/// Kills every engine this process started (where process groups are not
/// used, each engine is killed by its owner).
#[cfg(not(unix))]
pub fn kill_all_engines() {}

/// Kills `child` (there are no process groups to kill here).
#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

/// Forwards the engine's output lines (without `\r\n`, invalid UTF-8
/// replaced) with their arrival time, until the output ends, the engine is
/// dropped or a line is longer than [`MAX_LINE`] (then [`Output::TooLong`]
/// is sent and nothing more is read). Reads in chunks and keeps at most
/// one line of [`MAX_LINE`] bytes; `sender` holds at most [`LINE_QUEUE`]
/// lines, and waits (so the engine waits) while it is full.
fn read_lines(mut reader: impl Read, sender: SyncSender<Output>) {
    let mut chunk = [0u8; 8192];
    let mut line = Vec::new();
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let mut rest = &chunk[..n];
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            if line.len() + end > MAX_LINE {
                let _ = sender.send(Output::TooLong);
                return;
            }
            line.extend_from_slice(&rest[..end]);
            let at = Instant::now();
            let text = String::from_utf8_lossy(&line).trim().to_string();
            line.clear();
            if sender.send(Output::Line((at, text))).is_err() {
                return;
            }
            rest = &rest[end + 1..];
        }
        if line.len() + rest.len() > MAX_LINE {
            let _ = sender.send(Output::TooLong);
            return;
        }
        line.extend_from_slice(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_engine_specs() {
        let spec = EngineSpec::parse(
            "cmd=./target/release/ultimo name=base option.Threads=1 option.Hash=64",
        )
        .unwrap();
        assert_eq!(
            spec,
            EngineSpec {
                name: "base".into(),
                named: true,
                program: "./target/release/ultimo".into(),
                args: vec![],
                options: vec![("Threads".into(), "1".into()), ("Hash".into(), "64".into())],
                dialect: None,
                control: None,
            }
        );
        let spec = EngineSpec::parse("  cmd=python3\targ=fake.py arg=--x=1 proto=uci ").unwrap();
        assert_eq!(spec.name, "python3");
        assert_eq!(spec.args, ["fake.py", "--x=1"]);
        assert_eq!(spec.dialect, Some(Dialect::Uci));
        assert_eq!(spec.control, None);
        let limit = |text: &str| EngineSpec::parse(text).unwrap().control;
        assert_eq!(limit("cmd=a nodes=800"), Some(TimeControl::Nodes(800)));
        assert_eq!(
            limit("cmd=a movetime=20"),
            Some(TimeControl::Movetime(Duration::from_millis(20)))
        );
        assert_eq!(
            limit("cmd=a tc=1+0.1"),
            TimeControl::parse_clock("1+0.1").ok()
        );
        assert_eq!(EngineSpec::parse("cmd=/usr/bin/").unwrap().name, "engine");
        let spec = EngineSpec::parse(r#"cmd="/my engines/ultimo" arg="a b""#).unwrap();
        assert_eq!(spec.program, "/my engines/ultimo");
        assert_eq!(spec.args, ["a b"]);
        assert_eq!(spec.name, "ultimo");
        assert!(!spec.named);
        let spec = EngineSpec::parse(r#"cmd="/my engines/my ultimo""#).unwrap();
        assert_eq!(spec.name, "my_ultimo");
        let spec = EngineSpec::parse(r#"cmd=/my\ engines/ultimo 'option.Book File=a b.txt'"#);
        let spec = spec.unwrap();
        assert_eq!(spec.program, "/my engines/ultimo");
        assert_eq!(spec.options, [("Book File".into(), "a b.txt".into())]);
    }

    #[test]
    fn splits_words_like_a_shell() {
        let words = |t| split_words(t).unwrap();
        assert_eq!(words("  a=1\tb=2 "), ["a=1", "b=2"]);
        assert_eq!(words(r#"cmd="x y" z"#), ["cmd=x y", "z"]);
        assert_eq!(words(r#"a="" b"#), ["a=", "b"]);
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(
            words(r#"'cmd=/my engines/u' x"#),
            ["cmd=/my engines/u", "x"]
        );
        assert_eq!(words(r#"cmd=/my\ engines/u"#), ["cmd=/my engines/u"]);
        assert_eq!(
            words(r#"arg="say \"hi\"" arg='a "b"'"#),
            [r#"arg=say "hi""#, r#"arg=a "b""#]
        );
        assert_eq!(words(r#"arg=\#1 # a comment"#), ["arg=#1"]);
        assert_eq!(split_words(r#"cmd="x"#), Err(SpecProblem::Unbalanced));
        assert_eq!(split_words("cmd='x"), Err(SpecProblem::Unbalanced));
        assert_eq!(split_words("cmd=x\\"), Err(SpecProblem::Unbalanced));
    }

    #[test]
    fn refuses_bad_engine_specs() {
        let long_name = format!("cmd=a name={}", "n".repeat(101));
        let cases = [
            ("", "cmd= is missing"),
            ("name=x", "cmd= is missing"),
            ("cmd=a cmd=b", "cmd= is given twice"),
            ("cmd=a name=x name=y", "name= is given twice"),
            (
                "cmd=a name=x;y",
                "without ';', spaces or control characters",
            ),
            (
                "cmd=a \"name=x y\"",
                "without ';', spaces or control characters",
            ),
            // Hostile input round 2, P3: a name printed in every summary.
            ("cmd=a name=\x1b[31mred", "without ';', spaces or control"),
            (&long_name, "a name is at most 100 characters"),
            ("cmd=a fake.py", "'fake.py' is not key=value"),
            ("cmd=", "'cmd=' has no value"),
            ("cmd=a proto=xboard", "proto must be ugi or uci"),
            ("cmd=a option.=1", "unknown key 'option.'"),
            ("cmd=\"a", "a quote is not closed"),
            ("cmd=a\\", "a backslash ends the text"),
            ("cmd=a threads=1", "unknown key 'threads'"),
            (
                "cmd=a nodes=5 tc=1+0.1",
                "at most one of tc=, nodes= and movetime=",
            ),
            (
                "cmd=a nodes=many",
                "nodes= must be a whole number, got 'many'",
            ),
            ("cmd=a movetime=-1", "movetime= must be a whole number"),
            ("cmd=a nodes=0", "--nodes must be at least 1"),
            ("cmd=a tc=x", "--tc x: the base time 'x' is not a number"),
        ];
        for (text, expected) in cases {
            let err = EngineSpec::parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    /// A name from the program's path has no control characters and at
    /// most 100 characters, like a name given (hostile input round 2, P3).
    #[test]
    fn default_names_are_names() {
        let spec = |text: &str| EngineSpec::parse(text).unwrap().name;
        assert_eq!(spec("cmd=/x/e\x1bv\x07"), "e_v_");
        let long = format!("cmd=/x/{}-v2", "e".repeat(200));
        assert_eq!(spec(&long), format!("{}-v2", "e".repeat(97)));
    }

    #[test]
    fn long_specs_are_shortened_in_errors() {
        let long = format!("cmd=a {}", "x".repeat(500));
        let err = EngineSpec::parse(&long).unwrap_err();
        let EngineSpecError::Bad { spec, problem } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(spec, &format!("cmd=a {}...", "x".repeat(34)));
        assert_eq!(
            problem,
            &SpecProblem::NotKeyValue(format!("{}...", "x".repeat(40)))
        );
        assert!(err.to_string().len() < 200, "{err}");
    }

    #[test]
    fn names_are_made_distinct() {
        let spec = |cmd: &str| EngineSpec::parse(cmd).unwrap();
        let mut specs = [spec("cmd=bin/ultimo"), spec("cmd=other/ultimo")];
        distinct_names(&mut specs).unwrap();
        assert_eq!([&specs[0].name, &specs[1].name], ["ultimo#1", "ultimo#2"]);
        let mut specs = [spec("cmd=a name=ultimo"), spec("cmd=ultimo")];
        distinct_names(&mut specs).unwrap();
        assert_eq!([&specs[0].name, &specs[1].name], ["ultimo", "ultimo#2"]);
        let mut specs = [spec("cmd=a name=u"), spec("cmd=b name=u")];
        let err = distinct_names(&mut specs).unwrap_err();
        assert_eq!(err, EngineSpecError::SameName("u".into()));
        assert_eq!(
            err.to_string(),
            "two engines are called 'u': give them different name= values"
        );
        // Three engines: only the equal program names get a number.
        let mut specs = [spec("cmd=u"), spec("cmd=a name=b"), spec("cmd=x/u")];
        distinct_names(&mut specs).unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["u#1", "b", "u#3"]);
        // A numbered name that another engine has already.
        let mut specs = [spec("cmd=u"), spec("cmd=u"), spec("cmd=a name=u#2")];
        let err = distinct_names(&mut specs).unwrap_err();
        assert_eq!(err, EngineSpecError::SameName("u#2".into()));
    }

    /// What [`read_lines`] passes on from `input`, read `piece` bytes at
    /// a time: the lines, then `None` for a line too long.
    fn lines_of(input: &[u8], piece: usize) -> Vec<Option<String>> {
        /// A reader that gives at most `piece` bytes a call.
        struct Pieces<'a>(&'a [u8], usize);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (sender, receiver) = mpsc::sync_channel(LINE_QUEUE);
        let input = input.to_vec();
        let reader = thread::spawn(move || read_lines(Pieces(&input, piece), sender));
        let got = receiver
            .iter()
            .map(|output| match output {
                Output::Line((_, line)) => Some(line),
                Output::TooLong => None,
            })
            .collect();
        reader.join().unwrap();
        got
    }

    #[test]
    fn reads_lines_in_any_pieces() {
        let input = b"id name x\r\nugiok\n\n  info \xff \nbestmove e5";
        let expected = ["id name x", "ugiok", "", "info \u{fffd}", "bestmove e5"];
        let expected: Vec<Option<String>> = expected.iter().map(|l| Some(l.to_string())).collect();
        for piece in [1, 2, 3, 7, 8192] {
            // The last line, without a newline, is lost with the output.
            assert_eq!(lines_of(input, piece), expected[..4], "piece {piece}");
        }
    }

    #[test]
    fn a_line_too_long_ends_the_reading() {
        let mut input = vec![b'x'; MAX_LINE];
        input.extend_from_slice(b"\nok\n");
        // A line of MAX_LINE bytes is read, one more byte is too long,
        // newline or not, and nothing after it is read.
        let long = Some("x".repeat(MAX_LINE));
        for piece in [1000, 8192, 100_000] {
            assert_eq!(lines_of(&input, piece), [long.clone(), Some("ok".into())]);
        }
        let mut input = vec![b'x'; MAX_LINE + 1];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines_of(&input, 8192), [None]);
        assert_eq!(lines_of(&vec![b'y'; 10 * MAX_LINE], 8192), [None]);
    }

    #[test]
    fn handshake_errors_say_what_was_tried() {
        let ms = Duration::from_millis;
        let err = |ugi, uci| EngineError::NoHandshake { ugi, uci }.to_string();
        assert_eq!(
            err(Some(ms(5000)), Some(ms(5000))),
            "no answer to ugi within 5000 ms, nor to uci within 5000 ms"
        );
        assert_eq!(err(Some(ms(300)), None), "no answer to ugi within 300 ms");
        assert_eq!(err(None, Some(ms(300))), "no answer to uci within 300 ms");
        assert_eq!(err(None, None), "no answer to the handshake");
    }

    #[test]
    fn log_files_are_named_after_the_engines() {
        let dir = Path::new("logs");
        assert_eq!(log_path(dir, "base"), Path::new("logs/base.log"));
        assert_eq!(log_path(dir, "../a\\b"), Path::new("logs/.._a_b.log"));
    }

    #[cfg(unix)]
    #[test]
    fn talks_to_a_scripted_engine() {
        let abort = AtomicBool::new(false);
        let script = "while read -r c rest; do case $c in \
            ugi) echo 'id name fake'; echo ugiok;; \
            isready) echo readyok;; \
            go) echo 'info depth 1'; echo 'bestmove e5';; \
            quit) exit 0;; esac; done";
        let spec = EngineSpec {
            name: "fake".into(),
            named: true,
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            options: vec![("Threads".into(), "1".into())],
            dialect: None,
            control: None,
        };
        let timeout = Duration::from_secs(5);
        let mut engine = EngineProcess::start(&spec, timeout, &abort).unwrap();
        assert_eq!(engine.dialect, Dialect::Ugi);
        engine.new_game(timeout, &abort).unwrap();
        engine.send("go nodes 1").unwrap();
        let (_, line) = engine
            .wait_for(timeout, &abort, |l| l.starts_with("bestmove"))
            .unwrap();
        assert_eq!(line, "bestmove e5");
        let err = engine
            .wait_for(Duration::from_millis(100), &abort, |_| true)
            .unwrap_err();
        assert_eq!(err, EngineError::Timeout(Duration::from_millis(100)));
        abort.store(true, Ordering::Relaxed);
        assert_eq!(
            engine.wait_for(timeout, &abort, |_| true).unwrap_err(),
            EngineError::Aborted
        );
        engine.quit();
    }

    #[cfg(unix)]
    #[test]
    fn reports_engines_that_fail() {
        let abort = AtomicBool::new(false);
        let timeout = Duration::from_secs(5);
        let spec = |script: &str| EngineSpec {
            name: "fake".into(),
            named: true,
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            options: vec![("Threads".into(), "0".into())],
            dialect: None,
            control: None,
        };
        let missing = EngineSpec::parse("cmd=/nonexistent/engine").unwrap();
        let err = EngineProcess::start(&missing, timeout, &abort)
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .contains("cannot start '/nonexistent/engine'"),
            "{err}"
        );
        // Either writing `ugi` or reading the answer finds it gone first.
        let err = EngineProcess::start(&spec("exit 3"), timeout, &abort)
            .err()
            .unwrap();
        assert!(matches!(err, EngineError::Crashed(_)), "{err}");
        // A UCI engine that ignores `ugi`: the fallback finds it.
        let uci = "while read -r c rest; do case $c in uci) echo uciok;; \
            isready) echo readyok;; esac; done";
        // `ugi` must time out first; the same limit then holds for `uciok`
        // and `readyok`, which a loaded machine may delay.
        let short = Duration::from_secs(1);
        let engine = EngineProcess::start(&spec(uci), short, &abort).unwrap();
        assert_eq!(engine.dialect, Dialect::Uci);
        // An engine that refuses an option.
        let picky = "while read -r c rest; do case $c in ugi) echo ugiok;; \
            setoption) echo 'info string error: option Threads must be between 1 and 256, got 0';; \
            isready) echo readyok;; esac; done";
        let err = EngineProcess::start(&spec(picky), timeout, &abort)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "the engine refused an option: option Threads must be between 1 and 256, got 0"
        );
    }
}
