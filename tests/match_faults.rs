//! `ultimo match` against hostile engines, driven through the real binary:
//! engines that hang (at start-up or on `go`) with a child process of their
//! own, a runner stopped by Ctrl-C twice, SIGTERM or SIGHUP, engines that
//! flood their output, `--log DIR` and the start-up message.
//!
//! Each engine is a shell script written into a temporary directory. An
//! engine that hangs runs `sleep` with an argument unique to its test, and
//! the test looks through the process table (`/proc/*/cmdline`) that no
//! such `sleep` outlives the runner.
#![cfg(target_os = "linux")]

mod common;

use common::{MatchRun, TempDir, failure, field, success};

use std::process::{Child, Command, Output};
use std::thread;
use std::time::{Duration, Instant};

/// The longest a run may take before the test fails (a loaded machine is
/// slow, but none of these runs needs more than a few seconds).
const HANG: Duration = Duration::from_secs(90);

/// How long a killed process may take to leave the process table.
const REAP: Duration = Duration::from_secs(10);

/// A temporary directory for one test, removed when dropped.
impl TempDir {
    /// Writes the engine script `name.sh` and returns its `--engine` value.
    fn engine(&self, name: &str, script: &str) -> String {
        let path = self.0.join(format!("{name}.sh"));
        std::fs::write(&path, script).expect("write the engine");
        format!("cmd=sh arg={} name={name}", path.display())
    }
}

/// An engine script: answers the handshake and `isready`, keeps the last
/// `position` in `$pos`, and on `go` runs `on_go` (shell code).
fn script(on_go: &str) -> String {
    format!(
        "while read -r c rest; do\n\
         case $c in\n\
         ugi) echo ugiok ;;\n\
         uci) echo uciok ;;\n\
         isready) echo readyok ;;\n\
         position) pos=$rest ;;\n\
         go) {on_go} ;;\n\
         quit) exit 0 ;;\n\
         esac\n\
         done\n"
    )
}

/// An engine that plays e5 on an empty board and e4 after a move (legal
/// twice at most, enough for these tests), after `think` (shell code).
fn mover(think: &str) -> String {
    script(&format!(
        "{think}; case \"$pos\" in *moves*) echo 'bestmove e4' ;; *) echo 'bestmove e5' ;; esac"
    ))
}

/// The pids of the processes whose arguments include `tag`, this test's
/// own excepted.
fn processes_with(tag: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|&b| b == 0).any(|arg| arg == tag.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for a process with `tag` among its arguments.
fn wait_for_process(tag: &str, limit: Duration) {
    let started = Instant::now();
    while processes_with(tag).is_empty() {
        assert!(
            started.elapsed() < limit,
            "no process with '{tag}' after {limit:?}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts that no process with `tag` among its arguments is left (after
/// up to [`REAP`] for the kernel to clean up); kills any found, so that a
/// failed test leaves nothing behind either.
fn assert_none_left(tag: &str) {
    let started = Instant::now();
    loop {
        let left = processes_with(tag);
        if left.is_empty() {
            return;
        }
        if started.elapsed() > REAP {
            for pid in &left {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
            panic!("processes with '{tag}' outlived the runner: {left:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// A running `ultimo match` and the peak memory seen of it.
struct Runner {
    run: MatchRun,
    /// The highest VmHWM (peak resident memory) seen, in kB.
    peak_kb: u64,
}

impl Runner {
    fn start(args: &[&str]) -> Runner {
        Runner {
            run: MatchRun::start(args),
            peak_kb: 0,
        }
    }

    /// Sends the runner signal `name` (INT, TERM, HUP).
    fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.run.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
    }

    /// Waits for the runner to end (within [`HANG`]), sampling its memory.
    fn finish(self) -> (Output, u64) {
        let mut peak_kb = self.peak_kb;
        let output = self.run.wait_within(HANG, |child| {
            peak_kb = peak_kb.max(vm_hwm_kb(child));
        });
        (output, peak_kb)
    }
}

/// A process's VmHWM (peak resident memory) in kB, 0 when unknown.
fn vm_hwm_kb(child: &Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    std::fs::read_to_string(status)
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `ultimo match` with `args` to its end.
fn run(args: &[&str]) -> Output {
    Runner::start(args).finish().0
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_engine_hanging_at_start_up_leaves_nothing_behind() {
    let tag = "9876.10001";
    let dir = TempDir::new("faults-startup");
    let hang = dir.engine("hang", &format!("read -r line; sleep {tag}\n"));
    let other = dir.engine("other", &mover("true"));
    let output = run(&[
        "--engine",
        &hang,
        "--engine",
        &other,
        "--nodes",
        "1",
        "--games",
        "2",
        "--startup-timeout",
        "300",
    ]);
    let err = failure(&output);
    assert!(err.contains("engine hang"), "{err}");
    assert_none_left(tag);
}

#[test]
fn an_engine_hanging_mid_game_leaves_nothing_behind() {
    let tag = "9876.10002";
    let dir = TempDir::new("faults-midgame");
    let hang = dir.engine("hang", &script(&format!("sleep {tag}")));
    let other = dir.engine("other", &mover("true"));
    let output = run(&[
        "--engine",
        &hang,
        "--engine",
        &other,
        "--nodes",
        "1",
        "--games",
        "2",
        "--move-timeout",
        "300",
    ]);
    let out = success(&output);
    assert_eq!(field(&out, "faults"), "hang 2 (2 timeout), other none");
    assert_none_left(tag);
}

/// A match whose first engine hangs on `go` (a 100 s move timeout) with a
/// `sleep TAG`; once that sleep runs, the runner gets `signals`. Returns
/// the runner's standard output and error, after checking it ended well
/// and left no `sleep TAG` behind.
fn signalled_match(test: &str, tag: &str, signals: &[&str]) -> (String, String) {
    let dir = TempDir::new(&format!("faults-{test}"));
    let hang = dir.engine("hang", &script(&format!("sleep {tag}")));
    let other = dir.engine("other", &mover("true"));
    let runner = Runner::start(&[
        "--engine",
        &hang,
        "--engine",
        &other,
        "--nodes",
        "1",
        "--games",
        "2",
        "--move-timeout",
        "100000",
    ]);
    wait_for_process(tag, HANG);
    for name in signals {
        runner.signal(name);
        thread::sleep(Duration::from_millis(300));
    }
    let (output, _) = runner.finish();
    let out = success(&output);
    assert!(field(&out, "games").starts_with("0: "), "{out}");
    assert_none_left(tag);
    (out, text(&output.stderr))
}

#[test]
fn a_double_ctrl_c_leaves_nothing_behind() {
    let (out, err) = signalled_match("ctrl-c", "9876.10003", &["INT", "INT"]);
    assert!(err.contains("Ctrl-C: aborting the running games"), "{err}");
    assert_eq!(
        field(&out, "end"),
        "stopped by Ctrl-C, running games aborted"
    );
}

#[test]
fn sigterm_aborts_the_match_and_leaves_nothing_behind() {
    let (out, err) = signalled_match("sigterm", "9876.10004", &["TERM"]);
    assert!(err.contains("SIGTERM: aborting the running games"), "{err}");
    assert_eq!(
        field(&out, "end"),
        "stopped by SIGTERM, running games aborted"
    );
}

#[test]
fn sighup_aborts_the_match_and_leaves_nothing_behind() {
    let (out, err) = signalled_match("sighup", "9876.10005", &["HUP"]);
    assert!(err.contains("SIGHUP: aborting the running games"), "{err}");
    assert_eq!(
        field(&out, "end"),
        "stopped by SIGHUP, running games aborted"
    );
}

/// The most memory (VmHWM) the runner may use under a flooding engine; it
/// needs about 10 MB, and the flood is 500 MB.
const MEMORY_BOUND_KB: u64 = 200 * 1024;

#[test]
fn an_endless_line_is_a_fault_and_memory_stays_bounded() {
    // 500 MB without a newline; `head`'s argument is the tag.
    let tag = "500000123";
    let dir = TempDir::new("faults-flood-line");
    let flood = dir.engine(
        "flood",
        &script(&format!("head -c {tag} /dev/zero | tr '\\0' x")),
    );
    let other = dir.engine("other", &mover("true"));
    let started = Instant::now();
    let (output, peak_kb) = Runner::start(&[
        "--engine",
        &flood,
        "--engine",
        &other,
        "--nodes",
        "1",
        "--games",
        "2",
        "--move-timeout",
        "60000",
    ])
    .finish();
    let out = success(&output);
    let err = text(&output.stderr);
    assert_eq!(field(&out, "faults"), "flood 2 (2 illegal), other none");
    assert!(err.contains("sent a line longer than 65536 bytes"), "{err}");
    // Both games end at the fault, long before the move timeout.
    assert!(started.elapsed() < Duration::from_secs(50), "{err}");
    assert!(peak_kb > 0, "VmHWM was never read");
    assert!(peak_kb < MEMORY_BOUND_KB, "peak {peak_kb} kB");
    assert_none_left(tag);
}

#[test]
fn lines_nobody_reads_yet_do_not_pile_up() {
    // After its first move the flooding engine writes short lines without
    // end, while the runner waits (1 s, the move timeout) for the other
    // engine's move, which takes 3 s: for that second nobody reads the
    // flood. Without a bound on the lines waiting, 1 GB piled up.
    let dir = TempDir::new("faults-flood-lines");
    let flood = dir.engine(
        "flood",
        &script(
            "case \"$pos\" in *moves*) echo 'bestmove e4' ;; *) echo 'bestmove e5' ;; esac; \
             [ -n \"$f\" ] || { f=1; yes 'info string flood 9876.10006' & }",
        ),
    );
    let slow = dir.engine("slow", &mover("sleep 3"));
    let (output, peak_kb) = Runner::start(&[
        "--engine",
        &flood,
        "--engine",
        &slow,
        "--nodes",
        "1",
        "--games",
        "2",
        "--move-timeout",
        "1000",
    ])
    .finish();
    success(&output);
    assert!(peak_kb > 0, "VmHWM was never read");
    assert!(peak_kb < MEMORY_BOUND_KB, "peak {peak_kb} kB");
    assert_none_left("info string flood 9876.10006");
}

#[test]
fn log_keeps_each_engines_standard_error() {
    let dir = TempDir::new("faults-log");
    let talker = dir.engine(
        "talker",
        &format!(
            "echo \"talker starts\" >&2\n{}",
            script("echo \"talker thinks about $pos\" >&2; echo 'bestmove e5'")
        ),
    );
    let other = dir.engine("other", &mover("echo 'other thinks' >&2"));
    let logs = dir.dir().join("logs/deeper");
    let out = success(&run(&[
        "--engine",
        &talker,
        "--engine",
        &other,
        "--nodes",
        "1",
        "--games",
        "2",
        "--log",
        logs.to_str().expect("a UTF-8 path"),
    ]));
    assert!(field(&out, "games").starts_with("2: "), "{out}");
    let log = |name: &str| {
        std::fs::read_to_string(logs.join(format!("{name}.log")))
            .unwrap_or_else(|e| panic!("{name}.log: {e}"))
    };
    let talker_log = log("talker");
    // Started for the check before the match and again for the games (the
    // second game's illegal e5 restarts it): every start appends.
    assert!(
        talker_log.matches("talker starts").count() >= 2,
        "{talker_log}"
    );
    assert!(
        talker_log.contains("talker thinks about startpos\n"),
        "{talker_log}"
    );
    assert!(!talker_log.contains("other"), "{talker_log}");
    assert!(log("other").contains("other thinks\n"));
    // Without --log nothing is written there.
    let before = talker_log.len();
    success(&run(&[
        "--engine", &talker, "--engine", &other, "--nodes", "1", "--games", "2",
    ]));
    assert_eq!(log("talker").len(), before);
}

#[test]
fn a_log_directory_that_cannot_be_made_is_a_clear_error() {
    let dir = TempDir::new("faults-log-error");
    let file = dir.dir().join("a-file");
    std::fs::write(&file, "not a directory").expect("write a file");
    let other = dir.engine("other", &mover("true"));
    let logs = file.join("logs");
    let err = failure(&run(&[
        "--engine",
        &other,
        "--engine",
        &other.replace("name=other", "name=second"),
        "--nodes",
        "1",
        "--games",
        "2",
        "--log",
        logs.to_str().expect("a UTF-8 path"),
    ]));
    assert!(
        err.contains(&format!("cannot create {}", logs.display())),
        "{err}"
    );
}

#[test]
fn the_start_up_message_says_what_was_tried() {
    let mute = "cmd=sh arg=tests/engines/broken.sh arg=mute name=mute";
    let other = "cmd=sh arg=tests/engines/broken.sh arg=illegal name=other";
    let args = |mute: &str| {
        run(&[
            "--engine",
            mute,
            "--engine",
            other,
            "--nodes",
            "1",
            "--games",
            "2",
            "--startup-timeout",
            "300",
        ])
    };
    let err = failure(&args(mute));
    assert!(
        err.contains("engine mute (sh): no answer to ugi within 300 ms, nor to uci within 300 ms"),
        "{err}"
    );
    let err = failure(&args(&format!("{mute} proto=uci")));
    assert!(
        err.contains("engine mute (sh): no answer to uci within 300 ms\n"),
        "{err}"
    );
}
