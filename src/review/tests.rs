use super::*;
use crate::rules::{Move, Position};
use crate::search::Options;

/// The last plies of a game Ultimo played against itself (3000 nodes a
/// move) from the empty board, where `x` had a win in one at ply 49 (`i2`)
/// and played `h7` instead, which lets `o` win at once with `g7`: the
/// planted blunder.
const PLANTED_FEN: &str =
    "1ooox1x2/xxoo2xoo/o2ox4/1oxxxoxxx/oxoooo2o/x3oo3/x5o2/1x1xxx1x1/2xo3ox x 23 f5";
const PLANTED_MOVES: [&str; 6] = ["i3", "i9", "h9", "a9", "h7", "g7"];

fn searcher<G: Game>(start: G) -> Searcher<G> {
    Searcher::new(
        Options {
            hash_mb: 16,
            ..Options::default()
        },
        start,
    )
    .unwrap()
}

fn nodes(n: u64) -> Limits {
    Limits {
        nodes: Some(n),
        ..Limits::default()
    }
}

fn moves(texts: &[&str]) -> Vec<Move> {
    texts.iter().map(|t| t.parse().unwrap()).collect()
}

fn planted() -> Review<Position> {
    planted_with_book(0)
}

/// The review of the planted game at 20,000 nodes a position, its first
/// `book` moves book moves.
fn planted_with_book(book: usize) -> Review<Position> {
    let start: Position = PLANTED_FEN.parse().unwrap();
    let mut heard = Vec::new();
    let review = review(
        &mut searcher(start),
        None,
        start,
        &moves(&PLANTED_MOVES),
        book,
        &nodes(20_000),
        &Control::new(),
        &mut |p| heard.push((p.index, p.total)),
    )
    .unwrap();
    assert_eq!(heard, (0..7).map(|i| (i, 7)).collect::<Vec<_>>());
    review
}

#[test]
fn finds_the_planted_blunder_and_nothing_else() {
    let review = planted();
    assert!(review.complete);
    assert_eq!(review.moves.len(), 6);
    let marked: Vec<(u32, Mark)> = review
        .moves
        .iter()
        .filter_map(|m| m.mark.map(|k| (m.ply, k)))
        .collect();
    assert_eq!(marked, [(49, Mark::Blunder)]);
    let blunder = &review.moves[4];
    assert_eq!(
        (blunder.side, blunder.mv.to_string()),
        (Player::X, "h7".into())
    );
    assert_eq!(blunder.before.score(), Score::Mate(1));
    assert_eq!(blunder.after.score(), Score::Mate(-1));
    assert_eq!(blunder.loss, 2.0);
    assert_eq!(blunder.search.best, Some("i2".parse().unwrap()));
    assert!(!blunder.is_best());
    // The winning reply is the best move, and ends the game.
    let reply = &review.moves[5];
    assert!(reply.is_best());
    assert_eq!(
        (reply.before.score(), reply.after.score()),
        (Score::Mate(1), Score::Mate(1))
    );
    assert!(review.end.is_over());
    assert_eq!(review.end_search.as_ref().unwrap().best, None);
    let x = review.summary(Player::X);
    assert_eq!(
        (x.moves, x.inaccuracies, x.mistakes, x.blunders),
        (3, 0, 0, 1)
    );
    assert!((x.average_loss - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(
        review.summary(Player::O),
        SideSummary {
            moves: 3,
            ..SideSummary::default()
        }
    );
}

#[test]
fn the_table_and_summary_read_as_documented() {
    let review = planted();
    let table = table(&review);
    assert_eq!(
        table[0],
        " ply  side  move  mark  before     after       loss  best"
    );
    assert_eq!(table.len(), 7);
    assert_eq!(
        table[5],
        "  49  x     h7    ??    mate 1     mate -1     2.00  i2"
    );
    // A best move played shows no best column.
    assert_eq!(
        table[6],
        "  50  o     g7          mate 1     mate 1      0.00"
    );
    assert_eq!(
        summary_lines(&review),
        [
            "x: 3 moves, 0 inaccuracies, 0 mistakes, 1 blunder, average loss 0.67",
            "o: 3 moves, 0 inaccuracies, 0 mistakes, 0 blunders, average loss 0.00",
        ]
    );
    assert_eq!(
        legend(&THRESHOLDS),
        "loss: the drop in winning chances (2 x expected score - 1, from -1 to 1); \
         ?! inaccuracy >= 0.10, ? mistake >= 0.20, ?? blunder >= 0.30"
    );
}

#[test]
fn json_holds_every_move() {
    let review = planted();
    let v = json(&review);
    assert_eq!(v["game"], "uttt");
    assert_eq!(v["start"], PLANTED_FEN);
    assert_eq!(v["complete"], true);
    assert_eq!(v["thresholds"]["blunder"], 0.3);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    let b = &moves[4];
    assert_eq!(b["ply"], 49);
    assert_eq!(b["side"], "x");
    assert_eq!(b["move"], "h7");
    assert_eq!(b["mark"], "??");
    assert_eq!(b["mark_name"], "blunder");
    assert_eq!(b["nag"], 4);
    assert_eq!(b["loss"], 2.0);
    assert_eq!(b["before"]["score"], "mate 1");
    assert_eq!(b["before"]["chances"], 1.0);
    assert_eq!(b["before"]["proven"]["result"], "win");
    assert_eq!(b["after"]["score"], "mate -1");
    assert_eq!(b["after"]["proven"]["plies"], 2);
    assert_eq!(b["search"]["best"], "i2");
    assert_eq!(b["search"]["line"][0], "i2");
    assert_eq!(b["is_best"], false);
    // Each move's FEN is the position it was played in.
    let before: Position = b["fen"].as_str().unwrap().parse().unwrap();
    assert!(before.legal_moves().contains(&"h7".parse().unwrap()));
    assert!(moves[0]["mark"].is_null());
    assert_eq!(v["end"]["over"], true);
    assert_eq!(v["summary"]["x"]["blunders"], 1);
    assert_eq!(v["summary"]["o"]["moves"], 3);
}

#[test]
fn marks_by_the_thresholds() {
    let t = THRESHOLDS;
    assert_eq!(t.mark(0.0), None);
    assert_eq!(t.mark(0.099), None);
    assert_eq!(t.mark(0.10), Some(Mark::Inaccuracy));
    assert_eq!(t.mark(0.20), Some(Mark::Mistake));
    assert_eq!(t.mark(0.2999), Some(Mark::Mistake));
    assert_eq!(t.mark(0.30), Some(Mark::Blunder));
    assert_eq!(t.mark(2.0), Some(Mark::Blunder));
    let symbols: Vec<_> = Mark::ALL.iter().map(|m| (m.symbol(), m.nag())).collect();
    assert_eq!(symbols, [("?!", 6), ("?", 2), ("??", 4)]);
}

#[test]
fn evaluations_flip_to_the_movers_view() {
    let cp = Eval {
        q: 0.75,
        proven: None,
    };
    assert_eq!(cp.score(), Score::Cp(191));
    assert!((cp.chances() - 0.5).abs() < 1e-12);
    assert_eq!(cp.flip().score(), Score::Cp(-191));
    // The opponent mates in 1 (1 ply): for the mover, a loss in 2 plies,
    // i.e. in 1 own move.
    let mate = Eval {
        q: 1.0,
        proven: Some(Proven {
            verdict: Verdict::Win,
            plies: 1,
        }),
    };
    assert_eq!(mate.score(), Score::Mate(1));
    assert_eq!(mate.flip().score(), Score::Mate(-1));
    assert_eq!(mate.flip().proven.unwrap().plies, 2);
    assert_eq!(mate.flip().chances(), -1.0);
    // A proven result overrides the search's expected score.
    let draw = Eval {
        q: 0.9,
        proven: Some(Proven {
            verdict: Verdict::Draw,
            plies: 4,
        }),
    };
    assert_eq!((draw.score(), draw.chances()), (Score::Cp(0), 0.0));
    // The mover of a game's last move won: mate 1 from their side.
    let over = Eval::of_outcome(Outcome::Win(Player::X), Player::O);
    assert_eq!(over.flip().score(), Score::Mate(1));
    assert_eq!(
        Eval::of_outcome(Outcome::Draw, Player::O).flip().chances(),
        0.0
    );
}

#[test]
fn an_illegal_move_is_refused_before_any_search() {
    let start = Position::startpos();
    let mut heard = 0;
    let err = review(
        &mut searcher(start),
        None,
        start,
        &moves(&["e5", "a1"]),
        0,
        &nodes(100),
        &Control::new(),
        &mut |_| heard += 1,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ReviewError::Illegal {
            ply: 2,
            mv: "a1".into()
        }
    );
    assert_eq!(err.to_string(), "move 2 (a1) is not legal in its position");
    assert_eq!(heard, 0);
}

#[test]
fn a_stopped_review_judges_nothing_it_did_not_search() {
    let start = Position::startpos();
    let control = Control::new();
    control.stop();
    let r = review(
        &mut searcher(start),
        None,
        start,
        &moves(&["e5", "e4"]),
        0,
        &nodes(100),
        &control,
        &mut |_| {},
    )
    .unwrap();
    assert!(!r.complete);
    assert!(r.moves.is_empty());
    assert_eq!(r.end_search, None);
    assert_eq!(r.end, start);
    assert!(summary_lines(&r)[2].starts_with("stopped: 0 of the game's moves"));
}

#[test]
fn reviews_super15_games_too() {
    let start = crate::super15::Position::startpos();
    let game = start.legal_moves()[0];
    let mut next = start;
    next.play(game);
    let reply = next.legal_moves()[0];
    let r = review(
        &mut searcher(start),
        None,
        start,
        &[game, reply],
        0,
        &nodes(300),
        &Control::new(),
        &mut |_| {},
    )
    .unwrap();
    assert!(r.complete);
    assert_eq!(r.moves.len(), 2);
    assert_eq!((r.moves[0].ply, r.moves[1].side), (1, Player::O));
    assert_eq!(json(&r)["game"], "super15");
    assert!(table(&r)[1].contains(&game.to_string()));
}

#[test]
fn annotates_a_pgn_game_with_notes_nags_and_best_moves() {
    let review = planted();
    let start: Position = PLANTED_FEN.parse().unwrap();
    let mut game = new_game(&start, &moves(&PLANTED_MOVES), "test", "2025.01.31");
    annotate(&review, &mut game, "Ultimo (test)");
    assert_eq!(game.tag("Annotator"), Some("Ultimo (test)"));
    assert_eq!(game.tag("FEN"), Some(PLANTED_FEN));
    assert_eq!(game.tag("Result"), Some("0-1"));
    assert_eq!(game.moves[4].text, "h7");
    assert_eq!(game.moves[4].nags, [4]);
    assert_eq!(
        game.moves[4].comment.as_deref(),
        Some("-M1, blunder (loss 2.00), best i2")
    );
    // The game's last move leads to no search: no depth.
    assert_eq!(game.moves[5].comment.as_deref(), Some("+M1"));
    let text = game
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("25. h7 $4 {-M1, blunder (loss 2.00), best i2} 25... g7 {+M1} 0-1"),
        "{text}"
    );
}

#[test]
fn book_moves_are_shown_but_not_judged() {
    // The planted blunder (the fifth move) played as a book move.
    let start: Position = PLANTED_FEN.parse().unwrap();
    let review = planted_with_book(5);
    assert_eq!(review.moves.len(), 6);
    let blunder = &review.moves[4];
    assert!(blunder.book);
    assert_eq!((blunder.mark, blunder.loss), (None, 0.0));
    assert_eq!(blunder.after.score(), Score::Mate(-1));
    assert!(!review.moves[5].book);
    // Only the last move (o's) is judged.
    assert_eq!(review.summary(Player::X).moves, 0);
    assert_eq!(review.summary(Player::O).moves, 1);
    let table = table(&review);
    assert!(table[5].contains(" h7    book "), "{table:?}");
    assert_eq!(json(&review)["moves"][4]["book"], true);
    // Annotating keeps a book move's comment.
    let mut game = new_game(&start, &moves(&PLANTED_MOVES), "test", "2025.01.31");
    game.moves[4].comment = Some("book".into());
    annotate(&review, &mut game, "Ultimo (test)");
    assert_eq!(game.moves[4].comment.as_deref(), Some("book"));
    assert!(game.moves[4].nags.is_empty());
    assert_eq!(game.moves[5].comment.as_deref(), Some("+M1"));
}

#[test]
fn the_solver_proves_what_a_short_search_does_not() {
    // Lost for o in 8 plies (exhaustive search agrees); 30 iterations do
    // not prove it, the solver does, and the review says so.
    let start: Position =
        "xx1oox1xo/1oxoxo1o1/1oo1x1o2/1ox2xoxo/2oo1x1ox/xx1x1x1oo/ooxx2xxx/1o1oxx1ox/xxxoo3o o 27 b1"
            .parse()
            .unwrap();
    let mv = start.legal_moves()[0];
    let run = |solver: Option<&mut crate::solve::Solver>| {
        review(
            &mut searcher(start),
            solver,
            start,
            &[mv],
            0,
            &nodes(30),
            &Control::new(),
            &mut |_| {},
        )
        .unwrap()
    };
    let alone = run(None);
    assert_eq!(alone.moves[0].before.proven, None);
    let mut solver = crate::solve::Solver::new(&crate::solve::Options {
        hash_mb: 4,
        ..Default::default()
    })
    .unwrap();
    let proved = run(Some(&mut solver));
    let p = proved.moves[0].before.proven.expect("proven by the solver");
    assert_eq!((p.verdict, p.plies), (Verdict::Loss, 8));
    assert_eq!(proved.moves[0].before.score(), Score::Mate(-4));
}
