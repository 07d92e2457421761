//! [`AsyncSearcher`]: a searcher whose searches run on a thread of their
//! own, so that its owner stays free to read input, watch for a signal or
//! a cancelled job, and stop the search or turn a ponder search into a
//! normal one.
//!
//! A search takes the [`Searcher`] to its thread and hands it back when it
//! ends, with its tree kept for the next search. While it runs, its
//! reports come as [`Event`]s: [`AsyncSearcher::start`] calls the owner's
//! function on the search thread (the protocol writes its `info` lines
//! there), [`AsyncSearcher::run`] hands them to the calling thread and
//! returns the final report.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use thiserror::Error;

use super::{Job, LoadedNet, Setup};
use crate::game::Game;
use crate::search::{Control, Evaluator, Limits, Report, SearchError, Searcher};

/// How often a waiting owner asks whether to stop the search.
const POLL: Duration = Duration::from_millis(10);

/// What one search is asked to do.
#[derive(Clone, Debug)]
pub struct SearchRequest<G: Game> {
    /// The position to search.
    pub root: G,
    /// What ends the search.
    pub limits: Limits,
    /// The root moves to choose from (empty: all).
    pub searchmoves: Vec<G::Move>,
    /// Whether to search without time limits until
    /// [`AsyncSearcher::ponderhit`].
    pub ponder: bool,
}

impl<G: Game> SearchRequest<G> {
    /// A search of `root` within `limits`, over all moves, not pondering.
    pub fn new(root: G, limits: Limits) -> SearchRequest<G> {
        SearchRequest {
            root,
            limits,
            searchmoves: Vec::new(),
            ponder: false,
        }
    }
}

/// A report from a running search.
#[derive(Debug)]
pub enum Event<'a, M> {
    /// The results so far (about once a second).
    Info(&'a Report<M>),
    /// The final results: the search has ended.
    Done(&'a Report<M>),
}

/// Why the searcher cannot do what was asked.
#[derive(Debug, Error)]
pub enum AsyncError {
    /// A search is running (and was not told to stop).
    #[error("a search is running")]
    Busy,
    /// The searcher was lost (a failed search, or a failed rebuild).
    #[error("no search tree (an earlier search or allocation failed)")]
    NoSearcher,
    /// The search thread could not be started.
    #[error("cannot start the search thread: {0}")]
    Thread(std::io::Error),
    /// The search thread panicked: its searcher is lost.
    #[error("the search failed; its search tree is lost")]
    Panicked,
    /// The searcher refused new settings (e.g. memory); nothing changed.
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// A search on its thread: it gives the searcher back (`None` only if the
/// thread found none), and says it has finished just before the final
/// [`Event::Done`].
type Running<G> = Job<Option<Searcher<G>>>;

/// The searcher in `slot`, taken out.
fn take<G: Game>(slot: &Mutex<Option<Searcher<G>>>) -> Option<Searcher<G>> {
    match slot.lock() {
        Ok(mut s) => s.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    }
}

/// A searcher that runs its searches on a thread of its own; see the
/// module docs.
pub struct AsyncSearcher<G: Game> {
    /// The searcher, while no search holds it (`None` once lost).
    searcher: Option<Searcher<G>>,
    /// The evaluator the searcher has, to tell whether new settings
    /// change it.
    evaluator: Option<Arc<dyn Evaluator<G>>>,
    running: Option<Running<G>>,
}

/// Whether two evaluator choices are the same evaluator.
fn same_evaluator<G: Game>(
    a: &Option<Arc<dyn Evaluator<G>>>,
    b: &Option<Arc<dyn Evaluator<G>>>,
) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

impl<G: Game> AsyncSearcher<G> {
    /// A searcher as `setup` says, with `net` (the game's), at `root`.
    pub fn new(
        setup: &Setup,
        net: Option<&LoadedNet<G>>,
        root: G,
    ) -> Result<AsyncSearcher<G>, SearchError> {
        Ok(AsyncSearcher {
            searcher: Some(setup.searcher(net, root)?),
            evaluator: setup.evaluator(net),
            running: None,
        })
    }

    /// Whether a search holds the searcher, was not told to stop and has
    /// not finished.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.is_running())
    }

    /// Whether the running search is a ponder search that has not had its
    /// [`AsyncSearcher::ponderhit`].
    pub fn is_pondering(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| r.control().is_pondering())
    }

    /// Asks the running search, if any, to stop and report at once.
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.stop();
        }
    }

    /// The opponent played the expected move: the running ponder search
    /// goes on as a normal one, its time counted from now. `false` when no
    /// ponder search runs.
    pub fn ponderhit(&self) -> bool {
        match &self.running {
            Some(r) if r.control().is_pondering() => {
                r.control().ponderhit();
                true
            }
            _ => false,
        }
    }

    /// Waits for the running search, if any, to end, and takes its searcher
    /// back. [`AsyncError::Panicked`] when its thread panicked: the
    /// searcher is then lost ([`AsyncSearcher::rebuild`] makes a new one).
    pub fn wait(&mut self) -> Result<(), AsyncError> {
        let Some(r) = self.running.take() else {
            return Ok(());
        };
        match r.join() {
            Ok(Some(searcher)) => {
                self.searcher = Some(searcher);
                Ok(())
            }
            Ok(None) => Err(AsyncError::NoSearcher),
            Err(_) => Err(AsyncError::Panicked),
        }
    }

    /// Takes the searcher back from a search that has ended by itself (as
    /// [`AsyncSearcher::wait`]); does nothing while one runs.
    pub fn reap(&mut self) -> Result<(), AsyncError> {
        match &self.running {
            Some(r) if r.is_finished() => self.wait(),
            _ => Ok(()),
        }
    }

    /// The searcher, for what needs it idle (new settings, a new game):
    /// waits for a search that was told to stop; [`AsyncError::Busy`] while
    /// one still runs.
    pub fn idle(&mut self) -> Result<&mut Searcher<G>, AsyncError> {
        if self.running.is_some() {
            if self.is_searching() {
                return Err(AsyncError::Busy);
            }
            self.wait()?;
        }
        self.searcher.as_mut().ok_or(AsyncError::NoSearcher)
    }

    /// Brings the idle searcher to `setup` with `net`, the options and the
    /// evaluator together: the tree stays unless the evaluator or the
    /// memory changes (the threads share it, whatever their number). On
    /// error nothing changes.
    pub fn configure(
        &mut self,
        setup: &Setup,
        net: Option<&LoadedNet<G>>,
        root: G,
    ) -> Result<(), AsyncError> {
        let (options, evaluator) = setup.choose(net);
        let change = !same_evaluator(&self.evaluator, &evaluator);
        let searcher = self.idle()?;
        searcher.set_options(options, root)?;
        if change {
            searcher.set_evaluator(evaluator.clone());
            self.evaluator = evaluator;
        }
        Ok(())
    }

    /// Replaces a lost searcher (or the idle one) by a new one as `setup`
    /// says.
    pub fn rebuild(
        &mut self,
        setup: &Setup,
        net: Option<&LoadedNet<G>>,
        root: G,
    ) -> Result<(), AsyncError> {
        if self.is_searching() {
            return Err(AsyncError::Busy);
        }
        let _ = self.wait();
        *self = AsyncSearcher::new(setup, net, root)?;
        Ok(())
    }

    /// Starts `request` on a thread of its own; `on_event` gets its reports
    /// there: [`Event::Info`] about once a second, then one
    /// [`Event::Done`]. Waits first for a search that was told to stop;
    /// [`AsyncError::Busy`] while one still runs.
    pub fn start(
        &mut self,
        request: SearchRequest<G>,
        mut on_event: impl FnMut(Event<'_, G::Move>) + Send + 'static,
    ) -> Result<(), AsyncError> {
        self.idle()?;
        let searcher = self.searcher.take().ok_or(AsyncError::NoSearcher)?;
        let control = Arc::new(Control::new());
        control.reset(request.ponder);
        // The thread takes the searcher from here; if it cannot be started,
        // the searcher stays.
        let slot = Arc::new(Mutex::new(Some(searcher)));
        let lent = Arc::clone(&slot);
        let spawned = Job::spawn("ultimo-search", control, move |control, finish| {
            let mut searcher = take(&lent)?;
            let SearchRequest {
                root,
                limits,
                searchmoves,
                ..
            } = request;
            let mut on_info = |r: &Report<G::Move>| on_event(Event::Info(r));
            let report = searcher.search(&root, &limits, &searchmoves, control, &mut on_info);
            finish.done();
            on_event(Event::Done(&report));
            Some(searcher)
        });
        match spawned {
            Ok(job) => {
                self.running = Some(job);
                Ok(())
            }
            Err(e) => {
                self.searcher = take(&slot);
                Err(AsyncError::Thread(e))
            }
        }
    }

    /// Runs `request` to its end on the search thread, handing each report
    /// to `on_info` on this thread, and stopping the search as soon as
    /// `should_stop` says so (asked every few milliseconds). Returns the
    /// final report.
    pub fn run(
        &mut self,
        request: SearchRequest<G>,
        on_info: &mut dyn FnMut(&Report<G::Move>),
        should_stop: &dyn Fn() -> bool,
    ) -> Result<Report<G::Move>, AsyncError> {
        enum Message<M> {
            Info(Report<M>),
            Done(Report<M>),
        }
        let (tx, rx) = mpsc::channel();
        self.start(request, move |event| {
            let _ = tx.send(match event {
                Event::Info(r) => Message::Info(r.clone()),
                Event::Done(r) => Message::Done(r.clone()),
            });
        })?;
        let mut stopped = false;
        loop {
            match rx.recv_timeout(POLL) {
                Ok(Message::Info(report)) => on_info(&report),
                Ok(Message::Done(report)) => {
                    self.wait()?;
                    return Ok(report);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // The thread ended without a final report: it panicked.
                    self.wait()?;
                    return Err(AsyncError::Panicked);
                }
            }
            if !stopped && should_stop() {
                self.stop();
                stopped = true;
            }
        }
    }

    /// Runs `work` with the idle searcher and a [`Control`] on a thread of
    /// its own (for work of many searches, such as a game review), stopping
    /// it as soon as `should_stop` says so (asked every few milliseconds).
    pub fn run_with<R: Send>(
        &mut self,
        work: impl FnOnce(&mut Searcher<G>, &Control) -> R + Send,
        should_stop: &dyn Fn() -> bool,
    ) -> Result<R, AsyncError> {
        let searcher = self.idle()?;
        let control = Control::new();
        let result = thread::scope(|s| {
            let worker = s.spawn(|| work(searcher, &control));
            // Until the thread ends, however it ends: a flag set after the
            // work would never be set by work that panics.
            while !worker.is_finished() {
                if should_stop() {
                    control.stop();
                }
                thread::sleep(POLL);
            }
            worker.join()
        });
        result.map_err(|_| {
            self.searcher = None;
            AsyncError::Panicked
        })
    }
}

impl<G: Game> Drop for AsyncSearcher<G> {
    /// Stops a running search and waits for it, so that no search outlives
    /// its owner.
    fn drop(&mut self) {
        self.stop();
        let _ = self.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Eval;
    use crate::engine::NetGame;
    use crate::rules::Position;
    use crate::search::Options;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    fn searcher() -> AsyncSearcher<Position> {
        let setup = Setup::new(
            Options {
                hash_mb: 16,
                ..Options::default()
            },
            Eval::Playout,
        );
        AsyncSearcher::new(&setup, None, Position::startpos()).unwrap()
    }

    fn nodes(n: u64) -> SearchRequest<Position> {
        SearchRequest::new(
            Position::startpos(),
            Limits {
                nodes: Some(n),
                ..Limits::default()
            },
        )
    }

    fn infinite() -> SearchRequest<Position> {
        SearchRequest::new(
            Position::startpos(),
            Limits {
                infinite: true,
                ..Limits::default()
            },
        )
    }

    /// Waits (at most a minute: only a hang takes that long) until `done`.
    fn wait_until(done: impl Fn() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(60), "it hangs");
            thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_search_reports_then_ends_and_gives_the_searcher_back() {
        let mut s = searcher();
        let (tx, rx) = mpsc::channel();
        s.start(nodes(3000), move |event| {
            let _ = tx.send(match event {
                Event::Info(r) => ("info", r.nodes),
                Event::Done(r) => ("done", r.nodes),
            });
        })
        .unwrap();
        let events: Vec<(&str, u64)> = rx.iter().collect();
        let (last, rest) = events.split_last().unwrap();
        assert_eq!(*last, ("done", 3000));
        assert!(rest.iter().all(|e| e.0 == "info"), "{events:?}");
        s.reap().unwrap();
        assert!(!s.is_searching());
        assert!(s.idle().is_ok(), "the searcher is back");
    }

    #[test]
    fn stop_ends_an_infinite_search_and_busy_refuses_until_then() {
        let mut s = searcher();
        let (tx, rx) = mpsc::channel();
        s.start(infinite(), move |event| {
            if let Event::Done(r) = event {
                let _ = tx.send(r.nodes);
            }
        })
        .unwrap();
        assert!(s.is_searching());
        assert!(matches!(s.idle(), Err(AsyncError::Busy)));
        assert!(matches!(s.start(nodes(10), |_| {}), Err(AsyncError::Busy)));
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        s.stop();
        assert!(!s.is_searching());
        // A stopped search is waited for by whatever needs the searcher.
        s.idle().unwrap();
        assert!(rx.recv().unwrap() > 0);
    }

    #[test]
    fn ponderhit_turns_a_ponder_search_into_a_normal_one() {
        let mut s = searcher();
        assert!(!s.ponderhit(), "no search, no ponderhit");
        let mut request = SearchRequest::new(
            Position::startpos(),
            Limits {
                movetime: Some(Duration::from_millis(20)),
                ..Limits::default()
            },
        );
        request.ponder = true;
        let done = Arc::new(AtomicBool::new(false));
        let d = Arc::clone(&done);
        s.start(request, move |event| {
            if let Event::Done(_) = event {
                d.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
        // Pondering ignores the time limit: the search goes on well past it
        // (the limit is a lower bound on how long it takes, whatever the
        // load).
        thread::sleep(Duration::from_millis(100));
        assert!(s.is_pondering());
        assert!(!done.load(Ordering::SeqCst));
        assert!(s.ponderhit());
        assert!(!s.is_pondering());
        wait_until(|| done.load(Ordering::SeqCst));
        s.wait().unwrap();
    }

    #[test]
    fn run_hands_reports_to_the_caller_and_stops_when_asked() {
        let mut s = searcher();
        let mut infos = 0;
        let report = s.run(nodes(2000), &mut |_| infos += 1, &|| false).unwrap();
        assert_eq!(report.nodes, 2000);
        // An infinite search ends when the caller's condition holds.
        let start = Instant::now();
        let report = s
            .run(infinite(), &mut |_| {}, &|| {
                start.elapsed() > Duration::from_millis(50)
            })
            .unwrap();
        assert!(report.nodes > 0);
        // The tree is kept between searches.
        assert!(s.idle().is_ok());
    }

    #[test]
    fn run_with_lends_the_searcher_and_stops_the_work() {
        let mut s = searcher();
        let start = Instant::now();
        let nodes = s
            .run_with(
                |searcher, control| {
                    let limits = Limits {
                        infinite: true,
                        ..Limits::default()
                    };
                    searcher
                        .search(&Position::startpos(), &limits, &[], control, &mut |_| {})
                        .nodes
                },
                &|| start.elapsed() > Duration::from_millis(30),
            )
            .unwrap();
        assert!(nodes > 0);
    }

    /// A search that panics (here in its report) ends as a job does: as
    /// finished, with [`AsyncError::Panicked`] from `wait`.
    #[test]
    fn a_search_that_panics_is_an_error_not_a_hang() {
        let mut s = searcher();
        s.start(nodes(1000), |_| panic!("the report fails"))
            .unwrap();
        let start = Instant::now();
        while s.is_searching() && start.elapsed() < Duration::from_secs(60) {
            thread::sleep(Duration::from_millis(1));
        }
        assert!(!s.is_searching());
        assert!(matches!(s.wait(), Err(AsyncError::Panicked)));
        assert!(matches!(s.idle(), Err(AsyncError::NoSearcher)));
    }

    #[test]
    fn run_with_work_that_panics_fails_and_does_not_hang() {
        let mut s = searcher();
        let result = s.run_with(|_, _| -> u64 { panic!("the work fails") }, &|| false);
        assert!(matches!(result, Err(AsyncError::Panicked)), "{result:?}");
        // The searcher is lost with it, and can be made again.
        assert!(matches!(s.idle(), Err(AsyncError::NoSearcher)));
        let setup = Setup::new(
            Options {
                hash_mb: 16,
                ..Options::default()
            },
            Eval::Playout,
        );
        s.rebuild(&setup, None, Position::startpos()).unwrap();
        assert!(s.idle().is_ok());
    }

    #[test]
    fn configure_keeps_the_tree_unless_the_evaluator_changes() {
        let setup = Setup::new(
            Options {
                hash_mb: 16,
                ..Options::default()
            },
            Eval::Playout,
        );
        let net = Position::net(None).unwrap();
        let mut s = AsyncSearcher::new(&setup, net.as_ref(), Position::startpos()).unwrap();
        assert!(!s.idle().unwrap().has_evaluator());
        let mut with_net = setup.clone();
        with_net.eval = Eval::Net;
        s.configure(&with_net, net.as_ref(), Position::startpos())
            .unwrap();
        let searcher = s.idle().unwrap();
        assert!(searcher.has_evaluator());
        assert_eq!(searcher.options().params.expand_visits, 1);
        // Memory the machine cannot have: refused, nothing changed.
        let mut huge = with_net.clone();
        huge.search.hash_mb = 1 << 40;
        assert!(matches!(
            s.configure(&huge, net.as_ref(), Position::startpos()),
            Err(AsyncError::Search(_))
        ));
        assert_eq!(s.idle().unwrap().options().hash_mb, 16);
    }

    #[test]
    fn dropping_it_stops_the_search() {
        let mut s = searcher();
        s.start(infinite(), |_| {}).unwrap();
        drop(s);
    }
}
