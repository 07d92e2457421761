//! `ultimo analyze --review` (whole games) and `--infinite` through the
//! real binary.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{BIN, TempDir, run};

/// A game Ultimo played against itself (3000 nodes a move) from the empty
/// board, with a planted blunder: at ply 49 `x` could win at once with
/// `i2` and played `h7`, which lets `o` win at once with `g7`. The same
/// game is the first of [`PLANTED_PGN`].
const PLANTED: &str = "b2 e4 f2 i5 i6 i8 h6 d9 a8 b6 e7 d1 c1 h1 e2 e5 e6 d8 c6 h8 d6 a7 \
                       a3 c8 g6 c9 g8 c5 d2 a5 a4 f6 g9 b9 e9 d7 h2 d5 b5 f4 i1 g3 b8 f5 \
                       i3 i9 h9 a9 h7 g7";

/// The recorded game with the planted blunder, and a short second game.
const PLANTED_PGN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/planted-blunder.pgn"
);

/// How long a stopped analysis may take to end: only a hung program
/// reaches it.
const HANG: Duration = Duration::from_secs(60);

fn review_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec![
        "analyze",
        "--review",
        "--nodes",
        "20000",
        "--hash",
        "16",
        "--threads",
        "1",
    ];
    args.extend(extra);
    args.push("--moves");
    args.extend(PLANTED.split_whitespace());
    args
}

#[test]
fn a_review_finds_the_planted_blunder() {
    let (code, out, err) = run(&review_args(&[]), "");
    assert_eq!(code, 0, "{err}");
    check_planted_review(&out, &err);
    // The same game read from its PGN file gives the same review.
    let (code, from_pgn, err) = run(
        &[
            "analyze",
            "--pgn",
            PLANTED_PGN,
            "--nodes",
            "20000",
            "--hash",
            "16",
            "--threads",
            "1",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_pgn, out);
}

/// The review of [`PLANTED`] at 20000 nodes a position.
fn check_planted_review(out: &str, err: &str) {
    assert!(!out.contains('\x1b') && !err.contains('\x1b'));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        " ply  side  move  mark  before     after       loss  best"
    );
    let row = |ply: u32| {
        lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(&ply.to_string()))
            .unwrap_or_else(|| panic!("no row for ply {ply}:\n{out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row(49),
        [
            "49", "x", "h7", "??", "mate", "1", "mate", "-1", "2.00", "i2"
        ],
        "{out}"
    );
    // The winning reply is the engine's own move: no mark, no best column.
    assert_eq!(
        row(50),
        ["50", "o", "g7", "mate", "1", "mate", "1", "0.00"],
        "{out}"
    );
    assert_eq!(lines.len(), 1 + 50 + 1 + 2 + 1, "{out}");
    assert!(lines[52].starts_with("x: 25 moves, "), "{out}");
    assert!(lines[53].starts_with("o: 25 moves, "), "{out}");
    assert!(lines[52].contains("blunder"), "{out}");
    assert!(lines[54].contains("?? blunder >= 0.30"), "{out}");
    // One progress line per position on stderr, the last one finished.
    let progress: Vec<&str> = err.lines().collect();
    assert_eq!(progress.len(), 51, "{err}");
    assert!(
        progress[0].starts_with("position 1/51: cp ") && progress[0].ends_with(", 20000 nodes"),
        "{err}"
    );
    assert_eq!(progress[50], "position 51/51: the game is over");
}

#[test]
fn a_review_as_json() {
    let (code, out, err) = run(&review_args(&["--json"]), "");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 50);
    assert_eq!(moves[48]["move"], "h7");
    assert_eq!(moves[48]["mark"], "??");
    assert_eq!(moves[48]["before"]["score"], "mate 1");
    assert_eq!(moves[48]["search"]["best"], "i2");
    assert_eq!(v["complete"], true);
    assert_eq!(v["end"]["over"], true);
    assert_eq!(v["summary"]["x"]["moves"], 25);
    assert!(v["summary"]["x"]["blunders"].as_u64().unwrap() >= 1);
}

#[test]
fn a_review_refuses_bad_games_with_one_error() {
    let (code, out, err) = run(
        &[
            "analyze", "--review", "--nodes", "100", "--moves", "e5", "a1",
        ],
        "",
    );
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("must be on the centre board"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = run(&["analyze", "--infinite", "--nodes", "100"], "");
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// Runs `ultimo` with `args`, waits until its standard error holds
/// `ready`, sends it `signal` (`INT` is Ctrl-C) and returns its exit code,
/// standard output and standard error once it has ended (within [`HANG`]).
fn signalled(args: &[&str], ready: &str, signal: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ultimo runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let stdout = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    // The signals are caught once `ready` is out.
    let mut stderr = child.stderr.take().expect("stderr");
    let mut said = Vec::new();
    let mut byte = [0];
    while !String::from_utf8_lossy(&said).contains(ready) {
        match stderr.read(&mut byte) {
            Ok(1) => said.push(byte[0]),
            _ => panic!("no {ready:?}: {}", String::from_utf8_lossy(&said)),
        }
    }
    let stderr = thread::spawn(move || {
        let _ = stderr.read_to_end(&mut said);
        String::from_utf8_lossy(&said).into_owned()
    });
    thread::sleep(Duration::from_millis(500));
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for ultimo") {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ultimo {args:?} still ran {HANG:?} after SIG{signal}");
        }
        thread::sleep(Duration::from_millis(20));
    };
    (
        status.code(),
        stdout.join().unwrap(),
        stderr.join().unwrap(),
    )
}

/// `--infinite` searches until Ctrl-C (SIGINT), then prints the last table
/// and exits 0.
#[test]
fn infinite_analysis_stops_cleanly_on_ctrl_c() {
    let args = [
        "analyze",
        "--infinite",
        "--moves",
        "e5",
        "--hash",
        "16",
        "--multipv",
        "2",
    ];
    let (code, out, _) = signalled(&args, "until Ctrl-C\n", "INT");
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(out.contains("fen 9/9/9/9/4x4/9/9/9/9 o 1 e5"), "{out}");
    let header = lines.iter().position(|l| l.contains(" visits ")).unwrap();
    // Through a pipe only the last table: a header, two moves, the figures.
    assert_eq!(lines.len(), header + 4, "{out}");
    assert!(lines[header + 1].trim_start().starts_with("1  "), "{out}");
    assert!(lines[header + 3].starts_with("nodes "), "{out}");
    assert!(!out.contains('\x1b'));
}

/// A review stopped by SIGTERM (or Ctrl-C) prints what it judged, says
/// where it stopped, and exits 0.
#[test]
fn a_stopped_review_prints_what_it_judged() {
    let mut args = vec![
        "analyze", "--review", "--time", "2", "--hash", "16", "--moves",
    ];
    args.extend(PLANTED.split_whitespace());
    let (code, out, err) = signalled(&args, "position 2/51", "TERM");
    assert_eq!(code, Some(0), "{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with(" ply  side  move"), "{out}");
    let judged = lines.iter().skip(1).take_while(|l| !l.is_empty()).count();
    assert!((1..50).contains(&judged), "{out}");
    assert!(
        out.contains(&format!("stopped: {judged} of the game's moves judged")),
        "{out}"
    );
}

/// `--pgnout` appends the game annotated: scores, NAGs, marks and best
/// moves in the comments; the file reads back as PGN and reviews again.
#[test]
fn the_annotated_pgn_reads_back() {
    let dir = TempDir::new("analyze-pgnout");
    let out = dir.file("annotated.pgn");
    let args = [
        "analyze",
        "--pgn",
        PLANTED_PGN,
        "--nodes",
        "20000",
        "--hash",
        "16",
        "--threads",
        "1",
        "--pgnout",
        &out,
    ];
    let (code, _, err) = run(&args, "");
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    // The tags are the recorded game's, with the annotator added.
    assert!(text.starts_with("[Event \"Ultimo self-play\"]\n"), "{text}");
    assert!(
        text.contains("[Annotator \"Ultimo 0.1.0 (20000 nodes per position)\"]"),
        "{text}"
    );
    // The blunder: its NAG, then the score after it and the best move.
    let words: Vec<&str> = text.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .ends_with("25. h7 $4 {-M1, blunder (loss 2.00), best i2} 25... g7 {+M1} 0-1"),
        "{text}"
    );
    let games = ultimo::pgn::read(&text, &out).expect("PGN");
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game.moves.len(), 50);
    assert_eq!(game.moves[48].text, "h7");
    let note = ultimo::pgn::Annotation::parse(game.moves[48].comment.as_deref().unwrap());
    assert_eq!(note.note.score, Some(ultimo::pgn::Score::Mate(-1)));
    assert_eq!(note.remark.as_deref(), Some("blunder (loss 2.00), best i2"));
    assert_eq!(game.result, ultimo::pgn::PgnResult::OWins);
    // Appending: a second run adds a second game, and each reviews.
    let (code, _, err) = run(&args, "");
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(ultimo::pgn::read(&text, &out).unwrap().len(), 2);
    let (code, again, err) = run(
        &[
            "analyze",
            "--pgn",
            &out,
            "--game-number",
            "2",
            "--nodes",
            "20000",
            "--hash",
            "16",
            "--threads",
            "1",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        again.contains("  49  x     h7    ??    mate 1     mate -1     2.00  i2"),
        "{again}"
    );
}

/// A game from --moves gets a new PGN with the Seven Tag Roster; a set-up
/// position gets its FEN; an unfinished game ends with `*`.
#[test]
fn a_game_from_moves_is_written_as_new_pgn() {
    let dir = TempDir::new("analyze-moves");
    let out = dir.file("new.pgn");
    let fen = "1ooox1x2/xxoo2xoo/o2ox4/1oxxxoxxx/oxoooo2o/x3oo3/x5o2/1x1xxx1x1/2xo3ox x 23 f5";
    let (code, _, err) = run(
        &[
            "analyze",
            "--review",
            "--nodes",
            "2000",
            "--hash",
            "16",
            "--threads",
            "1",
            "--pgnout",
            &out,
            "--fen",
            fen,
            "--moves",
            "i3",
            "i9",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let game = &ultimo::pgn::read(&text, &out).unwrap()[0];
    assert_eq!(game.tag("Event"), Some("ultimo analyze"));
    assert_eq!(game.tag("SetUp"), Some("1"));
    assert_eq!(game.tag("FEN"), Some(fen));
    assert_eq!(game.result, ultimo::pgn::PgnResult::Unknown);
    // A proven win (its distance the proof's, not always the shortest).
    assert!(text.contains("23. i3 {+M"), "{text}");
}

#[test]
fn the_second_game_of_a_file_and_bad_files() {
    let (code, out, err) = run(
        &[
            "analyze",
            "--pgn",
            PLANTED_PGN,
            "--game-number",
            "2",
            "--nodes",
            "500",
            "--hash",
            "16",
            "--threads",
            "1",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("   ")).count(),
        3,
        "{out}"
    );
    assert_eq!(err.lines().count(), 4, "{err}");
    let (code, _, err) = run(&["analyze", "--pgn", PLANTED_PGN, "--game-number", "3"], "");
    assert_eq!(code, 2);
    assert!(err.contains("has 2 game(s); there is no game 3"), "{err}");
    let dir = TempDir::new("analyze-bad");
    let bad = dir.file("bad.pgn");
    std::fs::write(&bad, "[Event \"x\"]\n\n1. e5 a1 *\n").unwrap();
    let (code, _, err) = run(&["analyze", "--pgn", &bad, "--nodes", "100"], "");
    assert_eq!(code, 2);
    assert!(err.contains(":3:") && err.contains("a1"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = run(&["analyze", "--pgn", &dir.file("missing.pgn")], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read") && err.contains("missing.pgn"),
        "{err}"
    );
    for args in [
        &["--game-number", "2"][..],
        &["--game-number", "2", "--moves", "e5"],
    ] {
        let (code, _, err) = run(&[&["analyze"][..], args].concat(), "");
        assert_eq!(code, 2);
        assert!(err.contains("--game-number <N>"), "{err}");
    }
    let (code, _, err) = run(
        &["analyze", "--pgnout", &dir.file("o.pgn"), "--moves", "e5"],
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("--review"), "{err}");
}

/// The last plies of the planted game from a FEN, the first four (or, with
/// `blunder_is_book`, five, the blunder among them) marked `{book}` as
/// `ultimo match` marks its openings.
fn book_game(blunder_is_book: bool) -> String {
    let h7 = if blunder_is_book { "h7 {book}" } else { "h7" };
    format!(
        "[Event \"book\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"1\"]\n\
         [White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n\
         [FEN \"1ooox1x2/xxoo2xoo/o2ox4/1oxxxoxxx/oxoooo2o/x3oo3/x5o2/1x1xxx1x1/2xo3ox x 23 f5\"]\n\n\
         23. i3 {{book}} 23... i9 {{book}} 24. h9 {{book}} 24... a9 {{book}} 25. {h7} 25... g7 0-1\n"
    )
}

#[test]
fn book_moves_of_a_pgn_game_are_not_judged() {
    let dir = TempDir::new("analyze-book");
    let review = |blunder_is_book: bool| {
        let file = dir.file(&format!("book-{blunder_is_book}.pgn"));
        std::fs::write(&file, book_game(blunder_is_book)).unwrap();
        let (code, out, err) = run(
            &[
                "analyze",
                "--pgn",
                &file,
                "--nodes",
                "2000",
                "--hash",
                "16",
                "--threads",
                "1",
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        out
    };
    let row = |out: &str, ply: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(ply))
            .unwrap_or_else(|| panic!("no row {ply}:\n{out}"))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    // Judged, the blunder is marked.
    let judged = review(false);
    assert_eq!(row(&judged, "49")[3], "??", "{judged}");
    assert!(judged.contains("x: 1 move, "), "{judged}");
    // As a book move, it is shown but not judged, nor counted.
    let book = review(true);
    assert_eq!(row(&book, "49")[3..5], ["book", "mate"], "{book}");
    assert_eq!(row(&book, "45")[3], "book", "{book}");
    assert!(
        book.contains("x: 0 moves, 0 inaccuracies, 0 mistakes, 0 blunders"),
        "{book}"
    );
    assert!(book.contains("o: 1 move, "), "{book}");
}

#[test]
fn review_settings_that_would_be_ignored_are_refused() {
    // A review with no moves has nothing to judge.
    let (code, out, err) = run(&["analyze", "--review", "--nodes", "100"], "");
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err.trim_end(),
        "error: nothing to review: give the game's moves with --moves (from --fen or the start), or a game with --pgn FILE"
    );
    let dir = TempDir::new("analyze-empty");
    let empty = dir.file("empty.pgn");
    std::fs::write(&empty, "[Event \"x\"]\n\n*\n").unwrap();
    let (code, _, err) = run(&["analyze", "--pgn", &empty, "--nodes", "100"], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("game 1 of ") && err.ends_with("empty.pgn has no moves to review\n"),
        "{err}"
    );
    // A review shows one line per move: --multipv has no meaning there.
    for whole_game in [&["--review", "--moves", "e5"][..], &["--pgn", PLANTED_PGN]] {
        let args = [&["analyze", "--multipv", "3"][..], whole_game].concat();
        let (code, _, err) = run(&args, "");
        assert_eq!(code, 2);
        assert!(
            err.contains("'--multipv <MULTIPV>' cannot be used with"),
            "{err}"
        );
    }
    // A PGN game's Variant tag names the game.
    let (code, _, err) = run(&["analyze", "--pgn", PLANTED_PGN, "--game", "super15"], "");
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with '--game <GAME>'"), "{err}");
}

#[test]
fn a_negative_time_is_a_bad_value_not_an_unknown_argument() {
    for command in ["analyze", "play"] {
        let (code, _, err) = run(&[command, "--time", "-1"], "");
        assert_eq!(code, 2);
        assert!(
            err.starts_with(
                "error: invalid value '-1' for '--time <TIME>': '-1' is not a number of seconds greater than 0"
            ),
            "{command}: {err}"
        );
    }
}

/// Lost for o: x forces a win within 6 plies and not within 5 (exhaustive
/// search). The solver proves the loss along a line of 8 plies (its
/// distance is that of the line it found, not the shortest); 2 iterations
/// of the search are too few to prove it (3 are enough with the leaf
/// solver, 30 were with the p4w net and none).
const LOST_IN_8: &str =
    "xx1oox1xo/1oxoxo1o1/1oo1x1o2/1ox2xoxo/2oo1x1ox/xx1x1x1oo/ooxx2xxx/1o1oxx1ox/xxxoo3o o 27 b1";

#[test]
fn analyze_marks_what_the_solver_proves() {
    let (code, out, err) = run(
        &[
            "analyze", "--fen", LOST_IN_8, "--nodes", "2", "--hash", "16",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("proven by the solver: loss for o in 8 plies, pv "),
        "{out}"
    );
    let (code, out, err) = run(
        &[
            "analyze", "--fen", LOST_IN_8, "--nodes", "2", "--hash", "16", "--json",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["solver"]["result"], "loss");
    assert_eq!(v["solver"]["plies"], 8);
    // A position the search proves itself has no solver's line.
    let won = "xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4";
    let (code, out, err) = run(
        &[
            "analyze", "--fen", won, "--nodes", "2000", "--hash", "16", "--json",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["solver"], serde_json::Value::Null);
}

#[test]
fn a_review_scores_what_the_solver_proves() {
    let (code, out, err) = run(
        &[
            "analyze", "--review", "--fen", LOST_IN_8, "--moves", "e3", "--nodes", "5", "--hash",
            "16", "--json",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let m = &v["moves"][0];
    assert_eq!(m["before"]["score"], "mate -4", "{m}");
    assert_eq!(m["before"]["proven"]["result"], "loss", "{m}");
}

/// Output into a pipe whose reader has gone (`ultimo analyze | head -3`)
/// ends the program quietly: no "Broken pipe" error.
#[test]
fn a_reader_that_stops_reading_ends_the_analysis_quietly() {
    let mut child = Command::new(BIN)
        .args(["analyze", "--time", "0.5", "--hash", "16", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ultimo starts");
    // The reader goes before the table after the search is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ultimo ends");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success(), "{:?}", out.status);
}
