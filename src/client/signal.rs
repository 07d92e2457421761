//! Signals for whoever runs engines (the match runner, `analyze`, the
//! GUI), counted, not fatal, so that the program can stop its engines
//! (with everything they started) and end in its own way: the match runner
//! stops starting games at the first Ctrl-C and aborts the running ones at
//! the next; SIGTERM and SIGHUP (on Unix) abort them at once, as a program
//! asked to end (by a service manager, or a closed terminal) should not
//! wait for games that may take minutes. SIGINT, SIGTERM and SIGHUP are
//! kept apart for the exit status (130, 143, 129).
//!
//! On Unix the signals come to a thread of their own through
//! `signal-hook` (no handler code of ours runs in signal context), which
//! counts them and then calls the hook set with [`on_signal`]; elsewhere
//! the `ctrlc` crate catches Ctrl-C.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// How many Ctrl-Cs arrived since [`install`].
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// The last SIGTERM or SIGHUP that arrived since [`install`]; 0 if none.
static TERMINATION: AtomicI32 = AtomicI32::new(0);

/// Why the signals cannot be caught.
#[derive(Debug, thiserror::Error)]
pub enum SignalError {
    /// The signals could not be caught (their handlers, or the thread
    /// that receives them).
    #[error("cannot catch Ctrl-C, SIGTERM and SIGHUP ({0}): they end the program at once")]
    Install(std::io::Error),
}

/// The number of Ctrl-Cs so far.
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}

/// The name of the termination signal that arrived (`SIGTERM` or
/// `SIGHUP`), if one did.
pub fn termination() -> Option<&'static str> {
    termination_name(TERMINATION.load(Ordering::SeqCst))
}

/// Whether a signal asks the runner to stop (any Ctrl-C or termination).
pub fn stop_requested() -> bool {
    interrupts() > 0 || termination().is_some()
}

/// The exit status of a program that ends because of the signal that
/// arrived: 128 plus its number (130 for Ctrl-C, 143 for SIGTERM, 129 for
/// SIGHUP), as a shell reports a program the signal killed; `None` if
/// none arrived.
pub fn exit_status() -> Option<i32> {
    match TERMINATION.load(Ordering::SeqCst) {
        0 if interrupts() > 0 => Some(130),
        0 => None,
        number => Some(128 + number),
    }
}

/// The name of termination signal `number`, if it is one.
#[cfg(unix)]
fn termination_name(number: i32) -> Option<&'static str> {
    match number {
        libc::SIGTERM => Some("SIGTERM"),
        libc::SIGHUP => Some("SIGHUP"),
        _ => None,
    }
}

/// No termination signals are caught here.
#[cfg(not(unix))]
fn termination_name(_: i32) -> Option<&'static str> {
    None
}

/// What to do after a signal has been counted (the GUI kills its engines
/// and exits); set once, by [`on_signal`].
static HOOK: OnceLock<fn()> = OnceLock::new();

/// Calls `hook` after every signal, once it is counted (on the signal
/// thread; not in signal context). Only the first call sets it.
pub fn on_signal(hook: fn()) {
    let _ = HOOK.set(hook);
}

/// Makes Ctrl-C (SIGINT on Unix, the console's Ctrl-C on Windows), SIGTERM
/// and SIGHUP count instead of ending the process. The handlers are
/// installed once per process; later calls return the first call's result.
/// On an error the signals still end the process at once.
pub fn install() -> Result<(), &'static SignalError> {
    static INSTALLED: OnceLock<Result<(), SignalError>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| catch().map_err(SignalError::Install))
        .as_ref()
        .map(|_| ())
}

/// Counts one signal and calls the hook.
fn arrived(number: i32) {
    match termination_name(number) {
        Some(_) => TERMINATION.store(number, Ordering::SeqCst),
        None => {
            INTERRUPTS.fetch_add(1, Ordering::SeqCst);
        }
    }
    if let Some(hook) = HOOK.get() {
        hook();
    }
}

/// Receives SIGINT, SIGTERM and SIGHUP on a thread of their own.
#[cfg(unix)]
fn catch() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for number in signals.forever() {
                arrived(number);
            }
        })?;
    Ok(())
}

/// Catches Ctrl-C.
#[cfg(not(unix))]
fn catch() -> std::io::Result<()> {
    ctrlc::set_handler(|| arrived(2)).map_err(std::io::Error::other)
}
