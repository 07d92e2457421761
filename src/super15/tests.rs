//! Tests of the rules of "Super 1 al 5": hand-built positions for every
//! rule, the notation's errors, and random games checked against a second,
//! simple move generator written here.

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use super::notation::{FenError, MovesError, STARTPOS_FEN, play_moves};
use super::*;
use crate::game::Game;

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

/// A position from pieces like `("e2", "x3")` or `("a1", "X1(12)")`,
/// written as text and read back (so the reader is exercised too).
fn setup(pieces: &[(&str, &str)], side: &str, quiet: u32, fullmove: u32) -> Position {
    let mut grid = vec![vec![".".to_string(); FILES as usize]; RANKS as usize];
    for &(cell, piece) in pieces {
        let s = sq(cell);
        grid[s.rank() as usize][s.file() as usize] = piece.to_string();
    }
    let ranks: Vec<String> = grid.iter().rev().map(|rank| rank.concat()).collect();
    let fen = format!("{} {side} {quiet} {fullmove}", ranks.join("/"));
    fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn piece(pos: &Position, cell: &str) -> Option<Piece> {
    pos.piece_at(sq(cell))
}

/// The legal moves from one cell, as text, sorted.
fn moves_from(pos: &Position, cell: &str) -> Vec<String> {
    let mut moves: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from() == sq(cell))
        .map(|m| m.to().to_string())
        .collect();
    moves.sort();
    moves
}

fn all_squares() -> impl Iterator<Item = Square> {
    (0..CELLS as u8).map(|i| Square::from_index(i).unwrap())
}

#[test]
fn geometry() {
    assert_eq!(std::mem::size_of::<Move>(), 2);
    assert_eq!(START_COUNTS, [0, 4, 4, 4, 2, 2]);
    let central: Vec<String> = all_squares()
        .filter(|s| s.is_central())
        .map(|s| s.to_string())
        .collect();
    assert_eq!(central, ["e4", "f4", "e5", "f5"]);
    // The bound behind MAX_MOVES: no cell sees more than 30 cells.
    let most = (0..CELLS)
        .map(|c| RAYS[c].iter().map(|r| r.len as usize).sum::<usize>())
        .max();
    assert_eq!(most, Some(30));
    assert_eq!(MAX_MOVES, 16 * 30);
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("j8").index(), 79);
    assert_eq!(line_between(0, 77).count_ones(), 7, "a1 to h8");
    assert_eq!(line_between(0, 21), 0, "b3 is on no line from a1");
}

#[test]
fn start_position() {
    let pos = Position::startpos();
    assert_eq!(pos.to_string(), STARTPOS_FEN);
    assert!(STARTPOS_FEN.parse::<Position>().unwrap() == pos);
    for p in [Player::X, Player::O] {
        assert_eq!(pos.count(p), 16);
        assert_eq!(pos.value(p), TOTAL_VALUE / 2);
    }
    // Each side is the other turned half a turn.
    for s in all_squares() {
        let turned = Square::new(9 - s.file(), 7 - s.rank()).unwrap();
        let (a, b) = (pos.piece_at(s), pos.piece_at(turned));
        assert_eq!(
            a.map(|p| (p.owner.opponent(), p.number)),
            b.map(|p| (p.owner, p.number))
        );
    }
    assert_eq!(pos.side_to_move(), Player::X);
    assert_eq!(pos.outcome(), None);
}

#[test]
fn perft_from_the_start() {
    let pos = Position::startpos();
    assert_eq!(perft(&pos, 0), 1);
    assert_eq!(perft(&pos, 1), 44);
    assert_eq!(perft(&pos, 2), 1_934);
    assert_eq!(perft(&pos, 3), 105_584);
    assert_eq!(perft(&pos, 3), naive_perft(&pos, 3));
}

#[test]
fn capture_at_full_range() {
    let pos = setup(
        &[
            ("a1", "x5"),
            ("b2", "x1"),
            ("h1", "x2"),
            ("j1", "x1"),
            ("a6", "o1"), // 5 cells up from a1
            ("f1", "o2"), // 5 cells right from a1
            ("c3", "o1"), // behind b2
            ("h4", "o1"), // 3 cells up from h1
        ],
        "x",
        0,
        10,
    );
    assert_eq!(
        moves_from(&pos, "a1"),
        ["a2", "a3", "a4", "a5", "a6", "b1", "c1", "d1", "e1", "f1"]
    );
    assert!(pos.is_capture(mv("a1a6")) && pos.is_capture(mv("a1f1")));
    let blocked = PlayError::Unreachable {
        from: sq("a1"),
        to: sq("c3"),
    };
    assert_eq!(pos.check(mv("a1c3")), Err(blocked));
    assert!(matches!(
        pos.check(mv("a1a7")),
        Err(PlayError::Unreachable { .. })
    ));
    assert!(matches!(
        pos.check(mv("h1h4")),
        Err(PlayError::Unreachable { .. })
    ));
    assert!(pos.is_legal(mv("b2c3")));
    assert_eq!(
        pos.check(mv("a6a5")),
        Err(PlayError::NotYourPiece { square: sq("a6") })
    );

    let mut after = pos;
    after.play(mv("a1a6"));
    assert_eq!(piece(&after, "a1"), None);
    let taker = piece(&after, "a6").unwrap();
    assert_eq!((taker.owner, taker.number, taker.points), (Player::X, 5, 1));
    assert_eq!(after.count(Player::O), 3);
    assert_eq!(after.quiet_plies(), 0);
    assert_eq!(after.side_to_move(), Player::O);
    assert_eq!(after.value(Player::X) + after.value(Player::O), 9 + 5);
}

#[test]
fn points_make_a_super() {
    let pos = setup(
        &[
            ("c3", "x3(7)"),
            ("i3", "x3(6)"),
            ("j1", "x1"),
            ("c5", "o3"),
            ("i6", "o3"),
            ("a8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        0,
        10,
    );
    // 6 + 3 = 9 points: still numbered 3.
    let mut nine = pos;
    nine.play(mv("i3i6"));
    assert!(!piece(&nine, "i6").unwrap().is_super());
    assert!(nine.to_string().contains("x3(9)"));

    // 7 + 3 = 10 points: super, written in upper case, and it moves
    // without a limit of cells (passing over the central cells).
    let mut pos = pos;
    pos.play(mv("c3c5"));
    let taker = piece(&pos, "c5").unwrap();
    assert!(taker.is_super());
    assert_eq!(taker.points, 10);
    assert!(pos.to_string().contains("X3(10)"));
    pos.play(mv("a8a7"));
    assert!(pos.is_legal(mv("c5j5")));
    assert!(pos.is_legal(mv("c5c8")));
    assert!(pos.is_legal(mv("c5a3")));
    assert_eq!(
        pos.check(mv("c5e5")),
        Err(PlayError::Central { square: sq("e5") })
    );
}

#[test]
fn super_captures_the_whole_line() {
    let pos = setup(
        &[
            ("a1", "X1(10)"),
            ("h1", "x1"),
            ("c1", "o2"),
            ("f1", "o3(1)"),
            ("j1", "o1"), // beyond light's own piece
            ("i8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        0,
        10,
    );
    // Right: only the last piece of the line; up: every cell; the diagonal:
    // every cell but the central e5.
    let mut expected: Vec<&str> = vec![
        "f1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "b2", "c3", "d4", "f6", "g7", "h8",
    ];
    expected.sort();
    assert_eq!(moves_from(&pos, "a1"), expected);
    for short in ["a1b1", "a1c1", "a1d1", "a1g1"] {
        assert_eq!(
            pos.check(mv(short)),
            Err(PlayError::SuperStopsOnLast { stop: sq("f1") }),
            "{short}"
        );
    }
    let mut after = pos;
    after.play(mv("a1f1"));
    assert_eq!(piece(&after, "c1"), None);
    assert_eq!(piece(&after, "f1").unwrap().points, 10 + 2 + 3 + 1);
    assert_eq!(piece(&after, "j1").unwrap().owner, Player::O);
    assert_eq!(after.count(Player::O), 3);

    // Along a diagonal, over the central e5.
    let pos = setup(
        &[
            ("b2", "X2(10)"),
            ("j1", "x1"),
            ("d4", "o1"),
            ("f6", "o2"),
            ("a8", "o1"),
        ],
        "x",
        0,
        10,
    );
    assert_eq!(
        pos.check(mv("b2d4")),
        Err(PlayError::SuperStopsOnLast { stop: sq("f6") })
    );
    let mut after = pos;
    after.play(mv("b2f6"));
    assert_eq!(
        (piece(&after, "d4"), piece(&after, "f6").unwrap().points),
        (None, 13)
    );
}

#[test]
fn a_piece_that_captures_a_super_becomes_super() {
    let mut pos = setup(
        &[
            ("a1", "x1"),
            ("j1", "x1"),
            ("a2", "O2(12)"),
            ("i8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        0,
        10,
    );
    assert!(!piece(&pos, "a1").unwrap().is_super());
    pos.play(mv("a1a2"));
    let taker = piece(&pos, "a2").unwrap();
    assert_eq!(
        (taker.number, taker.points, taker.is_super()),
        (1, 14, true)
    );
}

#[test]
fn no_piece_stops_on_a_central_cell() {
    let pos = setup(
        &[
            ("e3", "x3"),
            ("c2", "X1(10)"),
            ("a1", "x2"),
            ("a8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        0,
        10,
    );
    for central in ["e3e4", "e3e5", "e3f4", "c2e4", "c2f5"] {
        assert!(
            matches!(pos.check(mv(central)), Err(PlayError::Central { .. })),
            "{central}"
        );
    }
    // Passing over them is allowed, for a super piece too.
    for over in ["e3e6", "e3g5", "c2g6", "c2i8"] {
        assert!(pos.is_legal(mv(over)), "{over}");
    }
    let on_e5 = "........../........../........../....x1...../\
                 ........../........../........../o1o1.......x1 x 0 5";
    assert_eq!(
        on_e5.parse::<Position>().err(),
        Some(FenError::Central { square: sq("e5") })
    );
}

#[test]
fn one_piece_left_loses() {
    let pos = setup(
        &[("a1", "x1"), ("b1", "x1"), ("a2", "o1"), ("h8", "o1")],
        "x",
        0,
        10,
    );
    assert_eq!(pos.winning_move(), Some(mv("a1a2")));
    let mut after = pos;
    after.play(mv("a1a2"));
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));
    assert!(after.legal_moves().is_empty());
    assert_eq!(after.count_moves(), 0);
    assert_eq!(after.check(mv("h8h7")), Err(PlayError::GameOver));
    assert_eq!(after.winning_move(), None);
    assert_eq!(perft(&after, 2), 0);

    // A super piece takes three of four in one move.
    let four = [
        ("a1", "X1(10)"),
        ("j1", "x1"),
        ("a3", "o1"),
        ("a5", "o2"),
        ("a8", "o1"),
        ("j8", "o1"),
    ];
    let pos = setup(&four, "x", 0, 10);
    assert_eq!(pos.winning_move(), Some(mv("a1a8")));
    let mut after = pos;
    after.play(mv("a1a8"));
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));
    assert_eq!(after.count(Player::O), 1);
    // With a fifth piece elsewhere it is only a good capture.
    let mut five = four.to_vec();
    five.push(("i8", "o1"));
    assert_eq!(setup(&five, "x", 0, 10).winning_move(), None);
    // A line holding every piece leaves none.
    let pos = setup(&four[..5], "x", 0, 10);
    let mut after = pos;
    after.play(mv("a1a8"));
    assert_eq!(after.count(Player::O), 0);
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));

    // A position read with one piece for the side to move is over.
    let pos = setup(&[("a1", "x1"), ("b1", "x1"), ("h8", "o1")], "o", 0, 10);
    assert_eq!(pos.outcome(), Some(Outcome::Win(Player::X)));
}

#[test]
fn few_pieces_end_by_value() {
    let three = |dark: &'static str, quiet: u32| {
        setup(
            &[
                ("a1", "x1"),
                ("c1", "x1"),
                ("e1", "x3"),
                ("a8", "o1"),
                ("c8", "o1"),
                ("j8", dark),
            ],
            "x",
            quiet,
            20,
        )
    };
    // Light 5 against dark 2 + the piece on j8.
    for (dark, result) in [
        ("o2", Outcome::Win(Player::X)),
        ("o3", Outcome::Draw),
        ("o4", Outcome::Win(Player::O)),
    ] {
        let pos = three(dark, FEW_PIECES_PLIES as u32 - 1);
        assert_eq!(pos.outcome(), None);
        let mut after = pos;
        after.play(mv("a1a2"));
        assert_eq!(after.outcome(), Some(result), "{dark}");
        let wins = result == Outcome::Win(Player::X);
        assert_eq!(pos.winning_move().is_some(), wins, "{dark}");
        // One ply earlier nothing ends.
        let mut early = three(dark, FEW_PIECES_PLIES as u32 - 2);
        early.play(mv("a1a2"));
        assert_eq!(early.outcome(), None);
        assert_eq!(
            three(dark, FEW_PIECES_PLIES as u32 - 2).winning_move(),
            None
        );
    }
    // Unequal or larger numbers of pieces go on.
    let unequal = setup(
        &[
            ("a1", "x1"),
            ("c1", "x1"),
            ("e1", "x3"),
            ("a8", "o1"),
            ("c8", "o1"),
        ],
        "x",
        30,
        20,
    );
    assert_eq!(unequal.outcome(), None);
    let four = setup(
        &[
            ("a1", "x1"),
            ("b1", "x1"),
            ("c1", "x1"),
            ("e1", "x3"),
            ("a8", "o1"),
            ("b8", "o1"),
            ("c8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        30,
        20,
    );
    assert_eq!(four.outcome(), None);
}

#[test]
fn the_ply_limit_ends_every_game() {
    let fullmove = PLY_LIMIT as u32 / 2; // o to move makes ply 299
    let pos = setup(
        &[("a1", "x5"), ("b1", "x1"), ("i8", "o3"), ("j8", "o1")],
        "o",
        0,
        fullmove,
    );
    assert_eq!(pos.ply(), PLY_LIMIT as u32 - 1);
    assert_eq!(pos.outcome(), None);
    assert_eq!(pos.winning_move(), None, "dark is behind in value");
    let mut after = pos;
    after.play(mv("j8j7"));
    assert_eq!(after.ply(), PLY_LIMIT as u32);
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));

    let ahead = setup(
        &[("a1", "x1"), ("b1", "x1"), ("i8", "o5"), ("j8", "o1")],
        "o",
        0,
        fullmove,
    );
    let m = ahead.winning_move().unwrap();
    let mut after = ahead;
    after.play(m);
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::O)));
}

/// A legal position with 260 legal moves: more than the 255 children a
/// search node held when this game was added.
#[test]
fn more_than_255_moves() {
    let fen = "....X1(10)...../..x3....X1(10)../x2....x4...x2/...x4....x3./\
               .x3....X1(10).../x2...x5....x3/..x2....X1(10)../o1....x5..o1. x 0 6";
    let pos: Position = fen.parse().unwrap();
    assert_eq!(pos.value(Player::X) + pos.value(Player::O), TOTAL_VALUE);
    assert_eq!(pos.legal_moves().len(), 260);
    assert!(pos.legal_moves().len() <= <Position as Game>::MAX_MOVES);
}

#[test]
fn capture_first_playouts_capture() {
    // One capture among many moves, and no win: always played.
    let pos = setup(
        &[
            ("a1", "x5"),
            ("j1", "x5"),
            ("a6", "o1"),
            ("h8", "o1"),
            ("j8", "o1"),
        ],
        "x",
        0,
        10,
    );
    assert_eq!(pos.winning_move(), None);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for _ in 0..20 {
        let mut after = pos;
        assert!(after.play_winning_or_random(&mut rng));
        assert_eq!(after.count(Player::O), 2);
    }
    // Uniform random moves stay uniform.
    let captures = (0..400)
        .filter(|_| pos.random_move(&mut rng) == Some(mv("a1a6")))
        .count();
    assert!(captures < 100, "{captures}");
}

#[test]
fn playouts_finish() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for _ in 0..50 {
        let end = Position::startpos().random_playout(&mut rng);
        assert!(end.outcome().is_some());
        assert!(end.ply() <= PLY_LIMIT as u32);
        let mut pos = Position::startpos();
        let mut plies = 0;
        while pos.play_winning_or_random(&mut rng) {
            plies += 1;
        }
        assert!(pos.outcome().is_some());
        assert_eq!(plies, pos.ply());
    }
}

#[test]
fn moves_and_cells_as_text() {
    for s in all_squares() {
        assert_eq!(s.to_string().parse::<Square>(), Ok(s));
    }
    assert_eq!(mv("e2e3").to_string(), "e2e3");
    assert_eq!(mv("j8a1"), Move::new(sq("j8"), sq("a1")));
    for bad in ["", "e", "e0", "e9", "k1", "E2", "e22", " e2"] {
        let err = bad.parse::<Square>().unwrap_err();
        assert!(err.to_string().contains("is not a cell"), "{bad}");
    }
    for bad in ["", "e2", "e2e9", "k1a1", "e2e3x", "E2E3", "e2-e3"] {
        let err = bad.parse::<Move>().unwrap_err();
        assert!(err.to_string().contains("is not a move"), "{bad}");
    }
    let long = "e".repeat(100);
    let err = long.parse::<Move>().unwrap_err().to_string();
    assert!(err.contains(&format!("'{}...'", "e".repeat(40))), "{err}");
}

#[test]
fn every_fen_error() {
    use FenError::*;
    let err = |s: &str| s.parse::<Position>().expect_err(s);
    let start: Vec<&str> = STARTPOS_FEN.split(' ').collect();
    let with_board = |board: &str| format!("{board} x 0 1");
    let with_rank1 = |rank1: &str| {
        let mut ranks: Vec<&str> = start[0].split('/').collect();
        ranks[7] = rank1;
        with_board(&ranks.join("/"))
    };
    let six_empty = "........../".repeat(6);
    let two_each = |rank1: &str| format!("o1o1......../{six_empty}{rank1}");

    assert_eq!(err(""), FieldCount(0));
    assert_eq!(err(&STARTPOS_FEN.replace(" 1", "")), FieldCount(3));
    assert_eq!(err(&with_board("........../..........")), RankCount(2));
    assert_eq!(
        err(&with_rank1(".x2x3x4x5x5x4x3x2y")),
        BadChar { rank: 1, ch: 'y' }
    );
    assert_eq!(
        err(&with_rank1(".x2x3x4x5x5x4x3x2x")),
        BadNumber { rank: 1 }
    );
    assert_eq!(
        err(&with_rank1(".x2x3x4x5x5x4x3x6.")),
        BadNumber { rank: 1 }
    );
    for points in ["x2()", "x2(a)", "x2(84)", "x2(3", "x2(999)"] {
        let rank = format!(".{points}x3x4x5x5x4x3x2.");
        assert_eq!(err(&with_rank1(&rank)), BadPoints { rank: 1 }, "{points}");
    }
    assert_eq!(
        err(&with_rank1(".x2x3x4x5x5x4x3x2..")),
        RankTooLong { rank: 1 }
    );
    assert_eq!(
        err(&with_rank1(".x2x3x4x5x5x4x3x2")),
        RankTooShort { rank: 1 }
    );
    assert_eq!(
        err(&with_rank1(".x2(3)x3x4x5x5x4x3x2.")),
        Value { found: 87 }
    );
    assert_eq!(
        err(&with_rank1(".X2(3)x3x4x5x5x4x3x2.")),
        SuperMismatch { square: sq("b1") }
    );
    assert_eq!(
        err(&with_board(&two_each("x1x1x1x1x1....."))),
        TooMany {
            player: Player::X,
            number: 1,
            count: 5,
            start: 4
        }
    );
    assert_eq!(
        err(&with_board(&two_each("x1x1(12)........"))).to_string(),
        "the piece on b1 is super exactly when it has 10 points or more (upper case)"
    );
    assert_eq!(
        err(&format!(
            "{} x 0 10",
            two_each("x1x1........").replace("o1o1", "o1.")
        )),
        MoverLost(Player::O)
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace(" x ", " y ")),
        BadSide("y".into())
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace(" 0 1", " -1 1")),
        BadQuiet("-1".into())
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace(" 0 1", " 0 0")),
        BadFullmove("0".into())
    );
    // Regression (hostile input round 2): a leading `+` was taken.
    assert_eq!(
        err(&STARTPOS_FEN.replace(" 0 1", " +0 1")),
        BadQuiet("+0".into())
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace(" 0 1", " 0 +1")),
        BadFullmove("+1".into())
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace(" 0 1", " 3 1")),
        QuietPastPly { quiet: 3, ply: 0 }
    );
    assert_eq!(
        err(&STARTPOS_FEN.replace("x 0 1", "o 0 151")),
        PastLimit { fullmove: 151 }
    );
    // Ply 300: read, and over (equal values).
    let last: Position = STARTPOS_FEN.replace("x 0 1", "x 0 151").parse().unwrap();
    assert_eq!(last.outcome(), Some(Outcome::Draw));
    assert_eq!(
        err(&STARTPOS_FEN.replace("x 0 1", "x 0 99999999999")),
        BadFullmove("99999999999".into())
    );
    // Echoed input is cut.
    let long = STARTPOS_FEN.replace(" x ", &format!(" {} ", "y".repeat(100)));
    assert_eq!(
        err(&long).to_string(),
        format!("side to move '{}...' is neither x nor o", "y".repeat(40))
    );
}

#[test]
fn play_moves_is_all_or_nothing() {
    let start = Position::startpos();
    let pos = play_moves(&start, ["e2h5", "e7b4"]).unwrap();
    assert!(pos.to_string().ends_with(" x 2 2"));
    let err = play_moves(&start, ["e2h5", "e7e4"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "move 2 (e7e4) is illegal: no piece may stop on the central cell e4"
    );
    assert!(matches!(
        play_moves(&start, ["e2h5", "zz"]),
        Err(MovesError::Parse(_))
    ));
    let err = play_moves(&start, ["b1b2"]).unwrap_err().to_string();
    assert_eq!(
        err,
        "move 1 (b1b2) is illegal: the piece on b1 cannot reach b2 (not on a line, too far, blocked, or its own piece)"
    );
}

/// The worked examples of docs/super-1-al-5.md (in its code blocks): each
/// `position:` is read,
/// each `move:` tried, and the `gives:`, `error:` and `result:` lines after
/// it must match.
#[test]
fn doc_examples() {
    const DOC: &str = include_str!("../../docs/super-1-al-5.md");
    let mut pos = None::<Position>;
    let mut last = None::<Result<Position, PlayError>>;
    let mut checked = 0;
    let mut in_block = false;
    for (n, line) in DOC.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let Some((key, value)) = line.split_once(':').filter(|_| in_block) else {
            continue;
        };
        let value = value.trim();
        let ctx = format!("docs line {}: {line}", n + 1);
        let current = || pos.unwrap_or_else(|| panic!("{ctx}: no position yet"));
        match key {
            "position" => pos = Some(value.parse().unwrap_or_else(|e| panic!("{ctx}: {e}"))),
            "move" => {
                let mut after = current();
                last = Some(after.try_play(mv(value)).map(|()| after));
            }
            "gives" => {
                let after = last.take().expect(&ctx).expect(&ctx);
                assert_eq!(after.to_string(), value, "{ctx}");
                pos = Some(after);
            }
            "error" => {
                let err = last.take().expect(&ctx).expect_err(&ctx);
                assert_eq!(err.to_string(), value, "{ctx}");
            }
            "result" => {
                let result = match current().outcome() {
                    None => "none",
                    Some(Outcome::Win(Player::X)) => "x wins",
                    Some(Outcome::Win(Player::O)) => "o wins",
                    Some(Outcome::Draw) => "draw",
                };
                assert_eq!(result, value, "{ctx}");
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
    assert!(
        DOC.contains(STARTPOS_FEN),
        "the doc shows the start position"
    );
}

// ---------------------------------------------------------------------------
// A second, simple reading of the rules, cell by cell, to check the
// bitboards against.

/// The legal moves, each with the cells it captures.
fn naive_moves(pos: &Position) -> Vec<(Move, Vec<Square>)> {
    let mut moves = Vec::new();
    if pos.outcome().is_some() {
        return moves;
    }
    let me = pos.side_to_move();
    let cell = |f: i32, r: i32| {
        if (0..10).contains(&f) && (0..8).contains(&r) {
            Square::new(f as u8, r as u8)
        } else {
            None
        }
    };
    for from in all_squares() {
        let Some(p) = pos.piece_at(from) else {
            continue;
        };
        if p.owner != me {
            continue;
        }
        let (f, r) = (from.file() as i32, from.rank() as i32);
        for (df, dr) in [
            (0, 1),
            (1, 1),
            (1, 0),
            (1, -1),
            (0, -1),
            (-1, -1),
            (-1, 0),
            (-1, 1),
        ] {
            // The cells up to the edge or the first own piece.
            let mut path = Vec::new();
            let mut k = 1;
            while let Some(s) = cell(f + k * df, r + k * dr) {
                if pos.piece_at(s).is_some_and(|q| q.owner == me) {
                    break;
                }
                path.push(s);
                k += 1;
            }
            let theirs = |s: &Square| pos.piece_at(*s).is_some();
            if p.points >= 10 {
                let taken: Vec<Square> = path.iter().copied().filter(theirs).collect();
                match taken.last() {
                    Some(&last) => moves.push((Move::new(from, last), taken)),
                    None => {
                        for &s in path.iter().filter(|s| !s.is_central()) {
                            moves.push((Move::new(from, s), vec![]));
                        }
                    }
                }
            } else {
                for &s in path.iter().take(p.number as usize) {
                    if theirs(&s) {
                        moves.push((Move::new(from, s), vec![s]));
                        break;
                    }
                    if !s.is_central() {
                        moves.push((Move::new(from, s), vec![]));
                    }
                }
            }
        }
    }
    moves
}

fn naive_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    naive_moves(pos)
        .iter()
        .map(|(m, _)| {
            let mut child = *pos;
            child.play(*m);
            naive_perft(&child, depth - 1)
        })
        .sum()
}

/// Checks `after`, the position after `m` (capturing `taken`) from `before`,
/// cell by cell and against the end rules.
fn check_play(before: &Position, m: Move, taken: &[Square], after: &Position) {
    let ctx = || format!("{before} {m}");
    let mover = before.side_to_move();
    let moving = before.piece_at(m.from()).unwrap();
    let gained: u32 = taken
        .iter()
        .map(|&s| before.piece_at(s).unwrap().value())
        .sum();
    for s in all_squares() {
        let expected = if s == m.from() || taken.contains(&s) && s != m.to() {
            None
        } else if s == m.to() {
            Some(Piece {
                points: moving.points + gained as u8,
                ..moving
            })
        } else {
            before.piece_at(s)
        };
        assert_eq!(after.piece_at(s), expected, "{} at {s}", ctx());
    }
    assert_eq!(after.side_to_move(), mover.opponent(), "{}", ctx());
    assert_eq!(after.ply(), before.ply() + 1, "{}", ctx());
    let quiet = if taken.is_empty() {
        before.quiet_plies() + 1
    } else {
        0
    };
    assert_eq!(after.quiet_plies(), quiet, "{}", ctx());
    let value = |p: Player| -> u32 {
        all_squares()
            .filter_map(|s| after.piece_at(s))
            .filter(|q| q.owner == p)
            .map(|q| q.value())
            .sum()
    };
    let (left, kept) = (after.count(mover.opponent()), after.count(mover));
    let expected = if left <= 1 {
        Some(Outcome::Win(mover))
    } else if (left == kept && left <= 3 && quiet >= 20) || after.ply() >= 300 {
        Some(match value(Player::X).cmp(&value(Player::O)) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::X),
            std::cmp::Ordering::Less => Outcome::Win(Player::O),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    } else {
        None
    };
    assert_eq!(after.outcome(), expected, "{}", ctx());
}

/// Plays random games (uniform, and capture-first to reach supers and the
/// ends sooner) and checks every position against the simple reading:
/// the same legal moves, the same result of each move, the same winning
/// moves, and the text read back.
#[test]
fn random_games_agree_with_a_simple_generator() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let mut seen_super = 0;
    let mut seen_endings = [0; 4];
    for game in 0..160 {
        let capture_first = game % 4 != 0;
        let mut pos = Position::startpos();
        loop {
            let mut naive = naive_moves(&pos);
            naive.sort_by_key(|(m, _)| (m.from(), m.to()));
            let mut legal: Vec<Move> = pos.legal_moves().to_vec();
            legal.sort_by_key(|m| (m.from(), m.to()));
            let naive_only: Vec<Move> = naive.iter().map(|(m, _)| *m).collect();
            assert_eq!(legal, naive_only, "{pos}");
            assert_eq!(pos.count_moves() as usize, legal.len());
            assert!(pos.to_string().parse::<Position>().unwrap() == pos, "{pos}");
            assert!(pos.value(Player::X) + pos.value(Player::O) == TOTAL_VALUE);
            if pos.outcome().is_some() {
                break;
            }
            assert!(
                !legal.is_empty(),
                "a player with pieces can always move: {pos}"
            );
            // Every move when the game is short, else the one played.
            let check_all = capture_first || pos.ply().is_multiple_of(16);
            let mut wins = Vec::new();
            for (m, taken) in &naive {
                assert!(pos.is_legal(*m));
                assert_eq!(pos.is_capture(*m), !taken.is_empty());
                if check_all {
                    let mut after = pos;
                    after.play_unchecked(*m);
                    check_play(&pos, *m, taken, &after);
                    if after.outcome() == Some(Outcome::Win(pos.side_to_move())) {
                        wins.push(*m);
                    }
                }
            }
            if check_all {
                match pos.winning_move() {
                    Some(m) => assert!(wins.contains(&m), "{pos}: {m}"),
                    None => assert!(wins.is_empty(), "{pos}: missed {wins:?}"),
                }
            }
            let m = if capture_first {
                pos.capture_first_move(&mut rng)
            } else {
                pos.random_move(&mut rng)
            }
            .unwrap();
            let taken = &naive.iter().find(|(n, _)| *n == m).unwrap().1;
            let mut after = pos;
            after.play(m);
            check_play(&pos, m, taken, &after);
            pos = after;
            if all_squares().any(|s| pos.piece_at(s).is_some_and(|p| p.is_super())) {
                seen_super += 1;
            }
        }
        let reason = if pos.ply() >= PLY_LIMIT as u32 {
            0
        } else if pos.count(pos.side_to_move()) > 1 {
            1
        } else if pos.count(pos.side_to_move()) == 1 {
            2
        } else {
            3
        };
        seen_endings[reason] += 1;
    }
    assert!(seen_super > 100, "{seen_super}");
    assert!(seen_endings[..3].iter().all(|&n| n > 0), "{seen_endings:?}");
}

// ---------------------------------------------------------------------------

/// The figures in docs/super-1-al-5.md. Run:
/// `cargo test --lib super15::tests::figures -- --ignored --nocapture`
#[test]
#[ignore]
fn figures() {
    let start = Position::startpos();
    for depth in 1..=4 {
        let t = std::time::Instant::now();
        let n = perft(&start, depth);
        let s = t.elapsed().as_secs_f64();
        println!(
            "perft {depth}: {n} in {s:.3} s ({:.1} M/s)",
            n as f64 / s / 1e6
        );
    }
    const GAMES: usize = 10_000;
    for capture_first in [false, true] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut plies = Vec::with_capacity(GAMES);
        let mut results = [0; 3];
        let mut endings = [0; 3]; // one piece left, few pieces, ply limit
        let t = std::time::Instant::now();
        for _ in 0..GAMES {
            let end = if capture_first {
                start.capture_first_playout(&mut rng)
            } else {
                start.random_playout(&mut rng)
            };
            plies.push(end.ply());
            results[match end.outcome() {
                Some(Outcome::Win(Player::X)) => 0,
                Some(Outcome::Win(Player::O)) => 1,
                _ => 2,
            }] += 1;
            endings[if end.count(end.side_to_move()) <= 1 {
                0
            } else if end.ply() < PLY_LIMIT as u32 {
                1
            } else {
                2
            }] += 1;
        }
        let s = t.elapsed().as_secs_f64();
        plies.sort();
        let mean = plies.iter().sum::<u32>() as f64 / GAMES as f64;
        println!(
            "{}: {GAMES} games, plies mean {mean:.1} median {} min {} max {}; x/o/draw {results:?}; \
             one piece left / few pieces / ply limit {endings:?}; {:.0} games/s",
            if capture_first {
                "capture-first"
            } else {
                "uniform random"
            },
            plies[GAMES / 2],
            plies[0],
            plies[GAMES - 1],
            GAMES as f64 / s,
        );
    }
    // The two playout policies as players, each side half the time.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut score = 0.0;
    let games = 2_000;
    for g in 0..games {
        let heuristic = if g % 2 == 0 { Player::X } else { Player::O };
        let mut pos = start;
        while pos.outcome().is_none() {
            let m = if pos.side_to_move() == heuristic {
                pos.capture_first_move(&mut rng)
            } else {
                pos.random_move(&mut rng)
            };
            pos.play(m.unwrap());
        }
        score += pos.outcome().unwrap().verdict_for(heuristic).score();
    }
    println!("capture-first against uniform random: {score} / {games}");
}
