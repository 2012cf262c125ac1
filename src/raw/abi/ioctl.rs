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
