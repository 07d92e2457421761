//! End-to-end: `ultimo gui` in headless Chromium, driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`). Plays a whole game against
//! the engine by clicking cells, checks the board and the result on the
//! page, turns analysis on with the keyboard and waits for lines, and saves
//! screenshots at desktop and phone widths in target/gui-e2e/. A second
//! test plays Super 1 al 5 by clicks (piece, then destination); a third
//! loads pasted PGN, refuses a broken one and saves the game as PGN.
//!
//! Without `chromedriver` on the PATH (or in ULTIMO_CHROMEDRIVER) the test
//! says it was skipped and passes, unless ULTIMO_REQUIRE_BROWSER=1 (CI).
//!
//! The WebDriver client is a few JSON-over-HTTP calls on the shared test
//! HTTP client: no WebDriver crate (and its async runtime) is needed.

mod gui_common;

use std::io::Write;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gui_common::{GuiProcess, request};
use serde_json::{Value, json};

struct Driver {
    child: Child,
    addr: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Driver {
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let reply = request(
            &self.addr,
            method,
            path,
            &[("Host", &self.addr), ("Content-Type", "application/json")],
            body.as_bytes(),
        );
        let v = reply.json();
        if reply.status != 200 {
            panic!("WebDriver {method} {path}: {}", reply.body);
        }
        v["value"].clone()
    }
}

impl Session<'_> {
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        self.driver
            .call(method, &format!("/session/{}{path}", self.id), body)
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
    }

    fn find(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": css }),
        );
        v[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/click"), json!({}));
    }

    fn key(&self, key: &str) {
        let actions = json!({ "actions": [{ "type": "key", "id": "kb", "actions": [
            { "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }] }] });
        self.call("POST", "/actions", actions);
    }

    fn text(&self, css: &str) -> String {
        self.js(&format!(
            "return document.querySelector('{css}').textContent;"
        ))
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    fn wait(&self, secs: u64, what: &str, script: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self.js(script);
            if !v.is_null() && v != json!(false) {
                return v;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; status: {}",
                    self.text("#status")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn screenshot(&self, path: &std::path::Path) -> usize {
        let b64 = self.call("GET", "/screenshot", json!(null));
        let png = decode_base64(b64.as_str().expect("base64"));
        std::fs::write(path, &png).unwrap();
        png.len()
    }

    fn resize(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            json!({ "width": width, "height": height }),
        );
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn find_chromedriver() -> Option<String> {
    if let Ok(p) = std::env::var("ULTIMO_CHROMEDRIVER") {
        return Some(p);
    }
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("chromedriver"))
        .find(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_driver(program: &str) -> Driver {
    let port = free_port();
    let child = Command::new(program)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        addr: format!("127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(&driver.addr).is_err() {
        assert!(Instant::now() < deadline, "chromedriver does not listen");
        std::thread::sleep(Duration::from_millis(100));
    }
    driver
}

fn new_session(driver: &Driver) -> Session<'_> {
    let mut options = json!({ "args": [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--window-size=1280,800", "--hide-scrollbars", "--force-device-scale-factor=1"
    ] });
    for binary in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if std::path::Path::new(binary).is_file() {
            options["binary"] = json!(binary);
            break;
        }
    }
    let caps = json!({ "capabilities": { "alwaysMatch": {
        "browserName": "chrome", "goog:chromeOptions": options } } });
    let v = driver.call("POST", "/session", caps);
    Session {
        driver,
        id: v["sessionId"].as_str().expect("session id").to_string(),
    }
}

/// chromedriver, or `None` after saying the test is skipped (a failure
/// with ULTIMO_REQUIRE_BROWSER=1).
fn chromedriver_or_skip() -> Option<String> {
    let found = find_chromedriver();
    if found.is_none() {
        let required = std::env::var("ULTIMO_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "ULTIMO_REQUIRE_BROWSER=1 but chromedriver is not installed \
             (apt-get install chromium chromium-driver)"
        );
        // Written past the test harness's capture, so `cargo test` shows it.
        let _ = writeln!(
            std::io::stderr(),
            "gui_browser: SKIPPED: no chromedriver (install chromium and chromium-driver to run it)"
        );
    }
    found
}

/// Where the screenshots go.
fn screenshot_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("../gui-e2e");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The page's thinking limit set to `nodes` iterations with its controls.
fn set_nodes(s: &Session, nodes: u32) {
    s.js(&format!(
        "const k = document.getElementById('limit-kind'); k.value = 'nodes'; \
          const v = document.getElementById('limit-value'); v.value = '{nodes}'; \
          v.dispatchEvent(new Event('change'));"
    ));
    s.wait(10, "the node limit", &format!("return document.getElementById('limit-value').value === '{nodes}' && !document.getElementById('status').classList.contains('error');"));
}

/// The page opened on `gui`'s board, set to two players on one screen
/// (the engine thinking `nodes` iterations when asked).
fn open_two_players(s: &Session, gui: &GuiProcess, nodes: u32) {
    s.call("POST", "/url", json!({ "url": gui.url() }));
    s.wait(30, "the board", "return document.querySelectorAll('[data-cell]').length === 81 && document.getElementById('status').textContent.length > 0;");
    let mode =
        json!({ "cmd": "mode", "mode": "hvh", "limit": { "kind": "nodes", "nodes": nodes } });
    let r = gui_common::api(&gui.addr, &mode.to_string());
    assert_eq!(r.status, 200, "{}", r.body);
    s.wait(
        10,
        "two players",
        "return document.body.dataset.turn === 'human';",
    );
}

#[test]
fn plays_a_game_and_analyses_in_the_browser() {
    let Some(chromedriver) = chromedriver_or_skip() else {
        return;
    };
    let gui = GuiProcess::start(&[]);
    let driver = start_driver(&chromedriver);
    let s = new_session(&driver);
    s.call("POST", "/url", json!({ "url": gui.url() }));
    s.wait(30, "the board", "return document.querySelectorAll('rect.hit').length === 81 && document.querySelector('#status').textContent.length > 0;");

    // A quick engine: 300 iterations a move, set with the page's controls.
    set_nodes(&s, 300);

    // An illegal click says why and changes nothing.
    s.click("rect.hit[data-i='40']"); // e5
    s.wait(
        30,
        "the engine's reply",
        // The turn is the human's before the click is answered too: wait
        // for both moves in the list.
        "return document.querySelectorAll('#moves .mv').length === 2 && document.body.dataset.turn === 'human';",
    );
    let illegal = s.js("const l = [...document.querySelectorAll('rect.cell')].findIndex(c => !c.classList.contains('legal') && c.id !== 'c40'); return l;");
    let illegal = illegal.as_u64().expect("an illegal cell");
    s.click(&format!("rect.hit[data-i='{illegal}']"));
    s.wait(
        10,
        "the refusal",
        "return document.querySelector('#status').classList.contains('error');",
    );
    let refusal = s.text("#status");
    assert!(
        refusal.contains("the move must be on") || refusal.contains("taken"),
        "{refusal}"
    );

    // Play the game out: always the first legal cell.
    let mut clicks = 1;
    let started = Instant::now();
    loop {
        let turn = s.wait(60, "the person's turn or the end", "const t = document.body.dataset.turn; return (t === 'human' || t === 'over') ? t : null;");
        let turn = turn.as_str().unwrap().to_string();
        if turn == "over" {
            break;
        }
        let cell = s
            .js("return [...document.querySelectorAll('rect.cell')].findIndex(c => c.classList.contains('legal'));")
            .as_i64()
            .unwrap();
        assert!(cell >= 0, "no legal cell while it is my move");
        let before = s.js("return document.querySelectorAll('#moves .mv').length;");
        s.click(&format!("rect.hit[data-i='{cell}']"));
        clicks += 1;
        s.wait(
            10,
            "my move on the page",
            &format!("return document.querySelectorAll('#moves .mv').length > {before};"),
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the game takes too long"
        );
    }
    let result = s.text("#status");
    let state = gui_common::state(&gui.addr);
    let outcome = state["outcome"]
        .as_str()
        .expect("the game is over")
        .to_string();
    let moves = state["moves"].as_array().unwrap().len();
    // The page shows what the server has: every mark, the result.
    let marks = s.js("return document.querySelectorAll('.marks g.x, .marks circle.o').length;");
    assert_eq!(marks.as_u64().unwrap() as usize, moves);
    let list = s.js("return document.querySelectorAll('#moves .mv').length;");
    assert_eq!(list.as_u64().unwrap() as usize, moves);
    let expected = if outcome == "draw" {
        "a draw".to_string()
    } else {
        format!("{outcome} wins")
    };
    assert!(result.contains(&expected), "{result} / {outcome}");

    // Step back four moves with the arrow key, then analysis on with `f`.
    for _ in 0..4 {
        s.key("\u{E012}"); // ArrowLeft
    }
    s.wait(10, "stepping back", &format!("return document.querySelector('#moves .mv.current') && [...document.querySelectorAll('#moves .mv')].indexOf(document.querySelector('#moves .mv.current')) === {};", moves - 5));
    let pressed = Instant::now();
    s.key("f");
    s.wait(
        30,
        "analysis lines",
        "return document.querySelectorAll('#lines tr').length > 0;",
    );
    let first_line = pressed.elapsed();
    let first_pv = s.text("#lines tr .pvmove.first");
    assert!(first_pv.len() == 2, "a move in the line: {first_pv:?}");
    s.click("#heat");
    s.wait(10, "the heat map", HEAT_SHOWN);

    let dir = screenshot_dir();
    let desktop = s.screenshot(&dir.join("desktop.png"));
    s.resize(390, 844);
    s.wait(10, "the phone layout", PHONE_LAYOUT);
    let phone = s.screenshot(&dir.join("phone.png"));
    assert!(desktop > 1000 && phone > 1000);

    let page: usize = ["/", "/app.js", "/style.css"]
        .iter()
        .map(|p| gui_common::get(&gui.addr, p).body.len())
        .sum();
    let _ = writeln!(
        std::io::stderr(),
        "gui_browser: clicked {clicks} legal moves and one illegal (refused: {refusal:?}); {moves} moves in all; \
         page shows {result:?}; first analysis line {} ms after 'f'; page {page} bytes; \
         screenshots in {}",
        first_line.as_millis(),
        dir.display()
    );
    s.call("DELETE", "", json!(null));
}

/// The heat map is on and drawn over the board (from the live analysis).
const HEAT_SHOWN: &str = "return document.getElementById('heat').checked \
    && document.querySelectorAll('rect.heatcell').length > 0;";

/// The window is narrow enough for the page's phone layout (style.css's
/// `@media (max-width: 760px)`).
const PHONE_LAYOUT: &str = "return window.matchMedia('(max-width: 760px)').matches;";

/// A count on the page.
fn count(s: &Session, css: &str) -> u64 {
    s.js(&format!(
        "return document.querySelectorAll(\"{css}\").length;"
    ))
    .as_u64()
    .unwrap()
}

/// Super 1 al 5 in the browser: the game chosen with the selector, a move
/// by two clicks (the piece, then one of the destinations shown), a click
/// elsewhere that cancels, the engine's answer, a capture, and a position
/// with a super piece set up (screenshot target/gui-e2e/super15.png).
#[test]
fn plays_super15_in_the_browser() {
    let Some(chromedriver) = chromedriver_or_skip() else {
        return;
    };
    let gui = GuiProcess::start(&[]);
    let driver = start_driver(&chromedriver);
    let s = new_session(&driver);
    s.call("POST", "/url", json!({ "url": gui.url() }));
    s.wait(30, "the board", "return document.querySelectorAll('rect.hit').length === 81 && document.querySelector('#status').textContent.length > 0;");
    set_nodes(&s, 300);
    s.js("const g = document.getElementById('game'); g.value = 'super15'; g.dispatchEvent(new Event('change'));");
    s.wait(10, "the Super 1 al 5 board", "return document.body.dataset.game === 'super15' && document.querySelectorAll('rect.hit').length === 80 && document.body.dataset.turn === 'human';");
    assert_eq!(count(&s, ".piece"), 32);
    assert_eq!(count(&s, ".piece.x"), 16);
    assert_eq!(count(&s, "rect.sq.central"), 4);
    assert_eq!(s.text(".labels"), "abcdefghij12345678");

    // The piece on e2: its destinations are the server's legal moves from e2.
    let state = gui_common::state(&gui.addr);
    let from_e2 = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.as_str().unwrap().starts_with("e2"))
        .count() as u64;
    assert!(from_e2 > 0);
    s.click("rect.hit[data-sq='e2']");
    assert_eq!(count(&s, ".dests .dest"), from_e2);
    assert_eq!(count(&s, ".selsq"), 1);
    // A click elsewhere cancels; nothing is sent.
    s.click("rect.hit[data-sq='a5']");
    assert_eq!(count(&s, ".dests .dest"), 0);
    assert_eq!(count(&s, ".selsq"), 0);
    // A click on a cell the piece cannot reach cancels too.
    s.click("rect.hit[data-sq='e2']");
    s.click("rect.hit[data-sq='e4']"); // a central cell
    assert_eq!(count(&s, ".dests .dest"), 0);
    assert_eq!(gui_common::state(&gui.addr)["moves"], json!([]));

    // e2 -> e3 by two clicks, and the engine answers.
    s.click("rect.hit[data-sq='e2']");
    s.click("rect.hit[data-sq='e3']");
    s.wait(
        60,
        "the engine's answer",
        "return document.querySelectorAll('#moves .mv').length === 2 && document.body.dataset.turn === 'human';",
    );
    let state = gui_common::state(&gui.addr);
    assert_eq!(state["moves"][0], "e2e3");
    let answer = state["moves"][1].as_str().unwrap().to_string();
    assert_eq!(s.text("#moves"), format!("1.e2e3{answer}"));
    assert_eq!(count(&s, ".piece[data-sq='e3'].x"), 1);
    assert_eq!(count(&s, ".piece[data-sq='e2']"), 0);
    // The last move is marked, from and to.
    assert_eq!(count(&s, ".lastsq"), 2);

    // A position with a super piece: x's 4 on e6 with 10 points.
    let fen = ".o2o3o4.o5o4o3o2./.o1o1.o3.o2.../....X4(10)...../..o2(1)......./\
               ........../....x3...../..x1x2.x3x2x1x1./.x2x3.x5x5x4x3x2. x 3 12";
    s.js(&format!(
        "document.getElementById('setup-fen').value = '{fen}'; document.getElementById('setup').click();"
    ));
    s.wait(10, "the set-up position", "return document.querySelectorAll('.piece.super').length === 1 && document.querySelectorAll('#moves .mv').length === 0;");
    assert_eq!(count(&s, ".piece.super[data-sq='e6'] .star"), 1);
    assert_eq!(s.text(".piece[data-sq=e6] .pts"), "10");
    assert_eq!(s.text(".piece[data-sq=c5] .pts"), "1");
    let pieces = count(&s, ".piece");
    // The super piece takes e7's 3 (the only piece on its line north).
    s.click("rect.hit[data-sq='e6']");
    assert_eq!(
        count(&s, ".dests .dest.capture[cx='45']"),
        1,
        "e7 is a capture"
    );
    s.click("rect.hit[data-sq='e7']");
    s.wait(
        60,
        "the capture and the engine's answer",
        "return document.querySelectorAll('#moves .mv').length === 2 && document.body.dataset.turn === 'human';",
    );
    let state = gui_common::state(&gui.addr);
    assert_eq!(state["moves"][0], "e6e7");
    let on_board = state["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p.is_null())
        .count() as u64;
    assert_eq!(
        count(&s, ".piece"),
        on_board,
        "the page shows the server's pieces"
    );
    assert!(on_board < pieces, "the captured piece is gone");

    // The position again with two moves, analysis on and the super piece
    // chosen: the screenshot.
    s.js("document.getElementById('setup-moves').value = 'c2c3 b7b6'; document.getElementById('setup').click();");
    s.wait(10, "the set-up position again", "return document.querySelectorAll('.piece.super').length === 1 && document.querySelectorAll('#moves .mv').length === 2;");
    s.key("f");
    s.wait(
        30,
        "analysis lines",
        "return document.querySelectorAll('#lines tr').length > 0;",
    );
    let first_pv = s.text("#lines tr .pvmove.first");
    assert_eq!(first_pv.len(), 4, "a Super 1 al 5 move: {first_pv:?}");
    s.click("rect.hit[data-sq='e6']");
    s.wait(
        10,
        "the super piece's destinations",
        "return document.querySelectorAll('rect.selsq').length === 1 \
         && document.querySelectorAll('circle.dest').length > 0;",
    );
    let dir = screenshot_dir();
    let desktop = s.screenshot(&dir.join("super15.png"));
    s.resize(390, 844);
    s.wait(10, "the phone layout", PHONE_LAYOUT);
    let phone = s.screenshot(&dir.join("super15-phone.png"));
    assert!(desktop > 1000 && phone > 1000);
    let _ = writeln!(
        std::io::stderr(),
        "gui_browser: Super 1 al 5: e2e3 by two clicks, engine answered {answer}; \
         a super piece's capture e6e7; screenshots in {}",
        dir.display()
    );
    s.call("DELETE", "", json!(null));
}

/// PGN in the browser: a pasted PGN of Super 1 al 5 loads (the page
/// switches game), a broken one is refused on the status line with its
/// line and the game kept, and Save game downloads
/// `ultimo-YYYYMMDD-HHMMSS.pgn` holding the server's PGN.
#[test]
fn saves_and_loads_pgn_in_the_browser() {
    let Some(chromedriver) = chromedriver_or_skip() else {
        return;
    };
    let gui = GuiProcess::start(&[]);
    let driver = start_driver(&chromedriver);
    let s = new_session(&driver);
    open_two_players(&s, &gui, 100);

    let paste = |text: &str| {
        s.js(&format!(
            "document.getElementById('load-text').value = {}; document.getElementById('load-paste').click();",
            json!(text)
        ));
    };
    paste(
        "[Event \"e\"]\n[White \"p\"]\n[Black \"q\"]\n[Result \"*\"]\n[Variant \"Super 1 al 5\"]\n\n1. e2e3 e7e6 *\n",
    );
    s.wait(10, "the loaded Super 1 al 5 game", "return document.body.dataset.game === 'super15' && document.querySelectorAll('#moves .mv').length === 2;");
    assert_eq!(s.text("#moves"), "1.e2e3e7e6");
    assert!(s.text("#status").contains("p - q"), "{}", s.text("#status"));

    paste("[Event \"e\"]\n\n1. e5 e4 2. z9 *\n");
    s.wait(
        10,
        "the refusal",
        "return document.querySelector('#status').classList.contains('error');",
    );
    let refusal = s.text("#status");
    assert!(refusal.starts_with("line 3: move 2. z9"), "{refusal}");
    assert_eq!(
        gui_common::state(&gui.addr)["moves"],
        json!(["e2e3", "e7e6"])
    );

    // Save: the download's name and text (the link's click and its blob
    // are caught; the page's CSP lets no script fetch a blob: URL).
    s.js("const make = URL.createObjectURL; \
          URL.createObjectURL = (b) => { b.text().then(t => { window.savedText = t; }); return make(b); }; \
          HTMLAnchorElement.prototype.click = function () { window.savedName = this.download; }; \
          document.getElementById('save').click();");
    let text = s.wait(10, "the saved file", "return window.savedText || null;");
    let text = text.as_str().unwrap();
    let name = s.js("return window.savedName;");
    let name = name.as_str().unwrap();
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let stamp = name
        .strip_prefix("ultimo-")
        .and_then(|n| n.strip_suffix(".pgn"))
        .and_then(|n| n.split_once('-'))
        .filter(|(d, t)| d.len() == 8 && t.len() == 6 && digits(d) && digits(t));
    assert!(stamp.is_some(), "{name}");
    assert_eq!(text, gui_common::state(&gui.addr)["record"]);
    assert!(
        text.starts_with("[Event \"ultimo gui\"]") && text.contains("1. e2e3 e7e6 *"),
        "{text}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "gui_browser: PGN pasted and loaded, a broken one refused ({refusal:?}), saved as {name}"
    );
    s.call("DELETE", "", json!(null));
}

/// Sets the page's theme with its switch ("light", "dark" or "auto").
fn set_theme(s: &Session, theme: &str) {
    s.js(&format!(
        "const t = document.getElementById('theme'); t.value = '{theme}'; t.dispatchEvent(new Event('change'));"
    ));
}

/// The page's stable hooks and the board's details, as issue 20 lists
/// them: data-cell/data-mark/data-legal on every cell, data-ply in the move
/// list, coordinates a-i and 1-9, flip, typed moves, the eval bar's number,
/// the analysis header (depth, nodes/s) and best-move marker, the move list
/// in numbered pairs, resignation in the record, sharing links (both
/// games), dark mode, sound kept off by default and remembered, a
/// favicon, ARIA labels, an empty Think box refused on the page, and the
/// Super 1 al 5 hooks (data-square, data-piece). Screenshots at desktop
/// and phone width, light and dark, both games, in target/gui-e2e/.
#[test]
fn board_details_and_hooks_in_the_browser() {
    let Some(chromedriver) = chromedriver_or_skip() else {
        return;
    };
    let gui = GuiProcess::start(&[]);
    let driver = start_driver(&chromedriver);
    let s = new_session(&driver);
    open_two_players(&s, &gui, 200);

    // Hooks: every cell, all free and legal at the start.
    assert_eq!(count(&s, "[data-cell][data-mark='']"), 81);
    assert_eq!(count(&s, "[data-cell][data-legal='true']"), 81);
    assert_eq!(count(&s, "[data-cell='e5'][aria-label]"), 1);
    assert_eq!(s.text("#board .labels"), "a1b2c3d4e5f6g7h8i9");
    assert_eq!(count(&s, "link[rel='icon']"), 1);
    assert_eq!(
        s.js("return document.getElementById('sound').checked;"),
        json!(false)
    );

    // A typed move, then a click: marks, legal cells and the move list.
    s.js("const i = document.getElementById('move-input'); i.value = 'e5';");
    s.click("#move-input");
    s.key("\u{E007}"); // Enter
    s.wait(
        10,
        "the typed move",
        "return document.querySelector(\"[data-cell='e5']\").dataset.mark === 'x';",
    );
    assert_eq!(count(&s, "[data-cell][data-legal='true']"), 8);
    assert_eq!(count(&s, "[data-cell='e4'][data-legal='true']"), 1);
    s.click("rect.hit[data-cell='e4']");
    s.wait(
        10,
        "the clicked move",
        "return document.querySelectorAll('#moves [data-ply]').length === 2;",
    );
    assert_eq!(s.text("#moves"), "1.e5e4");
    assert_eq!(count(&s, "#moves [data-ply='2'].current"), 1);
    assert_eq!(count(&s, "rect.sub.playable"), 1);

    // Flip: the coordinates turn round, and it is remembered.
    s.click("#flip");
    assert_eq!(s.text("#board .labels"), "a1b2c3d4e5f6g7h8i9");
    let first_file_x =
        s.js("return +document.querySelector('#board .labels text').getAttribute('x');");
    assert_eq!(first_file_x, json!(85));
    s.key("r");
    assert_eq!(
        s.js("return +document.querySelector('#board .labels text').getAttribute('x');"),
        json!(5)
    );

    // An empty Think box is refused on the page, not by the server.
    s.js("const v = document.getElementById('limit-value'); v.value = ''; v.dispatchEvent(new Event('change'));");
    let refusal = s.text("#status");
    assert!(
        refusal.starts_with("Think: '' is not a number"),
        "{refusal}"
    );
    // A later success clears it.
    s.click("#move-input");
    s.js("document.getElementById('move-input').value = 'd2';");
    s.key("\u{E007}");
    s.wait(10, "the refusal cleared", "return !document.getElementById('status').classList.contains('error') && document.querySelectorAll('#moves [data-ply]').length === 3;");

    // Analysis: lines, the header, the eval bar's number and the arrow
    // (keys go to the page, not to the move box).
    s.js("document.activeElement.blur();");
    s.key("f");
    s.wait(30, "analysis", "return document.querySelectorAll('#lines tr').length > 0 && document.getElementById('ana-depth').textContent.startsWith('depth');");
    assert!(s.text("#ana-nps").ends_with("nodes/s"));
    assert!(s.text("#evaltext").ends_with('%'));
    let arrow = s.wait(
        10,
        "the best-move arrow",
        "const a = document.querySelector('.best-arrow'); return a && a.dataset.move;",
    );
    let best = s.text("#lines tr .pvmove.first");
    assert_eq!(arrow, json!(best));
    s.key("f");

    // Sharing: the link opens the same game in another page.
    s.click("#share");
    let link = s.wait(
        10,
        "the link",
        "return document.getElementById('share').dataset.link;",
    );
    let link = link.as_str().unwrap().to_string();
    assert!(link.ends_with("/?moves=e5+e4+d2"), "{link}");
    let r = gui_common::api(&gui.addr, r#"{"cmd":"new"}"#);
    assert_eq!(r.status, 200);
    s.call("POST", "/url", json!({ "url": link }));
    s.wait(30, "the shared game", "return document.querySelectorAll('#moves [data-ply]').length === 3 && location.search === '';");

    // Resignation: the record's result and termination.
    s.click("#resign");
    s.wait(
        10,
        "the resignation",
        "return document.body.dataset.turn === 'over';",
    );
    let status = s.text("#status");
    assert!(status.contains("o resigns"), "{status}");
    let state = gui_common::state(&gui.addr);
    let record = state["record"].as_str().unwrap();
    assert!(
        record.contains("[Result \"1-0\"]") && record.contains("[Termination \"normal\"]"),
        "{record}"
    );

    // Sound on is remembered across a reload.
    s.click("#sound");
    s.call("POST", "/url", json!({ "url": gui.url() }));
    s.wait(
        30,
        "the page again",
        "return document.querySelectorAll('[data-cell]').length === 81;",
    );
    assert_eq!(
        s.js("return document.getElementById('sound').checked;"),
        json!(true)
    );

    // Screenshots: a game with a whole-game analysis, light and dark.
    let dir = screenshot_dir();
    let game =
        "f5 h6 f9 g8 a6 b7 e3 d8 c6 g7 c2 g6 a9 c7 i1 i3 h9 d7 a3 a7 b3 d9 i4 g1 a1 a2 b6 g9";
    let r = gui_common::api(
        &gui.addr,
        &json!({ "cmd": "setup", "moves": game }).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    s.click("#scan");
    s.wait(120, "the whole-game analysis", "return document.getElementById('scan').textContent === 'Analyse game' && !document.getElementById('summary').hidden;");
    let summary = s.text("#summary");
    assert!(summary.contains("average loss"), "{summary}");
    let marks = count(&s, "#moves .mark");
    assert_eq!(
        marks,
        count(&s, "#graph .mistake"),
        "the list and the graph agree"
    );
    // Ten moves back, before x's first blunder (10. a3??): a position
    // still open, with a heat map and a best move to show.
    for _ in 0..10 {
        s.key("\u{E012}"); // ArrowLeft
    }
    s.key("f");
    s.wait(
        30,
        "analysis",
        "return document.querySelectorAll('#lines tr').length > 0;",
    );
    s.click("#heat");
    for theme in ["light", "dark"] {
        set_theme(&s, theme);
        s.resize(1280, 900);
        s.screenshot(&dir.join(format!("uttt-desktop-{theme}.png")));
        s.resize(390, 844);
        s.wait(10, "the phone layout", PHONE_LAYOUT);
        s.screenshot(&dir.join(format!("uttt-phone-{theme}.png")));
    }
    let bg = s.js("return getComputedStyle(document.body).backgroundColor;");
    assert_ne!(
        bg,
        json!("rgb(246, 244, 239)"),
        "dark is not the light background"
    );
    s.resize(1280, 900);
    // The Heat map checkbox has the focus, and keys there are not the page's.
    s.js("document.activeElement.blur();");
    s.key("f");
    s.wait(
        10,
        "analysis off",
        "return document.getElementById('status').textContent.includes('analysis off');",
    );

    // Super 1 al 5 from a link: its hooks, and its screenshots.
    let url = format!("{}?game=super15&moves=e2e3+e7e6+c2c3", gui.url());
    s.call("POST", "/url", json!({ "url": url }));
    s.wait(30, "the Super 1 al 5 game", "return document.body.dataset.game === 'super15' && document.querySelectorAll('#moves [data-ply]').length === 3;");
    assert_eq!(count(&s, "[data-square]"), 80);
    assert_eq!(count(&s, "[data-square][data-piece]"), 32);
    assert_eq!(count(&s, "[data-square='e3'][data-piece^='x']"), 1);
    s.key("f");
    s.wait(30, "analysis", "return document.querySelectorAll('#lines tr').length > 0 && document.querySelector('.best-arrow');");
    for theme in ["light", "dark"] {
        set_theme(&s, theme);
        s.resize(1280, 900);
        s.screenshot(&dir.join(format!("super15-desktop-{theme}.png")));
        s.resize(390, 844);
        s.wait(10, "the phone layout", PHONE_LAYOUT);
        let buttons = s.js("return [...document.querySelectorAll('#nav button')].every(b => b.getBoundingClientRect().height >= 40);");
        assert_eq!(buttons, json!(true), "phone buttons at least 40 px");
        s.screenshot(&dir.join(format!("super15-phone-{theme}.png")));
    }
    let _ = writeln!(
        std::io::stderr(),
        "gui_browser: hooks, flip, typed moves, sharing, resignation, themes checked; \
         the issue's game reviewed: {marks} marks, {summary:?}; screenshots in {}",
        dir.display()
    );
    s.call("DELETE", "", json!(null));
}

#[test]
fn solves_the_position_shown_in_the_browser() {
    let Some(chromedriver) = chromedriver_or_skip() else {
        return;
    };
    let gui = GuiProcess::start(&[]);
    let driver = start_driver(&chromedriver);
    let s = new_session(&driver);
    s.call("POST", "/url", json!({ "url": gui.url() }));
    s.wait(30, "the board", "return document.querySelectorAll('rect.hit').length === 81 && document.querySelector('#status').textContent.length > 0;");
    let r = gui_common::api(
        &gui.addr,
        r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"nodes","nodes":100}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // x wins at once with i3.
    let r = gui_common::api(
        &gui.addr,
        r#"{"cmd":"setup","fen":"xxx6/1o1o1o3/o8/3xxx3/3o1o3/2o6/6xx1/6o2/9 x 9 c4"}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    s.wait(
        10,
        "the position",
        "return document.getElementById('fen').value.startsWith('xxx6/');",
    );
    s.click("#solve");
    let shown = s.wait(
        30,
        "the solver's result",
        "const t = document.getElementById('solve-info').textContent; return t.length ? t : null;",
    );
    assert_eq!(shown, json!("proven: x wins in 1 ply: i3"));
    assert_eq!(s.text("#solve"), "Solve");
    // The result goes with its position.
    let r = gui_common::api(&gui.addr, r#"{"cmd":"play","mv":"i3"}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    s.wait(
        10,
        "the result cleared",
        "return document.getElementById('solve-info').textContent === '';",
    );
    let _ = writeln!(std::io::stderr(), "gui_browser: Solve showed {shown}");
}
