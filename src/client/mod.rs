//! Talking to an engine process, for whoever plays against one (the match
//! runner, the GUI): the process and its dialect, time controls and
//! clocks, the referee's verdict on its moves, and the signals that end
//! the engines with the program.
//!
//! - [`engine`]: how an engine is named on the command line, starting it
//!   (in a process group of its own) and its lines in and out, bounded.
//! - [`clock`]: time controls, the dialects' `go` lines and the referee's
//!   clocks.
//! - [`referee`]: an engine's `bestmove` judged and played, or why it
//!   loses.
//! - [`signal`]: Ctrl-C, SIGTERM and SIGHUP, kept apart for the exit
//!   status.

pub mod clock;
pub mod engine;
pub mod referee;
pub mod signal;
