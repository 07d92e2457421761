//! The search's results as a [`Report`]: one line per root move, best
//! first, read from the shared tree and the threads' statistics, during a
//! search (the `info` reports) as after it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::tree::{Tree, preference};
use super::worker::Share;
use super::{Line, Proven, Report};
use crate::game::{Game, Verdict};

/// Longest PV reported.
const MAX_PV: usize = 32;

/// The report: one line per root child that the search may choose, best
/// first, each with its PV.
pub(crate) fn build_report<G: Game>(
    tree: &Tree<G>,
    shares: &[Share],
    elapsed: Duration,
) -> Report<G::Move> {
    let r = Ordering::Relaxed;
    let (mut nodes, mut playouts, mut depth_sum, mut seldepth) = (0, 0, 0, 0);
    for s in shares {
        nodes += s.iterations.load(r);
        playouts += s.playouts.load(r);
        depth_sum += s.depth_sum.load(r);
        seldepth = seldepth.max(s.max_depth.load(r));
    }
    let range = tree.root().children();
    let first = range.start;
    let sums: Vec<ChildSum> = range
        .enumerate()
        .map(|(k, c)| {
            let node = tree.node(c);
            let (visits, score) = node.stats();
            let (proof, dist) = node.proof().map_or((None, 0), |(v, d)| (Some(v), d));
            let mut wdl = [0u64; 3];
            for s in shares {
                if let Some(counts) = s.root_wdl.get(k) {
                    for (sum, count) in wdl.iter_mut().zip(counts) {
                        *sum += count.load(r);
                    }
                }
            }
            ChildSum {
                visits: visits as u64,
                score,
                wdl,
                proof,
                dist,
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..sums.len()).filter(|&k| tree.root_allowed(k)).collect();
    order.sort_by(|&a, &b| sums[b].key().cmp(&sums[a].key()));
    let lines = order
        .into_iter()
        .map(|k| {
            let c = first + k;
            let prior = tree.with_priors().then(|| tree.prior(c));
            sums[k].line(tree.node(c).mv(), pv_through(tree, c), tree.unit(), prior)
        })
        .collect();
    Report {
        lines,
        nodes,
        elapsed,
        depth: depth_sum.checked_div(playouts).unwrap_or(0) as u32,
        seldepth,
        hashfull: (tree.len() as u64 * 1000 / tree.capacity() as u64) as u32,
    }
}

/// The PV from node `child` of `tree` (the move into it first).
fn pv_through<G: Game>(tree: &Tree<G>, child: usize) -> Vec<G::Move> {
    let mut pv = vec![tree.node(child).mv()];
    pv.extend(tree.pv_from(child, MAX_PV - 1));
    pv
}

/// The statistics of one root child.
#[derive(Copy, Clone, Default)]
struct ChildSum {
    visits: u64,
    score: u64,
    /// Wins, draws and losses over all threads, in score units.
    wdl: [u64; 3],
    proof: Option<Verdict>,
    dist: u8,
}

impl ChildSum {
    /// Ordering key: larger is better (the same as `tree::best_child`'s).
    fn key(&self) -> (u8, i64, u64, u64) {
        preference(self.proof, self.dist, self.visits, self.score)
    }

    /// The line for move `mv`; `unit` is the tree's score unit, `prior`
    /// the move's prior (with PUCT).
    fn line<M>(&self, mv: M, pv: Vec<M>, unit: u32, prior: Option<f32>) -> Line<M> {
        let proven = self.proof.map(|verdict| Proven {
            verdict,
            plies: self.dist as u32 + 1,
        });
        let q = match self.proof {
            Some(v) => v.score(),
            None if self.visits == 0 => 0.5,
            None => self.score as f64 / (2.0 * unit as f64 * self.visits as f64),
        };
        let wdl = match self.proof {
            Some(Verdict::Win) => [1000, 0, 0],
            Some(Verdict::Loss) => [0, 0, 1000],
            Some(Verdict::Draw) => [0, 1000, 0],
            None => permille(self.wdl, q),
        };
        Line {
            mv,
            visits: self.visits,
            q,
            wdl,
            proven,
            pv,
            prior,
        }
    }
}

/// Win/draw/loss counts as permille summing to 1000; with no counts, an
/// estimate from the expected score `q` with no draws.
fn permille(counts: [u64; 3], q: f64) -> [u32; 3] {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        let w = (q * 1000.0).round() as u32;
        return [w, 0, 1000 - w.min(1000)];
    }
    let w = (counts[0] * 1000 + total / 2) / total;
    let d = (counts[1] * 1000 + total / 2) / total;
    let w = w.min(1000) as u32;
    let d = (d as u32).min(1000 - w);
    [w, d, 1000 - w - d]
}
