//! Reading protocol lines into commands, with an error that says what is
//! wrong for every line that does not parse.

use std::fmt;
use std::time::Duration;

use thiserror::Error;

use super::input::millis;
use crate::game::Notation;
use crate::quote::shorten;
use crate::rules::Position;

/// One input line, understood.
#[derive(Clone, Debug, PartialEq)]
pub enum Command<G: Notation = Position> {
    /// `uci` (false) or `ugi` (true).
    Hello {
        /// Whether the UGI dialect was asked for.
        ugi: bool,
    },
    /// `isready`.
    IsReady,
    /// `setoption name N [value V]`.
    SetOption {
        /// The option's name as written.
        name: String,
        /// The value, if any.
        value: Option<String>,
    },
    /// `ucinewgame` or `uginewgame`.
    NewGame,
    /// `position ...`, already played out.
    Position(G),
    /// `go ...`.
    Go(Go<G::Move>),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `query p1turn|gameover|result`.
    Query(Query),
    /// `d`.
    Display,
    /// `moves`.
    Moves,
    /// `perft N`.
    Perft(u32),
    /// `help`.
    Help,
}

/// A UGI query.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// Is it player 1's (x's) turn?
    P1Turn,
    /// Is the game over?
    GameOver,
    /// The game's result.
    Result,
}

/// The parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Go<M = crate::rules::Move> {
    /// Time left for x and o.
    pub time: [Option<Duration>; 2],
    /// Increments for x and o.
    pub inc: [Option<Duration>; 2],
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Fixed time for the move.
    pub movetime: Option<Duration>,
    /// Iteration budget.
    pub nodes: Option<u64>,
    /// Mean-depth limit.
    pub depth: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search on the opponent's time.
    pub ponder: bool,
    /// Moves to consider (all when empty).
    pub searchmoves: Vec<M>,
    /// Prove the position won, drawn or lost with the proof-number solver
    /// instead of searching.
    pub solve: bool,
}

impl<M> Go<M> {
    /// The time left and the increment of `side` (0 x, 1 o): its own, or
    /// no time at all when only the other side's clock was given (as
    /// Stockfish does: a clock for one side only means a game on the
    /// clock, and the side to move has none left, so it moves at once;
    /// searching without end would leave the `go` unanswered). `None`
    /// when no clock was given.
    pub fn clock(&self, side: usize) -> Option<(Duration, Duration)> {
        let time = self.time[side].or(self.time[1 - side].map(|_| Duration::ZERO))?;
        Some((time, self.inc[side].unwrap_or_default()))
    }

    /// Whether the search has no end of its own: `infinite`, `ponder`, or
    /// no time, node or depth limit (it runs until `stop`).
    pub fn is_open_ended(&self) -> bool {
        self.infinite
            || self.ponder
            || (self.movetime.is_none()
                && self.nodes.is_none()
                && self.depth.is_none()
                && self.time == [None, None])
    }
}

/// How a number in `go` is read, for its error message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NumberKind {
    /// A count (`nodes`, `depth`, `movestogo`).
    Count,
    /// A time in milliseconds.
    Millis,
}

impl fmt::Display for NumberKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberKind::Count => "a non-negative number",
            NumberKind::Millis => "a non-negative number of milliseconds",
        })
    }
}

/// `, got '<text>'` when there is a text.
fn got(text: &Option<String>) -> String {
    text.as_ref()
        .map_or(String::new(), |t| format!(", got '{t}'"))
}

/// Why a line is not a command that can be carried out. Every text it
/// quotes from the line is shortened ([`shorten`]).
#[derive(Clone, Debug, PartialEq, Error)]
pub enum CommandError<G: Notation = Position> {
    /// The first word is no command.
    #[error("unknown command '{0}' (try 'uci' or 'help')")]
    Unknown(String),
    /// A command without arguments was given some.
    #[error("{0} takes no arguments")]
    NoArguments(String),
    /// `setoption` without `name`.
    #[error("setoption: expected 'setoption name <name> [value <value>]'")]
    SetOptionSyntax,
    /// `setoption name` without a name.
    #[error("setoption: the option's name is missing")]
    OptionNameMissing,
    /// `setoption ... value` without a value.
    #[error("setoption: 'value' is not followed by a value")]
    OptionValueMissing,
    /// `position` without `startpos` or `fen`.
    #[error("position: expected 'startpos' or 'fen <fen>'{}", got(.0))]
    PositionStart(Option<String>),
    /// `position fen` without a FEN.
    #[error("position fen: the FEN is missing")]
    FenMissing,
    /// A FEN does not describe a position.
    #[error("bad FEN: {0}")]
    Fen(G::FenError),
    /// A move list cannot be played.
    #[error("{0}")]
    Moves(G::MovesError),
    /// A `go` parameter's number is missing or not a number.
    #[error("go: {param} needs {kind}{}", got(.text))]
    GoNumber {
        /// The parameter, as written (lower case).
        param: String,
        /// What it needs.
        kind: NumberKind,
        /// What was there instead, if anything.
        text: Option<String>,
    },
    /// A word in `go` is no parameter.
    #[error("go: unknown parameter '{0}'")]
    GoUnknown(String),
    /// `go searchmoves` without moves.
    #[error("go: searchmoves needs at least one move")]
    SearchMovesEmpty,
    /// A `go searchmoves` word is not a cell.
    #[error("go searchmoves: {0}")]
    SearchMoveParse(G::MoveError),
    /// A `go searchmoves` move is illegal here.
    #[error("go searchmoves: {mv} is illegal: {reason}")]
    SearchMoveIllegal {
        /// The move.
        mv: G::Move,
        /// Why it cannot be played.
        reason: G::PlayError,
    },
    /// `query` with an unknown question.
    #[error("query: unknown question '{0}' (p1turn, gameover or result)")]
    QueryUnknown(String),
    /// `query` without exactly one word.
    #[error("query takes one of p1turn, gameover, result")]
    QueryArity,
    /// `perft` with a depth that is not 1-8.
    #[error("perft: depth must be 1-8, got '{0}'")]
    PerftDepth(String),
    /// `perft` without exactly one word.
    #[error("perft takes one depth, 1-8")]
    PerftArity,
}

/// Reads one line. `Ok(None)` for a blank line. The position is needed to
/// check `searchmoves`; `position` commands are played out from scratch.
pub fn parse<G: Notation>(line: &str, current: &G) -> Result<Option<Command<G>>, CommandError<G>> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let name = first.to_ascii_lowercase();
    let no_args = |cmd: Command<G>| {
        if rest.is_empty() {
            Ok(Some(cmd))
        } else {
            Err(CommandError::NoArguments(name.clone()))
        }
    };
    match name.as_str() {
        "uci" => no_args(Command::Hello { ugi: false }),
        "ugi" => no_args(Command::Hello { ugi: true }),
        "isready" => no_args(Command::IsReady),
        "ucinewgame" | "uginewgame" => no_args(Command::NewGame),
        "stop" => no_args(Command::Stop),
        "ponderhit" => no_args(Command::PonderHit),
        "quit" => no_args(Command::Quit),
        "d" => no_args(Command::Display),
        "moves" => no_args(Command::Moves),
        "help" => no_args(Command::Help),
        "setoption" => parse_setoption(&rest).map(Some),
        "position" => parse_position(&rest).map(|p| Some(Command::Position(p))),
        "go" => parse_go(&rest, current).map(|g| Some(Command::Go(g))),
        "query" => match rest.as_slice() {
            [q] => match q.to_ascii_lowercase().as_str() {
                "p1turn" => Ok(Some(Command::Query(Query::P1Turn))),
                "gameover" => Ok(Some(Command::Query(Query::GameOver))),
                "result" => Ok(Some(Command::Query(Query::Result))),
                _ => Err(CommandError::QueryUnknown(shorten(q))),
            },
            _ => Err(CommandError::QueryArity),
        },
        "perft" => match rest.as_slice() {
            [d] => match d.parse::<u32>() {
                Ok(d @ 1..=8) => Ok(Some(Command::Perft(d))),
                _ => Err(CommandError::PerftDepth(shorten(d))),
            },
            _ => Err(CommandError::PerftArity),
        },
        // A known command's name is short, so `name` needs no shortening
        // above; an unknown word does.
        _ => Err(CommandError::Unknown(shorten(first))),
    }
}

fn parse_setoption<G: Notation>(rest: &[&str]) -> Result<Command<G>, CommandError<G>> {
    if !rest.first().is_some_and(|w| w.eq_ignore_ascii_case("name")) {
        return Err(CommandError::SetOptionSyntax);
    }
    let value_at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name_words = &rest[1..value_at.unwrap_or(rest.len())];
    if name_words.is_empty() {
        return Err(CommandError::OptionNameMissing);
    }
    let value = match value_at {
        Some(i) if i + 1 < rest.len() => Some(rest[i + 1..].join(" ")),
        Some(_) => return Err(CommandError::OptionValueMissing),
        None => None,
    };
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_position<G: Notation>(rest: &[&str]) -> Result<G, CommandError<G>> {
    let moves_at = rest.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let start = match head {
        ["startpos"] => G::startpos(),
        ["fen", ranks, fields @ ..] => {
            // The notation layer quotes a bad field whole: hand it the
            // fields after the ranks shortened (a field that long is bad
            // anyway; the ranks are never quoted).
            let mut fen = ranks.to_string();
            for field in fields {
                fen.push(' ');
                fen.push_str(&shorten(field));
            }
            fen.parse().map_err(CommandError::Fen)?
        }
        ["fen"] => return Err(CommandError::FenMissing),
        [] => return Err(CommandError::PositionStart(None)),
        [other, ..] => return Err(CommandError::PositionStart(Some(shorten(other)))),
    };
    // Likewise a move word longer than the cut is no cell: shortened, it
    // still is none, and the error quotes it short.
    let moves: Vec<_> = moves.iter().map(|w| shorten(w)).collect();
    start
        .play_moves(moves.iter().map(|w| w.as_ref()))
        .map_err(CommandError::Moves)
}

/// A count after a `go` parameter: a non-negative integer.
fn count<G: Notation>(rest: &[&str], i: usize, param: &str) -> Result<u64, CommandError<G>> {
    let text = rest.get(i + 1).copied();
    text.and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(|| CommandError::GoNumber {
            param: param.to_string(),
            kind: NumberKind::Count,
            text: text.map(shorten),
        })
}

/// A time after a `go` parameter, capped at [`super::input::MAX_TIME`].
fn time<G: Notation>(rest: &[&str], i: usize, param: &str) -> Result<Duration, CommandError<G>> {
    let text = rest.get(i + 1).copied();
    text.and_then(millis).ok_or_else(|| CommandError::GoNumber {
        param: param.to_string(),
        kind: NumberKind::Millis,
        text: text.map(shorten),
    })
}

fn parse_go<G: Notation>(rest: &[&str], current: &G) -> Result<Go<G::Move>, CommandError<G>> {
    let mut go = Go::default();
    let mut i = 0;
    while i < rest.len() {
        let word = rest[i].to_ascii_lowercase();
        match word.as_str() {
            "wtime" | "p1time" => go.time[0] = Some(time(rest, i, &word)?),
            "btime" | "p2time" => go.time[1] = Some(time(rest, i, &word)?),
            "winc" | "p1inc" => go.inc[0] = Some(time(rest, i, &word)?),
            "binc" | "p2inc" => go.inc[1] = Some(time(rest, i, &word)?),
            "movetime" => go.movetime = Some(time(rest, i, &word)?),
            "nodes" => go.nodes = Some(count(rest, i, &word)?),
            "movestogo" => {
                let n = count(rest, i, &word)?;
                go.movestogo = Some(u32::try_from(n).unwrap_or(u32::MAX));
            }
            "depth" => {
                let n = count(rest, i, &word)?;
                go.depth = Some(u32::try_from(n).unwrap_or(u32::MAX));
            }
            "infinite" => {
                go.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                go.ponder = true;
                i += 1;
                continue;
            }
            "solve" => {
                go.solve = true;
                i += 1;
                continue;
            }
            "searchmoves" => {
                let moves = &rest[i + 1..];
                if moves.is_empty() {
                    return Err(CommandError::SearchMovesEmpty);
                }
                for text in moves {
                    let m = G::parse_move(&shorten(text)).map_err(CommandError::SearchMoveParse)?;
                    current
                        .check(m)
                        .map_err(|reason| CommandError::SearchMoveIllegal { mv: m, reason })?;
                    if !go.searchmoves.contains(&m) {
                        go.searchmoves.push(m);
                    }
                }
                break;
            }
            _ => return Err(CommandError::GoUnknown(shorten(rest[i]))),
        }
        i += 2;
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::super::input::MAX_TIME;
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line, &Position::startpos()).unwrap().unwrap()
    }

    fn err(line: &str) -> String {
        parse(line, &Position::startpos()).unwrap_err().to_string()
    }

    #[test]
    fn a_clock_for_one_side_only_leaves_the_other_none() {
        let Command::Go(g) = ok("go wtime 1000 winc 10 binc 20") else {
            panic!()
        };
        let ms = Duration::from_millis;
        assert_eq!(g.clock(0), Some((ms(1000), ms(10))));
        assert_eq!(g.clock(1), Some((Duration::ZERO, ms(20))));
        let Command::Go(g) = ok("go nodes 5 binc 20") else {
            panic!()
        };
        assert_eq!(g.clock(0), None);
    }

    #[test]
    fn simple_commands() {
        assert_eq!(ok("uci"), Command::Hello { ugi: false });
        assert_eq!(ok("UGI"), Command::Hello { ugi: true });
        assert_eq!(ok("  isready  "), Command::IsReady);
        assert_eq!(ok("uginewgame"), Command::NewGame);
        assert_eq!(ok("query result"), Command::Query(Query::Result));
        assert_eq!(ok("perft 3"), Command::Perft(3));
        assert_eq!(parse("   ", &Position::startpos()), Ok(None));
    }

    #[test]
    fn setoption_names_with_spaces() {
        assert_eq!(
            ok("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            ok("setoption name Threads value 4"),
            Command::SetOption {
                name: "Threads".into(),
                value: Some("4".into())
            }
        );
        assert!(err("setoption Threads 4").contains("expected 'setoption name"));
        assert!(err("setoption name Threads value").contains("not followed"));
        assert!(err("setoption name").contains("name is missing"));
    }

    #[test]
    fn positions() {
        let Command::Position(p) = ok("position startpos moves e5 e4 d1") else {
            panic!()
        };
        assert_eq!(p.to_string(), "9/9/9/9/4x4/4o4/9/9/3x5 o 2 d1");
        let Command::Position(p) = ok("position fen 9/9/9/9/4x4/9/9/9/9 o 1 e5 moves e4") else {
            panic!()
        };
        assert_eq!(p.to_string(), "9/9/9/9/4x4/4o4/9/9/9 x 2 e4");
        assert_eq!(
            err("position startpos moves e5 a1"),
            "move 2 (a1) is illegal: the move must be on the centre board"
        );
        assert!(err("position fen 9/9 x 1 0000").starts_with("bad FEN: "));
        assert!(err("position").contains("expected 'startpos'"));
        assert!(err("position fen").contains("FEN is missing"));
        assert!(err("position start").contains("got 'start'"));
        assert!(err("position startpos moves e5 zz").contains("'zz' is not a cell"));
    }

    #[test]
    fn go_parameters() {
        let Command::Go(g) = ok("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5") else {
            panic!()
        };
        assert_eq!(
            g.time,
            [
                Some(Duration::from_millis(1000)),
                Some(Duration::from_millis(2000))
            ]
        );
        assert_eq!(
            g.inc,
            [
                Some(Duration::from_millis(10)),
                Some(Duration::from_millis(20))
            ]
        );
        assert_eq!(g.movestogo, Some(5));
        let Command::Go(g) = ok("go p1time 5 p2time 6 p1inc 1 p2inc 2 nodes 7 depth 3") else {
            panic!()
        };
        assert_eq!(g.time[1], Some(Duration::from_millis(6)));
        assert_eq!((g.nodes, g.depth), (Some(7), Some(3)));
        let Command::Go(g) = ok("go infinite searchmoves e5 a1 e5") else {
            panic!()
        };
        assert!(g.infinite);
        assert_eq!(g.searchmoves.len(), 2);
        let Command::Go(g) = ok("go ponder movetime 100") else {
            panic!()
        };
        assert!(g.ponder);
        assert_eq!(g.movetime, Some(Duration::from_millis(100)));
        let Command::Go(g) = ok("go solve movetime 100") else {
            panic!()
        };
        assert!(g.solve && !g.infinite);
        assert_eq!(g.movetime, Some(Duration::from_millis(100)));
        assert_eq!(ok("go"), Command::Go(Go::default()));
    }

    #[test]
    fn go_errors() {
        assert_eq!(
            err("go wtime -5"),
            "go: wtime needs a non-negative number of milliseconds, got '-5'"
        );
        assert_eq!(err("go nodes"), "go: nodes needs a non-negative number");
        assert_eq!(err("go fast"), "go: unknown parameter 'fast'");
        assert!(err("go searchmoves").contains("at least one move"));
        assert!(err("go searchmoves q9").contains("not a cell"));
        let pos: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
        let e = parse("go searchmoves a1", &pos).unwrap_err().to_string();
        assert!(e.contains("a1 is illegal"), "{e}");
    }

    #[test]
    fn times_are_capped_not_refused() {
        let Command::Go(g) = ok("go movetime 18446744073709551615 wtime 99999999999999999999999")
        else {
            panic!()
        };
        assert_eq!(g.movetime, Some(MAX_TIME));
        assert_eq!(g.time[0], Some(MAX_TIME));
        let Command::Go(g) = ok("go binc 86400001 p2time 86400000") else {
            panic!()
        };
        assert_eq!((g.inc[1], g.time[1]), (Some(MAX_TIME), Some(MAX_TIME)));
        assert_eq!(
            err("go movetime 1.5"),
            "go: movetime needs a non-negative number of milliseconds, got '1.5'"
        );
    }

    #[test]
    fn quoted_input_is_shortened() {
        let long = "z".repeat(1 << 20);
        let cut = format!("'{}...'", "z".repeat(40));
        for line in [
            long.clone(),
            format!("go {long}"),
            format!("go wtime {long}"),
            format!("go nodes {long}"),
            format!("go searchmoves e5 {long}"),
            format!("query {long}"),
            format!("perft {long}"),
            format!("position {long}"),
            format!("position startpos moves e5 {long}"),
            format!("position fen 9/9/9/9/9/9/9/9/9 {long} 1 0000"),
            format!("position fen 9/9/9/9/9/9/9/9/9 x {long} 0000"),
            format!("position fen 9/9/9/9/9/9/9/9/9 x 1 {long}"),
        ] {
            let e = err(&line);
            assert!(e.len() < 200 && e.contains(&cut), "{}: {e}", &line[..20]);
        }
        // A long rank is not quoted at all.
        let e = err(&format!("position fen {long} x 1 0000"));
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn unknown_and_extra_words() {
        assert_eq!(
            err("frobnicate"),
            "unknown command 'frobnicate' (try 'uci' or 'help')"
        );
        assert_eq!(err("isready now"), "isready takes no arguments");
        assert!(err("query").contains("one of"));
        assert!(err("query colour").contains("unknown question"));
        assert!(err("perft 9").contains("1-8"));
        assert!(err("perft").contains("one depth"));
    }
}
