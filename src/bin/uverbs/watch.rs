//! `uverbs watch [-d DEV] [--json]`: the devices' async events, one line each, as they
//! arrive, until interrupted or until a device goes away.

use rustix::event::{poll, PollFd, PollFlags};
use uverbs::{Context, Discovery, EventStream, Next};

use crate::getopt::{opt, LongOpt};
use crate::io::Io;

const HELP: &str = "\
Usage: uverbs watch [-d DEV] [--json]

Prints the asynchronous events of RDMA devices (port up/down, LID, P_Key, GID and SM
changes, fatal errors) one line each as they arrive, until interrupted (Ctrl-C) or
until a device goes away, which ends the command with exit status 1.

  -d, --ib-dev=DEV   watch only device DEV (default: every device)
      --json         one JSON object per line
  -h, --help         this text
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("json", false, b'j'),
    opt("help", false, b'h'),
];

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
    let disc = Discovery::new();
    let infos = match &only {
        Some(name) => disc.device(name).map(|d| vec![d]),
        None => disc.devices(),
    };
    let infos = match infos {
        Ok(v) if v.is_empty() => {
            io.err_line("uverbs watch: no RDMA devices found");
            return 1;
        }
        Ok(v) => v,
        Err(e) => {
            io.err_line(&crate::io::printable(
                format!("uverbs watch: {e}").as_bytes(),
            ));
            return 1;
        }
    };
    // Each context must outlive its stream's use; keep both.
    let mut watched: Vec<(Context, EventStream)> = Vec::new();
    for info in &infos {
        let opened = Context::open(info).and_then(|ctx| ctx.events().map(|s| (ctx, s)));
        match opened {
            Ok(pair) => watched.push(pair),
            Err(e) => {
                io.err_line(&crate::io::printable(
                    format!("uverbs watch: {e}").as_bytes(),
                ));
                return 1;
            }
        }
    }
    if !json {
        let names: Vec<&str> = watched.iter().map(|(c, _)| c.name()).collect();
        io.err_line(&format!("watching {} (Ctrl-C to stop)", names.join(", ")));
    }
    io.flush();
    loop {
        let mut fds: Vec<PollFd<'_>> = watched
            .iter()
            .map(|(_, s)| PollFd::new(s, PollFlags::IN))
            .collect();
        if let Err(e) = poll(&mut fds, None) {
            if e == rustix::io::Errno::INTR {
                continue;
            }
            io.err_line(&format!("uverbs watch: poll: {e}"));
            return 1;
        }
        let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
        drop(fds);
        for (i, (ctx, stream)) in watched.iter_mut().enumerate() {
            if !ready[i] {
                continue;
            }
            loop {
                match stream.try_read() {
                    Ok(Next::Event(ev)) => {
                        if json {
                            io.out(format!("{}\n", crate::json_line::event(&ev, ctx.name())));
                        } else {
                            io.out(format!("{}\n", ev.on(ctx.name())));
                        }
                        io.flush();
                    }
                    Ok(Next::Empty) => break,
                    Ok(Next::End) => {
                        io.err_line(&format!(
                            "uverbs watch: {}: the device is gone (its event stream ended)",
                            ctx.name()
                        ));
                        return 1;
                    }
                    Err(e) => {
                        io.err_line(&crate::io::printable(
                            format!("uverbs watch: {e}").as_bytes(),
                        ));
                        return 1;
                    }
                }
            }
        }
    }
}
