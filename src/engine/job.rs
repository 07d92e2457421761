//! [`Job`]: work on a thread of its own, the one way the engine runs
//! something in the background (a search, a solve, a GUI engine's worker).
//!
//! A job is started with a [`Control`] to stop it, says whether it still
//! runs (not told to stop, not finished), and is joined with a panic in
//! its work turned into an error ([`Panicked`]), so that no caller waits
//! for work that can never end.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};

use thiserror::Error;

use crate::search::Control;

/// A job's work panicked: it gave no result, and what it held is lost.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("the work on its thread failed (it panicked)")]
pub struct Panicked;

/// What a job's work is given besides its [`Control`]: a way to say it
/// has finished before its thread ends (before it writes its last output,
/// so that whoever reads that output finds the job no longer running).
#[derive(Clone)]
pub struct Finish(Arc<AtomicBool>);

impl Finish {
    /// Marks the job finished.
    pub fn done(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Work running on a thread of its own; see the module docs.
pub struct Job<T> {
    control: Arc<Control>,
    finished: Arc<AtomicBool>,
    handle: JoinHandle<Result<T, Panicked>>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a thread named `name`, with `control` (which the
    /// caller has set up: a ponder search starts pondering) and a
    /// [`Finish`]; the error when the thread cannot be started.
    pub fn spawn(
        name: &str,
        control: Arc<Control>,
        work: impl FnOnce(&Control, &Finish) -> T + Send + 'static,
    ) -> std::io::Result<Job<T>> {
        let finished = Arc::new(AtomicBool::new(false));
        let (c, finish) = (Arc::clone(&control), Finish(Arc::clone(&finished)));
        let handle = thread::Builder::new().name(name.into()).spawn(move || {
            // The panic is reported by `join`, as an error; the default
            // hook has printed its message.
            let result = panic::catch_unwind(AssertUnwindSafe(|| work(&c, &finish)));
            finish.done();
            result.map_err(|_| Panicked)
        })?;
        Ok(Job {
            control,
            finished,
            handle,
        })
    }

    /// The job's control (to stop it, or to end its pondering).
    pub fn control(&self) -> &Control {
        &self.control
    }

    /// Tells the work to stop (it still ends in its own way: a search
    /// writes its `bestmove`).
    pub fn stop(&self) {
        self.control.stop();
    }

    /// Whether the work has finished (said so, or its thread has ended,
    /// however it ended).
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst) || self.handle.is_finished()
    }

    /// Whether the work runs and was not told to stop.
    pub fn is_running(&self) -> bool {
        !self.control.is_stopped() && !self.is_finished()
    }

    /// Waits for the thread to end: the work's result, or [`Panicked`].
    pub fn join(self) -> Result<T, Panicked> {
        self.handle.join().unwrap_or(Err(Panicked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn job<T: Send + 'static>(
        work: impl FnOnce(&Control, &Finish) -> T + Send + 'static,
    ) -> Job<T> {
        Job::spawn("test-job", Arc::new(Control::new()), work).expect("a thread")
    }

    #[test]
    fn a_job_runs_until_stopped_and_gives_its_result() {
        let j = job(|c, _| {
            let mut spins = 0u64;
            while !c.is_stopped() {
                spins += 1;
                thread::sleep(Duration::from_millis(1));
            }
            spins
        });
        thread::sleep(Duration::from_millis(20));
        assert!(j.is_running());
        j.stop();
        assert!(!j.is_running());
        assert!(j.join().expect("no panic") > 0);
    }

    #[test]
    fn a_job_that_says_it_finished_no_longer_runs() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let j = job(move |_, finish| {
            finish.done();
            // Its last output, read while the thread has not ended yet.
            let _ = rx.recv();
            7
        });
        let start = Instant::now();
        while !j.is_finished() && start.elapsed() < Duration::from_secs(60) {
            thread::sleep(Duration::from_millis(1));
        }
        assert!(!j.is_running());
        drop(tx);
        assert_eq!(j.join().expect("no panic"), 7);
    }

    /// Issue 36, R2: a panic in the work is an error from `join`, and the
    /// job counts as finished (no one waits for it for ever).
    #[test]
    fn a_panic_is_an_error_not_a_hang() {
        let j = job(|_, _| -> u32 { panic!("injected") });
        let start = Instant::now();
        while !j.is_finished() && start.elapsed() < Duration::from_secs(60) {
            thread::sleep(Duration::from_millis(1));
        }
        assert!(j.is_finished() && !j.is_running());
        assert_eq!(j.join(), Err(Panicked));
    }
}
