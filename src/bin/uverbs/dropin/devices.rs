//! `uverbs devices` and the `ibv_devices` personality: the usable devices and their node
//! GUIDs, as rdma-core's `ibv_devices` prints them (it takes no options and ignores its
//! arguments).

use crate::dropin::devlist;
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::{pad16, Io};

pub const HELP: &str = "\
Usage: uverbs devices [--json]
List the RDMA devices usable through uverbs and their node GUIDs, as rdma-core's
ibv_devices does.

Options:
      --json   print JSON: every discovery field of each device
               (schema: docs/json-schema.md, \"schema_version\": 1)
  -h, --help   print this help

Exit status: 0 success (also with no device); 1 no RDMA subsystem; 2 usage error.
";

fn table(io: &mut Io, l: &devlist::DeviceList) {
    use std::io::Write;
    // One buffer, sized for the whole table (a line is under 64 bytes for the names
    // the kernel allows).
    let mut o = Vec::with_capacity(64 * (l.usable.len() + 2));
    o.extend_from_slice(b"    ");
    o.extend_from_slice(&pad16(b"device"));
    o.extend_from_slice(b"\t   node GUID\n");
    o.extend_from_slice(b"    ");
    o.extend_from_slice(&pad16(b"------"));
    o.extend_from_slice(b"\t----------------\n");
    for d in &l.usable {
        // printf's "%-16s": padded to 16 bytes (not characters).
        o.extend_from_slice(b"    ");
        o.extend_from_slice(d.name.as_bytes());
        o.resize(o.len() + 16usize.saturating_sub(d.name.len()), b' ');
        let _ = writeln!(o, "\t{:016x}", d.node_guid.0);
    }
    io.out(&o);
    crate::plumbing::io::keep(o);
}

/// `ibv_devices` (arguments ignored).
pub fn compat(io: &mut Io, _argv0: &[u8], _args: &[Vec<u8>]) -> i32 {
    if let Some(w) = crate::plumbing::io::memlock_warning() {
        io.err(w);
    }
    match devlist::list(false) {
        Ok(l) => {
            table(io, &l);
            0
        }
        Err(_) => {
            io.err_line("Failed to get IB devices list: Function not implemented");
            1
        }
    }
}

const LONGS: &[LongOpt] = &[opt("json", false, b'j'), opt("help", false, b'h')];

/// `uverbs devices ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut json = false;
    let parsed = io.options("devices", HELP, args, "h", LONGS, |c, _| match c {
        b'j' => {
            json = true;
            Ok(true)
        }
        _ => Ok(false),
    });
    if let Err(status) = parsed {
        return status;
    }
    let l = match devlist::list(json) {
        Ok(l) => l,
        Err(_) => {
            io.err_line(&format!(
                "Failed to get IB devices list: {}",
                devlist::NO_SUBSYSTEM
            ));
            return 1;
        }
    };
    if json {
        let doc = crate::dropin::devinfo_json::devices_doc(&l.usable);
        io.out(&doc);
        crate::plumbing::io::keep(doc);
    } else {
        table(io, &l);
    }
    // The process ends now: the list goes with it.
    crate::plumbing::io::keep(l);
    0
}
