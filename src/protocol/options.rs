//! The engine's options: their declarations for `uci`/`ugi`, and
//! `setoption` with range checks.

use std::time::Duration;

use thiserror::Error;

use crate::engine::{DEFAULT_ELO, Eval, MAX_ELO, MIN_ELO, Setup, Strength};
use crate::quote::shorten;
use crate::search::Playout;
use std::path::PathBuf;

/// Everything `setoption` can change.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// How the engine searches: the search options, Eval, EvalFile and
    /// the net's parameters.
    pub setup: Setup,
    /// Moves reported per `info` round.
    pub multipv: usize,
    /// Whether `go ponder` is allowed and `bestmove` names a ponder move.
    pub ponder: bool,
    /// Whether `info` lines carry `wdl`.
    pub show_wdl: bool,
    /// Whether `go` answers at once with a uniformly random legal move
    /// instead of searching (a baseline opponent for matches).
    pub random_move: bool,
    /// The file that every line in and out is logged to, if any.
    pub debug_log: Option<PathBuf>,
    /// Whether `go` plays at [`EngineOptions::elo`] (UCI_LimitStrength).
    pub limit_strength: bool,
    /// The nominal Elo of a limited engine (UCI_Elo; see
    /// [`crate::engine::Strength`]).
    pub elo: u32,
}

impl EngineOptions {
    /// How strongly `go` plays: full, or UCI_Elo when UCI_LimitStrength
    /// is on.
    pub fn strength(&self) -> Strength {
        match self.limit_strength {
            true => Strength::Elo(self.elo),
            false => Strength::Full,
        }
    }
}

/// The value of the EvalFile option that stands for the built-in net.
pub const BUILTIN_NET: &str = "builtin";

/// The value of a string option that stands for no text (UCI's way of
/// writing an empty default): the DebugLogFile that logs nothing.
pub const EMPTY: &str = "<empty>";

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            setup: Setup::default(),
            multipv: 1,
            ponder: false,
            show_wdl: true,
            random_move: false,
            debug_log: None,
            limit_strength: false,
            elo: DEFAULT_ELO,
        }
    }
}

/// What a `setoption` asks for besides new values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing more.
    None,
    /// Forget the search tree.
    ClearHash,
}

/// An option's type, range and how it changes the settings.
enum OptionType {
    Spin {
        min: i64,
        max: i64,
        set: fn(&mut EngineOptions, i64),
    },
    Check(fn(&mut EngineOptions, bool)),
    Combo(&'static [&'static str], fn(&mut EngineOptions, &str)),
    Text(fn(&mut EngineOptions, &str)),
    Button,
}

struct Spec {
    name: &'static str,
    kind: OptionType,
    default: &'static str,
}

const fn spin(min: i64, max: i64, set: fn(&mut EngineOptions, i64)) -> OptionType {
    OptionType::Spin { min, max, set }
}

const SPECS: &[Spec] = &[
    Spec {
        name: "Threads",
        kind: spin(1, 256, |o, v| o.setup.search.threads = v as usize),
        default: "1",
    },
    Spec {
        name: "Hash",
        kind: spin(1, 65536, |o, v| o.setup.search.hash_mb = v as usize),
        default: "256",
    },
    Spec {
        name: "MultiPV",
        kind: spin(1, 81, |o, v| o.multipv = v as usize),
        default: "1",
    },
    Spec {
        name: "Ponder",
        kind: OptionType::Check(|o, v| o.ponder = v),
        default: "false",
    },
    Spec {
        name: "MoveOverhead",
        kind: spin(0, 10000, |o, v| {
            o.setup.search.move_overhead = Duration::from_millis(v as u64)
        }),
        default: "10",
    },
    Spec {
        name: "SmartTime",
        kind: OptionType::Check(|o, v| o.setup.search.smart_time = v),
        default: "true",
    },
    Spec {
        name: "Seed",
        kind: spin(0, 2147483647, |o, v| o.setup.search.seed = v as u64),
        default: "0",
    },
    Spec {
        name: "UCI_ShowWDL",
        kind: OptionType::Check(|o, v| o.show_wdl = v),
        default: "true",
    },
    Spec {
        name: "Exploration",
        kind: spin(1, 1000, |o, v| {
            o.setup.search.params.exploration = v as f32 / 100.0
        }),
        default: "50",
    },
    Spec {
        name: "FPU",
        kind: spin(0, 1000, |o, v| o.setup.search.params.fpu = v as f32 / 100.0),
        default: "110",
    },
    Spec {
        name: "ExpandVisits",
        kind: spin(1, 1000, |o, v| {
            o.setup.search.params.expand_visits = v as u32
        }),
        default: "2",
    },
    Spec {
        name: "Playout",
        kind: OptionType::Combo(&["uniform", "winning"], |o, v| {
            o.setup.search.params.playout = if v == "uniform" {
                Playout::Uniform
            } else {
                Playout::Winning
            }
        }),
        default: "winning",
    },
    Spec {
        name: "Solver",
        kind: OptionType::Check(|o, v| o.setup.search.params.solver = v),
        default: "true",
    },
    Spec {
        name: "Eval",
        kind: OptionType::Combo(&["playout", "net"], |o, v| {
            o.setup.eval = if v == "net" { Eval::Net } else { Eval::Playout }
        }),
        default: "net",
    },
    Spec {
        name: "EvalFile",
        kind: OptionType::Text(|o, v| {
            o.setup.net_file = (!v.eq_ignore_ascii_case(BUILTIN_NET)).then(|| PathBuf::from(v))
        }),
        default: BUILTIN_NET,
    },
    Spec {
        name: "NetExploration",
        kind: spin(1, 1000, |o, v| o.setup.net.exploration = v as f32 / 100.0),
        default: "50",
    },
    Spec {
        name: "NetFPU",
        kind: spin(0, 1000, |o, v| o.setup.net.fpu = v as f32 / 100.0),
        default: "110",
    },
    Spec {
        name: "NetWeight",
        kind: spin(0, 100, |o, v| o.setup.net.weight = v as f32 / 100.0),
        default: "100",
    },
    Spec {
        name: "NetPolicy",
        kind: spin(0, 1000, |o, v| o.setup.net.policy = v as f32 / 100.0),
        default: "50",
    },
    Spec {
        name: "NetFPUReduction",
        kind: spin(0, 100, |o, v| o.setup.net.fpu_reduction = v as f32 / 100.0),
        default: "20",
    },
    Spec {
        name: "NetPolicyTemp",
        kind: spin(10, 1000, |o, v| {
            o.setup.net.policy_temperature = v as f32 / 100.0
        }),
        default: "160",
    },
    Spec {
        name: "Contempt",
        kind: spin(0, 50, |o, v| {
            o.setup.search.params.contempt = v as f32 / 100.0
        }),
        default: "0",
    },
    Spec {
        name: "SolveLeaves",
        kind: spin(0, 81, |o, v| o.setup.search.params.leaf_solve = v as u32),
        default: "20",
    },
    Spec {
        name: "SolveLeafNodes",
        kind: spin(1, 10_000, |o, v| {
            o.setup.search.params.leaf_solve_nodes = v as u64
        }),
        default: "300",
    },
    Spec {
        name: "RandomMove",
        kind: OptionType::Check(|o, v| o.random_move = v),
        default: "false",
    },
    Spec {
        name: "UCI_LimitStrength",
        kind: OptionType::Check(|o, v| o.limit_strength = v),
        default: "false",
    },
    Spec {
        name: "UCI_Elo",
        kind: spin(MIN_ELO as i64, MAX_ELO as i64, |o, v| o.elo = v as u32),
        default: "800",
    },
    Spec {
        name: "DebugLogFile",
        kind: OptionType::Text(|o, v| {
            o.debug_log = (!v.is_empty() && v != EMPTY).then(|| PathBuf::from(v))
        }),
        default: EMPTY,
    },
    Spec {
        name: "Clear Hash",
        kind: OptionType::Button,
        default: "",
    },
];

/// The `option name ...` lines of `uci`/`ugi`.
pub fn describe() -> Vec<String> {
    SPECS
        .iter()
        .map(|s| match &s.kind {
            OptionType::Spin { min, max, .. } => format!(
                "option name {} type spin default {} min {min} max {max}",
                s.name, s.default
            ),
            OptionType::Check(_) => {
                format!("option name {} type check default {}", s.name, s.default)
            }
            OptionType::Combo(vars, _) => {
                let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                format!(
                    "option name {} type combo default {} {}",
                    s.name,
                    s.default,
                    vars.join(" ")
                )
            }
            OptionType::Text(_) => {
                format!("option name {} type string default {}", s.name, s.default)
            }
            OptionType::Button => format!("option name {} type button", s.name),
        })
        .collect()
}

/// Why `setoption` cannot set an option. Every text it quotes from the
/// line is shortened ([`shorten`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option '{0}' (the uci command lists them)")]
    Unknown(String),
    /// A button was given a value.
    #[error("option {0} is a button and takes no value")]
    ButtonValue(&'static str),
    /// A value is needed but none was given.
    #[error("option {0} needs a value")]
    ValueMissing(&'static str),
    /// A spin value outside its range.
    #[error("option {name} must be between {min} and {max}, got {value}")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// Its least value.
        min: i64,
        /// Its greatest value.
        max: i64,
        /// The value given (a whole number, maybe too long for an `i64`).
        value: String,
    },
    /// A spin value that is no whole number.
    #[error("option {name} needs a whole number between {min} and {max}, got '{value}'")]
    NotANumber {
        /// The option.
        name: &'static str,
        /// Its least value.
        min: i64,
        /// Its greatest value.
        max: i64,
        /// The value given.
        value: String,
    },
    /// A check value that is neither `true` nor `false`.
    #[error("option {name} must be true or false, got '{value}'")]
    NotABool {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
    },
    /// A combo value that is none of its choices.
    #[error("option {name} must be one of {}, got '{value}'", .vars.join(", "))]
    NotAChoice {
        /// The option.
        name: &'static str,
        /// The choices.
        vars: &'static [&'static str],
        /// The value given.
        value: String,
    },
}

/// A spin option's value, checked.
fn spin_value(name: &'static str, value: &str, min: i64, max: i64) -> Result<i64, OptionError> {
    match value.parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(OptionError::OutOfRange {
            name,
            min,
            max,
            value: v.to_string(),
        }),
        Err(_) => {
            // A whole number too long for an i64 is out of range, not "no
            // number".
            let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
            let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            let value = shorten(value);
            Err(if whole {
                OptionError::OutOfRange {
                    name,
                    min,
                    max,
                    value,
                }
            } else {
                OptionError::NotANumber {
                    name,
                    min,
                    max,
                    value,
                }
            })
        }
    }
}

impl EngineOptions {
    /// Applies `setoption name <name> value <value>`; on error nothing
    /// changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Action, OptionError> {
        let spec = SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::Unknown(shorten(name)))?;
        let name = spec.name;
        if let OptionType::Button = spec.kind {
            if value.is_some() {
                return Err(OptionError::ButtonValue(name));
            }
            return Ok(Action::ClearHash);
        }
        let value = value.ok_or(OptionError::ValueMissing(name))?;
        let mut new = self.clone();
        match &spec.kind {
            OptionType::Spin { min, max, set } => {
                set(&mut new, spin_value(name, value, *min, *max)?)
            }
            OptionType::Check(set) => match value.to_ascii_lowercase().as_str() {
                "true" => set(&mut new, true),
                "false" => set(&mut new, false),
                _ => {
                    return Err(OptionError::NotABool {
                        name,
                        value: shorten(value),
                    });
                }
            },
            OptionType::Combo(vars, set) => {
                let v = vars
                    .iter()
                    .find(|v| v.eq_ignore_ascii_case(value))
                    .ok_or_else(|| OptionError::NotAChoice {
                        name,
                        vars,
                        value: shorten(value),
                    })?;
                set(&mut new, v);
            }
            OptionType::Text(set) => set(&mut new, value),
            OptionType::Button => {}
        }
        *self = new;
        Ok(Action::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_declarations() {
        let d = EngineOptions::default();
        let mut o = EngineOptions::default();
        for s in SPECS {
            if !matches!(s.kind, OptionType::Button) {
                o.set(s.name, Some(s.default)).unwrap();
            }
        }
        assert_eq!(o, d);

        assert_eq!(describe().len(), SPECS.len());
        assert!(describe()[0].starts_with("option name Threads type spin default 1 min 1 max 256"));
    }

    #[test]
    fn values_are_checked() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("threads", Some("4")), Ok(Action::None));
        assert_eq!(o.setup.search.threads, 4);
        assert_eq!(
            o.set("Threads", Some("0")).unwrap_err().to_string(),
            "option Threads must be between 1 and 256, got 0"
        );
        assert!(
            o.set("Hash", Some("lots"))
                .unwrap_err()
                .to_string()
                .contains("whole number")
        );
        assert!(
            o.set("Ponder", Some("yes"))
                .unwrap_err()
                .to_string()
                .contains("true or false")
        );
        assert!(
            o.set("Playout", Some("smart"))
                .unwrap_err()
                .to_string()
                .contains("one of uniform, winning")
        );
        assert!(
            o.set("Colour", Some("red"))
                .unwrap_err()
                .to_string()
                .contains("unknown option")
        );
        assert!(
            o.set("Hash", None)
                .unwrap_err()
                .to_string()
                .contains("needs a value")
        );
        assert!(
            o.set("Clear Hash", Some("1"))
                .unwrap_err()
                .to_string()
                .contains("button")
        );
        assert_eq!(o.set("clear hash", None), Ok(Action::ClearHash));
        assert_eq!(o.setup.search.threads, 4, "failed sets change nothing");
        o.set("Exploration", Some("71")).unwrap();
        assert!((o.setup.search.params.exploration - 0.71).abs() < 1e-6);
        o.set("Playout", Some("Uniform")).unwrap();
        assert_eq!(o.setup.search.params.playout, Playout::Uniform);
    }

    #[test]
    fn long_values_are_quoted_short() {
        let mut o = EngineOptions::default();
        let long = "q".repeat(1 << 20);
        let cut = format!("{}...", "q".repeat(40));
        for (name, value) in [
            (long.as_str(), Some("1")),
            ("Threads", Some(long.as_str())),
            ("Ponder", Some(long.as_str())),
            ("Playout", Some(long.as_str())),
        ] {
            let e = o.set(name, value).unwrap_err().to_string();
            assert!(e.len() < 200 && e.contains(&cut), "{e}");
        }
        // A whole number too long for an i64 is out of range.
        let e = o
            .set("MoveOverhead", Some(&"9".repeat(1 << 20)))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("option MoveOverhead must be between 0 and 10000, got 9999"),
            "{e}"
        );
        assert!(e.len() < 200, "{e}");
        assert_eq!(o, EngineOptions::default(), "failed sets change nothing");
    }
}
