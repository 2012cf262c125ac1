//! # uverbs
//!
//! A client of the Linux kernel's RDMA user-verbs interface written in Rust alone: it
//! finds the RDMA devices of a host, opens `/dev/infiniband/uverbsN` and issues the
//! `RDMA_VERBS_IOCTL` methods itself, with no libibverbs, no provider plugins and no C
//! library of its own (every system call goes through rustix's raw Linux backend). It
//! answers what `ibv_query_device(3)` and `ibv_query_port(3)` answer, exactly as the
//! kernel says it.
//!
//! ## Walkthrough: discover, open, query
//!
//! ```no_run
//! use uverbs::{Context, Discovery};
//!
//! # fn main() -> uverbs::Result<()> {
//! // 1. Discover: RDMA netlink first, sysfs as the fallback. No device is opened.
//! for info in Discovery::new().devices()? {
//!     println!("{} ({:?}, {} port(s))", info.name, info.node_type, info.port_count);
//!
//!     // 2. Open: the uverbs node is opened and the kernel context created
//!     //    (GET_CONTEXT by ioctl, or write() on old kernels).
//!     let ctx = Context::open(&info)?;
//!
//!     // 3. Query.
//!     let dev = ctx.query_device()?;
//!     println!("  fw {} node_guid {} max_qp {}", dev.fw_ver, dev.node_guid, dev.max_qp);
//!     for port in 1..=u32::from(ctx.port_count()) {
//!         let p = ctx.query_port(port)?;
//!         println!(
//!             "  port {port}: {} mtu {:?} {:?} x {:?} lid {}",
//!             p.state, p.active_mtu.bytes(), p.active_width, p.speed(), p.lid
//!         );
//!         for name in p.port_cap_flags.ib_names() {
//!             println!("    {name}");
//!         }
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Layers
//!
//! - [`abi`]: the kernel's uapi structs and constants, mirrored by hand with their C
//!   names and checked against the installed headers by the crate's ABI check.
//! - [`driver`]: what each kernel driver needs in GET_CONTEXT's driver data.
//! - [`attr`] and [`method`]: the ioctl attribute array and one builder per method.
//! - [`context`]: [`Context`], the open device, and its queries; [`gid`]: GID and P_Key
//!   tables.
//! - [`event`]: the device's async events (`ASYNC_EVENT_ALLOC`), pollable; [`cache`]:
//!   [`PortCache`], port attributes from memory, refreshed by those events (one
//!   `read(2)` per query), and [`WatchedPortCache`], refreshed by a watcher thread (no
//!   system call per query).
//! - [`ipoib`]: the netdevs of a port (like `ibdev2netdev`) and IPoIB interfaces (mode,
//!   MTU, P_Key, the 20-byte hardware address), from sysfs.
//! - [`discover`]: devices from RDMA netlink or sysfs, with injectable roots;
//!   [`link`]: soft-RDMA links (rxe, siw) added, deleted and listed over RDMA netlink.
//! - [`types`], [`port`], [`device_attr`]: the typed answers. Enums keep values they do
//!   not know (`Unknown(raw)`), flag sets keep unknown bits.
//!
//! All `unsafe` code lives in one private module (the ioctl and the adoption of fds the
//! kernel creates), each block with its proof; `SAFETY.md` lists them.
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
pub mod attr;
pub mod cache;
pub mod context;
pub mod device_attr;
pub mod discover;
pub mod driver;
pub mod error;
pub mod event;
pub mod gid;
pub mod ipoib;
pub mod link;
pub mod method;
pub mod port;
mod sys;
pub mod types;

pub use cache::{PortCache, PortReader, WatchedPortCache};
pub use context::{CallPath, Context, OpenOptions, OpenTarget};
pub use device_attr::{DeviceAttr, FwVersion};
pub use discover::{DeviceInfo, Discovery};
pub use error::{Error, Op, Result};
pub use event::{Event, EventStream, Next};
pub use gid::{Gid, GidEntry};
pub use port::PortAttr;
pub use types::*;
