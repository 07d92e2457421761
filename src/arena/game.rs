//! Playing one game between two engine processes, refereed by Ultimo's own
//! rules.

use crate::game::Player;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::arena::openings::{ArenaGame, Opening};
use crate::arena::record::{GameRecord, Termination};
use crate::client::clock::{GameClock, TimeControl};
use crate::client::engine::{EngineError, EngineProcess, EngineSpec};
use crate::client::referee::{referee, sanitize};
use crate::game::{GameKind, Outcome};
use crate::pgn::MoveNote;
use crate::rules::Position;

/// The settings every game of a match shares.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The grace past a clock or a move time before a move is lost on time.
    pub margin: Duration,
    /// The longest a move may take with `nodes`.
    pub move_timeout: Duration,
    /// The longest the handshake and `readyok` may take.
    pub startup_timeout: Duration,
    /// The directory of the engines' logs (standard error), if kept.
    pub log: Option<PathBuf>,
}

/// Which game to play: its number, pair, opening, and which engine (0 or 1)
/// plays `x`.
#[derive(Clone, Debug)]
pub struct GameSetup<G: ArenaGame = Position> {
    /// The game's number, from 1.
    pub game: u64,
    /// The pair's number, from 1.
    pub pair: u64,
    /// Where the game starts.
    pub opening: Opening<G>,
    /// The engine (index into the specs) that plays `x`.
    pub x_engine: usize,
    /// Each engine's time control (index into the specs).
    pub controls: [TimeControl; 2],
}

/// Why a finished game ended, in words.
fn normal_reason<G: ArenaGame>(pos: &G) -> String {
    match (G::KIND, pos.outcome()) {
        (GameKind::Uttt, Some(Outcome::Win(p))) => format!("{p} has three boards in a line"),
        (GameKind::Uttt, _) => "every board is closed without a line".to_string(),
        (GameKind::Super15, Some(Outcome::Win(p))) => format!("{p} wins"),
        (GameKind::Super15, _) => "a draw by the rules".to_string(),
    }
}

impl<G: ArenaGame> GameSetup<G> {
    /// The side engine `engine` (0 or 1) plays.
    pub fn side_of(&self, engine: usize) -> Player {
        if engine == self.x_engine {
            Player::X
        } else {
            Player::O
        }
    }

    /// The engine (0 or 1) that plays `side`.
    pub fn engine_of(&self, side: Player) -> usize {
        match side {
            Player::X => self.x_engine,
            Player::O => 1 - self.x_engine,
        }
    }
}

/// A fault: who committed it, of what kind, and the words for it.
struct Fault {
    engine: usize,
    kind: Termination,
    reason: String,
}

/// Why a game stopped before the rules ended it.
enum Halt {
    /// An engine committed a fault and loses.
    Fault(Fault),
    /// The match is being aborted; the game does not count.
    Aborted,
}

impl Halt {
    /// A fault of `kind` by `engine`.
    fn fault(engine: usize, kind: Termination, reason: String) -> Halt {
        Halt::Fault(Fault {
            engine,
            kind,
            reason,
        })
    }

    /// The halt for an engine error while doing `what`.
    fn from_error(engine: usize, error: EngineError, what: &str) -> Halt {
        let kind = match error {
            EngineError::Aborted => return Halt::Aborted,
            EngineError::Crashed(_) | EngineError::Log { .. } => Termination::Crash,
            EngineError::Timeout(_) | EngineError::NoHandshake { .. } => Termination::Timeout,
            // Like an unreadable answer: the engine broke the protocol.
            EngineError::LineTooLong => Termination::Illegal,
        };
        Halt::fault(engine, kind, format!("{what}: {error}"))
    }
}

/// Plays one game between the engines in `slots` (started first if empty),
/// or returns `None` when the match is aborted meanwhile. An engine that
/// commits a fault loses the game and its process is killed (its slot left
/// empty, to be started afresh for the next game).
pub fn play_game<G: ArenaGame>(
    slots: &mut [Option<EngineProcess>; 2],
    specs: &[EngineSpec; 2],
    settings: &GameSettings,
    setup: &GameSetup<G>,
    abort: &AtomicBool,
) -> Option<GameRecord<G>> {
    let mut played = Played {
        moves: Vec::new(),
        notes: Vec::new(),
    };
    let mut pos = setup.opening.position();
    let result = prepare(slots, specs, settings, abort)
        .and_then(|()| play_moves(slots, settings, setup, &mut pos, &mut played, abort));
    let (outcome, termination, reason) = match result {
        Ok(()) => {
            let outcome = pos.outcome()?;
            (outcome, Termination::Normal, normal_reason(&pos))
        }
        Err(Halt::Aborted) => return None,
        Err(Halt::Fault(fault)) => {
            slots[fault.engine] = None; // kills the process
            let side = setup.side_of(fault.engine);
            let reason = format!("{side} ({}) {}", specs[fault.engine].name, fault.reason);
            (Outcome::Win(side.opponent()), fault.kind, reason)
        }
    };
    let name = |side| specs[setup.engine_of(side)].name.clone();
    Some(GameRecord {
        game: setup.game,
        pair: setup.pair,
        x: name(Player::X),
        o: name(Player::O),
        opening: setup.opening.clone(),
        moves: played.moves,
        notes: played.notes,
        outcome,
        termination,
        reason: sanitize(&reason, 200),
    })
}

/// Starts the engines that are not running and tells both a new game
/// follows.
fn prepare(
    slots: &mut [Option<EngineProcess>; 2],
    specs: &[EngineSpec; 2],
    settings: &GameSettings,
    abort: &AtomicBool,
) -> Result<(), Halt> {
    let timeout = settings.startup_timeout;
    for (i, slot) in slots.iter_mut().enumerate() {
        let engine = match slot {
            Some(engine) => engine,
            None => {
                let engine =
                    EngineProcess::start_logged(&specs[i], timeout, abort, settings.log.as_deref())
                        .map_err(|e| Halt::from_error(i, e, "could not be started"))?;
                slot.insert(engine)
            }
        };
        engine
            .new_game(timeout, abort)
            .map_err(|e| Halt::from_error(i, e, "was not ready for a new game"))?;
    }
    Ok(())
}

/// The moves played so far, each with the engine's note on it.
struct Played<G: ArenaGame> {
    moves: Vec<G::Move>,
    notes: Vec<MoveNote>,
}

/// Plays moves until the game is over: sends the position and `go` to the
/// side to move, times its answer, and referees its move. The note on each
/// move is the score and depth of the engine's last `info` line with a
/// score before its `bestmove` (of its last `info` line when none has one),
/// and the time the runner measured.
fn play_moves<G: ArenaGame>(
    slots: &mut [Option<EngineProcess>; 2],
    settings: &GameSettings,
    setup: &GameSetup<G>,
    pos: &mut G,
    played: &mut Played<G>,
    abort: &AtomicBool,
) -> Result<(), Halt> {
    let controls = [Player::X, Player::O].map(|side| setup.controls[setup.engine_of(side)]);
    let mut clock = GameClock::with_controls(controls, settings.margin, settings.move_timeout);
    while !pos.is_over() {
        let side = pos.side_to_move();
        let index = setup.engine_of(side);
        let Some(engine) = slots[index].as_mut() else {
            return Err(Halt::Aborted); // prepare started both engines
        };
        let crashed = |e| Halt::from_error(index, e, "failed to move");
        engine
            .send(&setup.opening.position_command(&played.moves))
            .map_err(crashed)?;
        engine
            .send(&clock.go_command(side, engine.dialect))
            .map_err(crashed)?;
        let sent = Instant::now();
        let limit = clock.limit(side);
        let mut note = MoveNote::default();
        let (arrived, line) = engine
            .wait_for(limit, abort, |l| {
                if let Some(info) = MoveNote::from_info(l)
                    && (info.score.is_some() || note.score.is_none())
                {
                    note = info;
                }
                l.starts_with("bestmove")
            })
            .map_err(|e| match e {
                EngineError::Timeout(_) => {
                    let why = format!("lost on time: no move within {} ms", limit.as_millis());
                    Halt::fault(index, Termination::Timeout, why)
                }
                e => crashed(e),
            })?;
        let took = arrived.saturating_duration_since(sent);
        clock.charge(side, took).map_err(|loss| {
            Halt::fault(
                index,
                Termination::Timeout,
                format!("lost on time ({loss})"),
            )
        })?;
        let mv = referee(pos, &line)
            .map_err(|e| Halt::fault(index, Termination::Illegal, e.to_string()))?;
        note.time_ms = Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
        played.moves.push(mv);
        played.notes.push(note);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::referee::RefereeError;
    use crate::rules::PlayError;

    #[test]
    fn referee_plays_legal_moves_only() {
        let mut pos = Position::startpos();
        assert_eq!(referee(&mut pos, "bestmove e5"), Ok("e5".parse().unwrap()));
        assert_eq!(pos.ply(), 1);
        let mut error = |line| referee(&mut pos, line).unwrap_err().to_string();
        assert_eq!(
            error("bestmove e5 ponder e4"),
            "played e5, which is illegal: the cell is already taken"
        );
        assert_eq!(
            error("bestmove a1"),
            "played a1, which is illegal: the move must be on the centre board"
        );
        assert_eq!(error("bestmove 0000"), "sent '0000', which is not a move");
        assert_eq!(error("bestmove"), "sent 'bestmove' instead of a move");
        assert_eq!(error("bestmove e;4"), "sent 'e?4', which is not a move");
        assert_eq!(
            referee(&mut pos, "bestmove e5"),
            Err(RefereeError::Illegal {
                mv: "e5".parse().unwrap(),
                problem: PlayError::CellTaken.into()
            })
        );
        assert_eq!(pos.ply(), 1);
        assert_eq!(referee(&mut pos, "bestmove  e4"), Ok("e4".parse().unwrap()));
    }

    #[test]
    fn sides_and_engines() {
        let setup = |x_engine| GameSetup {
            game: 1,
            pair: 1,
            opening: Opening::<Position>::Moves(vec![]),
            x_engine,
            controls: [TimeControl::Nodes(1); 2],
        };
        assert_eq!(setup(0).side_of(0), Player::X);
        assert_eq!(setup(0).side_of(1), Player::O);
        assert_eq!(setup(1).side_of(0), Player::O);
        assert_eq!(setup(1).engine_of(Player::X), 1);
        assert_eq!(setup(1).engine_of(Player::O), 0);
        assert_eq!(setup(0).engine_of(Player::O), 1);
    }

    #[test]
    fn normal_reasons() {
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(5);
        let pos = Position::startpos().random_playout(&mut rng);
        match pos.outcome() {
            Some(Outcome::Win(p)) => {
                assert_eq!(
                    normal_reason(&pos),
                    format!("{p} has three boards in a line")
                )
            }
            _ => assert_eq!(normal_reason(&pos), "every board is closed without a line"),
        }
    }
}
