//! Ctrl-C, counted instead of fatal: the match runner stops starting games
//! at the first Ctrl-C, aborts the running ones at the second and prints its
//! summary either way; `ultimo analyze --infinite` stops its search and
//! leaves the last table. A bottom layer (it imports nothing of the crate)
//! so that every tool can use it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many Ctrl-Cs arrived since [`install`].
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// The number of Ctrl-Cs so far.
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}

/// Makes Ctrl-C (SIGINT on Unix, the console's Ctrl-C on Windows) count
/// instead of ending the process. The handler is installed once per
/// process; later calls return the first call's result. On an error
/// Ctrl-C still ends the process at once.
pub fn install() -> Result<(), &'static ctrlc::Error> {
    static INSTALLED: OnceLock<Result<(), ctrlc::Error>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                INTERRUPTS.fetch_add(1, Ordering::SeqCst);
            })
        })
        .as_ref()
        .map(|_| ())
}
