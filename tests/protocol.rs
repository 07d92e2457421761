//! The protocol loop, driven through the real binary.

mod common;

use std::time::{Duration, Instant};
use ultimo::game::{Outcome, Player};

use common::Engine;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use ultimo::rules::{Move, Position};

const SEC: Duration = Duration::from_secs(1);

fn is_bestmove(line: &str) -> bool {
    line.starts_with("bestmove ")
}

/// The FEN `d` reports.
fn fen_of(e: &mut Engine) -> String {
    e.send("d");
    let lines = e.until(5 * SEC, |l| l.starts_with("boards won by o"));
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

#[test]
fn handshake_lists_options() {
    for (hello, ok) in [("uci", "uciok"), ("ugi", "ugiok"), ("UGI", "ugiok")] {
        let mut e = Engine::start(&[]);
        e.send(hello);
        let lines = e.until(5 * SEC, |l| l == ok);
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
fn whole_game_through_the_protocol() {
    let mut e = Engine::start(&[]);
    e.send("ugi");
    e.until(5 * SEC, |l| l == "ugiok");
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
        let (lines, best) = bestmove(&mut e, 10 * SEC);
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
    let (_, best) = bestmove(&mut e, 5 * SEC);
    assert_eq!(best, "0000");
    e.send("quit");
    assert_eq!(e.wait_exit(5 * SEC), Some(0));
}

#[test]
fn info_lines_follow_uci_field_order() {
    let mut e = Engine::start(&[]);
    e.send("setoption name MultiPV value 3");
    e.send("position startpos moves e5");
    e.send("go nodes 20000");
    let (lines, best) = bestmove(&mut e, 10 * SEC);
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
    e.send("go movetime 5000");
    let start = Instant::now();
    let (lines, best) = bestmove(&mut e, 10 * SEC);
    assert_eq!(best, "i9");
    assert!(start.elapsed() < 2 * SEC, "a proven win is played at once");
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
    let (lines, _) = bestmove(&mut e, 10 * SEC);
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
    for (line, want) in [
        ("go nodes 5", "a search is already running"),
        ("position startpos moves e5", "not allowed during a search"),
        (
            "setoption name Threads value 2",
            "not allowed during a search",
        ),
        ("ucinewgame", "not allowed during a search"),
        ("perft 2", "not allowed during a search"),
    ] {
        let answer = e.ask(line);
        assert!(answer.contains(want), "{line} -> {answer}");
    }
    // Infinite: no bestmove until stop, then exactly one.
    e.silent_for(Duration::from_millis(300));
    let stopped = Instant::now();
    e.send("stop");
    let (_, best) = bestmove(&mut e, 5 * SEC);
    assert!(stopped.elapsed() < Duration::from_millis(500));
    assert!(Position::startpos().is_legal(best.parse().unwrap()));
    e.silent_for(Duration::from_millis(200));
    // stop without a search is ignored; a position right after stop works.
    e.send("stop");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    e.send("stop");
    e.send("position startpos moves e5");
    bestmove(&mut e, 5 * SEC);
    assert_eq!(fen_of(&mut e), "9/9/9/9/4x4/9/9/9/9 o 1 e5");
}

#[test]
fn ponder_and_ponderhit() {
    let mut e = Engine::start(&[]);
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e5");
    e.send("go nodes 20000");
    let (lines, _) = bestmove(&mut e, 10 * SEC);
    let last = lines.last().unwrap();
    assert!(last.contains(" ponder "), "{last}");
    e.send("position startpos moves e5 e4");
    e.send("go ponder movetime 200");
    e.silent_for(Duration::from_millis(400));
    let hit = Instant::now();
    e.send("ponderhit");
    bestmove(&mut e, 5 * SEC);
    let after = hit.elapsed();
    assert!(after >= Duration::from_millis(150), "{after:?}");
    assert!(after < Duration::from_millis(1500), "{after:?}");
    // stop ends a ponder search too, with a bestmove.
    e.send("go ponder movetime 50");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    bestmove(&mut e, 5 * SEC);
}

#[test]
fn time_controls_are_honoured() {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    for (go, max_ms) in [
        ("go movetime 300", 600),
        ("go wtime 1000 btime 1000", 700),
        ("go p1time 500 p2time 500 p1inc 100 p2inc 100", 600),
        ("go wtime 30 btime 5000", 200),
    ] {
        let start = Instant::now();
        e.send(go);
        bestmove(&mut e, 5 * SEC);
        let took = start.elapsed();
        assert!(took < Duration::from_millis(max_ms), "{go}: {took:?}");
    }
}

#[test]
fn quit_and_end_of_input_mid_search() {
    let mut e = Engine::start(&[]);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("quit");
    assert_eq!(
        e.wait_exit(2 * SEC),
        Some(0),
        "quit ends a search and exits"
    );

    let mut e = Engine::start(&[]);
    e.send("go movetime 100000");
    std::thread::sleep(Duration::from_millis(100));
    e.close();
    assert_eq!(e.wait_exit(2 * SEC), Some(0), "end of input is quit");
    assert!(e.seen.is_empty() || e.seen.iter().all(|l| !l.contains("error")));

    let mut e = Engine::start(&[]);
    e.close();
    assert_eq!(e.wait_exit(2 * SEC), Some(0));
}

#[test]
fn helpers_for_people() {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves e5");
    e.send("d");
    let lines = e.until(5 * SEC, |l| l.starts_with("boards won by o"));
    assert!(
        lines.iter().any(|l| l == "5  . . . | * X * | . . .  5"),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l == "play on: the centre board"));
    assert_eq!(e.ask("moves"), "moves d4 d5 d6 e4 e6 f4 f5 f6");
    e.send("perft 2");
    let lines = e.until(5 * SEC, |l| l.starts_with("total "));
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
    let answer = e.next_line(5 * SEC).unwrap();
    assert!(
        answer.starts_with("info string error: unknown command"),
        "{answer}"
    );
    e.send("isready\r");
    assert_eq!(e.next_line(5 * SEC).unwrap(), "readyok");
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
        e.send(&line);
        sent += 1;
        // Drain output now and then so that the pipe never fills.
        while e.next_line(Duration::from_millis(0)).is_some() {}
    }
    e.send("stop");
    e.send("isready");
    e.until(30 * SEC, |l| l == "readyok");
    // Any search still pending finishes after the stop.
    e.send("stop");
    std::thread::sleep(Duration::from_millis(200));
    while e.next_line(Duration::from_millis(50)).is_some() {}
    e.send("position startpos moves e5 e4");
    e.send("go nodes 2000");
    let (_, best) = bestmove(&mut e, 30 * SEC);
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
