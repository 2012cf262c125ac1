//! Device attributes: what `ibv_query_device(3)` and `ibv_query_device_ex(3)` report.

use core::fmt;

use crate::raw::abi::{ib_uverbs_ex_query_device_resp, ib_uverbs_query_device_resp};
use crate::types::{
    AtomicCap, DeviceCapFlags, FwVersion, Guid, OdpGeneralCaps, OdpTransportCaps, RawPacketCaps,
};

/// On-demand paging capabilities (`struct ibv_odp_caps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OdpCaps {
    /// General capabilities.
    pub general_caps: OdpGeneralCaps,
    /// Per-transport capabilities of RC QPs.
    pub rc_odp_caps: OdpTransportCaps,
    /// Of UC QPs.
    pub uc_odp_caps: OdpTransportCaps,
    /// Of UD QPs.
    pub ud_odp_caps: OdpTransportCaps,
}

/// Receive-side scaling capabilities (`struct ibv_rss_caps`, kernel part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RssCaps {
    /// Bit `1 << qp_type` per QP type that supports RSS.
    pub supported_qpts: u32,
    /// Max receive WQ indirection tables.
    pub max_rwq_indirection_tables: u32,
    /// Max size of one indirection table.
    pub max_rwq_indirection_table_size: u32,
}

/// Tag matching capabilities (`struct ibv_tm_caps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TmCaps {
    /// Max rendezvous header size.
    pub max_rndv_hdr_size: u32,
    /// Max tags in the matching list.
    pub max_num_tags: u32,
    /// `IBV_TM_CAP_*` flags.
    pub flags: u32,
    /// Max outstanding list operations.
    pub max_ops: u32,
    /// Max SGEs per tag matching entry.
    pub max_sge: u32,
}

/// CQ moderation capabilities (`struct ibv_cq_moderation_caps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CqModerationCaps {
    /// Max CQ moderation count.
    pub max_cq_count: u16,
    /// Max CQ moderation period (µs).
    pub max_cq_period: u16,
}

/// The attributes of a device (`struct ibv_device_attr` and the kernel part of
/// `struct ibv_device_attr_ex`).
///
/// The struct is `#[non_exhaustive]` (the kernel's extended answer grows with new
/// kernels). To build one, e.g. a synthetic answer for a test of a printer, start from
/// [`DeviceAttr::default`] (every field 0 or empty) and set the public fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
#[doc(alias = "ibv_device_attr")]
#[doc(alias = "ibv_device_attr_ex")]
pub struct DeviceAttr {
    /// Firmware version (sysfs `fw_ver`; empty when the driver has none).
    pub fw_ver: FwVersion,
    /// Node GUID.
    pub node_guid: Guid,
    /// System image GUID.
    pub sys_image_guid: Guid,
    /// Largest memory region in bytes.
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
    /// Max outstanding work requests per queue.
    pub max_qp_wr: u32,
    /// Capability flags (the 32-bit field).
    pub device_cap_flags: DeviceCapFlags,
    /// Max scatter/gather entries per WR (non RDMA-read).
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
    /// Max outstanding RDMA read/atomic per EEC as target.
    pub max_ee_rd_atom: u32,
    /// Max RDMA read/atomic resources as target.
    pub max_res_rd_atom: u32,
    /// Max RDMA read/atomic depth per QP as initiator.
    pub max_qp_init_rd_atom: u32,
    /// Max RDMA read/atomic depth per EEC as initiator.
    pub max_ee_init_rd_atom: u32,
    /// Atomic operation support.
    pub atomic_cap: AtomicCap,
    /// Max EE contexts.
    pub max_ee: u32,
    /// Max RD domains.
    pub max_rdd: u32,
    /// Max memory windows.
    pub max_mw: u32,
    /// Max raw IPv6 datagram QPs.
    pub max_raw_ipv6_qp: u32,
    /// Max raw Ethertype datagram QPs.
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
    /// Bytes of the extended response the kernel filled (0: only the legacy attributes
    /// were available, and every extended field below is 0).
    pub ex_response_length: u32,
    /// On-demand paging capabilities.
    pub odp_caps: OdpCaps,
    /// Completion timestamp mask (`completion_timestamp_mask`).
    pub completion_timestamp_mask: u64,
    /// HCA core clock in kHz.
    pub hca_core_clock: u64,
    /// The full 64-bit capability flags.
    pub device_cap_flags_ex: DeviceCapFlags,
    /// RSS capabilities.
    pub rss_caps: RssCaps,
    /// Max WQs of type RQ.
    pub max_wq_type_rq: u32,
    /// Raw packet capabilities.
    pub raw_packet_caps: RawPacketCaps,
    /// Tag matching capabilities.
    pub tm_caps: TmCaps,
    /// CQ moderation capabilities.
    pub cq_mod_caps: CqModerationCaps,
    /// Max device memory in bytes.
    pub max_dm_size: u64,
    /// XRC on-demand paging capabilities.
    pub xrc_odp_caps: OdpTransportCaps,
}

impl DeviceAttr {
    /// Decodes the legacy QUERY_DEVICE response.
    pub fn from_legacy(r: &ib_uverbs_query_device_resp, fw_ver: FwVersion) -> Self {
        // Every extended field is 0: the legacy fields, then the zero extension.
        Self::decode(r, fw_ver, &ib_uverbs_ex_query_device_resp::default())
    }

    /// Decodes the extended QUERY_DEVICE response. Fields past the kernel's
    /// `response_length` must be zero in `r` (they are, when `r` started zeroed).
    pub fn from_ex(r: &ib_uverbs_ex_query_device_resp, fw_ver: FwVersion) -> Self {
        Self::decode(&r.base, fw_ver, r)
    }

    /// Decodes an extended response from raw bytes: shorter buffers leave the missing
    /// fields 0; bytes past `response_length` are ignored.
    pub fn from_ex_bytes(bytes: &[u8], fw_ver: FwVersion) -> Self {
        let mut r = ib_uverbs_ex_query_device_resp::default();
        let size = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
        let n = bytes.len().min(size);
        zerocopy::IntoBytes::as_mut_bytes(&mut r)[..n].copy_from_slice(&bytes[..n]);
        // Zero what the kernel says it did not fill (never the legacy part or the
        // comp_mask/response_length words).
        let filled = (r.response_length as usize).clamp(
            core::mem::size_of::<ib_uverbs_query_device_resp>() + 8,
            size,
        );
        zerocopy::IntoBytes::as_mut_bytes(&mut r)[filled..].fill(0);
        Self::from_ex(&r, fw_ver)
    }
}

/// The kernel's answer to QUERY_DEVICE, kept as it came (`ib_uverbs_ex_query_device_resp`)
/// and decoded field by field when read: each method has the name, type and meaning of
/// the [`DeviceAttr`] field, and [`DeviceAnswer::attr`] decodes them all.
///
/// [`Context::query_device_into`](crate::Context::query_device_into) writes the next
/// answer into the same value: the kernel fills it in place, and nothing is decoded
/// until a field is read. For callers that ask often and read a few fields.
#[derive(Clone, Default)]
pub struct DeviceAnswer {
    pub(crate) resp: ib_uverbs_ex_query_device_resp,
    pub(crate) fw_ver: FwVersion,
    /// Which context's formatting of which raw firmware number `fw_ver` holds (context
    /// ids start at 1): a repeated query leaves it as it is.
    pub(crate) fw_key: (u64, u64),
}

impl PartialEq for DeviceAnswer {
    fn eq(&self, other: &Self) -> bool {
        self.resp == other.resp && self.fw_ver == other.fw_ver
    }
}

impl Eq for DeviceAnswer {}

impl fmt::Debug for DeviceAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.attr(), f)
    }
}

impl DeviceAnswer {
    /// Every field, decoded: what [`Context::query_device`](crate::Context::query_device)
    /// returns.
    pub fn attr(&self) -> DeviceAttr {
        DeviceAttr::decode(&self.resp.base, self.fw_ver, &self.resp)
    }

    /// The kernel's response as it came (the legacy part alone, the rest zero, when only
    /// the legacy command answered).
    pub fn raw(&self) -> &ib_uverbs_ex_query_device_resp {
        &self.resp
    }

    /// Firmware version (sysfs `fw_ver`; empty when the driver has none).
    pub fn fw_ver(&self) -> FwVersion {
        self.fw_ver
    }
}

/// The decoding of every field but `fw_ver`, once: as [`DeviceAttr::decode`]'s struct
/// literal (the value written in place, where a 344-byte `DeviceAttr` copied as a whole
/// costs more than the decode under an emulator that runs `rep movs` one iteration at a
/// time) and as the accessors of [`DeviceAnswer`]. `$r` is the legacy part of the
/// response, `$x` the extended response (zero past the legacy part when only the legacy
/// command answered).
macro_rules! device_fields {
    ($r:ident, $x:ident; $( $(#[doc = $doc:literal])* $name:ident: $ty:ty = $e:expr, )*) => {
        impl DeviceAttr {
            #[inline(always)]
            fn decode(
                $r: &ib_uverbs_query_device_resp,
                fw_ver: FwVersion,
                $x: &ib_uverbs_ex_query_device_resp,
            ) -> Self {
                DeviceAttr { fw_ver, $( $name: $e, )* }
            }
        }

        impl DeviceAnswer {
            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $name(&self) -> $ty {
                    let $r = &self.resp.base;
                    let $x = &self.resp;
                    let _ = ($r, $x);
                    $e
                }
            )*
        }
    };
}

device_fields! { r, x;
    /// Node GUID.
    node_guid: Guid = Guid::from_be(r.node_guid),
    /// System image GUID.
    sys_image_guid: Guid = Guid::from_be(r.sys_image_guid),
    /// Largest memory region in bytes.
    max_mr_size: u64 = r.max_mr_size,
    /// Supported page sizes (bit n = 2^n bytes).
    page_size_cap: u64 = r.page_size_cap,
    /// IEEE vendor id.
    vendor_id: u32 = r.vendor_id,
    /// Vendor part id.
    vendor_part_id: u32 = r.vendor_part_id,
    /// Hardware version.
    hw_ver: u32 = r.hw_ver,
    /// Max QPs.
    max_qp: u32 = r.max_qp,
    /// Max outstanding work requests per queue.
    max_qp_wr: u32 = r.max_qp_wr,
    /// Capability flags (the 32-bit field).
    device_cap_flags: DeviceCapFlags =
        DeviceCapFlags::from_bits_retain(u64::from(r.device_cap_flags)),
    /// Max scatter/gather entries per WR (non RDMA-read).
    max_sge: u32 = r.max_sge,
    /// Max scatter/gather entries per RDMA read WR.
    max_sge_rd: u32 = r.max_sge_rd,
    /// Max CQs.
    max_cq: u32 = r.max_cq,
    /// Max entries per CQ.
    max_cqe: u32 = r.max_cqe,
    /// Max MRs.
    max_mr: u32 = r.max_mr,
    /// Max PDs.
    max_pd: u32 = r.max_pd,
    /// Max outstanding RDMA read/atomic per QP as target.
    max_qp_rd_atom: u32 = r.max_qp_rd_atom,
    /// Max outstanding RDMA read/atomic per EEC as target.
    max_ee_rd_atom: u32 = r.max_ee_rd_atom,
    /// Max RDMA read/atomic resources as target.
    max_res_rd_atom: u32 = r.max_res_rd_atom,
    /// Max RDMA read/atomic depth per QP as initiator.
    max_qp_init_rd_atom: u32 = r.max_qp_init_rd_atom,
    /// Max RDMA read/atomic depth per EEC as initiator.
    max_ee_init_rd_atom: u32 = r.max_ee_init_rd_atom,
    /// Atomic operation support.
    atomic_cap: AtomicCap = AtomicCap::from_raw(r.atomic_cap),
    /// Max EE contexts.
    max_ee: u32 = r.max_ee,
    /// Max RD domains.
    max_rdd: u32 = r.max_rdd,
    /// Max memory windows.
    max_mw: u32 = r.max_mw,
    /// Max raw IPv6 datagram QPs.
    max_raw_ipv6_qp: u32 = r.max_raw_ipv6_qp,
    /// Max raw Ethertype datagram QPs.
    max_raw_ethy_qp: u32 = r.max_raw_ethy_qp,
    /// Max multicast groups.
    max_mcast_grp: u32 = r.max_mcast_grp,
    /// Max QPs per multicast group.
    max_mcast_qp_attach: u32 = r.max_mcast_qp_attach,
    /// Max QPs attached to multicast groups in total.
    max_total_mcast_qp_attach: u32 = r.max_total_mcast_qp_attach,
    /// Max address handles.
    max_ah: u32 = r.max_ah,
    /// Max FMRs.
    max_fmr: u32 = r.max_fmr,
    /// Max remaps per FMR.
    max_map_per_fmr: u32 = r.max_map_per_fmr,
    /// Max SRQs.
    max_srq: u32 = r.max_srq,
    /// Max WRs per SRQ.
    max_srq_wr: u32 = r.max_srq_wr,
    /// Max scatter/gather entries per SRQ WR.
    max_srq_sge: u32 = r.max_srq_sge,
    /// Max partitions.
    max_pkeys: u16 = r.max_pkeys,
    /// Local CA ack delay.
    local_ca_ack_delay: u8 = r.local_ca_ack_delay,
    /// Number of physical ports.
    phys_port_cnt: u8 = r.phys_port_cnt,
    /// Bytes of the extended response the kernel filled (0: only the legacy attributes
    /// were available, and every extended field is 0).
    ex_response_length: u32 = x.response_length,
    /// On-demand paging capabilities.
    odp_caps: OdpCaps = OdpCaps {
        general_caps: OdpGeneralCaps::from_bits_retain(x.odp_caps.general_caps),
        rc_odp_caps: OdpTransportCaps::from_bits_retain(x.odp_caps.rc_odp_caps),
        uc_odp_caps: OdpTransportCaps::from_bits_retain(x.odp_caps.uc_odp_caps),
        ud_odp_caps: OdpTransportCaps::from_bits_retain(x.odp_caps.ud_odp_caps),
    },
    /// Completion timestamp mask (`completion_timestamp_mask`).
    completion_timestamp_mask: u64 = x.timestamp_mask,
    /// HCA core clock in kHz.
    hca_core_clock: u64 = x.hca_core_clock,
    /// The full 64-bit capability flags.
    device_cap_flags_ex: DeviceCapFlags = DeviceCapFlags::from_bits_retain(x.device_cap_flags_ex),
    /// RSS capabilities.
    rss_caps: RssCaps = RssCaps {
        supported_qpts: x.rss_caps.supported_qpts,
        max_rwq_indirection_tables: x.rss_caps.max_rwq_indirection_tables,
        max_rwq_indirection_table_size: x.rss_caps.max_rwq_indirection_table_size,
    },
    /// Max WQs of type RQ.
    max_wq_type_rq: u32 = x.max_wq_type_rq,
    /// Raw packet capabilities.
    raw_packet_caps: RawPacketCaps = RawPacketCaps::from_bits_retain(x.raw_packet_caps),
    /// Tag matching capabilities.
    tm_caps: TmCaps = TmCaps {
        max_rndv_hdr_size: x.tm_caps.max_rndv_hdr_size,
        max_num_tags: x.tm_caps.max_num_tags,
        flags: x.tm_caps.flags,
        max_ops: x.tm_caps.max_ops,
        max_sge: x.tm_caps.max_sge,
    },
    /// CQ moderation capabilities.
    cq_mod_caps: CqModerationCaps = CqModerationCaps {
        max_cq_count: x.cq_moderation_caps.max_cq_moderation_count,
        max_cq_period: x.cq_moderation_caps.max_cq_moderation_period,
    },
    /// Max device memory in bytes.
    max_dm_size: u64 = x.max_dm_size,
    /// XRC on-demand paging capabilities.
    xrc_odp_caps: OdpTransportCaps = OdpTransportCaps::from_bits_retain(x.xrc_odp_caps),
}
