//! `ultimo solve` as people run it: the result line, the line, JSON, the
//! limits and bad input.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_ultimo");

/// x has won the top-left and the centre boards and is sent to the
/// bottom-right one, where i3 wins it and the game.
const WIN_IN_ONE: &str = "xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4";

fn solve(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("solve")
        .args(["--hash", "4"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("ultimo runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn proves_a_win_and_ends_with_the_result() {
    let o = solve(&["--fen", WIN_IN_ONE]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last(), Some(&"result win for x in 1"), "{out}");
    assert_eq!(lines[lines.len() - 2], "pv i3", "{out}");
    // The board comes first.
    assert!(out.contains("fen xxx6/1o1o1o3"), "{out}");
}

#[test]
fn proves_a_loss() {
    // A late position that exhaustive minimax also finds lost for o.
    let o = solve(&[
        "--fen",
        "oxox2o1x/1x2xox2/1xxo1xx1x/xo2oooxo/oox2xoxo/xxxxoxxox/oxo6/x1oooxooo/2ox2o2 o 27 b4",
        "--nodes",
        "1000000",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("result loss for o in "), "{out}");
}

#[test]
fn json_has_the_result() {
    let o = solve(&["--fen", WIN_IN_ONE, "--json"]);
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["result"], "win");
    assert_eq!(v["side"], "x");
    assert_eq!(v["plies"], 1);
    assert_eq!(v["pv"], serde_json::json!(["i3"]));
    assert_eq!(v["game"], "uttt");
}

#[test]
fn a_node_limit_leaves_it_unknown() {
    let o = solve(&["--nodes", "2000"]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert_eq!(out.lines().last(), Some("result unknown for x"), "{out}");
    assert!(out.contains("nodes 2000 "), "{out}");
}

#[test]
fn a_finished_game_is_its_result() {
    let over =
        "oxo1xooxx/xo1oooo2/xxo3oo1/oo1xxx2x/xo2o1xo1/1xo1oxoxo/1xx5x/xx1xxx1ox/o1xo1ooox x 28 a9";
    let o = solve(&["--fen", over]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).lines().last(), Some("result loss for x in 0"));
}

#[test]
fn super15_positions_are_solved_too() {
    let o = solve(&["--game", "super15", "--nodes", "3000", "--json"]);
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["game"], "super15");
    assert_eq!(v["nodes"], 3000);
}

#[test]
fn bad_input_is_one_error_line() {
    for args in [
        &["--fen", "9/9/9 x 1 0000"][..],
        &["--moves", "e5", "e5"],
        &["--hash", "0"],
        &["--threads", "0"],
        &["--time", "-1"],
    ] {
        let o = solve(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
