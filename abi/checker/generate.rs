//! The generator: manifest -> Rust table (checked in as `abi/generated/rust_table.rs`)
//! and manifest -> C probes (written to a scratch directory at test time).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::manifest::{CTy, Manifest, Src, Ty};

/// Where the Rust table lives in the repository.
pub const RUST_TABLE_PATH: &str = "abi/generated/rust_table.rs";

/// The command that rewrites the Rust table.
pub const REGENERATE: &str = "cargo test --test abi_manifest -- --ignored regenerate";

/// The Rust source of `abi/generated/rust_table.rs` for this manifest.
pub fn rust_table_source(m: &Manifest) -> String {
    let mut o = String::new();
    o.push_str("// @generated from abi/manifest.txt by abi/checker/generate.rs: do not edit.\n");
    let _ = writeln!(o, "// Regenerate with: {REGENERATE}");
    o.push_str("// Included by tests/abi_check.rs; the types are in abi/checker/table.rs.\n\n");
    o.push_str(
        "/// The Rust side of every struct, constant and enum that abi/manifest.txt lists.\n",
    );
    o.push_str(
        "#[allow(deprecated)] // the deprecated aliases of renamed C names are mirrored too\n",
    );
    o.push_str("pub fn rust_table() -> RustTable {\n");
    o.push_str("    let mut t = RustTable::default();\n");
    for s in &m.structs {
        o.push_str("    {\n");
        let _ = writeln!(o, "        type T = {};", s.rust);
        let _ = writeln!(o, "        t.structs.push(RustStruct::new::<T>(");
        let _ = writeln!(o, "            {:?},", s.c);
        let _ = writeln!(o, "            {:?},", s.rust);
        o.push_str("            vec![\n");
        for f in &s.fields {
            if let Some(r) = &f.rust {
                let _ = writeln!(
                    o,
                    "                field({r:?}, core::mem::offset_of!(T, {r}), |s: &T| &s.{r}),"
                );
            }
        }
        o.push_str("            ],\n        ));\n    }\n");
    }
    for c in &m.consts {
        if c.member_of.is_some() {
            continue;
        }
        let _ = writeln!(o, "    t.values.push(value({:?}, {}));", c.rust, c.rust);
    }
    for e in &m.enums {
        if e.flags {
            let _ = writeln!(
                o,
                "    t.enums.push(RustEnum {{\n        path: {:?},\n        members: {}::all()\n            .iter_names()\n            .map(|(n, f)| member(n.to_string(), f.bits(), None))\n            .collect(),\n    }});",
                e.rust, e.rust
            );
        } else {
            let _ = writeln!(
                o,
                "    t.enums.push(RustEnum {{\n        path: {:?},\n        members: {}::KNOWN\n            .iter()\n            .map(|v| member(format!(\"{{v:?}}\"), v.as_raw(), v.c_name()))\n            .collect(),\n    }});",
                e.rust, e.rust
            );
        }
    }
    o.push_str("    t\n}\n");
    o
}

/// One checked item of a probe, for mapping compiler errors back to the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemRef {
    /// A struct (its size and alignment line).
    Struct(usize),
    /// A field: struct index, field index.
    Field(usize, usize),
    /// A constant or enum member.
    Const(usize),
    /// A field under its former C name (`was=`): struct index, field index.
    FieldWas(usize, usize),
    /// A constant under its former C name (`was=`).
    ConstWas(usize),
}

/// A generated probe.
pub struct Probe {
    /// The C source.
    pub source: String,
    /// Source line (1-based) -> item checked on that line.
    pub lines: BTreeMap<usize, ItemRef>,
}

const PRELUDE: &str = r#"#include <stdio.h>
#include <stddef.h>
"#;

/// Helpers of the probe (types are named in the manifest's notation).
const HELPERS: &str = r#"
#define UV_IS(x, T) __builtin_types_compatible_p(__typeof__(x), T)
#define UV_ARR(x, T) __builtin_types_compatible_p(__typeof__(x), T[sizeof(x) / sizeof(T)])
#define UV_SCALAR(x) (UV_IS(x, __u8) ? "u8" : UV_IS(x, __u16) ? "u16" : UV_IS(x, __u32) ? "u32" : UV_IS(x, __u64) ? "u64" : UV_IS(x, __s8) ? "i8" : UV_IS(x, __s16) ? "i16" : UV_IS(x, __s32) ? "i32" : UV_IS(x, __s64) ? "i64" : UV_IS(x, char) ? "char" : (const char *)0)
#define UV_ELEM(x) (UV_ARR(x, __u8) ? "u8" : UV_ARR(x, __u16) ? "u16" : UV_ARR(x, __u32) ? "u32" : UV_ARR(x, __u64) ? "u64" : UV_ARR(x, __s8) ? "i8" : UV_ARR(x, __s16) ? "i16" : UV_ARR(x, __s32) ? "i32" : UV_ARR(x, __s64) ? "i64" : UV_ARR(x, char) ? "char" : (const char *)0)
#define UV_ESIZE(x) (UV_ARR(x, __u8) || UV_ARR(x, __s8) || UV_ARR(x, char) ? 1 : UV_ARR(x, __u16) || UV_ARR(x, __s16) ? 2 : UV_ARR(x, __u32) || UV_ARR(x, __s32) ? 4 : UV_ARR(x, __u64) || UV_ARR(x, __s64) ? 8 : 1)

static const char *uv_found(const char *scalar, const char *elem, size_t size, size_t esize, int cls)
{
	static char buf[64];
	if (scalar)
		return scalar;
	if (elem) {
		snprintf(buf, sizeof(buf), "%s[%zu]", elem, size / esize);
		return buf;
	}
	return cls == 12 ? "struct" : cls == 13 ? "union" : "other";
}

static void uv_const(char tag, int i, int neg, unsigned long long mag)
{
	printf("%c %d %s%llu\n", tag, i, neg ? "-" : "", mag);
}
"#;

fn c_expect(ty: &Ty, cty: &CTy, x: &str) -> String {
    match cty {
        CTy::Union => format!("(__builtin_classify_type({x}) == 13)"),
        CTy::Same => format!("UV_IS({x}, {})", ty.c_type()),
        CTy::Other(t) => format!("UV_IS({x}, {})", t.c_type()),
    }
}

/// The uapi probe. `allowed[h]` says whether header `h` may be included (it is also
/// guarded by `__has_include`); items in `skip` are left out (they failed to compile).
pub fn uapi_probe(m: &Manifest, allowed: &[bool], skip: &BTreeSet<ItemRef>) -> Probe {
    let mut p = ProbeWriter::new();
    p.raw(PRELUDE);
    p.raw("#if __has_include(<linux/version.h>)\n#include <linux/version.h>\n#endif\n");
    for (i, h) in m.headers.iter().enumerate() {
        if allowed[i] {
            p.raw(&format!(
                "#if __has_include(<{n}>)\n#include <{n}>\n#define UV_H{i} 1\n#else\n#define UV_H{i} 0\n#endif\n",
                n = h.name
            ));
        } else {
            p.raw(&format!("#define UV_H{i} 0\n"));
        }
    }
    p.raw(HELPERS);
    p.raw("\nint main(void)\n{\n");
    p.raw("#ifdef LINUX_VERSION_CODE\n\tprintf(\"V %ld\\n\", (long)LINUX_VERSION_CODE);\n#endif\n");
    for i in 0..m.headers.len() {
        p.raw(&format!("\tprintf(\"H {i} %d\\n\", UV_H{i});\n"));
    }
    for (h, _) in m.headers.iter().enumerate() {
        p.raw(&format!("#if UV_H{h}\n"));
        for (si, s) in m.structs.iter().enumerate().filter(|(_, s)| s.header == h) {
            if skip.contains(&ItemRef::Struct(si)) {
                continue;
            }
            let t = format!("struct {}", s.c);
            p.item(
                ItemRef::Struct(si),
                &format!("\tprintf(\"S {si} %zu %zu\\n\", sizeof({t}), __alignof__({t}));"),
            );
            for (fi, f) in s.fields.iter().enumerate() {
                let Some(c) = &f.c else { continue };
                // The same bytes under the member's former name, if it was renamed.
                if let (Some((old, _)), false) = (&f.was, f.flex) {
                    if !skip.contains(&ItemRef::FieldWas(si, fi)) {
                        let x = format!("(({t} *)0)->{old}");
                        let ok = c_expect(&f.ty, &f.c_ty, &x);
                        p.item(
                            ItemRef::FieldWas(si, fi),
                            &format!(
                                "\tprintf(\"W {si} {fi} %zu %zu %d 0 %s\\n\", offsetof({t}, {old}), sizeof({x}), {ok}, uv_found(UV_SCALAR({x}), UV_ELEM({x}), sizeof({x}), UV_ESIZE({x}), __builtin_classify_type({x})));"
                            ),
                        );
                    }
                }
                if skip.contains(&ItemRef::Field(si, fi)) {
                    continue;
                }
                let x = format!("(({t} *)0)->{c}");
                let line = if f.flex {
                    let e = format!("{x}[0]");
                    let ok = match &f.c_ty {
                        CTy::Other(ct) => format!("UV_IS({x}, {}[])", ct.c_type()),
                        _ => format!("UV_IS({x}, {}[])", f.ty.c_type()),
                    };
                    format!(
                        "\tprintf(\"X {si} {fi} %zu %zu %d 0 %s[]\\n\", offsetof({t}, {c}), sizeof({e}), {ok}, uv_found(UV_SCALAR({e}), 0, 0, 1, __builtin_classify_type({e})));"
                    )
                } else {
                    let ok = c_expect(&f.ty, &f.c_ty, &x);
                    let ok_before = match &f.before {
                        Some((_, bt)) => format!("UV_IS({x}, {})", bt.c_type()),
                        None => "0".to_string(),
                    };
                    format!(
                        "\tprintf(\"F {si} {fi} %zu %zu %d %d %s\\n\", offsetof({t}, {c}), sizeof({x}), {ok}, {ok_before}, uv_found(UV_SCALAR({x}), UV_ELEM({x}), sizeof({x}), UV_ESIZE({x}), __builtin_classify_type({x})));"
                    )
                };
                p.item(ItemRef::Field(si, fi), &line);
            }
        }
        for (ci, c) in m.consts.iter().enumerate() {
            if c.header == Some(h) && c.src == Src::Uapi && !skip.contains(&ItemRef::Const(ci)) {
                p.item(ItemRef::Const(ci), &const_line('C', ci, &c.c));
            }
            if let Some((old, _)) = &c.was {
                if c.header == Some(h) && !skip.contains(&ItemRef::ConstWas(ci)) {
                    p.item(ItemRef::ConstWas(ci), &const_line('D', ci, old));
                }
            }
        }
        p.raw("#endif\n");
    }
    // Enum and flags members checked against the uapi headers (no header of their own).
    for (ci, c) in m.consts.iter().enumerate() {
        if c.header.is_none() && c.src == Src::Uapi && !skip.contains(&ItemRef::Const(ci)) {
            p.item(ItemRef::Const(ci), &const_line('C', ci, &c.c));
        }
    }
    p.raw("\treturn 0;\n}\n");
    p.finish()
}

/// The probe of rdma-core's `<infiniband/verbs.h>`.
pub fn verbs_probe(m: &Manifest, skip: &BTreeSet<ItemRef>) -> Probe {
    let mut p = ProbeWriter::new();
    p.raw(PRELUDE);
    p.raw("#if __has_include(<infiniband/verbs.h>)\n#include <infiniband/verbs.h>\n#define UV_VERBS 1\n#else\n#define UV_VERBS 0\n#endif\n");
    p.raw(HELPERS);
    p.raw("\nint main(void)\n{\n\tprintf(\"H 0 %d\\n\", UV_VERBS);\n#if UV_VERBS\n");
    for (ci, c) in m.consts.iter().enumerate() {
        if c.src == Src::Verbs && !skip.contains(&ItemRef::Const(ci)) {
            p.item(ItemRef::Const(ci), &const_line('C', ci, &c.c));
        }
    }
    p.raw("#endif\n\treturn 0;\n}\n");
    p.finish()
}

/// `tag` C for a constant, D for a constant under its former name (`was=`).
fn const_line(tag: char, ci: usize, name: &str) -> String {
    format!(
        "\tuv_const('{tag}', {ci}, ({name}) < 0, ({name}) < 0 ? 0ULL - (unsigned long long)({name}) : (unsigned long long)({name}));"
    )
}

struct ProbeWriter {
    source: String,
    line: usize,
    lines: BTreeMap<usize, ItemRef>,
}

impl ProbeWriter {
    fn new() -> Self {
        let source =
            "/* Generated by abi/checker from abi/manifest.txt (the uverbs ABI check). */\n"
                .to_string();
        ProbeWriter {
            source,
            line: 2,
            lines: BTreeMap::new(),
        }
    }
    fn raw(&mut self, s: &str) {
        self.source.push_str(s);
        self.line += s.matches('\n').count();
    }
    fn item(&mut self, item: ItemRef, code: &str) {
        debug_assert!(!code.contains('\n'));
        self.lines.insert(self.line, item);
        self.source.push_str(code);
        self.source.push('\n');
        self.line += 1;
    }
    fn finish(self) -> Probe {
        Probe {
            source: self.source,
            lines: self.lines,
        }
    }
}
