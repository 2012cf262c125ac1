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
//!
//! The queues are not reachable from outside the crate (issue 39, hole D: a second
//! mapping of a siw queue, written by safe code, raced the verbs layer's writer and
//! handed the device elements nobody vouched for):
//!
//! ```compile_fail,E0624
//! # fn main() -> uverbs::Result<()> {
//! let ctx = uverbs::Context::open_by_name("siw0")?;
//! let _rq = ctx.raw().map_queue(0, 4096); // error[E0624]: method `map_queue` is private
//! # Ok(()) }
//! ```
//!
//! ```compile_fail,E0603
//! use uverbs::raw::ring::SiwQueue; // error[E0603]: module `ring` is private
//! ```
//!
//! ## Stable API, and what is for ABI testing
//!
//! `raw` is the crate's window on the kernel ABI, for ABI regression testing: its
//! builders, structs and constants follow the kernel's headers and may change with
//! them (and with what a test needs) from one release to the next, where
//! [`crate::verbs`], [`crate::cm`], [`crate::types`], [`crate::error`],
//! [`crate::netlink`] and [`crate::sysfs`] are the stable API. Everything here that
//! can make the kernel touch memory is an `unsafe fn` with a `# Safety` section, or a
//! builder whose request names only memory it borrows (SAFETY.md lists each). What
//! the safe builders can still do is break the verbs layer's own accounting, never
//! memory: a raw DESTROY, MODIFY or RESIZE of a handle the verbs layer owns leaves its
//! object stale (its own destroy then fails, or destroys whatever object reused the
//! number; a resized queue's ring is then the old one, which the kernel no longer reads).

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

/// The compile-fail examples of the module docs, with their one difference: a public
/// method of the file, and a public module, compile.
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// let ctx = uverbs::Context::open_by_name("siw0")?;
/// let _id = ctx.raw().driver_id();
/// # Ok(()) }
/// ```
///
/// ```
/// use uverbs::raw::mr::RawSge;
/// ```
#[cfg(doctest)]
pub struct CompileFailTwins;
