//! `rdma_user_cm.h`: the RDMA connection manager's user interface
//! (`/dev/infiniband/rdma_cm`, the `rdma_ucm` module). Commands are `write()`s of an
//! [`rdma_ucm_cmd_hdr`] and a command struct; those that answer carry the address of
//! their response in a `response` field.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::verbs::ib_uverbs_ah_attr;

/// `RDMA_USER_CM_ABI_VERSION`.
pub const RDMA_USER_CM_ABI_VERSION: u32 = 4;
/// `RDMA_MAX_PRIVATE_DATA`.
pub const RDMA_MAX_PRIVATE_DATA: usize = 256;

/// `RDMA_USER_CM_CMD_CREATE_ID`.
pub const RDMA_USER_CM_CMD_CREATE_ID: u32 = 0;
/// `RDMA_USER_CM_CMD_DESTROY_ID`.
pub const RDMA_USER_CM_CMD_DESTROY_ID: u32 = 1;
/// `RDMA_USER_CM_CMD_BIND_IP`.
pub const RDMA_USER_CM_CMD_BIND_IP: u32 = 2;
/// `RDMA_USER_CM_CMD_RESOLVE_IP`.
pub const RDMA_USER_CM_CMD_RESOLVE_IP: u32 = 3;
/// `RDMA_USER_CM_CMD_RESOLVE_ROUTE`.
pub const RDMA_USER_CM_CMD_RESOLVE_ROUTE: u32 = 4;
/// `RDMA_USER_CM_CMD_QUERY_ROUTE`.
pub const RDMA_USER_CM_CMD_QUERY_ROUTE: u32 = 5;
/// `RDMA_USER_CM_CMD_CONNECT`.
pub const RDMA_USER_CM_CMD_CONNECT: u32 = 6;
/// `RDMA_USER_CM_CMD_LISTEN`.
pub const RDMA_USER_CM_CMD_LISTEN: u32 = 7;
/// `RDMA_USER_CM_CMD_ACCEPT`.
pub const RDMA_USER_CM_CMD_ACCEPT: u32 = 8;
/// `RDMA_USER_CM_CMD_REJECT`.
pub const RDMA_USER_CM_CMD_REJECT: u32 = 9;
/// `RDMA_USER_CM_CMD_DISCONNECT`.
pub const RDMA_USER_CM_CMD_DISCONNECT: u32 = 10;
/// `RDMA_USER_CM_CMD_INIT_QP_ATTR`.
pub const RDMA_USER_CM_CMD_INIT_QP_ATTR: u32 = 11;
/// `RDMA_USER_CM_CMD_GET_EVENT`.
pub const RDMA_USER_CM_CMD_GET_EVENT: u32 = 12;
/// `RDMA_USER_CM_CMD_QUERY`.
pub const RDMA_USER_CM_CMD_QUERY: u32 = 19;

/// `RDMA_PS_TCP`: the port space of RC connections.
pub const RDMA_PS_TCP: u16 = 0x0106;
/// `RDMA_PS_UDP`.
pub const RDMA_PS_UDP: u16 = 0x0111;
/// `RDMA_PS_IB`.
pub const RDMA_PS_IB: u16 = 0x013f;

/// `RDMA_USER_CM_QUERY_ADDR`.
pub const RDMA_USER_CM_QUERY_ADDR: u32 = 0;
/// `RDMA_USER_CM_QUERY_PATH`.
pub const RDMA_USER_CM_QUERY_PATH: u32 = 1;
/// `RDMA_USER_CM_QUERY_GID`.
pub const RDMA_USER_CM_QUERY_GID: u32 = 2;

/// `struct sockaddr_in6` (`linux/in6.h`); an IPv4 address travels in it as a
/// `sockaddr_in` (family `AF_INET`), as librdmacm sends it.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct sockaddr_in6 {
    /// `sin6_family`.
    pub sin6_family: u16,
    /// `sin6_port` (network order).
    pub sin6_port: u16,
    /// `sin6_flowinfo`.
    pub sin6_flowinfo: u32,
    /// `sin6_addr`.
    pub sin6_addr: [u8; 16],
    /// `sin6_scope_id`.
    pub sin6_scope_id: u32,
}
const _: () = assert!(core::mem::size_of::<sockaddr_in6>() == 28);

/// `struct __kernel_sockaddr_storage`.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
pub struct __kernel_sockaddr_storage {
    /// `ss_family`.
    pub ss_family: u16,
    /// `__data`.
    pub data: [u8; 126],
}
const _: () = assert!(core::mem::size_of::<__kernel_sockaddr_storage>() == 128);

impl Default for __kernel_sockaddr_storage {
    fn default() -> Self {
        zerocopy::FromZeros::new_zeroed()
    }
}

/// `struct rdma_ucm_cmd_hdr`: `in` and `out` are the byte lengths of the command
/// struct and of its response.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_cmd_hdr {
    /// `cmd` (`RDMA_USER_CM_CMD_*`).
    pub cmd: u32,
    /// `in`.
    pub in_: u16,
    /// `out`.
    pub out: u16,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_cmd_hdr>() == 8);

/// `struct rdma_ucm_create_id`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_create_id {
    /// `uid`: the caller's number for the id, echoed in its events.
    pub uid: u64,
    /// `response`.
    pub response: u64,
    /// `ps` (`RDMA_PS_*`).
    pub ps: u16,
    /// `qp_type` (`IB_QPT_*`).
    pub qp_type: u8,
    /// `reserved`.
    pub reserved: [u8; 5],
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_create_id>() == 24);

/// `struct rdma_ucm_create_id_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_create_id_resp {
    /// `id`.
    pub id: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_create_id_resp>() == 4);

/// `struct rdma_ucm_destroy_id`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_destroy_id {
    /// `response`.
    pub response: u64,
    /// `id`.
    pub id: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_destroy_id>() == 16);

/// `struct rdma_ucm_destroy_id_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_destroy_id_resp {
    /// `events_reported`.
    pub events_reported: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_destroy_id_resp>() == 4);

/// `struct rdma_ucm_bind_ip` (its `response` is not written by the kernel).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_bind_ip {
    /// `response`.
    pub response: u64,
    /// `addr`.
    pub addr: sockaddr_in6,
    /// `id`.
    pub id: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_bind_ip>() == 40);

/// `struct rdma_ucm_resolve_ip`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_resolve_ip {
    /// `src_addr` (family 0: any).
    pub src_addr: sockaddr_in6,
    /// `dst_addr`.
    pub dst_addr: sockaddr_in6,
    /// `id`.
    pub id: u32,
    /// `timeout_ms`.
    pub timeout_ms: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_resolve_ip>() == 64);

/// `struct rdma_ucm_resolve_route`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_resolve_route {
    /// `id`.
    pub id: u32,
    /// `timeout_ms`.
    pub timeout_ms: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_resolve_route>() == 8);

/// `struct rdma_ucm_query`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_query {
    /// `response`.
    pub response: u64,
    /// `id`.
    pub id: u32,
    /// `option` (`RDMA_USER_CM_QUERY_*`).
    pub option: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_query>() == 16);

/// `struct rdma_ucm_query_addr_resp`: where an id is bound (the device by its node GUID
/// and, since Linux 5.4, its index).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_query_addr_resp {
    /// `node_guid` (network order).
    pub node_guid: u64,
    /// `port_num`.
    pub port_num: u8,
    /// `reserved`.
    pub reserved: u8,
    /// `pkey`.
    pub pkey: u16,
    /// `src_size`.
    pub src_size: u16,
    /// `dst_size`.
    pub dst_size: u16,
    /// `src_addr`.
    pub src_addr: __kernel_sockaddr_storage,
    /// `dst_addr`.
    pub dst_addr: __kernel_sockaddr_storage,
    /// `ibdev_index`: the device's index (as netlink and sysfs number devices).
    pub ibdev_index: u32,
    /// `reserved1`.
    pub reserved1: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_query_addr_resp>() == 280);

/// `struct rdma_ucm_conn_param`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
pub struct rdma_ucm_conn_param {
    /// `qp_num`.
    pub qp_num: u32,
    /// `qkey`.
    pub qkey: u32,
    /// `private_data`.
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    /// `private_data_len`.
    pub private_data_len: u8,
    /// `srq`.
    pub srq: u8,
    /// `responder_resources`.
    pub responder_resources: u8,
    /// `initiator_depth`.
    pub initiator_depth: u8,
    /// `flow_control`.
    pub flow_control: u8,
    /// `retry_count`.
    pub retry_count: u8,
    /// `rnr_retry_count`.
    pub rnr_retry_count: u8,
    /// `valid`: 1 when the parameters are given.
    pub valid: u8,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_conn_param>() == 272);

impl Default for rdma_ucm_conn_param {
    fn default() -> Self {
        zerocopy::FromZeros::new_zeroed()
    }
}

/// `struct rdma_ucm_ud_param`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
pub struct rdma_ucm_ud_param {
    /// `qp_num`.
    pub qp_num: u32,
    /// `qkey`.
    pub qkey: u32,
    /// `ah_attr`.
    pub ah_attr: ib_uverbs_ah_attr,
    /// `private_data`.
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    /// `private_data_len`.
    pub private_data_len: u8,
    /// `reserved`.
    pub reserved: [u8; 7],
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_ud_param>() == 304);

/// `struct rdma_ucm_ece`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_ece {
    /// `vendor_id`.
    pub vendor_id: u32,
    /// `attr_mod`.
    pub attr_mod: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_ece>() == 8);

/// `struct rdma_ucm_connect`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_connect {
    /// `conn_param`.
    pub conn_param: rdma_ucm_conn_param,
    /// `id`.
    pub id: u32,
    /// `reserved`.
    pub reserved: u32,
    /// `ece`.
    pub ece: rdma_ucm_ece,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_connect>() == 288);

/// `struct rdma_ucm_listen`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_listen {
    /// `id`.
    pub id: u32,
    /// `backlog`.
    pub backlog: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_listen>() == 8);

/// `struct rdma_ucm_accept`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_accept {
    /// `uid`: the caller's number for the new id.
    pub uid: u64,
    /// `conn_param`.
    pub conn_param: rdma_ucm_conn_param,
    /// `id`.
    pub id: u32,
    /// `reserved`.
    pub reserved: u32,
    /// `ece`.
    pub ece: rdma_ucm_ece,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_accept>() == 296);

/// `struct rdma_ucm_disconnect`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_disconnect {
    /// `id`.
    pub id: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_disconnect>() == 4);

/// `struct rdma_ucm_init_qp_attr`: answered with an `ib_uverbs_qp_attr`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_init_qp_attr {
    /// `response`.
    pub response: u64,
    /// `id`.
    pub id: u32,
    /// `qp_state` (`IB_QPS_*`).
    pub qp_state: u32,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_init_qp_attr>() == 16);

/// `struct rdma_ucm_get_event`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct rdma_ucm_get_event {
    /// `response`.
    pub response: u64,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_get_event>() == 8);

/// `struct rdma_ucm_event_resp`. Its `param` union (connection or UD parameters) is
/// not 8-byte aligned: it is kept as bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
pub struct rdma_ucm_event_resp {
    /// `uid`.
    pub uid: u64,
    /// `id`.
    pub id: u32,
    /// `event` (`enum rdma_cm_event_type`).
    pub event: u32,
    /// `status` (a negative errno, or a reject reason).
    pub status: u32,
    /// `param`: `conn` (`rdma_ucm_conn_param`) or `ud` (`rdma_ucm_ud_param`).
    pub param: [u8; 304],
    /// `reserved`.
    pub reserved: u32,
    /// `ece`.
    pub ece: rdma_ucm_ece,
}
const _: () = assert!(core::mem::size_of::<rdma_ucm_event_resp>() == 336);

impl Default for rdma_ucm_event_resp {
    fn default() -> Self {
        zerocopy::FromZeros::new_zeroed()
    }
}
