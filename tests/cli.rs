//! The command line: help, errors, perft and bench (text and JSON), --version, completions and man pages, through the real binary.

mod common;

use std::time::Duration;

use common::run;

#[test]
fn help_lists_the_subcommands() {
    let (code, out, _) = run(&["--help"], "");
    assert_eq!(code, 0);
    for word in ["perft", "bench", "protocol"] {
        assert!(out.contains(word), "{word} missing from:\n{out}");
    }
    let (code, out, _) = run(&["perft", "--help"], "");
    assert_eq!(code, 0);
    assert!(out.contains("--divide") && out.contains("--fen") && out.contains("--moves"));
}

#[test]
fn perft_counts_and_divides() {
    let (code, out, _) = run(&["perft", "4"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last(), Some(&"total 55080"));
    assert!(lines[lines.len() - 2].contains("leaves/s"));

    let (code, out, _) = run(&["perft", "2", "--moves", "e5", "e4", "--divide"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9 + 2);
    assert_eq!(lines.last(), Some(&"total 78"));

    let (code, out, _) = run(&["perft", "1", "--fen", "9/9/9/9/4x4/9/9/9/9 o 1 e5"], "");
    assert_eq!(code, 0);
    assert!(out.ends_with("total 8\n"));
}

#[test]
fn perft_rejects_bad_input_without_panicking() {
    for args in [
        &["perft", "x"][..],
        &["perft", "-1"],
        &["perft", "82"],
        &["perft"],
        &["perft", "2", "--fen", "9/9/9 x 1 0000"],
        &["perft", "2", "--fen", "9/9/9/9/9/9/9/9/9 q 1 0000"],
        &["perft", "2", "--moves", "e5", "a1"],
        &["perft", "2", "--moves", "k5"],
    ] {
        let (code, out, err) = run(args, "");
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains("error"), "{args:?}: {err}");
    }
    let (_, _, err) = run(&["perft", "2", "--moves", "e5", "a1"], "");
    assert!(
        err.contains("move 2 (a1) is illegal: the move must be on the centre board"),
        "{err}"
    );
    let (_, _, err) = run(&["perft", "2", "--fen", "9/9/9 x 1 0000"], "");
    assert!(err.contains("bad FEN"), "{err}");
    // Long input is echoed shortened.
    let long = "9/".repeat(200);
    let (code, _, err) = run(&["perft", "2", "--fen", &long], "");
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: bad FEN '{}...': ", &long[..40])),
        "{err}"
    );
    assert!(err.len() < 200, "{err}");
    let (code, _, err) = run(&["play", "--side", &long], "");
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("'{}...' is not a side", &long[..40])),
        "{err}"
    );
}

/// The bench's node count is a checksum of the search's behaviour: it
/// changes only when the search changes (then update it here, and say why
/// in the commit).
#[test]
fn bench_node_count_is_pinned() {
    let (code, out, _) = run(&["bench"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), ultimo::cli::bench::POSITIONS.len() + 2);
    assert_eq!(lines[0], "eval playout", "{out}");
    let last: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    assert_eq!(last.len(), 4);
    assert_eq!((last[1], last[3]), ("nodes", "nps"));
    assert_eq!(last[0], "382994", "bench node count changed:\n{out}");
    // The same run as JSON.
    let (code, json, err) = run(&["bench", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["nodes"], 382994, "{json}");
    assert_eq!(
        (&v["game"], &v["eval"], &v["net"]),
        (&"uttt".into(), &"playout".into(), &serde_json::Value::Null)
    );
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), ultimo::cli::bench::POSITIONS.len());
    assert_eq!(positions[0]["fen"], ultimo::cli::bench::POSITIONS[0]);
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        positions[0]["bestmove"],
        row[row.iter().position(|w| *w == "bestmove").unwrap() + 1]
    );
    assert!(v["nps"].as_u64().unwrap() > 0, "{json}");
}

#[test]
fn perft_as_json() {
    let (code, text, err) = run(&["perft", "3", "--divide", "--moves", "e5"], "");
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = run(&["perft", "3", "--divide", "--moves", "e5", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let total = text.lines().last().unwrap().strip_prefix("total ").unwrap();
    assert_eq!(v["total"].to_string(), total);
    assert_eq!(v["depth"], 3);
    assert_eq!(v["fen"], "9/9/9/9/4x4/9/9/9/9 o 1 e5");
    let divide = v["divide"].as_array().unwrap();
    assert_eq!(divide.len(), 8);
    assert_eq!(
        format!(
            "{} {}",
            divide[0]["move"].as_str().unwrap(),
            divide[0]["leaves"]
        ),
        text.lines().next().unwrap()
    );
}

/// With the net at the leaves the bench is just as repeatable: two runs
/// count the same nodes.
#[test]
fn bench_with_the_net_is_deterministic() {
    let (code, first, err) = run(&["bench", "--eval", "net"], "");
    assert_eq!(code, 0, "{err}");
    let version = ultimo::net::Net::builtin().version();
    assert!(
        first.starts_with(&format!("eval net {version}\n")),
        "{first}"
    );
    let (_, second, _) = run(&["bench", "--eval", "net"], "");
    let nodes = |out: &str| {
        out.lines()
            .last()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(nodes(&first), nodes(&second));
    // The same moves and scores too (times and speed differ).
    let moves = |out: &str| -> Vec<String> {
        let lines: Vec<&str> = out.lines().collect();
        lines[..lines.len() - 1]
            .iter()
            .filter_map(|l| l.split(" time ").next().map(str::to_owned))
            .collect()
    };
    assert_eq!(moves(&first), moves(&second));
}

/// `--time 0` is refused with a message that states the rule it breaks:
/// 0 itself is excluded, so "between 0 and 86400" was wrong.
#[test]
fn time_zero_is_refused_with_the_right_rule() {
    for sub in ["analyze", "play"] {
        let (code, out, err) = run(&[sub, "--time", "0"], "");
        assert_eq!(code, 2, "{sub}: {err}");
        assert!(out.is_empty(), "{sub}: {out}");
        assert!(
            err.contains("'0' is not a number of seconds greater than 0 and at most 86400"),
            "{sub}: {err}"
        );
    }
}

/// `ultimo bench --game super15` searches its own positions; its node
/// count is pinned like UTTT's.
#[test]
fn super15_bench_node_count_is_pinned() {
    let (code, out, _) = run(&["bench", "--game", "super15"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), ultimo::cli::bench::SUPER15_POSITIONS.len() + 2);
    assert_eq!(lines[0], "eval playout", "{out}");
    assert!(lines[1].starts_with(" 1/5 .o2o3o4o5"), "{out}");
    let last: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    assert_eq!((last[1], last[3]), ("nodes", "nps"));
    assert_eq!(last[0], "250000", "bench node count changed:\n{out}");
}

/// `ultimo analyze --game super15` shows its board and a table of moves.
#[test]
fn super15_analyze_shows_board_and_moves() {
    let args = [
        "analyze",
        "--game",
        "super15",
        "--nodes",
        "300",
        "--threads",
        "1",
    ];
    let (code, out, err) = run(&args, "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fen .o2o3o4o5o5o4o3o2./"), "{out}");
    assert!(out.contains("  #  move    visits"), "{out}");
    assert!(out.contains("nodes 300"), "{out}");
    let bad = [
        "analyze", "--game", "super15", "--nodes", "1", "--moves", "e5",
    ];
    let (code, _, err) = run(&bad, "");
    assert_eq!(code, 2);
    assert!(err.starts_with("error: "), "{err}");
}

/// `ultimo play --game super15` through a pipe: its moves, its mistakes.
#[test]
fn super15_play_through_a_pipe() {
    let args = [
        "play",
        "--game",
        "super15",
        "--nodes",
        "100",
        "--threads",
        "1",
    ];
    let (code, out, err) = run(&args, "zz\nb2b3\nb2b4\nquit\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Your move (x), on the board, from square to square:"),
        "{out}"
    );
    assert!(
        out.contains("'zz' is neither a move nor a command. Moves look like b2b3"),
        "{out}"
    );
    assert!(out.contains("You play b2b3\n"), "{out}");
    assert!(out.contains("\nUltimo plays "), "{out}");
    assert!(out.contains("b2b4 is not possible: "), "{out}");
    assert!(out.ends_with("Bye.\n"), "{out}");
}

/// `ultimo play --level N` in both games: the level is in the engine's
/// name and the saved game; a level that does not exist is refused.
#[test]
fn play_at_a_level() {
    let dir = common::TempDir::new("play-level");
    let pgn = dir.file("level.pgn");
    for (game, first) in [("uttt", "e5"), ("super15", "b2b3")] {
        let args = [
            "play",
            "--game",
            game,
            "--level",
            "3",
            "--threads",
            "1",
            "--pgnout",
            &pgn,
        ];
        let (code, out, err) = run(&args, &format!("{first}\nquit\n"));
        assert_eq!(code, 0, "{err}");
        assert!(
            out.starts_with("You play x against Ultimo (level 3, Elo "),
            "{out}"
        );
        assert!(out.contains("\nUltimo plays "), "{out}");
    }
    let saved = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        saved.matches("[Black \"Ultimo (level 3, Elo ").count(),
        2,
        "{saved}"
    );
    let (code, _, err) = run(&["play", "--level", "11"], "");
    assert_eq!(code, 2);
    assert!(err.contains("11 is not in 1..=10"), "{err}");
}

/// `setoption name EvalFile` with a file that is not a net, or a net cut
/// short: one error line each, and the engine keeps (and names) its
/// built-in net and still plays with it.
#[test]
fn a_bad_net_file_keeps_the_builtin_net() {
    let dir = common::TempDir::new("evalfile");
    let cut = dir.dir().join("cut.nnue");
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin")).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let input = format!(
        "uci\nsetoption name EvalFile value {}\nsetoption name EvalFile value Cargo.toml\n\
         setoption name Eval value net\ngo nodes 300\nisready\nuci\nquit\n",
        cut.display()
    );
    let (code, out, _) = run(&[], &input);
    assert_eq!(code, 0);
    let ids: Vec<&str> = out.lines().filter(|l| l.starts_with("id name")).collect();
    assert_eq!(ids.len(), 2, "{out}");
    assert_eq!(ids[0], ids[1], "the net is kept: {out}");
    assert!(ids[0].contains("(net "), "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    assert!(errors[0].contains("EvalFile: the net file has") && errors[0].contains("keeping net"));
    assert!(errors[1].contains("EvalFile: not an Ultimo net file"));
    assert!(out.lines().any(|l| l.starts_with("bestmove ")), "{out}");
}

/// The net engine with PUCT (the default with `Eval net`) and with UCT
/// (`NetPolicy 0`) plays, takes a game-winning move, and refuses an
/// out-of-range PUCT constant with one error line, keeping the old one.
#[test]
fn the_net_searches_with_and_without_its_policy() {
    // A position of the reference set where x has a game-winning move.
    let win =
        "x3oxx2/x1oxxooxo/xxooxo1xx/1xxoo1oxo/1oo1o2xx/oooxo1x1x/oooxxooxo/x2oxoxxx/2oo2x2 x 30 f8";
    let mut engine = common::Engine::start(&[]);
    let wait = Duration::from_secs(20);
    engine.send("setoption name Eval value net");
    let error = engine.ask("setoption name NetPolicy value 1001");
    assert!(
        error.contains("error") && error.contains("NetPolicy"),
        "{error}"
    );
    let search = |engine: &mut common::Engine, setup: &str| -> Vec<String> {
        engine.send(setup);
        engine.send("go nodes 3000");
        engine.until(wait, |l| l.starts_with("bestmove "))
    };
    for policy in ["50", "0"] {
        engine.send(&format!("setoption name NetPolicy value {policy}"));
        let lines = search(&mut engine, "position startpos moves e5 e4");
        assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains(" nodes ")), "{lines:?}");
    }
    engine.send("setoption name NetPolicy value 50");
    let lines = search(&mut engine, &format!("position fen {win}"));
    let info = lines.iter().rfind(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains("score mate 1 "), "{lines:?}");
    engine.send("quit");
    assert_eq!(engine.wait_exit(wait), Some(0));
}

#[test]
fn version_completions_and_man_pages() {
    let (code, out, err) = run(&["--version"], "");
    assert_eq!(code, 0, "{err}");
    let net = ultimo::net::Net::builtin().version();
    assert!(
        out.starts_with(&format!("ultimo {} (", env!("CARGO_PKG_VERSION")))
            && out.ends_with(&format!("net {net})\n")),
        "{out}"
    );
    // Built in a git checkout: the commit is named.
    if std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.git")).exists() {
        assert!(out.contains("(commit "), "{out}");
    }
    for (shell, says) in [
        ("bash", "_ultimo()"),
        ("zsh", "#compdef ultimo"),
        ("fish", "complete -c ultimo"),
    ] {
        let (code, out, err) = run(&["completions", shell], "");
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(says), "{shell}: {out}");
        assert!(
            out.contains("analyze") && out.contains("multipv"),
            "{shell}"
        );
    }
    let (code, _, err) = run(&["completions", "tcsh"], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{err}"
    );
    let (code, out, err) = run(&["man"], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(".TH ultimo 1 ") && out.contains(".SH SYNOPSIS"),
        "{out}"
    );
    let dir = common::TempDir::new("man");
    let pages = dir.file("man1");
    let (code, out, err) = run(&["man", "--dir", &pages], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().any(|l| l.ends_with("ultimo-analyze.1")),
        "{out}"
    );
    let page = std::fs::read_to_string(dir.dir().join("man1").join("ultimo-train.1")).unwrap();
    assert!(
        page.contains(".TH ultimo-train 1 ") && page.contains(&format!("net {net})")),
        "{page}"
    );
}
