//! `uverbs counters [-d DEV] [-i PORT] [--json] [--rate [SECS]] [--count N]`: the port
//! counters (the IB PMA set), the driver counters (`hw_counters`, per port and per
//! device), as values or as rates per second.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use uverbs::verbs::counters::{Counter, CounterReader, CounterSource, DeviceCounters};
use uverbs::Discovery;

use crate::plumbing::deadline::{self, Late, Outcome, Readers};
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::{Io, Printable};
use crate::plumbing::json::J;

const HELP: &str = "\
Usage: uverbs counters [-d DEV] [-i PORT] [--json] [--sysfs ROOT] [--device-timeout SECS]
       uverbs counters --rate [--interval SECS] [--count N] [-d DEV] [-i PORT] [--json]
                       [--device-timeout SECS]

Prints the counters of RDMA ports and devices: per port the InfiniBand PMA counters
(sysfs counters/, and counters_ext/ on mlx4) and the driver's counters (one RDMA
netlink request per port, as 'rdma statistic show' sends; sysfs hw_counters/ where
netlink cannot answer), then the device's own driver counters (hw_counters/ of the
device). Counters a driver shows as N/A are left out.

The PMA data counters (port_xmit_data, port_rcv_data and their _64 forms) count
4-octet words: they are printed in bytes (4 x the kernel's value; --json gives both).

One line per counter: DEVICE PORT SET NAME VALUE [bytes], SET being pma, pma_ext or
hw, PORT '-' for a device's own counters.

With --rate it samples every SECS seconds (--interval, default 1) and prints, for each
counter that moved, its change per second, then a line '-- MS ms' closing the
interval; --count N stops after N intervals (default: until interrupted).

Each device is read by a thread of its own, all at once, within --device-timeout: a
device that has not answered by then is named on stderr with the read it was in (and
in --json's errors), its counters left out, and the exit status is 1; the others are
printed on time. A read that never returns is not issued again: the device is
reported late at once until it returns (with --rate, then read again).

  -d, --ib-dev=DEV    only device DEV
  -i, --ib-port=PORT  only port PORT (and not the device's own counters)
      --json          JSON (docs/json-schema.md); with --rate one line per interval
      --rate          rates per second
      --interval=SECS with --rate: seconds between samples (1-3600, default 1)
      --count=N       with --rate: N intervals
      --sysfs=ROOT    the sysfs mount point (default /sys; another root reads sysfs
                      alone, without netlink)
      --device-timeout=SECS
                      how long to wait for a device's counters (and for the device
                      list) before reporting it late (default 5; 0.001 to 3600)
  -h, --help          this text

Exit status: 0 success; 1 no such device, a counter that could not be read, or a
device past the deadline; 2 usage error.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("json", false, b'j'),
    opt("rate", false, b'r'),
    opt("interval", true, b'I'),
    opt("count", true, b'c'),
    opt("sysfs", true, b's'),
    opt("device-timeout", true, b'T'),
    opt("help", false, b'h'),
];

/// One counter, flattened: (port or 0, set, counter).
type Row<'a> = (u32, &'static str, &'a Counter);

fn rows(d: &DeviceCounters, port: Option<u32>) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    for p in d
        .ports
        .iter()
        .filter(|p| port.map_or(true, |w| w == p.port))
    {
        out.extend(p.pma.iter().map(|c| (p.port, "pma", c)));
        out.extend(p.pma_ext.iter().map(|c| (p.port, "pma_ext", c)));
        out.extend(p.hw.iter().map(|c| (p.port, "hw", c)));
    }
    if port.is_none() {
        out.extend(d.hw.iter().map(|c| (0, "hw", c)));
    }
    out
}

/// A name from sysfs or netlink, control characters escaped, written where it goes.
fn text(s: &str) -> Printable<'_> {
    Printable(s.as_bytes())
}

/// A counter's port: its number, `-` for the device's own counters.
struct PortText(u32);

impl std::fmt::Display for PortText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == 0 {
            f.write_str("-")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

fn counter_json(c: &Counter) -> J {
    let mut v = vec![("name", J::s(c.name.clone())), ("value", J::u(c.value))];
    if let Some(b) = c.bytes() {
        v.push(("bytes", J::u(b)));
    }
    J::Obj(v)
}

/// One device's read: its counters (none when it was late), and why it was late.
type Read = (DeviceCounters, Option<Late>);

/// The message of a device that was late.
fn late_text(device: &str, late: &Late) -> String {
    format!("{device}: {late}")
}

fn device_json((d, late): &Read, port: Option<u32>) -> J {
    let ports = d
        .ports
        .iter()
        .filter(|p| port.map_or(true, |w| w == p.port))
        .map(|p| {
            J::Obj(vec![
                ("port", J::u(p.port)),
                ("pma", J::Arr(p.pma.iter().map(counter_json).collect())),
                (
                    "pma_ext",
                    J::Arr(p.pma_ext.iter().map(counter_json).collect()),
                ),
                ("hw", J::Arr(p.hw.iter().map(counter_json).collect())),
                (
                    "hw_source",
                    J::s(match p.hw_source {
                        CounterSource::Netlink => "netlink",
                        _ => "sysfs",
                    }),
                ),
            ])
        })
        .collect();
    J::Obj(vec![
        ("device", J::s(d.device.clone())),
        ("ports", J::Arr(ports)),
        (
            "hw",
            if port.is_none() {
                J::Arr(d.hw.iter().map(counter_json).collect())
            } else {
                J::Null
            },
        ),
        (
            "errors",
            J::Arr(
                d.errors
                    .iter()
                    .map(|e| e.to_string())
                    .chain(late.iter().map(|l| late_text(&d.device, l)))
                    .map(J::s)
                    .collect(),
            ),
        ),
    ])
}

/// `uverbs counters ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut json = false;
    let mut dev: Option<String> = None;
    let mut port: Option<u32> = None;
    let mut rate: Option<u64> = None;
    let mut count: Option<u64> = None;
    let mut sysfs = PathBuf::from("/sys");
    let mut interval: Option<u64> = None;
    let mut timeout = deadline::DEFAULT_TIMEOUT;
    let parsed = io.text_options("counters", HELP, args, "d:i:h", LONGS, |c, v| {
        match c {
            b'j' => json = true,
            b'd' => dev = Some(v),
            b'i' => port = Some(crate::plumbing::io::port_arg(&v)?),
            b'r' => rate = Some(rate.unwrap_or(1)),
            b'I' => {
                interval = Some(
                    v.parse::<u64>()
                        .ok()
                        .filter(|s| (1..=3600).contains(s))
                        .ok_or_else(|| format!("bad interval '{v}' (1-3600 seconds)"))?,
                )
            }
            b'c' => {
                count = Some(
                    v.parse::<u64>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("bad count '{v}'"))?,
                )
            }
            b's' => sysfs = PathBuf::from(v),
            b'T' => {
                timeout = deadline::parse_timeout(&v).ok_or_else(|| {
                    format!("bad --device-timeout '{v}': expected seconds from 0.001 to 3600")
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    if (count.is_some() || interval.is_some()) && rate.is_none() {
        return io.usage_error("counters", "--interval and --count need --rate");
    }
    if let Some(i) = interval {
        rate = Some(i);
    }
    let live = sysfs == std::path::Path::new("/sys");
    // One reader thread per device (and one for the device list), each keeping its
    // counter reader from one read to the next.
    let readers: Readers<Option<CounterReader>> = Readers::new("uverbs-rd-");
    let infos = if live {
        // RDMA netlink, under the deadline too.
        let want = dev.clone();
        let listed = readers.start("", Instant::now() + timeout, timeout, move |_, p| {
            p.set("the device list", 0);
            let disc = Discovery::new();
            match &want {
                Some(d) => disc.device(d).map(|i| vec![(i.name, i.index)]),
                None => disc
                    .devices()
                    .map(|v| v.into_iter().map(|i| (i.name, i.index)).collect()),
            }
        });
        match listed.wait() {
            Outcome::Done(r, _) => r,
            Outcome::Late(late) => {
                io.err_line(&format!("uverbs counters: device list: {late}"));
                return 1;
            }
        }
    } else {
        // The names only (listing the class reads no device).
        uverbs::sysfs::open_class(&sysfs).and_then(|class| match class {
            Some(c) => uverbs::verbs::counters::sysfs_device_names(&c).map(|v| {
                v.into_iter()
                    .filter(|n| dev.as_deref().map_or(true, |d| d == n))
                    .map(|n| (n, None))
                    .collect()
            }),
            None => Ok(Vec::new()),
        })
    };
    let infos = match infos {
        Ok(v) if v.is_empty() && dev.is_some() => {
            io.err_line(&crate::plumbing::io::printable(
                format!(
                    "uverbs counters: no such device: {}",
                    dev.as_deref().unwrap_or("")
                )
                .as_bytes(),
            ));
            return 1;
        }
        Ok(v) => v,
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs counters: {e}").as_bytes(),
            ));
            return 1;
        }
    };
    // Every device's read started (they run at once), then each waited for until the
    // deadline.
    let read_all = || -> Vec<Read> {
        let deadline = Instant::now() + timeout;
        let jobs: Vec<_> = infos
            .iter()
            .map(|(name, index)| {
                let (name, index, root) = (name.clone(), *index, sysfs.clone());
                readers.start(&name.clone(), deadline, timeout, move |r, p| {
                    p.set("the counters", 0);
                    r.get_or_insert_with(|| CounterReader::new().sysfs_root(root).netlink(live))
                        .read(&name, index)
                })
            })
            .collect();
        jobs.into_iter()
            .zip(&infos)
            .map(|(job, (name, _))| match job.wait() {
                Outcome::Done(d, _) => (d, None),
                Outcome::Late(late) => {
                    let mut d = DeviceCounters::default();
                    d.device = name.clone();
                    (d, Some(late))
                }
            })
            .collect()
    };
    let report_errors = |io: &mut Io, all: &[Read]| -> bool {
        let mut any = false;
        for (d, late) in all {
            let texts = d
                .errors
                .iter()
                .map(|e| e.to_string())
                .chain(late.iter().map(|l| late_text(&d.device, l)));
            for t in texts {
                any = true;
                io.err_line(&crate::plumbing::io::printable(
                    format!("uverbs counters: {t}").as_bytes(),
                ));
            }
        }
        any
    };
    let Some(secs) = rate else {
        let all = read_all();
        if json {
            let doc = crate::plumbing::json::document(
                "devices",
                J::Arr(all.iter().map(|d| device_json(d, port)).collect()),
            );
            io.out(doc.pretty());
        } else {
            // One buffer for the table, each line written into it (a line is under 80
            // bytes for the names drivers give).
            let mut out = String::with_capacity(4096);
            for (d, _) in &all {
                for (p, set, c) in rows(d, port) {
                    let (value, unit) = match c.bytes() {
                        Some(b) => (b, " bytes"),
                        None => (c.value, ""),
                    };
                    let _ = writeln!(
                        out,
                        "{} {} {set} {} {value}{unit}",
                        text(&d.device),
                        PortText(p),
                        text(&c.name)
                    );
                }
            }
            io.out(out);
        }
        return i32::from(report_errors(io, &all));
    };
    // Rate mode.
    let interval = Duration::from_secs(secs);
    let mut before = read_all();
    let mut t0 = Instant::now();
    let mut n = 0u64;
    let mut failed = report_errors(io, &before);
    io.flush();
    loop {
        let next = t0 + interval;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        let after = read_all();
        let t1 = Instant::now();
        let ms = t1.duration_since(t0).as_millis().max(1) as u64;
        failed |= report_errors(io, &after);
        let mut lines = String::new();
        let mut moved = Vec::new();
        for ((b, _), (a, _)) in before.iter().zip(&after) {
            let old = rows(b, port);
            for (p, set, c) in rows(a, port) {
                let Some((_, _, o)) = old
                    .iter()
                    .find(|(op, os, oc)| *op == p && *os == set && oc.name == c.name)
                else {
                    continue;
                };
                if c.value == o.value {
                    continue;
                }
                let per_s = |x: u64, y: u64| -> Option<u64> {
                    y.checked_sub(x).map(|d| {
                        u64::try_from(u128::from(d) * 1000 / u128::from(ms)).unwrap_or(u64::MAX)
                    })
                };
                let (v, unit) = match (o.bytes(), c.bytes()) {
                    (Some(x), Some(y)) => (per_s(x, y), " bytes"),
                    _ => (per_s(o.value, c.value), ""),
                };
                if json {
                    moved.push(J::Obj(vec![
                        ("device", J::s(a.device.clone())),
                        ("port", if p == 0 { J::Null } else { J::u(p) }),
                        ("set", J::s(set)),
                        ("name", J::s(c.name.clone())),
                        ("per_second", v.map_or(J::Null, J::u)),
                        (
                            "unit",
                            J::s(if unit.is_empty() { "count" } else { "bytes" }),
                        ),
                    ]));
                } else {
                    let _ = write!(
                        lines,
                        "{} {} {set} {} ",
                        text(&a.device),
                        PortText(p),
                        text(&c.name)
                    );
                    let _ = match v {
                        Some(v) => writeln!(lines, "{v}{unit}/s"),
                        None => writeln!(lines, "reset"),
                    };
                }
            }
        }
        if json {
            let doc = J::Obj(vec![("interval_ms", J::u(ms)), ("counters", J::Arr(moved))]);
            io.out(doc.compact() + "\n");
        } else {
            lines.push_str(&format!("-- {ms} ms\n"));
            io.out(lines);
        }
        io.flush();
        before = after;
        t0 = t1;
        n += 1;
        if count.is_some_and(|c| n >= c) {
            return i32::from(failed);
        }
    }
}
