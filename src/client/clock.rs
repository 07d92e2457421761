//! Time controls and the referee's clocks: what `go` command to send, how
//! long a move may take, and who lost on time.

use crate::game::Player;
use crate::quote::shorten;
use std::fmt;
use std::time::Duration;

/// How much an engine may think per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A fixed time per move: `go movetime <ms>`.
    Movetime(Duration),
    /// A fixed number of iterations per move: `go nodes <n>`.
    Nodes(u64),
    /// A clock per side: `base` at the start, `increment` added after each
    /// move.
    Clock {
        /// Time on each clock at the start of a game.
        base: Duration,
        /// Time added to a clock after each of its side's moves.
        increment: Duration,
    },
}

/// The longest any time setting may be: one day. Longer settings are
/// refused, so that no wait is endless and no sum of times overflows.
pub const MAX_TIME: Duration = Duration::from_secs(24 * 60 * 60);

/// Why a time setting is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// None or more than one of `--movetime`, `--nodes` and `--tc`.
    #[error("give one time control: --movetime, --nodes or --tc")]
    NotOne,
    /// `--movetime 0` or `--nodes 0`.
    #[error("{option} must be at least 1")]
    Zero {
        /// The option, e.g. `--movetime`.
        option: &'static str,
    },
    /// A time in milliseconds above [`MAX_TIME`].
    #[error("{option} {ms} is too long: the most is {} ms (a day)", MAX_TIME.as_millis())]
    TooLong {
        /// The option, e.g. `--timemargin`.
        option: &'static str,
        /// The milliseconds given.
        ms: u64,
    },
    /// A part of `--tc` that is not a number.
    #[error("--tc {tc}: the {part} '{value}' is not a number of seconds")]
    NotSeconds {
        /// The `--tc` value, shortened.
        tc: String,
        /// `base time` or `increment`.
        part: &'static str,
        /// The part, shortened.
        value: String,
    },
    /// A part of `--tc` below zero or above [`MAX_TIME`].
    #[error("--tc {tc}: the {part} must be between 0 and {} seconds (a day)", MAX_TIME.as_secs())]
    OutOfRange {
        /// The `--tc` value, shortened.
        tc: String,
        /// `base time` or `increment`.
        part: &'static str,
    },
    /// A base time of zero.
    #[error("--tc {tc}: the base time must be positive")]
    ZeroBase {
        /// The `--tc` value, shortened.
        tc: String,
    },
}

/// A time setting given in milliseconds as `option`: refused above
/// [`MAX_TIME`].
pub fn millis(option: &'static str, ms: u64) -> Result<Duration, ClockError> {
    let time = Duration::from_millis(ms);
    if time > MAX_TIME {
        return Err(ClockError::TooLong { option, ms });
    }
    Ok(time)
}

impl TimeControl {
    /// The time control of exactly one of `--movetime MS`, `--nodes N` and
    /// `--tc BASE+INC`; a move time is at most [`MAX_TIME`].
    pub fn from_options(
        movetime: Option<u64>,
        nodes: Option<u64>,
        tc: Option<&str>,
    ) -> Result<TimeControl, ClockError> {
        match (movetime, nodes, tc) {
            (Some(0), _, _) => Err(ClockError::Zero {
                option: "--movetime",
            }),
            (_, Some(0), _) => Err(ClockError::Zero { option: "--nodes" }),
            (Some(ms), None, None) => Ok(TimeControl::Movetime(millis("--movetime", ms)?)),
            (None, Some(n), None) => Ok(TimeControl::Nodes(n)),
            (None, None, Some(tc)) => TimeControl::parse_clock(tc),
            _ => Err(ClockError::NotOne),
        }
    }

    /// Reads a clock time control `BASE+INC` or `BASE` in seconds, e.g.
    /// `10+0.1`, `1+0.01` or `60`; each part at most [`MAX_TIME`].
    pub fn parse_clock(text: &str) -> Result<TimeControl, ClockError> {
        let (base, increment) = match text.split_once('+') {
            Some((base, inc)) => (base, inc),
            None => (text, "0"),
        };
        let tc = || shorten(text);
        let seconds = |value: &str, part: &'static str| -> Result<Duration, ClockError> {
            let seconds: f64 = value.trim().parse().map_err(|_| ClockError::NotSeconds {
                tc: tc(),
                part,
                value: shorten(value),
            })?;
            if !(0.0..=MAX_TIME.as_secs_f64()).contains(&seconds) {
                return Err(ClockError::OutOfRange { tc: tc(), part });
            }
            // At most a day, so the milliseconds fit.
            Ok(Duration::from_millis((seconds * 1000.0).round() as u64))
        };
        let base = seconds(base, "base time")?;
        let increment = seconds(increment, "increment")?;
        if base.is_zero() {
            return Err(ClockError::ZeroBase { tc: tc() });
        }
        Ok(TimeControl::Clock { base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Movetime(t) => write!(f, "movetime {} ms", t.as_millis()),
            TimeControl::Nodes(n) => write!(f, "nodes {n}"),
            TimeControl::Clock { base, increment } => {
                write!(f, "tc {}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// The dialect of the protocol an engine speaks: UGI names the clocks
/// `p1time`/`p2time`, UCI `wtime`/`btime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `ugi`, `ugiok`, `uginewgame`, `go p1time .. p2time .. p1inc .. p2inc ..`.
    Ugi,
    /// `uci`, `uciok`, `ucinewgame`, `go wtime .. btime .. winc .. binc ..`.
    Uci,
}

/// A lost game on time: what the side took and what it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLoss {
    /// How long the move took.
    pub took: Duration,
    /// How long it was allowed to take, margin included.
    pub allowed: Duration,
}

impl fmt::Display for TimeLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "took {} ms, allowed {} ms",
            self.took.as_millis(),
            self.allowed.as_millis()
        )
    }
}

/// The referee's clocks for one game.
///
/// Each side has its own time control (engines of a match may have their
/// own). With a clock each side starts with its `base`; a move's think time
/// is subtracted and the increment added. A move is lost on time when it
/// takes longer than the time left plus `margin`; within the margin the
/// clock stops at zero. With `movetime` a move may take the move time plus
/// `margin`; with `nodes` it may take `move_timeout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// The control of `x` and of `o`.
    controls: [TimeControl; 2],
    left: [Duration; 2],
    margin: Duration,
    move_timeout: Duration,
}

impl GameClock {
    /// Fresh clocks for a game where both sides play under `control`.
    pub fn new(control: TimeControl, margin: Duration, move_timeout: Duration) -> GameClock {
        GameClock::with_controls([control; 2], margin, move_timeout)
    }

    /// Fresh clocks for a game where `x` plays under `controls[0]` and `o`
    /// under `controls[1]`.
    pub fn with_controls(
        controls: [TimeControl; 2],
        margin: Duration,
        move_timeout: Duration,
    ) -> GameClock {
        let left = controls.map(|control| match control {
            TimeControl::Clock { base, .. } => base,
            _ => Duration::ZERO,
        });
        GameClock {
            controls,
            left,
            margin,
            move_timeout,
        }
    }

    /// The time left on `side`'s clock (zero without a clock).
    pub fn left(&self, side: Player) -> Duration {
        self.left[side.index()]
    }

    /// The `go` command for `side`'s next move, in `dialect`, under its own
    /// control. With a clock it tells both clocks; when the other side has
    /// no clock (it plays by nodes or move time), the mover's own clock and
    /// increment stand in for it.
    pub fn go_command(&self, side: Player, dialect: Dialect) -> String {
        let own = side.index();
        match self.controls[own] {
            TimeControl::Movetime(t) => format!("go movetime {}", t.as_millis()),
            TimeControl::Nodes(n) => format!("go nodes {n}"),
            TimeControl::Clock { increment, .. } => {
                let clock = |i: usize| match self.controls[i] {
                    TimeControl::Clock { increment, .. } => (self.left[i], increment),
                    _ => (self.left[own], increment),
                };
                let ((x, xinc), (o, oinc)) = (clock(0), clock(1));
                let [x, o, xinc, oinc] = [x, o, xinc, oinc].map(|t| t.as_millis());
                match dialect {
                    Dialect::Ugi => format!("go p1time {x} p2time {o} p1inc {xinc} p2inc {oinc}"),
                    Dialect::Uci => format!("go wtime {x} btime {o} winc {xinc} binc {oinc}"),
                }
            }
        }
    }

    /// The longest `side` may think on its next move before it loses on
    /// time: the referee waits this long for the answer.
    pub fn limit(&self, side: Player) -> Duration {
        match self.controls[side.index()] {
            TimeControl::Movetime(t) => t.saturating_add(self.margin),
            TimeControl::Nodes(_) => self.move_timeout,
            TimeControl::Clock { .. } => self.left(side).saturating_add(self.margin),
        }
    }

    /// Charges `side` for a move that took `took`: past the limit it loses
    /// on time; otherwise its clock is updated (time spent, increment added).
    pub fn charge(&mut self, side: Player, took: Duration) -> Result<(), TimeLoss> {
        let allowed = self.limit(side);
        if took > allowed {
            return Err(TimeLoss { took, allowed });
        }
        if let TimeControl::Clock { increment, .. } = self.controls[side.index()] {
            let left = &mut self.left[side.index()];
            *left = left.saturating_sub(took).saturating_add(increment);
        }
        Ok(())
    }
}

/// The PGN `TimeControl` of a match: `BASE+INC` in seconds for a clock
/// (PGN's own syntax), `movetime=100ms` and `nodes=200` (readable values of
/// our own for the limits PGN has no syntax for).
pub fn time_control_tag(control: &TimeControl) -> String {
    match control {
        TimeControl::Movetime(t) => format!("movetime={}ms", t.as_millis()),
        TimeControl::Nodes(n) => format!("nodes={n}"),
        TimeControl::Clock { base, increment } => {
            format!("{}+{}", base.as_secs_f64(), increment.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_as_tags() {
        let tag = |c| time_control_tag(&c);
        assert_eq!(tag(TimeControl::Nodes(200)), "nodes=200");
        assert_eq!(
            tag(TimeControl::Movetime(Duration::from_millis(100))),
            "movetime=100ms"
        );
        let clock = TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
        };
        assert_eq!(tag(clock), "10+0.1");
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_clock_time_controls() {
        assert_eq!(
            TimeControl::parse_clock("1+0.01"),
            Ok(TimeControl::Clock {
                base: ms(1000),
                increment: ms(10)
            })
        );
        assert_eq!(
            TimeControl::parse_clock("60"),
            Ok(TimeControl::Clock {
                base: ms(60000),
                increment: ms(0)
            })
        );
        assert_eq!(
            TimeControl::parse_clock("0.5+0"),
            Ok(TimeControl::Clock {
                base: ms(500),
                increment: ms(0)
            })
        );
        for bad in [
            "", "+1", "a+1", "1+b", "0+1", "-1+0", "1+-1", "inf", "NaN+1", "1+2+3",
        ] {
            let err = TimeControl::parse_clock(bad).expect_err(bad).to_string();
            assert!(err.starts_with("--tc"), "{bad}: {err}");
        }
    }

    #[test]
    fn times_are_at_most_a_day() {
        assert_eq!(millis("--timemargin", 86_400_000), Ok(MAX_TIME));
        let err = millis("--timemargin", 86_400_001).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--timemargin 86400001 is too long: the most is 86400000 ms (a day)"
        );
        assert!(millis("--move-timeout", u64::MAX).is_err());
        assert_eq!(
            TimeControl::parse_clock("86400+86400"),
            Ok(TimeControl::Clock {
                base: MAX_TIME,
                increment: MAX_TIME
            })
        );
        for bad in ["86400.5", "1+86401", "1e300", "18446744073709551615"] {
            let err = TimeControl::parse_clock(bad).unwrap_err();
            assert!(matches!(err, ClockError::OutOfRange { .. }), "{bad}: {err}");
        }
        assert_eq!(
            TimeControl::parse_clock("1e9").unwrap_err().to_string(),
            "--tc 1e9: the base time must be between 0 and 86400 seconds (a day)"
        );
        let long = "9".repeat(100);
        let err = TimeControl::parse_clock(&format!("x{long}")).unwrap_err();
        assert!(err.to_string().len() < 150, "{err}");
    }

    #[test]
    fn one_time_control_from_the_options() {
        let from = TimeControl::from_options;
        assert_eq!(
            from(Some(100), None, None),
            Ok(TimeControl::Movetime(ms(100)))
        );
        assert_eq!(
            from(None, Some(u64::MAX), None),
            Ok(TimeControl::Nodes(u64::MAX))
        );
        assert_eq!(from(None, None, Some("60")), TimeControl::parse_clock("60"));
        assert_eq!(from(None, None, None), Err(ClockError::NotOne));
        assert_eq!(from(Some(5), Some(5), None), Err(ClockError::NotOne));
        assert_eq!(
            from(Some(0), None, None).unwrap_err().to_string(),
            "--movetime must be at least 1"
        );
        assert_eq!(
            from(None, Some(0), None).unwrap_err().to_string(),
            "--nodes must be at least 1"
        );
        assert_eq!(
            from(Some(u64::MAX), None, None),
            Err(ClockError::TooLong {
                option: "--movetime",
                ms: u64::MAX
            })
        );
    }

    #[test]
    fn longest_clocks_do_not_overflow() {
        let tc = TimeControl::Clock {
            base: MAX_TIME,
            increment: MAX_TIME,
        };
        let mut clock = GameClock::new(tc, MAX_TIME, MAX_TIME);
        for _ in 0..81 {
            clock.charge(Player::X, Duration::ZERO).unwrap();
        }
        assert_eq!(clock.left(Player::X), MAX_TIME * 82);
        assert_eq!(clock.limit(Player::X), MAX_TIME * 83);
        let movetime = GameClock::new(TimeControl::Movetime(MAX_TIME), MAX_TIME, MAX_TIME);
        assert_eq!(movetime.limit(Player::O), MAX_TIME * 2);
    }

    #[test]
    fn go_commands() {
        let margin = ms(50);
        let timeout = ms(5000);
        let movetime = GameClock::new(TimeControl::Movetime(ms(100)), margin, timeout);
        assert_eq!(
            movetime.go_command(Player::X, Dialect::Ugi),
            "go movetime 100"
        );
        let nodes = GameClock::new(TimeControl::Nodes(200), margin, timeout);
        assert_eq!(nodes.go_command(Player::X, Dialect::Uci), "go nodes 200");
        let tc = TimeControl::parse_clock("1+0.01").unwrap();
        let clock = GameClock::new(tc, margin, timeout);
        assert_eq!(
            clock.go_command(Player::X, Dialect::Ugi),
            "go p1time 1000 p2time 1000 p1inc 10 p2inc 10"
        );
        assert_eq!(
            clock.go_command(Player::X, Dialect::Uci),
            "go wtime 1000 btime 1000 winc 10 binc 10"
        );
    }

    #[test]
    fn each_side_has_its_own_control() {
        let tc = TimeControl::parse_clock("1+0.1").unwrap();
        let odds = TimeControl::parse_clock("0.5+0.05").unwrap();
        let mut clock = GameClock::with_controls([tc, odds], ms(50), ms(5000));
        assert_eq!(
            clock.go_command(Player::O, Dialect::Ugi),
            "go p1time 1000 p2time 500 p1inc 100 p2inc 50"
        );
        assert_eq!(clock.limit(Player::O), ms(550));
        clock.charge(Player::O, ms(200)).unwrap();
        assert_eq!(clock.left(Player::O), ms(350));
        assert_eq!(clock.left(Player::X), ms(1000));
        // Nodes against a clock: each gets its own `go`, and the clock
        // side is told its own clock for the other side too.
        let clock = GameClock::with_controls([TimeControl::Nodes(300), tc], ms(50), ms(5000));
        assert_eq!(clock.go_command(Player::X, Dialect::Ugi), "go nodes 300");
        assert_eq!(
            clock.go_command(Player::O, Dialect::Uci),
            "go wtime 1000 btime 1000 winc 100 binc 100"
        );
        assert_eq!(clock.limit(Player::X), ms(5000));
        assert_eq!(clock.limit(Player::O), ms(1050));
    }

    #[test]
    fn clock_bookkeeping() {
        let tc = TimeControl::parse_clock("1+0.1").unwrap();
        let mut clock = GameClock::new(tc, ms(50), ms(5000));
        assert_eq!(clock.limit(Player::X), ms(1050));
        clock.charge(Player::X, ms(300)).unwrap();
        assert_eq!(clock.left(Player::X), ms(800));
        assert_eq!(clock.left(Player::O), ms(1000));
        assert_eq!(
            clock.go_command(Player::X, Dialect::Ugi),
            "go p1time 800 p2time 1000 p1inc 100 p2inc 100"
        );
        // Within the margin the clock stops at zero, then gets the increment.
        clock.charge(Player::O, ms(1040)).unwrap();
        assert_eq!(clock.left(Player::O), ms(100));
        // Past the margin the side loses on time and its clock is unchanged.
        assert_eq!(
            clock.charge(Player::O, ms(151)),
            Err(TimeLoss {
                took: ms(151),
                allowed: ms(150)
            })
        );
        assert_eq!(clock.left(Player::O), ms(100));
    }

    #[test]
    fn movetime_and_nodes_limits() {
        let mut movetime = GameClock::new(TimeControl::Movetime(ms(100)), ms(50), ms(5000));
        assert_eq!(movetime.limit(Player::O), ms(150));
        assert!(movetime.charge(Player::O, ms(150)).is_ok());
        assert!(movetime.charge(Player::O, ms(151)).is_err());
        let mut nodes = GameClock::new(TimeControl::Nodes(10), ms(50), ms(5000));
        assert_eq!(nodes.limit(Player::X), ms(5000));
        assert!(nodes.charge(Player::X, ms(4999)).is_ok());
        assert!(nodes.charge(Player::X, ms(5001)).is_err());
    }

    #[test]
    fn displays_time_controls() {
        assert_eq!(
            TimeControl::Movetime(ms(100)).to_string(),
            "movetime 100 ms"
        );
        assert_eq!(TimeControl::Nodes(7).to_string(), "nodes 7");
        let tc = TimeControl::parse_clock("1+0.01").unwrap();
        assert_eq!(tc.to_string(), "tc 1+0.01 s");
    }
}
