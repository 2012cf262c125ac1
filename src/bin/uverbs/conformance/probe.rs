//! `uverbs probe [-d DEV] [--json]`: the ABI regression probe of the object methods
//! (`uverbs::verbs::probe`), one line per kernel call.

use uverbs::verbs::probe::{self, Check, Expect, Probe};
use uverbs::{CallPath, Discovery};

use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;
use crate::plumbing::json::J;

const HELP: &str = "\
Usage: uverbs probe [-d DEV] [--json]

Walks every object method of the kernel's uverbs interface on each device: a PD, an
MR, a completion channel, a CQ (and its resize), an SRQ, RC, UC and UD queue pairs
through RESET, INIT, RTR and RTS, an address handle, and their destruction, once
through each interface (auto, ioctl, write); then the error paths (an invalid
transition, an incomplete or unknown attribute mask, a PD destroyed under its QP, a CQ
and a QP past the device's limits, an MR over unmapped memory, a stale handle). Each
call's answer is compared with what the kernel is expected to answer (Linux 6.1 and
6.12, rxe and siw). Every object is destroyed before it ends.

  -d, --ib-dev=DEV   probe only device DEV (default: every device)
      --json         one JSON document
  -h, --help         this text

Exit status: 0 every answer as expected; 1 an unexpected answer, or a device that
cannot be probed (drivers other than rxe and siw); 2 usage error.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("json", false, b'j'),
    opt("help", false, b'h'),
];

fn path_str(p: Option<CallPath>) -> &'static str {
    match p {
        Some(CallPath::Ioctl) => "ioctl",
        Some(CallPath::Write) => "write",
        Some(_) => "auto",
        None => "error",
    }
}

fn answer(r: &Result<(), Option<rustix::io::Errno>>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(Some(e)) => errno_name(*e),
        Err(None) => "failed (no errno)".into(),
    }
}

fn expected(e: Expect) -> String {
    match e {
        Expect::Ok => "ok".into(),
        Expect::Errno(e) => errno_name(e),
    }
}

/// The errno's C name for the errnos the probe expects, else its number.
fn errno_name(e: rustix::io::Errno) -> String {
    use rustix::io::Errno as E;
    let n = match e {
        E::INVAL => "EINVAL",
        E::OPNOTSUPP => "EOPNOTSUPP",
        E::BUSY => "EBUSY",
        E::FAULT => "EFAULT",
        E::NOENT => "ENOENT",
        E::PROTONOSUPPORT => "EPROTONOSUPPORT",
        E::NOMEM => "ENOMEM",
        E::IO => "EIO",
        E::NODEV => "ENODEV",
        E::NOSPC => "ENOSPC",
        E::PERM => "EPERM",
        E::ACCESS => "EACCES",
        _ => return format!("errno {}", e.raw_os_error()),
    };
    n.into()
}

fn text(io: &mut Io, p: &Probe) {
    let mut o = format!("{} ({})\n", p.device, p.driver);
    for c in &p.checks {
        o.push_str(&line(c));
    }
    let bad = p.checks.iter().filter(|c| !c.passed()).count();
    o.push_str(&format!(
        "{}: {} calls, {}\n",
        p.device,
        p.checks.len(),
        if bad == 0 {
            "every answer as expected".to_string()
        } else {
            format!("{bad} unexpected")
        }
    ));
    io.out(o);
}

fn line(c: &Check) -> String {
    let got = answer(&c.got);
    let mark = if c.passed() { "PASS" } else { "FAIL" };
    let mut s = format!(
        "  {mark}  {:<20} {:<6} {:<8}",
        c.method,
        path_str(c.path),
        got
    );
    if !c.passed() {
        s.push_str(&format!(" (expected {})", expected(c.expected)));
    }
    if !c.what.is_empty() {
        s.push_str("  ");
        s.push_str(&c.what);
    }
    s.push('\n');
    s
}

/// A JSON `true` or `false`.
fn boolean(v: bool) -> J {
    J::Num(v.to_string())
}

fn json(p: &Probe) -> J {
    J::Obj(vec![
        ("device", J::s(p.device.clone())),
        ("driver", J::s(p.driver.clone())),
        ("passed", boolean(p.passed())),
        (
            "checks",
            J::Arr(
                p.checks
                    .iter()
                    .map(|c| {
                        J::Obj(vec![
                            ("method", J::s(c.method)),
                            ("path", J::s(path_str(c.path))),
                            ("what", J::s(c.what.clone())),
                            ("expected", J::s(expected(c.expected))),
                            ("got", J::s(answer(&c.got))),
                            (
                                "errno",
                                match &c.got {
                                    Err(Some(e)) => J::i(e.raw_os_error()),
                                    _ => J::Null,
                                },
                            ),
                            ("passed", boolean(c.passed())),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// `uverbs probe ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut as_json = false;
    let mut only: Option<String> = None;
    let parsed = io.options("probe", HELP, args, "d:h", LONGS, |c, arg| {
        match (c, arg) {
            (b'j', _) => as_json = true,
            (b'd', Some(v)) => only = Some(String::from_utf8_lossy(&v).into_owned()),
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    let disc = Discovery::new();
    let infos = match &only {
        Some(name) => disc.device(name).map(|d| vec![d]),
        None => disc.devices(),
    };
    let infos = match infos {
        Ok(v) if v.is_empty() => {
            io.err_line("uverbs probe: no RDMA devices found");
            return 1;
        }
        Ok(v) => v,
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs probe: {e}").as_bytes(),
            ));
            return 1;
        }
    };
    let mut rc = 0;
    let mut docs = Vec::new();
    for info in &infos {
        match probe::run(info) {
            Ok(p) => {
                if !p.passed() {
                    rc = 1;
                }
                if as_json {
                    docs.push(json(&p));
                } else {
                    text(io, &p);
                }
            }
            Err(e) => {
                rc = 1;
                io.err_line(&crate::plumbing::io::printable(
                    format!("uverbs probe: {e}").as_bytes(),
                ));
            }
        }
    }
    if as_json {
        let doc = J::Obj(vec![
            ("schema_version", J::u(1u32)),
            ("devices", J::Arr(docs)),
        ]);
        io.out(doc.pretty());
    }
    rc
}
