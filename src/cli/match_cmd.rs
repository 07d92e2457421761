//! `ultimo match`: the command line of the match runner. The options and
//! their help are here; [`crate::arena`] checks them and plays the match.

use std::path::PathBuf;

use crate::arena::{self, ArenaError, Job, MatchConfig};
use crate::game::GameKind;

/// The long help of `ultimo match`: engine syntax, time controls, the
/// record format and Ctrl-C.
const MATCH_HELP: &str = "\
Engines:
  --engine takes one string of key=value words, split as a POSIX shell
  splits words: put a value with spaces in double or single quotes, or
  escape a character with a backslash (cmd=\"/my engines/ultimo\" or
  cmd=/my\\ engines/ultimo; write Windows paths in single quotes). A word
  starting with # begins a comment to the end of the string.
    cmd=PROGRAM          the program to run (required)
    arg=ARG              one argument for it (repeat for more, in order)
    name=NAME            its name in the output and record (default: the
                         program's file name; -1/-2 appended if both are equal)
    proto=ugi|uci        the handshake to use (default: try `ugi`, and `uci`
                         if no `ugiok` comes within --startup-timeout)
    option.NAME=VALUE    sent as `setoption name NAME value VALUE` after the
                         handshake (repeat for more)
  The engine's standard error is discarded, unless --log DIR is given: then
  it is appended to DIR/NAME.log, one file per engine name (an engine
  restarted after a fault appends to the same file; / and \\ in a name
  become _; the directory is created if missing). Only the engine's own
  standard error goes there, not the protocol lines.
  Each engine runs in a process group of its own; wherever the runner stops
  an engine (a fault, the end of the match, Ctrl-C, SIGTERM) it kills the
  whole group, so processes the engine started end with it.

Games:
  --game uttt (the default) or --game super15 (Super 1 al 5). For a game
  other than uttt each engine is sent `setoption name Game value GAME` right
  after the handshake (before any option.NAME=VALUE), so it must support the
  `Game` option (Ultimo does); openings, moves and the referee are the game's.

Time controls (give exactly one):
  --movetime MS   `go movetime MS`; a move may take MS + --timemargin.
  --nodes N       `go nodes N`; a move may take --move-timeout.
  --tc BASE+INC   each side has a clock of BASE seconds, INC added after each
                  of its moves. UGI engines get
                  `go p1time X p2time O p1inc I p2inc I`, UCI engines
                  `go wtime X btime O winc I binc I` (milliseconds; p1/w is x).
                  The runner measures each move and loses a side whose move
                  took longer than its clock + --timemargin.
  An illegal or unreadable move, a timeout, or an engine that exits loses the
  game; the engine is restarted for the next game and the match goes on.
  A line of output longer than 64 KiB (65536 bytes) counts as an unreadable
  answer: the engine loses with `illegal` and is killed.
  Every time (--movetime, --tc, --timemargin, --move-timeout,
  --startup-timeout) is at most a day: 86400000 ms, or 86400 s in --tc.

Openings:
  Each opening is played twice with colours swapped (a pair), so --games must
  be even. --openings FILE is read in order and reused from the top when the
  match has more pairs than the file has lines; --random-plies N makes a
  fresh opening per pair. Without either, every game starts from the empty
  board (the game's start position).

Record (--record FILE, read back by --replay FILE):
  # ultimo match record 1
  engines base new
  game 1; pair 1; x base; o new; opening e5 e4; moves d1 c3 ...; result 1-0; end normal; reason x has three boards in a line
  `engines` names the first engine (the statistics are its results) and the
  second. Each game line: its number, pair, the engines playing x and o, the
  opening (`startpos`, moves from the empty board, or a FEN), the moves from
  it, the result (1-0 x won, 0-1, 1/2-1/2), how it ended (normal, illegal,
  timeout, crash) and the reason in words. Lines starting with # are
  comments. Games are written as they finish, so not in number order. A
  record of a game other than uttt has a `variant GAME` line before the
  games (e.g. `variant super15`); --replay reads the game from it.

Output:
  Progress goes to standard error: one line per game, or an updating status
  line when standard error is a terminal (no colours are ever used). The
  summary goes to standard output.

Ctrl-C:
  The first Ctrl-C stops starting games and lets the running ones finish; a
  second aborts them (they are not counted). SIGTERM and SIGHUP abort the
  running games at once. The summary is printed either way, and the engines
  are killed with what they started.";

/// Play a match between two engines, or summarize a recorded one.
#[derive(clap::Args, Debug)]
#[command(after_long_help = MATCH_HELP)]
pub struct MatchArgs {
    /// An engine, given twice: "cmd=PROGRAM [arg=ARG].. [name=NAME] [proto=ugi|uci] [option.NAME=VALUE].."
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Games to play, even: each opening is played twice with colours swapped
    #[arg(long, value_name = "N", default_value_t = arena::DEFAULT_GAMES)]
    pub games: u64,
    /// Openings file: one per line, a FEN, `startpos` or moves from the empty board
    #[arg(long, value_name = "FILE", conflicts_with = "random_plies")]
    pub openings: Option<PathBuf>,
    /// Start each pair from N random moves (openings already decided are skipped)
    #[arg(long, value_name = "N")]
    pub random_plies: Option<u32>,
    /// Seed of --random-plies (default: from the clock, printed at the start)
    #[arg(long, value_name = "S", requires = "random_plies")]
    pub seed: Option<u64>,
    /// Time per move in milliseconds (`go movetime`)
    #[arg(long, value_name = "MS", group = "limit")]
    pub movetime: Option<u64>,
    /// Iterations per move (`go nodes`)
    #[arg(long, value_name = "N", group = "limit")]
    pub nodes: Option<u64>,
    /// A clock per side, BASE+INC in seconds, e.g. 10+0.1
    #[arg(long, value_name = "BASE+INC", group = "limit")]
    pub tc: Option<String>,
    /// Grace in milliseconds past the clock or the move time before a move loses on time
    #[arg(long, value_name = "MS", default_value_t = arena::DEFAULT_TIMEMARGIN_MS)]
    pub timemargin: u64,
    /// With --nodes, the longest a move may take, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = arena::DEFAULT_MOVE_TIMEOUT_MS)]
    pub move_timeout: u64,
    /// The longest an engine may take to answer the handshake or `isready`, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = arena::DEFAULT_STARTUP_TIMEOUT_MS)]
    pub startup_timeout: u64,
    /// Games played at once, each with its own two engine processes
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// Stop once a pentanomial SPRT decides: normalized Elo of H0 and H1, error rates
    #[arg(
        long,
        num_args = 4,
        value_names = ["ELO0", "ELO1", "ALPHA", "BETA"],
        allow_negative_numbers = true
    )]
    pub sprt: Option<Vec<f64>>,
    /// Write every game to FILE, one line each (the file is overwritten)
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Append each engine's standard error to DIR/NAME.log (default: discarded)
    #[arg(long, value_name = "DIR")]
    pub log: Option<PathBuf>,
    /// The game to play (engines get `setoption name Game value GAME` unless uttt)
    #[arg(long, value_enum, default_value_t, conflicts_with = "replay")]
    pub game: GameKind,
    /// Play nothing: re-read a record FILE, check every game with the rules, print its summary
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["engines", "openings", "random_plies", "movetime", "nodes", "tc", "record", "log"]
    )]
    pub replay: Option<PathBuf>,
}

impl MatchArgs {
    /// What the arguments ask the match runner to do.
    pub fn job(self) -> Job {
        if let Some(record) = self.replay {
            return Job::Replay {
                record,
                sprt: self.sprt,
            };
        }
        Job::Match(MatchConfig {
            engines: self.engines,
            games: self.games,
            openings: self.openings,
            random_plies: self.random_plies,
            seed: self.seed,
            movetime: self.movetime,
            nodes: self.nodes,
            tc: self.tc,
            timemargin: self.timemargin,
            move_timeout: self.move_timeout,
            startup_timeout: self.startup_timeout,
            concurrency: self.concurrency,
            sprt: self.sprt,
            record: self.record,
            log: self.log,
            game: self.game,
        })
    }
}

/// Runs `ultimo match` with `args`.
pub fn run(args: MatchArgs) -> Result<(), ArenaError> {
    arena::run(&args.job())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: MatchArgs,
    }

    fn job(args: &[&str]) -> Job {
        let argv = std::iter::once("match").chain(args.iter().copied());
        Cli::try_parse_from(argv).unwrap().args.job()
    }

    #[test]
    fn defaults_are_the_arenas() {
        assert_eq!(job(&[]), Job::Match(MatchConfig::default()));
    }

    #[test]
    fn arguments_become_the_config() {
        let got = job(&[
            "--engine",
            "cmd=a",
            "--engine",
            "cmd=b",
            "--games",
            "4",
            "--tc",
            "1+0.1",
            "--random-plies",
            "3",
            "--seed",
            "5",
            "--timemargin",
            "7",
            "--move-timeout",
            "8",
            "--startup-timeout",
            "9",
            "--concurrency",
            "2",
            "--sprt",
            "-1",
            "2",
            "0.05",
            "0.1",
            "--record",
            "r.txt",
            "--log",
            "logs",
        ]);
        let expected = MatchConfig {
            engines: vec!["cmd=a".into(), "cmd=b".into()],
            games: 4,
            random_plies: Some(3),
            seed: Some(5),
            tc: Some("1+0.1".into()),
            timemargin: 7,
            move_timeout: 8,
            startup_timeout: 9,
            concurrency: 2,
            sprt: Some(vec![-1.0, 2.0, 0.05, 0.1]),
            record: Some("r.txt".into()),
            log: Some("logs".into()),
            ..MatchConfig::default()
        };
        assert_eq!(got, Job::Match(expected));
    }

    #[test]
    fn replay_reads_a_record() {
        assert_eq!(
            job(&["--replay", "r.txt", "--sprt", "0", "5", "0.05", "0.05"]),
            Job::Replay {
                record: "r.txt".into(),
                sprt: Some(vec![0.0, 5.0, 0.05, 0.05])
            }
        );
    }

    #[test]
    fn clap_refuses_conflicts() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("match").chain(args.iter().copied())).is_err()
        };
        assert!(parse(&["--movetime", "5", "--nodes", "5"]));
        assert!(parse(&["--openings", "b", "--random-plies", "2"]));
        assert!(parse(&["--seed", "2"]));
        assert!(parse(&["--replay", "r", "--engine", "cmd=a"]));
        assert!(parse(&["--sprt", "0", "5"]));
    }
}
