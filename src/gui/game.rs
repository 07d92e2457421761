//! The games the page plays, Ultimate Tic-Tac-Toe and Super 1 al 5, behind
//! one interface: a game is a start position and the moves played
//! ([`Line`]), and [`AnyLine`] holds the game of either kind. The session,
//! the driver and the engines are written once over [`GuiGame`]; only how
//! the board is drawn ([`BoardView`]) differs.

use serde::Serialize;

use crate::engine::NetGame;
use crate::game::{GameKind, Notation, Outcome, Player};
use crate::pgn::PgnNotation as ArenaGame;
use crate::{rules, super15};

use super::{GuiError, IllegalMove};

/// A Super 1 al 5 piece, for the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PieceView {
    /// `x` or `o`.
    pub owner: &'static str,
    /// Its number, 1-5.
    pub number: u8,
    /// The points it has captured.
    pub points: u8,
    /// Whether it is super (10 points or more).
    #[serde(rename = "super")]
    pub is_super: bool,
}

/// The board as the page draws it; its fields go into the view as they are.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BoardView {
    /// Ultimate Tic-Tac-Toe.
    Uttt {
        /// Marks by grid index (row * 9 + col from the top-left): "x",
        /// "o" or "".
        cells: Vec<&'static str>,
        /// Per small board (reading order): "x", "o", "draw" or "".
        boards: Vec<&'static str>,
        /// Legal moves by grid index.
        legal: Vec<bool>,
        /// Grid index of the last move.
        last: Option<u8>,
    },
    /// Super 1 al 5.
    Super15 {
        /// The piece on each cell, by cell index (`10 * rank + file`,
        /// `a1` = 0).
        pieces: Vec<Option<PieceView>>,
        /// The legal moves, e.g. `c3e5`.
        legal: Vec<String>,
        /// The last move's cells (from, to), by cell index.
        last: Option<[u8; 2]>,
        /// The central cells, where no piece may stop, by cell index.
        central: Vec<u8>,
    },
}

/// What the page needs of a game beyond what a match needs.
pub trait GuiGame: ArenaGame + NetGame + std::hash::Hash {
    /// Cells of the heat map.
    const HEAT_CELLS: usize;
    /// The heat-map cell of a move.
    fn heat_cell(m: Self::Move) -> usize;
    /// The board, with the last move played (when the game knows it).
    fn board(&self, last: Option<Self::Move>) -> BoardView;
    /// Why `text` is no move (the text shortened).
    fn not_a_move(text: &str) -> String;
    /// The rules' reason against a move, as the server reports it.
    fn illegal(reason: Self::PlayError) -> IllegalMove;
    /// The game of either kind.
    fn wrap(line: Line<Self>) -> AnyLine;
}

/// Grid index (row * 9 + col from the top-left) of an Ultimate
/// Tic-Tac-Toe move.
pub fn grid(mv: rules::Move) -> u8 {
    mv.row() * 9 + mv.col()
}

fn owner_name(p: Player) -> &'static str {
    match p {
        Player::X => "x",
        Player::O => "o",
    }
}

impl GuiGame for rules::Position {
    const HEAT_CELLS: usize = 81;

    fn heat_cell(m: rules::Move) -> usize {
        grid(m) as usize
    }

    fn board(&self, _last: Option<rules::Move>) -> BoardView {
        let mut cells = vec![""; 81];
        for (i, cell) in cells.iter_mut().enumerate() {
            let m = rules::Move::from_grid((i % 9) as u8, (i / 9) as u8).expect("in range");
            *cell = self.mark_at(m).map_or("", owner_name);
        }
        let (xw, ow, closed) = (
            self.won_boards(Player::X),
            self.won_boards(Player::O),
            self.closed_boards(),
        );
        let boards = (0..9)
            .map(|b| {
                let bit = 1u16 << b;
                if xw & bit != 0 {
                    "x"
                } else if ow & bit != 0 {
                    "o"
                } else if closed & bit != 0 {
                    "draw"
                } else {
                    ""
                }
            })
            .collect();
        let mut legal = vec![false; 81];
        for &m in self.legal_moves().iter() {
            legal[grid(m) as usize] = true;
        }
        // The position knows its last move (the FEN keeps it too).
        BoardView::Uttt {
            cells,
            boards,
            legal,
            last: self.last_move().map(grid),
        }
    }

    fn not_a_move(text: &str) -> String {
        format!("'{}' is not a cell", crate::quote::shorten(text))
    }

    fn illegal(reason: rules::PlayError) -> IllegalMove {
        IllegalMove::Uttt(reason)
    }

    fn wrap(line: Line<Self>) -> AnyLine {
        AnyLine::Uttt(line)
    }
}

impl GuiGame for super15::Position {
    const HEAT_CELLS: usize = super15::CELLS;

    /// The cell where the piece stops (the visits of every piece that can
    /// go there add up).
    fn heat_cell(m: super15::Move) -> usize {
        m.to().index() as usize
    }

    fn board(&self, last: Option<super15::Move>) -> BoardView {
        let mut pieces = Vec::with_capacity(super15::CELLS);
        let mut central = Vec::new();
        for index in 0..super15::CELLS as u8 {
            let square = super15::Square::from_index(index).expect("a cell of the board");
            if square.is_central() {
                central.push(index);
            }
            pieces.push(self.piece_at(square).map(|p| PieceView {
                owner: owner_name(p.owner),
                number: p.number,
                points: p.points,
                is_super: p.is_super(),
            }));
        }
        BoardView::Super15 {
            pieces,
            legal: self.legal_moves().iter().map(|m| m.to_string()).collect(),
            last: last.map(|m| [m.from().index(), m.to().index()]),
            central,
        }
    }

    fn not_a_move(text: &str) -> String {
        match text.parse::<super15::Move>() {
            Err(e) => e.to_string(),
            Ok(_) => format!("'{}' is a move", crate::quote::shorten(text)),
        }
    }

    fn illegal(reason: super15::PlayError) -> IllegalMove {
        IllegalMove::Super15(reason)
    }

    fn wrap(line: Line<Self>) -> AnyLine {
        AnyLine::Super15(line)
    }
}

/// A game: where it started and the moves played since.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<G: GuiGame> {
    /// The start position.
    pub start: G,
    /// The moves, all legal.
    pub moves: Vec<G::Move>,
}

/// What playing a move did: the side that moved and the outcome after it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The side that moved.
    pub mover: Player,
    /// How the game ended, if the move ended it.
    pub outcome: Option<Outcome>,
}

impl<G: GuiGame> Line<G> {
    /// A game from the start position.
    pub fn new() -> Line<G> {
        Line {
            start: G::startpos(),
            moves: Vec::new(),
        }
    }

    /// The position after `ply` moves.
    pub fn position_at(&self, ply: usize) -> G {
        let mut pos = self.start;
        for &m in &self.moves[..ply.min(self.moves.len())] {
            pos.play_unchecked(m);
        }
        pos
    }

    /// Plays the move `text` after `ply` moves, dropping the moves after
    /// them; on an error nothing changes.
    pub fn play(&mut self, ply: usize, text: &str) -> Result<Played, GuiError> {
        let mv = G::parse_move(text).map_err(|_| GuiError::NotAMove(G::not_a_move(text)))?;
        let mut pos = self.position_at(ply);
        let mover = pos.side_to_move();
        pos.try_play(mv).map_err(|e| GuiError::Illegal {
            mv: mv.to_string(),
            reason: G::illegal(e),
        })?;
        self.moves.truncate(ply);
        self.moves.push(mv);
        Ok(Played {
            mover,
            outcome: pos.outcome(),
        })
    }

    /// A game from a FEN (empty or `startpos`: the start position) and a
    /// move list (separated by spaces or commas).
    pub fn parse(fen: &str, moves: &str) -> Result<Line<G>, GuiError> {
        let fen = fen.trim();
        let start = if fen.is_empty() || fen == "startpos" {
            G::startpos()
        } else {
            fen.parse().map_err(|e: G::FenError| {
                GuiError::BadRequest(format!("bad FEN '{}': {e}", crate::quote::shorten(fen)))
            })?
        };
        let words: Vec<&str> = moves
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        start
            .play_moves(words.iter().copied())
            .map_err(|e| GuiError::BadRequest(e.to_string()))?;
        let moves = words
            .iter()
            .map(|w| G::parse_move(w))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| GuiError::BadRequest(e.to_string()))?;
        Ok(Line { start, moves })
    }
}

impl<G: GuiGame> Default for Line<G> {
    fn default() -> Self {
        Line::new()
    }
}

/// Runs `$body` with `$l` bound to the [`Line`] inside an [`AnyLine`],
/// whatever its game.
macro_rules! each {
    ($line:expr, $l:ident => $body:expr) => {
        match $line {
            AnyLine::Uttt($l) => $body,
            AnyLine::Super15($l) => $body,
        }
    };
}
pub(crate) use each;

/// A game of either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyLine {
    /// Ultimate Tic-Tac-Toe.
    Uttt(Line<rules::Position>),
    /// Super 1 al 5.
    Super15(Line<super15::Position>),
}

impl AnyLine {
    /// A new game of `game` from its start position.
    pub fn new(game: GameKind) -> AnyLine {
        match game {
            GameKind::Uttt => AnyLine::Uttt(Line::new()),
            GameKind::Super15 => AnyLine::Super15(Line::new()),
        }
    }

    /// A game of `game` from a FEN and moves (see [`Line::parse`]).
    pub fn parse(game: GameKind, fen: &str, moves: &str) -> Result<AnyLine, GuiError> {
        Ok(match game {
            GameKind::Uttt => AnyLine::Uttt(Line::parse(fen, moves)?),
            GameKind::Super15 => AnyLine::Super15(Line::parse(fen, moves)?),
        })
    }

    /// Which game it is.
    pub fn game(&self) -> GameKind {
        match self {
            AnyLine::Uttt(_) => GameKind::Uttt,
            AnyLine::Super15(_) => GameKind::Super15,
        }
    }

    /// The number of moves.
    pub fn len(&self) -> usize {
        each!(self, l => l.moves.len())
    }

    /// Whether no move has been played.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops the moves after the first `ply`.
    pub fn truncate(&mut self, ply: usize) {
        each!(self, l => l.moves.truncate(ply))
    }

    /// The game up to `ply` moves.
    pub fn prefix(&self, ply: usize) -> AnyLine {
        let mut line = self.clone();
        line.truncate(ply);
        line
    }

    /// The side to move after `ply` moves.
    pub fn side_at(&self, ply: usize) -> Player {
        each!(self, l => l.position_at(ply).side_to_move())
    }

    /// How the game stands after `ply` moves.
    pub fn outcome_at(&self, ply: usize) -> Option<Outcome> {
        each!(self, l => l.position_at(ply).outcome())
    }

    /// The FEN after `ply` moves.
    pub fn fen_at(&self, ply: usize) -> String {
        each!(self, l => l.position_at(ply).to_string())
    }

    /// The board after `ply` moves.
    pub fn board_at(&self, ply: usize) -> BoardView {
        each!(self, l => {
            let last = ply.checked_sub(1).and_then(|i| l.moves.get(i).copied());
            l.position_at(ply).board(last)
        })
    }

    /// The start position's FEN.
    pub fn start_fen(&self) -> String {
        each!(self, l => l.start.to_string())
    }

    /// The plies played before the start position (0 from the empty
    /// board; a set-up position's move number counts from it).
    pub fn start_ply(&self) -> u32 {
        each!(self, l => crate::game::Game::ply(&l.start))
    }

    /// `startpos` when the game starts from the start position, else its
    /// FEN.
    pub fn opening(&self) -> String {
        each!(self, l => if l.start == Notation::startpos() {
            "startpos".to_string()
        } else {
            l.start.to_string()
        })
    }

    /// The moves as text.
    pub fn moves_text(&self) -> Vec<String> {
        each!(self, l => l.moves.iter().map(|m| m.to_string()).collect())
    }

    /// Whether `text` reads as a move of this game (legal or not).
    pub fn check_word(&self, text: &str) -> Result<(), GuiError> {
        fn check<G: GuiGame>(text: &str) -> Result<(), GuiError> {
            G::parse_move(text)
                .map(|_| ())
                .map_err(|_| GuiError::NotAMove(G::not_a_move(text)))
        }
        match self {
            AnyLine::Uttt(_) => check::<rules::Position>(text),
            AnyLine::Super15(_) => check::<super15::Position>(text),
        }
    }

    /// Plays `text` after `ply` moves (see [`Line::play`]).
    pub fn play(&mut self, ply: usize, text: &str) -> Result<Played, GuiError> {
        each!(self, l => l.play(ply, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_both_games_as_text() {
        let mut line = AnyLine::new(GameKind::Super15);
        let played = line.play(0, "e2e3").unwrap();
        assert_eq!((played.mover, played.outcome), (Player::X, None));
        assert_eq!(line.side_at(1), Player::O);
        let err = line.play(1, "e7e4").unwrap_err().to_string();
        assert_eq!(err, "e7e4: no piece may stop on the central cell e4");
        let err = line.play(1, "e5").unwrap_err().to_string();
        assert!(err.starts_with("'e5' is not a move"), "{err}");
        assert_eq!(line.moves_text(), ["e2e3"]);
        let BoardView::Super15 {
            pieces,
            legal,
            last,
            central,
        } = line.board_at(1)
        else {
            panic!("a Super 1 al 5 board")
        };
        assert_eq!(last, Some([14, 24]));
        assert_eq!(central, [34, 35, 44, 45]);
        assert_eq!(
            pieces[24].as_ref().map(|p| (p.owner, p.number)),
            Some(("x", 3))
        );
        assert!(pieces[14].is_none());
        assert!(legal.iter().all(|m| m.len() == 4));
        let mut uttt = AnyLine::new(GameKind::Uttt);
        assert_eq!(
            uttt.play(0, "z99").unwrap_err().to_string(),
            "'z99' is not a cell"
        );
        uttt.play(0, "e5").unwrap();
        assert_eq!(uttt.prefix(1).moves_text(), ["e5"]);
        assert!(uttt.prefix(0).moves_text().is_empty());
    }
}
