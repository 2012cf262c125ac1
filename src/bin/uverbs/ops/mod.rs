//! The operators' tools: what a fleet runs on every node.
//!
//! - [`gids`]: GID tables and the GID index to use; [`check`]: the health probe;
//!   [`counters`]: port and driver counters and their rates; [`watch`]: async events
//!   and devices coming and going; [`labels`]: node labels for node-feature-discovery
//!   that follow ports and devices; [`link`]: rxe and siw links; [`follow`]: following
//!   devices and their events (watch, labels).
//! - [`exporter`]: Prometheus metrics over HTTP or as a textfile, with [`metrics`] (the
//!   metric families) on the shared HTTP responder and exposition format (`plumbing`).

pub mod check;
pub mod counters;
pub mod exporter;
pub mod follow;
pub mod gids;
pub mod labels;
pub mod link;
pub mod metrics;
pub mod watch;
