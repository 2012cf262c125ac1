//! The `uverbs` command against rdma-core's `ibv_devinfo` and `ibv_devices`, on real
//! devices: run in a VM guest that has rxe/siw devices and rdma-core's tools: Debian's
//! rdma-core 44 on PATH, and the upstream releases the rig builds (`UVERBS_VM_PEERS`,
//! `/opt/rdma-core-64.0`; see tests/vm/README.md). Every case runs against each release.
//!
//! uverbs prints what rdma-core 64.0 prints. Where 44 prints the same values otherwise,
//! the difference is listed in [`RDMA_CORE_44_DIFFERS`] (and in the README); only those
//! lines of 44's output are mapped to 64.0's wording before comparing, and each listed
//! difference must show up at least once, so the list cannot go stale.
//!
//! Ignored on the host (it needs real devices); run with --include-ignored it needs two
//! variables, and fails without them:
//!   UVERBS_TEST_DEVICES  the devices to exercise, comma-separated (rxe0,siw0)
//!   UVERBS_BIN           the uverbs binary in the guest
//!
//! Every case runs rdma-core's tool and ours, as `uverbs devinfo ARGS` and through a
//! symlink named `ibv_devinfo` (argv[0] "ibv_devinfo", as rdma-core's is when found on
//! PATH), and requires the same stdout, stderr and exit status, byte for byte. Cases of
//! argument errors run through the symlink only: there `uverbs devinfo` deliberately
//! prints one line and exits 2. A JSON case checks that `uverbs devinfo --json` is
//! valid JSON with one entry per device and the port states of the text output.
//!
//! In the guest:
//!   UVERBS_TEST_DEVICES=rxe0,siw0 UVERBS_BIN=/path/uverbs cli_compat-HASH --test-threads=1

mod common;

use common::json::{parse_json, Json};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

#[path = "common/compare.rs"]
mod compare;

use compare::Run;

fn run(cmd: &mut Command) -> Run {
    match cmd.output() {
        Ok(o) => Run {
            stdout: o.stdout,
            stderr: o.stderr,
            status: o.status.code(),
        },
        Err(e) => Run {
            stdout: Vec::new(),
            stderr: format!("<could not run {cmd:?}: {e}>").into_bytes(),
            status: None,
        },
    }
}

/// Compares two runs: a report of the differences (diffs of at most 80 lines), `None`
/// when equal.
fn compare(what: &str, reference: &Run, ours: &Run) -> Option<String> {
    compare::compare("rdma-core", 80, what, reference, ours)
}

struct Env {
    devices: Vec<String>,
    bin: PathBuf,
    links: PathBuf,
}

fn setup(tag: &str) -> Option<Env> {
    let (Some(devs), Some(bin)) = (
        std::env::var_os("UVERBS_TEST_DEVICES"),
        std::env::var_os("UVERBS_BIN"),
    ) else {
        panic!(
            "{tag}: no comparison with rdma-core can be made here: set UVERBS_TEST_DEVICES=rxe0,siw0 and UVERBS_BIN=/path/to/uverbs in a VM guest with rdma-core's ibv_devinfo and ibv_devices on PATH (tests/vm/run-tests.sh does)"
        );
    };
    let devices: Vec<String> = devs
        .to_string_lossy()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    assert!(!devices.is_empty(), "UVERBS_TEST_DEVICES names no device");
    let bin = PathBuf::from(bin);
    assert!(bin.is_file(), "UVERBS_BIN={} is not a file", bin.display());
    let links =
        std::env::temp_dir().join(format!("uverbs-cli-compat-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&links);
    std::fs::create_dir_all(&links).expect("temp dir");
    for name in ["ibv_devinfo", "ibv_devices"] {
        std::os::unix::fs::symlink(&bin, links.join(name)).expect("symlink");
    }
    Some(Env {
        devices,
        bin,
        links,
    })
}

/// The same with stdout and stderr into one file (`>file 2>&1`): the interleaving of
/// the two streams, which depends on stdio buffering, must match too.
fn combined(cmd: &mut Command, file: &std::path::Path) -> Run {
    let f = std::fs::File::create(file).expect("temp file");
    let g = f.try_clone().expect("dup");
    let status = cmd.stdout(f).stderr(g).status().ok().and_then(|s| s.code());
    Run {
        stdout: std::fs::read(file).unwrap_or_default(),
        stderr: Vec::new(),
        status,
    }
}

/// rdma-core's tool, found on PATH (Debian's 44).
fn reference(tool: &str, args: &[String]) -> Run {
    run(Command::new(tool).args(args))
}

/// The upstream releases the rig must provide beside Debian's 44 (tests/vm/peers).
const REQUIRED_PEERS: &[&str] = &["rdma-core-64.0"];

/// Lines rdma-core 44 prints differently from 64.0 for the same values, as (44's line,
/// 64.0's line); uverbs prints 64.0's. Only what rxe and siw can show is here: the other
/// differences (XDR from `active_speed_ex`, the ODP `SUPPORT_FLUSH` and
/// `SUPPORT_ATOMIC_WRITE` lines, `CC_DMA_BOUNCE`) need values soft devices never report;
/// the printer's differential test covers them (src/bin/uverbs/dropin/printer_diff.rs).
const RDMA_CORE_44_DIFFERS: &[(&str, &str)] = &[(
    "  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)",
    "  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)",
)];

/// One rdma-core release whose tools run beside uverbs.
struct Peer {
    /// `rdma-core 44 (Debian)`, `rdma-core 64.0`.
    name: String,
    /// Where its tools are; `None`: on PATH.
    bin: Option<PathBuf>,
    /// Its output is 44's: map [`RDMA_CORE_44_DIFFERS`].
    is_44: bool,
}

impl Peer {
    /// The tool, run with argv[0] `tool` as when found on PATH.
    fn command(&self, tool: &str) -> Command {
        let mut c = match &self.bin {
            Some(dir) => Command::new(dir.join(tool)),
            None => Command::new(tool),
        };
        c.arg0(tool);
        c
    }

    /// 44's lines in 64.0's wording; counts each mapped difference in `seen`.
    fn normalized(&self, mut r: Run, seen: &mut [usize]) -> Run {
        if !self.is_44 {
            return r;
        }
        let map = |bytes: &mut Vec<u8>, seen: &mut [usize]| {
            let text = String::from_utf8_lossy(bytes).to_string();
            let mut out = String::with_capacity(text.len());
            for line in text.split_inclusive('\n') {
                let (body, nl) = match line.strip_suffix('\n') {
                    Some(b) => (b, "\n"),
                    None => (line, ""),
                };
                match RDMA_CORE_44_DIFFERS
                    .iter()
                    .position(|(old, _)| *old == body)
                {
                    Some(i) => {
                        seen[i] += 1;
                        out.push_str(RDMA_CORE_44_DIFFERS[i].1);
                        out.push_str(nl);
                    }
                    None => out.push_str(line),
                }
            }
            *bytes = out.into_bytes();
        };
        map(&mut r.stdout, seen);
        map(&mut r.stderr, seen);
        r
    }
}

/// Debian's 44 on PATH, then the upstream releases in `UVERBS_VM_PEERS`, which must
/// include [`REQUIRED_PEERS`].
fn peers() -> Vec<Peer> {
    let mut v = vec![Peer {
        name: "rdma-core 44 (Debian)".into(),
        bin: None,
        is_44: true,
    }];
    let listed = std::env::var("UVERBS_VM_PEERS").unwrap_or_default();
    for dir in listed.split_whitespace() {
        let dir = PathBuf::from(dir);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().replacen("rdma-core-", "rdma-core ", 1))
            .unwrap_or_default();
        v.push(Peer {
            name,
            bin: Some(dir.join("bin")),
            is_44: false,
        });
    }
    for req in REQUIRED_PEERS {
        let want = req.replacen("rdma-core-", "rdma-core ", 1);
        assert!(
            v.iter().any(|p| p.name == want),
            "{req} is not in this guest (UVERBS_VM_PEERS='{listed}'): tests/vm/rig.sh installs it at \
             /opt/{req} when tests/vm/rdma-core.sh can build it from ../shared/peers/{req}.tar.xz \
             (UVERBS_PEERS_DIR); see the rig's warnings"
        );
    }
    v
}

/// Ours through the symlink, with argv[0] as rdma-core's gets it.
fn via_link(env: &Env, tool: &str, args: &[String]) -> Run {
    run(Command::new(env.links.join(tool)).arg0(tool).args(args))
}

/// Ours as a subcommand: `uverbs devinfo ARGS`.
fn via_subcommand(env: &Env, sub: &str, args: &[String]) -> Run {
    run(Command::new(&env.bin).arg(sub).args(args))
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn devinfo_and_devices_match_rdma_core() {
    let Some(env) = setup("text") else { return };
    // (arguments, compare `uverbs devinfo` too)
    let mut cases: Vec<(Vec<String>, bool)> =
        vec![(s(&[]), true), (s(&["-v"]), true), (s(&["-l"]), true)];
    for d in &env.devices {
        cases.push((s(&["-d", d]), true));
        cases.push((s(&["-d", d, "-v"]), true));
        cases.push((s(&["-d", d, "-i", "1"]), true));
        cases.push((s(&["-d", d, "-i", "2"]), true));
        cases.push((s(&["-d", d, "-i", "1", "-v"]), true));
        cases.push((
            s(&[&format!("--ib-dev={d}"), "--ib-port", "1", "--verbose"]),
            true,
        ));
        // getopt and strtol details: clusters, hex, 8-bit truncation.
        cases.push((s(&[&format!("-vd{d}"), "-i", "0x1"]), false));
        cases.push((s(&["-d", d, "-i", "257"]), false));
    }
    cases.extend([
        (s(&["-d", "nosuch"]), true),
        (s(&["-i", "1"]), true),
        (s(&["-i", "2"]), true),
        (s(&["-v", "-i", "1"]), true),
        // Argument errors: rdma-core's messages and usage (symlink only).
        (s(&["-i", "0"]), false),
        (s(&["-i", "-1"]), false),
        (s(&["-x"]), false),
        (s(&["-d"]), false),
        (s(&["--ib"]), false),
        (s(&["--list=3"]), false),
        (s(&["--ib-dev"]), false),
        (s(&["--foo=bar"]), false),
        (s(&["--verb", "-l"]), false),
        (s(&["-l", "-x"]), false),
        (s(&["extra", "-l"]), false),
        (s(&["--", "-x"]), false),
    ]);

    let mut failures = Vec::new();
    let mut seen_44 = vec![0usize; RDMA_CORE_44_DIFFERS.len()];
    let mut summary = Vec::new();
    for peer in peers() {
        let mut compared = 0;
        let before = failures.len();
        for (args, subcommand_too) in &cases {
            let want = run(peer.command("ibv_devinfo").args(args));
            assert!(
                want.status.is_some(),
                "{}'s ibv_devinfo did not run: {}",
                peer.name,
                String::from_utf8_lossy(&want.stderr)
            );
            let want = peer.normalized(want, &mut seen_44);
            let what = format!("{}: ibv_devinfo {}", peer.name, args.join(" "));
            failures.extend(compare(
                &format!("{what} (symlink)"),
                &want,
                &via_link(&env, "ibv_devinfo", args),
            ));
            compared += 1;
            if !want.stderr.is_empty() && !want.stdout.is_empty() {
                let file = env.links.join("combined");
                let want = combined(peer.command("ibv_devinfo").args(args), &file);
                let want = peer.normalized(want, &mut seen_44);
                let got = combined(
                    Command::new(env.links.join("ibv_devinfo"))
                        .arg0("ibv_devinfo")
                        .args(args),
                    &file,
                );
                failures.extend(compare(
                    &format!("{what} >file 2>&1 (symlink)"),
                    &want,
                    &got,
                ));
                compared += 1;
            }
            if *subcommand_too {
                failures.extend(compare(
                    &format!("{}: uverbs devinfo {}", peer.name, args.join(" ")),
                    &want,
                    &via_subcommand(&env, "devinfo", args),
                ));
                compared += 1;
            }
        }
        for args in [s(&[]), s(&["-v", "ignored"])] {
            let want = run(peer.command("ibv_devices").args(&args));
            let want = peer.normalized(want, &mut seen_44);
            let what = format!("{}: ibv_devices {}", peer.name, args.join(" "));
            failures.extend(compare(
                &format!("{what} (symlink)"),
                &want,
                &via_link(&env, "ibv_devices", &args),
            ));
            compared += 1;
            if args.is_empty() {
                failures.extend(compare(
                    &format!("{}: uverbs devices", peer.name),
                    &want,
                    &via_subcommand(&env, "devices", &args),
                ));
                compared += 1;
            }
        }
        summary.push(format!(
            "{}: compared {compared} runs; {} differ",
            peer.name,
            failures.len() - before
        ));
    }
    let _ = std::fs::remove_dir_all(&env.links);
    for l in &summary {
        println!("{l}");
    }
    for (i, (old, new)) in RDMA_CORE_44_DIFFERS.iter().enumerate() {
        println!(
            "rdma-core 44 differs (listed): {} line(s) `{old}` where 64.0 prints `{new}`",
            seen_44[i]
        );
        assert!(
            seen_44[i] > 0,
            "RDMA_CORE_44_DIFFERS lists `{old}` but rdma-core 44 never printed it: remove it"
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A port that is down prints as rdma-core prints it (`PORT_DOWN (1)`, and whatever
/// else the kernel reports then): the rxe device's netdev is taken down, both tools
/// compared, and the netdev brought back up (the port must be ACTIVE again before the
/// test ends, for the tests after it).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn port_down_matches_rdma_core() {
    let Some(env) = setup("down") else { return };
    let rxe = env
        .devices
        .iter()
        .find(|d| d.starts_with("rxe"))
        .unwrap_or_else(|| {
            panic!(
                "the rig always creates an rxe device; got {:?}",
                env.devices
            )
        })
        .clone();
    let parent = std::fs::read_to_string(format!("/sys/class/infiniband/{rxe}/parent"))
        .expect("rxe's parent netdev")
        .trim()
        .to_string();
    let state_is = |want: &str| {
        let args = s(&["-d", &rxe]);
        for _ in 0..100 {
            let r = reference("ibv_devinfo", &args);
            if String::from_utf8_lossy(&r.stdout).contains(want) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        false
    };
    let link = |state: &str| {
        let ok = Command::new("ip")
            .args(["link", "set", &parent, state])
            .status()
            .expect("ip");
        assert!(ok.success(), "ip link set {parent} {state}");
    };
    link("down");
    let down = state_is("PORT_DOWN (1)");
    let mut failures = Vec::new();
    if down {
        for args in [s(&["-d", &rxe]), s(&["-d", &rxe, "-v"])] {
            let want = reference("ibv_devinfo", &args);
            failures.extend(compare(
                &format!("port down: ibv_devinfo {}", args.join(" ")),
                &want,
                &via_link(&env, "ibv_devinfo", &args),
            ));
            failures.extend(compare(
                &format!("port down: uverbs devinfo {}", args.join(" ")),
                &want,
                &via_subcommand(&env, "devinfo", &args),
            ));
        }
    }
    link("up");
    let up = state_is("PORT_ACTIVE (4)");
    let _ = std::fs::remove_dir_all(&env.links);
    assert!(down, "{rxe}: the port did not go down with {parent}");
    assert!(up, "{rxe}: the port did not come back up with {parent}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    println!("{rxe}: a port that is down prints as rdma-core prints it");
}

/// (device, port, state number) from `ibv_devinfo` text.
fn text_port_states(text: &str) -> Vec<(String, u32, f64)> {
    let mut out = Vec::new();
    let (mut dev, mut port) = (String::new(), 0u32);
    for l in text.lines() {
        if let Some(d) = l.strip_prefix("hca_id:\t") {
            dev = d.to_string();
        } else if let Some(p) = l.strip_prefix("\t\tport:\t") {
            port = p.trim().parse().unwrap_or(0);
        } else if let Some(s) = l.strip_prefix("\t\t\tstate:\t\t\t") {
            let n = s
                .rsplit_once('(')
                .and_then(|(_, r)| r.trim_end_matches(')').parse().ok())
                .unwrap_or(-1.0);
            out.push((dev.clone(), port, n));
        }
    }
    out
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn json_is_valid_and_agrees_with_text() {
    let Some(env) = setup("json") else { return };
    let json = run(Command::new(&env.bin).args(["devinfo", "--json"]));
    assert_eq!(
        json.status,
        Some(0),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let doc = parse_json(&json.stdout).unwrap_or_else(|e| {
        panic!(
            "uverbs devinfo --json is not JSON: {e}\n{}",
            String::from_utf8_lossy(&json.stdout)
        )
    });
    assert_eq!(doc.get("schema_version").and_then(Json::num), Some(1.0));
    let devs = doc.get("devices").map(Json::arr).unwrap_or(&[]);

    let list = reference("ibv_devinfo", &s(&["-l"]));
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix('\t').map(String::from))
        .collect();
    let json_names: Vec<String> = devs
        .iter()
        .filter_map(|d| d.get("name").and_then(Json::str).map(String::from))
        .collect();
    assert_eq!(
        json_names, names,
        "one JSON entry per device, in ibv_devinfo's order"
    );
    for d in &env.devices {
        assert!(json_names.contains(d), "{d} is missing from the JSON");
    }

    let text = reference("ibv_devinfo", &[]);
    let want = text_port_states(&String::from_utf8_lossy(&text.stdout));
    let mut got = Vec::new();
    for d in devs {
        assert_eq!(
            d.get("error"),
            Some(&Json::Null),
            "device error in JSON: {d:?}"
        );
        let name = d.get("name").and_then(Json::str).unwrap_or("").to_string();
        for p in d.get("ports").map(Json::arr).unwrap_or(&[]) {
            let port = p.get("port").and_then(Json::num).unwrap_or(0.0) as u32;
            let st = p
                .get("state")
                .and_then(|s| s.get("value"))
                .and_then(Json::num)
                .unwrap_or(-1.0);
            got.push((name.clone(), port, st));
        }
    }
    assert_eq!(got, want, "port states of --json and of ibv_devinfo");

    let devices = run(Command::new(&env.bin).args(["devices", "--json"]));
    assert_eq!(devices.status, Some(0));
    let ddoc = parse_json(&devices.stdout).expect("uverbs devices --json is not JSON");
    assert_eq!(
        ddoc.get("devices").map(|v| v.arr().len()),
        Some(names.len()),
        "uverbs devices --json: one entry per device"
    );
    let _ = std::fs::remove_dir_all(&env.links);
}

/// The comparison helper itself: equal runs pass, and a difference in any of stdout,
/// stderr and the exit status is reported with what differs.
#[test]
fn diff_self_check() {
    let d = compare::diff(b"a\nb\tx\nc\n", b"a\nB\nc\nd\n", 80);
    assert_eq!(d, "    -    2 b\\tx\n    +    2 B\n    +    4 d\n");
    let run = |stdout: &[u8], stderr: &[u8], status| Run {
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        status,
    };
    let reference = run(b"out\n", b"err\n", Some(0));
    assert_eq!(
        compare("equal", &reference, &run(b"out\n", b"err\n", Some(0))),
        None
    );
    let report = |ours: &Run| compare("case", &reference, ours).expect("a difference");
    let r = report(&run(b"Out\n", b"err\n", Some(0)));
    assert!(
        r.contains("stdout") && !r.contains("stderr") && !r.contains("exit"),
        "{r}"
    );
    let r = report(&run(b"out\n", b"", Some(0)));
    assert!(r.contains("stderr") && !r.contains("stdout"), "{r}");
    let r = report(&run(b"out\n", b"err\n", Some(255)));
    assert!(
        r.contains("exit status: rdma-core Some(0), uverbs Some(255)"),
        "{r}"
    );
}

#[test]
fn json_reader_self_check() {
    assert!(parse_json(br#"{"a": [1, -2.5e3, "x\n\u00e9", null, true], "b": {}}"#).is_ok());
    for bad in [
        &b"{"[..],
        b"[1,]",
        b"{\"a\" 1}",
        b"01",
        b"\"\x01\"",
        b"[] x",
        b"nul",
    ] {
        assert!(
            parse_json(bad).is_err(),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn rdma_core_44_mapping_self_check() {
    let p44 = Peer {
        name: "44".into(),
        bin: None,
        is_44: true,
    };
    let usage44 = format!("Usage: x\n{}\nlast", RDMA_CORE_44_DIFFERS[0].0);
    let r = Run {
        stdout: usage44.clone().into_bytes(),
        stderr: b"other\n".to_vec(),
        status: Some(255),
    };
    let mut seen = vec![0; RDMA_CORE_44_DIFFERS.len()];
    let n = p44.normalized(r, &mut seen);
    assert_eq!(
        String::from_utf8(n.stdout).unwrap(),
        format!("Usage: x\n{}\nlast", RDMA_CORE_44_DIFFERS[0].1)
    );
    assert_eq!(n.stderr, b"other\n");
    assert_eq!(seen, [1]);
    // 64.0's output is never rewritten.
    let p64 = Peer {
        name: "64.0".into(),
        bin: None,
        is_44: false,
    };
    let r = Run {
        stdout: usage44.clone().into_bytes(),
        stderr: vec![],
        status: Some(255),
    };
    assert_eq!(p64.normalized(r, &mut seen).stdout, usage44.into_bytes());
    assert_eq!(seen, [1]);
}
