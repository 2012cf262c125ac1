//! The comparison: C headers (via the probes) against the Rust table, item by item.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::generate::{self, ItemRef};
use super::manifest::{CTy, Const, Manifest, Src, Ty, Version};
use super::probe::{self, Compiler, Run};
use super::table::RustTable;

/// One difference between the mirror and the headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// `struct.field`, `struct`, a constant, or `Type::Variant`.
    pub item: String,
    /// What differs, with the expected (Rust) and found (C) values.
    pub what: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.item, self.what)
    }
}

/// The result of a check that ran.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Which headers, e.g. `C headers at /usr/include (system include path)`.
    pub against: String,
    /// The version the `since` annotations were judged by, and where it came from.
    pub version: Option<Version>,
    pub version_from: String,
    pub structs: usize,
    pub fields: usize,
    pub consts: usize,
    pub mismatches: Vec<Mismatch>,
    /// Things that are fine but worth printing (items absent from older headers).
    pub notes: Vec<String>,
}

impl Report {
    /// The one-line summary the test prints.
    pub fn summary(&self, what: &str) -> String {
        let items = if self.structs > 0 {
            format!(
                "{} structs, {} fields, {} constants",
                self.structs, self.fields, self.consts
            )
        } else {
            format!("{} values", self.consts)
        };
        format!(
            "ABI check ({what}): compared {items} against {} ({}): {} mismatches, {} notes",
            self.against,
            self.version_from,
            self.mismatches.len(),
            self.notes.len()
        )
    }

    /// Everything, for a test's output or failure message.
    pub fn details(&self) -> String {
        let mut s = String::new();
        for m in &self.mismatches {
            s.push_str(&format!("  MISMATCH {m}\n"));
        }
        for n in &self.notes {
            s.push_str(&format!("  note: {n}\n"));
        }
        s
    }

    fn mismatch(&mut self, item: impl Into<String>, what: impl Into<String>) {
        self.mismatches.push(Mismatch {
            item: item.into(),
            what: what.into(),
        });
    }

    /// Messages of the mismatches, for asserting.
    pub fn messages(&self) -> Vec<String> {
        self.mismatches.iter().map(|m| m.to_string()).collect()
    }
}

/// A check that could not run, and why.
#[derive(Debug, Clone)]
pub enum Outcome {
    Checked(Report),
    /// No compiler, or no headers: skipped outside CI, a failure in CI.
    Skipped(String),
    /// Something is broken (the headers do not compile, the directory does not exist).
    Broken(String),
}

/// Where the kernel headers come from.
#[derive(Debug, Clone, Default)]
pub struct UapiConfig {
    /// `UVERBS_ABI_HEADERS`: a tree laid out like /usr/include, ahead of the system path.
    pub headers: Option<PathBuf>,
    /// `UVERBS_ABI_KERNEL`: the kernel version of those headers, when it cannot be read.
    pub kernel: Option<Version>,
}

impl UapiConfig {
    pub fn from_env() -> UapiConfig {
        let headers = std::env::var_os("UVERBS_ABI_HEADERS")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let kernel = std::env::var("UVERBS_ABI_KERNEL")
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| {
                Version::parse(&s)
                    .unwrap_or_else(|| panic!("UVERBS_ABI_KERNEL={s} is not a version like 6.12"))
            });
        UapiConfig { headers, kernel }
    }
}

/// Where rdma-core's `<infiniband/verbs.h>` comes from.
#[derive(Debug, Clone, Default)]
pub struct VerbsConfig {
    /// `UVERBS_ABI_VERBS_INCLUDE`: a directory with `infiniband/verbs.h`, ahead of the
    /// system include path.
    pub include: Option<PathBuf>,
    /// `UVERBS_ABI_RDMA_CORE`: the rdma-core release (e.g. 44), when pkg-config cannot tell.
    pub rdma_core: Option<Version>,
}

impl VerbsConfig {
    pub fn from_env() -> VerbsConfig {
        let include = std::env::var_os("UVERBS_ABI_VERBS_INCLUDE")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let rdma_core = std::env::var("UVERBS_ABI_RDMA_CORE")
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| {
                Version::parse(&s)
                    .unwrap_or_else(|| panic!("UVERBS_ABI_RDMA_CORE={s} is not a release like 44"))
            });
        VerbsConfig { include, rdma_core }
    }
}

/// A directory of empty-ish stand-ins that a raw kernel `include/uapi` tree needs (what
/// `make headers_install` would have stripped): `linux/compiler_types.h`, and
/// `linux/compiler.h` (which `linux/if.h`, of the rtnetlink items, includes). It comes
/// after the header directory, so a real one wins.
fn raw_tree_shims(dir: &Path) -> PathBuf {
    let shim = dir.join("shim");
    std::fs::create_dir_all(shim.join("linux")).expect("create shim dir");
    std::fs::write(
        shim.join("linux/compiler_types.h"),
        "/* uverbs ABI check: stand-in for a raw kernel include/uapi tree. */\n\
         #define __user\n#define __force\n#define __iomem\n\
         #define __attribute_const__ __attribute__((__const__))\n",
    )
    .expect("write shim");
    std::fs::write(
        shim.join("linux/compiler.h"),
        "/* uverbs ABI check: stand-in for a raw kernel include/uapi tree. */\n\
         #include <linux/compiler_types.h>\n",
    )
    .expect("write shim");
    shim
}

/// The Linux version of a header tree: `linux/version.h`, else `../../Makefile` of a
/// kernel tree's `include/uapi`.
fn tree_version(dir: &Path) -> Option<(Version, String)> {
    if let Ok(text) = std::fs::read_to_string(dir.join("linux/version.h")) {
        let get = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.trim().parse::<u32>().ok())
        };
        if let (Some(a), Some(b)) = (get("LINUX_VERSION_MAJOR"), get("LINUX_VERSION_PATCHLEVEL")) {
            return Some((Version(a, b), "linux/version.h".into()));
        }
        if let Some(code) = get("LINUX_VERSION_CODE") {
            return Some((
                Version(code >> 16, (code >> 8) & 0xff),
                "linux/version.h".into(),
            ));
        }
    }
    let mk = dir.join("../../Makefile");
    let mk = mk.canonicalize().unwrap_or(mk);
    if let Ok(text) = std::fs::read_to_string(&mk) {
        let get = |name: &str| {
            text.lines()
                .find_map(|l| {
                    l.strip_prefix(name)
                        .and_then(|r| r.trim().strip_prefix('='))
                })
                .and_then(|v| v.trim().parse::<u32>().ok())
        };
        if let (Some(a), Some(b)) = (get("VERSION"), get("PATCHLEVEL")) {
            return Some((Version(a, b), format!("{}", mk.display())));
        }
    }
    None
}

/// Whether an item annotated `since`/`until` should be in headers of version `v`.
fn expected_present(
    since: Option<Version>,
    until: Option<Version>,
    v: Option<Version>,
) -> Option<bool> {
    match v {
        None if since.is_some() || until.is_some() => None,
        None => Some(true),
        Some(v) => Some(since.map_or(true, |s| v >= s) && until.map_or(true, |u| v < u)),
    }
}

fn annotation(since: Option<Version>, until: Option<Version>, what: &str) -> String {
    // rdma-core releases are plain numbers.
    let v = |v: Version| {
        if what == "Linux" {
            v.to_string()
        } else {
            v.0.to_string()
        }
    };
    let (since, until) = (since.map(v), until.map(v));
    match (since, until) {
        (Some(s), Some(u)) => format!("{what} {s} to {u}"),
        (Some(s), None) => format!("since {what} {s}"),
        (None, Some(u)) => format!("until {what} {u}"),
        (None, None) => String::new(),
    }
}

/// A field as the probe saw it.
#[derive(Debug, Clone)]
struct CField {
    offset: usize,
    size: usize,
    /// The C type is the manifest's type.
    ok: bool,
    /// The C type is the manifest's `before=` type.
    ok_before: bool,
    /// The C type, in the manifest's notation.
    found: String,
}

/// Parses the `V`, `H`, `S`, `F`, `X`, `C` lines of a probe.
#[derive(Default, Debug)]
struct ProbeOut {
    version_code: Option<u32>,
    headers: BTreeMap<usize, bool>,
    structs: BTreeMap<usize, (usize, usize)>,
    fields: BTreeMap<(usize, usize), CField>,
    consts: BTreeMap<usize, i128>,
    /// Fields and constants under their former names (`was=`).
    fields_was: BTreeMap<(usize, usize), CField>,
    consts_was: BTreeMap<usize, i128>,
}

fn parse_output(lines: &[String]) -> ProbeOut {
    let mut o = ProbeOut::default();
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        let n = |i: usize| w[i].parse::<usize>().expect("probe output");
        match w.first().copied() {
            Some("V") => o.version_code = w[1].parse().ok(),
            Some("H") => {
                o.headers.insert(n(1), w[2] == "1");
            }
            Some("S") => {
                o.structs.insert(n(1), (n(2), n(3)));
            }
            Some(t @ ("F" | "X" | "W")) => {
                let f = CField {
                    offset: n(3),
                    size: n(4),
                    ok: w[5] == "1",
                    ok_before: w[6] == "1",
                    found: w[7].to_string(),
                };
                if t == "W" {
                    o.fields_was.insert((n(1), n(2)), f);
                } else {
                    o.fields.insert((n(1), n(2)), f);
                }
            }
            Some("C") => {
                o.consts.insert(n(1), w[2].parse().expect("probe constant"));
            }
            Some("D") => {
                o.consts_was
                    .insert(n(1), w[2].parse().expect("probe constant"));
            }
            _ => {}
        }
    }
    o
}

/// The expected Rust `type_name` suffix of a manifest type.
fn rust_type_name(m: &Manifest, ty: &Ty) -> String {
    match ty {
        Ty::Int { .. } => ty.to_string(),
        Ty::Array(e, n) => format!("[{}; {n}]", rust_type_name(m, e)),
        Ty::Struct(c) => {
            let rust = m.struct_by_c(c).map(|s| s.rust.as_str()).unwrap_or(c);
            rust.rsplit("::").next().unwrap_or(rust).to_string()
        }
    }
}

/// `uverbs::raw::abi::verbs::ib_x` and `[u8; 2]` -> last path segments, for comparing.
fn short_type(t: &str) -> String {
    // Strip module paths inside the type name (`[uverbs::raw::abi::x; 2]` -> `[x; 2]`).
    let mut out = String::new();
    let mut word = String::new();
    for ch in t.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == ':' {
            word.push(ch);
        } else {
            out.push_str(word.rsplit("::").next().unwrap_or(&word));
            word.clear();
            out.push(ch);
        }
    }
    out.trim_end().to_string()
}

fn where_c(against: &str) -> String {
    format!("(C headers at {against})")
}

/// Runs the uapi check: every struct, field and constant of the manifest against the
/// kernel headers.
pub fn check_uapi(m: &Manifest, rust: &RustTable, cfg: &UapiConfig, scratch: &Path) -> Outcome {
    let dir = probe::scratch_dir(scratch, "uapi");
    let mut compiler = Compiler::from_env();
    compiler.defines.push("__EXPORTED_HEADERS__".into());
    let against;
    let short;
    // Every header is probed: one the header set lacks comes from the system include
    // path, as the compiler finds it (noted below).
    let allowed = vec![true; m.headers.len()];
    let mut from_system = Vec::new();
    let mut tree_ver = None;
    if let Some(h) = &cfg.headers {
        if !h.join("rdma").is_dir() {
            return Outcome::Broken(format!(
                "UVERBS_ABI_HEADERS={} has no rdma/ directory: point it at a tree laid out like /usr/include \
                 (`make headers_install` output, or a kernel's include/uapi; see abi/headers-6.12.sh)",
                h.display()
            ));
        }
        let h = h.canonicalize().unwrap_or_else(|_| h.clone());
        for hd in &m.headers {
            if !h.join(&hd.name).is_file() {
                from_system.push(hd.name.clone());
            }
        }
        compiler.include.push(h.clone());
        compiler.include.push(raw_tree_shims(&dir));
        tree_ver = tree_version(&h);
        against = format!(
            "{} (UVERBS_ABI_HEADERS, then the system include path)",
            h.display()
        );
        short = h.display().to_string();
    } else {
        against = "the system include path (/usr/include)".to_string();
        short = "/usr/include".to_string();
    }
    let run = probe::run(&compiler, &dir, "uapi_probe", |skip| {
        generate::uapi_probe(m, &allowed, skip)
    });
    let (output, failed) = match run {
        Run::Ran { output, failed } => (output, failed),
        Run::NoCompiler(why) => {
            return Outcome::Skipped(format!("{why}; install a C compiler (gcc)"))
        }
        Run::Failed(why) => return Outcome::Broken(why),
    };
    let out = parse_output(&output);
    let mut r = Report {
        against: against.clone(),
        ..Report::default()
    };
    (r.version, r.version_from) = match (
        cfg.kernel,
        tree_ver,
        cfg.headers.is_some(),
        out.version_code,
    ) {
        (Some(v), ..) => (Some(v), format!("Linux {v} from UVERBS_ABI_KERNEL")),
        (None, Some((v, from)), ..) => (Some(v), format!("Linux {v} from {from}")),
        (None, None, false, Some(code)) => {
            let v = Version(code >> 16, (code >> 8) & 0xff);
            (Some(v), format!("Linux {v} from linux/version.h"))
        }
        _ => (
            None,
            "kernel version unknown: set UVERBS_ABI_KERNEL to judge the `since` annotations"
                .to_string(),
        ),
    };
    let ver = r.version;
    let wc = where_c(&short);
    for name in &from_system {
        r.notes.push(format!(
            "<{name}>: not in the header set; read from the system include path, as the compiler finds it"
        ));
    }

    // Headers.
    let present: Vec<bool> = (0..m.headers.len())
        .map(|i| out.headers.get(&i).copied().unwrap_or(false))
        .collect();
    if !present.iter().any(|p| *p) {
        return Outcome::Skipped(format!(
            "no RDMA uapi headers found in {against} (install linux-libc-dev, or set UVERBS_ABI_HEADERS)"
        ));
    }
    for (i, h) in m.headers.iter().enumerate() {
        if present[i] {
            continue;
        }
        let n_structs = m.structs.iter().filter(|s| s.header == i).count();
        let n_consts = m.consts.iter().filter(|c| c.header == Some(i)).count();
        match expected_present(h.since, None, ver) {
            Some(true) => r.mismatch(
                format!("<{}>", h.name),
                format!("not found {wc}; the mirror has {n_structs} structs and {n_consts} constants from it"),
            ),
            _ => r.notes.push(format!(
                "<{}>: absent in these headers ({}); its {n_structs} structs and {n_consts} constants were not compared",
                h.name,
                annotation(h.since, None, "Linux")
            )),
        }
    }

    // Structs.
    for (si, s) in m.structs.iter().enumerate() {
        if !present[s.header] {
            continue;
        }
        let rs = rust.struct_view(&s.c, &s.rust);
        let Some(rs) = rs else {
            r.mismatch(
                format!("struct {}", s.c),
                format!(
                    "not in the Rust table: abi/generated/rust_table.rs is stale; run `{}`",
                    generate::REGENERATE
                ),
            );
            continue;
        };
        if let Some(msg) = failed.get(&ItemRef::Struct(si)) {
            match expected_present(s.since, None, ver) {
                Some(true) => r.mismatch(
                    format!("struct {}", s.c),
                    format!("missing in the headers {wc}: {msg}"),
                ),
                _ => r.notes.push(format!(
                    "struct {}: absent in these headers ({})",
                    s.c,
                    annotation(s.since, None, "Linux")
                )),
            }
            continue;
        }
        let Some(&(csize, calign)) = out.structs.get(&si) else {
            continue;
        };
        r.structs += 1;
        if csize != rs.size {
            let hint = if csize > rs.size {
                format!(
                    "; struct {} grew from {} to {csize} bytes: add the new fields to {} and to abi/manifest.txt",
                    s.c, rs.size, s.rust
                )
            } else {
                format!("; struct {} shrank from {} to {csize} bytes", s.c, rs.size)
            };
            r.mismatch(
                format!("struct {}", s.c),
                format!(
                    "size expected {} (Rust {}) found {csize} {wc}{hint}",
                    rs.size, s.rust
                ),
            );
        }
        if calign != rs.align {
            r.mismatch(
                format!("struct {}", s.c),
                format!(
                    "alignment expected {} (Rust {}) found {calign} {wc}",
                    rs.align, s.rust
                ),
            );
        }
        // Bytes of the C struct that some manifest field covers.
        let mut covered = vec![false; csize];
        // Fields the headers lack: (Rust offset, size, name), to tell a rename from a
        // layout change below.
        let mut missing_fields: Vec<(usize, usize, String)> = Vec::new();
        let mut mark = |off: usize, size: usize| {
            for b in covered.iter_mut().skip(off).take(size) {
                *b = true;
            }
        };
        for (fi, f) in s.fields.iter().enumerate() {
            let item = format!("{}.{}", s.c, f.name());
            let rf = f
                .rust
                .as_ref()
                .and_then(|n| rs.fields.iter().find(|x| x.name == n));
            if f.rust.is_some() && rf.is_none() {
                r.mismatch(
                    &item,
                    format!(
                        "not in the Rust table: abi/generated/rust_table.rs is stale; run `{}`",
                        generate::REGENERATE
                    ),
                );
                continue;
            }
            if let Some(rf) = rf {
                let want = rust_type_name(m, &f.ty);
                if short_type(rf.ty) != want {
                    r.mismatch(
                        &item,
                        format!(
                            "the Rust field {}::{} is {} but abi/manifest.txt (line {}) says {}",
                            s.rust, rf.name, rf.ty, f.line, f.ty
                        ),
                    );
                }
            }
            let Some(_) = &f.c else {
                // Rust-only field over C padding.
                if let Some(rf) = rf {
                    mark(rf.offset, rf.size);
                }
                continue;
            };
            if let Some(msg) = failed.get(&ItemRef::Field(si, fi)) {
                // A known rename: the same bytes under the former name are API drift,
                // other bytes an ABI break.
                if let (Some((old, since)), Some(w)) = (&f.was, out.fields_was.get(&(si, fi))) {
                    let same =
                        rf.is_some_and(|rf| rf.offset == w.offset && rf.size == w.size) && w.ok;
                    if !same {
                        r.mismatch(
                            &item,
                            format!(
                                "ABI break: under its former name {old} it is at offset {} with size {} and type {} {wc}; the mirror has offset {}, size {}",
                                w.offset,
                                w.size,
                                w.found,
                                rf.map_or(0, |x| x.offset),
                                rf.map_or(0, |x| x.size)
                            ),
                        );
                    } else if ver.is_some_and(|v| v >= *since) {
                        r.mismatch(
                            &item,
                            format!(
                                "named {old} in these headers, which claim Linux {}; it is {} since Linux {since} {wc}",
                                ver.map_or_else(String::new, |v| v.to_string()),
                                f.name()
                            ),
                        );
                    } else {
                        r.notes.push(format!(
                            "{item}: API drift: named {old} in these headers (renamed {} in Linux {since}), same bytes",
                            f.name()
                        ));
                    }
                    r.fields += 1;
                    mark(w.offset, w.size);
                    continue;
                }
                match expected_present(f.since, None, ver) {
                    Some(true) => {
                        if let Some(rf) = rf {
                            missing_fields.push((rf.offset, rf.size, f.name().to_string()));
                        }
                        r.mismatch(
                            &item,
                            format!("missing in the headers {wc} (removed or renamed?): the compiler said: {msg}"),
                        )
                    }
                    _ => r.notes.push(format!(
                        "{item}: absent in these headers ({})",
                        annotation(f.since, None, "Linux")
                    )),
                }
                continue;
            }
            let Some(CField {
                offset: coff,
                size: csz,
                ok,
                ok_before,
                found,
            }) = out.fields.get(&(si, fi)).cloned()
            else {
                continue;
            };
            r.fields += 1;
            if f.flex {
                if !ok {
                    r.mismatch(
                        &item,
                        format!("type expected {}[] found {found} {wc}", f.ty),
                    );
                }
                if coff != csize {
                    r.mismatch(
                        format!("{item}[]"),
                        format!("flexible array member at offset {coff}, expected at the end of the struct ({csize}) {wc}"),
                    );
                }
                if coff != rs.size {
                    r.mismatch(
                        format!("{item}[]"),
                        format!(
                            "offset expected {} (the Rust struct's size) found {coff} {wc}",
                            rs.size
                        ),
                    );
                }
                continue;
            }
            mark(coff, csz);
            // Which C type applies: the `before` one in older headers.
            let before = f.before.as_ref().filter(|(v, _)| match ver {
                Some(ver) => ver < *v,
                None => ok_before && !ok,
            });
            let (want_ty, want_ok) = match before {
                Some((_, bt)) => (bt.clone(), ok_before),
                None => (f.ty.clone(), ok),
            };
            if !want_ok {
                let want = match (&f.c_ty, before) {
                    (CTy::Union, None) => format!("a union of {} bytes", rf.map_or(0, |x| x.size)),
                    (CTy::Other(t), None) => t.to_string(),
                    _ => want_ty.to_string(),
                };
                let rust_ty = rf.map(|x| short_type(x.ty)).unwrap_or_default();
                r.mismatch(
                    &item,
                    format!("type expected {want} (Rust {rust_ty}) found {found} {wc}"),
                );
            }
            if let Some(rf) = rf {
                if rf.offset != coff {
                    r.mismatch(
                        &item,
                        format!("offset expected {} (Rust) found {coff} {wc}", rf.offset),
                    );
                }
                let want_size = match before {
                    Some((_, bt)) => bt.scalar_size().unwrap_or(rf.size),
                    None => rf.size,
                };
                if want_size != csz {
                    r.mismatch(
                        &item,
                        format!("size expected {want_size} (Rust) found {csz} {wc}"),
                    );
                }
            }
        }
        let mut b = 0;
        while b < covered.len() {
            if covered[b] {
                b += 1;
                continue;
            }
            let start = b;
            while b < covered.len() && !covered[b] {
                b += 1;
            }
            // Exactly the bytes of a field the headers lack, in a struct of the same
            // size: a field renamed, the layout unchanged (API drift); anything else
            // changed the layout (an ABI break).
            let kind = match missing_fields
                .iter()
                .find(|(o, n, _)| *o == start && o + n == b)
            {
                Some((_, _, name)) if csize == rs.size => format!(
                    "API drift, not an ABI break: they are exactly the bytes of {name}, which the headers name otherwise \
                     (follow the new name in {} and abi/manifest.txt, with was={name}@X.Y and a deprecated alias); ",
                    s.rust
                ),
                _ => "an ABI break: ".to_string(),
            };
            r.mismatch(
                format!("struct {}", s.c),
                format!(
                    "bytes {start}..{b} of the C struct are covered by no field of abi/manifest.txt {wc}: {kind}\
                     the headers have a field there that the mirror lacks (add it to {} and to abi/manifest.txt; \
                     for implicit C padding list a Rust-only `-` field)",
                    s.rust
                ),
            );
        }
    }

    // Constants and enum members read from the uapi headers.
    for (ci, c) in m.consts.iter().enumerate() {
        if c.src != Src::Uapi || c.header.is_some_and(|h| !present[h]) {
            continue;
        }
        compare_const(
            m,
            rust,
            &mut r,
            ci,
            c,
            &failed,
            (&out.consts, &out.consts_was),
            ver,
            "Linux",
            &wc,
        );
    }
    Outcome::Checked(r)
}

#[allow(clippy::too_many_arguments)]
fn compare_const(
    m: &Manifest,
    rust: &RustTable,
    r: &mut Report,
    ci: usize,
    c: &Const,
    failed: &BTreeMap<ItemRef, String>,
    (values, was_values): (&BTreeMap<usize, i128>, &BTreeMap<usize, i128>),
    ver: Option<Version>,
    what: &str,
    wc: &str,
) {
    let Some(rv) = rust_value(m, rust, c) else {
        r.mismatch(
            &c.c,
            format!(
                "{} has no Rust value: the type lacks this member, or abi/generated/rust_table.rs is stale (run `{}`)",
                c.rust,
                generate::REGENERATE
            ),
        );
        return;
    };
    if let Some(msg) = failed.get(&ItemRef::Const(ci)) {
        // A known rename: the same value under the former name is API drift.
        if let (Some((old, since)), Some(&raw)) = (&c.was, was_values.get(&ci)) {
            let (rv, bits, signed) = rv;
            let cv = super::table::convert(raw, bits, signed);
            r.consts += 1;
            if cv != rv {
                r.mismatch(
                    &c.c,
                    format!(
                        "ABI break: its former name {old} has the value {} {wc}, the mirror {}",
                        show(cv),
                        show(rv)
                    ),
                );
            } else if ver.is_some_and(|v| v >= *since) {
                r.mismatch(
                    &c.c,
                    format!(
                        "named {old} in these headers, but it is {} since {what} {since} {wc}",
                        c.c
                    ),
                );
            } else {
                r.notes.push(format!(
                    "{}: API drift: named {old} in these headers (renamed in {what} {since}), same value",
                    c.c
                ));
            }
            return;
        }
        match expected_present(c.since, c.until, ver) {
            Some(true) => r.mismatch(
                &c.c,
                format!("missing in the headers {wc}: the compiler said: {msg}"),
            ),
            _ => r.notes.push(format!(
                "{}: absent in these headers ({})",
                c.c,
                annotation(c.since, c.until, what)
            )),
        }
        return;
    }
    let Some(&raw) = values.get(&ci) else { return };
    r.consts += 1;
    let (rv, bits, signed) = rv;
    let cv = super::table::convert(raw, bits, signed);
    if cv != raw {
        r.notes.push(format!(
            "{}: the C value {raw} does not fit the Rust type ({}{bits}); compared as {cv}",
            c.c,
            if signed { 'i' } else { 'u' }
        ));
    }
    if cv != rv {
        r.mismatch(
            &c.c,
            format!(
                "value expected {} (Rust {}) found {} {wc}",
                show(rv),
                c.rust,
                show(cv)
            ),
        );
    }
}

fn show(v: i128) -> String {
    if v >= 0x100 {
        format!("{v} ({v:#x})")
    } else {
        v.to_string()
    }
}

/// The Rust value of a constant or enum member, with its type's width and signedness.
fn rust_value(m: &Manifest, rust: &RustTable, c: &Const) -> Option<(i128, u32, bool)> {
    match c.member_of {
        None => rust.value(&c.rust),
        Some(e) => {
            let block = &m.enums[e];
            let name = c.rust.rsplit("::").next()?;
            let x = rust
                .enum_by_path(&block.rust)?
                .members
                .iter()
                .find(|x| x.name == name)?;
            Some((x.value, x.bits, x.signed))
        }
    }
}

/// The rdma-core release of the installed libibverbs (`pkg-config`: 1.14.44.0 -> 44).
fn rdma_core_version() -> Option<(Version, String)> {
    let out = std::process::Command::new("pkg-config")
        .args(["--modversion", "libibverbs"])
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let n: u32 = s.split('.').nth(2)?.parse().ok()?;
    Some((
        Version(n, 0),
        format!("rdma-core {n} from pkg-config libibverbs {s}"),
    ))
}

/// Runs the verbs.h check: the enums and flags of `src/types/mod.rs` against rdma-core's
/// `<infiniband/verbs.h>`, the documented values of the manifest, and the coverage of
/// every known variant and flag.
pub fn check_verbs(m: &Manifest, rust: &RustTable, cfg: &VerbsConfig, scratch: &Path) -> Outcome {
    let dir = probe::scratch_dir(scratch, "verbs");
    let mut compiler = Compiler::from_env();
    let against = match &cfg.include {
        Some(inc) => {
            compiler.include.push(inc.clone());
            format!(
                "{}/infiniband/verbs.h (UVERBS_ABI_VERBS_INCLUDE)",
                inc.display()
            )
        }
        None => "<infiniband/verbs.h> on the system include path (libibverbs-dev)".to_string(),
    };
    let run = probe::run(&compiler, &dir, "verbs_probe", |skip| {
        generate::verbs_probe(m, skip)
    });
    let (output, failed) = match run {
        Run::Ran { output, failed } => (output, failed),
        Run::NoCompiler(why) => {
            return Outcome::Skipped(format!("{why}; install a C compiler (gcc)"))
        }
        Run::Failed(why) => return Outcome::Broken(why),
    };
    let out = parse_output(&output);
    if out.headers.get(&0) != Some(&true) {
        return Outcome::Skipped(format!(
            "{against} not found: install libibverbs-dev (apt-get install libibverbs-dev)"
        ));
    }
    let mut r = Report {
        against: against.clone(),
        ..Report::default()
    };
    (r.version, r.version_from) = match (cfg.rdma_core, rdma_core_version(), &cfg.include) {
        (Some(v), ..) => (
            Some(v),
            format!("rdma-core {} from UVERBS_ABI_RDMA_CORE", v.0),
        ),
        (None, Some((v, from)), None) => (Some(v), from),
        _ => (
            None,
            "rdma-core release unknown: set UVERBS_ABI_RDMA_CORE".to_string(),
        ),
    };
    let wc = format!("(rdma-core {against})");
    let ver = r.version;
    for (ci, c) in m.consts.iter().enumerate() {
        match c.src {
            Src::Verbs => compare_const(
                m,
                rust,
                &mut r,
                ci,
                c,
                &failed,
                (&out.consts, &out.consts_was),
                ver,
                "rdma-core",
                &wc,
            ),
            Src::Doc(doc) => {
                let Some(rv) = rust_value(m, rust, c) else {
                    r.mismatch(&c.c, format!("{} has no Rust value", c.rust));
                    continue;
                };
                r.consts += 1;
                let rv = rv.0;
                if rv != doc {
                    r.mismatch(
                        &c.c,
                        format!(
                            "value expected {} (Rust {}) found {} (documented value, abi/manifest.txt line {})",
                            show(rv),
                            c.rust,
                            show(doc),
                            c.line
                        ),
                    );
                }
            }
            Src::Uapi => {}
        }
    }
    check_enum_coverage(m, rust, &mut r);
    Outcome::Checked(r)
}

/// Every known variant or named flag of each `enum`/`flags` type is in the manifest, and
/// the manifest names no member the type lacks.
pub fn check_enum_coverage(m: &Manifest, rust: &RustTable, r: &mut Report) {
    for e in &m.enums {
        let Some(re) = rust.enum_by_path(&e.rust) else {
            r.mismatch(
                &e.rust,
                format!("not in the Rust table: run `{}`", generate::REGENERATE),
            );
            continue;
        };
        let listed: Vec<&Const> = e.members.iter().map(|&i| &m.consts[i]).collect();
        let re_name = e.rust.rsplit("::").next().unwrap_or(&e.rust);
        let mut bad_c_names = Vec::new();
        for member in &re.members {
            let mine: Vec<&&Const> = listed
                .iter()
                .filter(|c| c.rust.rsplit("::").next() == Some(member.name.as_str()))
                .collect();
            if mine.is_empty() {
                let c_name = member.c_name.unwrap_or("C_NAME");
                r.mismatch(
                    format!("{}::{}", e.rust, member.name),
                    format!(
                        "(= {}) is not in abi/manifest.txt: add `    {} {c_name}` under `{} {}` (line {})",
                        show(member.value),
                        member.name,
                        if e.flags { "flags" } else { "enum" },
                        e.rust,
                        e.line
                    ),
                );
                continue;
            }
            if let Some(cn) = member.c_name {
                if !mine.iter().any(|c| c.c == cn) {
                    let checked: Vec<&str> = mine.iter().map(|c| c.c.as_str()).collect();
                    bad_c_names.push(format!(
                        "{}::{} is {cn} (checked as {})",
                        re_name,
                        member.name,
                        checked.join(", ")
                    ));
                }
            }
        }
        if !bad_c_names.is_empty() {
            r.notes.push(format!(
                "{}::c_name() gives names that abi/manifest.txt does not check (no installed header has them): {}",
                e.rust,
                bad_c_names.join("; ")
            ));
        }
        for c in listed {
            let name = c.rust.rsplit("::").next().unwrap_or("");
            if !re.members.iter().any(|x| x.name == name) {
                r.mismatch(
                    &c.rust,
                    format!(
                        "abi/manifest.txt (line {}) lists it but the Rust type has no such member",
                        c.line
                    ),
                );
            }
        }
    }
}
