//! `ultimo match`: plays games between two engines that speak the Ultimo
//! protocol (or UGI/UCI), referees every move with Ultimo's rules, and
//! reports the first engine's score, Elo, LOS and an optional SPRT.
//!
//! - [`engine`]: starting engines and talking to them.
//! - [`game`]: one game, refereed.
//! - [`clock`]: time controls and the referee's clocks.
//! - [`openings`]: openings from a file or random moves.
//! - [`record`]: the record file, written and read back.
//! - [`tally`]: the running score and the summary.

pub mod clock;
pub mod engine;
pub mod game;
pub mod openings;
pub mod record;
pub mod tally;
