//! `select_gid`: the GID index to give NCCL or UCX (`NCCL_IB_GID_INDEX`,
//! `UCX_IB_GID_INDEX`) for an IPv4 address: the RoCE v2 GID that maps it.
//!
//! ```text
//! select_gid 169.254.1.1       # prints "rxe0 1 1": device, port, GID index
//! ```
//!
//! What it shows: the GID table of every device in one QUERY_GID_TABLE call
//! ([`Context::query_gid_table`]), the netdev names and VLANs the GIDs belong to
//! ([`Netdevs`]), and the choice ([`GidSelector`]): what `uverbs gids --select roce-v2
//! --ipv4 ADDR` prints, as a library call.

use std::net::Ipv4Addr;
use std::path::Path;

use uverbs::verbs::gid_select::{GidRow, GidSelector, Netdevs};
use uverbs::{Context, Discovery, GidType};

fn main() -> uverbs::Result<()> {
    let Some(addr) = std::env::args()
        .nth(1)
        .and_then(|a| a.parse::<Ipv4Addr>().ok())
    else {
        eprintln!("usage: select_gid IPV4-ADDRESS");
        std::process::exit(2);
    };
    let names = Netdevs::read(Path::new("/sys"), Path::new("/proc"));
    let mut rows = Vec::new();
    for info in Discovery::new().devices()? {
        let ctx = Context::open(&info)?;
        let table = ctx.query_gid_table(usize::MAX)?;
        rows.extend(GidRow::join(&info.name, &table, &names));
    }
    let sel = GidSelector {
        gid_type: Some(GidType::RoceV2),
        ipv4: Some(addr),
        ..GidSelector::default()
    };
    match sel.select(&rows) {
        Some(r) => println!("{} {} {}", r.device, r.port, r.index),
        None => {
            eprintln!("no RoCE v2 GID maps {addr}");
            std::process::exit(1);
        }
    }
    Ok(())
}
