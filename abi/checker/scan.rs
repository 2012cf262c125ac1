//! A small scanner of the Rust mirror's source (`src/raw/abi/**/*.rs`, `src/raw/driver/**/*.rs`):
//! the public structs with their fields and the public constants, so that anything added
//! there and missing from `abi/manifest.txt` is found without anyone listing files.

use std::path::{Path, PathBuf};

/// What a public item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Struct,
    Const,
    Static,
}

/// A public item found in the source.
#[derive(Debug, Clone)]
pub struct Item {
    pub kind: Kind,
    /// Path as the file layout gives it (`uverbs::raw::abi::ioctl::ib_uverbs_attr`).
    pub path: String,
    /// Fields of a struct: name, whether it is `pub`, and its type as written.
    pub fields: Vec<(String, bool, String)>,
    /// The declared type of a const or static.
    pub ty: String,
    pub file: PathBuf,
    pub line: usize,
}

impl Item {
    /// The item's name.
    pub fn name(&self) -> &str {
        self.path.rsplit("::").next().unwrap_or(&self.path)
    }

    /// Whether `path` names this item: its own path, or the path of a module it is
    /// re-exported from by a glob (`pub use ioctl::*` makes `uverbs::raw::abi::X` valid).
    pub fn matches(&self, path: &str) -> bool {
        if path == self.path {
            return true;
        }
        let (Some((pmod, pname)), Some((mymod, myname))) =
            (path.rsplit_once("::"), self.path.rsplit_once("::"))
        else {
            return false;
        };
        pname == myname && mymod.starts_with(pmod) && mymod[pmod.len()..].starts_with("::")
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    Lit(String),
}

fn tokenize(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && (b.get(i + 1) == Some(&'#') || b.get(i + 1) == Some(&'"')) && {
            // raw string r"..." or r#"..."#
            let mut j = i + 1;
            while b.get(j) == Some(&'#') {
                j += 1;
            }
            b.get(j) == Some(&'"')
        } {
            let mut j = i + 1;
            let mut hashes = 0;
            while b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '\n' {
                    line += 1;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push((Tok::Lit(String::new()), line));
            i = j;
        } else if c == '"' || (c == 'b' && b.get(i + 1) == Some(&'"')) {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                if b.get(j) == Some(&'\n') {
                    line += 1;
                }
                j += 1;
            }
            out.push((Tok::Lit(String::new()), line));
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                out.push((Tok::Lit(String::new()), line));
                i = j + 1;
            } else if b.get(i + 2) == Some(&'\'') {
                out.push((Tok::Lit(String::new()), line));
                i += 3;
            } else {
                out.push((Tok::Punct('\''), line));
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let mut j = i;
            while j < b.len() && (b[j].is_alphanumeric() || b[j] == '_') {
                j += 1;
            }
            let w: String = b[i..j].iter().collect();
            if c.is_ascii_digit() {
                out.push((Tok::Lit(w), line));
            } else {
                out.push((Tok::Ident(w), line));
            }
            i = j;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

struct Walker<'a> {
    t: &'a [(Tok, usize)],
    i: usize,
    file: &'a Path,
    items: Vec<Item>,
}

impl Walker<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|x| &x.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k).map(|x| &x.0)
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn is_ident(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == w)
    }
    fn ident(&mut self) -> Option<String> {
        match self.peek() {
            Some(Tok::Ident(x)) => {
                let x = x.clone();
                self.i += 1;
                Some(x)
            }
            _ => None,
        }
    }
    fn line(&self) -> usize {
        self.t.get(self.i).map_or(0, |x| x.1)
    }

    /// Skips a balanced group starting at an opening `(`, `[` or `{`.
    fn skip_group(&mut self) {
        let mut depth = 0i32;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => depth -= 1,
                _ => {}
            }
            self.i += 1;
            if depth <= 0 {
                return;
            }
        }
    }

    /// Skips `#[...]` and `#![...]`.
    fn skip_attrs(&mut self) {
        while self.is_punct('#') {
            self.i += 1;
            if self.is_punct('!') {
                self.i += 1;
            }
            if self.is_punct('[') {
                self.skip_group();
            }
        }
    }

    /// Skips to the end of an item: a `;` at depth 0, or after a `{...}` block at depth 0.
    fn skip_item(&mut self) {
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Punct(';') => {
                    self.i += 1;
                    return;
                }
                Tok::Punct('{') => {
                    self.skip_group();
                    // `struct X { } ` ends here; `const X: T = T { .. };` goes on to `;`.
                    if self.is_punct(';') {
                        self.i += 1;
                    }
                    return;
                }
                Tok::Punct('(' | '[') => self.skip_group(),
                _ => self.i += 1,
            }
        }
    }

    /// Tokens of a type up to `,`/`;`/`=`/`}` at depth 0, as text.
    fn type_text(&mut self) -> String {
        let mut s = String::new();
        let mut depth = 0i32;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Punct(',' | ';' | '=' | '}' | ')') if depth == 0 => break,
                Tok::Punct('<' | '(' | '[') => depth += 1,
                Tok::Punct('>' | ')' | ']') => depth -= 1,
                _ => {}
            }
            match tok {
                Tok::Ident(x) => {
                    if s.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        s.push(' ');
                    }
                    s.push_str(x);
                }
                Tok::Punct(c) => s.push(*c),
                Tok::Lit(l) => s.push_str(if l.is_empty() { "LIT" } else { l }),
            }
            self.i += 1;
        }
        s
    }

    /// `pub` or `pub(...)`: returns Some(true) for plain `pub`, Some(false) for a
    /// restricted one, None when there is no visibility.
    fn visibility(&mut self) -> Option<bool> {
        if !self.is_ident("pub") {
            return None;
        }
        self.i += 1;
        if self.is_punct('(') {
            self.skip_group();
            return Some(false);
        }
        Some(true)
    }

    fn walk_module(&mut self, module: &str, until_brace: bool) {
        loop {
            self.skip_attrs();
            let Some(tok) = self.peek().cloned() else {
                return;
            };
            if until_brace && tok == Tok::Punct('}') {
                self.i += 1;
                return;
            }
            let line = self.line();
            let public = self.visibility() == Some(true);
            // Qualifiers that may precede the item keyword.
            while self.is_ident("unsafe") || self.is_ident("extern") || self.is_ident("async") {
                self.i += 1;
                if matches!(self.peek(), Some(Tok::Lit(_))) {
                    self.i += 1;
                }
            }
            match self.peek().cloned() {
                Some(Tok::Ident(k)) if k == "mod" => {
                    self.i += 1;
                    let name = self.ident().unwrap_or_default();
                    if self.is_punct('{') {
                        self.i += 1;
                        if public {
                            self.walk_module(&format!("{module}::{name}"), true);
                        } else {
                            // Private inline modules (tests) are not part of the mirror.
                            self.i -= 1;
                            self.skip_group();
                        }
                    } else {
                        self.skip_item();
                    }
                }
                Some(Tok::Ident(k)) if k == "struct" && public => {
                    self.i += 1;
                    let name = self.ident().unwrap_or_default();
                    let mut fields = Vec::new();
                    if self.is_punct('<') {
                        // Generics: skip to the matching '>'.
                        let mut d = 0;
                        while let Some(t) = self.peek() {
                            match t {
                                Tok::Punct('<') => d += 1,
                                Tok::Punct('>') => d -= 1,
                                _ => {}
                            }
                            self.i += 1;
                            if d == 0 {
                                break;
                            }
                        }
                    }
                    if self.is_punct('{') {
                        self.i += 1;
                        loop {
                            self.skip_attrs();
                            if self.is_punct('}') {
                                self.i += 1;
                                break;
                            }
                            if self.peek().is_none() {
                                break;
                            }
                            let fpub = self.visibility() == Some(true);
                            let fname = self.ident().unwrap_or_default();
                            if self.is_punct(':') {
                                self.i += 1;
                            }
                            let ty = self.type_text();
                            fields.push((fname, fpub, ty));
                            if self.is_punct(',') {
                                self.i += 1;
                            }
                        }
                    } else if self.is_punct('(') {
                        // Tuple struct: fields 0, 1, ...
                        self.i += 1;
                        let mut n = 0;
                        loop {
                            self.skip_attrs();
                            if self.is_punct(')') {
                                self.i += 1;
                                break;
                            }
                            if self.peek().is_none() {
                                break;
                            }
                            let fpub = self.visibility() == Some(true);
                            let ty = self.type_text();
                            fields.push((n.to_string(), fpub, ty));
                            n += 1;
                            if self.is_punct(',') {
                                self.i += 1;
                            }
                        }
                        self.skip_item();
                    } else {
                        self.skip_item();
                    }
                    self.items.push(Item {
                        kind: Kind::Struct,
                        path: format!("{module}::{name}"),
                        fields,
                        ty: String::new(),
                        file: self.file.to_path_buf(),
                        line,
                    });
                }
                Some(Tok::Ident(k)) if (k == "const" || k == "static") && public => {
                    self.i += 1;
                    if self.is_ident("mut") {
                        self.i += 1;
                    }
                    // `pub const fn` is a function.
                    if self.is_ident("fn") {
                        self.skip_item();
                        continue;
                    }
                    let name = self.ident().unwrap_or_default();
                    let mut ty = String::new();
                    if self.is_punct(':') {
                        self.i += 1;
                        ty = self.type_text();
                    }
                    self.skip_item();
                    self.items.push(Item {
                        kind: if k == "const" {
                            Kind::Const
                        } else {
                            Kind::Static
                        },
                        path: format!("{module}::{name}"),
                        fields: Vec::new(),
                        ty,
                        file: self.file.to_path_buf(),
                        line,
                    });
                }
                Some(_) => {
                    // `macro_rules! name { }` and every other item.
                    if self.is_ident("macro_rules") {
                        self.i += 1;
                    }
                    let before = self.i;
                    self.skip_item();
                    if self.i == before {
                        self.i += 1;
                    }
                }
                None => return,
            }
        }
    }
}

/// The module path of a source file: `src/raw/abi/ioctl.rs` -> `uverbs::raw::abi::ioctl`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && stem != "lib" {
            parts.push(stem);
        }
    }
    let mut path = String::from("uverbs");
    for p in parts {
        path.push_str("::");
        path.push_str(&p);
    }
    path
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Scans the public structs and constants of `src/<sub>/**/*.rs` (and `src/<sub>.rs`).
pub fn scan(src: &Path, sub: &str) -> Vec<Item> {
    let mut files = Vec::new();
    rs_files(&src.join(sub), &mut files);
    let single = src.join(format!("{sub}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let mut items = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let toks = tokenize(&text);
        let mut w = Walker {
            t: &toks,
            i: 0,
            file: &f,
            items: Vec::new(),
        };
        let module = module_of(src, &f);
        w.walk_module(&module, false);
        items.extend(w.items);
    }
    items
}

/// Scans a source text (for tests of the scanner).
pub fn scan_text(module: &str, text: &str) -> Vec<Item> {
    let toks = tokenize(text);
    let file = Path::new("<text>");
    let mut w = Walker {
        t: &toks,
        i: 0,
        file,
        items: Vec::new(),
    };
    w.walk_module(module, false);
    w.items
}

/// A Rust type as written (`[u8;4]`) in the manifest's notation (`u8[4]`).
fn manifest_type(rust: &str) -> String {
    let t = rust.replace(' ', "");
    if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        if let Some((e, n)) = inner.rsplit_once(';') {
            return format!("{}[{n}]", manifest_type(e));
        }
    }
    t.rsplit("::").next().unwrap_or(&t).to_string()
}

/// Everything public in the scanned source that the manifest does not list, and every
/// manifest entry the source does not define. Each problem says what to write where.
pub fn coverage(m: &super::manifest::Manifest, items: &[Item]) -> Vec<String> {
    let mut problems = Vec::new();
    let rust_only = |it: &Item| m.rust_only.iter().any(|r| it.matches(&r.rust));
    for it in items {
        let loc = format!("{}:{}", it.file.display(), it.line);
        match it.kind {
            Kind::Struct => {
                let Some(s) = m.structs.iter().find(|s| it.matches(&s.rust)) else {
                    if !rust_only(it) {
                        let mut add = format!("struct {}", it.name());
                        for (f, _, ty) in &it.fields {
                            add.push_str(&format!("\n        {f} {}", manifest_type(ty)));
                        }
                        problems.push(format!(
                            "struct {} ({loc}) is not in abi/manifest.txt: add it under its `header` and `module` \
                             lines (then run `{}`):\n    {add}\n  or, if it mirrors nothing in C: `rust-only {} <reason>`",
                            it.path,
                            super::generate::REGENERATE,
                            it.path
                        ));
                    }
                    continue;
                };
                for (f, public, ty) in &it.fields {
                    if !public {
                        problems.push(format!(
                            "{}.{f} ({loc}) is not `pub`: the ABI check reads every field with offset_of!",
                            it.path
                        ));
                    }
                    if !s
                        .fields
                        .iter()
                        .any(|mf| mf.rust.as_deref() == Some(f.as_str()))
                    {
                        problems.push(format!(
                            "{}.{f} ({loc}) is not in abi/manifest.txt: add `    {f} {}` to `struct {}` (line {}), \
                             then run `{}`",
                            it.path,
                            manifest_type(ty),
                            s.c,
                            s.line,
                            super::generate::REGENERATE
                        ));
                    }
                }
            }
            Kind::Const | Kind::Static => {
                let listed = m
                    .consts
                    .iter()
                    .any(|c| c.member_of.is_none() && it.matches(&c.rust));
                if !listed && !rust_only(it) {
                    problems.push(format!(
                        "{} {}: {} ({loc}) is not in abi/manifest.txt: add `const {}` under its `header` and `module` \
                         lines (then run `{}`), or, if it mirrors nothing in C: `rust-only {} <reason>`",
                        if it.kind == Kind::Const { "const" } else { "static" },
                        it.path,
                        it.ty,
                        it.name(),
                        super::generate::REGENERATE,
                        it.path
                    ));
                }
            }
        }
    }
    for s in &m.structs {
        if !items
            .iter()
            .any(|it| it.kind == Kind::Struct && it.matches(&s.rust))
        {
            problems.push(format!(
                "abi/manifest.txt line {} lists struct {} ({}), which src/raw/abi and src/raw/driver do not define",
                s.line, s.c, s.rust
            ));
        }
    }
    for c in m.consts.iter().filter(|c| c.member_of.is_none()) {
        if !items
            .iter()
            .any(|it| it.kind != Kind::Struct && it.matches(&c.rust))
        {
            problems.push(format!(
                "abi/manifest.txt line {} lists const {} ({}), which src/raw/abi and src/raw/driver do not define",
                c.line, c.c, c.rust
            ));
        }
    }
    for r in &m.rust_only {
        if !items.iter().any(|it| it.matches(&r.rust)) {
            problems.push(format!(
                "abi/manifest.txt line {} lists rust-only {}, which src/raw/abi and src/raw/driver do not define",
                r.line, r.rust
            ));
        }
    }
    problems
}
