//! The plain values every layer shares: the verbs attributes' enums (which keep unknown
//! raw values) and flag sets (which keep unknown bits), GUIDs, GIDs and GID entries, and
//! the firmware version text. They depend on nothing else in the crate, so that the raw
//! layer, netlink, sysfs and the verbs API can all use them (`tests/layers.rs`).
//!
//! The numbering is the kernel's (`include/rdma/ib_verbs.h`), which libibverbs'
//! `<infiniband/verbs.h>` repeats; it is checked against the latter by the ABI check.
//! Every enum converts from and to its raw number without loss: a value this crate does
//! not know becomes `Unknown(raw)` and prints as that number.

use core::fmt;
use core::time::Duration;

mod fw;
mod gid;

pub use fw::FwVersion;
pub use gid::{Gid, GidEntry};

macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident : $raw:ty {
            $( $(#[$vmeta:meta])* $var:ident = $val:literal => $cname:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* #[doc(alias = $cname)] $var, )*
            /// A value this crate does not know, kept as the kernel sent it.
            Unknown($raw),
        }

        impl $name {
            /// Every value this crate knows, in numeric order.
            pub const KNOWN: &'static [$name] = &[$($name::$var),*];

            /// The value for a raw number from the kernel.
            pub const fn from_raw(raw: $raw) -> Self {
                match raw {
                    $( $val => Self::$var, )*
                    other => Self::Unknown(other),
                }
            }

            /// The raw number the kernel uses.
            pub const fn as_raw(self) -> $raw {
                match self {
                    $( Self::$var => $val, )*
                    Self::Unknown(raw) => raw,
                }
            }

            /// The C name of the value: libibverbs' `IBV_...` where `<infiniband/verbs.h>` has
            /// one, else the kernel's `IB_...` (widths, speeds, physical states); `None`
            /// when unknown.
            pub const fn c_name(self) -> Option<&'static str> {
                match self {
                    $( Self::$var => Some($cname), )*
                    Self::Unknown(_) => None,
                }
            }
        }

        impl From<$raw> for $name {
            fn from(raw: $raw) -> Self {
                Self::from_raw(raw)
            }
        }
    };
}

open_enum! {
    /// Logical state of a port (`enum ibv_port_state`), set by the subnet manager on
    /// InfiniBand and by the link on RoCE and iWARP.
    pub enum PortState: u8 {
        /// No state change.
        Nop = 0 => "IBV_PORT_NOP",
        /// Link down.
        Down = 1 => "IBV_PORT_DOWN",
        /// Link up, not configured by the SM yet.
        Init = 2 => "IBV_PORT_INIT",
        /// Configured, not yet allowed to send data.
        Armed = 3 => "IBV_PORT_ARMED",
        /// Ready to send and receive.
        Active = 4 => "IBV_PORT_ACTIVE",
        /// Active, with transition deferred.
        ActiveDefer = 5 => "IBV_PORT_ACTIVE_DEFER",
    }
}

impl PortState {
    /// The name rdma-core 44's `ibv_devinfo` prints (`PORT_ACTIVE`); `None` where it
    /// prints "invalid state" (NOP, ACTIVE_DEFER and unknown values).
    pub const fn devinfo_name(self) -> Option<&'static str> {
        match self {
            Self::Nop => None,
            Self::Down => Some("PORT_DOWN"),
            Self::Init => Some("PORT_INIT"),
            Self::Armed => Some("PORT_ARMED"),
            Self::Active => Some("PORT_ACTIVE"),
            Self::ActiveDefer | Self::Unknown(_) => None,
        }
    }
}

open_enum! {
    /// A path MTU (`enum ibv_mtu`).
    pub enum Mtu: u8 {
        /// 256 bytes.
        Mtu256 = 1 => "IBV_MTU_256",
        /// 512 bytes.
        Mtu512 = 2 => "IBV_MTU_512",
        /// 1024 bytes.
        Mtu1024 = 3 => "IBV_MTU_1024",
        /// 2048 bytes.
        Mtu2048 = 4 => "IBV_MTU_2048",
        /// 4096 bytes.
        Mtu4096 = 5 => "IBV_MTU_4096",
    }
}

impl Mtu {
    /// The MTU in bytes, `None` when unknown.
    pub const fn bytes(self) -> Option<u32> {
        match self {
            Self::Unknown(_) => None,
            other => Some(128 << other.as_raw()),
        }
    }
}

open_enum! {
    /// Physical state of a port (`enum ibv_port_phys_state`, IBTA PortPhysicalState).
    pub enum PhysState: u8 {
        /// Sleep.
        Sleep = 1 => "IB_PORT_PHYS_STATE_SLEEP",
        /// Polling.
        Polling = 2 => "IB_PORT_PHYS_STATE_POLLING",
        /// Disabled.
        Disabled = 3 => "IB_PORT_PHYS_STATE_DISABLED",
        /// Port configuration training.
        PortConfigurationTraining = 4 => "IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING",
        /// Link up.
        LinkUp = 5 => "IB_PORT_PHYS_STATE_LINK_UP",
        /// Link error recovery.
        LinkErrorRecovery = 6 => "IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY",
        /// PHY test.
        PhyTest = 7 => "IB_PORT_PHYS_STATE_PHY_TEST",
    }
}

open_enum! {
    /// Link layer of a port.
    pub enum LinkLayer: u8 {
        /// Unspecified (legacy: InfiniBand).
        Unspecified = 0 => "IBV_LINK_LAYER_UNSPECIFIED",
        /// InfiniBand.
        InfiniBand = 1 => "IBV_LINK_LAYER_INFINIBAND",
        /// Ethernet (RoCE, iWARP).
        Ethernet = 2 => "IBV_LINK_LAYER_ETHERNET",
    }
}

open_enum! {
    /// Active link width of a port (the kernel's `enum ib_port_width`).
    pub enum Width: u8 {
        /// 1 lane.
        X1 = 1 => "IB_WIDTH_1X",
        /// 4 lanes.
        X4 = 2 => "IB_WIDTH_4X",
        /// 8 lanes.
        X8 = 4 => "IB_WIDTH_8X",
        /// 12 lanes.
        X12 = 8 => "IB_WIDTH_12X",
        /// 2 lanes.
        X2 = 16 => "IB_WIDTH_2X",
    }
}

impl Width {
    /// Number of lanes, `None` when unknown.
    pub const fn lanes(self) -> Option<u32> {
        match self {
            Self::X1 => Some(1),
            Self::X2 => Some(2),
            Self::X4 => Some(4),
            Self::X8 => Some(8),
            Self::X12 => Some(12),
            Self::Unknown(_) => None,
        }
    }
}

open_enum! {
    /// Active link speed of one lane (the kernel's `enum ib_port_speed`).
    pub enum Speed: u32 {
        /// SDR, 2.5 Gb/s.
        Sdr = 1 => "IB_SPEED_SDR",
        /// DDR, 5 Gb/s.
        Ddr = 2 => "IB_SPEED_DDR",
        /// QDR, 10 Gb/s.
        Qdr = 4 => "IB_SPEED_QDR",
        /// FDR10, 10 Gb/s.
        Fdr10 = 8 => "IB_SPEED_FDR10",
        /// FDR, 14 Gb/s.
        Fdr = 16 => "IB_SPEED_FDR",
        /// EDR, 25 Gb/s.
        Edr = 32 => "IB_SPEED_EDR",
        /// HDR, 50 Gb/s.
        Hdr = 64 => "IB_SPEED_HDR",
        /// NDR, 100 Gb/s.
        Ndr = 128 => "IB_SPEED_NDR",
        /// XDR, 200 Gb/s (reported in `active_speed_ex` only, since Linux 6.7).
        Xdr = 256 => "IB_SPEED_XDR",
    }
}

impl Speed {
    /// The lane rate in tenths of Gb/s as `ibv_devinfo` prints it (`25` = 2.5 Gb/s),
    /// `None` when unknown.
    pub const fn lane_rate_decigbps(self) -> Option<u32> {
        match self {
            Self::Sdr => Some(25),
            Self::Ddr => Some(50),
            Self::Qdr | Self::Fdr10 => Some(100),
            Self::Fdr => Some(140),
            Self::Edr => Some(250),
            Self::Hdr => Some(500),
            Self::Ndr => Some(1000),
            Self::Xdr => Some(2000),
            Self::Unknown(_) => None,
        }
    }

    /// The IBTA name (`SDR`, ..., `XDR`), `None` when unknown.
    pub const fn ib_name(self) -> Option<&'static str> {
        match self {
            Self::Sdr => Some("SDR"),
            Self::Ddr => Some("DDR"),
            Self::Qdr => Some("QDR"),
            Self::Fdr10 => Some("FDR10"),
            Self::Fdr => Some("FDR"),
            Self::Edr => Some("EDR"),
            Self::Hdr => Some("HDR"),
            Self::Ndr => Some("NDR"),
            Self::Xdr => Some("XDR"),
            Self::Unknown(_) => None,
        }
    }
}

open_enum! {
    /// Atomic operation support of a device (`enum ibv_atomic_cap`).
    pub enum AtomicCap: u32 {
        /// No atomics.
        None = 0 => "IBV_ATOMIC_NONE",
        /// Atomic among the QPs of this device only.
        Hca = 1 => "IBV_ATOMIC_HCA",
        /// Atomic with the CPU and other devices too.
        Glob = 2 => "IBV_ATOMIC_GLOB",
    }
}

// The variants are generated by `open_enum!`, which cannot carry `#[default]`.
#[allow(clippy::derivable_impls)]
impl Default for AtomicCap {
    fn default() -> Self {
        AtomicCap::None
    }
}

open_enum! {
    /// Node type of a device (`enum ibv_node_type`; the kernel's `rdma_node_type`).
    pub enum NodeType: u32 {
        /// InfiniBand channel adapter (also RoCE).
        Ca = 1 => "IBV_NODE_CA",
        /// InfiniBand switch.
        Switch = 2 => "IBV_NODE_SWITCH",
        /// InfiniBand router.
        Router = 3 => "IBV_NODE_ROUTER",
        /// iWARP RNIC.
        Rnic = 4 => "IBV_NODE_RNIC",
        /// usNIC.
        Usnic = 5 => "IBV_NODE_USNIC",
        /// usNIC over UDP.
        UsnicUdp = 6 => "IBV_NODE_USNIC_UDP",
        /// Unspecified (software devices of other kinds).
        Unspecified = 7 => "IBV_NODE_UNSPECIFIED",
    }
}

impl NodeType {
    /// The transport type that libibverbs derives from the node type.
    pub const fn transport(self) -> TransportType {
        match self {
            Self::Ca | Self::Switch | Self::Router => TransportType::Ib,
            Self::Rnic => TransportType::Iwarp,
            Self::Usnic => TransportType::Usnic,
            Self::UsnicUdp => TransportType::UsnicUdp,
            Self::Unspecified => TransportType::Unspecified,
            Self::Unknown(_) => TransportType::Unknown(-1),
        }
    }
}

open_enum! {
    /// Transport type of a device (`enum ibv_transport_type`).
    pub enum TransportType: i32 {
        /// InfiniBand (and RoCE).
        Ib = 0 => "IBV_TRANSPORT_IB",
        /// iWARP.
        Iwarp = 1 => "IBV_TRANSPORT_IWARP",
        /// usNIC.
        Usnic = 2 => "IBV_TRANSPORT_USNIC",
        /// usNIC over UDP.
        UsnicUdp = 3 => "IBV_TRANSPORT_USNIC_UDP",
        /// Unspecified.
        Unspecified = 4 => "IBV_TRANSPORT_UNSPECIFIED",
    }
}

open_enum! {
    /// Type of a GID table entry (`enum ibv_gid_type`, `IB_UVERBS_GID_TYPE_*`).
    pub enum GidType: u32 {
        /// InfiniBand (also iWARP's MAC-based GIDs).
        Ib = 0 => "IBV_GID_TYPE_IB",
        /// RoCE v1.
        RoceV1 = 1 => "IBV_GID_TYPE_ROCE_V1",
        /// RoCE v2.
        RoceV2 = 2 => "IBV_GID_TYPE_ROCE_V2",
    }
}

open_enum! {
    /// Type of an asynchronous event (`enum ibv_event_type`; the kernel's `ib_event_type`).
    pub enum EventType: u32 {
        /// CQ error.
        CqErr = 0 => "IBV_EVENT_CQ_ERR",
        /// QP fatal error.
        QpFatal = 1 => "IBV_EVENT_QP_FATAL",
        /// Invalid request on a QP.
        QpReqErr = 2 => "IBV_EVENT_QP_REQ_ERR",
        /// Access violation on a QP.
        QpAccessErr = 3 => "IBV_EVENT_QP_ACCESS_ERR",
        /// Communication established.
        CommEst = 4 => "IBV_EVENT_COMM_EST",
        /// Send queue drained.
        SqDrained = 5 => "IBV_EVENT_SQ_DRAINED",
        /// Path migrated.
        PathMig = 6 => "IBV_EVENT_PATH_MIG",
        /// Path migration failed.
        PathMigErr = 7 => "IBV_EVENT_PATH_MIG_ERR",
        /// The device failed: no more events will come.
        DeviceFatal = 8 => "IBV_EVENT_DEVICE_FATAL",
        /// Port became active.
        PortActive = 9 => "IBV_EVENT_PORT_ACTIVE",
        /// Port went down.
        PortErr = 10 => "IBV_EVENT_PORT_ERR",
        /// LID changed.
        LidChange = 11 => "IBV_EVENT_LID_CHANGE",
        /// P_Key table changed.
        PkeyChange = 12 => "IBV_EVENT_PKEY_CHANGE",
        /// Subnet manager changed.
        SmChange = 13 => "IBV_EVENT_SM_CHANGE",
        /// SRQ error.
        SrqErr = 14 => "IBV_EVENT_SRQ_ERR",
        /// SRQ limit reached.
        SrqLimitReached = 15 => "IBV_EVENT_SRQ_LIMIT_REACHED",
        /// Last WQE reached on a QP with an SRQ.
        QpLastWqeReached = 16 => "IBV_EVENT_QP_LAST_WQE_REACHED",
        /// The SM asks clients to re-register.
        ClientReregister = 17 => "IBV_EVENT_CLIENT_REREGISTER",
        /// GID table changed.
        GidChange = 18 => "IBV_EVENT_GID_CHANGE",
        /// WQ fatal error.
        WqFatal = 19 => "IBV_EVENT_WQ_FATAL",
        /// The speed of one or several ports changed (since Linux 7.0, with QUERY_PORT_SPEED;
        /// a device event: query the ports with `Context::query_port_speed`).
        DeviceSpeedChange = 20 => "IBV_EVENT_DEVICE_SPEED_CHANGE",
    }
}

open_enum! {
    /// The transport service of a queue pair (`enum ibv_qp_type`).
    pub enum QpType: u32 {
        /// Reliable connection.
        Rc = 2 => "IBV_QPT_RC",
        /// Unreliable connection.
        Uc = 3 => "IBV_QPT_UC",
        /// Unreliable datagram.
        Ud = 4 => "IBV_QPT_UD",
        /// Raw Ethernet packets.
        RawPacket = 8 => "IBV_QPT_RAW_PACKET",
        /// XRC initiator.
        XrcSend = 9 => "IBV_QPT_XRC_SEND",
        /// XRC target.
        XrcRecv = 10 => "IBV_QPT_XRC_RECV",
        /// A driver-specific type.
        Driver = 255 => "IBV_QPT_DRIVER",
    }
}

open_enum! {
    /// The state of a queue pair (`enum ibv_qp_state`).
    pub enum QpState: u32 {
        /// Reset: created, nothing configured.
        Reset = 0 => "IBV_QPS_RESET",
        /// Initialised: port, P_Key and access set; receives can be posted.
        Init = 1 => "IBV_QPS_INIT",
        /// Ready to receive.
        Rtr = 2 => "IBV_QPS_RTR",
        /// Ready to send.
        Rts = 3 => "IBV_QPS_RTS",
        /// Send queue drained.
        Sqd = 4 => "IBV_QPS_SQD",
        /// Send queue error.
        Sqe = 5 => "IBV_QPS_SQE",
        /// Error.
        Err = 6 => "IBV_QPS_ERR",
        /// libibverbs' "unknown" state (never a kernel answer).
        Undefined = 7 => "IBV_QPS_UNKNOWN",
    }
}

open_enum! {
    /// The path migration state of a queue pair (`enum ibv_mig_state`).
    pub enum MigState: u32 {
        /// Migrated: no alternate path armed.
        Migrated = 0 => "IBV_MIG_MIGRATED",
        /// Rearm.
        Rearm = 1 => "IBV_MIG_REARM",
        /// Armed.
        Armed = 2 => "IBV_MIG_ARMED",
    }
}

macro_rules! fmt_raw_unknown {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.c_name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "unknown ({})", self.as_raw()),
                }
            }
        }
    )*};
}
fmt_raw_unknown!(
    PortState,
    Mtu,
    PhysState,
    LinkLayer,
    Width,
    Speed,
    AtomicCap,
    NodeType,
    TransportType,
    GidType,
    EventType
);

bitflags::bitflags! {
    /// Port capabilities (`port_cap_flags`, IBTA PortInfo:CapabilityMask), named by the
    /// InfiniBand names of the bits; see [`PortCapFlags::ib_names`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PortCapFlags: u32 {
        /// Bit 0, reserved.
        const RESERVED0 = 1 << 0;
        /// IsSM.
        const IS_SM = 1 << 1;
        /// IsNoticeSupported.
        const IS_NOTICE_SUPPORTED = 1 << 2;
        /// IsTrapSupported.
        const IS_TRAP_SUPPORTED = 1 << 3;
        /// IsOptionalIPDSupported.
        const IS_OPTIONAL_IPD_SUPPORTED = 1 << 4;
        /// IsAutomaticMigrationSupported.
        const IS_AUTOMATIC_MIGRATION_SUPPORTED = 1 << 5;
        /// IsSLMappingSupported.
        const IS_SL_MAPPING_SUPPORTED = 1 << 6;
        /// IsMKeyNVRAM.
        const IS_MKEY_NVRAM = 1 << 7;
        /// IsPKeyNVRAM.
        const IS_PKEY_NVRAM = 1 << 8;
        /// IsLEDInfoSupported.
        const IS_LED_INFO_SUPPORTED = 1 << 9;
        /// IsSMdisabled.
        const IS_SM_DISABLED = 1 << 10;
        /// IsSystemImageGUIDSupported.
        const IS_SYSTEM_IMAGE_GUID_SUPPORTED = 1 << 11;
        /// IsPKeySwitchExternalPortTrapSupported.
        const IS_PKEY_SWITCH_EXTERNAL_PORT_TRAP_SUPPORTED = 1 << 12;
        /// IsCableInfoSupported.
        const IS_CABLE_INFO_SUPPORTED = 1 << 13;
        /// IsExtendedSpeedsSupported.
        const IS_EXTENDED_SPEEDS_SUPPORTED = 1 << 14;
        /// IsCapabilityMask2Supported.
        const IS_CAPABILITY_MASK2_SUPPORTED = 1 << 15;
        /// IsCommunicationManagementSupported.
        const IS_COMMUNICATION_MANAGEMENT_SUPPORTED = 1 << 16;
        /// IsSNMPTunnelingSupported.
        const IS_SNMP_TUNNELING_SUPPORTED = 1 << 17;
        /// IsReinitSupported.
        const IS_REINIT_SUPPORTED = 1 << 18;
        /// IsDeviceManagementSupported.
        const IS_DEVICE_MANAGEMENT_SUPPORTED = 1 << 19;
        /// IsVendorClassSupported.
        const IS_VENDOR_CLASS_SUPPORTED = 1 << 20;
        /// IsDRNoticeSupported.
        const IS_DR_NOTICE_SUPPORTED = 1 << 21;
        /// IsCapabilityMaskNoticeSupported.
        const IS_CAPABILITY_MASK_NOTICE_SUPPORTED = 1 << 22;
        /// IsBootManagementSupported.
        const IS_BOOT_MANAGEMENT_SUPPORTED = 1 << 23;
        /// IsLinkRoundTripLatencySupported.
        const IS_LINK_ROUND_TRIP_LATENCY_SUPPORTED = 1 << 24;
        /// IsClientReregistrationSupported.
        const IS_CLIENT_REREGISTRATION_SUPPORTED = 1 << 25;
        /// IsOtherLocalChangeNoticeSupported. The kernel also sets this bit on RoCE and
        /// iWARP ports to say their GIDs are IP based (`IB_UVERBS_PCF_IP_BASED_GIDS`).
        const IS_OTHER_LOCAL_CHANGE_NOTICE_SUPPORTED = 1 << 26;
        /// IsLinkSpeedWidthPairsTableSupported.
        const IS_LINK_SPEED_WIDTH_PAIRS_TABLE_SUPPORTED = 1 << 27;
        /// IsVendorSpecificMadsTableSupported.
        const IS_VENDOR_SPECIFIC_MADS_TABLE_SUPPORTED = 1 << 28;
        /// IsMulticastPKeyTrapSuppressionSupported.
        const IS_MULTICAST_PKEY_TRAP_SUPPRESSION_SUPPORTED = 1 << 29;
        /// IsMulticastFDBTopSupported.
        const IS_MULTICAST_FDB_TOP_SUPPORTED = 1 << 30;
        /// IsHierarchyInfoSupported.
        const IS_HIERARCHY_INFO_SUPPORTED = 1 << 31;
    }
}

/// The InfiniBand name of each bit of `port_cap_flags`, by bit number.
pub const PORT_CAP_FLAG_NAMES: [&str; 32] = [
    "Reserved",
    "IsSM",
    "IsNoticeSupported",
    "IsTrapSupported",
    "IsOptionalIPDSupported",
    "IsAutomaticMigrationSupported",
    "IsSLMappingSupported",
    "IsMKeyNVRAM",
    "IsPKeyNVRAM",
    "IsLEDInfoSupported",
    "IsSMdisabled",
    "IsSystemImageGUIDSupported",
    "IsPKeySwitchExternalPortTrapSupported",
    "IsCableInfoSupported",
    "IsExtendedSpeedsSupported",
    "IsCapabilityMask2Supported",
    "IsCommunicationManagementSupported",
    "IsSNMPTunnelingSupported",
    "IsReinitSupported",
    "IsDeviceManagementSupported",
    "IsVendorClassSupported",
    "IsDRNoticeSupported",
    "IsCapabilityMaskNoticeSupported",
    "IsBootManagementSupported",
    "IsLinkRoundTripLatencySupported",
    "IsClientReregistrationSupported",
    "IsOtherLocalChangeNoticeSupported",
    "IsLinkSpeedWidthPairsTableSupported",
    "IsVendorSpecificMadsTableSupported",
    "IsMulticastPKeyTrapSuppressionSupported",
    "IsMulticastFDBTopSupported",
    "IsHierarchyInfoSupported",
];

impl PortCapFlags {
    /// The InfiniBand names of the bits that are set, lowest bit first.
    pub fn ib_names(self) -> impl Iterator<Item = &'static str> {
        let bits = self.bits();
        (0..32)
            .filter(move |b| bits & (1 << b) != 0)
            .map(|b| PORT_CAP_FLAG_NAMES[b as usize])
    }
}

bitflags::bitflags! {
    /// Port capabilities 2 (`port_cap_flags2`, IBTA PortInfo:CapabilityMask2).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PortCapFlags2: u16 {
        /// IsSetNodeDescriptionSupported.
        const SET_NODE_DESC_SUP = 1 << 0;
        /// IsPortInfoExtendedSupported.
        const INFO_EXT_SUP = 1 << 1;
        /// IsVirtualizationSupported.
        const VIRT_SUP = 1 << 2;
        /// IsSwitchPortStateTableSupported.
        const SWITCH_PORT_STATE_TABLE_SUP = 1 << 3;
        /// IsLinkWidth2xSupported.
        const LINK_WIDTH_2X_SUP = 1 << 4;
        /// IsLinkSpeedHDRSupported.
        const LINK_SPEED_HDR_SUP = 1 << 5;
        /// IsLinkSpeedNDRSupported.
        const LINK_SPEED_NDR_SUP = 1 << 10;
        /// IsExtendedSpeeds2Supported.
        const EXTENDED_SPEEDS2_SUP = 1 << 11;
        /// IsLinkSpeedXDRSupported.
        const LINK_SPEED_XDR_SUP = 1 << 12;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Port flags (`flags` of the port attributes, `IB_UVERBS_QPF_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PortFlags: u8 {
        /// Every packet on this port needs a GRH (RoCE).
        const GRH_REQUIRED = 1 << 0;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// What the kernel's uverbs core supports for this context
    /// (`IB_UVERBS_CORE_SUPPORT_*`, the `CORE_SUPPORT` attribute of GET_CONTEXT and
    /// QUERY_CONTEXT). Unknown bits are kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CoreSupport: u64 {
        /// `IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS`: memory registration accepts the
        /// optional access flags (`IB_UVERBS_ACCESS_OPTIONAL_RANGE`); without this bit
        /// libibverbs clears them before registering.
        const OPTIONAL_MR_ACCESS = 1 << 0;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Device capabilities (`device_cap_flags` and `device_cap_flags_ex`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DeviceCapFlags: u64 {
        /// IBV_DEVICE_RESIZE_MAX_WR.
        const RESIZE_MAX_WR = 1 << 0;
        /// IBV_DEVICE_BAD_PKEY_CNTR.
        const BAD_PKEY_CNTR = 1 << 1;
        /// IBV_DEVICE_BAD_QKEY_CNTR.
        const BAD_QKEY_CNTR = 1 << 2;
        /// IBV_DEVICE_RAW_MULTI.
        const RAW_MULTI = 1 << 3;
        /// IBV_DEVICE_AUTO_PATH_MIG.
        const AUTO_PATH_MIG = 1 << 4;
        /// IBV_DEVICE_CHANGE_PHY_PORT.
        const CHANGE_PHY_PORT = 1 << 5;
        /// IBV_DEVICE_UD_AV_PORT_ENFORCE.
        const UD_AV_PORT_ENFORCE = 1 << 6;
        /// IBV_DEVICE_CURR_QP_STATE_MOD.
        const CURR_QP_STATE_MOD = 1 << 7;
        /// IBV_DEVICE_SHUTDOWN_PORT.
        const SHUTDOWN_PORT = 1 << 8;
        /// IBV_DEVICE_INIT_TYPE.
        const INIT_TYPE = 1 << 9;
        /// IBV_DEVICE_PORT_ACTIVE_EVENT.
        const PORT_ACTIVE_EVENT = 1 << 10;
        /// IBV_DEVICE_SYS_IMAGE_GUID.
        const SYS_IMAGE_GUID = 1 << 11;
        /// IBV_DEVICE_RC_RNR_NAK_GEN.
        const RC_RNR_NAK_GEN = 1 << 12;
        /// IBV_DEVICE_SRQ_RESIZE.
        const SRQ_RESIZE = 1 << 13;
        /// IBV_DEVICE_N_NOTIFY_CQ.
        const N_NOTIFY_CQ = 1 << 14;
        /// IBV_DEVICE_MEM_WINDOW.
        const MEM_WINDOW = 1 << 17;
        /// IBV_DEVICE_UD_IP_CSUM.
        const UD_IP_CSUM = 1 << 18;
        /// IBV_DEVICE_XRC.
        const XRC = 1 << 20;
        /// IBV_DEVICE_MEM_MGT_EXTENSIONS.
        const MEM_MGT_EXTENSIONS = 1 << 21;
        /// IBV_DEVICE_MEM_WINDOW_TYPE_2A.
        const MEM_WINDOW_TYPE_2A = 1 << 23;
        /// IBV_DEVICE_MEM_WINDOW_TYPE_2B.
        const MEM_WINDOW_TYPE_2B = 1 << 24;
        /// IBV_DEVICE_RC_IP_CSUM.
        const RC_IP_CSUM = 1 << 25;
        /// IBV_DEVICE_RAW_IP_CSUM.
        const RAW_IP_CSUM = 1 << 26;
        /// IBV_DEVICE_MANAGED_FLOW_STEERING.
        const MANAGED_FLOW_STEERING = 1 << 29;
        /// IBV_DEVICE_RAW_SCATTER_FCS.
        const RAW_SCATTER_FCS = 1 << 34;
        /// IBV_DEVICE_PCI_WRITE_END_PADDING.
        const PCI_WRITE_END_PADDING = 1 << 36;
        /// IB_UVERBS_DEVICE_FLUSH_GLOBAL (since Linux 6.2).
        const FLUSH_GLOBAL = 1 << 38;
        /// IB_UVERBS_DEVICE_FLUSH_PERSISTENT (since Linux 6.2).
        const FLUSH_PERSISTENT = 1 << 39;
        /// IB_UVERBS_DEVICE_ATOMIC_WRITE (since Linux 6.2).
        const ATOMIC_WRITE = 1 << 40;
        /// IBV_DEVICE_CC_DMA_BOUNCE: a confidential-computing guest whose DMA goes
        /// through bounce buffers (`IB_UVERBS_DEVICE_CC_DMA_BOUNCE`, since Linux 7.2;
        /// rdma-core 64).
        const CC_DMA_BOUNCE = 1 << 41;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// On-demand paging general capabilities.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OdpGeneralCaps: u64 {
        /// IBV_ODP_SUPPORT.
        const SUPPORT = 1 << 0;
        /// IBV_ODP_SUPPORT_IMPLICIT.
        const SUPPORT_IMPLICIT = 1 << 1;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// On-demand paging capabilities of one transport.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OdpTransportCaps: u32 {
        /// IBV_ODP_SUPPORT_SEND.
        const SEND = 1 << 0;
        /// IBV_ODP_SUPPORT_RECV.
        const RECV = 1 << 1;
        /// IBV_ODP_SUPPORT_WRITE.
        const WRITE = 1 << 2;
        /// IBV_ODP_SUPPORT_READ.
        const READ = 1 << 3;
        /// IBV_ODP_SUPPORT_ATOMIC.
        const ATOMIC = 1 << 4;
        /// IBV_ODP_SUPPORT_SRQ_RECV.
        const SRQ_RECV = 1 << 5;
        /// IBV_ODP_SUPPORT_FLUSH (rdma-core 58; `IB_UVERBS_ODP_SUPPORT_FLUSH`).
        const FLUSH = 1 << 6;
        /// IBV_ODP_SUPPORT_ATOMIC_WRITE (rdma-core 58; `IB_UVERBS_ODP_SUPPORT_ATOMIC_WRITE`).
        const ATOMIC_WRITE = 1 << 7;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Raw packet QP capabilities.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RawPacketCaps: u32 {
        /// IBV_RAW_PACKET_CAP_CVLAN_STRIPPING.
        const CVLAN_STRIPPING = 1 << 0;
        /// IBV_RAW_PACKET_CAP_SCATTER_FCS.
        const SCATTER_FCS = 1 << 1;
        /// IBV_RAW_PACKET_CAP_IP_CSUM.
        const IP_CSUM = 1 << 2;
        /// IBV_RAW_PACKET_CAP_DELAY_DROP.
        const DELAY_DROP = 1 << 3;
        const _ = !0;
    }
}

/// A 64-bit GUID (node, system image or port GUID), held in host order.
///
/// The kernel hands GUIDs over in network byte order (`__be64`); [`Guid::from_be`]
/// converts. Prints as `ibv_devinfo` does: four groups of four hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Guid(pub u64);

impl Guid {
    /// From the kernel's big-endian `__be64` field as read from memory.
    pub const fn from_be(raw: u64) -> Self {
        Guid(u64::from_be(raw))
    }
    /// The 8 bytes in network order.
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        write!(
            f,
            "{:04x}:{:04x}:{:04x}:{:04x}",
            (v >> 48) & 0xffff,
            (v >> 32) & 0xffff,
            (v >> 16) & 0xffff,
            v & 0xffff
        )
    }
}

/// The subnet timeout as a duration: 4.096 µs × 2^`exponent` (IBTA).
pub fn subnet_timeout_duration(exponent: u8) -> Duration {
    // 4.096 µs = 4096 ns; exponent is at most 31 by the IBTA, but keep any value safe.
    let shift = u32::from(exponent.min(40));
    Duration::from_nanos(4096u64 << shift)
}

bitflags::bitflags! {
    /// Access rights of a memory region or a queue pair (`enum ibv_access_flags`,
    /// `IB_UVERBS_ACCESS_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AccessFlags: u32 {
        /// The device may write the memory for local operations (receives, RDMA read
        /// results).
        const LOCAL_WRITE = 1 << 0;
        /// Remote peers may RDMA-write it.
        const REMOTE_WRITE = 1 << 1;
        /// Remote peers may RDMA-read it.
        const REMOTE_READ = 1 << 2;
        /// Remote peers may perform atomics on it.
        const REMOTE_ATOMIC = 1 << 3;
        /// Memory windows may be bound to it.
        const MW_BIND = 1 << 4;
        /// Zero-based addressing.
        const ZERO_BASED = 1 << 5;
        /// On-demand paging.
        const ON_DEMAND = 1 << 6;
        /// Huge pages.
        const HUGETLB = 1 << 7;
        /// Relaxed ordering (optional: ignored where unsupported).
        const RELAXED_ORDERING = 1 << 20;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Which attributes a queue pair modification sets (`enum ibv_qp_attr_mask`). Built
    /// by [`ModifyQp`](crate::verbs::objects::ModifyQp) from the attributes given.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct QpAttrMask: u32 {
        /// `qp_state`.
        const STATE = 1 << 0;
        /// `cur_qp_state`.
        const CUR_STATE = 1 << 1;
        /// `en_sqd_async_notify`.
        const EN_SQD_ASYNC_NOTIFY = 1 << 2;
        /// `qp_access_flags`.
        const ACCESS_FLAGS = 1 << 3;
        /// `pkey_index`.
        const PKEY_INDEX = 1 << 4;
        /// `port_num`.
        const PORT = 1 << 5;
        /// `qkey`.
        const QKEY = 1 << 6;
        /// `ah_attr` (the primary path).
        const AV = 1 << 7;
        /// `path_mtu`.
        const PATH_MTU = 1 << 8;
        /// `timeout`.
        const TIMEOUT = 1 << 9;
        /// `retry_cnt`.
        const RETRY_CNT = 1 << 10;
        /// `rnr_retry`.
        const RNR_RETRY = 1 << 11;
        /// `rq_psn`.
        const RQ_PSN = 1 << 12;
        /// `max_rd_atomic`.
        const MAX_QP_RD_ATOMIC = 1 << 13;
        /// The alternate path (`alt_ah_attr`, `alt_pkey_index`, `alt_port_num`,
        /// `alt_timeout`).
        const ALT_PATH = 1 << 14;
        /// `min_rnr_timer`.
        const MIN_RNR_TIMER = 1 << 15;
        /// `sq_psn`.
        const SQ_PSN = 1 << 16;
        /// `max_dest_rd_atomic`.
        const MAX_DEST_RD_ATOMIC = 1 << 17;
        /// `path_mig_state`.
        const PATH_MIG_STATE = 1 << 18;
        /// `cap`.
        const CAP = 1 << 19;
        /// `dest_qp_num`.
        const DEST_QPN = 1 << 20;
        /// `rate_limit` (the extended command only).
        const RATE_LIMIT = 1 << 25;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Which attributes a shared receive queue modification sets
    /// (`enum ibv_srq_attr_mask`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SrqAttrMask: u32 {
        /// `max_wr`: resize.
        const MAX_WR = 1 << 0;
        /// `srq_limit`: arm the limit event.
        const LIMIT = 1 << 1;
        const _ = !0;
    }
}

// ------------------------------------------------------------------ the data path

open_enum! {
    /// The status of a work completion (`enum ibv_wc_status`).
    pub enum WcStatus: u32 {
        /// The request completed.
        Success = 0 => "IBV_WC_SUCCESS",
        /// Local length error: a message longer than the receive buffer, or an SGE list
        /// longer than allowed.
        LocLenErr = 1 => "IBV_WC_LOC_LEN_ERR",
        /// Local QP operation error.
        LocQpOpErr = 2 => "IBV_WC_LOC_QP_OP_ERR",
        /// Local EE context operation error.
        LocEecOpErr = 3 => "IBV_WC_LOC_EEC_OP_ERR",
        /// Local protection error: an SGE outside its memory region, or a wrong lkey.
        LocProtErr = 4 => "IBV_WC_LOC_PROT_ERR",
        /// Flushed: the QP was in the error state.
        WrFlushErr = 5 => "IBV_WC_WR_FLUSH_ERR",
        /// Memory window bind error.
        MwBindErr = 6 => "IBV_WC_MW_BIND_ERR",
        /// Bad response.
        BadRespErr = 7 => "IBV_WC_BAD_RESP_ERR",
        /// Local access error.
        LocAccessErr = 8 => "IBV_WC_LOC_ACCESS_ERR",
        /// Remote invalid request error.
        RemInvReqErr = 9 => "IBV_WC_REM_INV_REQ_ERR",
        /// Remote access error: an rkey without the right, or an address outside it.
        RemAccessErr = 10 => "IBV_WC_REM_ACCESS_ERR",
        /// Remote operation error.
        RemOpErr = 11 => "IBV_WC_REM_OP_ERR",
        /// Transport retries exhausted.
        RetryExcErr = 12 => "IBV_WC_RETRY_EXC_ERR",
        /// RNR retries exhausted: the receiver had no receive posted.
        RnrRetryExcErr = 13 => "IBV_WC_RNR_RETRY_EXC_ERR",
        /// Local RDD violation.
        LocRddViolErr = 14 => "IBV_WC_LOC_RDD_VIOL_ERR",
        /// Remote invalid RD request.
        RemInvRdReqErr = 15 => "IBV_WC_REM_INV_RD_REQ_ERR",
        /// Remote aborted.
        RemAbortErr = 16 => "IBV_WC_REM_ABORT_ERR",
        /// Invalid EE context number.
        InvEecnErr = 17 => "IBV_WC_INV_EECN_ERR",
        /// Invalid EE context state.
        InvEecStateErr = 18 => "IBV_WC_INV_EEC_STATE_ERR",
        /// Fatal error.
        FatalErr = 19 => "IBV_WC_FATAL_ERR",
        /// Response timeout.
        RespTimeoutErr = 20 => "IBV_WC_RESP_TIMEOUT_ERR",
        /// General error.
        GeneralErr = 21 => "IBV_WC_GENERAL_ERR",
    }
}

open_enum! {
    /// What a work completion completed (`enum ibv_wc_opcode`). Receive completions
    /// have bit 7 set ([`WcOpcode::is_recv`]).
    pub enum WcOpcode: u32 {
        /// A send.
        Send = 0 => "IBV_WC_SEND",
        /// An RDMA write.
        RdmaWrite = 1 => "IBV_WC_RDMA_WRITE",
        /// An RDMA read.
        RdmaRead = 2 => "IBV_WC_RDMA_READ",
        /// An atomic compare-and-swap.
        CompSwap = 3 => "IBV_WC_COMP_SWAP",
        /// An atomic fetch-and-add.
        FetchAdd = 4 => "IBV_WC_FETCH_ADD",
        /// A memory window bind.
        BindMw = 5 => "IBV_WC_BIND_MW",
        /// A local invalidation.
        LocalInv = 6 => "IBV_WC_LOCAL_INV",
        /// A TSO send.
        Tso = 7 => "IBV_WC_TSO",
        /// A received send.
        Recv = 128 => "IBV_WC_RECV",
        /// A received RDMA write with immediate data.
        RecvRdmaWithImm = 129 => "IBV_WC_RECV_RDMA_WITH_IMM",
    }
}

impl WcOpcode {
    /// True for the completion of a receive (bit 7, as `opcode & IBV_WC_RECV` tests).
    pub const fn is_recv(self) -> bool {
        self.as_raw() & 0x80 != 0
    }
}

open_enum! {
    /// An RDMA CM event (`enum rdma_cm_event_type`: the kernel's
    /// `include/rdma/rdma_cm.h`, repeated by librdmacm's `rdma_cma.h`).
    pub enum CmEventType: u32 {
        /// The destination address resolved (RESOLVE_IP).
        AddrResolved = 0 => "RDMA_CM_EVENT_ADDR_RESOLVED",
        /// Address resolution failed.
        AddrError = 1 => "RDMA_CM_EVENT_ADDR_ERROR",
        /// The route resolved (RESOLVE_ROUTE).
        RouteResolved = 2 => "RDMA_CM_EVENT_ROUTE_RESOLVED",
        /// Route resolution failed.
        RouteError = 3 => "RDMA_CM_EVENT_ROUTE_ERROR",
        /// A connection request arrived on a listening id (with a new id).
        ConnectRequest = 4 => "RDMA_CM_EVENT_CONNECT_REQUEST",
        /// The passive side answered (InfiniBand and RoCE; iWARP goes straight to
        /// ESTABLISHED).
        ConnectResponse = 5 => "RDMA_CM_EVENT_CONNECT_RESPONSE",
        /// Connecting failed.
        ConnectError = 6 => "RDMA_CM_EVENT_CONNECT_ERROR",
        /// The remote is unreachable.
        Unreachable = 7 => "RDMA_CM_EVENT_UNREACHABLE",
        /// The remote rejected the request.
        Rejected = 8 => "RDMA_CM_EVENT_REJECTED",
        /// The connection is established.
        Established = 9 => "RDMA_CM_EVENT_ESTABLISHED",
        /// The connection was disconnected.
        Disconnected = 10 => "RDMA_CM_EVENT_DISCONNECTED",
        /// The device of the id is being removed.
        DeviceRemoval = 11 => "RDMA_CM_EVENT_DEVICE_REMOVAL",
        /// A multicast join completed.
        MulticastJoin = 12 => "RDMA_CM_EVENT_MULTICAST_JOIN",
        /// A multicast error.
        MulticastError = 13 => "RDMA_CM_EVENT_MULTICAST_ERROR",
        /// The address changed.
        AddrChange = 14 => "RDMA_CM_EVENT_ADDR_CHANGE",
        /// The connection's time-wait ended.
        TimewaitExit = 15 => "RDMA_CM_EVENT_TIMEWAIT_EXIT",
    }
}

fmt_raw_unknown!(WcStatus, WcOpcode, CmEventType);

bitflags::bitflags! {
    /// Flags of a work completion (`enum ibv_wc_flags`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct WcFlags: u32 {
        /// A GRH is in the first 40 bytes of the receive buffer (UD).
        const GRH = 1 << 0;
        /// The completion carries immediate data.
        const WITH_IMM = 1 << 1;
        /// The IP checksum was checked and is right.
        const IP_CSUM_OK = 1 << 2;
        /// The completion carries an invalidated rkey.
        const WITH_INV = 1 << 3;
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// Flags of a send work request (`enum ibv_send_flags`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SendFlags: u32 {
        /// Wait for earlier RDMA reads and atomics to complete first.
        const FENCE = 1 << 0;
        /// Generate a completion (without it, only an error completes, unless the QP
        /// signals every request).
        const SIGNALED = 1 << 1;
        /// Set the solicited event bit: the receiver's CQ, armed for solicited
        /// completions only, reports it.
        const SOLICITED = 1 << 2;
        /// Carry the payload in the request itself (set by [`crate::verbs::datapath::SendWr::inline`]).
        const INLINE = 1 << 3;
    }
}
