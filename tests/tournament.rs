//! `ultimo match` with more than two engines, per-engine limits, shards and
//! merges, driven through the real binary with Ultimo itself at small fixed
//! node counts (one thread, so every search is repeatable).
#![cfg(unix)]

mod common;

use common::{TempDir, failure, statistics, success, ultimo_match};

use std::path::Path;

const ULTIMO: &str = env!("CARGO_BIN_EXE_ultimo");

/// Ultimo as an engine called `name` with `extra` keys (e.g. `nodes=20`).
fn ultimo(name: &str, extra: &str) -> String {
    format!(r#"cmd="{ULTIMO}" name={name} option.Threads=1 option.Hash=16 {extra}"#)
}

/// The JSON file at `path`.
fn json(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(Path::new(path)).expect("JSON written");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn three_ultimo_settings_play_a_round_robin() {
    let dir = TempDir::new("round-robin");
    let (a, b, c) = (
        ultimo("n10", "nodes=10"),
        ultimo("n40", "nodes=40"),
        ultimo("n160", "nodes=160"),
    );
    let summary = dir.file("summary.json");
    let output = ultimo_match(&[
        "--engine",
        &a,
        "--engine",
        &b,
        "--engine",
        &c,
        "--tournament",
        "round-robin",
        "--games",
        "2",
        "--random-plies",
        "4",
        "--seed",
        "2",
        "--json",
        &summary,
    ]);
    let out = success(&output);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "engines     n10, n40, n160 (3 pairings, 6 games)");
    for (line, pairing) in lines[1..4]
        .iter()
        .zip(["n10 vs n40", "n10 vs n160", "n40 vs n160"])
    {
        assert!(line.starts_with(&format!("Score of {pairing}: ")), "{out}");
        assert!(line.ends_with("] 2"), "{out}");
    }
    assert_eq!(
        lines[7],
        "ratings     maximum likelihood, n10 fixed at 0, 95% intervals"
    );
    let table = &lines[9..12];
    for name in ["n10", "n40", "n160"] {
        assert_eq!(
            table
                .iter()
                .filter(|l| l.contains(&format!(" {name} ")))
                .count(),
            1,
            "{out}"
        );
    }
    assert!(!out.contains("inf") && !out.contains("NaN"), "{out}");
    assert!(out.contains("end         all 6 games played"), "{out}");
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(
        progress.starts_with("round-robin: n10 (nodes 10), n40 (nodes 40), n160 (nodes 160); 3 pairings of 2 games (6 games), openings"),
        "{progress}"
    );
    assert!(progress.contains("game 6/6: n160 vs n40 "), "{progress}");
    assert!(progress.contains("; Score of n40 vs n160: "), "{progress}");

    let json = json(&summary);
    assert_eq!(json["settings"]["tournament"], "round-robin");
    assert_eq!(json["settings"]["engines"][2]["control"], "nodes 160");
    assert_eq!(json["standings"]["games"], 6);
    assert_eq!(json["standings"]["pairings"].as_array().unwrap().len(), 3);
    let table = json["standings"]["ratings"]["table"].as_array().unwrap();
    assert_eq!(table.len(), 3);
    for row in table {
        assert_eq!(row["games"], 4);
        assert!(row["elo"].is_null() || row["elo"].is_f64(), "{row}");
    }
    assert_eq!(json["end"], "all 6 games played");
}

#[test]
fn a_gauntlet_pairs_the_first_engine_with_each_other() {
    let engines: Vec<String> = (0..4).map(|i| ultimo(&format!("e{i}"), "")).collect();
    let mut args = vec![];
    for e in &engines {
        args.extend(["--engine", e.as_str()]);
    }
    args.extend([
        "--tournament",
        "gauntlet",
        "--nodes",
        "5",
        "--games",
        "2",
        "--concurrency",
        "2",
    ]);
    let out = success(&ultimo_match(&args));
    let scores: Vec<&str> = out.lines().filter(|l| l.starts_with("Score of ")).collect();
    assert_eq!(scores.len(), 3, "{out}");
    for (line, other) in scores.iter().zip(["e1", "e2", "e3"]) {
        assert!(
            line.starts_with(&format!("Score of e0 vs {other}: ")),
            "{out}"
        );
    }
    assert!(
        out.starts_with("engines     e0, e1, e2, e3 (3 pairings, 6 games)"),
        "{out}"
    );

    // Without --tournament, or with an SPRT, more than two engines are refused.
    let err = failure(&ultimo_match(&args[..args.len() - 8]));
    assert!(
        err.contains(
            "error: with 4 engines, say how they meet: --tournament gauntlet or round-robin"
        ),
        "{err}"
    );
    let mut sprt = args.clone();
    sprt.extend(["--sprt", "0", "5", "0.05", "0.05"]);
    let err = failure(&ultimo_match(&sprt));
    assert!(
        err.contains("error: --sprt needs exactly two engines (got 4)"),
        "{err}"
    );
}

#[test]
fn each_engine_gets_its_own_time_control() {
    let dir = TempDir::new("own-limits");
    let (log_a, log_b) = (dir.file("a.log"), dir.file("b.log"));
    let logged = |log: &str, name: &str, limit: &str| {
        format!(
            r#"cmd=sh arg=tests/engines/logged.sh "arg={log}" "arg={ULTIMO}" name={name} option.Threads=1 option.Hash=16 {limit}"#
        )
    };
    let (a, b) = (
        logged(&log_a, "a", "nodes=7"),
        logged(&log_b, "b", "tc=1+0.01"),
    );
    let pgn = dir.file("games.pgn");
    let output = ultimo_match(&[
        "--engine",
        &a,
        "--engine",
        &b,
        "--movetime",
        "1",
        "--games",
        "2",
        "--pgnout",
        &pgn,
    ]);
    let out = success(&output);
    assert!(out.contains("end         all 2 games played"), "{out}");
    // The PGN gives each side's control, as cutechess does, and reads back.
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        text.contains("[WhiteTimeControl \"nodes=7\"]\n[BlackTimeControl \"1+0.01\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("[WhiteTimeControl \"1+0.01\"]\n[BlackTimeControl \"nodes=7\"]\n"),
        "{text}"
    );
    assert!(!text.contains("[TimeControl "), "{text}");
    let replayed = success(&ultimo_match(&["--replay", &pgn]));
    assert_eq!(statistics(&replayed), statistics(&out));
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(
        progress.starts_with("match: a (nodes 7) vs b (tc 1+0.01 s), 2 games, openings"),
        "{progress}"
    );
    let go_lines = |log: &str| -> Vec<String> {
        std::fs::read_to_string(log)
            .expect("log written")
            .lines()
            .filter(|l| l.starts_with("go "))
            .map(String::from)
            .collect()
    };
    let (go_a, go_b) = (go_lines(&log_a), go_lines(&log_b));
    assert!(!go_a.is_empty() && !go_b.is_empty());
    assert!(go_a.iter().all(|l| l == "go nodes 7"), "{go_a:?}");
    // b's own clock, told for both sides (a has no clock), 10 ms increments.
    assert!(
        go_b.iter()
            .all(|l| l.starts_with("go p1time ") && l.ends_with(" p1inc 10 p2inc 10")),
        "{go_b:?}"
    );
    assert!(
        go_b.iter()
            .any(|l| l.starts_with("go p1time 1000 p2time 1000 ")),
        "{go_b:?}"
    );
}

#[test]
fn sharded_and_merged_equals_the_whole_match() {
    let dir = TempDir::new("shards");
    let engines = [
        ultimo("a", "nodes=30"),
        ultimo("b", "nodes=60"),
        ultimo("c", "nodes=90"),
    ];
    let base = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        for e in &engines {
            args.extend(["--engine".to_string(), e.clone()]);
        }
        for a in [
            "--tournament",
            "round-robin",
            "--games",
            "4",
            "--random-plies",
            "4",
            "--seed",
            "5",
        ] {
            args.push(a.to_string());
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        success(&ultimo_match(&args))
    };
    let (whole_json, merged_json) = (dir.file("whole.json"), dir.file("merged.json"));
    let (whole_pgn, replayed_json) = (dir.file("whole.pgn"), dir.file("replayed.json"));
    // The whole match plays its games two at a time, in another order.
    let whole = run(base(&[
        "--concurrency",
        "2",
        "--json",
        &whole_json,
        "--pgnout",
        &whole_pgn,
    ]));
    let shards: Vec<String> = (1..=2)
        .map(|k| dir.file(&format!("shard-{k}.pgn")))
        .collect();
    for (k, shard) in shards.iter().enumerate() {
        let out = run(base(&[
            "--shard",
            &format!("{}/2", k + 1),
            "--pgnout",
            shard,
        ]));
        assert!(out.contains("end         all 6 games played"), "{out}");
    }
    // The shards in another order: the engines come by Round, not by file.
    let merged = success(&ultimo_match(&[
        "--merge",
        &shards[1],
        &shards[0],
        "--json",
        &merged_json,
    ]));
    assert_eq!(statistics(&merged), statistics(&whole));
    assert!(
        merged.contains("shard-2.pgn: 6 games, every move legal\nrecord      "),
        "{merged}"
    );
    assert_eq!(
        json(&merged_json)["standings"],
        json(&whole_json)["standings"]
    );
    // The whole match's PGN replayed gives its summary again.
    let replayed = success(&ultimo_match(&[
        "--replay",
        &whole_pgn,
        "--json",
        &replayed_json,
    ]));
    assert_eq!(statistics(&replayed), statistics(&whole));
    assert!(
        replayed.contains("whole.pgn: 12 games, every move legal"),
        "{replayed}"
    );
    assert_eq!(
        json(&replayed_json)["standings"],
        json(&whole_json)["standings"]
    );
    // Shard 1 played the pairs 1, 3, 5 (games 1-2, 5-6, 9-10), under its
    // own Event; shard 2 under another.
    let rounds = |file: &str| -> (Vec<String>, Vec<String>) {
        let text = std::fs::read_to_string(file).unwrap();
        let tag = |name: &str| -> Vec<String> {
            text.lines()
                .filter_map(|l| l.strip_prefix(&format!("[{name} \"")))
                .map(|l| l.trim_end_matches("\"]").to_string())
                .collect()
        };
        (tag("Round"), tag("Event"))
    };
    let (games, events) = rounds(&shards[0]);
    assert_eq!(games, ["1", "2", "5", "6", "9", "10"]);
    let (_, other_events) = rounds(&shards[1]);
    assert!(events.iter().all(|e| e == &events[0]), "{events:?}");
    assert_ne!(events[0], other_events[0]);
    assert!(
        merged.contains("\nmerged      every game of the match is there\n"),
        "{merged}"
    );
    merge_refuses_missing_and_foreign_games(&dir, &shards);
}

/// `--merge` of shards that miss games names them, and refuses unless
/// `--allow-incomplete` is given; games of another match (another seed,
/// size or engines) are refused (hostile input round 2, M1). Before, one
/// shard of two merged with exit 0 as if it were the match.
fn merge_refuses_missing_and_foreign_games(dir: &TempDir, shards: &[String]) {
    let text = std::fs::read_to_string(&shards[0]).unwrap();
    for tag in [
        "[Games \"12\"]",
        "[Seed \"5\"]",
        "[Shard \"1/2\"]",
        "[Engines \"a b c\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
    let missing = "games 3-4, 7-8, 11-12 are missing (no record of shard 2 of 2)";
    let err = failure(&ultimo_match(&["--merge", &shards[0]]));
    assert_eq!(
        err,
        format!(
            "error: the records hold 6 of the match's 12 games: {missing}; \
             merge every shard's record, or give --allow-incomplete\n"
        )
    );
    let out = success(&ultimo_match(&[
        "--merge",
        &shards[0],
        "--allow-incomplete",
    ]));
    assert!(
        out.contains(&format!("\nmerged      6 of 12 games: {missing}\n")),
        "{out}"
    );
    // Without --merge the flag is refused, not ignored.
    let err = failure(&ultimo_match(&[
        "--engine",
        "cmd=ultimo",
        "--engine",
        "cmd=ultimo",
        "--nodes",
        "10",
        "--allow-incomplete",
    ]));
    assert_eq!(err, "error: --allow-incomplete goes with --merge only\n");
    // Shard 2 as if of another match.
    let other = std::fs::read_to_string(&shards[1]).unwrap();
    let forged = dir.file("forged.pgn");
    for (from, to, why) in [
        ("[Seed \"5\"]", "[Seed \"6\"]", "Seed '6', but '5'"),
        ("[Games \"12\"]", "[Games \"14\"]", "Games '14', but '12'"),
        (
            "[Engines \"a b c\"]",
            "[Engines \"a b d\"]",
            "Engines 'a b d', but 'a b c'",
        ),
        (
            "[Shard \"2/2\"]",
            "[Shard \"2/3\"]",
            "Shard '2/3', but '1/2'",
        ),
        ("[Seed \"5\"]\n", "", "Seed none, but '5'"),
    ] {
        std::fs::write(&forged, other.replace(from, to)).unwrap();
        let err = failure(&ultimo_match(&["--merge", &shards[0], &forged]));
        assert!(
            err.starts_with(&format!(
                "error: {forged}:1: game 3 is of another match: {why} in "
            )),
            "{err}"
        );
    }
}

#[test]
fn default_names_of_equal_programs_are_numbered() {
    let plain = format!(r#"cmd="{ULTIMO}" option.Threads=1 option.Hash=16"#);
    let output = ultimo_match(&[
        "--engine", &plain, "--engine", &plain, "--nodes", "5", "--games", "2",
    ]);
    let out = success(&output);
    assert!(out.starts_with("Score of ultimo#1 vs ultimo#2: "), "{out}");
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(
        progress.contains("game 1/2: ultimo#1 vs ultimo#2 "),
        "{progress}"
    );
}
