//! Device tests: every attribute the crate reports equals what libibverbs reports for the
//! same device. They run inside the VM rig (real kernel, rxe and siw devices, rdma-core's
//! libibverbs); elsewhere they print why they are skipped.
//!
//! The oracle (`tests/vm/oracle.c`, built against Debian's libibverbs 44 and against
//! rdma-core 64.0's) prints `key=value` lines; `our_lines` prints the same keys from the
//! crate's answers.

mod common;

use common::{compare, compare_with, oracle, oracle_64, our_lines};

use uverbs::{CallPath, Context, CoreSupport, DeviceAnswer, Discovery, Error, OpenOptions};

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn every_attribute_matches_libibverbs() {
    let devs = common::devices();
    for dev in &devs {
        let info = Discovery::new().device(dev).expect("discover");
        let ctx = Context::open(&info).expect("open");
        let theirs = oracle(dev);
        let ours = our_lines(&ctx);
        compare(dev, &ours, &theirs);
        // rdma-core 64.0's libibverbs too: it has active_speed_ex and
        // ibv_query_port_speed, so every key the crate reports is checked.
        let theirs_64 = oracle_64(dev);
        for k in ["port.1.active_speed_ex", "port.1.effective_speed"] {
            assert!(theirs_64.contains_key(k), "{dev}: oracle-64 lacks {k}");
        }
        compare_with(dev, "libibverbs 64.0", &ours, &theirs_64, &[]);
    }
}

/// `query_device_into` (the answer kept as the kernel wrote it, decoded when read) gives
/// what `query_device` gives, which `every_attribute_matches_libibverbs` checks against
/// libibverbs; one answer reused across devices carries each device's own firmware text
/// and values (nothing of the previous device's answer is left over).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn device_answer_matches_query_device() {
    let devs = common::devices();
    let mut reused = DeviceAnswer::default();
    for dev in &devs {
        let ctx = Context::open_by_name(dev).expect("open");
        let attr = ctx.query_device().expect("query_device");
        let mut fresh = DeviceAnswer::default();
        ctx.query_device_into(&mut fresh)
            .expect("query_device_into");
        assert_eq!(fresh.attr(), attr, "{dev}: fresh answer");
        ctx.query_device_into(&mut reused)
            .expect("query_device_into");
        assert_eq!(reused.attr(), attr, "{dev}: reused answer");
        assert_eq!(reused.fw_ver(), attr.fw_ver, "{dev}: firmware text");
        assert_eq!(reused.phys_port_cnt(), ctx.port_count(), "{dev}: ports");
        assert_eq!(
            u64::from(reused.raw().response_length),
            u64::from(attr.ex_response_length),
            "{dev}"
        );
        // Through the forced paths, the same.
        for path in [CallPath::Ioctl, CallPath::Write] {
            assert_eq!(
                ctx.query_device_via(path).expect("query_device_via"),
                attr,
                "{dev}: {path:?}"
            );
        }
    }
    println!("{} device(s): query_device_into agrees", devs.len());
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn write_fallbacks_match_the_ioctl_path() {
    let devs = common::devices();
    for dev in &devs {
        let info = Discovery::new().device(dev).expect("discover");
        let via_ioctl = OpenOptions::new()
            .get_context(CallPath::Ioctl)
            .open(&info)
            .expect("GET_CONTEXT by ioctl");
        assert_eq!(via_ioctl.get_context_path(), CallPath::Ioctl);
        let via_write = OpenOptions::new()
            .get_context(CallPath::Write)
            .open(&info)
            .expect("GET_CONTEXT by write()");
        assert_eq!(via_write.get_context_path(), CallPath::Write);
        assert_eq!(via_ioctl.num_comp_vectors(), via_write.num_comp_vectors());
        for ctx in [&via_ioctl, &via_write] {
            for n in 1..=u32::from(ctx.port_count()) {
                let a = ctx
                    .query_port_via(n, CallPath::Ioctl)
                    .expect("QUERY_PORT ioctl");
                let b = ctx
                    .query_port_via(n, CallPath::Write)
                    .expect("QUERY_PORT write()");
                // The write() response is the 40-byte legacy one: no port_cap_flags2 or
                // active_speed_ex. Everything else is the same.
                let mut a_legacy = a;
                a_legacy.port_cap_flags2 = Default::default();
                a_legacy.active_speed_ex = 0;
                // QUERY_PORT_SPEED is an ioctl method: the write() path does not ask it.
                a_legacy.effective_speed = None;
                assert_eq!(a_legacy, b, "{dev} port {n}: ioctl and write() differ");
            }
            let ex = ctx
                .query_device_via(CallPath::Ioctl)
                .expect("QUERY_DEVICE ioctl");
            let w = ctx
                .query_device_via(CallPath::Write)
                .expect("QUERY_DEVICE write()");
            assert_eq!(
                ex, w,
                "{dev}: ex QUERY_DEVICE by ioctl and by write() differ"
            );
        }
        println!("{dev}: write() GET_CONTEXT, QUERY_PORT and QUERY_DEVICE match the ioctls");
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn core_support_and_query_context() {
    for dev in &common::devices() {
        let info = Discovery::new().device(dev).expect("discover");
        let ctx = OpenOptions::new()
            .get_context(CallPath::Ioctl)
            .open(&info)
            .expect("GET_CONTEXT by ioctl");
        // Observed on 6.1 and 6.12, rxe and siw: GET_CONTEXT reports optional MR access
        // (a core feature, not the driver's) and no other bit.
        assert_eq!(ctx.core_support(), CoreSupport::OPTIONAL_MR_ACCESS, "{dev}");
        // The write() GET_CONTEXT has no CORE_SUPPORT: nothing is reported.
        let w = OpenOptions::new()
            .get_context(CallPath::Write)
            .open(&info)
            .expect("GET_CONTEXT by write()");
        assert_eq!(w.core_support(), CoreSupport::empty(), "{dev}");
        // QUERY_CONTEXT asks the driver (query_ucontext), which rxe and siw do not
        // implement: observed EOPNOTSUPP on both kernels, typed as NotSupported. A driver
        // that answers must repeat GET_CONTEXT's values.
        match ctx.query_context() {
            Ok(q) => {
                assert_eq!(q.num_comp_vectors, ctx.num_comp_vectors(), "{dev}");
                assert_eq!(q.core_support, ctx.core_support(), "{dev}");
                assert!(
                    !(dev.starts_with("rxe") || dev.starts_with("siw")),
                    "{dev}: QUERY_CONTEXT answered ({q:?}); rxe and siw did not"
                );
            }
            Err(Error::NotSupported { op, errno }) => {
                assert_eq!(errno, rustix::io::Errno::OPNOTSUPP, "{dev}");
                assert_eq!(
                    (op.what, op.device.as_str()),
                    ("QUERY_CONTEXT", dev.as_str())
                );
            }
            Err(e) => panic!("{dev}: QUERY_CONTEXT: {e:?}"),
        }
        println!(
            "{dev}: core support {:?} by ioctl GET_CONTEXT, none by write(); QUERY_CONTEXT: {:?}",
            ctx.core_support(),
            ctx.query_context().map_err(|e| e.errno())
        );
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn bad_ports_are_refused_before_any_syscall() {
    let devs = common::devices();
    for dev in &devs {
        let ctx = Context::open_by_name(dev).expect("open");
        let count = u32::from(ctx.port_count());
        for bad in [0, count + 1, 255, u32::MAX] {
            match ctx.query_port(bad) {
                Err(Error::NoSuchPort { op, port_count }) => {
                    assert_eq!(port_count, count);
                    assert_eq!(op.port, Some(bad));
                    assert_eq!(op.device, *dev);
                    let msg = Error::NoSuchPort { op, port_count }.to_string();
                    assert!(
                        msg.contains(dev.as_str()) && msg.contains(&bad.to_string()),
                        "{msg}"
                    );
                }
                other => panic!("{dev} port {bad}: expected NoSuchPort, got {other:?}"),
            }
        }
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn sysfs_discovery_agrees_with_netlink() {
    let devs = common::devices();
    let nl = Discovery::new().devices().expect("netlink discovery");
    let sy = Discovery::new()
        .netlink(false)
        .devices()
        .expect("sysfs discovery");
    assert_eq!(nl.len(), sy.len());
    for dev in &devs {
        let a = nl
            .iter()
            .find(|d| &d.name == dev)
            .expect("netlink lists it");
        let b = sy.iter().find(|d| &d.name == dev).expect("sysfs lists it");
        assert_eq!(a.node_guid, b.node_guid, "{dev}");
        assert_eq!(a.node_type, b.node_type, "{dev}");
        assert_eq!(a.port_count, b.port_count, "{dev}");
        assert_eq!(a.uverbs, b.uverbs, "{dev}");
        // sysfs has no driver id: the probe must find the one netlink reports.
        let ctx = OpenOptions::new()
            .open(b)
            .expect("open from sysfs discovery");
        assert_eq!(
            Some(ctx.driver_id()),
            a.driver_id,
            "{dev}: probed driver id"
        );
    }
    println!(
        "{} device(s): sysfs and netlink discovery agree",
        devs.len()
    );
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn query_port_speed_is_not_supported_before_linux_7_0() {
    // QUERY_PORT_SPEED came with Linux 7.0: the rig's 6.1 and 6.12 lack the method, and
    // answer an unknown method with EPROTONOSUPPORT (observed). The context remembers the
    // answer: the second call fails the same way without asking, and query_port leaves
    // effective_speed empty.
    use rustix::io::Errno;
    use uverbs::raw::Interface;
    let devs = common::devices();
    for dev in &devs {
        let ctx = Context::open_by_name(dev).expect("open");
        assert!(!ctx.raw().caps().is_missing(Interface::QueryPortSpeed));
        for n in 1..=u32::from(ctx.port_count()) {
            for attempt in ["first", "second"] {
                match ctx.query_port_speed(n) {
                    Err(Error::NotSupported { op, errno }) => {
                        println!(
                            "{dev} port {n} on Linux {}: QUERY_PORT_SPEED not supported ({attempt} call): errno {} ({errno})",
                            common::kernel(),
                            errno.raw_os_error()
                        );
                        assert_eq!(errno, Errno::PROTONOSUPPORT, "{dev} port {n}");
                        assert_eq!((op.what, op.port), ("QUERY_PORT_SPEED", Some(n)));
                        assert_eq!(op.device, *dev);
                    }
                    other => panic!("{dev} port {n}: expected NotSupported, got {other:?}"),
                }
                assert!(ctx.raw().caps().is_missing(Interface::QueryPortSpeed));
            }
            assert_eq!(ctx.query_port(n).expect("query_port").effective_speed, None);
        }
        assert!(matches!(
            ctx.query_port_speed(0),
            Err(Error::NoSuchPort { .. })
        ));
    }
}
