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
        use core::fmt::Write;
        match self {
            J::Null => s.push_str("null"),
            J::Num(n) => s.push_str(n),
            J::U(n) => {
                let _ = write!(s, "{n}");
            }
            J::I(n) => {
                let _ = write!(s, "{n}");
            }
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
            self.out.push('\n');
            indent(&mut self.out, self.depth);
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
        if !self.fresh {
            self.out.push(',');
        }
        self.out.push('\n');
        indent(&mut self.out, self.depth);
        self.fresh = false;
    }

    /// Starts a member of the object: its key; its value follows.
    pub fn key(&mut self, k: &str) {
        self.next();
        escape(&mut self.out, k);
        self.out.push_str(": ");
    }

    /// Starts an element of the array; its value follows.
    pub fn elem(&mut self) {
        self.next();
    }

    pub fn null(&mut self) {
        self.out.push_str("null");
    }

    pub fn u(&mut self, n: impl Into<u64>) {
        use core::fmt::Write;
        let _ = write!(self.out, "{}", n.into());
    }

    pub fn i(&mut self, n: impl Into<i64>) {
        use core::fmt::Write;
        let _ = write!(self.out, "{}", n.into());
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
    pub fn enm(&mut self, name: Option<&str>, value: impl FnOnce(&mut Writer)) {
        self.obj();
        self.key("name");
        self.opt_str(name);
        self.key("value");
        value(self);
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

fn indent(s: &mut String, depth: usize) {
    for _ in 0..depth {
        s.push_str("  ");
    }
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
