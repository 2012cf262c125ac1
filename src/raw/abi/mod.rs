//! The kernel's RDMA user ABI, mirrored by hand.
//!
//! One module per uapi header of `include/uapi/rdma/`, with the C names kept so that the
//! mirror can be read side by side with the header and checked against it: the crate's
//! ABI check (`abi/manifest.txt`, run by `cargo test`) compiles a C probe against the
//! installed headers and compares every size, alignment, field offset and constant with
//! the values printed from this module. Data only: no `unsafe`, no logic.
//!
//! Structs derive zerocopy's [`FromBytes`](zerocopy::FromBytes),
//! [`IntoBytes`](zerocopy::IntoBytes), [`KnownLayout`](zerocopy::KnownLayout) and
//! [`Immutable`](zerocopy::Immutable), have explicit reserved fields instead of implicit
//! padding, and carry a compile-time size assertion. C unions are a plain integer of the
//! union's size. Flexible `driver_data[]` tails are left out (the driver data travels in
//! separate buffers).
#![allow(non_camel_case_types)]

pub mod ioctl;
pub mod ioctl_verbs;
pub mod netlink;
pub mod rdma_cm;
pub mod verbs;

pub use ioctl::*;
pub use ioctl_verbs::*;
pub use verbs::*;
