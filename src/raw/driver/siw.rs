//! `siw-abi.h`: the driver data of Soft-iWARP (`siw`) for object creation.
//!
//! siw keeps its queues in kernel memory and returns, for each, a key to pass to
//! `mmap(2)` as the offset. The object model does not map them (the data path does).

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `struct siw_uresp_create_cq`: the CQ's id, size and mmap key.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_uresp_create_cq {
    /// The CQ's id.
    pub cq_id: u32,
    /// The number of CQEs the queue holds.
    pub num_cqe: u32,
    /// The mmap key of the queue.
    pub cq_key: u64,
}
const _: () = assert!(core::mem::size_of::<siw_uresp_create_cq>() == 16);

/// `struct siw_uresp_create_qp`: the QP's id, queue sizes and mmap keys.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_uresp_create_qp {
    /// The QP's id.
    pub qp_id: u32,
    /// Send queue elements.
    pub num_sqe: u32,
    /// Receive queue elements.
    pub num_rqe: u32,
    /// Padding.
    pub pad: u32,
    /// The mmap key of the send queue.
    pub sq_key: u64,
    /// The mmap key of the receive queue.
    pub rq_key: u64,
}
const _: () = assert!(core::mem::size_of::<siw_uresp_create_qp>() == 32);

/// `struct siw_ureq_reg_mr`: REG_MR's driver input (the key byte of the STag).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_ureq_reg_mr {
    /// The low byte of the STag (the key), chosen by user space.
    pub stag_key: u8,
    /// Reserved.
    pub reserved: [u8; 3],
    /// Padding.
    pub pad: u32,
}
const _: () = assert!(core::mem::size_of::<siw_ureq_reg_mr>() == 8);

/// `struct siw_uresp_reg_mr`: REG_MR's driver output.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_uresp_reg_mr {
    /// The STag (the MR's lkey and rkey).
    pub stag: u32,
    /// Padding.
    pub pad: u32,
}
const _: () = assert!(core::mem::size_of::<siw_uresp_reg_mr>() == 8);

/// `struct siw_uresp_create_srq`: the SRQ's size and mmap key.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_uresp_create_srq {
    /// Receive queue elements.
    pub num_rqe: u32,
    /// Padding.
    pub pad: u32,
    /// The mmap key of the queue.
    pub srq_key: u64,
}
const _: () = assert!(core::mem::size_of::<siw_uresp_create_srq>() == 16);
