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
//! Data flows down, answers flow up; nothing flows sideways (`tests/layers.rs` checks
//! the imports). Bottom up:
//!
//! - [`types`]: the plain values every layer shares: enums that keep unknown values,
//!   flag sets that keep unknown bits, [`Guid`], [`Gid`], [`GidEntry`], [`FwVersion`].
//! - [`error`]: [`Error`], [`Op`], [`Result`].
//! - [`raw`]: the kernel interface. The ABI mirror ([`raw::abi`]), per-driver data
//!   ([`raw::driver`]), the ioctl attribute array ([`raw::attr`]), one builder per
//!   method ([`raw::method`]), and the system calls. Executing a caller-built request
//!   is `unsafe`: the caller decides what the kernel writes where.
//! - [`netlink`] and [`sysfs`]: the two readers. One RDMA netlink message builder,
//!   parser and socket (devices, links, notifications, counters); one sysfs reader.
//! - [`verbs`]: the typed, safe API on them: [`Discovery`], [`Context`] and its queries,
//!   [`PortAttr`], [`DeviceAttr`], GIDs, [`EventStream`], the port caches, the device
//!   monitor, objects and the data path.
//! - [`cm`]: the RDMA connection manager, on the verbs API.
//!
//! The `uverbs` command (`src/bin/uverbs`) is the only place that formats text or JSON.
//! `SAFETY.md` lists every `unsafe` block with its proof.
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::missing_safety_doc)]

pub mod cm;
pub mod error;
pub mod netlink;
pub mod raw;
pub mod sysfs;
pub mod types;
pub mod verbs;

pub use error::{Error, Op, Result};
pub use types::*;
pub use verbs::cache::{PortCache, PortEvents, PortReader, WatchedPortCache};
pub use verbs::context::{CallPath, Context, ContextAttr, OpenOptions, OpenTarget};
pub use verbs::device_attr::{DeviceAnswer, DeviceAttr};
pub use verbs::discover::{DeviceInfo, Discovery};
pub use verbs::event::{Event, EventStream, Next};
pub use verbs::monitor::{DeviceChange, DeviceMonitor};
pub use verbs::port::PortAttr;
