//! Following the devices and their async events (`uverbs watch`, `uverbs labels`): each
//! device opened with its event stream, devices added later opened as they come, and a
//! device whose removal starts let go of at once (its uverbs node disappears before the
//! kernel waits for the device's files to close): rxe and siw deletes never wait for a
//! running command.

use std::time::Duration;

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use uverbs::verbs::event::Event;
use uverbs::{Context, DeviceChange, DeviceInfo, DeviceMonitor, Discovery, EventStream, Next};

/// One followed device.
pub struct Followed {
    pub name: String,
    pub ctx: Context,
    stream: EventStream,
}

/// What happened, in the order it was seen.
pub enum Happened<'a> {
    /// An async event of a followed device.
    Event { device: &'a str, event: Event },
    /// A device was added and is followed from now on.
    Added(&'a str),
    /// A followed device's removal started: it was let go of.
    Removed(&'a str),
    /// A followed device was renamed.
    Renamed { from: &'a str, to: &'a str },
    /// A followed device's events ended (a fatal error, or it is gone): it was dropped.
    Ended(&'a str),
    /// An error (one line, without the command's name).
    Error(String),
}

/// The devices followed, and the monitor that tells of others.
pub struct Follower {
    monitor: Option<DeviceMonitor>,
    disc: Discovery,
    /// Only this device (`-d`): no device added later is followed.
    pub only: Option<String>,
    pub devices: Vec<Followed>,
}

impl Follower {
    /// Starts following `only`, or every device (and those added later). The monitor
    /// first, then the device list: nothing added or removed in between is missed.
    /// Errors of single devices (one that cannot be opened) are given to `report`;
    /// `Err` when nothing can be followed (or `only` cannot).
    pub fn start(only: Option<String>, report: &mut dyn FnMut(String)) -> Result<Follower, String> {
        let monitor = match DeviceMonitor::new() {
            Ok(m) => Some(m),
            Err(e) => {
                report(format!(
                    "cannot follow devices being added and removed: {e}"
                ));
                None
            }
        };
        let disc = Discovery::new();
        let infos = match &only {
            Some(name) => disc.device(name).map(|d| vec![d]),
            None => disc.devices(),
        }
        .map_err(|e| e.to_string())?;
        let mut devices = Vec::new();
        for info in &infos {
            match open(info) {
                Ok(f) => devices.push(f),
                // With -d the device is the point; without, one device that cannot be
                // opened (being removed, no permission) does not stop the others.
                Err(e) if only.is_some() => return Err(e.to_string()),
                Err(e) => report(e.to_string()),
            }
        }
        if devices.is_empty() && (only.is_some() || monitor.is_none()) {
            return Err("no RDMA devices found".into());
        }
        Ok(Follower {
            monitor,
            disc,
            only,
            devices,
        })
    }

    /// [`Follower::start`] for the command `cmd`: each error a line on stderr (`uverbs
    /// CMD: ...`); `Err(1)` when nothing can be followed. With the follower, how many
    /// devices could not be opened.
    pub fn start_reporting(
        io: &mut crate::plumbing::io::Io,
        cmd: &str,
        only: Option<String>,
    ) -> Result<(Follower, usize), i32> {
        let mut errors = Vec::new();
        let started = Follower::start(only, &mut |e| errors.push(e));
        let mut line = |e: &str| {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs {cmd}: {e}").as_bytes(),
            ))
        };
        for e in &errors {
            line(e);
        }
        match started {
            Ok(f) => Ok((f, errors.len())),
            Err(e) => {
                line(&e);
                Err(1)
            }
        }
    }

    /// Waits up to `timeout` (forever: `None`) until a device or the monitor has
    /// something, and hands `on` all that happened. False when it timed out with
    /// nothing.
    pub fn wait(
        &mut self,
        timeout: Option<Duration>,
        on: &mut dyn FnMut(Happened<'_>),
    ) -> rustix::io::Result<bool> {
        let (ready, monitor_ready) = self.poll(timeout)?;
        let any = monitor_ready || ready.iter().any(|r| *r);
        // The streams first: events a device queued before it left are given.
        let mut i = 0;
        for was_ready in ready {
            if !was_ready || drain(&mut self.devices[i], on) {
                i += 1;
                continue;
            }
            let f = self.devices.remove(i);
            // Revoked by the guard: its removal started (the monitor's event for it may
            // come later, or have been read before the device was followed).
            if f.ctx.is_revoked() {
                on(Happened::Removed(&f.name));
            } else {
                on(Happened::Ended(&f.name));
            }
        }
        let Some(m) = self.monitor.as_mut() else {
            return Ok(any);
        };
        // read without waiting whatever woke us: it may hold what an earlier read left
        // buffered
        loop {
            let change = match m.try_next() {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) => {
                    on(Happened::Error(format!("device monitor: {e}")));
                    break;
                }
            };
            match change {
                DeviceChange::NodeRemoved {
                    device: Some(name), ..
                }
                | DeviceChange::Removed { name } => {
                    let Some(i) = self.devices.iter().position(|f| f.name == name) else {
                        continue;
                    };
                    // Close its files now: the kernel's removal waits for them.
                    drop(self.devices.remove(i));
                    on(Happened::Removed(&name));
                }
                // The device's own Added too: its node's event may have been read when
                // the node belonged to another device (read late, in a storm).
                DeviceChange::NodeAdded {
                    device: Some(name), ..
                }
                | DeviceChange::Added { name }
                    if self.only.is_none() && !self.devices.iter().any(|f| f.name == name) =>
                {
                    match self.disc.device(&name).and_then(|info| open(&info)) {
                        Ok(f) => {
                            self.devices.push(f);
                            on(Happened::Added(&name));
                        }
                        // Gone again (or not yet openable): its removal (or its node's
                        // addition) is reported next; nothing was followed.
                        Err(
                            uverbs::Error::NoSuchDevice { .. }
                            | uverbs::Error::DeviceGone { .. }
                            | uverbs::Error::DeviceRemoved { .. }
                            | uverbs::Error::NotSupported {
                                errno: rustix::io::Errno::NODEV,
                                ..
                            },
                        ) => {}
                        Err(e) => on(Happened::Error(e.to_string())),
                    }
                }
                DeviceChange::Renamed { from, to } => {
                    let Some(f) = self.devices.iter_mut().find(|f| f.name == from) else {
                        continue;
                    };
                    f.name.clone_from(&to);
                    if self.only.as_deref() == Some(from.as_str()) {
                        self.only = Some(to.clone());
                    }
                    on(Happened::Renamed {
                        from: &from,
                        to: &to,
                    });
                }
                _ => {}
            }
        }
        Ok(true)
    }

    /// Which device streams are readable, in order, and whether the monitor is.
    fn poll(&self, timeout: Option<Duration>) -> rustix::io::Result<(Vec<bool>, bool)> {
        let mut theirs = Vec::with_capacity(self.devices.len() + 2);
        for f in &self.devices {
            // (an epoll set of the stream's file and its wake file, made once)
            theirs.push(
                f.stream
                    .poll_fd()
                    .map_err(|e| e.errno().unwrap_or(rustix::io::Errno::IO))?,
            );
        }
        let n = theirs.len();
        if let Some(m) = &self.monitor {
            theirs.extend(m.fds());
        }
        let mut fds: Vec<PollFd<'_>> = theirs
            .iter()
            .map(|f| PollFd::new(f, PollFlags::IN))
            .collect();
        let ts = timeout.map(|d| Timespec {
            tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(d.subsec_nanos()),
        });
        loop {
            match poll(&mut fds, ts.as_ref()) {
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok((
            fds[..n].iter().map(|f| !f.revents().is_empty()).collect(),
            fds[n..].iter().any(|f| !f.revents().is_empty()),
        ))
    }
}

fn open(info: &DeviceInfo) -> uverbs::Result<Followed> {
    let ctx = Context::open(info)?;
    // The guard lets go of the context when its removal starts, whatever order the
    // monitor's events are read in (best effort: without it, the monitor's events).
    let _ = ctx.guard();
    // Revoked meanwhile (between any two of these calls): it is being removed.
    let stream = ctx.events().map_err(|e| match ctx.is_revoked() {
        true => uverbs::Error::DeviceRemoved {
            op: uverbs::Op::new("async event file", &info.name),
        },
        false => e,
    })?;
    Ok(Followed {
        name: info.name.clone(),
        ctx,
        stream,
    })
}

/// Gives what `f`'s stream has queued. False when the stream is over.
fn drain(f: &mut Followed, on: &mut dyn FnMut(Happened<'_>)) -> bool {
    loop {
        match f.stream.try_read() {
            Ok(Next::Event(event)) => on(Happened::Event {
                device: &f.name,
                event,
            }),
            Ok(Next::Empty) => return true,
            Ok(Next::End) => return false,
            // Revoked: the caller reports the removal.
            Err(_) if f.ctx.is_revoked() => return false,
            Err(e) => {
                on(Happened::Error(e.to_string()));
                return false;
            }
        }
    }
}
