//! `rdma_user_ioctl_cmds.h` and `ib_user_ioctl_cmds.h`: the ioctl header, the attribute
//! descriptor, and the object, method and attribute ids of the standard verbs objects.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `RDMA_IOCTL_MAGIC`: the ioctl type byte of the RDMA subsystem.
pub const RDMA_IOCTL_MAGIC: u32 = 0x1b;
/// `RDMA_VERBS_IOCTL` = `_IOWR(RDMA_IOCTL_MAGIC, 1, struct ib_uverbs_ioctl_hdr)`.
pub const RDMA_VERBS_IOCTL: u32 = (3 << 30)
    | ((core::mem::size_of::<ib_uverbs_ioctl_hdr>() as u32) << 16)
    | (RDMA_IOCTL_MAGIC << 8)
    | 1;

/// `UVERBS_ATTR_F_MANDATORY`: the kernel fails the call if it does not know the attribute.
pub const UVERBS_ATTR_F_MANDATORY: u16 = 1 << 0;
/// `UVERBS_ATTR_F_VALID_OUTPUT`: set by the kernel on an output attribute it wrote.
pub const UVERBS_ATTR_F_VALID_OUTPUT: u16 = 1 << 1;

/// `struct ib_uverbs_attr`: one attribute of an ioctl call (16 bytes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_attr {
    /// Method-specific attribute id.
    pub attr_id: u16,
    /// Length of the data (pointers and inline data).
    pub len: u16,
    /// `UVERBS_ATTR_F_*`.
    pub flags: u16,
    /// The `attr_data` union (`enum_data.elem_id`/`reserved` or `reserved`): must be 0 here.
    pub attr_data: u16,
    /// The `data` union: inline data of 8 bytes or less, a user pointer, or an fd.
    pub data: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_attr>() == 16);

/// `struct ib_uverbs_ioctl_hdr`: the header of an `RDMA_VERBS_IOCTL` call (24 bytes),
/// followed in memory by `num_attrs` [`ib_uverbs_attr`].
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ioctl_hdr {
    /// Length of the header plus the attributes, in bytes.
    pub length: u16,
    /// `UVERBS_OBJECT_*`.
    pub object_id: u16,
    /// Method id within the object.
    pub method_id: u16,
    /// Number of attributes that follow.
    pub num_attrs: u16,
    /// Must be 0.
    pub reserved1: u64,
    /// The device's `rdma_driver_id`; the kernel rejects any other.
    pub driver_id: u32,
    /// Must be 0.
    pub reserved2: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ioctl_hdr>() == 24);

/// `UVERBS_ID_NS_SHIFT`: attribute ids at or above `1 << 12` belong to the driver.
pub const UVERBS_ID_NS_SHIFT: u32 = 12;
/// `UVERBS_ID_NS_MASK`.
pub const UVERBS_ID_NS_MASK: u32 = 0xF000;
/// `UVERBS_ATTR_UHW_IN`: driver-specific input data (`UVERBS_ID_DRIVER_NS | 0`).
pub const UVERBS_ATTR_UHW_IN: u16 = 1 << 12;
/// `UVERBS_ATTR_UHW_OUT`: driver-specific output data (`UVERBS_ID_DRIVER_NS | 1`).
pub const UVERBS_ATTR_UHW_OUT: u16 = (1 << 12) | 1;

/// `UVERBS_OBJECT_DEVICE` (enum uverbs_default_objects).
pub const UVERBS_OBJECT_DEVICE: u16 = 0;
/// `UVERBS_OBJECT_ASYNC_EVENT` (since Linux 5.6).
pub const UVERBS_OBJECT_ASYNC_EVENT: u16 = 16;

/// `UVERBS_METHOD_INVOKE_WRITE`: a legacy write() command carried by ioctl (since 5.0).
pub const UVERBS_METHOD_INVOKE_WRITE: u16 = 0;
/// `UVERBS_METHOD_INFO_HANDLES`.
pub const UVERBS_METHOD_INFO_HANDLES: u16 = 1;
/// `UVERBS_METHOD_QUERY_PORT` (since 5.0).
pub const UVERBS_METHOD_QUERY_PORT: u16 = 2;
/// `UVERBS_METHOD_GET_CONTEXT` (since 5.6).
pub const UVERBS_METHOD_GET_CONTEXT: u16 = 3;
/// `UVERBS_METHOD_QUERY_CONTEXT` (since 5.9).
pub const UVERBS_METHOD_QUERY_CONTEXT: u16 = 4;
/// `UVERBS_METHOD_QUERY_GID_TABLE` (since 5.10).
pub const UVERBS_METHOD_QUERY_GID_TABLE: u16 = 5;
/// `UVERBS_METHOD_QUERY_GID_ENTRY` (since 5.10).
pub const UVERBS_METHOD_QUERY_GID_ENTRY: u16 = 6;

/// `UVERBS_ATTR_CORE_IN` of INVOKE_WRITE.
pub const UVERBS_ATTR_CORE_IN: u16 = 0;
/// `UVERBS_ATTR_CORE_OUT` of INVOKE_WRITE.
pub const UVERBS_ATTR_CORE_OUT: u16 = 1;
/// `UVERBS_ATTR_WRITE_CMD` of INVOKE_WRITE.
pub const UVERBS_ATTR_WRITE_CMD: u16 = 2;

/// `UVERBS_ATTR_QUERY_PORT_PORT_NUM`.
pub const UVERBS_ATTR_QUERY_PORT_PORT_NUM: u16 = 0;
/// `UVERBS_ATTR_QUERY_PORT_RESP`.
pub const UVERBS_ATTR_QUERY_PORT_RESP: u16 = 1;

/// `UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS`.
pub const UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
/// `UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT`.
pub const UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT: u16 = 1;

/// `UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS`.
pub const UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
/// `UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT`.
pub const UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT: u16 = 1;

/// `UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE`.
pub const UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE: u16 = 0;
/// `UVERBS_ATTR_QUERY_GID_TABLE_FLAGS`.
pub const UVERBS_ATTR_QUERY_GID_TABLE_FLAGS: u16 = 1;
/// `UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES`.
pub const UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES: u16 = 2;
/// `UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES`.
pub const UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES: u16 = 3;

/// `UVERBS_ATTR_QUERY_GID_ENTRY_PORT`.
pub const UVERBS_ATTR_QUERY_GID_ENTRY_PORT: u16 = 0;
/// `UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX`.
pub const UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX: u16 = 1;
/// `UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS`.
pub const UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS: u16 = 2;
/// `UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY`.
pub const UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY: u16 = 3;

/// `UVERBS_METHOD_ASYNC_EVENT_ALLOC` of `UVERBS_OBJECT_ASYNC_EVENT`.
pub const UVERBS_METHOD_ASYNC_EVENT_ALLOC: u16 = 0;
/// `UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE`.
pub const UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE: u16 = 0;

// ------------------------------------------------------------------ objects

// The object ids (`enum uverbs_default_objects`).
/// `UVERBS_OBJECT_PD`.
pub const UVERBS_OBJECT_PD: u16 = 1;
/// `UVERBS_OBJECT_COMP_CHANNEL`.
pub const UVERBS_OBJECT_COMP_CHANNEL: u16 = 2;
/// `UVERBS_OBJECT_CQ`.
pub const UVERBS_OBJECT_CQ: u16 = 3;
/// `UVERBS_OBJECT_QP`.
pub const UVERBS_OBJECT_QP: u16 = 4;
/// `UVERBS_OBJECT_SRQ`.
pub const UVERBS_OBJECT_SRQ: u16 = 5;
/// `UVERBS_OBJECT_AH`.
pub const UVERBS_OBJECT_AH: u16 = 6;
/// `UVERBS_OBJECT_MR`.
pub const UVERBS_OBJECT_MR: u16 = 7;
/// `UVERBS_OBJECT_MW`.
pub const UVERBS_OBJECT_MW: u16 = 8;
/// `UVERBS_OBJECT_FLOW`.
pub const UVERBS_OBJECT_FLOW: u16 = 9;
/// `UVERBS_OBJECT_XRCD`.
pub const UVERBS_OBJECT_XRCD: u16 = 10;
/// `UVERBS_OBJECT_RWQ_IND_TBL`.
pub const UVERBS_OBJECT_RWQ_IND_TBL: u16 = 11;
/// `UVERBS_OBJECT_WQ`.
pub const UVERBS_OBJECT_WQ: u16 = 12;
/// `UVERBS_OBJECT_FLOW_ACTION`.
pub const UVERBS_OBJECT_FLOW_ACTION: u16 = 13;
/// `UVERBS_OBJECT_DM`.
pub const UVERBS_OBJECT_DM: u16 = 14;
/// `UVERBS_OBJECT_COUNTERS`.
pub const UVERBS_OBJECT_COUNTERS: u16 = 15;

// CQ (`enum uverbs_methods_cq`, `uverbs_attrs_create_cq_cmd_attr_ids`,
// `uverbs_attrs_destroy_cq_cmd_attr_ids`).
/// `UVERBS_METHOD_CQ_CREATE`.
pub const UVERBS_METHOD_CQ_CREATE: u16 = 0;
/// `UVERBS_METHOD_CQ_DESTROY`.
pub const UVERBS_METHOD_CQ_DESTROY: u16 = 1;
/// `UVERBS_ATTR_CREATE_CQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_CQ_HANDLE: u16 = 0;
/// `UVERBS_ATTR_CREATE_CQ_CQE`.
pub const UVERBS_ATTR_CREATE_CQ_CQE: u16 = 1;
/// `UVERBS_ATTR_CREATE_CQ_USER_HANDLE`.
pub const UVERBS_ATTR_CREATE_CQ_USER_HANDLE: u16 = 2;
/// `UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL`.
pub const UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL: u16 = 3;
/// `UVERBS_ATTR_CREATE_CQ_COMP_VECTOR`.
pub const UVERBS_ATTR_CREATE_CQ_COMP_VECTOR: u16 = 4;
/// `UVERBS_ATTR_CREATE_CQ_FLAGS`.
pub const UVERBS_ATTR_CREATE_CQ_FLAGS: u16 = 5;
/// `UVERBS_ATTR_CREATE_CQ_RESP_CQE`.
pub const UVERBS_ATTR_CREATE_CQ_RESP_CQE: u16 = 6;
/// `UVERBS_ATTR_CREATE_CQ_EVENT_FD`.
pub const UVERBS_ATTR_CREATE_CQ_EVENT_FD: u16 = 7;
/// `UVERBS_ATTR_DESTROY_CQ_HANDLE`.
pub const UVERBS_ATTR_DESTROY_CQ_HANDLE: u16 = 0;
/// `UVERBS_ATTR_DESTROY_CQ_RESP`.
pub const UVERBS_ATTR_DESTROY_CQ_RESP: u16 = 1;

// QP (`enum uverbs_methods_qp`, `uverbs_attrs_create_qp_cmd_attr_ids`,
// `uverbs_attrs_destroy_qp_cmd_attr_ids`).
/// `UVERBS_METHOD_QP_CREATE`.
pub const UVERBS_METHOD_QP_CREATE: u16 = 0;
/// `UVERBS_METHOD_QP_DESTROY`.
pub const UVERBS_METHOD_QP_DESTROY: u16 = 1;
/// `UVERBS_ATTR_CREATE_QP_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_HANDLE: u16 = 0;
/// `UVERBS_ATTR_CREATE_QP_XRCD_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_XRCD_HANDLE: u16 = 1;
/// `UVERBS_ATTR_CREATE_QP_PD_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_PD_HANDLE: u16 = 2;
/// `UVERBS_ATTR_CREATE_QP_SRQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_SRQ_HANDLE: u16 = 3;
/// `UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE: u16 = 4;
/// `UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE: u16 = 5;
/// `UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE: u16 = 6;
/// `UVERBS_ATTR_CREATE_QP_USER_HANDLE`.
pub const UVERBS_ATTR_CREATE_QP_USER_HANDLE: u16 = 7;
/// `UVERBS_ATTR_CREATE_QP_CAP`.
pub const UVERBS_ATTR_CREATE_QP_CAP: u16 = 8;
/// `UVERBS_ATTR_CREATE_QP_TYPE`.
pub const UVERBS_ATTR_CREATE_QP_TYPE: u16 = 9;
/// `UVERBS_ATTR_CREATE_QP_FLAGS`.
pub const UVERBS_ATTR_CREATE_QP_FLAGS: u16 = 10;
/// `UVERBS_ATTR_CREATE_QP_SOURCE_QPN`.
pub const UVERBS_ATTR_CREATE_QP_SOURCE_QPN: u16 = 11;
/// `UVERBS_ATTR_CREATE_QP_EVENT_FD`.
pub const UVERBS_ATTR_CREATE_QP_EVENT_FD: u16 = 12;
/// `UVERBS_ATTR_CREATE_QP_RESP_CAP`.
pub const UVERBS_ATTR_CREATE_QP_RESP_CAP: u16 = 13;
/// `UVERBS_ATTR_CREATE_QP_RESP_QP_NUM`.
pub const UVERBS_ATTR_CREATE_QP_RESP_QP_NUM: u16 = 14;
/// `UVERBS_ATTR_DESTROY_QP_HANDLE`.
pub const UVERBS_ATTR_DESTROY_QP_HANDLE: u16 = 0;
/// `UVERBS_ATTR_DESTROY_QP_RESP`.
pub const UVERBS_ATTR_DESTROY_QP_RESP: u16 = 1;

// SRQ (`enum uverbs_methods_srq`, `uverbs_attrs_create_srq_cmd_attr_ids`,
// `uverbs_attrs_destroy_srq_cmd_attr_ids`).
/// `UVERBS_METHOD_SRQ_CREATE`.
pub const UVERBS_METHOD_SRQ_CREATE: u16 = 0;
/// `UVERBS_METHOD_SRQ_DESTROY`.
pub const UVERBS_METHOD_SRQ_DESTROY: u16 = 1;
/// `UVERBS_ATTR_CREATE_SRQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_SRQ_HANDLE: u16 = 0;
/// `UVERBS_ATTR_CREATE_SRQ_PD_HANDLE`.
pub const UVERBS_ATTR_CREATE_SRQ_PD_HANDLE: u16 = 1;
/// `UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE`.
pub const UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE: u16 = 2;
/// `UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE`.
pub const UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE: u16 = 3;
/// `UVERBS_ATTR_CREATE_SRQ_USER_HANDLE`.
pub const UVERBS_ATTR_CREATE_SRQ_USER_HANDLE: u16 = 4;
/// `UVERBS_ATTR_CREATE_SRQ_MAX_WR`.
pub const UVERBS_ATTR_CREATE_SRQ_MAX_WR: u16 = 5;
/// `UVERBS_ATTR_CREATE_SRQ_MAX_SGE`.
pub const UVERBS_ATTR_CREATE_SRQ_MAX_SGE: u16 = 6;
/// `UVERBS_ATTR_CREATE_SRQ_LIMIT`.
pub const UVERBS_ATTR_CREATE_SRQ_LIMIT: u16 = 7;
/// `UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS`.
pub const UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS: u16 = 8;
/// `UVERBS_ATTR_CREATE_SRQ_TYPE`.
pub const UVERBS_ATTR_CREATE_SRQ_TYPE: u16 = 9;
/// `UVERBS_ATTR_CREATE_SRQ_EVENT_FD`.
pub const UVERBS_ATTR_CREATE_SRQ_EVENT_FD: u16 = 10;
/// `UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR`.
pub const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR: u16 = 11;
/// `UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE`.
pub const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE: u16 = 12;
/// `UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM`.
pub const UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM: u16 = 13;
/// `UVERBS_ATTR_DESTROY_SRQ_HANDLE`.
pub const UVERBS_ATTR_DESTROY_SRQ_HANDLE: u16 = 0;
/// `UVERBS_ATTR_DESTROY_SRQ_RESP`.
pub const UVERBS_ATTR_DESTROY_SRQ_RESP: u16 = 1;

// MR (`enum uverbs_methods_mr`, `uverbs_attrs_mr_destroy_ids`).
/// `UVERBS_METHOD_DM_MR_REG`.
pub const UVERBS_METHOD_DM_MR_REG: u16 = 0;
/// `UVERBS_METHOD_MR_DESTROY`.
pub const UVERBS_METHOD_MR_DESTROY: u16 = 1;
/// `UVERBS_METHOD_ADVISE_MR`.
pub const UVERBS_METHOD_ADVISE_MR: u16 = 2;
/// `UVERBS_METHOD_QUERY_MR`.
pub const UVERBS_METHOD_QUERY_MR: u16 = 3;
/// `UVERBS_METHOD_REG_DMABUF_MR`.
pub const UVERBS_METHOD_REG_DMABUF_MR: u16 = 4;
/// `UVERBS_ATTR_DESTROY_MR_HANDLE`.
pub const UVERBS_ATTR_DESTROY_MR_HANDLE: u16 = 0;

// PD and AH destroy (`enum uverbs_methods_pd`, `uverbs_attrs_pd_destroy_ids`,
// `enum uverbs_methods_ah`, `uverbs_attrs_ah_destroy_ids`).
/// `UVERBS_METHOD_PD_DESTROY`.
pub const UVERBS_METHOD_PD_DESTROY: u16 = 0;
/// `UVERBS_ATTR_DESTROY_PD_HANDLE`.
pub const UVERBS_ATTR_DESTROY_PD_HANDLE: u16 = 0;
/// `UVERBS_METHOD_AH_DESTROY`.
pub const UVERBS_METHOD_AH_DESTROY: u16 = 0;
/// `UVERBS_ATTR_DESTROY_AH_HANDLE`.
pub const UVERBS_ATTR_DESTROY_AH_HANDLE: u16 = 0;
// ---------------------------------------------- newer kernels (issue 16: rdma-core 64's uapi)

/// `UVERBS_METHOD_QUERY_PORT_SPEED`: a port's effective speed (since Linux 7.0).
pub const UVERBS_METHOD_QUERY_PORT_SPEED: u16 = 7;
/// `UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM`: the port, a `u32` `CONST_IN`.
pub const UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM: u16 = 0;
/// `UVERBS_ATTR_QUERY_PORT_SPEED_RESP`: the speed in units of 100 Mb/s, a `u64` `PTR_OUT`.
pub const UVERBS_ATTR_QUERY_PORT_SPEED_RESP: u16 = 1;
/// `UVERBS_ATTR_GET_CONTEXT_FD_ARR`: file descriptors of capabilities (UCAPs) the new
/// context may use (since Linux 6.15). This crate does not send it.
pub const UVERBS_ATTR_GET_CONTEXT_FD_ARR: u16 = 2;
