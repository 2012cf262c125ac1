//! `rdma_user_rxe.h`: the driver data of Soft-RoCE (`rdma_rxe`) for object creation.
//!
//! rxe keeps its queues in kernel memory (`vmalloc`) and tells user space where to map
//! each one with an [`mminfo`]: the offset to pass to `mmap(2)` on the uverbs file and the
//! size. The object model does not map them (the data path does); the kernel frees an
//! unmapped queue's mapping information with the object.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `struct mminfo`: where to `mmap` a queue of the uverbs file.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct mminfo {
    /// The `mmap` offset (a cookie of the uverbs file, not a file position).
    pub offset: u64,
    /// The size of the mapping, in bytes.
    pub size: u32,
    /// Padding.
    pub pad: u32,
}
const _: () = assert!(core::mem::size_of::<mminfo>() == 16);

/// `struct rxe_create_ah_resp`: CREATE_AH's driver output (the `ah_num` a UD send names).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_create_ah_resp {
    /// The AH's index in the device's AH pool.
    pub ah_num: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<rxe_create_ah_resp>() == 8);

/// `struct rxe_create_cq_resp`: the CQ's queue.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_create_cq_resp {
    /// Where to map the completion queue.
    pub mi: mminfo,
}
const _: () = assert!(core::mem::size_of::<rxe_create_cq_resp>() == 16);

/// `struct rxe_resize_cq_resp`: the resized CQ's new queue.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_resize_cq_resp {
    /// Where to map the new completion queue.
    pub mi: mminfo,
}
const _: () = assert!(core::mem::size_of::<rxe_resize_cq_resp>() == 16);

/// `struct rxe_create_qp_resp`: the QP's two queues.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_create_qp_resp {
    /// The receive queue (size 0 when the QP uses an SRQ).
    pub rq_mi: mminfo,
    /// The send queue.
    pub sq_mi: mminfo,
}
const _: () = assert!(core::mem::size_of::<rxe_create_qp_resp>() == 32);

/// `struct rxe_create_srq_resp`: the SRQ's queue and number.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_create_srq_resp {
    /// Where to map the shared receive queue.
    pub mi: mminfo,
    /// The SRQ number.
    pub srq_num: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<rxe_create_srq_resp>() == 24);

/// `struct rxe_modify_srq_cmd`: MODIFY_SRQ's driver input, which rxe requires. When the
/// modification resizes the SRQ (`IB_SRQ_MAX_WR`), the kernel writes the new queue's
/// [`mminfo`] to the user address `mmap_info_addr`: only
/// [`method::modify_srq_rxe`](crate::raw::method::modify_srq_rxe) builds one, pointing it
/// at a buffer the request borrows.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_modify_srq_cmd {
    /// User address of an [`mminfo`] the kernel writes on a resize.
    pub mmap_info_addr: u64,
}
const _: () = assert!(core::mem::size_of::<rxe_modify_srq_cmd>() == 8);
