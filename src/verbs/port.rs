//! Port attributes: what `ibv_query_port(3)` reports.

use core::time::Duration;

use crate::raw::abi::{ib_uverbs_query_port_resp, ib_uverbs_query_port_resp_ex};
use crate::types::{
    subnet_timeout_duration, LinkLayer, Mtu, PhysState, PortCapFlags, PortCapFlags2, PortFlags,
    PortState, Speed, Width,
};

/// The attributes of one port, as the kernel reports them (`struct ibv_port_attr`).
///
/// Fields set by the subnet manager or the link (`state`, `lid`, `sm_lid`, `lmc`,
/// `sm_sl`, `subnet_timeout`, `active_*`, `phys_state`, counters) change at run time:
/// see [`crate::verbs::cache`] for a cache that follows them through async events.
///
/// The struct is `#[non_exhaustive]` (newer kernels report more: `port_cap_flags2`
/// and `active_speed_ex` came late). To build one, e.g. a synthetic answer for a test of
/// a printer, start from [`PortAttr::default`] and set the public fields:
///
/// ```
/// use uverbs::{Mtu, PortAttr, PortState};
///
/// let mut p = PortAttr::default();
/// p.state = PortState::Active;
/// p.active_mtu = Mtu::Mtu4096;
/// assert_eq!(p.active_mtu.bytes(), Some(4096));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[doc(alias = "ibv_port_attr")]
pub struct PortAttr {
    /// Logical port state.
    pub state: PortState,
    /// Largest MTU the port supports.
    pub max_mtu: Mtu,
    /// MTU in use.
    pub active_mtu: Mtu,
    /// Length of the GID table.
    pub gid_tbl_len: u32,
    /// Port capabilities (IBTA CapabilityMask).
    pub port_cap_flags: PortCapFlags,
    /// Largest message size.
    pub max_msg_sz: u32,
    /// Packets dropped for a bad P_Key.
    pub bad_pkey_cntr: u32,
    /// Packets dropped for a Q_Key violation.
    pub qkey_viol_cntr: u32,
    /// Length of the P_Key table.
    pub pkey_tbl_len: u16,
    /// Base LID (InfiniBand).
    pub lid: u16,
    /// LID of the subnet manager.
    pub sm_lid: u16,
    /// LID mask control.
    pub lmc: u8,
    /// Number of data VLs, encoded (1: 1 VL, 2: 2, 3: 4, 4: 8, 5: 15); see [`PortAttr::max_vls`].
    pub max_vl_num: u8,
    /// Service level of the subnet manager.
    pub sm_sl: u8,
    /// Subnet timeout exponent; see [`PortAttr::subnet_timeout_duration`].
    pub subnet_timeout: u8,
    /// Type of initialization the SM performed.
    pub init_type_reply: u8,
    /// Active link width.
    pub active_width: Width,
    /// Active lane speed as the kernel's 8-bit field has it (capped at NDR since 6.7).
    pub active_speed: u8,
    /// Physical port state.
    pub phys_state: PhysState,
    /// Link layer.
    pub link_layer: LinkLayer,
    /// Port flags.
    pub flags: PortFlags,
    /// Port capabilities 2 (IBTA CapabilityMask2; since Linux 5.0).
    pub port_cap_flags2: PortCapFlags2,
    /// Active lane speed without the 8-bit cap (since Linux 6.7; 0 before).
    pub active_speed_ex: u32,
    /// The port's effective speed (QUERY_PORT_SPEED, since Linux 7.0), when the kernel
    /// and the driver have the method and it answered; `None` otherwise (and always from
    /// the decoders and the `write()` path). [`Context::query_port_speed`] gives the
    /// reason.
    ///
    /// [`Context::query_port_speed`]: crate::Context::query_port_speed
    pub effective_speed: Option<EffectiveSpeed>,
}

/// The effective speed of a port as QUERY_PORT_SPEED reports it (`ibv_query_port_speed`):
/// the bandwidth the port actually has, in units of 100 Mb/s (e.g. a LAG of two 100 Gb/s
/// links: 2000), where width × lane speed cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[doc(alias = "ibv_query_port_speed")]
pub struct EffectiveSpeed(pub u64);

impl EffectiveSpeed {
    /// Decodes the method's response: the `u64` the kernel writes into
    /// `UVERBS_ATTR_QUERY_PORT_SPEED_RESP` (exactly 8 bytes, native byte order); `None`
    /// for any other length.
    pub fn from_resp_bytes(resp: &[u8]) -> Option<Self> {
        let b: [u8; 8] = resp.try_into().ok()?;
        Some(EffectiveSpeed(u64::from_ne_bytes(b)))
    }

    /// The speed in units of 100 Mb/s, as the kernel reports it.
    pub const fn units_100mbps(self) -> u64 {
        self.0
    }

    /// The speed in Mb/s (saturating).
    pub const fn mbps(self) -> u64 {
        self.0.saturating_mul(100)
    }

    /// The speed in Gb/s.
    pub fn gbps(self) -> f64 {
        self.0 as f64 / 10.0
    }
}

impl Default for PortAttr {
    /// The attributes of an all-zero QUERY_PORT answer: every number 0, every enum its
    /// raw value 0 (`PortState::Nop`, `Mtu::Unknown(0)`, ...), no flag set.
    fn default() -> Self {
        Self::from_resp(&ib_uverbs_query_port_resp_ex::default())
    }
}

impl PortAttr {
    /// Decodes the QUERY_PORT response. `resp` may be the 40-byte legacy response (the
    /// `write()` path) or the 48-byte extended one; missing fields read as 0, extra bytes
    /// are ignored.
    pub fn from_resp_bytes(resp: &[u8]) -> Self {
        let mut ex = ib_uverbs_query_port_resp_ex::default();
        let dst = zerocopy::IntoBytes::as_mut_bytes(&mut ex);
        let n = resp.len().min(dst.len());
        dst[..n].copy_from_slice(&resp[..n]);
        Self::from_resp(&ex)
    }

    /// Decodes the extended QUERY_PORT response.
    pub fn from_resp(ex: &ib_uverbs_query_port_resp_ex) -> Self {
        let r: &ib_uverbs_query_port_resp = &ex.legacy_resp;
        PortAttr {
            state: PortState::from_raw(r.state),
            max_mtu: Mtu::from_raw(r.max_mtu),
            active_mtu: Mtu::from_raw(r.active_mtu),
            gid_tbl_len: r.gid_tbl_len,
            port_cap_flags: PortCapFlags::from_bits_retain(r.port_cap_flags),
            max_msg_sz: r.max_msg_sz,
            bad_pkey_cntr: r.bad_pkey_cntr,
            qkey_viol_cntr: r.qkey_viol_cntr,
            pkey_tbl_len: r.pkey_tbl_len,
            lid: r.lid,
            sm_lid: r.sm_lid,
            lmc: r.lmc,
            max_vl_num: r.max_vl_num,
            sm_sl: r.sm_sl,
            subnet_timeout: r.subnet_timeout,
            init_type_reply: r.init_type_reply,
            active_width: Width::from_raw(r.active_width),
            active_speed: r.active_speed,
            phys_state: PhysState::from_raw(r.phys_state),
            link_layer: LinkLayer::from_raw(r.link_layer),
            flags: PortFlags::from_bits_retain(r.flags),
            port_cap_flags2: PortCapFlags2::from_bits_retain(ex.port_cap_flags2),
            active_speed_ex: ex.active_speed_ex,
            effective_speed: None,
        }
    }

    /// The active lane speed: `active_speed_ex` when the kernel set it, else `active_speed`.
    pub fn speed(&self) -> Speed {
        if self.active_speed_ex != 0 {
            Speed::from_raw(self.active_speed_ex)
        } else {
            Speed::from_raw(u32::from(self.active_speed))
        }
    }

    /// The port's signalling rate in tenths of Gb/s (lanes × lane rate), as `ibv_devinfo`
    /// computes it; `None` when the width or speed is unknown.
    pub fn rate_decigbps(&self) -> Option<u32> {
        Some(self.active_width.lanes()? * self.speed().lane_rate_decigbps()?)
    }

    /// Number of data VLs decoded from `max_vl_num`, `None` for an unknown encoding.
    pub fn max_vls(&self) -> Option<u8> {
        match self.max_vl_num {
            1 => Some(1),
            2 => Some(2),
            3 => Some(4),
            4 => Some(8),
            5 => Some(15),
            _ => None,
        }
    }

    /// `subnet_timeout` as a duration: 4.096 µs × 2^`subnet_timeout`.
    pub fn subnet_timeout_duration(&self) -> Duration {
        subnet_timeout_duration(self.subnet_timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_speed_response() {
        // SYNTHETIC: no kernel here has QUERY_PORT_SPEED (Linux 7.0). The response is
        // laid out as the uapi header declares it: UVERBS_ATTR_QUERY_PORT_SPEED_RESP is a
        // PTR_OUT of UVERBS_ATTR_TYPE(u64), the speed in units of 100 Mb/s; here a 400
        // Gb/s port (4000) as the kernel writes it into the caller's u64.
        let resp = 4000u64.to_ne_bytes();
        let s = EffectiveSpeed::from_resp_bytes(&resp).unwrap();
        assert_eq!(s, EffectiveSpeed(4000));
        assert_eq!(s.units_100mbps(), 4000);
        assert_eq!(s.mbps(), 400_000);
        assert_eq!(s.gbps(), 400.0);
        // A LAG of two 100 Gb/s links; the largest value saturates in Mb/s.
        assert_eq!(
            EffectiveSpeed::from_resp_bytes(&2000u64.to_ne_bytes())
                .unwrap()
                .gbps(),
            200.0
        );
        assert_eq!(EffectiveSpeed(u64::MAX).mbps(), u64::MAX);
        for bad in [&[][..], &[0u8; 4], &[0u8; 9]] {
            assert_eq!(EffectiveSpeed::from_resp_bytes(bad), None);
        }
    }
}
