//! `ib_user_verbs.h`: the legacy `write()` command ABI, whose request and response structs
//! are also carried by the ioctl method `INVOKE_WRITE`.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `IB_USER_VERBS_ABI_VERSION`: the only uverbs ABI version this crate speaks.
pub const IB_USER_VERBS_ABI_VERSION: u32 = 6;
/// `IB_USER_VERBS_CMD_COMMAND_MASK`.
pub const IB_USER_VERBS_CMD_COMMAND_MASK: u32 = 0xff;
/// `IB_USER_VERBS_CMD_FLAG_EXTENDED`: marks an extended (`_ex`) command.
pub const IB_USER_VERBS_CMD_FLAG_EXTENDED: u32 = 0x8000_0000;

/// `IB_USER_VERBS_CMD_GET_CONTEXT`.
pub const IB_USER_VERBS_CMD_GET_CONTEXT: u32 = 0;
/// `IB_USER_VERBS_CMD_QUERY_DEVICE`.
pub const IB_USER_VERBS_CMD_QUERY_DEVICE: u32 = 1;
/// `IB_USER_VERBS_CMD_QUERY_PORT`.
pub const IB_USER_VERBS_CMD_QUERY_PORT: u32 = 2;
/// `IB_USER_VERBS_EX_CMD_QUERY_DEVICE`.
pub const IB_USER_VERBS_EX_CMD_QUERY_DEVICE: u32 = IB_USER_VERBS_CMD_QUERY_DEVICE;

/// `struct ib_uverbs_cmd_hdr`: the header of every `write()` command.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_cmd_hdr {
    /// `IB_USER_VERBS_CMD_*`, with `IB_USER_VERBS_CMD_FLAG_EXTENDED` for `_ex` commands.
    pub command: u32,
    /// Length of the command in 4-byte words (8-byte words after an ex header).
    pub in_words: u16,
    /// Length of the response in 4-byte words (8-byte words for ex commands).
    pub out_words: u16,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_cmd_hdr>() == 8);

/// `struct ib_uverbs_ex_cmd_hdr`: follows [`ib_uverbs_cmd_hdr`] in extended commands.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ex_cmd_hdr {
    /// User pointer to the response buffer.
    pub response: u64,
    /// Length of the driver's input data in 8-byte words.
    pub provider_in_words: u16,
    /// Length of the driver's output data in 8-byte words.
    pub provider_out_words: u16,
    /// Must be 0.
    pub cmd_hdr_reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ex_cmd_hdr>() == 16);

/// `struct ib_uverbs_get_context` (without the `driver_data[]` tail).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_get_context {
    /// User pointer to the response.
    pub response: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_get_context>() == 8);

/// `struct ib_uverbs_get_context_resp` (without the `driver_data[]` tail). Aligned to 8
/// like the C struct, whose `__aligned_u64 driver_data[]` tail sets its alignment.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_get_context_resp {
    /// The async event file descriptor the write() path creates.
    pub async_fd: u32,
    /// Number of completion vectors.
    pub num_comp_vectors: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_get_context_resp>() == 8);

/// `struct ib_uverbs_query_device` (without the `driver_data[]` tail).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_device {
    /// User pointer to the response.
    pub response: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_device>() == 8);

/// `struct ib_uverbs_query_device_resp`: the device attributes (176 bytes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_device_resp {
    /// Firmware version as a number (drivers format it themselves).
    pub fw_ver: u64,
    /// Node GUID, big-endian (`__be64`).
    pub node_guid: u64,
    /// System image GUID, big-endian (`__be64`).
    pub sys_image_guid: u64,
    /// Largest memory region.
    pub max_mr_size: u64,
    /// Supported page sizes (bit n = 2^n bytes).
    pub page_size_cap: u64,
    /// IEEE vendor id.
    pub vendor_id: u32,
    /// Vendor part id.
    pub vendor_part_id: u32,
    /// Hardware version.
    pub hw_ver: u32,
    /// Max QPs.
    pub max_qp: u32,
    /// Max work requests per queue.
    pub max_qp_wr: u32,
    /// Capability flags (low 32 bits).
    pub device_cap_flags: u32,
    /// Max scatter/gather entries per WR.
    pub max_sge: u32,
    /// Max scatter/gather entries per RDMA read WR.
    pub max_sge_rd: u32,
    /// Max CQs.
    pub max_cq: u32,
    /// Max entries per CQ.
    pub max_cqe: u32,
    /// Max MRs.
    pub max_mr: u32,
    /// Max PDs.
    pub max_pd: u32,
    /// Max outstanding RDMA read/atomic per QP as target.
    pub max_qp_rd_atom: u32,
    /// Max outstanding RDMA read/atomic per EEC.
    pub max_ee_rd_atom: u32,
    /// Max RDMA read/atomic resources as target.
    pub max_res_rd_atom: u32,
    /// Max RDMA read/atomic depth per QP as initiator.
    pub max_qp_init_rd_atom: u32,
    /// Max RDMA read/atomic depth per EEC as initiator.
    pub max_ee_init_rd_atom: u32,
    /// Atomic capability (`IB_ATOMIC_*`).
    pub atomic_cap: u32,
    /// Max EE contexts.
    pub max_ee: u32,
    /// Max RD domains.
    pub max_rdd: u32,
    /// Max MWs.
    pub max_mw: u32,
    /// Max raw IPv6 QPs.
    pub max_raw_ipv6_qp: u32,
    /// Max raw Ethertype QPs.
    pub max_raw_ethy_qp: u32,
    /// Max multicast groups.
    pub max_mcast_grp: u32,
    /// Max QPs per multicast group.
    pub max_mcast_qp_attach: u32,
    /// Max QPs attached to multicast groups in total.
    pub max_total_mcast_qp_attach: u32,
    /// Max address handles.
    pub max_ah: u32,
    /// Max FMRs.
    pub max_fmr: u32,
    /// Max remaps per FMR.
    pub max_map_per_fmr: u32,
    /// Max SRQs.
    pub max_srq: u32,
    /// Max WRs per SRQ.
    pub max_srq_wr: u32,
    /// Max scatter/gather entries per SRQ WR.
    pub max_srq_sge: u32,
    /// Max partitions.
    pub max_pkeys: u16,
    /// Local CA ack delay.
    pub local_ca_ack_delay: u8,
    /// Number of physical ports.
    pub phys_port_cnt: u8,
    /// Reserved.
    pub reserved: [u8; 4],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_device_resp>() == 176);

/// `struct ib_uverbs_ex_query_device`: the request of the extended QUERY_DEVICE.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ex_query_device {
    /// Must be 0.
    pub comp_mask: u32,
    /// Must be 0.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ex_query_device>() == 8);

/// `struct ib_uverbs_odp_caps`: on-demand paging capabilities.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_odp_caps {
    /// `IB_ODP_SUPPORT*` bits.
    pub general_caps: u64,
    /// `per_transport_caps.rc_odp_caps`.
    pub rc_odp_caps: u32,
    /// `per_transport_caps.uc_odp_caps`.
    pub uc_odp_caps: u32,
    /// `per_transport_caps.ud_odp_caps`.
    pub ud_odp_caps: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_odp_caps>() == 24);

/// `struct ib_uverbs_rss_caps`: receive-side scaling capabilities.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_rss_caps {
    /// Bit `1 << qp_type` per supported QP type.
    pub supported_qpts: u32,
    /// Max receive WQ indirection tables.
    pub max_rwq_indirection_tables: u32,
    /// Max size of one indirection table.
    pub max_rwq_indirection_table_size: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_rss_caps>() == 16);

/// `struct ib_uverbs_tm_caps`: tag matching capabilities.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_tm_caps {
    /// Max rendezvous header size.
    pub max_rndv_hdr_size: u32,
    /// Max tags in the matching list.
    pub max_num_tags: u32,
    /// `IB_TM_CAP_*` flags.
    pub flags: u32,
    /// Max outstanding list operations.
    pub max_ops: u32,
    /// Max SGEs per tag matching entry.
    pub max_sge: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_tm_caps>() == 24);

/// `struct ib_uverbs_cq_moderation_caps`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_cq_moderation_caps {
    /// Max CQ moderation count.
    pub max_cq_moderation_count: u16,
    /// Max CQ moderation period (µs).
    pub max_cq_moderation_period: u16,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_cq_moderation_caps>() == 8);

/// `struct ib_uverbs_ex_query_device_resp`: the extended device attributes (304 bytes).
/// Older kernels fill only `response_length` bytes of it.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ex_query_device_resp {
    /// The legacy attributes.
    pub base: ib_uverbs_query_device_resp,
    /// Reserved for future use.
    pub comp_mask: u32,
    /// Number of bytes of this struct the kernel filled.
    pub response_length: u32,
    /// On-demand paging caps.
    pub odp_caps: ib_uverbs_odp_caps,
    /// Completion timestamp mask.
    pub timestamp_mask: u64,
    /// HCA core clock in kHz.
    pub hca_core_clock: u64,
    /// The full 64-bit capability flags.
    pub device_cap_flags_ex: u64,
    /// RSS caps.
    pub rss_caps: ib_uverbs_rss_caps,
    /// Max WQs of type RQ.
    pub max_wq_type_rq: u32,
    /// Raw packet caps.
    pub raw_packet_caps: u32,
    /// Tag matching caps.
    pub tm_caps: ib_uverbs_tm_caps,
    /// CQ moderation caps.
    pub cq_moderation_caps: ib_uverbs_cq_moderation_caps,
    /// Max device memory size.
    pub max_dm_size: u64,
    /// XRC on-demand paging caps.
    pub xrc_odp_caps: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ex_query_device_resp>() == 304);

/// `struct ib_uverbs_query_port` (without the `driver_data[]` tail).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_port {
    /// User pointer to the response.
    pub response: u64,
    /// Port number, from 1.
    pub port_num: u8,
    /// Reserved.
    pub reserved: [u8; 7],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_port>() == 16);

/// `struct ib_uverbs_query_port_resp`: the port attributes (40 bytes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_port_resp {
    /// `IB_UVERBS_PCF_*` capability bits.
    pub port_cap_flags: u32,
    /// Max message size.
    pub max_msg_sz: u32,
    /// Bad P_Key counter.
    pub bad_pkey_cntr: u32,
    /// Q_Key violation counter.
    pub qkey_viol_cntr: u32,
    /// GID table length.
    pub gid_tbl_len: u32,
    /// P_Key table length.
    pub pkey_tbl_len: u16,
    /// Base LID.
    pub lid: u16,
    /// LID of the subnet manager.
    pub sm_lid: u16,
    /// Logical port state.
    pub state: u8,
    /// Max MTU (enum).
    pub max_mtu: u8,
    /// Active MTU (enum).
    pub active_mtu: u8,
    /// LID mask control.
    pub lmc: u8,
    /// Max VLs (enum).
    pub max_vl_num: u8,
    /// Service level of the SM.
    pub sm_sl: u8,
    /// Subnet timeout exponent.
    pub subnet_timeout: u8,
    /// Init type reply.
    pub init_type_reply: u8,
    /// Active width (bits).
    pub active_width: u8,
    /// Active speed (bits), capped at NDR since 6.7.
    pub active_speed: u8,
    /// Physical state.
    pub phys_state: u8,
    /// Link layer.
    pub link_layer: u8,
    /// `IB_UVERBS_QPF_*`.
    pub flags: u8,
    /// Reserved.
    pub reserved: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_port_resp>() == 40);

/// `struct ib_uverbs_async_event_desc`: one event read from the async event file.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_async_event_desc {
    /// The element: port number for port events, object handle for others.
    pub element: u64,
    /// `enum ib_event_type`.
    pub event_type: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_async_event_desc>() == 16);

// ------------------------------------------------------------------ objects

// The commands, structs and constants of the object model (PD, MR, completion
// channel, CQ, QP, AH, SRQ).

/// `IB_USER_VERBS_CMD_ALLOC_PD`.
pub const IB_USER_VERBS_CMD_ALLOC_PD: u32 = 3;
/// `IB_USER_VERBS_CMD_DEALLOC_PD`.
pub const IB_USER_VERBS_CMD_DEALLOC_PD: u32 = 4;
/// `IB_USER_VERBS_CMD_CREATE_AH`.
pub const IB_USER_VERBS_CMD_CREATE_AH: u32 = 5;
/// `IB_USER_VERBS_CMD_MODIFY_AH`.
pub const IB_USER_VERBS_CMD_MODIFY_AH: u32 = 6;
/// `IB_USER_VERBS_CMD_QUERY_AH`.
pub const IB_USER_VERBS_CMD_QUERY_AH: u32 = 7;
/// `IB_USER_VERBS_CMD_DESTROY_AH`.
pub const IB_USER_VERBS_CMD_DESTROY_AH: u32 = 8;
/// `IB_USER_VERBS_CMD_REG_MR`.
pub const IB_USER_VERBS_CMD_REG_MR: u32 = 9;
/// `IB_USER_VERBS_CMD_REG_SMR`.
pub const IB_USER_VERBS_CMD_REG_SMR: u32 = 10;
/// `IB_USER_VERBS_CMD_REREG_MR`.
pub const IB_USER_VERBS_CMD_REREG_MR: u32 = 11;
/// `IB_USER_VERBS_CMD_QUERY_MR`.
pub const IB_USER_VERBS_CMD_QUERY_MR: u32 = 12;
/// `IB_USER_VERBS_CMD_DEREG_MR`.
pub const IB_USER_VERBS_CMD_DEREG_MR: u32 = 13;
/// `IB_USER_VERBS_CMD_ALLOC_MW`.
pub const IB_USER_VERBS_CMD_ALLOC_MW: u32 = 14;
/// `IB_USER_VERBS_CMD_BIND_MW`.
pub const IB_USER_VERBS_CMD_BIND_MW: u32 = 15;
/// `IB_USER_VERBS_CMD_DEALLOC_MW`.
pub const IB_USER_VERBS_CMD_DEALLOC_MW: u32 = 16;
/// `IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL`.
pub const IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: u32 = 17;
/// `IB_USER_VERBS_CMD_CREATE_CQ`.
pub const IB_USER_VERBS_CMD_CREATE_CQ: u32 = 18;
/// `IB_USER_VERBS_CMD_RESIZE_CQ`.
pub const IB_USER_VERBS_CMD_RESIZE_CQ: u32 = 19;
/// `IB_USER_VERBS_CMD_DESTROY_CQ`.
pub const IB_USER_VERBS_CMD_DESTROY_CQ: u32 = 20;
/// `IB_USER_VERBS_CMD_POLL_CQ`.
pub const IB_USER_VERBS_CMD_POLL_CQ: u32 = 21;
/// `IB_USER_VERBS_CMD_PEEK_CQ`.
pub const IB_USER_VERBS_CMD_PEEK_CQ: u32 = 22;
/// `IB_USER_VERBS_CMD_REQ_NOTIFY_CQ`.
pub const IB_USER_VERBS_CMD_REQ_NOTIFY_CQ: u32 = 23;
/// `IB_USER_VERBS_CMD_CREATE_QP`.
pub const IB_USER_VERBS_CMD_CREATE_QP: u32 = 24;
/// `IB_USER_VERBS_CMD_QUERY_QP`.
pub const IB_USER_VERBS_CMD_QUERY_QP: u32 = 25;
/// `IB_USER_VERBS_CMD_MODIFY_QP`.
pub const IB_USER_VERBS_CMD_MODIFY_QP: u32 = 26;
/// `IB_USER_VERBS_CMD_DESTROY_QP`.
pub const IB_USER_VERBS_CMD_DESTROY_QP: u32 = 27;
/// `IB_USER_VERBS_CMD_POST_SEND`.
pub const IB_USER_VERBS_CMD_POST_SEND: u32 = 28;
/// `IB_USER_VERBS_CMD_POST_RECV`.
pub const IB_USER_VERBS_CMD_POST_RECV: u32 = 29;
/// `IB_USER_VERBS_CMD_ATTACH_MCAST`.
pub const IB_USER_VERBS_CMD_ATTACH_MCAST: u32 = 30;
/// `IB_USER_VERBS_CMD_DETACH_MCAST`.
pub const IB_USER_VERBS_CMD_DETACH_MCAST: u32 = 31;
/// `IB_USER_VERBS_CMD_CREATE_SRQ`.
pub const IB_USER_VERBS_CMD_CREATE_SRQ: u32 = 32;
/// `IB_USER_VERBS_CMD_MODIFY_SRQ`.
pub const IB_USER_VERBS_CMD_MODIFY_SRQ: u32 = 33;
/// `IB_USER_VERBS_CMD_QUERY_SRQ`.
pub const IB_USER_VERBS_CMD_QUERY_SRQ: u32 = 34;
/// `IB_USER_VERBS_CMD_DESTROY_SRQ`.
pub const IB_USER_VERBS_CMD_DESTROY_SRQ: u32 = 35;
/// `IB_USER_VERBS_CMD_POST_SRQ_RECV`.
pub const IB_USER_VERBS_CMD_POST_SRQ_RECV: u32 = 36;
/// `IB_USER_VERBS_CMD_OPEN_XRCD`.
pub const IB_USER_VERBS_CMD_OPEN_XRCD: u32 = 37;
/// `IB_USER_VERBS_CMD_CLOSE_XRCD`.
pub const IB_USER_VERBS_CMD_CLOSE_XRCD: u32 = 38;
/// `IB_USER_VERBS_CMD_CREATE_XSRQ`.
pub const IB_USER_VERBS_CMD_CREATE_XSRQ: u32 = 39;
/// `IB_USER_VERBS_CMD_OPEN_QP`.
pub const IB_USER_VERBS_CMD_OPEN_QP: u32 = 40;
/// `IB_USER_VERBS_EX_CMD_CREATE_CQ`.
pub const IB_USER_VERBS_EX_CMD_CREATE_CQ: u32 = IB_USER_VERBS_CMD_CREATE_CQ;
/// `IB_USER_VERBS_EX_CMD_CREATE_QP`.
pub const IB_USER_VERBS_EX_CMD_CREATE_QP: u32 = IB_USER_VERBS_CMD_CREATE_QP;
/// `IB_USER_VERBS_EX_CMD_MODIFY_QP`.
pub const IB_USER_VERBS_EX_CMD_MODIFY_QP: u32 = IB_USER_VERBS_CMD_MODIFY_QP;
/// `IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION`.
pub const IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION: u32 = 1 << 0;
/// `IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN`.
pub const IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN: u32 = 1 << 1;

/// `struct ib_uverbs_alloc_pd`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_alloc_pd {
    /// `response`.
    pub response: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_alloc_pd>() == 8);

/// `struct ib_uverbs_alloc_pd_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_alloc_pd_resp {
    /// `pd_handle`.
    pub pd_handle: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_alloc_pd_resp>() == 4);

/// `struct ib_uverbs_dealloc_pd`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_dealloc_pd {
    /// `pd_handle`.
    pub pd_handle: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_dealloc_pd>() == 4);

/// `struct ib_uverbs_reg_mr`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_reg_mr {
    /// `response`.
    pub response: u64,
    /// `start`.
    pub start: u64,
    /// `length`.
    pub length: u64,
    /// `hca_va`.
    pub hca_va: u64,
    /// `pd_handle`.
    pub pd_handle: u32,
    /// `access_flags`.
    pub access_flags: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_reg_mr>() == 40);

/// `struct ib_uverbs_reg_mr_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_reg_mr_resp {
    /// `mr_handle`.
    pub mr_handle: u32,
    /// `lkey`.
    pub lkey: u32,
    /// `rkey`.
    pub rkey: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_reg_mr_resp>() == 12);

/// `struct ib_uverbs_dereg_mr`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_dereg_mr {
    /// `mr_handle`.
    pub mr_handle: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_dereg_mr>() == 4);

/// `struct ib_uverbs_create_comp_channel`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_comp_channel {
    /// `response`.
    pub response: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_comp_channel>() == 8);

/// `struct ib_uverbs_create_comp_channel_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_comp_channel_resp {
    /// `fd`.
    pub fd: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_comp_channel_resp>() == 4);

/// `struct ib_uverbs_create_cq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_cq {
    /// `response`.
    pub response: u64,
    /// `user_handle`.
    pub user_handle: u64,
    /// `cqe`.
    pub cqe: u32,
    /// `comp_vector`.
    pub comp_vector: u32,
    /// `comp_channel`.
    pub comp_channel: i32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_cq>() == 32);

/// `struct ib_uverbs_create_cq_resp`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_cq_resp {
    /// `cq_handle`.
    pub cq_handle: u32,
    /// `cqe`.
    pub cqe: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_cq_resp>() == 8);

/// `struct ib_uverbs_resize_cq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_resize_cq {
    /// `response`.
    pub response: u64,
    /// `cq_handle`.
    pub cq_handle: u32,
    /// `cqe`.
    pub cqe: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_resize_cq>() == 16);

/// `struct ib_uverbs_resize_cq_resp`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_resize_cq_resp {
    /// `cqe`.
    pub cqe: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_resize_cq_resp>() == 8);

/// `struct ib_uverbs_destroy_cq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_cq {
    /// `response`.
    pub response: u64,
    /// `cq_handle`.
    pub cq_handle: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_cq>() == 16);

/// `struct ib_uverbs_destroy_cq_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_cq_resp {
    /// `comp_events_reported`.
    pub comp_events_reported: u32,
    /// `async_events_reported`.
    pub async_events_reported: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_cq_resp>() == 8);

/// `struct ib_uverbs_global_route`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_global_route {
    /// `dgid`.
    pub dgid: [u8; 16],
    /// `flow_label`.
    pub flow_label: u32,
    /// `sgid_index`.
    pub sgid_index: u8,
    /// `hop_limit`.
    pub hop_limit: u8,
    /// `traffic_class`.
    pub traffic_class: u8,
    /// `reserved`.
    pub reserved: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_global_route>() == 24);

/// `struct ib_uverbs_ah_attr`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ah_attr {
    /// `grh`.
    pub grh: ib_uverbs_global_route,
    /// `dlid`.
    pub dlid: u16,
    /// `sl`.
    pub sl: u8,
    /// `src_path_bits`.
    pub src_path_bits: u8,
    /// `static_rate`.
    pub static_rate: u8,
    /// `is_global`.
    pub is_global: u8,
    /// `port_num`.
    pub port_num: u8,
    /// `reserved`.
    pub reserved: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ah_attr>() == 32);

/// `struct ib_uverbs_create_qp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_qp {
    /// `response`.
    pub response: u64,
    /// `user_handle`.
    pub user_handle: u64,
    /// `pd_handle`.
    pub pd_handle: u32,
    /// `send_cq_handle`.
    pub send_cq_handle: u32,
    /// `recv_cq_handle`.
    pub recv_cq_handle: u32,
    /// `srq_handle`.
    pub srq_handle: u32,
    /// `max_send_wr`.
    pub max_send_wr: u32,
    /// `max_recv_wr`.
    pub max_recv_wr: u32,
    /// `max_send_sge`.
    pub max_send_sge: u32,
    /// `max_recv_sge`.
    pub max_recv_sge: u32,
    /// `max_inline_data`.
    pub max_inline_data: u32,
    /// `sq_sig_all`.
    pub sq_sig_all: u8,
    /// `qp_type`.
    pub qp_type: u8,
    /// `is_srq`.
    pub is_srq: u8,
    /// `reserved`.
    pub reserved: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_qp>() == 56);

/// `struct ib_uverbs_create_qp_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_qp_resp {
    /// `qp_handle`.
    pub qp_handle: u32,
    /// `qpn`.
    pub qpn: u32,
    /// `max_send_wr`.
    pub max_send_wr: u32,
    /// `max_recv_wr`.
    pub max_recv_wr: u32,
    /// `max_send_sge`.
    pub max_send_sge: u32,
    /// `max_recv_sge`.
    pub max_recv_sge: u32,
    /// `max_inline_data`.
    pub max_inline_data: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_qp_resp>() == 32);

/// `struct ib_uverbs_qp_dest`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_qp_dest {
    /// `dgid`.
    pub dgid: [u8; 16],
    /// `flow_label`.
    pub flow_label: u32,
    /// `dlid`.
    pub dlid: u16,
    /// `reserved`.
    pub reserved: u16,
    /// `sgid_index`.
    pub sgid_index: u8,
    /// `hop_limit`.
    pub hop_limit: u8,
    /// `traffic_class`.
    pub traffic_class: u8,
    /// `sl`.
    pub sl: u8,
    /// `src_path_bits`.
    pub src_path_bits: u8,
    /// `static_rate`.
    pub static_rate: u8,
    /// `is_global`.
    pub is_global: u8,
    /// `port_num`.
    pub port_num: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_qp_dest>() == 32);

/// `struct ib_uverbs_query_qp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_qp {
    /// `response`.
    pub response: u64,
    /// `qp_handle`.
    pub qp_handle: u32,
    /// `attr_mask`.
    pub attr_mask: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_qp>() == 16);

/// `struct ib_uverbs_query_qp_resp`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_qp_resp {
    /// `dest`.
    pub dest: ib_uverbs_qp_dest,
    /// `alt_dest`.
    pub alt_dest: ib_uverbs_qp_dest,
    /// `max_send_wr`.
    pub max_send_wr: u32,
    /// `max_recv_wr`.
    pub max_recv_wr: u32,
    /// `max_send_sge`.
    pub max_send_sge: u32,
    /// `max_recv_sge`.
    pub max_recv_sge: u32,
    /// `max_inline_data`.
    pub max_inline_data: u32,
    /// `qkey`.
    pub qkey: u32,
    /// `rq_psn`.
    pub rq_psn: u32,
    /// `sq_psn`.
    pub sq_psn: u32,
    /// `dest_qp_num`.
    pub dest_qp_num: u32,
    /// `qp_access_flags`.
    pub qp_access_flags: u32,
    /// `pkey_index`.
    pub pkey_index: u16,
    /// `alt_pkey_index`.
    pub alt_pkey_index: u16,
    /// `qp_state`.
    pub qp_state: u8,
    /// `cur_qp_state`.
    pub cur_qp_state: u8,
    /// `path_mtu`.
    pub path_mtu: u8,
    /// `path_mig_state`.
    pub path_mig_state: u8,
    /// `sq_draining`.
    pub sq_draining: u8,
    /// `max_rd_atomic`.
    pub max_rd_atomic: u8,
    /// `max_dest_rd_atomic`.
    pub max_dest_rd_atomic: u8,
    /// `min_rnr_timer`.
    pub min_rnr_timer: u8,
    /// `port_num`.
    pub port_num: u8,
    /// `timeout`.
    pub timeout: u8,
    /// `retry_cnt`.
    pub retry_cnt: u8,
    /// `rnr_retry`.
    pub rnr_retry: u8,
    /// `alt_port_num`.
    pub alt_port_num: u8,
    /// `alt_timeout`.
    pub alt_timeout: u8,
    /// `sq_sig_all`.
    pub sq_sig_all: u8,
    /// `reserved`.
    pub reserved: [u8; 5],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_qp_resp>() == 128);

/// `struct ib_uverbs_modify_qp`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_modify_qp {
    /// `dest`.
    pub dest: ib_uverbs_qp_dest,
    /// `alt_dest`.
    pub alt_dest: ib_uverbs_qp_dest,
    /// `qp_handle`.
    pub qp_handle: u32,
    /// `attr_mask`.
    pub attr_mask: u32,
    /// `qkey`.
    pub qkey: u32,
    /// `rq_psn`.
    pub rq_psn: u32,
    /// `sq_psn`.
    pub sq_psn: u32,
    /// `dest_qp_num`.
    pub dest_qp_num: u32,
    /// `qp_access_flags`.
    pub qp_access_flags: u32,
    /// `pkey_index`.
    pub pkey_index: u16,
    /// `alt_pkey_index`.
    pub alt_pkey_index: u16,
    /// `qp_state`.
    pub qp_state: u8,
    /// `cur_qp_state`.
    pub cur_qp_state: u8,
    /// `path_mtu`.
    pub path_mtu: u8,
    /// `path_mig_state`.
    pub path_mig_state: u8,
    /// `en_sqd_async_notify`.
    pub en_sqd_async_notify: u8,
    /// `max_rd_atomic`.
    pub max_rd_atomic: u8,
    /// `max_dest_rd_atomic`.
    pub max_dest_rd_atomic: u8,
    /// `min_rnr_timer`.
    pub min_rnr_timer: u8,
    /// `port_num`.
    pub port_num: u8,
    /// `timeout`.
    pub timeout: u8,
    /// `retry_cnt`.
    pub retry_cnt: u8,
    /// `rnr_retry`.
    pub rnr_retry: u8,
    /// `alt_port_num`.
    pub alt_port_num: u8,
    /// `alt_timeout`.
    pub alt_timeout: u8,
    /// `reserved`.
    pub reserved: [u8; 2],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_modify_qp>() == 112);

/// `struct ib_uverbs_ex_modify_qp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ex_modify_qp {
    /// `base`.
    pub base: ib_uverbs_modify_qp,
    /// `rate_limit`.
    pub rate_limit: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ex_modify_qp>() == 120);

/// `struct ib_uverbs_ex_modify_qp_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_ex_modify_qp_resp {
    /// `comp_mask`.
    pub comp_mask: u32,
    /// `response_length`.
    pub response_length: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_ex_modify_qp_resp>() == 8);

/// `struct ib_uverbs_destroy_qp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_qp {
    /// `response`.
    pub response: u64,
    /// `qp_handle`.
    pub qp_handle: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_qp>() == 16);

/// `struct ib_uverbs_destroy_qp_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_qp_resp {
    /// `events_reported`.
    pub events_reported: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_qp_resp>() == 4);

/// `struct ib_uverbs_create_ah`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_ah {
    /// `response`.
    pub response: u64,
    /// `user_handle`.
    pub user_handle: u64,
    /// `pd_handle`.
    pub pd_handle: u32,
    /// `reserved`.
    pub reserved: u32,
    /// `attr`.
    pub attr: ib_uverbs_ah_attr,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_ah>() == 56);

/// `struct ib_uverbs_create_ah_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_ah_resp {
    /// `ah_handle`.
    pub ah_handle: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_ah_resp>() == 4);

/// `struct ib_uverbs_destroy_ah`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_ah {
    /// `ah_handle`.
    pub ah_handle: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_ah>() == 4);

/// `struct ib_uverbs_create_srq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_srq {
    /// `response`.
    pub response: u64,
    /// `user_handle`.
    pub user_handle: u64,
    /// `pd_handle`.
    pub pd_handle: u32,
    /// `max_wr`.
    pub max_wr: u32,
    /// `max_sge`.
    pub max_sge: u32,
    /// `srq_limit`.
    pub srq_limit: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_srq>() == 32);

/// `struct ib_uverbs_create_srq_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_create_srq_resp {
    /// `srq_handle`.
    pub srq_handle: u32,
    /// `max_wr`.
    pub max_wr: u32,
    /// `max_sge`.
    pub max_sge: u32,
    /// `srqn`.
    pub srqn: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_create_srq_resp>() == 16);

/// `struct ib_uverbs_modify_srq`.
#[repr(C, align(8))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_modify_srq {
    /// `srq_handle`.
    pub srq_handle: u32,
    /// `attr_mask`.
    pub attr_mask: u32,
    /// `max_wr`.
    pub max_wr: u32,
    /// `srq_limit`.
    pub srq_limit: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_modify_srq>() == 16);

/// `struct ib_uverbs_query_srq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_srq {
    /// `response`.
    pub response: u64,
    /// `srq_handle`.
    pub srq_handle: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_srq>() == 16);

/// `struct ib_uverbs_query_srq_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_srq_resp {
    /// `max_wr`.
    pub max_wr: u32,
    /// `max_sge`.
    pub max_sge: u32,
    /// `srq_limit`.
    pub srq_limit: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_srq_resp>() == 16);

/// `struct ib_uverbs_destroy_srq`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_srq {
    /// `response`.
    pub response: u64,
    /// `srq_handle`.
    pub srq_handle: u32,
    /// `reserved`.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_srq>() == 16);

/// `struct ib_uverbs_destroy_srq_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_destroy_srq_resp {
    /// `events_reported`.
    pub events_reported: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_destroy_srq_resp>() == 4);

// ------------------------------------------------------------------ the data path

/// `struct ib_uverbs_comp_event_desc`: one event read from a completion channel.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_comp_event_desc {
    /// `cq_handle`: the `user_handle` the CQ was created with.
    pub cq_handle: u64,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_comp_event_desc>() == 8);

/// `struct ib_uverbs_wc`: a work completion as rxe writes it into its completion queue
/// (and POLL_CQ would return it).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_wc {
    /// `wr_id`.
    pub wr_id: u64,
    /// `status` (`enum ib_wc_status`).
    pub status: u32,
    /// `opcode` (`enum ib_wc_opcode`).
    pub opcode: u32,
    /// `vendor_err`.
    pub vendor_err: u32,
    /// `byte_len`.
    pub byte_len: u32,
    /// `ex`: a union of `imm_data` (big-endian) and `invalidate_rkey`.
    pub ex: u32,
    /// `qp_num`.
    pub qp_num: u32,
    /// `src_qp`.
    pub src_qp: u32,
    /// `wc_flags`.
    pub wc_flags: u32,
    /// `pkey_index`.
    pub pkey_index: u16,
    /// `slid`.
    pub slid: u16,
    /// `sl`.
    pub sl: u8,
    /// `dlid_path_bits`.
    pub dlid_path_bits: u8,
    /// `port_num`.
    pub port_num: u8,
    /// `reserved`.
    pub reserved: u8,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_wc>() == 48);

/// `struct ib_uverbs_req_notify_cq`: arms a CQ (REQ_NOTIFY_CQ, no response).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_req_notify_cq {
    /// `cq_handle`.
    pub cq_handle: u32,
    /// `solicited_only`: 1 for the next solicited completion only.
    pub solicited_only: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_req_notify_cq>() == 8);

/// `struct ib_uverbs_send_wr`: a send work request as the POST_SEND command carries it
/// (rxe and siw take theirs from the mapped queue: the crate sends none, and needs only
/// the size, which POST_SEND's `wqe_size` must reach).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_send_wr {
    /// `wr_id`.
    pub wr_id: u64,
    /// `num_sge`.
    pub num_sge: u32,
    /// `opcode` (`enum ib_uverbs_wr_opcode`).
    pub opcode: u32,
    /// `send_flags`.
    pub send_flags: u32,
    /// `ex`: a union of `imm_data` and `invalidate_rkey`.
    pub ex: u32,
    /// `wr`: a union of the `ud`, `rdma` and `atomic` parts.
    pub wr: [u64; 4],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_send_wr>() == 56);

/// `struct ib_uverbs_post_send`: POST_SEND. With `wr_count` 0 it posts nothing and
/// only makes the driver look at its queue: the doorbell of rxe and siw.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_post_send {
    /// `response`.
    pub response: u64,
    /// `qp_handle`.
    pub qp_handle: u32,
    /// `wr_count`.
    pub wr_count: u32,
    /// `sge_count`.
    pub sge_count: u32,
    /// `wqe_size`: the size of each `ib_uverbs_send_wr` that follows (at least 56).
    pub wqe_size: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_post_send>() == 24);

/// `struct ib_uverbs_post_send_resp`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_post_send_resp {
    /// `bad_wr`: the index of the first work request that failed.
    pub bad_wr: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_post_send_resp>() == 4);

/// `IB_UVERBS_WR_RDMA_WRITE`.
pub const IB_UVERBS_WR_RDMA_WRITE: u32 = 0;
/// `IB_UVERBS_WR_RDMA_WRITE_WITH_IMM`.
pub const IB_UVERBS_WR_RDMA_WRITE_WITH_IMM: u32 = 1;
/// `IB_UVERBS_WR_SEND`.
pub const IB_UVERBS_WR_SEND: u32 = 2;
/// `IB_UVERBS_WR_SEND_WITH_IMM`.
pub const IB_UVERBS_WR_SEND_WITH_IMM: u32 = 3;
/// `IB_UVERBS_WR_RDMA_READ`.
pub const IB_UVERBS_WR_RDMA_READ: u32 = 4;
/// `IB_UVERBS_WR_ATOMIC_CMP_AND_SWP`.
pub const IB_UVERBS_WR_ATOMIC_CMP_AND_SWP: u32 = 5;
/// `IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD`.
pub const IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD: u32 = 6;
/// `IB_UVERBS_WR_LOCAL_INV`.
pub const IB_UVERBS_WR_LOCAL_INV: u32 = 7;
/// `IB_UVERBS_WR_BIND_MW`.
pub const IB_UVERBS_WR_BIND_MW: u32 = 8;
/// `IB_UVERBS_WR_SEND_WITH_INV`.
pub const IB_UVERBS_WR_SEND_WITH_INV: u32 = 9;

/// `struct ib_uverbs_qp_attr`: a QP's attributes as the RDMA CM's INIT_QP_ATTR answers
/// them (with the mask of those it set).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_qp_attr {
    /// `qp_attr_mask` (`IB_QP_*`, as `ibv_qp_attr_mask`).
    pub qp_attr_mask: u32,
    /// `qp_state`.
    pub qp_state: u32,
    /// `cur_qp_state`.
    pub cur_qp_state: u32,
    /// `path_mtu`.
    pub path_mtu: u32,
    /// `path_mig_state`.
    pub path_mig_state: u32,
    /// `qkey`.
    pub qkey: u32,
    /// `rq_psn`.
    pub rq_psn: u32,
    /// `sq_psn`.
    pub sq_psn: u32,
    /// `dest_qp_num`.
    pub dest_qp_num: u32,
    /// `qp_access_flags`.
    pub qp_access_flags: u32,
    /// `ah_attr`.
    pub ah_attr: ib_uverbs_ah_attr,
    /// `alt_ah_attr`.
    pub alt_ah_attr: ib_uverbs_ah_attr,
    /// `max_send_wr`.
    pub max_send_wr: u32,
    /// `max_recv_wr`.
    pub max_recv_wr: u32,
    /// `max_send_sge`.
    pub max_send_sge: u32,
    /// `max_recv_sge`.
    pub max_recv_sge: u32,
    /// `max_inline_data`.
    pub max_inline_data: u32,
    /// `pkey_index`.
    pub pkey_index: u16,
    /// `alt_pkey_index`.
    pub alt_pkey_index: u16,
    /// `en_sqd_async_notify`.
    pub en_sqd_async_notify: u8,
    /// `sq_draining`.
    pub sq_draining: u8,
    /// `max_rd_atomic`.
    pub max_rd_atomic: u8,
    /// `max_dest_rd_atomic`.
    pub max_dest_rd_atomic: u8,
    /// `min_rnr_timer`.
    pub min_rnr_timer: u8,
    /// `port_num`.
    pub port_num: u8,
    /// `timeout`.
    pub timeout: u8,
    /// `retry_cnt`.
    pub retry_cnt: u8,
    /// `rnr_retry`.
    pub rnr_retry: u8,
    /// `alt_port_num`.
    pub alt_port_num: u8,
    /// `alt_timeout`.
    pub alt_timeout: u8,
    /// `reserved`.
    pub reserved: [u8; 5],
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_qp_attr>() == 144);
