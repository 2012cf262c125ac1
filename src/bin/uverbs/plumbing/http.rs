//! A small HTTP/1.1 responder for `uverbs exporter`: `GET /metrics`, and nothing a
//! Prometheus server does not need.
//!
//! Hand-written rather than a dependency (the crate keeps to rustix, zerocopy, bitflags
//! and thiserror): an exporter answers one kind of request, and a general HTTP stack
//! would cost more binary than the whole exporter.
//!
//! How it is built: one thread (the caller's, in [`serve`]) owns every connection in
//! non-blocking mode and waits for all of them in one `poll(2)`: it accepts, reads
//! request heads ([`parse_head`]), answers what needs no handler (errors, `503`) and
//! enforces the deadlines. A complete `GET` or `HEAD` goes to one of at most
//! [`Limits::max_requests`] worker threads, which runs the handler, writes the answer
//! and hands a kept-alive connection back through an eventfd. A connection waiting for
//! its request costs no thread and, once its head has been parsed, no buffer: what
//! clients do cannot raise the thread count past `max_requests + 1`, nor memory past
//! about [`MAX_HEAD`] per connection held (at most [`Limits::max_connections`]).
//!
//! What it guarantees:
//!
//! - at most [`Limits::max_connections`] connections are held; a new one past that
//!   evicts the one that has waited longest for a request (an idle kept-alive or
//!   silent connection is closed, a partial head is answered `408` and closed), and
//!   only when none waits (all are being answered) do new connections stay in the
//!   kernel's listen backlog until one ends;
//! - at most [`Limits::max_requests`] requests are answered at once; one more is
//!   answered `503 Service Unavailable` with `Retry-After` at once (after its head was
//!   read, so the close that may follow is never a reset), and the connection is kept
//!   if the client keeps it;
//! - a request head must arrive whole within [`Limits::head_timeout`] of its first byte
//!   (else `408`), a kept-alive connection is closed after [`Limits::idle_timeout`]
//!   without a request, a response that cannot be written within
//!   [`Limits::write_timeout`] ends the connection;
//! - a head over 8 KiB is `431`, a malformed one `400`, methods other than `GET` and
//!   `HEAD` `405`, a request with a body `400`; each closes the connection, gracefully:
//!   its write side is shut and what the client still sends is read and dropped for a
//!   moment, so that the client reads the answer instead of a reset.
//!
//! HTTP/1.1 keep-alive is honoured (Prometheus keeps its connections), pipelined
//! requests are answered in order; HTTP/1.0 closes after each response unless it asked
//! for `keep-alive`. Responses always carry `Content-Length` (no chunking).

use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::net::{send, SendFlags};

/// The largest request head accepted.
pub const MAX_HEAD: usize = 8192;

/// The default of [`Limits::max_connections`]: a scrape is served beside 1,000
/// connections that hold half a request each, and twice that fit.
pub const DEFAULT_MAX_CONNECTIONS: usize = 2048;

/// The default of [`Limits::max_requests`] (node_exporter's `--web.max-requests`).
pub const DEFAULT_MAX_REQUESTS: usize = 40;

/// The `Retry-After` of a `503`, in seconds.
pub const RETRY_AFTER_SECS: u32 = 1;

/// File descriptors kept for everything but connections (the files a scrape opens, the
/// sysfs files kept open between scrapes, devices, the listener): see
/// [`connection_cap`].
pub const FD_RESERVE: usize = 1024;

/// How long a connection closed after an error answer is read and drained, and how
/// much of it at most.
const LINGER: Duration = Duration::from_millis(500);
const LINGER_BYTES: usize = 256 * 1024;

/// The listen backlog: connections the kernel completes and keeps until they are
/// accepted (it caps this at `net.core.somaxconn`). Deeper than std's 128, so that a
/// burst of connections, or a moment when the reactor does not run, makes no client
/// wait for a second attempt of its SYN.
const BACKLOG: i32 = 1024;

/// New connections accepted per wake-up (the others wait for the next one, after the
/// connections already held have been read).
const ACCEPT_BATCH: usize = 128;

/// How long a worker thread without a request waits for one before it ends.
const WORKER_IDLE: Duration = Duration::from_secs(60);

/// Timeouts and caps.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From the first byte of a request to the end of its head.
    pub head_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// How long one response may take to be written.
    pub write_timeout: Duration,
    /// Connections held at once (waiting for a request, being answered, closing).
    pub max_connections: usize,
    /// Requests answered at once (each by a worker thread); 0: as many as
    /// `max_connections`, and never a `503`.
    pub max_requests: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_requests: DEFAULT_MAX_REQUESTS,
        }
    }
}

impl Limits {
    /// The worker threads at most.
    fn workers(&self) -> usize {
        match self.max_requests {
            0 => self.max_connections,
            n => n.min(self.max_connections),
        }
        .max(1)
    }
}

/// The connections a process whose soft `RLIMIT_NOFILE` is `soft` (`None`: unlimited)
/// may hold, for a cap of `requested`: what the limit leaves past [`FD_RESERVE`], and
/// at least half the limit (the other half for the rest), at least 1.
pub fn connection_cap(requested: usize, soft: Option<u64>) -> usize {
    let Some(soft) = soft else {
        return requested.max(1);
    };
    let soft = usize::try_from(soft).unwrap_or(usize::MAX);
    let room = soft.saturating_sub(FD_RESERVE).max(soft / 2);
    requested.min(room).max(1)
}

/// Fits `limits.max_connections` to the process's `RLIMIT_NOFILE`: raises the soft
/// limit towards the hard one when the cap and [`FD_RESERVE`] need it, then lowers the
/// cap to what the soft limit allows ([`connection_cap`]). Returns a note when the cap
/// was lowered.
pub fn fit_to_nofile(limits: &mut Limits) -> Option<String> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let lim = getrlimit(Resource::Nofile);
    let want = u64::try_from(limits.max_connections.saturating_add(FD_RESERVE)).unwrap_or(u64::MAX);
    let mut soft = lim.current;
    if let Some(s) = soft.filter(|&s| s < want) {
        let raised = lim.maximum.map_or(want, |h| h.min(want));
        let new = Rlimit {
            current: Some(raised),
            maximum: lim.maximum,
        };
        if raised > s && setrlimit(Resource::Nofile, new).is_ok() {
            soft = Some(raised);
        }
    }
    let cap = connection_cap(limits.max_connections, soft);
    if cap >= limits.max_connections {
        return None;
    }
    limits.max_connections = cap;
    Some(format!(
        "at most {cap} connections: RLIMIT_NOFILE is {} (hard {})",
        soft.map_or("unlimited".into(), |s| s.to_string()),
        lim.maximum.map_or("unlimited".into(), |s| s.to_string())
    ))
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

/// The answer to a request past [`Limits::max_requests`].
fn busy_response(max_requests: usize) -> Response {
    Response::text(
        503,
        format!(
            "{max_requests} requests are being answered, the most at once: try again in {RETRY_AFTER_SECS} s\n"
        ),
    )
}

/// An error's answer: its reason as the body.
fn error_response(status: u16) -> Response {
    Response::text(status, format!("{}\n", reason(status)))
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

/// The bytes of a response (the body left out for `HEAD`). A `503` says when to try
/// again (`Retry-After`).
pub fn response_bytes(r: &Response, head_only: bool, keep_alive: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len(),
        if r.status == 503 {
            format!("Retry-After: {RETRY_AFTER_SECS}\r\n")
        } else {
            String::new()
        },
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

// ------------------------------------------------------------------ connections

/// What a connection held by the reactor is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request since `since` (its acceptance, or its last answer);
    /// `started`: when the first byte of the head came.
    Wait {
        since: Instant,
        started: Option<Instant>,
    },
    /// Answered for the last time and its write side shut since `since`: what the
    /// client still sends is read and dropped until `until`, `left` bytes at most.
    Closing {
        since: Instant,
        until: Instant,
        left: usize,
    },
}

impl Phase {
    fn waiting(now: Instant) -> Phase {
        Phase::Wait {
            since: now,
            started: None,
        }
    }

    fn closing(now: Instant) -> Phase {
        Phase::Closing {
            since: now,
            until: now + LINGER,
            left: LINGER_BYTES,
        }
    }

    /// When the connection is to be let go of (`408` for a partial head).
    fn deadline(&self, l: &Limits) -> Instant {
        match *self {
            Phase::Wait {
                started: Some(t), ..
            } => t + l.head_timeout,
            Phase::Wait { since, .. } => since + l.idle_timeout,
            Phase::Closing { until, .. } => until,
        }
    }

    /// The eviction order, lowest first: the connections waiting for a request, the one
    /// that has waited longest first (idle, silent or slow: none of them is being
    /// answered), then those closing, the oldest first.
    fn eviction_key(&self) -> (u8, Instant) {
        match *self {
            Phase::Wait { since, .. } => (0, since),
            Phase::Closing { since, .. } => (1, since),
        }
    }
}

/// Which of the connections (their phases) a new one evicts: see
/// [`Phase::eviction_key`]; `None` when there is none.
fn victim<'a>(phases: impl Iterator<Item = &'a Phase>) -> Option<usize> {
    phases
        .enumerate()
        .min_by_key(|(_, p)| p.eviction_key())
        .map(|(i, _)| i)
}

/// What evicting a connection in `phase` with `buffered` bytes of a head sends before
/// the close: `408` for a partial head, nothing for an idle or closing connection.
fn eviction_answer(phase: &Phase, buffered: usize) -> Option<u16> {
    matches!(phase, Phase::Wait { .. } if buffered > 0).then_some(408)
}

/// A connection: its socket (non-blocking) and what has been read of the next head.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    phase: Phase,
}

/// What reading a connection found.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    /// Nothing more to read for now (perhaps new bytes in the buffer).
    Open,
    /// The client closed its side.
    End,
    /// An error: the connection is gone.
    Gone,
}

/// Reads what `c` has, up to a buffer of [`MAX_HEAD`].
fn fill(c: &mut Conn) -> Got {
    let mut chunk = [0u8; 4096];
    while c.buf.len() < MAX_HEAD {
        let room = (MAX_HEAD - c.buf.len()).min(chunk.len());
        match (&c.stream).read(&mut chunk[..room]) {
            Ok(0) => return Got::End,
            Ok(n) => {
                // Doubling, but never past MAX_HEAD: a connection holds at most that.
                let need = c.buf.len() + n;
                if need > c.buf.capacity() {
                    let cap = need.max(2 * c.buf.capacity()).min(MAX_HEAD);
                    c.buf.reserve_exact(cap - c.buf.len());
                }
                c.buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Got::Open,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Got::Gone,
        }
    }
    Got::Open
}

/// Reads and drops what a closing connection has: whether it is to stay (the client
/// has not closed, the budget is not spent).
fn drain(s: &TcpStream, budget: &mut usize) -> bool {
    let mut sink = [0u8; 4096];
    loop {
        match (&*s).read(&mut sink) {
            Ok(0) => return false,
            Ok(n) if n >= *budget => return false,
            Ok(n) => *budget -= n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// Sends `bytes` on a non-blocking socket, waiting for room until `deadline` (`None`:
/// not at all). `last`: the connection's last answer, sent with `MSG_MORE` so that
/// its last segment waits for the FIN of the `shutdown` or `close` that follows and
/// leaves with it: the client reads the answer and its end in one wake-up (with
/// `write` and `close`, the FIN is a segment of its own, and a client woken by the
/// answer sleeps again until it comes).
fn send_all(s: &TcpStream, mut bytes: &[u8], last: bool, deadline: Option<Instant>) -> bool {
    let flags = if last {
        SendFlags::MORE | SendFlags::NOSIGNAL
    } else {
        SendFlags::NOSIGNAL
    };
    while !bytes.is_empty() {
        match send(s, bytes, flags) {
            Ok(0) => return false,
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) => {
                let Some(left) = deadline
                    .map(|d| d.saturating_duration_since(Instant::now()))
                    .filter(|l| !l.is_zero())
                else {
                    return false;
                };
                let mut fd = [PollFd::new(s, PollFlags::OUT)];
                match poll(&mut fd, Some(&timespec(left))) {
                    Ok(_) | Err(Errno::INTR) => {}
                    Err(_) => return false,
                }
            }
            Err(_) => return false,
        }
    }
    true
}

fn timespec(d: Duration) -> Timespec {
    Timespec::try_from(d).unwrap_or(Timespec {
        tv_sec: i64::MAX,
        tv_nsec: 0,
    })
}

/// Shuts the write side of a connection whose last answer was sent (its FIN leaves,
/// with the answer's last segment). Returns the connection when the client has sent
/// more, which is to be drained before the close (closing a socket with unread data
/// resets it, and the client could lose the answer); `None` when it is closed here.
fn finish(c: Conn, budget: &mut usize) -> Option<Conn> {
    let _ = c.stream.shutdown(std::net::Shutdown::Write);
    let mut probe = [0u8; 1];
    match c.stream.peek(&mut probe) {
        Ok(n) if n > 0 => drain(&c.stream, budget).then_some(c),
        _ => None,
    }
}

// ------------------------------------------------------------------ the workers

/// A request for a worker: its connection and head.
struct Job {
    conn: Conn,
    head: Head,
}

/// What a worker gives back for a request it answered.
enum Back {
    /// The connection is kept alive: its next request.
    Keep(Conn),
    /// The connection's last answer was sent and the client sent more: drain it.
    Drain(Conn),
    /// The connection is closed.
    Gone,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// Workers waiting for a job.
    idle: usize,
    /// Workers started and not ended.
    threads: usize,
}

/// What the reactor and the workers share.
struct Shared<H> {
    handler: Arc<H>,
    limits: Limits,
    queue: Mutex<Queue>,
    more: Condvar,
    back: Mutex<Vec<Back>>,
    /// The eventfd a worker writes when it puts something in `back`.
    wake: OwnedFd,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<H> Shared<H>
where
    H: Fn(&str) -> Response + Send + Sync + 'static,
{
    /// Queues `job` for a worker, starting one when every worker is busy and fewer
    /// than [`Limits::workers`] run. Gives the job back when no worker runs nor can
    /// start.
    fn run(self: &Arc<Self>, job: Job) -> Option<Job> {
        let mut q = lock(&self.queue);
        q.jobs.push_back(job);
        if q.jobs.len() > q.idle && q.threads < self.limits.workers() {
            let me = self.clone();
            let started = std::thread::Builder::new()
                .name("uverbs-http".into())
                .stack_size(256 * 1024)
                .spawn(move || me.work());
            if started.is_ok() {
                q.threads += 1;
            } else if q.threads == 0 {
                return q.jobs.pop_back();
            }
        }
        drop(q);
        self.more.notify_one();
        None
    }

    /// A worker thread: takes jobs until none comes for [`WORKER_IDLE`].
    fn work(&self) {
        loop {
            let job = {
                let mut q = lock(&self.queue);
                loop {
                    if let Some(job) = q.jobs.pop_front() {
                        break job;
                    }
                    q.idle += 1;
                    let (g, t) = self
                        .more
                        .wait_timeout(q, WORKER_IDLE)
                        .unwrap_or_else(|p| p.into_inner());
                    q = g;
                    q.idle -= 1;
                    if t.timed_out() && q.jobs.is_empty() {
                        q.threads -= 1;
                        return;
                    }
                }
            };
            let back = self.answer(job);
            lock(&self.back).push(back);
            let _ = rustix::io::write(&self.wake, &1u64.to_ne_bytes());
        }
    }

    /// Answers one request.
    #[inline(never)]
    fn answer(&self, job: Job) -> Back {
        let Job { conn, head } = job;
        let r = (self.handler)(&head.path);
        let keep = head.keep_alive;
        let bytes = response_bytes(&r, head.method == "HEAD", keep);
        drop(r);
        let deadline = Instant::now() + self.limits.write_timeout;
        if !send_all(&conn.stream, &bytes, !keep, Some(deadline)) {
            return Back::Gone;
        }
        if keep {
            return Back::Keep(conn);
        }
        let mut budget = LINGER_BYTES;
        finish(conn, &mut budget).map_or(Back::Gone, Back::Drain)
    }
}

// ------------------------------------------------------------------ the reactor

/// The thread that holds the connections.
struct Reactor<H> {
    listener: TcpListener,
    limits: Limits,
    shared: Arc<Shared<H>>,
    /// The connections held here (waiting for a request, or closing).
    conns: Vec<Conn>,
    /// Requests with the workers (each holds its connection), answers not yet back.
    busy: usize,
    /// No accepting before this (the process is out of file descriptors).
    pause: Option<Instant>,
    /// The connections `poll` found ready (indices in `conns`).
    ready: Vec<usize>,
}

/// Serves `listener` forever: each request answered by `handler(path)` (`GET` and
/// `HEAD`; the path without its query string) on a worker thread, within `limits`.
/// Returns when `accept` or `poll` fails for good (on the calling thread, which holds
/// the connections).
pub fn serve<H>(listener: TcpListener, handler: Arc<H>, limits: Limits) -> std::io::Error
where
    H: Fn(&str) -> Response + Send + Sync + 'static,
{
    use rustix::event::{eventfd, EventfdFlags};
    if let Err(e) = listener.set_nonblocking(true) {
        return e;
    }
    // listen(2) again on a listening socket sets its backlog.
    if let Err(e) = rustix::net::listen(&listener, BACKLOG) {
        return e.into();
    }
    let wake = match eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK) {
        Ok(fd) => fd,
        Err(e) => return e.into(),
    };
    let shared = Arc::new(Shared {
        handler,
        limits,
        queue: Mutex::new(Queue {
            jobs: VecDeque::new(),
            idle: 0,
            threads: 0,
        }),
        more: Condvar::new(),
        back: Mutex::new(Vec::new()),
        wake,
    });
    let mut r = Reactor {
        listener,
        limits,
        shared,
        conns: Vec::new(),
        busy: 0,
        pause: None,
        ready: Vec::new(),
    };
    r.run()
}

impl<H> Reactor<H>
where
    H: Fn(&str) -> Response + Send + Sync + 'static,
{
    /// Connections held: here and with the workers.
    fn held(&self) -> usize {
        self.conns.len() + self.busy
    }

    fn run(&mut self) -> std::io::Error {
        loop {
            let now = Instant::now();
            let next = self.expire(now);
            if self.pause.is_some_and(|p| p <= now) {
                self.pause = None;
            }
            // A new connection is accepted when there is room, or one to evict.
            let accepting = self.pause.is_none()
                && (self.held() < self.limits.max_connections || !self.conns.is_empty());
            let wake_at = match (next, self.pause) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let timeout = wake_at.map(|t| timespec(t.saturating_duration_since(now)));
            let (woken, incoming) = {
                let mut fds = Vec::with_capacity(2 + self.conns.len());
                fds.push(PollFd::new(&self.shared.wake, PollFlags::IN));
                let listen = if accepting {
                    PollFlags::IN
                } else {
                    PollFlags::empty()
                };
                fds.push(PollFd::new(&self.listener, listen));
                fds.extend(
                    self.conns
                        .iter()
                        .map(|c| PollFd::new(&c.stream, PollFlags::IN)),
                );
                match poll(&mut fds, timeout.as_ref()) {
                    Ok(_) => {}
                    Err(Errno::INTR | Errno::AGAIN | Errno::NOMEM) => continue,
                    Err(e) => return e.into(),
                }
                self.ready.clear();
                for (i, f) in fds[2..].iter().enumerate() {
                    if !f.revents().is_empty() {
                        self.ready.push(i);
                    }
                }
                (
                    !fds[0].revents().is_empty(),
                    accepting && fds[1].revents().contains(PollFlags::IN),
                )
            };
            let now = Instant::now();
            // From the highest index down: `swap_remove` moves only what is above.
            while let Some(i) = self.ready.pop() {
                let c = self.conns.swap_remove(i);
                self.readable(c, now);
            }
            if woken {
                self.returned(now);
            }
            if incoming {
                if let Err(e) = self.accept(now) {
                    return e;
                }
            }
        }
    }

    /// Lets go of the connections past their deadline; returns the next deadline.
    fn expire(&mut self, now: Instant) -> Option<Instant> {
        let mut i = 0;
        while i < self.conns.len() {
            if self.conns[i].phase.deadline(&self.limits) > now {
                i += 1;
                continue;
            }
            let c = self.conns.swap_remove(i);
            if let Phase::Wait {
                started: Some(_), ..
            } = c.phase
            {
                // A head begun and not finished in time.
                self.close_with(c, 408, now);
            }
            // An idle connection past its time, or a closing one: closed.
        }
        let limits = self.limits;
        self.conns.iter().map(|c| c.phase.deadline(&limits)).min()
    }

    /// A connection `poll` found ready.
    fn readable(&mut self, mut c: Conn, now: Instant) {
        match c.phase {
            Phase::Wait { .. } => match fill(&mut c) {
                Got::Gone => {}
                got => self.advance(c, got == Got::End, now),
            },
            Phase::Closing { ref mut left, .. } => {
                if drain(&c.stream, left) {
                    self.conns.push(c);
                }
            }
        }
    }

    /// Serves what `c`'s buffer holds (`end`: the client has closed its side); keeps
    /// the connection when it waits for more.
    fn advance(&mut self, mut c: Conn, end: bool, now: Instant) {
        loop {
            let mut head = match parse_head(&c.buf) {
                Parsed::Incomplete => {
                    if end {
                        return; // closed before a whole request: nothing to answer
                    }
                    if let Phase::Wait { started, .. } = &mut c.phase {
                        if started.is_none() && !c.buf.is_empty() {
                            *started = Some(now);
                        }
                    }
                    self.conns.push(c);
                    return;
                }
                Parsed::Bad(status) => return self.close_with(c, status, now),
                Parsed::Head(h) => h,
            };
            c.buf.drain(..head.len);
            if c.buf.is_empty() {
                // An idle connection holds no memory.
                c.buf = Vec::new();
            }
            let head_only = head.method == "HEAD";
            if head.method != "GET" && !head_only {
                return self.close_with(c, 405, now);
            }
            let max = self.limits.max_requests;
            if max == 0 || self.busy < max {
                self.busy += 1;
                // Given back when no worker can start: answered 503 below.
                let Some(job) = self.shared.run(Job { conn: c, head }) else {
                    return;
                };
                self.busy -= 1;
                (c, head) = (job.conn, job.head);
            }
            // Too many requests at once: 503, and the connection kept if asked.
            let keep = head.keep_alive && !end;
            let bytes = response_bytes(&busy_response(max), head_only, keep);
            if !send_all(&c.stream, &bytes, !keep, None) {
                return;
            }
            if !keep {
                let mut budget = LINGER_BYTES;
                if let Some(mut c) = finish(c, &mut budget) {
                    c.phase = Phase::closing(now);
                    self.conns.push(c);
                }
                return;
            }
            c.phase = Phase::waiting(now);
        }
    }

    /// Answers `status` and closes `c` gracefully (its write side shut, what the client
    /// still sends drained for [`LINGER`]).
    fn close_with(&mut self, mut c: Conn, status: u16, now: Instant) {
        let bytes = response_bytes(&error_response(status), false, false);
        if send_all(&c.stream, &bytes, true, None) {
            let _ = c.stream.shutdown(std::net::Shutdown::Write);
            c.buf = Vec::new();
            c.phase = Phase::closing(now);
            self.conns.push(c);
        }
    }

    /// Takes back what the workers answered.
    fn returned(&mut self, now: Instant) {
        let mut n = [0u8; 8];
        let _ = rustix::io::read(&self.shared.wake, &mut n);
        let back = std::mem::take(&mut *lock(&self.shared.back));
        for b in back {
            self.busy -= 1;
            match b {
                Back::Keep(mut c) => {
                    c.phase = Phase::waiting(now);
                    // A pipelined request may be in the buffer already.
                    self.advance(c, false, now);
                }
                Back::Drain(mut c) => {
                    c.phase = Phase::closing(now);
                    self.conns.push(c);
                }
                Back::Gone => {}
            }
        }
    }

    /// Evicts the connection that has waited longest ([`victim`]): whether there was one.
    fn evict(&mut self) -> bool {
        let Some(i) = victim(self.conns.iter().map(|c| &c.phase)) else {
            return false;
        };
        let c = self.conns.swap_remove(i);
        if let Some(status) = eviction_answer(&c.phase, c.buf.len()) {
            let bytes = response_bytes(&error_response(status), false, false);
            let _ = send_all(&c.stream, &bytes, true, None);
        }
        true
    }

    /// Accepts the connections waiting, up to [`ACCEPT_BATCH`], evicting one for each
    /// past the cap.
    fn accept(&mut self, now: Instant) -> Result<(), std::io::Error> {
        use rustix::net::{accept_with, SocketFlags};
        for _ in 0..ACCEPT_BATCH {
            if self.held() >= self.limits.max_connections && self.conns.is_empty() {
                return Ok(()); // nothing to evict: the next ones wait in the backlog
            }
            let fd = match accept_with(&self.listener, SocketFlags::NONBLOCK | SocketFlags::CLOEXEC)
            {
                Ok(fd) => fd,
                Err(Errno::AGAIN) => return Ok(()),
                // A connection that failed before it was accepted.
                Err(
                    Errno::INTR
                    | Errno::CONNABORTED
                    | Errno::PROTO
                    | Errno::NETDOWN
                    | Errno::NETUNREACH
                    | Errno::HOSTDOWN
                    | Errno::HOSTUNREACH
                    | Errno::NONET
                    | Errno::NOPROTOOPT
                    | Errno::OPNOTSUPP
                    | Errno::PERM,
                ) => continue,
                // Out of file descriptors or memory: one connection less, else a pause.
                Err(Errno::MFILE | Errno::NFILE | Errno::NOBUFS | Errno::NOMEM) => {
                    if !self.evict() {
                        self.pause = Some(now + Duration::from_millis(50));
                    }
                    return Ok(());
                }
                Err(e) => return Err(e.into()),
            };
            if self.held() >= self.limits.max_connections {
                self.evict();
            }
            let stream = TcpStream::from(fd);
            let _ = stream.set_nodelay(true);
            let mut c = Conn {
                stream,
                buf: Vec::new(),
                phase: Phase::waiting(now),
            };
            // The request is often there already.
            match fill(&mut c) {
                Got::Gone => {}
                got => self.advance(c, got == Got::End, now),
            }
        }
        Ok(())
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

    #[test]
    fn busy_answer_says_when_to_retry() {
        let r = busy_response(40);
        let body = "40 requests are being answered, the most at once: try again in 1 s\n";
        assert_eq!(
            String::from_utf8(response_bytes(&r, false, true)).unwrap(),
            format!(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nRetry-After: 1\r\n\r\n{body}",
                body.len()
            )
        );
        assert_eq!(
            String::from_utf8(response_bytes(&r, true, false)).unwrap(),
            format!(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n",
                body.len()
            )
        );
        // No other status says it.
        for status in [200, 400, 404, 405, 408, 431] {
            let b = response_bytes(&error_response(status), false, false);
            assert!(!String::from_utf8(b).unwrap().contains("Retry-After"));
        }
        assert_eq!(
            response_bytes(&error_response(408), false, false),
            b"HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 16\r\nConnection: close\r\n\r\nRequest Timeout\n"
        );
    }

    #[test]
    fn eviction_takes_the_longest_waiting_then_the_oldest_closing() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let idle = |since| Phase::Wait {
            since,
            started: None,
        };
        let partial = |since, started| Phase::Wait {
            since,
            started: Some(started),
        };
        let closing = |since| Phase::Closing {
            since,
            until: since + LINGER,
            left: LINGER_BYTES,
        };
        assert_eq!(victim([].iter()), None);
        // Waiting longest: an idle kept-alive connection or a partial head alike.
        let v = [
            idle(at(30)),
            partial(at(10), at(40)),
            closing(at(0)),
            idle(at(20)),
        ];
        assert_eq!(victim(v.iter()), Some(1));
        let v = [partial(at(30), at(30)), idle(at(5)), closing(at(0))];
        assert_eq!(victim(v.iter()), Some(1));
        // Closing connections only when none waits: the oldest.
        let v = [closing(at(7)), closing(at(3)), closing(at(5))];
        assert_eq!(victim(v.iter()), Some(1));
        // What the evicted one is sent: 408 for a partial head, else nothing.
        assert_eq!(eviction_answer(&partial(at(0), at(1)), 12), Some(408));
        assert_eq!(eviction_answer(&idle(at(0)), 0), None);
        // Blank lines before a head are bytes of it.
        assert_eq!(eviction_answer(&idle(at(0)), 2), Some(408));
        assert_eq!(eviction_answer(&closing(at(0)), 0), None);
    }

    #[test]
    fn deadlines() {
        let l = Limits::default();
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let idle = Phase::Wait {
            since: t0,
            started: None,
        };
        assert_eq!(idle.deadline(&l), t0 + s(60));
        let partial = Phase::Wait {
            since: t0,
            started: Some(t0 + s(55)),
        };
        // A head begun 55 s into an idle wait has its 10 s.
        assert_eq!(partial.deadline(&l), t0 + s(65));
        assert_eq!(Phase::closing(t0).deadline(&l), t0 + LINGER);
    }

    #[test]
    fn caps() {
        let l = Limits::default();
        assert_eq!(
            (l.max_connections, l.max_requests, l.workers()),
            (2048, 40, 40)
        );
        // The connections a file limit allows: what is left past FD_RESERVE, at least
        // half the limit, never more than asked, at least one.
        for (soft, want) in [
            (None, 2048),
            (Some(1_048_576), 2048),
            (Some(3072), 2048),
            (Some(2500), 1476),
            (Some(2048), 1024),
            (Some(1024), 512),
            (Some(600), 300),
            (Some(1), 1),
            (Some(0), 1),
        ] {
            assert_eq!(connection_cap(2048, soft), want, "{soft:?}");
        }
        assert_eq!(connection_cap(0, None), 1);
        // Workers: as many as requests at once, never more than connections.
        let w = |max_connections, max_requests| {
            Limits {
                max_connections,
                max_requests,
                ..l
            }
            .workers()
        };
        assert_eq!(w(2048, 0), 2048);
        assert_eq!(w(8, 40), 8);
        assert_eq!(w(100, 1), 1);
    }
}
