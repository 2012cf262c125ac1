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
