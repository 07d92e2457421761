//! The running score of a match and its summary: win/draw/loss counts of the
//! first engine, game pairs, faults, Elo, LOS and the SPRT ([`Tally`], one
//! pairing), and the standings of a tournament of many engines
//! ([`Standings`]: a tally per pairing and a rating table). Figures without
//! a meaning yet (no games, a single pair, no decisive game, all wins) are
//! shown as `n/a`, and as `null` in JSON.

use fxhash::FxHashMap;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::arena::openings::ArenaGame;
use crate::arena::record::{GameRecord, Termination};
use crate::arena::stats::{
    self, EloEstimate, PairingScore, Pentanomial, Rating, SprtDecision, SprtState, Wdl,
};
use crate::game::Verdict;

/// Why `--sprt` settings are refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// Not four numbers.
    #[error("--sprt needs four numbers: ELO0 ELO1 ALPHA BETA")]
    Count,
    /// ELO0 not below ELO1, or not finite.
    #[error("--sprt: ELO0 must be below ELO1 (got {elo0} and {elo1})")]
    Elo {
        /// The Elo of H0.
        elo0: f64,
        /// The Elo of H1.
        elo1: f64,
    },
    /// Error rates outside (0, 1), or summing to 1 or more.
    #[error(
        "--sprt: ALPHA and BETA must be between 0 and 1 with a sum below 1 (got {alpha} and {beta})"
    )]
    Rates {
        /// The false-positive rate.
        alpha: f64,
        /// The false-negative rate.
        beta: f64,
    },
}

/// A game that the tally cannot count: neither of its engines is the
/// tally's first engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game} was played by {x} and {o}, not {engine}")]
pub struct TallyError {
    /// The game's number.
    pub game: u64,
    /// The engine that played x.
    pub x: String,
    /// The engine that played o.
    pub o: String,
    /// The tally's first engine.
    pub engine: String,
}

/// A sequential probability ratio test on normalized Elo over game pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The normalized Elo of H0.
    pub elo0: f64,
    /// The normalized Elo of H1.
    pub elo1: f64,
    /// The false-positive rate.
    pub alpha: f64,
    /// The false-negative rate.
    pub beta: f64,
}

impl Sprt {
    /// The test from `--sprt ELO0 ELO1 ALPHA BETA`; checks that
    /// elo0 < elo1, both finite, and 0 < alpha, beta with alpha + beta < 1.
    pub fn new(values: &[f64]) -> Result<Sprt, SprtError> {
        let &[elo0, elo1, alpha, beta] = values else {
            return Err(SprtError::Count);
        };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::Elo { elo0, elo1 });
        }
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        if !(rate_ok(alpha) && rate_ok(beta) && alpha + beta < 1.0) {
            return Err(SprtError::Rates { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The test's state after the pairs `penta`.
    pub fn state(&self, penta: &Pentanomial) -> SprtState {
        let llr = stats::llr_pentanomial(penta, self.elo0, self.elo1);
        SprtState::new(llr, self.alpha, self.beta)
    }
}

/// The score of a match so far, from the first engine's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    /// The first and the second engine.
    pub engines: [String; 2],
    /// The first engine's wins, draws and losses.
    pub wdl: Wdl,
    /// The finished pairs.
    pub penta: Pentanomial,
    /// The first engine's result in each pair with one game finished so far.
    unpaired: FxHashMap<u64, Verdict>,
    /// Games lost by a fault, per engine and kind (index 1-3 of
    /// [`Termination::ALL`]).
    faults: [[u64; 4]; 2],
}

impl Tally {
    /// An empty tally for `engines`.
    pub fn new(engines: [String; 2]) -> Tally {
        Tally {
            engines,
            wdl: Wdl::default(),
            penta: Pentanomial::default(),
            unpaired: FxHashMap::default(),
            faults: [[0; 4]; 2],
        }
    }

    /// Counts a finished game. Errors if neither engine played it (the
    /// record reader checks the rest).
    pub fn add<G: ArenaGame>(&mut self, game: &GameRecord<G>) -> Result<(), TallyError> {
        let result = game
            .result_for(&self.engines[0])
            .ok_or_else(|| TallyError {
                game: game.game,
                x: game.x.clone(),
                o: game.o.clone(),
                engine: self.engines[0].clone(),
            })?;
        self.wdl.add(result);
        match self.unpaired.remove(&game.pair) {
            Some(first) => self.penta.add_pair(first, result),
            None => {
                self.unpaired.insert(game.pair, result);
            }
        }
        if let (Some(loser), Termination::Illegal | Termination::Timeout | Termination::Crash) =
            (game.loser(), game.termination)
        {
            let engine = usize::from(game.engine(loser) != self.engines[0]);
            self.faults[engine][game.termination as usize] += 1;
        }
        Ok(())
    }

    /// The number of games counted.
    pub fn games(&self) -> u64 {
        self.wdl.games()
    }

    /// Games whose pair partner was not counted.
    pub fn unpaired(&self) -> usize {
        self.unpaired.len()
    }

    /// The points of the first engine: wins and half the draws.
    pub fn points(&self) -> f64 {
        self.wdl.wins as f64 + 0.5 * self.wdl.draws as f64
    }

    /// The cutechess-style line of this pairing:
    /// `Score of A vs B: W - L - D  [0.550] N`.
    pub fn score_line(&self) -> String {
        let [one, two] = &self.engines;
        let w = &self.wdl;
        format!(
            "Score of {one} vs {two}: {} - {} - {}  [{:.3}] {}",
            w.wins,
            w.losses,
            w.draws,
            w.score(),
            w.games()
        )
    }

    /// One line of progress after a game: the score line and Elo, and with
    /// `sprt` the current LLR and its bounds.
    pub fn progress(&self, sprt: Option<&Sprt>) -> String {
        let elo = stats::elo_trinomial(&self.wdl);
        let mut line = format!("{}, Elo {}", self.score_line(), elo_text(&elo));
        if let Some(sprt) = sprt {
            let state = sprt.state(&self.penta);
            let _ = write!(
                line,
                ", LLR {:.2} ({:.2}, {:.2})",
                state.llr, state.lower, state.upper
            );
        }
        line
    }

    /// The likelihood of superiority, or `None` without a decisive game.
    fn los(&self) -> Option<f64> {
        (self.wdl.wins + self.wdl.losses > 0).then(|| stats::los(&self.wdl))
    }

    /// The games engine `engine` (0 or 1) lost by a fault, per kind (index
    /// 1-3 of [`Termination::ALL`]).
    fn faults_of(&self, engine: usize) -> [u64; 4] {
        self.faults[engine]
    }

    /// This pairing as JSON: engines, counts, pairs, Elo estimates, LOS,
    /// faults and the SPRT's state.
    pub fn json(&self, sprt: Option<&Sprt>) -> Value {
        let w = &self.wdl;
        let faults: serde_json::Map<String, Value> = (0..2)
            .map(|i| (self.engines[i].clone(), faults_json(&self.faults[i])))
            .collect();
        let sprt = sprt.map(|sprt| {
            let state = sprt.state(&self.penta);
            let decision = match state.decision() {
                SprtDecision::Continue => "continue",
                SprtDecision::AcceptH0 => "H0",
                SprtDecision::AcceptH1 => "H1",
            };
            json!({
                "elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                "llr": finite(state.llr), "lower": finite(state.lower),
                "upper": finite(state.upper), "decision": decision,
            })
        });
        json!({
            "engines": self.engines,
            "games": w.games(),
            "wins": w.wins,
            "draws": w.draws,
            "losses": w.losses,
            "score": w.score(),
            "pentanomial": self.penta.counts,
            "unpaired": self.unpaired(),
            "elo": elo_json(&stats::elo_trinomial(w)),
            "elo_pentanomial": elo_json(&stats::elo_pentanomial(&self.penta)),
            "nelo": elo_json(&stats::normalized_elo_pentanomial(&self.penta)),
            "los": self.los(),
            "faults": faults,
            "sprt": sprt,
        })
    }

    /// The summary: counts, score, Elo with 95% intervals (trinomial,
    /// pentanomial, normalized), LOS, pair counts, faults and, with `sprt`,
    /// the test's LLR and decision. One `name: value` line each.
    pub fn summary(&self, sprt: Option<&Sprt>) -> String {
        let [one, two] = &self.engines;
        let w = &self.wdl;
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.score_line());
        let mut line = |key: &str, value: String| {
            let _ = writeln!(out, "{key:<12}{value}");
        };
        line("engines", format!("{one} vs {two} (results for {one})"));
        line(
            "games",
            format!("{}: W {} D {} L {}", w.games(), w.wins, w.draws, w.losses),
        );
        line(
            "score",
            format!(
                "{:.1}% ({} of {})",
                100.0 * w.score(),
                (w.wins * 2 + w.draws) as f64 / 2.0,
                w.games()
            ),
        );
        line(
            "elo",
            format!("{} (trinomial)", elo_text(&stats::elo_trinomial(w))),
        );
        line(
            "elo penta",
            format!(
                "{} (pentanomial)",
                elo_text(&stats::elo_pentanomial(&self.penta))
            ),
        );
        line(
            "nelo",
            format!(
                "{} (normalized, pentanomial)",
                elo_text(&stats::normalized_elo_pentanomial(&self.penta))
            ),
        );
        line("los", los_text(self.los()));
        line("pairs", self.pairs_text());
        line(
            "faults",
            format!(
                "{one} {}, {two} {}",
                faults_text(&self.faults[0]),
                faults_text(&self.faults[1])
            ),
        );
        if let Some(sprt) = sprt {
            line("sprt", self.sprt_text(sprt));
        }
        out
    }

    /// The summary's `pairs` value: the pairs by their score, and the
    /// games without their pair, if any.
    fn pairs_text(&self) -> String {
        let p = &self.penta.counts;
        let unpaired = match self.unpaired() {
            0 => String::new(),
            n => format!(", {n} game(s) without their pair"),
        };
        format!(
            "{}: LL {} LD {} DD/WL {} WD {} WW {}{unpaired}",
            self.penta.pairs(),
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        )
    }

    /// The summary's `sprt` value: the test's settings, its LLR and bounds,
    /// and its decision.
    fn sprt_text(&self, sprt: &Sprt) -> String {
        let state = sprt.state(&self.penta);
        let decision = match state.decision() {
            SprtDecision::Continue => "continue".to_string(),
            SprtDecision::AcceptH0 => format!("H0 accepted (nElo <= {})", sprt.elo0),
            SprtDecision::AcceptH1 => format!("H1 accepted (nElo >= {})", sprt.elo1),
        };
        format!(
            "nElo [{}, {}], alpha {}, beta {}: LLR {:.2} (bounds {:.2}, {:.2}), {decision}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, state.llr, state.lower, state.upper
        )
    }
}

/// An Elo estimate as `+12.3 [-4.5, +29.1]`, with `n/a` for what has no
/// meaning yet (see [`EloEstimate::meaningful`]): `n/a` for the whole
/// estimate, or `-190.8 [n/a]` for its interval.
fn elo_text(e: &EloEstimate) -> String {
    match e.meaningful() {
        (None, _) => "n/a".to_string(),
        (Some(elo), None) => format!("{} [n/a]", signed(elo)),
        (Some(elo), Some((lower, upper))) => {
            format!("{} [{}, {}]", signed(elo), signed(lower), signed(upper))
        }
    }
}

/// `x` with its sign and one decimal, e.g. `+12.3`; never `-0.0`.
fn signed(x: f64) -> String {
    let text = format!("{x:+.1}");
    if text == "-0.0" {
        "+0.0".to_string()
    } else {
        text
    }
}

/// The likelihood of superiority as `97.7%`, or `n/a`.
fn los_text(los: Option<f64>) -> String {
    los.map_or("n/a".to_string(), |l| format!("{:.1}%", 100.0 * l))
}

/// `x` if it is finite, else `null`.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// An Elo estimate as JSON: `{"elo", "lower", "upper"}`, `null` where
/// [`elo_text`] shows `n/a`.
fn elo_json(e: &EloEstimate) -> Value {
    let (elo, interval) = e.meaningful();
    json!({
        "elo": elo,
        "lower": interval.map(|i| i.0),
        "upper": interval.map(|i| i.1),
    })
}

/// Fault counts per kind as JSON, e.g. `{"illegal": 1, "timeout": 0, "crash": 0}`.
fn faults_json(counts: &[u64; 4]) -> Value {
    let map: serde_json::Map<String, Value> = Termination::ALL[1..]
        .iter()
        .map(|&t| (t.to_string(), json!(counts[t as usize])))
        .collect();
    Value::Object(map)
}

/// Fault counts per kind as text, e.g. `2 (1 illegal, 1 timeout)` or `none`.
fn faults_text(counts: &[u64; 4]) -> String {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return "none".to_string();
    }
    let kinds: Vec<String> = Termination::ALL
        .iter()
        .filter(|&&t| counts[t as usize] > 0)
        .map(|&t| format!("{} {t}", counts[t as usize]))
        .collect();
    format!("{total} ({})", kinds.join(", "))
}

/// The standings of a match of two or more engines: a [`Tally`] per
/// pairing, in the order of the engines (pairing (i, j) with i < j, first
/// engine i), and the rating table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// The engines, in `--engine` order.
    pub engines: Vec<String>,
    /// The pairings by their engines' indices.
    pairings: BTreeMap<(usize, usize), Tally>,
}

/// One row of the rating table.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// The engine's name.
    pub engine: String,
    /// Its maximum-likelihood rating.
    pub rating: Rating,
    /// Its games.
    pub games: u64,
    /// Its points: wins and half the draws.
    pub points: f64,
}

impl Standings {
    /// Empty standings of `engines` with the pairings `pairings` (pairs of
    /// engine indices, first below second); more pairings come with the
    /// games added.
    pub fn new(engines: Vec<String>, pairings: &[(usize, usize)]) -> Standings {
        let mut standings = Standings {
            engines,
            pairings: BTreeMap::new(),
        };
        for &(a, b) in pairings {
            standings.pairing(a, b);
        }
        standings
    }

    /// The tally of pairing (a, b), a < b, made if new.
    fn pairing(&mut self, a: usize, b: usize) -> &mut Tally {
        let names = [self.engines[a].clone(), self.engines[b].clone()];
        self.pairings
            .entry((a, b))
            .or_insert_with(|| Tally::new(names))
    }

    /// The engine called `name`.
    fn index(&self, name: &str) -> Option<usize> {
        self.engines.iter().position(|e| e == name)
    }

    /// Counts a finished game in its pairing's tally and returns that tally.
    /// Errors if it was not played by two of the engines.
    pub fn add<G: ArenaGame>(&mut self, game: &GameRecord<G>) -> Result<&Tally, TallyError> {
        let (x, o) = (self.index(&game.x), self.index(&game.o));
        let (Some(x), Some(o)) = (x, o) else {
            return Err(self.stranger(game));
        };
        if x == o {
            return Err(self.stranger(game));
        }
        let tally = self.pairing(x.min(o), x.max(o));
        tally.add(game)?;
        Ok(tally)
    }

    /// The error for a game not played by two of the engines.
    fn stranger<G: ArenaGame>(&self, game: &GameRecord<G>) -> TallyError {
        TallyError {
            game: game.game,
            x: game.x.clone(),
            o: game.o.clone(),
            engine: match &self.engines[..] {
                [one, _] => one.clone(),
                all => format!("two of {}", all.join(", ")),
            },
        }
    }

    /// The pairings' tallies, in order.
    pub fn tallies(&self) -> impl Iterator<Item = &Tally> {
        self.pairings.values()
    }

    /// The number of games counted.
    pub fn games(&self) -> u64 {
        self.tallies().map(Tally::games).sum()
    }

    /// The status of every pairing, e.g. `a vs b 2-0-1, a vs c 0-0-1`
    /// (wins, losses, draws of the first engine).
    pub fn status(&self) -> String {
        let parts: Vec<String> = self
            .tallies()
            .map(|t| {
                let w = &t.wdl;
                let [a, b] = &t.engines;
                format!("{a} vs {b} {}-{}-{}", w.wins, w.losses, w.draws)
            })
            .collect();
        parts.join(", ")
    }

    /// The faults of engine `engine` over all its pairings.
    fn faults(&self, engine: usize) -> [u64; 4] {
        let mut counts = [0; 4];
        for (&(a, b), tally) in &self.pairings {
            let side = if a == engine {
                0
            } else if b == engine {
                1
            } else {
                continue;
            };
            for (total, n) in counts.iter_mut().zip(tally.faults_of(side)) {
                *total += n;
            }
        }
        counts
    }

    /// The rating table, best first: the maximum-likelihood rating of each
    /// engine (see [`stats::ml_ratings`]; the first engine is fixed at 0),
    /// its games and points. Engines without a rating come last, by score.
    pub fn ratings(&self) -> Vec<RatingRow> {
        let n = self.engines.len();
        let scores: Vec<PairingScore> = self
            .pairings
            .iter()
            .map(|(&(a, b), t)| PairingScore {
                a,
                b,
                points: t.points(),
                games: t.games(),
            })
            .collect();
        let ratings = stats::ml_ratings(n, &scores);
        let mut rows: Vec<RatingRow> = (0..n)
            .map(|i| {
                let mut games = 0;
                let mut points = 0.0;
                for s in &scores {
                    if s.a == i {
                        games += s.games;
                        points += s.points;
                    } else if s.b == i {
                        games += s.games;
                        points += s.games as f64 - s.points;
                    }
                }
                RatingRow {
                    engine: self.engines[i].clone(),
                    rating: ratings[i],
                    games,
                    points,
                }
            })
            .collect();
        let score = |r: &RatingRow| {
            if r.games == 0 {
                0.0
            } else {
                r.points / r.games as f64
            }
        };
        // Stable: equal engines keep the --engine order.
        rows.sort_by(|p, q| match (p.rating.elo, q.rating.elo) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => score(q).total_cmp(&score(p)),
        });
        rows
    }

    /// The summary. With two engines the pairing's own summary (see
    /// [`Tally::summary`]); with more, the score line of every pairing, its
    /// Elo, LOS and pairs on one line, the rating table and the faults.
    pub fn summary(&self, sprt: Option<&Sprt>) -> String {
        if self.engines.len() == 2 {
            let tally =
                self.pairings.values().next().cloned().unwrap_or_else(|| {
                    Tally::new([self.engines[0].clone(), self.engines[1].clone()])
                });
            return tally.summary(sprt);
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<12}{} ({} pairings, {} games)",
            "engines",
            self.engines.join(", "),
            self.pairings.len(),
            self.games()
        );
        for tally in self.tallies() {
            let _ = writeln!(out, "{}", tally.score_line());
        }
        for tally in self.tallies() {
            let p = &tally.penta.counts;
            let _ = writeln!(
                out,
                "{:<12}{} vs {}: elo {}, penta {}, nelo {}, los {}, pairs {}: LL {} LD {} DD/WL {} WD {} WW {}",
                "pairing",
                tally.engines[0],
                tally.engines[1],
                elo_text(&stats::elo_trinomial(&tally.wdl)),
                elo_text(&stats::elo_pentanomial(&tally.penta)),
                elo_text(&stats::normalized_elo_pentanomial(&tally.penta)),
                los_text(tally.los()),
                tally.penta.pairs(),
                p[0],
                p[1],
                p[2],
                p[3],
                p[4]
            );
        }
        out.push_str(&self.rating_table());
        let faults: Vec<String> = (0..self.engines.len())
            .map(|i| format!("{} {}", self.engines[i], faults_text(&self.faults(i))))
            .collect();
        let _ = writeln!(out, "{:<12}{}", "faults", faults.join(", "));
        out
    }

    /// The summary's rating table: a heading line, then one row per engine,
    /// best first (rank, engine, Elo, interval, games, score).
    fn rating_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<12}maximum likelihood, {} fixed at 0, 95% intervals",
            "ratings", self.engines[0]
        );
        let rows = self.ratings();
        let width = rows
            .iter()
            .map(|r| r.engine.len())
            .max()
            .unwrap_or(0)
            .max(6);
        let _ = writeln!(
            out,
            "{:>6}  {:<width$}  {:>7}  {:<16}  {:>5}  {:>6}",
            "rank", "engine", "elo", "interval", "games", "score"
        );
        for (rank, row) in rows.iter().enumerate() {
            let elo = row.rating.elo.map_or("n/a".to_string(), signed);
            let interval = row.rating.interval.map_or("n/a".to_string(), |(l, u)| {
                format!("[{}, {}]", signed(l), signed(u))
            });
            let score = if row.games == 0 {
                "n/a".to_string()
            } else {
                format!("{:.1}%", 100.0 * row.points / row.games as f64)
            };
            let _ = writeln!(
                out,
                "{:>6}  {:<width$}  {elo:>7}  {interval:<16}  {:>5}  {score:>6}",
                rank + 1,
                row.engine,
                row.games
            );
        }
        out
    }

    /// The standings as JSON: engines, games, every pairing (see
    /// [`Tally::json`]; `sprt` applies with two engines), the rating table
    /// and each engine's faults.
    pub fn json(&self, sprt: Option<&Sprt>) -> Value {
        let sprt = sprt.filter(|_| self.engines.len() == 2);
        let pairings: Vec<Value> = self.tallies().map(|t| t.json(sprt)).collect();
        let ratings: Vec<Value> = self
            .ratings()
            .iter()
            .enumerate()
            .map(|(rank, row)| {
                json!({
                    "rank": rank + 1,
                    "engine": row.engine,
                    "elo": row.rating.elo,
                    "lower": row.rating.interval.map(|i| i.0),
                    "upper": row.rating.interval.map(|i| i.1),
                    "games": row.games,
                    "points": row.points,
                    "score": (row.games > 0).then(|| row.points / row.games as f64),
                })
            })
            .collect();
        let faults: serde_json::Map<String, Value> = (0..self.engines.len())
            .map(|i| (self.engines[i].clone(), faults_json(&self.faults(i))))
            .collect();
        json!({
            "engines": self.engines,
            "games": self.games(),
            "pairings": pairings,
            "ratings": {
                "model": "maximum likelihood (Bradley-Terry, draws half a point), 95% intervals from the Fisher information",
                "anchor": self.engines.first(),
                "table": ratings,
            },
            "faults": faults,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::openings::Opening;
    use crate::game::{Outcome, Player};

    const X_WINS: Outcome = Outcome::Win(Player::X);
    const O_WINS: Outcome = Outcome::Win(Player::O);

    fn game(number: u64, x: &str, o: &str, outcome: Outcome, end: Termination) -> GameRecord {
        GameRecord {
            game: number,
            pair: number.div_ceil(2),
            x: x.into(),
            o: o.into(),
            opening: Opening::Moves(vec![]),
            moves: vec![],
            notes: vec![],
            outcome,
            termination: end,
            reason: String::new(),
        }
    }

    fn engines() -> [String; 2] {
        ["base".to_string(), "new".to_string()]
    }

    #[test]
    fn counts_games_pairs_and_faults() {
        use Termination::*;
        let mut tally = Tally::new(engines());
        let games = [
            game(1, "base", "new", X_WINS, Normal),        // base wins
            game(2, "new", "base", X_WINS, Normal),        // base loses: pair WL
            game(3, "base", "new", Outcome::Draw, Normal), // draw
            game(4, "new", "base", X_WINS, Illegal),       // base loses by fault: pair LD
            game(5, "base", "new", X_WINS, Timeout),       // new times out: unpaired win
        ];
        for g in &games {
            tally.add(g).unwrap();
        }
        assert_eq!(tally.wdl, Wdl::new(2, 1, 2));
        assert_eq!(tally.penta.counts, [0, 1, 1, 0, 0]);
        assert_eq!(tally.unpaired(), 1);
        assert_eq!(tally.games(), 5);
        assert_eq!(faults_text(&tally.faults[0]), "1 (1 illegal)");
        assert_eq!(faults_text(&tally.faults[1]), "1 (1 timeout)");
        let stranger = game(6, "other", "new", Outcome::Draw, Normal);
        assert_eq!(
            tally.add(&stranger).unwrap_err().to_string(),
            "game 6 was played by other and new, not base"
        );
        assert_eq!(
            tally.score_line(),
            "Score of base vs new: 2 - 2 - 1  [0.500] 5"
        );
        assert_eq!(
            tally.progress(None),
            format!(
                "Score of base vs new: 2 - 2 - 1  [0.500] 5, Elo {}",
                elo_text(&stats::elo_trinomial(&tally.wdl))
            )
        );
        // During an SPRT: the LLR and its bounds.
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let progress = tally.progress(Some(&sprt));
        let llr = sprt.state(&tally.penta).llr;
        assert!(
            progress.ends_with(&format!(", LLR {llr:.2} (-2.94, 2.94)")),
            "{progress}"
        );
    }

    #[test]
    fn summary_lines() {
        use Termination::*;
        let mut tally = Tally::new(engines());
        for g in [
            game(1, "base", "new", X_WINS, Normal),
            game(2, "new", "base", O_WINS, Crash),
            game(3, "base", "new", Outcome::Draw, Normal),
        ] {
            tally.add(&g).unwrap();
        }
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let summary = tally.summary(Some(&sprt));
        let lines: Vec<&str> = summary.lines().collect();
        let lines = {
            assert_eq!(lines[0], "Score of base vs new: 2 - 0 - 1  [0.833] 3");
            &lines[1..]
        };
        assert_eq!(lines[0], "engines     base vs new (results for base)");
        assert_eq!(lines[1], "games       3: W 2 D 1 L 0");
        assert_eq!(lines[2], "score       83.3% (2.5 of 3)");
        // Wins and draws only: no upper end, so no interval.
        assert_eq!(lines[3], "elo         +279.6 [n/a] (trinomial)");
        // One pair, all won: no finite figure at all.
        assert_eq!(lines[4], "elo penta   n/a (pentanomial)");
        assert_eq!(lines[5], "nelo        n/a (normalized, pentanomial)");
        assert!(lines[6].starts_with("los         9"), "{}", lines[6]);
        assert_eq!(
            lines[7],
            "pairs       1: LL 0 LD 0 DD/WL 0 WD 0 WW 1, 1 game(s) without their pair"
        );
        assert_eq!(lines[8], "faults      base none, new 1 (1 crash)");
        assert!(
            lines[9].starts_with("sprt        nElo [0, 5], alpha 0.05, beta 0.05: LLR "),
            "{}",
            lines[9]
        );
        assert!(
            lines[9].ends_with("(bounds -2.94, 2.94), continue"),
            "{}",
            lines[9]
        );
        assert_eq!(lines.len(), 10);
        assert_eq!(tally.summary(None).lines().count(), 10);
    }

    #[test]
    fn empty_summary_is_neutral() {
        let summary = Tally::new(engines()).summary(None);
        assert!(summary.contains("games       0: W 0 D 0 L 0"), "{summary}");
        assert!(summary.contains("score       50.0% (0 of 0)"), "{summary}");
        assert!(summary.contains("elo         n/a (trinomial)"), "{summary}");
        assert!(summary.contains("nelo        n/a (normalized"), "{summary}");
        assert!(summary.contains("los         n/a"), "{summary}");
        let e = EloEstimate {
            elo: -0.0,
            lower: -1.0,
            upper: 2.0,
        };
        assert_eq!(elo_text(&e), "+0.0 [-1.0, +2.0]");
        let tiny = EloEstimate {
            elo: -1e-9,
            lower: -0.01,
            upper: 5.0,
        };
        assert_eq!(elo_text(&tiny), "+0.0 [+0.0, +5.0]");
        let json = Tally::new(engines()).json(None);
        assert_eq!(
            json["elo"],
            json!({"elo": null, "lower": null, "upper": null})
        );
        assert_eq!(json["los"], Value::Null);
    }

    #[test]
    fn one_pair_has_no_interval() {
        // The issue's case: after one pair LD, `elo penta -190.8 [-190.8,
        // -190.8]` and `nelo -inf` were shown.
        let mut tally = Tally::new(engines());
        tally
            .add(&game(1, "base", "new", O_WINS, Termination::Normal))
            .unwrap();
        tally
            .add(&game(2, "new", "base", Outcome::Draw, Termination::Normal))
            .unwrap();
        let summary = tally.summary(None);
        assert!(
            summary.contains("elo penta   -190.8 [n/a] (pentanomial)"),
            "{summary}"
        );
        assert!(summary.contains("nelo        n/a (normalized"), "{summary}");
        assert!(
            !summary.contains("inf") && !summary.contains("NaN"),
            "{summary}"
        );
        let json = tally.json(None);
        assert_eq!(json["nelo"]["elo"], Value::Null);
        assert_eq!(json["elo_pentanomial"]["lower"], Value::Null);
        assert!(json["elo_pentanomial"]["elo"].as_f64().unwrap() < -190.0);
    }

    /// The games of a round robin of `p`, `q` and `r`: p beats q 2-0, q and r
    /// draw twice, r beats p 1-0 with a draw.
    fn round_robin() -> Standings {
        use Termination::Normal;
        let names = ["p", "q", "r"].map(String::from).to_vec();
        let mut standings = Standings::new(names, &[(0, 1), (0, 2), (1, 2)]);
        for g in [
            game(1, "p", "q", X_WINS, Normal),
            game(2, "q", "p", O_WINS, Normal),
            game(3, "p", "r", O_WINS, Normal),
            game(4, "r", "p", Outcome::Draw, Normal),
            game(5, "q", "r", Outcome::Draw, Normal),
            game(6, "r", "q", Outcome::Draw, Termination::Timeout),
        ] {
            standings.add(&g).unwrap_or_else(|e| panic!("{e}"));
        }
        standings
    }

    #[test]
    fn standings_of_a_round_robin() {
        let standings = round_robin();
        assert_eq!(standings.games(), 6);
        assert_eq!(
            standings.status(),
            "p vs q 2-0-0, p vs r 0-1-1, q vs r 0-0-2"
        );
        let summary = standings.summary(None);
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(lines[0], "engines     p, q, r (3 pairings, 6 games)");
        assert_eq!(lines[1], "Score of p vs q: 2 - 0 - 0  [1.000] 2");
        assert_eq!(lines[2], "Score of p vs r: 0 - 1 - 1  [0.250] 2");
        assert_eq!(lines[3], "Score of q vs r: 0 - 0 - 2  [0.500] 2");
        assert!(
            lines[4].starts_with("pairing     p vs q: elo n/a, penta n/a, nelo n/a, los 9"),
            "{}",
            lines[4]
        );
        assert!(lines[6].contains("q vs r: elo +0.0 [n/a], penta +0.0 [n/a], nelo n/a, los n/a, pairs 1: LL 0 LD 0 DD/WL 1 WD 0 WW 0"), "{}", lines[6]);
        assert_eq!(
            lines[7],
            "ratings     maximum likelihood, p fixed at 0, 95% intervals"
        );
        assert!(
            lines[8].trim_start().starts_with("rank  engine"),
            "{}",
            lines[8]
        );
        assert_eq!(lines.len(), 13, "{summary}");
        assert_eq!(lines[12], "faults      p none, q none, r none");
        // q scored nothing against p but drew r, who scored against p: a
        // finite maximum; r above p above q.
        let rows = standings.ratings();
        let order: Vec<&str> = rows.iter().map(|r| r.engine.as_str()).collect();
        assert_eq!(order, ["r", "p", "q"]);
        assert!(rows.iter().all(|r| r.rating.elo.is_some()));
        assert_eq!(rows[1].rating.interval, None, "p is fixed");
        assert_eq!((rows[0].games, rows[0].points), (4, 2.5));
        assert!(
            lines[9].contains("r ") && lines[9].ends_with("62.5%"),
            "{}",
            lines[9]
        );
        let stranger = game(7, "p", "p", X_WINS, Termination::Normal);
        let mut standings = standings;
        assert_eq!(
            standings.add(&stranger).unwrap_err().to_string(),
            "game 7 was played by p and p, not two of p, q, r"
        );
    }

    #[test]
    fn an_engine_that_won_everything_has_no_rating() {
        use Termination::Normal;
        let names = ["p", "q", "r"].map(String::from).to_vec();
        let mut standings = Standings::new(names, &[(0, 1), (0, 2)]);
        for g in [
            game(1, "p", "q", X_WINS, Normal),
            game(2, "q", "p", O_WINS, Normal),
            game(3, "p", "r", X_WINS, Normal),
            game(4, "r", "p", O_WINS, Normal),
        ] {
            standings.add(&g).unwrap();
        }
        let summary = standings.summary(None);
        assert!(
            !summary.contains("inf") && !summary.contains("NaN"),
            "{summary}"
        );
        let rows = standings.ratings();
        assert_eq!(rows[0].engine, "p");
        assert!(rows[1].rating.elo.is_none() && rows[2].rating.elo.is_none());
        let json = standings.json(None);
        assert_eq!(json["ratings"]["table"][1]["elo"], Value::Null);
        assert_eq!(json["ratings"]["table"][1]["score"], json!(0.0));
    }

    #[test]
    fn json_of_the_standings() {
        let json = round_robin().json(None);
        assert_eq!(json["engines"], json!(["p", "q", "r"]));
        assert_eq!(json["games"], 6);
        let pairings = json["pairings"].as_array().unwrap();
        assert_eq!(pairings.len(), 3);
        let first = &pairings[0];
        assert_eq!(first["engines"], json!(["p", "q"]));
        assert_eq!(
            (
                first["wins"].clone(),
                first["draws"].clone(),
                first["losses"].clone()
            ),
            (json!(2), json!(0), json!(0))
        );
        assert_eq!(first["pentanomial"], json!([0, 0, 0, 0, 1]));
        assert_eq!(first["sprt"], Value::Null);
        assert!(first["los"].as_f64().unwrap() > 0.9);
        let keys = ["elo", "elo_pentanomial", "nelo"];
        for key in keys {
            assert!(first[key].get("lower").is_some(), "{key}");
        }
        let table = json["ratings"]["table"].as_array().unwrap();
        assert_eq!(table.len(), 3);
        assert_eq!(table[0]["engine"], "r");
        assert_eq!(table[0]["rank"], 1);
        assert!(table[0]["lower"].as_f64().unwrap() < table[0]["elo"].as_f64().unwrap());
        assert_eq!(json["ratings"]["anchor"], "p");
        assert_eq!(
            json["faults"]["q"],
            json!({"illegal": 0, "timeout": 0, "crash": 0})
        );
        // Two engines: the SPRT's state in the pairing.
        let mut two = Standings::new(vec!["a".into(), "b".into()], &[(0, 1)]);
        two.add(&game(1, "a", "b", X_WINS, Termination::Normal))
            .unwrap();
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let json = two.json(Some(&sprt));
        assert_eq!(json["pairings"][0]["sprt"]["decision"], "continue");
        assert_eq!(json["pairings"][0]["sprt"]["elo1"], json!(5.0));
    }

    #[test]
    fn sprt_settings_are_checked() {
        assert!(Sprt::new(&[0.0, 5.0, 0.05, 0.05]).is_ok());
        assert!(Sprt::new(&[-3.0, 0.0, 0.1, 0.2]).is_ok());
        for bad in [
            &[0.0, 5.0, 0.05][..],
            &[5.0, 0.0, 0.05, 0.05],
            &[0.0, 0.0, 0.05, 0.05],
            &[0.0, f64::NAN, 0.05, 0.05],
            &[0.0, 5.0, 0.0, 0.05],
            &[0.0, 5.0, 0.05, 1.0],
            &[0.0, 5.0, 0.6, 0.5],
        ] {
            assert!(Sprt::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Sprt::new(&[0.0, 5.0, 0.6, 0.5]).unwrap_err().to_string(),
            "--sprt: ALPHA and BETA must be between 0 and 1 with a sum below 1 (got 0.6 and 0.5)"
        );
        assert_eq!(Sprt::new(&[1.0]), Err(SprtError::Count));
    }

    #[test]
    fn sprt_decides_on_lopsided_pairs() {
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let state = sprt.state(&Pentanomial::new([0, 10, 10, 300, 50]));
        assert_eq!(state.decision(), SprtDecision::AcceptH1);
        let state = sprt.state(&Pentanomial::new([50, 300, 10, 10, 0]));
        assert_eq!(state.decision(), SprtDecision::AcceptH0);
        let state = sprt.state(&Pentanomial::default());
        assert_eq!(state.decision(), SprtDecision::Continue);
    }
}
