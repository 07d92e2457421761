//! Reading protocol lines into commands, with an error that says what is
//! wrong for every line that does not parse.

use std::fmt;
use std::time::Duration;

use crate::notation::{FenError, MovesError, play_moves};
use crate::rules::{Move, Position};

/// One input line, understood.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
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
    Position(Position),
    /// `go ...`.
    Go(Go),
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
pub struct Go {
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
    pub searchmoves: Vec<Move>,
}

/// Why a line is not a command that can be carried out.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandError {
    /// The first word is no command.
    Unknown(String),
    /// A command's arguments are wrong; the text says how.
    Usage(String),
    /// A FEN does not describe a position.
    Fen(FenError),
    /// A move list cannot be played.
    Moves(MovesError),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(word) => {
                write!(f, "unknown command '{word}' (try 'uci' or 'help')")
            }
            CommandError::Usage(text) => write!(f, "{text}"),
            CommandError::Fen(e) => write!(f, "bad FEN: {e}"),
            CommandError::Moves(e) => write!(f, "{e}"),
        }
    }
}

fn usage(text: impl Into<String>) -> CommandError {
    CommandError::Usage(text.into())
}

/// Reads one line. `Ok(None)` for a blank line. The position is needed to
/// check `searchmoves`; `position` commands are played out from scratch.
pub fn parse(line: &str, current: &Position) -> Result<Option<Command>, CommandError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let name = first.to_ascii_lowercase();
    let no_args = |cmd: Command| {
        if rest.is_empty() {
            Ok(Some(cmd))
        } else {
            Err(usage(format!("{name} takes no arguments")))
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
                _ => Err(usage(format!(
                    "query: unknown question '{q}' (p1turn, gameover or result)"
                ))),
            },
            _ => Err(usage("query takes one of p1turn, gameover, result")),
        },
        "perft" => match rest.as_slice() {
            [d] => match d.parse::<u32>() {
                Ok(d @ 1..=8) => Ok(Some(Command::Perft(d))),
                _ => Err(usage(format!("perft: depth must be 1-8, got '{d}'"))),
            },
            _ => Err(usage("perft takes one depth, 1-8")),
        },
        _ => Err(CommandError::Unknown(first.to_string())),
    }
}

fn parse_setoption(rest: &[&str]) -> Result<Command, CommandError> {
    if rest.first().map(|w| w.to_ascii_lowercase()) != Some("name".into()) {
        return Err(usage(
            "setoption: expected 'setoption name <name> [value <value>]'",
        ));
    }
    let value_at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name_words = &rest[1..value_at.unwrap_or(rest.len())];
    if name_words.is_empty() {
        return Err(usage("setoption: the option's name is missing"));
    }
    let value = match value_at {
        Some(i) if i + 1 < rest.len() => Some(rest[i + 1..].join(" ")),
        Some(_) => return Err(usage("setoption: 'value' is not followed by a value")),
        None => None,
    };
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_position(rest: &[&str]) -> Result<Position, CommandError> {
    let moves_at = rest.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let start = match head {
        ["startpos"] => Position::startpos(),
        ["fen", fen @ ..] if !fen.is_empty() => fen.join(" ").parse().map_err(CommandError::Fen)?,
        ["fen"] => return Err(usage("position fen: the FEN is missing")),
        [] => return Err(usage("position: expected 'startpos' or 'fen <fen>'")),
        [other, ..] => {
            return Err(usage(format!(
                "position: expected 'startpos' or 'fen <fen>', got '{other}'"
            )));
        }
    };
    play_moves(&start, moves.iter().copied()).map_err(CommandError::Moves)
}

fn parse_go(rest: &[&str], current: &Position) -> Result<Go, CommandError> {
    let mut go = Go::default();
    let mut i = 0;
    let number = |i: usize, what: &str| -> Result<u64, CommandError> {
        let text = rest.get(i + 1).copied().unwrap_or("");
        text.parse::<u64>().map_err(|_| {
            let kind = if matches!(what, "nodes" | "depth" | "movestogo") {
                "a non-negative number"
            } else {
                "a non-negative number of milliseconds"
            };
            if text.is_empty() {
                usage(format!("go: {what} needs {kind}"))
            } else {
                usage(format!("go: {what} needs {kind}, got '{text}'"))
            }
        })
    };
    let ms = |n: u64| Duration::from_millis(n);
    while i < rest.len() {
        let word = rest[i].to_ascii_lowercase();
        match word.as_str() {
            "wtime" | "p1time" => go.time[0] = Some(ms(number(i, &word)?)),
            "btime" | "p2time" => go.time[1] = Some(ms(number(i, &word)?)),
            "winc" | "p1inc" => go.inc[0] = Some(ms(number(i, &word)?)),
            "binc" | "p2inc" => go.inc[1] = Some(ms(number(i, &word)?)),
            "movetime" => go.movetime = Some(ms(number(i, &word)?)),
            "nodes" => go.nodes = Some(number(i, &word)?),
            "movestogo" => {
                let n = number(i, &word)?;
                go.movestogo = Some(u32::try_from(n).unwrap_or(u32::MAX));
            }
            "depth" => {
                let n = number(i, &word)?;
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
            "searchmoves" => {
                let moves = &rest[i + 1..];
                if moves.is_empty() {
                    return Err(usage("go: searchmoves needs at least one move"));
                }
                for text in moves {
                    let m: Move = text
                        .parse()
                        .map_err(|e| usage(format!("go searchmoves: {e}")))?;
                    current
                        .check(m)
                        .map_err(|e| usage(format!("go searchmoves: {m} is illegal: {e}")))?;
                    if !go.searchmoves.contains(&m) {
                        go.searchmoves.push(m);
                    }
                }
                break;
            }
            _ => {
                return Err(usage(format!("go: unknown parameter '{}'", rest[i])));
            }
        }
        i += 2;
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line, &Position::startpos()).unwrap().unwrap()
    }

    fn err(line: &str) -> String {
        parse(line, &Position::startpos()).unwrap_err().to_string()
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
