//! IPoIB interfaces and port→netdev mapping, on the hand-made sysfs fixture
//! `tests/fixtures/sysfs-ipoib` (see its README) and on garbage trees made here.

use std::path::{Path, PathBuf};

use uverbs::verbs::ipoib::{
    ipoib_interfaces, mtu_warnings, netdevs, Ipoib, IpoibHwAddr, IpoibMode, LinkSource, MtuWarning,
    OperState, IPOIB_CM_MTU,
};
use uverbs::{Error, Gid, LinkLayer, Mtu, PortAttr};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysfs-ipoib")
}

/// A port as QUERY_PORT would report it, with the given link layer and MTUs.
fn port(link_layer: LinkLayer, active: Mtu, max: Mtu) -> PortAttr {
    let mut p = PortAttr::from_resp_bytes(&[]);
    p.link_layer = link_layer;
    p.active_mtu = active;
    p.max_mtu = max;
    p
}

fn links(dev: &str) -> Vec<(u32, String, LinkSource)> {
    netdevs(&root(), dev)
        .unwrap()
        .into_iter()
        .map(|l| (l.port, l.netdev, l.source))
        .collect()
}

#[test]
fn maps_infiniband_ports_like_ibdev2netdev() {
    assert_eq!(
        links("mlx4_0"),
        vec![
            (1, "ib0".into(), LinkSource::ParentDevice),
            (1, "ib0.8001".into(), LinkSource::IpoibChild),
            (2, "ib1".into(), LinkSource::ParentDevice),
        ]
    );
    let all = netdevs(&root(), "mlx4_0").unwrap();
    assert_eq!(all[0].to_string(), "mlx4_0 port 1 ==> ib0 (Up)");
    assert_eq!(all[2].to_string(), "mlx4_0 port 2 ==> ib1 (Down)");
    assert_eq!(all[0].ifindex, Some(4));
    assert_eq!(all[2].operstate, OperState::Down);
    assert_eq!(all[2].admin_up, Some(false));
}

#[test]
fn maps_roce_function_and_gid_table_netdevs() {
    assert_eq!(
        links("mlx5_0"),
        vec![
            (1, "enp0s5".into(), LinkSource::ParentDevice),
            (1, "enp0s5.100".into(), LinkSource::GidTable),
        ]
    );
}

#[test]
fn maps_soft_devices() {
    // rxe: its parent file (the GID table says the same netdev; listed once).
    let rxe = netdevs(&root(), "rxe0").unwrap();
    assert_eq!(rxe.len(), 1);
    assert_eq!((rxe[0].port, rxe[0].netdev.as_str()), (1, "rxenet0"));
    assert_eq!(rxe[0].source, LinkSource::SoftParent);
    // A dummy netdev's operstate is "unknown"; it is up by its flags.
    assert_eq!(rxe[0].operstate, OperState::Unknown);
    assert!(rxe[0].is_up());
    // siw as on 6.1: only the MAC inside the GID ties it to its netdev.
    let siw = netdevs(&root(), "siw0").unwrap();
    assert_eq!(siw.len(), 1);
    assert_eq!((siw[0].port, siw[0].netdev.as_str()), (1, "siwnet0"));
    assert_eq!(siw[0].source, LinkSource::GidMac);
    assert!(!siw[0].is_up());
}

#[test]
fn unknown_device() {
    assert!(matches!(
        netdevs(&root(), "mlx5_9"),
        Err(Error::NoSuchDevice { name }) if name == "mlx5_9"
    ));
    assert!(matches!(
        netdevs(&root(), "../net"),
        Err(Error::NoSuchDevice { .. })
    ));
    assert!(matches!(
        netdevs(&root(), ""),
        Err(Error::NoSuchDevice { .. })
    ));
}

#[test]
fn reads_ipoib_interfaces() {
    let all = ipoib_interfaces(&root()).unwrap();
    let names: Vec<&str> = all.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["ib0", "ib0.8001", "ib1"]);

    let ib0 = &all[0];
    assert_eq!(ib0.ifindex, 4);
    assert_eq!(ib0.mode, IpoibMode::Datagram);
    assert_eq!(ib0.mtu, 2044);
    assert_eq!(ib0.pkey, 0xffff);
    assert_eq!(ib0.pkey_base(), 0x7fff);
    assert!(ib0.is_full_member());
    assert_eq!(ib0.device.as_deref(), Some("mlx4_0"));
    assert_eq!(ib0.port, Some(1));
    assert_eq!(ib0.operstate, OperState::Up);
    assert_eq!(ib0.parent, None);
    assert!(!ib0.is_child());
    assert_eq!(ib0.umcast, Some(false));

    let ib1 = &all[2];
    assert_eq!(ib1.mode, IpoibMode::Connected);
    assert_eq!(ib1.mtu, 65520);
    assert_eq!(ib1.port, Some(2), "dev_port 1 is port 2");
    assert_eq!(ib1.operstate, OperState::Down);

    let child = &all[1];
    assert_eq!(child.parent.as_deref(), Some("ib0"));
    assert!(child.is_child());
    assert_eq!(child.pkey, 0x8001);
    assert_eq!(child.pkey_base(), 0x0001);
    assert!(child.is_full_member());
    assert_eq!(child.device.as_deref(), Some("mlx4_0"));
    assert_eq!(child.port, Some(1), "a child shares its parent's port");
}

#[test]
fn decodes_link_addresses() {
    let ib0 = Ipoib::read(&root(), "ib0").unwrap();
    let a = ib0.hw_addr;
    assert_eq!(a.flags(), 0x80);
    assert!(a.connected_mode_capable());
    assert_eq!(a.qpn(), 0x000208);
    // The address carries the port's GID 0.
    let gid_text =
        std::fs::read_to_string(root().join("class/infiniband/mlx4_0/ports/1/gids/0")).unwrap();
    assert_eq!(a.gid(), Gid::parse_sysfs(&gid_text).unwrap());
    assert_eq!(
        a.to_string(),
        "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1"
    );
    // The child has its own QP, on the same port GID.
    let child = Ipoib::read(&root(), "ib0.8001").unwrap();
    assert_eq!(child.hw_addr.qpn(), 0x00020a);
    assert_eq!(child.hw_addr.gid(), a.gid());
    let ib1 = Ipoib::read(&root(), "ib1").unwrap();
    assert_eq!(ib1.hw_addr.qpn(), 0x00040a);
    assert_ne!(ib1.hw_addr.gid(), a.gid());

    let raw = [0u8; 20];
    let z = IpoibHwAddr::from_bytes(&raw).unwrap();
    assert_eq!((z.flags(), z.qpn()), (0, 0));
    assert!(!z.connected_mode_capable());
    let mut max = [0xffu8; 20];
    max[0] = 0x40;
    let m = IpoibHwAddr::from_bytes(&max).unwrap();
    assert_eq!((m.flags(), m.qpn()), (0x40, 0xff_ffff));
}

#[test]
fn not_ipoib() {
    let e = Ipoib::read(&root(), "enp0s5").unwrap_err();
    assert!(matches!(e, Error::BadArgument { .. }), "{e}");
    assert!(e.to_string().contains("type 1"), "{e}");
    assert!(Ipoib::read(&root(), "nosuch0").is_err());
    assert!(Ipoib::read(&root(), "../../devices").is_err());
}

#[test]
fn mtu_checks() {
    let p2048 = port(LinkLayer::InfiniBand, Mtu::Mtu2048, Mtu::Mtu4096);
    let p4096 = port(LinkLayer::InfiniBand, Mtu::Mtu4096, Mtu::Mtu4096);

    // ib0: datagram 2044 on a 2048 port: exactly the limit.
    let ib0 = Ipoib::read(&root(), "ib0").unwrap();
    assert_eq!(mtu_warnings(&ib0, &p2048), vec![]);
    assert_eq!(ib0.mtu_limit(&p2048), Some(2044));
    assert_eq!(ib0.mtu_limit(&p4096), Some(4092));

    // ib0.8001: datagram 4092 fits a 4096 port, not a 2048 one.
    let child = Ipoib::read(&root(), "ib0.8001").unwrap();
    assert_eq!(mtu_warnings(&child, &p4096), vec![]);
    let w = mtu_warnings(&child, &p2048);
    assert_eq!(
        w,
        vec![MtuWarning::DatagramAbovePortMtu {
            mtu: 4092,
            limit: 2044,
            active_mtu: Mtu::Mtu2048
        }]
    );
    assert_eq!(
        w[0].to_string(),
        "datagram mode MTU 4092 exceeds 2044 (the port's active MTU 2048 minus the 4-byte \
         IPoIB header): larger packets will be dropped"
    );

    // ib1: connected 65520 is fine whatever the port MTU.
    let ib1 = Ipoib::read(&root(), "ib1").unwrap();
    assert_eq!(mtu_warnings(&ib1, &p2048), vec![]);
    assert_eq!(ib1.mtu_limit(&p2048), Some(IPOIB_CM_MTU));
    let mut big = ib1.clone();
    big.mtu = 65521;
    assert_eq!(
        mtu_warnings(&big, &p2048),
        vec![MtuWarning::ConnectedAboveMax { mtu: 65521 }]
    );

    // Cannot check: unknown port MTU or mode; and a port that is not InfiniBand.
    let odd = port(LinkLayer::InfiniBand, Mtu::Unknown(9), Mtu::Mtu4096);
    assert_eq!(
        mtu_warnings(&ib0, &odd),
        vec![MtuWarning::PortMtuUnknown {
            active_mtu: Mtu::Unknown(9)
        }]
    );
    assert_eq!(ib0.mtu_limit(&odd), None);
    let mut weird = ib0.clone();
    weird.mode = IpoibMode::Unknown("turbo".into());
    assert_eq!(
        mtu_warnings(&weird, &p2048),
        vec![MtuWarning::UnknownMode {
            mode: "turbo".into()
        }]
    );
    let eth = port(LinkLayer::Ethernet, Mtu::Mtu1024, Mtu::Mtu4096);
    let w = mtu_warnings(&ib0, &eth);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(matches!(w[0], MtuWarning::NotInfiniband { .. }));
    assert!(matches!(
        w[1],
        MtuWarning::DatagramAbovePortMtu { limit: 1020, .. }
    ));
}

// ------------------------------------------------------------------ garbage

/// A scratch sysfs tree, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("uverbs-ipoib-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(p.join("class/net")).unwrap();
        std::fs::create_dir_all(p.join("class/infiniband")).unwrap();
        Scratch(p)
    }
    fn file(&self, rel: &str, bytes: &[u8]) {
        let f = self.0.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, bytes).unwrap();
    }
    fn link(&self, rel: &str, target: &str) {
        let f = self.0.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, f).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const GOOD_ADDR: &[u8] = b"80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1\n";

fn ipoib_files(s: &Scratch, name: &str) {
    s.file(&format!("class/net/{name}/type"), b"32\n");
    s.file(&format!("class/net/{name}/ifindex"), b"9\n");
    s.file(&format!("class/net/{name}/mtu"), b"2044\n");
    s.file(&format!("class/net/{name}/pkey"), b"0xffff\n");
    s.file(&format!("class/net/{name}/address"), GOOD_ADDR);
}

#[test]
fn garbage_files_are_errors_naming_the_file() {
    let cases: &[(&str, &[u8])] = &[
        ("address", b"80:00:02:08\n"),
        (
            "address",
            b"zz:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1\n",
        ),
        ("address", b"\xff\xfe\x00"),
        ("address", b""),
        ("mtu", b"-1\n"),
        ("mtu", b"99999999999\n"),
        ("mtu", b"abc"),
        ("pkey", b"0x1ffff\n"),
        ("pkey", b"65535\n"),
        ("pkey", b"0x\n"),
        ("ifindex", b"\n"),
        ("type", b"thirty-two\n"),
    ];
    for (i, (file, content)) in cases.iter().enumerate() {
        let s = Scratch::new(&format!("bad{i}"));
        ipoib_files(&s, "ib9");
        s.file(&format!("class/net/ib9/{file}"), content);
        let e = Ipoib::read(&s.0, "ib9").unwrap_err();
        assert!(
            matches!(e, Error::Protocol { .. }),
            "{file} {content:?}: {e}"
        );
        assert!(e.to_string().contains(file), "{file}: {e}");
        // The listing reports the same error rather than panicking or hiding it; an
        // interface whose type is not 32 is simply not IPoIB.
        match *file {
            "type" => assert_eq!(ipoib_interfaces(&s.0).unwrap(), vec![]),
            _ => assert!(ipoib_interfaces(&s.0).is_err(), "{file} {content:?}"),
        }
    }
}

#[test]
fn garbage_optional_files_degrade() {
    let s = Scratch::new("degrade");
    ipoib_files(&s, "ib9");
    s.file("class/net/ib9/mode", b"\xc3\x28 nonsense\n");
    s.file("class/net/ib9/operstate", b"sideways\n");
    s.file("class/net/ib9/umcast", b"2\n");
    s.file("class/net/ib9/dev_port", b"-1\n");
    s.link("class/net/ib9/device", ".");
    let i = Ipoib::read(&s.0, "ib9").unwrap();
    assert_eq!(
        i.mode,
        IpoibMode::Unknown(String::new()),
        "invalid UTF-8 reads as missing"
    );
    assert_eq!(i.mode.to_string(), "unknown");
    assert_eq!(i.operstate, OperState::Other("sideways".into()));
    assert_eq!(i.umcast, None);
    assert_eq!((i.device, i.port), (None, None));
    // A huge file is read only in part, never fully into memory; it is not a number.
    s.file("class/net/ib9/mtu", &vec![b'7'; 1 << 20]);
    assert!(Ipoib::read(&s.0, "ib9").is_err());
}

#[test]
fn garbage_links_do_not_loop_or_escape() {
    let s = Scratch::new("loops");
    // Two children naming each other as parent, one naming itself, one escaping.
    for (n, parent) in [
        ("ib7", "ib8"),
        ("ib8", "ib7"),
        ("ib6", "ib6"),
        ("ib5", "../../x"),
    ] {
        ipoib_files(&s, n);
        s.file(
            &format!("class/net/{n}/parent"),
            format!("{parent}\n").as_bytes(),
        );
    }
    // A device link that loops on itself.
    ipoib_files(&s, "ib4");
    s.link("class/net/ib4/device", "device");
    // An RDMA device with garbage everywhere.
    s.file("class/infiniband/bad0/parent", b"../../../etc\n");
    s.file("class/infiniband/bad0/ports/1/gids/0", b"not a gid\n");
    s.file(
        "class/infiniband/bad0/ports/1/gids/1",
        b"ae7c:97d4:1941:0000:0000:0000:0000:0000\n",
    );
    s.file(
        "class/infiniband/bad0/ports/1/gid_attrs/ndevs/0",
        b"../../etc\n",
    );
    s.file(
        "class/infiniband/bad0/ports/1/gid_attrs/ndevs/1",
        b"nosuch0\n",
    );
    s.file("class/infiniband/bad0/ports/x/gids/0", b"\n");
    s.file("class/infiniband/bad0/ports/0/gids/0", b"\n");
    s.file("class/net/eth9/addr_len", b"6\n");
    s.file("class/net/eth9/address", b"ae:7c:97:d4:19\n"); // one byte short: no match
    for n in ["ib4", "ib5", "ib6", "ib7", "ib8"] {
        let i = Ipoib::read(&s.0, n).unwrap();
        assert_eq!((i.device, i.port), (None, None), "{n}");
    }
    assert_eq!(
        Ipoib::read(&s.0, "ib5").unwrap().parent,
        None,
        "an escaping name is refused"
    );
    assert_eq!(Ipoib::read(&s.0, "ib6").unwrap().parent, None);
    assert_eq!(netdevs(&s.0, "bad0").unwrap(), vec![]);
    assert_eq!(ipoib_interfaces(&s.0).unwrap().len(), 5);
}

#[test]
fn empty_and_missing_trees() {
    let s = Scratch::new("empty");
    assert_eq!(ipoib_interfaces(&s.0).unwrap(), vec![]);
    assert!(netdevs(&s.0, "mlx5_0").is_err());
    let missing = s.0.join("nowhere");
    assert!(ipoib_interfaces(&missing).is_err());
    assert!(netdevs(&missing, "mlx5_0").is_err());
    // A device without ports or netdevs maps to nothing.
    s.file("class/infiniband/lonely0/node_type", b"1: CA\n");
    assert_eq!(netdevs(&s.0, "lonely0").unwrap(), vec![]);
}
