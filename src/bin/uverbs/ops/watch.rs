//! `uverbs watch [-d DEV] [--json]`: the devices' async events, one line each, as they
//! arrive; without `-d` it follows devices being added, removed and renamed.
//!
//! A device whose removal starts is let go of at once (its uverbs node disappears before
//! the kernel waits for the device's files to close): rxe and siw deletes never wait
//! for a running watch.

use std::os::fd::AsFd;

use rustix::event::{poll, PollFd, PollFlags};
use uverbs::{Context, DeviceChange, DeviceInfo, DeviceMonitor, Discovery, EventStream, Next};

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

/// One watched device.
struct Watched {
    name: String,
    /// Kept for its file: the stream's events are the context's.
    _ctx: Context,
    stream: EventStream,
}

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
    // The monitor first, then the device list: nothing added or removed in between is
    // missed.
    let mut monitor = match DeviceMonitor::new() {
        Ok(m) => Some(m),
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs watch: cannot follow devices being added and removed: {e}")
                    .as_bytes(),
            ));
            None
        }
    };
    let disc = Discovery::new();
    let infos = match &only {
        Some(name) => disc.device(name).map(|d| vec![d]),
        None => disc.devices(),
    };
    let infos = match infos {
        Ok(v) => v,
        Err(e) => return error(io, &e),
    };
    let mut watched: Vec<Watched> = Vec::new();
    for info in &infos {
        match open(info) {
            Ok(w) => watched.push(w),
            // With -d the device is the point; without, one device that cannot be
            // opened (being removed, no permission) does not stop the others.
            Err(e) if only.is_some() => return error(io, &e),
            Err(e) => {
                error(io, &e);
            }
        }
    }
    if watched.is_empty() && (only.is_some() || monitor.is_none()) {
        io.err_line("uverbs watch: no RDMA devices found");
        return 1;
    }
    if !json {
        let names: Vec<&str> = watched.iter().map(|w| w.name.as_str()).collect();
        let what = match (&only, names.is_empty()) {
            (None, true) => "every RDMA device as it comes (none yet)".to_string(),
            (None, false) => format!("{} and devices added later", names.join(", ")),
            (Some(_), _) => names.join(", "),
        };
        io.err_line(&format!("watching {what} (Ctrl-C to stop)"));
    }
    io.flush();
    loop {
        let ready = match wait(monitor.as_ref(), &watched) {
            Ok(r) => r,
            Err(e) => {
                io.err_line(&format!("uverbs watch: poll: {e}"));
                return 1;
            }
        };
        // The streams first: events a device queued before it left are printed.
        let mut i = 0;
        for was_ready in ready {
            let keep = !was_ready || drain(io, &mut watched[i], json);
            if keep {
                i += 1;
                continue;
            }
            let w = watched.remove(i);
            if only.is_some() {
                return GONE;
            }
            drop(w);
        }
        let Some(m) = monitor.as_mut() else { continue };
        loop {
            let change = match m.try_next() {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) => {
                    io.err_line(&crate::plumbing::io::printable(
                        format!("uverbs watch: device monitor: {e}").as_bytes(),
                    ));
                    break;
                }
            };
            match change {
                DeviceChange::NodeRemoved {
                    device: Some(name), ..
                }
                | DeviceChange::Removed { name } => {
                    let Some(i) = watched.iter().position(|w| w.name == name) else {
                        continue;
                    };
                    // Close its files now: the kernel's removal waits for them.
                    drop(watched.remove(i));
                    print_change(io, &name, Change::Removed, json);
                    if only.is_some() {
                        io.err_line(&crate::plumbing::io::printable(
                            format!("uverbs watch: {name}: the device was removed").as_bytes(),
                        ));
                        return GONE;
                    }
                }
                DeviceChange::NodeAdded {
                    device: Some(name), ..
                } if only.is_none() && !watched.iter().any(|w| w.name == name) => {
                    match disc.device(&name).and_then(|info| open(&info)) {
                        Ok(w) => {
                            watched.push(w);
                            print_change(io, &name, Change::Added, json);
                        }
                        Err(e) => {
                            error(io, &e);
                        }
                    }
                }
                DeviceChange::Renamed { from, to } => {
                    let Some(w) = watched.iter_mut().find(|w| w.name == from) else {
                        continue;
                    };
                    w.name.clone_from(&to);
                    if only.as_deref() == Some(from.as_str()) {
                        only = Some(to.clone());
                    }
                    print_change(io, &to, Change::Renamed { from: &from }, json);
                }
                _ => {}
            }
        }
    }
}

fn open(info: &DeviceInfo) -> uverbs::Result<Watched> {
    let ctx = Context::open(info)?;
    let stream = ctx.events()?;
    Ok(Watched {
        name: info.name.clone(),
        _ctx: ctx,
        stream,
    })
}

/// Prints `e` as one line; returns status 1.
fn error(io: &mut Io, e: &uverbs::Error) -> i32 {
    io.err_line(&crate::plumbing::io::printable(
        format!("uverbs watch: {e}").as_bytes(),
    ));
    1
}

/// Waits until the monitor or a stream has something; which streams do, in order.
fn wait(monitor: Option<&DeviceMonitor>, watched: &[Watched]) -> rustix::io::Result<Vec<bool>> {
    let mut theirs: Vec<_> = watched.iter().map(|w| w.stream.as_fd()).collect();
    let n = theirs.len();
    if let Some(m) = monitor {
        theirs.extend(m.fds());
    }
    let mut fds: Vec<PollFd<'_>> = theirs
        .iter()
        .map(|f| PollFd::new(f, PollFlags::IN))
        .collect();
    loop {
        match poll(&mut fds, None) {
            Ok(_) => break,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(fds[..n].iter().map(|f| !f.revents().is_empty()).collect())
}

/// Prints what `w`'s stream has queued. False when the stream is over (the device is
/// gone, and a line on stderr says so).
fn drain(io: &mut Io, w: &mut Watched, json: bool) -> bool {
    loop {
        match w.stream.try_read() {
            Ok(Next::Event(ev)) => {
                if json {
                    io.out(format!(
                        "{}\n",
                        crate::plumbing::json_line::event(&ev, &w.name)
                    ));
                } else {
                    io.out(format!("{}\n", ev.on(&w.name)));
                }
                io.flush();
            }
            Ok(Next::Empty) => return true,
            Ok(Next::End) => {
                io.err_line(&crate::plumbing::io::printable(
                    format!(
                        "uverbs watch: {}: the device is gone (its event stream ended)",
                        w.name
                    )
                    .as_bytes(),
                ));
                return false;
            }
            Err(e) => {
                error(io, &e);
                return false;
            }
        }
    }
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
