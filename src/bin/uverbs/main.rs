//! `uverbs`: RDMA device information without libibverbs, in one static file.
//!
//! Multi-call: invoked under a name from [`PERSONALITIES`] (`ibv_devinfo`,
//! `ibv_devices`, through a symlink or hard link) it takes rdma-core's options and
//! prints rdma-core's output; otherwise the first argument names a subcommand from
//! [`COMMANDS`]. New subcommands are one entry in that table.

#![forbid(unsafe_code)]

// The command's files, grouped by what they are (each folder's mod.rs says more).
mod conformance;
mod dropin;
mod ops;
mod perf;
mod plumbing;

use conformance::{probe, selftest};
use dropin::{devices, devinfo, ibstat, ibstatus};
use ops::{check, counters, exporter, gids, labels, link, watch};

use std::os::unix::ffi::OsStringExt;

use plumbing::io::Io;

/// A subcommand: `uverbs NAME ARGS...`.
struct Command {
    name: &'static str,
    summary: &'static str,
    run: fn(&mut Io, &[Vec<u8>]) -> i32,
}

/// The subcommands, in help order.
const COMMANDS: &[Command] = &[
    Command {
        name: "check",
        summary: "health probe: exit 0 when every port meets the conditions (state, rate, GID...)",
        run: check::uverbs,
    },
    Command {
        name: "counters",
        summary: "port counters (IB PMA) and driver counters, or their rates (--rate; --json)",
        run: counters::uverbs,
    },
    Command {
        name: "devinfo",
        summary: "attributes of RDMA devices and ports (ibv_devinfo's output; --json)",
        run: devinfo::uverbs,
    },
    Command {
        name: "devices",
        summary: "RDMA devices and their node GUIDs (ibv_devices's output; --json)",
        run: devices::uverbs,
    },
    Command {
        name: "exporter",
        summary: "Prometheus metrics of RDMA devices and ports over HTTP, or as a textfile",
        run: exporter::uverbs,
    },
    Command {
        name: "gids",
        summary: "GID tables (IPv4, VLAN, RoCE type, netdev) and the GID index to use (--json)",
        run: gids::uverbs,
    },
    Command {
        name: "ibstat",
        summary: "RDMA devices and ports as infiniband-diags' ibstat prints them (--json)",
        run: ibstat::uverbs,
    },
    Command {
        name: "ibstatus",
        summary: "RDMA ports as infiniband-diags' ibstatus prints them (--json)",
        run: ibstatus::uverbs,
    },
    Command {
        name: "labels",
        summary: "node labels that follow RDMA ports and devices (node-feature-discovery's file)",
        run: labels::uverbs,
    },
    Command {
        name: "link",
        summary: "add, delete and show soft-RDMA links (rxe, siw) over RDMA netlink",
        run: link::uverbs,
    },
    Command {
        name: "perf",
        summary:
            "perftest's latency and bandwidth tests on uverbs' data path (perftest's exchange)",
        run: perf::uverbs,
    },
    Command {
        name: "probe",
        summary: "walk every object method of each device and check the kernel's answers",
        run: probe::uverbs,
    },
    Command {
        name: "selftest",
        summary: "conformance suite of the kernel's uverbs interface, as KTAP (baselines, bisect)",
        run: selftest::uverbs,
    },
    Command {
        name: "watch",
        summary: "async events of RDMA devices as they arrive (--json)",
        run: watch::uverbs,
    },
];

/// A personality: the program run under this name (basename of argv[0]), or as
/// `uverbs NAME ARGS...`, behaves as rdma-core's tool of that name. It gets argv[0] as
/// given, which rdma-core prints in its messages.
type Personality = fn(&mut Io, &[u8], &[Vec<u8>]) -> i32;
const PERSONALITIES: &[(&str, Personality)] = &[
    ("ibv_devinfo", devinfo::compat),
    ("ibv_devices", devices::compat),
    ("ibstat", ibstat::compat),
    ("ibstatus", ibstatus::compat),
];

const VERSION: &str = concat!("uverbs ", env!("CARGO_PKG_VERSION"), "\n");

fn help() -> String {
    let mut h = String::from(concat!(
        "uverbs ",
        env!("CARGO_PKG_VERSION"),
        ": RDMA device information from the kernel's uverbs interface, without libibverbs\n\n",
        "Usage: uverbs COMMAND [OPTIONS]\n",
        "       uverbs --help | --version\n\nCommands:\n"
    ));
    for c in COMMANDS {
        h.push_str(&format!("  {:<9} {}\n", c.name, c.summary));
    }
    h.push_str(
        "\n'uverbs COMMAND --help' describes a command.\n\n\
         Invoked as ibv_devinfo or ibv_devices (a symlink or hard link to this file), or as\n\
         'uverbs ibv_devinfo ARGS', it takes rdma-core's options and prints rdma-core's\n\
         output, byte for byte; invoked as ibstat or ibstatus, infiniband-diags'.\n",
    );
    h
}

fn uverbs_main(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let Some(first) = args.first() else {
        io.out(help());
        return 0;
    };
    match first.as_slice() {
        b"-h" | b"--help" | b"help" => {
            io.out(help());
            return 0;
        }
        b"-V" | b"--version" => {
            io.out(VERSION);
            return 0;
        }
        _ => {}
    }
    if let Some(c) = COMMANDS
        .iter()
        .find(|c| c.name.as_bytes() == first.as_slice())
    {
        return (c.run)(io, &args[1..]);
    }
    if let Some((name, p)) = PERSONALITIES
        .iter()
        .find(|(n, _)| n.as_bytes() == first.as_slice())
    {
        return p(io, name.as_bytes(), &args[1..]);
    }
    let what = plumbing::io::printable(first);
    let msg = if first.starts_with(b"-") {
        format!("uverbs: unknown option '{what}' (try 'uverbs --help')")
    } else {
        format!("uverbs: unknown command '{what}' (try 'uverbs --help')")
    };
    io.err_line(&msg);
    2
}

fn basename(p: &[u8]) -> &[u8] {
    match p.iter().rposition(|&b| b == b'/') {
        Some(i) => &p[i + 1..],
        None => p,
    }
}

fn main() {
    let args: Vec<Vec<u8>> = std::env::args_os().map(OsStringExt::into_vec).collect();
    let argv0 = args.first().cloned().unwrap_or_else(|| b"uverbs".to_vec());
    let rest = args.get(1..).unwrap_or(&[]);
    let mut io = Io::new();
    let base = basename(&argv0);
    // The kernel's init, started as /init of an initramfs (scripts/bisect-boot.sh); not
    // the first process of a container's PID namespace, whose entrypoint is /uverbs.
    if base == b"init" && rustix::process::getpid().is_init() {
        plumbing::init::run(&mut io, rest, uverbs_main);
    }
    let code = match PERSONALITIES.iter().find(|(n, _)| n.as_bytes() == base) {
        Some((_, p)) => p(&mut io, &argv0, rest),
        None => uverbs_main(&mut io, rest),
    };
    io.flush();
    // As C's exit(): the low 8 bits (ibv_devinfo's -1 is 255).
    std::process::exit(code & 0xff);
}
