//! The net's weights as integers: what the engine's inference runs on.
//!
//! The file and the trainer keep `f32` weights; a net is quantised when it
//! is made ([`Net::from_flat`](super::Net::from_flat), so also when it is
//! loaded), after the scheme of NNUE chess engines:
//!
//! - The first layer (rows of the features, of the board to play on and of
//!   the dynamic features, and the bias) as `i16`, scaled by `qa`: the
//!   accumulator's sums are `i16`, 16 to an AVX2 register. Activations are
//!   the sums clipped to `[0, qa]` (`qa` stands for 1).
//! - The second layer and the policy's rows as `i16`, scaled by `qb` and
//!   `qp`, multiplied with the activations and summed in `i32`
//!   (`vpmaddwd`), then brought back to `f32` (`1 / (qa qb)`) and added to
//!   the biases. The 32 to 1 output stays in `f32`.
//!
//! # Why nothing overflows
//!
//! *The first layer.* Every sum the engine forms (the accumulator from
//! scratch or brought up to date, then with the target's and the dynamic
//! features' rows) is the bias plus the rows of a set of distinct features,
//! with at most one target row. In column `j` such a sum lies within
//! `+-bound(j)`, where `bound(j)` is the larger, over both signs `s`, of
//! `s b1[j]` plus the positive parts of `s w[f][j]` over every feature row
//! (189 + 36), plus the largest positive part of `s wt[t][j]` over the ten
//! target rows. [`Quantised::new`] takes the largest `qa` (at most
//! [`QA_MAX`]) for which that bound, computed on the rounded integers
//! themselves, is at most `i16::MAX`, so no sum and no partial sum can
//! overflow, whatever the position and whatever the order of the adds and
//! subtractions (`docs/net.md` gives each net's bound and `qa`). A net
//! whose bound is over [`MAX_SUM`] is refused when loaded (its weights are
//! far beyond what training makes); one made in memory anyway (a diverged training) still
//! evaluates without undefined behaviour (the adds wrap), only wrongly.
//!
//! *The second layer and the policy.* Activations lie in `[0, qa]`; the
//! integer weights are at most `L = floor((2^31 - 1) / (2 HIDDEN qa))` in
//! magnitude (`qb = L / max |w2|`, `qp = L / max |wp|`), so each of the
//! `2 HIDDEN` (512) products is at most `qa L` and their sum, in any order,
//! fits an `i32`.
//!
//! # The error
//!
//! Against the `f32` forward pass (the trainer's), checked by
//! `quantised_inference_follows_the_f32_net` in `tests.rs`, the value and
//! the priors differ by about 0.01 at most (0.015 for the built-in g15m,
//! 0.006 for g14l1 before it, 0.016 in one position for g11f):
//! `docs/net.md` has the table by `qa` and each net's figures.
//!
//! The error falls as `1 / qa`: it is the first layer's rounding (half a
//! unit per weight, over some 50-100 rows a sum), which the second layer
//! adds up; the second layer's and the policy's own rounding, at scales
//! near 3,000 and 5,000, is far smaller.

use super::layout::{B1, W1, W2, WD, WP, WT};
use super::{DYNAMIC, FEATURES, HIDDEN, HIDDEN2, POLICY, TARGETS};

/// The largest first-layer scale: more precision buys nothing measurable,
/// and it keeps the second layer's integer weights wide.
pub const QA_MAX: i32 = 1024;

/// The largest first-layer float bound of a net that is loaded: a larger
/// one is refused (its scale `qa` would be under 65).
pub const MAX_SUM: f64 = 500.0;

/// The net's weights quantised for inference (see the module's docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantised {
    /// First layer, one row per feature, scaled by `qa`.
    pub w1: Box<[[i16; HIDDEN]; FEATURES]>,
    /// First layer's bias, scaled by `qa`.
    pub b1: [i16; HIDDEN],
    /// Rows of the board to play on, scaled by `qa`.
    pub wt: Box<[[i16; HIDDEN]; TARGETS]>,
    /// Rows of the dynamic features, scaled by `qa`.
    pub wd: Box<[[i16; HIDDEN]; DYNAMIC]>,
    /// Second layer, inputs paired: `w2[i][2 j + k]` is input `2 i + k`'s
    /// weight to output `j`, scaled by `qb` (the layout `vpmaddwd` wants,
    /// with a pair of inputs broadcast).
    pub w2: Box<[[i16; 2 * HIDDEN2]; HIDDEN]>,
    /// Policy rows over the 256 activations, scaled by `qp`.
    pub wp: Box<[[i16; 2 * HIDDEN]; POLICY]>,
    /// The first layer's scale: the activation that stands for 1.
    pub qa: i16,
    /// `1 / (qa qb)`: from the second layer's integer sums to `f32`.
    pub w2_scale: f32,
    /// `1 / (qa qp)`: from the policy's integer sums to `f32`.
    pub wp_scale: f32,
}

/// The first layer's flat ranges: bias, feature rows, dynamic rows, target
/// rows.
fn first_layer(flat: &[f32]) -> (&[f32], &[f32], &[f32], &[f32]) {
    (
        &flat[B1..B1 + HIDDEN],
        &flat[W1..W1 + FEATURES * HIDDEN],
        &flat[WD..WD + DYNAMIC * HIDDEN],
        &flat[WT..WT + TARGETS * HIDDEN],
    )
}

/// The largest magnitude of a first-layer sum, over every column and every
/// set of distinct features with at most one target row (the module's
/// docs), for weights given as `f64` by `w`.
fn sum_bound<T: Copy>(
    (bias, rows, dynamic, targets): (&[T], &[T], &[T], &[T]),
    w: impl Fn(T) -> f64,
) -> f64 {
    let mut worst = 0f64;
    for j in 0..HIDDEN {
        for s in [1.0, -1.0] {
            let column =
                |m: &[T]| -> Vec<f64> { m.chunks_exact(HIDDEN).map(|r| s * w(r[j])).collect() };
            let mut sum = s * w(bias[j]);
            sum += column(rows)
                .into_iter()
                .chain(column(dynamic))
                .map(|x| x.max(0.0))
                .sum::<f64>();
            sum += column(targets).into_iter().fold(0.0, f64::max);
            worst = worst.max(sum);
        }
    }
    worst
}

/// `round(x * scale)` as an `i16`, saturating (only a net refused when
/// loaded gets near the limits).
fn q16(x: f32, scale: f64) -> i16 {
    (x as f64 * scale)
        .round()
        .clamp(i16::MIN as f64, i16::MAX as f64) as i16
}

/// The largest magnitude in `w`, at least a tiny positive number.
fn largest(w: &[f32]) -> f64 {
    w.iter()
        .fold(f64::MIN_POSITIVE, |m, &x| m.max((x as f64).abs()))
}

impl Quantised {
    /// The first layer's float bound of `flat` (see the module's docs).
    pub fn float_bound(flat: &[f32]) -> f64 {
        sum_bound(first_layer(flat), |x: f32| x as f64)
    }

    /// The integer weights of the flat `f32` weights ([`super::layout`]),
    /// at the largest first-layer scale that fits.
    pub fn new(flat: &[f32]) -> Quantised {
        Quantised::with_scale(flat, Quantised::largest_scale(flat))
    }

    /// The largest first-layer scale, at most [`QA_MAX`], at which the sums
    /// fit an `i16` (the module's docs); 1 if none does.
    fn largest_scale(flat: &[f32]) -> i32 {
        let layer = first_layer(flat);
        let limit = i16::MAX as f64;
        // Rounding adds at most 1/2 for each of the 1 + 189 + 36 + 1 terms.
        let slack = 0.5 * (2 + FEATURES + DYNAMIC) as f64;
        let guess = ((limit - slack) / Self::float_bound(flat).max(1e-9)).floor();
        let mut qa = guess.clamp(1.0, QA_MAX as f64) as i32;
        // The bound of the rounded integers themselves is what must fit:
        // the largest scale for which it does, near the guess.
        let fits = |qa: i32| sum_bound(layer, |x: f32| q16(x, qa as f64) as f64) <= limit;
        while qa > 1 && !fits(qa) {
            qa -= 1;
        }
        while qa < QA_MAX && fits(qa + 1) {
            qa += 1;
        }
        qa
    }

    /// The integer weights at first-layer scale `qa` (1 to `i16::MAX`).
    pub(super) fn with_scale(flat: &[f32], qa: i32) -> Quantised {
        let a = qa as f64;
        let rows = |at: usize, i: usize| -> [i16; HIDDEN] {
            std::array::from_fn(|j| q16(flat[at + i * HIDDEN + j], a))
        };
        // Each of 256 products at most qa * l in magnitude: the sum fits.
        let l = (i32::MAX as f64 / (2 * HIDDEN) as f64 / a)
            .floor()
            .min(i16::MAX as f64);
        let w2 = &flat[W2..W2 + 2 * HIDDEN * HIDDEN2];
        let wp = &flat[WP..WP + POLICY * 2 * HIDDEN];
        let qb = (l / largest(w2)).floor().max(1.0);
        let qp = (l / largest(wp)).floor().max(1.0);
        Quantised {
            w1: Box::new(std::array::from_fn(|f| rows(W1, f))),
            b1: rows(B1, 0),
            wt: Box::new(std::array::from_fn(|t| rows(WT, t))),
            wd: Box::new(std::array::from_fn(|d| rows(WD, d))),
            w2: Box::new(std::array::from_fn(|i| {
                std::array::from_fn(|k| {
                    let (j, input) = (k / 2, 2 * i + k % 2);
                    q16(w2[input * HIDDEN2 + j], qb)
                })
            })),
            wp: Box::new(std::array::from_fn(|c| {
                std::array::from_fn(|k| q16(wp[c * 2 * HIDDEN + k], qp))
            })),
            qa: qa as i16,
            w2_scale: (1.0 / (a * qb)) as f32,
            wp_scale: (1.0 / (a * qp)) as f32,
        }
    }

    /// The integer bound of the first layer's sums (at most `i16::MAX`
    /// unless the net is refused when loaded).
    #[cfg(test)]
    pub fn bound(&self) -> i64 {
        let flat = |m: &[[i16; HIDDEN]]| m.iter().flatten().copied().collect::<Vec<i16>>();
        let (rows, dynamic, targets) = (flat(&self.w1[..]), flat(&self.wd[..]), flat(&self.wt[..]));
        sum_bound((&self.b1[..], &rows, &dynamic, &targets), |x: i16| x as f64) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::super::Net;
    use super::*;

    #[test]
    fn the_builtin_nets_sums_fit_an_i16() {
        let net = Net::builtin();
        let q = &net.quant;
        let flat = net.to_flat();
        let bound = Quantised::float_bound(&flat);
        assert!((44.8..45.4).contains(&bound), "{bound}");
        assert!(q.bound() <= i16::MAX as i64, "{}", q.bound());
        // The largest scale that fits: one more would not.
        assert_eq!(q.qa, 726);
        let more = (q.qa + 1) as f64;
        let layer = first_layer(&flat);
        assert!(sum_bound(layer, |x: f32| q16(x, more) as f64) > i16::MAX as f64);
        // The second layer's and the policy's sums fit an i32.
        let l = i32::MAX as i64 / (2 * HIDDEN as i64) / q.qa as i64;
        let w2 = q.w2.iter().flatten().map(|&w| (w as i64).abs()).max();
        let wp = q.wp.iter().flatten().map(|&w| (w as i64).abs()).max();
        assert!(w2.unwrap() <= l && wp.unwrap() <= l);
        assert_eq!(l, 5_777);
        let scales = [q.w2_scale, q.wp_scale].map(|s| (1.0 / (s as f64 * q.qa as f64)).round());
        assert_eq!(scales, [1857.0, 1530.0]);
    }

    #[test]
    fn the_second_layer_is_paired_for_madd() {
        let net = Net::builtin();
        let flat = net.to_flat();
        let q = &net.quant;
        let w2 = &flat[W2..];
        // Input 7's weight to output 5 sits at pair 3, slot 2 * 5 + 1.
        let scale = 1.0 / (q.w2_scale as f64 * q.qa as f64);
        assert_eq!(q.w2[3][11], q16(w2[7 * HIDDEN2 + 5], scale.round()));
    }
}
