//! Drives the real `ultimo` binary over pipes.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ultimo");

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

impl Engine {
    /// Starts `ultimo` with `args` (none for the protocol loop).
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ultimo");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to ultimo");
        stdin.flush().unwrap();
    }

    /// Sends raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to ultimo");
        stdin.flush().unwrap();
    }

    /// Closes stdin (end of input).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout` or at end of output.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one satisfies `pred`; returns the lines read,
    /// that one last. Panics after `timeout`.
    pub fn until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = pred(&line);
                    got.push(line);
                    if done {
                        return got;
                    }
                }
                None => panic!("timed out waiting; got {got:#?}"),
            }
        }
    }

    /// Sends `line` and returns the one line it is answered with.
    pub fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.next_line(Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no answer to '{line}'"))
    }

    /// Asserts that nothing is written for `wait`.
    pub fn silent_for(&mut self, wait: Duration) {
        if let Some(line) = self.next_line(wait) {
            panic!("unexpected line: {line}");
        }
    }

    /// Waits for the process to exit; its exit status code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `ultimo` with `args` to completion; (exit code, stdout, stderr).
pub fn run(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ultimo");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for ultimo");
    let _ = writer.join();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder of a test's files, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh, empty folder `ultimo-NAME-PID` in the system's temporary
    /// folder.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ultimo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make a temporary folder");
        TempDir(dir)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// The path of `file` in the folder, as text.
    pub fn file(&self, file: &str) -> String {
        self.0
            .join(file)
            .to_str()
            .expect("a UTF-8 path")
            .to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The statistics of a summary: every line but `end`, `time`, `record` and
/// `merged`.
pub fn statistics(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| {
            !["end ", "time ", "record ", "merged "]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .collect()
}

/// Standard output, after checking that the run succeeded.
pub fn success(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "status {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

/// Standard error of a run that failed with status 2 and no panic.
pub fn failure(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// A running `ultimo match` (started in the package's root), its standard
/// output and error drained on threads so that it never blocks on a full
/// pipe.
pub struct MatchRun {
    /// The runner's process.
    pub child: Child,
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

impl MatchRun {
    /// Starts `ultimo match` with `args`.
    pub fn start(args: &[&str]) -> MatchRun {
        let mut child = Command::new(BIN)
            .arg("match")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ultimo runs");
        let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                bytes
            })
        };
        let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
        let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
        MatchRun {
            child,
            stdout,
            stderr,
        }
    }

    /// Waits for the run to end, calling `poll` with the process every
    /// 10 ms meanwhile; kills it and fails the test if it still runs after
    /// `limit`.
    pub fn wait_within(mut self, limit: Duration, mut poll: impl FnMut(&Child)) -> Output {
        let started = Instant::now();
        let status = loop {
            poll(&self.child);
            if let Some(status) = self.child.try_wait().expect("wait for ultimo") {
                break status;
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("ultimo match still ran after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Output {
            status,
            stdout: self.stdout.join().expect("stdout read"),
            stderr: self.stderr.join().expect("stderr read"),
        }
    }
}

/// Runs `ultimo match` with `args` from the package's root to its end.
pub fn ultimo_match(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("match")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ultimo runs")
}

/// The value of the match summary's line `key` (`games       4: ...` ->
/// `4: ...`).
pub fn field<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.split("  ").next() == Some(key))
        .map(|l| l[key.len()..].trim())
        .unwrap_or_else(|| panic!("no '{key}' line in\n{stdout}"))
}
