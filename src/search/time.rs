//! Time management: how long to think about one move.
//!
//! A plan has a soft limit (stop there when the best move is settled) and a
//! hard limit (never think longer). With a clock, the soft limit is the time
//! left shared over the moves expected to remain, plus most of the
//! increment; the hard limit is three times that, capped at half of what is
//! left (90% of it when this is the last move before the time control). The
//! move overhead is taken off first, and a small safety margin is always
//! kept, so the engine never runs out of time while it is left any.

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
        let moves = c
            .movestogo
            .map_or(expected_moves_left(ply, expected_plies), |m| m.clamp(1, 50));
        let soft = usable / moves + c.inc.mul_f64(0.75);
        let cap = if moves == 1 {
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
        // 30 expected moves: about 2 s a move, at most 6 s.
        assert!(p.soft > ms(1_800) && p.soft < ms(2_100), "{p:?}");
        assert!(p.hard <= ms(6_000));
        let last = plan(&clock(10_000, 0, Some(1)), ms(0), 0, 60).unwrap();
        assert!(last.hard >= ms(8_000));
        let with_inc = plan(&clock(1_000, 100, None), ms(0), 0, 60).unwrap();
        assert!(with_inc.soft > ms(100));
    }
}
