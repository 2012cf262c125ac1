//! Per-driver ABI: what each kernel driver needs in GET_CONTEXT's driver data, and how
//! its rdma-core provider formats the firmware version.
//!
//! The kernel hands GET_CONTEXT's `UHW_IN`/`UHW_OUT` buffers to the driver's
//! `alloc_ucontext`, and several drivers refuse an empty one. This table holds the
//! smallest request each accepts; every call also passes a zeroed [`UHW_OUT_LEN`]-byte
//! output buffer, which satisfies every driver's "response at least this big" check.
//! The structs mirror `include/uapi/rdma/<driver>-abi.h` with the C names.
#![allow(non_camel_case_types)]

pub mod rxe;
pub mod siw;

pub use rxe::*;
pub use siw::*;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::raw::abi::*;

/// Size of the zeroed driver output buffer passed with GET_CONTEXT.
pub const UHW_OUT_LEN: usize = 512;

/// `struct mlx5_ib_alloc_ucontext_req_v2` (mlx5-abi.h).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct mlx5_ib_alloc_ucontext_req_v2 {
    /// Number of blue-flame registers wanted.
    pub total_num_bfregs: u32,
    /// Of which low-latency.
    pub num_low_latency_bfregs: u32,
    /// `MLX5_IB_ALLOC_UCTX_*` flags.
    pub flags: u32,
    /// Must be 0.
    pub comp_mask: u32,
    /// CQE version.
    pub max_cqe_version: u8,
    /// Reserved.
    pub reserved0: u8,
    /// Reserved.
    pub reserved1: u16,
    /// Reserved.
    pub reserved2: u32,
    /// `MLX5_LIB_CAP_*`.
    pub lib_caps: u64,
}
const _: () = assert!(core::mem::size_of::<mlx5_ib_alloc_ucontext_req_v2>() == 32);

/// `MLX5_LIB_CAP_4K_UAR`.
pub const MLX5_LIB_CAP_4K_UAR: u64 = 1 << 0;
/// `MLX5_LIB_CAP_DYN_UAR`.
pub const MLX5_LIB_CAP_DYN_UAR: u64 = 1 << 1;

/// `struct mlx4_ib_alloc_ucontext_resp` (mlx4-abi.h): mlx4 copies it out and fails
/// without room for it.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct mlx4_ib_alloc_ucontext_resp {
    /// Device capabilities.
    pub dev_caps: u32,
    /// QP table size.
    pub qp_tab_size: u32,
    /// Blue-flame register size.
    pub bf_reg_size: u16,
    /// Blue-flame registers per page.
    pub bf_regs_per_page: u16,
    /// CQE size.
    pub cqe_size: u32,
}
const _: () = assert!(core::mem::size_of::<mlx4_ib_alloc_ucontext_resp>() == 16);

/// `struct efa_ibv_alloc_ucontext_cmd` (efa-abi.h).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct efa_ibv_alloc_ucontext_cmd {
    /// `EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_*`: what the caller supports. Named `comp_mask`
    /// before Linux 7.1 (the same 4 bytes: see [`Self::comp_mask`]).
    pub supported_caps: u32,
    /// Reserved.
    pub reserved_20: [u8; 4],
}
const _: () = assert!(core::mem::size_of::<efa_ibv_alloc_ucontext_cmd>() == 8);

impl efa_ibv_alloc_ucontext_cmd {
    /// The field's name before Linux 7.1.
    #[deprecated(note = "renamed `supported_caps` in Linux 7.1 (same bytes)")]
    pub const fn comp_mask(&self) -> u32 {
        self.supported_caps
    }
}

/// `EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH` (named `..._COMP_TX_BATCH` before Linux 7.1).
pub const EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH: u32 = 1 << 0;
/// `EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR` (named `..._COMP_MIN_SQ_WR` before Linux 7.1).
pub const EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR: u32 = 1 << 1;
/// `EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH`, the name before Linux 7.1.
#[deprecated(note = "renamed EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH in Linux 7.1")]
pub const EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH: u32 = EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH;
/// `EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR`, the name before Linux 7.1.
#[deprecated(note = "renamed EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR in Linux 7.1")]
pub const EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR: u32 = EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR;

/// `struct irdma_alloc_ucontext_req` (irdma-abi.h).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct irdma_alloc_ucontext_req {
    /// Reserved.
    pub rsvd32: u32,
    /// The user-space ABI version (4 or 5).
    pub userspace_ver: u8,
    /// Reserved.
    pub rsvd8: [u8; 3],
    /// Capability bits.
    pub comp_mask: u64,
}
const _: () = assert!(core::mem::size_of::<irdma_alloc_ucontext_req>() == 16);

/// `IRDMA_ABI_VER`: the irdma user ABI version this crate announces.
pub const IRDMA_ABI_VER: u32 = 5;

/// `struct hns_roce_ib_alloc_ucontext` (hns-abi.h).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct hns_roce_ib_alloc_ucontext {
    /// `HNS_ROCE_*` config bits.
    pub config: u32,
    /// Reserved.
    pub reserved: u32,
}
const _: () = assert!(core::mem::size_of::<hns_roce_ib_alloc_ucontext>() == 8);

/// `struct siw_uresp_alloc_ctx` (siw-abi.h): siw fails without room for it.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct siw_uresp_alloc_ctx {
    /// Device id.
    pub dev_id: u32,
    /// Padding.
    pub pad: u32,
}
const _: () = assert!(core::mem::size_of::<siw_uresp_alloc_ctx>() == 8);

/// `struct erdma_uresp_alloc_ctx` (erdma-abi.h): erdma fails without room for it.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct erdma_uresp_alloc_ctx {
    /// Device id.
    pub dev_id: u32,
    /// Padding.
    pub pad: u32,
    /// Send doorbell type.
    pub sdb_type: u32,
    /// Send doorbell offset.
    pub sdb_offset: u32,
    /// Send doorbell mmap key.
    pub sdb: u64,
    /// Receive doorbell mmap key.
    pub rdb: u64,
    /// CQ doorbell mmap key.
    pub cdb: u64,
}
const _: () = assert!(core::mem::size_of::<erdma_uresp_alloc_ctx>() == 40);

const _: () = assert!(core::mem::size_of::<mlx4_ib_alloc_ucontext_resp>() <= UHW_OUT_LEN);
const _: () = assert!(core::mem::size_of::<siw_uresp_alloc_ctx>() <= UHW_OUT_LEN);
const _: () = assert!(core::mem::size_of::<erdma_uresp_alloc_ctx>() <= UHW_OUT_LEN);

/// The driver input of GET_CONTEXT, inline (at most 32 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdataIn {
    len: u8,
    buf: [u8; 32],
}

impl UdataIn {
    /// No driver input.
    pub const EMPTY: UdataIn = UdataIn {
        len: 0,
        buf: [0; 32],
    };

    fn from_bytes(b: &[u8]) -> Self {
        let mut buf = [0u8; 32];
        buf[..b.len()].copy_from_slice(b);
        UdataIn {
            len: b.len() as u8,
            buf,
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

/// The smallest GET_CONTEXT driver input that the driver with `driver_id` accepts.
///
/// - mlx5: `mlx5_ib_alloc_ucontext_req_v2` with 8 blue-flame registers, CQE version 1 and
///   the 4K-UAR and dynamic-UAR library capabilities (no DEVX: that needs CAP_NET_RAW).
/// - efa: the TX-batch and minimum-SQ-depth capabilities, which newer devices require.
/// - irdma: user-space ABI version 5.
/// - hns: 8 zero bytes (required since Linux 7.1).
/// - ionic: 8 zero bytes (its request struct; not in the 6.x uapi headers).
/// - every other driver: nothing (rxe and bnxt_re accept none; siw, mlx4 and erdma only
///   need room in the output buffer).
pub fn get_context_udata_in(driver_id: u32) -> UdataIn {
    match driver_id {
        RDMA_DRIVER_MLX5 => UdataIn::from_bytes(
            mlx5_ib_alloc_ucontext_req_v2 {
                total_num_bfregs: 8,
                max_cqe_version: 1,
                lib_caps: MLX5_LIB_CAP_4K_UAR | MLX5_LIB_CAP_DYN_UAR,
                ..Default::default()
            }
            .as_bytes(),
        ),
        RDMA_DRIVER_EFA => UdataIn::from_bytes(
            efa_ibv_alloc_ucontext_cmd {
                supported_caps: EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH
                    | EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR,
                reserved_20: [0; 4],
            }
            .as_bytes(),
        ),
        RDMA_DRIVER_IRDMA => UdataIn::from_bytes(
            irdma_alloc_ucontext_req {
                userspace_ver: IRDMA_ABI_VER as u8,
                ..Default::default()
            }
            .as_bytes(),
        ),
        RDMA_DRIVER_HNS => UdataIn::from_bytes(hns_roce_ib_alloc_ucontext::default().as_bytes()),
        RDMA_DRIVER_IONIC => UdataIn::from_bytes(&[0u8; 8]),
        _ => UdataIn::EMPTY,
    }
}

/// How the driver's rdma-core provider turns the kernel's 64-bit `fw_ver` into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FwFormat {
    /// `major.minor.sub` of bits 47..32, 31..16, 15..0, the sub-minor zero-padded to
    /// `width` digits (0: no padding).
    ThreePart {
        /// Zero padding of the last part.
        width: usize,
    },
    /// The provider does not format it: use the kernel's text (sysfs/netlink `fw_ver`).
    Kernel,
}

/// The firmware version format of the provider of `driver_id`.
pub fn fw_format(driver_id: u32) -> FwFormat {
    match driver_id {
        RDMA_DRIVER_RXE | RDMA_DRIVER_SIW | RDMA_DRIVER_ERDMA => FwFormat::ThreePart { width: 0 },
        RDMA_DRIVER_MLX5 => FwFormat::ThreePart { width: 4 },
        RDMA_DRIVER_MLX4 | RDMA_DRIVER_HNS => FwFormat::ThreePart { width: 3 },
        _ => FwFormat::Kernel,
    }
}

/// Formats the kernel's raw firmware version as the provider of `driver_id` does;
/// `kernel_text` (sysfs `fw_ver`) is used where the provider keeps the kernel's text.
pub fn format_fw_ver(driver_id: u32, raw: u64, kernel_text: &str) -> crate::types::FwVersion {
    use core::fmt::Write;
    match fw_format(driver_id) {
        FwFormat::Kernel => crate::types::FwVersion::new(kernel_text),
        FwFormat::ThreePart { width } => {
            let mut s = FixedStr::default();
            let _ = write!(
                s,
                "{}.{}.{:0width$}",
                (raw >> 32) & 0xffff,
                (raw >> 16) & 0xffff,
                raw & 0xffff,
                width = width
            );
            crate::types::FwVersion::new(s.as_str())
        }
    }
}

/// A small inline string for formatting without allocation.
struct FixedStr {
    len: usize,
    buf: [u8; 64],
}

impl Default for FixedStr {
    fn default() -> Self {
        FixedStr {
            len: 0,
            buf: [0; 64],
        }
    }
}

impl FixedStr {
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl core::fmt::Write for FixedStr {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Every driver id this crate knows, in order: its C name and its short name (as its
/// kernel module and rdma-core provider say it).
const DRIVERS: &[(&str, &str)] = &[
    ("RDMA_DRIVER_UNKNOWN", "unknown"),
    ("RDMA_DRIVER_MLX5", "mlx5"),
    ("RDMA_DRIVER_MLX4", "mlx4"),
    ("RDMA_DRIVER_CXGB3", "cxgb3"),
    ("RDMA_DRIVER_CXGB4", "cxgb4"),
    ("RDMA_DRIVER_MTHCA", "mthca"),
    ("RDMA_DRIVER_BNXT_RE", "bnxt_re"),
    ("RDMA_DRIVER_OCRDMA", "ocrdma"),
    ("RDMA_DRIVER_NES", "nes"),
    ("RDMA_DRIVER_IRDMA", "irdma"),
    ("RDMA_DRIVER_VMW_PVRDMA", "vmw_pvrdma"),
    ("RDMA_DRIVER_QEDR", "qedr"),
    ("RDMA_DRIVER_HNS", "hns"),
    ("RDMA_DRIVER_USNIC", "usnic"),
    ("RDMA_DRIVER_RXE", "rxe"),
    ("RDMA_DRIVER_HFI1", "hfi1"),
    ("RDMA_DRIVER_QIB", "qib"),
    ("RDMA_DRIVER_EFA", "efa"),
    ("RDMA_DRIVER_SIW", "siw"),
    ("RDMA_DRIVER_ERDMA", "erdma"),
    ("RDMA_DRIVER_MANA", "mana"),
    ("RDMA_DRIVER_IONIC", "ionic"),
];

/// The C name of a driver id (`RDMA_DRIVER_MLX5`); `None` past the known ones.
pub fn driver_c_name(driver_id: u32) -> Option<&'static str> {
    DRIVERS.get(driver_id as usize).map(|d| d.0)
}

/// The short name of a driver id (`mlx5`, `bnxt_re`, `rxe`); `None` past the known ones.
pub fn driver_name(driver_id: u32) -> Option<&'static str> {
    DRIVERS.get(driver_id as usize).map(|d| d.1)
}
