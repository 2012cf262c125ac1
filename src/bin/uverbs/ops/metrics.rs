//! The metrics of `uverbs exporter`: their names, help texts and labels (docs/metrics.md
//! lists them and maps them to node_exporter's infiniband collector).
//!
//! Names follow Prometheus' conventions: base units (bytes, seconds), `_total` on
//! counters, `_info` on gauges of value 1 that carry text in labels.

use uverbs::verbs::counters::{Counter, DeviceCounters, PortStatus};
use uverbs::{DeviceInfo, LinkLayer};

use crate::plumbing::prom::{Exposition, Kind};

/// The IB PMA counters of sysfs `counters/`: file, metric, help. The data counters
/// (4-octet words) are exported in bytes.
pub const PMA: &[(&str, &str, &str)] = &[
    ("port_rcv_data", "uverbs_port_receive_bytes_total", "IB PortRcvData: bytes received (sysfs counters/port_rcv_data counts 4-octet words: times 4)."),
    ("port_xmit_data", "uverbs_port_transmit_bytes_total", "IB PortXmitData: bytes transmitted (sysfs counters/port_xmit_data counts 4-octet words: times 4)."),
    ("port_rcv_packets", "uverbs_port_receive_packets_total", "IB PortRcvPkts: packets received."),
    ("port_xmit_packets", "uverbs_port_transmit_packets_total", "IB PortXmitPkts: packets transmitted."),
    ("unicast_rcv_packets", "uverbs_port_unicast_receive_packets_total", "IB PortUnicastRcvPkts: unicast packets received."),
    ("unicast_xmit_packets", "uverbs_port_unicast_transmit_packets_total", "IB PortUnicastXmitPkts: unicast packets transmitted."),
    ("multicast_rcv_packets", "uverbs_port_multicast_receive_packets_total", "IB PortMulticastRcvPkts: multicast packets received."),
    ("multicast_xmit_packets", "uverbs_port_multicast_transmit_packets_total", "IB PortMulticastXmitPkts: multicast packets transmitted."),
    ("port_rcv_errors", "uverbs_port_receive_errors_total", "IB PortRcvErrors: packets received with an error."),
    ("port_rcv_discards", "uverbs_port_receive_discards_total", "Received packets discarded (sysfs counters/port_rcv_discards, some drivers)."),
    ("port_xmit_discards", "uverbs_port_transmit_discards_total", "IB PortXmitDiscards: outbound packets discarded."),
    ("port_rcv_constraint_errors", "uverbs_port_receive_constraint_errors_total", "IB PortRcvConstraintErrors: received packets discarded by partition or raw-packet constraints."),
    ("port_xmit_constraint_errors", "uverbs_port_transmit_constraint_errors_total", "IB PortXmitConstraintErrors: outbound packets discarded by partition or raw-packet constraints."),
    ("port_rcv_remote_physical_errors", "uverbs_port_receive_remote_physical_errors_total", "IB PortRcvRemotePhysicalErrors: received packets marked with the EBP delimiter."),
    ("port_rcv_switch_relay_errors", "uverbs_port_receive_switch_relay_errors_total", "IB PortRcvSwitchRelayErrors: received packets discarded because they could not be forwarded."),
    ("port_xmit_wait", "uverbs_port_transmit_wait_total", "IB PortXmitWait: ticks during which data was waiting to be sent."),
    ("symbol_error", "uverbs_port_symbol_errors_total", "IB SymbolErrorCounter: minor link errors."),
    ("link_error_recovery", "uverbs_port_link_error_recovery_total", "IB LinkErrorRecoveryCounter: link error recoveries completed."),
    ("link_downed", "uverbs_port_link_downed_total", "IB LinkDownedCounter: times the link failed its error recovery and went down."),
    ("local_link_integrity_errors", "uverbs_port_local_link_integrity_errors_total", "IB LocalLinkIntegrityErrors: local physical errors beyond the threshold."),
    ("excessive_buffer_overrun_errors", "uverbs_port_excessive_buffer_overrun_errors_total", "IB ExcessiveBufferOverrunErrors: consecutive flow-control overruns beyond the threshold."),
    ("VL15_dropped", "uverbs_port_vl15_dropped_total", "IB VL15Dropped: subnet management packets dropped."),
];

/// mlx4's `counters_ext/`: file, metric, help (data in bytes, as above).
pub const PMA_EXT: &[(&str, &str, &str)] = &[
    (
        "port_rcv_data_64",
        "uverbs_port_ext_receive_bytes_total",
        "Bytes received (sysfs counters_ext/port_rcv_data_64, 4-octet words: times 4; mlx4).",
    ),
    (
        "port_xmit_data_64",
        "uverbs_port_ext_transmit_bytes_total",
        "Bytes transmitted (sysfs counters_ext/port_xmit_data_64, 4-octet words: times 4; mlx4).",
    ),
    (
        "port_rcv_packets_64",
        "uverbs_port_ext_receive_packets_total",
        "Packets received (sysfs counters_ext/port_rcv_packets_64; mlx4).",
    ),
    (
        "port_xmit_packets_64",
        "uverbs_port_ext_transmit_packets_total",
        "Packets transmitted (sysfs counters_ext/port_xmit_packets_64; mlx4).",
    ),
    (
        "port_unicast_rcv_packets",
        "uverbs_port_ext_unicast_receive_packets_total",
        "Unicast packets received (sysfs counters_ext/; mlx4).",
    ),
    (
        "port_unicast_xmit_packets",
        "uverbs_port_ext_unicast_transmit_packets_total",
        "Unicast packets transmitted (sysfs counters_ext/; mlx4).",
    ),
    (
        "port_multicast_rcv_packets",
        "uverbs_port_ext_multicast_receive_packets_total",
        "Multicast packets received (sysfs counters_ext/; mlx4).",
    ),
    (
        "port_multicast_xmit_packets",
        "uverbs_port_ext_multicast_transmit_packets_total",
        "Multicast packets transmitted (sysfs counters_ext/; mlx4).",
    ),
];

/// The value a counter is exported with: bytes for the 4-octet data counters.
fn exported(c: &Counter) -> u64 {
    c.bytes().unwrap_or(c.value)
}

/// Driver counters that are levels, not counts (bnxt_re's `active_*` and
/// `watermark_*`): exported as gauges.
pub fn is_level(name: &str) -> bool {
    name.starts_with("active_") || name.starts_with("watermark_")
}

/// Bytes per second of a rate in tenths of Gb/s.
pub fn bytes_per_second(decigbps: u32) -> u64 {
    u64::from(decigbps) * 12_500_000
}

/// The driver's name: the kernel driver of the device's parent, else the uverbs
/// driver id's name (`rxe`, `siw`).
pub fn driver_of(info: &DeviceInfo) -> String {
    if let Some(k) = &info.kernel_driver {
        return k.clone();
    }
    info.driver_id
        .or_else(|| info.driver_id_guess())
        .and_then(uverbs::raw::driver::driver_c_name)
        .map(|n| n.trim_start_matches("RDMA_DRIVER_").to_ascii_lowercase())
        .unwrap_or_default()
}

pub fn device_info(e: &mut Exposition, info: &DeviceInfo) {
    // A GUID of 0 is no GUID (a sysfs tree without node_guid).
    let guid = if info.node_guid.0 == 0 {
        String::new()
    } else {
        info.node_guid.to_string()
    };
    let driver = driver_of(info);
    e.sample(
        "uverbs_device_info",
        "An RDMA device: firmware version, node GUID, driver, HCA type and board id (empty when the device has none).",
        Kind::Gauge,
        &[
            ("device", &info.name),
            ("firmware_version", &info.fw_ver),
            ("node_guid", &guid),
            ("driver", &driver),
            ("hca_type", info.hca_type.as_deref().unwrap_or("")),
            ("board_id", info.board_id.as_deref().unwrap_or("")),
        ],
        1u64,
    );
}

fn link_layer_name(l: LinkLayer) -> &'static str {
    match l {
        LinkLayer::InfiniBand => "InfiniBand",
        LinkLayer::Ethernet => "Ethernet",
        _ => "Unspecified",
    }
}

/// A port's status.
pub fn port_status(e: &mut Exposition, dev: &str, v: &PortStatus) {
    let p = v.port.to_string();
    let l: &[(&str, &str)] = &[("device", dev), ("port", &p)];
    if let Some(s) = v.state {
        e.sample(
            "uverbs_port_state",
            "The port's logical state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.",
            Kind::Gauge,
            l,
            u64::from(s.as_raw()),
        );
    }
    if let Some(s) = v.phys_state {
        e.sample(
            "uverbs_port_physical_state",
            "The port's physical state: 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 PhyTest.",
            Kind::Gauge,
            l,
            u64::from(s.as_raw()),
        );
    }
    if let Some(ll) = v.link_layer {
        e.sample(
            "uverbs_port_link_layer_info",
            "The port's link layer: InfiniBand, Ethernet or Unspecified.",
            Kind::Gauge,
            &[
                ("device", dev),
                ("port", &p),
                ("link_layer", link_layer_name(ll)),
            ],
            1u64,
        );
    }
    if let Some(m) = v.active_mtu {
        e.sample(
            "uverbs_port_active_mtu_bytes",
            "The port's active MTU (with /dev/infiniband only: sysfs has none).",
            Kind::Gauge,
            l,
            m,
        );
    }
    if let Some(m) = v.max_mtu {
        e.sample(
            "uverbs_port_max_mtu_bytes",
            "The port's largest MTU (with /dev/infiniband only).",
            Kind::Gauge,
            l,
            m,
        );
    }
    if let Some(w) = v.lanes {
        e.sample(
            "uverbs_port_width_lanes",
            "The port's active width in lanes (1X, 2X, 4X, 8X, 12X).",
            Kind::Gauge,
            l,
            w,
        );
    }
    if let Some(s) = v.lane_decigbps {
        e.sample(
            "uverbs_port_speed_bytes_per_second",
            "The port's active lane speed (SDR 2.5 Gb/s ... XDR 200 Gb/s), in bytes per second.",
            Kind::Gauge,
            l,
            bytes_per_second(s),
        );
    }
    if let Some(r) = v.rate_decigbps {
        e.sample(
            "uverbs_port_rate_bytes_per_second",
            "The port's signalling rate, width times lane speed (sysfs rate), in bytes per second.",
            Kind::Gauge,
            l,
            bytes_per_second(r),
        );
    }
    if let Some(lid) = v.lid {
        e.sample(
            "uverbs_port_lid",
            "The port's base LID (InfiniBand ports).",
            Kind::Gauge,
            l,
            lid,
        );
    }
}

/// Every counter of a device (only those of `ports` when set).
pub fn counters(e: &mut Exposition, d: &DeviceCounters) {
    let dev = d.device.as_str();
    for pc in &d.ports {
        let p = pc.port.to_string();
        for (set, table) in [(&pc.pma, PMA), (&pc.pma_ext, PMA_EXT)] {
            for c in set.iter() {
                match table.iter().find(|(f, _, _)| *f == c.name) {
                    Some((_, name, help)) => e.sample(
                        name,
                        help,
                        Kind::Counter,
                        &[("device", dev), ("port", &p)],
                        exported(c),
                    ),
                    None => e.sample(
                        "uverbs_port_pma_other_total",
                        "A PMA counter of sysfs counters/ or counters_ext/ that uverbs has no name for, by file name.",
                        Kind::Counter,
                        &[("device", dev), ("port", &p), ("counter", &c.name)],
                        exported(c),
                    ),
                }
            }
        }
        for c in &pc.hw {
            if is_level(&c.name) {
                e.sample(
                    "uverbs_port_hw_stat",
                    "A driver counter of the port that is a level, not a count (bnxt_re's active_* and watermark_*).",
                    Kind::Gauge,
                    &[("device", dev), ("port", &p), ("counter", &c.name)],
                    c.value,
                );
            } else {
                e.sample(
                    "uverbs_port_hw_stat_total",
                    "A driver counter of the port (sysfs hw_counters/, or RDMA netlink as rdma statistic show), by name.",
                    Kind::Counter,
                    &[("device", dev), ("port", &p), ("counter", &c.name)],
                    c.value,
                );
            }
        }
    }
    for c in &d.hw {
        if is_level(&c.name) {
            e.sample(
                "uverbs_device_hw_stat",
                "A driver counter of the device that is a level, not a count.",
                Kind::Gauge,
                &[("device", dev), ("counter", &c.name)],
                c.value,
            );
        } else {
            e.sample(
                "uverbs_device_hw_stat_total",
                "A driver counter of the device itself (sysfs hw_counters/ of the device), by name.",
                Kind::Counter,
                &[("device", dev), ("counter", &c.name)],
                c.value,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prometheus_conventions() {
        let all = PMA.iter().chain(PMA_EXT);
        let mut seen = std::collections::BTreeSet::new();
        for (file, name, help) in all {
            assert!(
                name.starts_with("uverbs_port_") && name.ends_with("_total"),
                "{name}"
            );
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name}"
            );
            assert!(
                !name.contains("_counter"),
                "promtool: no type in a name: {name}"
            );
            assert!(seen.insert(name), "{name} twice");
            assert!(help.ends_with('.'), "{file}");
            assert_eq!(
                name.ends_with("_bytes_total"),
                uverbs::verbs::counters::OCTETS4.contains(file),
                "{file}: bytes for the 4-octet counters only"
            );
        }
    }

    #[test]
    fn rates_in_bytes() {
        assert_eq!(bytes_per_second(25), 312_500_000);
        assert_eq!(bytes_per_second(400), 5_000_000_000);
    }
}
