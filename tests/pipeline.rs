//! The learned evaluation's pipeline through the real binary: self-play
//! data (resumable, with engine options, sharded and merged), training
//! (reproducible), and the engine loading the net it made.

mod common;

use common::{TempDir, run};

#[cfg(feature = "train")]
#[test]
fn datagen_train_and_load_a_net() {
    let tmp = TempDir::new("pipeline");
    let data = tmp.file("d.bin");
    let datagen = [
        "datagen",
        "--eval",
        "net",
        "--games",
        "6",
        "--nodes",
        "150",
        "--seed",
        "5",
        "--threads",
        "2",
        "--out",
        &data,
        "--option",
        "NetPolicy=100",
        "--option",
        "NetFPUReduction=10",
    ];
    let (code, _, err) = run(&datagen, "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("6/6 games"), "{err}");
    let bytes = std::fs::read(&data).unwrap();

    // Run again: nothing to do, nothing changed.
    let (code, _, err) = run(&datagen, "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("already holds the 6 games"), "{err}");
    assert_eq!(std::fs::read(&data).unwrap(), bytes);

    // The file records the run's settings: a run with others is refused,
    // naming each difference, and the file is left as it was.
    let mut other = datagen.to_vec();
    other[6] = "200";
    other[10] = "3";
    other.extend(["--option", "NetPolicy=90"]);
    let (code, _, err) = run(&other, "");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "was made with other settings: nodes 150 there, 200 here; policy 1 there, 0.9 here"
        ) && err.contains("run with those settings to add to it, or write to another file"),
        "{err}"
    );
    assert_eq!(std::fs::read(&data).unwrap(), bytes);

    // Options with their own flags, unknown ones and bad values are
    // refused before the file is touched.
    for (option, says) in [
        ("Hash=3", "set Hash with its own flag"),
        ("Bogus=1", "unknown option 'Bogus'"),
        ("NetPolicy=5000", "NetPolicy must be between 0 and 1000"),
    ] {
        let (code, _, err) = run(
            &[
                "datagen", "--games", "8", "--out", &data, "--option", option,
            ],
            "",
        );
        assert_eq!(code, 2, "{option}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{option}: {err}"
        );
        assert_eq!(std::fs::read(&data).unwrap(), bytes);
    }

    // --net searches with that net (as --eval net); with --eval playout it
    // would not be used, and is refused.
    let net_data = tmp.file("n.bin");
    let builtin = tmp.file("builtin.nnue");
    let (code, _, err) = run(
        &["train", "--data", &data, "--out", &builtin, "--epochs", "1"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let with_net = [
        "datagen", "--games", "1", "--nodes", "50", "--out", &net_data, "--net", &builtin,
    ];
    let (code, _, err) = run(&with_net, "");
    assert_eq!(code, 0, "{err}");
    let header = String::from_utf8_lossy(&std::fs::read(&net_data).unwrap()).into_owned();
    assert!(header.contains("eval net\nnet net-"), "{header:?}");
    let (code, _, err) = run(&[&with_net[..], &["--eval", "playout"]].concat(), "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no use with --eval playout"), "{err}");

    // Training is reproducible: the same data and seed, the same file.
    let nets = [tmp.file("a.nnue"), tmp.file("b.nnue")];
    for net in &nets {
        let (code, out, err) = run(
            &[
                "train", "--data", &data, "--out", net, "--name", "tiny", "--epochs", "2",
                "--seed", "3",
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("epoch   2") && out.contains("top-1"), "{out}");
        assert!(
            out.contains("s, about ") && out.contains(" left\n"),
            "{out}"
        );
        assert!(out.contains("(net tiny-"), "{out}");
    }
    assert_eq!(
        std::fs::read(&nets[0]).unwrap(),
        std::fs::read(&nets[1]).unwrap()
    );
    // Fine-tuning: the start net's held-out figures come first, the line
    // each epoch's must beat.
    let tuned = tmp.file("tuned.nnue");
    let (code, out, err) = run(
        &[
            "train", "--data", &data, "--out", &tuned, "--name", "tuned", "--epochs", "1",
            "--init", &nets[0], "--lr", "0.0005",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines().skip(1);
    let before = lines.next().unwrap_or_default();
    assert!(
        before.starts_with("before ") && before.ends_with("(the --init net)"),
        "{out}"
    );
    assert!(
        lines.next().unwrap_or_default().starts_with("epoch   1 "),
        "{out}"
    );

    // The engine loads it, names it, and plays with it.
    let (code, out, err) = run(
        &[],
        &format!(
            "setoption name EvalFile value {}\nuci\nposition startpos\ngo nodes 500\n",
            nets[0]
        ),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("id name") && l.contains("(net tiny-")),
        "{out}"
    );
}

#[cfg(feature = "train")]
#[test]
fn train_refuses_a_bad_name_or_out_before_training() {
    let tmp = TempDir::new("train-args");
    let data = tmp.file("missing-data.bin");
    let missing = tmp.dir().join("no-such-folder");
    let out = missing.join("net.nnue");
    let out = out.to_str().unwrap();
    // The folder is checked first, before the data is even read.
    let (code, stdout, err) = run(&["train", "--data", &data, "--out", out], "");
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        err.starts_with(&format!(
            "error: invalid value '{out}' for '--out <OUT>': the folder '{}' does not exist: make it first",
            missing.display()
        )),
        "{err}"
    );
    let net = tmp.file("net.nnue");
    for name in ["my net", "a-name-longer-than-16"] {
        let (code, _, err) = run(
            &["train", "--data", &data, "--out", &net, "--name", name],
            "",
        );
        assert_eq!(code, 2);
        assert!(
            err.starts_with(&format!(
                "error: invalid value '{name}' for '--name <NAME>': '{name}' is not a net name: use 1 to 16 printable ASCII characters without spaces"
            )),
            "{err}"
        );
    }
    assert!(!std::path::Path::new(&net).exists());
}

/// The arguments as `&str`s.
fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn shards_of_a_run_merge_into_the_file_one_run_writes() {
    let tmp = TempDir::new("datagen-shards");
    let run_of = |out: &str, shard: Option<&str>, threads: &str| -> Vec<String> {
        let mut args: Vec<String> = [
            "datagen",
            "--games",
            "5",
            "--nodes",
            "20",
            "--seed",
            "3",
            "--threads",
            threads,
            "--out",
            out,
        ]
        .map(String::from)
        .to_vec();
        args.extend(shard.map(|s| format!("--shard={s}")));
        args
    };
    let ok = |args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&args, "");
        assert_eq!(code, 0, "{args:?}: {err}");
        (out, err)
    };
    let refused = |args: &[&str]| {
        let (code, out, err) = run(args, "");
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty() && err.starts_with("error: "), "{err}");
        err
    };

    // The whole run on one thread: its games in the order of their numbers.
    let whole = tmp.file("whole.bin");
    ok(&run_of(&whole, None, "1"));
    let whole_bytes = std::fs::read(&whole).unwrap();

    // Two shards, each on two threads; the first is stopped in its last
    // game (half a record at the end), and goes on when run again.
    let shards = [tmp.file("s1.bin"), tmp.file("s2.bin")];
    let (_, err) = ok(&run_of(&shards[0], Some("1/2"), "2"));
    assert!(
        err.contains("shard 1/2: 3 of the run's 5 games") && err.contains("3/3 games"),
        "{err}"
    );
    let (_, err) = ok(&run_of(&shards[1], Some("2/2"), "2"));
    assert!(err.contains("2/2 games"), "{err}");
    let s1 = std::fs::read(&shards[0]).unwrap();
    std::fs::write(&shards[0], &s1[..s1.len() - 7]).unwrap();
    let all = tmp.file("all.bin");
    let merge = |out: &str, files: &[&str], extra: &[&str]| -> Vec<String> {
        let mut args = vec!["datagen".to_string(), "--merge".to_string()];
        args.extend(files.iter().map(|f| f.to_string()));
        args.extend(["--out".to_string(), out.to_string()]);
        args.extend(extra.iter().map(|f| f.to_string()));
        args
    };
    let both = merge(&all, &[&shards[0], &shards[1]], &[]);
    let err = refused(&as_strs(&both));
    assert!(
        err.contains("s1.bin ends with an incomplete game")
            && err.contains("run its datagen command again to finish it"),
        "{err}"
    );
    assert!(!std::path::Path::new(&all).exists());
    let (_, err) = ok(&run_of(&shards[0], Some("1/2"), "2"));
    assert!(
        err.contains("cut an incomplete last record off") && err.contains("3/3 games"),
        "{err}"
    );

    // A shard missing: refused, naming what is missing, unless allowed.
    let err = refused(&as_strs(&merge(&all, &[&shards[1]], &[])));
    assert!(
        err.contains(
            "the files hold 2 of the run's 5 games: games 0, 2, 4 are missing \
             (no file of shard 1 of 2)"
        ),
        "{err}"
    );
    let part = tmp.file("part.bin");
    let (out, _) = ok(&(merge(&part, &[&shards[1]], &["--allow-incomplete"])));
    assert!(
        out.starts_with("datagen: merged 1 of the 2 shards of a run of 5 games into ")
            && out.contains(": 2 games, ")
            && out.ends_with("; games 0, 2, 4 are missing (no file of shard 1 of 2)\n"),
        "{out}"
    );

    // Both: the very file the whole run wrote, which train reads.
    let (out, _) = ok(&(merge(&all, &[&shards[1], &shards[0]], &[])));
    assert!(
        out.starts_with("datagen: merged the 2 shards of a run of 5 games into "),
        "{out}"
    );
    assert_eq!(std::fs::read(&all).unwrap(), whole_bytes);
    // The merged file is not overwritten, a shard comes once, and a shard
    // of another run (another seed) is refused.
    let err = refused(&as_strs(&both));
    assert!(
        err.contains("all.bin exists already: name a new file"),
        "{err}"
    );
    let again = tmp.file("again.bin");
    let err = refused(&as_strs(&merge(&again, &[&shards[0], &shards[0]], &[])));
    assert!(err.contains("are both shard 1/2"), "{err}");
    let other = tmp.file("other.bin");
    let mut other_run = run_of(&other, Some("2/2"), "1");
    other_run[6] = "4".into();
    ok(&other_run);
    let err = refused(&as_strs(&merge(&again, &[&shards[0], &other], &[])));
    assert!(
        err.contains("other.bin is a shard of another run than ")
            && err.ends_with("seed 3 there, 4 here\n"),
        "{err}"
    );
    let err = refused(&as_strs(&merge(&again, &[&whole], &[])));
    assert!(err.contains("whole.bin is not a shard"), "{err}");
    assert!(!std::path::Path::new(&again).exists());

    // A shard's file records its part of the run: it is continued only by
    // the same shard of the same run.
    let err = refused(&as_strs(&run_of(&shards[1], Some("1/2"), "1")));
    assert!(err.contains("shard 2/2 there, 1/2 here"), "{err}");

    // Bad shards are refused before any file is made.
    let bad_out = tmp.file("bad.bin");
    for bad in ["0/2", "3/2", "2", "1/0", "x/2", ""] {
        let err = refused(&as_strs(&run_of(&bad_out, Some(bad), "1")));
        assert_eq!(
            err,
            format!("error: --shard '{bad}': expected K/N with 1 <= K <= N, e.g. 2/8\n")
        );
    }
    let mut allowed = run_of(&bad_out, None, "1");
    allowed.push("--allow-incomplete".into());
    let err = refused(&as_strs(&allowed));
    assert!(
        err.contains("--allow-incomplete goes with --merge only"),
        "{err}"
    );
    assert!(!std::path::Path::new(&bad_out).exists());
}
