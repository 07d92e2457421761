//! The GUI server's request head (`gui::http::read_head`): the request
//! line and headers, up to the server's head limit.
//!
//! Invariants: no panic; a head taken has a token for its method, a
//! target starting with `/`, no control character in any header, at most
//! `MAX_HEADERS` headers and a body length of at most `MAX_BODY`; a refusal
//! is a 4xx or 505 with a reason. Memory: bounded by the head (rss limit
//! 256 MB in scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::gui::http::{self, MAX_BODY, MAX_HEAD, MAX_HEADERS, Refusal};

fuzz_target!(|data: &[u8]| {
    let head = &data[..data.len().min(MAX_HEAD)];
    match http::read_head(head) {
        Ok(h) => {
            assert!(!h.method.is_empty() && h.method.bytes().all(|b| b.is_ascii_graphic()));
            assert!(h.target.starts_with('/'));
            assert!(h.headers.len() <= MAX_HEADERS);
            assert!(h.content_length <= MAX_BODY);
            for (name, value) in &h.headers {
                assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()));
                assert!(!value.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f));
            }
        }
        Err(Refusal(status, why)) => {
            assert!((400..500).contains(&status) || status == 505, "{status}");
            assert!(!why.is_empty());
        }
    }
});
