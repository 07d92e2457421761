//! The rules against reference data computed by independent implementations
//! (`tests/data`, copied from the project's shared reference).

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use super::*;

const POSITIONS: &str = include_str!("../../tests/data/positions.txt");
const PERFT_STARTPOS: &str = include_str!("../../tests/data/perft-startpos.txt");

fn field<'a>(fields: &[&'a str], name: &str) -> &'a str {
    fields
        .iter()
        .find_map(|f| f.strip_prefix(name).map(str::trim))
        .unwrap_or_else(|| panic!("field {name} missing"))
}

#[test]
fn every_reference_position_agrees() {
    let mut checked = 0;
    for (n, line) in POSITIONS.lines().enumerate() {
        let fields: Vec<&str> = line.split(';').collect();
        let fen = fields[0];
        let ctx = format!("line {}: {fen}", n + 1);

        // The FEN round-trips through our parser and printer.
        let pos: Position = fen.parse().unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(pos.to_string(), fen, "{ctx}");

        // Replaying the moves from the empty board gives the same position.
        let moves: Vec<&str> = field(&fields, "moves").split_whitespace().collect();
        let replayed = crate::notation::play_moves(&Position::startpos(), moves)
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert!(replayed == pos, "{ctx}: replayed {replayed}");

        // Legal moves, sorted by file then rank.
        let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        legal.sort();
        let expected: Vec<&str> = field(&fields, "legal").split_whitespace().collect();
        assert_eq!(legal, expected, "{ctx}");

        let counts: Vec<u64> = field(&fields, "perft")
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        for (d, &want) in counts.iter().enumerate() {
            let want = if want == 0 && d > 0 { 0 } else { want };
            assert_eq!(perft(&pos, d as u32 + 1), want, "{ctx}: perft {}", d + 1);
        }

        let result = match pos.outcome() {
            None => "none",
            Some(Outcome::Win(Player::X)) => "x",
            Some(Outcome::Win(Player::O)) => "o",
            Some(Outcome::Draw) => "draw",
        };
        assert_eq!(result, field(&fields, "result"), "{ctx}");
        checked += 1;
    }
    assert_eq!(checked, 300);
}

fn perft_reference() -> Vec<(u32, u64)> {
    PERFT_STARTPOS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split_whitespace();
            (
                it.next().unwrap().parse().unwrap(),
                it.next().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_startpos_to_6() {
    for (depth, leaves) in perft_reference().into_iter().filter(|&(d, _)| d <= 6) {
        assert_eq!(perft(&Position::startpos(), depth), leaves, "depth {depth}");
    }
}

#[test]
#[ignore = "slow: run with --ignored"]
fn perft_startpos_7_and_8() {
    for (depth, leaves) in perft_reference().into_iter().filter(|&(d, _)| d >= 7) {
        assert_eq!(perft(&Position::startpos(), depth), leaves, "depth {depth}");
    }
}

/// Random play from the empty board must match the figures measured by an
/// independent implementation (shared notes): x 41.2%, o 36.5%, draw 22.3%,
/// mean length 58.9 plies (sd 6.5).
#[test]
fn random_playout_statistics() {
    const N: u32 = 200_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20261129);
    let (mut x, mut o, mut draw, mut plies) = (0u32, 0u32, 0u32, 0u64);
    for _ in 0..N {
        let end = Position::startpos().random_playout(&mut rng);
        plies += end.ply() as u64;
        match end.outcome() {
            Some(Outcome::Win(Player::X)) => x += 1,
            Some(Outcome::Win(Player::O)) => o += 1,
            Some(Outcome::Draw) => draw += 1,
            None => panic!("a playout ended with the game still on: {end}"),
        }
    }
    let pct = |k: u32| 100.0 * k as f64 / N as f64;
    // One standard error is about 0.11 points here; allow 0.6.
    assert!((pct(x) - 41.2).abs() < 0.6, "x won {:.2}%", pct(x));
    assert!((pct(o) - 36.5).abs() < 0.6, "o won {:.2}%", pct(o));
    assert!((pct(draw) - 22.3).abs() < 0.6, "drawn {:.2}%", pct(draw));
    let mean = plies as f64 / N as f64;
    assert!((mean - 58.9).abs() < 0.2, "mean length {mean:.2}");
}

/// Winning-move playouts end sooner and never miss a one-move win.
#[test]
fn winning_playout_takes_wins() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..2_000 {
        let mut pos = Position::startpos();
        while !pos.is_over() {
            let winner = pos.winning_move();
            // Cross-check winning_move against trying every move.
            let any_wins = pos.legal_moves().iter().any(|&m| {
                let mut p = pos;
                p.play_unchecked(m);
                p.outcome() == Some(Outcome::Win(pos.side_to_move()))
            });
            assert_eq!(winner.is_some(), any_wins, "{pos}");
            let m = winner.unwrap_or_else(|| pos.random_move(&mut rng).unwrap());
            pos.play_unchecked(m);
        }
    }
}
