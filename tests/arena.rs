//! The bot-arena dialects, each refereed through a whole game between two
//! real `ultimo` processes.

mod common;

use std::time::Duration;
use ultimo::game::Player;

use common::Engine;
use ultimo::rules::{Move, Position};

const WAIT: Duration = Duration::from_secs(10);

fn valid_actions(pos: &Position) -> String {
    let moves = pos.legal_moves();
    let mut s = format!("{}", moves.len());
    for m in moves.iter() {
        s.push_str(&format!("\n{} {}", m.row(), m.col()));
    }
    s
}

#[test]
fn codingame_self_play_game() {
    let args = [
        "codingame",
        "--first-ms",
        "30",
        "--turn-ms",
        "5",
        "--hash",
        "16",
    ];
    let mut bots = [Engine::start(&args), Engine::start(&args)];
    let mut pos = Position::startpos();
    let mut last: Option<Move> = None;
    while !pos.is_over() {
        let bot = &mut bots[pos.side_to_move().index()];
        let opponent = last.map_or("-1 -1".to_string(), |m| format!("{} {}", m.row(), m.col()));
        bot.send(&format!("{opponent}\n{}", valid_actions(&pos)));
        let answer = bot.next_line(WAIT).expect("a move");
        let w: Vec<u8> = answer
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        let m = Move::from_grid(w[1], w[0]).expect("a cell");
        pos.try_play(m).unwrap_or_else(|e| panic!("{answer}: {e}"));
        last = Some(m);
    }
    assert!(pos.ply() >= 17);
}

fn riddles_field(pos: &Position) -> String {
    (0..81u8)
        .map(
            |i| match pos.mark_at(Move::from_grid(i % 9, i / 9).unwrap()) {
                None => ".",
                Some(Player::X) => "0",
                Some(Player::O) => "1",
            },
        )
        .collect::<Vec<_>>()
        .join(",")
}

fn macroboard(pos: &Position) -> String {
    (0..9u8)
        .map(|b| {
            let x = pos.won_boards(Player::X) >> b & 1 == 1;
            let o = pos.won_boards(Player::O) >> b & 1 == 1;
            let playable = pos.legal_moves().iter().any(|m| m.board() == b);
            if x {
                "0"
            } else if o {
                "1"
            } else if playable {
                "-1"
            } else {
                "."
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn riddles_self_play_game() {
    let mut bots = [
        Engine::start(&["riddles", "--hash", "16"]),
        Engine::start(&["riddles", "--hash", "16"]),
    ];
    for (id, bot) in bots.iter_mut().enumerate() {
        bot.send("settings timebank 1000");
        bot.send("settings time_per_move 10");
        bot.send("settings player_names player0,player1");
        bot.send(&format!("settings your_bot player{id}"));
        bot.send(&format!("settings your_botid {id}"));
    }
    let mut pos = Position::startpos();
    let mut round = 1;
    while !pos.is_over() {
        let bot = &mut bots[pos.side_to_move().index()];
        bot.send(&format!("update game round {round}"));
        bot.send(&format!("update game field {}", riddles_field(&pos)));
        bot.send(&format!("update game macroboard {}", macroboard(&pos)));
        bot.send("action move 300");
        let answer = bot.next_line(WAIT).expect("a move");
        let w: Vec<&str> = answer.split_whitespace().collect();
        assert_eq!(w[0], "place_move", "{answer}");
        let m = Move::from_grid(w[1].parse().unwrap(), w[2].parse().unwrap()).unwrap();
        pos.try_play(m)
            .unwrap_or_else(|e| panic!("{answer} in {pos}: {e}"));
        round += 1;
    }
}
