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

// ------------------------------------------------------------------ the data path
//
// siw's queues are arrays of elements with no header: an element belongs to user space
// while its `flags` lack SIW_WQE_VALID, and to the kernel from the moment user space
// sets it (send and receive queues) or until user space clears it (completion queue).
// The completion queue is followed by a [`siw_cq_ctrl`] word that arms it.

/// `SIW_ABI_VERSION`.
pub const SIW_ABI_VERSION: u32 = 1;
/// `SIW_MAX_SGE`: scatter/gather entries per work request.
pub const SIW_MAX_SGE: usize = 6;
/// `SIW_MAX_INLINE`: inline bytes of a send request (they take the place of `sge[1..]`).
pub const SIW_MAX_INLINE: usize = 80;
/// `SIW_UOBJ_MAX_KEY`.
pub const SIW_UOBJ_MAX_KEY: u64 = 0x08ffff;
/// `SIW_INVAL_UOBJ_KEY`: the key of a queue the kernel could not make mappable.
pub const SIW_INVAL_UOBJ_KEY: u64 = SIW_UOBJ_MAX_KEY + 1;

/// `SIW_WQE_VALID`: the element belongs to the kernel (work queues) or holds a
/// completion (completion queue).
pub const SIW_WQE_VALID: u16 = 1;
/// `SIW_WQE_INLINE`.
pub const SIW_WQE_INLINE: u16 = 1 << 1;
/// `SIW_WQE_SIGNALLED`.
pub const SIW_WQE_SIGNALLED: u16 = 1 << 2;
/// `SIW_WQE_SOLICITED`.
pub const SIW_WQE_SOLICITED: u16 = 1 << 3;
/// `SIW_WQE_READ_FENCE`.
pub const SIW_WQE_READ_FENCE: u16 = 1 << 4;
/// `SIW_WQE_REM_INVAL`.
pub const SIW_WQE_REM_INVAL: u16 = 1 << 5;
/// `SIW_WQE_COMPLETED`.
pub const SIW_WQE_COMPLETED: u16 = 1 << 6;

/// `SIW_OP_WRITE`.
pub const SIW_OP_WRITE: u8 = 0;
/// `SIW_OP_READ`.
pub const SIW_OP_READ: u8 = 1;
/// `SIW_OP_READ_LOCAL_INV`.
pub const SIW_OP_READ_LOCAL_INV: u8 = 2;
/// `SIW_OP_SEND`.
pub const SIW_OP_SEND: u8 = 3;
/// `SIW_OP_SEND_WITH_IMM` (not supported by the driver).
pub const SIW_OP_SEND_WITH_IMM: u8 = 4;
/// `SIW_OP_SEND_REMOTE_INV`.
pub const SIW_OP_SEND_REMOTE_INV: u8 = 5;
/// `SIW_OP_FETCH_AND_ADD` (not supported by the driver).
pub const SIW_OP_FETCH_AND_ADD: u8 = 6;
/// `SIW_OP_COMP_AND_SWAP` (not supported by the driver).
pub const SIW_OP_COMP_AND_SWAP: u8 = 7;
/// `SIW_OP_RECEIVE`.
pub const SIW_OP_RECEIVE: u8 = 8;
/// `SIW_OP_READ_RESPONSE` (internal to the driver).
pub const SIW_OP_READ_RESPONSE: u8 = 9;
/// `SIW_OP_INVAL_STAG` (kernel clients only).
pub const SIW_OP_INVAL_STAG: u8 = 10;
/// `SIW_OP_REG_MR` (kernel clients only).
pub const SIW_OP_REG_MR: u8 = 11;
/// `SIW_NUM_OPCODES`.
pub const SIW_NUM_OPCODES: u8 = 12;

/// `SIW_WC_SUCCESS`.
pub const SIW_WC_SUCCESS: u16 = 0;
/// `SIW_WC_LOC_LEN_ERR`.
pub const SIW_WC_LOC_LEN_ERR: u16 = 1;
/// `SIW_WC_LOC_PROT_ERR`.
pub const SIW_WC_LOC_PROT_ERR: u16 = 2;
/// `SIW_WC_LOC_QP_OP_ERR`.
pub const SIW_WC_LOC_QP_OP_ERR: u16 = 3;
/// `SIW_WC_WR_FLUSH_ERR`.
pub const SIW_WC_WR_FLUSH_ERR: u16 = 4;
/// `SIW_WC_BAD_RESP_ERR`.
pub const SIW_WC_BAD_RESP_ERR: u16 = 5;
/// `SIW_WC_LOC_ACCESS_ERR`.
pub const SIW_WC_LOC_ACCESS_ERR: u16 = 6;
/// `SIW_WC_REM_ACCESS_ERR`.
pub const SIW_WC_REM_ACCESS_ERR: u16 = 7;
/// `SIW_WC_REM_INV_REQ_ERR`.
pub const SIW_WC_REM_INV_REQ_ERR: u16 = 8;
/// `SIW_WC_GENERAL_ERR`.
pub const SIW_WC_GENERAL_ERR: u16 = 9;
/// `SIW_NUM_WC_STATUS`.
pub const SIW_NUM_WC_STATUS: u16 = 10;

/// `SIW_NOTIFY_NOT`: the CQ is not armed.
pub const SIW_NOTIFY_NOT: u32 = 0;
/// `SIW_NOTIFY_SOLICITED`: an event for the next solicited completion.
pub const SIW_NOTIFY_SOLICITED: u32 = 1;
/// `SIW_NOTIFY_NEXT_COMPLETION`: an event for the next completion.
pub const SIW_NOTIFY_NEXT_COMPLETION: u32 = 1 << 1;
/// `SIW_NOTIFY_MISSED_EVENTS`.
pub const SIW_NOTIFY_MISSED_EVENTS: u32 = 1 << 2;
/// `SIW_NOTIFY_ALL`.
pub const SIW_NOTIFY_ALL: u32 = 7;

/// `struct siw_sge` (the layout of `ibv_sge`).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_sge {
    /// `laddr`.
    pub laddr: u64,
    /// `length`.
    pub length: u32,
    /// `lkey`.
    pub lkey: u32,
}
const _: () = assert!(core::mem::size_of::<siw_sge>() == 16);

/// `struct siw_sqe`: a send queue element. Inline data takes the place of `sge[1..]`,
/// with its length in `sge[0].length`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_sqe {
    /// `id`.
    pub id: u64,
    /// `flags` (`SIW_WQE_*`): written last, SIW_WQE_VALID hands the element over.
    pub flags: u16,
    /// `num_sge`.
    pub num_sge: u8,
    /// `opcode` (`SIW_OP_*`).
    pub opcode: u8,
    /// `rkey`.
    pub rkey: u32,
    /// `raddr` (a union with `base_mr`).
    pub raddr: u64,
    /// `sge` (a union with `access`).
    pub sge: [siw_sge; SIW_MAX_SGE],
}
const _: () = assert!(core::mem::size_of::<siw_sqe>() == 120);

/// `struct siw_rqe`: a receive queue element.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_rqe {
    /// `id`.
    pub id: u64,
    /// `flags`: SIW_WQE_VALID hands the element over.
    pub flags: u16,
    /// `num_sge`.
    pub num_sge: u8,
    /// `opcode` (set by the kernel).
    pub opcode: u8,
    /// `unused`.
    pub unused: u32,
    /// `sge`.
    pub sge: [siw_sge; SIW_MAX_SGE],
}
const _: () = assert!(core::mem::size_of::<siw_rqe>() == 112);

/// `struct siw_cqe`: a completion queue element.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_cqe {
    /// `id`: the work request's id.
    pub id: u64,
    /// `flags`: SIW_WQE_VALID while the element holds a completion.
    pub flags: u8,
    /// `opcode` (`SIW_OP_*`).
    pub opcode: u8,
    /// `status` (`SIW_WC_*`).
    pub status: u16,
    /// `bytes`.
    pub bytes: u32,
    /// A union of `imm_data` and `inval_stag`.
    pub imm_data: u64,
    /// A union of the kernel's QP pointer and `qp_id` (user space reads the QP number).
    pub qp_id: u64,
}
const _: () = assert!(core::mem::size_of::<siw_cqe>() == 32);

/// `struct siw_cq_ctrl`: the word after a CQ's last element that arms it
/// (`SIW_NOTIFY_*`); the kernel clears it when it reports an event.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_cq_ctrl {
    /// `flags`.
    pub flags: u32,
    /// `pad`.
    pub pad: u32,
}
const _: () = assert!(core::mem::size_of::<siw_cq_ctrl>() == 8);
