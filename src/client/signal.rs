//! Signals for the match runner, counted, not fatal, so that the runner
//! can stop its engines (with everything they started) and print its
//! summary: Ctrl-C stops starting games (the first) and aborts the running
//! ones (the next); SIGTERM and SIGHUP (on Unix) abort the running games at
//! once, as a runner asked to end (by a service manager, or a closed
//! terminal) should not wait for games that may take minutes.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// How many Ctrl-Cs arrived since [`install`].
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// The last SIGTERM or SIGHUP that arrived since [`install`]; 0 if none.
static TERMINATION: AtomicI32 = AtomicI32::new(0);

/// Why the signals cannot be caught.
#[derive(Debug, thiserror::Error)]
pub enum SignalError {
    /// Ctrl-C's handler could not be installed.
    #[error("cannot catch Ctrl-C ({0}): it ends the program at once")]
    CtrlC(ctrlc::Error),
    /// The handler of SIGTERM or SIGHUP could not be installed.
    #[error("cannot catch {name} ({problem}): it ends the program at once")]
    Termination {
        /// The signal.
        name: &'static str,
        /// Why.
        problem: std::io::Error,
    },
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

/// Makes Ctrl-C (SIGINT on Unix, the console's Ctrl-C on Windows), SIGTERM
/// and SIGHUP count instead of ending the process. The handlers are
/// installed once per process; later calls return the first call's result.
/// On an error the signal not caught still ends the process at once.
pub fn install() -> Result<(), &'static SignalError> {
    static INSTALLED: OnceLock<Result<(), SignalError>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                INTERRUPTS.fetch_add(1, Ordering::SeqCst);
            })
            .map_err(SignalError::CtrlC)?;
            catch_terminations()
        })
        .as_ref()
        .map(|_| ())
}

/// Records a SIGTERM or SIGHUP; only an atomic store, which is safe in a
/// signal handler.
#[cfg(unix)]
extern "C" fn on_termination(signal: libc::c_int) {
    TERMINATION.store(signal, Ordering::SeqCst);
}

/// Installs [`on_termination`] for SIGTERM and SIGHUP.
#[cfg(unix)]
fn catch_terminations() -> Result<(), SignalError> {
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        // SAFETY: `sigaction` is plain data, for which all zeroes is a valid
        // value (no flags, no handler), then filled in; the handler only
        // stores to an atomic, which is async-signal-safe. SA_RESTART keeps
        // the runner's reads and writes from failing with EINTR.
        let result = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction =
                on_termination as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if result != 0 {
            return Err(SignalError::Termination {
                name,
                problem: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// No termination signals to catch here.
#[cfg(not(unix))]
fn catch_terminations() -> Result<(), SignalError> {
    Ok(())
}
