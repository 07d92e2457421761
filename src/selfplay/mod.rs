//! Self-play: games of the engine against itself, each searched position
//! recorded for training the net ([`crate::net::data`] is the file format).
//!
//! Game `i` of a run opens with random plies drawn with seed `seed + i`
//! (not recorded), then every position is searched with a fixed node
//! budget and a fresh tree, and recorded with the search's value and its
//! visits per move. Games run on several threads at once, one search
//! thread each, so that a game's record depends only on the run's
//! settings and its number.
//!
//! A run can be split over machines: with a [`Part`] (`datagen --shard
//! K/N`) it plays only its shard's game numbers, and [`merge`] puts the
//! shards' files back together as the file one run would have written.

pub mod merge;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use thiserror::Error;

use crate::engine::{LoadedNet, Setup};
use crate::game::Outcome;
use crate::net::data::{GameRecord, PositionRecord, Settings};
use crate::net::features::Planes;
use crate::rules::Position;
use crate::search::{Control, Limits, Options, SearchError, Searcher};
use crate::shard::Shard;

/// A run's settings: everything that shapes its games.
#[derive(Clone, Debug)]
pub struct Run {
    /// Search iterations per move.
    pub nodes: u64,
    /// Uniformly random plies that open each game.
    pub random_plies: u8,
    /// Game `i` opens, and searches, with seed `seed + i`.
    pub seed: u64,
    /// How the engine searches (one thread per game).
    pub setup: Setup,
    /// The shard this run plays, if it plays one (else the run has no
    /// fixed size: a file is continued with as many games as asked).
    pub part: Option<Part>,
}

/// The share of a run that one machine plays: shard `K/N` of the whole
/// run's games (their numbers `i` with `i % N == K - 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The games of the whole run (all shards).
    pub games: u64,
    /// Which share this is.
    pub shard: Shard,
}

/// The settings names with which a data file records its [`Part`].
const GAMES: &str = "games";
/// See [`GAMES`].
const SHARD: &str = "shard";

impl Part {
    /// The game numbers this part plays, in order.
    pub fn games(self) -> impl Iterator<Item = u64> {
        self.shard.jobs(self.games)
    }

    /// The part a data file's settings record: `None` for a file of a run
    /// without `--shard`, `Err` with the setting's name and value where
    /// they do not read.
    pub fn recorded(settings: &Settings) -> Option<Result<Part, (String, String)>> {
        let value = |name: &str| settings.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let shard = value(SHARD)?;
        let bad = |name: &str, value: &str| (name.to_string(), value.to_string());
        let Ok(shard) = shard.parse::<Shard>() else {
            return Some(Err(bad(SHARD, shard)));
        };
        Some(match value(GAMES).map(|g| (g, g.parse::<u64>())) {
            Some((_, Ok(games))) if games > 0 => Ok(Part { games, shard }),
            Some((text, _)) => Err(bad(GAMES, text)),
            None => Err(bad(GAMES, "none")),
        })
    }
}

/// Why self-play cannot go on.
#[derive(Debug, Error)]
pub enum SelfPlayError {
    /// A searcher cannot be made or refused its options (e.g. memory).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The search returned no move in a game that is not over.
    #[error("the engine found no move in game {0}")]
    NoMove(u64),
}

impl Run {
    /// The settings a data file records for this run, with `net`, the net
    /// it searches with: those that change the games, not how many run at
    /// once, nor how many there are, except in a shard (its part of which
    /// run: the run's games and the shard, last).
    pub fn recorded(&self, net: Option<&LoadedNet<Position>>) -> Vec<(String, String)> {
        let evaluator = self.setup.evaluator(net);
        let options = self.setup.search_options(evaluator.is_some());
        let net = match evaluator {
            Some(_) => net.map_or("none".to_string(), |n| n.version.clone()),
            None => "none".to_string(),
        };
        let p = options.params;
        let playout = format!("{:?}", p.playout).to_lowercase();
        [
            ("nodes", self.nodes.to_string()),
            ("random-plies", self.random_plies.to_string()),
            ("seed", self.seed.to_string()),
            ("eval", self.setup.eval.name().to_string()),
            ("net", net),
            ("hash", options.hash_mb.to_string()),
            ("exploration", p.exploration.to_string()),
            ("fpu", p.fpu.to_string()),
            ("expand-visits", p.expand_visits.to_string()),
            ("playout", playout),
            ("solver", p.solver.to_string()),
            ("eval-weight", p.eval_weight.to_string()),
            ("policy", p.policy.to_string()),
            ("fpu-reduction", p.fpu_reduction.to_string()),
        ]
        .into_iter()
        .chain(self.part.into_iter().flat_map(|part| {
            [
                (GAMES, part.games.to_string()),
                (SHARD, part.shard.to_string()),
            ]
        }))
        .map(|(name, value)| (name.to_string(), value))
        .collect()
    }
}

/// The position after the random plies that open game `index`, and how
/// many were played (fewer when one would end the game).
fn opening(run: &Run, index: u64) -> (Position, u8) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(run.seed.wrapping_add(index));
    let mut pos = Position::startpos();
    let mut plies = 0u8;
    while plies < run.random_plies {
        let Some(m) = pos.random_move(&mut rng) else {
            break;
        };
        let mut next = pos;
        next.play_unchecked(m);
        if next.is_over() {
            break;
        }
        pos = next;
        plies += 1;
    }
    (pos, plies)
}

/// Plays game `index` of `run` with `searcher` (one thread, the run's
/// setup).
pub fn play_game(
    index: u64,
    run: &Run,
    searcher: &mut Searcher<Position>,
) -> Result<GameRecord, SelfPlayError> {
    let (mut pos, plies) = opening(run, index);
    let options = Options {
        seed: run.seed.wrapping_add(index),
        ..searcher.options().clone()
    };
    searcher.set_options(options, pos)?;
    searcher.clear(pos);
    let limits = Limits {
        nodes: Some(run.nodes),
        ..Limits::default()
    };
    let control = Control::new();
    let mut positions = Vec::new();
    while !pos.is_over() {
        let report = searcher.search(&pos, &limits, &[], &control, &mut |_| {});
        let Some(best) = report.lines.first() else {
            return Err(SelfPlayError::NoMove(index));
        };
        let planes = Planes::from_position(&pos);
        positions.push(PositionRecord {
            marks: planes.marks,
            side: planes.side,
            last: pos.last_move().map(|m| m.index()),
            value: best.q as f32,
            visits: report
                .lines
                .iter()
                .map(|l| (l.mv.index(), l.visits.min(u32::MAX as u64) as u32))
                .collect(),
        });
        pos.play_unchecked(best.mv);
    }
    Ok(GameRecord {
        index,
        result: pos.outcome().unwrap_or(Outcome::Draw),
        random_plies: plies,
        positions,
    })
}

/// Plays the games numbered `todo` on `threads` threads, with `net` (the
/// game's, as the run's setup loaded it). Each finished game goes to
/// `on_game` on the calling thread, in the order they finish; the first
/// error, of a game or of `on_game`, ends the run (the games being played
/// are dropped).
pub fn play<E: From<SelfPlayError>>(
    run: &Run,
    net: Option<&LoadedNet<Position>>,
    todo: &[u64],
    threads: usize,
    mut on_game: impl FnMut(GameRecord) -> Result<(), E>,
) -> Result<(), E> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<GameRecord, SelfPlayError>>();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, todo.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || {
                let mut searcher = match run.setup.searcher(net, Position::startpos()) {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e.into()));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    if tx.send(play_game(index, run, &mut searcher)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for game in rx {
            let done = game.map_err(E::from).and_then(&mut on_game);
            if let Err(e) = done {
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Eval;

    fn run(nodes: u64) -> Run {
        Run {
            nodes,
            random_plies: 4,
            seed: 9,
            setup: Setup::new(
                Options {
                    hash_mb: 8,
                    ..Options::default()
                },
                Eval::Playout,
            ),
            part: None,
        }
    }

    #[test]
    fn a_game_depends_only_on_the_run_and_its_number() {
        let run = run(200);
        let mut games = Vec::new();
        play(&run, None, &[3, 4, 3], 2, |g| {
            games.push(g);
            Ok::<(), SelfPlayError>(())
        })
        .unwrap();
        games.sort_by_key(|g| g.index);
        assert_eq!(games.len(), 3);
        assert_eq!(games[0], games[1], "game 3 twice, the same game");
        assert_ne!(games[1].positions, games[2].positions);
        let first = &games[0];
        assert_eq!(first.random_plies, 4);
        assert!(!first.positions.is_empty());
    }

    #[test]
    fn the_record_names_what_shapes_the_games() {
        let net = <Position as crate::engine::NetGame>::net(None).unwrap();
        let mut with_net = run(1000);
        with_net.setup.eval = Eval::Net;
        let recorded = with_net.recorded(net.as_ref());
        let value = |name: &str| {
            recorded
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(value("nodes").as_deref(), Some("1000"));
        assert_eq!(value("eval").as_deref(), Some("net"));
        assert_eq!(value("net"), net.map(|n| n.version));
        assert_eq!(value("expand-visits").as_deref(), Some("1"));
        assert_eq!(value("playout").as_deref(), Some("winning"));
        // With playouts the net plays no part.
        let recorded = run(1000).recorded(None);
        assert!(recorded.contains(&("net".into(), "none".into())));
    }

    #[test]
    fn a_shard_records_its_part_of_the_run_last() {
        let part = Part {
            games: 12,
            shard: Shard::new(2, 3).unwrap(),
        };
        let sharded = Run {
            part: Some(part),
            ..run(1000)
        };
        let recorded = sharded.recorded(None);
        let plain = run(1000).recorded(None);
        assert_eq!(recorded[..plain.len()], plain[..]);
        assert_eq!(
            recorded[plain.len()..],
            [
                ("games".to_string(), "12".to_string()),
                ("shard".to_string(), "2/3".to_string())
            ]
        );
        assert_eq!(Part::recorded(&recorded), Some(Ok(part)));
        assert_eq!(Part::recorded(&plain), None);
        assert_eq!(part.games().collect::<Vec<u64>>(), [1, 4, 7, 10]);
    }

    #[test]
    fn an_error_ends_the_run() {
        let run = run(50);
        let mut seen = 0;
        let result = play(&run, None, &[0, 1, 2, 3, 4, 5], 2, |_| {
            seen += 1;
            Err(SelfPlayError::NoMove(99))
        });
        assert!(matches!(result, Err(SelfPlayError::NoMove(99))));
        assert_eq!(seen, 1);
    }
}
