//! In the VM: soft-RDMA links created and deleted over RDMA netlink by the crate (no
//! iproute2 `rdma`), found by discovery, usable, listed, and refused with clear errors.

mod common;

use std::process::Command;

use uverbs::netlink::link::{self, LinkType};
use uverbs::{Context, Discovery, Error, PortState};

fn ip(args: &[&str]) {
    let ok = Command::new("ip")
        .args(args)
        .status()
        .expect("ip")
        .success();
    assert!(ok, "ip {args:?}");
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn add_show_use_and_delete_links() {
    let before = common::devices();
    ip(&["link", "add", "lnktest0", "type", "dummy"]);
    ip(&["link", "set", "lnktest0", "up"]);
    for (name, kind) in [("rxe_lnk", LinkType::Rxe), ("siw_lnk", LinkType::Siw)] {
        link::add(name, kind, "lnktest0").unwrap_or_else(|e| panic!("add {name}: {e}"));
        let info = Discovery::new()
            .device(name)
            .expect("the new device is discovered");
        let ctx = Context::open(&info).expect("open the new device");
        // The port comes up with its netdev (ACTIVE, possibly after a moment).
        let mut state = ctx.query_port(1).unwrap().state;
        for _ in 0..50 {
            if state == PortState::Active {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            state = ctx.query_port(1).unwrap().state;
        }
        assert_eq!(state, PortState::Active, "{name}");
        drop(ctx); // rxe/siw deletion waits for open uverbs files
        let shown = link::show().expect("link show");
        let l = shown
            .iter()
            .find(|l| l.device == name)
            .unwrap_or_else(|| panic!("{name} not in {shown:?}"));
        assert_eq!((l.port, l.netdev.as_deref()), (1, Some("lnktest0")));

        match link::add(name, kind, "lnktest0") {
            Err(e) => assert_eq!(e.errno(), Some(rustix::io::Errno::EXIST), "{e}"),
            Ok(()) => panic!("a second {name} was accepted"),
        }
        link::del(name).unwrap_or_else(|e| panic!("del {name}: {e}"));
        assert!(matches!(
            Discovery::new().device(name),
            Err(Error::NoSuchDevice { .. })
        ));
        assert!(matches!(link::del(name), Err(Error::NoSuchDevice { .. })));
    }
    match link::add("rxe_nonet", LinkType::Rxe, "nosuchif0") {
        Err(Error::BadArgument { reason, .. }) => assert!(reason.contains("nosuchif0"), "{reason}"),
        other => panic!("a missing netdev gave {other:?}"),
    }
    ip(&["link", "del", "lnktest0"]);
    // The rig's own devices are untouched.
    let names: Vec<String> = link::show()
        .unwrap()
        .into_iter()
        .map(|l| l.device)
        .collect();
    for d in &before {
        assert!(names.contains(d), "{d} disappeared: {names:?}");
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn link_show_lists_the_rigs_ports_with_their_netdevs() {
    let devs = common::devices();
    let shown = link::show().expect("link show");
    for d in &devs {
        let l = shown.iter().find(|l| &l.device == d).expect("listed");
        assert_eq!(l.state, PortState::Active, "{d}");
        let parent = if d.starts_with("rxe") {
            "rxenet"
        } else {
            "siwnet"
        };
        assert_eq!(
            l.netdev.as_deref(),
            Some(format!("{parent}{}", &d[3..]).as_str()),
            "{d}: the rig puts {d} on its own dummy netdev"
        );
    }
    // The CLI prints the same, one line per port.
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN");
    let out = Command::new(bin).args(["link", "show"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for l in &shown {
        let want = format!(
            "link {}/{} state ACTIVE physical_state LINK_UP netdev {}",
            l.device,
            l.port,
            l.netdev.as_deref().unwrap_or("")
        );
        assert!(
            text.lines().any(|x| x == want),
            "missing {want:?} in:\n{text}"
        );
    }
}

/// The IPv4 addresses of the rig's netdevs over `NETLINK_ROUTE` (what `uverbs selftest`
/// connects siw's data cases to): each device's own netdev has the one address the rig
/// gives it, 169.254.<1+i>.1 for rxe<i> and 169.254.<129+i>.1 for siw<i>. The raw dump
/// is printed in hex (the unit test of the parser holds one message of it).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn ipv4_addresses_of_the_rigs_netdevs() {
    use uverbs::netlink::{route, NlSocket};
    let shown = link::show().expect("link show");
    for d in common::devices() {
        let l = shown.iter().find(|l| l.device == d).expect("listed");
        let i: u32 = d[3..].parse().unwrap();
        let third = if d.starts_with("rxe") { 1 + i } else { 129 + i };
        let want: std::net::Ipv4Addr = format!("169.254.{third}.1").parse().unwrap();
        let got = route::ipv4_addrs(l.netdev_index.expect("a netdev index")).unwrap();
        assert_eq!(got, [want], "{d} on {:?}", l.netdev);
    }
    let mut sock = NlSocket::open_route().unwrap();
    let seq = sock.fresh_seq();
    let req = route::ipv4_addrs_request(seq).unwrap();
    let raw = sock.raw_exchange(req.bytes(), seq, 20).unwrap();
    for d in raw {
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        println!("RTM_GETADDR answer: {hex}");
    }
}
