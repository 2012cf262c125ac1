//! The comparison of `uverbs` as `ibstat`/`ibstatus` with infiniband-diags 44's tools,
//! shared by `ibstat_compat.rs` (2 rxe + 2 siw) and `ibstat_scale.rs` (16 + 16).
//!
//! Every case runs the real tool and ours with `LC_ALL=C`: the real ones found on PATH
//! (`/usr/sbin/ibstat`, and `/usr/sbin/ibstatus`, a `/bin/sh` script whose `$0` is then
//! that path), ours through a symlink named like the tool (argv[0] `ibstat`, as a shell
//! gives it). stdout, stderr and the exit status must be equal byte for byte, except:
//! - the process id in libibumad's `ibwarn: [PID]` and `ibpanic: [PID]` lines, which is
//!   each process's own (replaced by `PID` on both sides, knowing each child's pid);
//! - `-V`, the version banner (ours names uverbs);
//! - libibumad's debug traces (from `-dd` on), which ours replaces by its own lines.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../common/compare.rs"]
mod compare;

pub use compare::Run;

/// Runs `cmd` (stdin empty), replacing `[PID]` of the child's pid in both streams.
pub fn run(cmd: &mut Command) -> Run {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("LC_ALL", "C");
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Run {
                stdout: Vec::new(),
                stderr: format!("<could not run {cmd:?}: {e}>").into_bytes(),
                status: None,
            }
        }
    };
    let pid = format!("[{}]", child.id()).into_bytes();
    let o = child.wait_with_output().expect("wait");
    Run {
        stdout: replace(&o.stdout, &pid, b"[PID]"),
        stderr: replace(&o.stderr, &pid, b"[PID]"),
        status: o.status.code(),
    }
}

/// The same with stdout and stderr into one file (`>file 2>&1`): how the two streams
/// interleave (stdio buffering) must match too.
pub fn run_combined(cmd: &mut Command, file: &Path) -> Run {
    let f = std::fs::File::create(file).expect("temp file");
    let g = f.try_clone().expect("dup");
    cmd.stdin(Stdio::null())
        .stdout(f)
        .stderr(g)
        .env("LC_ALL", "C");
    let mut child = cmd.spawn().expect("spawn");
    let pid = format!("[{}]", child.id()).into_bytes();
    let status = child.wait().ok().and_then(|s| s.code());
    Run {
        stdout: replace(&std::fs::read(file).unwrap_or_default(), &pid, b"[PID]"),
        stderr: Vec::new(),
        status,
    }
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

/// Compares two runs: a report of the differences (diffs of at most 60 lines), `None`
/// when equal.
pub fn compare(what: &str, reference: &Run, ours: &Run) -> Option<String> {
    compare::compare("infiniband-diags", 60, what, reference, ours)
}

/// The uverbs binary and a directory with `ibstat`/`ibstatus` symlinks to it.
pub struct Env {
    pub bin: PathBuf,
    pub links: PathBuf,
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.links);
    }
}

pub fn env(tag: &str) -> Env {
    let bin = PathBuf::from(std::env::var_os("UVERBS_BIN").unwrap_or_else(|| {
        panic!("{tag}: UVERBS_BIN is not set: run this in the VM rig (tests/vm/run-tests.sh), where infiniband-diags 44 is installed")
    }));
    assert!(bin.is_file(), "UVERBS_BIN={} is not a file", bin.display());
    for t in ["ibstat", "ibstatus"] {
        assert!(
            Path::new("/usr/sbin").join(t).is_file(),
            "infiniband-diags' {t} is not installed in this guest (tests/vm/rig.sh installs it)"
        );
    }
    let links = std::env::temp_dir().join(format!("uverbs-ibstat-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&links);
    std::fs::create_dir_all(&links).expect("temp dir");
    for name in ["ibstat", "ibstatus"] {
        std::os::unix::fs::symlink(&bin, links.join(name)).expect("symlink");
    }
    Env { bin, links }
}

/// The real tool, found on PATH.
pub fn real(tool: &str, args: &[String]) -> Run {
    run(Command::new(tool).args(args))
}

/// Ours, through the symlink, argv[0] as the real tool gets it.
pub fn ours(env: &Env, tool: &str, args: &[String]) -> Run {
    run(Command::new(env.links.join(tool)).arg0(tool).args(args))
}

/// Ours as `uverbs TOOL ARGS`.
pub fn sub(env: &Env, tool: &str, args: &[String]) -> Run {
    run(Command::new(&env.bin).arg(tool).args(args))
}

pub fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The devices of the class directory, sorted (what both tools walk).
pub fn class_devices() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/sys/class/infiniband")
        .expect("/sys/class/infiniband")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The sysfs node type of a device.
pub fn node_type(dev: &str) -> u32 {
    std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/node_type"))
        .ok()
        .and_then(|t| t.split(':').next().and_then(|n| n.trim().parse().ok()))
        .unwrap_or(0)
}

/// ibstat's argument cases for these devices: every per-device case for the first
/// `per_device` devices of each kind (rxe, other), the device alone and its port 1 for
/// the rest.
pub fn ibstat_cases(devs: &[String], per_device: usize) -> Vec<Vec<String>> {
    let mut c: Vec<Vec<String>> = [
        &[][..],
        &["-l"],
        &["-p"],
        &["-s"],
        &["-v"],
        &["-d"],
        &["-lsp"],
        &["--list_of_cas"],
        &["--short"],
        &["--port_list"],
        &["--li"],
        &["-z", "/nonexistent"],
        &["--config=/etc/infiniband-diags/ibdiag.conf", "-s"],
        &["nosuch"],
        &["nosuch", "1"],
        &["-l", "nosuch"],
        &["-p", "nosuch"],
        // argument errors: glibc's messages, then the usage, exit status 2
        &["-x"],
        &["-h"],
        &["--help"],
        &["-z"],
        &["--json"],
        &["--ver"],
        &["--short=1"],
        &["-l", "-x"],
        &["--", "-x"],
    ]
    .iter()
    .map(|a| s(a))
    .collect();
    let mut rxe = 0;
    let mut other = 0;
    for d in devs {
        let count = if d.starts_with("rxe") {
            &mut rxe
        } else {
            &mut other
        };
        *count += 1;
        let d = d.as_str();
        if *count > per_device {
            c.push(s(&[d]));
            c.push(s(&[d, "1"]));
            continue;
        }
        for a in [
            &[d][..],
            &[d, "1"],
            &[d, "2"],
            &[d, "0"],
            &[d, "0x1"],
            &[d, "abc"],
            &[d, "4294967297"],
            &[d, "1", "extra"],
            &["-s", d],
            &["-s", d, "2"],
            &["-l", d],
            &["-p", d],
            &["--", d, "-1"],
            &[d, "-1"],
        ] {
            c.push(s(a));
        }
    }
    c
}

/// ibstatus's argument cases, `per_device` as for ibstat.
pub fn ibstatus_cases(devs: &[String], per_device: usize) -> Vec<Vec<String>> {
    let mut c: Vec<Vec<String>> = [
        &[][..],
        &[""],
        &["-h"],
        &["nosuch"],
        &["nosuch:1"],
        &["--json"],
        &["-x"],
        &["-n"],
        &[":1"],
    ]
    .iter()
    .map(|a| s(a))
    .collect();
    let mut rxe = 0;
    let mut other = 0;
    for d in devs {
        let count = if d.starts_with("rxe") {
            &mut rxe
        } else {
            &mut other
        };
        *count += 1;
        if *count > per_device {
            c.push(vec![d.clone()]);
            c.push(vec![format!("{d}:1")]);
            continue;
        }
        for a in [
            vec![d.clone()],
            vec![format!("{d}:1")],
            vec![format!("{d}:2")],
            vec![format!("{d}:0")],
            vec![format!("{d}:abc")],
            vec![format!("{d}:")],
            vec![format!("{d}:9:1")],
            vec![d.clone(), "-h".into()],
            vec![d.clone(), "".into(), "nosuch".into()],
        ] {
            c.push(a);
        }
    }
    if devs.len() >= 2 {
        let (a, b) = (&devs[0], &devs[devs.len() - 1]);
        c.push(vec![format!("{b}:1"), a.clone()]);
        c.push(vec![format!("{a} {b}")]);
        c.push(vec![a.clone(), b.clone(), "nosuch".into(), a.clone()]);
    }
    c
}

/// libibumad's debug traces (`TRACE`/`DEBUG` in umad.c), which ours replaces.
fn is_umad_trace(l: &[u8]) -> bool {
    [
        &b"ibwarn: [PID] umad_"[..],
        b"ibwarn: [PID] resolve_ca_",
        b"ibwarn: [PID] dev_to_umad_id",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

fn is_our_trace(l: &[u8]) -> bool {
    l.starts_with(b"uverbs: ibstat: ")
}

fn without(text: &[u8], drop: fn(&[u8]) -> bool) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut n = 0;
    for l in text.split_inclusive(|&b| b == b'\n') {
        if drop(l) {
            n += 1;
        } else {
            out.extend_from_slice(l);
        }
    }
    (out, n)
}

/// Runs every case of both tools; the reports of the cases that differ, and the number
/// of comparisons made.
pub fn compare_all(
    env: &Env,
    ibstat: &[Vec<String>],
    ibstatus: &[Vec<String>],
) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut n = 0;
    let file = env.links.join("combined");
    for (tool, cases) in [("ibstat", ibstat), ("ibstatus", ibstatus)] {
        for args in cases {
            let want = real(tool, args);
            assert!(
                want.status.is_some(),
                "infiniband-diags' {tool} did not run: {}",
                String::from_utf8_lossy(&want.stderr)
            );
            let what = format!("{tool} {}", args.join(" "));
            failures.extend(compare(&what, &want, &ours(env, tool, args)));
            n += 1;
            if !want.stderr.is_empty() && !want.stdout.is_empty() {
                let a = run_combined(Command::new(tool).args(args), &file);
                let b = run_combined(
                    Command::new(env.links.join(tool)).arg0(tool).args(args),
                    &file,
                );
                failures.extend(compare(&format!("{what} >file 2>&1"), &a, &b));
                n += 1;
            }
            // `uverbs TOOL ARGS` is the same code under another name, except that its
            // usage also lists --json: compared where no usage is printed, for the
            // cases of at most one argument (the rest would repeat the symlink's).
            let usage = want.stderr.windows(7).any(|w| w == b"Usage: ")
                || want.stdout.starts_with(b"Usage:");
            if !usage && args.len() <= 1 && !args.iter().any(|a| a == "--json") {
                failures.extend(compare(
                    &format!("uverbs {what}"),
                    &want,
                    &sub(env, tool, args),
                ));
                n += 1;
            }
        }
    }
    // The version banner: the one line that names uverbs instead.
    let want = real("ibstat", &s(&["-V"]));
    let got = ours(env, "ibstat", &s(&["-V"]));
    assert_eq!(
        want.stderr, b"ibstat BUILD VERSION: 44.0\n",
        "the peer is infiniband-diags 44"
    );
    assert_eq!((got.status, got.stdout.as_slice()), (Some(0), &b""[..]));
    assert!(
        got.stderr.starts_with(b"ibstat BUILD VERSION: uverbs "),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    n += 1;
    // -dd: libibumad's traces against ours; everything else equal.
    let devs = class_devices();
    let first_ca = devs
        .iter()
        .find(|d| (1..=3).contains(&node_type(d)))
        .cloned();
    let mut traced = vec![s(&["-dd"]), s(&["-ddd", "-p"]), s(&["-d", "-d", "-s"])];
    if let Some(d) = &first_ca {
        traced.push(s(&["-dd", d, "1"]));
        traced.push(s(&["-dd", d, "2"]));
    }
    for args in &traced {
        let want = real("ibstat", args);
        let got = ours(env, "ibstat", args);
        let (want_err, theirs) = without(&want.stderr, is_umad_trace);
        let (got_err, mine) = without(&got.stderr, is_our_trace);
        let what = format!("ibstat {} (debug traces left out)", args.join(" "));
        failures.extend(compare(
            &what,
            &Run {
                stderr: want_err,
                ..want
            },
            &Run {
                stderr: got_err,
                ..got
            },
        ));
        if theirs > 0 && mine == 0 {
            failures.push(format!(
                "{what}: libibumad traced {theirs} lines, uverbs none"
            ));
        }
        n += 1;
    }
    (failures, n)
}

/// The `ports from ...` lines of ours under `-dd`: (device, from the kernel).
pub fn sources(env: &Env) -> Vec<(String, bool)> {
    let r = ours(env, "ibstat", &s(&["-dd", "-s"]));
    String::from_utf8_lossy(&r.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("uverbs: ibstat: "))
        .filter_map(|l| {
            let (dev, rest) = l.split_once(": ports from ")?;
            Some((dev.to_string(), rest.starts_with("QUERY_PORT")))
        })
        .collect()
}
