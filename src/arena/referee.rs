//! The main thread's part of a match: it counts, records and shows each
//! finished game, runs the SPRT, and acts on Ctrl-C and signals by setting
//! the flags the workers read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::ArenaError;
use super::openings::ArenaGame;
use super::plan::Plan;
use super::progress::{Progress, game_text};
use super::record::{self, GameRecord};
use super::record_file::RecordFile;
use super::stats::SprtDecision;
use super::tally::Standings;
use crate::client::signal;

/// Why the match ended early, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The first Ctrl-C: no new games.
    Interrupted,
    /// The second Ctrl-C: running games aborted.
    Aborted,
    /// The SPRT decided.
    Sprt,
    /// An error: the PGN file could not be written, or no opening made.
    Failed,
    /// SIGTERM or SIGHUP (named): running games aborted.
    Terminated(&'static str),
}

/// The flags the main thread sets and the workers read.
#[derive(Default)]
pub(super) struct Flags {
    /// Start no new games.
    pub(super) stop_starting: AtomicBool,
    /// Abort the running games.
    pub(super) abort: AtomicBool,
}

impl Flags {
    /// Stops starting games, and with `abort` also aborts the running ones.
    pub(super) fn stop(&self, abort: bool) {
        self.stop_starting.store(true, Ordering::SeqCst);
        if abort {
            self.abort.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the running games are to be aborted.
    pub(super) fn aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }
}

/// What the main thread keeps while the match runs.
pub(super) struct Referee<'a, G: ArenaGame> {
    plan: &'a Plan<G>,
    flags: &'a Flags,
    pub(super) standings: Standings,
    /// Games started so far.
    started: &'a AtomicU64,
    record: Option<RecordFile>,
    pub(super) progress: Progress,
    stop: Option<Stop>,
    pub(super) error: Option<ArenaError>,
    seen_interrupts: usize,
}

impl<'a, G: ArenaGame> Referee<'a, G> {
    /// The referee of `plan`'s match, before any game: it sets `flags`,
    /// reads the games `started` and appends each game to `record`.
    pub(super) fn new(
        plan: &'a Plan<G>,
        flags: &'a Flags,
        started: &'a AtomicU64,
        record: Option<RecordFile>,
    ) -> Referee<'a, G> {
        Referee {
            plan,
            flags,
            standings: plan.standings(),
            started,
            record,
            progress: Progress::new(plan.run_games()),
            stop: None,
            error: None,
            seen_interrupts: 0,
        }
    }

    /// Ends the match early for `why`; `abort` also aborts running games.
    fn stop(&mut self, why: Stop, abort: bool) {
        let overrides = matches!(why, Stop::Aborted | Stop::Failed | Stop::Terminated(_));
        if self.stop.is_none() || overrides {
            self.stop = Some(why);
        }
        self.flags.stop(abort);
    }

    /// Stops the match on an error, which `run` returns at the end.
    pub(super) fn fail(&mut self, error: ArenaError) {
        self.progress.line(&format!(
            "error: {}; stopping the match",
            crate::quote::escape_lines(&error.to_string())
        ));
        self.error.get_or_insert(error);
        self.stop(Stop::Failed, true);
    }

    /// Counts, records and shows a finished game, and runs the SPRT.
    pub(super) fn game_over(&mut self, game: GameRecord<G>) {
        if self.flags.aborted() {
            return; // finished as the match was aborted: not counted
        }
        let score = match self.standings.add(&game) {
            Ok(tally) => tally.progress(self.plan.sprt.as_ref()),
            Err(e) => return self.fail(e.into()),
        };
        if let Some(file) = self.record.as_mut()
            && let Err(e) = file.write_game(&game)
        {
            self.fail(e);
        }
        let fault = game.termination != record::Termination::Normal;
        let text = game_text(&game, self.plan.all_games());
        let played = self.standings.games();
        let running = self.started.load(Ordering::SeqCst).saturating_sub(played);
        let pairings = match self.plan.specs.len() {
            2 => score.clone(),
            _ => self.standings.status(),
        };
        let status = format!("{pairings}; {running} running");
        self.progress.game(&text, &score, played, &status, fault);
        let decided = match (&self.plan.sprt, self.standings.tallies().next()) {
            (Some(sprt), Some(tally)) => {
                sprt.state(&tally.penta).decision() != SprtDecision::Continue
            }
            _ => false,
        };
        if decided {
            self.stop(Stop::Sprt, true);
        }
    }

    /// Acts on new Ctrl-Cs: the first stops new games, the next aborts;
    /// and on SIGTERM or SIGHUP, which abort at once.
    pub(super) fn check_interrupts(&mut self) {
        if let Some(name) = signal::termination()
            && !matches!(self.stop, Some(Stop::Terminated(_) | Stop::Failed))
        {
            self.progress
                .line(&format!("{name}: aborting the running games"));
            self.stop(Stop::Terminated(name), true);
            return;
        }
        let interrupts = signal::interrupts();
        if interrupts <= self.seen_interrupts || self.flags.aborted() {
            return;
        }
        self.seen_interrupts = interrupts;
        if interrupts == 1 {
            self.progress.line(
                "Ctrl-C: no new games; finishing the running ones (Ctrl-C again to abort them)",
            );
            self.stop(Stop::Interrupted, false);
        } else {
            self.progress.line("Ctrl-C: aborting the running games");
            self.stop(Stop::Aborted, true);
        }
    }

    /// How the match ended, in words.
    pub(super) fn ending(&self) -> String {
        match self.stop {
            None => format!("all {} games played", self.plan.run_games()),
            Some(Stop::Sprt) => "the SPRT decided".to_string(),
            Some(Stop::Interrupted) => "stopped by Ctrl-C".to_string(),
            Some(Stop::Aborted) => "stopped by Ctrl-C, running games aborted".to_string(),
            Some(Stop::Failed) => "stopped by an error".to_string(),
            Some(Stop::Terminated(name)) => format!("stopped by {name}, running games aborted"),
        }
    }
}
