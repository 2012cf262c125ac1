//! The raw kernel interface: what crosses into the kernel, and nothing more.
//!
//! - [`abi`]: the kernel's uapi structs and constants, mirrored by hand with their C
//!   names (data only), checked against the real headers by the crate's ABI check.
//! - [`driver`]: the per-driver data (udata) some methods carry.
//! - [`attr`]: the attribute array of one `RDMA_VERBS_IOCTL` call, built on the stack.
//! - [`method`]: one builder per kernel method; each fixes the attribute ids and their
//!   directions, so the request bytes are pinned by golden tests.
//! - `sys` (private): the system calls that hand the kernel pointers; the only
//!   `unsafe` code of the crate besides the raw entry points below.

pub mod abi;
pub mod attr;
pub mod driver;
pub mod fallback;
mod file;
pub mod lifeline;
pub mod method;
pub mod mr;
pub(crate) mod sys;

pub use fallback::{CallPath, Caps, Interface};
pub use file::VerbsFile;
