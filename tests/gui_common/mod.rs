//! Shared by the GUI tests: start `ultimo gui`, and a minimal HTTP/1.1
//! client over a TCP stream (requests with any headers, bodies read to the
//! end or line by line for the event stream).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `ultimo gui`; killed when dropped.
pub struct GuiProcess {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl GuiProcess {
    pub fn start(args: &[&str]) -> GuiProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ultimo"));
        command.arg("gui").args(args);
        GuiProcess::start_command(command)
    }

    /// `ultimo gui` with at most `fds` open file descriptors (Unix: `sh`'s
    /// `ulimit -n`).
    pub fn start_with_fds(fds: u32) -> GuiProcess {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -n {fds} && exec \"$0\" gui"))
            .arg(env!("CARGO_BIN_EXE_ultimo"));
        GuiProcess::start_command(command)
    }

    fn start_command(mut command: Command) -> GuiProcess {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ultimo gui starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the URL line");
        let url = line
            .trim()
            .strip_prefix("Ultimo GUI: http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        GuiProcess {
            child,
            addr: url.trim_end_matches('/').to_string(),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for GuiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP response: status, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request to `addr` (`host:port`) with `headers` as given (no
/// `Host` is added), and reads the whole response.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    let mut raw = Vec::new();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).unwrap();
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        raw = vec![0; n];
        reader.read_exact(&mut raw).unwrap();
    } else {
        let _ = reader.read_to_end(&mut raw);
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&raw).into_owned(),
    }
}

pub fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    (status, headers)
}

/// `GET` with the server's own Host.
pub fn get(addr: &str, path: &str) -> Reply {
    request(addr, "GET", path, &[("Host", addr)], b"")
}

/// A command to `/api` as the page sends it.
pub fn api(addr: &str, json: &str) -> Reply {
    let origin = format!("http://{addr}");
    request(
        addr,
        "POST",
        "/api",
        &[
            ("Host", addr),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        json.as_bytes(),
    )
}

/// The server's state.
pub fn state(addr: &str) -> serde_json::Value {
    get(addr, "/state").json()
}

/// Waits (up to `secs`) until `ok` holds for the state, and returns it.
pub fn wait_state(
    addr: &str,
    secs: u64,
    what: &str,
    ok: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let s = state(addr);
        if ok(&s) {
            return s;
        }
        if std::time::Instant::now() > deadline {
            panic!("timed out waiting for {what}; state: {s}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A fake UGI engine (a shell script): answers the handshake; on `go` it
/// does what `on_go` says ($n counts the `go`s).
pub fn fake_engine(name: &str, on_go: &str) -> String {
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
