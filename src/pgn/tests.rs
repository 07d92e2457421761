use super::typed::variant_name;
use super::*;
use crate::game::{GameKind, Notation};
use crate::rules::Position;
use crate::super15;

/// The game with every line number cleared, to compare what was written
/// with what was read.
fn unlined(mut game: PgnGame) -> PgnGame {
    game.line = 0;
    for mv in &mut game.moves {
        mv.line = 0;
    }
    game
}

fn read_one(text: &str) -> PgnGame {
    let games = read(text, "t.pgn").unwrap();
    assert_eq!(games.len(), 1, "{text}");
    games.into_iter().next().unwrap()
}

/// A game of `G` played by random moves from `start`, with notes of every
/// kind on its moves.
fn random_game<G: Notation>(start: G, seed: u64) -> (Vec<G::Move>, Vec<Annotation>, G) {
    let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(seed);
    let mut pos = start;
    let mut moves = Vec::new();
    while let Some(m) = pos.random_move(&mut rng) {
        pos.play_unchecked(m);
        moves.push(m);
    }
    let notes = [
        Annotation::book(),
        Annotation::note(MoveNote {
            score: Some(Score::Cp(61)),
            depth: Some(8),
            time_ms: Some(100),
        }),
        Annotation::note(MoveNote {
            score: Some(Score::Cp(-1205)),
            depth: None,
            time_ms: Some(12_345),
        }),
        Annotation::note(MoveNote {
            score: Some(Score::Mate(5)),
            depth: Some(12),
            time_ms: Some(0),
        }),
        Annotation::note(MoveNote {
            score: Some(Score::Mate(-3)),
            depth: Some(1),
            time_ms: None,
        }),
        Annotation::note(MoveNote {
            score: Some(Score::Cp(0)),
            depth: Some(0),
            time_ms: Some(7),
        }),
        Annotation::note(MoveNote {
            score: Some(Score::Cp(-5)),
            ..MoveNote::default()
        }),
        Annotation::note(MoveNote {
            time_ms: Some(1_000),
            ..MoveNote::default()
        }),
        Annotation::default(),
        Annotation::default().with_remark("a remark, with a comma"),
    ];
    let mut annotations: Vec<Annotation> = (0..moves.len())
        .map(|i| notes[i % notes.len()].clone())
        .collect();
    if let Some(last) = annotations.last_mut() {
        *last = last.clone().with_remark("the end {of it}");
    }
    (moves, annotations, pos)
}

/// A PGN game of `G` from `start`, with a roster of awkward tags.
fn pgn_game<G: PgnNotation>(start: G, seed: u64) -> (PgnGame, Vec<G::Move>, Vec<Annotation>) {
    let (moves, annotations, end) = random_game(start, seed);
    let mut game = PgnGame::with_roster();
    game.set_tag("Event", r#"a "quoted" \ event \"#);
    game.set_tag("White", "x\\engine");
    game.set_moves(&start, &moves, &annotations);
    game.set_tag("TimeControl", "movetime=100ms");
    game.set_result(PgnResult::from_outcome(end.outcome()));
    game.set_tag("PlyCount", moves.len().to_string());
    (game, moves, annotations)
}

/// Checks that `game` reads back as written and replays to `moves` and
/// `annotations` (a `}` in a comment is written `)`).
fn round_trip<G: PgnNotation>(game: &PgnGame, moves: &[G::Move], annotations: &[Annotation]) {
    let text = game.to_string();
    for line in text.lines().filter(|l| !l.starts_with('[')) {
        assert!(line.len() <= 80, "{line}");
    }
    let back = read_one(&text);
    assert_eq!(back.to_string(), text);
    let mut expected = game.clone();
    if let Some(last) = expected.moves.last_mut() {
        last.comment = last.comment.as_ref().map(|c| c.replace('}', ")"));
    }
    assert_eq!(unlined(back.clone()), expected);
    let replayed = Replayed::<G>::new(&back, "t.pgn").unwrap();
    assert_eq!(replayed.moves, moves);
    let mut annotations = annotations.to_vec();
    if let Some(last) = annotations.last_mut() {
        last.remark = last.remark.as_ref().map(|c| c.replace('}', ")"));
    }
    assert_eq!(replayed.annotations, annotations);
}

#[test]
fn uttt_games_round_trip() {
    for seed in 0..20 {
        let (game, moves, annotations) = pgn_game(Position::startpos(), seed);
        assert_eq!(game.tag("Variant"), Some("Ultimate Tic-Tac-Toe"));
        assert_eq!(game.tag("FEN"), None);
        assert_eq!(game.first, Turn::START);
        round_trip::<Position>(&game, &moves, &annotations);
    }
    let (game, ..) = pgn_game(Position::startpos(), 1);
    let text = game.to_string();
    assert!(
        text.starts_with(
            "[Event \"a \\\"quoted\\\" \\\\ event \\\\\"]\n[Site \"?\"]\n\
             [Date \"????.??.??\"]\n[Round \"?\"]\n[White \"x\\\\engine\"]\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n\n1. "), "{text}");
    assert!(
        text.contains("{book} ") && text.contains(" {+0.61/8 0.100s} "),
        "{text}"
    );
    assert!(text.contains("{-12.05 12.345s}"), "{text}");
    assert!(text.contains("{+M5/12 0.000s}") && text.contains("{-M3/1}"));
    assert!(text.contains("{0.00/0 0.007s}") && text.contains("{-0.05}"));
    assert!(text.contains("{1.000s}") && text.contains("{a remark, with a comma}"));
}

#[test]
fn super15_games_round_trip() {
    for seed in 0..5 {
        let (game, moves, annotations) = pgn_game(super15::Position::startpos(), seed);
        assert_eq!(game.tag("Variant"), Some("Super 1 al 5"));
        assert_eq!(game.kind(), Some(GameKind::Super15));
        round_trip::<super15::Position>(&game, &moves, &annotations);
        // Read as Ultimate Tic-Tac-Toe it is refused for its variant.
        let err = Replayed::<Position>::new(&game, "t.pgn").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.pgn:0: the Variant 'Super 1 al 5' is not Ultimate Tic-Tac-Toe \
             (games: Ultimate Tic-Tac-Toe, Super 1 al 5)"
        );
    }
}

#[test]
fn set_up_positions_with_o_to_move() {
    let start: Position = "9/9/9/9/4x4/9/9/9/9 o 1 e5".parse().unwrap();
    let (game, moves, annotations) = pgn_game(start, 3);
    assert_eq!(game.tag("SetUp"), Some("1"));
    assert_eq!(game.tag("FEN"), Some("9/9/9/9/4x4/9/9/9/9 o 1 e5"));
    assert_eq!(
        game.first,
        Turn {
            number: 1,
            side: Player::O
        }
    );
    let text = game.to_string();
    let movetext = text.split("\n\n").nth(1).unwrap();
    assert!(movetext.starts_with("1... "), "{movetext}");
    // After a comment, o's move number is repeated.
    assert!(movetext.contains("} 2... "), "{movetext}");
    round_trip::<Position>(&game, &moves, &annotations);
    let replayed = Replayed::<Position>::new(&read_one(&text), "t.pgn").unwrap();
    assert!(replayed.set_up);
    assert_eq!(replayed.start, start);
    // A Super 1 al 5 position after x's first move.
    let start = super15::Position::startpos().play_moves(["e2h5"]).unwrap();
    let (game, moves, annotations) = pgn_game(start, 4);
    assert!(game.to_string().contains("\n\n1... "));
    round_trip::<super15::Position>(&game, &moves, &annotations);
}

#[test]
fn movetext_is_numbered_and_wrapped() {
    let mut game = PgnGame::default();
    let start = Position::startpos();
    let moves: Vec<_> = ["e5", "e4", "d2", "c4"]
        .iter()
        .map(|m| Position::parse_move(m).unwrap())
        .collect();
    game.set_moves(&start, &moves, &[]);
    game.set_result(PgnResult::Unknown);
    assert_eq!(
        game.to_string(),
        "[Variant \"Ultimate Tic-Tac-Toe\"]\n[Result \"*\"]\n\n1. e5 e4 2. d2 c4 *\n"
    );
    game.comment = Some("a comment first".into());
    game.moves[1].comment = Some("x".repeat(100));
    let text = game.to_string();
    assert_eq!(
        text.lines().collect::<Vec<_>>()[3..],
        [
            "{a comment first} 1. e5 e4",
            &format!("{{{}}}", "x".repeat(100)),
            "2. d2 c4 *"
        ]
    );
    // Games in one text, a blank line between them.
    let two = write_games(&[game.clone(), game.clone()]);
    assert_eq!(two, format!("{text}\n{text}"));
    let back = read(&two, "t.pgn").unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(back[1].line, text.lines().count() + 2);
    assert_eq!(unlined(back[1].clone()), game);
}

#[test]
fn reads_ordinary_pgn() {
    let text = r#"% an escape line, ignored
; a line comment
[Event "Casual \"game\""]
[Site "C:\\games"]
[White "Ann"]
[Black "Bob"]
[Result "1/2-1/2"]

{Before the first move.} 1.e5! $1 e4?! {Bob thinks} {a second comment is dropped}
2. d2 (2. d1 {a variation (with parens in a comment)} (2. d3 c6) c4) 2... b5 ; to the end
% escape in the movetext
3.e6 $14 1/2-1/2

[Event "second"]
[Variant "uttt"]

1. e5 e4 *
[Event "third, no blank line before it"]
[SetUp "1"]
[FEN "9/9/9/9/4x4/9/9/9/9 o 1 e5"]

12... e4 0-1"#;
    let games = read(text, "t.pgn").unwrap();
    assert_eq!(games.len(), 3);
    let first = &games[0];
    assert_eq!(first.line, 3);
    assert_eq!(first.tag("Event"), Some("Casual \"game\""));
    assert_eq!(first.tag("Site"), Some("C:\\games"));
    assert_eq!(first.comment.as_deref(), Some("Before the first move."));
    let moves: Vec<(&str, Option<&str>, usize)> = first
        .moves
        .iter()
        .map(|m| (m.text.as_str(), m.comment.as_deref(), m.line))
        .collect();
    assert_eq!(
        moves,
        [
            ("e5", None, 9),
            ("e4", Some("Bob thinks"), 9),
            ("d2", None, 10),
            ("b5", None, 10),
            ("e6", None, 12)
        ]
    );
    let nags: Vec<&[u8]> = first.moves.iter().map(|m| &m.nags[..]).collect();
    assert_eq!(nags, [&[1u8, 1][..], &[6], &[], &[], &[14]]);
    assert_eq!(first.result, PgnResult::Draw);
    assert_eq!(first.kind(), Some(GameKind::Uttt));
    let replayed = Replayed::<Position>::new(first, "t.pgn").unwrap();
    assert_eq!(replayed.moves.len(), 5);
    assert_eq!(
        replayed.annotations[1].remark.as_deref(),
        Some("Bob thinks")
    );
    assert_eq!(games[1].line, 14);
    assert_eq!(games[1].result, PgnResult::Unknown);
    assert_eq!(games[2].line, 18);
    assert_eq!(
        games[2].first,
        Turn {
            number: 12,
            side: Player::O
        }
    );
    let third = Replayed::<Position>::new(&games[2], "t.pgn").unwrap();
    assert_eq!(third.end.ply(), 2);
    // Nothing at all, or comments only: no games.
    assert_eq!(read("", "t.pgn").unwrap(), []);
    assert_eq!(read("; nothing\n\n% here\n", "t.pgn").unwrap(), []);
}

#[test]
fn reader_errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "[Event \"a\"\n\n1. e5 *",
            1,
            "the tag is not closed with ']'",
        ),
        ("\n[Event \"a]\n1. e5 *", 2, "the tag's value is not closed"),
        (
            "[Event]\n1. e5 *",
            1,
            "bad tag '[Event]': expected [Name \"value\"]",
        ),
        ("[Event \"a\" b]\n1. e5 *", 1, "bad tag"),
        ("[ \"a\"]\n*", 1, "bad tag"),
        (
            "1. e5 {a\ncomment\n",
            1,
            "the comment opened here is not closed",
        ),
        (
            "1. e5\n(e4 (d4)\n *",
            2,
            "the variation opened here is not closed",
        ),
        ("1. e5 ) *", 1, "')' without '('"),
        ("1. e5 & *", 1, "unexpected '&'"),
        (
            "1. e5 e4\n",
            2,
            "do not end with a result (1-0, 0-1, 1/2-1/2 or *) at the end of the file",
        ),
        (
            "1. e5 e4\n\n[Event \"b\"]\n*",
            3,
            "before the next game's tags",
        ),
        ("[Result \"2-0\"]\n*", 1, "the Result tag '2-0' is not"),
        (
            "[Result \"1-0\"]\n\n1. e5\n0-1",
            4,
            "the Result tag says 1-0 but the moves end with 0-1",
        ),
    ];
    for &(text, line, expected) in cases {
        let err = read(text, "f.pgn").unwrap_err();
        assert_eq!(err.line, line, "{text:?}: {err}");
        assert_eq!(err.file, "f.pgn");
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!("f.pgn:{line}: ")) && shown.contains(expected),
            "{text:?}: {shown}"
        );
    }
    let long = format!("[Event \"a\" {}]\n*", "z".repeat(200));
    let err = read(&long, "f.pgn").unwrap_err().to_string();
    assert!(err.len() < 120, "{err}");
}

#[test]
fn replay_errors_name_the_move() {
    let check = |text: &str, line: usize, expected: &str| {
        let game = read_one(text);
        let err = Replayed::<Position>::new(&game, "f.pgn").unwrap_err();
        assert_eq!(err.line, line, "{text:?}: {err}");
        assert_eq!(err.to_string(), format!("f.pgn:{line}: {expected}"));
    };
    check(
        "1. e5 e4\n2. e0 *",
        2,
        "move 2. e0: 'e0' is not a cell (expected a file a-i and a rank 1-9, like e5)",
    );
    check(
        "1. e5\ne5 *",
        2,
        "move 1... e5 is illegal: the cell is already taken",
    );
    check(
        "[Variant \"Chess\"]\n*",
        1,
        "the Variant 'Chess' is not Ultimate Tic-Tac-Toe (games: Ultimate Tic-Tac-Toe, Super 1 al 5)",
    );
    check("[SetUp \"1\"]\n*", 1, "SetUp \"1\" needs a FEN tag");
    let fen_error = "9/9 x 1 0000".parse::<Position>().unwrap_err();
    check(
        "[FEN \"9/9 x 1 0000\"]\n*",
        1,
        &format!("bad FEN '9/9 x 1 0000': {fen_error}"),
    );
    // A game the rules ended needs their result.
    let (moves, _, end) = random_game(Position::startpos(), 2);
    let mut game = PgnGame::default();
    game.set_moves(&Position::startpos(), &moves, &[]);
    let wrong = match end.outcome() {
        Some(Outcome::Draw) => PgnResult::XWins,
        _ => PgnResult::Draw,
    };
    game.set_result(wrong);
    let text = game.to_string();
    let err = Replayed::<Position>::new(&read_one(&text), "f.pgn").unwrap_err();
    assert_eq!(err.line, text.lines().count());
    assert!(
        err.to_string()
            .contains(&format!("the result is {wrong} but the rules give")),
        "{err}"
    );
    // Before the end any result goes (a game lost on time, adjudicated...).
    game.moves.pop();
    game.set_result(PgnResult::OWins);
    Replayed::<Position>::new(&read_one(&game.to_string()), "f.pgn").unwrap();
}

#[test]
fn nags_read_and_write() {
    let mut game = PgnGame::with_roster();
    let mut mv = PgnMove::new("e5", None);
    mv.nags = vec![4, 18];
    game.moves.push(mv);
    game.moves.push(PgnMove::new("e4", Some("fine".into())));
    let text = game.movetext();
    assert!(text.starts_with("1. e5 $4 $18 e4 {fine}"), "{text}");
    let back = read_one(&game.to_string());
    assert_eq!(back.moves[0].nags, [4, 18]);
    assert_eq!(back.moves[1].nags, [] as [u8; 0]);
    // A NAG out of range (0-255) is skipped.
    assert_eq!(read_one("1. e5 $256 *").moves[0].nags, [] as [u8; 0]);
}

#[test]
fn notes_read_and_write() {
    let cases = [
        ("+0.61/8 0.100s", Some(Score::Cp(61)), Some(8), Some(100)),
        ("-12.05 12.345s", Some(Score::Cp(-1205)), None, Some(12_345)),
        ("+M5/12 0.000s", Some(Score::Mate(5)), Some(12), Some(0)),
        ("-M3", Some(Score::Mate(-3)), None, None),
        ("0.100s", None, None, Some(100)),
    ];
    for (text, score, depth, time_ms) in cases {
        let note = MoveNote {
            score,
            depth,
            time_ms,
        };
        assert_eq!(Annotation::note(note).to_comment().as_deref(), Some(text));
        assert_eq!(Annotation::parse(text), Annotation::note(note), "{text}");
    }
    // Times with fewer decimals, and what is no note.
    assert_eq!(
        Annotation::parse("+1.50/3 0.5s").note,
        MoveNote {
            score: Some(Score::Cp(150)),
            depth: Some(3),
            time_ms: Some(500)
        }
    );
    for remark in [
        "5",
        "great move",
        "+0.61 fast",
        "1.2345s",
        "-0.5s",
        "M",
        "+1.5",
    ] {
        let annotation = Annotation::parse(remark);
        assert_eq!(annotation.remark.as_deref(), Some(remark), "{remark}");
        assert!(annotation.note.is_empty() && !annotation.book, "{remark}");
    }
    assert_eq!(Annotation::parse("book"), Annotation::book());
    assert_eq!(
        Annotation::parse("book, x wins"),
        Annotation::book().with_remark("x wins")
    );
    assert_eq!(Annotation::parse(""), Annotation::default());
    assert_eq!(Annotation::default().to_comment(), None);
}

#[test]
fn notes_from_info_lines() {
    let note = |line| MoveNote::from_info(line);
    assert_eq!(
        note("info depth 6 seldepth 10 multipv 1 score cp 61 wdl 539 96 365 nodes 844 pv d2 c6"),
        Some(MoveNote {
            score: Some(Score::Cp(61)),
            depth: Some(6),
            time_ms: None
        })
    );
    assert_eq!(
        note("info depth 3 score mate -2 pv e5"),
        Some(MoveNote {
            score: Some(Score::Mate(-2)),
            depth: Some(3),
            time_ms: None
        })
    );
    assert_eq!(note("info multipv 2 depth 6 score cp 1"), None);
    assert_eq!(note("info string depth 5 score cp 3"), None);
    assert_eq!(note("info nodes 5"), None);
    assert_eq!(note("bestmove e5"), None);
    assert_eq!(note("info depth x score cp y"), None);
}

#[test]
fn results_and_dates() {
    for result in PgnResult::ALL {
        assert_eq!(PgnResult::parse(result.as_str()), Some(result));
        assert_eq!(PgnResult::from_outcome(result.outcome()), result);
    }
    assert_eq!(PgnResult::parse("1-1"), None);
    assert_eq!(date_from_unix(0), "1970.01.01");
    assert_eq!(date_from_unix(951_782_400), "2000.02.29");
    assert_eq!(date_from_unix(1_738_281_599), "2025.01.30");
    assert_eq!(date_from_unix(4_107_542_400), "2100.03.01");
    assert_eq!(variant_kind("ULTIMATE tic-tac-toe"), Some(GameKind::Uttt));
    assert_eq!(variant_kind("super15"), Some(GameKind::Super15));
    assert_eq!(
        variant_kind(variant_name(GameKind::Super15)),
        Some(GameKind::Super15)
    );
    assert_eq!(variant_kind("chess"), None);
    assert_eq!(
        Turn::after_plies(3),
        Turn {
            number: 2,
            side: Player::O
        }
    );
}

/// Regression (hostile input round 2, P1/P2/P4): PGN text was read whole
/// with no cap (`--replay /dev/zero` grew until killed, 16 MiB of `*` took
/// 807 MB). Now lines and games are capped, and the games come one at a
/// time, an endless input included.
#[test]
fn lines_and_games_are_capped() {
    let err = |text: &str| read(text, "t.pgn").unwrap_err().to_string();
    let long_line = format!("[Event \"x\"]\n{} *\n", "a".repeat(70_000));
    assert_eq!(
        err(&long_line),
        "t.pgn:2: the line is longer than 65536 bytes (the most a PGN line may have)"
    );
    let long_game = format!("[Event \"x\"]\n{}*\n", "{a comment}\n".repeat(100_000));
    assert!(
        err(&long_game)
            .ends_with("the game is longer than 1048576 bytes (the most a PGN game may have)"),
        "{}",
        err(&long_game)
    );
    // Many small games are fine, however many.
    assert_eq!(
        read(&"*\n".repeat(100_000), "t.pgn").unwrap().len(),
        100_000
    );
    let mut endless = games(std::io::BufReader::new(std::io::repeat(b'x')), "zero");
    assert_eq!(
        endless.next().unwrap().unwrap_err().to_string(),
        "zero:1: the line is longer than 65536 bytes (the most a PGN line may have)"
    );
    assert!(endless.next().is_none());
}

/// Regression (P4): a byte order mark before a valid PGN was refused as
/// an invisible character, and in a file with `\r` line breaks every
/// error said line 1.
#[test]
fn byte_order_marks_and_carriage_returns() {
    let game = read_one("\u{feff}[Event \"x\"]\n1. e5 *\n");
    assert_eq!(game.tag("Event"), Some("x"));
    for (text, line) in [
        ("[Event \"x\"]\r1. e5\r[Bad\r", 3),
        ("[Event \"x\"]\r\n1. e5\r\n[Bad\r\n", 3),
        ("[Event \"x\"]\r\r\r1. e5 )\r", 4),
    ] {
        let e = read(text, "cr.pgn").unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
    }
    assert_eq!(read_one("[Event \"x\"]\r\r1. e5 *\r").moves.len(), 1);
    let bytes: &[u8] = b"[Event \"x\"]\n\xff *\n";
    assert_eq!(
        games(bytes, "t.pgn")
            .next()
            .unwrap()
            .unwrap_err()
            .to_string(),
        "t.pgn:2: the line is not UTF-8 text"
    );
}

/// Found by fuzzing (fuzz/fuzz_targets/pgn.rs): a control character in a
/// tag's string was read as it stood but written as a space, so that a
/// file read and written back read as another game.
#[test]
fn control_characters_in_tags_read_as_written() {
    let game = read_one("[Date \"2026\u{1}\u{1a}2.03\"]\n[Event \"a\tb\"]\n\n1. e5 *\n");
    assert_eq!(game.tag("Date"), Some("2026  2.03"));
    assert_eq!(game.tag("Event"), Some("a b"));
    let again = read_one(&write_games(std::slice::from_ref(&game)));
    assert_eq!(unlined(again), unlined(game));
}

/// Found by fuzzing: `8.6` read as move number 8 and a move `6`, which the
/// writer wrote as `6` and which then read back as a move number. Digits
/// after a move number's dots are another move number.
#[test]
fn digits_after_a_move_number_are_a_move_number() {
    let game = read_one("1. e5 e4 2.3 d2 *\n");
    let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(moves, ["e5", "e4", "d2"]);
    let again = read_one(&write_games(std::slice::from_ref(&game)));
    assert_eq!(unlined(again), unlined(game));
}

/// Found by fuzzing: `6!!` read as a move `6` (with a suffix that is no
/// NAG), written as `6`, and read back as a move number.
#[test]
fn digits_with_a_suffix_are_no_move() {
    let game = read_one("1. e5 e4 6!! d2 *\n");
    let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(moves, ["e5", "e4", "d2"]);
}

/// Found by fuzzing: a move number before no move (`4 *`) set the first
/// turn, which the writer, writing no move, could not keep.
#[test]
fn a_move_number_without_moves_numbers_nothing() {
    let game = read_one("[Event \"e\"]\n\n4. *\n");
    assert_eq!(game.first, Turn::START);
    let again = read_one(&write_games(std::slice::from_ref(&game)));
    assert_eq!(unlined(again), unlined(game));
}

/// Found by fuzzing: `0.1-0` read as move number 0 and a move `1-0`, and
/// `1-0!?` as a move `1-0`, which the writer wrote as `1-0`, read back as
/// the result. A result after a move number's dots, or before a suffix, is
/// the result.
#[test]
fn a_result_after_a_move_number_ends_the_game() {
    for text in ["1. e5 2.1-0\n", "1. e5 1-0!?\n"] {
        let game = read_one(&format!("[Result \"1-0\"]\n\n{text}"));
        let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["e5"], "{text}");
        assert_eq!(game.result, PgnResult::XWins);
        let again = read_one(&write_games(std::slice::from_ref(&game)));
        assert_eq!(unlined(again), unlined(game));
    }
}
