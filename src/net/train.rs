//! The trainer: from self-play data to a net, seeded and single-threaded,
//! so that the same data, settings and seed give the same weights file.
//!
//! Hand-written rather than built on an ML library: the net is three small
//! dense layers over sparse binary inputs, so the backward pass is a few
//! dozen lines, and the engine's binary needs no heavy dependency. The
//! trainer keeps its own forward pass over a flat weight vector, which a
//! test compares with the engine's (accumulator) forward pass.
//!
//! - Target: `lambda * result + (1 - lambda) * search value`, both for the
//!   side to move (result: win 1, draw 1/2, loss 0).
//! - Loss: binary cross-entropy of the sigmoid output against the target,
//!   plus `policy_weight` times the cross-entropy of the policy head's
//!   softmax (over the legal moves) against the search's visit shares (its
//!   most visited [`POLICY_MOVES`] moves).
//! - Optimiser: Adam (beta 0.9 / 0.999), minibatches, the learning rate
//!   falling linearly to a tenth over the run.
//! - Every epoch each position is seen under a random one of the 8
//!   symmetries of the board (the same map on boards and cells).
//! - The games are shuffled with the seed; one in [`HELD_OUT_EVERY`] (whole
//!   games) is held out to report the validation loss.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

use super::data::GameRecord;
use super::features::SYMMETRY;
use super::features::{MAX_ACTIVE, Planes};
use super::layout::{B1, B2, B3, BP, LEN, W1, W2, W3, WD, WP, WT};
use super::{DYNAMIC, HIDDEN, HIDDEN2, Net, POLICY, sigmoid};
use crate::game::Outcome;

/// One training position.
#[derive(Copy, Clone, Debug)]
pub struct Sample {
    /// The position.
    pub planes: Planes,
    /// The expected score to learn, for the side to move.
    pub target: f32,
    /// The policy to learn: the most visited moves' cells
    /// (`9 * board + cell`)...
    pub policy_cells: [u8; POLICY_MOVES],
    /// ...and their shares of those moves' visits, in [`SHARE_SCALE`]ths.
    pub policy_shares: [u16; POLICY_MOVES],
    /// How many moves the policy names (0: no policy target).
    pub policy_len: u8,
}

/// Moves per position kept as the policy's target (the most visited).
pub const POLICY_MOVES: usize = 16;

/// A whole visit share in [`Sample::policy_shares`]: shares are stored in
/// 65535ths (a `u16`).
pub const SHARE_SCALE: u16 = u16::MAX;

/// One game in this many is held out for validation (at least one when
/// there are two or more games).
pub const HELD_OUT_EVERY: usize = 20;

/// Mixed into the seed for choosing the held-out games, so that the split
/// draws other numbers than the weights and the shuffles from the same
/// seed.
const SPLIT_SALT: u64 = 0x5eed;

/// How much of its starting value the learning rate loses, linearly, over
/// the run: it ends at a tenth.
const LR_DROP: f32 = 0.9;

/// The longest net name: the net file keeps 16 bytes for it.
pub const MAX_NAME_LEN: usize = 16;

impl Sample {
    /// A sample with no policy target.
    pub fn value_only(planes: Planes, target: f32) -> Sample {
        Sample {
            planes,
            target,
            policy_cells: [0; POLICY_MOVES],
            policy_shares: [0; POLICY_MOVES],
            policy_len: 0,
        }
    }

    /// The sample with its policy target set from moves' visits.
    pub fn with_visits(mut self, visits: &[(u8, u32)]) -> Sample {
        let mut sorted: Vec<(u8, u32)> = visits
            .iter()
            .copied()
            .filter(|&(c, n)| n > 0 && (c as usize) < POLICY)
            .collect();
        sorted.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
        sorted.truncate(POLICY_MOVES);
        let total: u64 = sorted.iter().map(|&(_, n)| n as u64).sum();
        self.policy_len = sorted.len() as u8;
        for (k, &(c, n)) in sorted.iter().enumerate() {
            self.policy_cells[k] = c;
            self.policy_shares[k] = (n as u64 * SHARE_SCALE as u64 / total.max(1)) as u16;
        }
        self
    }

    /// The sample under symmetry `s` (see [`Planes::transform`]).
    pub fn transform(&self, s: usize) -> Sample {
        let mut out = *self;
        out.planes = self.planes.transform(s);
        for c in &mut out.policy_cells[..self.policy_len as usize] {
            let (b, i) = (*c as usize / 9, *c as usize % 9);
            *c = 9 * SYMMETRY[s][b] + SYMMETRY[s][i];
        }
        out
    }
}

/// The samples of some games: every recorded position, with target
/// `lambda * result + (1 - lambda) * value`.
pub fn samples(games: &[GameRecord], lambda: f32) -> Vec<Sample> {
    let mut out = Vec::new();
    for g in games {
        for p in &g.positions {
            let result = match g.result {
                Outcome::Win(w) if w == p.side => 1.0,
                Outcome::Win(_) => 0.0,
                Outcome::Draw => 0.5,
            };
            out.push(
                Sample::value_only(p.planes(), lambda * result + (1.0 - lambda) * p.value)
                    .with_visits(&p.visits),
            );
        }
    }
    out
}

/// The trainer's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per step.
    pub batch: usize,
    /// Adam's learning rate at the start.
    pub lr: f32,
    /// The result's weight in the target (the search value has the rest).
    pub lambda: f32,
    /// Seed of the initial weights, the shuffles and the symmetries.
    pub seed: u64,
    /// The policy's cross-entropy's weight in the loss (0: the policy
    /// head is not trained).
    pub policy_weight: f32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            epochs: 20,
            batch: 256,
            lr: 0.002,
            lambda: 0.5,
            seed: 1,
            policy_weight: 1.0,
        }
    }
}

/// One epoch's figures.
#[derive(Copy, Clone, Debug)]
pub struct Epoch {
    /// The epoch, from 1.
    pub epoch: u32,
    /// Mean training loss.
    pub train_loss: f64,
    /// Mean loss on the held-out games.
    pub valid_loss: f64,
    /// The held-out positions' mean squared error of the value.
    pub valid_mse: f64,
    /// The held-out positions' policy cross-entropy (nats).
    pub valid_policy: f64,
    /// How often the policy's favourite is the search's most visited
    /// move, on the held-out positions.
    pub valid_top1: f64,
}

/// What [`train`] tells as it goes.
#[derive(Copy, Clone, Debug)]
pub enum News<'a> {
    /// `done` of the run's `total` steps (batches) are done.
    Step {
        /// Steps done.
        done: usize,
        /// Steps in the run.
        total: usize,
    },
    /// The figures of the start net (`start` of [`train`]) on the held-out
    /// samples, before any step: what each epoch's must beat.
    Start(&'a Validation),
    /// An epoch ended.
    Epoch(&'a Epoch),
}

/// The weights being trained, their gradients and Adam's moments.
pub struct Trainer {
    /// The weights, in the file's order.
    pub params: Vec<f32>,
    grads: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    step: u32,
}

/// The binary cross-entropy of prediction `y` against target `t`.
fn bce(y: f32, t: f32) -> f64 {
    let y = (y as f64).clamp(1e-7, 1.0 - 1e-7);
    let t = t as f64;
    -(t * y.ln() + (1.0 - t) * (1.0 - y).ln())
}

/// What one forward pass keeps for the backward pass.
struct Pass {
    feats: [[u16; MAX_ACTIVE]; 2],
    counts: [usize; 2],
    dynamic: [[u8; DYNAMIC]; 2],
    dyn_counts: [usize; 2],
    z1: [[f32; HIDDEN]; 2],
    a1: [f32; 2 * HIDDEN],
    z2: [f32; HIDDEN2],
    a2: [f32; HIDDEN2],
    y: f32,
}

/// The policy head's softmax over the legal moves of a pass.
struct PolicyPass {
    cells: [u8; POLICY],
    probs: [f32; POLICY],
    len: usize,
}

impl Trainer {
    /// Fresh weights from `seed`.
    pub fn new(seed: u64) -> Trainer {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform = |a: f32| (rng.next_u32() as f32 / u32::MAX as f32 * 2.0 - 1.0) * a;
        let mut params = vec![0f32; LEN];
        for w in &mut params[W1..B1] {
            *w = uniform(0.1);
        }
        params[B1..WT].fill(0.5);
        for w in &mut params[WT..W2] {
            *w = uniform(0.1);
        }
        for w in &mut params[W2..B2] {
            *w = uniform(1.0 / (2.0 * HIDDEN as f32).sqrt());
        }
        params[B2..W3].fill(0.5);
        for w in &mut params[W3..B3] {
            *w = uniform(1.0 / (HIDDEN2 as f32).sqrt());
        }
        for w in &mut params[WP..BP] {
            *w = uniform(0.05);
        }
        Trainer::from_params(params)
    }

    /// Training that starts from `net`'s weights.
    pub fn from_net(net: &Net) -> Trainer {
        Trainer::from_params(net.to_flat())
    }

    fn from_params(params: Vec<f32>) -> Trainer {
        Trainer {
            params,
            grads: vec![0.0; LEN],
            m: vec![0.0; LEN],
            v: vec![0.0; LEN],
            step: 0,
        }
    }

    /// The net with the current weights.
    pub fn net(&self, name: &str) -> Net {
        Net::from_flat(&self.params, name)
    }

    /// The value of the side to move in `planes`, by the trainer's own
    /// forward pass.
    pub fn forward(&self, planes: &Planes) -> f32 {
        self.pass(planes).y
    }

    fn pass(&self, planes: &Planes) -> Pass {
        let p = &self.params;
        let views = [planes.side, planes.side.opponent()];
        let mut pass = Pass {
            feats: [[0; MAX_ACTIVE]; 2],
            counts: [0; 2],
            dynamic: [[0; DYNAMIC]; 2],
            dyn_counts: [0; 2],
            z1: [[0.0; HIDDEN]; 2],
            a1: [0.0; 2 * HIDDEN],
            z2: [0.0; HIDDEN2],
            a2: [0.0; HIDDEN2],
            y: 0.0,
        };
        for (v, view) in views.into_iter().enumerate() {
            pass.counts[v] = planes.features(view, &mut pass.feats[v]);
            let z = &mut pass.z1[v];
            z.copy_from_slice(&p[B1..B1 + HIDDEN]);
            for &f in &pass.feats[v][..pass.counts[v]] {
                let row = &p[W1 + f as usize * HIDDEN..][..HIDDEN];
                for (z, w) in z.iter_mut().zip(row) {
                    *z += w;
                }
            }
        }
        let t = planes.target.min(9) as usize;
        let row = &p[WT + t * HIDDEN..][..HIDDEN];
        for (z, w) in pass.z1[0].iter_mut().zip(row) {
            *z += w;
        }
        for (v, view) in views.into_iter().enumerate() {
            pass.dyn_counts[v] = planes.dynamic(view, &mut pass.dynamic[v]);
            for &f in &pass.dynamic[v][..pass.dyn_counts[v]] {
                let row = &p[WD + f as usize * HIDDEN..][..HIDDEN];
                for (z, w) in pass.z1[v].iter_mut().zip(row) {
                    *z += w;
                }
            }
        }
        for v in 0..2 {
            for k in 0..HIDDEN {
                pass.a1[v * HIDDEN + k] = pass.z1[v][k].clamp(0.0, 1.0);
            }
        }
        pass.z2.copy_from_slice(&p[B2..B2 + HIDDEN2]);
        for (i, &a) in pass.a1.iter().enumerate() {
            let row = &p[W2 + i * HIDDEN2..][..HIDDEN2];
            for (z, w) in pass.z2.iter_mut().zip(row) {
                *z += a * w;
            }
        }
        let mut out = p[B3];
        for j in 0..HIDDEN2 {
            pass.a2[j] = pass.z2[j].clamp(0.0, 1.0);
            out += pass.a2[j] * p[W3 + j];
        }
        pass.y = sigmoid(out);
        pass
    }

    /// The policy head's priors of the legal moves in `planes`, by the
    /// trainer's own forward pass: (cell, prior) pairs.
    pub fn policy(&self, planes: &Planes) -> Vec<(u8, f32)> {
        let pass = self.pass(planes);
        let pp = self.policy_pass(planes, &pass);
        (0..pp.len).map(|k| (pp.cells[k], pp.probs[k])).collect()
    }

    fn policy_pass(&self, planes: &Planes, pass: &Pass) -> PolicyPass {
        let p = &self.params;
        let mut pp = PolicyPass {
            cells: [0; POLICY],
            probs: [0.0; POLICY],
            len: 0,
        };
        let mut legal = planes.legal_cells();
        while legal != 0 {
            pp.cells[pp.len] = legal.trailing_zeros() as u8;
            legal &= legal - 1;
            pp.len += 1;
        }
        let logits = pp.cells[..pp.len].iter().map(|&c| {
            let row = &p[WP + c as usize * 2 * HIDDEN..][..2 * HIDDEN];
            p[BP + c as usize] + row.iter().zip(&pass.a1).map(|(w, a)| w * a).sum::<f32>()
        });
        super::softmax_into(logits, &mut pp.probs);
        pp
    }

    /// The policy's cross-entropy against `sample`'s target and whether
    /// its favourite is the target's first move.
    fn policy_loss(sample: &Sample, pp: &PolicyPass) -> (f64, bool) {
        let mut loss = 0.0;
        for k in 0..sample.policy_len as usize {
            let t = sample.policy_shares[k] as f64 / SHARE_SCALE as f64;
            if let Some(j) = pp.cells[..pp.len]
                .iter()
                .position(|&c| c == sample.policy_cells[k])
            {
                loss -= t * (pp.probs[j] as f64).max(1e-12).ln();
            }
        }
        let best = (0..pp.len)
            .max_by(|&a, &b| pp.probs[a].total_cmp(&pp.probs[b]))
            .map(|j| pp.cells[j]);
        (loss, best == Some(sample.policy_cells[0]))
    }

    /// Adds the gradient of the loss on one sample to the gradients;
    /// returns the loss.
    fn backward(&mut self, sample: &Sample, policy_weight: f32) -> f64 {
        let pass = self.pass(&sample.planes);
        let mut policy_loss = 0.0;
        let mut dlogits = [0f32; POLICY];
        let pp = (policy_weight > 0.0 && sample.policy_len > 0).then(|| {
            let pp = self.policy_pass(&sample.planes, &pass);
            policy_loss = Self::policy_loss(sample, &pp).0;
            dlogits[..pp.len].copy_from_slice(&pp.probs[..pp.len]);
            for k in 0..sample.policy_len as usize {
                let t = sample.policy_shares[k] as f32 / SHARE_SCALE as f32;
                if let Some(j) = pp.cells[..pp.len]
                    .iter()
                    .position(|&c| c == sample.policy_cells[k])
                {
                    dlogits[j] -= t;
                }
            }
            for d in &mut dlogits[..pp.len] {
                *d *= policy_weight;
            }
            pp
        });
        let (p, g) = (&self.params, &mut self.grads);
        let d3 = pass.y - sample.target;
        g[B3] += d3;
        let mut dz2 = [0f32; HIDDEN2];
        for j in 0..HIDDEN2 {
            g[W3 + j] += d3 * pass.a2[j];
            let z = pass.z2[j];
            if z > 0.0 && z < 1.0 {
                dz2[j] = d3 * p[W3 + j];
            }
        }
        for (j, d) in dz2.iter().enumerate() {
            g[B2 + j] += d;
        }
        let mut da1 = [0f32; 2 * HIDDEN];
        for (i, &a) in pass.a1.iter().enumerate() {
            let row = &p[W2 + i * HIDDEN2..][..HIDDEN2];
            let grow = &mut g[W2 + i * HIDDEN2..][..HIDDEN2];
            let mut s = 0.0;
            for j in 0..HIDDEN2 {
                grow[j] += a * dz2[j];
                s += row[j] * dz2[j];
            }
            da1[i] = s;
        }
        if let Some(pp) = &pp {
            for (j, &c) in pp.cells[..pp.len].iter().enumerate() {
                let d = dlogits[j];
                g[BP + c as usize] += d;
                let row = &p[WP + c as usize * 2 * HIDDEN..][..2 * HIDDEN];
                let grow = &mut g[WP + c as usize * 2 * HIDDEN..][..2 * HIDDEN];
                for i in 0..2 * HIDDEN {
                    grow[i] += d * pass.a1[i];
                    da1[i] += d * row[i];
                }
            }
        }
        let mut dz1 = [[0f32; HIDDEN]; 2];
        for v in 0..2 {
            for k in 0..HIDDEN {
                let z = pass.z1[v][k];
                if z > 0.0 && z < 1.0 {
                    dz1[v][k] = da1[v * HIDDEN + k];
                }
            }
        }
        for k in 0..HIDDEN {
            g[B1 + k] += dz1[0][k] + dz1[1][k];
        }
        let t = sample.planes.target.min(9) as usize;
        for (gw, d) in g[WT + t * HIDDEN..][..HIDDEN].iter_mut().zip(&dz1[0]) {
            *gw += d;
        }
        for (v, dz) in dz1.iter().enumerate() {
            for &f in &pass.feats[v][..pass.counts[v]] {
                let row = &mut g[W1 + f as usize * HIDDEN..][..HIDDEN];
                for (gw, d) in row.iter_mut().zip(dz) {
                    *gw += d;
                }
            }
            for &f in &pass.dynamic[v][..pass.dyn_counts[v]] {
                let row = &mut g[WD + f as usize * HIDDEN..][..HIDDEN];
                for (gw, d) in row.iter_mut().zip(dz) {
                    *gw += d;
                }
            }
        }
        bce(pass.y, sample.target) + policy_weight as f64 * policy_loss
    }

    /// One Adam step with the gradients summed over `batch` samples, then
    /// clears them.
    fn adam(&mut self, lr: f32, batch: usize) {
        const B1_: f32 = 0.9;
        const B2_: f32 = 0.999;
        self.step += 1;
        let c1 = 1.0 - B1_.powi(self.step as i32);
        let c2 = 1.0 - B2_.powi(self.step as i32);
        let scale = 1.0 / batch as f32;
        for i in 0..LEN {
            let g = self.grads[i] * scale;
            self.m[i] = B1_ * self.m[i] + (1.0 - B1_) * g;
            self.v[i] = B2_ * self.v[i] + (1.0 - B2_) * g * g;
            let mh = self.m[i] / c1;
            let vh = self.v[i] / c2;
            self.params[i] -= lr * mh / (vh.sqrt() + 1e-8);
            self.grads[i] = 0.0;
        }
    }

    /// The value's mean loss and squared error and the policy's mean
    /// cross-entropy and top-1 agreement on `samples` (no training).
    pub fn evaluate(&self, samples: &[Sample]) -> Validation {
        let mut v = Validation::default();
        let mut with_policy = 0usize;
        for s in samples {
            let pass = self.pass(&s.planes);
            v.loss += bce(pass.y, s.target);
            v.mse += ((pass.y - s.target) as f64).powi(2);
            if s.policy_len > 0 {
                let (loss, top1) = Self::policy_loss(s, &self.policy_pass(&s.planes, &pass));
                v.policy += loss;
                v.top1 += f64::from(u8::from(top1));
                with_policy += 1;
            }
        }
        let n = samples.len().max(1) as f64;
        v.loss /= n;
        v.mse /= n;
        v.policy /= with_policy.max(1) as f64;
        v.top1 /= with_policy.max(1) as f64;
        v
    }
}

/// Figures of a net on held-out samples ([`Trainer::evaluate`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct Validation {
    /// The value's mean binary cross-entropy.
    pub loss: f64,
    /// The value's mean squared error.
    pub mse: f64,
    /// The policy's mean cross-entropy (samples with a policy target).
    pub policy: f64,
    /// How often the policy's favourite is the target's most visited move.
    pub top1: f64,
}

/// Splits games into training and held-out positions (one game in
/// [`HELD_OUT_EVERY`], at least one when there are two or more), shuffled
/// by `seed`.
pub fn split(games: &[GameRecord], lambda: f32, seed: u64) -> (Vec<Sample>, Vec<Sample>) {
    let mut order: Vec<usize> = (0..games.len()).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ SPLIT_SALT);
    shuffle(&mut order, &mut rng);
    let held = if games.len() >= 2 {
        (games.len() / HELD_OUT_EVERY).max(1)
    } else {
        0
    };
    let pick =
        |idx: &[usize]| -> Vec<GameRecord> { idx.iter().map(|&i| games[i].clone()).collect() };
    let valid = samples(&pick(&order[..held]), lambda);
    let train = samples(&pick(&order[held..]), lambda);
    (train, valid)
}

/// Fisher-Yates with the given generator.
fn shuffle<T>(v: &mut [T], rng: &mut Xoshiro256PlusPlus) {
    for i in (1..v.len()).rev() {
        let j = ((rng.next_u32() as u64 * (i as u64 + 1)) >> 32) as usize;
        v.swap(i, j);
    }
}

/// Trains on `train`, telling `progress` each step and each epoch's
/// losses (on `valid` too); starts from `start` when given, else from
/// fresh weights.
pub fn train(
    train: &[Sample],
    valid: &[Sample],
    config: &Config,
    start: Option<&Net>,
    progress: &mut dyn FnMut(News<'_>),
) -> Trainer {
    let mut trainer = match start {
        Some(net) => Trainer::from_net(net),
        None => Trainer::new(config.seed),
    };
    if start.is_some() && !valid.is_empty() {
        progress(News::Start(&trainer.evaluate(valid)));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed.wrapping_add(1));
    let mut order: Vec<usize> = (0..train.len()).collect();
    let batch = config.batch.max(1);
    let steps_total = (config.epochs as usize * train.len().div_ceil(batch)).max(1);
    let mut steps = 0usize;
    for epoch in 1..=config.epochs {
        shuffle(&mut order, &mut rng);
        let mut loss = 0.0;
        for chunk in order.chunks(batch) {
            for &i in chunk {
                let sym = (rng.next_u32() % 8) as usize;
                let sample = train[i].transform(sym);
                loss += trainer.backward(&sample, config.policy_weight);
            }
            let lr = config.lr * (1.0 - LR_DROP * steps as f32 / steps_total as f32);
            trainer.adam(lr, chunk.len());
            steps += 1;
            progress(News::Step {
                done: steps,
                total: steps_total,
            });
        }
        let v = trainer.evaluate(valid);
        progress(News::Epoch(&Epoch {
            epoch,
            train_loss: loss / train.len().max(1) as f64,
            valid_loss: v.loss,
            valid_mse: v.mse,
            valid_policy: v.policy,
            valid_top1: v.top1,
        }));
    }
    trainer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::features::Accumulator;
    use crate::rules::Position;

    #[test]
    fn the_trainers_forward_pass_is_the_engines() {
        let trainer = Trainer::new(3);
        let net = trainer.net("test");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for _ in 0..20 {
            let mut pos = Position::startpos();
            let mut acc = Accumulator::new(&net, &Planes::from_position(&pos));
            while let Some(m) = pos.random_move(&mut rng) {
                pos.play(m);
                if pos.is_over() {
                    break;
                }
                let planes = Planes::from_position(&pos);
                acc.update(&net, &planes);
                let incremental = net.value(&acc, &planes);
                let scratch = net.evaluate_planes(&planes);
                let trainer_value = trainer.forward(&planes);
                // The engine's integers are the same either way; the
                // trainer's floats differ by the quantisation's error.
                assert_eq!(incremental, scratch, "{pos}");
                assert!((trainer_value - scratch).abs() < 2e-3, "{pos}");
                // The policy heads agree too, move for move.
                let moves = pos.legal_moves();
                let mut priors = vec![0f32; moves.len()];
                let cells: Vec<u8> = moves.iter().map(|m| m.index()).collect();
                net.evaluate_with_policy(&planes, &cells, &mut priors, 1.0);
                let mut trainer_priors = trainer.policy(&planes);
                trainer_priors.sort_by_key(|&(c, _)| c);
                let mut engine: Vec<(u8, f32)> = cells.into_iter().zip(priors).collect();
                engine.sort_by_key(|&(c, _)| c);
                assert_eq!(engine.len(), trainer_priors.len(), "{pos}");
                for ((c, p), (tc, tp)) in engine.iter().zip(&trainer_priors) {
                    assert_eq!(c, tc, "{pos}");
                    assert!((p - tp).abs() < 2e-3, "{pos}: {c} {p} {tp}");
                }
                assert!((engine.iter().map(|e| e.1).sum::<f32>() - 1.0).abs() < 1e-4);
            }
        }
    }

    /// Asserts that backprop's gradient `grads[i]` matches the central
    /// difference of `loss` at weight `i`.
    fn check_gradient(trainer: &Trainer, grads: &[f32], i: usize, loss: impl Fn(&Trainer) -> f64) {
        let h = 1e-3;
        let mut plus = Trainer::from_params(trainer.params.clone());
        plus.params[i] += h;
        let mut minus = Trainer::from_params(trainer.params.clone());
        minus.params[i] -= h;
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * h as f64);
        assert!(
            (numeric - grads[i] as f64).abs() < 2e-3 + 0.05 * numeric.abs(),
            "weight {i}: numeric {numeric}, backprop {}",
            grads[i]
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        let mut trainer = Trainer::new(5);
        // A position where both sides have threats on some boards.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut pos = Position::startpos();
        let mut dynamic = [0u8; DYNAMIC];
        while Planes::from_position(&pos).dynamic(pos.side_to_move(), &mut dynamic) < 2 {
            let m = pos.random_move(&mut rng).unwrap();
            pos.play(m);
            assert!(!pos.is_over());
        }
        let sample = Sample::value_only(Planes::from_position(&pos), 0.8);
        trainer.backward(&sample, 0.0);
        let grads = trainer.grads.clone();
        // Weights the sample uses: a first-layer row's, the board's row,
        // second and last layers.
        let feats = {
            let mut f = [0u16; MAX_ACTIVE];
            sample.planes.features(sample.planes.side, &mut f);
            f[0] as usize
        };
        sample.planes.dynamic(sample.planes.side, &mut dynamic);
        let wd = WD + dynamic[0] as usize * HIDDEN + 2;
        for i in [
            W1 + feats * HIDDEN + 3,
            B1 + 5,
            WT + 3 * HIDDEN + 1,
            wd,
            W2 + 7,
            B2 + 2,
            W3 + 4,
            B3,
        ] {
            check_gradient(&trainer, &grads, i, |t| bce(t.forward(&sample.planes), 0.8));
        }
    }

    #[test]
    fn policy_gradients_match_finite_differences() {
        let mut trainer = Trainer::new(8);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut pos = Position::startpos();
        for _ in 0..7 {
            let m = pos.random_move(&mut rng).unwrap();
            pos.play(m);
        }
        let moves = pos.legal_moves();
        let visits: Vec<(u8, u32)> = moves
            .iter()
            .enumerate()
            .map(|(k, m)| (m.index(), 10 + 37 * k as u32))
            .collect();
        let sample = Sample::value_only(Planes::from_position(&pos), 0.3).with_visits(&visits);
        assert_eq!(sample.policy_len as usize, moves.len().min(POLICY_MOVES));
        let weight = 0.7;
        trainer.backward(&sample, weight);
        let grads = trainer.grads.clone();
        let loss = |t: &Trainer| {
            let pass = t.pass(&sample.planes);
            bce(pass.y, 0.3)
                + weight as f64
                    * Trainer::policy_loss(&sample, &t.policy_pass(&sample.planes, &pass)).0
        };
        let feats = {
            let mut f = [0u16; MAX_ACTIVE];
            sample.planes.features(sample.planes.side, &mut f);
            f[1] as usize
        };
        let cell = sample.policy_cells[0] as usize;
        let other = sample.policy_cells[1] as usize;
        for i in [
            WP + cell * 2 * HIDDEN + 3,
            WP + other * 2 * HIDDEN + 70,
            BP + cell,
            BP + other,
            W1 + feats * HIDDEN + 5,
            B1 + 9,
            W2 + 11,
        ] {
            check_gradient(&trainer, &grads, i, loss);
        }
    }

    #[test]
    fn policy_targets_follow_the_symmetries() {
        let pos: Position = "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1".parse().unwrap();
        let planes = Planes::from_position(&pos);
        let visits: Vec<(u8, u32)> = pos
            .legal_moves()
            .iter()
            .enumerate()
            .map(|(k, m)| (m.index(), k as u32))
            .collect();
        let sample = Sample::value_only(planes, 0.5).with_visits(&visits);
        // The move with no visits is dropped; the shares add up.
        assert_eq!(sample.policy_len as usize, visits.len() - 1);
        let total: u32 = sample.policy_shares[..sample.policy_len as usize]
            .iter()
            .map(|&s| s as u32)
            .sum();
        assert!(total.abs_diff(65535) < 16, "{total}");
        for s in 0..8 {
            let t = sample.transform(s);
            let legal = t.planes.legal_cells();
            for &c in &t.policy_cells[..t.policy_len as usize] {
                assert!(legal >> c & 1 == 1, "symmetry {s}: cell {c} not legal");
            }
        }
    }

    #[test]
    fn training_is_reproducible_and_learns() {
        // A toy target: x to move with the centre cell is good.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let mut train_set = Vec::new();
        for _ in 0..400 {
            let mut pos = Position::startpos();
            for _ in 0..(rng.next_u32() % 20) {
                match pos.random_move(&mut rng) {
                    Some(m)
                        if !{
                            let mut p = pos;
                            p.play(m);
                            p.is_over()
                        } =>
                    {
                        pos.play(m)
                    }
                    _ => break,
                }
            }
            let planes = Planes::from_position(&pos);
            let centre = planes.marks[planes.side.index()] >> 40 & 1 == 1;
            train_set.push(Sample::value_only(planes, if centre { 0.9 } else { 0.3 }));
        }
        let config = Config {
            epochs: 3,
            batch: 32,
            ..Config::default()
        };
        let mut losses = Vec::new();
        let mut steps = 0;
        let a = train(
            &train_set,
            &train_set,
            &config,
            None,
            &mut |news| match news {
                News::Epoch(e) => losses.push(e.valid_loss),
                News::Start(_) => panic!("no start net, no start figures"),
                News::Step { done, total } => {
                    steps += 1;
                    assert_eq!((done, total), (steps, 3 * train_set.len().div_ceil(32)));
                }
            },
        );
        let b = train(&train_set, &train_set, &config, None, &mut |_| {});
        assert_eq!(a.params, b.params, "same seed, same weights");
        let first = Trainer::new(config.seed).evaluate(&train_set).loss;
        assert!(losses[2] < first, "{first} -> {losses:?}");
    }
}
