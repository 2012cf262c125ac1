//! Whole-process timing for `bench/run.sh`: wall time and peak RSS of commands such as
//! `uverbs devinfo -v` and `ibv_devinfo -v`, run side by side in the VM rig.
//!
//! ```text
//! bench_proc [--runs N] [--rss-runs K] [--rss-helper PATH | --busybox PATH] LABEL=COMMAND...
//!     COMMAND is split on spaces (no shell). Output:
//!       P LABEL NS        wall time of one run (N per command)
//!       M LABEL KB        peak RSS of one run (K per command)
//!       F FACTOR          the calibration below
//!       E LABEL TEXT      a command that failed (its exit status and stderr)
//! bench_proc --hwm
//!     touches 16 MiB, then prints its own VmHWM in kB (for the calibration)
//! bench_proc --noop
//!     exits at once: the cost of starting a static Rust program (a floor)
//! ```
//!
//! Wall time: each command runs once untimed (warm page cache, and its exit status is
//! checked), then the commands take turns, `N` rounds, so that a slow period of the
//! shared host hits all of them alike. No command keeps a place in the turn: round `r`
//! starts at the `r`-th command, and every other round goes backwards, so that over
//! the rounds each command runs in each place and after each other command alike (with
//! one fixed order, a command and its A/A copy at the two ends of the list were always
//! timed furthest apart, in the same places, which biased the A/A ratios). A run is
//! `Command::spawn` to `wait`, with stdout and stderr on `/dev/null`, timed with `Instant`.
//!
//! Peak RSS: the child's `ru_maxrss` from `wait4(2)`, in KiB. Neither the standard
//! library nor rustix (no `getrusage`/`wait4`) gives it without `unsafe`, and reading
//! `/proc/PID/status` of a child races with its exit, so the RSS runs go through a
//! helper: `--rss-helper PATH`, bench/rusage.c (fork + exec + wait4, built static
//! against musl: the kernel counts the child's image before the exec in `ru_maxrss`,
//! so the spawner must be small), or else busybox's `time -f %M`. Busybox 1.35 takes
//! `ru_maxrss` for pages and multiplies it by 4, and forks from its own ~1.3 MiB image,
//! which then floors every figure; so the factor is measured rather than assumed: the
//! tool runs this program in `--hwm` mode, which reports its own `VmHWM`, and the
//! ratio (rounded) divides every RSS figure (1 with the helper).
//!
//! Build: `cargo build --release --target x86_64-unknown-linux-musl --example bench_proc`.

use std::process::{exit, Command, Stdio};
use std::time::Instant;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("bench_proc: {what}: {e}");
    exit(1)
}

struct Cmd {
    label: String,
    argv: Vec<String>,
}

fn vm_hwm_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// How peak RSS is measured: the wait4 helper (bench/rusage.c), or busybox `time`.
enum RssTool {
    Helper(String),
    Busybox(String),
}

/// Peak RSS of one run of `argv` as the tool reports it (uncorrected).
fn maxrss(tool: &RssTool, argv: &[String]) -> Result<u64, String> {
    match tool {
        RssTool::Helper(helper) => {
            let out = Command::new(helper)
                .args(argv)
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .map_err(|e| format!("{helper}: {e}"))?;
            let text = String::from_utf8_lossy(&out.stdout);
            let mut it = text.split_whitespace();
            let kb = it.next().and_then(|v| v.parse().ok());
            match (kb, it.next()) {
                (Some(kb), Some("0")) => Ok(kb),
                _ => Err(format!("{argv:?} failed under {helper}: {text:?}")),
            }
        }
        RssTool::Busybox(busybox) => {
            let out_file = format!("/tmp/bench_proc.{}.rss", std::process::id());
            let status = Command::new(busybox)
                .args(["time", "-f", "%M", "-o", &out_file])
                .args(argv)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| format!("{busybox}: {e}"))?;
            let text =
                std::fs::read_to_string(&out_file).map_err(|e| format!("{out_file}: {e}"))?;
            let _ = std::fs::remove_file(&out_file);
            if !status.success() {
                return Err(format!("{argv:?} failed under busybox time: {text}"));
            }
            // busybox writes "Command exited with non-zero status N" first when it failed.
            text.lines()
                .rev()
                .find_map(|l| l.trim().parse().ok())
                .ok_or_else(|| format!("no %M in busybox time's output: {text:?}"))
        }
    }
}

/// The turn of round `round`: the commands rotated to start at the `round`-th (modulo
/// their number), backwards in odd rounds.
fn round_order<T>(cmds: &[T], round: usize) -> impl Iterator<Item = &T> {
    let n = cmds.len();
    let start = if n == 0 { 0 } else { round % n };
    let back = round % 2 == 1;
    (0..n).map(move |k| {
        let i = if back { start + n - k } else { start + k };
        &cmds[i % n]
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--noop") {
        return;
    }
    if args.get(1).map(String::as_str) == Some("--hwm") {
        let mut v = vec![0u8; 16 << 20];
        for i in (0..v.len()).step_by(4096) {
            v[i] = 1;
        }
        std::hint::black_box(&v);
        println!("{}", vm_hwm_kb());
        return;
    }

    let (mut runs, mut rss_runs) = (21usize, 3usize);
    let mut tool = RssTool::Busybox("busybox".to_string());
    let mut cmds = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let mut val = |name: &str| -> String {
            it.next()
                .cloned()
                .unwrap_or_else(|| fail("arguments", format!("{name} needs a value")))
        };
        match a.as_str() {
            "--runs" => runs = val("--runs").parse().unwrap_or_else(|e| fail("--runs", e)),
            "--rss-runs" => {
                rss_runs = val("--rss-runs")
                    .parse()
                    .unwrap_or_else(|e| fail("--rss-runs", e))
            }
            "--busybox" => tool = RssTool::Busybox(val("--busybox")),
            "--rss-helper" => tool = RssTool::Helper(val("--rss-helper")),
            spec => {
                let (label, cmd) = spec.split_once('=').unwrap_or_else(|| {
                    fail("arguments", format!("want LABEL=COMMAND, got {spec}"))
                });
                let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
                if argv.is_empty() {
                    fail("arguments", format!("empty command for {label}"));
                }
                cmds.push(Cmd {
                    label: label.to_string(),
                    argv,
                });
            }
        }
    }
    if cmds.is_empty() {
        fail(
            "arguments",
            "usage: bench_proc [--runs N] [--rss-runs K] [--rss-helper PATH | --busybox PATH] LABEL=COMMAND...",
        );
    }

    // One untimed run each: the exit status must be 0, or the command is dropped.
    let mut ok = Vec::new();
    for c in cmds {
        match Command::new(&c.argv[0])
            .args(&c.argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
        {
            Ok(o) if o.status.success() => ok.push(c),
            Ok(o) => println!(
                "E {} {}: {}",
                c.label,
                o.status,
                String::from_utf8_lossy(&o.stderr).replace('\n', " | ")
            ),
            Err(e) => println!("E {} spawn: {e}", c.label),
        }
    }

    for round in 0..runs {
        for c in round_order(&ok, round) {
            let t0 = Instant::now();
            let st = Command::new(&c.argv[0])
                .args(&c.argv[1..])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let ns = t0.elapsed().as_nanos();
            match st {
                Ok(s) if s.success() => println!("P {} {ns}", c.label),
                Ok(s) => println!("E {} {s}", c.label),
                Err(e) => println!("E {} spawn: {e}", c.label),
            }
        }
    }

    if rss_runs == 0 {
        return;
    }
    let me = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|e| fail("current_exe", e));
    let cal = (|| -> Result<f64, String> {
        let raw = maxrss(&tool, &[me.clone(), "--hwm".into()])?;
        let out = Command::new(&me)
            .arg("--hwm")
            .output()
            .map_err(|e| e.to_string())?;
        let hwm: f64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|e| format!("--hwm: {e}"))?;
        Ok((raw as f64 / hwm).round().max(1.0))
    })();
    let factor = match cal {
        Ok(f) => f,
        Err(e) => {
            println!("E rss-calibration {e}");
            return;
        }
    };
    println!("F {factor}");
    for _ in 0..rss_runs {
        for c in &ok {
            match maxrss(&tool, &c.argv) {
                Ok(kb) => println!("M {} {}", c.label, (kb as f64 / factor).round()),
                Err(e) => println!("E {} {e}", c.label),
            }
        }
    }
}
