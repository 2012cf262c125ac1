//! `uverbs devinfo` and the `ibv_devinfo` personality.
//!
//! As `ibv_devinfo` it behaves as rdma-core 44's tool: the same options parsed the same
//! way (glibc `getopt_long`, `-l` acting as soon as it is seen, `-i` read by `strtol` and
//! truncated to 8 bits), the same output, error lines and exit statuses.
//!
//! As `uverbs devinfo` the output and exit statuses are the same; usage errors are one
//! line on stderr with exit status 2; where rdma-core's message does not say why (an
//! open failure, no devices, a device without uverbs) the line says why.

use uverbs::verbs::discover::DeviceInfo;

use crate::dropin::devlist::{self, DeviceList};
use crate::dropin::report::{self, GidMode, HcaReport, Want};
use crate::dropin::text::{self, Flavor};
use crate::plumbing::getopt::{c_strtol, opt, Getopt, LongOpt};
use crate::plumbing::io::Io;

const COMPAT_LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("list", false, b'l'),
    opt("verbose", false, b'v'),
];

const UVERBS_LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("list", false, b'l'),
    opt("verbose", false, b'v'),
    opt("json", false, b'j'),
    opt("help", false, b'h'),
];

pub const HELP: &str = "\
Usage: uverbs devinfo [-d DEV] [-i PORT] [-v] [-l] [--json]
Print the attributes of RDMA devices and their ports, as rdma-core's ibv_devinfo does.

Options:
  -d, --ib-dev=DEV     only device DEV (default: every device)
  -i, --ib-port=PORT   only port PORT, from 1 (default: every port)
  -l, --list           print only the device names
  -v, --verbose        print every attribute, GIDs included
      --json           print JSON: every attribute, GIDs and P_Keys, whatever -v says
                       (schema: docs/json-schema.md, \"schema_version\": 1)
  -h, --help           print this help

Exit status: 0 success; 1 a device cannot be opened; 2 a device cannot be queried;
4 no such port; 255 no such device or no device; 2 also for a usage error.
Statuses of several devices are OR-ed together, as ibv_devinfo does.
";

fn usage_compat(io: &mut Io, argv0: &[u8]) {
    let mut u = Vec::new();
    u.extend_from_slice(b"Usage: ");
    u.extend_from_slice(argv0);
    u.extend_from_slice(b"             print the ca attributes\n");
    u.extend_from_slice(
        b"\nOptions:\n  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)\n  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n  -l, --list             print only the IB devices names\n  -v, --verbose          print all the attributes of the IB device(s)\n",
    );
    io.out(u);
}

/// What the command line asks.
struct Request {
    devname: Option<Vec<u8>>,
    port: u8,
    verbose: bool,
    json: bool,
}

/// `ibv_devinfo ARGS`, invoked as `argv0`.
pub fn compat(io: &mut Io, argv0: &[u8], args: &[Vec<u8>]) -> i32 {
    let mut g = Getopt::new(args, "d:i:lv", COMPAT_LONGS);
    let mut req = Request {
        devname: None,
        port: 0,
        verbose: false,
        json: false,
    };
    while let Some(r) = g.next_opt() {
        match r {
            Ok((b'd', Some(v))) => req.devname = Some(v),
            Ok((b'i', Some(v))) => {
                // ib_port = strtol(optarg, NULL, 0) into an int; <= 0 is refused; the
                // value then goes through a uint8_t parameter.
                let p = c_strtol(&v) as i32;
                if p <= 0 {
                    usage_compat(io, argv0);
                    return 1;
                }
                req.port = p as u8;
            }
            Ok((b'v', _)) => req.verbose = true,
            Ok((b'l', _)) => {
                if let Some(w) = crate::plumbing::io::memlock_warning() {
                    io.err(w);
                }
                return list_names(io, Flavor::Compat, false);
            }
            Ok(_) => {
                usage_compat(io, argv0);
                return -1;
            }
            Err(e) => {
                io.err(e.glibc_message(argv0));
                usage_compat(io, argv0);
                return -1;
            }
        }
    }
    if let Some(w) = crate::plumbing::io::memlock_warning() {
        io.err(w);
    }
    show(io, &req, Flavor::Compat)
}

/// `uverbs devinfo ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut req = Request {
        devname: None,
        port: 0,
        verbose: false,
        json: false,
    };
    let mut list = false;
    let parsed = io.options("devinfo", HELP, args, "d:i:lvh", UVERBS_LONGS, |c, arg| {
        match (c, arg) {
            (b'd', Some(v)) => req.devname = Some(v),
            (b'i', Some(v)) => {
                let text = String::from_utf8_lossy(&v);
                match text.parse::<u8>() {
                    Ok(p) if p > 0 => req.port = p,
                    _ => {
                        return Err(format!(
                            "invalid port number '{text}' (a number from 1 to 255)"
                        ))
                    }
                }
            }
            (b'v', _) => req.verbose = true,
            (b'l', _) => list = true,
            (b'j', _) => req.json = true,
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    if list {
        return list_names(io, Flavor::Uverbs, req.json);
    }
    show(io, &req, Flavor::Uverbs)
}

/// `-l`: `N HCAs found:` and the names.
fn list_names(io: &mut Io, flavor: Flavor, json: bool) -> i32 {
    let l = match devlist::list(json) {
        Ok(l) => l,
        Err(_) => {
            match flavor {
                Flavor::Compat => {
                    io.err_line("Failed to get IB devices list: Function not implemented")
                }
                Flavor::Uverbs => io.err_line(&format!(
                    "Failed to get IB devices list: {}",
                    devlist::NO_SUBSYSTEM
                )),
            }
            return -1;
        }
    };
    if json {
        use crate::plumbing::json::J;
        let doc = crate::plumbing::json::document(
            "hcas",
            J::Arr(l.usable.iter().map(|d| J::s(d.name.clone())).collect()),
        );
        io.out(doc.pretty());
        return 0;
    }
    let n = l.usable.len();
    let mut o = format!("{} HCA{} found:\n", n, if n != 1 { "s" } else { "" });
    for d in &l.usable {
        o.push('\t');
        o.push_str(&d.name);
        o.push('\n');
    }
    o.push('\n');
    io.out(o);
    0
}

fn want(req: &Request) -> Want {
    if req.json {
        Want {
            port: req.port,
            gids: GidMode::Table,
            extras: true,
        }
    } else {
        Want {
            port: req.port,
            gids: if req.verbose {
                GidMode::TableOrPerIndex
            } else {
                GidMode::None
            },
            extras: false,
        }
    }
}

fn show(io: &mut Io, req: &Request, flavor: Flavor) -> i32 {
    let list: DeviceList = match devlist::list(req.json) {
        Ok(l) => l,
        Err(_) => {
            match (flavor, &req.devname) {
                (Flavor::Compat, _) => {
                    io.err_line("Failed to get IB devices list: Function not implemented")
                }
                (Flavor::Uverbs, Some(n)) => {
                    let mut m = b"IB device '".to_vec();
                    m.extend_from_slice(crate::plumbing::io::printable(n).as_bytes());
                    m.extend_from_slice(b"' wasn't found: ");
                    m.extend_from_slice(devlist::NO_SUBSYSTEM.as_bytes());
                    m.push(b'\n');
                    io.err(m);
                }
                (Flavor::Uverbs, None) => {
                    io.err_line(&format!("No IB devices found: {}", devlist::NO_SUBSYSTEM))
                }
            }
            return -1;
        }
    };
    let chosen: Vec<&DeviceInfo> = match &req.devname {
        Some(n) => match list
            .usable
            .iter()
            .find(|d| d.name.as_bytes() == n.as_slice())
        {
            Some(d) => vec![d],
            None => {
                let mut m = b"IB device '".to_vec();
                if flavor == Flavor::Uverbs {
                    m.extend_from_slice(crate::plumbing::io::printable(n).as_bytes());
                } else {
                    m.extend_from_slice(n);
                }
                m.extend_from_slice(b"' wasn't found");
                if flavor == Flavor::Uverbs {
                    if let Some(why) = devlist::why_skipped(&list, n) {
                        m.extend_from_slice(b": ");
                        m.extend_from_slice(why.as_bytes());
                    }
                }
                m.push(b'\n');
                io.err(m);
                return -1;
            }
        },
        None => {
            if list.usable.is_empty() {
                let why = match flavor {
                    Flavor::Uverbs => devlist::why_none(&list),
                    Flavor::Compat => None,
                };
                match why {
                    Some(w) => io.err_line(&format!("No IB devices found: {w}")),
                    None => io.err_line("No IB devices found"),
                }
                return -1;
            }
            list.usable.iter().collect()
        }
    };
    let w = want(req);
    let mut ret = 0i32;
    // Every device's report, kept to the end of the run (the text is printed device by
    // device): dropping each after printing would free the last block of a size class
    // now and then, and musl's allocator unmaps its group then (two system calls a
    // device, each munmap a TLB flush under emulation).
    let mut reports: Vec<HcaReport> = Vec::with_capacity(chosen.len());
    // The text of one device at a time, in buffers reused for every device.
    let (mut out, mut err) = (String::with_capacity(8192), String::new());
    for d in chosen {
        let r = report::gather(d, &w);
        ret |= r.rc();
        if req.json {
            if let Some(f) = &r.failure {
                io.err(text::failure_line(f, &r.ident.name, Flavor::Uverbs));
            }
            reports.push(r);
        } else {
            out.clear();
            err.clear();
            text::render_hca_into(&r, req.verbose, flavor, &mut out, &mut err);
            io.out(&out);
            io.err(&err);
            reports.push(r);
        }
    }
    if req.json {
        let doc = crate::dropin::devinfo_json::devinfo_doc(&reports);
        io.out(&doc);
        crate::plumbing::io::keep(doc);
    }
    // The process ends now: what it built goes with it.
    crate::plumbing::io::keep((out, err, reports));
    crate::plumbing::io::keep(list);
    ret
}
