//! JSON output (schema version 1, documented in docs/json-schema.md): a tiny value type
//! and a pretty printer, shared by every `--json` of the command.
//!
//! Conventions: integers are exact decimal JSON numbers (64-bit values included);
//! enums are `{"name": <crate/libibverbs name or null>, "value": <raw number>}`; flag
//! sets are `{"value": <raw>, "names": [...], "unknown": <bits without a name>}`; GUIDs
//! and GIDs are strings.

/// The schema version written as `schema_version`.
pub const SCHEMA_VERSION: u64 = 1;

/// The `generator` every document names.
pub const GENERATOR: &str = concat!("uverbs ", env!("CARGO_PKG_VERSION"));

/// A document of the drop-in and operators' tools: `schema_version`, `generator`,
/// then the tool's one list (`key`).
pub fn document(key: &'static str, list: J) -> J {
    J::Obj(vec![
        ("schema_version", J::u(SCHEMA_VERSION)),
        ("generator", J::s(GENERATOR)),
        (key, list),
    ])
}

/// A JSON value. Objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    /// A number, already formatted.
    Num(String),
    /// An unsigned integer, formatted when written (no allocation per number).
    U(u64),
    /// A signed integer, formatted when written.
    I(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    pub fn u(v: impl Into<u64>) -> J {
        J::U(v.into())
    }
    pub fn i(v: impl Into<i64>) -> J {
        J::I(v.into())
    }
    pub fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }
    pub fn opt_s(v: &Option<String>) -> J {
        v.as_ref().map_or(J::Null, |s| J::Str(s.clone()))
    }
    pub fn opt_u(v: Option<impl Into<u64>>) -> J {
        v.map_or(J::Null, J::u)
    }

    /// Pretty text: two-space indent, one member per line, a final newline.
    pub fn pretty(&self) -> String {
        // Sized once (about 40 bytes a value, indent included), so that the text is not
        // copied over and over as it grows.
        let mut w = Writer::with_capacity(40 * self.values() + 16);
        w.value(self);
        w.finish()
    }

    /// The number of values, containers included.
    fn values(&self) -> usize {
        match self {
            J::Arr(v) => 1 + v.iter().map(J::values).sum::<usize>(),
            J::Obj(v) => 1 + v.iter().map(|(_, x)| x.values()).sum::<usize>(),
            _ => 1,
        }
    }

    /// The same on one line, without white space.
    pub fn compact(&self) -> String {
        let mut s = String::new();
        self.write_compact(&mut s);
        s
    }

    fn write_compact(&self, s: &mut String) {
        match self {
            J::Null => s.push_str("null"),
            J::Num(n) => s.push_str(n),
            J::U(n) => push_u64(s, *n),
            J::I(n) => push_i64(s, *n),
            J::Str(t) => escape(s, t),
            J::Arr(v) => {
                s.push('[');
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        s.push(',');
                    }
                    x.write_compact(s);
                }
                s.push(']');
            }
            J::Obj(v) => {
                s.push('{');
                for (k, (key, x)) in v.iter().enumerate() {
                    if k > 0 {
                        s.push(',');
                    }
                    escape(s, key);
                    s.push(':');
                    x.write_compact(s);
                }
                s.push('}');
            }
        }
    }
}

/// Pretty JSON written straight into one text buffer, token by token, with no value
/// tree: the one place that lays JSON out (two-space indent, one member per line, `[]`
/// and `{}` when empty). A document is one value: a container is opened, then each
/// member is a [`Writer::key`] (or each element an [`Writer::elem`]) followed by its
/// value, then closed.
pub struct Writer {
    out: String,
    depth: usize,
    /// A container was just opened: no member written yet.
    fresh: bool,
}

impl Writer {
    /// A writer whose buffer holds `n` bytes before it grows.
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            out: String::with_capacity(n),
            depth: 0,
            fresh: false,
        }
    }

    /// The text, with its final newline.
    pub fn finish(mut self) -> String {
        self.out.push('\n');
        self.out
    }

    fn open(&mut self, c: char) {
        self.out.push(c);
        self.depth += 1;
        self.fresh = true;
    }

    fn close(&mut self, c: char) {
        self.depth -= 1;
        if !self.fresh {
            newline(&mut self.out, self.depth, false);
        }
        self.out.push(c);
        self.fresh = false;
    }

    /// Opens an object.
    pub fn obj(&mut self) {
        self.open('{');
    }

    /// Closes the object opened last.
    pub fn end_obj(&mut self) {
        self.close('}');
    }

    /// Opens an array.
    pub fn arr(&mut self) {
        self.open('[');
    }

    /// Closes the array opened last.
    pub fn end_arr(&mut self) {
        self.close(']');
    }

    /// Starts the next member or element on its own line.
    fn next(&mut self) {
        newline(&mut self.out, self.depth, !self.fresh);
        self.fresh = false;
    }

    /// Starts a member of the object: its key; its value follows. The keys are the
    /// program's own names (`max_qp`, `node_guid`), never text from the kernel, and none
    /// has a character to escape: each is copied as it is.
    pub fn key(&mut self, k: &'static str) {
        self.next();
        self.name(k);
        self.out.push(':');
        self.out.push(' ');
    }

    /// A string from the program's own tables (an enum's or a flag's C name), which has
    /// no character to escape: copied as it is, where [`Writer::str`] looks at every byte.
    pub fn name(&mut self, n: &'static str) {
        debug_assert!(
            !crate::plumbing::json_line::needs_escape(n),
            "{n:?} is not a name"
        );
        self.out.reserve(n.len() + 2);
        self.out.push('"');
        self.out.push_str(n);
        self.out.push('"');
    }

    /// Starts an element of the array; its value follows.
    pub fn elem(&mut self) {
        self.next();
    }

    pub fn null(&mut self) {
        self.out.push_str("null");
    }

    pub fn u(&mut self, n: impl Into<u64>) {
        push_u64(&mut self.out, n.into());
    }

    pub fn i(&mut self, n: impl Into<i64>) {
        push_i64(&mut self.out, n.into());
    }

    /// `n` tenths as a decimal fraction with one digit after the point (25: `2.5`).
    pub fn tenths(&mut self, n: u64) {
        push_u64(&mut self.out, n / 10);
        self.out.push('.');
        push_u64(&mut self.out, n % 10);
    }

    /// Members `k: n` for each pair, in order.
    pub fn members_u(&mut self, m: &[(&'static str, u64)]) {
        for &(k, n) in m {
            self.key(k);
            self.u(n);
        }
    }

    /// A flag set: the raw value, the names of the named bits that are set, the rest
    /// (the shape of [`flags`]).
    /// One copy for every flag type (a `dyn` iterator: a generic one was a copy per type).
    pub fn flags(&mut self, value: u64, named: &mut dyn Iterator<Item = (&'static str, u64)>) {
        self.obj();
        self.key("value");
        self.u(value);
        self.key("names");
        self.arr();
        let mut known = 0u64;
        for (n, bits) in named {
            known |= bits;
            self.elem();
            self.name(n);
        }
        self.end_arr();
        self.key("unknown");
        self.u(value & !known);
        self.end_obj();
    }

    pub fn str(&mut self, t: &str) {
        escape(&mut self.out, t);
    }

    pub fn opt_str(&mut self, t: Option<&str>) {
        match t {
            Some(t) => self.str(t),
            None => self.null(),
        }
    }

    pub fn opt_u(&mut self, n: Option<impl Into<u64>>) {
        match n {
            Some(n) => self.u(n),
            None => self.null(),
        }
    }

    /// `{"name": ..., "value": ...}`.
    pub fn enm(&mut self, name: Option<&'static str>, value: i64) {
        self.obj();
        self.key("name");
        match name {
            Some(n) => self.name(n),
            None => self.null(),
        }
        self.key("value");
        self.i(value);
        self.end_obj();
    }

    /// A whole value.
    pub fn value(&mut self, v: &J) {
        match v {
            J::Null => self.null(),
            J::Num(n) => self.out.push_str(n),
            J::U(n) => self.u(*n),
            J::I(n) => self.i(*n),
            J::Str(t) => self.str(t),
            J::Arr(v) => {
                self.arr();
                for x in v {
                    self.elem();
                    self.value(x);
                }
                self.end_arr();
            }
            J::Obj(v) => {
                self.obj();
                for (k, x) in v {
                    self.key(k);
                    self.value(x);
                }
                self.end_obj();
            }
        }
    }
}

/// A new line (after a comma when `comma`) indented two spaces a level: one copy from a
/// line of spaces (the command's documents nest a few levels; a deeper one takes more
/// copies).
fn newline(s: &mut String, depth: usize, comma: bool) {
    const LINE: &str = ",\n                                ";
    const SPACES: usize = LINE.len() - 2;
    let mut n = 2 * depth;
    let first = n.min(SPACES);
    s.push_str(&LINE[usize::from(!comma)..2 + first]);
    n -= first;
    while n > 0 {
        let k = n.min(SPACES);
        s.push_str(&LINE[2..2 + k]);
        n -= k;
    }
}

/// `n` in decimal, without `core::fmt` (its formatter costs more than the digits). Most
/// numbers the command prints are a single digit (the zeros of what a device lacks):
/// one push.
pub fn push_u64(s: &mut String, mut n: u64) {
    if n < 10 {
        s.push(char::from(b'0' + n as u8));
        return;
    }
    let mut b = [0u8; 20];
    let mut i = b.len();
    while n > 0 {
        i -= 1;
        b[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for &d in &b[i..] {
        s.push(char::from(d));
    }
}

/// `n` in decimal, a minus sign first when negative.
pub fn push_i64(s: &mut String, n: i64) {
    if n < 0 {
        s.push('-');
    }
    push_u64(s, n.unsigned_abs());
}

fn escape(s: &mut String, t: &str) {
    crate::plumbing::json_line::push_str(s, t);
}

pub fn enm(name: Option<&str>, value: J) -> J {
    J::Obj(vec![("name", name.map_or(J::Null, J::s)), ("value", value)])
}

/// A flag set: the raw value, the names of the named bits that are set, the rest.
pub fn flags<'a>(value: u64, named: impl Iterator<Item = (&'a str, u64)>) -> J {
    let mut names = Vec::new();
    let mut known = 0u64;
    for (n, bits) in named {
        known |= bits;
        names.push(J::s(n));
    }
    J::Obj(vec![
        ("value", J::u(value)),
        ("names", J::Arr(names)),
        ("unknown", J::u(value & !known)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_core_fmt_writes_them() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            12345,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut s = String::from("x");
            push_u64(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
        for (n, text) in [(0, "0.0"), (9, "0.9"), (25, "2.5"), (1000, "100.0")] {
            let mut w = Writer::with_capacity(0);
            w.tenths(n);
            assert_eq!(w.finish(), format!("{text}\n"));
        }
        for n in [0, -1, 1, -10, i64::from(i32::MIN), i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_i64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    /// Nested deeper than the line of spaces is long: each level still two spaces.
    #[test]
    fn deep_nesting_keeps_the_indent() {
        let mut v = J::u(7u64);
        for _ in 0..40 {
            v = J::Arr(vec![v]);
        }
        let text = v.pretty();
        for (k, line) in text.lines().enumerate().take(41) {
            let want = if k == 0 { 0 } else { 2 * k };
            assert_eq!(
                line.len() - line.trim_start().len(),
                want,
                "line {k}: {line:?}"
            );
        }
        assert!(text.contains(&format!("\n{}7\n", " ".repeat(80))));
    }

    /// The writer's flag set is the value type's.
    #[test]
    fn flags_written_as_the_value_type() {
        let named = [("A", 1u64), ("C", 4)];
        let mut w = Writer::with_capacity(0);
        w.flags(0x15, &mut named.iter().copied());
        assert_eq!(w.finish(), flags(0x15, named.iter().copied()).pretty());
    }
}
