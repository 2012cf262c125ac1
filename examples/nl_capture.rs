//! Captures the raw RDMA netlink answers of this machine's kernel, as hex, for the
//! golden tests in `tests/fixtures/netlink/`, and prints what discovery makes of them.
//!
//! Build it static so it runs in a bare VM:
//! `cargo build --example nl_capture --target x86_64-unknown-linux-musl`.
//!
//! Output lines: `get <hex>` for each datagram of the nldev GET dump (sequence number 1),
//! `chardev <dev_index> <hex>` for each datagram of GET_CHARDEV "uverbs" (sequence numbers
//! 2, 3, ...), `chardev-bad 4242 <hex>` for a GET_CHARDEV of a device index that does not
//! exist, then the parsed devices from netlink and from sysfs.

use uverbs::netlink::nldev::{
    get_chardev_request, get_dump_request, parse_device, TYPE_GET, TYPE_GET_CHARDEV,
};
use uverbs::netlink::{parse_answer, NlSocket};
use uverbs::verbs::discover::Discovery;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sock = NlSocket::open()?;
    let dump = sock.raw_exchange(get_dump_request(1).bytes(), 1, TYPE_GET)?;
    let mut indexes = Vec::new();
    for d in &dump {
        println!("get {}", hex(d));
        parse_answer(d, 1, TYPE_GET, "capture", |p| {
            indexes.push(parse_device(p)?.index);
            Ok(())
        })?;
    }
    let mut seq = 2;
    for i in indexes {
        for d in sock.raw_exchange(get_chardev_request(seq, i).bytes(), seq, TYPE_GET_CHARDEV)? {
            println!("chardev {i} {}", hex(&d));
        }
        seq += 1;
    }
    for d in sock.raw_exchange(
        get_chardev_request(seq, 4242).bytes(),
        seq,
        TYPE_GET_CHARDEV,
    )? {
        println!("chardev-bad 4242 {}", hex(&d));
    }
    println!("core abi: {:?}", Discovery::new().core_abi_version());
    println!("netlink: {:#?}", Discovery::new().devices_from_netlink());
    println!("sysfs: {:#?}", Discovery::new().devices_from_sysfs());
    for d in Discovery::new().devices()? {
        if let Some(u) = &d.uverbs {
            println!("check_node {}: {:?}", u.path.display(), u.check_node());
        }
        println!(
            "guess {}: {:?} (netlink {:?})",
            d.name,
            d.driver_id_guess(),
            d.driver_id
        );
    }
    Ok(())
}
