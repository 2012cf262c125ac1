//! `uverbs watch [-d DEV] [--json]`: the devices' async events, one line each, as they
//! arrive; without `-d` it follows devices being added, removed and renamed.
//!
//! A device whose removal starts is let go of at once (its uverbs node disappears before
//! the kernel waits for the device's files to close): rxe and siw deletes never wait
//! for a running watch.

use crate::ops::follow::{Follower, Happened};
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;

const HELP: &str = "\
Usage: uverbs watch [-d DEV] [--json]

Prints the asynchronous events of RDMA devices (port up/down, LID, P_Key, GID and SM
changes, fatal errors) one line each as they arrive, until interrupted (Ctrl-C).

Without -d it watches every device and follows them: a device added later is watched
from then on (a DEVICE_ADDED line), a device being removed is let go of at once, so
that its removal never waits for this command (a DEVICE_REMOVED line), and a renamed
one is reported (DEVICE_RENAMED). A device whose events end (a fatal error) is dropped.

  -d, --ib-dev=DEV   watch only device DEV
      --json         one JSON object per line
  -h, --help         this text

Exit status: 1 on an error, 2 on a usage error, 3 when the device of -d goes away
(removed, or its events ended with a fatal error). Without -d it runs until
interrupted.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("json", false, b'j'),
    opt("help", false, b'h'),
];

/// The exit status when the device of `-d` goes away.
const GONE: i32 = 3;

/// A line about the devices themselves (not a kernel event).
#[derive(Clone, Copy)]
enum Change<'a> {
    Added,
    Removed,
    Renamed { from: &'a str },
}

/// `uverbs watch ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut json = false;
    let mut only: Option<String> = None;
    let parsed = io.options("watch", HELP, args, "d:h", LONGS, |c, arg| {
        match (c, arg) {
            (b'j', _) => json = true,
            (b'd', Some(v)) => only = Some(String::from_utf8_lossy(&v).into_owned()),
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    let mut f = match Follower::start_reporting(io, "watch", only.clone()) {
        Ok((f, _)) => f,
        Err(status) => return status,
    };
    if !json {
        let names: Vec<&str> = f.devices.iter().map(|d| d.name.as_str()).collect();
        let what = match (&only, names.is_empty()) {
            (None, true) => "every RDMA device as it comes (none yet)".to_string(),
            (None, false) => format!("{} and devices added later", names.join(", ")),
            (Some(_), _) => names.join(", "),
        };
        io.err_line(&format!("watching {what} (Ctrl-C to stop)"));
    }
    io.flush();
    loop {
        let mut gone = false;
        let waited = f.wait(None, &mut |h| match h {
            Happened::Event { device, event } => {
                if json {
                    io.out(format!(
                        "{}\n",
                        crate::plumbing::json_line::event(&event, device)
                    ));
                } else {
                    io.out(format!("{}\n", event.on(device)));
                }
                io.flush();
            }
            Happened::Added(name) => print_change(io, name, Change::Added, json),
            Happened::Removed(name) => {
                print_change(io, name, Change::Removed, json);
                if only.is_some() {
                    error(io, &format!("{name}: the device was removed"));
                    gone = true;
                }
            }
            Happened::Renamed { from, to } => {
                print_change(io, to, Change::Renamed { from }, json);
            }
            Happened::Ended(name) => {
                error(
                    io,
                    &format!("{name}: the device is gone (its event stream ended)"),
                );
                gone |= only.is_some();
            }
            Happened::Error(e) => {
                error(io, &e);
            }
        });
        if let Err(e) = waited {
            io.err_line(&format!("uverbs watch: poll: {e}"));
            return 1;
        }
        if gone {
            return GONE;
        }
    }
}

/// Prints `e` as one line; returns status 1.
fn error(io: &mut Io, e: &str) -> i32 {
    io.err_line(&crate::plumbing::io::printable(
        format!("uverbs watch: {e}").as_bytes(),
    ));
    1
}

fn print_change(io: &mut Io, device: &str, change: Change<'_>, json: bool) {
    let (event, from) = match change {
        Change::Added => ("DEVICE_ADDED", None),
        Change::Removed => ("DEVICE_REMOVED", None),
        Change::Renamed { from } => ("DEVICE_RENAMED", Some(from)),
    };
    let line = if json {
        crate::plumbing::json_line::device_change(device, event, from)
    } else {
        match from {
            Some(from) => {
                crate::plumbing::io::printable(format!("{device}: {event} from {from}").as_bytes())
            }
            None => crate::plumbing::io::printable(format!("{device}: {event}").as_bytes()),
        }
    };
    io.out(format!("{line}\n"));
    io.flush();
}
