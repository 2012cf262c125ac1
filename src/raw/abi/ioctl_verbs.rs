//! `ib_user_ioctl_verbs.h`: structs and constants of the ioctl interface.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::ib_uverbs_query_port_resp;

/// `IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS`.
pub const IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS: u32 = 1 << 0;

/// `struct ib_uverbs_query_port_resp_ex` as of Linux 6.7 (48 bytes): the response of the
/// QUERY_PORT ioctl. Before 6.7 the last 8 bytes after `port_cap_flags2` were
/// `reserved[6]` (same size), so `active_speed_ex` reads 0 there.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_query_port_resp_ex {
    /// The legacy response.
    pub legacy_resp: ib_uverbs_query_port_resp,
    /// `IB_PORT_*` capability mask 2 bits.
    pub port_cap_flags2: u16,
    /// Reserved.
    pub reserved: [u8; 2],
    /// Active speed without the NDR cap (since Linux 6.7).
    pub active_speed_ex: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_query_port_resp_ex>() == 48);

/// `struct ib_uverbs_gid_entry`: one GID table entry (32 bytes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_gid_entry {
    /// The 16 GID bytes, in network order (as two `__aligned_u64`).
    pub gid: [u64; 2],
    /// Index in the port's table.
    pub gid_index: u32,
    /// Port number.
    pub port_num: u32,
    /// `IB_UVERBS_GID_TYPE_*`.
    pub gid_type: u32,
    /// ifindex of the associated netdev, 0 if none.
    pub netdev_ifindex: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_gid_entry>() == 32);

/// `IB_UVERBS_GID_TYPE_IB`.
pub const IB_UVERBS_GID_TYPE_IB: u32 = 0;
/// `IB_UVERBS_GID_TYPE_ROCE_V1`.
pub const IB_UVERBS_GID_TYPE_ROCE_V1: u32 = 1;
/// `IB_UVERBS_GID_TYPE_ROCE_V2`.
pub const IB_UVERBS_GID_TYPE_ROCE_V2: u32 = 2;

/// `IB_UVERBS_QPF_GRH_REQUIRED`: the port's `flags` bit.
pub const IB_UVERBS_QPF_GRH_REQUIRED: u32 = 1 << 0;

/// `IB_UVERBS_PCF_SM`.
pub const IB_UVERBS_PCF_SM: u32 = 1 << 1;
/// `IB_UVERBS_PCF_NOTICE_SUP`.
pub const IB_UVERBS_PCF_NOTICE_SUP: u32 = 1 << 2;
/// `IB_UVERBS_PCF_TRAP_SUP`.
pub const IB_UVERBS_PCF_TRAP_SUP: u32 = 1 << 3;
/// `IB_UVERBS_PCF_OPT_IPD_SUP`.
pub const IB_UVERBS_PCF_OPT_IPD_SUP: u32 = 1 << 4;
/// `IB_UVERBS_PCF_AUTO_MIGR_SUP`.
pub const IB_UVERBS_PCF_AUTO_MIGR_SUP: u32 = 1 << 5;
/// `IB_UVERBS_PCF_SL_MAP_SUP`.
pub const IB_UVERBS_PCF_SL_MAP_SUP: u32 = 1 << 6;
/// `IB_UVERBS_PCF_MKEY_NVRAM`.
pub const IB_UVERBS_PCF_MKEY_NVRAM: u32 = 1 << 7;
/// `IB_UVERBS_PCF_PKEY_NVRAM`.
pub const IB_UVERBS_PCF_PKEY_NVRAM: u32 = 1 << 8;
/// `IB_UVERBS_PCF_LED_INFO_SUP`.
pub const IB_UVERBS_PCF_LED_INFO_SUP: u32 = 1 << 9;
/// `IB_UVERBS_PCF_SM_DISABLED`.
pub const IB_UVERBS_PCF_SM_DISABLED: u32 = 1 << 10;
/// `IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP`.
pub const IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP: u32 = 1 << 11;
/// `IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP`.
pub const IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP: u32 = 1 << 12;
/// `IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP`.
pub const IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP: u32 = 1 << 14;
/// `IB_UVERBS_PCF_CM_SUP`.
pub const IB_UVERBS_PCF_CM_SUP: u32 = 1 << 16;
/// `IB_UVERBS_PCF_SNMP_TUNNEL_SUP`.
pub const IB_UVERBS_PCF_SNMP_TUNNEL_SUP: u32 = 1 << 17;
/// `IB_UVERBS_PCF_REINIT_SUP`.
pub const IB_UVERBS_PCF_REINIT_SUP: u32 = 1 << 18;
/// `IB_UVERBS_PCF_DEVICE_MGMT_SUP`.
pub const IB_UVERBS_PCF_DEVICE_MGMT_SUP: u32 = 1 << 19;
/// `IB_UVERBS_PCF_VENDOR_CLASS_SUP`.
pub const IB_UVERBS_PCF_VENDOR_CLASS_SUP: u32 = 1 << 20;
/// `IB_UVERBS_PCF_DR_NOTICE_SUP`.
pub const IB_UVERBS_PCF_DR_NOTICE_SUP: u32 = 1 << 21;
/// `IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP`.
pub const IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP: u32 = 1 << 22;
/// `IB_UVERBS_PCF_BOOT_MGMT_SUP`.
pub const IB_UVERBS_PCF_BOOT_MGMT_SUP: u32 = 1 << 23;
/// `IB_UVERBS_PCF_LINK_LATENCY_SUP`.
pub const IB_UVERBS_PCF_LINK_LATENCY_SUP: u32 = 1 << 24;
/// `IB_UVERBS_PCF_CLIENT_REG_SUP`.
pub const IB_UVERBS_PCF_CLIENT_REG_SUP: u32 = 1 << 25;
/// `IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP`.
pub const IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP: u32 = 1 << 27;
/// `IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP`.
pub const IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP: u32 = 1 << 28;
/// `IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP`.
pub const IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP: u32 = 1 << 29;
/// `IB_UVERBS_PCF_MCAST_FDB_TOP_SUP`.
pub const IB_UVERBS_PCF_MCAST_FDB_TOP_SUP: u32 = 1 << 30;
/// `IB_UVERBS_PCF_HIERARCHY_INFO_SUP`.
pub const IB_UVERBS_PCF_HIERARCHY_INFO_SUP: u32 = 1 << 31;
/// `IB_UVERBS_PCF_IP_BASED_GIDS`: set by the kernel on RoCE and iWARP ports (IsOtherLocalChangeNoticeSupported's bit, reused).
pub const IB_UVERBS_PCF_IP_BASED_GIDS: u32 = 1 << 26;

/// `RDMA_DRIVER_UNKNOWN` (enum rdma_driver_id).
pub const RDMA_DRIVER_UNKNOWN: u32 = 0;
/// `RDMA_DRIVER_MLX5`.
pub const RDMA_DRIVER_MLX5: u32 = 1;
/// `RDMA_DRIVER_MLX4`.
pub const RDMA_DRIVER_MLX4: u32 = 2;
/// `RDMA_DRIVER_CXGB3`.
pub const RDMA_DRIVER_CXGB3: u32 = 3;
/// `RDMA_DRIVER_CXGB4`.
pub const RDMA_DRIVER_CXGB4: u32 = 4;
/// `RDMA_DRIVER_MTHCA`.
pub const RDMA_DRIVER_MTHCA: u32 = 5;
/// `RDMA_DRIVER_BNXT_RE`.
pub const RDMA_DRIVER_BNXT_RE: u32 = 6;
/// `RDMA_DRIVER_OCRDMA`.
pub const RDMA_DRIVER_OCRDMA: u32 = 7;
/// `RDMA_DRIVER_NES`.
pub const RDMA_DRIVER_NES: u32 = 8;
/// `RDMA_DRIVER_I40IW`.
pub const RDMA_DRIVER_I40IW: u32 = 9;
/// `RDMA_DRIVER_IRDMA` (= `RDMA_DRIVER_I40IW`).
pub const RDMA_DRIVER_IRDMA: u32 = RDMA_DRIVER_I40IW;
/// `RDMA_DRIVER_VMW_PVRDMA`.
pub const RDMA_DRIVER_VMW_PVRDMA: u32 = 10;
/// `RDMA_DRIVER_QEDR`.
pub const RDMA_DRIVER_QEDR: u32 = 11;
/// `RDMA_DRIVER_HNS`.
pub const RDMA_DRIVER_HNS: u32 = 12;
/// `RDMA_DRIVER_USNIC`.
pub const RDMA_DRIVER_USNIC: u32 = 13;
/// `RDMA_DRIVER_RXE`.
pub const RDMA_DRIVER_RXE: u32 = 14;
/// `RDMA_DRIVER_HFI1`.
pub const RDMA_DRIVER_HFI1: u32 = 15;
/// `RDMA_DRIVER_QIB`.
pub const RDMA_DRIVER_QIB: u32 = 16;
/// `RDMA_DRIVER_EFA`.
pub const RDMA_DRIVER_EFA: u32 = 17;
/// `RDMA_DRIVER_SIW`.
pub const RDMA_DRIVER_SIW: u32 = 18;
/// `RDMA_DRIVER_ERDMA`.
pub const RDMA_DRIVER_ERDMA: u32 = 19;
/// `RDMA_DRIVER_MANA` (since Linux 6.2).
pub const RDMA_DRIVER_MANA: u32 = 20;
/// `RDMA_DRIVER_IONIC` (since Linux 6.18).
pub const RDMA_DRIVER_IONIC: u32 = 21;

// ------------------------------------------------------------------ objects

/// `struct ib_uverbs_qp_cap`: the capacities of a QP, asked for in QP_CREATE's `CAP`
/// and answered in `RESP_CAP`.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ib_uverbs_qp_cap {
    /// Work requests of the send queue.
    pub max_send_wr: u32,
    /// Work requests of the receive queue.
    pub max_recv_wr: u32,
    /// Scatter/gather entries per send work request.
    pub max_send_sge: u32,
    /// Scatter/gather entries per receive work request.
    pub max_recv_sge: u32,
    /// Bytes of inline data per send work request.
    pub max_inline_data: u32,
}
const _: () = assert!(core::mem::size_of::<ib_uverbs_qp_cap>() == 20);

// `enum ib_uverbs_qp_type`.
/// `IB_UVERBS_QPT_RC`.
pub const IB_UVERBS_QPT_RC: u32 = 2;
/// `IB_UVERBS_QPT_UC`.
pub const IB_UVERBS_QPT_UC: u32 = 3;
/// `IB_UVERBS_QPT_UD`.
pub const IB_UVERBS_QPT_UD: u32 = 4;
/// `IB_UVERBS_QPT_RAW_PACKET`.
pub const IB_UVERBS_QPT_RAW_PACKET: u32 = 8;
/// `IB_UVERBS_QPT_XRC_INI`.
pub const IB_UVERBS_QPT_XRC_INI: u32 = 9;
/// `IB_UVERBS_QPT_XRC_TGT`.
pub const IB_UVERBS_QPT_XRC_TGT: u32 = 10;
/// `IB_UVERBS_QPT_DRIVER`.
pub const IB_UVERBS_QPT_DRIVER: u32 = 0xFF;

// `enum ib_uverbs_qp_create_flags`.
/// `IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK`.
pub const IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK: u32 = 1 << 1;
/// `IB_UVERBS_QP_CREATE_SCATTER_FCS`.
pub const IB_UVERBS_QP_CREATE_SCATTER_FCS: u32 = 1 << 8;
/// `IB_UVERBS_QP_CREATE_CVLAN_STRIPPING`.
pub const IB_UVERBS_QP_CREATE_CVLAN_STRIPPING: u32 = 1 << 9;
/// `IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING`.
pub const IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING: u32 = 1 << 11;
/// `IB_UVERBS_QP_CREATE_SQ_SIG_ALL`.
pub const IB_UVERBS_QP_CREATE_SQ_SIG_ALL: u32 = 1 << 12;

// `enum ib_uverbs_srq_type`.
/// `IB_UVERBS_SRQT_BASIC`.
pub const IB_UVERBS_SRQT_BASIC: u32 = 0;
/// `IB_UVERBS_SRQT_XRC`.
pub const IB_UVERBS_SRQT_XRC: u32 = 1;
/// `IB_UVERBS_SRQT_TM`.
pub const IB_UVERBS_SRQT_TM: u32 = 2;

// `enum ib_uverbs_access_flags`.
/// `IB_UVERBS_ACCESS_LOCAL_WRITE`.
pub const IB_UVERBS_ACCESS_LOCAL_WRITE: u32 = 1 << 0;
/// `IB_UVERBS_ACCESS_REMOTE_WRITE`.
pub const IB_UVERBS_ACCESS_REMOTE_WRITE: u32 = 1 << 1;
/// `IB_UVERBS_ACCESS_REMOTE_READ`.
pub const IB_UVERBS_ACCESS_REMOTE_READ: u32 = 1 << 2;
/// `IB_UVERBS_ACCESS_REMOTE_ATOMIC`.
pub const IB_UVERBS_ACCESS_REMOTE_ATOMIC: u32 = 1 << 3;
/// `IB_UVERBS_ACCESS_MW_BIND`.
pub const IB_UVERBS_ACCESS_MW_BIND: u32 = 1 << 4;
/// `IB_UVERBS_ACCESS_ZERO_BASED`.
pub const IB_UVERBS_ACCESS_ZERO_BASED: u32 = 1 << 5;
/// `IB_UVERBS_ACCESS_ON_DEMAND`.
pub const IB_UVERBS_ACCESS_ON_DEMAND: u32 = 1 << 6;
/// `IB_UVERBS_ACCESS_HUGETLB`.
pub const IB_UVERBS_ACCESS_HUGETLB: u32 = 1 << 7;
/// `IB_UVERBS_ACCESS_OPTIONAL_FIRST`.
pub const IB_UVERBS_ACCESS_OPTIONAL_FIRST: u32 = 1 << 20;
/// `IB_UVERBS_ACCESS_OPTIONAL_LAST`.
pub const IB_UVERBS_ACCESS_OPTIONAL_LAST: u32 = 1 << 29;
/// `IB_UVERBS_ACCESS_RELAXED_ORDERING`.
pub const IB_UVERBS_ACCESS_RELAXED_ORDERING: u32 = IB_UVERBS_ACCESS_OPTIONAL_FIRST;
// ---------------------------------------------- newer kernels (issue 16: rdma-core 64's uapi)

/// `IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA`: the kernel copies driver data robustly
/// (truncating or zero-filling UHW_IN/UHW_OUT of other sizes; since Linux 7.1). Reported
/// by GET_CONTEXT's core support flags ([`Context::core_support`](crate::Context::core_support)).
pub const IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA: u32 = 1 << 1;
