//! The `ultimo gui` server over HTTP: the page and its assets, every
//! command, bad commands, the Host/Origin check, the event stream, and
//! engines that crash, hang or play illegal moves.

mod gui_common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use gui_common::{GuiProcess, api, get, request, state, wait_state};

#[test]
fn serves_the_page_only_to_its_own_origin() {
    let gui = GuiProcess::start(&[]);
    let addr = gui.addr.as_str();
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<svg id=\"board\""));
    assert!(page.header("content-security-policy").is_some());
    assert_eq!(
        get(addr, "/app.js").header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(get(addr, "/style.css").status, 200);
    assert_eq!(get(addr, "/nothing").status, 404);
    assert_eq!(
        request(addr, "DELETE", "/state", &[("Host", addr)], b"").status,
        405
    );
    let port = addr.rsplit(':').next().unwrap();
    let localhost = format!("localhost:{port}");
    assert_eq!(
        request(addr, "GET", "/", &[("Host", &localhost)], b"").status,
        200
    );
    // DNS rebinding: another name for this address.
    let evil_host = format!("evil.example:{port}");
    let r = request(addr, "GET", "/state", &[("Host", &evil_host)], b"");
    assert_eq!(r.status, 403);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("is not this server")
    );
    // No Host at all, or another port.
    assert_eq!(request(addr, "GET", "/state", &[], b"").status, 403);
    assert_eq!(
        request(addr, "GET", "/", &[("Host", "127.0.0.1:1")], b"").status,
        403
    );
    // A cross-site command.
    let r = request(
        addr,
        "POST",
        "/api",
        &[
            ("Host", addr),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        br#"{"cmd":"new"}"#,
    );
    assert_eq!(r.status, 403);
    // A form post (no preflight) is not a command.
    let r = request(
        addr,
        "POST",
        "/api",
        &[("Host", addr), ("Content-Type", "text/plain")],
        br#"{"cmd":"new"}"#,
    );
    assert_eq!(r.status, 415);
    assert_eq!(state(addr)["version"], 0, "nothing was changed");
}

#[test]
fn carries_out_every_command_and_refuses_bad_ones() {
    let gui = GuiProcess::start(&[]);
    let a = gui.addr.as_str();
    let ok = |json: &str| {
        let r = api(a, json);
        assert_eq!(r.status, 200, "{json}: {}", r.body);
        assert_eq!(r.json()["ok"], true);
    };
    let refused = |json: &str, why: &str| {
        let before = state(a)["version"].clone();
        let r = api(a, json);
        assert_eq!(r.status, 400, "{json}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(error.contains(why), "{json}: {error}");
        assert_eq!(state(a)["version"], before, "{json} changed something");
    };
    ok(r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"nodes","nodes":500}}"#);
    ok(r#"{"cmd":"play","mv":"e5"}"#);
    refused(r#"{"cmd":"play","mv":"a1"}"#, "must be on the centre board");
    refused(r#"{"cmd":"play","mv":"e5"}"#, "already taken");
    refused(r#"{"cmd":"play","mv":"zz"}"#, "is not a cell");
    ok(r#"{"cmd":"play","mv":"e4"}"#);
    ok(r#"{"cmd":"goto","ply":1}"#);
    assert_eq!(state(a)["cursor"], 1);
    refused(r#"{"cmd":"goto","ply":9}"#, "past the end");
    ok(r#"{"cmd":"goto","ply":2}"#);
    ok(r#"{"cmd":"undo"}"#);
    assert_eq!(state(a)["moves"].as_array().unwrap().len(), 1);
    ok(r#"{"cmd":"setup","fen":"","moves":"e5 e4 d2"}"#);
    let s = state(a);
    assert_eq!(s["moves"], serde_json::json!(["e5", "e4", "d2"]));
    refused(r#"{"cmd":"setup","fen":"9/9 x","moves":""}"#, "bad FEN");
    refused(
        r#"{"cmd":"setup","moves":"e5 a1"}"#,
        "move 2 (a1) is illegal",
    );
    let record = s["record"].as_str().unwrap().to_string();
    ok(r#"{"cmd":"new"}"#);
    assert_eq!(state(a)["moves"], serde_json::json!([]));
    let load = serde_json::json!({ "cmd": "load", "text": record }).to_string();
    ok(&load);
    assert_eq!(state(a)["moves"], serde_json::json!(["e5", "e4", "d2"]));
    refused(r#"{"cmd":"load","text":""}"#, "empty");
    ok(r#"{"cmd":"analysis","on":true,"multipv":2,"engine":0}"#);
    let s = wait_state(a, 60, "analysis lines", |s| {
        s["live"]["lines"].as_array().is_some_and(|l| l.len() == 2)
    });
    let line = &s["live"]["lines"][0];
    assert_eq!(line["pv"][0], line["mv"]);
    assert_eq!(s["live"]["heat"].as_array().unwrap().len(), 81);
    refused(
        r#"{"cmd":"analysis","on":true,"multipv":0}"#,
        "lines must be 1 to 9",
    );
    ok(r#"{"cmd":"analysis","on":false}"#);
    ok(r#"{"cmd":"scan"}"#);
    let s = wait_state(a, 120, "whole-game analysis", |s| s["scanning"] == false);
    let scan = s["scan"].as_array().unwrap();
    assert_eq!(scan.len(), 4);
    assert!(
        scan.iter()
            .all(|q| q.as_f64().is_some_and(|q| (0.0..=1.0).contains(&q)))
    );
    // Engine against engine: paused until started, then plays to the end.
    ok(r#"{"cmd":"mode","mode":"eve","x":0,"o":0,"limit":{"kind":"nodes","nodes":200}}"#);
    assert_eq!(state(a)["paused"], true);
    ok(r#"{"cmd":"pause","paused":false}"#);
    let s = wait_state(a, 300, "the end of an engine game", |s| {
        !s["outcome"].is_null()
    });
    assert!(s["moves"].as_array().unwrap().len() > 3);
    refused(r#"{"cmd":"restart","seat":7}"#, "there is no seat 7");
    ok(r#"{"cmd":"restart","seat":0}"#);
    refused(
        r#"{"cmd":"mode","mode":"hve","limit":{"kind":"movetime","ms":1}}"#,
        "10 ms to 1 hour",
    );
    refused(
        r#"{"cmd":"mode","mode":"hve","o":3,"limit":{"kind":"nodes","nodes":9}}"#,
        "there is no engine 3",
    );
    // Messages that are not commands.
    for bad in [
        "",
        "{",
        "[]",
        r#"{"cmd":"rm -rf"}"#,
        r#"{"cmd":"play"}"#,
        r#"{"cmd":"play","mv":5}"#,
        r#"{"cmd":"goto","ply":-1}"#,
        r#"{"cmd":"new","extra":1}"#,
        r#"{"cmd":"mode","mode":"hve","limit":{"kind":"nodes","nodes":9},"engine":"cmd=/bin/sh"}"#,
    ] {
        refused(bad, "bad command");
    }
    let huge = format!(r#"{{"cmd":"load","text":"{}"}}"#, "e5 ".repeat(100_000));
    let r = api(a, &huge);
    assert_eq!(r.status, 413);
    let r = request(
        a,
        "POST",
        "/api",
        &[("Host", a), ("Content-Type", "application/json")],
        b"\xff\xfe{}",
    );
    assert_eq!(r.status, 400);
    // Still up.
    assert_eq!(get(a, "/state").status, 200);
}

#[test]
fn streams_the_state_as_server_sent_events() {
    let gui = GuiProcess::start(&[]);
    let a = gui.addr.as_str();
    let mut stream = TcpStream::connect(a).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(stream, "GET /events HTTP/1.1\r\nHost: {a}\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream);
    let (status, headers) = gui_common::read_head(&mut reader);
    assert_eq!(status, 200);
    assert!(headers.contains(&("content-type".into(), "text/event-stream".into())));
    let mut next_state = || loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if let Some(json) = line.strip_prefix("data: ") {
            return serde_json::from_str::<serde_json::Value>(json).unwrap();
        }
    };
    assert_eq!(next_state()["moves"], serde_json::json!([]));
    api(
        a,
        r#"{"cmd":"mode","mode":"hvh","limit":{"kind":"nodes","nodes":9}}"#,
    );
    api(a, r#"{"cmd":"play","mv":"e5"}"#);
    loop {
        if next_state()["moves"] == serde_json::json!(["e5"]) {
            break;
        }
    }
}

/// A fake UGI engine (a shell script): answers the handshake; on `go` it
/// does what `on_go` says ($n counts the `go`s).
fn fake_engine(name: &str, on_go: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-engines");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sh"));
    let script = format!(
        "n=0\nwhile read -r c rest; do\n case $c in\n  ugi) echo 'id name {name}'; echo ugiok;;\n  \
         isready) echo readyok;;\n  go) n=$((n+1)); {on_go};;\n  quit) exit 0;;\n esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    format!("cmd=sh arg={} name={name}", path.display())
}

#[cfg(unix)]
#[test]
fn engines_that_fail_are_reported_and_the_game_is_kept() {
    let dies = fake_engine(
        "dies",
        "if [ $n -ge 2 ]; then exit 1; fi; echo 'info depth 1 score cp 5 pv e4'; echo 'bestmove e4'",
    );
    let hangs = fake_engine("hangs", "true");
    let gui = GuiProcess::start(&["--engine", &dies, "--engine", &hangs]);
    let a = gui.addr.as_str();
    let s = state(a);
    assert_eq!(s["engines"], serde_json::json!(["Ultimo", "dies", "hangs"]));
    let r = api(
        a,
        r#"{"cmd":"mode","mode":"hve","human":"x","o":1,"limit":{"kind":"movetime","ms":100}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    api(a, r#"{"cmd":"play","mv":"e5"}"#);
    wait_state(a, 30, "the fake engine's move", |s| {
        s["moves"].as_array().unwrap().len() == 2
    });
    // Its second `go` kills it.
    api(a, r#"{"cmd":"play","mv":"e2"}"#);
    let s = wait_state(a, 30, "the crash", |s| !s["seats"][1]["error"].is_null());
    let error = s["seats"][1]["error"].as_str().unwrap();
    assert!(error.starts_with("dies "), "{error}");
    assert_eq!(
        s["moves"],
        serde_json::json!(["e5", "e4", "e2"]),
        "the game is kept"
    );
    // Restarted, it answers e4 again, which is taken now: illegal.
    api(a, r#"{"cmd":"restart","seat":1}"#);
    let s = wait_state(a, 30, "the illegal move", |s| {
        s["seats"][1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("illegal"))
    });
    assert!(
        s["seats"][1]["error"].as_str().unwrap().contains("e4"),
        "{}",
        s["seats"][1]["error"]
    );
    assert_eq!(s["moves"].as_array().unwrap().len(), 3);
    // An engine that never answers `go` is reported as hanging.
    api(
        a,
        r#"{"cmd":"mode","mode":"hve","human":"x","o":2,"limit":{"kind":"movetime","ms":100}}"#,
    );
    let s = wait_state(a, 60, "the hang", |s| {
        s["seats"][1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("hang"))
    });
    assert_eq!(s["moves"].as_array().unwrap().len(), 3);
    // Ultimo takes over the game.
    api(
        a,
        r#"{"cmd":"mode","mode":"hve","human":"x","o":0,"limit":{"kind":"nodes","nodes":100}}"#,
    );
    api(a, r#"{"cmd":"restart","seat":1}"#);
    wait_state(a, 30, "Ultimo's move", |s| {
        s["moves"].as_array().unwrap().len() == 4
    });
}
