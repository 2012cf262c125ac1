//! `uverbs devinfo --json` against sources that the code printing it did not write.
//!
//! `tests/golden/devinfo-rxe0.json` is what `uverbs devinfo --json -d rxe0` printed in one
//! boot of the reference VM (Linux 6.1, rxe0 on a dummy netdev), and
//! `tests/golden/devinfo-rxe0-v.txt` what rdma-core's `ibv_devinfo -v -d rxe0` printed in
//! the same boot. The bin's unit test `json::tests::golden_rxe0` only detects a change of
//! the output; this file checks the document itself:
//!
//! - against `docs/json-schema.md`, the contract users read: every member of a device,
//!   port, GID and attribute set is documented in its section, every documented member is
//!   there, and each has its documented type (integer, string, GUID, enum, flags, ...);
//! - against rdma-core's text: every value `ibv_devinfo -v` printed is equal in the JSON
//!   (each line of the text is either compared or named below as absent from the JSON,
//!   with the reason).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::json::{parse_json, Json};

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn golden() -> Json {
    parse_json(read("tests/golden/devinfo-rxe0.json").as_bytes()).expect("the golden JSON parses")
}

/// The document's one device.
fn device(doc: &Json) -> &Json {
    let devs = doc.get("devices").expect("devices").arr();
    assert_eq!(devs.len(), 1, "one device in the golden document");
    &devs[0]
}

// ------------------------------------------------------------------ the schema

/// The member tables of one `### SECTION` of docs/json-schema.md (or of the part of the
/// file before the first such heading below `## uverbs devinfo --json`): member -> type.
fn table_members(md: &str, section: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut on = false;
    for line in md.lines() {
        if line.starts_with('#') {
            on = line.trim_start_matches('#').trim() == section;
            continue;
        }
        if !on || !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "", names, type, meaning, ""
        assert!(
            cells.len() >= 4,
            "{section}: a table row with 3 cells: {line}"
        );
        for name in cells[1].split(',') {
            let name = name.trim().trim_matches('`');
            out.insert(name.to_string(), cells[2].to_string());
        }
    }
    assert!(
        !out.is_empty(),
        "docs/json-schema.md has no member table under {section}"
    );
    out
}

/// The members the ATTRIBUTES prose names: lower-case identifiers in backticks, each
/// followed by its nested members when a backticked `{"a", "b"}` comes next.
fn prose_members(md: &str, section: &str) -> BTreeMap<String, Vec<String>> {
    let start = md
        .find(&format!("### {section}\n"))
        .unwrap_or_else(|| panic!("no ### {section}"));
    let rest = &md[start + section.len() + 5..];
    let text = &rest[..rest.find("\n### ").unwrap_or(rest.len())];
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut last = None;
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        if span.starts_with("{\"") {
            let nested = span
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(|s| s.trim().trim_matches('"').to_string())
                .collect();
            let owner: &String = last.as_ref().expect("a nested list follows a member");
            out.insert(owner.clone(), nested);
        } else if !span.is_empty()
            && !span.starts_with("ibv_")
            && span
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            out.entry(span.to_string()).or_default();
            last = Some(span.to_string());
        }
    }
    out
}

fn is_guid(s: &str) -> bool {
    let g: Vec<&str> = s.split(':').collect();
    g.len() == 4
        && g.iter()
            .all(|p| p.len() == 4 && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_int(v: &Json) -> bool {
    v.int().is_some()
}

fn is_enum(v: &Json) -> bool {
    matches!(v.get("name"), Some(Json::Str(_) | Json::Null)) && v.get("value").is_some_and(is_int)
}

fn is_flags(v: &Json) -> bool {
    v.get("value").is_some_and(is_int)
        && matches!(v.get("names"), Some(Json::Arr(n)) if n.iter().all(|x| x.str().is_some()))
        && v.get("unknown").is_some_and(is_int)
}

/// Whether `v` has the documented type `ty` (a cell of the schema's tables).
fn has_type(v: &Json, ty: &str, sections: &dyn Fn(&str) -> bool) -> bool {
    if let Some(t) = ty.strip_suffix(" or null") {
        return *v == Json::Null || has_type(v, t, sections);
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return matches!(v, Json::Arr(a) if a.iter().all(|x| has_type(x, inner, sections)));
    }
    if let Some(extra) = ty
        .strip_prefix("enum + `")
        .and_then(|t| t.strip_suffix('`'))
    {
        return is_enum(v) && v.get(extra).is_some_and(|x| x.num().is_some());
    }
    match ty {
        "integer" => is_int(v),
        "number" => v.num().is_some(),
        "string" => v.str().is_some(),
        "boolean" => matches!(v, Json::Bool(_)),
        "GUID" => v.str().is_some_and(is_guid),
        "enum" => is_enum(v),
        "flags" => is_flags(v),
        "object" => matches!(v, Json::Obj(_)),
        section if section.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
            matches!(v, Json::Obj(_)) && sections(section)
        }
        other => panic!("docs/json-schema.md: a type this test does not know: {other:?}"),
    }
}

fn members(v: &Json) -> BTreeSet<String> {
    match v {
        Json::Obj(m) => m.iter().map(|(k, _)| k.clone()).collect(),
        _ => panic!("not an object: {v:?}"),
    }
}

/// Checks object `v` against a member table: the same members, each of its type.
fn check_table(what: &str, v: &Json, table: &BTreeMap<String, String>) {
    let have = members(v);
    let documented: BTreeSet<String> = table.keys().cloned().collect();
    assert_eq!(
        have, documented,
        "{what}: the members printed (left) and documented (right) differ"
    );
    for (name, ty) in table {
        let x = v.get(name).unwrap();
        assert!(
            has_type(x, ty, &|_| true),
            "{what}.{name}: documented as {ty}, printed {x:?}"
        );
    }
}

#[test]
fn golden_json_follows_the_documented_schema() {
    let md = read("docs/json-schema.md");
    let doc = golden();
    assert_eq!(
        members(&doc),
        ["devices", "generator", "schema_version"]
            .map(String::from)
            .into(),
        "the top-level members of `uverbs devinfo --json`"
    );
    assert_eq!(doc.get("schema_version").and_then(Json::int), Some(1));
    let dev = device(&doc);
    // DEVICE's two tables (discovery, then the rest) are one section.
    check_table("device", dev, &table_members(&md, "DEVICE"));

    let attrs = dev.get("attributes").unwrap();
    let prose = prose_members(&md, "ATTRIBUTES");
    let top: BTreeSet<String> = prose.keys().cloned().collect();
    assert_eq!(
        members(attrs),
        top,
        "attributes: the members printed (left) and named in ATTRIBUTES (right) differ"
    );
    for (name, nested) in &prose {
        let x = attrs.get(name).unwrap();
        if nested.is_empty() {
            continue;
        }
        // each nested member is an integer or flags
        let set: BTreeSet<String> = nested.iter().cloned().collect();
        assert_eq!(members(x), set, "attributes.{name}");
        for n in nested {
            let y = x.get(n).unwrap();
            assert!(is_int(y) || is_flags(y), "attributes.{name}.{n}: {y:?}");
        }
    }
    // The prose's types: GUIDs, strings and flags by name, every other member an integer.
    for (name, v) in match attrs {
        Json::Obj(m) => m,
        _ => unreachable!(),
    } {
        let ok = match name.as_str() {
            "node_guid" | "sys_image_guid" => v.str().is_some_and(is_guid),
            "fw_ver" => v.str().is_some(),
            "device_cap_flags" | "device_cap_flags_ex" | "raw_packet_caps" => is_flags(v),
            "atomic_cap" => is_enum(v),
            _ if !prose[name].is_empty() => true,
            _ => is_int(v),
        };
        assert!(ok, "attributes.{name}: not of its documented type: {v:?}");
    }

    let port_table = table_members(&md, "PORT");
    let ports = dev.get("ports").unwrap().arr();
    assert!(!ports.is_empty());
    for p in ports {
        check_table("port", p, &port_table);
        for g in p.get("gids").unwrap().arr() {
            // GID: documented by its example object; its members and their types.
            assert_eq!(
                members(g),
                [
                    "address",
                    "gid",
                    "index",
                    "netdev",
                    "netdev_ifindex",
                    "type"
                ]
                .map(String::from)
                .into(),
                "GID members (docs/json-schema.md ### GID)"
            );
            assert!(is_int(g.get("index").unwrap()) && is_int(g.get("netdev_ifindex").unwrap()));
            assert!(is_enum(g.get("type").unwrap()));
            let gid = g.get("gid").unwrap().str().unwrap();
            assert!(gid.split(':').count() == 8 && gid.len() == 39, "{gid}");
        }
    }
    assert_eq!(*dev.get("error").unwrap(), Json::Null);
}

// ------------------------------------------------------------------ rdma-core's values

/// `ibv_devinfo -v`'s lines as (depth, key, value): depth is the number of leading tabs.
fn devinfo_lines(text: &str) -> Vec<(usize, String, String)> {
    text.lines()
        .filter_map(|l| {
            let depth = l.len() - l.trim_start_matches('\t').len();
            let (k, v) = l.trim_start_matches('\t').split_once(':')?;
            Some((depth, k.to_string(), v.trim().to_string()))
        })
        .collect()
}

/// An integer as `ibv_devinfo` prints it: decimal, or hex with `0x`.
fn c_int(s: &str) -> i128 {
    let w = s.split_whitespace().next().unwrap_or(s);
    match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16),
        None => w.parse(),
    }
    .unwrap_or_else(|e| panic!("not an integer: {s:?}: {e}"))
}

/// The number in parentheses at the end of `PORT_ACTIVE (4)`.
fn paren(s: &str) -> i128 {
    let inner = s
        .rsplit_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no (N) in {s:?}"));
    c_int(inner)
}

fn at<'a>(v: &'a Json, path: &str) -> &'a Json {
    path.split('.').fold(v, |v, k| {
        v.get(k)
            .unwrap_or_else(|| panic!("the JSON has no {path} (at {k})"))
    })
}

#[test]
fn golden_json_equals_ibv_devinfo_of_the_same_boot() {
    let doc = golden();
    let dev = device(&doc);
    let attrs = dev.get("attributes").unwrap();
    let port = &dev.get("ports").unwrap().arr()[0];
    let text = read("tests/golden/devinfo-rxe0-v.txt");
    // Lines of ibv_devinfo that are not in the JSON, and why.
    let absent: &[(&str, &str)] = &[
        ("hca_id", "the device's name, compared below"),
        ("port", "the port number, compared below"),
        (
            "max_tso",
            "provider-only (tso_caps): docs/json-schema.md leaves it out",
        ),
        ("rx_hash_function", "provider-only (rss_caps)"),
        ("rx_hash_fields_mask", "provider-only (rss_caps)"),
        ("qp_rate_limit_min", "provider-only (packet_pacing_caps)"),
        ("qp_rate_limit_max", "provider-only (packet_pacing_caps)"),
    ];
    let mut compared = 0;
    for (depth, key, val) in devinfo_lines(&text) {
        let ctx = format!("ibv_devinfo's {key}: {val}");
        let int = |path: &str| {
            assert_eq!(at_int(attrs, path), c_int(&val), "{ctx}: attributes.{path}");
        };
        match (depth, key.as_str()) {
            (0, "hca_id") => assert_eq!(dev.get("name").unwrap().str(), Some(val.as_str())),
            (2, "port") => assert_eq!(at(port, "port").int(), Some(c_int(&val))),
            (_, k) if absent.iter().any(|a| a.0 == k) => continue,
            (1, "transport") => assert_eq!(at(dev, "transport.value").int(), Some(paren(&val))),
            (1, "fw_ver") => assert_eq!(at(attrs, "fw_ver").str(), Some(val.as_str())),
            (1, "node_guid" | "sys_image_guid") => {
                assert_eq!(at(attrs, &key).str(), Some(val.as_str()), "{ctx}")
            }
            (1, "atomic_cap") => {
                assert_eq!(
                    at(attrs, "atomic_cap.value").int(),
                    Some(paren(&val)),
                    "{ctx}"
                );
                let name = val.split_whitespace().next().unwrap();
                assert_eq!(
                    at(attrs, "atomic_cap.name").str(),
                    Some(format!("IBV_{name}").as_str())
                );
            }
            (1, "device_cap_flags" | "device_cap_flags_ex") => {
                int(&format!("{key}.value"));
                if key == "device_cap_flags" {
                    // the names ibv_devinfo lists under the value, one per line
                    let names = flag_names(&text, "device_cap_flags");
                    let ours: Vec<String> = at(attrs, "device_cap_flags.names")
                        .arr()
                        .iter()
                        .map(|n| n.str().unwrap().to_string())
                        .collect();
                    assert_eq!(ours, names, "{ctx}: the named bits");
                }
            }
            (1, "num_comp_vectors") => {
                assert_eq!(at(dev, "num_comp_vectors").int(), Some(c_int(&val)))
            }
            (1, k) if k.ends_with("_odp_caps") => {
                // "NO SUPPORT" (or nothing): no bit set
                let json_key = if k == "general_odp_caps" {
                    "general_caps"
                } else {
                    k
                };
                assert_eq!(
                    at(attrs, &format!("odp_caps.{json_key}.value")).int(),
                    Some(0)
                );
            }
            (1, "tso_caps" | "rss_caps" | "packet_pacing_caps") => continue,
            (2, "max_rwq_indirection_tables" | "max_rwq_indirection_table_size") => {
                int(&format!("rss_caps.{key}"))
            }
            (1, _) if attrs.get(&key).is_some() => int(&key),
            (3, "state" | "phys_state") => {
                assert_eq!(
                    at(port, &format!("{key}.value")).int(),
                    Some(paren(&val)),
                    "{ctx}"
                )
            }
            (3, "max_mtu" | "active_mtu") => {
                assert_eq!(at(port, &format!("{key}.value")).int(), Some(paren(&val)));
                assert_eq!(at(port, &format!("{key}.bytes")).int(), Some(c_int(&val)));
            }
            (3, "active_width") => {
                assert_eq!(at(port, "active_width.value").int(), Some(paren(&val)));
                let lanes = val.split('X').next().unwrap();
                assert_eq!(at(port, "active_width.lanes").int(), Some(c_int(lanes)));
            }
            (3, "active_speed") => {
                assert_eq!(at(port, "active_speed").int(), Some(paren(&val)));
                let gbps: f64 = val.split_whitespace().next().unwrap().parse().unwrap();
                assert_eq!(at(port, "speed.lane_gbps").num(), Some(gbps), "{ctx}");
            }
            (3, "link_layer") => {
                let want = match val.as_str() {
                    "InfiniBand" => 1,
                    "Ethernet" => 2,
                    other => panic!("link layer {other}"),
                };
                assert_eq!(at(port, "link_layer.value").int(), Some(want));
            }
            (3, "port_cap_flags" | "port_cap_flags2") => {
                assert_eq!(
                    at(port, &format!("{key}.value")).int(),
                    Some(c_int(&val)),
                    "{ctx}"
                )
            }
            (3, "max_vl_num") => {
                assert_eq!(at(port, "max_vl_num.value").int(), Some(paren(&val)))
            }
            (3, "port_lid") => assert_eq!(at(port, "lid").int(), Some(c_int(&val))),
            (3, "port_lmc") => assert_eq!(at(port, "lmc").int(), Some(c_int(&val))),
            (3, k) if k.starts_with("GID[") => {
                let index: i128 = c_int(k.trim_start_matches("GID[").trim_end_matches(']').trim());
                let (addr, kind) = val.split_once(", ").unwrap();
                let g = port
                    .get("gids")
                    .unwrap()
                    .arr()
                    .iter()
                    .find(|g| g.get("index").and_then(Json::int) == Some(index))
                    .unwrap_or_else(|| panic!("{ctx}: no GID {index} in the JSON"));
                assert_eq!(g.get("address").unwrap().str(), Some(addr), "{ctx}");
                let want = match kind {
                    "RoCE v1" => 1,
                    "RoCE v2" => 2,
                    other => panic!("GID type {other}"),
                };
                assert_eq!(at(g, "type.value").int(), Some(want), "{ctx}");
            }
            (3, _) if port.get(&key).is_some() => {
                assert_eq!(at(port, &key).int(), Some(c_int(&val)), "{ctx}")
            }
            _ => panic!("{ctx} (depth {depth}): neither compared nor listed as absent"),
        }
        compared += 1;
    }
    // Every device attribute of ibv_device_attr and every port line was there to compare.
    assert!(
        compared >= 70,
        "only {compared} lines of ibv_devinfo were compared"
    );
}

fn at_int(v: &Json, path: &str) -> i128 {
    at(v, path)
        .int()
        .unwrap_or_else(|| panic!("{path}: not an integer"))
}

/// The flag names `ibv_devinfo` prints under `key:` (lines of only a name, deeper).
fn flag_names(text: &str, key: &str) -> Vec<String> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&format!("{key}:")));
    lines.next();
    lines
        .take_while(|l| !l.contains(':'))
        .map(|l| l.trim().to_string())
        .collect()
}
