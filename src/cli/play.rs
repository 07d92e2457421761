//! `ultimo play`: a game against the engine in the terminal (or through a
//! pipe: it reads one command per line and writes plain text).

use crate::game::{Outcome, Player};
use std::io::{BufRead, Write};

use super::CliError;
use crate::display::Style;
use crate::display::board::Board;
use crate::display::score::{move_note, proven_text_or_score};
use crate::engine::{AsyncSearcher, Eval, NetGame, SearchRequest, Strength, level_rng};
use crate::pgn::{Annotation, PgnGame, PgnNotation, PgnResult};
use crate::rules::{Position, board_name};
use crate::search::{Limits, Options, Report};
use crate::super15;
use rand::rngs::Xoshiro256PlusPlus;

/// What `ultimo play` says that depends on the game.
pub trait PlayGame: Board + NetGame + PgnNotation {
    /// The help text.
    const HELP: &'static str;
    /// What a move looks like, e.g. `e5`.
    const EXAMPLE: &'static str;
    /// After an illegal move's reason: where the legal moves are shown.
    const LEGAL_HINT: &'static str;
    /// Where the person may play here, e.g. `the centre board`.
    fn place(&self) -> String;
    /// Why `winner` won, e.g. `x has three boards in a line`.
    fn win_reason(winner: Player) -> String;
    /// Why the game is a draw, e.g. `every board is closed`.
    const DRAW_REASON: &'static str;
}

impl PlayGame for Position {
    const HELP: &'static str = HELP;
    const EXAMPLE: &'static str = "e5";
    const LEGAL_HINT: &'static str = " The cells marked * are.";
    fn place(&self) -> String {
        match self.target_board() {
            Some(b) => format!("the {} board", board_name(b)),
            None => "any open board".to_string(),
        }
    }
    fn win_reason(winner: Player) -> String {
        format!("{winner} has three boards in a line")
    }
    const DRAW_REASON: &'static str = "every board is closed";
}

impl PlayGame for super15::Position {
    const HELP: &'static str = "Type a move as its from and to squares, e.g. b2b3 (file a-j \
left to right, rank 1-8 bottom to top; see docs/super-1-al-5.md for the rules). Other commands: \
undo (take back your last move), hint (the engine suggests a move), board (show the board \
again), resign, help, quit.";
    const EXAMPLE: &'static str = "b2b3";
    const LEGAL_HINT: &'static str = "";
    fn place(&self) -> String {
        "the board, from square to square".to_string()
    }
    fn win_reason(winner: Player) -> String {
        format!("{winner} wins by the rules")
    }
    const DRAW_REASON: &'static str = "a draw by the rules";
}

/// How the game is set up.
#[derive(Clone, Debug)]
pub struct Settings<G: PlayGame = Position> {
    /// The side the person plays.
    pub human: Player,
    /// The position the game starts from.
    pub start: G,
    /// The engine's limits for each of its moves.
    pub limits: Limits,
    /// The engine's limits for a hint.
    pub hint_limits: Limits,
    /// Search options.
    pub options: Options,
    /// How strongly the engine plays.
    pub strength: Strength,
    /// How positions are valued.
    pub eval: Eval,
    /// Colours in the board.
    pub style: Style,
    /// Write a prompt before reading (for terminals).
    pub prompt: bool,
}

const HELP: &str = "Type a move as its cell, e.g. e5 (file a-i left to right, rank 1-9 bottom \
to top). Other commands: undo (take back your last move), hint (the engine suggests a move), \
board (show the board again), resign, help, quit. On the board, * marks the cells you may play and \
the last move is in capitals.";

/// The game in PGN: `x` and `o` are `Human` and `Ultimo`, the engine's
/// moves have their notes, the result is `*` unless the game is over.
fn game_pgn<G: PlayGame>(
    settings: &Settings<G>,
    played: &[(G::Move, Annotation)],
    end: &G,
    resigned: bool,
) -> PgnGame {
    let mut game = PgnGame::with_roster();
    game.set_tag("Event", "ultimo play");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    game.set_tag("Date", crate::pgn::date_from_unix(now));
    game.set_tag("Round", "-");
    let engine = engine_name::<G>(settings.strength);
    let name = |side| match side == settings.human {
        true => "Human",
        false => engine.as_str(),
    };
    game.set_tag("White", name(Player::X));
    game.set_tag("Black", name(Player::O));
    let outcome = match resigned {
        true => Some(Outcome::Win(settings.human.opponent())),
        false => end.outcome(),
    };
    game.set_result(PgnResult::from_outcome(outcome));
    let moves: Vec<G::Move> = played.iter().map(|(m, _)| *m).collect();
    let annotations: Vec<Annotation> = played.iter().map(|(_, a)| a.clone()).collect();
    game.set_moves(&settings.start, &moves, &annotations);
    game.set_tag("TimeControl", "-");
    // A resignation ends the game normally, as PGN's Termination says.
    let termination = match outcome.is_some() {
        true => "normal",
        false => "unterminated",
    };
    game.set_tag("Termination", termination);
    game.set_tag("PlyCount", moves.len().to_string());
    game
}

/// The engine's name as a player: `Ultimo`, or with its level as
/// [`Strength::player_name`] writes it.
fn engine_name<G: PlayGame>(strength: Strength) -> String {
    strength.player_name("Ultimo", G::KIND)
}

/// Writes the moves of `game` (its movetext without comments).
fn write_moves(out: &mut impl Write, game: &PgnGame) -> Result<(), CliError> {
    let mut plain = game.clone();
    plain.comment = None;
    for mv in &mut plain.moves {
        mv.comment = None;
    }
    write!(out, "Moves: {}", plain.movetext()).map_err(CliError::from)
}

/// The game being played: the position, the moves with their notes and
/// the positions before them (for undo), and the engine's searcher.
struct PlayState<'a, G: PlayGame> {
    settings: &'a Settings<G>,
    searcher: AsyncSearcher<G>,
    pos: G,
    /// The positions before each move.
    history: Vec<G>,
    /// The moves, with the engine's notes on its own.
    played: Vec<(G::Move, Annotation)>,
    /// The person resigned.
    resigned: bool,
    /// The draws of a weakened engine.
    rng: Xoshiro256PlusPlus,
}

impl<'a, G: PlayGame> PlayState<'a, G> {
    fn new(settings: &'a Settings<G>) -> Result<PlayState<'a, G>, CliError> {
        Ok(PlayState {
            settings,
            searcher: super::searcher(&settings.options, settings.eval, settings.start)?,
            pos: settings.start,
            history: Vec::new(),
            played: Vec::new(),
            resigned: false,
            rng: level_rng(),
        })
    }

    /// Whether the person is to move (in a game that goes on).
    fn persons_turn(&self) -> bool {
        !self.pos.is_over() && self.pos.side_to_move() == self.settings.human
    }

    fn push(&mut self, m: G::Move, note: Annotation) {
        self.history.push(self.pos);
        self.played.push((m, note));
        self.pos.play_unchecked(m);
    }

    /// The person plays `m`, if it is legal here.
    fn play(&mut self, m: G::Move) -> Result<(), G::PlayError> {
        self.pos.check(m)?;
        self.push(m, Annotation::default());
        Ok(())
    }

    /// The engine searches and plays its move: the move and the report.
    fn engine_move(&mut self) -> Result<(G::Move, Report<G::Move>), CliError> {
        let report = match self.settings.strength.weakening(G::KIND) {
            Some(w) => {
                let mut report = self.search(&w.limits(&self.settings.limits))?;
                w.pick(&self.pos, &mut report, &mut self.rng);
                report
            }
            None => self.search(&self.settings.limits.clone())?,
        };
        let m = report.best_move().ok_or(CliError::NoMove)?;
        let note = move_note(&report, report.elapsed);
        self.push(m, Annotation::note(note));
        Ok((m, report))
    }

    /// The engine's suggestion for the person.
    fn hint(&mut self) -> Result<Report<G::Move>, CliError> {
        self.search(&self.settings.hint_limits.clone())
    }

    fn search(&mut self, limits: &Limits) -> Result<Report<G::Move>, CliError> {
        let request = SearchRequest::new(self.pos, limits.clone());
        Ok(self.searcher.run(request, &mut |_| {}, &|| false)?)
    }

    /// Takes back to the position before the person's last move; `false`
    /// (and the start position) when there is none.
    fn undo(&mut self) -> bool {
        while let Some(prev) = self.history.pop() {
            self.played.pop();
            self.pos = prev;
            if self.pos.side_to_move() == self.settings.human {
                return true;
            }
        }
        self.pos = self.settings.start;
        self.played.clear();
        false
    }

    /// The game so far in PGN.
    fn pgn(&self) -> PgnGame {
        game_pgn(self.settings, &self.played, &self.pos, self.resigned)
    }
}

/// Writes the board, and where to play when it is the person's turn.
fn show<G: PlayGame>(out: &mut dyn Write, game: &PlayState<'_, G>) -> Result<(), CliError> {
    write!(out, "\n{}", game.pos.diagram(game.settings.style))?;
    if game.persons_turn() {
        let place = game.pos.place();
        writeln!(out, "Your move ({}), on {place}:", game.pos.side_to_move())?;
    }
    Ok(())
}

/// What the game says once it is over.
fn game_over<G: PlayGame>(outcome: Outcome, human: Player) -> String {
    match outcome {
        Outcome::Win(p) => {
            let who = if p == human { "You win" } else { "Ultimo wins" };
            format!("Game over: {}. {who}.", G::win_reason(p))
        }
        Outcome::Draw => format!("Game over: {}. A draw.", G::DRAW_REASON),
    }
}

/// Whether the game goes on after a person's command.
enum Next {
    Continue,
    Quit,
    Resign,
}

/// Carries out a person's command `text` (lower case, trimmed).
fn command<G: PlayGame>(
    game: &mut PlayState<'_, G>,
    text: &str,
    out: &mut impl Write,
) -> Result<Next, CliError> {
    match text {
        "" => {}
        "quit" | "exit" => return Ok(Next::Quit),
        "resign" => {
            writeln!(out, "You resign. Ultimo wins.")?;
            return Ok(Next::Resign);
        }
        "help" | "?" => writeln!(out, "{}", G::HELP)?,
        "board" | "d" => show(out, game)?,
        "undo" => {
            match game.undo() {
                true => writeln!(out, "Took back your last move.")?,
                false => writeln!(out, "Nothing to take back.")?,
            }
            show(out, game)?;
        }
        "hint" => match game.hint()?.lines.first() {
            Some(line) => writeln!(
                out,
                "Hint: {} (for you: {})",
                line.mv,
                proven_text_or_score(line)
            )?,
            None => writeln!(out, "No hint: no legal move.")?,
        },
        _ => match G::parse_move(text) {
            Ok(m) => match game.play(m) {
                Ok(()) => {
                    writeln!(out, "You play {m}")?;
                    if game.pos.is_over() {
                        show(out, game)?;
                    }
                }
                Err(e) => writeln!(out, "{m} is not possible: {e}.{}", G::LEGAL_HINT)?,
            },
            Err(_) => writeln!(
                out,
                "'{}' is neither a move nor a command. Moves look like {}; type help for more.",
                crate::quote::shorten(text),
                G::EXAMPLE
            )?,
        },
    }
    Ok(Next::Continue)
}

/// Plays one game, reading commands from `input`, and returns it in PGN
/// (result `*` when the person quit or the input ended). The moves are
/// written at the end.
pub fn run<G: PlayGame>(
    settings: &Settings<G>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<PgnGame, CliError> {
    let mut game = PlayState::new(settings)?;
    writeln!(
        out,
        "You play {} against {}. Type help for the commands.",
        settings.human,
        engine_name::<G>(settings.strength)
    )?;
    if game.persons_turn() {
        show(out, &game)?;
    }
    let mut bye = false;
    loop {
        if let Some(outcome) = game.pos.outcome() {
            writeln!(out, "{}", game_over::<G>(outcome, settings.human))?;
            break;
        }
        if !game.persons_turn() {
            let (m, report) = game.engine_move()?;
            writeln!(
                out,
                "\nUltimo plays {m} (for Ultimo: {}; {} nodes)",
                proven_text_or_score(&report.lines[0]),
                report.nodes
            )?;
            show(out, &game)?;
            continue;
        }
        if settings.prompt {
            write!(out, "> ")?;
            out.flush()?;
        }
        let mut buf = Vec::new();
        if input.read_until(b'\n', &mut buf)? == 0 {
            writeln!(out, "\nInput ended; the game is left unfinished.")?;
            break;
        }
        let text = String::from_utf8_lossy(&buf).trim().to_lowercase();
        match command(&mut game, &text, out)? {
            Next::Continue => {}
            Next::Quit => {
                bye = true;
                break;
            }
            Next::Resign => {
                game.resigned = true;
                break;
            }
        }
    }
    let pgn = game.pgn();
    write_moves(out, &pgn)?;
    if bye {
        writeln!(out, "Bye.")?;
    }
    Ok(pgn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings<Position> {
        let limits = Limits {
            nodes: Some(200),
            ..Limits::default()
        };
        Settings {
            human: Player::X,
            start: Position::startpos(),
            limits: limits.clone(),
            hint_limits: limits,
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
            strength: Strength::Full,
            eval: Eval::Playout,
            style: Style::PLAIN,
            prompt: false,
        }
    }

    #[test]
    fn a_level_plays_within_its_nodes_and_names_itself() {
        let mut settings = settings();
        settings.strength = Strength::level(2).unwrap();
        settings.eval = Eval::Net;
        settings.limits.nodes = Some(100_000);
        let mut out = Vec::new();
        let game = run(&settings, &mut "e5\nquit\n".as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let elo = crate::engine::levels(crate::game::GameKind::Uttt)[1].elo;
        let name = format!("Ultimo (level 2, Elo {elo})");
        assert!(
            text.starts_with(&format!("You play x against {name}.")),
            "{text}"
        );
        assert_eq!(game.tag("Black"), Some(name.as_str()));
        let w = settings
            .strength
            .weakening(crate::game::GameKind::Uttt)
            .unwrap();
        assert!(
            text.contains(&format!("; {} nodes)", w.nodes)),
            "the level's nodes, not --nodes: {text}"
        );
    }

    #[test]
    fn long_mistakes_are_echoed_shortened() {
        let long = "z".repeat(500);
        let mut out = Vec::new();
        let input = format!("{long}\nquit\n");
        let game = run(&settings(), &mut input.as_bytes(), &mut out).unwrap();
        assert_eq!(game.result, PgnResult::Unknown);
        let text = String::from_utf8(out).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("neither a move nor a command"))
            .unwrap();
        assert!(
            line.starts_with(&format!("'{}...'", "z".repeat(40))),
            "{line}"
        );
        assert!(!text.contains(&long));
    }

    #[test]
    fn the_game_is_returned_in_pgn_and_its_moves_written() {
        let mut out = Vec::new();
        let input = "e5\nundo\ne5\nquit\n";
        let game = run(&settings(), &mut input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(game.result, PgnResult::Unknown);
        assert_eq!(game.tag("White"), Some("Human"));
        assert_eq!(game.tag("Black"), Some("Ultimo"));
        assert_eq!(game.tag("Termination"), Some("unterminated"));
        assert_eq!(game.tag("PlyCount"), Some("2"));
        assert_eq!(game.moves.len(), 2);
        assert_eq!(game.moves[0].text, "e5");
        assert_eq!(game.moves[0].comment, None);
        // The engine's move has its note: score, depth and time.
        let reply = game.moves[1].clone();
        let note = Annotation::parse(reply.comment.as_deref().unwrap()).note;
        assert!(note.score.is_some() && note.time_ms.is_some(), "{reply:?}");
        assert!(
            text.ends_with(&format!("Moves: 1. e5 {} *\nBye.\n", reply.text)),
            "{text}"
        );
        // It reads back, and replays with the rules.
        let back = crate::pgn::read(&game.to_string(), "play.pgn").unwrap();
        crate::pgn::Replayed::<Position>::new(&back[0], "play.pgn").unwrap();
    }

    #[test]
    fn resigning_ends_the_game_in_the_record() {
        let mut out = Vec::new();
        let game = run(&settings(), &mut "e5\nresign\n".as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("You resign. Ultimo wins."), "{text}");
        assert_eq!(game.tag("Result"), Some("0-1"));
        assert_eq!(game.tag("Termination"), Some("normal"));
    }

    #[test]
    fn write_errors_are_io_errors() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let err = run(&settings(), &mut "quit\n".as_bytes(), &mut Broken).unwrap_err();
        assert!(matches!(err, CliError::Io(_)), "{err}");
    }
}
