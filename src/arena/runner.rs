//! The threads of a match: the check that starts every engine once before
//! the match, and the workers that play the games, each keeping the
//! processes of its current pairing's engines.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::game;
use super::openings::{ArenaGame, OpeningError};
use super::plan::Plan;
use super::record::GameRecord;
use super::record_file::RecordFile;
use super::referee::{Flags, Referee};
use super::{ArenaError, write_json};
use crate::client::engine::{EngineError, EngineProcess};
use crate::client::signal;

/// Plays the match of `plan` and prints its summary.
pub(super) fn run_match<G: ArenaGame>(plan: &Plan<G>) -> Result<(), ArenaError> {
    let started = Instant::now();
    let flags = Flags::default();
    // Caught from the start, so that the engines are stopped (with what they
    // started) however the runner is stopped.
    let signals = signal::install();
    if let Some(dir) = &plan.settings.log {
        std::fs::create_dir_all(dir).map_err(|problem| ArenaError::CreateDir {
            path: dir.clone(),
            problem,
        })?;
    }
    check_engines(plan, &flags)?;
    let record = match &plan.record {
        Some(path) => Some(RecordFile::create(
            path,
            plan.time_control_tags(),
            plan.match_id(),
        )?),
        None => None,
    };
    let games_started = AtomicU64::new(0);
    let mut referee = Referee::new(plan, &flags, &games_started, record);
    referee.progress.line(&plan.describe());
    for warning in plan.warnings() {
        referee.progress.line(&format!("warning: {warning}"));
    }
    if let Err(e) = signals {
        referee.progress.line(&format!("warning: {e}"));
    }

    let next_game = AtomicU64::new(0);
    let (sender, results) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..plan.concurrency {
            let sender = sender.clone();
            let (next_game, flags, games_started) = (&next_game, &flags, &games_started);
            scope.spawn(move || worker(plan, next_game, games_started, flags, sender));
        }
        drop(sender);
        loop {
            match results.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(game)) => referee.game_over(game),
                Ok(Err(error)) => referee.fail(error.into()),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            referee.check_interrupts();
        }
    });
    referee.progress.finish();

    let mut out = io::stdout().lock();
    let seconds = started.elapsed().as_secs_f64();
    write!(out, "{}", referee.standings.summary(plan.sprt.as_ref()))
        .and_then(|_| writeln!(out, "{:<12}{}", "end", referee.ending()))
        .and_then(|_| writeln!(out, "{:<12}{seconds:.1} s", "time"))
        .and_then(|_| out.flush())
        .map_err(ArenaError::Output)?;
    if let Some(path) = &plan.json {
        let summary = serde_json::json!({
            "settings": plan.json(),
            "records": plan.record.as_ref().map(|p| vec![p.display().to_string()]),
            "standings": referee.standings.json(plan.sprt.as_ref()),
            "end": referee.ending(),
        });
        write_json(path, &summary)?;
    }
    match referee.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Starts each engine once, to find problems before the match starts, and
/// quits it; a Ctrl-C, SIGTERM or SIGHUP meanwhile stops the check (and the
/// engine being started).
fn check_engines<G: ArenaGame>(plan: &Plan<G>, flags: &Flags) -> Result<(), ArenaError> {
    let checked = AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| {
            while !checked.load(Ordering::SeqCst) {
                if signal::stop_requested() {
                    flags.stop(true);
                }
                thread::sleep(Duration::from_millis(20));
            }
        });
        let result = plan.specs.iter().try_for_each(|spec| {
            let timeout = plan.settings.startup_timeout;
            let log = plan.settings.log.as_deref();
            match EngineProcess::start_logged(spec, timeout, &flags.abort, log) {
                Ok(engine) => {
                    engine.quit();
                    Ok(())
                }
                Err(EngineError::Aborted) => {
                    let name = signal::termination().unwrap_or("Ctrl-C");
                    Err(ArenaError::Stopped(name))
                }
                Err(problem) => Err(ArenaError::Engine {
                    name: spec.name.clone(),
                    program: spec.program.clone(),
                    problem,
                }),
            }
        });
        checked.store(true, Ordering::SeqCst);
        result?;
        if flags.aborted() {
            // A signal just as the check ended.
            return Err(ArenaError::Stopped(
                signal::termination().unwrap_or("Ctrl-C"),
            ));
        }
        Ok(())
    })
}

/// One thread of the match: takes the next game until there are none or
/// the match stops, and sends each finished game (or an error) to
/// `results`. It keeps the processes of its current pairing's engines;
/// moving on to another pairing, it keeps an engine the two share and quits
/// the other.
fn worker<G: ArenaGame>(
    plan: &Plan<G>,
    next_game: &AtomicU64,
    started: &AtomicU64,
    flags: &Flags,
    results: mpsc::Sender<Result<GameRecord<G>, OpeningError>>,
) {
    let mut slots: [Option<EngineProcess>; 2] = [None, None];
    let mut current: Option<usize> = None;
    while !flags.stop_starting.load(Ordering::SeqCst) {
        let index = next_game.fetch_add(1, Ordering::SeqCst);
        if index >= plan.run_games() {
            break;
        }
        let (pairing, setup) = match plan.setup(index) {
            Ok(setup) => setup,
            Err(e) => {
                let _ = results.send(Err(e));
                break;
            }
        };
        if current != Some(pairing) {
            let old = current.map_or([usize::MAX; 2], |p| plan.pairings[p].engines);
            let mut held: Vec<(usize, EngineProcess)> = old
                .into_iter()
                .zip(slots.iter_mut())
                .filter_map(|(i, slot)| slot.take().map(|e| (i, e)))
                .collect();
            for (slot, want) in slots.iter_mut().zip(plan.pairings[pairing].engines) {
                if let Some(at) = held.iter().position(|(i, _)| *i == want) {
                    *slot = Some(held.swap_remove(at).1);
                }
            }
            for (_, engine) in held {
                engine.quit();
            }
            current = Some(pairing);
        }
        started.fetch_add(1, Ordering::SeqCst);
        let Some(game) = game::play_game(
            &mut slots,
            &plan.pairings[pairing].specs,
            &plan.settings,
            &setup,
            &flags.abort,
        ) else {
            break; // aborted
        };
        if results.send(Ok(game)).is_err() {
            break;
        }
    }
    if !flags.aborted() {
        for engine in slots.into_iter().flatten() {
            engine.quit();
        }
    }
    // Otherwise the engines are dropped, which kills them.
}
