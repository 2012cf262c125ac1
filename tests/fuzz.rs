//! A bounded fuzz and property harness over every parser of outside data: the kernel's
//! ioctl/write() responses, RDMA netlink datagrams, sysfs text and sysfs trees, and the
//! command line. It runs in plain `cargo test` (no nightly, no libFuzzer) and under Miri
//! (with a small iteration count, see tests/miri.sh).
//!
//! Each target starts from real captured inputs (tests/fixtures: kernel answers, netlink
//! datagrams, sysfs text; compiled in, so the binary also runs in the VM rig where the
//! source tree is absent), mutates them (truncation, extension, bit flips, splices,
//! interesting integers, structured netlink edits: huge, zero and off-by-one lengths,
//! nested garbage, wrong-size attributes, foreign types and sequence numbers) and also
//! feeds pure random input. Every input runs under `catch_unwind`: a panic fails the
//! test with the target, seed, iteration and the input in hex. Beyond "no panic" each
//! target checks invariants: decoders never read past their input (a short buffer
//! decodes exactly as its zero-padded copy; borrowed slices lie inside the input),
//! enum and text round trips, and differential models of the netlink parsers.
//!
//! Environment:
//! - `UVERBS_FUZZ_ITERS`: executions per target (default 20000; 2000 in the VM rig,
//!   30 under Miri). File-system and process targets run a fraction of it.
//! - `UVERBS_FUZZ_SECS`: optional wall-clock bound per target (seconds, fractional).
//! - `UVERBS_FUZZ_SEED`: the PRNG seed (default fixed, so runs are reproducible; each
//!   target prints the seed it used).
//! - `UVERBS_FUZZ_KNOWN`: ids of findings (tests/regressions.rs) whose invariant is not
//!   asserted, to look past a finding whose fix has not landed yet (e.g. `F2,F3`).
//!
//! Every finding becomes a test in tests/regressions.rs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use uverbs::netlink::nldev::{
    self as nl, huge_decode_dev, parse_chardev, parse_device, TYPE_GET, TYPE_GET_CHARDEV,
};
use uverbs::netlink::{attrs, messages, parse_answer, Step};
use uverbs::raw::abi::netlink::*;
use uverbs::raw::abi::{
    ib_uverbs_ex_query_device_resp, ib_uverbs_gid_entry, ib_uverbs_query_device_resp,
};
use uverbs::sysfs::{parse_dev, parse_guid, parse_node_type, parse_u32};
use uverbs::{
    raw::driver, AtomicCap, DeviceAttr, DeviceCapFlags, Error, EventType, FwVersion, Gid, GidEntry,
    GidType, Guid, LinkLayer, Mtu, NodeType, Op, PhysState, PortAttr, PortCapFlags, PortState,
    Speed, TransportType, Width,
};
use zerocopy::FromBytes;

// The command-line parser of the `uverbs` binary: a self-contained module, compiled in
// here so that it can be fuzzed without spawning processes.
#[allow(dead_code)]
#[path = "../src/bin/uverbs/getopt.rs"]
mod getopt;

// The command's JSON escaper and event line (`uverbs watch --json`), compiled in the same
// way.
#[allow(dead_code)]
#[path = "../src/bin/uverbs/json_line.rs"]
mod json_line;

// ------------------------------------------------------------------ harness

/// splitmix64: small, fast, deterministic, good enough to drive mutations.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `num / den`.
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    /// A length biased to small values, with the occasional large one.
    fn len(&mut self, max: usize) -> usize {
        match self.below(4) {
            0 => self.below(9.min(max + 1)),
            1 => self.below(65.min(max + 1)),
            _ => self.below(max + 1),
        }
    }
    /// A "interesting" integer of `bits` bits: boundaries, small values, random.
    fn interesting(&mut self, bits: u32) -> u64 {
        let max = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let v = match self.below(10) {
            0 => 0,
            1 => 1,
            2 => max,
            3 => max >> 1,
            4 => (max >> 1) + 1,
            5 => self.below(17) as u64,
            6 => max - self.below(4) as u64,
            7 => 1u64 << self.below(bits as usize),
            _ => self.next(),
        };
        v & max
    }
}

fn env_f64(name: &str) -> Option<f64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Executions per target.
fn iters() -> usize {
    if let Some(n) = std::env::var("UVERBS_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return n;
    }
    if cfg!(miri) {
        30
    } else if std::env::var_os("UVERBS_VM_KERNEL").is_some() {
        // Under TCG everything is ~20 times slower; the host run is the thorough one.
        2_000
    } else {
        20_000
    }
}

fn seed() -> u64 {
    std::env::var("UVERBS_FUZZ_SEED")
        .ok()
        .and_then(|v| {
            let v = v.trim();
            match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => v.parse().ok(),
            }
        })
        .unwrap_or(0x7576_6572_6273_2d66) // "uverbs-f"
}

/// Findings listed in `UVERBS_FUZZ_KNOWN` (comma separated ids, see tests/regressions.rs)
/// are not asserted, to look past a finding whose fix has not landed yet.
fn known(id: &str) -> bool {
    std::env::var("UVERBS_FUZZ_KNOWN").is_ok_and(|v| v.split(',').any(|k| k.trim() == id))
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".into()
    }
}

/// What one execution of a target observed, counted per target (shows that the
/// mutations reach both the accepting and the rejecting paths).
type Outcome = &'static str;

/// Runs `check` on `n` inputs made by `gen` (bounded by `UVERBS_FUZZ_SECS` too), each
/// under `catch_unwind`. Panics (fails the test) with the failing input in hex.
/// Returns the number of executions.
fn fuzz(
    name: &str,
    n: usize,
    mut gen: impl FnMut(&mut Rng) -> Vec<u8>,
    check: impl Fn(&[u8]) -> Outcome,
) -> usize {
    let seed = seed() ^ fnv(name.as_bytes());
    let mut rng = Rng::new(seed);
    let deadline = env_f64("UVERBS_FUZZ_SECS").map(|s| Instant::now() + Duration::from_secs_f64(s));
    let start = Instant::now();
    let mut outcomes: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut execs = 0;
    for i in 0..n {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let input = gen(&mut rng);
        match catch_unwind(AssertUnwindSafe(|| check(&input))) {
            Ok(o) => *outcomes.entry(o).or_default() += 1,
            Err(p) => panic!(
                "fuzz target {name}: panic on execution {i} (seed {seed:#x}; rerun with \
                 UVERBS_FUZZ_SEED and the same UVERBS_FUZZ_ITERS): {}\ninput ({} bytes): {}\n\
                 as text: {:?}",
                panic_text(&*p),
                input.len(),
                hex(&input),
                String::from_utf8_lossy(&input)
            ),
        }
        execs += 1;
    }
    let kinds: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!(
        "fuzz target {name}: {execs} executions in {:.2?} (seed {seed:#x}): {}",
        start.elapsed(),
        kinds.join(" ")
    );
    execs
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}

/// True when `inner` lies within `outer` (a decoder handed out a borrowed slice of its
/// input, not of something else).
fn within(outer: &[u8], inner: &[u8]) -> bool {
    let o = outer.as_ptr() as usize;
    let i = inner.as_ptr() as usize;
    inner.is_empty() || (i >= o && i + inner.len() <= o + outer.len())
}

// ------------------------------------------------------------------ corpora

/// The captured fixtures, compiled in (the VM rig copies only the test binaries).
const KERNEL_CAPTURES: &[(&str, &str)] = &[
    ("6.1/rxe0", include_str!("fixtures/kernel/6.1/rxe0.capture")),
    ("6.1/siw0", include_str!("fixtures/kernel/6.1/siw0.capture")),
    (
        "6.12/rxe0",
        include_str!("fixtures/kernel/6.12/rxe0.capture"),
    ),
    (
        "6.12/siw0",
        include_str!("fixtures/kernel/6.12/siw0.capture"),
    ),
];
const NETLINK_CAPTURES: &[&str] = &[
    include_str!("fixtures/netlink/linux-6.1-rxe0-siw0.hex"),
    include_str!("fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.hex"),
    include_str!("fixtures/netlink/linux-6.12-rxe0-siw0.hex"),
    include_str!("fixtures/netlink/linux-6.12-rxe2-siw2-virtio.hex"),
];
const OBSERVED: &[&str] = &[
    include_str!("fixtures/netlink/linux-6.1-rxe0-siw0.observed.txt"),
    include_str!("fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.observed.txt"),
    include_str!("fixtures/netlink/linux-6.12-rxe0-siw0.observed.txt"),
    include_str!("fixtures/netlink/linux-6.12-rxe2-siw2-virtio.observed.txt"),
];

/// The fixture tree, for inputs added since this file was written.
fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `read_dir`, except under Miri, whose isolation forbids it (the compiled-in captures
/// suffice there).
fn read_dir_unless_miri(p: &Path) -> std::io::Result<std::fs::ReadDir> {
    if cfg!(miri) {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    std::fs::read_dir(p)
}

fn capture_lines(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The kernel's captured answers whose key starts with `prefix` (decoded from hex),
/// plus those of any capture added to the tree since this file was written.
fn kernel_corpus(prefix: &str) -> Vec<Vec<u8>> {
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
fn netlink_corpus() -> Vec<Vec<u8>> {
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
fn text_corpus() -> Vec<Vec<u8>> {
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

// ------------------------------------------------------------------ mutators

/// One byte-level mutation of `b`, drawing splice material from `corpus`.
fn mutate_bytes(rng: &mut Rng, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let n = b.len();
    match rng.below(12) {
        // truncate
        0 => b.truncate(rng.below(n + 1)),
        // extend with random, zero or 0xff bytes
        1 => {
            let k = rng.len(256);
            let fill = rng.below(3);
            for _ in 0..k {
                b.push(match fill {
                    0 => 0,
                    1 => 0xff,
                    _ => rng.byte(),
                });
            }
        }
        // flip bits
        2 if n > 0 => {
            for _ in 0..=rng.below(4) {
                let i = rng.below(n);
                b[i] ^= 1 << rng.below(8);
            }
        }
        // an interesting byte
        3 if n > 0 => {
            let i = rng.below(n);
            b[i] = *rng.pick(&[0, 1, 3, 4, 0x7f, 0x80, 0xfe, 0xff]);
        }
        // an interesting u16/u32/u64 at any offset (lengths, counts, sizes)
        4 if n > 0 => {
            let w = *rng.pick(&[2usize, 4, 8]);
            let i = rng.below(n);
            let v = rng.interesting(w as u32 * 8).to_ne_bytes();
            let m = w.min(n - i);
            b[i..i + m].copy_from_slice(&v[..m]);
        }
        // splice a chunk of another input in (insert or overwrite)
        5 | 6 => {
            let other = rng.pick(corpus);
            if !other.is_empty() {
                let s = rng.below(other.len());
                let e = s + rng.below(other.len() - s + 1);
                let at = rng.below(n + 1);
                if rng.chance(1, 2) {
                    b.splice(at..at, other[s..e].iter().copied());
                } else {
                    let end = (at + (e - s)).min(n);
                    b.splice(at..end, other[s..e].iter().copied());
                }
            }
        }
        // delete a chunk
        7 if n > 0 => {
            let s = rng.below(n);
            let e = s + rng.below(n - s + 1);
            b.drain(s..e);
        }
        // duplicate a chunk
        8 if n > 0 => {
            let s = rng.below(n);
            let e = s + rng.below((n - s).min(64) + 1);
            let chunk = b[s..e].to_vec();
            let at = rng.below(b.len() + 1);
            b.splice(at..at, chunk);
        }
        // random length, random content
        9 => {
            *b = {
                let k = rng.len(512);
                rng.bytes(k)
            }
        }
        // swap two bytes
        10 if n > 1 => {
            let (i, j) = (rng.below(n), rng.below(n));
            b.swap(i, j);
        }
        _ => {
            let k = rng.len(16);
            let at = rng.below(n + 1);
            let ins = rng.bytes(k);
            b.splice(at..at, ins);
        }
    }
}

/// An input from the corpus with 0..=4 stacked mutations, or pure random input.
fn from_corpus(rng: &mut Rng, corpus: &[Vec<u8>], max_random: usize) -> Vec<u8> {
    if rng.chance(1, 10) {
        let k = rng.len(max_random);
        return rng.bytes(k);
    }
    let mut b = rng.pick(corpus).clone();
    for _ in 0..rng.below(5) {
        mutate_bytes(rng, &mut b, corpus);
    }
    b
}

/// Text-aware mutations: separators, digits, signs, white space, multi-byte characters.
fn mutate_text(rng: &mut Rng, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    const PIECES: &[&str] = &[
        ":",
        "::",
        " ",
        "\n",
        "\t",
        "\0",
        "+",
        "-",
        "0x",
        "0X",
        "0",
        "f",
        "F",
        "g",
        "ffff",
        "0000",
        "é",
        "𝄞",
        "\u{feff}",
        "99999999999999999999",
        "4294967295",
        "4294967296",
        "-1",
        ".",
        "..",
        "/",
        "Gb/sec",
        "(4X EDR)",
        "\r\n",
    ];
    let n = b.len();
    match rng.below(6) {
        0 | 1 => {
            let p = rng.pick(PIECES).as_bytes();
            let at = rng.below(n + 1);
            b.splice(at..at, p.iter().copied());
        }
        2 if n > 0 => {
            // change the case of a letter, or replace one hex digit by another
            let i = rng.below(n);
            b[i] = if b[i].is_ascii_alphabetic() {
                b[i] ^ 0x20
            } else {
                *rng.pick(b"0123456789abcdefABCDEF:+- ")
            };
        }
        3 => {
            // a long run
            let c = *rng.pick(b"0f: \n");
            let k = rng.below(2000);
            b.extend(std::iter::repeat(c).take(k));
        }
        _ => mutate_bytes(rng, b, corpus),
    }
}

fn text_input(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    if rng.chance(1, 12) {
        let k = rng.len(128);
        return rng.bytes(k);
    }
    let mut b = rng.pick(corpus).clone();
    for _ in 0..rng.below(4) {
        mutate_text(rng, &mut b, corpus);
    }
    b
}

// --------------------------------------------------------- netlink structure

/// A netlink attribute as the fuzzer edits it: `len` overrides the computed length.
#[derive(Clone, Debug)]
struct NlA {
    ty: u16,
    value: Vec<u8>,
    len: Option<u16>,
}

/// A netlink message as the fuzzer edits it.
#[derive(Clone, Debug)]
struct NlM {
    ty: u16,
    flags: u16,
    seq: u32,
    pid: u32,
    /// The payload is either attributes or raw bytes (NLMSG_ERROR/DONE bodies, garbage).
    attrs: Option<Vec<NlA>>,
    raw: Vec<u8>,
    len: Option<u32>,
}

/// Splits a (well-formed) datagram into editable messages, with this file's own walker.
fn nl_split(b: &[u8]) -> Vec<NlM> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + 16 <= b.len() {
        let len = u32::from_ne_bytes(b[off..off + 4].try_into().unwrap()) as usize;
        if len < 16 || off + len > b.len() {
            break;
        }
        let ty = u16::from_ne_bytes(b[off + 4..off + 6].try_into().unwrap());
        let payload = &b[off + 16..off + len];
        let mut m = NlM {
            ty,
            flags: u16::from_ne_bytes(b[off + 6..off + 8].try_into().unwrap()),
            seq: u32::from_ne_bytes(b[off + 8..off + 12].try_into().unwrap()),
            pid: u32::from_ne_bytes(b[off + 12..off + 16].try_into().unwrap()),
            attrs: None,
            raw: payload.to_vec(),
            len: None,
        };
        if ty >= 16 {
            let mut v = Vec::new();
            let mut a = 0;
            let mut ok = true;
            while a + 4 <= payload.len() {
                let alen = u16::from_ne_bytes(payload[a..a + 2].try_into().unwrap()) as usize;
                if alen < 4 || a + alen > payload.len() {
                    ok = false;
                    break;
                }
                v.push(NlA {
                    ty: u16::from_ne_bytes(payload[a + 2..a + 4].try_into().unwrap()),
                    value: payload[a + 4..a + alen].to_vec(),
                    len: None,
                });
                a += (alen + 3) & !3;
            }
            if ok {
                m.attrs = Some(v);
            }
        }
        out.push(m);
        off += (len + 3) & !3;
    }
    out
}

fn nl_attr_bytes(a: &NlA, out: &mut Vec<u8>) {
    let len = a.len.unwrap_or((4 + a.value.len()).min(0xffff) as u16);
    out.extend_from_slice(&len.to_ne_bytes());
    out.extend_from_slice(&a.ty.to_ne_bytes());
    out.extend_from_slice(&a.value);
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

fn nl_join(ms: &[NlM]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in ms {
        let start = out.len();
        out.extend_from_slice(&[0u8; 16]);
        match &m.attrs {
            Some(v) => v.iter().for_each(|a| nl_attr_bytes(a, &mut out)),
            None => out.extend_from_slice(&m.raw),
        }
        let len = m.len.unwrap_or((out.len() - start) as u32);
        out[start..start + 4].copy_from_slice(&len.to_ne_bytes());
        out[start + 4..start + 6].copy_from_slice(&m.ty.to_ne_bytes());
        out[start + 6..start + 8].copy_from_slice(&m.flags.to_ne_bytes());
        out[start + 8..start + 12].copy_from_slice(&m.seq.to_ne_bytes());
        out[start + 12..start + 16].copy_from_slice(&m.pid.to_ne_bytes());
        while out.len() % 4 != 0 {
            out.push(0);
        }
    }
    out
}

const DEVICE_ATTRS: &[u16] = &[
    RDMA_NLDEV_ATTR_DEV_INDEX,
    RDMA_NLDEV_ATTR_DEV_NAME,
    RDMA_NLDEV_ATTR_PORT_INDEX,
    RDMA_NLDEV_ATTR_CAP_FLAGS,
    RDMA_NLDEV_ATTR_FW_VERSION,
    RDMA_NLDEV_ATTR_NODE_GUID,
    RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
    RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
    RDMA_NLDEV_ATTR_DEV_PROTOCOL,
];
const CHARDEV_ATTRS: &[u16] = &[
    RDMA_NLDEV_ATTR_CHARDEV_NAME,
    RDMA_NLDEV_ATTR_CHARDEV_ABI,
    RDMA_NLDEV_ATTR_CHARDEV,
    RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
];

/// A random attribute value: right-sized or not, text with or without NUL, non-UTF-8.
fn nl_value(rng: &mut Rng) -> Vec<u8> {
    match rng.below(9) {
        0 => vec![rng.byte()],
        1 => rng.interesting(32).to_ne_bytes()[..4].to_vec(),
        2 => rng.interesting(64).to_ne_bytes().to_vec(),
        3 => b"rxe0\0".to_vec(),
        4 => {
            let k = rng.len(40);
            let mut v: Vec<u8> = (0..k).map(|_| *rng.pick(b"abcxyz019_./\0")).collect();
            if rng.chance(1, 2) {
                v.push(0);
            }
            v
        }
        5 => vec![0xff, 0xfe, b'a', 0],
        6 => Vec::new(),
        7 => {
            // nested garbage: attributes inside an attribute
            let mut v = Vec::new();
            for _ in 0..rng.below(4) {
                let a = NlA {
                    ty: rng.byte() as u16 | if rng.chance(1, 2) { NLA_F_NESTED } else { 0 },
                    value: {
                        let k = rng.len(12);
                        rng.bytes(k)
                    },
                    len: if rng.chance(1, 3) {
                        Some(rng.interesting(16) as u16)
                    } else {
                        None
                    },
                };
                nl_attr_bytes(&a, &mut v);
            }
            v
        }
        _ => {
            let k = rng.len(24);
            rng.bytes(k)
        }
    }
}

/// One structural edit of a datagram.
fn mutate_netlink(rng: &mut Rng, ms: &mut Vec<NlM>) {
    if ms.is_empty() {
        ms.push(NlM {
            ty: TYPE_GET,
            flags: NLM_F_MULTI,
            seq: 1,
            pid: 0,
            attrs: Some(Vec::new()),
            raw: Vec::new(),
            len: None,
        });
    }
    let mi = rng.below(ms.len());
    let m = &mut ms[mi];
    match rng.below(14) {
        0 => m.len = Some(*rng.pick(&[0, 1, 15, 16, 17, 19, u32::MAX, 0x8000_0000])),
        1 => {
            let cur = nl_join(std::slice::from_ref(m)).len() as u32;
            m.len = Some(if rng.chance(1, 2) {
                cur + 1 + rng.below(8) as u32
            } else {
                cur.saturating_sub(1 + rng.below(8) as u32)
            });
        }
        2 => {
            let any = rng.byte() as u16;
            m.ty = *rng.pick(&[
                NLMSG_NOOP,
                NLMSG_ERROR,
                NLMSG_DONE,
                NLMSG_OVERRUN,
                TYPE_GET,
                TYPE_GET_CHARDEV,
                0,
                0xffff,
                any,
            ]);
        }
        3 => m.flags ^= *rng.pick(&[NLM_F_MULTI, NLM_F_DUMP_INTR, NLM_F_ACK, 0xffff]),
        4 => m.seq = rng.interesting(32) as u32,
        5 => {
            // an NLMSG_ERROR / NLMSG_DONE body: a code, maybe the request after it
            m.attrs = None;
            let any = rng.next() as i32;
            let code: i32 = *rng.pick(&[
                0,
                -1,
                -2,
                -5,
                -19,
                -22,
                -95,
                -4095,
                -4096,
                i32::MIN,
                i32::MAX,
                1,
                any,
            ]);
            m.raw = code.to_ne_bytes().to_vec();
            let extra = *rng.pick(&[0usize, 1, 2, 3, 16]);
            m.raw.extend(rng.bytes(extra));
        }
        _ => {
            let Some(v) = m.attrs.as_mut() else {
                let k = rng.len(64);
                m.raw = rng.bytes(k);
                return;
            };
            let ai = if v.is_empty() { 0 } else { rng.below(v.len()) };
            match rng.below(9) {
                // a huge, zero, short or off-by-one length
                0 if !v.is_empty() => {
                    let cur = 4 + v[ai].value.len() as u16;
                    v[ai].len = Some(*rng.pick(&[
                        0,
                        1,
                        2,
                        3,
                        4,
                        0xffff,
                        0x8000,
                        cur.wrapping_add(1),
                        cur.wrapping_sub(1),
                        cur.wrapping_add(4),
                    ]));
                }
                // a zero-length attribute (header only) or an all-zero header
                1 => v.insert(
                    ai,
                    NlA {
                        ty: *rng.pick(DEVICE_ATTRS),
                        value: Vec::new(),
                        len: if rng.chance(1, 2) { Some(0) } else { None },
                    },
                ),
                // the value of an attribute replaced (wrong size, bad text, nested garbage)
                2 | 3 if !v.is_empty() => v[ai].value = nl_value(rng),
                // a known attribute added, from either message kind
                4 => {
                    let ty = if rng.chance(1, 2) {
                        *rng.pick(DEVICE_ATTRS)
                    } else {
                        *rng.pick(CHARDEV_ATTRS)
                    };
                    v.insert(
                        ai.min(v.len()),
                        NlA {
                            ty,
                            value: nl_value(rng),
                            len: None,
                        },
                    );
                }
                // NESTED / NET_BYTEORDER flags on a type
                5 if !v.is_empty() => {
                    v[ai].ty ^= *rng.pick(&[
                        NLA_F_NESTED,
                        NLA_F_NET_BYTEORDER,
                        NLA_F_NESTED | NLA_F_NET_BYTEORDER,
                    ])
                }
                // drop or duplicate
                6 if !v.is_empty() => {
                    v.remove(ai);
                }
                7 if !v.is_empty() => {
                    let a = v[ai].clone();
                    v.insert(ai, a);
                }
                _ => {
                    if !v.is_empty() {
                        let j = rng.below(v.len());
                        v.swap(ai, j);
                    }
                }
            }
        }
    }
    if rng.chance(1, 12) {
        // a duplicated or extra message
        let c = ms[rng.below(ms.len())].clone();
        let at = rng.below(ms.len() + 1);
        ms.insert(at, c);
    }
}

fn netlink_input(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(10) {
        0 => {
            let k = rng.len(300);
            rng.bytes(k)
        }
        1 | 2 => from_corpus(rng, corpus, 300),
        _ => {
            let mut ms = nl_split(rng.pick(corpus).as_slice());
            for _ in 0..1 + rng.below(4) {
                mutate_netlink(rng, &mut ms);
            }
            let mut b = nl_join(&ms);
            if rng.chance(1, 6) {
                mutate_bytes(rng, &mut b, corpus);
            }
            b
        }
    }
}

// ------------------------------------------------------------------ targets

/// QUERY_PORT responses (ioctl 48 bytes, write() 40 bytes), short, long and garbage.
#[test]
fn fuzz_port_response() {
    let corpus = kernel_corpus("query_port");
    fuzz(
        "port_response",
        iters(),
        |r| from_corpus(r, &corpus, 128),
        check_port,
    );
}

fn check_port(b: &[u8]) -> Outcome {
    let p = PortAttr::from_resp_bytes(b);
    // Never reads past its input: the decoder saw the bytes of `b` and zeros after.
    let mut padded = b[..b.len().min(48)].to_vec();
    padded.resize(48, 0);
    assert_eq!(
        p,
        PortAttr::from_resp_bytes(&padded),
        "differs from the zero-padded input"
    );
    // Independent decoding by offset (struct ib_uverbs_query_port_resp{,_ex}).
    let u8_at = |o: usize| padded[o];
    let u16_at = |o: usize| u16::from_ne_bytes([padded[o], padded[o + 1]]);
    let u32_at = |o: usize| u32::from_ne_bytes(padded[o..o + 4].try_into().unwrap());
    assert_eq!(p.port_cap_flags.bits(), u32_at(0));
    assert_eq!(p.max_msg_sz, u32_at(4));
    assert_eq!(p.gid_tbl_len, u32_at(16));
    assert_eq!(p.pkey_tbl_len, u16_at(20));
    assert_eq!(p.lid, u16_at(22));
    assert_eq!(p.sm_lid, u16_at(24));
    assert_eq!(p.state.as_raw(), u8_at(26));
    assert_eq!(p.max_mtu.as_raw(), u8_at(27));
    assert_eq!(p.active_mtu.as_raw(), u8_at(28));
    assert_eq!(p.active_width.as_raw(), u8_at(34));
    assert_eq!(p.active_speed, u8_at(35));
    assert_eq!(p.phys_state.as_raw(), u8_at(36));
    assert_eq!(p.link_layer.as_raw(), u8_at(37));
    assert_eq!(p.port_cap_flags2.bits(), u16_at(40));
    assert_eq!(p.active_speed_ex, u32_at(44));
    // Derived values are total.
    let _ = p.speed().ib_name();
    if let Some(r) = p.rate_decigbps() {
        assert!(r <= 12 * 2000, "rate {r}");
    }
    let _ = p.max_vls();
    let _ = p.subnet_timeout_duration();
    if let Some(m) = p.active_mtu.bytes() {
        assert!((256..=4096).contains(&m));
    }
    let _ = format!(
        "{} {} {} {} {} {:?}",
        p.state, p.max_mtu, p.active_width, p.phys_state, p.link_layer, p
    );
    assert_eq!(
        p.port_cap_flags.ib_names().count() as u32,
        p.port_cap_flags.bits().count_ones()
    );
    match b.len() {
        0..=39 => "short",
        40..=47 => "legacy",
        48 => "ex",
        _ => "long",
    }
}

/// Extended QUERY_DEVICE responses.
#[test]
fn fuzz_device_response() {
    let corpus = kernel_corpus("query_device");
    fuzz(
        "device_response",
        iters(),
        |r| {
            let mut b = from_corpus(r, &corpus, 400);
            // Aim at the interesting range of response_length now and then.
            if b.len() >= 184 && r.chance(1, 3) {
                let legacy = core::mem::size_of::<ib_uverbs_query_device_resp>() as u32;
                let v = *r.pick(&[
                    0,
                    1,
                    legacy,
                    legacy + 8,
                    legacy + 9,
                    200,
                    303,
                    304,
                    305,
                    u32::MAX,
                ]);
                b[180..184].copy_from_slice(&v.to_ne_bytes());
            }
            b
        },
        check_device,
    );
}

fn check_device(b: &[u8]) -> Outcome {
    const SIZE: usize = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
    const LEGACY: usize = core::mem::size_of::<ib_uverbs_query_device_resp>();
    let fw = FwVersion::new("1.2.3");
    let d = DeviceAttr::from_ex_bytes(b, fw);
    let mut padded = b[..b.len().min(SIZE)].to_vec();
    padded.resize(SIZE, 0);
    assert_eq!(
        d,
        DeviceAttr::from_ex_bytes(&padded, fw),
        "differs from the zero-padded input"
    );
    // Bytes past what the kernel says it filled do not matter.
    let rl = u32::from_ne_bytes(padded[LEGACY + 4..LEGACY + 8].try_into().unwrap()) as usize;
    let filled = rl.clamp(LEGACY + 8, SIZE);
    let mut scrambled = padded.clone();
    for (i, x) in scrambled[filled..].iter_mut().enumerate() {
        *x = (i as u8).wrapping_mul(37) ^ 0xa5;
    }
    assert_eq!(
        d,
        DeviceAttr::from_ex_bytes(&scrambled, fw),
        "bytes past response_length {rl} were used"
    );
    assert_eq!(
        d.node_guid,
        Guid::from_be(u64::from_ne_bytes(padded[8..16].try_into().unwrap()))
    );
    assert_eq!(
        d.node_guid.0,
        u64::from_be_bytes(padded[8..16].try_into().unwrap())
    );
    assert_eq!(d.ex_response_length as usize, rl);
    assert_eq!(d.fw_ver, fw);
    let _ = format!("{d:?} {} {}", d.atomic_cap, d.node_guid);
    // The legacy decoder on the same bytes agrees with the legacy part.
    let base = ib_uverbs_query_device_resp::read_from_bytes(&padded[..LEGACY]).unwrap();
    let l = DeviceAttr::from_legacy(&base, fw);
    assert_eq!(
        (l.max_qp, l.phys_port_cnt, l.max_pkeys, l.node_guid),
        (d.max_qp, d.phys_port_cnt, d.max_pkeys, d.node_guid)
    );
    if b.len() < LEGACY {
        "short"
    } else if rl < LEGACY + 8 {
        "legacy-length"
    } else if rl < SIZE {
        "partial-ex"
    } else {
        "full-ex"
    }
}

/// GID table entries (QUERY_GID_TABLE / QUERY_GID_ENTRY answers).
#[test]
fn fuzz_gid_entries() {
    let corpus = kernel_corpus("gid_table");
    fuzz(
        "gid_entries",
        iters(),
        |r| from_corpus(r, &corpus, 256),
        |b| {
            let mut n = 0;
            for chunk in b.chunks_exact(32) {
                let raw = ib_uverbs_gid_entry::read_from_bytes(chunk).unwrap();
                let e = GidEntry::from_raw(&raw);
                assert_eq!(&e.gid.0[..], &chunk[..16]);
                assert_eq!(e.gid_type.as_raw(), raw.gid_type);
                assert_eq!(
                    (e.index, e.port, e.netdev_ifindex),
                    (raw.gid_index, raw.port_num, raw.netdev_ifindex)
                );
                let text = e.gid.to_string();
                assert_eq!(
                    Gid::parse_sysfs(&text),
                    Some(e.gid),
                    "GID {text} does not parse back"
                );
                assert_eq!(e.gid.to_ipv6().octets(), e.gid.0);
                assert_eq!(
                    (u128::from(e.gid.subnet_prefix()) << 64) | u128::from(e.gid.interface_id()),
                    u128::from_be_bytes(e.gid.0)
                );
                n += 1;
            }
            if n == 0 {
                "none"
            } else if b.len() % 32 == 0 {
                "whole"
            } else {
                "ragged"
            }
        },
    );
}

/// Netlink datagrams through every layer: messages, attributes, the answer walker and
/// the two message parsers, with structural mutations of captured answers.
#[test]
fn fuzz_netlink() {
    let corpus = netlink_corpus();
    fuzz(
        "netlink",
        iters(),
        |r| netlink_input(r, &corpus),
        check_netlink,
    );
}

fn check_netlink(b: &[u8]) -> Outcome {
    let mut ok_msgs = 0usize;
    let mut items = 0usize;
    let mut failed = false;
    let mut last_outcome = "no-message";
    let mut first_seq = None;
    for m in messages(b) {
        assert!(!failed, "the message iterator went on after an error");
        items += 1;
        assert!(
            items <= b.len() / 16 + 1,
            "more messages than the datagram can hold"
        );
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
                failed = true;
                last_outcome = "bad-message";
                continue;
            }
        };
        ok_msgs += 1;
        first_seq.get_or_insert(m.header.nlmsg_seq);
        assert!(within(b, m.payload), "message payload outside the datagram");
        assert_eq!(m.header.nlmsg_len as usize, m.payload.len() + 16);
        check_attrs(m.payload);
        last_outcome = match (parse_device(m.payload), parse_chardev(m.payload)) {
            (Ok(d), _) => {
                assert!(!d.name.is_empty());
                assert!(within(m.payload, d.name.as_bytes()));
                assert!(d
                    .fw_version
                    .map_or(true, |s| within(m.payload, s.as_bytes())));
                assert!(d.protocol.map_or(true, |s| within(m.payload, s.as_bytes())));
                "device"
            }
            (_, Ok(c)) => {
                assert!(
                    !c.name.is_empty() && !c.name.contains('/') && c.name != "." && c.name != ".."
                );
                assert!(within(m.payload, c.name.as_bytes()));
                assert!(c.major < 1 << 12 && c.minor < 1 << 20);
                "chardev"
            }
            (Err(e), Err(f)) => {
                assert!(matches!(e, Error::Protocol { .. }) && matches!(f, Error::Protocol { .. }));
                "unparsable-message"
            }
        };
    }
    // The answer walker, for both requests, with the datagram's own sequence number and
    // another one.
    for seq in [
        first_seq.unwrap_or(1),
        first_seq.unwrap_or(1).wrapping_add(1),
    ] {
        let mut calls = 0;
        let r = parse_answer(b, seq, TYPE_GET, "fuzz", |p| {
            calls += 1;
            assert!(within(b, p));
            parse_device(p).map(drop)
        });
        assert!(calls <= ok_msgs);
        if let Err(e) = &r {
            let _ = e.to_string();
        }
        let mut calls = 0;
        let r2 = parse_answer(b, seq, TYPE_GET_CHARDEV, "fuzz", |p| {
            calls += 1;
            parse_chardev(p).map(drop)
        });
        assert!(calls <= ok_msgs);
        if seq == first_seq.unwrap_or(1) {
            last_outcome = match (&r, &r2) {
                (Ok(Step::Done), _) | (_, Ok(Step::Done))
                    if last_outcome == "device" || last_outcome == "chardev" =>
                {
                    "answer-done"
                }
                (Ok(Step::More), _) => "answer-more",
                _ => last_outcome,
            };
        }
    }
    last_outcome
}

fn check_attrs(payload: &[u8]) {
    let mut failed = false;
    let mut n = 0;
    for a in attrs(payload) {
        assert!(!failed, "the attribute iterator went on after an error");
        n += 1;
        assert!(
            n <= payload.len() / 4 + 1,
            "more attributes than the payload can hold"
        );
        match a {
            Ok(a) => {
                assert!(
                    within(payload, a.value),
                    "attribute value outside the payload"
                );
                assert_eq!(a.kind, a.raw_type & NLA_TYPE_MASK);
            }
            Err(_) => failed = true,
        }
    }
}

/// Device messages built from random attributes, checked against a model of what
/// `parse_device` must answer (not only "no panic": the right answer).
#[test]
fn fuzz_netlink_device_model() {
    fuzz(
        "netlink_device_model",
        iters(),
        |r| {
            let mut attrs = Vec::new();
            // usually the required set, right-sized, then random edits
            if r.chance(3, 4) {
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_INDEX,
                    value: (r.next() as u32).to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_NAME,
                    value: b"mlx5_0\0".to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_PORT_INDEX,
                    value: 2u32.to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_NODE_GUID,
                    value: r.next().to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
                    value: vec![1],
                    len: None,
                });
            }
            for _ in 0..r.below(6) {
                let ty = match r.below(4) {
                    0 => r.byte() as u16,
                    1 => *r.pick(CHARDEV_ATTRS),
                    _ => *r.pick(DEVICE_ATTRS),
                } | if r.chance(1, 8) { NLA_F_NESTED } else { 0 };
                let at = r.below(attrs.len() + 1);
                attrs.insert(
                    at,
                    NlA {
                        ty,
                        value: nl_value(r),
                        len: None,
                    },
                );
            }
            let mut out = Vec::new();
            attrs.iter().for_each(|a| nl_attr_bytes(a, &mut out));
            out
        },
        |b| {
            let got = parse_device(b);
            let want = model_device(b);
            match (&got, &want) {
                (Ok(d), Some(m)) => {
                    assert_eq!(
                        (d.index, d.name, d.port_count, d.node_guid, d.node_type),
                        (m.0, m.1.as_str(), m.2, m.3, m.4)
                    );
                    "ok"
                }
                (Err(_), None) => "err",
                _ => panic!("parse_device gave {got:?}, the model {want:?}"),
            }
        },
    );
}

/// What `parse_device` must return: (index, name, ports, guid, node type), or None.
fn model_device(b: &[u8]) -> Option<(u32, String, u32, u64, u8)> {
    let (mut idx, mut name, mut ports, mut guid, mut nt) = (None, None, None, None, None);
    let mut off = 0;
    while off < b.len() {
        if b.len() - off < 4 {
            return None;
        }
        let len = u16::from_ne_bytes([b[off], b[off + 1]]) as usize;
        let ty = u16::from_ne_bytes([b[off + 2], b[off + 3]]) & NLA_TYPE_MASK;
        if len < 4 || off + len > b.len() {
            return None;
        }
        let v = &b[off + 4..off + len];
        let s = |v: &[u8]| -> Option<String> {
            let end = v.iter().position(|&c| c == 0).unwrap_or(v.len());
            String::from_utf8(v[..end].to_vec()).ok()
        };
        let u32v = |v: &[u8]| -> Option<u32> { Some(u32::from_ne_bytes(v.try_into().ok()?)) };
        let u64v = |v: &[u8]| -> Option<u64> { Some(u64::from_ne_bytes(v.try_into().ok()?)) };
        match ty {
            RDMA_NLDEV_ATTR_DEV_INDEX => idx = Some(u32v(v)?),
            RDMA_NLDEV_ATTR_DEV_NAME => name = Some(s(v)?),
            RDMA_NLDEV_ATTR_PORT_INDEX => ports = Some(u32v(v)?),
            RDMA_NLDEV_ATTR_NODE_GUID => guid = Some(u64v(v)?),
            RDMA_NLDEV_ATTR_DEV_NODE_TYPE => {
                nt = Some(if v.len() == 1 { v[0] } else { return None })
            }
            RDMA_NLDEV_ATTR_SYS_IMAGE_GUID | RDMA_NLDEV_ATTR_CAP_FLAGS => {
                u64v(v)?;
            }
            RDMA_NLDEV_ATTR_FW_VERSION | RDMA_NLDEV_ATTR_DEV_PROTOCOL => {
                s(v)?;
            }
            _ => {}
        }
        off += (len + 3) & !3;
    }
    let name = name?;
    if name.is_empty() {
        return None;
    }
    Some((idx?, name, ports?, guid?, nt?))
}

/// GET_CHARDEV answers from random attributes, against a model.
#[test]
fn fuzz_netlink_chardev_model() {
    fuzz(
        "netlink_chardev_model",
        iters(),
        |r| {
            let mut attrs = Vec::new();
            if r.chance(3, 4) {
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV,
                    value: r.interesting(64).to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV_ABI,
                    value: r.interesting(64).to_ne_bytes().to_vec(),
                    len: None,
                });
                let name: &[u8] = r.pick::<&[u8]>(&[
                    b"uverbs0\0",
                    b"uverbs31",
                    b".\0",
                    b"..",
                    b"a/b\0",
                    b"\0",
                    b"",
                    b"\xff\0",
                ]);
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV_NAME,
                    value: name.to_vec(),
                    len: None,
                });
                if r.chance(1, 2) {
                    let v = if r.chance(1, 2) {
                        r.interesting(32).to_ne_bytes()[..4].to_vec()
                    } else {
                        r.interesting(64).to_ne_bytes().to_vec()
                    };
                    attrs.push(NlA {
                        ty: RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
                        value: v,
                        len: None,
                    });
                }
            }
            for _ in 0..r.below(4) {
                let ty = if r.chance(1, 2) {
                    *r.pick(CHARDEV_ATTRS)
                } else {
                    r.byte() as u16
                };
                let at = r.below(attrs.len() + 1);
                attrs.insert(
                    at,
                    NlA {
                        ty,
                        value: nl_value(r),
                        len: None,
                    },
                );
            }
            let mut out = Vec::new();
            attrs.iter().for_each(|a| nl_attr_bytes(a, &mut out));
            out
        },
        |b| {
            let got = parse_chardev(b);
            let want = model_chardev(b);
            match (&got, &want) {
                (Ok(c), Some(m)) => {
                    assert_eq!(
                        (c.name, c.abi, c.major, c.minor, c.driver_id),
                        (m.0.as_str(), m.1, m.2, m.3, m.4)
                    );
                    "ok"
                }
                (Err(_), None) => "err",
                _ => panic!("parse_chardev gave {got:?}, the model {want:?}"),
            }
        },
    );
}

/// What `parse_chardev` must return: (name, abi, major, minor, driver id), or None.
#[allow(clippy::type_complexity)]
fn model_chardev(b: &[u8]) -> Option<(String, u64, u32, u32, Option<u32>)> {
    let (mut name, mut abi, mut dev, mut drv) = (None, None, None, None);
    let mut off = 0;
    while off < b.len() {
        if b.len() - off < 4 {
            return None;
        }
        let len = u16::from_ne_bytes([b[off], b[off + 1]]) as usize;
        let ty = u16::from_ne_bytes([b[off + 2], b[off + 3]]) & NLA_TYPE_MASK;
        if len < 4 || off + len > b.len() {
            return None;
        }
        let v = &b[off + 4..off + len];
        match ty {
            RDMA_NLDEV_ATTR_CHARDEV_NAME => {
                let end = v.iter().position(|&c| c == 0).unwrap_or(v.len());
                name = Some(String::from_utf8(v[..end].to_vec()).ok()?);
            }
            RDMA_NLDEV_ATTR_CHARDEV_ABI => abi = Some(u64::from_ne_bytes(v.try_into().ok()?)),
            RDMA_NLDEV_ATTR_CHARDEV => dev = Some(u64::from_ne_bytes(v.try_into().ok()?)),
            RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID => {
                let x = match v.len() {
                    4 => u64::from(u32::from_ne_bytes(v.try_into().unwrap())),
                    8 => u64::from_ne_bytes(v.try_into().unwrap()),
                    _ => return None,
                };
                drv = Some(u32::try_from(x).ok()?);
            }
            _ => {}
        }
        off += (len + 3) & !3;
    }
    let name = name?;
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    let d = dev? as u32;
    let (major, minor) = ((d >> 8) & 0xfff, (d & 0xff) | ((d >> 12) & 0xf_ff00));
    Some((name, abi?, major, minor, drv))
}

/// `huge_decode_dev` inverts the kernel's `new_encode_dev` for every major/minor pair
/// the kernel can have, and the request builders parse back.
#[test]
fn fuzz_dev_t_and_requests() {
    fuzz(
        "dev_t_and_requests",
        iters(),
        |r| r.next().to_ne_bytes().to_vec(),
        |b| {
            let x = u64::from_ne_bytes(b.try_into().unwrap());
            let (major, minor) = ((x as u32) & 0xfff, ((x >> 12) as u32) & 0xf_ffff);
            let enc = u64::from((minor & 0xff) | (major << 8) | ((minor & !0xff) << 12));
            assert_eq!(huge_decode_dev(enc), (major, minor));
            let (ma, mi) = huge_decode_dev(x);
            assert!(ma < 1 << 12 && mi < 1 << 20);
            let seq = x as u32;
            let idx = (x >> 32) as u32;
            let req = nl::get_chardev_request(seq, idx);
            let m: Vec<_> = messages(req.bytes()).collect::<Result<_, _>>().unwrap();
            assert_eq!(
                (m.len(), m[0].header.nlmsg_seq, m[0].header.nlmsg_type),
                (1, seq, TYPE_GET_CHARDEV)
            );
            let a: Vec<_> = attrs(m[0].payload).collect::<Result<_, _>>().unwrap();
            assert_eq!(a[0].value, idx.to_ne_bytes());
            let d = nl::get_dump_request(seq);
            let m: Vec<_> = messages(d.bytes()).collect::<Result<_, _>>().unwrap();
            assert_eq!(
                (m.len(), m[0].header.nlmsg_seq, m[0].payload.len()),
                (1, seq, 0)
            );
            "ok"
        },
    );
}

/// Sysfs text through every text parser: GUIDs, GIDs, node types, dev numbers, decimal
/// files, firmware versions, P_Key hex.
#[test]
fn fuzz_sysfs_text() {
    let corpus = text_corpus();
    fuzz(
        "sysfs_text",
        iters(),
        |r| text_input(r, &corpus),
        |b| {
            let s = String::from_utf8_lossy(b);
            let mut accepted = 0;
            if let Some(g) = parse_guid(&s) {
                accepted += 1;
                assert_eq!(parse_guid(&g.to_string()), Some(g));
                assert!(
                    s.trim().eq_ignore_ascii_case(&g.to_string()),
                    "GUID {s:?} accepted as {g}"
                );
            }
            if let Some(g) = Gid::parse_sysfs(&s) {
                accepted += 1;
                assert_eq!(Gid::parse_sysfs(&g.to_string()), Some(g));
                // F4: exactly the kernel's form (groups of 4 hex digits), modulo case:
                // anything else (a sign, missing digits) is not a GID the kernel printed.
                if !known("F4") {
                    assert!(
                        s.trim().eq_ignore_ascii_case(&g.to_string()),
                        "GID {s:?} accepted as {g} (F4)"
                    );
                }
            }
            if let Some(t) = parse_node_type(&s) {
                accepted += 1;
                assert_eq!(NodeType::from_raw(t.as_raw()), t);
            }
            if let Some((ma, mi)) = parse_dev(&s) {
                accepted += 1;
                assert_eq!(parse_dev(&format!("{ma}:{mi}")), Some((ma, mi)));
            }
            if let Some(v) = parse_u32(&s) {
                accepted += 1;
                assert_eq!(parse_u32(&v.to_string()), Some(v));
            }
            let fw = FwVersion::new(&s);
            assert!(fw.as_str().len() <= 63);
            assert!(s.trim().starts_with(fw.as_str()));
            // F2: no white space left at the end after the cut at 63 bytes.
            if !known("F2") {
                assert_eq!(
                    FwVersion::new(fw.as_str()),
                    fw,
                    "FwVersion is not idempotent (F2)"
                );
                assert_eq!(
                    fw.as_str().trim(),
                    fw.as_str(),
                    "FwVersion keeps surrounding white space (F2)"
                );
            }
            assert_eq!(fw.is_empty(), fw.as_str().is_empty());
            let _ = format!("{fw} {fw:?}");
            if accepted > 0 {
                "accepted"
            } else {
                "rejected"
            }
        },
    );
}

/// Round trips of the printed forms: GUIDs, GIDs, dev numbers, firmware versions.
#[test]
fn fuzz_text_round_trips() {
    fuzz(
        "text_round_trips",
        iters(),
        |r| r.bytes(24),
        |b| {
            let g = Guid(u64::from_ne_bytes(b[..8].try_into().unwrap()));
            assert_eq!(parse_guid(&g.to_string()), Some(g));
            assert_eq!(
                parse_guid(&format!(" {}\n", g.to_string().to_uppercase())),
                Some(g)
            );
            assert_eq!(Guid::from_be(g.0.to_be()), g);
            assert_eq!(g.to_bytes(), g.0.to_be_bytes());
            let gid = Gid(b[8..24].try_into().unwrap());
            assert_eq!(Gid::parse_sysfs(&format!("{gid}\n")), Some(gid));
            let (ma, mi) = (
                u32::from_ne_bytes(b[..4].try_into().unwrap()),
                u32::from_ne_bytes(b[4..8].try_into().unwrap()),
            );
            assert_eq!(parse_dev(&format!("{ma}:{mi}\n")), Some((ma, mi)));
            assert_eq!(
                parse_node_type(&format!("{ma}: X\n")),
                Some(NodeType::from_raw(ma))
            );
            // Firmware versions as the providers format them, for every driver id.
            let raw = u64::from_ne_bytes(b[8..16].try_into().unwrap());
            for id in 0..=40 {
                let fw = driver::format_fw_ver(id, raw, "kernel text");
                assert!(fw.as_str().len() <= 63);
                match driver::fw_format(id) {
                    driver::FwFormat::Kernel => assert_eq!(fw.as_str(), "kernel text"),
                    driver::FwFormat::ThreePart { width } => {
                        let parts: Vec<&str> = fw.as_str().split('.').collect();
                        assert_eq!(parts.len(), 3, "{fw}");
                        assert_eq!(parts[0].parse::<u64>().unwrap(), (raw >> 32) & 0xffff);
                        assert_eq!(parts[1].parse::<u64>().unwrap(), (raw >> 16) & 0xffff);
                        assert_eq!(parts[2].parse::<u64>().unwrap(), raw & 0xffff);
                        assert!(parts[2].len() >= width);
                    }
                }
            }
            "ok"
        },
    );
}

/// Firmware version text cut at 63 bytes on a character boundary, for text made of
/// characters of every UTF-8 width.
#[test]
fn fuzz_fw_version_boundaries() {
    fuzz(
        "fw_version_boundaries",
        iters(),
        |r| {
            let mut s = String::new();
            for _ in 0..r.below(80) {
                s.push(*r.pick(&['a', 'é', '€', '𝄞', ' ', '\n', '.']));
            }
            s.into_bytes()
        },
        |b| {
            let s = std::str::from_utf8(b).unwrap();
            let fw = FwVersion::new(s);
            let t = s.trim();
            assert!(t.starts_with(fw.as_str()));
            assert!(fw.as_str().len() <= 63);
            // Cut as late as possible (the next character would not have fit), then
            // trailing white space dropped, so that the result is stable.
            let mut cut = t.len().min(63);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            assert_eq!(fw.as_str(), t[..cut].trim_end());
            assert_eq!(FwVersion::new(fw.as_str()), fw, "stable");
            if t.len() > 63 {
                "cut"
            } else {
                "whole"
            }
        },
    );
}

/// Every enum keeps every raw value: `from_raw(x).as_raw() == x`, exhaustively for the
/// 8-bit ones and over boundaries and random values for the 32-bit ones; names and
/// Display are total; flag sets keep unknown bits.
#[test]
fn enums_round_trip() {
    for x in 0..=u8::MAX {
        assert_eq!(PortState::from_raw(x).as_raw(), x);
        assert_eq!(Mtu::from_raw(x).as_raw(), x);
        assert_eq!(PhysState::from_raw(x).as_raw(), x);
        assert_eq!(LinkLayer::from_raw(x).as_raw(), x);
        assert_eq!(Width::from_raw(x).as_raw(), x);
        let _ = (
            PortState::from_raw(x).devinfo_name(),
            Mtu::from_raw(x).bytes(),
            Width::from_raw(x).lanes(),
        );
        let _ = format!(
            "{} {} {} {} {}",
            PortState::from(x),
            Mtu::from(x),
            PhysState::from(x),
            LinkLayer::from(x),
            Width::from(x)
        );
        assert_eq!(uverbs::PortFlags::from_bits_retain(x).bits(), x);
    }
    let mut r = Rng::new(seed());
    let mut n = 0usize;
    let mut values: Vec<u32> = (0..=1024)
        .chain([u32::MAX, u32::MAX - 1, 1 << 31, 0x7fff_ffff])
        .collect();
    values.extend((0..iters()).map(|_| r.next() as u32));
    for &x in &values {
        assert_eq!(Speed::from_raw(x).as_raw(), x);
        assert_eq!(AtomicCap::from_raw(x).as_raw(), x);
        assert_eq!(NodeType::from_raw(x).as_raw(), x);
        assert_eq!(GidType::from_raw(x).as_raw(), x);
        assert_eq!(EventType::from_raw(x).as_raw(), x);
        let t = TransportType::from_raw(x as i32);
        assert_eq!(t.as_raw(), x as i32);
        let _ = (
            NodeType::from_raw(x).transport(),
            Speed::from_raw(x).lane_rate_decigbps(),
            Speed::from_raw(x).ib_name(),
        );
        let _ = format!(
            "{} {} {} {} {} {}",
            Speed::from(x),
            AtomicCap::from(x),
            NodeType::from(x),
            GidType::from(x),
            EventType::from(x),
            t
        );
        assert_eq!(PortCapFlags::from_bits_retain(x).bits(), x);
        assert_eq!(
            PortCapFlags::from_bits_retain(x).ib_names().count() as u32,
            x.count_ones()
        );
        assert_eq!(
            uverbs::PortCapFlags2::from_bits_retain(x as u16).bits(),
            x as u16
        );
        let wide = (u64::from(x) << 32) | u64::from(x.rotate_left(7));
        assert_eq!(DeviceCapFlags::from_bits_retain(wide).bits(), wide);
        n += 1;
    }
    // Known values have a C name and come back as themselves.
    macro_rules! known {
        ($($t:ty),*) => {$(
            for v in <$t>::KNOWN {
                assert_eq!(<$t>::from_raw(v.as_raw()), *v);
                assert!(v.c_name().is_some(), "{v:?}");
            }
        )*};
    }
    known!(
        PortState,
        Mtu,
        PhysState,
        LinkLayer,
        Width,
        Speed,
        AtomicCap,
        NodeType,
        TransportType,
        GidType,
        EventType
    );
    for x in (i32::MIN..=i32::MIN + 8)
        .chain(-8..=8)
        .chain(i32::MAX - 8..=i32::MAX)
    {
        assert_eq!(TransportType::from_raw(x).as_raw(), x);
    }
    for e in 0..=40u8 {
        let _ = uverbs::verbs::types::subnet_timeout_duration(e);
    }
    let _ = uverbs::verbs::types::subnet_timeout_duration(u8::MAX);
    println!(
        "fuzz target enums_round_trip: {} executions (256 x 8-bit exhaustive, {n} x 32-bit)",
        256 + n
    );
}

/// Errors print, and keep their errno, for every errno number.
#[test]
fn errors_for_every_errno() {
    let mut n = 0;
    for raw in 1..4096 {
        let errno = rustix::io::Errno::from_raw_os_error(raw);
        let op = if raw % 2 == 0 {
            Op::port("QUERY_PORT", "rxe0", 1)
        } else {
            Op::new("open", "")
        };
        let e = Error::from_errno(op.clone(), errno);
        assert_eq!(e.errno(), Some(errno));
        assert_eq!(e.op(), Some(&op));
        let text = e.to_string();
        assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
        n += 1;
    }
    println!("fuzz target errors_for_every_errno: {n} executions");
}

/// The ioctl attribute builder: any sequence of attributes the builders may push gives a
/// header whose length and count match, inline data for 8 bytes or less, pointers into
/// the lent buffers otherwise. (Runs under Miri: no system call.)
#[test]
fn fuzz_attr_builder() {
    use uverbs::raw::attr::IoctlBuf;
    fuzz(
        "attr_builder",
        iters(),
        |r| r.bytes(32),
        |b| {
            let mut r = Rng::new(u64::from_ne_bytes(b[..8].try_into().unwrap()));
            let ins: Vec<Vec<u8>> = (0..4)
                .map(|_| {
                    let n = *r.pick(&[0usize, 1, 7, 8, 9, 16, 300, 65535]);
                    let mut v = vec![r.byte(); n];
                    for x in v.iter_mut().take(16) {
                        *x = r.byte();
                    }
                    v
                })
                .collect();
            let mut outs: Vec<Vec<u8>> = (0..4)
                .map(|_| vec![0u8; *r.pick(&[0usize, 4, 8, 48, 65535])])
                .collect();
            let mut buf: IoctlBuf<'_, 8> =
                IoctlBuf::new(r.next() as u16, r.next() as u16, r.next() as u32);
            let mut expect = Vec::new();
            let mut outs_iter = outs.iter_mut();
            for (k, i) in ins.iter().enumerate() {
                let id = k as u16;
                if r.chance(1, 2) {
                    let v = r.next();
                    buf.const_in(id, v, r.chance(1, 2));
                    expect.push((8u16, Some(v), None));
                } else {
                    buf.ptr_in(id, i, r.chance(1, 2));
                    let inline = (i.len() <= 8).then(|| {
                        let mut w = [0u8; 8];
                        w[..i.len()].copy_from_slice(i);
                        u64::from_ne_bytes(w)
                    });
                    expect.push((
                        i.len() as u16,
                        inline,
                        (i.len() > 8).then_some(i.as_ptr() as u64),
                    ));
                }
                if let Some(o) = outs_iter.next() {
                    if r.chance(1, 2) {
                        let p = o.as_mut_ptr() as u64;
                        let l = o.len() as u16;
                        buf.ptr_out(100 + id, o, true);
                        expect.push((l, None, Some(p)));
                    }
                }
            }
            let h = *buf.header();
            assert_eq!(usize::from(h.num_attrs), expect.len());
            assert_eq!(usize::from(h.length), 24 + 16 * expect.len());
            assert_eq!(buf.attrs().len(), expect.len());
            assert_eq!(buf.to_vec().len(), usize::from(h.length));
            for (a, (len, inline, ptr)) in buf.attrs().iter().zip(&expect) {
                assert_eq!(a.len, *len);
                if let Some(v) = inline {
                    assert_eq!(a.data, *v);
                }
                if let Some(p) = ptr {
                    assert_eq!(a.data, *p);
                }
            }
            "ok"
        },
    );
}

// ------------------------------------------------------------- sysfs trees

/// A sysfs tree written from mutated fixture text, then read by discovery and the GID,
/// P_Key and netdev readers: no panic, typed errors, sane answers.
#[test]
#[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
fn fuzz_sysfs_tree() {
    use std::os::unix::ffi::OsStrExt;
    let corpus = text_corpus();
    // tmpfs when there is one: a disk-backed /tmp makes each tree ~20 times slower.
    let base = match Path::new("/dev/shm") {
        p if p.is_dir() && std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly()) => {
            p.to_path_buf()
        }
        _ => std::env::temp_dir(),
    };
    let root = base.join(format!("uverbs-fuzz-sysfs-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(root.clone());
    let n = (iters() / 100).max(10);
    let execs = fuzz(
        "sysfs_tree",
        n,
        |r| r.bytes(8),
        |seed| {
            let mut r = Rng::new(u64::from_ne_bytes(seed.try_into().unwrap()));
            let _ = std::fs::remove_dir_all(&root);
            let ib = root.join("class/infiniband");
            let verbs = root.join("class/infiniband_verbs");
            std::fs::create_dir_all(&ib).unwrap();
            let text = |r: &mut Rng| text_input(r, &corpus);
            let write = |p: &Path, b: &[u8]| {
                if let Some(d) = p.parent() {
                    let _ = std::fs::create_dir_all(d);
                }
                let _ = std::fs::write(p, b);
            };
            let names: Vec<std::ffi::OsString> = (0..1 + r.below(3))
                .map(|_| {
                    let b: Vec<u8> = match r.below(6) {
                        0 => b"rxe0".to_vec(),
                        1 => b"siw0".to_vec(),
                        2 => b"mlx5_0".to_vec(),
                        3 => vec![b'x', 0xff, 0xfe],
                        4 => vec![b'd'; 200],
                        _ => (0..1 + r.below(12))
                            .map(|_| *r.pick(b"abcrxesiw0123_-."))
                            .collect(),
                    };
                    std::ffi::OsStr::from_bytes(&b).to_owned()
                })
                .collect();
            for (i, name) in names.iter().enumerate() {
                let d = ib.join(name);
                let _ = std::fs::create_dir_all(&d);
                for (f, good) in [
                    ("node_type", "1: CA\n"),
                    ("node_guid", "0200:00ff:fe00:0001\n"),
                    ("sys_image_guid", "0200:00ff:fe00:0001\n"),
                    ("fw_ver", "16.35.2000\n"),
                    ("node_desc", "Software iWARP stack\n"),
                    ("parent", "rxenet0\n"),
                    ("hca_type", "MT4119\n"),
                    ("board_id", "MT_0000000010\n"),
                    ("hw_rev", "0x0\n"),
                ] {
                    match r.below(12) {
                        0 => {}
                        1 => {
                            let _ = std::fs::create_dir_all(d.join(f));
                        }
                        2..=4 => write(&d.join(f), &text(&mut r)),
                        _ => write(&d.join(f), good.as_bytes()),
                    }
                }
                if r.chance(1, 3) {
                    let _ = std::fs::create_dir_all(d.join("device"));
                    let _ = std::os::unix::fs::symlink(
                        *r.pick(&["../../mlx5_core", "/x/bnxt_en", "", "."]),
                        d.join("device/driver"),
                    );
                }
                for port in [
                    r.pick(&["1", "2", "0", "abc", "4294967296", "-1"])
                        .to_string(),
                    "1".into(),
                ] {
                    let p = d.join("ports").join(&port);
                    let _ = std::fs::create_dir_all(p.join("gids"));
                    write(
                        &p.join("link_layer"),
                        r.pick::<&[u8]>(&[b"Ethernet\n", b"InfiniBand\n", b"\xff"]),
                    );
                    for _ in 0..r.below(5) {
                        let idx = r
                            .pick(&["0", "1", "2", "x", "99999999999", "007"])
                            .to_string();
                        write(&p.join("gids").join(&idx), &text(&mut r));
                        if r.chance(2, 3) {
                            write(
                                &p.join("gid_attrs/types").join(&idx),
                                r.pick::<&[u8]>(&[
                                    b"RoCE v2\n",
                                    b"IB/RoCE v1\n",
                                    b"\0",
                                    b"RoCE v3",
                                ]),
                            );
                        }
                        if r.chance(1, 2) {
                            write(
                                &p.join("gid_attrs/ndevs").join(&idx),
                                r.pick::<&[u8]>(&[b"rxenet0\n", b"../x", b"", b"nope"]),
                            );
                        }
                    }
                    for k in 0..r.below(4) {
                        let v: Vec<u8> = if r.chance(3, 4) {
                            format!("0x{:04x}\n", r.next() as u16).into_bytes()
                        } else {
                            text(&mut r)
                        };
                        write(&p.join("pkeys").join(k.to_string()), &v);
                    }
                }
                let u = verbs.join(format!("uverbs{i}"));
                write(&u.join("ibdev"), name.as_bytes());
                write(
                    &u.join("dev"),
                    &if r.chance(2, 3) {
                        format!("231:{}\n", 192 + i).into_bytes()
                    } else {
                        text(&mut r)
                    },
                );
                write(
                    &u.join("abi_version"),
                    &if r.chance(2, 3) {
                        b"2\n".to_vec()
                    } else {
                        text(&mut r)
                    },
                );
            }
            write(&verbs.join("abi_version"), &text(&mut r));
            write(
                &root.join("class/net/rxenet0/ifindex"),
                &if r.chance(1, 2) {
                    b"3\n".to_vec()
                } else {
                    text(&mut r)
                },
            );

            let disc = uverbs::Discovery::new()
                .netlink(false)
                .sysfs_root(&root)
                .dev_root(&root);
            let mut outcome = "devices-err";
            if let Ok(devs) = disc.devices() {
                outcome = "devices-ok";
                assert!(
                    devs.windows(2).all(|w| w[0].name <= w[1].name),
                    "not sorted"
                );
                for d in &devs {
                    assert!(!d.name.is_empty());
                    if let Some(u) = &d.uverbs {
                        assert_eq!(u.path, root.join("infiniband").join(&u.name));
                    }
                    let _ = d.driver_id_guess();
                }
            }
            let _ = disc.core_abi_version();
            for name in &names {
                let Some(name) = name.to_str() else { continue };
                match disc.device(name) {
                    Ok(d) => assert_eq!(d.name, name),
                    Err(e) => assert!(
                        matches!(
                            e,
                            Error::Protocol { .. } | Error::Os { .. } | Error::NoSuchDevice { .. }
                        ),
                        "{e:?}"
                    ),
                }
                for port in 0..3 {
                    if let Ok(g) = uverbs::sysfs::gids(&root, name, port) {
                        assert!(g.windows(2).all(|w| w[0].index <= w[1].index));
                        assert!(g.iter().all(|e| !e.gid.is_zero() && e.port == port));
                    }
                    match uverbs::sysfs::pkeys(&root, name, port) {
                        Ok(p) => assert!(p.len() <= 4),
                        Err(e) => assert!(matches!(e, Error::Protocol { .. }), "{e:?}"),
                    }
                }
            }
            for bad in ["", ".", "..", "a/b", "../class", "x\0y", &"n".repeat(300)] {
                assert!(
                    matches!(disc.device(bad), Err(Error::NoSuchDevice { .. })),
                    "{bad:?}"
                );
            }
            let _ = uverbs::sysfs::ifindex_of(&root, "rxenet0");
            let _ = uverbs::sysfs::netdev_name(&root, 3);
            outcome
        },
    );
    let _ = std::fs::remove_dir_all(&root);
    assert!(execs > 0);
}

// ------------------------------------------------------------- async events

/// Async event descriptors (16 bytes read from the async event file): every length,
/// every type, every element; names, scopes, Display and the JSON line are total, and
/// the JSON line stays one line of valid JSON string syntax whatever the device name.
#[test]
fn fuzz_event_desc() {
    use uverbs::verbs::event::{EventScope, EVENT_DESC_LEN};
    use uverbs::Event;
    let mut corpus = Vec::new();
    for t in EventType::KNOWN
        .iter()
        .map(|t| t.as_raw())
        .chain([21, 255, u32::MAX])
    {
        for el in [0u64, 1, 2, 255, 256, 1 << 32, u64::MAX] {
            let mut b = el.to_ne_bytes().to_vec();
            b.extend_from_slice(&t.to_ne_bytes());
            b.extend_from_slice(&[0; 4]);
            corpus.push(b);
        }
    }
    fuzz(
        "event_desc",
        iters(),
        |r| {
            let mut b = from_corpus(r, &corpus, 40);
            if r.chance(1, 3) {
                // and a device name to print it with, after the descriptor
                let k = r.len(24);
                b.extend((0..k).map(|_| *r.pick(b"rxe0_\"\\\n\t\x01\x7f\xc3\xa9 {}")));
            }
            b
        },
        |b| {
            let desc = &b[..b.len().min(EVENT_DESC_LEN)];
            let name = String::from_utf8_lossy(&b[desc.len()..]);
            let Some(ev) = Event::from_bytes(desc) else {
                assert_ne!(desc.len(), EVENT_DESC_LEN);
                return "short";
            };
            assert_eq!(desc.len(), EVENT_DESC_LEN);
            assert_eq!(
                ev.element,
                u64::from_ne_bytes(desc[..8].try_into().unwrap())
            );
            assert_eq!(
                ev.kind.as_raw(),
                u32::from_ne_bytes(desc[8..12].try_into().unwrap())
            );
            match ev.scope() {
                EventScope::Port(p) => {
                    assert!(p > 0 && Event::is_port_event_type(ev.kind));
                    assert_eq!(ev.port(), Some(p));
                    assert_eq!(u64::from(p), ev.element);
                }
                _ => assert_eq!(ev.port(), None),
            }
            assert_eq!(ev.is_fatal(), ev.kind == EventType::DeviceFatal);
            let shown = ev.to_string();
            assert!(!shown.contains('\n'), "{shown:?}");
            let _ = ev.on(&name).to_string();
            let j = json_line::event(&ev, &name);
            assert!(j.starts_with("{\"device\":\"") && j.ends_with('}'), "{j}");
            assert!(
                !j.contains(|c: char| (c as u32) < 0x20),
                "raw control character in {j:?}"
            );
            assert!(j.contains(&format!("\"type\":{}", ev.kind.as_raw())), "{j}");
            // The device name is one JSON string: unescaped quotes end it nowhere else.
            let body = &j["{\"device\":\"".len()..];
            let mut esc = false;
            let mut end = None;
            for (i, c) in body.char_indices() {
                match (esc, c) {
                    (true, _) => esc = false,
                    (false, '\\') => esc = true,
                    (false, '"') => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.expect("unterminated device string");
            assert!(body[end..].starts_with("\",\"event\":"), "{j}");
            if ev.kind.c_name().is_some() {
                "known-type"
            } else {
                "unknown-type"
            }
        },
    );
}

// ------------------------------------------------------------------- IPoIB

/// IPoIB text: modes, operational states, link addresses; and the MTU checks for any
/// port answer and any interface.
#[test]
fn fuzz_ipoib_text() {
    use uverbs::verbs::ipoib::{
        mtu_warnings, Ipoib, IpoibHwAddr, IpoibMode, OperState, IPOIB_CM_MTU,
    };
    let mut corpus = text_corpus();
    for s in [
        "datagram\n",
        "connected\n",
        "up\n",
        "down",
        "unknown",
        "lowerlayerdown",
        "dormant",
        "testing",
        "notpresent",
        "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1\n",
        "00:00:00:00:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:01",
        "f2:4e:d2:77:3b:18",
    ] {
        // weighted: most inputs start from IPoIB text
        for _ in 0..20 {
            corpus.push(s.as_bytes().to_vec());
        }
    }
    let ports = kernel_corpus("query_port");
    fuzz(
        "ipoib_text",
        iters(),
        |r| {
            let mut b = text_input(r, &corpus);
            b.push(0);
            b.extend(from_corpus(r, &ports, 64));
            b
        },
        |b| {
            let split = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            let s = String::from_utf8_lossy(&b[..split]);
            let port = PortAttr::from_resp_bytes(b.get(split + 1..).unwrap_or(&[]));
            let mode = IpoibMode::parse(&s);
            let _ = mode.to_string();
            let st = OperState::parse(&s);
            assert_eq!(OperState::parse(st.as_str()), st);
            assert_eq!(st.as_str(), s.trim());
            let addr = IpoibHwAddr::parse(&s);
            if let Some(a) = addr {
                assert_eq!(IpoibHwAddr::parse(&a.to_string()), Some(a));
                assert!(
                    s.trim().eq_ignore_ascii_case(&a.to_string()),
                    "{s:?} accepted as {a}"
                );
                assert!(a.qpn() <= 0xff_ffff);
                assert_eq!(&a.gid().0[..], &a.0[4..]);
                assert_eq!(IpoibHwAddr::from_bytes(&a.0), Some(a));
            }
            assert!(IpoibHwAddr::from_bytes(&b[..split.min(19)]).is_none());
            // The MTU checks on an interface made of this text.
            let n = u32::from_ne_bytes(
                b.iter()
                    .chain([0u8; 4].iter())
                    .take(4)
                    .copied()
                    .collect::<Vec<_>>()[..4]
                    .try_into()
                    .unwrap(),
            );
            let ipoib = Ipoib {
                name: "ib0".into(),
                ifindex: n,
                mode: mode.clone(),
                mtu: n,
                pkey: n as u16,
                hw_addr: addr.unwrap_or(IpoibHwAddr([0; 20])),
                device: None,
                port: None,
                operstate: st,
                parent: None,
                umcast: None,
            };
            if let Some(l) = ipoib.mtu_limit(&port) {
                assert!(l <= IPOIB_CM_MTU);
            }
            let _ = (ipoib.pkey_base(), ipoib.is_full_member(), ipoib.is_child());
            for w in mtu_warnings(&ipoib, &port) {
                let t = w.to_string();
                assert!(!t.is_empty());
            }
            match (mode, addr) {
                (IpoibMode::Unknown(_), None) => "unknown",
                (_, Some(_)) => "address",
                _ => "mode",
            }
        },
    );
}

// ------------------------------------------------------- fixture sysfs trees

/// Copies `src` (files, directories, symlinks as they are) to `dst`.
fn copy_tree(src: &Path, dst: &Path) {
    let _ = std::fs::create_dir_all(dst);
    for e in std::fs::read_dir(src).into_iter().flatten().flatten() {
        let to = dst.join(e.file_name());
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            if let Ok(t) = std::fs::read_link(e.path()) {
                let _ = std::os::unix::fs::symlink(t, &to);
            }
        } else if meta.is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            let _ = std::fs::copy(e.path(), &to);
        }
    }
}

/// Every entry under `dir` (not following symlinks).
fn tree_entries(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.clone());
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
            tree_entries(&p, out);
        }
    }
}

/// Removes a scratch directory when dropped, also when a target fails.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch_base() -> PathBuf {
    match Path::new("/dev/shm") {
        p if p.is_dir() && std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly()) => {
            p.to_path_buf()
        }
        _ => std::env::temp_dir(),
    }
}

/// Runs every sysfs reader of the crate on the tree at `root` and checks what it can.
fn read_whole_tree(root: &Path) -> Outcome {
    use uverbs::verbs::ipoib::{ipoib_interfaces, netdevs, Ipoib};
    let list = |d: &str| -> Vec<String> {
        std::fs::read_dir(root.join(d))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect()
    };
    let typed = |e: &Error| {
        matches!(
            e,
            Error::Protocol { .. }
                | Error::Os { .. }
                | Error::NoSuchDevice { .. }
                | Error::BadArgument { .. }
        )
    };
    let disc = uverbs::Discovery::new()
        .netlink(false)
        .sysfs_root(root)
        .dev_root(root);
    let mut outcome = "devices-err";
    match disc.devices() {
        Ok(devs) => {
            outcome = "devices-ok";
            assert!(devs.windows(2).all(|w| w[0].name <= w[1].name));
            for d in &devs {
                let _ = d.driver_id_guess();
            }
        }
        Err(e) => assert!(typed(&e), "{e:?}"),
    }
    let _ = disc.core_abi_version();
    for dev in list("class/infiniband") {
        match disc.device(&dev) {
            Ok(d) => assert_eq!(d.name, dev),
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
        for port in 0..4 {
            if let Ok(g) = uverbs::sysfs::gids(root, &dev, port) {
                assert!(g.iter().all(|e| !e.gid.is_zero() && e.port == port));
            }
            if let Err(e) = uverbs::sysfs::pkeys(root, &dev, port) {
                assert!(typed(&e), "{e:?}");
            }
        }
        match netdevs(root, &dev) {
            Ok(links) => {
                for l in &links {
                    assert_eq!(l.device, dev);
                    assert!(l.port >= 1);
                    let t = l.to_string();
                    assert!(!t.contains('\n'));
                }
            }
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
    }
    match ipoib_interfaces(root) {
        Ok(v) => assert!(v.iter().all(|i| !i.name.is_empty())),
        Err(e) => assert!(typed(&e), "{e:?}"),
    }
    for net in list("class/net") {
        match Ipoib::read(root, &net) {
            Ok(i) => assert_eq!(i.name, net),
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
        let _ = uverbs::sysfs::ifindex_of(root, &net);
    }
    for i in 0..12 {
        let _ = uverbs::sysfs::netdev_name(root, i);
    }
    outcome
}

/// The fixture sysfs trees (tests/fixtures/sysfs/*, tests/fixtures/sysfs-ipoib), copied
/// to a scratch directory and damaged: file contents mutated, entries removed, files
/// turned into directories, symlinks pointing at themselves, their parents or nowhere.
/// Every reader (discovery, GIDs, P_Keys, IPoIB interfaces, netdevs of a port) gives an
/// answer or a typed error, never a panic or a hang.
#[test]
#[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
fn fuzz_fixture_trees() {
    let mut bases: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("sysfs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    let ipoib = fixtures_dir().join("sysfs-ipoib");
    if ipoib.is_dir() {
        bases.push(ipoib);
    }
    bases.sort();
    if bases.is_empty() {
        println!("fuzz target fixture_trees: skipped (the fixture trees are not here)");
        return;
    }
    let corpus = text_corpus();
    let root = scratch_base().join(format!("uverbs-fuzz-trees-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(root.clone());
    let n = (iters() / 100).max(10);
    fuzz(
        "fixture_trees",
        n,
        |r| r.bytes(8),
        |seed| {
            let mut r = Rng::new(u64::from_ne_bytes(seed.try_into().unwrap()));
            let _ = std::fs::remove_dir_all(&root);
            copy_tree(r.pick(&bases).as_path(), &root);
            // A pristine tree now and then: the fixtures themselves must read cleanly.
            if r.chance(1, 8) {
                return read_whole_tree(&root);
            }
            let mut entries = Vec::new();
            tree_entries(&root, &mut entries);
            for _ in 0..1 + r.below(6) {
                if entries.is_empty() {
                    break;
                }
                let p = r.pick(&entries).clone();
                let is_file = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file());
                match r.below(8) {
                    0..=3 if is_file => {
                        let mut b = std::fs::read(&p).unwrap_or_default();
                        for _ in 0..1 + r.below(3) {
                            mutate_text(&mut r, &mut b, &corpus);
                        }
                        let _ = std::fs::write(&p, b);
                    }
                    4 => {
                        let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
                    }
                    5 if is_file => {
                        let _ = std::fs::remove_file(&p);
                        let _ = std::fs::create_dir(&p);
                    }
                    6 => {
                        let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
                        let target = *r.pick(&[".", "..", "../..", "nowhere", "/proc/self/fd/0"]);
                        let target = if target == "." {
                            p.file_name().map(PathBuf::from).unwrap_or_default()
                        } else {
                            PathBuf::from(target)
                        };
                        let _ = std::os::unix::fs::symlink(target, &p);
                    }
                    _ => {
                        // a file with a huge number, or an empty one
                        if is_file {
                            let v: &[u8] = r.pick::<&[u8]>(&[
                                b"",
                                b"99999999999999999999999\n",
                                b"-1\n",
                                b"0x\n",
                            ]);
                            let _ = std::fs::write(&p, v);
                        }
                    }
                }
            }
            read_whole_tree(&root)
        },
    );
    let _ = std::fs::remove_dir_all(&root);
}

// ------------------------------------------------------------- command line

const SHORTS: &str = "d:i:lvh";
const LONGS: &[getopt::LongOpt] = &[
    getopt::opt("ib-dev", true, b'd'),
    getopt::opt("ib-port", true, b'i'),
    getopt::opt("list", false, b'l'),
    getopt::opt("verbose", false, b'v'),
    getopt::opt("json", false, b'j'),
    getopt::opt("help", false, b'h'),
];

fn random_args(r: &mut Rng) -> Vec<Vec<u8>> {
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

fn encode_args(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for a in args {
        out.extend_from_slice(&(a.len() as u16).to_le_bytes());
        out.extend_from_slice(a);
    }
    out
}

fn decode_args(b: &[u8]) -> Vec<Vec<u8>> {
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
    let Some(bin) = std::env::var_os("UVERBS_BIN")
        .map(PathBuf::from)
        .or_else(|| option_env!("CARGO_BIN_EXE_uverbs").map(PathBuf::from))
        .filter(|p| p.exists())
    else {
        println!("fuzz target cli_binary: skipped (no uverbs binary built)");
        return;
    };
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
