//! `--shard K/N`: the share of a run's numbered jobs (a match's pairs,
//! datagen's games) that one of `N` machines plays, so that the shards
//! together play exactly what one run would.
//!
//! Shard `K` takes the jobs whose number `i` (from 0) has `i % N == K - 1`:
//! every shard gets a share of the early and of the late jobs, and a run
//! that grows keeps every shard's earlier jobs.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A `--shard` that is not `K/N` with 1 <= K <= N.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("--shard '{0}': expected K/N with 1 <= K <= N, e.g. 2/8")]
pub struct ShardError(pub String);

/// Shard `k` of `n` (1 <= k <= n).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    k: u64,
    n: u64,
}

impl Shard {
    /// Shard `k` of `n`, if 1 <= k <= n.
    pub fn new(k: u64, n: u64) -> Option<Shard> {
        (1 <= k && k <= n).then_some(Shard { k, n })
    }

    /// Which shard this is, from 1.
    pub fn k(self) -> u64 {
        self.k
    }

    /// How many shards there are.
    pub fn n(self) -> u64 {
        self.n
    }

    /// Whether job `i` (from 0) is this shard's.
    pub fn has(self, i: u64) -> bool {
        i % self.n == self.k - 1
    }

    /// This shard's jobs among the `total` of the whole run, in order.
    pub fn jobs(self, total: u64) -> impl Iterator<Item = u64> {
        (self.k - 1..total).step_by(usize::try_from(self.n).unwrap_or(usize::MAX))
    }

    /// How many of the `total` jobs are this shard's.
    pub fn count(self, total: u64) -> u64 {
        total.saturating_sub(self.k - 1).div_ceil(self.n)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// Reads `K/N` with 1 <= K <= N (spaces around the numbers allowed).
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(crate::quote::shorten(text));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        match (k.trim().parse::<u64>(), n.trim().parse::<u64>()) {
            (Ok(k), Ok(n)) => Shard::new(k, n).ok_or_else(bad),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Shard {
    /// `K/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Sorted numbers as ranges `(first, last)` of consecutive ones.
pub fn ranges(sorted: impl IntoIterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for i in sorted {
        match out.last_mut() {
            Some((_, last)) if i == *last + 1 => *last = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// Missing game numbers, as [`ranges`], in words: `game 3 is missing`,
/// `games 1, 4-6 are missing` (at most ten ranges, then `...`).
pub fn missing_games(missing: &[(u64, u64)]) -> String {
    const SHOWN: usize = 10;
    let count: u64 = missing.iter().map(|(a, b)| b - a + 1).sum();
    let mut shown: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| match a == b {
            true => a.to_string(),
            false => format!("{a}-{b}"),
        })
        .collect();
    if missing.len() > SHOWN {
        shown.push("...".into());
    }
    match count {
        0 => "no game is missing".to_string(),
        1 => format!("game {} is missing", shown.join(", ")),
        _ => format!("games {} are missing", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shards_split_the_jobs_exactly() {
        for total in [0, 1, 5, 12, 13] {
            for n in 1..=6 {
                let mut all: Vec<u64> = Vec::new();
                for k in 1..=n {
                    let s = Shard::new(k, n).unwrap();
                    let jobs: Vec<u64> = s.jobs(total).collect();
                    assert_eq!(jobs.len() as u64, s.count(total), "{s} of {total}");
                    assert!(jobs.iter().all(|&i| s.has(i) && i < total));
                    all.extend(jobs);
                }
                all.sort_unstable();
                assert_eq!(
                    all,
                    (0..total).collect::<Vec<u64>>(),
                    "{n} shards of {total}"
                );
            }
        }
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s.jobs(8).collect::<Vec<u64>>(), [1, 4, 7]);
        assert_eq!((s.k(), s.n(), s.to_string()), (2, 3, "2/3".to_string()));
        // More shards than jobs: the last ones have none.
        assert_eq!(Shard::new(8, 8).unwrap().count(4), 0);
        assert_eq!(Shard::new(u64::MAX, u64::MAX).unwrap().count(3), 0);
    }

    #[test]
    fn bad_shards_are_refused_by_name() {
        assert_eq!(" 1 / 2 ".parse::<Shard>(), Ok(Shard { k: 1, n: 2 }));
        for bad in [
            "0/2", "3/2", "1", "a/b", "1/0", "0/0", "-1/2", "1/2/3", "", "/",
        ] {
            assert_eq!(
                bad.parse::<Shard>().unwrap_err().to_string(),
                format!("--shard '{bad}': expected K/N with 1 <= K <= N, e.g. 2/8")
            );
        }
        assert_eq!(Shard::new(0, 1), None);
    }

    #[test]
    fn ranges_join_consecutive_numbers() {
        assert_eq!(ranges([1, 2, 3, 5, 7, 8]), [(1, 3), (5, 5), (7, 8)]);
        assert_eq!(ranges([]), []);
        assert_eq!(missing_games(&[(3, 3)]), "game 3 is missing");
        assert_eq!(missing_games(&[(1, 1), (4, 6)]), "games 1, 4-6 are missing");
        let many: Vec<(u64, u64)> = (0..12).map(|i| (2 * i, 2 * i)).collect();
        assert_eq!(
            missing_games(&many),
            "games 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, ... are missing"
        );
        assert_eq!(missing_games(&[]), "no game is missing");
    }
}
