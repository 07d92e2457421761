//! The running score of a match and its summary: win/draw/loss counts of the
//! first engine, game pairs, faults, Elo, LOS and the SPRT.

use fxhash::FxHashMap;
use std::fmt::Write as _;

use crate::arena::openings::ArenaGame;
use crate::arena::record::{GameRecord, Termination};
use crate::arena::stats::{self, EloEstimate, Pentanomial, SprtDecision, SprtState, Wdl};
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

    /// The faults of engine `engine` (0 or 1) as text, e.g.
    /// `2 (1 illegal, 1 timeout)` or `none`.
    fn faults_text(&self, engine: usize) -> String {
        let counts = &self.faults[engine];
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

    /// One line of progress after a game: the counts, score and Elo.
    pub fn progress(&self) -> String {
        let elo = stats::elo_trinomial(&self.wdl);
        format!(
            "{} W {} D {} L {}, score {:.1}%, Elo {}",
            self.engines[0],
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            100.0 * self.wdl.score(),
            elo_text(&elo),
        )
    }

    /// The summary: counts, score, Elo with 95% intervals (trinomial,
    /// pentanomial, normalized), LOS, pair counts, faults and, with `sprt`,
    /// the test's LLR and decision. One `name: value` line each.
    pub fn summary(&self, sprt: Option<&Sprt>) -> String {
        let [one, two] = &self.engines;
        let w = &self.wdl;
        let p = &self.penta.counts;
        let mut out = String::new();
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
        line("los", format!("{:.1}%", 100.0 * stats::los(w)));
        let unpaired = match self.unpaired() {
            0 => String::new(),
            n => format!(", {n} game(s) without their pair"),
        };
        line(
            "pairs",
            format!(
                "{}: LL {} LD {} DD/WL {} WD {} WW {}{unpaired}",
                self.penta.pairs(),
                p[0],
                p[1],
                p[2],
                p[3],
                p[4]
            ),
        );
        line(
            "faults",
            format!(
                "{one} {}, {two} {}",
                self.faults_text(0),
                self.faults_text(1)
            ),
        );
        if let Some(sprt) = sprt {
            let state = sprt.state(&self.penta);
            let decision = match state.decision() {
                SprtDecision::Continue => "continue".to_string(),
                SprtDecision::AcceptH0 => format!("H0 accepted (nElo <= {})", sprt.elo0),
                SprtDecision::AcceptH1 => format!("H1 accepted (nElo >= {})", sprt.elo1),
            };
            line(
                "sprt",
                format!(
                    "nElo [{}, {}], alpha {}, beta {}: LLR {:.2} (bounds {:.2}, {:.2}), {decision}",
                    sprt.elo0,
                    sprt.elo1,
                    sprt.alpha,
                    sprt.beta,
                    state.llr,
                    state.lower,
                    state.upper
                ),
            );
        }
        out
    }
}

/// An Elo estimate as `+12.3 [-4.5, +29.1]`.
fn elo_text(e: &EloEstimate) -> String {
    // Adding 0.0 turns -0.0 into 0.0, so that no "-0.0" is shown.
    let [elo, lower, upper] = [e.elo, e.lower, e.upper].map(|v| v + 0.0);
    format!("{elo:+.1} [{lower:+.1}, {upper:+.1}]")
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
        assert_eq!(tally.faults_text(0), "1 (1 illegal)");
        assert_eq!(tally.faults_text(1), "1 (1 timeout)");
        let stranger = game(6, "other", "new", Outcome::Draw, Normal);
        assert_eq!(
            tally.add(&stranger).unwrap_err().to_string(),
            "game 6 was played by other and new, not base"
        );
        assert_eq!(
            tally.progress(),
            format!(
                "base W 2 D 1 L 2, score 50.0%, Elo {}",
                elo_text(&stats::elo_trinomial(&tally.wdl))
            )
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
        assert_eq!(lines[0], "engines     base vs new (results for base)");
        assert_eq!(lines[1], "games       3: W 2 D 1 L 0");
        assert_eq!(lines[2], "score       83.3% (2.5 of 3)");
        assert!(lines[3].starts_with("elo         +279.6 ["), "{}", lines[3]);
        assert_eq!(lines[4], "elo penta   +inf [+inf, +inf] (pentanomial)");
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
        assert_eq!(tally.summary(None).lines().count(), 9);
    }

    #[test]
    fn empty_summary_is_neutral() {
        let summary = Tally::new(engines()).summary(None);
        assert!(summary.contains("games       0: W 0 D 0 L 0"), "{summary}");
        assert!(summary.contains("score       50.0% (0 of 0)"), "{summary}");
        assert!(
            summary.contains("elo         +0.0 [-inf, +inf]"),
            "{summary}"
        );
        assert!(summary.contains("los         50.0%"), "{summary}");
        let e = EloEstimate {
            elo: -0.0,
            lower: -1.0,
            upper: f64::INFINITY,
        };
        assert_eq!(elo_text(&e), "+0.0 [-1.0, +inf]");
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
