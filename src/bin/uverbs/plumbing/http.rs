//! A small HTTP/1.1 responder for `uverbs exporter`: `GET /metrics`, and nothing a
//! Prometheus server does not need.
//!
//! Hand-written rather than a dependency (the crate keeps to rustix, zerocopy, bitflags
//! and thiserror): an exporter answers one kind of request, and a general HTTP stack
//! would cost more binary than the whole exporter.
//!
//! What it guarantees:
//!
//! - every connection is served by its own thread (a few threads stay, waiting in
//!   `accept`, for the next connections), so a slow or silent client never delays
//!   another one's scrape; at most [`Limits::max_connections`] at once, and a
//!   connection past that is answered `503` and closed at once;
//! - a request head must arrive whole within [`Limits::head_timeout`] of its first byte
//!   (a client that trickles bytes is cut off), a kept-alive connection is closed after
//!   [`Limits::idle_timeout`] without a request, a response that cannot be written
//!   within [`Limits::write_timeout`] ends the connection;
//! - a head over 8 KiB is `431`, a malformed one `400` (and the connection closed),
//!   methods other than `GET` and `HEAD` `405`, a request with a body `400`.
//!
//! HTTP/1.1 keep-alive is honoured (Prometheus keeps its connections); HTTP/1.0 closes
//! after each response unless it asked for `keep-alive`. Responses always carry
//! `Content-Length` (no chunking).

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest request head accepted.
pub const MAX_HEAD: usize = 8192;

/// Timeouts and the connection cap.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From the first byte of a request to the end of its head.
    pub head_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// How long one response may take to be written.
    pub write_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
            max_connections: 64,
        }
    }
}

/// A response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// Parses a listen address: `HOST:PORT` with an IPv4 or IPv6 literal (`[::1]:9550`),
/// `localhost:PORT`, or `:PORT` (every IPv4 address). No name is looked up.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    let bad = || {
        format!("bad listen address '{s}': expected IP:PORT, [IPv6]:PORT, localhost:PORT or :PORT")
    };
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let (host, port) = s.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let ip = match host {
        "" => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        _ => return Err(bad()),
    };
    Ok(SocketAddr::new(ip, port))
}

/// What a request head says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    /// The path, without a query string.
    pub path: String,
    /// Whether the connection is to stay open after the response.
    pub keep_alive: bool,
    /// The head's length in bytes (what to drop from the buffer).
    pub len: usize,
}

/// The result of looking at the bytes received so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// No complete head yet.
    Incomplete,
    /// A head that cannot be served: the status to answer, then close.
    Bad(u16),
    Head(Head),
}

/// Parses a request head from the start of `buf` (pure: no I/O).
pub fn parse_head(buf: &[u8]) -> Parsed {
    // Blank lines before a request are to be ignored (RFC 9112, 2.2).
    let start = buf
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(buf.len());
    let rest = &buf[start..];
    let Some(end) = find_end(rest) else {
        return if buf.len() >= MAX_HEAD {
            Parsed::Bad(431)
        } else {
            Parsed::Incomplete
        };
    };
    if start + end > MAX_HEAD {
        return Parsed::Bad(431);
    }
    let Ok(text) = core::str::from_utf8(&rest[..end]) else {
        return Parsed::Bad(400);
    };
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Parsed::Bad(400);
    };
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Parsed::Bad(400),
    };
    if method.is_empty()
        || !method.bytes().all(|b| b.is_ascii_uppercase())
        || !target.starts_with('/')
        || target.bytes().any(|b| b.is_ascii_control())
    {
        return Parsed::Bad(400);
    }
    let mut keep_alive = http11;
    for h in lines {
        if h.is_empty() {
            continue;
        }
        let Some((name, value)) = h.split_once(':') else {
            return Parsed::Bad(400);
        };
        if name.is_empty() || name.bytes().any(|b| b == b' ' || b == b'\t') {
            return Parsed::Bad(400);
        }
        let value = value.trim();
        if name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                if token.eq_ignore_ascii_case("close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case("keep-alive") {
                    keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding")
            || (name.eq_ignore_ascii_case("content-length") && value != "0")
        {
            // No request this server answers has a body.
            return Parsed::Bad(400);
        }
    }
    let path = target.split('?').next().unwrap_or(target);
    Parsed::Head(Head {
        method: method.to_owned(),
        path: path.to_owned(),
        keep_alive,
        len: start + end,
    })
}

/// The length of the head (through its blank line), if complete.
fn find_end(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' {
            if b.get(i + 1) == Some(&b'\n') {
                return Some(i + 2);
            }
            if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
                return Some(i + 3);
            }
        }
        i += 1;
    }
    None
}

/// The bytes of a response (the body left out for `HEAD`).
pub fn response_bytes(r: &Response, head_only: bool, keep_alive: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len(),
        if keep_alive {
            ""
        } else {
            "Connection: close\r\n"
        }
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(&r.body);
    }
    out
}

/// Counts a connection while it lives.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the serving threads share.
struct Server<H> {
    listener: TcpListener,
    handler: H,
    limits: Limits,
    /// Connections being served.
    active: Arc<AtomicUsize>,
    /// Threads blocked in `accept`.
    waiting: AtomicUsize,
}

/// Threads beyond the first kept waiting in `accept` after their connection ends (at
/// most this many and one more, see [`accept_loop`]).
const SPARE_THREADS: usize = 2;

/// Serves `listener` forever: each connection on its own thread, each request answered
/// by `handler(path)` (`GET` and `HEAD`; the path without its query string).
///
/// The threads themselves wait in `accept` (the kernel hands a new connection straight
/// to one of them: no second thread to wake), and a thread that takes the last waiting
/// place starts another one before it serves, so a connection never waits behind
/// another one's scrape. Up to [`SPARE_THREADS`] stay after their connection ends.
/// Returns when `accept` fails for good (on the calling thread).
pub fn serve<H>(listener: TcpListener, handler: Arc<H>, limits: Limits) -> std::io::Error
where
    H: Fn(&str) -> Response + Send + Sync + 'static,
{
    let server = Arc::new(Server {
        listener,
        handler,
        limits,
        active: Arc::new(AtomicUsize::new(0)),
        waiting: AtomicUsize::new(0),
    });
    match accept_loop(&server, true) {
        Some(e) => e,
        None => std::io::Error::other("the HTTP server stopped"),
    }
}

/// One serving thread: accept, serve, again. The first thread (`first`) returns only
/// the error that ends the server; another one returns when enough others wait.
fn accept_loop<H>(server: &Arc<Server<Arc<H>>>, first: bool) -> Option<std::io::Error>
where
    H: Fn(&str) -> Response + Send + Sync + 'static,
{
    loop {
        server.waiting.fetch_add(1, Ordering::AcqRel);
        let accepted = server.listener.accept();
        let still_waiting = server.waiting.fetch_sub(1, Ordering::AcqRel) - 1;
        let stream = match accepted {
            Ok((s, _)) => s,
            // A connection reset before it was accepted, or a lack of fds: go on.
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionAborted | ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) if e.raw_os_error() == Some(24) || e.raw_os_error() == Some(23) => {
                // EMFILE, ENFILE: wait for connections to end.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) => return first.then_some(e),
        };
        if still_waiting == 0 {
            // Nobody else waits for the next connection: start a thread that does.
            let s = server.clone();
            let spawned = std::thread::Builder::new()
                .name("uverbs-http".into())
                .stack_size(256 * 1024)
                .spawn(move || {
                    accept_loop(&s, false);
                });
            // A thread that cannot start: this one accepts again after its connection.
            drop(spawned);
        }
        let slot = Slot(server.active.clone());
        if server.active.fetch_add(1, Ordering::AcqRel) >= server.limits.max_connections {
            busy(stream);
        } else {
            connection(stream, &*server.handler, server.limits);
        }
        drop(slot);
        // A thread ends only when more than SPARE_THREADS others wait: with one fewer,
        // a client that connects again as soon as its answer is read (before this
        // thread is back in `accept`) would find no thread waiting, and each such
        // scrape would pay for a thread started and another one ended.
        if !first && server.waiting.load(Ordering::Acquire) > SPARE_THREADS {
            return None;
        }
    }
}

fn busy(mut s: TcpStream) {
    let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
    let r = Response::text(503, "too many connections\n");
    let _ = s.write_all(&response_bytes(&r, false, false));
}

/// Closes a connection after an error response without losing the response: what
/// the client still sends is read and dropped for a moment (closing a socket with
/// unread data would reset it, and the client could lose the response).
fn linger(s: &mut TcpStream) {
    let _ = s.shutdown(std::net::Shutdown::Write);
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 4096];
    let mut left = 256 * 1024;
    while left > 0 {
        match s.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left -= n.min(left),
        }
    }
}

/// Writes the last answer of a connection that is closed next, with `MSG_MORE`: the
/// kernel holds the answer's last segment until the close, which then sends it with
/// the FIN set, so the client reads the answer and its end in one wake-up (with
/// `write` and `close`, the FIN is a segment of its own, and a client woken by the
/// answer sleeps again until it comes). One `send` per answer, as `write_all` makes.
fn send_last(s: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
    use rustix::net::{send, SendFlags};
    while !bytes.is_empty() {
        match send(s, bytes, SendFlags::MORE | SendFlags::NOSIGNAL) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Serves one connection until it closes, errs or times out.
#[inline(never)]
fn connection<H: Fn(&str) -> Response>(mut s: TcpStream, handler: &H, limits: Limits) {
    let _ = s.set_nodelay(true);
    let _ = s.set_write_timeout(Some(limits.write_timeout));
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        // Wait for a whole head: the idle timeout until its first byte, then the head
        // timeout from that byte on.
        let waiting = Instant::now();
        let mut first_byte: Option<Instant> = (!buf.is_empty()).then(Instant::now);
        let head = loop {
            match parse_head(&buf) {
                Parsed::Head(h) => break h,
                Parsed::Bad(status) => {
                    let r = Response::text(status, format!("{}\n", reason(status)));
                    if s.write_all(&response_bytes(&r, false, false)).is_ok() {
                        linger(&mut s);
                    }
                    return;
                }
                Parsed::Incomplete => {}
            }
            let deadline = match first_byte {
                Some(t) => t + limits.head_timeout,
                None => waiting + limits.idle_timeout,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                if first_byte.is_some() {
                    let r = Response::text(408, "Request Timeout\n");
                    let _ = s.write_all(&response_bytes(&r, false, false));
                }
                return;
            }
            let _ = s.set_read_timeout(Some(left));
            match s.read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => {
                    first_byte.get_or_insert_with(Instant::now);
                    buf.extend_from_slice(&chunk[..n]);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return,
            }
        };
        buf.drain(..head.len);
        let head_only = head.method == "HEAD";
        let r = if head.method == "GET" || head_only {
            handler(&head.path)
        } else {
            Response::text(405, "Method Not Allowed\n")
        };
        let keep = head.keep_alive && r.status != 405;
        let bytes = response_bytes(&r, head_only, keep);
        if !keep {
            // The connection's last answer: its FIN leaves with it (see `send_last`).
            let _ = send_last(&s, &bytes);
            return;
        }
        if s.write_all(&bytes).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(b: &[u8]) -> Head {
        match parse_head(b) {
            Parsed::Head(h) => h,
            other => panic!("{other:?} for {:?}", String::from_utf8_lossy(b)),
        }
    }

    #[test]
    fn requests() {
        let h = head(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\nGET /");
        assert_eq!(
            (h.method.as_str(), h.path.as_str(), h.keep_alive, h.len),
            ("GET", "/metrics", true, 47)
        );
        let h = head(b"\r\nGET /metrics?name[]=x HTTP/1.0\n\n");
        assert_eq!(
            (h.path.as_str(), h.keep_alive, h.len),
            ("/metrics", false, 34)
        );
        let h = head(b"GET / HTTP/1.1\r\nConnection: Close\r\n\r\n");
        assert!(!h.keep_alive);
        let h = head(b"HEAD / HTTP/1.0\r\nconnection: keep-alive\r\n\r\n");
        assert!(h.keep_alive);
        let h = head(b"GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(h.method, "GET");
    }

    #[test]
    fn incomplete_and_bad() {
        assert_eq!(parse_head(b""), Parsed::Incomplete);
        assert_eq!(parse_head(b"GET /metrics HTTP/1.1\r\n"), Parsed::Incomplete);
        assert_eq!(parse_head(b"\r\n\r\n"), Parsed::Incomplete);
        for bad in [
            &b"GET /metrics\r\n\r\n"[..],
            b"GET /metrics HTTP/2.0\r\n\r\n",
            b"get / HTTP/1.1\r\n\r\n",
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1 x\r\n\r\n",
            b"GET / HTTP/1.1\r\nno colon\r\n\r\n",
            b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"\xff\xfe / HTTP/1.1\r\n\r\n",
            b"GET /\x01 HTTP/1.1\r\n\r\n",
        ] {
            assert_eq!(
                parse_head(bad),
                Parsed::Bad(400),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let big = vec![b'a'; MAX_HEAD];
        assert_eq!(parse_head(&big), Parsed::Bad(431));
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.extend(vec![b'a'; MAX_HEAD]);
        long.extend_from_slice(b"\r\n\r\n");
        assert_eq!(parse_head(&long), Parsed::Bad(431));
    }

    #[test]
    fn garbage_never_panics() {
        let seeds: [&[u8]; 3] = [
            b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n",
            b"\r\n\n\r\n",
            b"HEAD / HTTP/1.0\n\n",
        ];
        for s in seeds {
            for n in 0..=s.len() {
                let _ = parse_head(&s[..n]);
            }
            for i in 0..s.len() {
                for v in [0u8, b'\n', b'\r', b':', b' ', 0x80, 0xff] {
                    let mut b = s.to_vec();
                    b[i] = v;
                    let _ = parse_head(&b);
                }
            }
        }
    }

    #[test]
    fn listen_addresses() {
        assert_eq!(
            parse_listen("127.0.0.1:9550").unwrap(),
            "127.0.0.1:9550".parse::<SocketAddr>().unwrap()
        );
        assert_eq!(
            parse_listen("[::1]:80").unwrap(),
            "[::1]:80".parse::<SocketAddr>().unwrap()
        );
        assert_eq!(
            parse_listen(":9100").unwrap(),
            "0.0.0.0:9100".parse::<SocketAddr>().unwrap()
        );
        assert_eq!(
            parse_listen("localhost:1").unwrap(),
            "127.0.0.1:1".parse::<SocketAddr>().unwrap()
        );
        for bad in [
            "",
            "9550",
            "host:9550",
            "1.2.3.4:",
            "1.2.3.4:99999",
            "::1:80",
        ] {
            let e = parse_listen(bad).unwrap_err();
            assert!(e.starts_with("bad listen address"), "{bad}: {e}");
        }
    }

    #[test]
    fn response_text() {
        let r = Response::text(200, "a\n");
        assert_eq!(
            response_bytes(&r, false, true),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\na\n"
        );
        assert_eq!(
            response_bytes(&r, true, false),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"
        );
    }
}
