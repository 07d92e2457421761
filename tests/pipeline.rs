//! The learned evaluation's pipeline through the real binary: self-play
//! data (resumable, with engine options), training (reproducible), and the
//! engine loading the net it made.

mod common;

use common::{TempDir, run};

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
