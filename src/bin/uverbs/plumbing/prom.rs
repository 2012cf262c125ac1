//! The Prometheus text exposition format (version 0.0.4): metric families with their
//! `# HELP` and `# TYPE` lines, samples grouped by family in the order families first
//! appear, label values escaped.

use core::fmt::Write;

/// The content type of the exposition.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
}

struct Family {
    name: &'static str,
    help: &'static str,
    kind: Kind,
    samples: String,
}

/// An exposition being built.
#[derive(Default)]
pub struct Exposition {
    families: Vec<Family>,
    /// The family of the last sample (samples mostly come in runs of one family).
    last: usize,
}

/// A sample value: an integer, or a number already formatted (no float formatting is
/// linked into the binary).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U(u64),
    Text(String),
}

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::U(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Value::U(u64::from(v))
    }
}

/// A duration in seconds, as Prometheus text (`0.000217203`).
pub fn seconds(d: core::time::Duration) -> Value {
    Value::Text(format!("{}.{:09}", d.as_secs(), d.subsec_nanos()))
}

/// Appends `v` escaped as a label value (backslash, double quote, newline).
pub fn escape_label(out: &mut String, v: &str) {
    // The text between two characters to escape is copied whole (a label value rarely
    // has any: device names, counter names).
    let mut rest = v;
    while let Some(i) = rest.find(['\\', '"', '\n']) {
        out.push_str(&rest[..i]);
        out.push_str(match rest.as_bytes()[i] {
            b'\\' => "\\\\",
            b'"' => "\\\"",
            _ => "\\n",
        });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

impl Exposition {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a sample of family `name` (declared with `help` and `kind` the first time
    /// it is seen). Label names must be valid Prometheus label names; values are
    /// escaped.
    pub fn sample(
        &mut self,
        name: &'static str,
        help: &'static str,
        kind: Kind,
        labels: &[(&str, &str)],
        value: impl Into<Value>,
    ) {
        self.declare(name, help, kind);
        let s = &mut self.families[self.last].samples;
        s.push_str(name);
        if !labels.is_empty() {
            s.push('{');
            for (k, (n, v)) in labels.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                s.push_str(n);
                s.push_str("=\"");
                escape_label(s, v);
                s.push('"');
            }
            s.push('}');
        }
        s.push(' ');
        match value.into() {
            Value::U(v) => {
                let _ = write!(s, "{v}");
            }
            Value::Text(t) => s.push_str(&t),
        }
        s.push('\n');
    }

    /// Declares a family (its `HELP` and `TYPE` print even if no sample follows) and
    /// makes it the current one.
    pub fn declare(&mut self, name: &'static str, help: &'static str, kind: Kind) {
        if self.families.get(self.last).is_some_and(|f| f.name == name) {
            return;
        }
        match self.families.iter().position(|f| f.name == name) {
            Some(i) => self.last = i,
            None => {
                self.families.push(Family {
                    name,
                    help,
                    kind,
                    samples: String::new(),
                });
                self.last = self.families.len() - 1;
            }
        }
    }

    /// Adds the families and samples of `other` (an exposition built apart, a device's
    /// on its own thread): as if its samples had been added here in its order.
    pub fn append(&mut self, other: Exposition) {
        for f in other.families {
            self.declare(f.name, f.help, f.kind);
            self.families[self.last].samples.push_str(&f.samples);
        }
    }

    /// The text.
    pub fn render(&self) -> String {
        let len: usize = self
            .families
            .iter()
            .map(|f| f.samples.len() + f.help.len() + 2 * f.name.len() + 24)
            .sum();
        let mut out = String::with_capacity(len);
        for f in &self.families {
            out.push_str("# HELP ");
            out.push_str(f.name);
            out.push(' ');
            // HELP text escapes backslash and newline.
            for c in f.help.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c => out.push(c),
                }
            }
            out.push_str("\n# TYPE ");
            out.push_str(f.name);
            out.push_str(match f.kind {
                Kind::Gauge => " gauge\n",
                Kind::Counter => " counter\n",
            });
            out.push_str(&f.samples);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_grouped_in_first_seen_order() {
        let mut e = Exposition::new();
        e.sample("a_total", "A.", Kind::Counter, &[("device", "x")], 1u64);
        e.sample(
            "b",
            "B \\ b\nc.",
            Kind::Gauge,
            &[],
            Value::Text("2.5".into()),
        );
        e.sample(
            "a_total",
            "A.",
            Kind::Counter,
            &[("device", "y\"\\\n")],
            u64::MAX,
        );
        e.declare("c", "C.", Kind::Gauge);
        assert_eq!(
            e.render(),
            "# HELP a_total A.\n# TYPE a_total counter\na_total{device=\"x\"} 1\n\
             a_total{device=\"y\\\"\\\\\\n\"} 18446744073709551615\n\
             # HELP b B \\\\ b\\nc.\n# TYPE b gauge\nb 2.5\n# HELP c C.\n# TYPE c gauge\n"
        );
    }

    #[test]
    fn durations_in_seconds() {
        use core::time::Duration;
        assert_eq!(
            seconds(Duration::from_nanos(217_203)),
            Value::Text("0.000217203".into())
        );
        assert_eq!(
            seconds(Duration::from_millis(2500)),
            Value::Text("2.500000000".into())
        );
    }
}
