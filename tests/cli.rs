//! The `uverbs` command on any machine (no RDMA device needed): help, version, usage
//! errors (one line, exit 2), the rdma-core personalities' argument handling, and
//! unknown devices. The binary is `UVERBS_BIN` when set (in the VM guest), else the one
//! cargo built. Comparisons with rdma-core on real devices are in tests/cli_compat.rs.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

mod common;

fn bin() -> PathBuf {
    common::uverbs_bin()
}

struct Out {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

fn run_cmd(cmd: &mut Command) -> Out {
    let o = cmd.output().expect("run uverbs");
    let r = Out {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code(),
    };
    assert!(!r.stderr.contains("panicked"), "panic: {}", r.stderr);
    assert!(r.code.is_some(), "killed by a signal: {}", r.stderr);
    r
}

fn uverbs(args: &[&str]) -> Out {
    run_cmd(Command::new(bin()).args(args))
}

/// The binary under another name, through a symlink in a temp dir; argv[0] is `name`.
fn as_tool(name: &str, args: &[&str]) -> Out {
    let dir = std::env::temp_dir().join(format!(
        "uverbs-cli-{}-{name}-{}",
        std::process::id(),
        args.join("_").replace('/', "_")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join(name);
    std::os::unix::fs::symlink(bin(), &link).unwrap();
    let r = run_cmd(Command::new(&link).arg0(name).args(args));
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn one_line(s: &str) -> bool {
    s.ends_with('\n') && s.matches('\n').count() == 1
}

#[test]
fn help() {
    for args in [&[][..], &["-h"], &["--help"], &["help"]] {
        let r = uverbs(args);
        assert_eq!(r.code, Some(0), "{args:?}");
        assert!(r.stdout.starts_with("uverbs "), "{args:?}: {}", r.stdout);
        assert!(r.stdout.contains("devinfo") && r.stdout.contains("devices"));
        assert_eq!(r.stderr, "");
    }
    for sub in ["devinfo", "devices", "watch"] {
        let r = uverbs(&[sub, "--help"]);
        assert_eq!(r.code, Some(0));
        assert!(
            r.stdout.starts_with(&format!("Usage: uverbs {sub}")),
            "{}",
            r.stdout
        );
        assert!(r.stdout.contains("--json"));
        assert_eq!(uverbs(&[sub, "-h"]).stdout, r.stdout);
    }
}

#[test]
fn version() {
    let r = uverbs(&["--version"]);
    assert_eq!(r.code, Some(0));
    assert_eq!(r.stdout, format!("uverbs {}\n", env!("CARGO_PKG_VERSION")));
    assert_eq!(r.stderr, "");
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    let cases: &[&[&str]] = &[
        &["frobnicate"],
        &["--frobnicate"],
        &["devinfo", "-x"],
        &["devinfo", "--frob"],
        &["devinfo", "--ib"],
        &["devinfo", "-d"],
        &["devinfo", "--list=1"],
        &["devinfo", "-i", "0"],
        &["devinfo", "-i", "abc"],
        &["devinfo", "-i", "256"],
        &["devinfo", "extra"],
        &["devices", "-x"],
        &["devices", "extra"],
        &["watch", "-x"],
        &["watch", "-d"],
        &["watch", "--json=1"],
        &["watch", "extra"],
    ];
    for args in cases {
        let r = uverbs(args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(one_line(&r.stderr), "{args:?}: {:?}", r.stderr);
        assert!(r.stderr.starts_with("uverbs"), "{args:?}: {}", r.stderr);
    }
    assert_eq!(
        uverbs(&["devinfo", "--ib"]).stderr,
        "uverbs devinfo: option '--ib' is ambiguous; possibilities: '--ib-dev' '--ib-port' (try 'uverbs devinfo --help')\n"
    );
    assert_eq!(
        uverbs(&["frobnicate"]).stderr,
        "uverbs: unknown command 'frobnicate' (try 'uverbs --help')\n"
    );
}

/// No machine has a device of that name: one line, exit 255 (rdma-core's -1). With no
/// RDMA subsystem at all the line says so too.
#[test]
fn unknown_device() {
    for json in [false, true] {
        let mut args = vec!["devinfo", "-d", "nosuchdev"];
        if json {
            args.push("--json");
        }
        let r = uverbs(&args);
        assert_eq!(r.code, Some(255), "{}", r.stderr);
        assert_eq!(r.stdout, "");
        assert!(one_line(&r.stderr), "{:?}", r.stderr);
        assert!(
            r.stderr.starts_with("IB device 'nosuchdev' wasn't found"),
            "{}",
            r.stderr
        );
    }
}

const USAGE: &str = "Usage: ibv_devinfo             print the ca attributes

Options:
  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)
  -i, --ib-port=<port>   use port <port> of IB device (default all ports)
  -l, --list             print only the IB devices names
  -v, --verbose          print all the attributes of the IB device(s)
";

/// As `ibv_devinfo`: rdma-core's glibc getopt messages, its usage on stdout, exit 255
/// (1 for a bad -i value). These texts were observed from rdma-core 44 in the VM.
#[test]
fn ibv_devinfo_argument_errors() {
    let cases: &[(&[&str], &str, i32)] = &[
        (&["-x"], "ibv_devinfo: invalid option -- 'x'\n", 255),
        (
            &["-d"],
            "ibv_devinfo: option requires an argument -- 'd'\n",
            255,
        ),
        (
            &["--foo=bar"],
            "ibv_devinfo: unrecognized option '--foo=bar'\n",
            255,
        ),
        (
            &["--ib"],
            "ibv_devinfo: option '--ib' is ambiguous; possibilities: '--ib-dev' '--ib-port'\n",
            255,
        ),
        (
            &["--list=3"],
            "ibv_devinfo: option '--list' doesn't allow an argument\n",
            255,
        ),
        (
            &["--ib-port"],
            "ibv_devinfo: option '--ib-port' requires an argument\n",
            255,
        ),
        (&["-i", "0"], "", 1),
        (&["-i", "-4"], "", 1),
        (&["-i", "junk"], "", 1),
        (&["-v", "-i", "0", "-x"], "", 1),
    ];
    for (args, err, code) in cases {
        let r = as_tool("ibv_devinfo", args);
        assert_eq!(r.code, Some(*code), "{args:?}");
        assert_eq!(r.stderr, *err, "{args:?}");
        assert_eq!(r.stdout, USAGE, "{args:?}");
    }
    // The same through `uverbs ibv_devinfo`.
    let r = uverbs(&["ibv_devinfo", "-x"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(255), "ibv_devinfo: invalid option -- 'x'\n")
    );
}

#[test]
fn ibv_devinfo_unknown_device() {
    let r = as_tool("ibv_devinfo", &["-d", "nosuchdev"]);
    assert_eq!(r.code, Some(255));
    assert_eq!(r.stdout, "");
    // rdma-core says the first when the kernel has RDMA support, the second when it has
    // none (no RDMA netlink, no /sys/class/infiniband_verbs).
    assert!(
        r.stderr == "IB device 'nosuchdev' wasn't found\n"
            || r.stderr == "Failed to get IB devices list: Function not implemented\n",
        "{:?}",
        r.stderr
    );
}

#[test]
fn ibv_devices_runs() {
    let r = as_tool("ibv_devices", &["ignored", "-x"]);
    match r.code {
        Some(0) => {
            assert!(
                r.stdout.starts_with(
                    "    device          \t   node GUID\n    ------          \t----------------\n"
                ),
                "{}",
                r.stdout
            );
        }
        Some(1) => {
            assert_eq!(r.stdout, "");
            assert_eq!(
                r.stderr,
                "Failed to get IB devices list: Function not implemented\n"
            );
        }
        other => panic!("exit {other:?}: {}", r.stderr),
    }
}

#[test]
fn list_and_devices_json_never_fail_badly() {
    for args in [
        &["devinfo", "-l"][..],
        &["devices"],
        &["devices", "--json"],
        &["devinfo", "-l", "--json"],
    ] {
        let r = uverbs(args);
        match r.code {
            Some(0) => {}
            // No RDMA subsystem: one line.
            Some(1) | Some(255) => assert!(one_line(&r.stderr), "{args:?}: {:?}", r.stderr),
            other => panic!("{args:?}: exit {other:?}: {}", r.stderr),
        }
        if args.contains(&"--json") && r.code == Some(0) {
            assert!(
                r.stdout.starts_with("{\n  \"schema_version\": 1,\n"),
                "{}",
                r.stdout
            );
        }
    }
}
