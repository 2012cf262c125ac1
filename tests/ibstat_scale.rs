//! `uverbs` as `ibstat` and `ibstatus` against infiniband-diags 44 on every device of the
//! rig: in the scale pass of tests/vm/run-tests.sh that is 16 rxe + 16 siw, where the
//! order of the devices (`rxe1`, `rxe10`, ..., `rxe2`), of ibstat's list (the 16 rxe
//! only) and of ibstatus's glob are put to the test; in the normal VMs the same runs on
//! their 1 + 1. Every per-device case runs for the first two devices of each kind, the
//! device alone and its port 1 for the others; in the normal VMs, where
//! `ibstat_compat.rs` has compared every case, only those two for each device.

mod ibstat;

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn ibstat_and_ibstatus_match_infiniband_diags_on_every_device() {
    let env = ibstat::env("scale");
    let devs = ibstat::class_devices();
    let per_device = if devs.len() >= 8 { 2 } else { 0 };
    let (failures, n) = ibstat::compare_all(
        &env,
        &ibstat::ibstat_cases(&devs, per_device),
        &ibstat::ibstatus_cases(&devs, per_device),
    );
    let src = ibstat::sources(&env);
    let cas = devs.iter().filter(|d| ibstat::node_type(d) == 1).count();
    assert_eq!(src.len(), cas, "{src:?}");
    assert!(src.iter().all(|(_, kernel)| *kernel), "{src:?}");
    println!(
        "{} devices: compared {n} runs with infiniband-diags 44; {} differ",
        devs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
