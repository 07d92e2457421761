//! Ultimo: an Ultimate Tic-Tac-Toe engine.
//!
//! The modules form layers; each uses only modules listed above it (check
//! with a grep of `use crate::` per module, or `layering.py`):
//!
//! - [`game`]: what every game shares: players, outcomes, verdicts, the
//!   [`game::Game`] trait through which the search sees a game, and the
//!   [`game::Notation`] trait through which the tools read and write one.
//! - [`quote`]: how much of outside input a message repeats (beside
//!   [`game`] at the bottom: it imports nothing).
//! - [`shard`]: `--shard K/N`, the share of a run's numbered games or
//!   pairs that one machine plays (beside [`quote`], which is all it uses).
//! - [`rules`]: Ultimate Tic-Tac-Toe on bitboards: positions, moves,
//!   outcome, perft and playouts.
//! - [`notation`]: moves `a1`-`i9` and FEN, read and written.
//! - [`super15`]: a second game, "Super 1 al 5", on bitboards: its rules,
//!   notation and [`game::Game`] implementation; it needs only [`game`].
//! - [`pgn`]: PGN, the game record of every tool: games read and written,
//!   with per-move notes, and replayed with the rules of either game.
//! - [`search`]: the engine, parallel MCTS with a solver, over [`game::Game`]
//!   only; no I/O.
//! - [`solve`]: a proof-number solver (df-pn) that proves positions won,
//!   drawn or lost, over [`game::Game`] only; no I/O.
//! - [`net`]: Ultimate Tic-Tac-Toe's learned evaluation: the net (an
//!   [`search::Evaluator`]), its weights file, self-play data files and the
//!   trainer (the `train` feature, on by default).
//! - [`display`]: text for people: board diagrams, scores, perft reports,
//!   progress bars and the terminal policy.
//! - [`engine`]: the engine as the protocol and the tools run it: one
//!   place that builds a searcher with its evaluator and the parameters
//!   that go with it ([`engine::Setup`]), the net each game has, and the
//!   searcher that runs its searches on a thread of its own, with stop,
//!   ponder and reports ([`engine::AsyncSearcher`]).
//! - [`selfplay`]: games of the engine against itself, recorded for
//!   training the net.
//! - [`review`]: whole-game analysis: every position searched, every move
//!   judged by the drop in winning chances (inaccuracy, mistake, blunder),
//!   as tables, summaries and JSON.
//! - [`protocol`]: the engine's UCI/UGI-style loop on stdin/stdout, and the
//!   bot-arena dialects (CodinGame, riddles.io).
//! - [`client`]: talking to an engine process: starting it, its dialect,
//!   time controls and clocks, the referee's verdict on its moves, and the
//!   signals that end the engines with the program.
//! - [`arena`]: refereed games, the match runner, its statistics and game
//!   records, over [`client`]; it needs only the games' rules and
//!   notation.
//! - [`gui`]: `ultimo gui`, a board in the browser that plays and analyses
//!   with Ultimo and any UGI/UCI engine (through [`client`]).
//! - [`cli`]: the `ultimo` command line, thin front ends over the above.
#![deny(missing_docs)]

pub mod arena;
pub mod cli;
pub mod client;
pub mod display;
pub mod engine;
pub mod game;
pub mod gui;
pub mod net;
pub mod notation;
pub mod pgn;
pub mod protocol;
pub mod quote;
pub mod review;
pub mod rules;
pub mod search;
pub mod selfplay;
pub mod shard;
pub mod solve;
pub mod super15;
