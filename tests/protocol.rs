//! The protocol loop, driven through the real binary.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use ultimo::game::{Outcome, Player};

use common::Engine;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use ultimo::rules::{Move, Position};

const SEC: Duration = Duration::from_secs(1);

/// How long a test waits for an answer that should come at once: only a
/// hang takes this long, so it can be generous (the machine may be loaded).
const PATIENCE: Duration = Duration::from_secs(30);

/// Runs `ultimo args` on `input` to its end; (exit code, stdout, stderr).
/// Panics, killing it, when it has not exited after `timeout`.
fn run_within(args: &[&str], input: &str, timeout: Duration) -> (i32, String, String) {
    let mut child = Command::new(common::BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ultimo");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let collect = |mut r: Box<dyn Read + Send>| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = r.read_to_end(&mut text);
            let _ = tx.send(String::from_utf8_lossy(&text).into_owned());
        });
        rx
    };
    let out = collect(Box::new(child.stdout.take().unwrap()));
    let err = collect(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait for ultimo") {
            break status.code().unwrap_or(-1);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ultimo {args:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        code,
        out.recv_timeout(PATIENCE).unwrap_or_default(),
        err.recv_timeout(PATIENCE).unwrap_or_default(),
    )
}

/// A riddles field (theaigames dialect: `0` empty, `1` x, `2` o) with x
/// marks at `x` and o marks at `o`, cells given as (column, row).
fn riddles_field(x: &[(usize, usize)], o: &[(usize, usize)]) -> String {
    let mut cells = vec!["0"; 81];
    for &(c, r) in x {
        cells[9 * r + c] = "1";
    }
    for &(c, r) in o {
        cells[9 * r + c] = "2";
    }
    cells.join(",")
}

fn is_bestmove(line: &str) -> bool {
    line.starts_with("bestmove ")
}

/// The FEN `d` reports.
fn fen_of(e: &mut Engine) -> String {
    e.send("d");
    let lines = e.until(PATIENCE, |l| l.starts_with("boards won by o"));
    let fen = lines.iter().find(|l| l.starts_with("fen ")).unwrap();
    fen["fen ".len()..].to_string()
}

fn bestmove(e: &mut Engine, timeout: Duration) -> (Vec<String>, String) {
    let lines = e.until(timeout, is_bestmove);
    let best = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    (lines, best)
}

/// The search's own time, from the last `info` line with one (the one the
/// search writes with its `bestmove`): what its time management controls,
/// whatever the delays of the pipes and of a loaded machine around it.
fn search_time(lines: &[String]) -> Duration {
    Duration::from_millis(last_info(lines, "time"))
}

/// The number after `key` in the last `info` line that has one.
fn last_info(lines: &[String], key: &str) -> u64 {
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with("info "))
        .find_map(|l| {
            let mut words = l.split_whitespace().skip_while(|w| *w != key);
            words.nth(1).and_then(|t| t.parse().ok())
        })
        .unwrap_or_else(|| panic!("no info line with {key}: {lines:?}"))
}

/// Held by the tests that measure time, so that they do not run at once
/// (each starts an engine that keeps a core busy).
static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`TIMING`] (a test that failed while holding it does not stop
/// the others).
fn timing() -> std::sync::MutexGuard<'static, ()> {
    TIMING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[test]
fn handshake_lists_options() {
    for (hello, ok) in [("uci", "uciok"), ("ugi", "ugiok"), ("UGI", "ugiok")] {
        let mut e = Engine::start(&[]);
        e.send(hello);
        let lines = e.until(PATIENCE, |l| l == ok);
        assert!(lines[0].starts_with("id name Ultimo "), "{lines:?}");
        assert_eq!(lines[1], "id author The Ultimo developers");
        for name in [
            "Threads",
            "Hash",
            "MultiPV",
            "Ponder",
            "MoveOverhead",
            "Seed",
            "Exploration",
        ] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {name} type "))),
                "{name} missing: {lines:?}"
            );
        }
        assert_eq!(e.ask("isready"), "readyok");
    }
}

#[test]
fn the_debug_log_records_both_directions() {
    let tmp = common::TempDir::new("protocol-log");
    let log = tmp.file("engine.log");
    let (code, out, err) = run_within(&["--log", &log], "isready\nquit\n", PATIENCE);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "readyok\n", ""));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        ">> isready\n<< readyok\n>> quit\n"
    );
    // It logs the protocol loop only.
    let (code, _, err) = run_within(&["--log", &log, "perft", "1"], "", PATIENCE);
    assert_eq!(code, 2);
    assert!(err.contains("--log logs the protocol loop only"), "{err}");
    // A log that cannot be opened is an error before anything is read.
    let (code, _, err) = run_within(&["--log", &tmp.0.display().to_string()], "", PATIENCE);
    assert_eq!(code, 2);
    assert!(err.contains("DebugLogFile: cannot open"), "{err}");
}

#[test]
fn whole_game_through_the_protocol() {
    let mut e = Engine::start(&[]);
    e.send("ugi");
    e.until(PATIENCE, |l| l == "ugiok");
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 32");
    e.send("uginewgame");
    assert_eq!(e.ask("isready"), "readyok");
    let mut moves: Vec<String> = Vec::new();
    let mut pos = Position::startpos();
    loop {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        if moves.is_empty() {
            e.send("position startpos");
        }
        let over = e.ask("query gameover");
        assert_eq!(over, format!("response {}", pos.is_over()));
        let p1 = e.ask("query p1turn");
        assert_eq!(p1 == "response true", pos.side_to_move() == Player::X);
        if pos.is_over() {
            break;
        }
        e.send("go p1time 2000 p2time 2000 p1inc 20 p2inc 20 nodes 3000");
        let (lines, best) = bestmove(&mut e, PATIENCE);
        assert!(
            lines.iter().any(|l| l.starts_with("info depth ")),
            "{lines:?}"
        );
        let m: Move = best.parse().expect("bestmove is a cell");
        pos.try_play(m).expect("bestmove is legal");
        moves.push(best);
    }
    let result = e.ask("query result");
    let want = match pos.outcome() {
        Some(Outcome::Win(Player::X)) => "response p1win",
        Some(Outcome::Win(Player::O)) => "response p2win",
        Some(Outcome::Draw) => "response draw",
        None => unreachable!(),
    };
    assert_eq!(result, want);
    // A go on a finished game answers at once.
    e.send("go nodes 1000");
    let (_, best) = bestmove(&mut e, PATIENCE);
    assert_eq!(best, "0000");
    e.send("quit");
    assert_eq!(e.wait_exit(PATIENCE), Some(0));
}

#[test]
fn info_lines_follow_uci_field_order() {
    let mut e = Engine::start(&[]);
    e.send("setoption name MultiPV value 3");
    e.send("position startpos moves e5");
    e.send("go nodes 20000");
    let (lines, best) = bestmove(&mut e, PATIENCE);
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(infos.len() >= 3, "{lines:?}");
    let last3 = &infos[infos.len() - 3..];
    for (i, line) in last3.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let order: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| {
                [
                    "depth", "seldepth", "multipv", "score", "wdl", "nodes", "nps", "hashfull",
                    "time", "pv",
                ]
                .contains(w)
            })
            .collect();
        assert_eq!(
            order,
            [
                "depth", "seldepth", "multipv", "score", "wdl", "nodes", "nps", "hashfull", "time",
                "pv"
            ]
        );
        let multipv: usize = words[words.iter().position(|&w| w == "multipv").unwrap() + 1]
            .parse()
            .unwrap();
        assert_eq!(multipv, i + 1);
        let at = |key: &str| words[words.iter().position(|&w| w == key).unwrap() + 1];
        for key in ["depth", "seldepth", "nodes", "nps", "hashfull", "time"] {
            at(key)
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{key} not an integer: {line}"));
        }
        assert_eq!(at("nodes"), "20000");
        let wdl_at = words.iter().position(|&w| w == "wdl").unwrap();
        let wdl: u32 = words[wdl_at + 1..wdl_at + 4]
            .iter()
            .map(|w| w.parse::<u32>().unwrap())
            .sum();
        assert_eq!(wdl, 1000);
    }
    assert!(last3[0].contains(&format!(" pv {best}")));
    // Exactly two tokens: no ponder move unless the Ponder option is on.
    assert_eq!(lines.last().unwrap().split_whitespace().count(), 2);
}

#[test]
fn proven_win_reports_mate() {
    // x has won the top-left and top boards and is sent to the top-right
    // board, where g9 h9 are x's: i9 wins the game.
    let mut e = Engine::start(&[]);
    e.send("position fen xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3");
    let fen = fen_of(&mut e);
    assert!(fen.starts_with("xxxxxxxx1/"), "{fen}");
    // The proof takes milliseconds; a bound far below the minute the
    // search may take still shows that the win is played at once.
    e.send("go movetime 60000");
    let start = Instant::now();
    let (lines, best) = bestmove(&mut e, 2 * PATIENCE);
    assert_eq!(best, "i9");
    assert!(start.elapsed() < 20 * SEC, "a proven win is played at once");
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last_info.contains(" score mate 1 "), "{last_info}");
}

#[test]
fn illegal_move_rejects_the_whole_command() {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves e5 e4");
    let before = fen_of(&mut e);
    assert_eq!(
        e.ask("position startpos moves e5 e4 d1 e6"),
        "info string error: move 4 (e6) is illegal: the move must be on the bottom-left board"
    );
    assert_eq!(fen_of(&mut e), before);
    assert!(
        e.ask("position fen 9/9/9 x 1 0000")
            .starts_with("info string error: bad FEN: ")
    );
    assert_eq!(fen_of(&mut e), before);
}

#[test]
fn every_error_path_answers_one_line_and_changes_nothing() {
    let mut e = Engine::start(&[]);
    e.send("setoption name MultiPV value 2");
    e.send("position startpos moves e5");
    let fen = fen_of(&mut e);
    let errors = [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("isready please", "isready takes no arguments"),
        ("setoption Threads 2", "expected 'setoption name"),
        ("setoption name Threads value 0", "between 1 and 256, got 0"),
        ("setoption name Threads value many", "whole number"),
        ("setoption name Hash value 70000", "between 1 and 65536"),
        ("setoption name Ponder value maybe", "true or false"),
        (
            "setoption name Playout value clever",
            "one of uniform, winning",
        ),
        (
            "setoption name Nonsense value 1",
            "unknown option 'Nonsense'",
        ),
        ("setoption name MultiPV", "needs a value"),
        ("position", "expected 'startpos' or 'fen <fen>'"),
        ("position fen", "the FEN is missing"),
        ("position fen 9/9/9/9/9/9/9/9/9 x 1", "4 fields"),
        ("position fen 9/9/9/9/9/9/9/9/9 z 1 0000", "neither x nor o"),
        (
            "position fen 9/9/9/9/4x4/9/9/9/9 x 1 e5",
            "do not fit x to move",
        ),
        (
            "position fen xxx6/9/ooo6/9/9/9/9/9/9 x 4 a7",
            "three in a row for both",
        ),
        ("position startpos moves e5 e5", "the cell is already taken"),
        ("position startpos moves j1", "'j1' is not a cell"),
        (
            "go wtime -5",
            "wtime needs a non-negative number of milliseconds, got '-5'",
        ),
        ("go nodes lots", "nodes needs a non-negative number"),
        ("go sideways", "unknown parameter 'sideways'"),
        ("go searchmoves a1", "a1 is illegal"),
        ("go ponder", "set the Ponder option"),
        ("ponderhit", "no ponder search is running"),
        ("query weather", "unknown question 'weather'"),
        ("perft 0", "depth must be 1-8"),
        ("perft 99", "depth must be 1-8"),
    ];
    for (line, want) in errors {
        let answer = e.ask(line);
        assert!(
            answer.starts_with("info string error: ") && answer.contains(want),
            "{line} -> {answer}"
        );
    }
    // Nothing changed: the position, the MultiPV setting, the engine.
    assert_eq!(fen_of(&mut e), fen);
    e.send("go nodes 3000");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    assert!(lines.iter().any(|l| l.contains(" multipv 2 ")));
    assert_eq!(e.ask("isready"), "readyok");
}

#[test]
fn commands_during_a_search() {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(e.ask("isready"), "readyok");
    assert_eq!(e.ask("query p1turn"), "response true");
    // position sets up the next search at once, the running one goes on.
    e.send("position startpos moves e5");
    assert_eq!(fen_of(&mut e), "9/9/9/9/4x4/9/9/9/9 o 1 e5");
    // go, setoption, ucinewgame and perft wait for the search, and every
    // line after them waits behind them: nothing is answered yet.
    for line in [
        "go nodes 5",
        "setoption name Threads value 2",
        "ucinewgame",
        "perft 1",
        "position startpos moves e5 e4",
        "d",
        "isready",
    ] {
        e.send(line);
    }
    e.silent_for(Duration::from_millis(300));
    // Infinite: no bestmove until stop, then the waiting lines in order.
    e.send("stop");
    let (_, first) = bestmove(&mut e, PATIENCE);
    assert!(Position::startpos().is_legal(first.parse().unwrap()));
    let (_, second) = bestmove(&mut e, PATIENCE);
    let after_e5: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
    assert!(after_e5.is_legal(second.parse().unwrap()), "{second}");
    let rest = e.until(PATIENCE, |l| l == "readyok");
    assert!(rest.iter().any(|l| l.starts_with("total ")), "{rest:?}");
    assert!(
        rest.contains(&"fen 9/9/9/9/4x4/4o4/9/9/9 x 2 e4".to_string()),
        "{rest:?}"
    );
    assert!(rest.iter().all(|l| !l.contains("error")), "{rest:?}");
    e.silent_for(Duration::from_millis(200));
    // stop without a search is ignored; a position right after stop works.
    e.send("stop");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    e.send("stop");
    e.send("position startpos moves e5");
    bestmove(&mut e, PATIENCE);
    assert_eq!(fen_of(&mut e), "9/9/9/9/4x4/9/9/9/9 o 1 e5");
    // A stop also stops the searches waiting before it, as they start
    // (the second alone would take minutes).
    e.send("go infinite");
    e.send("go nodes 100000000");
    std::thread::sleep(Duration::from_millis(50));
    e.send("stop");
    bestmove(&mut e, PATIENCE);
    bestmove(&mut e, PATIENCE);
    assert_eq!(e.ask("isready"), "readyok");
}

/// Commands piped in one go, as scripts and simple runners send them:
/// each `go` waits for the search before it, and every one gets its
/// `bestmove`, also when `quit` (or the end of input) comes first.
#[test]
fn piped_commands_are_queued_not_lost() {
    let script = "position startpos moves e5 e4\ngo nodes 1\n\
                  position startpos moves e5 e4 d2\ngo nodes 1\nquit\n";
    for input in [script.to_string(), script.replace("quit\n", "")] {
        let (code, out, _) = common::run(&[], &input);
        assert_eq!(code, 0);
        let best: Vec<&str> = out.lines().filter(|l| is_bestmove(l)).collect();
        assert_eq!(best.len(), 2, "{out}");
        assert!(out.lines().all(|l| !l.contains("error")), "{out}");
        let second: Position = "9/9/9/9/4x4/4o4/9/3x5/9 o 2 d2".parse().unwrap();
        let mv = best[1].split_whitespace().nth(1).unwrap();
        assert!(second.is_legal(mv.parse().unwrap()), "{out}");
    }
    // A search, then a long one waiting for it, then quit: the first runs
    // to its limit, the last is stopped at once, each with its bestmove.
    let mut e = Engine::start(&[]);
    e.send("go nodes 20000");
    e.send("go movetime 100000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("quit");
    let (first, _) = bestmove(&mut e, PATIENCE);
    assert!(
        first.iter().any(|l| l.contains(" nodes 20000 ")),
        "{first:?}"
    );
    // Within PATIENCE, where the second search would take 100 s.
    bestmove(&mut e, PATIENCE);
    assert_eq!(e.wait_exit(PATIENCE), Some(0));
}

/// Found by fuzzing (fuzz/fuzz_targets/protocol_ugi.rs): `go` with a clock
/// for the side not to move only searched without end, so the `go` was
/// never answered and a piped script never ended. Now the side to move has
/// no time left and moves at once, as in Stockfish; `go solve` likewise.
#[test]
fn a_clock_for_the_other_side_only_moves_at_once() {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves e5 e4 d2");
    e.send("go wtime 6000 winc 10");
    bestmove(&mut e, PATIENCE);
    e.send("go solve wtime 60000");
    bestmove(&mut e, PATIENCE);
    assert_eq!(e.ask("isready"), "readyok");
}

/// The lines that wait for a search are bounded: past 1 MiB of them a
/// line gets an error and is dropped, and the engine goes on.
#[test]
fn waiting_lines_are_bounded() {
    let mut e = Engine::start(&[]);
    e.send("go infinite");
    e.send("go nodes 1");
    let padded = format!("position startpos{}", " ".repeat(60_000));
    for _ in 0..20 {
        e.send(&padded);
    }
    let refused = e.until(PATIENCE, |l| l.contains("already wait for the search"));
    assert!(
        refused
            .last()
            .unwrap()
            .contains("(the most is 1048576); send stop")
    );
    e.send("stop");
    // Both searches answer (the one that waited is stopped by the stop
    // behind it), after the errors of the lines refused.
    bestmove(&mut e, PATIENCE);
    let (after, _) = bestmove(&mut e, PATIENCE);
    assert!(after.iter().all(|l| !l.contains("error")), "{after:?}");
    assert_eq!(e.ask("isready"), "readyok");
}

#[test]
fn ponder_and_ponderhit() {
    let _timing = timing();
    let mut e = Engine::start(&[]);
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e5");
    e.send("go nodes 20000");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    let last = lines.last().unwrap();
    assert!(last.contains(" ponder "), "{last}");
    e.send("position startpos moves e5 e4");
    e.send("go ponder movetime 200");
    e.silent_for(Duration::from_millis(400));
    let hit = Instant::now();
    e.send("ponderhit");
    bestmove(&mut e, PATIENCE);
    // The 200 ms count from the ponderhit: never less (whatever the load;
    // less the 10 ms of MoveOverhead and a timer's grain), and not many
    // times more (a bound with room for a loaded machine, which still
    // tells "ponderhit starts the clock" from "it starts another ponder").
    let after = hit.elapsed();
    assert!(after >= Duration::from_millis(150), "{after:?}");
    assert!(after < 10 * SEC, "{after:?}");
    // stop ends a ponder search too, with a bestmove.
    e.send("go ponder movetime 50");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    bestmove(&mut e, PATIENCE);
}

#[test]
fn time_controls_are_honoured() {
    // On the search's own clock (the `time` of its last `info` line), not
    // the test's, which counts the pipes and the load around the engine.
    // Each upper bound is what losing on time would take (the clock
    // itself), at least 5x what the search plans to spend, so that it holds
    // on a loaded machine; the exact figures are the time plan's unit
    // tests. A fixed movetime is also a lower bound: the search never
    // stops before it (less the MoveOverhead), whatever the load.
    let _timing = timing();
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    for (smart, (go, min_ms, max_ms)) in ["true", "false"].into_iter().flat_map(|smart| {
        [
            // Planned 290 ms.
            ("go movetime 300", 250, 3000),
            // Planned at most 1000/30 ms soft, 100 ms hard.
            ("go wtime 1000 btime 1000", 0, 1000),
            // At most 240 ms.
            ("go p1time 5000 p2time 5000 p1inc 100 p2inc 100", 0, 5000),
            // x's own 300 ms clock (o's would plan half a minute and more).
            ("go wtime 300 btime 1000000", 0, 3000),
        ]
        .map(|c| (smart, c))
    }) {
        e.send(&format!("setoption name SmartTime value {smart}"));
        e.send(go);
        let (lines, _) = bestmove(&mut e, PATIENCE);
        let took = search_time(&lines);
        assert!(took >= Duration::from_millis(min_ms), "{go}: {took:?}");
        assert!(took < Duration::from_millis(max_ms), "{go}: {took:?}");
    }
}

/// On a ten-minute clock (about 20 s planned for a move), a position with
/// a single legal move, or one won at once, is answered at the first look
/// at the limits (SmartTime, on by default): by the search's own count of
/// iterations, not by how long the answer took.
#[test]
fn clock_search_with_nothing_to_choose_answers_at_once() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let (mut single, mut won) = (None, None);
    while single.is_none() || won.is_none() {
        let mut pos = Position::startpos();
        while !pos.is_over() {
            let moves = pos.legal_moves();
            if won.is_none() && pos.ply() > 20 && pos.winning_move().is_some() {
                won = Some(pos);
            } else if single.is_none() && moves.len() == 1 && pos.winning_move().is_none() {
                single = Some(pos);
            }
            pos.play(pos.random_move(&mut rng).unwrap());
        }
    }
    let mut e = Engine::start(&[]);
    for (pos, want) in [
        (single.unwrap(), single.unwrap().legal_moves()[0]),
        (won.unwrap(), won.unwrap().winning_move().unwrap()),
    ] {
        e.send(&format!("position fen {pos}"));
        e.send("go wtime 600000 btime 600000");
        let (lines, best) = bestmove(&mut e, PATIENCE);
        assert_eq!(best, want.to_string(), "{pos}: {lines:?}");
        let nodes = last_info(&lines, "nodes");
        assert!(nodes < 10_000, "{pos}: {nodes} iterations: {lines:?}");
    }
}

/// `Threads` far above the cores still keeps a 30 ms clock: no more
/// threads run than there are cores, and the one that watches the clock
/// is not starved. The bound is the clock itself, on the search's own
/// time, for the best of five moves: a loaded machine preempts the whole
/// engine for tens of milliseconds at a time (a median of five moves was
/// 31 ms under a load of 10 on 2 cores), but an engine that plans past its
/// clock, or whose clock thread starves behind 256 searchers, misses it
/// every time.
#[test]
fn many_threads_keep_a_short_clock() {
    let _timing = timing();
    let mut e = Engine::start(&[]);
    e.send("setoption name Threads value 256");
    e.send("position startpos moves e5");
    let mut took = Vec::new();
    for _ in 0..5 {
        e.send("go wtime 30 btime 30");
        let (lines, best) = bestmove(&mut e, PATIENCE);
        assert_ne!(best, "0000", "{lines:?}");
        took.push(search_time(&lines));
    }
    took.sort();
    assert!(took[0] < Duration::from_millis(30), "{took:?}");
}

#[test]
fn quit_and_end_of_input_mid_search() {
    let mut e = Engine::start(&[]);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("quit");
    assert_eq!(
        e.wait_exit(PATIENCE),
        Some(0),
        "quit ends a search and exits"
    );

    let mut e = Engine::start(&[]);
    e.send("go movetime 100000");
    std::thread::sleep(Duration::from_millis(100));
    e.close();
    assert_eq!(e.wait_exit(PATIENCE), Some(0), "end of input is quit");
    assert!(e.seen.is_empty() || e.seen.iter().all(|l| !l.contains("error")));

    let mut e = Engine::start(&[]);
    e.close();
    assert_eq!(e.wait_exit(PATIENCE), Some(0));
}

#[test]
fn helpers_for_people() {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves e5");
    e.send("d");
    let lines = e.until(PATIENCE, |l| l.starts_with("boards won by o"));
    assert!(
        lines.iter().any(|l| l == "5  . . . | * X * | . . .  5"),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l == "play on: the centre board"));
    assert_eq!(e.ask("moves"), "moves d4 d5 d6 e4 e6 f4 f5 f6");
    e.send("perft 2");
    let lines = e.until(PATIENCE, |l| l.starts_with("total "));
    assert_eq!(lines.last().unwrap(), "total 72");
    assert_eq!(lines.len(), 8 + 2);
    assert!(e.ask("help").starts_with("commands: "));
}

#[test]
fn bad_bytes_and_blank_lines() {
    let mut e = Engine::start(&[]);
    e.send("");
    e.send("   \t  ");
    e.send_bytes(b"\xff\xfe go\r\n");
    let answer = e.next_line(PATIENCE).unwrap();
    assert!(
        answer.starts_with("info string error: unknown command"),
        "{answer}"
    );
    e.send("isready\r");
    assert_eq!(e.next_line(PATIENCE).unwrap(), "readyok");
}

/// Thousands of random and mutated lines: afterwards the engine still
/// answers `isready` and a `go` gives a legal move.
#[test]
fn survives_a_stream_of_random_and_mutated_lines() {
    let corpus = [
        "uci",
        "ugi",
        "isready",
        "ucinewgame",
        "uginewgame",
        "setoption name Threads value 2",
        "setoption name Hash value 8",
        "setoption name MultiPV value 3",
        "setoption name Ponder value true",
        "setoption name Seed value 5",
        "setoption name Playout value uniform",
        "setoption name Clear Hash",
        "position startpos",
        "position startpos moves e5 e4 d1",
        "position fen 9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1 moves c3",
        "position fen x2o2o2/1x7/9/9/9/9/9/9/9 x 3 g9",
        "go nodes 500",
        "go movetime 20",
        "go wtime 100 btime 100 winc 1 binc 1",
        "go p1time 50 p2time 50",
        "go depth 2",
        "go infinite",
        "go ponder nodes 200",
        "go searchmoves e5 a1",
        "stop",
        "ponderhit",
        "query p1turn",
        "query gameover",
        "query result",
        "d",
        "moves",
        "perft 2",
        "help",
    ];
    let numbers = [
        "0",
        "1",
        "-1",
        "7",
        "100",
        "99999999999999999999",
        "abc",
        "",
        "3.5",
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20261129);
    let mut e = Engine::start(&[]);
    let mut sent = 0;
    // The readyok answers the stream is owed (one per isready).
    let mut readies = 0;
    while sent < 3000 {
        let base = corpus[rng.next_u32() as usize % corpus.len()];
        let mut words: Vec<String> = base.split(' ').map(String::from).collect();
        let line = match rng.next_u32() % 10 {
            0 => base.to_string(),
            1 => {
                // Drop a word.
                let i = rng.next_u32() as usize % words.len();
                words.remove(i);
                words.join(" ")
            }
            2 => {
                // Swap two words.
                let i = rng.next_u32() as usize % words.len();
                let j = rng.next_u32() as usize % words.len();
                words.swap(i, j);
                words.join(" ")
            }
            3 => {
                // Replace a word by a number-ish token.
                let i = rng.next_u32() as usize % words.len();
                words[i] = numbers[rng.next_u32() as usize % numbers.len()].to_string();
                words.join(" ")
            }
            4 => {
                // Truncate at a random byte.
                let cut = rng.next_u32() as usize % (base.len() + 1);
                base[..cut].to_string()
            }
            5 => {
                // Random printable bytes.
                let n = rng.next_u32() % 40;
                (0..n)
                    .map(|_| (32 + rng.next_u32() % 95) as u8 as char)
                    .collect()
            }
            6 => {
                // Random cells appended.
                let m = Move::from_index((rng.next_u32() % 81) as u8).unwrap();
                format!("{base} {m}")
            }
            7 => base.to_uppercase(),
            8 => format!("{base} {base}"),
            _ => {
                // Duplicate a word.
                let i = rng.next_u32() as usize % words.len();
                let w = words[i].clone();
                words.insert(i, w);
                words.join(" ")
            }
        };
        if line
            .split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("quit"))
        {
            continue;
        }
        if let [word] = line.split_whitespace().collect::<Vec<_>>()[..]
            && word.eq_ignore_ascii_case("isready")
        {
            readies += 1;
        }
        e.send(&line);
        sent += 1;
        // Drain output now and then so that the pipe never fills.
        while e.next_line(Duration::from_millis(0)).is_some() {}
    }
    e.send("stop");
    // `position` waits for a stopped search, which writes its bestmove
    // before it ends: after the readyok of this isready (the stream's own
    // isready lines are counted) no earlier bestmove can come, however far
    // behind a loaded machine is (a sleep here was not enough).
    e.send("position startpos moves e5 e4");
    e.send("isready");
    while e.seen.iter().filter(|l| *l == "readyok").count() <= readies {
        e.next_line(PATIENCE).expect("a readyok for every isready");
    }
    e.send("go nodes 2000");
    let (_, best) = bestmove(&mut e, PATIENCE);
    let pos = ultimo::notation::play_moves(&Position::startpos(), ["e5", "e4"]).unwrap();
    assert!(pos.is_legal(best.parse().unwrap()), "{best}");
    assert_eq!(e.ask("isready"), "readyok");
    let errors = e
        .seen
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .count();
    assert!(errors > 500, "most mutated lines are refused: {errors}");
}

/// Regression: an unknown 1 MB token was echoed back as a 1 MB error line.
/// Every error that quotes input quotes at most 40 characters of a token.
/// The protocol takes lines up to 64 KiB (a longer one gets its own error,
/// `an_overlong_line_gets_one_error_and_the_engine_goes_on`), so the token
/// is 60,000 bytes; the bot-arena dialects still get 1 MB.
#[test]
fn long_input_is_quoted_short_in_every_dialect() {
    let long = "y".repeat(60_000);
    let cut = format!("{}...", "y".repeat(40));
    let mut e = Engine::start(&[]);
    for line in [
        long.clone(),
        format!("go {long}"),
        format!("go movetime {long}"),
        format!("go searchmoves {long}"),
        format!("setoption name {long} value 1"),
        format!("setoption name Threads value {long}"),
        format!("setoption name Playout value {long}"),
        format!("query {long}"),
        format!("perft {long}"),
        format!("position {long}"),
        format!("position startpos moves {long}"),
        format!("position fen 9/9/9/9/9/9/9/9/9 x 1 {long}"),
    ] {
        let answer = e.ask(&line);
        assert!(
            answer.starts_with("info string error: ") && answer.contains(&cut),
            "{}: {}",
            &line[..20],
            &answer[..answer.len().min(200)]
        );
        assert!(answer.len() < 200, "{} bytes", answer.len());
    }
    assert_eq!(e.ask("isready"), "readyok");

    // The bot-arena dialects report on stderr.
    let long = "y".repeat(1 << 20);
    let (code, _, err) = run_within(&["riddles", "--hash", "16"], &format!("{long}\n"), PATIENCE);
    assert_eq!(code, 0);
    assert!(
        err.contains(&format!("cannot read '{cut}'")),
        "{}",
        err.len()
    );
    assert!(err.len() < 200, "{} bytes", err.len());
    let (code, _, err) = run_within(
        &["codingame", "--hash", "16"],
        &format!("{long}\n"),
        PATIENCE,
    );
    assert_eq!(code, 0);
    assert!(err.contains(&format!("got '{cut}'")), "{}", err.len());
    assert!(err.len() < 200, "{} bytes", err.len());
}

/// Regression: a time bank of 2^64-1 ms made `ultimo riddles` think for
/// ever; the bank now counts for at most the game's `timebank` setting.
/// And a huge `settings timebank` (24 hours, once capped) gave no move in a
/// minute (round 2, F5): no move takes more than 5 s now.
#[test]
fn riddles_answers_a_huge_time_bank_at_once() {
    let start = riddles_field(&[], &[]);
    let all = ["-1"; 9].join(",");
    for settings in [
        "settings timebank 10000\n",
        "",
        "settings timebank 99999999999999999999\n",
    ] {
        let input = format!(
            "{settings}settings time_per_move 500\nsettings your_botid 1\n\
             update game field {start}\nupdate game macroboard {all}\n\
             action move 18446744073709551615\n"
        );
        let (code, out, err) = run_within(&["riddles", "--hash", "16"], &input, PATIENCE);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("place_move "), "{out}");
        assert_eq!(err, "");
    }
}

/// Regression: CodinGame thinking times had no ceiling (2^64-1 ms made the
/// first turn last for ever); now longer than 24 hours is refused.
#[test]
fn codingame_refuses_a_huge_turn_time() {
    let mut turn = String::from("-1 -1\n81\n");
    for r in 0..9 {
        for c in 0..9 {
            turn.push_str(&format!("{r} {c}\n"));
        }
    }
    for flag in ["--first-ms", "--turn-ms"] {
        let args = ["codingame", "--hash", "16", flag, "18446744073709551615"];
        let (code, out, err) = run_within(&args, &turn, PATIENCE);
        assert_eq!(code, 2, "{out}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("ms is longer than the 86400000 ms (24 hours) allowed"),
            "{err}"
        );
    }
}

/// Times beyond any clock are taken as 24 hours, not refused, and the
/// search they start is stopped as usual.
#[test]
fn go_takes_huge_times_capped() {
    let mut e = Engine::start(&[]);
    for go in [
        "go wtime 99999999999999999999999 btime 1 winc 99999999999999999999999 binc 1",
        "go movetime 18446744073709551615",
        "go p1time 18446744073709551615 p2time 18446744073709551615 movestogo 1",
    ] {
        e.send(go);
        e.send("isready");
        let lines = e.until(PATIENCE, |l| l == "readyok");
        assert!(
            lines.iter().all(|l| !l.starts_with("info string error")),
            "{go}: {lines:?}"
        );
        e.send("stop");
        let (_, best) = bestmove(&mut e, PATIENCE);
        assert!(
            Position::startpos().is_legal(best.parse().unwrap()),
            "{best}"
        );
    }
}

/// Regression: `ultimo riddles` ignored a macroboard that contradicts the
/// field and could play outside the boards it allowed. Now it says so on
/// stderr and plays where the macroboard allows.
#[test]
fn riddles_follows_a_macroboard_that_contradicts_the_field() {
    // x (player 1) opened in the centre cell: by the field, o must answer
    // on the centre board; the referee's macroboard says the top-left.
    let field = riddles_field(&[(4, 4)], &[]);
    let top_left = "-1,0,0,0,0,0,0,0,0";
    let input = format!(
        "settings timebank 10000\nsettings time_per_move 100\nsettings your_botid 2\n\
         update game field {field}\nupdate game macroboard {top_left}\naction move 300\n"
    );
    let (code, out, err) = run_within(&["riddles", "--hash", "16"], &input, PATIENCE);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("warning: the macroboard's playable boards (top-left)"),
        "{err}"
    );
    let words: Vec<&str> = out.split_whitespace().collect();
    let (col, row): (u8, u8) = (words[1].parse().unwrap(), words[2].parse().unwrap());
    assert!(col < 3 && row < 3, "{out} is outside the top-left board");
}

/// Regression: `Threads 256` then `Hash 65536` was accepted (64 GiB on a
/// 24 GiB machine) while the other order was refused. Both orders now get
/// the same answer: Hash refused where the machine cannot hold 64 GiB,
/// both accepted where it can.
#[test]
fn threads_and_hash_are_checked_together_in_any_order() {
    let answers: Vec<Vec<String>> = [["Threads", "Hash"], ["Hash", "Threads"]]
        .iter()
        .map(|order| {
            let mut e = Engine::start(&[]);
            for name in order {
                let value = if *name == "Threads" { 256 } else { 65536 };
                e.send(&format!("setoption name {name} value {value}"));
            }
            e.send("isready");
            let lines = e.until(60 * SEC, |l| l == "readyok");
            // The figure of available memory varies from run to run.
            lines
                .iter()
                .filter(|l| l.contains("error"))
                .map(|l| l.split(':').take(2).collect::<Vec<_>>().join(":"))
                .collect()
        })
        .collect();
    assert_eq!(answers[0], answers[1]);
    for error in &answers[0] {
        assert_eq!(
            error,
            "info string error: hash of 65536 MiB is more than this machine can hold"
        );
    }
}

/// Regression: the RandomMove draws restarted only with the process, so an
/// engine process kept from game to game (as the match runner keeps them)
/// played other random games than a fresh one, and a sharded match with
/// RandomMove differed from the whole match.
#[test]
fn random_moves_repeat_after_a_new_game() {
    let mut e = Engine::start(&[]);
    e.send("setoption name RandomMove value true");
    let mut games = Vec::new();
    for _ in 0..2 {
        e.send("uginewgame");
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..6 {
            e.send(&format!("position startpos moves {}", moves.join(" ")));
            e.send("go nodes 10");
            let line = e.next_line(Duration::from_secs(30)).expect("a move");
            let best = line.strip_prefix("bestmove ").expect("bestmove");
            moves.push(best.to_string());
        }
        games.push(moves);
    }
    assert_eq!(games[0], games[1]);
}

/// The lines of one `go solve` up to its `bestmove`: (the last `info`
/// line with a score, the `info string solve result` line, the move).
fn solved(e: &mut Engine, go: &str) -> (String, String, String) {
    e.send(go);
    let (lines, best) = bestmove(e, 2 * PATIENCE);
    let find = |prefix: &str| {
        lines
            .iter()
            .rev()
            .find(|l| l.starts_with(prefix))
            .cloned()
            .unwrap_or_default()
    };
    (find("info depth"), find("info string solve result"), best)
}

#[test]
fn go_solve_reports_mate_a_proven_draw_and_a_loss() {
    let mut e = Engine::start(&[]);
    e.send("setoption name UCI_ShowWDL value true");
    // Win in one: i3 wins the bottom-right board and the game.
    e.send("position fen xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4");
    let (info, result, best) = solved(&mut e, "go solve");
    assert_eq!(best, "i3");
    assert!(info.contains(" score mate 1 wdl 1000 0 0 "), "{info}");
    assert!(info.ends_with(" pv i3"), "{info}");
    assert_eq!(result, "info string solve result win for x in 1");
    // A late position exhaustive search finds drawn (4 plies to the end).
    e.send(
        "position fen 2oo1xo2/x1xxx2o1/ox1x2oxo/oo2ox2x/xooxooox1/ox1xoxx1o/x1x1ooxxx/oxo1ox1x1/xooo1x2o x 28 e6",
    );
    let (info, result, _) = solved(&mut e, "go solve nodes 1000000");
    assert!(info.contains(" score cp 0 wdl 0 1000 0 "), "{info}");
    assert_eq!(result, "info string solve result draw for x in 4");
    // And one lost for o in 8 plies: its fourth move loses.
    e.send(
        "position fen xx1oox1xo/1oxoxo1o1/1oo1x1o2/1ox2xoxo/2oo1x1ox/xx1x1x1oo/ooxx2xxx/1o1oxx1ox/xxxoo3o o 27 b1",
    );
    let (info, result, best) = solved(&mut e, "go solve nodes 1000000");
    assert!(info.contains(" score mate -4 "), "{info}");
    assert!(info.contains(&format!(" pv {best} ")), "{info}");
    assert_eq!(result, "info string solve result loss for o in 8");
    // The engine searches as before afterwards.
    e.send("position startpos");
    e.send("go nodes 200");
    bestmove(&mut e, PATIENCE);
}

#[test]
fn go_solve_honours_stop_and_movetime_on_its_own_clock() {
    let _t = timing();
    let mut e = Engine::start(&[]);
    e.send("setoption name Hash value 16");
    e.send("position startpos");
    e.send("go solve infinite");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(e.ask("isready"), "readyok");
    // A go waits for the solve (and the lines after it behind it).
    e.send("go nodes 5");
    e.silent_for(Duration::from_millis(300));
    e.send("stop");
    let (lines, best) = bestmove(&mut e, PATIENCE);
    assert!(Position::startpos().is_legal(best.parse().unwrap()));
    let result = lines
        .iter()
        .find(|l| l.starts_with("info string solve result"));
    assert_eq!(
        result.map(String::as_str),
        Some("info string solve result unknown for x")
    );
    let (lines, _) = bestmove(&mut e, PATIENCE);
    assert!(
        lines.iter().all(|l| !l.contains("solve result")),
        "{lines:?}"
    );
    e.silent_for(Duration::from_millis(200));
    // movetime: on an idle machine the solver's own clock passes it by
    // well under 5 ms (median 0.5 ms over 15 solves of 20 ms, in the
    // closing note of issue 22); a busy machine preempts the solver inside
    // its clock checks, so the test only bounds the median of three
    // loosely (the table's set-up counts; pipes do not).
    for ms in [50, 300] {
        let mut took: Vec<Duration> = (0..3)
            .map(|_| {
                e.send(&format!("go solve movetime {ms}"));
                search_time(&bestmove(&mut e, PATIENCE).0)
            })
            .collect();
        took.sort();
        assert!(
            took[1] >= Duration::from_millis(ms - 5) && took[1] <= Duration::from_millis(ms + 250),
            "{ms} ms: {took:?}"
        );
    }
    // A clock: a twentieth of the time left (100 ms; loosely bounded as
    // above: a stress run saw 123 ms).
    e.send("go solve wtime 2000 btime 2000");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    assert!(
        search_time(&lines) <= Duration::from_millis(350),
        "{lines:?}"
    );
}

#[test]
fn go_solve_refuses_what_it_cannot_do() {
    let mut e = Engine::start(&[]);
    for (line, want) in [
        (
            "go solve depth 3",
            "go solve: depth is not allowed with solve",
        ),
        (
            "go solve ponder",
            "go solve: ponder is not allowed with solve",
        ),
        (
            "go solve searchmoves e5",
            "go solve: searchmoves is not allowed with solve",
        ),
    ] {
        assert_eq!(e.ask(line), format!("info string error: {want}"), "{line}");
    }
    // Nothing was started: a new search runs.
    e.send("go nodes 100");
    bestmove(&mut e, PATIENCE);
}

/// A command line past the 64 KiB cap gets one error line, and the engine
/// goes on (the line is skipped in pieces, never held whole).
#[test]
fn an_overlong_line_gets_one_error_and_the_engine_goes_on() {
    let mut e = Engine::start(&[]);
    let mut line = b"position startpos moves".to_vec();
    line.extend(std::iter::repeat_n(b" e5".as_slice(), 100_000).flatten());
    line.push(b'\n');
    e.send_bytes(&line);
    assert_eq!(
        e.ask("isready"),
        "info string error: line longer than 65536 bytes ignored (the most a command may have)"
    );
    assert_eq!(e.next_line(PATIENCE).as_deref(), Some("readyok"));
    // The position was not touched.
    assert_eq!(fen_of(&mut e), "9/9/9/9/9/9/9/9/9 x 1 0000");
}

/// The `info` and `bestmove` lines of `go nodes 3000` from the start after
/// `setup` commands, with the machine-dependent figures (`time`, `nps`)
/// taken out.
fn fixed_search(setup: &[&str]) -> Vec<String> {
    let mut e = Engine::start(&[]);
    for line in setup {
        e.send(line);
    }
    e.send("position startpos moves e5 e4");
    e.send("go nodes 3000");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    lines
        .iter()
        .map(|l| {
            let mut words = l.split_whitespace().peekable();
            let mut kept = Vec::new();
            while let Some(w) = words.next() {
                if w == "time" || w == "nps" {
                    words.next();
                } else {
                    kept.push(w);
                }
            }
            kept.join(" ")
        })
        .collect()
}

#[test]
fn limit_strength_off_changes_nothing() {
    let plain = fixed_search(&[]);
    let off = fixed_search(&[
        "setoption name UCI_Elo value 300",
        "setoption name UCI_LimitStrength value false",
    ]);
    assert_eq!(plain, off);
    assert!(plain.last().unwrap().starts_with("bestmove "), "{plain:?}");
}

#[test]
fn a_limited_engine_plays_its_levels_nodes_within_the_time() {
    let mut e = Engine::start(&[]);
    e.send("uci");
    let lines = e.until(PATIENCE, |l| l == "uciok");
    let elo = lines
        .iter()
        .find(|l| l.starts_with("option name UCI_Elo type spin"))
        .expect("UCI_Elo is listed");
    let words: Vec<&str> = elo.split_whitespace().collect();
    let at = |key: &str| words[words.iter().position(|w| *w == key).unwrap() + 1];
    let (min, max): (u32, u32) = (at("min").parse().unwrap(), at("max").parse().unwrap());
    assert!(lines.contains(&"option name UCI_LimitStrength type check default false".to_string()));
    assert_eq!(
        e.ask(&format!("setoption name UCI_Elo value {}", max + 1)),
        format!(
            "info string error: option UCI_Elo must be between {min} and {max}, got {}",
            max + 1
        )
    );
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {min}"));
    // Every go plays the level's few nodes, whatever nodes it is given,
    // and each move is legal.
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    for _ in 0..12 {
        if pos.outcome().is_some() {
            break;
        }
        let list: Vec<String> = moves.iter().map(|m: &Move| m.to_string()).collect();
        e.send(&format!("position startpos moves {}", list.join(" ")));
        e.send("go nodes 1000000");
        let (lines, best) = bestmove(&mut e, PATIENCE);
        assert!(last_info(&lines, "nodes") <= 10, "{lines:?}");
        let mv: Move = best.parse().unwrap();
        pos.check(mv).unwrap_or_else(|err| panic!("{best}: {err}"));
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    // A time shorter than the level needs ends it sooner: the top level
    // (4096 nodes) stops at 1 ms with fewer (judged by its nodes, not by
    // a clock, so that a busy machine cannot fail it).
    e.send(&format!("setoption name UCI_Elo value {max}"));
    e.send("position startpos");
    e.send("go movetime 1");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    assert!(last_info(&lines, "nodes") < 4096, "{lines:?}");
    // go infinite still waits for stop.
    e.send("go infinite");
    let early: Vec<String> = std::iter::from_fn(|| e.next_line(Duration::from_millis(300)))
        .take(20)
        .collect();
    assert!(!early.iter().any(|l| is_bestmove(l)), "{early:?}");
    e.send("stop");
    bestmove(&mut e, PATIENCE);
}

#[test]
fn an_elo_beyond_the_games_levels_says_what_it_plays() {
    let mut e = Engine::start(&["--game", "super15"]);
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1500");
    e.send("position startpos");
    e.send("go nodes 1");
    let (lines, _) = bestmove(&mut e, PATIENCE);
    assert!(
        lines[0].starts_with(
            "info string UCI_Elo 1500 is beyond the levels of super15: playing at Elo "
        ),
        "{lines:?}"
    );
}
