#![doc = include_str!("../docs/guide.md")]
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::missing_safety_doc)]

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod aio;
pub mod cm;
pub mod error;
pub mod netlink;
pub mod raw;
pub mod selftest;
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
pub use verbs::gid::GidTable;
pub use verbs::monitor::{DeviceChange, DeviceMonitor};
pub use verbs::port::PortAttr;
