//! `uverbs selftest` as the VM tests run it (tests/selftest*.rs): the command, its KTAP
//! read by the command's own strict reader, one device's results, and a planted driver
//! that must fail a case the stock one passes.

use std::process::{Command, Output, Stdio};

#[path = "../../src/bin/uverbs/plumbing/ktap.rs"]
pub mod ktap;

/// `uverbs selftest ARGS...`, stdin empty, its output kept.
pub fn run(args: &[&str]) -> Output {
    Command::new(super::uverbs_bin())
        .arg("selftest")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("uverbs selftest runs")
}

/// The KTAP document a run printed.
pub fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One result of a device's subtest block.
#[derive(Debug, Clone)]
pub struct Result {
    /// The case's name.
    pub name: String,
    /// Its result line, trimmed (`ok 3 data.rc.send # SKIP ...`).
    pub line: String,
    /// The `# ` diagnostics printed before it, without the `# `.
    pub diag: Vec<String>,
}

/// The results of `dev`'s subtest block in a KTAP document, in order.
pub fn results_of(doc: &str, dev: &str) -> Vec<Result> {
    let mut on = false;
    let mut out = Vec::new();
    let mut diag = Vec::new();
    for l in doc.lines() {
        if l == format!("  # Subtest: {dev}") {
            on = true;
            continue;
        }
        if on && !l.starts_with("  ") {
            break;
        }
        if !on {
            continue;
        }
        let t = l.trim_start();
        if let Some(d) = t.strip_prefix("# ") {
            diag.push(d.to_string());
        } else if t.starts_with("ok ") || t.starts_with("not ok ") {
            let name = t.split(' ').nth(if t.starts_with("ok") { 2 } else { 3 });
            out.push(Result {
                name: name.unwrap_or("").to_string(),
                line: t.to_string(),
                diag: std::mem::take(&mut diag),
            });
        }
    }
    out
}

/// `uverbs selftest --filter FILTER` on rxe and siw: the KTAP is strict, each device's
/// cases are exactly `cases`, in order, every line a plain `ok` (no directive), and the
/// exit status kselftest's 0. Returns the document and how long the run took.
pub fn group_passes(filter: &str, cases: &[&str]) -> (String, std::time::Duration) {
    let (rxe, siw) = (super::device("rxe"), super::device("siw"));
    let t0 = std::time::Instant::now();
    let o = run(&["-d", &rxe, "-d", &siw, "--filter", filter]);
    let took = t0.elapsed();
    let doc = text(&o);
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("not KTAP: {e}\n{doc}"));
    for dev in [&rxe, &siw] {
        let r = results_of(&doc, dev);
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, cases, "{dev}:\n{doc}");
        for (i, c) in r.iter().enumerate() {
            assert_eq!(
                c.line,
                format!("ok {} {}", i + 1, c.name),
                "{dev}: {} passes without a directive\n{doc}",
                c.name
            );
        }
    }
    assert_eq!(o.status.code(), Some(0), "{doc}");
    (doc, took)
}

/// The case lines of `dev` in a KTAP document, as (name, line).
pub fn lines_of(doc: &str, dev: &str) -> Vec<(String, String)> {
    results_of(doc, dev)
        .into_iter()
        .map(|r| (r.name, r.line))
        .collect()
}

/// The stock driver passes `case` on `dev`; the planted build of `plant`
/// (tests/vm/planted/PLANT.sed) fails it, and only it, with `needle` among the
/// diagnostics. A plant named `*-warn` logs a kernel warning, which the rig is told to
/// expect. The stock driver is back when this returns, whatever happened.
pub fn planted_fails_case(dev: &str, plant: &str, case: &str, needle: &str) {
    let kmsg = |s: &str| std::fs::write("/dev/kmsg", format!("{s}\n")).unwrap();
    let o = run(&["-d", dev, "--filter", case]);
    assert_eq!(o.status.code(), Some(0), "stock {dev}:\n{}", text(&o));

    let planted = super::scratch::PlantedModule::load(&super::scratch::planted(plant));
    let warns = plant.ends_with("warn");
    if warns {
        kmsg("uverbs-vm: expected splat begin");
    }
    let o = run(&["-d", dev, "--filter", case]);
    if warns {
        kmsg("uverbs-vm: expected splat end");
    }
    drop(planted);
    let doc = text(&o);
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("not KTAP: {e}\n{doc}"));
    assert_eq!(o.status.code(), Some(1), "{plant}:\n{doc}");
    let results = results_of(&doc, dev);
    let failed: Vec<&Result> = results
        .iter()
        .filter(|r| r.line.starts_with("not ok "))
        .collect();
    assert!(
        failed.len() == 1 && failed[0].name == case,
        "{plant}: {case} and only it fails:\n{doc}"
    );
    let why = doc
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{plant}: no {needle:?} among the diagnostics:\n{doc}"));
    println!(
        "kernel {}: {plant}: {} ({})",
        super::kernel(),
        failed[0].line,
        why.trim()
    );
}
