//! Ctrl-C for the match runner: counted, not fatal, so that the runner can
//! stop starting games (first Ctrl-C), abort the running ones (second), and
//! print its summary either way.

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
