//! Scrape timing for `bench/exporter.sh`: the latency of `GET /metrics` against
//! Prometheus exporters that run side by side (`uverbs exporter`, node_exporter), and
//! their memory.
//!
//! ```text
//! bench_scrape [--runs N] LABEL=ADDR[@PID]...
//!     ADDR is IP:PORT. Output:
//!       B LABEL BYTES SAMPLES  one answer's body: its size and its sample lines
//!                         (checked: status 200)
//!       P LABEL NS        the time of one scrape (N per exporter)
//!       M LABEL RSS HWM   the exporter's VmRSS and VmHWM in KiB after the scrapes
//!                         (from /proc/PID/status, when @PID is given)
//!       E LABEL TEXT      an exporter that did not answer 200
//! ```
//!
//! Each exporter is scraped once untimed (its first collection, and a check of the
//! answer), then the exporters take turns, `N` rounds, so that a slow period of the
//! shared host hits all of them alike. A scrape is what Prometheus does: a new
//! connection, `GET /metrics HTTP/1.1`, the whole answer read; timed with `Instant`
//! from the connect to the last byte.
//!
//! Build: `cargo build --release --example bench_scrape` (add
//! `--target x86_64-unknown-linux-musl` for the VM).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::exit;
use std::time::{Duration, Instant};

struct Target {
    label: String,
    addr: String,
    pid: Option<u32>,
}

/// One scrape: the body (the status checked: 200).
fn scrape(addr: &str) -> Result<Vec<u8>, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    s.write_all(
        b"GET /metrics HTTP/1.1\r\nHost: bench\r\nAccept: text/plain\r\nConnection: close\r\n\r\n",
    )
    .map_err(|e| format!("write {addr}: {e}"))?;
    let mut out = Vec::with_capacity(64 * 1024);
    s.read_to_end(&mut out)
        .map_err(|e| format!("read {addr}: {e}"))?;
    let head_end = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{addr}: no header end in {} bytes", out.len()))?;
    let head = String::from_utf8_lossy(&out[..head_end]);
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return Err(format!(
            "{addr}: {}",
            head.lines().next().unwrap_or_default()
        ));
    }
    out.drain(..head_end + 4);
    Ok(out)
}

fn status_kb(pid: u32, key: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut runs = 50usize;
    let mut targets = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| {
                eprintln!("bench_scrape: --runs wants a number");
                exit(2)
            });
        } else if let Some((label, rest)) = a.split_once('=') {
            let (addr, pid) = match rest.split_once('@') {
                Some((a, p)) => (
                    a.to_string(),
                    Some(p.parse().unwrap_or_else(|_| {
                        eprintln!("bench_scrape: bad pid in {rest}");
                        exit(2)
                    })),
                ),
                None => (rest.to_string(), None),
            };
            targets.push(Target {
                label: label.to_string(),
                addr,
                pid,
            });
        } else {
            eprintln!("bench_scrape: usage: bench_scrape [--runs N] LABEL=ADDR[@PID]...");
            exit(2);
        }
    }
    let mut ok = Vec::new();
    for t in targets {
        match scrape(&t.addr) {
            Ok(body) => {
                let samples = body
                    .split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty() && l[0] != b'#')
                    .count();
                println!("B {} {} {samples}", t.label, body.len());
                ok.push(t);
            }
            Err(e) => println!("E {} {e}", t.label),
        }
    }
    for _ in 0..runs {
        for t in &ok {
            let start = Instant::now();
            match scrape(&t.addr) {
                Ok(_) => println!("P {} {}", t.label, start.elapsed().as_nanos()),
                Err(e) => println!("E {} {e}", t.label),
            }
        }
    }
    for t in &ok {
        if let Some(pid) = t.pid {
            println!(
                "M {} {} {}",
                t.label,
                status_kb(pid, "VmRSS:"),
                status_kb(pid, "VmHWM:")
            );
        }
    }
}
