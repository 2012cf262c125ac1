//! The scale test: with many devices in one VM (the rig's scale pass creates 16 rxe and
//! 16 siw), every device is enumerated, opened and queried, and every attribute matches
//! libibverbs.

mod common;

use uverbs::{Context, Discovery};

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn every_device_enumerated_and_matching() {
    let expected = common::devices();
    let found = Discovery::new().devices().expect("discovery");
    let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
    for dev in &expected {
        assert!(
            names.contains(&dev.as_str()),
            "{dev} not discovered (found {names:?})"
        );
    }
    let mut attrs = 0;
    for info in &found {
        let ctx = Context::open(info).unwrap_or_else(|e| panic!("open {}: {e}", info.name));
        let theirs = common::oracle(&info.name);
        common::compare(&info.name, &common::our_lines(&ctx), &theirs);
        attrs += theirs.len();
    }
    println!(
        "{} devices on kernel {}: all enumerated, {attrs} attributes equal libibverbs'",
        found.len(),
        common::kernel()
    );
}

/// With more than ten devices of a kind, the kernel's order (by device index, which
/// libibverbs keeps) is not the names' order (`rxe10` sorts before `rxe2`):
/// `uverbs devices` prints `ibv_devices`' bytes, and [`Discovery::index_order`] gives
/// the devices in that order, while [`Discovery::devices`] sorts them by name.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn devices_listed_in_the_kernels_order_as_libibverbs_lists_them() {
    let made = common::devices();
    let run = |cmd: &mut std::process::Command| {
        let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        assert!(o.status.success(), "{cmd:?}: {o:?}");
        String::from_utf8(o.stdout).expect("UTF-8")
    };
    let theirs = run(&mut std::process::Command::new("ibv_devices"));
    let ours = run(std::process::Command::new(common::uverbs_bin()).arg("devices"));
    assert_eq!(ours, theirs, "uverbs devices against ibv_devices");
    // Below the two header lines, a device's name first on each line.
    let listed: Vec<&str> = theirs
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let by_index = Discovery::new()
        .index_order(true)
        .devices()
        .expect("discovery");
    let names: Vec<&str> = by_index.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, listed, "index_order against ibv_devices");
    let indexes: Vec<u32> = by_index.iter().map(|d| d.index.expect("netlink")).collect();
    assert!(
        indexes.windows(2).all(|w| w[0] < w[1]),
        "indexes {indexes:?}"
    );
    let by_name = Discovery::new().devices().expect("discovery");
    let sorted: Vec<&str> = by_name.iter().map(|d| d.name.as_str()).collect();
    // The rig made its devices in the order it names them: where that is not the
    // names' order (the scale pass's rxe10 after rxe9), neither is the index order.
    let mut made_sorted = made.clone();
    made_sorted.sort_unstable();
    if made_sorted != made {
        assert_ne!(
            sorted,
            names,
            "name order and index order, {} devices",
            made.len()
        );
    }
    let mut again = names.clone();
    again.sort_unstable();
    assert_eq!(sorted, again, "devices() is sorted by name");
    // One device by name: the same record, from a dump that keeps only it.
    for d in &by_name {
        assert_eq!(&Discovery::new().device(&d.name).expect("device"), d);
    }
    for name in ["rxe", "rxe160", "siw1x"] {
        assert!(
            matches!(
                Discovery::new().device(name),
                Err(uverbs::Error::NoSuchDevice { .. })
            ),
            "{name}"
        );
    }
}
