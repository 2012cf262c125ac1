//! The kernel's own headers (`include/rdma/ib_verbs.h`, `include/rdma/ib_mad.h`,
//! `include/rdma/rdma_cm.h`), which
//! are not uapi: nothing outside the kernel can compile them, so they are read as text.
//!
//! The manifest's `doc=` values (port widths, speeds and physical states, a few port
//! capability bits) are in no installed header, but the kernel defines most of them in
//! these internal headers, which Debian ships in `linux-headers-*-common` (the tree that
//! `abi/headers-6.12.sh` unpacks: its `include/uapi` is `UVERBS_ABI_HEADERS`, its
//! `include/rdma` is read here). [`KernelHeaders`] reads the members of every `enum`
//! and the `case X: return N;` arms of the kernel's small conversion functions
//! (`ib_mtu_enum_to_int`, `ib_width_enum_to_int`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The headers read, relative to the kernel's `include/` directory.
pub const FILES: &[&str] = &["rdma/ib_verbs.h", "rdma/ib_mad.h", "rdma/rdma_cm.h"];

/// The kernel's `include/` directory: `UVERBS_ABI_KERNEL_INCLUDE`, else the parent of
/// `UVERBS_ABI_HEADERS` when that is a kernel's raw `include/uapi` (as the 6.12 headers
/// package has it). `None` when neither names a directory with `rdma/ib_verbs.h`.
pub fn include_dir() -> Option<PathBuf> {
    let explicit = std::env::var_os("UVERBS_ABI_KERNEL_INCLUDE").map(PathBuf::from);
    let beside_uapi = std::env::var_os("UVERBS_ABI_HEADERS")
        .map(PathBuf::from)
        .and_then(|u| u.parent().map(Path::to_path_buf));
    explicit
        .into_iter()
        .chain(beside_uapi)
        .find(|d| d.join("rdma/ib_verbs.h").is_file())
}

/// What the headers define.
#[derive(Debug, Default)]
pub struct KernelHeaders {
    /// The directory read.
    pub dir: PathBuf,
    /// Every enum member: name → (value, file).
    pub enums: BTreeMap<String, (i128, &'static str)>,
    /// The `case NAME: return N;` arms of each function read: function → name → N.
    pub cases: BTreeMap<String, BTreeMap<String, i128>>,
}

impl KernelHeaders {
    /// Reads [`FILES`] under `dir` and the arms of the functions `functions`.
    pub fn load(dir: &Path, functions: &[&str]) -> Result<KernelHeaders, String> {
        let mut k = KernelHeaders {
            dir: dir.to_path_buf(),
            ..KernelHeaders::default()
        };
        for file in FILES {
            let path = dir.join(file);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = strip_comments(&text);
            for (name, value) in enum_members(&text).map_err(|e| format!("{file}: {e}"))? {
                k.enums.insert(name, (value, *file));
            }
            for f in functions {
                if let Some(arms) = function_cases(&text, f) {
                    k.cases.insert((*f).to_string(), arms);
                }
            }
        }
        Ok(k)
    }

    /// The value of enum member `name`.
    pub fn value(&self, name: &str) -> Option<i128> {
        self.enums.get(name).map(|&(v, _)| v)
    }
}

/// The text without `/* */` and `//` comments (string literals do not occur in the
/// parts read).
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.map_or(true, |l| b < l) => {
                out.push_str(&rest[..b]);
                match rest[b + 2..].find("*/") {
                    Some(e) => {
                        out.push(' ');
                        rest = &rest[b + 2 + e + 2..];
                    }
                    None => return out,
                }
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                match rest[l..].find('\n') {
                    Some(e) => rest = &rest[l + e..],
                    None => return out,
                }
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// Every member of every `enum ... { ... }` in `text` (comments stripped) whose value
/// can be computed: explicit (`= expr`, which may name earlier members), or the previous
/// member's plus one. Members whose value needs a macro (`BIT(n)`) or a name from
/// another header are left out, and so are the implicit ones after them.
pub fn enum_members(text: &str) -> Result<Vec<(String, i128)>, String> {
    let mut out = Vec::new();
    let mut known: BTreeMap<String, i128> = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = find_word(rest, "enum") {
        rest = &rest[at + 4..];
        let Some(open) = rest.find('{') else { break };
        // `enum name {`: only a name may stand between the keyword and the brace (this
        // skips `enum ib_mtu mtu)` in a parameter list).
        let head = rest[..open].trim();
        if !head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let body = &rest[open + 1..open + close];
        rest = &rest[open + close..];
        let mut next = Some(0i128);
        for item in split_top(body) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (name, value) = match item.split_once('=') {
                Some((n, e)) => (n.trim(), eval(e.trim(), &known)),
                None => (item, next),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("unexpected enum member `{item}`"));
            }
            next = value.map(|v| v + 1);
            if let Some(v) = value {
                known.insert(name.to_string(), v);
                out.push((name.to_string(), v));
            }
        }
    }
    Ok(out)
}

/// `body` split at its commas outside parentheses.
fn split_top(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in body.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&body[start..]);
    out
}

/// The `case A: [case B:] return N;` arms of function `name`'s body, `None` when the
/// text does not define it.
pub fn function_cases(text: &str, name: &str) -> Option<BTreeMap<String, i128>> {
    let mut rest = text;
    let body = loop {
        let at = find_word(rest, name)?;
        let after = &rest[at + name.len()..];
        let paren = after.find('(')?;
        let brace = after.find('{')?;
        let semi = after.find(';').unwrap_or(usize::MAX);
        // A definition: `name(...) {`, with no `;` before the brace.
        if after[..paren].trim().is_empty() && brace < semi {
            break balanced(&after[brace..])?;
        }
        rest = after;
    };
    let mut arms = BTreeMap::new();
    let mut pending: Vec<String> = Vec::new();
    let mut toks = body.split(';');
    for stmt in &mut toks {
        // A statement may open with `switch (x) {` before its first `case`.
        let mut s = match find_word(stmt, "case") {
            Some(at) => &stmt[at..],
            None => stmt.trim(),
        };
        while let Some(r) = s.strip_prefix("case") {
            let (label, tail) = r.split_once(':')?;
            pending.push(label.trim().to_string());
            s = tail.trim();
        }
        if let Some(v) = s.strip_prefix("return") {
            if let Some(n) = eval(v.trim(), &BTreeMap::new()) {
                for l in pending.drain(..) {
                    arms.insert(l, n);
                }
            }
            pending.clear();
        }
        if find_word(s, "default").is_some() {
            pending.clear();
        }
    }
    Some(arms)
}

/// The text from `{` (at the start of `s`) to its matching `}`.
fn balanced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first occurrence of `word` in `s` as a whole identifier.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let before = s[..at].chars().next_back().is_some_and(ident);
        let after = s[at + word.len()..].chars().next().is_some_and(ident);
        if !before && !after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Evaluates the constant expressions the enums use: integers (with `U`/`L` suffixes),
/// names of earlier members, `<<`, `|`, `+`, `-` (unary too) and parentheses.
pub fn eval(e: &str, known: &BTreeMap<String, i128>) -> Option<i128> {
    let toks = tokens(e)?;
    let mut p = Parser { toks, i: 0, known };
    let v = p.or()?;
    (p.i == p.toks.len()).then_some(v)
}

fn tokens(e: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let b: Vec<char> = e.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == '<' && b.get(i + 1) == Some(&'<') {
            out.push("<<".into());
            i += 2;
        } else if "()|+-".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

struct Parser<'a> {
    toks: Vec<String>,
    i: usize,
    known: &'a BTreeMap<String, i128>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn or(&mut self) -> Option<i128> {
        let mut v = self.shift()?;
        while self.peek() == Some("|") {
            self.i += 1;
            v |= self.shift()?;
        }
        Some(v)
    }
    fn shift(&mut self) -> Option<i128> {
        let mut v = self.sum()?;
        while self.peek() == Some("<<") {
            self.i += 1;
            let n = self.sum()?;
            v = v.checked_shl(u32::try_from(n).ok()?)?;
        }
        Some(v)
    }
    fn sum(&mut self) -> Option<i128> {
        let mut v = self.unary()?;
        loop {
            match self.peek() {
                Some("+") => {
                    self.i += 1;
                    v += self.unary()?;
                }
                Some("-") => {
                    self.i += 1;
                    v -= self.unary()?;
                }
                _ => return Some(v),
            }
        }
    }
    fn unary(&mut self) -> Option<i128> {
        let t = self.peek()?.to_string();
        self.i += 1;
        match t.as_str() {
            "-" => Some(-self.unary()?),
            "(" => {
                let v = self.or()?;
                (self.peek() == Some(")")).then(|| self.i += 1)?;
                Some(v)
            }
            _ if t.starts_with(|c: char| c.is_ascii_digit()) => {
                let digits = t.trim_end_matches(['u', 'U', 'l', 'L']);
                match digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"))
                {
                    Some(h) => i128::from_str_radix(h, 16).ok(),
                    None => digits.parse().ok(),
                }
            }
            _ => self.known.get(&t).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_enums_and_cases() {
        let text = strip_comments(
            "/* x */ enum a { A0, A1 = 5, A2, /* c */ A3 = 1 << 4, A4 = 1ULL << 31, A5 = (A1 | A3) };\n\
             static inline int f(enum a x) // y\n{ switch (x) { case A0: return 1; case A1:\n case A2: return 4; default: return -1; } }\n\
             int f(int);",
        );
        let m: BTreeMap<String, i128> = enum_members(&text).unwrap().into_iter().collect();
        assert_eq!(m["A0"], 0);
        assert_eq!(m["A2"], 6);
        assert_eq!(m["A3"], 16);
        assert_eq!(m["A4"], 1 << 31);
        assert_eq!(m["A5"], 21);
        let c = function_cases(&text, "f").unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!((c["A0"], c["A1"], c["A2"]), (1, 4, 4));
        assert!(function_cases(&text, "g").is_none());
    }
}
