//! The printer's differential test: rdma-core 64.0's own `ibv_devinfo` against this
//! command's printer (`text.rs`), byte for byte, on the values soft devices cannot show.
//!
//! rdma-core 64.0's `libibverbs/examples/devinfo.c` is taken from the release archive
//! at test time (never committed), compiled against that release's headers (the build
//! `tests/vm/rdma-core.sh` caches) and linked with `tests/printer/stub.c`, a test
//! libibverbs that answers from an attribute table. The same table becomes the printer's
//! model through the library's types (`printer_table.rs`). Both texts, and the exit
//! status, must be equal for `-v`, for the short form and for `-i N -v` of each port.
//!
//! SYNTHETIC VALUES: the tables (`tests/printer/*.table`) are made up, in the shape of
//! what ConnectX-7 and EFA devices report; see `tests/printer/README.md`. This tests the
//! printer only. Left out, because only provider libraries know them (uverbs prints 0,
//! as rdma-core's rxe and siw providers do): packet pacing, TSO, the RSS hash fields and
//! the other mlx5-specific caps.
//!
//! The planted tests show the comparison is not blind: a one-character change in
//! devinfo.c's text, or in text.rs's (a mutated copy compiled with rustc against the
//! library this test was built with), makes it fail on the line changed.
//!
//! Needs gcc, the cached rdma-core 64.0 build (`tests/vm/rdma-core.sh 64.0`; or
//! `UVERBS_RDMA_CORE_64=DIR`) and its archive (`UVERBS_PEERS_DIR`, default
//! `../shared/peers`). Without them the tests print why and pass, except with `CI=true`,
//! where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::dropin::printer_table::Table;
use crate::dropin::text::{render_hca, Flavor};

const VERSION: &str = "64.0";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[path = "../../../../tests/common/strict.rs"]
mod strict;

/// What the tests need, made once per test process.
struct Setup {
    /// Scratch directory (under the target directory).
    dir: PathBuf,
    /// devinfo.c of the archive.
    devinfo_c: PathBuf,
    /// The rdma-core build (its `include/`).
    build: PathBuf,
    /// devinfo.c linked with the stub.
    devinfo: PathBuf,
}

fn run_text(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The pinned sha256 of the archive (tests/vm/peers).
fn pinned_sha() -> Result<String, String> {
    let peers = std::fs::read_to_string(crate_dir().join("tests/vm/peers"))
        .map_err(|e| format!("tests/vm/peers: {e}"))?;
    peers
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(VERSION)).then(|| w.next().unwrap_or("").to_string())
        })
        .ok_or_else(|| format!("tests/vm/peers does not pin rdma-core {VERSION}"))
}

fn compile_devinfo(s: &Setup, src: &Path, out: &Path) -> Result<(), String> {
    let o = Command::new("gcc")
        .args(["-std=gnu11", "-O0", "-w", "-I"])
        .arg(s.build.join("include"))
        .arg("-o")
        .arg(out)
        .arg(src)
        .arg(crate_dir().join("tests/printer/stub.c"))
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "gcc could not build devinfo.c with the stub:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

fn make_setup() -> Result<Setup, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/<profile>/deps/uverbs-HASH -> target/<profile>/printer-diff-PID
    let base = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("no target directory")?;
    let dir = base.join(format!("printer-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run_text(Command::new("gcc").arg("--version")).map_err(|e| format!("no C compiler: {e}"))?;
    let build = match std::env::var_os("UVERBS_RDMA_CORE_64") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(
            run_text(
                Command::new("bash")
                    .arg(crate_dir().join("tests/vm/rdma-core.sh"))
                    .args(["--cached", VERSION]),
            )
            .map_err(|e| {
                format!(
                    "rdma-core {VERSION} is not built (run tests/vm/rdma-core.sh {VERSION}): {e}"
                )
            })?,
        ),
    };
    if !build.join("include/infiniband/verbs.h").is_file() {
        return Err(format!(
            "{} has no include/infiniband/verbs.h",
            build.display()
        ));
    }
    let peers = std::env::var_os("UVERBS_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_dir().join("../shared/peers"));
    let archive = peers.join(format!("rdma-core-{VERSION}.tar.xz"));
    let sha = run_text(Command::new("sha256sum").arg(&archive))?;
    let want = pinned_sha()?;
    if !sha.starts_with(&want) {
        return Err(format!(
            "{} is not the archive tests/vm/peers pins ({want})",
            archive.display()
        ));
    }
    let devinfo_c = dir.join("devinfo.c");
    let o = Command::new("tar")
        .arg("-xJOf")
        .arg(&archive)
        .arg(format!("rdma-core-{VERSION}/libibverbs/examples/devinfo.c"))
        .output()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !o.status.success() || o.stdout.is_empty() {
        return Err(format!(
            "no libibverbs/examples/devinfo.c in {}: {}",
            archive.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    std::fs::write(&devinfo_c, &o.stdout).map_err(|e| e.to_string())?;
    let s = Setup {
        devinfo: dir.join("devinfo-64"),
        dir,
        devinfo_c,
        build,
    };
    compile_devinfo(&s, &s.devinfo_c, &s.devinfo)?;
    Ok(s)
}

/// The setup, or `None` after printing why it is missing (a failure in CI).
fn setup() -> Option<&'static Setup> {
    static S: OnceLock<Result<Setup, String>> = OnceLock::new();
    match S.get_or_init(make_setup) {
        Ok(s) => Some(s),
        Err(why) => {
            strict::skip_or_fail("the printer's differential test", why);
            None
        }
    }
}

/// The tables, by file name.
fn tables() -> Vec<(String, PathBuf, Table)> {
    let dir = crate_dir().join("tests/printer");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "table"))
        .collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let t = Table::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, p, t)
        })
        .collect()
}

/// What a program printed.
#[derive(Debug, PartialEq, Eq)]
struct Out {
    stdout: String,
    stderr: String,
    status: i32,
}

fn run_devinfo(prog: &Path, table: &Path, args: &[String]) -> Out {
    let o = Command::new(prog)
        .arg0("ibv_devinfo")
        .args(args)
        .env("UVERBS_STUB_TABLE", table)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", prog.display()));
    Out {
        stdout: String::from_utf8_lossy(&o.stdout).into(),
        stderr: String::from_utf8_lossy(&o.stderr).into(),
        status: o.status.code().unwrap_or(-1),
    }
}

use std::os::unix::process::CommandExt;

/// The arguments each table is printed with, and the port each selects (0: all).
fn cases(t: &Table) -> Vec<(Vec<String>, bool, u8)> {
    let mut v = vec![(vec!["-v".to_string()], true, 0), (vec![], false, 0)];
    for p in 1..=t.port_count() {
        v.push((vec!["-i".into(), p.to_string(), "-v".into()], true, p));
    }
    v
}

fn ours(t: &Table, verbose: bool, port: u8) -> Out {
    let r = t.report(port);
    let (stdout, stderr) = render_hca(&r, verbose, Flavor::Compat);
    Out {
        stdout,
        stderr,
        status: r.rc() & 0xff,
    }
}

/// Line differences, `-` rdma-core 64.0, `+` uverbs (first 20).
fn diff(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x != y && shown < 20 {
            let esc = |s: Option<&&str>| s.map_or("<none>".into(), |s| s.replace('\t', "\\t"));
            out.push_str(&format!(
                "    line {}:\n    - {}\n    + {}\n",
                i + 1,
                esc(x),
                esc(y)
            ));
            shown += 1;
        }
    }
    out
}

/// Compares every table and case; returns the differences.
fn compare_all(devinfo: &Path, render: &dyn Fn(&Path, &Table, bool, u8) -> Out) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, path, t) in tables() {
        for (args, verbose, port) in cases(&t) {
            let want = run_devinfo(devinfo, &path, &args);
            let got = render(&path, &t, verbose, port);
            if want != got {
                failures.push(format!(
                    "{name}: ibv_devinfo {} differs (status rdma-core {} uverbs {}):\n  stdout:\n{}  stderr:\n{}",
                    args.join(" "),
                    want.status,
                    got.status,
                    diff(&want.stdout, &got.stdout),
                    diff(&want.stderr, &got.stderr)
                ));
            }
        }
    }
    failures
}

#[test]
#[cfg_attr(miri, ignore = "compiles and runs rdma-core's devinfo.c")]
fn tables_are_synthetic_and_well_formed() {
    // Needs nothing but the tables: they parse, say they are synthetic, set no
    // provider-only attribute, and cover what the issue asks.
    let all = tables();
    let names: Vec<&str> = all.iter().map(|(n, ..)| n.as_str()).collect();
    for want in [
        "cx7-ndr.table",
        "cx7-xdr.table",
        "odp-all.table",
        "cap-flags-all.table",
        "cap-flags-known.table",
        "efa.table",
        "roce-16gids.table",
        "odd-values.table",
        "every-port-value.table",
    ] {
        assert!(names.contains(&want), "missing table {want}: {names:?}");
    }
    for (name, path, t) in &all {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.lines().next().unwrap_or("").starts_with("# SYNTHETIC"),
            "{name}: the first line must label the table synthetic"
        );
        let r = t.report(0);
        assert_eq!(r.ports.len(), usize::from(t.port_count()), "{name}");
    }
    let roce = &all
        .iter()
        .find(|(n, ..)| n == "roce-16gids.table")
        .unwrap()
        .2;
    let gids = &roce.report(0).ports[0].gids;
    assert_eq!(gids.len(), 16, "16 GIDs");
    let types: std::collections::BTreeSet<u32> =
        gids.iter().map(|g| g.entry.gid_type.as_raw()).collect();
    assert!(types.len() >= 3, "mixed GID types: {types:?}");
    let xdr = all.iter().find(|(n, ..)| n == "cx7-xdr.table").unwrap();
    assert_eq!(xdr.2.report(0).ports[0].attr.active_speed_ex, 256);
    // Every lane speed and every port state rdma-core names is printed somewhere.
    let mut speeds = std::collections::BTreeSet::new();
    let mut states = std::collections::BTreeSet::new();
    for (_, _, t) in &all {
        for p in t.report(0).ports {
            speeds.insert(p.attr.speed().as_raw());
            states.insert(p.attr.state.as_raw());
        }
    }
    for s in [1, 2, 4, 8, 16, 32, 64, 128, 256] {
        assert!(
            speeds.contains(&s),
            "no table has lane speed {s}: {speeds:?}"
        );
    }
    for s in 0..=5 {
        assert!(
            states.contains(&s),
            "no table has port state {s}: {states:?}"
        );
    }
    assert!(
        Table::parse("ex.tso_caps.max_tso=1").is_err(),
        "provider-only"
    );
    assert!(Table::parse("dev.max_qpp=1").is_err(), "typo");
    assert!(Table::parse("dev.max_qp=010").is_err(), "octal-looking");
}

#[test]
#[cfg_attr(miri, ignore = "compiles and runs rdma-core's devinfo.c")]
fn rdma_core_64_devinfo_prints_what_uverbs_prints() {
    let Some(s) = setup() else { return };
    let failures = compare_all(&s.devinfo, &|_, t, verbose, port| ours(t, verbose, port));
    let n: usize = tables().iter().map(|(_, _, t)| cases(t).len()).sum();
    eprintln!(
        "printer differential test: {n} runs of rdma-core {VERSION}'s devinfo.c on {} synthetic tables, {} differ",
        tables().len(),
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Replaces exactly one occurrence of `from` by `to` (which differ in one character).
fn plant(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    assert_eq!(from.len(), to.len());
    assert_eq!(
        from.bytes().zip(to.bytes()).filter(|(a, b)| a != b).count(),
        1,
        "one character"
    );
    text.replacen(from, to, 1)
}

#[test]
#[cfg_attr(miri, ignore = "compiles and runs rdma-core's devinfo.c")]
fn planted_change_in_devinfo_c_is_caught() {
    let Some(s) = setup() else { return };
    let src = std::fs::read_to_string(&s.devinfo_c).unwrap();
    let planted = s.dir.join("devinfo-planted.c");
    std::fs::write(
        &planted,
        plant(
            &src,
            "\"\\t\\t\\t\\t\\tSUPPORT_FLUSH\\n\"",
            "\"\\t\\t\\t\\t\\tSUPPORT_FLUSh\\n\"",
        ),
    )
    .unwrap();
    let exe = s.dir.join("devinfo-planted");
    compile_devinfo(s, &planted, &exe).unwrap();
    let failures = compare_all(&exe, &|_, t, verbose, port| ours(t, verbose, port));
    let all = failures.join("\n");
    assert!(
        !failures.is_empty() && all.contains("SUPPORT_FLUSh"),
        "a one-character change in devinfo.c went unnoticed:\n{all}"
    );
    eprintln!(
        "planted `SUPPORT_FLUSh` in devinfo.c: {} case(s) differ, as they must",
        failures.len()
    );
}

#[test]
#[cfg_attr(miri, ignore = "compiles and runs rdma-core's devinfo.c")]
fn planted_change_in_text_rs_is_caught() {
    let Some(s) = setup() else { return };
    // A copy of the printer with one character changed, built into a small program with
    // the same rustc and against the same uverbs library as this test.
    let src = crate_dir().join("src/bin/uverbs");
    let text = std::fs::read_to_string(src.join("dropin/text.rs")).unwrap();
    let dir = s.dir.join("planted-rs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("text.rs"),
        plant(
            &text,
            "(1 << 41, \"CC_DMA_BOUNCE\")",
            "(1 << 41, \"CC_DMA_BOUNCe\")",
        ),
    )
    .unwrap();
    let main = format!(
        "#![allow(dead_code, unused_imports)]\n\
         mod dropin {{\n\
             #[path = {report:?}] pub mod report;\n\
             #[path = {table:?}] pub mod printer_table;\n\
             #[path = {text:?}] pub mod text;\n\
         }}\n\
         mod plumbing {{ #[path = {format:?}] pub mod format; }}\n\
         use dropin::{{printer_table, text}};\n\
         fn main() {{\n\
             let a: Vec<String> = std::env::args().collect();\n\
             let t = printer_table::Table::parse(&std::fs::read_to_string(&a[1]).unwrap()).unwrap();\n\
             let r = t.report(a[3].parse().unwrap());\n\
             let (o, e) = text::render_hca(&r, a[2] == \"1\", text::Flavor::Compat);\n\
             print!(\"{{o}}\"); eprint!(\"{{e}}\");\n\
             std::process::exit(r.rc() & 0xff);\n\
         }}\n",
        report = src.join("dropin/report.rs"),
        table = src.join("dropin/printer_table.rs"),
        text = dir.join("text.rs"),
        format = src.join("plumbing/format.rs"),
    );
    std::fs::write(dir.join("main.rs"), main).unwrap();
    // The uverbs library this test binary was linked with: the newest rlib next to it.
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let rlib = std::fs::read_dir(&deps)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.starts_with("libuverbs-") && n.ends_with(".rlib")
        })
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .expect("libuverbs-*.rlib next to the test binary")
        .path();
    // The rustc of the toolchain that built this test.
    let rustc = Path::new(env!("CARGO"))
        .parent()
        .map(|d| d.join("rustc"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("rustc"));
    let exe = dir.join("printer-planted");
    let o = Command::new(&rustc)
        .args(["--edition", "2021", "--crate-type", "bin", "-o"])
        .arg(&exe)
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("uverbs={}", rlib.display()))
        .arg(dir.join("main.rs"))
        .output()
        .expect("rustc");
    assert!(
        o.status.success(),
        "the planted printer did not compile:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let render = |path: &Path, _: &Table, verbose: bool, port: u8| {
        let o = Command::new(&exe)
            .arg(path)
            .arg(if verbose { "1" } else { "0" })
            .arg(port.to_string())
            .output()
            .unwrap();
        Out {
            stdout: String::from_utf8_lossy(&o.stdout).into(),
            stderr: String::from_utf8_lossy(&o.stderr).into(),
            status: o.status.code().unwrap_or(-1),
        }
    };
    let failures = compare_all(&s.devinfo, &render);
    let all = failures.join("\n");
    assert!(
        !failures.is_empty() && all.contains("CC_DMA_BOUNCe") && all.contains("CC_DMA_BOUNCE"),
        "a one-character change in text.rs went unnoticed:\n{all}"
    );
    assert!(
        failures.iter().all(|f| f.contains("CC_DMA_BOUNCe")),
        "only the planted line may differ:\n{all}"
    );
    eprintln!(
        "planted `CC_DMA_BOUNCe` in text.rs: {} case(s) differ, as they must",
        failures.len()
    );
}
