//! Compiling and running a probe with the system C compiler.
//!
//! A manifest item that does not compile (a field or constant the headers lack, a struct
//! they do not define) is mapped back from the compiler's line number, left out, and the
//! probe is compiled again; the caller gets the item with the compiler's message.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::generate::{ItemRef, Probe};

/// How to compile.
#[derive(Debug, Clone)]
pub struct Compiler {
    /// The compiler command: `$UVERBS_ABI_CC`, else `$CC`, else `cc`.
    pub cc: String,
    /// `-I` directories, searched ahead of the system include path.
    pub include: Vec<PathBuf>,
    /// `-D` definitions.
    pub defines: Vec<String>,
    /// The program that runs a probe, with its arguments (`$UVERBS_ABI_RUNNER`, split at
    /// spaces): a cross compiler's probes under user-mode QEMU, e.g.
    /// `qemu-aarch64 -L /usr/aarch64-linux-gnu`. Empty: the probe runs itself.
    pub runner: Vec<String>,
}

impl Compiler {
    pub fn from_env() -> Compiler {
        let var = |n: &str| std::env::var(n).ok().filter(|s| !s.trim().is_empty());
        let cc = var("UVERBS_ABI_CC").or_else(|| var("CC"));
        Compiler {
            cc: cc.unwrap_or_else(|| "cc".to_string()),
            include: Vec::new(),
            defines: Vec::new(),
            runner: var("UVERBS_ABI_RUNNER")
                .map(|r| r.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
        }
    }
}

/// What running a probe gave.
#[derive(Debug)]
pub enum Run {
    /// The probe ran: its output lines, and the items that did not compile (with the
    /// compiler's error message).
    Ran {
        output: Vec<String>,
        failed: BTreeMap<ItemRef, String>,
    },
    /// No C compiler could be started.
    NoCompiler(String),
    /// The probe failed for a reason no manifest item explains (broken headers...).
    Failed(String),
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch directory under `base` (`NAME-PID-N`). Directories that earlier test
/// processes left there are removed once those processes are gone.
pub fn scratch_dir(base: &Path, name: &str) -> PathBuf {
    if let Ok(rd) = std::fs::read_dir(base) {
        for e in rd.flatten() {
            let file = e.file_name().to_string_lossy().to_string();
            let pid = file.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = base.join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// Compiles and runs the probe that `gen` makes, leaving out items that fail to compile.
pub fn run(
    compiler: &Compiler,
    dir: &Path,
    name: &str,
    mut gen: impl FnMut(&BTreeSet<ItemRef>) -> Probe,
) -> Run {
    let mut skip = BTreeSet::new();
    let mut failed = BTreeMap::new();
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    for _attempt in 0..8 {
        let probe = gen(&skip);
        std::fs::write(&src, &probe.source)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", src.display()));
        let mut cmd = Command::new(&compiler.cc);
        cmd.arg("-std=gnu11").arg("-fmax-errors=0");
        for d in &compiler.defines {
            cmd.arg(format!("-D{d}"));
        }
        for i in &compiler.include {
            cmd.arg("-I").arg(i);
        }
        cmd.arg("-o").arg(&exe).arg(&src);
        let out = match cmd.output() {
            Ok(o) => o,
            Err(e) => {
                return Run::NoCompiler(format!("cannot run the C compiler `{}`: {e}", compiler.cc))
            }
        };
        if out.status.success() {
            let res = match compiler.runner.split_first() {
                Some((prog, args)) => Command::new(prog).args(args).arg(&exe).output(),
                None => Command::new(&exe).output(),
            };
            return match res {
                Ok(o) if o.status.success() => Run::Ran {
                    output: String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .map(str::to_string)
                        .collect(),
                    failed,
                },
                Ok(o) => Run::Failed(format!(
                    "the probe {} exited with {}: {}",
                    exe.display(),
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                )),
                Err(e) => Run::Failed(format!("cannot run the probe {}: {e}", exe.display())),
            };
        }
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let file_name = src.file_name().unwrap().to_string_lossy().to_string();
        let mut found_any = false;
        for l in stderr.lines() {
            if !l.contains(": error: ") && !l.contains(": fatal error: ") {
                continue;
            }
            // Errors inside a header (caused by a probe line) go away with the items
            // that did not compile, or are reported below.
            if let Some((n, msg)) = error_line(l, &file_name) {
                if let Some(item) = probe.lines.get(&n) {
                    found_any = true;
                    skip.insert(*item);
                    failed.entry(*item).or_insert(msg);
                }
            }
        }
        if !found_any {
            let first: Vec<&str> = stderr.lines().take(40).collect();
            return Run::Failed(format!(
                "the probe {} did not compile, and no manifest item explains why:\n{}",
                src.display(),
                first.join("\n")
            ));
        }
        // A struct that does not compile takes its fields with it.
        let structs: Vec<usize> = failed
            .keys()
            .filter_map(|k| {
                if let ItemRef::Struct(s) = k {
                    Some(*s)
                } else {
                    None
                }
            })
            .collect();
        failed.retain(|k, _| {
            !matches!(k, ItemRef::Field(s, _) | ItemRef::FieldWas(s, _) if structs.contains(s))
        });
    }
    Run::Failed(format!(
        "the probe {} still did not compile after 8 attempts",
        src.display()
    ))
}

/// `path/probe.c:123:45: error: message` -> (123, message) when the path is the probe.
fn error_line(l: &str, file_name: &str) -> Option<(usize, String)> {
    let pos = l.find(&format!("{file_name}:"))?;
    let rest = &l[pos + file_name.len() + 1..];
    let mut parts = rest.splitn(3, ':');
    let line: usize = parts.next()?.trim().parse().ok()?;
    let _col = parts.next()?;
    let msg = parts.next()?.trim();
    let msg = msg
        .strip_prefix("fatal error:")
        .or_else(|| msg.strip_prefix("error:"))
        .unwrap_or(msg)
        .trim()
        .replace(['\u{2018}', '\u{2019}'], "'");
    Some((line, msg))
}
