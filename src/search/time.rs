//! Time management: how long to think about one move.
//!
//! A plan has a soft limit (the time meant for the move) and a hard limit
//! (never think longer). With a clock, the soft limit is the time left
//! shared over the moves expected to remain (2.5 times that share in
//! sudden death and with increment, see "How much of the clock" below),
//! plus most of the increment; the hard limit is three times that, capped
//! at half of what is left (90% of it when this is the last move before
//! the time control). The move
//! overhead is taken off first, and a small safety margin is always kept,
//! so the engine never runs out of time while it is left any. `go
//! movetime` plans soft and hard alike, and such a search runs to the end
//! of it; `go nodes` plans no time at all.
//!
//! # When a clock search stops
//!
//! The reporting thread looks at the search at checkpoints (every few
//! hundred iterations, at most a couple of milliseconds apart) and asks
//! [`should_stop`], a pure function of the plan and what it sees
//! ([`Progress`]). The hard limit always ends the search; a proven root
//! ends it before any checkpoint (the threads stop iterating at once), and
//! a plan with no slack (`go movetime`) ends exactly at its limit. Between:
//!
//! - before the soft limit, from a quarter of it on, the search stops once
//!   the runner-up is further behind the best move in visits than the
//!   iterations left until the soft limit at the speed so far: it cannot
//!   catch up (Leela's "smart pruning");
//! - past the soft limit, it goes on while the runner-up has more than half
//!   the best move's visits, up to the hard limit.
//!
//! With `SmartTime` (the default) it also stops at once when only one root
//! move is left to choose (a single legal move, or every other one proven
//! lost), and past the soft limit goes on, however far the best move leads,
//! while the most visited move changed in the last quarter of the search so
//! far. `SmartTime false` keeps the rule without these two (the engine's
//! before it), to measure against.
//!
//! Measured on one binary, SmartTime on against off (`ultimo match
//! --engine "cmd=ultimo name=smart" --engine "cmd=ultimo name=plain
//! option.SmartTime=false" --tc 2+0.02 --games 240 --random-plies 4 --seed
//! 21 --concurrency 2`, 2 cores): a first smart manager, Leela/Monty-style,
//! lost -24.7 [-40.0, -9.4] Elo (pentanomial). It meant to spend the soft
//! limit scaled by how close the top two were (0.6x with no runner-up to
//! 1.4x when level) and by how recently the best move changed (up to 1.5x
//! more), and stopped once the runner-up could not catch up before that
//! (from an eighth of the soft limit on). It spent less than the plain
//! rule where one move led, which does not pay here: a game of Ultimate
//! Tic-Tac-Toe often ends with time left on the clock, so time saved is
//! mostly time lost, and the plain rule already thinks up to three times
//! longer when the top two are close. The rule above keeps the plain one
//! and adds only what cannot cost strength (no thought on a forced move)
//! or spends more (a best move that just changed). It measured better
//! than the plain rule on one binary (release build of 6c10c48, the p4w
//! net, under an exclusive lock, 325 s): `ultimo match --engine
//! "cmd=ultimo name=smart" --engine "cmd=ultimo name=plain
//! option.SmartTime=false" --tc 2+0.02 --games 240 --random-plies 4 --seed
//! 21 --concurrency 2`: W 21 D 207 L 12, +13.0 [+1.6, +24.5] Elo
//! (pentanomial; pairs LD 4, DD/WL 103, WD 13).
//!
//! # How much of the clock
//!
//! Without moves-to-go the share is the time left over the own moves a
//! game of [`crate::game::Game::EXPECTED_PLIES`] has left (at least 8).
//! An even share left most of the clock unused: at 2+0.02 the engine
//! ended its games with a median 59% of its base time left (quartiles
//! 51-66%; `scripts/clock-left.py` on the PGN of the matches below), as a
//! game of Ultimate Tic-Tac-Toe often ends well before ply 60, and the
//! smart manager stops early where one move leads. Spending `SPEND`
//! times the share, measured against the even share on release builds
//! of 493661b that differ only in it (`ultimo match --engine
//! "cmd=ultimo-spend name=spend" --engine "cmd=ultimo-even name=even"
//! --tc 2+0.02 --games 300 --random-plies 4 --seed 21 --concurrency 2`,
//! pentanomial Elo, 2 cores of an AMD EPYC):
//!
//! | share | Elo at 2+0.02 | clock left at the end (median, quartiles) |
//! |---|---|---|
//! | 1.5 | +13.6 [-0.2, +27.5] (281 games) | 44% (36-53%) |
//! | 2.5 | +33.7 [+21.3, +46.2] | 24% (17-34%) |
//! | 3.5 | +29.0 [+16.0, +42.2] | 14% (8-22%) |
//!
//! 2.5 keeps a quarter of the clock for the long games; at 10+0.1 it
//! scored +34.9 [+18.4, +51.5] against the even share
//! (160 games, `--tc 10+0.1 --seed 22`; W 17 D 142 L 1, clock left 24%
//! against 57%).

use std::time::Duration;

use super::Limits;

/// Soft and hard limits for one search, counted from its start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// Stop here when the best move is clear.
    pub soft: Duration,
    /// Never search longer than this.
    pub hard: Duration,
}

/// The least time any plan gives.
const MIN_TIME: Duration = Duration::from_millis(1);

/// How many times its even share of the clock a move gets without
/// moves-to-go (sudden death, increment): measured, see the module docs.
const SPEND: f64 = 2.5;

/// Own moves a game is expected to last beyond the current ply, for a clock
/// without moves-to-go, in a game expected to last `expected_plies`
/// ([`crate::game::Game::EXPECTED_PLIES`]).
fn expected_moves_left(ply: u32, expected_plies: u32) -> u32 {
    (expected_plies.saturating_sub(ply) / 2).max(8)
}

/// The plan for `limits`, or `None` when time does not limit the search.
pub fn plan(
    limits: &Limits,
    move_overhead: Duration,
    ply: u32,
    expected_plies: u32,
) -> Option<TimePlan> {
    let from_movetime = limits.movetime.map(|t| {
        let t = t.saturating_sub(move_overhead).max(MIN_TIME);
        TimePlan { soft: t, hard: t }
    });
    let from_clock = limits.clock.map(|c| {
        let left = c.time.saturating_sub(move_overhead);
        // Always keep 5% of what is left (at most 50 ms) in reserve.
        let reserve = (left / 20).min(Duration::from_millis(50));
        let usable = left.saturating_sub(reserve);
        let share = match c.movestogo {
            Some(m) => usable / m.clamp(1, 50),
            None => (usable / expected_moves_left(ply, expected_plies)).mul_f64(SPEND),
        };
        let soft = share + c.inc.mul_f64(0.75);
        // The last move before the time control may use nearly all of it.
        let cap = if c.movestogo.is_some_and(|m| m <= 1) {
            usable.mul_f64(0.9)
        } else {
            usable / 2
        };
        let hard = (soft * 3).min(cap).max(MIN_TIME);
        TimePlan {
            soft: soft.min(hard).max(MIN_TIME),
            hard,
        }
    });
    match (from_movetime, from_clock) {
        (Some(a), Some(b)) => Some(TimePlan {
            soft: a.soft.min(b.soft),
            hard: a.hard.min(b.hard),
        }),
        (a, b) => a.or(b),
    }
}

/// What the reporting thread sees of the search at a checkpoint, for
/// [`should_stop`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Time since the search started (or since `ponderhit`).
    pub elapsed: Duration,
    /// Iterations of this search so far, all threads (for its speed).
    pub iterations: u64,
    /// Visits of the most visited root move (the tree's, reused visits
    /// included). With `SmartTime` only the moves the search may still
    /// choose count: allowed by `searchmoves`, not proven lost.
    pub best: u64,
    /// Visits of the second most visited, counted likewise.
    pub second: u64,
    /// Root moves the search may still choose (counted with `SmartTime`
    /// only; the plain manager does not look).
    pub choices: usize,
    /// How long the most visited move has been the most visited (counted
    /// with `SmartTime` only).
    pub stable_for: Duration,
}

/// Whether a search on `plan` should stop now, at the checkpoint that saw
/// `progress`: the smart manager's rule with `smart`, else the plain one
/// (the engine's before the smart manager, kept as `SmartTime false` to
/// measure against). Either way the hard limit ends the search, and a
/// plan with no slack (`go movetime`: soft equal to hard) ends exactly at
/// it.
pub fn should_stop(plan: &TimePlan, progress: &Progress, smart: bool) -> bool {
    if progress.elapsed >= plan.hard {
        return true;
    }
    if plan.soft == plan.hard {
        return false;
    }
    if smart {
        smart_stop(plan, progress)
    } else {
        plain_stop(plan, progress)
    }
}

/// The plain rule: up to the soft limit, stop once the runner-up cannot
/// catch up by then at the current speed (looked at from a quarter of
/// it); past it, go on only while the runner-up has more than half the
/// best move's visits.
fn plain_stop(plan: &TimePlan, p: &Progress) -> bool {
    if p.elapsed >= plan.soft {
        return settled(p);
    }
    runner_up_too_far(plan, p)
}

/// The smart rule: the plain one, but at once when at most one move is
/// left to choose, and past the soft limit on while the best move changed
/// in the last quarter of the search so far, however far it leads.
fn smart_stop(plan: &TimePlan, p: &Progress) -> bool {
    if p.choices <= 1 {
        return true;
    }
    if p.elapsed >= plan.soft {
        return settled(p) && p.stable_for >= p.elapsed / 4;
    }
    runner_up_too_far(plan, p)
}

/// Whether the best move has at least twice the runner-up's visits.
fn settled(p: &Progress) -> bool {
    p.best >= p.second.saturating_mul(2)
}

/// Whether, from a quarter of the soft limit on, the runner-up is further
/// behind the best move than the iterations left until the soft limit at
/// the speed so far (Leela's "smart pruning"): it cannot catch up by then.
fn runner_up_too_far(plan: &TimePlan, p: &Progress) -> bool {
    if p.elapsed < plan.soft / 4 {
        return false;
    }
    let left = (plan.soft - p.elapsed).as_secs_f64() * rate(p);
    p.best.saturating_sub(p.second) as f64 > left
}

/// Iterations per second so far.
fn rate(p: &Progress) -> f64 {
    p.iterations as f64 / p.elapsed.as_secs_f64().max(1e-6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(time: u64, inc: u64, movestogo: Option<u32>) -> Limits {
        Limits {
            clock: Some(Clock {
                time: ms(time),
                inc: ms(inc),
                movestogo,
            }),
            ..Limits::default()
        }
    }

    #[test]
    fn no_time_limit() {
        assert_eq!(plan(&Limits::default(), ms(10), 0, 60), None);
        let nodes = Limits {
            nodes: Some(1000),
            ..Limits::default()
        };
        assert_eq!(plan(&nodes, ms(10), 0, 60), None);
    }

    #[test]
    fn movetime_minus_overhead() {
        let l = Limits {
            movetime: Some(ms(100)),
            ..Limits::default()
        };
        assert_eq!(plan(&l, ms(10), 0, 60).unwrap().hard, ms(90));
        assert_eq!(plan(&l, ms(500), 0, 60).unwrap().hard, MIN_TIME);
    }

    #[test]
    fn clock_never_overspends() {
        for time in [0, 1, 5, 20, 100, 1_000, 60_000] {
            for inc in [0, 10, 1_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    for ply in [0, 30, 80] {
                        let p = plan(&clock(time, inc, mtg), ms(10), ply, 60).unwrap();
                        assert!(p.soft <= p.hard);
                        let left = ms(time).saturating_sub(ms(10));
                        assert!(
                            p.hard <= left.max(MIN_TIME),
                            "time {time} inc {inc} mtg {mtg:?}: {p:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn clock_shares_time_over_moves() {
        let p = plan(&clock(60_000, 0, None), ms(0), 0, 60).unwrap();
        // 30 expected moves, 2 s each, times SPEND: 5 s, at most 15 s.
        assert!(p.soft > ms(4_500) && p.soft < ms(5_100), "{p:?}");
        assert!(p.hard <= ms(15_000));
        // Moves to go are shared evenly: 40 moves, 1.5 s each.
        let mtg = plan(&clock(60_000, 0, Some(40)), ms(0), 0, 60).unwrap();
        assert!(mtg.soft > ms(1_350) && mtg.soft < ms(1_550), "{mtg:?}");
        let last = plan(&clock(10_000, 0, Some(1)), ms(0), 0, 60).unwrap();
        assert!(last.hard >= ms(8_000));
        let with_inc = plan(&clock(1_000, 100, None), ms(0), 0, 60).unwrap();
        assert!(with_inc.soft > ms(100));
    }

    /// A plan of 1 s soft, 3 s hard.
    const PLAN: TimePlan = TimePlan {
        soft: Duration::from_secs(1),
        hard: Duration::from_secs(3),
    };

    /// A checkpoint at `elapsed` ms, after 1,000 iterations a millisecond,
    /// with these top two, 10 moves to choose from and the leader unchanged
    /// since the start.
    fn at(elapsed: u64, best: u64, second: u64) -> Progress {
        Progress {
            elapsed: ms(elapsed),
            iterations: elapsed * 1_000,
            best,
            second,
            choices: 10,
            stable_for: ms(elapsed),
        }
    }

    #[test]
    fn hard_limit_always_stops() {
        for smart in [true, false] {
            for (best, second) in [(0, 0), (100, 100), (1_000_000, 0)] {
                assert!(should_stop(&PLAN, &at(3_000, best, second), smart));
                let changed = Progress {
                    stable_for: ms(0),
                    ..at(3_000, best, second)
                };
                assert!(should_stop(&PLAN, &changed, smart));
            }
        }
    }

    #[test]
    fn fixed_time_runs_to_the_end() {
        // `go movetime`: soft equals hard, and nothing ends the search
        // early, not even a single move to choose (as before SmartTime).
        let fixed = TimePlan {
            soft: ms(500),
            hard: ms(500),
        };
        for smart in [true, false] {
            for p in [at(499, 1_000_000, 0), at(10, 5, 5)] {
                let single = Progress { choices: 1, ..p };
                assert!(!should_stop(&fixed, &p, smart), "{p:?}");
                assert!(!should_stop(&fixed, &single, smart), "{p:?}");
            }
            assert!(should_stop(&fixed, &at(500, 10, 10), smart));
        }
    }

    #[test]
    fn one_choice_stops_at_once() {
        let single = Progress {
            choices: 1,
            ..at(1, 1, 0)
        };
        assert!(should_stop(&PLAN, &single, true));
        assert!(!should_stop(&PLAN, &single, false));
    }

    #[test]
    fn a_dominant_move_stops_early() {
        // At 250 ms the runner-up is 751,000 visits behind, with 0.75 s x
        // 1,000/ms left until the soft limit: it cannot catch up.
        for smart in [true, false] {
            assert!(should_stop(&PLAN, &at(250, 751_000, 0), smart));
            assert!(!should_stop(&PLAN, &at(250, 749_000, 0), smart));
            // Before a quarter of the soft limit the speed is not trusted.
            assert!(!should_stop(&PLAN, &at(200, 700_000, 1), smart));
        }
    }

    #[test]
    fn close_moves_think_up_to_the_hard_limit() {
        for smart in [true, false] {
            assert!(!should_stop(&PLAN, &at(2_900, 1_000, 501), smart));
            assert!(should_stop(&PLAN, &at(1_000, 1_000, 500), smart));
        }
    }

    #[test]
    fn a_new_best_move_thinks_longer() {
        let changed = |elapsed, stable_for| Progress {
            stable_for: ms(stable_for),
            ..at(elapsed, 1_000, 100)
        };
        // Settled, but the best move changed in the last quarter of the
        // search: on (up to the hard limit), with SmartTime only.
        assert!(!should_stop(&PLAN, &changed(1_000, 249), true));
        assert!(!should_stop(&PLAN, &changed(2_999, 0), true));
        assert!(should_stop(&PLAN, &changed(1_000, 249), false));
        assert!(should_stop(&PLAN, &changed(1_000, 250), true));
        assert!(should_stop(&PLAN, &changed(3_000, 0), true));
    }
}
