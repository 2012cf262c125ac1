//! The command line: glibc-compatible `getopt` on random argument lists, and the `uverbs`
//! binary itself (processes) on random arguments.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::getopt;
use crate::harness::*;

pub(crate) const SHORTS: &str = "d:i:lvh";
pub(crate) const LONGS: &[getopt::LongOpt] = &[
    getopt::opt("ib-dev", true, b'd'),
    getopt::opt("ib-port", true, b'i'),
    getopt::opt("list", false, b'l'),
    getopt::opt("verbose", false, b'v'),
    getopt::opt("json", false, b'j'),
    getopt::opt("help", false, b'h'),
];

pub(crate) fn random_args(r: &mut Rng) -> Vec<Vec<u8>> {
    const TOKENS: &[&str] = &[
        "-d",
        "-i",
        "-l",
        "-v",
        "-h",
        "-vl",
        "-lv",
        "-drxe0",
        "-i1",
        "-i0",
        "--ib-dev",
        "--ib-dev=rxe0",
        "--ib-port",
        "--ib-port=1",
        "--ib-port=",
        "--ib",
        "--i",
        "--l",
        "--list",
        "--list=3",
        "--verbose",
        "--json",
        "--help",
        "--",
        "-",
        "---",
        "--=",
        "-:",
        "-;",
        "-x",
        "rxe0",
        "siw0",
        "0",
        "1",
        "255",
        "256",
        "-1",
        "0x10",
        "010",
        "4294967297",
        "99999999999999999999",
        "abc",
        "",
        " 1",
        "1 ",
    ];
    (0..r.below(8))
        .map(|_| match r.below(10) {
            0 => {
                let k = r.len(40);
                r.bytes(k)
            }
            1 => {
                let mut t = r.pick(TOKENS).as_bytes().to_vec();
                let k = r.below(4);
                t.extend(r.bytes(k));
                t
            }
            2 => vec![b'n'; 300],
            _ => r.pick(TOKENS).as_bytes().to_vec(),
        })
        .collect()
}

pub(crate) fn encode_args(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for a in args {
        out.extend_from_slice(&(a.len() as u16).to_le_bytes());
        out.extend_from_slice(a);
    }
    out
}

pub(crate) fn decode_args(b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 <= b.len() {
        let n = u16::from_le_bytes([b[i], b[i + 1]]) as usize;
        let s = (i + 2).min(b.len());
        let e = (s + n).min(b.len());
        out.push(b[s..e].to_vec());
        i = e;
    }
    out
}

/// The CLI's getopt_long: terminates, reports only options it knows, loses no operand,
/// and its messages are total; `strtol` saturates and round-trips.
#[test]
fn fuzz_getopt() {
    fuzz(
        "getopt",
        iters(),
        |r| encode_args(&random_args(r)),
        |b| {
            let args = decode_args(b);
            let mut g = getopt::Getopt::new(&args, SHORTS, LONGS);
            let bound = args.iter().map(|a| a.len()).sum::<usize>() + args.len() + 2;
            let mut steps = 0;
            let mut errors = 0;
            while let Some(r) = g.next_opt() {
                steps += 1;
                assert!(steps <= bound, "getopt does not terminate");
                match r {
                    Ok((c, arg)) => {
                        assert!(
                            SHORTS.as_bytes().contains(&c) || LONGS.iter().any(|o| o.val == c),
                            "unknown option {c}"
                        );
                        let needs = SHORTS
                            .as_bytes()
                            .iter()
                            .position(|&x| x == c)
                            .map(|i| SHORTS.as_bytes().get(i + 1) == Some(&b':'))
                            .or_else(|| LONGS.iter().find(|o| o.val == c).map(|o| o.has_arg))
                            .unwrap();
                        assert_eq!(arg.is_some(), needs, "option {} argument", c as char);
                    }
                    Err(e) => {
                        errors += 1;
                        let m = e.glibc_message(b"prog");
                        assert!(m.ends_with(b"\n") && m.starts_with(b"prog: "));
                        let s = e.short_message();
                        // F3: the one-line message stays one line whatever the argument.
                        if !known("F3") {
                            assert!(
                                !s.contains(|c: char| c.is_control()),
                                "control character in {s:?} (F3)"
                            );
                        }
                    }
                }
            }
            assert!(g.next_opt().is_none(), "getopt resumed after its end");
            for op in &g.operands {
                assert!(args.contains(op), "operand {op:?} is not an argument");
            }
            for a in &args {
                let v = getopt::c_strtol(a);
                let _ = v as i32 as u8;
            }
            if errors > 0 {
                "usage-error"
            } else {
                "parsed"
            }
        },
    );
    // strtol round trips.
    let mut r = Rng::new(seed());
    let n = iters();
    for _ in 0..n {
        let v = r.next() as i64;
        assert_eq!(getopt::c_strtol(v.to_string().as_bytes()), v);
        assert_eq!(getopt::c_strtol(format!(" \t{v}z").as_bytes()), v);
        let u = v.unsigned_abs() >> 1;
        assert_eq!(getopt::c_strtol(format!("0x{u:x}").as_bytes()), u as i64);
        assert_eq!(getopt::c_strtol(format!("0X{u:X}").as_bytes()), u as i64);
        assert_eq!(getopt::c_strtol(format!("0{u:o}").as_bytes()), u as i64);
        assert_eq!(
            getopt::c_strtol(format!("-0x{u:x}").as_bytes()),
            -(u as i64)
        );
    }
    assert_eq!(getopt::c_strtol(b"18446744073709551616"), i64::MAX);
    assert_eq!(getopt::c_strtol(&[b'9'; 5000]), i64::MAX);
    assert_eq!(getopt::c_strtol(b"-9223372036854775808"), i64::MIN);
    assert_eq!(getopt::c_strtol(b"-9223372036854775809"), i64::MIN);
    println!("fuzz target strtol_round_trips: {} executions", n * 6 + 4);
}

/// The `uverbs` binary itself on hostile argument vectors: never a panic (exit status
/// 101 or "panicked" on stderr), never a hang, and a usage error is one line on stderr
/// with a non-zero status.
#[test]
#[cfg_attr(miri, ignore = "spawns processes")]
fn fuzz_cli_binary() {
    let bin = crate::common::uverbs_bin();
    let run = |args: &[Vec<u8>]| -> (i32, String, String) {
        use std::os::unix::ffi::OsStrExt;
        let mut c = std::process::Command::new(&bin);
        c.args(args.iter().map(|a| std::ffi::OsStr::from_bytes(a)));
        // Bounded: the child is killed if it runs for more than 20 s.
        let mut child = c
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn uverbs");
        let start = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("uverbs {args:?} hangs");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The bad arguments of the issue: each a usage error, one line, status 2.
    let long = "n".repeat(300);
    let usage_errors: &[&[&str]] = &[
        &["devinfo", "-i", "0"],
        &["devinfo", "-i", "256"],
        &["devinfo", "-i", "-1"],
        &["devinfo", "-i", "abc"],
        &["devinfo", "-i", ""],
        &["devinfo", "-i", "1x"],
        &["devinfo", "-i", "4294967297"],
        &["devinfo", "--ib-port=0x1"],
        &["devinfo", "-i"],
        &["devinfo", "--ib-port"],
        &["devinfo", "--bogus"],
        &["devinfo", "-x"],
        &["devinfo", "--list=3"],
        &["devinfo", "extra"],
        &["nosuchcommand"],
        &["--nosuchoption"],
    ];
    // F3: arguments with control characters, echoed in the message.
    let f3: &[&[&str]] = &[
        &["devinfo", "-i", "1\n2"],
        &["devinfo", "ex\ntra"],
        &["devinfo", "-\n"],
        &["devinfo", "--ib-\u{1b}[31mport"],
    ];
    let usage_errors: Vec<&[&str]> = usage_errors
        .iter()
        .chain(if known("F3") { &[][..] } else { f3 })
        .copied()
        .collect();
    let mut execs = 0;
    for a in &usage_errors {
        let args: Vec<Vec<u8>> = a.iter().map(|s| s.as_bytes().to_vec()).collect();
        let (code, _, err) = run(&args);
        execs += 1;
        assert!(!err.contains("panicked"), "uverbs {a:?} panicked: {err}");
        assert_eq!(code, 2, "uverbs {a:?}: status {code}, stderr {err:?}");
        assert_eq!(
            err.lines().count(),
            1,
            "uverbs {a:?}: not one line: {err:?}"
        );
    }
    // Unknown and over-long device names: a non-zero status and one line, whatever
    // devices the machine has.
    let f3: &[&str] = if known("F3") {
        &[]
    } else {
        &["a\nb", "\r\u{1b}[2K"]
    };
    for name in [
        "nosuchdev0",
        long.as_str(),
        "",
        "../../etc/passwd",
        "rxe0\u{7f}",
    ]
    .iter()
    .chain(f3)
    {
        let args = vec![
            b"devinfo".to_vec(),
            b"-d".to_vec(),
            name.as_bytes().to_vec(),
        ];
        let (code, _, err) = run(&args);
        execs += 1;
        assert!(
            !err.contains("panicked"),
            "uverbs devinfo -d {name:?} panicked: {err}"
        );
        assert_ne!(code, 0, "uverbs devinfo -d {name:?} succeeded");
        assert_ne!(code, 101, "uverbs devinfo -d {name:?}: status 101");
        assert_eq!(
            err.lines().count(),
            1,
            "uverbs devinfo -d {name:?}: {err:?}"
        );
    }
    // Random argument vectors, as `uverbs devinfo ...`, `uverbs ARGS` and the
    // ibv_devinfo personality.
    let n = (iters() / 100).clamp(10, 300);
    let seed = seed() ^ fnv(b"cli_binary");
    let mut r = Rng::new(seed);
    let mut statuses: BTreeMap<i32, usize> = BTreeMap::new();
    for _ in 0..n {
        let mut args = random_args(&mut r);
        // (a process argument cannot hold a NUL byte)
        args.iter_mut()
            .flatten()
            .filter(|b| **b == 0)
            .for_each(|b| *b = 1);
        match r.below(3) {
            0 => args.insert(0, b"devinfo".to_vec()),
            1 => args.insert(0, b"ibv_devinfo".to_vec()),
            _ => {}
        }
        // Never ask the binary to list or print the real devices of the host for long:
        // every case ends quickly either way.
        let (code, _, err) = run(&args);
        execs += 1;
        *statuses.entry(code).or_default() += 1;
        assert!(
            !err.contains("panicked") && code != 101,
            "uverbs {:?} panicked (status {code}; seed {seed:#x}): {err}",
            args.iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
        );
    }
    println!("fuzz target cli_binary: {execs} executions (statuses {statuses:?})");
}
