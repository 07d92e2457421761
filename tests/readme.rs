//! README.md and protocol.md stay true: every example in their
//! ```` ```text ```` blocks that starts with `$ ` is run, and its output
//! compared with the file's.
//!
//! - A command (`$ ultimo analyze ...`, `$ printf ... | ultimo play ...`,
//!   continuation lines ending in `\` included) runs in `sh -c` in a
//!   temporary folder, with the binary under test first on `PATH` (so
//!   `cmd=ultimo` in a match finds it too) and standard error merged into
//!   standard output, as a terminal shows them.
//! - `$ ultimo` alone is a protocol session: lines starting with a protocol
//!   command (`ugi`, `position`, `go`, ...), or with `> ` and a command (as
//!   protocol.md marks what the runner sends), are sent one at a time, each
//!   once the output the file shows before it has arrived; the other lines
//!   are the expected output.
//! - A line `...` stands for any number of lines (at most one per command's
//!   output, or per answer in a session).
//! - Machine-dependent figures are not compared: the number after `time`
//!   and `nps`, before a final `nps`, and before `leaves/s`. Everything
//!   else, node counts at fixed nodes included, must match exactly
//!   (trailing spaces aside).
//!
//! `UPDATE_README=1 cargo test --test readme` rewrites the outputs in
//! README.md and protocol.md from the real ones instead of failing: lines that match keep
//! the README's text (so its time and speed figures stay), `...` keeps its
//! place, everything else is replaced. `UPDATE_README=all` rewrites every
//! example's lines, figures included: run it with `--release` on a quiet
//! machine to refresh the speeds shown.
//!
//! This is a small hand-made harness rather than trycmd/snapbox: the
//! examples live in README.md itself, one is an interactive session, and
//! elision is needed only for a few numbers, which a few lines handle.
#![cfg(unix)]

mod common;

use common::TempDir;

use std::io::{BufRead, BufReader, Read, Write};
use std::ops::Range;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_ultimo");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
const PROTOCOL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md");

/// How protocol.md marks the lines the runner sends in a session.
const SENT: &str = "> ";

/// Only a hung command reaches this; normal runs take seconds.
const TIMEOUT: Duration = Duration::from_secs(300);

/// The first words of a session's input lines (the protocol's commands).
const INPUTS: &[&str] = &[
    "ugi",
    "uci",
    "isready",
    "setoption",
    "position",
    "go",
    "stop",
    "ponderhit",
    "query",
    "quit",
    "ucinewgame",
    "uginewgame",
    "d",
    "perft",
    "debug",
];

/// The command of a protocol session.
const SESSION: &str = "ultimo";

/// One example: a command and where its output is in the README.
#[derive(Debug)]
struct Example {
    /// The command as shell text (continuation lines kept).
    command: String,
    /// README lines holding its output (a session's input lines included).
    output: Range<usize>,
}

/// The examples in the README's lines.
fn examples(lines: &[String]) -> Vec<Example> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```text" {
            i += 1;
            continue;
        }
        let start = i + 1;
        let end = (start..lines.len())
            .find(|&j| lines[j].trim_end() == "```")
            .expect("every ```text block is closed");
        let mut j = start;
        // Only blocks that start with a command are examples.
        while j < end && lines[j].starts_with("$ ") {
            let mut command = lines[j][2..].to_string();
            j += 1;
            while command.ends_with('\\') && j < end {
                command.push('\n');
                command.push_str(&lines[j]);
                j += 1;
            }
            let out_start = j;
            while j < end && !lines[j].starts_with("$ ") {
                j += 1;
            }
            found.push(Example {
                command,
                output: out_start..j,
            });
        }
        i = end + 1;
    }
    found
}

/// A line's words with the machine-dependent figures replaced by `#`, or
/// `None` when it has none.
fn elided(line: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let numeric = |w: &str| w.starts_with(|c: char| c.is_ascii_digit());
    let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let mut changed = false;
    for (i, w) in words.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| words[p]);
        let next = words.get(i + 1).copied();
        let figure = matches!(prev, Some("time" | "nps"))
            || (next == Some("nps") && i + 2 == words.len())
            || next == Some("leaves/s");
        if figure && numeric(w) {
            out[i] = "#".into();
            changed = true;
        }
    }
    changed.then_some(out)
}

/// Whether an actual line says what the README's line says.
fn same(readme: &str, actual: &str) -> bool {
    let (readme, actual) = (readme.trim_end(), actual.trim_end());
    readme == actual || elided(readme).is_some_and(|r| Some(r) == elided(actual))
}

/// Whether `actual` fits `readme`, where a `...` line stands for any lines.
fn fits(readme: &[String], actual: &[String]) -> bool {
    match readme.iter().position(|l| l == "...") {
        None => readme.len() == actual.len() && readme.iter().zip(actual).all(|(r, a)| same(r, a)),
        Some(k) => {
            let (head, tail) = (&readme[..k], &readme[k + 1..]);
            actual.len() >= head.len() + tail.len()
                && head.iter().zip(actual).all(|(r, a)| same(r, a))
                && tail
                    .iter()
                    .zip(&actual[actual.len() - tail.len()..])
                    .all(|(r, a)| same(r, a))
        }
    }
}

/// The README's lines rewritten from `actual`: a line that matches stays
/// as written (unless `all`), `...` keeps as many lines before and after it.
fn rewritten(readme: &[String], actual: &[String], all: bool) -> Vec<String> {
    let keep = |r: Option<&String>, a: &String| match r {
        Some(r) if !all && same(r, a) => r.clone(),
        _ => a.trim_end().to_string(),
    };
    match readme.iter().position(|l| l == "...") {
        Some(k) if actual.len() >= readme.len() - 1 => {
            let tail = readme.len() - k - 1;
            let mut out: Vec<String> = actual[..k]
                .iter()
                .enumerate()
                .map(|(i, a)| keep(readme.get(i), a))
                .collect();
            out.push("...".into());
            let from = actual.len() - tail;
            out.extend(
                actual[from..]
                    .iter()
                    .enumerate()
                    .map(|(i, a)| keep(readme.get(k + 1 + i), a)),
            );
            out
        }
        _ => actual
            .iter()
            .enumerate()
            .map(|(i, a)| keep(readme.get(i), a))
            .collect(),
    }
}

/// `lines` without the search's progress reports: it sends `info` lines
/// every second while it runs, so a slow or busy machine sends more of
/// them before the final ones. Of each run of `info ... multipv N` lines,
/// only the last line for each `N` is kept.
fn without_progress(lines: Vec<String>) -> Vec<String> {
    let multipv = |line: &str| -> Option<String> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        words
            .skip_while(|&w| w != "multipv")
            .nth(1)
            .map(String::from)
    };
    let mut kept = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let later_in_run = |n: &String| {
            lines[i + 1..]
                .iter()
                .map_while(|l| l.starts_with("info ").then(|| multipv(l)))
                .any(|m| m.as_ref() == Some(n))
        };
        if multipv(line).is_some_and(|n| later_in_run(&n)) {
            continue;
        }
        kept.push(line.clone());
    }
    kept
}

/// A block's lines cut where a session's input lines are: (the input line
/// or none for the output before any input, the output lines after it).
fn segments(lines: &[String], session: bool) -> Vec<(Option<String>, Vec<String>)> {
    let mut out: Vec<(Option<String>, Vec<String>)> = vec![(None, Vec::new())];
    for line in lines {
        let sent = line.strip_prefix(SENT).unwrap_or(line);
        let first = sent.split_whitespace().next().unwrap_or("");
        if session && INPUTS.contains(&first) {
            out.push((Some(sent.to_string()), Vec::new()));
        } else {
            out.last_mut().unwrap().1.push(line.clone());
        }
    }
    out
}

/// `PATH` with the binary's folder first.
fn path_with_binary() -> std::ffi::OsString {
    let dir = Path::new(BIN).parent().expect("the binary is in a folder");
    let mut paths = vec![dir.to_path_buf()];
    if let Some(old) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&old));
    }
    std::env::join_paths(paths).expect("a PATH")
}

/// `sh -c "exec 2>&1; <command>"` in `dir`, stdout piped.
fn shell(command: &str, dir: &Path, stdin: Stdio) -> Child {
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path_with_binary())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start sh")
}

/// Waits for `child` to exit, killing it after the timeout.
fn finish(child: &mut Child, deadline: Instant) -> Result<(), String> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("exited with {status}")),
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no exit after {TIMEOUT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The lines of `child`'s output, read on a thread.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("stdout piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Runs a command; its output lines.
fn run_command(command: &str, dir: &Path) -> Result<Vec<String>, String> {
    let mut child = shell(command, dir, Stdio::null());
    let mut stdout = child.stdout.take().expect("stdout piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    finish(&mut child, Instant::now() + TIMEOUT)?;
    let text = reader
        .join()
        .expect("reader thread")
        .map_err(|e| e.to_string())?;
    Ok(text.lines().map(String::from).collect())
}

/// Runs a protocol session: sends the README's input lines one at a time,
/// each once the answer the README shows before it has arrived. Returns the
/// input and output lines interleaved like the README's.
fn run_session(readme: &[String], dir: &Path) -> Result<Vec<String>, String> {
    let mut child = shell(&format!("exec {SESSION}"), dir, Stdio::piped());
    let mut stdin = child.stdin.take().expect("stdin piped");
    let rx = lines_of(&mut child);
    let deadline = Instant::now() + TIMEOUT;
    let mut seen: Vec<String> = Vec::new();
    let next = |seen: &Vec<String>| {
        rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|_| format!("no more output; got so far:\n{}", seen.join("\n")))
    };
    for (input, answer) in segments(readme, true) {
        if let Some(line) = input {
            writeln!(stdin, "{line}").map_err(|e| format!("sending '{line}': {e}"))?;
            stdin.flush().map_err(|e| e.to_string())?;
            seen.push(line);
        }
        // Read as many lines as the README shows (more where it has `...`),
        // up to one of the same kind as its last.
        let Some(last) = answer.last() else { continue };
        assert_ne!(last, "...", "an answer in a session must not end with ...");
        let kind = last.split_whitespace().next().unwrap_or("").to_string();
        let need = answer.iter().filter(|l| *l != "...").count();
        let mut got = 0;
        loop {
            let line = next(&seen)?;
            let done = got + 1 >= need && line.split_whitespace().next() == Some(&kind);
            seen.push(line);
            got += 1;
            if done {
                break;
            }
        }
    }
    drop(stdin);
    // Anything after the last answer is output the README does not show.
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        seen.push(line);
    }
    finish(&mut child, deadline)?;
    Ok(seen)
}

#[test]
fn readme_examples_match_real_output() {
    check_examples(
        README,
        &["analyze", "play", "match", "bench", "perft", "codingame"],
        "",
    );
}

#[test]
fn protocol_examples_match_real_output() {
    check_examples(PROTOCOL, &[], SENT);
}

/// Runs the examples of the file at `path` (which must have a session and
/// an example of each of `subcommands`) and fails unless each output is
/// the file's; with `UPDATE_README` it rewrites them instead, marking a
/// session's input lines with `sent`.
fn check_examples(path: &str, subcommands: &[&str], sent: &str) {
    let name = Path::new(path).file_name().unwrap().to_string_lossy();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {name}: {e}"));
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let examples = examples(&lines);
    // Every command with an example in the file is checked.
    for sub in subcommands {
        assert!(
            examples
                .iter()
                .any(|e| e.command.contains(&format!("ultimo {sub}"))),
            "no example of ultimo {sub} found in {name}"
        );
    }
    assert!(examples.iter().any(|e| e.command == SESSION));

    // UPDATE_README=1: rewrite the examples that disagree; =all: every one.
    let update = std::env::var("UPDATE_README").unwrap_or_default();
    let (update, all) = (update == "1" || update == "all", update == "all");
    let dir = TempDir::new(&format!("examples-{name}"));
    let mut failures = Vec::new();
    let mut rewrites: Vec<(Range<usize>, Vec<String>)> = Vec::new();
    for example in &examples {
        let readme = &lines[example.output.clone()];
        let session = example.command == SESSION;
        let started = Instant::now();
        let actual = if session {
            run_session(readme, &dir.0)
        } else {
            run_command(&example.command, &dir.0)
        };
        eprintln!("$ {} ({:.1?})", example.command, started.elapsed());
        let actual = match actual {
            Ok(lines) => lines,
            Err(e) => {
                failures.push(format!("$ {}\nfailed: {e}", example.command));
                continue;
            }
        };
        let actual = without_progress(actual);
        let (want, got) = (segments(readme, session), segments(&actual, session));
        let inputs = |s: &[(Option<String>, Vec<String>)]| -> Vec<Option<String>> {
            s.iter().map(|(i, _)| i.clone()).collect()
        };
        assert_eq!(inputs(&want), inputs(&got), "a session's inputs are echoed");
        let fit = want.iter().zip(&got).all(|(w, g)| fits(&w.1, &g.1));
        if !fit || all {
            let mut new = Vec::new();
            for ((input, w), (_, g)) in want.iter().zip(&got) {
                new.extend(input.as_ref().map(|line| format!("{sent}{line}")));
                new.extend(rewritten(w, g, all));
            }
            rewrites.push((example.output.clone(), new));
        }
        if fit {
            continue;
        }
        failures.push(format!(
            "$ {}\n--- {name} (lines {}-{}):\n{}\n--- real output:\n{}",
            example.command,
            example.output.start + 1,
            example.output.end,
            readme.join("\n"),
            actual.join("\n")
        ));
    }

    if update {
        let rewrites_len = rewrites.len();
        let mut lines = lines;
        // From the end, so earlier ranges stay valid.
        for (range, new) in rewrites.into_iter().rev() {
            lines.splice(range, new);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(path, text).unwrap_or_else(|e| panic!("write {name}: {e}"));
        eprintln!(
            "{name}: {} example(s) rewritten from real output; {} disagreed:\n\n{}",
            rewrites_len,
            failures.len(),
            failures.join("\n\n")
        );
        return;
    }
    assert!(
        failures.is_empty(),
        "{} {name} example(s) disagree with the real output \
          (UPDATE_README=1 cargo test --test readme rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn progress_reports_are_dropped_and_final_ones_kept() {
    let lines: Vec<String> = [
        "go nodes 20000",
        "info depth 6 multipv 1 score cp 56 nodes 15872 pv d6",
        "info depth 6 multipv 2 score cp 50 nodes 15872 pv e5",
        "info depth 7 multipv 1 score cp 55 nodes 20000 pv d6 b7",
        "info depth 7 multipv 2 score cp 51 nodes 20000 pv e5",
        "bestmove d6",
        "info string not a report",
    ]
    .map(String::from)
    .to_vec();
    let kept = without_progress(lines.clone());
    assert_eq!(kept, [&lines[..1], &lines[3..]].concat());
}

#[test]
fn elision_covers_only_machine_figures() {
    let e = |s: &str| elided(s).map(|w| w.join(" "));
    assert_eq!(
        e("nodes 300000  time 0.3 s  nps 1086839  depth 6").as_deref(),
        Some("nodes 300000 time # s nps # depth 6")
    );
    assert_eq!(
        e("info depth 5 nodes 100000 nps 1131838 hashfull 10 time 88 pv f2").as_deref(),
        Some("info depth 5 nodes 100000 nps # hashfull 10 time # pv f2")
    );
    assert_eq!(
        e("382994 nodes 1517594 nps").as_deref(),
        Some("382994 nodes # nps")
    );
    assert_eq!(
        e("time 0.446 s, 630.5M leaves/s").as_deref(),
        Some("time # s, # leaves/s")
    );
    assert_eq!(e("time        101.3 s").as_deref(), Some("time # s"));
    assert_eq!(e("total 281067408"), None);
    assert_eq!(
        e("Ultimo plays f6 (for Ultimo: win 39%; 20000 nodes)"),
        None
    );
    assert!(same(
        " 1/10 9/9/9/9/9/9/9/9/9 x 1 0000   bestmove e5 score cp 53     nodes  50000 time   48 ms",
        " 1/10 9/9/9/9/9/9/9/9/9 x 1 0000   bestmove e5 score cp 53     nodes  50000 time 1048 ms",
    ));
    assert!(!same("nodes 50000 time 48 ms", "nodes 50001 time 48 ms"));
}

#[test]
fn dots_stand_for_any_lines_and_survive_a_rewrite() {
    let v = |s: &str| -> Vec<String> { s.lines().map(String::from).collect() };
    let readme = v("a\n...\nz time 1 s");
    assert!(fits(&readme, &v("a\nz time 2 s")));
    assert!(fits(&readme, &v("a\nb\nc\nz time 2 s")));
    assert!(!fits(&readme, &v("b\nz time 2 s")));
    assert!(!fits(&readme, &v("a")));
    assert_eq!(
        rewritten(&readme, &v("a\nb\nc\ny time 2 s"), false),
        v("a\n...\ny time 2 s")
    );
    assert_eq!(
        rewritten(&readme, &v("a\nb\nz time 2 s"), false),
        v("a\n...\nz time 1 s")
    );
    assert_eq!(rewritten(&v("a\nb"), &v("a\nc\nd"), false), v("a\nc\nd"));
    // UPDATE_README=all takes the figures too.
    assert_eq!(
        rewritten(&readme, &v("a\nb\nz time 2 s"), true),
        v("a\n...\nz time 2 s")
    );
}

#[test]
fn examples_are_found_with_continuations_and_sessions() {
    let lines: Vec<String> = "```text\n$ ultimo\nugi\nugiok\n```\n```text\n$ a \\\n  b\nout\n$ c\n```\n```text\nnot a command\n```"
        .lines()
        .map(String::from)
        .collect();
    let found = examples(&lines);
    assert_eq!(found.len(), 3);
    assert_eq!(
        (found[0].command.as_str(), found[0].output.clone()),
        ("ultimo", 2..4)
    );
    assert_eq!(
        (found[1].command.as_str(), found[1].output.clone()),
        ("a \\\n  b", 8..9)
    );
    assert_eq!(
        (found[2].command.as_str(), found[2].output.clone()),
        ("c", 10..10)
    );
    let s = segments(&lines[2..4], true);
    assert_eq!(
        s,
        vec![(None, vec![]), (Some("ugi".into()), vec!["ugiok".into()])]
    );
}
