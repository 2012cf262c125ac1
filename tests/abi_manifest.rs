//! The ABI manifest itself: it parses, it covers everything in `src/raw/abi` and
//! `src/raw/driver`, and the checked-in Rust table is what the generator makes of it now.
//!
//! This test target does not include the generated table, so it builds (and can
//! regenerate the table) even when a stale table no longer compiles:
//! `cargo test --test abi_manifest -- --ignored regenerate`.

#[path = "../abi/checker/mod.rs"]
mod checker;

use checker::generate::{self, REGENERATE, RUST_TABLE_PATH};
use checker::manifest::{self, Manifest, Src, Ty, Version};
use checker::scan;

#[test]
fn manifest_parses() {
    let m = Manifest::load();
    assert!(!m.structs.is_empty() && !m.consts.is_empty() && !m.enums.is_empty());
    println!(
        "abi/manifest.txt: {} headers, {} structs, {} fields, {} constants and enum values, {} enum/flags types, {} rust-only items",
        m.headers.len(),
        m.structs.len(),
        m.structs.iter().map(|s| s.fields.len()).sum::<usize>(),
        m.consts.len(),
        m.enums.len(),
        m.rust_only.len()
    );
}

#[test]
fn every_mirror_item_is_in_the_manifest() {
    let m = Manifest::load();
    let src = checker::repo_path("src");
    let mut items = scan::scan(&src, "raw/abi");
    items.extend(scan::scan(&src, "raw/driver"));
    assert!(
        items.iter().any(|i| i.name() == "ib_uverbs_attr"),
        "the scanner found no ib_uverbs_attr in src/raw/abi: is it broken?"
    );
    let problems = scan::coverage(&m, &items);
    println!(
        "coverage: {} public structs and constants in src/raw/abi and src/raw/driver, {} problems",
        items.len(),
        problems.len()
    );
    assert!(
        problems.is_empty(),
        "the ABI manifest and the mirror disagree ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn generated_rust_table_is_fresh() {
    let m = Manifest::load();
    let want = generate::rust_table_source(&m);
    let path = checker::repo_path(RUST_TABLE_PATH);
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        if std::env::var_os("UVERBS_ABI_REGENERATE").is_some() {
            std::fs::write(&path, &want).expect("write the Rust table");
            println!("rewrote {}", path.display());
            return;
        }
        panic!(
            "{RUST_TABLE_PATH} is stale: abi/manifest.txt changed since it was generated. Run `{REGENERATE}` \
             (or set UVERBS_ABI_REGENERATE=1) and commit the result."
        );
    }
}

/// Rewrites `abi/generated/rust_table.rs` from the manifest.
#[test]
#[ignore = "writes abi/generated/rust_table.rs; run on purpose"]
fn regenerate() {
    let m = Manifest::load();
    let path = checker::repo_path(RUST_TABLE_PATH);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, generate::rust_table_source(&m)).expect("write the Rust table");
    println!("wrote {}", path.display());
}

#[test]
fn parser_reads_every_kind_of_line() {
    let text = "\
module uverbs::raw::abi::x
header rdma/x.h since=6.2
const A_B rust=AB since=6.3 until=6.9
struct s_c rust=S
    a u16
    per.b u32[2] before=6.7:u8[8]
    u u16 c=union
    - u32 rust=pad
    tail[] u64
enum uverbs::types::E
    V1 IBV_V1
    V2 IB_V2 doc=1<<4
    V3 IB_UVERBS_V3 src=uapi since=6.12
rust-only uverbs::raw::abi::x::Helper not a C item
";
    let m = manifest::parse(text).unwrap();
    assert_eq!(m.headers[0].since, Some(Version(6, 2)));
    let c = &m.consts[0];
    assert_eq!(
        (c.c.as_str(), c.rust.as_str()),
        ("A_B", "uverbs::raw::abi::x::AB")
    );
    assert_eq!(
        (c.since, c.until),
        (Some(Version(6, 3)), Some(Version(6, 9)))
    );
    let s = &m.structs[0];
    assert_eq!(s.rust, "uverbs::raw::abi::x::S");
    assert_eq!(s.fields[1].rust.as_deref(), Some("b"));
    assert_eq!(
        s.fields[1].ty,
        Ty::Array(
            Box::new(Ty::Int {
                signed: false,
                bits: 32
            }),
            2
        )
    );
    assert_eq!(s.fields[1].before.as_ref().unwrap().0, Version(6, 7));
    assert!(s.fields[3].c.is_none());
    assert!(s.fields[4].flex && s.fields[4].rust.is_none());
    assert_eq!(m.consts[2].src, Src::Doc(16));
    assert_eq!(m.consts[3].src, Src::Uapi);
    assert_eq!(m.rust_only[0].reason, "not a C item");

    let bad = manifest::parse("module m::x\nheader h.h\nstruct a\n    f u7\n").unwrap_err();
    assert!(bad.contains("line 4") && bad.contains("u7"), "{bad}");
}

#[test]
fn scanner_finds_pub_items_and_skips_the_rest() {
    let src = r#"
//! docs
use zerocopy::FromBytes;
/// A struct.
#[repr(C)]
#[derive(Debug)]
pub struct a_b {
    /// f
    pub f: u32,
    pub g: [u8; 4],
    h: u64,
}
const _: () = assert!(core::mem::size_of::<a_b>() == 16);
pub const X: u32 = 1 << 3;
pub const Y: &'static str = "a; b { c";
pub const fn not_a_const() -> u32 { 1 }
impl a_b { pub const INNER: u32 = 2; }
struct Private { pub x: u8 }
pub mod inner { pub const Z: u16 = 0xff; }
mod tests { pub const T: u8 = 0; }
bitflags::bitflags! { pub struct F: u32 { const A = 1; } }
pub static S: [u8; 2] = [0; 2];
"#;
    let items = scan::scan_text("uverbs::raw::abi::t", src);
    let names: Vec<&str> = items.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        names,
        [
            "uverbs::raw::abi::t::a_b",
            "uverbs::raw::abi::t::X",
            "uverbs::raw::abi::t::Y",
            "uverbs::raw::abi::t::inner::Z",
            "uverbs::raw::abi::t::S"
        ]
    );
    let f: Vec<(&str, bool, &str)> = items[0]
        .fields
        .iter()
        .map(|(n, p, t)| (n.as_str(), *p, t.as_str()))
        .collect();
    assert_eq!(
        f,
        [
            ("f", true, "u32"),
            ("g", true, "[u8;4]"),
            ("h", false, "u64")
        ]
    );
    assert!(
        items[1].matches("uverbs::raw::abi::X"),
        "glob re-export from a parent module"
    );
    assert!(!items[1].matches("uverbs::raw::abi::tt::X"));
}
