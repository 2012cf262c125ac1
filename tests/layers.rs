//! The tree's layers, read from the code's own imports, so that an import the wrong way
//! fails here instead of tying the tree into a loop.
//!
//! The library (`src/`, below `lib.rs`), bottom up; a module may use its own layer's
//! module and the layers below it, never one above, never one beside it:
//!
//! | level | modules | what |
//! |---|---|---|
//! | 0 | `types` | the plain values every layer shares (enums, flags, GUIDs, GIDs) |
//! | 1 | `error` | `Error`, `Op`, `Result` (may name the values of `types`) |
//! | 2 | `raw` | the kernel interface: ABI mirror, attribute builders, methods, system calls |
//! | 3 | `netlink`, `sysfs` | the two readers (beside each other, not using each other) |
//! | 4 | `verbs` | the typed API: contexts, attributes, objects, events, caches |
//! | 5 | `cm` | the RDMA connection manager, on the verbs API |
//! | 6 | `selftest` | the conformance cases of `uverbs selftest`, on all of the above |
//! | 6 | `aio` | futures over tokio for the files the others wait on (feature `tokio`) |
//!
//! Paths through the crate root's re-exports (`crate::Error`) are refused outside
//! `lib.rs`: they hide which layer an item comes from.
//!
//! The command (`src/bin/uverbs/`): `plumbing/` (options, output, JSON, HTTP, the
//! Prometheus format) uses nothing else of the command; `dropin/`, `ops/`, `perf/` and
//! `conformance/` use `plumbing/` and themselves, not each other. And the command reads
//! nothing from the kernel itself (no file opens or reads, no netlink exchanges outside
//! its tests): the library reads, the command formats. (`plumbing/` reads pipes and
//! sockets: a child's report, an HTTP request; a line that reads a file the user named
//! says so in a comment.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const LIBRARY: &[(&str, u8)] = &[
    ("types", 0),
    ("error", 1),
    ("raw", 2),
    ("netlink", 3),
    ("sysfs", 3),
    ("verbs", 4),
    ("cm", 5),
    ("selftest", 6),
    ("aio", 6),
];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text without comments (`//` to the end of a line, outside string literals).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let b = line.as_bytes();
        let (mut in_str, mut i, mut cut) = (false, 0, b.len());
        while i < b.len() {
            match b[i] {
                b'\\' if in_str => i += 1,
                b'"' => in_str = !in_str,
                b'/' if !in_str && b.get(i + 1) == Some(&b'/') => {
                    cut = i;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The text of `#[cfg(test)]` modules removed (from the attribute to the module's
/// closing brace).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        // the item after the attribute: to its first `{` and the matching `}`, or to `;`
        let open = after.find('{');
        let semi = after.find(';');
        match (open, semi) {
            (Some(o), Some(s)) if s < o => rest = &after[s + 1..],
            (Some(o), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, c) in after[o..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            _ => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The first segment of every path that starts with `prefix` (`crate::`): for
/// `crate::{a::b, c}` both `a` and `c`.
fn first_segments(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        // not the tail of a longer path (`$crate::`, `uverbs::crate`)
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 || (depth == 1 && c == ',') {
                    out.push(head(&item));
                    item.clear();
                    if depth == 0 {
                        break;
                    }
                } else {
                    item.push(c);
                }
            }
        } else {
            out.push(head(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn head(path: &str) -> String {
    path.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn library_imports_go_down_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let level = |m: &str| LIBRARY.iter().find(|l| l.0 == m).map(|l| l.1);
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        if first == "bin" || first == "lib.rs" {
            continue;
        }
        let me = first.trim_end_matches(".rs");
        let my_level =
            level(me).unwrap_or_else(|| panic!("src/{me}: a module this test has no layer for"));
        let text = code(&std::fs::read_to_string(f).unwrap());
        for target in first_segments(&text, "crate::") {
            if target.starts_with(char::is_uppercase) {
                bad.push(format!(
                    "src/{}: crate::{target}: name the module, not the root's re-export",
                    rel.display()
                ));
                continue;
            }
            if target == me {
                continue;
            }
            let Some(t) = level(&target) else {
                bad.push(format!(
                    "src/{}: crate::{target}: no such layer",
                    rel.display()
                ));
                continue;
            };
            seen.insert((me.to_string(), target.clone()));
            if t >= my_level {
                bad.push(format!(
                    "src/{}: {me} (level {my_level}) uses {target} (level {t}): {}",
                    rel.display(),
                    if t == my_level { "sideways" } else { "upward" }
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the layers:\n  {}",
        bad.join("\n  ")
    );
    // The test reads what it claims: the layers' imports were found.
    for edge in [
        ("verbs", "raw"),
        ("raw", "error"),
        ("sysfs", "types"),
        ("cm", "verbs"),
    ] {
        assert!(
            seen.contains(&(edge.0.to_string(), edge.1.to_string())),
            "no import of {} by {} found: the parser reads nothing",
            edge.1,
            edge.0
        );
    }
}

#[test]
fn command_folders_and_reads() {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin/uverbs");
    let mut files = Vec::new();
    rs_files(&bin, &mut files);
    // What reading the kernel looks like in code: opening or reading files, listing
    // directories, netlink exchanges. The library has a function for each.
    const READS: &[&str] = &[
        "std::fs::read",
        "fs::read_dir",
        "File::open",
        "OpenOptions",
        "rustix::fs::open",
        "rustix::fs::stat",
        "rustix::fs::statx",
        "rustix::io::read",
        "rustix::io::pread",
        ".transact(",
        ".raw_exchange(",
    ];
    // Files that are modules only under `#[cfg(test)]` (`#[cfg(test)] mod NAME;`).
    let mut test_only = BTreeSet::new();
    for f in &files {
        let text = code(&std::fs::read_to_string(f).unwrap());
        for (i, _) in text.match_indices("#[cfg(test)]") {
            let item = text[i + 12..].trim_start();
            let item = item.strip_prefix("pub ").unwrap_or(item);
            if let Some(decl) = item.strip_prefix("mod ") {
                let name = head(decl);
                if decl[name.len()..].trim_start().starts_with(';') {
                    test_only.insert(f.parent().unwrap().join(format!("{name}.rs")));
                }
            }
        }
    }
    let mut bad = Vec::new();
    let mut folders = BTreeSet::new();
    for f in &files {
        if test_only.contains(f) {
            continue;
        }
        let rel = f.strip_prefix(&bin).unwrap();
        let folder = match rel.components().count() {
            1 => "main",
            _ => rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_str()
                .unwrap(),
        };
        folders.insert(folder.to_string());
        let source = std::fs::read_to_string(f).unwrap();
        let text = without_tests(&code(&source));
        // A line that reads a file the user named says so: `// the user's file`.
        let kept: String = source
            .lines()
            .filter(|l| !l.contains("// the user's file"))
            .map(|l| format!("{l}\n"))
            .collect();
        let reads = without_tests(&code(&kept));
        for r in READS.iter().filter(|_| folder != "plumbing") {
            if reads.contains(r) {
                bad.push(format!(
                    "src/bin/uverbs/{}: reads the kernel itself ({r})",
                    rel.display()
                ));
            }
        }
        for target in first_segments(&text, "crate::") {
            let ok = match folder {
                "main" => true,
                "plumbing" => target == "plumbing",
                f => target == "plumbing" || target == f,
            };
            if !ok {
                bad.push(format!(
                    "src/bin/uverbs/{}: {folder} uses crate::{target}",
                    rel.display()
                ));
            }
        }
    }
    assert_eq!(
        folders,
        ["conformance", "dropin", "main", "ops", "perf", "plumbing"]
            .map(String::from)
            .into(),
        "the command's folders (this test and its module docs name them)"
    );
    assert!(bad.is_empty(), "the command:\n  {}", bad.join("\n  "));
}

/// The parsers of this file, on what they must find and must not.
#[test]
fn the_parsers_find_what_they_claim() {
    let t = code("use crate::{raw::abi::{a, b}, error::Error};\n// use crate::cm::x;\nlet s = \"crate::verbs\"; x::crate::y; crate::Gid");
    assert_eq!(
        first_segments(&t, "crate::"),
        ["raw", "error", "verbs", "Gid"]
    );
    let t =
        without_tests("fn a() {}\n#[cfg(test)]\nmod tests { fn b() { crate::x(); } }\nfn c() {}");
    assert!(!t.contains("crate::x") && t.contains("fn c()"), "{t}");
}
