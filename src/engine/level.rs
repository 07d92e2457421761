//! Levels for people: an opponent weakened to a measured strength.
//!
//! A [`Strength`] is the engine at full strength, one of ten levels, or a
//! nominal Elo on a scale anchored at the uniformly random mover
//! (`RandomMove`), whose Elo is 0. Each game has its own ten levels
//! ([`levels`]), calibrated on its own scale by
//! `scripts/calibrate-levels.sh` (the random mover of that game 0): Super
//! 1 al 5's playouts span a narrower range than Ultimate Tic-Tac-Toe's
//! net. The protocol's `UCI_Elo` takes any value from the lowest level 1
//! to the highest level 10 of the games; between two levels it blends
//! their weakenings, beyond a game's levels it plays the nearest.
//!
//! A [`Weakening`] plays as a person might, not as a coin:
//!
//! - it searches a small tree ([`Weakening::nodes`] iterations, whatever
//!   time or nodes it was given, and never longer than the time given);
//! - it takes a win it can see (a move that wins at once, or a proven
//!   win) with probability [`Weakening::see_win`];
//! - with probability [`Weakening::see_threat`] it looks for moves that
//!   hand the opponent a win at once (or that the search proved lost) and
//!   keeps away from them while it has anything else;
//! - among what is left it draws a move by the search's own opinion: each
//!   move's share of the visits, with its prior counted as one visit (all
//!   prior when the tree is a single node), raised to `1 / temperature`;
//!   without priors (Super 1 al 5's playouts, whose few visits say
//!   little) a share that grows with the move's score.
//!   A low temperature nearly always plays the search's choice; a high one
//!   plays nearly at random, but still prefers what the net or the
//!   playouts like, so mistakes grow in size as the level falls.

use std::hash::{BuildHasher, Hasher};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

use crate::game::{Game, GameKind, Outcome, Verdict};
use crate::search::{Limits, Line, Report};

/// How many levels there are (numbered 1 to `LEVELS`, then full strength).
pub const LEVELS: usize = 10;

/// One level: its nominal Elo (the uniformly random mover is 0, in its
/// game) and how it weakens the engine.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Level {
    /// The nominal Elo, as measured by `scripts/calibrate-levels.sh`.
    pub elo: u32,
    /// How it plays.
    pub weakening: Weakening,
}

/// How a level weakens the engine's play (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Weakening {
    /// Search iterations a move.
    pub nodes: u64,
    /// The temperature of the draw among the moves (0: always the
    /// search's choice).
    pub temperature: f64,
    /// The chance of taking a win it has, in [0, 1].
    pub see_win: f64,
    /// The chance of looking for moves that lose at once and avoiding
    /// them, in [0, 1].
    pub see_threat: f64,
}

const fn level(elo: u32, nodes: u64, temperature: f64, see_win: f64, see_threat: f64) -> Level {
    Level {
        elo,
        weakening: Weakening {
            nodes,
            temperature,
            see_win,
            see_threat,
        },
    }
}

/// Ultimate Tic-Tac-Toe's levels (the net with PUCT), level 1 first: the
/// mean of two ladders of 400 games a step at 100 ms a move, measured
/// with g11f built in, and checked with g14l1 built in, every level
/// within its interval, and with g15m, every level but level 1 (2 Elo
/// outside); the Elos drift with the net: see README.md.
const UTTT: [Level; LEVELS] = [
    level(210, 1, 3.0, 0.3, 0.0),
    level(330, 1, 1.0, 0.6, 0.3),
    level(550, 2, 1.0, 1.0, 1.0),
    level(690, 4, 1.0, 1.0, 1.0),
    level(800, 8, 0.8, 1.0, 1.0),
    level(940, 32, 0.6, 1.0, 1.0),
    level(1070, 64, 0.3, 1.0, 1.0),
    level(1210, 256, 0.3, 1.0, 1.0),
    level(1370, 1024, 0.2, 1.0, 1.0),
    level(1510, 4096, 0.1, 1.0, 1.0),
];

/// Super 1 al 5's levels (playouts only, no priors), level 1 first, on
/// its own scale (its random mover 0): the mean of two ladders of 100
/// games a step, so less sure than Ultimate Tic-Tac-Toe's.
const SUPER15: [Level; LEVELS] = [
    level(160, 1, 3.0, 0.3, 0.2),
    level(230, 4, 2.5, 0.5, 0.4),
    level(310, 8, 2.0, 0.6, 0.5),
    level(350, 16, 1.5, 1.0, 1.0),
    level(450, 32, 1.0, 1.0, 1.0),
    level(520, 64, 0.7, 1.0, 1.0),
    level(640, 128, 0.5, 1.0, 1.0),
    level(770, 256, 0.3, 1.0, 1.0),
    level(1000, 512, 0.2, 1.0, 1.0),
    level(1120, 1024, 0.1, 1.0, 1.0),
];

/// `UCI_Elo`'s default: Ultimate Tic-Tac-Toe's level 5.
pub const DEFAULT_ELO: u32 = UTTT[4].elo;

/// The levels of `game`, level 1 first.
pub fn levels(game: GameKind) -> &'static [Level; LEVELS] {
    match game {
        GameKind::Uttt => &UTTT,
        GameKind::Super15 => &SUPER15,
    }
}

/// The least `UCI_Elo`: the lowest level 1 of the games.
pub const MIN_ELO: u32 = if UTTT[0].elo < SUPER15[0].elo {
    UTTT[0].elo
} else {
    SUPER15[0].elo
};

/// The greatest `UCI_Elo`: the highest level 10 of the games.
pub const MAX_ELO: u32 = if UTTT[LEVELS - 1].elo > SUPER15[LEVELS - 1].elo {
    UTTT[LEVELS - 1].elo
} else {
    SUPER15[LEVELS - 1].elo
};

/// How strongly the engine plays.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Strength {
    /// As strong as it can.
    #[default]
    Full,
    /// One of the levels, 1 to [`LEVELS`] (in any game).
    Level(u8),
    /// Weakened to this nominal Elo, on the game's own scale: between two
    /// levels a blend of them, beyond the game's levels its nearest end.
    Elo(u32),
}

impl Strength {
    /// Level `n` (1 to [`LEVELS`]); `None` for any other number.
    pub fn level(n: usize) -> Option<Strength> {
        (1..=LEVELS)
            .contains(&n)
            .then_some(Strength::Level(n as u8))
    }

    /// The Elo this strength plays at in `game` (`None` at full
    /// strength): a level's, or the Elo asked for, within the game's
    /// levels.
    pub fn elo(self, game: GameKind) -> Option<u32> {
        let table = levels(game);
        match self {
            Strength::Full => None,
            Strength::Level(n) => Some(table[(n as usize).clamp(1, LEVELS) - 1].elo),
            Strength::Elo(e) => Some(e.clamp(table[0].elo, table[LEVELS - 1].elo)),
        }
    }

    /// How it reads in a player's name in `game`: `level 3, Elo 550`,
    /// `Elo 700` between levels, or `full strength`.
    pub fn label(self, game: GameKind) -> String {
        let Some(elo) = self.elo(game) else {
            return "full strength".to_string();
        };
        match levels(game).iter().position(|l| l.elo == elo) {
            Some(i) => format!("level {}, Elo {elo}", i + 1),
            None => format!("Elo {elo}"),
        }
    }

    /// An engine's name as a player at this strength in `game`: `engine`
    /// at full strength, else with the strength, e.g. `Ultimo (level 3,
    /// Elo 550)`.
    pub fn player_name(self, engine: &str, game: GameKind) -> String {
        match self {
            Strength::Full => engine.to_string(),
            s => format!("{engine} ({})", s.label(game)),
        }
    }

    /// The weakening in `game`, or `None` at full strength.
    pub fn weakening(self, game: GameKind) -> Option<Weakening> {
        self.elo(game).map(|e| Weakening::for_elo(game, e))
    }
}

/// Linear interpolation from `a` to `b` by `f` in [0, 1].
fn lerp(a: f64, b: f64, f: f64) -> f64 {
    a + (b - a) * f
}

impl Weakening {
    /// The weakening of nominal Elo `elo` in `game`: a level's own, or a
    /// blend of the two levels around it (nodes geometrically, the rest
    /// linearly). Elo beyond the game's levels is taken as the nearest
    /// end.
    pub fn for_elo(game: GameKind, elo: u32) -> Weakening {
        let table = levels(game);
        let elo = elo.clamp(table[0].elo, table[LEVELS - 1].elo);
        let i = table.iter().rposition(|l| l.elo <= elo).unwrap_or(0);
        if i + 1 == LEVELS || table[i].elo == elo {
            return table[i].weakening;
        }
        let (a, b) = (table[i].weakening, table[i + 1].weakening);
        let f = (elo - table[i].elo) as f64 / (table[i + 1].elo - table[i].elo) as f64;
        let nodes = lerp((a.nodes as f64).ln(), (b.nodes as f64).ln(), f).exp();
        Weakening {
            nodes: (nodes.round() as u64).max(1),
            temperature: lerp(a.temperature, b.temperature, f),
            see_win: lerp(a.see_win, b.see_win, f),
            see_threat: lerp(a.see_threat, b.see_threat, f),
        }
    }

    /// The limits of a weakened search given `limits`: the level's nodes
    /// in place of any node count, within the same time (a level never
    /// uses more time than it was given, and may use less), searched as
    /// the levels were calibrated (no leaf solver, the net's priors at
    /// temperature 1: [`Limits::as_levels_measured`]).
    pub fn limits(&self, limits: &Limits) -> Limits {
        Limits {
            nodes: Some(self.nodes),
            as_levels_measured: true,
            ..limits.clone()
        }
    }

    /// The move to play, as an index into `report.lines`, from the search
    /// of `pos` that `report` describes; `None` when it has no move.
    pub fn choose<G: Game, R: Rng + ?Sized>(
        &self,
        pos: &G,
        report: &Report<G::Move>,
        rng: &mut R,
    ) -> Option<usize> {
        let lines = &report.lines;
        if lines.is_empty() {
            return None;
        }
        let wins: Vec<usize> = (0..lines.len())
            .filter(|&i| proven(&lines[i], Verdict::Win) || wins_at_once(pos, lines[i].mv))
            .collect();
        if !wins.is_empty() && rng.random::<f64>() < self.see_win {
            // The quickest win it sees.
            return wins
                .into_iter()
                .min_by_key(|&i| plies_to_win(pos, &lines[i]));
        }
        let mut candidates: Vec<usize> = (0..lines.len()).collect();
        if rng.random::<f64>() < self.see_threat {
            // First away from the moves that hand over a win at once, then
            // from those the search proved lost, as long as any move is
            // left (a proven loss further off beats a loss in one).
            let in_one = |i: usize| hands_a_win(pos, lines[i].mv);
            let proven_lost = |i: usize| proven(&lines[i], Verdict::Loss);
            let tiers: [&dyn Fn(usize) -> bool; 2] = [&in_one, &proven_lost];
            for lost in tiers {
                let kept: Vec<usize> = candidates.iter().copied().filter(|&i| !lost(i)).collect();
                if !kept.is_empty() {
                    candidates = kept;
                }
            }
        }
        Some(draw(lines, &candidates, self.temperature, rng))
    }

    /// Chooses the move to play in the search of `pos` that `report`
    /// describes ([`Weakening::choose`]) and puts its line first, the
    /// others after it in their order: the report's best move is then
    /// the level's.
    pub fn pick<G: Game, R: Rng + ?Sized>(
        &self,
        pos: &G,
        report: &mut Report<G::Move>,
        rng: &mut R,
    ) {
        if let Some(i) = self.choose(pos, report, rng) {
            report.lines[..=i].rotate_right(1);
        }
    }
}

/// Whether `line` is proven to end in `verdict` for the side to move.
fn proven<M>(line: &Line<M>, verdict: Verdict) -> bool {
    line.proven.is_some_and(|p| p.verdict == verdict)
}

/// Plies to the win `line` gives (1 when its move wins at once).
fn plies_to_win<G: Game>(pos: &G, line: &Line<G::Move>) -> u32 {
    if wins_at_once(pos, line.mv) {
        1
    } else {
        line.proven.map_or(u32::MAX, |p| p.plies)
    }
}

/// Whether `mv` wins the game at once for the side to move in `pos`.
fn wins_at_once<G: Game>(pos: &G, mv: G::Move) -> bool {
    let side = pos.side_to_move();
    let mut next = *pos;
    next.play_unchecked(mv);
    next.outcome() == Some(Outcome::Win(side))
}

/// Whether, after `mv`, the opponent can win at once.
fn hands_a_win<G: Game>(pos: &G, mv: G::Move) -> bool {
    let mut next = *pos;
    next.play_unchecked(mv);
    next.outcome().is_none() && next.winning_move().is_some()
}

/// How much a move's score counts in its share without priors: a move
/// that scores 0.1 more has e times the share at temperature 1.
const SCORE_SCALE: f64 = 10.0;

/// One of `candidates` (indices into `lines`), drawn with weight
/// `share ^ (1 / temperature)`, where a move's share is its visits plus
/// its prior as one more visit, or without priors `e ^ (10 q)` with its
/// score `q` drawn towards 1/2 by one visit; the most-shared one (the
/// first on ties) at temperature 0.
fn draw<M, R: Rng + ?Sized>(
    lines: &[Line<M>],
    candidates: &[usize],
    temperature: f64,
    rng: &mut R,
) -> usize {
    let share = |i: usize| {
        let l = &lines[i];
        match l.prior {
            Some(p) => l.visits as f64 + f64::from(p).max(1e-6),
            None => {
                // Without priors (playouts) a small tree's visits say
                // little: the score instead, drawn towards a draw by one
                // visit's weight so that one lucky playout counts little.
                let v = l.visits as f64;
                let q = (l.q * v + 0.5) / (v + 1.0);
                (SCORE_SCALE * q).exp()
            }
        }
    };
    let best = candidates
        .iter()
        .copied()
        .fold(None::<(usize, f64)>, |acc, i| match acc {
            Some((_, s)) if s >= share(i) => acc,
            _ => Some((i, share(i))),
        });
    let Some((best, top)) = best else {
        return 0;
    };
    if temperature <= 0.0 {
        return best;
    }
    // In logarithms, relative to the best, so that a low temperature
    // cannot overflow.
    let weights: Vec<f64> = candidates
        .iter()
        .map(|&i| ((share(i) / top).ln() / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (&i, w) in candidates.iter().zip(&weights) {
        if x < *w {
            return i;
        }
        x -= w;
    }
    best
}

/// The random generator of a weakened engine's draws: seeded differently
/// in every process, so that a person meets a new game each time.
pub fn level_rng() -> Xoshiro256PlusPlus {
    let seed = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NetGame, Setup};
    use crate::rules::Position;
    use crate::search::{Control, Options};

    fn search(pos: &Position, nodes: u64) -> Report<crate::rules::Move> {
        let setup = Setup::new(
            Options {
                hash_mb: 16,
                ..Options::default()
            },
            crate::engine::Eval::Net,
        );
        let net = Position::net(None).unwrap();
        let mut s = setup.searcher(net.as_ref(), *pos).unwrap();
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        s.search(pos, &limits, &[], &Control::new(), &mut |_| {})
    }

    #[test]
    fn levels_rise_and_blend() {
        for game in GameKind::ALL {
            let table = levels(game);
            assert!(table.windows(2).all(|w| w[0].elo < w[1].elo));
            assert!(MIN_ELO <= table[0].elo && table[LEVELS - 1].elo <= MAX_ELO);
            for w in table.windows(2) {
                let (a, b) = (w[0].weakening, w[1].weakening);
                assert!(a.nodes <= b.nodes);
                assert!(a.temperature >= b.temperature);
                assert!(a.see_win <= b.see_win);
                assert!(a.see_threat <= b.see_threat);
            }
            let (a, b) = (table[3].weakening, table[4].weakening);
            let mid = Weakening::for_elo(game, (table[3].elo + table[4].elo) / 2);
            assert!(a.nodes <= mid.nodes && mid.nodes <= b.nodes);
            assert!(a.temperature >= mid.temperature && mid.temperature >= b.temperature);
            assert_eq!(Weakening::for_elo(game, 0), table[0].weakening);
            assert_eq!(
                Weakening::for_elo(game, 99_999),
                table[LEVELS - 1].weakening
            );
        }
    }

    #[test]
    fn strengths_read_well() {
        let uttt = GameKind::Uttt;
        let table = levels(uttt);
        assert_eq!(Strength::level(0), None);
        assert_eq!(Strength::level(LEVELS + 1), None);
        let three = Strength::level(3).unwrap();
        assert_eq!(three.label(uttt), format!("level 3, Elo {}", table[2].elo));
        assert_eq!(Strength::Elo(table[2].elo).label(uttt), three.label(uttt));
        let between = table[2].elo + 1;
        assert_eq!(Strength::Elo(between).label(uttt), format!("Elo {between}"));
        assert_eq!(Strength::Full.label(uttt), "full strength");
        assert_eq!(Strength::Full.weakening(uttt), None);
        assert_eq!(
            three.player_name("Ultimo", uttt),
            format!("Ultimo (level 3, Elo {})", table[2].elo)
        );
        // Beyond a game's levels: its nearest level.
        let top = levels(GameKind::Super15)[LEVELS - 1].elo;
        assert_eq!(Strength::Elo(MAX_ELO).elo(GameKind::Super15), Some(top));
        assert_eq!(
            Strength::Elo(MAX_ELO).label(GameKind::Super15),
            format!("level 10, Elo {top}")
        );
    }

    #[test]
    fn limits_take_the_levels_nodes_within_the_time_given() {
        let w = levels(GameKind::Uttt)[LEVELS - 1].weakening;
        let given = Limits {
            nodes: Some(1_000_000),
            movetime: Some(std::time::Duration::from_millis(5)),
            infinite: true,
            ..Limits::default()
        };
        let l = w.limits(&given);
        assert_eq!(l.nodes, Some(w.nodes));
        assert_eq!(l.movetime, given.movetime);
        assert!(l.infinite);
    }

    #[test]
    fn a_sure_eye_takes_every_win_and_avoids_every_blunder() {
        // Random games; wherever the side to move can win at once, a
        // level that always sees wins takes one, and wherever some move
        // does not hand the opponent a win, one that always sees threats
        // plays such a move.
        let sure = level(0, 1, 5.0, 1.0, 1.0).weakening;
        let blind = level(0, 1, 5.0, 0.0, 0.0).weakening;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut wins, mut threats, mut blind_misses) = (0, 0, 0);
        for game in 0..40u64 {
            let mut pos = Position::startpos();
            let mut g = Xoshiro256PlusPlus::seed_from_u64(game);
            while pos.outcome().is_none() {
                let report = search(&pos, 1);
                let can_win = pos.winning_move().is_some();
                let some_safe = pos
                    .legal_moves()
                    .iter()
                    .any(|&m| !wins_at_once(&pos, m) && !hands_a_win(&pos, m));
                let any_blunder = pos.legal_moves().iter().any(|&m| hands_a_win(&pos, m));
                let i = sure.choose(&pos, &report, &mut rng).unwrap();
                let mv = report.lines[i].mv;
                if can_win {
                    wins += 1;
                    assert!(wins_at_once(&pos, mv), "missed a win in {pos}");
                } else if some_safe && any_blunder {
                    threats += 1;
                    assert!(!hands_a_win(&pos, mv), "{mv} hands a win in {pos}");
                    let j = blind.choose(&pos, &report, &mut rng).unwrap();
                    blind_misses += hands_a_win(&pos, report.lines[j].mv) as u32;
                }
                pos.play_random(&mut g);
            }
        }
        assert!(wins > 5 && threats > 20, "{wins} wins, {threats} threats");
        assert!(blind_misses > 0, "a blind level never blundered");
    }

    #[test]
    fn a_loss_further_off_beats_a_loss_in_one() {
        // o to move on the top-right board: g9, h7 and h8 let x win at
        // once; h9 loses too (mate in 2), but later.
        let moves = "f2 g5 b4 d1 c1 i2 h4 d2 c6 i8 i4 h2 d5 c5 h6 d9 c7 i1 g2 c4 g1 b3 f7 i3 \
                     i9 i7 e4 f1 e6 e8 e5 b1 d3 a9 a7 a3 b7 e1 g7 c2 i5 g6 g8 b5 a6 e7 i6";
        let mut pos = Position::startpos();
        for m in moves.split_whitespace() {
            pos.play_unchecked(m.parse().unwrap());
        }
        let report = search(&pos, 8);
        assert!(
            report.lines.iter().all(|l| l.proven.is_some()),
            "{report:?}"
        );
        let sure = level(0, 8, 5.0, 1.0, 1.0).weakening;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..50 {
            let i = sure.choose(&pos, &report, &mut rng).unwrap();
            assert_eq!(report.lines[i].mv.to_string(), "h9");
        }
    }

    #[test]
    fn temperature_zero_plays_the_search_choice_and_high_spreads() {
        let pos = Position::startpos();
        let report = search(&pos, 400);
        let cold = level(0, 400, 0.0, 1.0, 1.0).weakening;
        let hot = level(0, 400, 50.0, 1.0, 1.0).weakening;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let most = (0..report.lines.len())
            .max_by_key(|&i| (report.lines[i].visits, std::cmp::Reverse(i)))
            .unwrap();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            assert_eq!(cold.choose(&pos, &report, &mut rng), Some(most));
            seen.insert(hot.choose(&pos, &report, &mut rng).unwrap());
        }
        assert!(
            seen.len() > 40,
            "a hot draw chose only {} moves",
            seen.len()
        );
    }

    #[test]
    fn no_move_when_the_game_is_over() {
        let report = Report::<crate::rules::Move> {
            lines: vec![],
            nodes: 0,
            elapsed: std::time::Duration::ZERO,
            depth: 0,
            seldepth: 0,
            hashfull: 0,
        };
        let w = levels(GameKind::Uttt)[0].weakening;
        assert_eq!(
            w.choose(&Position::startpos(), &report, &mut level_rng()),
            None
        );
    }
}
