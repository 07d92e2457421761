//! Super 1 al 5 through the real binary: the protocol loop with
//! `--game super15` and `setoption name Game`, and the tools' `--game`.

mod common;

use std::time::Duration;

use common::{Engine, run};
use ultimo::game::{Notation, Outcome, Player};
use ultimo::super15::Position;
use ultimo::super15::notation::play_moves;

/// How long a test waits for an answer that should come at once: only a
/// hang takes this long (the machine may be loaded).
const PATIENCE: Duration = Duration::from_secs(30);

/// The legal moves the engine lists, in its order.
fn listed_moves(e: &mut Engine) -> Vec<String> {
    let line = e.ask("moves");
    let words: Vec<String> = line.split_whitespace().map(String::from).collect();
    assert_eq!(words[0], "moves", "{line}");
    words[1..].to_vec()
}

#[test]
fn ugi_lists_the_games_with_the_current_one_first() {
    let mut e = Engine::start(&["--game", "super15"]);
    e.send("ugi");
    let lines = e.until(PATIENCE, |l| l == "ugiok");
    assert!(
        lines.contains(&"option name Game type combo default super15 var super15 var uttt".into()),
        "{lines:?}"
    );
    let mut e = Engine::start(&[]);
    e.send("ugi");
    let lines = e.until(PATIENCE, |l| l == "ugiok");
    assert!(
        lines.contains(&"option name Game type combo default uttt var uttt var super15".into()),
        "{lines:?}"
    );
}

#[test]
fn whole_game_through_the_protocol() {
    let mut e = Engine::start(&["--game", "super15"]);
    e.send("setoption name Hash value 16");
    assert_eq!(e.ask("isready"), "readyok");
    let mut pos = Position::startpos();
    let mut played: Vec<String> = Vec::new();
    loop {
        let position = if played.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", played.join(" "))
        };
        e.send(&position);
        let over = e.ask("query gameover");
        assert_eq!(over == "response true", pos.outcome().is_some(), "{over}");
        if pos.outcome().is_some() {
            break;
        }
        let turn = e.ask("query p1turn");
        assert_eq!(turn == "response true", pos.side_to_move() == Player::X);
        let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        legal.sort();
        assert_eq!(listed_moves(&mut e), legal);
        e.send("go nodes 40");
        let lines = e.until(PATIENCE, |l| l.starts_with("bestmove "));
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        assert!(legal.iter().any(|m| m == best), "{best} not in {legal:?}");
        pos.try_play(best.parse().unwrap()).unwrap();
        played.push(best.to_string());
        assert!(played.len() <= 300, "the game outlasts its ply limit");
    }
    let want = match pos.outcome().unwrap() {
        Outcome::Win(Player::X) => "response p1win",
        Outcome::Win(Player::O) => "response p2win",
        Outcome::Draw => "response draw",
    };
    assert_eq!(e.ask("query result"), want);
    assert_eq!(listed_moves(&mut e), Vec::<String>::new());
    e.send("d");
    let lines = e.until(PATIENCE, |l| l.starts_with("ply "));
    assert!(lines.contains(&format!("fen {pos}")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("result: ")), "{lines:?}");
    e.send("go nodes 40");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove "));
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
}

#[test]
fn positions_and_errors_are_the_games() {
    let mut e = Engine::start(&["--game", "super15"]);
    let after = play_moves(&Position::startpos(), ["e2h5", "e7b4"]).unwrap();
    e.send(&format!("position fen {after}"));
    e.send("d");
    let lines = e.until(PATIENCE, |l| l.starts_with("ply "));
    assert!(lines.contains(&format!("fen {after}")), "{lines:?}");
    // A UTTT move is no move here, and changes nothing.
    e.send("position startpos moves e5");
    assert_eq!(
        e.next_line(PATIENCE).unwrap(),
        "info string error: 'e5' is not a move (expected two cells like e2e3: files a-j, ranks 1-8)"
    );
    e.send("position startpos moves e2e3 e7e4");
    let line = e.next_line(PATIENCE).unwrap();
    assert!(
        line.starts_with("info string error: move 2 (e7e4) is illegal"),
        "{line}"
    );
    e.send("go searchmoves e2e4");
    let line = e.next_line(PATIENCE).unwrap();
    assert!(
        line.starts_with("info string error: go searchmoves: e2e4 is illegal"),
        "{line}"
    );
    e.send("d");
    let lines = e.until(PATIENCE, |l| l.starts_with("ply "));
    assert!(lines.contains(&format!("fen {after}")), "{lines:?}");
}

#[test]
fn setoption_game_switches_and_keeps_the_other_options() {
    let mut e = Engine::start(&[]);
    e.send("setoption name RandomMove value true");
    e.send("setoption name Game value chess");
    assert_eq!(
        e.next_line(PATIENCE).unwrap(),
        "info string error: setoption: Game must be one of uttt super15, got 'chess'"
    );
    e.send("setoption name Game value Super15");
    e.send("position startpos");
    let legal = listed_moves(&mut e);
    assert_eq!(legal.len(), 44);
    // RandomMove survived the switch: `go` answers at once with a legal move.
    e.send("go infinite");
    let best = e.next_line(PATIENCE).unwrap();
    let best = best.strip_prefix("bestmove ").unwrap();
    assert!(legal.iter().any(|m| m == best), "{best}");
    e.send("setoption name Game value uttt");
    assert_eq!(listed_moves(&mut e).len(), 81);
}

#[test]
fn random_moves_are_legal_and_varied() {
    let mut e = Engine::start(&["--game", "super15"]);
    e.send("setoption name RandomMove value true");
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        e.send("position startpos moves e2e3");
        e.send("go nodes 1000");
        let line = e.next_line(PATIENCE).unwrap();
        let best = line.strip_prefix("bestmove ").unwrap().to_string();
        let pos = Position::startpos().play_moves(["e2e3"]).unwrap();
        assert!(pos.check(best.parse().unwrap()).is_ok(), "{best}");
        seen.insert(best);
    }
    assert!(seen.len() > 5, "{seen:?}");
}

#[test]
fn perft_of_super15() {
    let (code, out, err) = run(&["perft", "3", "--game", "super15"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("total 105584"));
    let (code, out, _) = run(
        &[
            "perft", "2", "--game", "super15", "--moves", "e2e3", "--divide",
        ],
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 44 + 2);
    let (code, _, err) = run(&["perft", "1", "--game", "super15", "--moves", "e5"], "");
    assert_eq!(code, 2);
    assert!(err.contains("'e5' is not a move"), "{err}");
}

/// Regression (hostile input round 2, Z3): `perft 8` in Super 1 al 5 was
/// taken, would run for days and blocked `isready`, `stop` and `quit`. The
/// protocol now takes depth 1-5 in this game (seconds from the start).
#[test]
fn protocol_perft_refuses_depths_that_would_take_hours() {
    let mut e = Engine::start(&["--game", "super15"]);
    for depth in [6, 8] {
        let line = e.ask(&format!("perft {depth}"));
        assert_eq!(
            line,
            format!("info string error: perft: depth must be 1-5 in super15, got {depth}")
        );
    }
    e.send("isready");
    e.until(PATIENCE, |l| l == "readyok");
    e.send("perft 2");
    let lines = e.until(PATIENCE, |l| l.starts_with("total "));
    assert_eq!(lines.last().unwrap(), "total 1934");
}
