//! `watch_ports`: every device's port events and the devices that come and go, one line
//! each, as they happen.
//!
//! ```text
//! watch_ports            # every device; Ctrl-C ends it
//! ```
//!
//! What it shows: [`DeviceMonitor`] (devices added, removed, renamed), a context per
//! device with its [`EventStream`](uverbs::EventStream) (the port's async events:
//! `PORT_ERR`, `PORT_ACTIVE`, `GID_CHANGE`...), and how a long-running program lets go
//! of a device being removed: [`Context::guard`] revokes the context's files the moment
//! the kernel starts removing the device (rxe and siw cannot take a context away from a
//! process, so the removal would otherwise wait for this program to close them), after
//! which the stream ends and the thread leaves.

use std::io::Write;
use std::time::Duration;

use uverbs::{Context, DeviceChange, DeviceInfo, DeviceMonitor, Discovery, Next};

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A thread that prints `info`'s events until the device goes.
fn watch(info: DeviceInfo) {
    std::thread::spawn(move || {
        let name = info.name.clone();
        let ctx = match Context::open(&info) {
            Ok(c) => c,
            Err(e) => return say(format!("{name}: {e}")),
        };
        // Let go of the device's files as soon as its removal starts.
        if let Err(e) = ctx.guard() {
            return say(format!("{name}: {e}"));
        }
        let mut events = match ctx.events() {
            Ok(s) => s,
            Err(e) => return say(format!("{name}: {e}")),
        };
        loop {
            match events.read_timeout(Duration::from_secs(1)) {
                Ok(Next::Event(e)) => say(format!("{name} {e}")),
                Ok(Next::Empty) => {}
                Ok(Next::End) => break,
                Err(e) => {
                    say(format!("{name}: {e}"));
                    break;
                }
            }
        }
        say(format!("{name}: let go"));
    });
}

fn main() -> uverbs::Result<()> {
    // The monitor first, so that a device added while the others are opened is seen.
    let mut monitor = DeviceMonitor::new()?;
    let devices = Discovery::new().devices()?;
    let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
    say(format!("watching: {}", names.join(" ")));
    for info in devices {
        watch(info);
    }
    loop {
        let Some(change) = monitor.next(None)? else {
            continue;
        };
        say(format!("{change:?}"));
        if let DeviceChange::NodeAdded {
            device: Some(name), ..
        } = &change
        {
            if let Ok(info) = Discovery::new().device(name) {
                watch(info);
            }
        }
    }
}
