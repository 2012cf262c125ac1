//! Device discovery: the netlink parser on answers captured from real kernels
//! (`tests/fixtures/netlink/`), the sysfs reader on fixture trees (`tests/fixtures/sysfs/`),
//! the device-node check, and, inside the VM rig, netlink against sysfs on live devices.

mod common;

use common::unhex;

use std::path::{Path, PathBuf};

use uverbs::error::Error;
use uverbs::netlink::nldev::{
    huge_decode_dev, parse_chardev, parse_device, NlChardev, NlDevice, TYPE_GET, TYPE_GET_CHARDEV,
};
use uverbs::netlink::{parse_answer, Step};
use uverbs::types::{Guid, NodeType, TransportType};
use uverbs::verbs::discover::{Discovery, Source, UverbsDev};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// One capture: the GET dump datagrams, the GET_CHARDEV answers (device index, datagram),
/// and the answer for a device index that does not exist.
struct Capture {
    get: Vec<Vec<u8>>,
    chardev: Vec<(u32, Vec<u8>)>,
    bad: Vec<u8>,
}

fn capture(name: &str) -> Capture {
    let text = std::fs::read_to_string(fixtures().join("netlink").join(format!("{name}.hex")))
        .expect("capture file");
    let mut c = Capture {
        get: Vec::new(),
        chardev: Vec::new(),
        bad: Vec::new(),
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[..] {
            ["get", h] => c.get.push(unhex(h)),
            ["chardev", i, h] => c.chardev.push((i.parse().unwrap(), unhex(h))),
            ["chardev-bad", _, h] => c.bad = unhex(h),
            _ => panic!("bad line {line:?}"),
        }
    }
    c
}

/// Parses the dump as `Discovery` does: sequence number 1, until `NLMSG_DONE`.
fn dump(c: &Capture) -> Vec<NlDevice<'_>> {
    let mut out = Vec::new();
    let mut done = false;
    for (i, d) in c.get.iter().enumerate() {
        assert!(!done, "datagram after NLMSG_DONE");
        let step = parse_answer(d, 1, TYPE_GET, "test", |p| {
            out.push(parse_device(p)?);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("datagram {i}: {e}"));
        done = step == Step::Done;
    }
    assert!(done, "no NLMSG_DONE");
    out
}

/// Parses the GET_CHARDEV answers, with sequence numbers 2, 3, ... in capture order.
fn chardevs(c: &Capture) -> Vec<(u32, Result<NlChardev<'_>, Error>)> {
    c.chardev
        .iter()
        .enumerate()
        .map(|(k, (idx, d))| {
            let mut got = None;
            let r = parse_answer(d, 2 + k as u32, TYPE_GET_CHARDEV, "test", |p| {
                got = Some(parse_chardev(p)?);
                Ok(())
            })
            .map(|step| {
                assert_eq!(step, Step::Done);
                got.expect("a chardev message")
            });
            (*idx, r)
        })
        .collect()
}

fn bad_index_is_einval(c: &Capture) {
    let seq = 2 + c.chardev.len() as u32;
    let e = parse_answer(&c.bad, seq, TYPE_GET_CHARDEV, "test", |_| Ok(())).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    assert_eq!(e.errno(), Some(rustix::io::Errno::INVAL));
}

// Device capability bits named by `rdma -d dev` in the same VM (kernel `IB_DEVICE_*`):
// BAD_PKEY_CNTR 1, BAD_QKEY_CNTR 2, AUTO_PATH_MIG 4, CHANGE_PHY_PORT 5,
// UD_AV_PORT_ENFORCE 6, PORT_ACTIVE_EVENT 10, SYS_IMAGE_GUID 11, RC_RNR_NAK_GEN 12,
// SRQ_RESIZE 13, MEM_WINDOW 17, MEM_MGT_EXTENSIONS 21, MEM_WINDOW_TYPE_2B 24.
const RXE_CAPS: u64 = (1 << 1)
    | (1 << 2)
    | (1 << 4)
    | (1 << 5)
    | (1 << 6)
    | (1 << 10)
    | (1 << 11)
    | (1 << 12)
    | (1 << 13)
    | (1 << 17)
    | (1 << 21)
    | (1 << 24);
// siw: MEM_MGT_EXTENSIONS only.
const SIW_CAPS: u64 = 1 << 21;
// 6.12's rxe adds three bits `rdma` (iproute2 6.1) prints as UNKNOWN: 38-40, the
// FLUSH_GLOBAL, FLUSH_PERSISTENT and ATOMIC_WRITE capabilities of Linux 6.2.
const RXE_CAPS_6_12: u64 = RXE_CAPS | (0b111 << 38);

fn guid(s: &str) -> u64 {
    uverbs::sysfs::parse_guid(s).unwrap().0
}

#[test]
fn linux_6_1_rxe0_siw0() {
    let c = capture("linux-6.1-rxe0-siw0");
    let devs = dump(&c);
    assert_eq!(devs.len(), 2);
    // `rdma dev`: 0: rxe0: node_type ca node_guid 208a:deff:feaf:4dea sys_image_guid 208a:deff:feaf:4dea
    let r = devs[0];
    assert_eq!((r.index, r.name), (0, "rxe0"));
    assert_eq!(r.node_type, 1);
    assert_eq!(r.node_guid, guid("208a:deff:feaf:4dea"));
    assert_eq!(Guid(r.node_guid).to_string(), "208a:deff:feaf:4dea");
    assert_eq!(r.sys_image_guid, Some(guid("208a:deff:feaf:4dea")));
    assert_eq!(r.port_count, 1); // `rdma link`: rxe0/1 only
    assert_eq!(r.protocol, Some("roce"));
    assert_eq!(r.fw_version, None); // sysfs fw_ver is empty
    assert_eq!(r.cap_flags, Some(RXE_CAPS));
    // 1: siw0: node_type rnic node_guid 1cee:95ff:fe7d:673e sys_image_guid 1cee:95ff:fe7d:673e
    let s = devs[1];
    assert_eq!((s.index, s.name), (1, "siw0"));
    assert_eq!(s.node_type, 4);
    assert_eq!(s.node_guid, guid("1cee:95ff:fe7d:673e"));
    assert_eq!(s.sys_image_guid, Some(guid("1cee:95ff:fe7d:673e")));
    assert_eq!(s.port_count, 1);
    assert_eq!(s.protocol, Some("iw"));
    assert_eq!(s.fw_version, None);
    assert_eq!(s.cap_flags, Some(SIW_CAPS));

    // `ls -l /dev/infiniband`: uverbs0 231,192 and uverbs1 231,193; sysfs
    // infiniband_verbs/uverbsN/abi_version 2 (rxe0) and 1 (siw0).
    let cd = chardevs(&c);
    let (i, u) = &cd[0];
    let u = u.as_ref().unwrap();
    assert_eq!(*i, 0);
    assert_eq!((u.name, u.major, u.minor, u.abi), ("uverbs0", 231, 192, 2));
    assert_eq!(u.driver_id, Some(14)); // RDMA_DRIVER_RXE
    let (i, u) = &cd[1];
    let u = u.as_ref().unwrap();
    assert_eq!(*i, 1);
    assert_eq!((u.name, u.major, u.minor, u.abi), ("uverbs1", 231, 193, 1));
    assert_eq!(u.driver_id, Some(18)); // RDMA_DRIVER_SIW
    bad_index_is_einval(&c);
}

#[test]
fn linux_6_12_rxe0_siw0() {
    let c = capture("linux-6.12-rxe0-siw0");
    let devs = dump(&c);
    assert_eq!(devs.len(), 2);
    let r = devs[0];
    assert_eq!(
        (r.index, r.name, r.node_type, r.port_count),
        (0, "rxe0", 1, 1)
    );
    assert_eq!(r.node_guid, guid("ccc0:19ff:fe82:c978"));
    assert_eq!(r.sys_image_guid, Some(guid("ccc0:19ff:fe82:c978")));
    assert_eq!(r.protocol, Some("roce"));
    assert_eq!(r.cap_flags, Some(RXE_CAPS_6_12));
    let s = devs[1];
    assert_eq!(
        (s.index, s.name, s.node_type, s.port_count),
        (1, "siw0", 4, 1)
    );
    assert_eq!(s.node_guid, guid("245f:9bff:fe9f:80ef"));
    assert_eq!(s.sys_image_guid, Some(guid("245f:9bff:fe9f:80ef")));
    assert_eq!(s.protocol, Some("iw"));
    assert_eq!(s.cap_flags, Some(SIW_CAPS));
    let cd = chardevs(&c);
    let u = cd[0].1.as_ref().unwrap();
    assert_eq!(
        (u.name, u.major, u.minor, u.abi, u.driver_id),
        ("uverbs0", 231, 192, 2, Some(14))
    );
    let u = cd[1].1.as_ref().unwrap();
    assert_eq!(
        (u.name, u.major, u.minor, u.abi, u.driver_id),
        ("uverbs1", 231, 193, 1, Some(18))
    );
    bad_index_is_einval(&c);
}

#[test]
fn linux_6_12_four_devices_on_virtio() {
    let c = capture("linux-6.12-rxe2-siw2-virtio");
    let devs = dump(&c);
    let cd = chardevs(&c);
    let want = [
        ("rxe0", 1, "5054:00ff:fe00:0000", "roce", 14, 2),
        ("rxe1", 1, "5054:00ff:fe00:0001", "roce", 14, 2),
        ("siw0", 4, "5054:00ff:fe00:0002", "iw", 18, 1),
        ("siw1", 4, "5054:00ff:fe00:0003", "iw", 18, 1),
    ];
    assert_eq!(devs.len(), want.len());
    assert_eq!(cd.len(), want.len());
    for (k, (name, nt, g, proto, drv, abi)) in want.into_iter().enumerate() {
        let d = devs[k];
        assert_eq!(d.index, k as u32);
        assert_eq!((d.name, d.node_type, d.port_count), (name, nt, 1));
        assert_eq!(d.node_guid, guid(g));
        assert_eq!(d.protocol, Some(proto));
        let (i, u) = &cd[k];
        let u = u.as_ref().unwrap();
        assert_eq!(*i, k as u32);
        assert_eq!(u.name, format!("uverbs{k}"));
        assert_eq!((u.major, u.minor), (231, 192 + k as u32));
        assert_eq!((u.driver_id, u.abi), (Some(drv), abi));
    }
    bad_index_is_einval(&c);
}

#[test]
fn linux_6_1_without_ib_uverbs() {
    let c = capture("linux-6.1-siw0-no-ib_uverbs");
    let devs = dump(&c);
    // `rdma dev`: 1: siw0 (rxe0, index 0, was deleted; indexes are not reused).
    assert_eq!(devs.len(), 1);
    assert_eq!((devs[0].index, devs[0].name), (1, "siw0"));
    assert_eq!(devs[0].node_guid, guid("f020:06ff:fe84:531e"));
    // GET_CHARDEV "uverbs" without ib_uverbs: NLMSG_ERROR -EOPNOTSUPP.
    let cd = chardevs(&c);
    assert_eq!(cd.len(), 1);
    let e = cd[0].1.as_ref().unwrap_err();
    assert!(matches!(e, Error::NotSupported { .. }), "{e:?}");
    assert_eq!(e.errno(), Some(rustix::io::Errno::OPNOTSUPP));
    bad_index_is_einval(&c);
}

#[test]
fn captured_bytes_survive_corruption() {
    // Every truncation and every byte flip of real answers gives Ok or Err, never a panic.
    for name in [
        "linux-6.1-rxe0-siw0",
        "linux-6.12-rxe0-siw0",
        "linux-6.1-siw0-no-ib_uverbs",
    ] {
        let c = capture(name);
        let mut all: Vec<&Vec<u8>> = c.get.iter().collect();
        all.extend(c.chardev.iter().map(|(_, d)| d));
        all.push(&c.bad);
        for d in all {
            for n in 0..d.len() {
                let _ = parse_answer(&d[..n], 1, TYPE_GET, "t", |p| parse_device(p).map(drop));
                let _ = parse_answer(&d[..n], 2, TYPE_GET_CHARDEV, "t", |p| {
                    parse_chardev(p).map(drop)
                });
            }
            for i in 0..d.len() {
                for x in [0x01u8, 0x80, 0xff] {
                    let mut b = d.clone();
                    b[i] ^= x;
                    let _ = parse_answer(&b, 1, TYPE_GET, "t", |p| parse_device(p).map(drop));
                    let _ =
                        parse_answer(&b, 2, TYPE_GET_CHARDEV, "t", |p| parse_chardev(p).map(drop));
                }
            }
        }
    }
}

#[test]
fn dev_t_as_the_kernel_encodes_it() {
    // CHARDEV of uverbs0 on both kernels: 0xe7c0 = 231 << 8 | 192.
    assert_eq!(huge_decode_dev(0xe7c0), (231, 192));
}

// ---------------------------------------------------------------- sysfs fixtures

fn sysfs(scenario: &str) -> Discovery {
    Discovery::new()
        .netlink(false)
        .sysfs_root(fixtures().join("sysfs").join(scenario))
        .dev_root("/fixture-dev")
}

#[test]
fn sysfs_rxe_and_siw() {
    let d = sysfs("soft");
    assert_eq!(d.core_abi_version().unwrap(), Some(6));
    let devs = d.devices().unwrap();
    let names: Vec<_> = devs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["rxe0", "siw0"]);

    let r = &devs[0];
    assert_eq!(r.source, Source::Sysfs);
    assert_eq!(r.index, None);
    assert_eq!(r.node_type, NodeType::Ca);
    assert_eq!(r.transport, TransportType::Ib);
    assert_eq!(r.node_guid.to_string(), "208a:deff:feaf:4dea");
    assert_eq!(r.sys_image_guid, Some(r.node_guid));
    assert_eq!(r.fw_ver, "");
    assert_eq!(r.port_count, 1);
    assert_eq!(r.node_desc.as_deref(), Some("rxe"));
    assert_eq!(r.parent.as_deref(), Some("rnet0"));
    assert_eq!(r.kernel_driver, None);
    assert_eq!(r.driver_id, None);
    assert_eq!(r.driver_id_guess(), Some(14));
    assert_eq!(
        r.uverbs,
        Some(UverbsDev {
            name: "uverbs0".into(),
            path: "/fixture-dev/infiniband/uverbs0".into(),
            major: 231,
            minor: 192,
            abi_version: 2,
        })
    );

    let s = &devs[1];
    assert_eq!(s.node_type, NodeType::Rnic);
    assert_eq!(s.transport, TransportType::Iwarp);
    assert_eq!(s.node_guid, Guid(0x1cee_95ff_fe7d_673e));
    assert_eq!(s.node_desc.as_deref(), Some("Software iWARP stack"));
    assert_eq!(s.parent, None);
    assert_eq!(s.driver_id_guess(), Some(18));
    let u = s.uverbs.as_ref().unwrap();
    assert_eq!(
        (u.name.as_str(), u.major, u.minor, u.abi_version),
        ("uverbs1", 231, 193, 1)
    );

    assert_eq!(d.device("siw0").unwrap(), *s);
    assert!(matches!(
        d.device("mlx5_0"),
        Err(Error::NoSuchDevice { name }) if name == "mlx5_0"
    ));
    for bad in ["", ".", "..", "../soft", "rxe0/ports"] {
        assert!(
            matches!(d.device(bad), Err(Error::NoSuchDevice { .. })),
            "{bad}"
        );
    }
}

#[test]
fn sysfs_without_uverbs() {
    let d = sysfs("no-uverbs");
    assert_eq!(d.core_abi_version().unwrap(), None);
    let devs = d.devices().unwrap();
    assert_eq!(devs.len(), 1);
    assert_eq!(devs[0].name, "siw0");
    assert_eq!(devs[0].uverbs, None);
    assert_eq!(devs[0].driver_id_guess(), Some(18));
}

#[test]
fn sysfs_malformed_guid() {
    let d = sysfs("bad-guid");
    let e = d.devices().unwrap_err();
    match &e {
        Error::Protocol { op, detail } => {
            assert_eq!(op.device, "rxe1");
            assert!(detail.contains("node_guid"), "{detail}");
            assert!(detail.contains("5054:00ff:fe00"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    // The other device is still reachable on its own.
    let r = d.device("rxe0").unwrap();
    assert_eq!(r.node_guid.to_string(), "5054:00ff:fe00:0000");
    assert!(d.device("rxe1").is_err());
}

#[test]
fn sysfs_mlx5_like() {
    let d = sysfs("mlx5");
    let devs = d.devices().unwrap();
    assert_eq!(devs.len(), 2);
    let m = &devs[0];
    assert_eq!(m.name, "mlx5_0");
    assert_eq!(m.port_count, 2);
    assert_eq!(m.fw_ver, "16.35.2000");
    assert_eq!(m.board_id.as_deref(), Some("MT_0000000010"));
    assert_eq!(m.hca_type.as_deref(), Some("MT4119"));
    assert_eq!(m.hw_rev.as_deref(), Some("0x0"));
    assert_eq!(m.node_desc.as_deref(), Some("host01 mlx5_0"));
    assert_eq!(m.kernel_driver.as_deref(), Some("mlx5_core"));
    assert_eq!(m.driver_id_guess(), Some(1)); // RDMA_DRIVER_MLX5
    assert_eq!(m.node_guid.to_string(), "ec0d:9a03:0078:6c2c");
    let n = &devs[1];
    assert_eq!(n.port_count, 1);
    assert_eq!(
        n.sys_image_guid.map(|g| g.to_string()).as_deref(),
        Some("ec0d:9a03:0078:6c2c")
    );
    // A node past the first 32 gets a dynamic major.
    let u = n.uverbs.as_ref().unwrap();
    assert_eq!((u.name.as_str(), u.major, u.minor), ("uverbs33", 511, 1));
}

#[test]
fn sysfs_absent() {
    let d = Discovery::new()
        .netlink(false)
        .sysfs_root(fixtures().join("sysfs").join("does-not-exist"));
    assert_eq!(d.devices().unwrap(), vec![]);
    assert!(matches!(d.device("rxe0"), Err(Error::NoSuchDevice { .. })));
    assert_eq!(d.core_abi_version().unwrap(), None);
}

// ---------------------------------------------------------------- device nodes

fn node(path: &str, major: u32, minor: u32) -> UverbsDev {
    UverbsDev {
        name: "uverbs0".into(),
        path: path.into(),
        major,
        minor,
        abi_version: 1,
    }
}

#[test]
fn check_node() {
    // /dev/null is the character device 1:3 on every Linux system.
    node("/dev/null", 1, 3).check_node().unwrap();
    match node("/dev/null", 231, 192).check_node() {
        Err(Error::DevMismatch {
            found_major,
            found_minor,
            expected_major,
            expected_minor,
            ..
        }) => assert_eq!(
            (found_major, found_minor, expected_major, expected_minor),
            (1, 3, 231, 192)
        ),
        other => panic!("{other:?}"),
    }
    // A regular file is not a device node.
    let f = fixtures().join("sysfs/soft/class/infiniband_verbs/abi_version");
    assert!(matches!(
        node(f.to_str().unwrap(), 0, 0).check_node(),
        Err(Error::DevMismatch { .. })
    ));
    // A missing node.
    let e = node("/fixture-dev/infiniband/uverbs0", 231, 192)
        .check_node()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Os { op, .. } if op.what == "stat"),
        "{e:?}"
    );
    assert_eq!(e.errno(), Some(rustix::io::Errno::NOENT));
}

// ---------------------------------------------------------------- live

#[test]
fn host_discovery_does_not_fail() {
    // Whatever this machine has (often nothing): discovery must answer, not fail.
    let devs = Discovery::new().devices().unwrap();
    let mut sorted = devs.clone();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(devs, sorted);
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn vm_netlink_matches_sysfs() {
    let expected = common::devices();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    expected.sort();
    let nl = Discovery::new().devices_from_netlink().unwrap();
    let sys = Discovery::new().devices_from_sysfs().unwrap();
    let names: Vec<&str> = nl.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, expected);
    assert_eq!(nl.len(), sys.len());
    for (n, s) in nl.iter().zip(&sys) {
        assert_eq!(n.source, Source::Netlink);
        assert_eq!(n.name, s.name);
        assert_eq!(n.node_type, s.node_type);
        assert_eq!(n.node_guid, s.node_guid);
        assert_eq!(n.sys_image_guid, s.sys_image_guid);
        assert_eq!(n.port_count, s.port_count);
        assert_eq!(n.fw_ver, s.fw_ver);
        assert_eq!(n.uverbs, s.uverbs);
        let u = n.uverbs.as_ref().expect("a uverbs node");
        u.check_node().unwrap();
        let id = n.driver_id.expect("netlink reports the driver id");
        assert_eq!(n.driver_id_guess(), Some(id), "{}", n.name);
        assert_eq!(s.driver_id_guess(), Some(id), "{}", n.name);
    }
}

/// GET_CHARDEV asked for many devices at once on a socket whose receive queue is as small
/// as the kernel allows: the kernel drops answers that do not fit (`ENOBUFS`), and
/// `uverbs_chardevs` asks for those again one by one. Every answer equals sysfs' uverbs
/// node of its device, and the fallback ran (with the default queue it does not).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn vm_chardev_batch_falls_back_one_by_one_when_answers_are_dropped() {
    use uverbs::netlink::NlSocket;
    let _ = common::devices();
    let nl = Discovery::new().devices_from_netlink().unwrap();
    let sys = Discovery::new().devices_from_sysfs().unwrap();
    assert!(!nl.is_empty(), "no device");
    // Each device asked many times over: a full batch of 32 answers.
    let asked: Vec<usize> = (0..uverbs::netlink::nldev::CHARDEV_BATCH)
        .map(|k| k % nl.len())
        .collect();
    let indexes: Vec<u32> = asked.iter().map(|&d| nl[d].index.unwrap()).collect();
    let run = |sock: &mut NlSocket| {
        let mut got = vec![None; indexes.len()];
        let again = sock
            .uverbs_chardevs(&indexes, |k, r| {
                let c = r.unwrap();
                got[k] = Some((c.name.to_owned(), c.major, c.minor));
            })
            .unwrap();
        for (k, g) in got.iter().enumerate() {
            let u = sys[asked[k]]
                .uverbs
                .as_ref()
                .expect("a uverbs node in sysfs");
            assert_eq!(
                g.as_ref(),
                Some(&(u.name.clone(), u.major, u.minor)),
                "answer {k}"
            );
        }
        again
    };
    let mut sock = NlSocket::open().unwrap();
    assert_eq!(run(&mut sock), 0, "the default queue dropped answers");
    let mut small = NlSocket::open().unwrap();
    // The kernel raises this to its minimum (about 4.5 KiB): a few answers.
    rustix::net::sockopt::set_socket_recv_buffer_size(small.fd(), 1).unwrap();
    let again = run(&mut small);
    assert!(
        again > 0,
        "the kernel dropped no answer with the smallest queue: the fallback did not run"
    );
    assert!(
        again < indexes.len(),
        "all {again} asked again: the answers queued before the drop were thrown away"
    );
    println!(
        "{} GET_CHARDEV answers: {again} asked again one by one after ENOBUFS, all equal to sysfs",
        indexes.len()
    );
}
