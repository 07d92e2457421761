//! `ultimo match` driven through the real binary: a match between two Ultimo
//! processes, matches against deliberately broken engines
//! (`tests/engines/broken.sh`), PGN records and their replays, and clear
//! errors for bad input.
#![cfg(unix)]

mod common;

use common::{MatchRun, failure, field, statistics, success, ultimo_match};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const ULTIMO: &str = env!("CARGO_BIN_EXE_ultimo");

/// Ultimo itself as an engine, small and single-threaded.
fn ultimo(name: &str) -> String {
    format!(r#"cmd="{ULTIMO}" name={name} option.Threads=1 option.Hash=16"#)
}

/// The broken engine misbehaving as `mode` (illegal, garbage, exit, silent).
fn broken(mode: &str) -> String {
    format!("cmd=sh arg=tests/engines/broken.sh arg={mode} name={mode}")
}

/// Runs `ultimo match` with `args` like [`ultimo_match`], but kills it
/// and fails the test if it has not ended within `limit`: for runs that
/// could hang.
fn ultimo_match_within(args: &[&str], limit: Duration) -> Output {
    MatchRun::start(args).wait_within(limit, |_| {})
}

/// A file alone in a fresh temporary folder, removed with the folder when
/// dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A fresh path named `name`, in a folder of its own.
    fn new(name: &str) -> TempFile {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("ultimo-match-tests-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempFile(dir.join(name))
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn name(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Replays a PGN file, after checking every game of it is there.
fn replay(record: &TempFile, extra: &[&str], games: usize) -> String {
    let text = std::fs::read_to_string(record.path()).expect("record written");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("[Round ")).count(),
        games
    );
    let mut args = vec!["--replay", record.name()];
    args.extend_from_slice(extra);
    success(&ultimo_match(&args))
}

#[test]
fn two_ultimo_processes_play_a_match() {
    let record = TempFile::new("ultimo-vs-ultimo.pgn");
    let (base, new) = (ultimo("base"), ultimo("new"));
    let args = [
        "--engine",
        &base,
        "--engine",
        &new,
        "--nodes",
        "200",
        "--games",
        "4",
        "--random-plies",
        "4",
        "--seed",
        "1",
        "--pgnout",
        record.name(),
    ];
    let out = success(&ultimo_match(&args));
    assert!(field(&out, "games").starts_with("4: "), "{out}");
    assert_eq!(field(&out, "faults"), "base none, new none");
    assert!(field(&out, "pairs").starts_with("2: "), "{out}");
    assert_eq!(field(&out, "end"), "all 4 games played");
    let text = std::fs::read_to_string(record.path()).unwrap();
    assert!(text.starts_with("[Event \"ultimo match "), "{text}");
    assert!(text.contains("[Termination \"normal\"]"), "{text}");
    assert!(text.contains("[TimeControl \"nodes=200\"]"), "{text}");
    assert!(
        text.contains("[Variant \"Ultimate Tic-Tac-Toe\"]"),
        "{text}"
    );
    // The four random opening moves, then the engines' notes: a score
    // with its depth, and the time.
    assert!(text.contains("\n\n1. "), "{text}");
    assert_eq!(text.matches("{book}").count(), 16, "{text}");
    let note = text
        .split('{')
        .skip(1)
        .filter_map(|c| c.split('}').next())
        .find(|c| *c != "book")
        .expect("a note");
    let (score, time) = note.split_once(' ').expect("score and time");
    assert!(
        score.starts_with(['+', '-', '0']) && score.contains('/'),
        "{note}"
    );
    assert!(time.ends_with('s'), "{note}");
    let replayed = replay(&record, &[], 4);
    assert_eq!(statistics(&replayed), statistics(&out));
    // A second match is appended to the file, and both are replayed.
    let second = success(&ultimo_match(&args));
    assert_eq!(field(&second, "end"), "all 4 games played");
    let both = std::fs::read_to_string(record.path()).unwrap();
    assert!(both.starts_with(&text), "the first match was overwritten");
    let replayed = replay(&record, &[], 8);
    assert!(field(&replayed, "games").starts_with("8: "), "{replayed}");
    assert!(field(&replayed, "pairs").starts_with("4: "), "{replayed}");
}

#[test]
fn broken_engines_lose_by_fault_and_the_match_goes_on() {
    let base = ultimo("base");
    for (mode, fault) in [
        ("illegal", "illegal"),
        ("garbage", "illegal"),
        ("exit", "crash"),
        ("silent", "timeout"),
    ] {
        let record = TempFile::new(&format!("against-{mode}.pgn"));
        let bad = broken(mode);
        let out = success(&ultimo_match(&[
            "--engine",
            &base,
            "--engine",
            &bad,
            "--nodes",
            "50",
            "--games",
            "4",
            // Ultimo answers `go nodes 50` in milliseconds; 2 s holds on a
            // loaded machine, and `silent` loses each game after it.
            "--move-timeout",
            "2000",
            "--pgnout",
            record.name(),
        ]));
        assert_eq!(field(&out, "games"), "4: W 4 D 0 L 0", "{mode}");
        assert_eq!(
            field(&out, "faults"),
            format!("base none, {mode} 4 (4 {fault})"),
            "{mode}"
        );
        assert_eq!(field(&out, "end"), "all 4 games played");
        replay(&record, &[], 4);
    }
}

#[test]
fn broken_engines_against_each_other() {
    // `illegal` plays e5, legal as x's first move; `exit` exits when asked
    // to move. Every game ends by a fault, and the match still finishes.
    let record = TempFile::new("illegal-vs-exit.pgn");
    let (illegal, exit) = (broken("illegal"), broken("exit"));
    let output = ultimo_match(&[
        "--engine",
        &illegal,
        "--engine",
        &exit,
        "--movetime",
        "100",
        // The script answers at once, but a loaded machine may hold it up
        // past 100 ms + the default 50 ms margin: it must not lose on time.
        "--timemargin",
        "5000",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--pgnout",
        record.name(),
    ]);
    let out = success(&output);
    assert_eq!(field(&out, "games"), "4: W 4 D 0 L 0", "{out}");
    assert_eq!(field(&out, "faults"), "illegal none, exit 4 (4 crash)");
    assert_eq!(field(&out, "pairs"), "2: LL 0 LD 0 DD/WL 0 WD 0 WW 2");
    let progress = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        progress.lines().filter(|l| l.starts_with("game ")).count(),
        4
    );
    assert!(
        progress.contains("(o (exit) failed to move: the engine closed its output"),
        "{progress}"
    );
    let replayed = replay(&record, &[], 4);
    assert_eq!(statistics(&replayed), statistics(&out));
}

#[test]
fn record_round_trip_gives_the_same_summary() {
    let record = TempFile::new("round-trip.pgn");
    let (base, new) = (ultimo("base"), ultimo("new"));
    let sprt = ["--sprt", "-5", "5", "0.05", "0.05"];
    let mut args = vec![
        "--engine",
        &base,
        "--engine",
        &new,
        "--nodes",
        "100",
        "--games",
        "6",
        "--random-plies",
        "6",
        "--seed",
        "7",
        "--concurrency",
        "2",
        "--pgnout",
        record.name(),
    ];
    args.extend_from_slice(&sprt);
    let live = success(&ultimo_match(&args));
    let replayed = replay(&record, &sprt, 6);
    assert_eq!(statistics(&replayed), statistics(&live));
    assert!(field(&live, "sprt").starts_with("nElo [-5, 5]"), "{live}");
    assert!(field(&replayed, "record").ends_with(": 6 games, every move legal"));
}

#[test]
fn bad_input_gives_clear_errors() {
    let (a, b) = (broken("illegal"), broken("exit"));
    let err = failure(&ultimo_match(&[
        "--engine", &a, "--engine", &b, "--nodes", "5", "--games", "3",
    ]));
    assert!(
        err.contains("error: --games must be a positive even number"),
        "{err}"
    );
    let err = failure(&ultimo_match(&["--engine", &a, "--engine", &b]));
    assert!(err.contains("error: give one time control"), "{err}");
    let err = failure(&ultimo_match(&["--engine", &a, "--nodes", "5"]));
    assert!(err.contains("error: give at least two engines"), "{err}");
    let missing = "cmd=/nonexistent/engine name=ghost";
    let err = failure(&ultimo_match(&[
        "--engine", &a, "--engine", missing, "--nodes", "5",
    ]));
    assert!(
        err.contains("error: engine ghost (/nonexistent/engine): cannot start"),
        "{err}"
    );

    let book = TempFile::new("book.txt");
    std::fs::write(book.path(), "# book\ne5 e4\n\ne5 j9\n").unwrap();
    let book_name = book.name();
    let err = failure(&ultimo_match(&[
        "--engine",
        &a,
        "--engine",
        &b,
        "--nodes",
        "5",
        "--openings",
        book_name,
    ]));
    assert!(
        err.contains(&format!("error: {book_name}:4: bad moves 'e5 j9'")),
        "{err}"
    );

    let record = TempFile::new("broken-record.pgn");
    std::fs::write(record.path(), "[White \"a\"]\n[Black \"b\"\n1. e5 *\n").unwrap();
    let record_name = record.name();
    let err = failure(&ultimo_match(&["--replay", record_name]));
    assert!(
        err.contains(&format!(
            "error: {record_name}:2: the tag is not closed with ']'"
        )),
        "{err}"
    );
    std::fs::write(record.path(), "[Round \"1\"]\n\n1. e5 e5 1-0\n").unwrap();
    let err = failure(&ultimo_match(&["--replay", record_name]));
    assert!(
        err.contains(&format!(
            "error: {record_name}:3: move 1... e5 is illegal: the cell is already taken"
        )),
        "{err}"
    );
    let err = failure(&ultimo_match(&["--record", record_name]));
    assert!(err.contains("--record"), "{err}");
}

#[test]
fn nodes_without_openings_warn_that_games_repeat() {
    let record = TempFile::new("repeated.pgn");
    let (base, new) = (ultimo("base"), ultimo("new"));
    let output = ultimo_match(&[
        "--engine",
        &base,
        "--engine",
        &new,
        "--nodes",
        "50",
        "--games",
        "4",
        "--pgnout",
        record.name(),
    ]);
    success(&output);
    let err = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("match: base vs new, 4 games"), "{err}");
    assert_eq!(
        lines[1],
        "warning: every pair starts from the start position and every engine has a nodes \
         limit: an engine that searches the same way each time (as Ultimo does) repeats the \
         same games; give --random-plies N or more --openings",
        "{err}"
    );
    // As it says: the second pair replays the first.
    let text = std::fs::read_to_string(record.path()).unwrap();
    let games = ultimo::pgn::read(&text, record.name()).unwrap();
    let moves = |round: &str| -> Vec<String> {
        let game = games
            .iter()
            .find(|g| g.tag("Round") == Some(round))
            .unwrap();
        game.moves.iter().map(|m| m.text.clone()).collect()
    };
    assert_eq!(moves("1"), moves("3"));
    // With random openings there is nothing to warn of.
    let output = ultimo_match(&[
        "--engine",
        &base,
        "--engine",
        &new,
        "--nodes",
        "50",
        "--games",
        "2",
        "--random-plies",
        "2",
    ]);
    success(&output);
    assert!(!String::from_utf8_lossy(&output.stderr).contains("warning"));
}

#[test]
fn merge_names_a_file_given_twice() {
    let shard = TempFile::new("twice.pgn");
    std::fs::write(shard.path(), "[Round \"1\"]\n\n1. e5 *\n").unwrap();
    let err = failure(&ultimo_match(&["--merge", shard.name(), shard.name()]));
    assert_eq!(
        err,
        format!(
            "error: {} is given twice: give each shard's record once\n",
            shard.name()
        )
    );
}

/// File names from outside are printed with their control characters
/// escaped, in the summary and in errors, and very long ones by their ends
/// (hostile input round 2, P3). Before, a file named with an escape
/// sequence reached the terminal raw.
#[cfg(unix)]
#[test]
fn file_names_reach_the_terminal_escaped() {
    let record = TempFile::new("evil\x1b]0;pwned\x07.pgn");
    std::fs::write(
        record.path(),
        "[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\
         [Termination \"abandoned\"]\n[Pair \"1\"]\n\n1. e5 {x crashed} 0-1\n",
    )
    .unwrap();
    let escaped = record
        .name()
        .replace('\x1b', "\\u{1b}")
        .replace('\x07', "\\u{7}");
    let out = success(&ultimo_match(&["--replay", record.name()]));
    assert!(!out.contains(['\x1b', '\x07']), "{out:?}");
    assert!(
        out.contains(&format!(
            "record      {escaped}: 1 games, every move legal\n"
        )),
        "{out}"
    );
    let missing = format!("{}-gone.pgn", record.name());
    let err = failure(&ultimo_match(&["--replay", &missing]));
    assert!(!err.contains(['\x1b', '\x07']), "{err:?}");
    assert!(
        err.starts_with(&format!("error: cannot read {escaped}-gone.pgn: ")),
        "{err}"
    );
    // A name of 3000 characters: its start and end.
    let long = format!("/nowhere/{}/end.pgn", "d".repeat(3000));
    let err = failure(&ultimo_match(&["--replay", &long]));
    assert!(err.len() < 300, "{err}");
    assert!(
        err.contains(&format!(
            "/nowhere/{}...{}/end.pgn",
            "d".repeat(21),
            "d".repeat(52)
        )),
        "{err}"
    );
}

/// Long enough for a run that should end at once, even on a loaded machine;
/// a run still going after it is taken to hang.
const HANG: Duration = Duration::from_secs(60);

/// Runs a match with the time settings `extra` against engines that never
/// answer `go` (or with `mute`, nothing at all), which would wait for them
/// as long as the settings say, and checks that it is refused at once with
/// `expected`.
fn refuses_huge_time(mode: &str, extra: &[&str], expected: &str) {
    let first = broken(mode);
    let second = format!("cmd=sh arg=tests/engines/broken.sh arg={mode} name={mode}-2");
    let mut args = vec!["--engine", &first, "--engine", &second, "--games", "2"];
    args.extend_from_slice(extra);
    let err = failure(&ultimo_match_within(&args, HANG));
    assert!(err.contains(&format!("error: {expected}")), "{err}");
}

#[test]
fn huge_movetime_is_refused() {
    refuses_huge_time(
        "silent",
        &["--movetime", "18446744073709551615"],
        "--movetime 18446744073709551615 is too long: the most is 86400000 ms (a day)",
    );
    refuses_huge_time(
        "silent",
        &["--movetime", "86400001"],
        "--movetime 86400001 is too long",
    );
}

#[test]
fn huge_timemargin_is_refused() {
    refuses_huge_time(
        "silent",
        &["--movetime", "10", "--timemargin", "18446744073709551615"],
        "--timemargin 18446744073709551615 is too long",
    );
}

#[test]
fn huge_move_timeout_is_refused() {
    refuses_huge_time(
        "silent",
        &["--nodes", "10", "--move-timeout", "18446744073709551615"],
        "--move-timeout 18446744073709551615 is too long",
    );
}

#[test]
fn huge_startup_timeout_is_refused() {
    refuses_huge_time(
        "mute",
        &["--nodes", "10", "--startup-timeout", "18446744073709551615"],
        "--startup-timeout 18446744073709551615 is too long",
    );
}

#[test]
fn clocks_longer_than_a_day_are_refused() {
    refuses_huge_time(
        "silent",
        &["--tc", "1000000"],
        "--tc 1000000: the base time must be between 0 and 86400 seconds (a day)",
    );
    refuses_huge_time(
        "silent",
        &["--tc", "60+86401"],
        "--tc 60+86401: the increment must be between 0 and 86400 seconds (a day)",
    );
    refuses_huge_time(
        "silent",
        &["--tc", "18446744073709551615"],
        "--tc 18446744073709551615: the base time must be between 0 and 86400",
    );
}

#[test]
fn huge_nodes_are_bounded_by_the_move_timeout() {
    // --nodes is not a time: any count is passed on, and an engine that
    // does not answer in time loses once --move-timeout has passed.
    let (base, silent) = (ultimo("base"), broken("silent"));
    let out = success(&ultimo_match_within(
        &[
            "--engine",
            &base,
            "--engine",
            &silent,
            "--nodes",
            "18446744073709551615",
            "--move-timeout",
            "300",
            "--games",
            "2",
        ],
        HANG,
    ));
    assert!(field(&out, "games").starts_with("2: "), "{out}");
    assert!(field(&out, "faults").contains("timeout"), "{out}");
    assert_eq!(field(&out, "end"), "all 2 games played");
}

#[test]
fn engine_specs_split_like_a_shell() {
    // The engine's script in a folder with a space in its name, reached
    // once through double quotes and once through a backslash escape.
    let dir = std::env::temp_dir().join(format!("ultimo match {}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("broken engine.sh");
    std::fs::copy("tests/engines/broken.sh", &script).expect("copy the engine");
    let path = script.to_str().expect("a UTF-8 temporary path");
    let quoted = format!(r#"cmd=sh "arg={path}" arg=illegal name=quoted"#);
    let escaped = format!(
        r"cmd=sh arg={} arg=exit name=escaped # no name=x here",
        path.replace(' ', r"\ ")
    );
    let out = success(&ultimo_match(&[
        "--engine", &quoted, "--engine", &escaped, "--nodes", "1", "--games", "2",
    ]));
    assert_eq!(field(&out, "games"), "2: W 2 D 0 L 0", "{out}");
    assert_eq!(field(&out, "faults"), "quoted none, escaped 2 (2 crash)");
    let err = failure(&ultimo_match(&[
        "--engine", "cmd='sh", "--engine", &escaped, "--nodes", "1",
    ]));
    assert!(
        err.contains("error: --engine 'cmd='sh': a quote is not closed"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).expect("remove the temp dir");
}

/// Starts `ultimo match` with `args`, waits for its first progress line,
/// sends it `interrupts` SIGINTs (Ctrl-C) a moment apart, and returns its
/// output once it has ended (within [`HANG`]).
fn interrupted_match(args: &[&str], interrupts: usize) -> Output {
    let mut child = Command::new(ULTIMO)
        .arg("match")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ultimo runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let stdout = thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    // Read standard error up to the "match:" line: Ctrl-C is caught by then.
    let mut stderr = child.stderr.take().expect("stderr");
    let mut progress = Vec::new();
    let mut byte = [0];
    while !String::from_utf8_lossy(&progress).contains("match: ") {
        match stderr.read(&mut byte) {
            Ok(1) => progress.push(byte[0]),
            _ => panic!("no progress: {}", String::from_utf8_lossy(&progress)),
        }
    }
    let stderr = thread::spawn(move || {
        let _ = stderr.read_to_end(&mut progress);
        progress
    });
    thread::sleep(Duration::from_millis(300));
    for _ in 0..interrupts {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        thread::sleep(Duration::from_millis(300));
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for ultimo") {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ultimo match {args:?} still ran {HANG:?} after Ctrl-C");
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    }
}

/// A match between two engines that never answer `go`, whose games end
/// after `move_timeout` milliseconds.
fn silent_match(move_timeout: &str) -> Vec<String> {
    let other = "cmd=sh arg=tests/engines/broken.sh arg=silent name=other";
    [
        "--engine",
        &broken("silent"),
        "--engine",
        other,
        "--nodes",
        "1",
        "--games",
        "100",
        "--move-timeout",
        move_timeout,
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn first_ctrl_c_lets_the_running_game_finish() {
    let args = silent_match("2000");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = interrupted_match(&args, 1);
    let out = success(&output);
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(progress.contains("Ctrl-C: no new games"), "{progress}");
    assert_eq!(field(&out, "end"), "stopped by Ctrl-C", "{out}");
    // The game running at the Ctrl-C is counted (if one had started).
    let games = field(&out, "games");
    assert!(
        games.starts_with("1: ") || games.starts_with("0: "),
        "{out}"
    );
}

#[test]
fn second_ctrl_c_aborts_the_running_game() {
    // A game would take 100 s: only aborting it ends the match in time.
    let args = silent_match("100000");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = interrupted_match(&args, 2);
    let out = success(&output);
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(progress.contains("Ctrl-C: aborting"), "{progress}");
    assert_eq!(
        field(&out, "end"),
        "stopped by Ctrl-C, running games aborted",
        "{out}"
    );
    assert!(field(&out, "games").starts_with("0: "), "{out}");
}

#[test]
fn super15_match_records_and_replays_its_game() {
    let record = TempFile::new("super15.pgn");
    let (base, random) = (
        ultimo("base"),
        format!("{} option.RandomMove=true", ultimo("random")),
    );
    let live = success(&ultimo_match(&[
        "--game",
        "super15",
        "--engine",
        &base,
        "--engine",
        &random,
        "--nodes",
        "100",
        "--games",
        "4",
        "--random-plies",
        "2",
        "--seed",
        "1",
        "--pgnout",
        record.name(),
    ]));
    assert!(field(&live, "games").starts_with("4: "), "{live}");
    assert_eq!(field(&live, "faults"), "base none, random none");
    assert_eq!(field(&live, "end"), "all 4 games played");
    let text = std::fs::read_to_string(record.path()).unwrap();
    assert!(text.contains("[Variant \"Super 1 al 5\"]\n"), "{text}");
    assert!(text.contains("[Termination \"normal\"]"), "{text}");
    // Super 1 al 5 moves are from-to pairs of squares, e.g. `c2c3`; the
    // two opening moves are marked as book.
    let game = text.split("\n\n").nth(1).expect("a movetext");
    let words: Vec<&str> = game.split_whitespace().collect();
    assert_eq!(words[..2], ["1.", words[1]], "{game}");
    assert_eq!(words[1].len(), 4, "{game}");
    assert_eq!(words[2], "{book}", "{game}");
    assert_eq!(words[3..6], ["1...", words[4], "{book}"], "{game}");
    assert_eq!(words[4].len(), 4, "{game}");
    let replayed = replay(&record, &[], 4);
    assert_eq!(statistics(&replayed), statistics(&live));
    // Without its Variant tags the record is read as Ultimate Tic-Tac-Toe,
    // whose referee refuses the moves.
    let uttt = TempFile::new("super15-as-uttt.pgn");
    std::fs::write(
        uttt.path(),
        text.replace("[Variant \"Super 1 al 5\"]\n", ""),
    )
    .unwrap();
    let err = failure(&ultimo_match(&["--replay", uttt.name()]));
    assert!(err.contains("is not a cell"), "{err}");
}
