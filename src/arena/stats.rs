//! Match statistics for the match runner, following the conventions of chess
//! testing frameworks (cutechess, fastchess, OpenBench): score and Elo with a
//! 95% interval from win/draw/loss counts (trinomial) or from game pairs
//! (pentanomial), likelihood of superiority, normalized Elo, and the
//! sequential probability ratio test (SPRT) with a BayesElo trinomial LLR and
//! a normalized-Elo pentanomial generalized LLR.
//!
//! Every function accepts degenerate inputs (no games, all draws, all wins,
//! zero variance) without panicking, and none returns NaN for counts it is
//! given: each documents the value it returns instead (a neutral score, an
//! infinite Elo or interval end, or an LLR of 0).

use std::f64::consts::LN_10;

use crate::game::Verdict;

/// The multiplier of the standard error for a two-sided 95% interval, as the
/// testing frameworks round it.
pub const Z_95: f64 = 1.96;

/// The factor from a normalized t-value (score excess over 1/2 in standard
/// deviations per game) to normalized Elo: 800 / ln 10.
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// The count that stands in for an outcome never seen when computing an LLR,
/// so that every outcome has a positive probability (OpenBench's convention).
const ZERO_COUNT: f64 = 1e-3;

/// The score of each pentanomial category: a pair scores 0, 1/4, 1/2, 3/4 or 1.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Half points earned by the first engine: 2 for a win, 1 for a draw, 0
/// for a loss.
fn half_points(result: Verdict) -> usize {
    match result {
        Verdict::Win => 2,
        Verdict::Draw => 1,
        Verdict::Loss => 0,
    }
}

/// Win, draw and loss counts of the first engine (the trinomial model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Games won by the first engine.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost by the first engine.
    pub losses: u64,
}

impl Wdl {
    /// The counts `wins`, `draws`, `losses`.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Counts one more game.
    pub fn add(&mut self, result: Verdict) {
        match result {
            Verdict::Win => self.wins += 1,
            Verdict::Draw => self.draws += 1,
            Verdict::Loss => self.losses += 1,
        }
    }

    /// The number of games N = W + D + L.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The score (W + D/2) / N, in [0, 1]; 1/2 when no game was played.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// The observed frequency and score of each outcome, as
    /// `(probability, score)` for loss, draw and win.
    fn distribution(&self) -> [(f64, f64); 3] {
        let n = self.games() as f64;
        [
            (self.losses as f64 / n, 0.0),
            (self.draws as f64 / n, 0.5),
            (self.wins as f64 / n, 1.0),
        ]
    }
}

/// Counts of game pairs by pair score (the pentanomial model): each opening is
/// played twice with colours swapped, and `counts[i]` is the number of pairs
/// in which the first engine scored i/4 of the two games' points, that is
/// LL, LD, DD or WL, WD and WW.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs scoring 0, 1/4, 1/2, 3/4 and 1, in that order.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// The counts of pairs scoring 0, 1/4, 1/2, 3/4 and 1.
    pub fn new(counts: [u64; 5]) -> Self {
        Pentanomial { counts }
    }

    /// Counts one more pair, given each game's result from the point of view
    /// of the first engine (not of the engine that moved first).
    pub fn add_pair(&mut self, first: Verdict, second: Verdict) {
        self.counts[half_points(first) + half_points(second)] += 1;
    }

    /// The number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The number of games, twice the number of pairs.
    pub fn games(&self) -> u64 {
        2 * self.pairs()
    }

    /// The score of the first engine over all games, in [0, 1]; 1/2 when no
    /// pair was played.
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let half_points: u64 = self
            .counts
            .iter()
            .enumerate()
            .map(|(i, &c)| i as u64 * c)
            .sum();
        half_points as f64 / (4 * n) as f64
    }

    /// The observed frequency and score of each pair score, as
    /// `(probability, score)`.
    fn distribution(&self) -> [(f64, f64); 5] {
        let n = self.pairs() as f64;
        std::array::from_fn(|i| (self.counts[i] as f64 / n, PAIR_SCORES[i]))
    }
}

/// The Elo difference that gives expected score `s`: -400 log10(1/s - 1).
///
/// Returns positive infinity for `s >= 1`, negative infinity for `s <= 0`,
/// and NaN only for a NaN `s`.
pub fn elo_from_score(s: f64) -> f64 {
    if s.is_nan() {
        f64::NAN
    } else if s >= 1.0 {
        f64::INFINITY
    } else if s <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The estimated Elo difference (infinite when one side scored
    /// everything).
    pub elo: f64,
    /// The lower end of the 95% interval (may be negative infinity).
    pub lower: f64,
    /// The upper end of the 95% interval (may be positive infinity).
    pub upper: f64,
}

impl EloEstimate {
    /// The estimate when nothing is known: 0 Elo, interval the whole line.
    pub const UNKNOWN: EloEstimate = EloEstimate {
        elo: 0.0,
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
    };
}

/// Mean and variance of a distribution given as `(probability, value)`.
fn mean_variance(dist: &[(f64, f64)]) -> (f64, f64) {
    let mean: f64 = dist.iter().map(|&(p, x)| p * x).sum();
    let var: f64 = dist.iter().map(|&(p, x)| p * (x - mean) * (x - mean)).sum();
    (mean, var.max(0.0))
}

/// Elo and its interval from `n` independent samples of the score with the
/// observed distribution `dist`: s +- 1.96 sigma / sqrt(n), each end
/// converted to Elo.
fn elo_estimate(dist: &[(f64, f64)], n: u64) -> EloEstimate {
    if n == 0 {
        return EloEstimate::UNKNOWN;
    }
    let (s, var) = mean_variance(dist);
    let margin = Z_95 * var.sqrt() / (n as f64).sqrt();
    EloEstimate {
        elo: elo_from_score(s),
        lower: elo_from_score(s - margin),
        upper: elo_from_score(s + margin),
    }
}

/// Elo with its 95% interval from win/draw/loss counts (trinomial model):
/// the score is s = (W + D/2) / N, sigma^2 = sum p_i (x_i - s)^2 over the
/// outcomes (x = 1, 1/2, 0), the interval is s +- 1.96 sigma / sqrt(N), and
/// each end is converted with [`elo_from_score`].
///
/// With no games this is [`EloEstimate::UNKNOWN`]; an interval end beyond a
/// score of 0 or 1 is infinite (so all wins give +inf everywhere), and zero
/// variance (all draws) gives an empty interval around the estimate.
pub fn elo_trinomial(wdl: &Wdl) -> EloEstimate {
    elo_estimate(&wdl.distribution(), wdl.games())
}

/// Elo with its 95% interval from game pairs (pentanomial model): as
/// [`elo_trinomial`] but over pair scores (0, 1/4, 1/2, 3/4, 1) with N the
/// number of pairs, which removes the openings' bias from the error.
///
/// Degenerate inputs are handled as in [`elo_trinomial`].
pub fn elo_pentanomial(penta: &Pentanomial) -> EloEstimate {
    elo_estimate(&penta.distribution(), penta.pairs())
}

/// Normalized Elo with its 95% interval from game pairs:
/// nElo = (s - 1/2) / sigma * 800 / ln 10, where sigma = sqrt(2) * sigma_pair
/// is the per-game standard deviation implied by the pair scores' standard
/// deviation sigma_pair. The interval converts the ends of the score interval
/// s +- 1.96 sigma_pair / sqrt(pairs) the same way, which is
/// nElo +- 1.96 * (800 / ln 10) / sqrt(2 * pairs).
///
/// With no pairs, or zero variance with a score of exactly 1/2 (all pairs
/// scoring 1/2), this is [`EloEstimate::UNKNOWN`]; zero variance with any
/// other score gives an infinite estimate and interval of that sign.
pub fn normalized_elo_pentanomial(penta: &Pentanomial) -> EloEstimate {
    let n = penta.pairs();
    if n == 0 {
        return EloEstimate::UNKNOWN;
    }
    let (s, var) = mean_variance(&penta.distribution());
    let excess = s - 0.5;
    if var <= 0.0 {
        if excess == 0.0 {
            return EloEstimate::UNKNOWN;
        }
        let inf = f64::INFINITY.copysign(excess);
        return EloEstimate {
            elo: inf,
            lower: inf,
            upper: inf,
        };
    }
    let sigma_game = (2.0 * var).sqrt();
    let nelo = excess / sigma_game * NELO_PER_T;
    let margin = Z_95 * NELO_PER_T / (2.0 * n as f64).sqrt();
    EloEstimate {
        elo: nelo,
        lower: nelo - margin,
        upper: nelo + margin,
    }
}

/// The likelihood of superiority of the first engine,
/// 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))); draws do not count.
///
/// Returns 1/2 when there was no decisive game.
pub fn los(wdl: &Wdl) -> f64 {
    let decisive = wdl.wins + wdl.losses;
    if decisive == 0 {
        return 0.5;
    }
    let diff = wdl.wins as f64 - wdl.losses as f64;
    0.5 + 0.5 * libm::erf(diff / (2.0 * decisive as f64).sqrt())
}

/// The SPRT's log-likelihood-ratio bounds `(lower, upper)` =
/// (ln(beta / (1 - alpha)), ln((1 - beta) / alpha)) for false-positive rate
/// `alpha` and false-negative rate `beta`; +-2.944 at alpha = beta = 0.05.
///
/// A rate of 0 makes its bound infinite (that hypothesis is never accepted).
/// Rates that are NaN, negative, or with alpha + beta >= 1 make no test:
/// they give (-inf, +inf), so the test never stops.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    let valid = alpha >= 0.0 && beta >= 0.0 && alpha + beta < 1.0;
    if !valid {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The BayesElo model's loss, draw and win probabilities at BayesElo `elo`
/// and draw Elo `drawelo`.
fn bayeselo_probabilities(elo: f64, drawelo: f64) -> [f64; 3] {
    let win = 1.0 / (1.0 + 10f64.powf((drawelo - elo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((drawelo + elo) / 400.0));
    [loss, 1.0 - win - loss, win]
}

/// The SPRT log-likelihood ratio of H1 (BayesElo `elo1`) against H0
/// (BayesElo `elo0`) for win/draw/loss counts, as cutechess and OpenBench
/// compute it: the draw Elo is estimated from the observed frequencies,
/// drawelo = 200 log10((1 - pL) / pL * (1 - pW) / pW), the model gives
/// P(win | e) = 1 / (1 + 10^((drawelo - e) / 400)) and
/// P(loss | e) = 1 / (1 + 10^((drawelo + e) / 400)), and
/// LLR = sum over outcomes of n_i ln(P1_i / P0_i).
///
/// A count of zero is taken as 1e-3 so that the draw Elo stays finite (as
/// OpenBench does). With no games, NaN hypotheses, or a result that would not
/// be finite, the LLR is 0.
pub fn llr_trinomial(wdl: &Wdl, elo0: f64, elo1: f64) -> f64 {
    if wdl.games() == 0 || elo0.is_nan() || elo1.is_nan() {
        return 0.0;
    }
    let counts = [wdl.losses, wdl.draws, wdl.wins].map(|c| (c as f64).max(ZERO_COUNT));
    let n: f64 = counts.iter().sum();
    let (p_loss, p_win) = (counts[0] / n, counts[2] / n);
    let drawelo = 200.0 * ((1.0 - p_loss) / p_loss * (1.0 - p_win) / p_win).log10();
    let p0 = bayeselo_probabilities(elo0, drawelo);
    let p1 = bayeselo_probabilities(elo1, drawelo);
    let llr: f64 = (0..3).map(|i| counts[i] * (p1[i] / p0[i]).ln()).sum();
    if llr.is_finite() { llr } else { 0.0 }
}

/// Finds the Lagrange multiplier `lambda` with
/// sum_i p_i a_i / (1 + lambda a_i) = 0 and every 1 + lambda a_i > 0, by
/// bisection. The left side falls from +inf to -inf as lambda crosses the
/// interval (-1 / max a, -1 / min a), so the root exists and is unique when
/// the a_i (all p_i > 0) take both signs; otherwise there is none.
fn lagrange_multiplier(p: &[f64; 5], a: &[f64; 5]) -> Option<f64> {
    let a_max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let a_min = a.iter().copied().fold(f64::INFINITY, f64::min);
    if !(a_max > 0.0 && a_min < 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (-1.0 / a_max, -1.0 / a_min);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let f: f64 = (0..5).map(|i| p[i] * a[i] / (1.0 + mid * a[i])).sum();
        if f > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The t-value per pair, (mean - 1/2) / sigma, of the distribution `q` over
/// the pair scores, or `None` when its variance is zero.
fn t_value(q: &[f64; 5]) -> Option<f64> {
    let dist: [(f64, f64); 5] = std::array::from_fn(|i| (q[i], PAIR_SCORES[i]));
    let (mu, var) = mean_variance(&dist);
    (var > 0.0).then(|| (mu - 0.5) / var.sqrt())
}

/// One solve of [`constrained_mle`] for t-value `t`, starting from `start`:
/// the fixed-point iteration, or `None` when it fails or does not converge.
fn constrained_mle_from(p: &[f64; 5], start: &[f64; 5], t: f64) -> Option<[f64; 5]> {
    let mut q = *start;
    for _ in 0..100 {
        let dist: [(f64, f64); 5] = std::array::from_fn(|i| (q[i], PAIR_SCORES[i]));
        let (mu, var) = mean_variance(&dist);
        if var <= 0.0 {
            return None;
        }
        let sigma = var.sqrt();
        let a: [f64; 5] = std::array::from_fn(|i| {
            let d = PAIR_SCORES[i] - mu;
            PAIR_SCORES[i] - 0.5 - t * (var + d * d) / (2.0 * sigma)
        });
        let lambda = lagrange_multiplier(p, &a)?;
        let mut next: [f64; 5] = std::array::from_fn(|i| p[i] / (1.0 + lambda * a[i]));
        let total: f64 = next.iter().sum();
        if !(total.is_finite() && total > 0.0) {
            return None;
        }
        next.iter_mut().for_each(|x| *x /= total);
        if next.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return None;
        }
        let change = (0..5).map(|i| (next[i] - q[i]).abs()).fold(0.0, f64::max);
        q = next;
        if change < 1e-12 {
            return Some(q);
        }
    }
    None
}

/// The most likely distribution over the pair scores, given the observed
/// frequencies `p` (all positive), among those whose t-value per pair
/// (mean - 1/2) / sigma equals `t`; `None` if it cannot be found.
///
/// Maximizing sum p_i ln q_i subject to sum q_i = 1 and
/// mu(q) - 1/2 - t sigma(q) = 0 gives q_i = p_i / (1 + lambda a_i), where a_i
/// is the constraint's gradient at q, taken as
/// x_i - 1/2 - t (sigma^2 + (x_i - mu)^2) / (2 sigma) so that the condition
/// sum q_i a_i = 0, which fixes lambda, is the constraint itself. Since a
/// depends on q through mu and sigma, this repeats, with a from the previous
/// q, until q stops changing (a few rounds near the answer).
///
/// The iteration only converges from a start near the answer, so the
/// t-value is moved from that of `p` itself (where q = p) towards `t` by
/// continuation: each step starts from the previous answer, doubling the
/// step after a success and halving it after a failure.
fn constrained_mle(p: &[f64; 5], t: f64) -> Option<[f64; 5]> {
    let mut at = t_value(p)?;
    let mut q = *p;
    let mut step = t - at;
    for _ in 0..400 {
        if at == t {
            return Some(q);
        }
        let remaining = t - at;
        let target = if remaining.abs() <= step.abs() {
            t
        } else {
            at + step
        };
        match constrained_mle_from(p, &q, target) {
            Some(next) => {
                q = next;
                at = target;
                step *= 2.0;
            }
            None => {
                step *= 0.5;
                if step.abs() < 1e-12 * (1.0 + remaining.abs()) {
                    return None;
                }
            }
        }
    }
    None
}

/// The generalized SPRT log-likelihood ratio of H1 (normalized Elo `nelo1`)
/// against H0 (normalized Elo `nelo0`) for game pairs, as fastchess and
/// OpenBench compute it: each normalized Elo is turned into a t-value per
/// pair, t = nelo / (800 / ln 10) * sqrt(2); for each hypothesis the most
/// likely distribution q over the pair scores with that t-value,
/// (mean - 1/2) / sigma = t, is found; and LLR = N sum p_i ln(q1_i / q0_i)
/// with p the observed frequencies and N the number of pairs.
///
/// A count of zero is taken as 1e-3 (as OpenBench does) so that every
/// frequency is positive. With no pairs, hypotheses that are not finite, a
/// distribution that cannot be found, or a result that would not be finite,
/// the LLR is 0.
pub fn llr_pentanomial(penta: &Pentanomial, nelo0: f64, nelo1: f64) -> f64 {
    if penta.pairs() == 0 || !nelo0.is_finite() || !nelo1.is_finite() {
        return 0.0;
    }
    let counts = penta.counts.map(|c| (c as f64).max(ZERO_COUNT));
    let n: f64 = counts.iter().sum();
    let p = counts.map(|c| c / n);
    let t = |nelo: f64| nelo / NELO_PER_T * std::f64::consts::SQRT_2;
    let (Some(q0), Some(q1)) = (constrained_mle(&p, t(nelo0)), constrained_mle(&p, t(nelo1)))
    else {
        return 0.0;
    };
    let llr: f64 = (0..5).map(|i| counts[i] * (q1[i] / q0[i]).ln()).sum();
    if llr.is_finite() { llr } else { 0.0 }
}

/// What an SPRT says after the games so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// Neither bound was reached: play more games.
    Continue,
    /// The LLR reached the lower bound: accept H0 (elo0), the test fails.
    AcceptH0,
    /// The LLR reached the upper bound: accept H1 (elo1), the test passes.
    AcceptH1,
}

/// The SPRT decision for log-likelihood ratio `llr` and bounds
/// `(lower, upper)` from [`sprt_bounds`]: accept H1 when llr >= upper, H0
/// when llr <= lower, otherwise continue. A NaN LLR continues.
pub fn sprt_decision(llr: f64, bounds: (f64, f64)) -> SprtDecision {
    let (lower, upper) = bounds;
    if llr >= upper {
        SprtDecision::AcceptH1
    } else if llr <= lower {
        SprtDecision::AcceptH0
    } else {
        SprtDecision::Continue
    }
}

/// The state of an SPRT: the current log-likelihood ratio and the bounds it
/// is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtState {
    /// The current log-likelihood ratio.
    pub llr: f64,
    /// The lower bound: at or below it H0 is accepted.
    pub lower: f64,
    /// The upper bound: at or above it H1 is accepted.
    pub upper: f64,
}

impl SprtState {
    /// The state with LLR `llr` and the bounds for rates `alpha` and `beta`
    /// (see [`sprt_bounds`]).
    pub fn new(llr: f64, alpha: f64, beta: f64) -> Self {
        let (lower, upper) = sprt_bounds(alpha, beta);
        SprtState { llr, lower, upper }
    }

    /// The decision for this state (see [`sprt_decision`]).
    pub fn decision(&self) -> SprtDecision {
        sprt_decision(self.llr, (self.lower, self.upper))
    }
}

impl EloEstimate {
    /// The figures that have a meaning, as `(estimate, interval)`: the
    /// estimate when it is finite, and the interval when the estimate is
    /// finite and the interval's ends are finite and apart (an interval of
    /// width zero comes from zero variance, e.g. a single pair, and says
    /// nothing). An estimate whose interval is the whole line (no games)
    /// has no meaning either. Whatever is `None` is shown as `n/a`.
    pub fn meaningful(&self) -> (Option<f64>, Option<(f64, f64)>) {
        let unbounded = self.lower == f64::NEG_INFINITY && self.upper == f64::INFINITY;
        if !self.elo.is_finite() || unbounded {
            return (None, None);
        }
        let interval =
            (self.lower.is_finite() && self.upper.is_finite() && self.lower < self.upper)
                .then_some((self.lower, self.upper));
        (Some(self.elo), interval)
    }
}

/// The results of one pairing for [`ml_ratings`]: engines `a` and `b`
/// (indices), the points `a` scored (a draw is half a point) and the games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairingScore {
    /// The first engine.
    pub a: usize,
    /// The second engine.
    pub b: usize,
    /// The points of `a`: wins plus half the draws.
    pub points: f64,
    /// The games played.
    pub games: u64,
}

/// One engine's maximum-likelihood rating, from [`ml_ratings`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The Elo relative to the first engine (which is 0), or `None` when
    /// it has no finite maximum-likelihood value.
    pub elo: Option<f64>,
    /// The 95% interval, or `None` (always for the first engine, whose
    /// rating is fixed, and whenever `elo` is `None`).
    pub interval: Option<(f64, f64)>,
}

/// The factor from Elo to the logistic model's natural units: ln 10 / 400.
const ELO_UNIT: f64 = LN_10 / 400.0;

/// Maximum-likelihood Elo ratings of `n` engines from the results of their
/// pairings (the Bradley-Terry model on the Elo scale): engine i scores
/// against engine j with probability p_ij = 1 / (1 + 10^((r_j - r_i) / 400)),
/// a draw counts as half a win and half a loss, and the ratings maximize
/// sum over pairings of s_ij ln p_ij + (n_ij - s_ij) ln(1 - p_ij). The first
/// engine is fixed at 0, so every rating is a difference to it.
///
/// The 95% intervals are r_i +- 1.96 sqrt(C_ii), where C is the inverse of
/// the Fisher information (the negated Hessian of the log-likelihood at the
/// maximum) over engines 2..n. With two engines this gives the rating
/// -elo_from_score(s) of the second engine, s being the first engine's
/// score. The intervals take draws as half wins, so with many draws they
/// are wider than the trinomial ones.
///
/// The maximum is finite only when every engine scored some points, directly
/// or through others, against every other engine (the graph "i scored
/// against j" is strongly connected). Otherwise, e.g. when an engine won all
/// its games, or when an engine played no game, every rating but the first's
/// fixed 0 is `None`; so is every rating when Newton's method does not
/// converge. Nothing returned is NaN.
pub fn ml_ratings(n: usize, pairings: &[PairingScore]) -> Vec<Rating> {
    let none = Rating {
        elo: None,
        interval: None,
    };
    let mut ratings = vec![none; n];
    if n == 0 {
        return ratings;
    }
    ratings[0].elo = Some(0.0);
    let valid = pairings.iter().all(|p| {
        p.a < n
            && p.b < n
            && p.a != p.b
            && p.points.is_finite()
            && p.points >= 0.0
            && p.points <= p.games as f64
    });
    if n == 1 || !valid || !strongly_connected(n, pairings) {
        return ratings;
    }
    // Newton's method on theta = r * ln 10 / 400 of engines 1..n (theta_0 = 0).
    let m = n - 1;
    let mut theta = vec![0.0; n];
    let log_likelihood = |theta: &[f64]| -> f64 {
        pairings
            .iter()
            .filter(|p| p.games > 0)
            .map(|p| {
                let d = theta[p.a] - theta[p.b];
                // ln p = -ln(1 + e^-d), ln(1 - p) = -ln(1 + e^d), stably.
                let ln_p = -softplus(-d);
                let ln_q = -softplus(d);
                p.points * ln_p + (p.games as f64 - p.points) * ln_q
            })
            .sum()
    };
    let mut converged = false;
    for _ in 0..100 {
        let (gradient, information) = gradient_information(n, pairings, &theta);
        let Some(step) = solve(&information, &gradient[1..]) else {
            return ratings;
        };
        let before = log_likelihood(&theta);
        let mut scale = 1.0;
        let mut next = theta.clone();
        loop {
            for i in 0..m {
                next[i + 1] = theta[i + 1] + scale * step[i];
            }
            if log_likelihood(&next) >= before - 1e-12 || scale < 1e-6 {
                break;
            }
            scale *= 0.5;
        }
        let change = (0..m)
            .map(|i| (next[i + 1] - theta[i + 1]).abs())
            .fold(0.0, f64::max);
        theta = next;
        if change < 1e-10 {
            converged = true;
            break;
        }
    }
    if !converged || theta.iter().any(|t| !t.is_finite()) {
        return ratings;
    }
    let (_, information) = gradient_information(n, pairings, &theta);
    let Some(covariance) = invert(&information) else {
        return ratings;
    };
    for i in 1..n {
        let elo = theta[i] / ELO_UNIT;
        let var = covariance[i - 1][i - 1];
        let margin = Z_95 * var.max(0.0).sqrt() / ELO_UNIT;
        ratings[i] = Rating {
            elo: Some(elo + 0.0),
            interval: (margin.is_finite() && margin > 0.0).then_some((elo - margin, elo + margin)),
        };
    }
    ratings
}

/// ln(1 + e^x) without overflow.
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The gradient of the log-likelihood of [`ml_ratings`] at `theta` (all `n`
/// engines) and its Fisher information over engines 1..n.
fn gradient_information(
    n: usize,
    pairings: &[PairingScore],
    theta: &[f64],
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut gradient = vec![0.0; n];
    let mut full = vec![vec![0.0; n]; n];
    for p in pairings.iter().filter(|p| p.games > 0) {
        let prob = 1.0 / (1.0 + (theta[p.b] - theta[p.a]).exp());
        let games = p.games as f64;
        let g = p.points - games * prob;
        gradient[p.a] += g;
        gradient[p.b] -= g;
        let w = games * prob * (1.0 - prob);
        full[p.a][p.a] += w;
        full[p.b][p.b] += w;
        full[p.a][p.b] -= w;
        full[p.b][p.a] -= w;
    }
    let information = full[1..].iter().map(|row| row[1..].to_vec()).collect();
    (gradient, information)
}

/// Whether every engine reaches every other along "scored points against"
/// (a draw counts both ways).
fn strongly_connected(n: usize, pairings: &[PairingScore]) -> bool {
    let mut edges = vec![Vec::new(); n];
    for p in pairings.iter().filter(|p| p.games > 0) {
        if p.points > 0.0 {
            edges[p.a].push(p.b);
        }
        if p.points < p.games as f64 {
            edges[p.b].push(p.a);
        }
    }
    let reaches_all = |edges: &[Vec<usize>]| {
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for &j in &edges[i] {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    let mut reversed = vec![Vec::new(); n];
    for (i, out) in edges.iter().enumerate() {
        for &j in out {
            reversed[j].push(i);
        }
    }
    reaches_all(&edges) && reaches_all(&reversed)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let m = b.len();
    let mut rows: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &v)| {
            let mut row = row.clone();
            row.push(v);
            row
        })
        .collect();
    for col in 0..m {
        let pivot = (col..m).max_by(|&i, &j| rows[i][col].abs().total_cmp(&rows[j][col].abs()))?;
        if rows[pivot][col].abs() < 1e-12 {
            return None;
        }
        rows.swap(col, pivot);
        let pivot_row = rows[col].clone();
        for (i, row) in rows.iter_mut().enumerate() {
            let factor = row[col] / pivot_row[col];
            if i != col && factor != 0.0 {
                for (value, &p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *value -= factor * p;
                }
            }
        }
    }
    let x: Vec<f64> = (0..m).map(|i| rows[i][m] / rows[i][i]).collect();
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The inverse of `a`, column by column with [`solve`].
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let m = a.len();
    let columns: Vec<Vec<f64>> = (0..m)
        .map(|j| {
            solve(
                a,
                &(0..m)
                    .map(|i| f64::from(u8::from(i == j)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect::<Option<_>>()?;
    Some(
        (0..m)
            .map(|i| (0..m).map(|j| columns[j][i]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Verdict::{Draw, Loss, Win};

    fn close(actual: f64, expected: f64, tol: f64) -> bool {
        (actual - expected).abs() <= tol
    }

    macro_rules! assert_close {
        ($actual:expr, $expected:expr, $tol:expr) => {{
            let (a, e) = ($actual, $expected);
            assert!(close(a, e, $tol), "{a} is not within {} of {e}", $tol);
        }};
    }

    #[test]
    fn published_trinomial_llr() {
        // OpenBench: losses 22569, draws 44137, wins 22976, BayesElo [0.5, 2.5].
        let wdl = Wdl::new(22976, 44137, 22569);
        assert_close!(llr_trinomial(&wdl, 0.5, 2.5), 0.9758, 1e-3);
    }

    #[test]
    fn published_pentanomial_llr() {
        // OpenBench: pairs LL, LD, DD+WL, WD, WW, normalized Elo [0.5, 2.5].
        let penta = Pentanomial::new([39, 8843, 26675, 9240, 44]);
        assert_close!(llr_pentanomial(&penta, 0.5, 2.5), 2.9417, 1e-3);
    }

    #[test]
    fn published_sprt_bounds() {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        assert_close!(lower, -2.944, 1e-3);
        assert_close!(upper, 2.944, 1e-3);
        assert_close!(upper, (19.0f64).ln(), 1e-12);
    }

    #[test]
    fn llr_swapping_hypotheses_negates() {
        let wdl = Wdl::new(22976, 44137, 22569);
        let forward = llr_trinomial(&wdl, 0.5, 2.5);
        assert_close!(llr_trinomial(&wdl, 2.5, 0.5), -forward, 1e-9);
        assert_eq!(llr_trinomial(&wdl, 1.0, 1.0), 0.0);
        let penta = Pentanomial::new([39, 8843, 26675, 9240, 44]);
        let forward = llr_pentanomial(&penta, 0.5, 2.5);
        assert_close!(llr_pentanomial(&penta, 2.5, 0.5), -forward, 1e-9);
        assert_close!(llr_pentanomial(&penta, 1.0, 1.0), 0.0, 1e-12);
    }

    #[test]
    fn constrained_mle_meets_its_constraint() {
        let skewed = [
            1e-3 / 20.004,
            1e-3 / 20.004,
            1e-3 / 20.004,
            1e-3 / 20.004,
            20.0 / 20.004,
        ];
        for p in [[0.05, 0.2, 0.4, 0.25, 0.1], skewed] {
            for t in [-20.0, -4.0, -0.5, -0.1, 0.0, 0.05, 0.3, 1.0, 4.0, 20.0] {
                let q = constrained_mle(&p, t).expect("a solution");
                assert_close!(q.iter().sum::<f64>(), 1.0, 1e-12);
                assert_close!(t_value(&q).unwrap(), t, 1e-9);
            }
        }
    }

    #[test]
    fn pentanomial_llr_cross_checked() {
        // Values from an independent implementation of the same method.
        let small = Pentanomial::new([1, 2, 3, 4, 1]);
        assert_close!(llr_pentanomial(&small, 0.5, 2.5), 0.0136411, 1e-6);
        assert_close!(llr_pentanomial(&small, -10.0, 10.0), 0.1418733, 1e-6);
        let published = Pentanomial::new([39, 8843, 26675, 9240, 44]);
        assert_close!(llr_pentanomial(&published, -10.0, 10.0), 51.69958, 1e-4);
    }

    #[test]
    fn score_and_games() {
        let wdl = Wdl::new(60, 20, 20);
        assert_eq!(wdl.games(), 100);
        assert_close!(wdl.score(), 0.7, 1e-15);
        let mut counted = Wdl::default();
        for r in [Win, Win, Draw, Loss] {
            counted.add(r);
        }
        assert_eq!(counted, Wdl::new(2, 1, 1));
        assert_close!(counted.score(), 0.625, 1e-15);
    }

    #[test]
    fn add_pair_indexes_by_pair_score() {
        let mut penta = Pentanomial::default();
        penta.add_pair(Loss, Loss);
        penta.add_pair(Loss, Draw);
        penta.add_pair(Draw, Loss);
        penta.add_pair(Draw, Draw);
        penta.add_pair(Win, Loss);
        penta.add_pair(Loss, Win);
        penta.add_pair(Win, Draw);
        penta.add_pair(Win, Win);
        assert_eq!(penta.counts, [1, 2, 3, 1, 1]);
        assert_eq!(penta.pairs(), 8);
        assert_eq!(penta.games(), 16);
        // Half points 0 + 2 + 6 + 3 + 4 = 15 of 32.
        assert_close!(penta.score(), 15.0 / 32.0, 1e-15);
    }

    #[test]
    fn elo_from_score_values() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_close!(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-9);
        assert_close!(elo_from_score(0.25), -400.0 * 3f64.log10(), 1e-9);
        assert_close!(elo_from_score(10.0 / 11.0), 400.0, 1e-9);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(1.5), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(-0.1), f64::NEG_INFINITY);
    }

    #[test]
    fn trinomial_interval_by_hand() {
        // s = 0.7; sigma^2 = 0.6 * 0.09 + 0.2 * 0.04 + 0.2 * 0.49 = 0.16;
        // s +- 1.96 * 0.4 / 10 = [0.6216, 0.7784].
        let e = elo_trinomial(&Wdl::new(60, 20, 20));
        assert_close!(e.elo, 147.190714, 1e-5);
        assert_close!(e.elo, -400.0 * (3.0f64 / 7.0).log10(), 1e-9);
        assert_close!(e.lower, elo_from_score(0.6216), 1e-9);
        assert_close!(e.upper, elo_from_score(0.7784), 1e-9);
        assert_close!(e.lower, 86.223951, 1e-5);
        assert_close!(e.upper, 218.253228, 1e-5);
    }

    #[test]
    fn pentanomial_interval_by_hand() {
        // 10 pairs scoring 0.25 x2, 0.5 x4, 0.75 x3, 1 x1: s = 0.575,
        // sigma^2 = 0.2*0.325^2 + 0.4*0.075^2 + 0.3*0.175^2 + 0.1*0.425^2
        //         = 0.050625, sigma = 0.225.
        let penta = Pentanomial::new([0, 2, 4, 3, 1]);
        assert_close!(penta.score(), 0.575, 1e-15);
        let margin = 1.96 * 0.225 / 10f64.sqrt();
        let e = elo_pentanomial(&penta);
        assert_close!(e.elo, elo_from_score(0.575), 1e-9);
        assert_close!(e.elo, 52.511566, 1e-5);
        assert_close!(e.lower, elo_from_score(0.575 - margin), 1e-9);
        assert_close!(e.upper, elo_from_score(0.575 + margin), 1e-9);
        assert_close!(e.lower, -45.039538, 1e-5);
        assert_close!(e.upper, 159.321358, 1e-5);

        // nElo = 0.075 / (0.225 sqrt 2) * 800 / ln 10, margin 1.96 C / sqrt 20.
        let n = normalized_elo_pentanomial(&penta);
        assert_close!(n.elo, 81.891353, 1e-5);
        assert_close!(n.lower, -70.379006, 1e-5);
        assert_close!(n.upper, 234.161708, 1e-5);
        // The interval is the score interval's ends converted the same way.
        let to_nelo = |s: f64| (s - 0.5) / (0.225 * 2f64.sqrt()) * NELO_PER_T;
        assert_close!(n.lower, to_nelo(0.575 - margin), 1e-9);
        assert_close!(n.upper, to_nelo(0.575 + margin), 1e-9);
    }

    /// libm's erf (musl's) is as exact as the series it replaced.
    #[test]
    fn erf_values() {
        use libm::erf;
        let known = [
            (0.0, 0.0),
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (3.0, 0.9999779095030014),
            (4.0, 0.9999999845827421),
            (5.5, 0.9999999999999927),
            (8.0, 1.0),
        ];
        for (x, y) in known {
            assert_close!(erf(x), y, 1e-14);
            assert_close!(erf(-x), -y, 1e-14);
        }
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
        // Monotone across the switch to the constant.
        assert!(erf(5.999) <= erf(6.0));
    }

    #[test]
    fn los_values() {
        assert_eq!(los(&Wdl::new(40, 17, 40)), 0.5);
        // (60 - 40) / sqrt(2 * 100) = sqrt 2; 1/2 + erf(sqrt 2)/2 = Phi(2).
        assert_close!(los(&Wdl::new(60, 0, 40)), 0.9772498680518208, 1e-12);
        assert_close!(los(&Wdl::new(60, 500, 40)), 0.9772498680518208, 1e-12);
        assert_close!(los(&Wdl::new(40, 0, 60)), 1.0 - 0.9772498680518208, 1e-12);
        assert_eq!(los(&Wdl::new(1000, 0, 0)), 1.0);
        assert_eq!(los(&Wdl::new(0, 0, 1000)), 0.0);
    }

    #[test]
    fn sprt_decisions() {
        let bounds = sprt_bounds(0.05, 0.05);
        assert_eq!(sprt_decision(0.0, bounds), SprtDecision::Continue);
        assert_eq!(sprt_decision(2.95, bounds), SprtDecision::AcceptH1);
        assert_eq!(sprt_decision(-2.95, bounds), SprtDecision::AcceptH0);
        assert_eq!(sprt_decision(f64::NAN, bounds), SprtDecision::Continue);
        let state = SprtState::new(2.9417, 0.05, 0.05);
        assert_eq!(state.decision(), SprtDecision::Continue);
        assert_eq!(
            SprtState::new(3.0, 0.05, 0.05).decision(),
            SprtDecision::AcceptH1
        );
        // Asymmetric rates.
        let (lower, upper) = sprt_bounds(0.05, 0.1);
        assert_close!(lower, (0.1f64 / 0.95).ln(), 1e-12);
        assert_close!(upper, (0.9f64 / 0.05).ln(), 1e-12);
    }

    #[test]
    fn degenerate_sprt_bounds() {
        assert_eq!(sprt_bounds(0.0, 0.05).1, f64::INFINITY);
        assert_eq!(sprt_bounds(0.05, 0.0).0, f64::NEG_INFINITY);
        let never = (f64::NEG_INFINITY, f64::INFINITY);
        assert_eq!(sprt_bounds(f64::NAN, 0.05), never);
        assert_eq!(sprt_bounds(-0.1, 0.05), never);
        assert_eq!(sprt_bounds(0.6, 0.5), never);
        assert_eq!(sprt_decision(1e300, never), SprtDecision::Continue);
    }

    fn assert_no_nan(e: EloEstimate) {
        assert!(
            !e.elo.is_nan() && !e.lower.is_nan() && !e.upper.is_nan(),
            "{e:?}"
        );
        assert!(e.lower <= e.elo && e.elo <= e.upper, "{e:?}");
    }

    #[test]
    fn degenerate_no_games() {
        let wdl = Wdl::default();
        assert_eq!(wdl.score(), 0.5);
        assert_eq!(elo_trinomial(&wdl), EloEstimate::UNKNOWN);
        assert_eq!(los(&wdl), 0.5);
        assert_eq!(llr_trinomial(&wdl, 0.5, 2.5), 0.0);
        let penta = Pentanomial::default();
        assert_eq!(penta.score(), 0.5);
        assert_eq!(elo_pentanomial(&penta), EloEstimate::UNKNOWN);
        assert_eq!(normalized_elo_pentanomial(&penta), EloEstimate::UNKNOWN);
        assert_eq!(llr_pentanomial(&penta, 0.5, 2.5), 0.0);
    }

    #[test]
    fn degenerate_all_draws() {
        let wdl = Wdl::new(0, 50, 0);
        let e = elo_trinomial(&wdl);
        assert_eq!((e.elo, e.lower, e.upper), (0.0, 0.0, 0.0));
        assert_eq!(los(&wdl), 0.5);
        let llr = llr_trinomial(&wdl, 0.5, 2.5);
        assert!(llr.is_finite());

        let penta = Pentanomial::new([0, 0, 25, 0, 0]);
        let e = elo_pentanomial(&penta);
        assert_eq!((e.elo, e.lower, e.upper), (0.0, 0.0, 0.0));
        assert_eq!(normalized_elo_pentanomial(&penta), EloEstimate::UNKNOWN);
        assert!(llr_pentanomial(&penta, 0.5, 2.5).is_finite());
    }

    #[test]
    fn degenerate_one_sided() {
        for wdl in [Wdl::new(30, 0, 0), Wdl::new(0, 0, 30), Wdl::new(1, 0, 0)] {
            let e = elo_trinomial(&wdl);
            assert_no_nan(e);
            assert!(e.elo.is_infinite());
            for (h0, h1) in [(0.5, 2.5), (-5.0, 5.0)] {
                let llr = llr_trinomial(&wdl, h0, h1);
                assert!(llr.is_finite());
                assert_eq!(llr > 0.0, wdl.score() > 0.5, "{wdl:?} {h0} {h1}");
            }
        }
        assert_eq!(elo_trinomial(&Wdl::new(30, 0, 0)).lower, f64::INFINITY);
        // Wins and draws only: finite estimate, infinite upper end.
        let e = elo_trinomial(&Wdl::new(9, 1, 0));
        assert_no_nan(e);
        assert!(e.elo.is_finite());
        assert_eq!(e.upper, f64::INFINITY);

        for counts in [[0, 0, 0, 0, 20], [20, 0, 0, 0, 0], [0, 0, 0, 7, 0]] {
            let penta = Pentanomial::new(counts);
            assert_no_nan(elo_pentanomial(&penta));
            let n = normalized_elo_pentanomial(&penta);
            assert_no_nan(n);
            assert!(n.elo.is_infinite());
            for (h0, h1) in [(0.5, 2.5), (-10.0, 10.0), (0.0, 300.0)] {
                let llr = llr_pentanomial(&penta, h0, h1);
                assert!(llr.is_finite());
                // Evidence for the higher hypothesis exactly when winning.
                assert_eq!(llr > 0.0, penta.score() > 0.5, "{counts:?} {h0} {h1}");
            }
        }
        assert_eq!(
            normalized_elo_pentanomial(&Pentanomial::new([0, 0, 0, 7, 0])).lower,
            f64::INFINITY
        );
    }

    #[test]
    fn degenerate_hypotheses() {
        let wdl = Wdl::new(10, 10, 5);
        assert_eq!(llr_trinomial(&wdl, f64::NAN, 1.0), 0.0);
        let penta = Pentanomial::new([1, 2, 3, 2, 1]);
        assert_eq!(llr_pentanomial(&penta, f64::NAN, 1.0), 0.0);
        assert_eq!(llr_pentanomial(&penta, 0.0, f64::INFINITY), 0.0);
        assert!(llr_pentanomial(&penta, -1000.0, 1000.0).is_finite());
    }

    fn pairing(a: usize, b: usize, wdl: Wdl) -> PairingScore {
        PairingScore {
            a,
            b,
            points: wdl.wins as f64 + 0.5 * wdl.draws as f64,
            games: wdl.games(),
        }
    }

    #[test]
    fn ml_ratings_of_two_engines_are_the_score_elo() {
        // 60 wins, 20 draws, 20 losses: s = 0.7; the second engine is
        // -elo_from_score(0.7) = -147.19 behind the first.
        let ratings = ml_ratings(2, &[pairing(0, 1, Wdl::new(60, 20, 20))]);
        assert_eq!(ratings[0].elo, Some(0.0));
        assert_eq!(ratings[0].interval, None);
        let elo = ratings[1].elo.unwrap();
        assert_close!(elo, -elo_from_score(0.7), 1e-6);
        // Fisher information n p (1 - p) (ln 10 / 400)^2 = 100 * 0.21 * k^2.
        let k = LN_10 / 400.0;
        let margin = 1.96 / (100.0f64 * 0.21).sqrt() / k;
        let (lower, upper) = ratings[1].interval.unwrap();
        assert_close!(lower, elo - margin, 1e-6);
        assert_close!(upper, elo + margin, 1e-6);
        // The same pairing given the other way round.
        let swapped = ml_ratings(2, &[pairing(1, 0, Wdl::new(20, 20, 60))]);
        assert_close!(swapped[1].elo.unwrap(), elo, 1e-6);
    }

    #[test]
    fn ml_ratings_of_a_symmetric_cycle_are_equal() {
        // a beats b, b beats c, c beats a, each 6-4: everyone is equal.
        let ratings = ml_ratings(
            3,
            &[
                pairing(0, 1, Wdl::new(6, 0, 4)),
                pairing(1, 2, Wdl::new(6, 0, 4)),
                pairing(0, 2, Wdl::new(4, 0, 6)),
            ],
        );
        for r in &ratings[1..] {
            assert_close!(r.elo.unwrap(), 0.0, 1e-6);
        }
        let (l1, u1) = ratings[1].interval.unwrap();
        let (l2, u2) = ratings[2].interval.unwrap();
        assert_close!(u1 - l1, u2 - l2, 1e-6);
        assert_close!(l1, -u1, 1e-6);
    }

    #[test]
    fn ml_ratings_by_hand() {
        // Transitive, consistent results: b is 100 Elo below a, c 200 below
        // a and 100 below b, each pairing's score exactly the model's. Then
        // the maximum likelihood is exactly there.
        let s100 = 1.0 / (1.0 + 10f64.powf(-100.0 / 400.0));
        let s200 = 1.0 / (1.0 + 10f64.powf(-200.0 / 400.0));
        let games = 1000u64;
        let score = |s: f64, a, b| PairingScore {
            a,
            b,
            points: s * games as f64,
            games,
        };
        let ratings = ml_ratings(
            3,
            &[score(s100, 0, 1), score(s200, 0, 2), score(s100, 1, 2)],
        );
        assert_close!(ratings[1].elo.unwrap(), -100.0, 1e-6);
        assert_close!(ratings[2].elo.unwrap(), -200.0, 1e-6);
        assert!(ratings[2].interval.unwrap().0 < -200.0);
    }

    #[test]
    fn ml_ratings_without_a_finite_maximum() {
        // The first engine won everything: no finite rating for the others.
        let all_wins = ml_ratings(
            3,
            &[
                pairing(0, 1, Wdl::new(5, 0, 0)),
                pairing(0, 2, Wdl::new(5, 0, 0)),
                pairing(1, 2, Wdl::new(3, 1, 1)),
            ],
        );
        assert_eq!(all_wins[0].elo, Some(0.0));
        assert!(
            all_wins[1..]
                .iter()
                .all(|r| r.elo.is_none() && r.interval.is_none())
        );
        // An engine that played nobody.
        let idle = ml_ratings(3, &[pairing(0, 1, Wdl::new(3, 1, 1))]);
        assert!(idle[1].elo.is_none() && idle[2].elo.is_none());
        // All draws: ratings 0 with an interval; nothing is NaN.
        let draws = ml_ratings(2, &[pairing(0, 1, Wdl::new(0, 4, 0))]);
        assert_eq!(draws[1].elo, Some(0.0));
        assert!(draws[1].interval.is_some());
        assert_eq!(ml_ratings(0, &[]), vec![]);
        assert_eq!(ml_ratings(1, &[])[0].elo, Some(0.0));
        // Nonsense input is refused without a panic.
        let bad = ml_ratings(2, &[pairing(0, 5, Wdl::new(1, 0, 1))]);
        assert_eq!(bad[1].elo, None);
    }

    #[test]
    fn meaningful_figures() {
        let (elo, interval) = elo_pentanomial(&Pentanomial::new([0, 1, 0, 0, 0])).meaningful();
        assert_close!(elo.unwrap(), -190.848501, 1e-5);
        assert_eq!(interval, None, "one pair has no interval");
        let nelo = normalized_elo_pentanomial(&Pentanomial::new([0, 1, 0, 0, 0]));
        assert_eq!(nelo.meaningful(), (None, None));
        assert_eq!(EloEstimate::UNKNOWN.meaningful(), (None, None));
        let (elo, interval) = elo_trinomial(&Wdl::new(60, 20, 20)).meaningful();
        assert!(elo.is_some() && interval.is_some());
        let (_, interval) = elo_trinomial(&Wdl::new(9, 1, 0)).meaningful();
        assert_eq!(interval, None, "an infinite end");
    }
}
