//! Device attributes: what `ibv_query_device(3)` and `ibv_query_device_ex(3)` report.

use core::fmt;

use crate::raw::abi::{ib_uverbs_ex_query_device_resp, ib_uverbs_query_device_resp};
use crate::verbs::types::{
    AtomicCap, DeviceCapFlags, Guid, OdpGeneralCaps, OdpTransportCaps, RawPacketCaps,
};

/// A firmware version string, held inline (at most 63 bytes, like `ibv_device_attr`'s
/// `fw_ver[64]`) so that copying device attributes never allocates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FwVersion {
    len: u8,
    buf: [u8; 63],
}

impl Default for FwVersion {
    fn default() -> Self {
        FwVersion {
            len: 0,
            buf: [0; 63],
        }
    }
}

impl FwVersion {
    /// From text (sysfs `fw_ver`, netlink): surrounding white space is dropped, the rest
    /// is cut at 63 bytes on a character boundary.
    pub fn new(text: &str) -> Self {
        let t = text.trim();
        let mut end = t.len().min(63);
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        // Cutting can leave white space at the end: drop it too, so that
        // FwVersion::new(x.as_str()) == x.
        let t = t[..end].trim_end();
        let end = t.len();
        let mut buf = [0u8; 63];
        buf[..end].copy_from_slice(t.as_bytes());
        FwVersion {
            len: end as u8,
            buf,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Built from a &str cut on a char boundary: always valid UTF-8.
        core::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or("")
    }

    /// True when the device reports no firmware version.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
        DeviceAttr {
            fw_ver,
            node_guid: Guid::from_be(r.node_guid),
            sys_image_guid: Guid::from_be(r.sys_image_guid),
            max_mr_size: r.max_mr_size,
            page_size_cap: r.page_size_cap,
            vendor_id: r.vendor_id,
            vendor_part_id: r.vendor_part_id,
            hw_ver: r.hw_ver,
            max_qp: r.max_qp,
            max_qp_wr: r.max_qp_wr,
            device_cap_flags: DeviceCapFlags::from_bits_retain(u64::from(r.device_cap_flags)),
            max_sge: r.max_sge,
            max_sge_rd: r.max_sge_rd,
            max_cq: r.max_cq,
            max_cqe: r.max_cqe,
            max_mr: r.max_mr,
            max_pd: r.max_pd,
            max_qp_rd_atom: r.max_qp_rd_atom,
            max_ee_rd_atom: r.max_ee_rd_atom,
            max_res_rd_atom: r.max_res_rd_atom,
            max_qp_init_rd_atom: r.max_qp_init_rd_atom,
            max_ee_init_rd_atom: r.max_ee_init_rd_atom,
            atomic_cap: AtomicCap::from_raw(r.atomic_cap),
            max_ee: r.max_ee,
            max_rdd: r.max_rdd,
            max_mw: r.max_mw,
            max_raw_ipv6_qp: r.max_raw_ipv6_qp,
            max_raw_ethy_qp: r.max_raw_ethy_qp,
            max_mcast_grp: r.max_mcast_grp,
            max_mcast_qp_attach: r.max_mcast_qp_attach,
            max_total_mcast_qp_attach: r.max_total_mcast_qp_attach,
            max_ah: r.max_ah,
            max_fmr: r.max_fmr,
            max_map_per_fmr: r.max_map_per_fmr,
            max_srq: r.max_srq,
            max_srq_wr: r.max_srq_wr,
            max_srq_sge: r.max_srq_sge,
            max_pkeys: r.max_pkeys,
            local_ca_ack_delay: r.local_ca_ack_delay,
            phys_port_cnt: r.phys_port_cnt,
            ..DeviceAttr::default()
        }
    }

    /// Decodes the extended QUERY_DEVICE response. Fields past the kernel's
    /// `response_length` must be zero in `r` (they are, when `r` started zeroed).
    pub fn from_ex(r: &ib_uverbs_ex_query_device_resp, fw_ver: FwVersion) -> Self {
        DeviceAttr {
            ex_response_length: r.response_length,
            odp_caps: OdpCaps {
                general_caps: OdpGeneralCaps::from_bits_retain(r.odp_caps.general_caps),
                rc_odp_caps: OdpTransportCaps::from_bits_retain(r.odp_caps.rc_odp_caps),
                uc_odp_caps: OdpTransportCaps::from_bits_retain(r.odp_caps.uc_odp_caps),
                ud_odp_caps: OdpTransportCaps::from_bits_retain(r.odp_caps.ud_odp_caps),
            },
            completion_timestamp_mask: r.timestamp_mask,
            hca_core_clock: r.hca_core_clock,
            device_cap_flags_ex: DeviceCapFlags::from_bits_retain(r.device_cap_flags_ex),
            rss_caps: RssCaps {
                supported_qpts: r.rss_caps.supported_qpts,
                max_rwq_indirection_tables: r.rss_caps.max_rwq_indirection_tables,
                max_rwq_indirection_table_size: r.rss_caps.max_rwq_indirection_table_size,
            },
            max_wq_type_rq: r.max_wq_type_rq,
            raw_packet_caps: RawPacketCaps::from_bits_retain(r.raw_packet_caps),
            tm_caps: TmCaps {
                max_rndv_hdr_size: r.tm_caps.max_rndv_hdr_size,
                max_num_tags: r.tm_caps.max_num_tags,
                flags: r.tm_caps.flags,
                max_ops: r.tm_caps.max_ops,
                max_sge: r.tm_caps.max_sge,
            },
            cq_mod_caps: CqModerationCaps {
                max_cq_count: r.cq_moderation_caps.max_cq_moderation_count,
                max_cq_period: r.cq_moderation_caps.max_cq_moderation_period,
            },
            max_dm_size: r.max_dm_size,
            xrc_odp_caps: OdpTransportCaps::from_bits_retain(r.xrc_odp_caps),
            ..Self::from_legacy(&r.base, fw_ver)
        }
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
