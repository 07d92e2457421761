//! The GUI's HTTP server: HTTP/1.1 on loopback, one request per
//! connection (every reply says `Connection: close`), within bounds that
//! hostile clients cannot move:
//!
//! - a request's head (request line and headers) is at most [`MAX_HEAD`]
//!   bytes and [`MAX_HEADERS`] headers (past either: 431), and must arrive
//!   within [`HEAD_TIMEOUT`] (else the connection is closed);
//! - a body is at most [`MAX_BODY`] bytes, with a `Content-Length` (past
//!   it: 413; chunked bodies: 411), and must arrive within 30 s of the head;
//! - at most [`MAX_CONNECTIONS`] connections are open at once, each on a
//!   thread of its own. A new one past that closes the oldest connection
//!   that has not sent its head yet or is draining after its reply (idle
//!   ones cannot crowd out the page), or, if every one is busy, is
//!   answered 503;
//! - an error in accepting a connection (no descriptors left, say) is
//!   reported on standard error and the server goes on after closing an
//!   idle connection or a short pause: it never ends.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// Largest request head (request line and headers, with their line ends).
pub const MAX_HEAD: usize = 16 * 1024;
/// Most headers in a request.
pub const MAX_HEADERS: usize = 100;
/// Largest request body (a command; a PGN file to load, escaped as JSON).
pub const MAX_BODY: usize = 2 * 1024 * 1024;
/// Most connections open at once.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a new connection may take to send its head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the body may take, counted from the end of the head.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a write to a client may wait (a page that reads nothing).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// After a reply, what the client still sends is read and dropped, for at
/// most this long and [`DRAIN_BYTES`], so that closing does not reset the
/// connection before the client has read the reply.
const DRAIN_TIME: Duration = Duration::from_secs(5);
/// See [`DRAIN_TIME`].
const DRAIN_BYTES: usize = 8 * 1024 * 1024;

/// A request: its method, target and headers, and its body, read whole.
pub struct Request {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    conn: Conn,
}

/// A connection: its stream, and its number among the server's slots.
#[derive(Clone)]
struct Conn {
    id: u64,
    stream: Arc<TcpStream>,
    slots: Arc<Mutex<Slots>>,
}

impl Request {
    /// The method (`GET`, `POST`, ...), as sent.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The target's path: the target without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The value of the first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body (empty without one).
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Sends `response` and closes the connection.
    pub fn respond(self, response: Response) {
        finish(&self.conn, &response);
    }

    /// The connection, for a reply written as it goes (the event stream):
    /// writes wait at most [`WRITE_TIMEOUT`].
    pub fn into_stream(self) -> Arc<TcpStream> {
        let _ = self.conn.stream.set_write_timeout(Some(WRITE_TIMEOUT));
        self.conn.stream
    }
}

/// A reply: status, headers and body; `Content-Length` and
/// `Connection: close` are added.
pub struct Response {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

impl Response {
    /// A reply with `body` of type `kind`.
    pub fn new(status: u16, kind: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", kind.to_string())],
            body: body.into(),
        }
    }

    /// The reply with one more header.
    pub fn with_header(mut self, name: &'static str, value: &str) -> Response {
        self.headers.push((name, value.to_string()));
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.body.len()
        ));
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.body);
        bytes
    }
}

/// The reason phrase of the statuses the server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// An error reply as the page reads them: `{"error": why}`.
fn refusal(status: u16, why: &str) -> Response {
    Response::new(
        status,
        "application/json",
        serde_json::json!({ "error": why }).to_string(),
    )
}

/// Writes `response`, ends the writing side and drains what the client
/// still sends (see [`DRAIN_TIME`]); the connection closes when the last
/// handle to it is dropped. While it drains, it may be closed to make room
/// for a new one, as an idle one may.
fn finish(conn: &Conn, response: &Response) {
    let stream = &*conn.stream;
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut w = stream;
    if w.write_all(&response.bytes())
        .and_then(|_| w.flush())
        .is_err()
    {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    lock(&conn.slots)
        .evictable
        .push_back((conn.id, Arc::clone(&conn.stream)));
    drain(stream);
    lock(&conn.slots).evictable.retain(|(i, _)| *i != conn.id);
}

/// Reads and drops what the client still sends, for at most
/// [`DRAIN_TIME`] and [`DRAIN_BYTES`].
fn drain(stream: &TcpStream) {
    let deadline = Instant::now() + DRAIN_TIME;
    let mut r = stream;
    let mut buffer = [0u8; 8192];
    let mut drained = 0;
    while drained < DRAIN_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match r.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n,
        }
    }
}

/// Why no request was read from a connection.
enum Unread {
    /// The client went away or was too slow: nothing to answer.
    Gone,
    /// A reply saying what was wrong.
    Refused(u16, &'static str),
}

/// Reads one request from `conn` (the head within [`HEAD_TIMEOUT`] from
/// `start`, then the body within `body_timeout` from the end of the
/// head).
fn read_request(conn: &Conn, start: Instant, body_timeout: Duration) -> Result<Request, Unread> {
    let stream = &conn.stream;
    let mut r = &**stream;
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let end = loop {
        let left = (start + HEAD_TIMEOUT).saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(Unread::Gone);
        }
        // Never more than the cap (plus the 3 bytes of a line end that a
        // chunk boundary may have split) is held.
        let room = (MAX_HEAD + 4 - head.len()).min(chunk.len());
        let n = match r.read(&mut chunk[..room]) {
            Ok(0) => return Err(Unread::Gone),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Unread::Gone),
        };
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&chunk[..n]);
        if let Some(at) = find(&head[from..], b"\r\n\r\n") {
            break from + at;
        }
        if head.len() > MAX_HEAD {
            return Err(Unread::Refused(431, "the request's head is too long"));
        }
    };
    let rest = head.split_off(end + 4);
    head.truncate(end);
    let Head {
        method,
        target,
        headers,
        content_length: length,
    } = read_head(&head)?;
    let mut request = Request {
        method,
        target,
        headers,
        body: rest,
        conn: conn.clone(),
    };
    if request.body.len() > length {
        return Err(Unread::Refused(400, "more data than the Content-Length"));
    }
    let deadline = Instant::now() + body_timeout;
    while request.body.len() < length {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(Unread::Gone);
        }
        let room = (length - request.body.len()).min(chunk.len());
        match r.read(&mut chunk[..room]) {
            Ok(0) => return Err(Unread::Gone),
            Ok(n) => request.body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Unread::Gone),
        }
    }
    Ok(request)
}

/// The body's length that `headers` give: 0 without a `Content-Length`;
/// refused when it is not a plain run of digits (no sign, no list) or when
/// two of them differ (RFC 9112, section 6.3), and as too long when it
/// does not fit in a number.
fn content_length(headers: &[(String, String)]) -> Result<usize, Refusal> {
    let mut length = None;
    for (_, value) in headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Refusal(400, "a bad Content-Length"));
        }
        let n = value
            .parse::<usize>()
            .map_err(|_| Refusal(413, "the command is too long"))?;
        if length.is_some_and(|l| l != n) {
            return Err(Refusal(400, "two different Content-Lengths"));
        }
        length = Some(n);
    }
    Ok(length.unwrap_or(0))
}

/// Whether `b` is a control character that no request line or header
/// value may hold (a tab may stand in a value).
fn is_control(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7f
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A request's head, read and checked by [`read_head`].
#[derive(Debug)]
pub struct Head {
    /// The method, a token.
    pub method: String,
    /// The target, starting with `/`.
    pub target: String,
    /// The headers' names and values (values trimmed), in order; at most
    /// [`MAX_HEADERS`].
    pub headers: Vec<(String, String)>,
    /// The body's length: 0 without a `Content-Length`, at most
    /// [`MAX_BODY`].
    pub content_length: usize,
}

/// Why a request is refused: the reply's status and the reason it gives.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal(pub u16, pub &'static str);

impl From<Refusal> for Unread {
    fn from(Refusal(status, why): Refusal) -> Unread {
        Unread::Refused(status, why)
    }
}

/// Reads and checks a request's head (the request line and headers,
/// without the blank line that ends them), strictly: a bad request line,
/// header name or control character, more than [`MAX_HEADERS`] headers, a
/// `Transfer-Encoding` (411), a bad or doubled `Content-Length` or one
/// past [`MAX_BODY`] (413) is refused.
pub fn read_head(head: &[u8]) -> Result<Head, Refusal> {
    let mut head = parse_head(head)?;
    if head
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
    {
        return Err(Refusal(411, "a body needs a Content-Length"));
    }
    head.content_length = content_length(&head.headers)?;
    if head.content_length > MAX_BODY {
        return Err(Refusal(413, "the command is too long"));
    }
    Ok(head)
}

/// The request line and headers of a head (without its final blank
/// line); the body's length is left 0.
fn parse_head(head: &[u8]) -> Result<Head, Refusal> {
    let bad = |why| Refusal(400, why);
    let text = std::str::from_utf8(head).map_err(|_| bad("the request's head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    if first.bytes().any(|b| is_control(b) || b == b'\t') {
        return Err(bad("a bad request line"));
    }
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("a bad request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Refusal(505, "only HTTP/1.x is served"));
    }
    if method.is_empty() || !method.bytes().all(is_token) || !target.starts_with('/') {
        return Err(bad("a bad request line"));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad("a header without ':'"));
        };
        if name.is_empty() || !name.bytes().all(is_token) {
            return Err(bad("a bad header name"));
        }
        // A bare CR or LF, NUL or any other control character.
        if value.bytes().any(is_control) {
            return Err(bad("a control character in a header"));
        }
        if headers.len() == MAX_HEADERS {
            return Err(Refusal(431, "too many headers"));
        }
        headers.push((
            name.to_string(),
            value.trim_matches([' ', '\t']).to_string(),
        ));
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        content_length: 0,
    })
}

/// Whether `b` may be part of a method or header name (RFC 9110 `tchar`).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The open connections.
#[derive(Default)]
struct Slots {
    open: usize,
    next_id: u64,
    /// The connections that may be closed to make room, oldest first:
    /// those that have not sent their head yet, and those draining after
    /// their reply.
    evictable: VecDeque<(u64, Arc<TcpStream>)>,
}

/// A listening server.
pub struct Server {
    listener: TcpListener,
    slots: Arc<Mutex<Slots>>,
}

fn lock(slots: &Mutex<Slots>) -> MutexGuard<'_, Slots> {
    match slots.lock() {
        Ok(s) => s,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Server {
    /// Listens on `addr` (`host:port`).
    pub fn bind(addr: &str) -> io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(addr)?,
            slots: Arc::default(),
        })
    }

    /// The address listened on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves forever: every request is given to `handle` on its
    /// connection's thread.
    pub fn serve<F: Fn(Request) + Send + Sync + 'static>(self, handle: F) -> ! {
        let handle = Arc::new(handle);
        let mut last_error: Option<(io::ErrorKind, Instant)> = None;
        loop {
            let stream = match self.listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors, say: an idle connection makes
                    // room, or else a pause before trying again.
                    let kind = e.kind();
                    let repeated = last_error
                        .is_some_and(|(k, at)| k == kind && at.elapsed() < Duration::from_secs(10));
                    if !repeated {
                        eprintln!("ultimo gui: cannot accept a connection ({e}); going on");
                        last_error = Some((kind, Instant::now()));
                    }
                    let freed = evict_oldest(&mut lock(&self.slots));
                    thread::sleep(Duration::from_millis(if freed { 5 } else { 100 }));
                    continue;
                }
            };
            self.admit(stream, &handle);
        }
    }

    /// Gives `stream` a thread if there is room (made by closing the
    /// oldest idle connection if need be), else answers 503.
    fn admit<F: Fn(Request) + Send + Sync + 'static>(&self, stream: TcpStream, handle: &Arc<F>) {
        let start = Instant::now();
        let stream = Arc::new(stream);
        let id = {
            let mut slots = lock(&self.slots);
            if slots.open >= MAX_CONNECTIONS && !evict_oldest(&mut slots) {
                drop(slots);
                // A short reply to a new connection fits in its buffer:
                // written without waiting, or not at all.
                let _ = stream.set_nonblocking(true);
                let _ =
                    (&*stream).write_all(&refusal(503, "too many connections; try again").bytes());
                return;
            }
            slots.open += 1;
            slots.next_id += 1;
            let id = slots.next_id;
            slots.evictable.push_back((id, Arc::clone(&stream)));
            id
        };
        let slots = Arc::clone(&self.slots);
        let handle = Arc::clone(handle);
        let spawned = thread::Builder::new()
            .name("gui-connection".into())
            .spawn(move || {
                let _slot = Slot { slots: &slots };
                let conn = Conn {
                    id,
                    stream,
                    slots: Arc::clone(&slots),
                };
                let read = read_request(&conn, start, BODY_TIMEOUT);
                lock(&slots).evictable.retain(|(i, _)| *i != id);
                match read {
                    Ok(request) => handle(request),
                    Err(Unread::Refused(status, why)) => finish(&conn, &refusal(status, why)),
                    Err(Unread::Gone) => {}
                }
            });
        if let Err(e) = spawned {
            eprintln!("ultimo gui: cannot start a thread for a connection ({e})");
            let mut slots = lock(&self.slots);
            slots.open -= 1;
            slots.evictable.retain(|(i, _)| *i != id);
        }
    }
}

/// Closes the oldest connection still waiting for its head or draining
/// after its reply, if any.
fn evict_oldest(slots: &mut Slots) -> bool {
    match slots.evictable.pop_front() {
        Some((_, stream)) => {
            let _ = stream.shutdown(Shutdown::Both);
            true
        }
        None => false,
    }
}

/// A connection's place in [`Slots::open`], given back when its thread
/// ends.
struct Slot<'a> {
    slots: &'a Mutex<Slots>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        lock(self.slots).open -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(head: &str) -> Option<u16> {
        read_head(head.as_bytes())
            .err()
            .map(|Refusal(status, _)| status)
    }

    #[test]
    fn heads_are_parsed_strictly() {
        let Head {
            method,
            target,
            headers,
            ..
        } = read_head(b"GET /state?x=1 HTTP/1.1\r\nHost:  a:1 \r\nX-Y:\t\r\nE:").expect("taken");
        assert_eq!((method.as_str(), target.as_str()), ("GET", "/state?x=1"));
        assert_eq!(
            headers,
            [("Host", "a:1"), ("X-Y", ""), ("E", "")].map(|(n, v)| (n.to_string(), v.to_string()))
        );
        assert_eq!(refused("GET / HTTP/2"), Some(505));
        assert_eq!(refused("GET /  HTTP/1.1"), Some(400));
        assert_eq!(refused("GET x HTTP/1.1"), Some(400));
        assert_eq!(refused("GET / HTTP/1.1\r\n folded: x"), Some(400));
        assert_eq!(refused("GET / HTTP/1.1\r\nno colon"), Some(400));
        assert_eq!(refused("G\x1bT / HTTP/1.1"), Some(400));
        let many = format!("GET / HTTP/1.1{}", "\r\nA: b".repeat(MAX_HEADERS + 1));
        assert_eq!(refused(&many), Some(431));
        // Control characters: a bare LF or CR, NUL, DEL, in a value or the
        // request line (issue 36, R3); a tab in a value is allowed.
        for bad in ["a\nb", "a\rb", "a\0b", "a\x7fb", "a\x1bb"] {
            assert_eq!(
                refused(&format!("GET / HTTP/1.1\r\nX: {bad}")),
                Some(400),
                "{bad:?}"
            );
        }
        assert_eq!(refused("GET /a\nb HTTP/1.1"), Some(400));
        assert_eq!(refused("GET /\tb HTTP/1.1"), Some(400));
        assert_eq!(refused("GET / HTTP/1.1\r\nX: a\tb"), None);
        // The body's framing (issue 36, R3: the 411 path had no test).
        assert_eq!(
            refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked"),
            Some(411)
        );
        let past = format!("POST / HTTP/1.1\r\nContent-Length: {}", MAX_BODY + 1);
        assert_eq!(refused(&past), Some(413));
        let head = read_head(b"POST /api HTTP/1.1\r\ncontent-length: 7").expect("a head");
        assert_eq!(head.content_length, 7);
    }

    /// A connection that stops sending in the middle of its body is let
    /// go once the body's time is up (issue 36, R3: this had no test).
    #[test]
    fn a_body_that_stops_coming_is_let_go() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client
            .write_all(b"POST /api HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            .unwrap();
        let (server, _) = listener.accept().unwrap();
        let conn = Conn {
            id: 1,
            stream: Arc::new(server),
            slots: Arc::default(),
        };
        let start = Instant::now();
        let read = read_request(&conn, start, Duration::from_millis(300));
        assert!(matches!(read, Err(Unread::Gone)));
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        // The whole body in time is read.
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client
            .write_all(b"POST /api HTTP/1.1\r\nContent-Length: 10\r\n\r\nabcdefghij")
            .unwrap();
        let (server, _) = listener.accept().unwrap();
        let conn = Conn {
            id: 2,
            stream: Arc::new(server),
            slots: Arc::default(),
        };
        let read = read_request(&conn, Instant::now(), Duration::from_secs(30));
        assert!(matches!(read, Ok(r) if r.body() == b"abcdefghij"));
    }

    #[test]
    fn content_lengths_are_strict() {
        let length = |values: &[&str]| {
            let headers: Vec<(String, String)> = values
                .iter()
                .map(|v| ("content-Length".to_string(), v.to_string()))
                .collect();
            content_length(&headers).map_err(|Refusal(status, why)| (status, why))
        };
        assert_eq!(length(&[]), Ok(0));
        assert_eq!(length(&["12"]), Ok(12));
        assert_eq!(length(&["5", "5"]), Ok(5));
        assert_eq!(
            length(&["5", "6"]),
            Err((400, "two different Content-Lengths"))
        );
        for bad in ["+5", "-5", "5, 5", " 5", "0x5", ""] {
            assert_eq!(
                length(&[bad]),
                Err((400, "a bad Content-Length")),
                "{bad:?}"
            );
        }
        assert_eq!(
            length(&[&"9".repeat(40)]),
            Err((413, "the command is too long"))
        );
    }

    #[test]
    fn replies_say_their_length_and_close() {
        let r = Response::new(404, "text/plain", "no").with_header("X-A", "b");
        assert_eq!(
            String::from_utf8(r.bytes()).unwrap(),
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nX-A: b\r\n\
             Content-Length: 2\r\nConnection: close\r\n\r\nno"
        );
    }
}
