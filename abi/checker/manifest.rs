//! Parser of `abi/manifest.txt`, the one list of everything the crate mirrors.
//!
//! The format is described at the top of the manifest itself and in `abi/README.md`.
//! Every error names the manifest line.

use std::fmt;

/// A version: Linux `major.minor` for kernel items, `N.0` for rdma-core release N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32, pub u32);

impl Version {
    /// Parses `6.7`, `6.12.113` (the sublevel is dropped) or `49` (rdma-core).
    pub fn parse(s: &str) -> Option<Version> {
        let mut it = s.trim().split('.');
        let major = it.next()?.parse().ok()?;
        let minor = match it.next() {
            Some(m) => m.parse().ok()?,
            None => 0,
        };
        Some(Version(major, minor))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// Where the C side of a value is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// The kernel's uapi headers (system or `UVERBS_ABI_HEADERS`).
    Uapi,
    /// rdma-core's `<infiniband/verbs.h>`.
    Verbs,
    /// In no installed header: the manifest records the documented value.
    Doc(i128),
}

/// The type of a field, in the manifest's notation (`u16`, `u8[6]`, `ib_uverbs_attr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// An integer.
    Int { signed: bool, bits: u32 },
    /// A fixed array.
    Array(Box<Ty>, usize),
    /// A struct, by C name.
    Struct(String),
}

impl Ty {
    /// Parses `u16`, `i32`, `u8[6]`, `u64[2]`, `ib_uverbs_query_port_resp`.
    pub fn parse(s: &str) -> Result<Ty, String> {
        if let Some(open) = s.find('[') {
            let elem = Ty::parse(&s[..open])?;
            let n = s[open + 1..]
                .strip_suffix(']')
                .ok_or_else(|| format!("bad array type `{s}`"))?;
            let n: usize = n
                .parse()
                .map_err(|_| format!("bad array length in `{s}`"))?;
            return Ok(Ty::Array(Box::new(elem), n));
        }
        let int = |signed, bits| Ok(Ty::Int { signed, bits });
        match s {
            "u8" => int(false, 8),
            "u16" => int(false, 16),
            "u32" => int(false, 32),
            "u64" => int(false, 64),
            "i8" => int(true, 8),
            "i16" => int(true, 16),
            "i32" => int(true, 32),
            "i64" => int(true, 64),
            _ if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                Ok(Ty::Struct(s.to_string()))
            }
            _ => Err(format!("bad type `{s}`")),
        }
    }

    /// The C type the probe compares with (`__u16`, `__u8[6]`, `struct x`).
    pub fn c_type(&self) -> String {
        match self {
            Ty::Int { signed, bits } => format!("__{}{}", if *signed { 's' } else { 'u' }, bits),
            Ty::Array(e, n) => format!("{}[{}]", e.c_type(), n),
            Ty::Struct(s) => format!("struct {s}"),
        }
    }

    /// Size in bytes when it does not depend on a struct.
    pub fn scalar_size(&self) -> Option<usize> {
        match self {
            Ty::Int { bits, .. } => Some(*bits as usize / 8),
            Ty::Array(e, n) => e.scalar_size().map(|s| s * n),
            Ty::Struct(_) => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int { signed, bits } => write!(f, "{}{}", if *signed { 'i' } else { 'u' }, bits),
            Ty::Array(e, n) => write!(f, "{e}[{n}]"),
            Ty::Struct(s) => f.write_str(s),
        }
    }
}

/// How the C member of a field is typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CTy {
    /// The same type as the Rust field (`Field::ty`).
    Same,
    /// A C union of the field's size, mirrored as a plain integer.
    Union,
    /// Another type (`c=TYPE`).
    Other(Ty),
}

/// One `#include` of the uapi probe.
#[derive(Debug, Clone)]
pub struct Header {
    /// `rdma/ib_user_verbs.h`.
    pub name: String,
    /// The Linux version that added the header.
    pub since: Option<Version>,
    /// Manifest line.
    pub line: usize,
}

/// A struct of the mirror.
#[derive(Debug, Clone)]
pub struct Struct {
    /// C tag.
    pub c: String,
    /// Full Rust path.
    pub rust: String,
    /// Index into `Manifest::headers`.
    pub header: usize,
    /// The Linux version that added it.
    pub since: Option<Version>,
    /// Its fields, in order.
    pub fields: Vec<Field>,
    /// Manifest line.
    pub line: usize,
}

/// A field of a struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// C member designator (`per_transport_caps.rc_odp_caps`), `None` for a Rust-only
    /// field that covers implicit C padding.
    pub c: Option<String>,
    /// Rust field name, `None` for a C-only flexible array member.
    pub rust: Option<String>,
    /// Type (of the elements, for a flexible array).
    pub ty: Ty,
    /// How the C member is typed.
    pub c_ty: CTy,
    /// A flexible array member (`driver_data[]`): C only, at the end of the struct.
    pub flex: bool,
    /// The Linux version that added it.
    pub since: Option<Version>,
    /// Before this Linux version the C member had this other type (same place).
    pub before: Option<(Version, Ty)>,
    /// Before this Linux version the C member had this other name (same bytes): a
    /// rename, which the check tells from a layout change (`was=OLD@X.Y`).
    pub was: Option<(String, Version)>,
    /// Manifest line.
    pub line: usize,
}

impl Field {
    /// `c` or `rust`, for messages.
    pub fn name(&self) -> &str {
        self.c.as_deref().or(self.rust.as_deref()).unwrap_or("?")
    }
}

/// A constant or an enum/flag value whose C side is read from a header.
#[derive(Debug, Clone)]
pub struct Const {
    /// C name (macro or enumerator).
    pub c: String,
    /// What the Rust side is: a constant's path, or `Type::Variant`.
    pub rust: String,
    /// Where the C value comes from.
    pub src: Src,
    /// Index into `Manifest::headers` (uapi constants).
    pub header: Option<usize>,
    /// The version (Linux, or rdma-core for `verbs`) that added it.
    pub since: Option<Version>,
    /// The version that removed it.
    pub until: Option<Version>,
    /// Before this version the constant had this other name (same value): a rename
    /// (`was=OLD@X.Y`).
    pub was: Option<(String, Version)>,
    /// Index into `Manifest::enums` for an enum or flags member.
    pub member_of: Option<usize>,
    /// Manifest line.
    pub line: usize,
}

/// An `enum` or `flags` block: a type of `src/types/mod.rs`.
#[derive(Debug, Clone)]
pub struct EnumBlock {
    /// `true` for a bitflags type, `false` for an open enum.
    pub flags: bool,
    /// Full Rust path of the type.
    pub rust: String,
    /// Indices into `Manifest::consts`.
    pub members: Vec<usize>,
    /// Manifest line.
    pub line: usize,
}

/// A Rust item under src/raw/abi or src/raw/driver that mirrors nothing in C.
#[derive(Debug, Clone)]
pub struct RustOnly {
    /// Full Rust path.
    pub rust: String,
    /// Why it is not a mirror.
    pub reason: String,
    /// Manifest line.
    pub line: usize,
}

/// The parsed manifest.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub headers: Vec<Header>,
    pub structs: Vec<Struct>,
    pub consts: Vec<Const>,
    pub enums: Vec<EnumBlock>,
    pub rust_only: Vec<RustOnly>,
}

/// Parses a value: `12`, `-1`, `0x1b`, `1<<26`.
pub fn parse_value(s: &str) -> Option<i128> {
    let s = s.trim();
    if let Some((a, b)) = s.split_once("<<") {
        let a = parse_value(a)?;
        let b: u32 = b.trim().parse().ok()?;
        return a.checked_shl(b);
    }
    if let Some(neg) = s.strip_prefix('-') {
        return parse_value(neg).map(|v| -v);
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return i128::from_str_radix(&hex.replace('_', ""), 16).ok();
    }
    s.replace('_', "").parse().ok()
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Options of an item line: `key=value` words after the positional ones.
struct Opts<'a> {
    pairs: Vec<(&'a str, &'a str)>,
    line: usize,
}

impl<'a> Opts<'a> {
    fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.pairs.iter().position(|(k, _)| *k == key)?;
        Some(self.pairs.remove(i).1)
    }
    fn version(&mut self, key: &str) -> Result<Option<Version>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => Version::parse(v)
                .map(Some)
                .ok_or_else(|| format!("line {}: bad version `{key}={v}`", self.line)),
        }
    }
    fn finish(self) -> Result<(), String> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, v)) => Err(format!("line {}: unknown option `{k}={v}`", self.line)),
        }
    }
}

/// `was=OLD@X.Y`: the C name before Linux X.Y.
fn parse_was(v: Option<&str>, line: usize) -> Result<Option<(String, Version)>, String> {
    let Some(v) = v else { return Ok(None) };
    let (name, ver) = v
        .split_once('@')
        .ok_or_else(|| format!("line {line}: expected was=OLD_NAME@X.Y"))?;
    let ver = Version::parse(ver).ok_or_else(|| format!("line {line}: bad version in was="))?;
    if !is_ident(name) {
        return Err(format!("line {line}: bad name in was="));
    }
    Ok(Some((name.to_string(), ver)))
}

fn split_opts<'a>(words: &[&'a str], line: usize) -> Result<(Vec<&'a str>, Opts<'a>), String> {
    let mut pos = Vec::new();
    let mut pairs = Vec::new();
    for &w in words {
        match w.split_once('=') {
            Some((k, v)) if is_ident(k) => pairs.push((k, v)),
            _ if !pairs.is_empty() => {
                return Err(format!("line {line}: `{w}` after options"));
            }
            _ => pos.push(w),
        }
    }
    Ok((pos, Opts { pairs, line }))
}

/// Parses the manifest text.
pub fn parse(text: &str) -> Result<Manifest, String> {
    let mut m = Manifest::default();
    let mut module = String::new();
    let mut header: Option<usize> = None;
    // The block that indented lines belong to.
    enum Block {
        None,
        Struct(usize),
        Enum(usize, Src),
    }
    let mut block = Block::None;
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = match raw.find('#') {
            Some(p) => &raw[..p],
            None => raw,
        };
        if content.trim().is_empty() {
            continue;
        }
        let indented = content.starts_with(' ') || content.starts_with('\t');
        let words: Vec<&str> = content.split_whitespace().collect();
        let res: Result<(), String> = (|| {
            if indented {
                match block {
                    Block::Struct(s) => {
                        let f = parse_field(&words, line)?;
                        m.structs[s].fields.push(f);
                    }
                    Block::Enum(e, src) => {
                        let (pos, mut opts) = split_opts(&words, line)?;
                        let [var, cname] = pos.as_slice() else {
                            return Err(format!(
                                "line {line}: expected `VARIANT C_NAME [options]`"
                            ));
                        };
                        let src = match (opts.take("doc"), opts.take("src")) {
                            (Some(v), _) => Src::Doc(
                                parse_value(v)
                                    .ok_or_else(|| format!("line {line}: bad value `doc={v}`"))?,
                            ),
                            (None, Some("verbs")) => Src::Verbs,
                            (None, Some("uapi")) => Src::Uapi,
                            (None, Some(s)) => return Err(format!("line {line}: bad src `{s}`")),
                            (None, None) => src,
                        };
                        let since = opts.version("since")?;
                        let until = opts.version("until")?;
                        opts.finish()?;
                        let path = format!("{}::{}", m.enums[e].rust, var);
                        m.consts.push(Const {
                            c: cname.to_string(),
                            rust: path,
                            src,
                            header: None,
                            since,
                            until,
                            was: None,
                            member_of: Some(e),
                            line,
                        });
                        let idx = m.consts.len() - 1;
                        m.enums[e].members.push(idx);
                    }
                    Block::None => {
                        return Err(format!("line {line}: indented line outside a block"))
                    }
                }
                return Ok(());
            }
            block = Block::None;
            let (pos, mut opts) = split_opts(&words, line)?;
            let kw = pos[0];
            match kw {
                "module" => {
                    let [_, path] = pos.as_slice() else {
                        return Err(format!("line {line}: expected `module PATH`"));
                    };
                    module = path.to_string();
                }
                "header" => {
                    let [_, name] = pos.as_slice() else {
                        return Err(format!("line {line}: expected `header rdma/x.h`"));
                    };
                    let since = opts.version("since")?;
                    // A header named again (a later block of the manifest) is the same
                    // header: its items join the first entry.
                    if let Some(i) = m.headers.iter().position(|h| h.name == *name) {
                        if since.is_some() && since != m.headers[i].since {
                            return Err(format!(
                                "line {line}: header {name} is named again with another since="
                            ));
                        }
                        header = Some(i);
                        return Ok(());
                    }
                    m.headers.push(Header {
                        name: name.to_string(),
                        since,
                        line,
                    });
                    header = Some(m.headers.len() - 1);
                }
                "struct" => {
                    let [_, c] = pos.as_slice() else {
                        return Err(format!("line {line}: expected `struct C_NAME [options]`"));
                    };
                    let h =
                        header.ok_or_else(|| format!("line {line}: struct before any `header`"))?;
                    let rust = qualify(&module, opts.take("rust").unwrap_or(c), line)?;
                    let since = opts.version("since")?;
                    opts.finish()?;
                    m.structs.push(Struct {
                        c: c.to_string(),
                        rust,
                        header: h,
                        since,
                        fields: Vec::new(),
                        line,
                    });
                    block = Block::Struct(m.structs.len() - 1);
                }
                "const" => {
                    let [_, c] = pos.as_slice() else {
                        return Err(format!("line {line}: expected `const C_NAME [options]`"));
                    };
                    let rust = qualify(&module, opts.take("rust").unwrap_or(c), line)?;
                    let since = opts.version("since")?;
                    let until = opts.version("until")?;
                    let was = parse_was(opts.take("was"), line)?;
                    opts.finish()?;
                    let h =
                        header.ok_or_else(|| format!("line {line}: const before any `header`"))?;
                    m.consts.push(Const {
                        c: c.to_string(),
                        rust,
                        src: Src::Uapi,
                        header: Some(h),
                        since,
                        until,
                        was,
                        member_of: None,
                        line,
                    });
                }
                "enum" | "flags" => {
                    let [_, path] = pos.as_slice() else {
                        return Err(format!(
                            "line {line}: expected `{kw} RUST_TYPE_PATH [src=..]`"
                        ));
                    };
                    let src = match opts.take("src") {
                        Some("verbs") | None => Src::Verbs,
                        Some("uapi") => Src::Uapi,
                        Some(s) => return Err(format!("line {line}: bad src `{s}`")),
                    };
                    opts.finish()?;
                    m.enums.push(EnumBlock {
                        flags: kw == "flags",
                        rust: path.to_string(),
                        members: Vec::new(),
                        line,
                    });
                    block = Block::Enum(m.enums.len() - 1, src);
                }
                "rust-only" => {
                    if pos.len() < 3 {
                        return Err(format!("line {line}: expected `rust-only PATH reason...`"));
                    }
                    let rust = qualify(&module, pos[1], line)?;
                    m.rust_only.push(RustOnly {
                        rust,
                        reason: pos[2..].join(" "),
                        line,
                    });
                }
                other => return Err(format!("line {line}: unknown keyword `{other}`")),
            }
            Ok(())
        })();
        if let Err(e) = res {
            errors.push(e);
        }
    }
    if errors.is_empty() {
        validate(&m)?;
        Ok(m)
    } else {
        Err(errors.join("\n"))
    }
}

fn qualify(module: &str, name: &str, line: usize) -> Result<String, String> {
    if name.contains("::") {
        Ok(name.to_string())
    } else if module.is_empty() {
        Err(format!("line {line}: `{name}` needs a `module` line first"))
    } else {
        Ok(format!("{module}::{name}"))
    }
}

fn parse_field(words: &[&str], line: usize) -> Result<Field, String> {
    let (pos, mut opts) = split_opts(words, line)?;
    let [cname, ty] = pos.as_slice() else {
        return Err(format!("line {line}: expected `C_MEMBER TYPE [options]`"));
    };
    let ty = Ty::parse(ty).map_err(|e| format!("line {line}: {e}"))?;
    let (c, flex) = match *cname {
        "-" => (None, false),
        n => match n.strip_suffix("[]") {
            Some(base) => (Some(base.to_string()), true),
            None => (Some(n.to_string()), false),
        },
    };
    let rust = match opts.take("rust") {
        Some(r) => Some(r.to_string()),
        None if flex => None,
        None => match &c {
            Some(c) => Some(c.rsplit('.').next().unwrap_or(c).to_string()),
            None => {
                return Err(format!(
                    "line {line}: a Rust-only field `-` needs rust=NAME"
                ))
            }
        },
    };
    let c_ty = match opts.take("c") {
        None => CTy::Same,
        Some("union") => CTy::Union,
        Some(t) => CTy::Other(Ty::parse(t).map_err(|e| format!("line {line}: {e}"))?),
    };
    let since = opts.version("since")?;
    let before = match opts.take("before") {
        None => None,
        Some(v) => {
            let (ver, t) = v
                .split_once(':')
                .ok_or_else(|| format!("line {line}: expected before=X.Y:TYPE"))?;
            let ver = Version::parse(ver)
                .ok_or_else(|| format!("line {line}: bad version in before="))?;
            Some((ver, Ty::parse(t).map_err(|e| format!("line {line}: {e}"))?))
        }
    };
    let was = parse_was(opts.take("was"), line)?;
    opts.finish()?;
    Ok(Field {
        c,
        rust,
        ty,
        c_ty,
        flex,
        since,
        before,
        was,
        line,
    })
}

fn validate(m: &Manifest) -> Result<(), String> {
    let mut errors = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for s in &m.structs {
        // A C struct may be listed again under another Rust name: a view of it through
        // another member of a union it contains (rxe_send_wr's `wr`). Field types name
        // the first listing.
        if let Some(prev) = seen.insert(format!("struct {} {}", s.c, s.rust), s.line) {
            errors.push(format!(
                "line {}: struct {} already listed at line {prev}",
                s.line, s.c
            ));
        }
        for f in &s.fields {
            if let Ty::Struct(t) = &f.ty {
                if !m.structs.iter().any(|o| &o.c == t) {
                    errors.push(format!(
                        "line {}: field type `{t}` is not a struct of the manifest",
                        f.line
                    ));
                }
            }
        }
    }
    for c in &m.consts {
        let key = format!("{} {}", c.c, c.rust);
        if let Some(prev) = seen.insert(key, c.line) {
            errors.push(format!(
                "line {}: {} already listed at line {prev}",
                c.line, c.c
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

impl Manifest {
    /// The struct with this C name.
    pub fn struct_by_c(&self, c: &str) -> Option<&Struct> {
        self.structs.iter().find(|s| s.c == c)
    }

    /// Reads and parses `abi/manifest.txt` of this repository.
    pub fn load() -> Manifest {
        let path = super::repo_path("abi/manifest.txt");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        parse(&text).unwrap_or_else(|e| panic!("abi/manifest.txt is invalid:\n{e}"))
    }
}
