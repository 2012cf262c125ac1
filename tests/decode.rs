//! Decoding tests on answers captured from real kernels (6.1 and 6.12, rxe and siw):
//! the crate's decoders must turn the kernel's bytes into exactly what libibverbs
//! reported for the same device in the same boot. See tests/fixtures/kernel/README.md.
//!
//! Every key the oracle printed is compared, except the P_Keys (`pkey.P.I`): the kernel
//! answers them through sysfs, not through the ioctls the captures hold, so there is
//! nothing of the crate's to decode here. tests/device.rs compares `query_pkeys` with
//! libibverbs' `ibv_query_pkey` in the VM, on both kernels.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use uverbs::raw::abi::ib_uverbs_gid_entry;
use uverbs::raw::driver;
use uverbs::{DeviceAttr, GidEntry, PortAttr};
use zerocopy::FromBytes;

use common::unhex;

/// The oracle's keys that are not in the captures (see the module docs).
fn not_captured(key: &str) -> bool {
    key.starts_with("pkey.")
}

fn check(kernel: &str, dev: &str) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kernel")
        .join(kernel);
    let cap =
        common::parse_lines(&std::fs::read_to_string(dir.join(format!("{dev}.capture"))).unwrap());
    let mut theirs =
        common::parse_lines(&std::fs::read_to_string(dir.join(format!("{dev}.oracle"))).unwrap());
    theirs.retain(|k, _| !not_captured(k));
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
