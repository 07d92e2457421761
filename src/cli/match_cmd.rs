//! `ultimo match`: the command line of the match runner. The options and
//! their help are here; [`crate::arena`] checks them and plays the match.

use std::path::PathBuf;

use crate::arena::{self, ArenaError, MatchCommand, MatchConfig, ReplayConfig, Tournament};
use crate::game::GameKind;

/// The long help of `ultimo match`: engine syntax, time controls, the
/// PGN record and Ctrl-C.
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
                         program's file name; #1, #2.. (its place among the
                         --engine values) appended where those are equal)
    proto=ugi|uci        the handshake to use (default: try `ugi`, and `uci`
                         if no `ugiok` comes within --startup-timeout)
    option.NAME=VALUE    sent as `setoption name NAME value VALUE` after the
                         handshake (repeat for more)
    tc=BASE+INC, nodes=N, movetime=MS
                         this engine's own limit, instead of --tc, --nodes or
                         --movetime (at most one; e.g. odds matches)
  The engine's standard error is discarded, unless --log DIR is given: then
  it is appended to DIR/NAME.log, one file per engine name (an engine
  restarted after a fault appends to the same file; / and \\ in a name
  become _; the directory is created if missing). Only the engine's own
  standard error goes there, not the protocol lines.
  Each engine runs in a process group of its own; wherever the runner stops
  an engine (a fault, the end of the match, Ctrl-C, SIGTERM) it kills the
  whole group, so processes the engine started end with it.

Tournaments:
  With more than two engines, --tournament gauntlet plays the first engine
  against each other one, --tournament round-robin every engine against
  every other; --games is per pairing. Pairings are played in order
  (1-2, 1-3, .., 2-3, ..) and every pairing plays the same openings. Each
  pairing gets a `Score of A vs B: W - L - D  [score] N` line and one of
  Elo, LOS and pairs, and the summary ends with a rating table: the
  maximum-likelihood Elo of every engine (logistic model, a draw is half a
  point), the first engine fixed at 0, with 95% intervals from the Fisher
  information, best first. A figure without a meaning yet (no games, one
  pair, no decisive game, an engine that won every game) is shown as n/a.
  --sprt needs exactly two engines.

Shards (a match spread over many machines):
  --shard K/N plays only the pairs whose index i (from 0, over all pairings
  in order) has i % N == K - 1, with the same openings, game numbers and
  colours as the whole match; write each shard's games with --pgnout, then
  `ultimo match --merge SHARD1 SHARD2 ..` prints the summary of the whole
  match, as if one run had played every game. --merge refuses games of
  other matches (their Games, Engines, Seed or shard count differ) and, unless
  --allow-incomplete is given, shards that miss games (it names them).
  --sprt cannot be sharded.

Games:
  --game uttt (the default) or --game super15 (Super 1 al 5). For a game
  other than uttt each engine is sent `setoption name Game value GAME` right
  after the handshake (before any option.NAME=VALUE), so it must support the
  `Game` option (Ultimo does); openings, moves and the referee are the game's.

Time controls (give exactly one, or one per engine with tc=, nodes= or
movetime= in its --engine; an engine's own overrides the option):
  --movetime MS   `go movetime MS`; a move may take MS + --timemargin.
  --nodes N       `go nodes N`; a move may take --move-timeout.
  --tc BASE+INC   each side has a clock of BASE seconds, INC added after each
                  of its moves. UGI engines get
                  `go p1time X p2time O p1inc I p2inc I`, UCI engines
                  `go wtime X btime O winc I binc I` (milliseconds; p1/w is x).
                  An engine with its own clock against one without is told
                  its own clock for both sides.
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
  board (the game's start position). With nodes limits for every engine,
  fewer openings than pairs per pairing draw a warning: an engine that
  searches the same way each time (Ultimo does) repeats the same games.

Record (--pgnout FILE, read back by --replay FILE or --merge FILE..):
  Every game is appended to FILE in PGN as it finishes (the file is created
  if missing and never truncated; games are not in number order):
    [Event \"ultimo match 2025.01.31 14:05:09.250\"] [Site \"?\"]
    [Date \"2025.01.31\"] [Round \"1\"]
    [White \"base\"] [Black \"new\"] [Result \"1-0\"]
    [Variant \"Ultimate Tic-Tac-Toe\"] [TimeControl \"nodes=200\"]
    [Termination \"normal\"] [PlyCount \"31\"] [Pair \"1\"]
    [Games \"100\"] [Engines \"base new\"] [Seed \"42\"] [Shard \"1/8\"]
    1. e5 {book} 1... e4 {book} 2. d1 {+0.12/5 0.010s} c3 {-0.20/5 0.011s} ...
    16. a7 {+M1/3 0.009s, x has three boards in a line} 1-0
  (each tag on a line of its own). White plays x (first), Black o; Event
  names the match and its start (UTC), Round is the game's number and Pair
  its pair. The opening's moves are marked {book}, or a set-up position is
  the FEN tag (with SetUp \"1\"). Each engine move has the score (from the
  mover's view, +M5/-M3 for mates) and depth of the engine's last info line
  and the time the runner measured.
  TimeControl is BASE+INC (seconds), movetime=MSms or nodes=N (when the two
  players' limits differ: WhiteTimeControl and BlackTimeControl instead);
  Termination is normal, illegal move, time forfeit or abandoned (an engine
  exited or could not start), and the reason in words ends the last move's
  comment. Games (the whole match's games), Engines (in --engine order), Seed
  (of random openings) and Shard (K/N) tell a match's shards from others.
  --replay reads any number of games from one file (several matches too,
  told apart by Event), checks every move with the rules, and prints the
  summary. --merge reads the files of a match's shards as one match, whatever
  their Events (a game number only once over all of them). The engines are
  in the order they first play by Round (White then Black of game 1, then any
  new one of the next game, ..), which is the --engine order of the match;
  the game is the first game's Variant.

Output:
  Progress goes to standard error: one line per game with its pairing's
  score line (and the SPRT's LLR and bounds), or a bar when standard error
  is a terminal (games played, the time left, each pairing's score, the
  games running; cut to the terminal's width, no colours). The summary goes to standard output;
  --json FILE also writes it, with the settings, as JSON (null where the
  text says n/a).

Ctrl-C:
  The first Ctrl-C stops starting games and lets the running ones finish; a
  second aborts them (they are not counted). SIGTERM and SIGHUP abort the
  running games at once. The summary is printed either way, and the engines
  are killed with what they started.";

/// Play a match between two engines or a tournament of more, or summarize recorded ones.
#[derive(clap::Args, Debug)]
#[command(after_long_help = MATCH_HELP)]
pub struct MatchArgs {
    /// An engine, given twice or more: "cmd=PROGRAM [arg=ARG].. [name=NAME] [proto=ugi|uci] [option.NAME=VALUE].. [tc=|nodes=|movetime=]"
    #[arg(long = "engine", value_name = "SPEC")]
    pub engines: Vec<String>,
    /// With more than two engines: the first against each other one, or every one against every other
    #[arg(long, value_enum, value_name = "KIND")]
    pub tournament: Option<Tournament>,
    /// Games to play (per pairing), even: each opening is played twice with colours swapped
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
    /// Append every game to FILE in PGN (created if missing, never truncated)
    #[arg(long, value_name = "FILE")]
    pub pgnout: Option<PathBuf>,
    /// Append each engine's standard error to DIR/NAME.log (default: discarded)
    #[arg(long, value_name = "DIR")]
    pub log: Option<PathBuf>,
    /// The game to play (engines get `setoption name Game value GAME` unless uttt)
    #[arg(long, value_enum, default_value_t, conflicts_with_all = ["replay", "merge"])]
    pub game: GameKind,
    /// Play nothing: re-read a PGN FILE of matches, check every game with the rules, print the summary
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["engines", "openings", "random_plies", "movetime", "nodes", "tc", "pgnout", "log", "merge", "shard", "tournament"]
    )]
    pub replay: Option<PathBuf>,
    /// Play only the K-th of N shares of the pairs (for a cluster); merge the records with --merge
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Play nothing: print the summary of a whole match from its shards' PGN files (--shard, --pgnout)
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["engines", "openings", "random_plies", "movetime", "nodes", "tc", "pgnout", "log", "shard", "tournament"]
    )]
    pub merge: Vec<PathBuf>,
    /// With --merge: summarise the games there are when some are missing
    /// (they are named) instead of refusing
    #[arg(long, requires = "merge")]
    pub allow_incomplete: bool,
    /// Also write the summary (and the settings) as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

impl MatchArgs {
    /// What the arguments ask the match runner to do.
    pub fn command(self) -> MatchCommand {
        if let Some(record) = self.replay {
            return MatchCommand::Replay(ReplayConfig {
                records: vec![record],
                merge: false,
                allow_incomplete: false,
                sprt: self.sprt,
                json: self.json,
            });
        }
        if !self.merge.is_empty() {
            return MatchCommand::Replay(ReplayConfig {
                records: self.merge,
                merge: true,
                allow_incomplete: self.allow_incomplete,
                sprt: self.sprt,
                json: self.json,
            });
        }
        MatchCommand::Play(Box::new(MatchConfig {
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
            record: self.pgnout,
            log: self.log,
            game: self.game,
            tournament: self.tournament,
            shard: self.shard,
            json: self.json,
        }))
    }
}

/// Runs `ultimo match` with `args`.
pub fn run(args: MatchArgs) -> Result<(), ArenaError> {
    // clap's `requires` lets a flag through without its partner.
    if args.allow_incomplete && args.merge.is_empty() {
        return Err(ArenaError::AllowIncompleteWithoutMerge);
    }
    arena::run(&args.command())
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

    fn command(args: &[&str]) -> MatchCommand {
        let argv = std::iter::once("match").chain(args.iter().copied());
        Cli::try_parse_from(argv).unwrap().args.command()
    }

    #[test]
    fn defaults_are_the_arenas() {
        assert_eq!(command(&[]), MatchCommand::Play(Box::default()));
    }

    #[test]
    fn arguments_become_the_config() {
        let got = command(&[
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
            "--pgnout",
            "r.pgn",
            "--log",
            "logs",
            "--tournament",
            "gauntlet",
            "--shard",
            "2/3",
            "--json",
            "s.json",
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
            record: Some("r.pgn".into()),
            log: Some("logs".into()),
            tournament: Some(Tournament::Gauntlet),
            shard: Some("2/3".into()),
            json: Some("s.json".into()),
            ..MatchConfig::default()
        };
        assert_eq!(got, MatchCommand::Play(Box::new(expected)));
    }

    #[test]
    fn replay_reads_a_record() {
        assert_eq!(
            command(&["--replay", "r.pgn", "--sprt", "0", "5", "0.05", "0.05"]),
            MatchCommand::Replay(ReplayConfig {
                records: vec!["r.pgn".into()],
                merge: false,
                allow_incomplete: false,
                sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
                json: None,
            })
        );
        assert_eq!(
            command(&["--merge", "a.pgn", "b.pgn", "--json", "s.json"]),
            MatchCommand::Replay(ReplayConfig {
                records: vec!["a.pgn".into(), "b.pgn".into()],
                merge: true,
                allow_incomplete: false,
                sprt: None,
                json: Some("s.json".into()),
            })
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
        assert!(parse(&["--replay", "r", "--pgnout", "p"]));
        assert!(parse(&["--record", "r"]));
        assert!(parse(&["--sprt", "0", "5"]));
        assert!(parse(&["--merge", "a", "--engine", "cmd=a"]));
        assert!(parse(&["--merge", "a", "--shard", "1/2"]));
        assert!(parse(&["--merge", "a", "--pgnout", "p"]));
        assert!(parse(&["--merge", "a", "--game", "super15"]));
        assert!(parse(&["--tournament", "swiss"]));
    }
}
