#[cfg(feature = "train")]
use super::train::Trainer;
use super::*;

#[test]
fn the_builtin_net_loads() {
    let net = Net::builtin();
    assert!(!net.name().is_empty());
    assert!(net.version().starts_with(net.name()));
    let v = net.evaluate(&Position::startpos());
    assert!((0.0..=1.0).contains(&v));
}

#[cfg(feature = "train")]
#[test]
fn files_round_trip() {
    let net = Trainer::new(11).net("gen9");
    let bytes = net.to_bytes();
    assert_eq!(bytes.len(), FILE_LEN);
    let back = Net::from_bytes(&bytes).unwrap();
    assert_eq!(back, net);
    assert_eq!(back.to_flat(), net.to_flat());
    assert!(back.version().starts_with("gen9-"));
}

#[cfg(feature = "train")]
#[test]
fn bad_files_say_why() {
    let bytes = Trainer::new(12).net("x").to_bytes();
    let err = |b: &[u8]| Net::from_bytes(b).unwrap_err().to_string();
    assert_eq!(
        err(&bytes[..1000]),
        format!("the net file has 1000 bytes where {FILE_LEN} are expected (truncated?)")
    );
    assert_eq!(
        err(b"#!/bin/sh\necho hello\n"),
        "not an Ultimo net file (it does not start with UTTTNNUE)"
    );
    assert!(err(&bytes[..5]).starts_with("not an Ultimo net file"));
    let mut flipped = bytes.clone();
    flipped[5000] ^= 0x40;
    assert!(err(&flipped).starts_with("the net file is corrupt: checksum"));
    let mut version = bytes.clone();
    version[8] = 7;
    assert_eq!(
        err(&version),
        "net file format version 7; this engine reads versions 1 and 2"
    );
    let mut shape = bytes.clone();
    shape[16..20].copy_from_slice(&64u32.to_le_bytes());
    assert!(err(&shape).starts_with("the net has layers [225, 64, 32]"));
    // A NaN weight with a matching checksum.
    let mut nan = bytes.clone();
    nan[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let sum = fnv1a(&nan[..FILE_LEN - 4]);
    nan[FILE_LEN - 4..].copy_from_slice(&sum.to_le_bytes());
    assert!(err(&nan).starts_with("the net file is corrupt: weight 0 is NaN"));
    let missing = Net::load(Path::new("/nonexistent/net.bin")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read /nonexistent/net.bin")
    );
}

#[cfg(feature = "train")]
#[cfg(unix)]
/// Regression (hostile input round 2, E1/E2): a net file was read whole
/// before any check (`/dev/zero` took 2 GB), and a FIFO never answered. Now
/// anything but a regular file is refused unopened, and no more than a
/// net's length is read: a 1 TiB (sparse) file is refused by its length.
#[test]
fn loading_reads_regular_files_and_no_more_than_a_net() {
    let err = |p: &Path| Net::load(p).unwrap_err().to_string();
    assert_eq!(
        err(Path::new("/dev/null")),
        "/dev/null is not a regular file"
    );
    let dir = std::env::temp_dir().join(format!("ultimo-net-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(
        err(&fifo),
        format!("{} is not a regular file", fifo.display())
    );
    let mut huge = Trainer::new(13).net("big").to_bytes();
    huge.resize(2 * FILE_LEN, 0);
    let path = dir.join("huge.bin");
    std::fs::write(&path, &huge).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(1 << 40).unwrap();
    drop(file);
    assert_eq!(
        err(&path),
        format!(
            "the net file has {} bytes where {FILE_LEN} are expected (truncated?)",
            1u64 << 40
        )
    );
    // An empty name is no name.
    let mut unnamed = Trainer::new(14).net("x").to_bytes();
    unnamed[24] = 0;
    let sum = fnv1a(&unnamed[..FILE_LEN - 4]);
    unnamed[FILE_LEN - 4..].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(
        Net::from_bytes(&unnamed).unwrap_err().to_string(),
        "the net's name is empty or not printable ASCII"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn values_are_the_same_under_the_symmetries() {
    // Not exactly (the net is not built symmetric), but the planes and
    // their transforms are positions of the same game.
    let pos: Position = "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1".parse().unwrap();
    let planes = features::Planes::from_position(&pos);
    for s in 0..8 {
        let t = planes.transform(s);
        assert_eq!(t.marks[0].count_ones(), planes.marks[0].count_ones());
        assert_eq!(t.transform(0), t);
    }
}

#[cfg(feature = "train")]
#[test]
fn version_1_files_load_with_uniform_priors() {
    // A version 1 file: the same header and weights without the policy
    // head.
    let net = Trainer::new(13).net("old");
    let flat = net.to_flat();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&1u32.to_le_bytes());
    for n in [FEATURES + DYNAMIC, HIDDEN, HIDDEN2] {
        bytes.extend_from_slice(&(n as u32).to_le_bytes());
    }
    let mut name = [0u8; 16];
    name[..3].copy_from_slice(b"old");
    bytes.extend_from_slice(&name);
    for w in &flat[..layout::WP] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let sum = fnv1a(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    assert_eq!(bytes.len(), FILE_LEN_V1);
    let old = Net::from_bytes(&bytes).unwrap();
    let pos = Position::startpos();
    assert_eq!(old.evaluate(&pos), net.evaluate(&pos));
    let moves = pos.legal_moves();
    let mut priors = vec![0f32; moves.len()];
    old.evaluate_with_priors(&pos, &moves, &mut priors, 1.0);
    assert!(priors.iter().all(|&p| (p - 1.0 / 81.0).abs() < 1e-6));
    // Truncated, it says what length it wanted.
    let err = Net::from_bytes(&bytes[..bytes.len() - 8])
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(&format!("where {FILE_LEN_V1} are expected (truncated?)")),
        "{err}"
    );
}

#[test]
fn the_draw_share_follows_the_fitted_curve() {
    assert!((draw_share(0.5) - 0.87).abs() < 1e-6);
    for k in 0..=100 {
        let v = k as f32 / 100.0;
        let d = draw_share(v);
        // Symmetric, and never more than the value can hold.
        assert!((d - draw_share(1.0 - v)).abs() < 1e-6, "{v}");
        assert!(d >= 0.0 && d <= 2.0 * v.min(1.0 - v) + 1e-6, "{v}: {d}");
    }
    // Near the self-play figures it was fitted to.
    assert!((draw_share(0.32) - 0.45).abs() < 0.05);
    assert!((draw_share(0.78) - 0.19).abs() < 0.05);
    assert!(draw_share(0.05) < 0.05);
    assert_eq!(draw_share(f32::NAN), draw_share(0.5));
}

#[test]
fn every_kernel_the_processor_runs_gives_the_plain_values_and_priors() {
    // The built-in net over positions of random games, with every set of
    // kernels against the plain one (on x86-64 with AVX2, both paths).
    let net = Net::builtin();
    let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(19);
    let plain = Kernels::plain();
    let mut checked = 0;
    for _ in 0..20 {
        let mut pos = Position::startpos();
        while pos.random_step(&mut rng) {
            let planes = features::Planes::from_position(&pos);
            let cells: Vec<u8> = pos
                .legal_moves()
                .iter()
                .map(|m| m.index())
                .collect::<Vec<u8>>();
            let mut want = vec![0f32; cells.len()];
            let v = net.evaluate_with_policy_using(plain, &planes, &cells, &mut want, 1.0);
            for kernels in Kernels::supported() {
                let name = kernels.name();
                let mut got = vec![0f32; cells.len()];
                let w = net.evaluate_with_policy_using(kernels, &planes, &cells, &mut got, 1.0);
                // Integers up to the same float operations: the same bits.
                assert_eq!(v, w, "{name} position {checked}");
                assert_eq!(want, got, "{name} position {checked}");
                let e = net.evaluate_planes_using(kernels, &planes);
                assert_eq!(v, e, "{name} position {checked}");
            }
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}

#[cfg(feature = "train")]
/// The largest and the mean differences of the quantised net's values
/// and priors from the f32 forward pass (the trainer's) over `positions`.
fn quantisation_error(net: &Net, positions: &[Position]) -> [f32; 4] {
    let reference = Trainer::from_net(net);
    let (mut value, mut prior) = (0f32, 0f32);
    let (mut value_sum, mut prior_sum, mut priors) = (0f64, 0f64, 0usize);
    for pos in positions {
        let planes = features::Planes::from_position(pos);
        let v = net.evaluate_planes(&planes);
        let e = (v - reference.forward(&planes)).abs();
        value = value.max(e);
        value_sum += e as f64;
        let want = reference.policy(&planes);
        let cells: Vec<u8> = want.iter().map(|&(c, _)| c).collect();
        let mut got = vec![0f32; cells.len()];
        let w = net.evaluate_with_policy(&planes, &cells, &mut got, 1.0);
        assert_eq!(v, w, "{pos}");
        for (&(_, p), q) in want.iter().zip(got) {
            prior = prior.max((p - q).abs());
            prior_sum += (p - q).abs() as f64;
            priors += 1;
        }
    }
    let mean = |sum: f64, n: usize| (sum / n.max(1) as f64) as f32;
    [
        value,
        mean(value_sum, positions.len()),
        prior,
        mean(prior_sum, priors),
    ]
}

#[cfg(feature = "train")]
/// The reference positions (not over) and positions of random games.
fn test_positions() -> Vec<Position> {
    let mut out: Vec<Position> = include_str!("../../tests/data/positions.txt")
        .lines()
        .filter_map(|l| l.split(';').next()?.parse::<Position>().ok())
        .filter(|p| !p.is_over())
        .collect();
    assert!(out.len() > 240, "{}", out.len());
    let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(20);
    while out.len() < 3300 {
        let mut pos = Position::startpos();
        while pos.random_step(&mut rng) && !pos.is_over() {
            out.push(pos);
        }
    }
    out
}

#[cfg(feature = "train")]
#[test]
fn quantised_inference_follows_the_f32_net() {
    // The built-in net (g15m measured at most 0.0151 and 0.0086, means
    // 0.00056 and 0.00035, so the value's bound is 0.02, as it was for
    // g11f; g14l1 0.0060 and 0.0060, means 0.00049 and 0.00032; g11f
    // 0.0159 and 0.0075, means 0.00048 and 0.00030, its largest value
    // error one late position of a random game; g6 0.0071 and 0.0072;
    // w256f 0.0102 and 0.0071; p4w, half as wide, 0.0072 and 0.0052;
    // quant.rs), and a fresh one (small weights: the largest scale).
    let positions = test_positions();
    let [value, value_mean, prior, prior_mean] = quantisation_error(Net::builtin(), &positions);
    assert!(value < 0.02 && prior < 0.015, "{value} {prior}");
    assert!(
        value_mean < 0.001 && prior_mean < 0.001,
        "{value_mean} {prior_mean}"
    );
    // A smaller scale, as chess engines use, is some three times as far
    // off.
    let mut coarse = Net::builtin().clone();
    coarse.quant = quant::Quantised::with_scale(&coarse.to_flat(), 255);
    let [_, coarse_mean, ..] = quantisation_error(&coarse, &positions);
    assert!(coarse_mean > 2.0 * value_mean, "{coarse_mean} {value_mean}");
    let fresh = Trainer::new(21).net("fresh");
    assert_eq!(fresh.quant.qa, quant::QA_MAX as i16);
    let [value, _, prior, _] = quantisation_error(&fresh, &positions[..500]);
    assert!(value < 0.002 && prior < 0.002, "{value} {prior}");
}

#[test]
fn nets_too_large_for_integers_are_refused() {
    let mut flat = Net::builtin().to_flat();
    for w in &mut flat[layout::W1..layout::B1] {
        *w *= 20.0;
    }
    let bytes = Net::from_flat(&flat, "big").to_bytes();
    let err = Net::from_bytes(&bytes).unwrap_err().to_string();
    assert!(
        err.starts_with("the net's weights are too large: first-layer sums up to"),
        "{err}"
    );
}

#[test]
fn a_policy_temperature_flattens_the_priors_as_a_power() {
    // At temperature T each prior is the one at 1 to the power 1/T,
    // normalised: a softmax of the logits divided by T. The value does
    // not change.
    let net = Net::builtin();
    let pos: Position = "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1".parse().unwrap();
    let moves = pos.legal_moves();
    let (mut cold, mut warm) = (vec![0f32; moves.len()], vec![0f32; moves.len()]);
    let v1 = net.evaluate_with_priors(&pos, &moves, &mut cold, 1.0);
    let v2 = net.evaluate_with_priors(&pos, &moves, &mut warm, 2.0);
    assert_eq!(v1, v2);
    let roots: Vec<f32> = cold.iter().map(|p| p.sqrt()).collect();
    let total: f32 = roots.iter().sum();
    for (w, r) in warm.iter().zip(&roots) {
        assert!((w - r / total).abs() < 1e-5, "{w} against {}", r / total);
    }
    let top = |p: &[f32]| p.iter().cloned().fold(0.0, f32::max);
    assert!(top(&warm) < top(&cold), "flatter");
    assert!((warm.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}
