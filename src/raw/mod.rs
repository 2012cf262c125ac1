//! The raw kernel interface: what crosses into the kernel, and nothing more.
//!
//! - [`abi`]: the kernel's uapi structs and constants, mirrored by hand with their C
//!   names (data only), checked against the real headers by the crate's ABI check.
//! - [`driver`]: the per-driver data (udata) some methods carry.
//! - [`attr`]: the attribute array of one `RDMA_VERBS_IOCTL` call, built on the stack.
//! - [`method`]: one builder per kernel method; each fixes the attribute ids and their
//!   directions, so the request bytes are pinned by golden tests.
//! - [`cm`]: the RDMA connection manager's file and one builder per command.
//! - [`node`]: whether a character node is the kernel device a command is meant for.
//! - `ring` (crate-private): the queues rxe and siw share with the process (mapped from
//!   the uverbs file), and the doorbell that makes the kernel look at a send queue. A
//!   second mapping of a queue, or a second writer of its slots, would race the verbs
//!   layer's own (and hand the device elements no `RawSge` vouches for): only
//!   `verbs::datapath`, under its queue locks, reaches them.
//! - `sys` (private): the system calls that hand the kernel pointers; the only
//!   `unsafe` code of the crate besides the raw entry points below.

pub mod abi;
pub mod attr;
pub mod cm;
pub mod driver;
pub mod fallback;
mod file;
pub mod lifeline;
pub mod method;
pub mod mr;
pub mod node;
pub(crate) mod ring;
pub(crate) mod sys;

pub use fallback::{CallPath, Caps, Interface};
pub use file::VerbsFile;
pub use sys::cycles;
