//! Progress of long work (a match, a review, datagen, training) on
//! standard error. On a terminal it is one bar below the lines that stay:
//! work done, the time left and a status, cut to the terminal's width and
//! redrawn in place (drawn by `indicatif`). Piped, it is plain lines that
//! stay, at most one every so often, for logs.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// The bar's layout: what is working, the bar, done of all, the time left
/// and the status, the status cut where the terminal ends.
const TEMPLATE: &str = "{prefix} [{bar:20}] {pos}/{len}{left}  {wide_msg}";

/// Progress on standard error: a live bar where [`super::Style::live`]
/// allows one, plain lines otherwise. Dropping it clears the bar.
pub struct Progress {
    bar: ProgressBar,
    live: bool,
    /// When piped, how often [`Progress::set`] writes its status as a line
    /// (`None`: never; the caller writes the lines it wants with
    /// [`Progress::line`]).
    every: Option<Duration>,
    last_line: Option<Instant>,
}

impl Progress {
    /// Progress of `total` steps of work called `what` (e.g. `match`), drawn
    /// live on standard error when `live`, else silent until lines are
    /// asked for with [`Progress::lines_every`].
    pub fn new(what: &str, total: u64, live: bool) -> Progress {
        let target = if live {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let style = ProgressStyle::with_template(TEMPLATE)
            .expect("the template is valid")
            .progress_chars("=> ")
            .with_key("left", left_key);
        let bar = ProgressBar::with_draw_target(Some(total), target)
            .with_style(style)
            .with_prefix(what.to_string());
        Progress {
            bar,
            live,
            every: None,
            last_line: None,
        }
    }

    /// When piped, [`Progress::set`] writes its status as a line at most
    /// once every `every` (and always on the last step); a zero `every`
    /// writes every step.
    pub fn lines_every(mut self, every: Duration) -> Progress {
        self.every = Some(every);
        self
    }

    /// Starts the count at `done` steps that were done before (a resumed
    /// run): the time left is reckoned from the steps done from now on.
    pub fn starting_at(self, done: u64) -> Progress {
        self.bar.set_position(done);
        self.bar.reset_eta();
        self.bar.reset_elapsed();
        self
    }

    /// Whether the bar is drawn live (a terminal).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// A line that stays: above the bar on a terminal, as it is when piped.
    pub fn line(&self, text: &str) {
        self.bar.suspend(|| {
            let _ = writeln!(io::stderr().lock(), "{text}");
        });
    }

    /// `done` steps of all are done and `status` says how it goes: the bar
    /// redrawn on a terminal; when piped, `status` as a line when one is
    /// due (see [`Progress::lines_every`]).
    pub fn set(&mut self, done: u64, status: impl Into<Cow<'static, str>>) {
        self.bar.set_position(done);
        let status = status.into();
        if self.live {
            self.bar.set_message(status);
            return;
        }
        let Some(every) = self.every else { return };
        let last = Some(done) == self.bar.length();
        let due = self.last_line.is_none_or(|at| at.elapsed() >= every);
        if due || last {
            self.last_line = Some(Instant::now());
            self.line(&status);
        }
    }

    /// `done` steps of all are done, the status as it was.
    pub fn advance(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// Runs `f` with the bar off the screen, e.g. to write lines that stay
    /// on standard output.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the bar (the lines that stay are kept).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if !self.bar.is_finished() {
            self.bar.finish_and_clear();
        }
    }
}

/// The template's `{left}`: `, 3 min 05 s left` once steps have a rate.
fn left_key(state: &ProgressState, out: &mut dyn std::fmt::Write) {
    let running = state.len().is_some_and(|len| state.pos() < len);
    if running && state.per_sec() > 0.0 && state.pos() > 0 {
        let _ = write!(out, ", {} left", duration_text(state.eta()));
    }
}

/// A duration for people, to the second: `45 s`, `3 min 05 s`,
/// `2 h 07 min`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    let mut text = String::new();
    let _ = match s {
        0..60 => write!(text, "{s} s"),
        60..3600 => write!(text, "{} min {:02} s", s / 60, s % 60),
        _ => write!(text, "{} h {:02} min", s / 3600, s / 60 % 60),
    };
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_people() {
        assert_eq!(duration_text(Duration::from_millis(44_600)), "45 s");
        assert_eq!(duration_text(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(duration_text(Duration::from_secs(7_620)), "2 h 07 min");
    }

    #[test]
    fn piped_progress_draws_no_bar() {
        let mut progress = Progress::new("test", 3, false);
        assert!(!progress.is_live());
        assert!(progress.bar.is_hidden());
        progress.set(1, "one");
        progress.set(3, "three");
        assert_eq!(progress.bar.position(), 3);
    }

    #[test]
    fn a_resumed_count_starts_where_it_was() {
        let progress = Progress::new("test", 10, false).starting_at(4);
        assert_eq!(progress.bar.position(), 4);
    }
}
