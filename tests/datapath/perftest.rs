//! `uverbs perf` against perftest (Debian's 4.5, `ib_write_lat`, `ib_write_bw`,
//! `ib_send_lat`, `ib_send_bw`) on rxe0's internal loopback, each side in turn the
//! server, the exchange over TCP to 127.0.0.1 as perftest does it.
//!
//! What proves the run: both processes exit 0 after perftest's closing exchange;
//! the client's report line names the size and iterations it was given; and rxe0's
//! `hw_counters/sent_pkts` (both ends are rxe0) grew by at least the messages sent,
//! so the bytes moved through the device. The latency tests are ping-pongs in which
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

fn sent_pkts(dev: &str) -> u64 {
    let p = format!("/sys/class/infiniband/{dev}/ports/1/hw_counters/sent_pkts");
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{p}: {e}"))
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The arguments both sides take (perftest's spelling; `uverbs perf` accepts them).
fn common(dev: &str, port: u16, size: usize, iters: usize) -> Vec<String> {
    [
        "-d",
        dev,
        "-x",
        "1",
        "-F",
        "-p",
        &port.to_string(),
        "-s",
        &size.to_string(),
        "-n",
        &iters.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The report line of a client's output: its first field is the size.
fn report_line(out: &str, size: usize) -> Option<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
        .find(|f| f.len() >= 5 && f[0] == size.to_string() && f[1].parse::<u64>().is_ok())
}

/// One test, uverbs the server (`uverbs_server`) or the client.
pub fn run(dev: &str, test: &str, program: &str, port: u16, uverbs_server: bool) {
    let (size, iters) = if test.ends_with("_lat") {
        (2, 300)
    } else {
        (4096, 2000)
    };
    let before = sent_pkts(dev);
    let args = common(dev, port, size, iters);
    let mut ours = Command::new(uverbs_bin());
    ours.arg("perf").arg(test).args(&args);
    let mut theirs = Command::new(program);
    theirs.args(&args);
    let (server, client) = if uverbs_server {
        theirs.arg("127.0.0.1");
        (&mut ours, &mut theirs)
    } else {
        ours.arg("127.0.0.1");
        (&mut theirs, &mut ours)
    };
    let s = Peer::spawn(server);
    std::thread::sleep(Duration::from_millis(300));
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
        "{test} ({who}) failed\nclient: {c_out}\nserver: {s_out}"
    );
    assert!(!c_out.contains("panicked") && !s_out.contains("panicked"));
    let line = report_line(&c_out, size)
        .unwrap_or_else(|| panic!("{test} ({who}): no report line for {size} bytes\n{c_out}"));
    assert_eq!(line[1], iters.to_string(), "{test} ({who}): {line:?}");
    let sent = sent_pkts(dev) - before;
    // Every message is at least one packet (4096 bytes at rxe0's MTU: one or more).
    let min = if test.ends_with("_lat") {
        2 * iters as u64
    } else {
        iters as u64
    };
    assert!(
        sent >= min,
        "{test} ({who}): rxe0 sent {sent} packets, fewer than the {min} messages"
    );
    eprintln!("{test} ({who}): {line:?}, {sent} packets");
}
