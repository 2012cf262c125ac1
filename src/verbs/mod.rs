//! The verbs API: open devices, their attributes, GIDs, events and caches, typed and
//! safe, built on the [`raw`](crate::raw) layer.
//!
//! - [`discover`]: which devices exist ([`Discovery`](discover::Discovery), netlink
//!   first, sysfs as the fallback), without opening anything.
//! - [`context`]: [`Context`](context::Context), an open device, and its queries.
//! - [`device_attr`], [`port`]: the typed answers, made of the plain values of
//!   [`types`](crate::types). Enums keep values they do
//!   not know (`Unknown(raw)`), flag sets keep unknown bits.
//! - [`gid`]: GID and P_Key tables; [`gid_select`]: the table as operators read it,
//!   and the choice of a RoCE GID index.
//! - [`event`]: the device's async events, pollable.
//! - [`cache`]: port attributes from memory, refreshed by those events.
//! - [`counters`]: port and driver counters (sysfs, RDMA netlink), port status from
//!   sysfs.
//! - [`monitor`]: devices added, removed and renamed; the guard that lets go of a
//!   device being removed.
//! - [`ipoib`]: the netdevs of a port and IPoIB interfaces, from sysfs.
//! - [`objects`]: PD, MR, completion channel, CQ, QP, AH, SRQ; [`probe`]: their ABI
//!   regression probe (the conformance suite on top of it all is [`crate::selftest`]).
//! - [`datapath`]: work requests, completions, and the queues rxe and siw map into the
//!   process (posted and polled by the objects' methods).

pub mod cache;
pub mod context;
pub mod counters;
pub mod datapath;
pub mod device_attr;
pub mod discover;
pub mod event;
pub mod gid;
pub mod gid_select;
pub mod ipoib;
pub mod monitor;
pub mod objects;
pub mod port;
pub mod probe;
