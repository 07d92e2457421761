//! The board drawn as text for people (`d`, `ultimo play`, `ultimo analyze`).

use super::Style;
use crate::game::{Notation, Outcome, Player};
use crate::rules::{Move, Position, board_name};
use crate::super15;

/// A game's board as text for people: what `d`, `ultimo play` and
/// `ultimo analyze` print.
pub trait Board: Notation {
    /// The board as a grid with file and rank labels.
    fn diagram(&self, style: Style) -> String;
    /// One line per fact: FEN, side to move, and what the game shows.
    fn summary(&self) -> String;
}

impl Board for Position {
    fn diagram(&self, style: Style) -> String {
        diagram(self, style)
    }

    fn summary(&self) -> String {
        summary(self)
    }
}

impl Board for super15::Position {
    /// Ranks 8 to 1 from the top, files a-j; a piece as its owner (`x`,
    /// `o`; upper case when super) and number, points in brackets, `.` an
    /// empty cell and `+` a central cell.
    fn diagram(&self, style: Style) -> String {
        let files = "   a     b     c     d     e     f     g     h     i     j\n";
        let mut out = String::from(files);
        for rank in (0..super15::RANKS).rev() {
            out.push_str(&format!("{}  ", rank + 1));
            for file in 0..super15::FILES {
                let square = super15::Square::new(file, rank).expect("a cell of the board");
                let (text, colour) = match self.piece_at(square) {
                    None if square.is_central() => ("+".to_string(), None),
                    None => (".".to_string(), None),
                    Some(piece) => {
                        let mark = match (piece.owner, piece.is_super()) {
                            (Player::X, false) => 'x',
                            (Player::O, false) => 'o',
                            (Player::X, true) => 'X',
                            (Player::O, true) => 'O',
                        };
                        let text = if piece.points > 0 {
                            format!("{mark}{}({})", piece.number, piece.points)
                        } else {
                            format!("{mark}{}", piece.number)
                        };
                        (
                            text,
                            Some(if piece.owner == Player::X {
                                super::X_MARK
                            } else {
                                super::O_MARK
                            }),
                        )
                    }
                };
                let pad = " ".repeat(6usize.saturating_sub(text.len()).max(1));
                match colour {
                    Some(c) => out.push_str(&style.paint(c, &text)),
                    None => out.push_str(&text),
                }
                out.push_str(&pad);
            }
            out.push_str(&format!(" {}\n", rank + 1));
        }
        out.push_str(files);
        out
    }

    fn summary(&self) -> String {
        let mut out = format!("fen {self}\n");
        match self.outcome() {
            None => out.push_str(&format!("to move: {}\n", self.side_to_move())),
            Some(Outcome::Win(p)) => out.push_str(&format!("result: {p} won\n")),
            Some(Outcome::Draw) => out.push_str("result: draw\n"),
        }
        for p in [Player::X, Player::O] {
            out.push_str(&format!(
                "{p}: {} pieces, value {}\n",
                self.count(p),
                self.value(p)
            ));
        }
        out.push_str(&format!(
            "ply {}, plies without a capture {}\n",
            self.ply(),
            self.quiet_plies()
        ));
        out
    }
}

/// The board as a 9x9 grid with file and rank labels. The last move is
/// shown in capitals (`X`/`O`), the cells the side to move may play as
/// `*`, other empty cells as `.`; won small boards get their winner's mark
/// in the summary below the grid.
pub fn diagram(pos: &Position, style: Style) -> String {
    let legal = pos.legal_mask();
    let last = pos.last_move();
    let mut out = String::new();
    out.push_str("    a b c   d e f   g h i\n");
    for row in 0..9u8 {
        if row == 3 || row == 6 {
            out.push_str("   -------+-------+-------\n");
        }
        out.push_str(&format!("{}  ", 9 - row));
        for col in 0..9u8 {
            if col == 3 || col == 6 {
                out.push_str("| ");
            }
            let m = Move::from_grid(col, row).expect("grid coordinates are in range");
            let cell = match pos.mark_at(m) {
                Some(p) if Some(m) == last => {
                    style.paint(super::LAST, &p.to_char().to_ascii_uppercase().to_string())
                }
                Some(Player::X) => style.paint(super::X_MARK, "x"),
                Some(Player::O) => style.paint(super::O_MARK, "o"),
                None if legal >> m.bit() & 1 == 1 => style.paint(super::LEGAL, "*"),
                None => ".".to_string(),
            };
            out.push_str(&cell);
            out.push(' ');
        }
        out.push_str(&format!(" {}\n", 9 - row));
    }
    out.push_str("    a b c   d e f   g h i\n");
    out
}

/// One line per fact: FEN, side to move, last move, where to play, the
/// small boards won, and the game's status.
pub fn summary(pos: &Position) -> String {
    let mut out = format!("fen {pos}\n");
    let won = |p: Player| -> String {
        let boards: Vec<&str> = (0..9u8)
            .filter(|&b| pos.won_boards(p) >> b & 1 == 1)
            .map(board_name)
            .collect();
        if boards.is_empty() {
            "none".into()
        } else {
            boards.join(", ")
        }
    };
    match pos.outcome() {
        None => {
            out.push_str(&format!("to move: {}\n", pos.side_to_move()));
            if let Some(m) = pos.last_move() {
                out.push_str(&format!("last move: {m}\n"));
            }
            match pos.target_board() {
                Some(b) => out.push_str(&format!("play on: the {} board\n", board_name(b))),
                None => out.push_str("play on: any open board\n"),
            }
        }
        Some(Outcome::Win(p)) => out.push_str(&format!("result: {p} won\n")),
        Some(Outcome::Draw) => out.push_str("result: draw\n"),
    }
    out.push_str(&format!("boards won by x: {}\n", won(Player::X)));
    out.push_str(&format!("boards won by o: {}\n", won(Player::O)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_diagram() {
        let d = diagram(&Position::startpos(), Style::default());
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines.len(), 13);
        assert_eq!(lines[1], "9  * * * | * * * | * * *  9");
        assert!(!d.contains('\x1b'));
    }

    #[test]
    fn last_move_and_targets() {
        let pos: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
        let d = diagram(&pos, Style::default());
        assert!(d.contains("5  . . . | * X * | . . .  5"), "{d}");
        let s = summary(&pos);
        assert!(s.contains("to move: o"));
        assert!(s.contains("last move: e5"));
        assert!(s.contains("play on: the centre board"));
    }

    #[test]
    fn colours_only_when_asked() {
        let pos: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
        assert!(
            diagram(
                &pos,
                Style {
                    color: true,
                    live: false
                }
            )
            .contains('\x1b')
        );
    }
}
