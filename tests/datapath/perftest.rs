//! `uverbs perf` against perftest (Debian's 4.5, `ib_write_lat`, `ib_write_bw`,
//! `ib_send_lat`, `ib_send_bw`), each side in turn the server: on rxe0's internal
//! loopback with the exchange over TCP to 127.0.0.1, and on siw0 through its own
//! address with `-R` (the exchange and the QP's connection over the RDMA CM, as siw
//! needs), where send_bw also runs perftest's receive credits (iWARP has no RNR
//! retry; 300 sends against a receive depth of 64: the client waits for the server's
//! credit writes).
//!
//! What proves the run: both processes exit 0 after perftest's closing exchange;
//! the client's report line names the size and iterations it was given; and the
//! device's traffic grew by at least the messages sent, so the bytes moved through
//! it: rxe0's `hw_counters/sent_pkts` (both ends are rxe0) by the number of messages;
//! for siw (no hardware counters; its TCP connection to its own address goes through
//! `lo`) `lo`'s `tx_bytes` by the payload. The latency tests are ping-pongs in which
//! each side waits for the other's message (write_lat: polls the last byte of its
//! buffer for the iteration number the peer wrote), so they end only if every
//! message arrived.

use std::process::Command;
use std::time::Duration;

use super::pingpong::Peer;

/// The tests, perftest's program for each.
pub const TESTS: [(&str, &str); 4] = [
    ("write_lat", "ib_write_lat"),
    ("write_bw", "ib_write_bw"),
    ("send_lat", "ib_send_lat"),
    ("send_bw", "ib_send_bw"),
];

const LIMIT: Duration = Duration::from_secs(60);

fn uverbs_bin() -> String {
    std::env::var("UVERBS_BIN").expect("UVERBS_BIN (the rig sets /uverbs/uverbs)")
}

/// Where a test runs.
pub struct On<'a> {
    /// The device (`-d`).
    pub dev: &'a str,
    /// The client's SERVER argument.
    pub server: &'a str,
    /// iWARP: `-R`, and `lo`'s bytes as the traffic.
    pub siw: bool,
}

fn counter(path: &str) -> u64 {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The traffic counter of `on`: rxe's packets sent, or `lo`'s bytes sent.
fn traffic(on: &On) -> u64 {
    if on.siw {
        counter("/sys/class/net/lo/statistics/tx_bytes")
    } else {
        counter(&format!(
            "/sys/class/infiniband/{}/ports/1/hw_counters/sent_pkts",
            on.dev
        ))
    }
}

/// The arguments both sides take (perftest's spelling; `uverbs perf` accepts them).
fn common(on: &On, test: &str, port: u16, size: usize, iters: usize) -> Vec<String> {
    let mut v: Vec<&str> = vec!["-d", on.dev, "-F"];
    if on.siw {
        v.push("-R");
        if test.starts_with("send") {
            // (perftest takes a receive depth for send tests only)
            v.extend(["-r", "64"]);
        }
    } else {
        v.extend(["-x", "1"]);
    }
    let (port, size, iters) = (port.to_string(), size.to_string(), iters.to_string());
    v.extend(["-p", &port, "-s", &size, "-n", &iters]);
    v.iter().map(|s| s.to_string()).collect()
}

/// The report line of a client's output: its first field is the size.
fn report_line(out: &str, size: usize) -> Option<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
        .find(|f| f.len() >= 5 && f[0] == size.to_string() && f[1].parse::<u64>().is_ok())
}

/// Every test of [`TESTS`], uverbs the server and then the client, on ports from
/// `first_port + 1` up.
pub fn run_all(on: &On, first_port: u16) {
    let mut port = first_port;
    for (test, program) in TESTS {
        for uverbs_server in [true, false] {
            port += 1;
            run(on, test, program, port, uverbs_server);
        }
    }
}

/// One test, uverbs the server (`uverbs_server`) or the client.
pub fn run(on: &On, test: &str, program: &str, port: u16, uverbs_server: bool) {
    let (size, iters) = match (test.ends_with("_lat"), on.siw) {
        (true, false) => (2, 300),
        (true, true) => (2, 50),
        (false, false) => (4096, 2000),
        (false, true) => (4096, 300),
    };
    let before = traffic(on);
    let args = common(on, test, port, size, iters);
    let mut ours = Command::new(uverbs_bin());
    ours.arg("perf").arg(test).args(&args);
    let mut theirs = Command::new(program);
    theirs.args(&args);
    let (server, client) = if uverbs_server {
        theirs.arg(on.server);
        (&mut ours, &mut theirs)
    } else {
        ours.arg(on.server);
        (&mut theirs, &mut ours)
    };
    let s = Peer::spawn(server);
    // perftest's client does not retry: start it once the server listens (its TCP
    // exchange port on rxe; on siw with -R the iWARP CM's kernel listener, also TCP).
    crate::common::scratch::wait_listening(port, LIMIT, &format!("{test} server on {}", on.dev));
    let c = Peer::spawn(client);
    let (c_ok, c_out) = c.finish(LIMIT);
    let (s_ok, s_out) = s.finish(LIMIT);
    let who = if uverbs_server {
        "uverbs server, perftest client"
    } else {
        "perftest server, uverbs client"
    };
    assert!(
        c_ok && s_ok,
        "{test} on {} ({who}) failed\nclient: {c_out}\nserver: {s_out}",
        on.dev
    );
    assert!(!c_out.contains("panicked") && !s_out.contains("panicked"));
    let line = report_line(&c_out, size).unwrap_or_else(|| {
        panic!(
            "{test} on {} ({who}): no report line for {size} bytes\n{c_out}",
            on.dev
        )
    });
    assert_eq!(line[1], iters.to_string(), "{test} ({who}): {line:?}");
    let grew = traffic(on) - before;
    let messages = if test.ends_with("_lat") {
        2 * iters as u64
    } else {
        iters as u64
    };
    // rxe: every message is at least one packet; siw: at least its payload in bytes.
    let (min, unit) = if on.siw {
        (messages * size as u64, "bytes through lo")
    } else {
        (messages, "packets")
    };
    assert!(
        grew >= min,
        "{test} on {} ({who}): {grew} {unit}, fewer than the {messages} messages need ({min})",
        on.dev
    );
    eprintln!("{test} on {} ({who}): {line:?}, {grew} {unit}", on.dev);
}
