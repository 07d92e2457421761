//! Ctrl-C (SIGINT) for the match runner: counted, not fatal, so that the
//! runner can stop starting games (first Ctrl-C), abort the running ones
//! (second), and print its summary either way.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many SIGINTs arrived since [`install`].
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// The number of Ctrl-Cs so far.
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}

#[cfg(unix)]
mod unix {
    use super::INTERRUPTS;
    use std::sync::atomic::Ordering;

    /// SIGINT's number on every Unix.
    const SIGINT: i32 = 2;

    unsafe extern "C" {
        /// The C library's `signal(2)`: `sighandler_t signal(int, sighandler_t)`,
        /// where a handler is passed as its address.
        fn signal(signum: i32, handler: usize) -> usize;
    }

    /// Counts the signal; an atomic add is async-signal-safe.
    extern "C" fn on_sigint(_: i32) {
        INTERRUPTS.fetch_add(1, Ordering::SeqCst);
    }

    pub fn install() {
        let handler: extern "C" fn(i32) = on_sigint;
        // SAFETY: `signal` is the C library's, declared with its C signature
        // (int and a pointer-sized handler). The handler only does an atomic
        // add on a static, which is async-signal-safe, and stays valid for
        // the whole program.
        unsafe {
            signal(SIGINT, handler as usize);
        }
    }
}

/// Makes Ctrl-C count instead of ending the process (Unix only; elsewhere
/// Ctrl-C ends the process as usual).
pub fn install() {
    #[cfg(unix)]
    unix::install();
}
