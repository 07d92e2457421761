//! The GUI's `/api` commands: each line of the input is a command's JSON
//! body, read and carried out on one session as the server does (a `load`
//! read before the session is taken), with no engines running.
//!
//! Invariants: no panic; the page's view serialises after every command;
//! a command refused leaves the view as it was; the game saved
//! (`Session::record`, PGN) loads back to the same moves. Memory: a body
//! is at most the server's `MAX_BODY` (rss limit 512 MB in
//! scripts/fuzz.sh).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ultimo::gui::load;
use ultimo::gui::session::{Command, Session};

fuzz_target!(|text: &str| {
    let mut s = Session::new(vec!["Ultimo".to_string(), "other".to_string()]);
    for body in text.lines().take(64) {
        let Ok(command) = serde_json::from_str::<Command>(body) else {
            continue;
        };
        let before = serde_json::to_value(s.view()).expect("the view serialises");
        let result = match command {
            Command::Load { text, name, number } => {
                let game = s.line().game();
                load::prepare_load(&text, || game, &name, number)
                    .map(|loaded| s.take_loaded(loaded))
            }
            command => s.command(command),
        };
        let after = serde_json::to_value(s.view()).expect("the view serialises");
        if result.is_err() {
            assert_eq!(before, after, "a refused command changed the view: {body}");
        }
        let record = s.record();
        let loaded = load::load(&record, s.line().game(), "saved", None)
            .unwrap_or_else(|e| panic!("the saved game does not load: {e}\n{record}"));
        assert_eq!(loaded.line.moves_text(), s.moves(), "{record}");
    }
});
