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

// ------------------------------------------------------------------ the data path
//
// rxe keeps each work queue and completion queue in one `vmalloc`ed buffer that the
// process maps: an [`rxe_queue_buf`] header (sizes, then the producer and the consumer
// index, each on its own cache line), then `index_mask + 1` slots of
// `1 << log2_elem_size` bytes. A send slot holds an [`rxe_send_wqe`] followed by its
// SGEs or inline data, a receive slot an [`rxe_recv_wqe`] and its SGEs, a completion
// slot an `ib_uverbs_wc` (within the kernel's larger `rxe_cqe`).

/// `RXE_NETWORK_TYPE_IPV4`: an [`rxe_av`] of an IPv4 (RoCEv2) path.
pub const RXE_NETWORK_TYPE_IPV4: u32 = 1;
/// `RXE_NETWORK_TYPE_IPV6`.
pub const RXE_NETWORK_TYPE_IPV6: u32 = 2;

/// `struct rxe_sge`: one scatter/gather entry (the layout of `ibv_sge`).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_sge {
    /// `addr`.
    pub addr: u64,
    /// `length`.
    pub length: u32,
    /// `lkey`.
    pub lkey: u32,
}
const _: () = assert!(core::mem::size_of::<rxe_sge>() == 16);

/// `struct rxe_dma_info`: the payload's bookkeeping, followed in the slot by the SGEs
/// (`sge[]`) or the inline data (`inline_data[]`). The kernel keeps its progress here
/// (`resid`, `cur_sge`, `sge_offset`) while it works on the request.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_dma_info {
    /// `length`: the payload's total length.
    pub length: u32,
    /// `resid`: what is left to move (the length, when posted).
    pub resid: u32,
    /// `cur_sge`.
    pub cur_sge: u32,
    /// `num_sge`.
    pub num_sge: u32,
    /// `sge_offset`.
    pub sge_offset: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<rxe_dma_info>() == 24);

/// `struct rxe_global_route`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_global_route {
    /// `dgid` (`union rxe_gid`).
    pub dgid: [u8; 16],
    /// `flow_label`.
    pub flow_label: u32,
    /// `sgid_index`.
    pub sgid_index: u8,
    /// `hop_limit`.
    pub hop_limit: u8,
    /// `traffic_class`.
    pub traffic_class: u8,
    /// Padding.
    pub pad: u8,
}
const _: () = assert!(core::mem::size_of::<rxe_global_route>() == 24);

/// `struct rxe_av`: an address vector, which kernels before 5.10 took inside each UD
/// send request (later ones take the AH's number, `ah_num`).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_av {
    /// `port_num`.
    pub port_num: u8,
    /// `network_type` (`RXE_NETWORK_TYPE_*`).
    pub network_type: u8,
    /// `dmac`.
    pub dmac: [u8; 6],
    /// `grh`.
    pub grh: rxe_global_route,
    /// `sgid_addr`: a union of `sockaddr_in` and `sockaddr_in6`.
    pub sgid_addr: [u8; 28],
    /// `dgid_addr`: the same union.
    pub dgid_addr: [u8; 28],
}
const _: () = assert!(core::mem::size_of::<rxe_av>() == 88);

/// `struct rxe_send_wr` as a UD send fills it (the `wr.ud` member of its union; the
/// whole 144 bytes). [`rxe_send_wr_rdma`] and [`rxe_send_wr_atomic`] are the same bytes
/// through the union's other members.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_send_wr {
    /// `wr_id`.
    pub wr_id: u64,
    /// `reserved`.
    pub reserved: u32,
    /// `opcode` (`IB_UVERBS_WR_*`).
    pub opcode: u32,
    /// `send_flags` (`IB_SEND_*`, as `ibv_send_flags`).
    pub send_flags: u32,
    /// `ex`: a union of `imm_data` (big-endian) and `invalidate_rkey`.
    pub ex: u32,
    /// `wr.ud.remote_qpn`.
    pub remote_qpn: u32,
    /// `wr.ud.remote_qkey`.
    pub remote_qkey: u32,
    /// `wr.ud.pkey_index`.
    pub pkey_index: u16,
    /// `wr.ud.reserved`.
    pub ud_reserved: u16,
    /// `wr.ud.ah_num`: the AH's number from CREATE_AH's driver response.
    pub ah_num: u32,
    /// `wr.ud.pad`.
    pub pad: [u32; 4],
    /// `wr.ud.av` (kernels before 5.10 only).
    pub av: rxe_av,
}
const _: () = assert!(core::mem::size_of::<rxe_send_wr>() == 144);

/// `struct rxe_send_wr` through `wr.rdma` (RDMA write and read, and sends of RC and
/// UC, which use none of the union).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_send_wr_rdma {
    /// `wr_id`.
    pub wr_id: u64,
    /// `reserved`.
    pub reserved: u32,
    /// `opcode`.
    pub opcode: u32,
    /// `send_flags`.
    pub send_flags: u32,
    /// `ex`.
    pub ex: u32,
    /// `wr.rdma.remote_addr`.
    pub remote_addr: u64,
    /// `wr.rdma.rkey`.
    pub rkey: u32,
    /// `wr.rdma.reserved`.
    pub rdma_reserved: u32,
    /// `wr.ud.pad` (the union's bytes past `wr.rdma`).
    pub pad: [u32; 4],
    /// `wr.ud.av` (the union's bytes past that).
    pub av: rxe_av,
}
const _: () = assert!(core::mem::size_of::<rxe_send_wr_rdma>() == 144);

/// `struct rxe_send_wr` through `wr.atomic` (compare-and-swap, fetch-and-add).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_send_wr_atomic {
    /// `wr_id`.
    pub wr_id: u64,
    /// `reserved`.
    pub reserved: u32,
    /// `opcode`.
    pub opcode: u32,
    /// `send_flags`.
    pub send_flags: u32,
    /// `ex`.
    pub ex: u32,
    /// `wr.atomic.remote_addr`.
    pub remote_addr: u64,
    /// `wr.atomic.compare_add`.
    pub compare_add: u64,
    /// `wr.atomic.swap`.
    pub swap: u64,
    /// `wr.atomic.rkey`.
    pub rkey: u32,
    /// `wr.atomic.reserved`.
    pub atomic_reserved: u32,
    /// `wr.ud.av` (the union's bytes past `wr.atomic`).
    pub av: rxe_av,
}
const _: () = assert!(core::mem::size_of::<rxe_send_wr_atomic>() == 144);

/// `struct rxe_send_wqe`: a send queue slot's fixed part (208 bytes), followed by the
/// SGEs or the inline data. The kernel keeps its working state in the posted slot
/// (`status`, `state`, `mask`, the PSNs, `dma`'s progress).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_send_wqe {
    /// `wr`.
    pub wr: rxe_send_wr,
    /// `status`.
    pub status: u32,
    /// `state`.
    pub state: u32,
    /// `iova`: the remote address of an RDMA or atomic request.
    pub iova: u64,
    /// `mask`.
    pub mask: u32,
    /// `first_psn`.
    pub first_psn: u32,
    /// `last_psn`.
    pub last_psn: u32,
    /// `ack_length`.
    pub ack_length: u32,
    /// `ssn`.
    pub ssn: u32,
    /// `has_rd_atomic`.
    pub has_rd_atomic: u32,
    /// `dma`.
    pub dma: rxe_dma_info,
}
const _: () = assert!(core::mem::size_of::<rxe_send_wqe>() == 208);

/// `struct rxe_recv_wqe`: a receive queue slot's fixed part, followed by the SGEs.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rxe_recv_wqe {
    /// `wr_id`.
    pub wr_id: u64,
    /// `reserved`.
    pub reserved: u32,
    /// `padding`.
    pub padding: u32,
    /// `dma`.
    pub dma: rxe_dma_info,
}
const _: () = assert!(core::mem::size_of::<rxe_recv_wqe>() == 40);

/// `struct rxe_queue_buf`: the header of every mapped rxe queue; the slots follow it
/// (`data[]`). The producer and consumer indices are shared with the kernel and are
/// only ever accessed atomically (the verbs layer's rings); this struct gives their places.
#[repr(C)]
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
pub struct rxe_queue_buf {
    /// `log2_elem_size`: each slot is `1 << log2_elem_size` bytes.
    pub log2_elem_size: u32,
    /// `index_mask`: the number of slots minus one (a power of two minus one).
    pub index_mask: u32,
    /// `pad_1`.
    pub pad_1: [u32; 30],
    /// `producer_index`.
    pub producer_index: u32,
    /// `pad_2`.
    pub pad_2: [u32; 31],
    /// `consumer_index`.
    pub consumer_index: u32,
    /// `pad_3`.
    pub pad_3: [u32; 31],
}
const _: () = assert!(core::mem::size_of::<rxe_queue_buf>() == 384);
