//! The operators' tools: what a fleet runs on every node.
//!
//! - [`gids`]: GID tables and the GID index to use; [`check`]: the health probe;
//!   [`counters`]: port and driver counters and their rates; [`watch`]: async events
//!   and devices coming and going; [`link`]: rxe and siw links.
//! - [`exporter`]: Prometheus metrics over HTTP or as a textfile, with [`metrics`] (the
//!   metric families) on the shared HTTP responder and exposition format (`plumbing`).

pub mod check;
pub mod counters;
pub mod exporter;
pub mod gids;
pub mod link;
pub mod metrics;
pub mod watch;
