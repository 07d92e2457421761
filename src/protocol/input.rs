//! Time values from outside, shared by every dialect: read with a ceiling.
//! (Echoed text is shortened by [`crate::quote::shorten`].)

use std::time::Duration;

/// The longest time value taken from outside (24 hours): a longer one
/// counts as this, so that no search is ever planned for longer and no
/// time arithmetic can overflow.
pub const MAX_TIME: Duration = Duration::from_secs(24 * 60 * 60);

/// A time in milliseconds: a run of ASCII digits (an optional leading `+`
/// allowed), however long; values above [`MAX_TIME`] count as
/// [`MAX_TIME`]. `None` for anything else (empty, negative, fractional).
pub fn millis(text: &str) -> Option<Duration> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Too many digits for a u64 is still a (huge) number of milliseconds.
    let ms = digits.parse::<u64>().unwrap_or(u64::MAX);
    Some(Duration::from_millis(ms).min(MAX_TIME))
}

/// `d` with the ceiling of [`millis`].
pub fn cap(d: Duration) -> Duration {
    d.min(MAX_TIME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_capped() {
        assert_eq!(millis("250"), Some(Duration::from_millis(250)));
        assert_eq!(millis("+7"), Some(Duration::from_millis(7)));
        assert_eq!(millis("0"), Some(Duration::ZERO));
        assert_eq!(millis("18446744073709551615"), Some(MAX_TIME));
        assert_eq!(millis(&"9".repeat(100)), Some(MAX_TIME));
        assert_eq!(millis("86400001"), Some(MAX_TIME));
        for bad in ["", "+", "-5", "1.5", "1e3", "abc", "5ms", " 5"] {
            assert_eq!(millis(bad), None, "{bad}");
        }
        assert_eq!(cap(Duration::MAX), MAX_TIME);
        assert_eq!(cap(Duration::from_secs(1)), Duration::from_secs(1));
    }
}
