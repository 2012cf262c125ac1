//! The captured inputs every target starts from: kernel answers, netlink datagrams and
//! sysfs text observed in the VM rig (tests/fixtures), compiled in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use uverbs::raw::abi::ib_uverbs_gid_entry;
use uverbs::GidEntry;
use zerocopy::FromBytes;

use crate::common::unhex;

/// The captured fixtures, compiled in (the VM rig copies only the test binaries).
pub(crate) const KERNEL_CAPTURES: &[(&str, &str)] = &[
    (
        "6.1/rxe0",
        include_str!("../fixtures/kernel/6.1/rxe0.capture"),
    ),
    (
        "6.1/siw0",
        include_str!("../fixtures/kernel/6.1/siw0.capture"),
    ),
    (
        "6.12/rxe0",
        include_str!("../fixtures/kernel/6.12/rxe0.capture"),
    ),
    (
        "6.12/siw0",
        include_str!("../fixtures/kernel/6.12/siw0.capture"),
    ),
];
pub(crate) const NETLINK_CAPTURES: &[&str] = &[
    include_str!("../fixtures/netlink/linux-6.1-rxe0-siw0.hex"),
    include_str!("../fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.hex"),
    include_str!("../fixtures/netlink/linux-6.12-rxe0-siw0.hex"),
    include_str!("../fixtures/netlink/linux-6.12-rxe2-siw2-virtio.hex"),
];
pub(crate) const OBSERVED: &[&str] = &[
    include_str!("../fixtures/netlink/linux-6.1-rxe0-siw0.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.12-rxe0-siw0.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.12-rxe2-siw2-virtio.observed.txt"),
];

/// The fixture tree, for inputs added since this file was written.
pub(crate) fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `read_dir`, except under Miri, whose isolation forbids it (the compiled-in captures
/// suffice there).
pub(crate) fn read_dir_unless_miri(p: &Path) -> std::io::Result<std::fs::ReadDir> {
    if cfg!(miri) {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    std::fs::read_dir(p)
}

pub(crate) fn capture_lines(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The kernel's captured answers whose key starts with `prefix` (decoded from hex),
/// plus those of any capture added to the tree since this file was written.
pub(crate) fn kernel_corpus(prefix: &str) -> Vec<Vec<u8>> {
    let mut texts: Vec<String> = KERNEL_CAPTURES.iter().map(|(_, t)| t.to_string()).collect();
    if let Ok(rd) = read_dir_unless_miri(&fixtures_dir().join("kernel")) {
        for k in rd.flatten() {
            for f in std::fs::read_dir(k.path()).into_iter().flatten().flatten() {
                if f.path().extension().is_some_and(|e| e == "capture") {
                    if let Ok(t) = std::fs::read_to_string(f.path()) {
                        texts.push(t);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for t in texts {
        for (k, v) in capture_lines(&t) {
            if k.starts_with(prefix) && !v.is_empty() {
                out.push(unhex(&v));
            }
        }
    }
    out.sort();
    out.dedup();
    assert!(!out.is_empty(), "no captured '{prefix}' answers");
    out
}

/// Every captured netlink datagram.
pub(crate) fn netlink_corpus() -> Vec<Vec<u8>> {
    let mut texts: Vec<String> = NETLINK_CAPTURES.iter().map(|t| t.to_string()).collect();
    if let Ok(rd) = read_dir_unless_miri(&fixtures_dir().join("netlink")) {
        for f in rd.flatten() {
            if f.path().extension().is_some_and(|e| e == "hex") {
                if let Ok(t) = std::fs::read_to_string(f.path()) {
                    texts.push(t);
                }
            }
        }
    }
    let mut out = Vec::new();
    for t in texts {
        for l in t.lines() {
            if let Some(h) = l.split_whitespace().last() {
                if h.len() >= 32 && h.bytes().all(|c| c.is_ascii_hexdigit()) {
                    out.push(unhex(h));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    assert!(out.len() >= 8, "too few netlink captures");
    out
}

/// Sysfs text: every `= [value]` the VM showed, the fixture trees' files, GIDs printed
/// from the captured GID tables, and a few hand-written shapes.
pub(crate) fn text_corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for t in OBSERVED {
        for l in t.lines() {
            if let Some((_, v)) = l.split_once(" = [") {
                out.push(v.trim_end_matches(']').as_bytes().to_vec());
            }
        }
    }
    fn walk(p: &Path, out: &mut Vec<Vec<u8>>) {
        for e in read_dir_unless_miri(p).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                if b.len() < 4096 {
                    out.push(b);
                }
            }
        }
    }
    walk(&fixtures_dir().join("sysfs"), &mut out);
    for blob in kernel_corpus("gid_table") {
        for chunk in blob.chunks_exact(32) {
            let e = ib_uverbs_gid_entry::read_from_bytes(chunk).unwrap();
            out.push(format!("{}\n", GidEntry::from_raw(&e).gid).into_bytes());
        }
    }
    for s in [
        "0x7fff",
        "0xffff\n",
        "0x0000",
        "ffff",
        "1: CA\n",
        "4: RNIC",
        "231:192\n",
        "511:0",
        "6\n",
        "2",
        "16.35.2000",
        "1.0.0",
        "fe80:0000:0000:0000:0200:00ff:fe00:0000\n",
        "0000:0000:0000:0000:0000:ffff:a9fe:0101",
        "ec0d:9a03:0078:6c2c",
        "RoCE v2",
        "IB/RoCE v1",
        "Ethernet",
        "InfiniBand",
        "2.5 Gb/sec (1X SDR)",
        "100 Gb/sec (4X EDR)",
        "4: ACTIVE",
        "5: LinkUp",
    ] {
        out.push(s.as_bytes().to_vec());
    }
    out.sort();
    out.dedup();
    out
}
