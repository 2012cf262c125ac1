//! The harness: a deterministic PRNG, the run loop that catches panics and reports the
//! failing input, the environment knobs, and the byte and text mutators.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use crate::common::{hex, panic_text};

/// splitmix64: small, fast, deterministic, good enough to drive mutations.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `num / den`.
    pub(crate) fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
    pub(crate) fn byte(&mut self) -> u8 {
        self.next() as u8
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
    pub(crate) fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    /// A length biased to small values, with the occasional large one.
    pub(crate) fn len(&mut self, max: usize) -> usize {
        match self.below(4) {
            0 => self.below(9.min(max + 1)),
            1 => self.below(65.min(max + 1)),
            _ => self.below(max + 1),
        }
    }
    /// A "interesting" integer of `bits` bits: boundaries, small values, random.
    pub(crate) fn interesting(&mut self, bits: u32) -> u64 {
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

pub(crate) fn env_f64(name: &str) -> Option<f64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Executions per target.
pub(crate) fn iters() -> usize {
    if let Ok(v) = std::env::var("UVERBS_FUZZ_ITERS") {
        // A count that runs nothing would let every target pass without fuzzing.
        match v.trim().parse() {
            Ok(n) if n > 0 => return n,
            _ => panic!("UVERBS_FUZZ_ITERS={v:?}: a positive number of executions is needed"),
        }
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

pub(crate) fn seed() -> u64 {
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

// `known` and `Outcome` live beside the checks the coverage-guided targets
// share (checks.rs, which includes nothing of this file).
pub(crate) use crate::checks::{known, Outcome};

/// Runs `check` on `n` inputs made by `gen` (bounded by `UVERBS_FUZZ_SECS` too), each
/// under `catch_unwind`. Panics (fails the test) with the failing input in hex.
/// Returns the number of executions.
pub(crate) fn fuzz(
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
    assert!(n > 0, "fuzz target {name}: asked to run 0 executions");
    for i in 0..n {
        // The wall-clock bound stops a run, never before its first execution.
        if i > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let input = gen(&mut rng);
        let o = run_one(&input, &check, || {
            format!(
                "fuzz target {name}: panic on execution {i} (seed {seed:#x}; rerun with \
                 UVERBS_FUZZ_SEED and the same UVERBS_FUZZ_ITERS)"
            )
        });
        *outcomes.entry(o).or_default() += 1;
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

/// Runs `check` on each of `inputs` (name, bytes) under `catch_unwind`: panics (fails
/// the test) naming the failing input, with its bytes in hex. Returns the outcomes.
pub(crate) fn replay(
    target: &str,
    inputs: &[(String, Vec<u8>)],
    check: impl Fn(&[u8]) -> Outcome,
) -> BTreeMap<Outcome, usize> {
    let mut outcomes = BTreeMap::new();
    for (what, input) in inputs {
        let o = run_one(input, &check, || {
            format!("target {target}: panic on {what}")
        });
        *outcomes.entry(o).or_default() += 1;
    }
    outcomes
}

/// `check(input)` under `catch_unwind`; a panic is re-raised with `context()`, the
/// panic's text and the input in hex and as text.
fn run_one(
    input: &[u8],
    check: impl Fn(&[u8]) -> Outcome,
    context: impl FnOnce() -> String,
) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| check(input))) {
        Ok(o) => o,
        Err(p) => panic!(
            "{}: {}\ninput ({} bytes): {}\nas text: {:?}",
            context(),
            panic_text(&*p),
            input.len(),
            hex(input),
            String::from_utf8_lossy(input)
        ),
    }
}

pub(crate) fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}

// ------------------------------------------------------------------ mutators

/// One byte-level mutation of `b`, drawing splice material from `corpus`.
pub(crate) fn mutate_bytes(rng: &mut Rng, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
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
pub(crate) fn from_corpus(rng: &mut Rng, corpus: &[Vec<u8>], max_random: usize) -> Vec<u8> {
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
pub(crate) fn mutate_text(rng: &mut Rng, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
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

pub(crate) fn text_input(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
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
