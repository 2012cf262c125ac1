//! Decoding tests on answers captured from real kernels (6.1 and 6.12, rxe and siw):
//! the crate's decoders must turn the kernel's bytes into exactly what libibverbs
//! reported for the same device in the same boot. See tests/fixtures/kernel/README.md.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use uverbs::raw::abi::ib_uverbs_gid_entry;
use uverbs::raw::driver;
use uverbs::{DeviceAttr, GidEntry, PortAttr};
use zerocopy::FromBytes;

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn check(kernel: &str, dev: &str) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kernel")
        .join(kernel);
    let cap =
        common::parse_lines(&std::fs::read_to_string(dir.join(format!("{dev}.capture"))).unwrap());
    let theirs =
        common::parse_lines(&std::fs::read_to_string(dir.join(format!("{dev}.oracle"))).unwrap());
    let driver_id: u32 = cap["driver_id"].parse().unwrap();
    let mut ours = BTreeMap::new();

    let raw = unhex(&cap["query_device.ex"]);
    let fw = driver::format_fw_ver(
        driver_id,
        u64::from_ne_bytes(raw[..8].try_into().unwrap()),
        &cap["fw_text"],
    );
    let d = DeviceAttr::from_ex_bytes(&raw, fw);
    common::device_lines(&d, &mut ours);
    ours.insert("ex.phys_port_cnt_ex".into(), d.phys_port_cnt.to_string());
    ours.insert(
        "ctx.num_comp_vectors".into(),
        cap["num_comp_vectors"].clone(),
    );

    for port in 1..=u32::from(d.phys_port_cnt) {
        let ioctl = PortAttr::from_resp_bytes(&unhex(&cap[&format!("query_port.{port}.ioctl")]));
        let write = PortAttr::from_resp_bytes(&unhex(&cap[&format!("query_port.{port}.write")]));
        // The legacy write() answer lacks only the extended fields.
        let mut legacy = ioctl;
        legacy.port_cap_flags2 = Default::default();
        legacy.active_speed_ex = 0;
        assert_eq!(
            legacy, write,
            "{kernel}/{dev} port {port}: write() answer differs"
        );
        common::port_lines(port, &ioctl, &mut ours);
    }
    // P_Keys come from sysfs, not from the kernel's ioctl answers: take the oracle's.
    for (k, v) in theirs.iter().filter(|(k, _)| k.starts_with("pkey.")) {
        ours.insert(k.clone(), v.clone());
    }
    let gids = unhex(&cap["gid_table"]);
    assert_eq!(gids.len() % 32, 0, "whole 32-byte entries");
    // A Vec<u8> is not 8-byte aligned: read each entry by value.
    let gids: Vec<GidEntry> = gids
        .chunks_exact(32)
        .map(|c| GidEntry::from_raw(&ib_uverbs_gid_entry::read_from_bytes(c).unwrap()))
        .collect();
    common::gid_lines(&gids, &mut ours);

    common::compare(&format!("{kernel}/{dev}"), &ours, &theirs);
    theirs.len()
}

#[test]
fn rxe_on_6_1() {
    assert!(check("6.1", "rxe0") > 90);
}

#[test]
fn siw_on_6_1() {
    assert!(check("6.1", "siw0") > 90);
}

#[test]
fn rxe_on_6_12() {
    assert!(check("6.12", "rxe0") > 90);
}

#[test]
fn siw_on_6_12() {
    assert!(check("6.12", "siw0") > 90);
}

#[test]
fn active_speed_ex_is_reported_from_6_7_on() {
    // Observed: 0 (reserved) on 6.1, 1 (SDR) on 6.12, for both drivers.
    for (kernel, expect) in [("6.1", 0u32), ("6.12", 1u32)] {
        for dev in ["rxe0", "siw0"] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/kernel")
                .join(kernel);
            let cap = common::parse_lines(
                &std::fs::read_to_string(dir.join(format!("{dev}.capture"))).unwrap(),
            );
            let p = PortAttr::from_resp_bytes(&unhex(&cap["query_port.1.ioctl"]));
            assert_eq!(p.active_speed_ex, expect, "{kernel}/{dev}");
            assert_eq!(p.speed(), uverbs::Speed::Sdr, "{kernel}/{dev}");
        }
    }
}
