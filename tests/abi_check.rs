//! The ABI check: the hand-written mirror (`src/raw/abi`, `src/raw/driver`) and the enums and
//! flags of `src/types/mod.rs` against the real C headers, driven by `abi/manifest.txt`.
//!
//! * `uapi_headers_match_the_mirror`: every struct's size and alignment, every field's
//!   offset, size and type, every constant's value, against the kernel's uapi headers:
//!   the system's (`linux-libc-dev`), or the tree in `UVERBS_ABI_HEADERS` (e.g. the 6.12
//!   headers from `abi/headers-6.12.sh`).
//! * `verbs_h_matches_the_types`: the enums and flags against rdma-core's
//!   `<infiniband/verbs.h>` (`libibverbs-dev`), plus the documented values the manifest
//!   records for what no installed header has.
//! * `kernel_headers_match_the_documented_values` (in the abi-6.12 phase): the values no
//!   installed header has, against the kernel's internal `include/rdma` headers.
//! * `ibta_only_capability_bits_match_opensm`: the two capability bits only the IBTA
//!   names, against OpenSM's `<iba/ib_types.h>` (libopensm-dev).
//! * `planted_*`: the checker itself, on a scratch copy of the installed headers with a
//!   mismatch planted in it.
//!
//! Without a C compiler or headers a check is skipped with a printed reason, and fails
//! when `CI=true`. See `abi/README.md`.

#[path = "../abi/checker/mod.rs"]
mod checker;

mod rust_table {
    use super::checker::table::*;
    include!("../abi/generated/rust_table.rs");
}

use std::path::{Path, PathBuf};

use checker::compare::{self, Outcome, Report, UapiConfig, VerbsConfig};
use checker::manifest::{Manifest, Version};

fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abi-check")
}

/// Runs the uapi check; `None` when it was skipped (outside CI).
fn uapi(cfg: &UapiConfig) -> Option<Report> {
    let m = Manifest::load();
    let t = rust_table::rust_table();
    match compare::check_uapi(&m, &t, cfg, &scratch()) {
        Outcome::Checked(r) => Some(r),
        Outcome::Skipped(why) => {
            checker::skip_or_fail("uapi", &why);
            None
        }
        Outcome::Broken(why) => panic!("ABI check (uapi) could not run: {why}"),
    }
}

fn verbs(cfg: &VerbsConfig) -> Option<Report> {
    let m = Manifest::load();
    let t = rust_table::rust_table();
    match compare::check_verbs(&m, &t, cfg, &scratch()) {
        Outcome::Checked(r) => Some(r),
        Outcome::Skipped(why) => {
            checker::skip_or_fail("verbs.h", &why);
            None
        }
        Outcome::Broken(why) => panic!("ABI check (verbs.h) could not run: {why}"),
    }
}

/// The summary line always shows; the notes with `--nocapture` or on failure.
fn print(what: &str, r: &Report) {
    checker::say(&r.summary(what));
    print!("{}", r.details());
}

#[test]
fn uapi_headers_match_the_mirror() {
    let Some(r) = uapi(&UapiConfig::from_env()) else {
        return;
    };
    print("uapi", &r);
    assert!(
        r.structs > 0 && r.consts > 0,
        "nothing was compared: {}",
        r.summary("uapi")
    );
    assert!(
        r.mismatches.is_empty(),
        "the mirror differs from the kernel headers (the kernel wins: fix src/raw/abi or src/raw/driver, and \
         abi/manifest.txt):\n{}",
        r.details()
    );
}

#[test]
fn verbs_h_matches_the_types() {
    let Some(r) = verbs(&VerbsConfig::from_env()) else {
        return;
    };
    print("verbs.h", &r);
    assert!(
        r.consts > 0,
        "nothing was compared: {}",
        r.summary("verbs.h")
    );
    assert!(
        r.mismatches.is_empty(),
        "src/types/mod.rs differs from rdma-core's verbs.h or the documented values:\n{}",
        r.details()
    );
}

/// The kernel's own values for what no installed header defines: each `doc=` value of
/// the manifest (port physical states, widths, speeds, capability bits) against the
/// enums of the kernel's internal `include/rdma/ib_verbs.h` and `ib_mad.h`, and the
/// crate's derived tables against the kernel's conversion functions: `Mtu::bytes`
/// against `ib_mtu_enum_to_int`, `Width::lanes` against `ib_width_enum_to_int`.
///
/// Those headers are not installed with the uapi ones; Debian's `linux-headers-*-common`
/// has them next to `include/uapi`. So the test runs where `UVERBS_ABI_HEADERS` is such a
/// tree (the abi-6.12 phase of scripts/test-all.sh, with `--include-ignored`) or where
/// `UVERBS_ABI_KERNEL_INCLUDE` names a kernel's `include/`; asked to run without one, it
/// fails and says why.
#[test]
#[ignore = "needs a kernel's include/ tree: UVERBS_ABI_HEADERS=\"$(abi/headers-6.12.sh)\" (the abi-6.12 phase runs it)"]
fn kernel_headers_match_the_documented_values() {
    use checker::kernel::{self, KernelHeaders};
    use checker::manifest::Src;
    use uverbs::{Mtu, Width};

    let dir = kernel::include_dir().unwrap_or_else(|| {
        panic!(
            "ABI check (kernel include/rdma): no kernel include tree: set UVERBS_ABI_HEADERS to a kernel's \
             include/uapi (abi/headers-6.12.sh prints one) or UVERBS_ABI_KERNEL_INCLUDE to its include/"
        )
    });
    let k = KernelHeaders::load(&dir, &["ib_mtu_enum_to_int", "ib_width_enum_to_int"])
        .unwrap_or_else(|e| panic!("ABI check (kernel include/rdma): {e}"));
    let m = Manifest::load();
    let t = rust_table::rust_table();
    let mut bad = Vec::new();
    let mut compared = 0;
    let mut ibta_only = Vec::new();
    for c in m.consts.iter() {
        let Src::Doc(doc) = c.src else { continue };
        let Some(e) = c.member_of else { continue };
        let name = c.rust.rsplit("::").next().unwrap_or("");
        let rust = t
            .enum_by_path(&m.enums[e].rust)
            .and_then(|re| re.members.iter().find(|x| x.name == name))
            .map(|x| x.value);
        match k.value(&c.c) {
            Some(v) => {
                compared += 1;
                if Some(v) != rust || v != doc {
                    bad.push(format!(
                        "{} = {v} in the kernel's headers; Rust {} = {rust:?}, abi/manifest.txt line {} says {doc}",
                        c.c, c.rust, c.line
                    ));
                }
            }
            // Named only by the IBTA (PortInfo:CapabilityMask bits 0 and 13): the kernel
            // has no name for them. Listed in tests/README.md.
            None if c.c.starts_with("IBTA_") => ibta_only.push(c.c.clone()),
            None => bad.push(format!(
                "{} (abi/manifest.txt line {}) is not defined in {}",
                c.c,
                c.line,
                dir.display()
            )),
        }
    }
    // The derived tables, by the kernel's enum names (`IB_MTU_256` has the value of
    // `IBV_MTU_256`, which the verbs.h check compares with `Mtu::Mtu256`).
    for (func, table) in [
        (
            "ib_mtu_enum_to_int",
            Mtu::KNOWN
                .iter()
                .map(|m| (i128::from(m.as_raw()), m.bytes().map(i128::from)))
                .collect::<Vec<_>>(),
        ),
        (
            "ib_width_enum_to_int",
            Width::KNOWN
                .iter()
                .map(|w| (i128::from(w.as_raw()), w.lanes().map(i128::from)))
                .collect(),
        ),
    ] {
        let Some(arms) = k.cases.get(func) else {
            bad.push(format!("{func} is not defined in {}", dir.display()));
            continue;
        };
        for (raw, ours) in table {
            let theirs = arms
                .iter()
                .find(|(label, _)| k.value(label) == Some(raw))
                .map(|(_, &n)| n);
            compared += 1;
            if theirs.is_none() || theirs != ours {
                bad.push(format!(
                    "{func}: the kernel maps raw value {raw} to {theirs:?}, the crate to {ours:?}"
                ));
            }
        }
    }
    checker::say(&format!(
        "ABI check (kernel include/rdma): compared {compared} values against {}: {} mismatches; \
         IBTA-only, not in the kernel: {}",
        dir.display(),
        bad.len(),
        ibta_only.join(", ")
    ));
    assert!(compared >= 25, "too few values compared: {compared}");
    assert!(
        bad.is_empty(),
        "the kernel's headers disagree:\n  {}",
        bad.join("\n  ")
    );
}

/// The two port capability bits that only the IBTA names (PortInfo:CapabilityMask bit 0,
/// reserved, and bit 13, IsCableInfoSupported: the manifest records them as `doc=`, and
/// neither the kernel nor rdma-core defines them) against the subnet manager's table of
/// the same mask: OpenSM's `<iba/ib_types.h>` (Debian's libopensm-dev), whose
/// `IB_PORT_CAP_*` are in network byte order. The other 30 bits are checked against
/// verbs.h and the uapi headers by `verbs_h_matches_the_types`.
#[test]
fn ibta_only_capability_bits_match_opensm() {
    use uverbs::PortCapFlags;
    const PAIRS: &[(&str, PortCapFlags)] = &[
        ("IB_PORT_CAP_RESV0", PortCapFlags::RESERVED0),
        (
            "IB_PORT_CAP_HAS_CABLE_INFO",
            PortCapFlags::IS_CABLE_INFO_SUPPORTED,
        ),
    ];
    let header = Path::new("/usr/include/infiniband/iba/ib_types.h");
    if !header.is_file() {
        checker::skip_or_fail(
            "OpenSM ib_types.h",
            "<infiniband/iba/ib_types.h> not found: apt-get install libopensm-dev",
        );
        return;
    }
    let dir = checker::probe::scratch_dir(&scratch(), "opensm");
    let mut src = String::from("#include <stdio.h>\n#include <iba/ib_types.h>\nint main(void) {\n");
    for (c, _) in PAIRS {
        src.push_str(&format!("  printf(\"%u\\n\", (unsigned)cl_ntoh32({c}));\n"));
    }
    src.push_str("  return 0;\n}\n");
    std::fs::write(dir.join("opensm.c"), src).unwrap();
    let cc = checker::probe::Compiler::from_env().cc;
    let out = std::process::Command::new(&cc)
        .args(["-std=gnu11", "-I/usr/include/infiniband", "-o"])
        .arg(dir.join("opensm"))
        .arg(dir.join("opensm.c"))
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "the OpenSM probe did not compile:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            checker::skip_or_fail("OpenSM ib_types.h", &format!("cannot run `{cc}`: {e}"));
            return;
        }
    }
    let run = std::process::Command::new(dir.join("opensm"))
        .output()
        .expect("run the OpenSM probe");
    let values: Vec<u32> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| l.trim().parse().expect("a number"))
        .collect();
    assert_eq!(values.len(), PAIRS.len(), "the probe printed {values:?}");
    for ((c, ours), theirs) in PAIRS.iter().zip(&values) {
        assert_eq!(
            ours.bits(),
            *theirs,
            "{c} is {theirs:#x} in OpenSM's ib_types.h, the crate's flag is {:#x}",
            ours.bits()
        );
    }
    checker::say(&format!(
        "ABI check (OpenSM ib_types.h): compared {} IBTA-only capability bits: 0 mismatches",
        PAIRS.len()
    ));
}

/// Needs no C compiler: every known variant and named flag is in the manifest.
#[test]
fn every_enum_value_and_flag_is_in_the_manifest() {
    let m = Manifest::load();
    let t = rust_table::rust_table();
    let mut r = Report::default();
    compare::check_enum_coverage(&m, &t, &mut r);
    assert!(r.mismatches.is_empty(), "{}", r.details());
}

// ------------------------------------------------------------------ planted mismatches

/// The directory the system's `<rdma/ib_user_verbs.h>` is in, if any.
fn system_include() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/include");
    p.join("rdma/ib_user_verbs.h").is_file().then_some(p)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A scratch copy (under target/, never in the repository) of the installed uapi headers
/// the manifest names, with `linux/version.h` so the version is known.
fn scratch_headers(name: &str) -> Option<PathBuf> {
    let Some(sys) = system_include() else {
        checker::skip_or_fail(
            "planted mismatches",
            "no <rdma/ib_user_verbs.h> in /usr/include (linux-libc-dev)",
        );
        return None;
    };
    let dir = checker::probe::scratch_dir(&scratch(), name).join("include");
    copy_dir(&sys.join("rdma"), &dir.join("rdma"));
    let m = Manifest::load();
    for h in m
        .headers
        .iter()
        .map(|h| h.name.as_str())
        .chain(["linux/version.h"])
    {
        let from = sys.join(h);
        if from.is_file() && !dir.join(h).exists() {
            std::fs::create_dir_all(dir.join(h).parent().unwrap()).unwrap();
            std::fs::copy(&from, dir.join(h)).unwrap();
        }
    }
    Some(dir)
}

/// Edits the body of `struct name { ... };` in `file` line by line.
fn edit_struct(file: &Path, name: &str, edit: impl Fn(&str) -> Option<String>) {
    let text = std::fs::read_to_string(file).unwrap();
    let start = text
        .find(&format!("struct {name} {{"))
        .unwrap_or_else(|| panic!("no struct {name} in {}", file.display()));
    let end = start + text[start..].find("\n};").unwrap();
    let mut body = String::new();
    let mut changed = false;
    for l in text[start..end].split_inclusive('\n') {
        match edit(l) {
            Some(new) => {
                body.push_str(&new);
                changed = true;
            }
            None => body.push_str(l),
        }
    }
    assert!(changed, "the planted edit matched nothing in struct {name}");
    std::fs::write(file, format!("{}{}{}", &text[..start], body, &text[end..])).unwrap();
}

/// Swaps two whole lines (matched by their trimmed text) of a file.
fn swap_lines(file: &Path, a: &str, b: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<&str> = text.split('\n').collect();
    let ia = lines
        .iter()
        .position(|l| l.trim() == a)
        .unwrap_or_else(|| panic!("no line `{a}` in {}", file.display()));
    let ib = lines
        .iter()
        .position(|l| l.trim() == b)
        .unwrap_or_else(|| panic!("no line `{b}` in {}", file.display()));
    lines.swap(ia, ib);
    std::fs::write(file, lines.join("\n")).unwrap();
}

fn planted(dir: &Path) -> Report {
    let cfg = UapiConfig {
        headers: Some(dir.to_path_buf()),
        kernel: None,
    };
    uapi(&cfg).expect("the planted check ran")
}

fn assert_reported(r: &Report, wanted: &[&str]) {
    let msgs = r.messages();
    for w in wanted {
        assert!(
            msgs.iter().any(|m| m.contains(w)),
            "expected a mismatch containing\n  {w}\nbut the check reported:\n{}",
            r.details()
        );
    }
}

#[test]
fn planted_scratch_copy_is_clean() {
    let Some(dir) = scratch_headers("clean") else {
        return;
    };
    let r = planted(&dir);
    assert!(
        r.mismatches.is_empty(),
        "the unedited copy should pass:\n{}",
        r.details()
    );
    assert!(
        r.version.is_some(),
        "the version comes from the copied linux/version.h"
    );
}

#[test]
fn planted_field_type_change() {
    let Some(dir) = scratch_headers("type") else {
        return;
    };
    edit_struct(
        &dir.join("rdma/ib_user_verbs.h"),
        "ib_uverbs_query_port_resp",
        |l| {
            (l.contains("__u16") && l.contains("pkey_tbl_len;"))
                .then(|| l.replace("__u16", "__u32"))
        },
    );
    let r = planted(&dir);
    assert_reported(
        &r,
        &[
            "ib_uverbs_query_port_resp.pkey_tbl_len: type expected u16 (Rust u16) found u32",
            "ib_uverbs_query_port_resp.pkey_tbl_len: size expected 2 (Rust) found 4",
            "ib_uverbs_query_port_resp.lid: offset expected 22 (Rust) found 24",
            "struct ib_uverbs_query_port_resp: size expected 40 (Rust uverbs::raw::abi::verbs::ib_uverbs_query_port_resp) found 44",
            "struct ib_uverbs_query_port_resp grew from 40 to 44 bytes: add the new fields",
        ],
    );
}

#[test]
fn planted_field_removed() {
    let Some(dir) = scratch_headers("removed") else {
        return;
    };
    edit_struct(
        &dir.join("rdma/ib_user_verbs.h"),
        "ib_uverbs_query_port_resp",
        |l| l.contains("gid_tbl_len;").then(String::new),
    );
    let r = planted(&dir);
    assert_reported(
        &r,
        &[
            "ib_uverbs_query_port_resp.gid_tbl_len: missing in the headers",
            "'struct ib_uverbs_query_port_resp' has no member named 'gid_tbl_len'",
            "ib_uverbs_query_port_resp.pkey_tbl_len: offset expected 20 (Rust) found 16",
            "struct ib_uverbs_query_port_resp shrank from 40 to 36 bytes",
        ],
    );
}

#[test]
fn planted_struct_grew_and_new_field_in_reserved_bytes() {
    let Some(dir) = scratch_headers("grew") else {
        return;
    };
    let f = dir.join("rdma/ib_user_ioctl_verbs.h");
    edit_struct(&f, "ib_uverbs_gid_entry", |l| {
        l.contains("netdev_ifindex;")
            .then(|| format!("{l}\t__u32 new_field;\n\t__u32 reserved_new;\n"))
    });
    edit_struct(
        &dir.join("rdma/ib_user_verbs.h"),
        "ib_uverbs_query_device_resp",
        |l| {
            l.contains("reserved[4];")
                .then(|| "\t__u8  new_cap;\n\t__u8  reserved[3];\n".to_string())
        },
    );
    let r = planted(&dir);
    assert_reported(
        &r,
        &[
            "struct ib_uverbs_gid_entry grew from 32 to 40 bytes: add the new fields to uverbs::raw::abi::ioctl_verbs::ib_uverbs_gid_entry and to abi/manifest.txt",
            "struct ib_uverbs_gid_entry: bytes 32..40 of the C struct are covered by no field of abi/manifest.txt",
            "ib_uverbs_query_device_resp.reserved: type expected u8[4] (Rust [u8; 4]) found u8[3]",
            "ib_uverbs_query_device_resp.reserved: offset expected 172 (Rust) found 173",
            "struct ib_uverbs_query_device_resp: bytes 172..173 of the C struct are covered by no field",
        ],
    );
}

#[test]
fn planted_enum_reordered_and_constant_renamed() {
    let Some(dir) = scratch_headers("enum") else {
        return;
    };
    swap_lines(
        &dir.join("rdma/ib_user_ioctl_verbs.h"),
        "RDMA_DRIVER_MLX5,",
        "RDMA_DRIVER_MLX4,",
    );
    let cmds = dir.join("rdma/ib_user_ioctl_cmds.h");
    let text = std::fs::read_to_string(&cmds).unwrap();
    std::fs::write(
        &cmds,
        text.replace(
            "UVERBS_METHOD_QUERY_GID_TABLE,",
            "UVERBS_METHOD_QUERY_GID_TABLE_V2,",
        ),
    )
    .unwrap();
    let r = planted(&dir);
    assert_reported(
        &r,
        &[
            "RDMA_DRIVER_MLX5: value expected 1 (Rust uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX5) found 2",
            "RDMA_DRIVER_MLX4: value expected 2 (Rust uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX4) found 1",
            "UVERBS_METHOD_QUERY_GID_TABLE: missing in the headers",
        ],
    );
}

#[test]
fn planted_since_annotations_follow_the_version() {
    // The 6.1 headers judged as if they were 6.12: what 6.2..6.12 added must be there.
    let Some(sys) = system_include() else {
        checker::skip_or_fail(
            "planted mismatches",
            "no <rdma/ib_user_verbs.h> in /usr/include",
        );
        return;
    };
    let Some(r) = uapi(&UapiConfig {
        headers: Some(sys.clone()),
        kernel: None,
    }) else {
        return;
    };
    if r.version.is_some_and(|v| v >= Version(6, 7)) {
        println!(
            "the system headers are {:?}: nothing older to judge",
            r.version
        );
        return;
    }
    assert!(r.mismatches.is_empty(), "{}", r.details());
    assert!(
        r.notes.iter().any(|n| n.contains("ib_uverbs_query_port_resp_ex.active_speed_ex: absent in these headers (since Linux 6.7)")),
        "{}",
        r.details()
    );
    let r = uapi(&UapiConfig {
        headers: Some(sys),
        kernel: Some(Version(6, 12)),
    })
    .unwrap();
    assert_reported(
        &r,
        &[
            "ib_uverbs_query_port_resp_ex.active_speed_ex: missing in the headers",
            "ib_uverbs_query_port_resp_ex.reserved: type expected u8[2] (Rust [u8; 2]) found u8[6]",
        ],
    );
}

#[test]
fn planted_verbs_enum_reordered() {
    let Some(verbs_h) = ["/usr/include/infiniband/verbs.h"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        checker::skip_or_fail(
            "planted mismatches",
            "no <infiniband/verbs.h> (libibverbs-dev)",
        );
        return;
    };
    let dir = checker::probe::scratch_dir(&scratch(), "verbs-planted").join("include");
    copy_dir(verbs_h.parent().unwrap(), &dir.join("infiniband"));
    swap_lines(
        &dir.join("infiniband/verbs.h"),
        "IBV_EVENT_PORT_ACTIVE,",
        "IBV_EVENT_PORT_ERR,",
    );
    let cfg = VerbsConfig {
        include: Some(dir),
        rdma_core: Some(Version(44, 0)),
    };
    let r = verbs(&cfg).expect("the planted verbs.h check ran");
    assert_reported(
        &r,
        &[
            "IBV_EVENT_PORT_ACTIVE: value expected 9 (Rust uverbs::types::EventType::PortActive) found 10",
            "IBV_EVENT_PORT_ERR: value expected 10 (Rust uverbs::types::EventType::PortErr) found 9",
        ],
    );
}

#[test]
fn planted_rename_is_api_drift_and_moved_bytes_an_abi_break() {
    let Some(dir) = scratch_headers("drift") else {
        return;
    };
    // An unannotated rename (same bytes): reported as API drift, not an ABI break.
    edit_struct(
        &dir.join("rdma/ib_user_ioctl_verbs.h"),
        "ib_uverbs_gid_entry",
        |l| {
            l.contains("gid_type;")
                .then(|| l.replace("gid_type;", "gid_kind;"))
        },
    );
    // A renamed member (was= in the manifest) whose bytes moved: an ABI break.
    edit_struct(
        &dir.join("rdma/efa-abi.h"),
        "efa_ibv_alloc_ucontext_cmd",
        |l| {
            l.contains("comp_mask;")
                .then(|| "\t__u16 pad;\n\t__u16 comp_mask;\n".to_string())
        },
    );
    let r = planted(&dir);
    assert_reported(
        &r,
        &[
            "ib_uverbs_gid_entry.gid_type: missing in the headers",
            "struct ib_uverbs_gid_entry: bytes 24..28 of the C struct are covered by no field of abi/manifest.txt (C headers at",
            "API drift, not an ABI break: they are exactly the bytes of gid_type",
            "efa_ibv_alloc_ucontext_cmd.supported_caps: ABI break: under its former name comp_mask it is at offset 2 with size 2",
        ],
    );
    assert!(
        !r.messages()
            .iter()
            .any(|m| m.contains("gid_entry") && m.contains(": an ABI break: ")),
        "a rename is not an ABI break:\n{}",
        r.details()
    );
}

#[test]
fn planted_header_the_set_lacks_comes_from_the_system_path() {
    let Some(dir) = scratch_headers("lacks") else {
        return;
    };
    std::fs::remove_file(dir.join("linux/netlink.h")).unwrap();
    let r = planted(&dir);
    assert!(r.mismatches.is_empty(), "{}", r.details());
    assert!(
        r.notes.iter().any(|n| n.contains(
            "<linux/netlink.h>: not in the header set; read from the system include path"
        )),
        "{}",
        r.details()
    );
    assert_eq!(
        r.structs,
        Manifest::load().structs.len(),
        "every struct compared"
    );
}

/// The kernel headers rdma-core 64.0 ships, from the cached peer build
/// (tests/vm/rdma-core.sh), with the Linux release they were synced from (tests/vm/peers).
fn rdma_core_64_headers() -> Option<(PathBuf, Version)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("bash")
        .arg(root.join("tests/vm/rdma-core.sh"))
        .args(["--cached", "64.0"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let peers = std::fs::read_to_string(root.join("tests/vm/peers")).unwrap();
    let kernel = peers
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"64.0")).then(|| w.get(2).and_then(|v| Version::parse(v)))
        })
        .flatten()
        .expect("tests/vm/peers gives the kernel release of 64.0's headers");
    match out {
        Some(o) => {
            let dir =
                PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("kernel-headers");
            Some((dir, kernel))
        }
        None => {
            checker::skip_or_fail(
                "rdma-core 64.0 headers",
                "rdma-core 64.0 is not built (run tests/vm/rdma-core.sh 64.0)",
            );
            None
        }
    }
}

#[test]
fn planted_mutations_of_rdma_core_64_headers_are_caught() {
    // The third header set: a scratch copy of rdma-core 64.0's kernel-headers/, judged
    // as Linux 7.2 (see abi/README.md), passes unedited and fails once planted.
    let Some((set, kernel)) = rdma_core_64_headers() else {
        return;
    };
    let dir = checker::probe::scratch_dir(&scratch(), "rdma-core-64").join("include");
    copy_dir(&set, &dir);
    let check = |dir: &Path| {
        uapi(&UapiConfig {
            headers: Some(dir.to_path_buf()),
            kernel: Some(kernel),
        })
        .expect("the check ran")
    };
    let r = check(&dir);
    assert!(r.mismatches.is_empty(), "unedited:\n{}", r.details());
    edit_struct(
        &dir.join("rdma/ib_user_ioctl_verbs.h"),
        "ib_uverbs_query_port_resp_ex",
        |l| {
            l.contains("active_speed_ex;")
                .then(|| l.replace("__u32", "__u16").replace(';', ";\n\t__u16 pad;"))
        },
    );
    let cmds = dir.join("rdma/ib_user_ioctl_cmds.h");
    let text = std::fs::read_to_string(&cmds).unwrap();
    std::fs::write(
        &cmds,
        text.replace(
            "\tUVERBS_METHOD_QUERY_GID_ENTRY,\n\tUVERBS_METHOD_QUERY_PORT_SPEED,",
            "\tUVERBS_METHOD_QUERY_GID_ENTRY,\n\tUVERBS_METHOD_NEW_ONE,\n\tUVERBS_METHOD_QUERY_PORT_SPEED,",
        ),
    )
    .unwrap();
    let r = check(&dir);
    assert_reported(
        &r,
        &[
            "ib_uverbs_query_port_resp_ex.active_speed_ex: type expected u32 (Rust u32) found u16",
            "UVERBS_METHOD_QUERY_PORT_SPEED: value expected 7 (Rust uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_PORT_SPEED) found 8",
        ],
    );
}
