//! `ultimo play` and `ultimo analyze` through the real binary.

mod common;

use std::time::Duration;

use common::{Engine, run};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use ultimo::rules::{Move, Position};

/// How long to wait for a line before the test fails. Only a hung program
/// reaches it, so it is generous: a loaded 2-core machine running other
/// tests must never hit it (a line normally comes in milliseconds).
const WAIT: Duration = Duration::from_secs(120);

/// How long the program may take to exit after the game ends.
const EXIT_WAIT: Duration = Duration::from_secs(60);

/// Plays a whole game through a pipe as `side`, answering each turn with a
/// random legal move, and checks every line the program writes.
fn scripted_game(side: &str, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut e = Engine::start(&[
        "play",
        "--side",
        side,
        "--nodes",
        "300",
        "--hash",
        "16",
        "--threads",
        "1",
    ]);
    let mut pos = Position::startpos();
    let mut bad_inputs_sent = false;
    loop {
        let line = e.next_line(WAIT).expect("the game goes on");
        assert!(!line.contains('\x1b'), "no colours through a pipe");
        if let Some(rest) = line.strip_prefix("Ultimo plays ") {
            let m: Move = rest.split_whitespace().next().unwrap().parse().unwrap();
            pos.try_play(m).expect("the engine plays legal moves");
        } else if line.starts_with("Your move") {
            if !bad_inputs_sent {
                // Mistakes get a message and the game goes on.
                e.send("k9");
                let answer = e.next_line(WAIT).unwrap();
                assert!(answer.contains("neither a move nor a command"), "{answer}");
                if let Some(illegal) = (0..81u8)
                    .filter_map(Move::from_index)
                    .find(|&m| !pos.is_legal(m))
                {
                    e.send(&illegal.to_string());
                    let answer = e.next_line(WAIT).unwrap();
                    assert!(answer.contains("is not possible"), "{answer}");
                }
                e.send("help");
                assert!(e.next_line(WAIT).unwrap().contains("undo"));
                e.send("hint");
                let hint = e.next_line(WAIT).unwrap();
                let hinted: Move = hint["Hint: ".len()..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(pos.is_legal(hinted), "{hint}");
                bad_inputs_sent = true;
            }
            let moves = pos.legal_moves();
            let m = moves[rng.next_u32() as usize % moves.len()];
            e.send(&m.to_string());
            assert_eq!(e.next_line(WAIT).unwrap(), format!("You play {m}"));
            pos.play(m);
        } else if line.starts_with("Game over: ") {
            assert!(pos.is_over(), "{line} but {pos}");
            break;
        }
    }
    assert_eq!(e.wait_exit(EXIT_WAIT), Some(0));
}

#[test]
fn play_a_whole_game_through_a_pipe() {
    scripted_game("x", 1);
    scripted_game("o", 2);
}

#[test]
fn play_undo_and_quit() {
    let (code, out, _) = run(
        &["play", "--nodes", "200", "--hash", "16", "--threads", "1"],
        "e5\nundo\nundo\nboard\nquit\n",
    );
    assert_eq!(code, 0);
    assert!(out.contains("You play e5"));
    assert!(out.contains("Took back your last move."));
    assert!(out.contains("Nothing to take back."));
    assert!(out.trim_end().ends_with("Bye."));
    // End of input leaves the game unfinished, without an error.
    let (code, out, _) = run(
        &["play", "--nodes", "200", "--hash", "16", "--threads", "1"],
        "e5\n",
    );
    assert_eq!(code, 0);
    assert!(out.contains("Input ended"));
}

#[test]
fn play_saves_its_games_in_pgn() {
    let dir = std::env::temp_dir().join(format!("ultimo-play-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.pgn");
    let name = path.to_str().unwrap();
    let args = [
        "play",
        "--nodes",
        "200",
        "--hash",
        "16",
        "--threads",
        "1",
        "--pgnout",
        name,
    ];
    let (code, out, err) = run(&args, "e5\nquit\n");
    assert_eq!(code, 0, "{err}");
    let reply = out
        .lines()
        .find_map(|l| l.strip_prefix("Ultimo plays "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("a reply")
        .to_string();
    assert!(
        out.ends_with(&format!("Moves: 1. e5 {reply} *\nBye.\n")),
        "{out}"
    );
    // A second game from a FEN, as o, is appended.
    let fen = "9/9/9/9/4x4/9/9/9/9 o 1 e5";
    let mut second = args.to_vec();
    second.extend(["--side", "o", "--fen", fen]);
    let (code, out, err) = run(&second, "e4\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nMoves: 1... e4 "), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    let games = ultimo::pgn::read(&text, name).unwrap();
    assert_eq!(games.len(), 2, "{text}");
    assert_eq!(games[0].tag("White"), Some("Human"));
    assert_eq!(games[0].tag("Termination"), Some("unterminated"));
    assert_eq!(games[1].tag("White"), Some("Ultimo"));
    assert_eq!(games[1].tag("FEN"), Some(fen));
    for game in &games {
        let replayed = ultimo::pgn::Replayed::<Position>::new(game, name).unwrap();
        assert!(replayed.moves.len() >= 2, "{text}");
    }
    assert!(text.contains(&format!("1. e5 {reply} {{")), "{text}");
    // A file that cannot be written is refused before the game.
    let bad = dir.to_str().unwrap();
    let (code, out, err) = run(&["play", "--pgnout", bad], "e5\n");
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: cannot write to {bad}: ")),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_rejects_bad_arguments() {
    for args in [
        &["play", "--side", "z"][..],
        &["play", "--time", "-1"],
        &["play", "--nodes", "0"],
        &["play", "--fen", "9/9 x 1 0000"],
    ] {
        let (code, _, err) = run(args, "");
        assert_ne!(code, 0, "{args:?}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The rows of the analysis table (between its header and the nodes line).
fn table_rows(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.contains(" visits "))
        .skip(1)
        .take_while(|l| !l.starts_with("nodes "))
        .collect()
}

#[test]
fn analyze_reports_a_forced_win() {
    let fen = "xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3";
    let (code, out, err) = run(
        &[
            "analyze",
            "--fen",
            fen,
            "--nodes",
            "200000",
            "--multipv",
            "3",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fen xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"));
    let best = table_rows(&out)[0];
    assert!(
        best.contains("i9") && best.contains("mate 1") && best.contains("wins in 1"),
        "{out}"
    );
    assert!(out.lines().last().unwrap().starts_with("nodes "));
}

#[test]
fn analyze_a_quiet_position_and_bad_input() {
    let (code, out, _) = run(
        &[
            "analyze",
            "--moves",
            "e5",
            "e4",
            "--nodes",
            "20000",
            "--multipv",
            "2",
        ],
        "",
    );
    assert_eq!(code, 0);
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '2']))
        .collect();
    assert!(rows.len() >= 2, "{out}");
    assert!(!out.contains('\x1b'));
    let (code, _, err) = run(&["analyze", "--moves", "e5", "a1"], "");
    assert_eq!(code, 2);
    assert!(err.contains("must be on the centre board"), "{err}");
}

/// Through a pipe there are no escape codes, even with a colour terminal
/// named in TERM and NO_COLOR unset: neither colours nor the live redraw.
#[test]
fn no_escape_codes_through_a_pipe_whatever_the_environment() {
    for args in [
        &[
            "analyze",
            "--moves",
            "e5",
            "--nodes",
            "3000",
            "--hash",
            "16",
            "--threads",
            "1",
        ][..],
        &["play", "--nodes", "200", "--hash", "16", "--threads", "1"],
    ] {
        let out = std::process::Command::new(common::BIN)
            .args(args)
            .env_remove("NO_COLOR")
            .env("TERM", "xterm-256color")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run ultimo");
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert!(!out.stdout.contains(&0x1b), "{args:?}");
    }
}
