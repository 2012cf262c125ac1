//! A synthetic attribute table (`tests/printer/*.table`) turned into the printer's model,
//! for the printer's differential test (`printer_diff.rs`), which feeds the same table to
//! rdma-core 64.0's own `devinfo.c` through `tests/printer/stub.c`.
//!
//! SYNTHETIC: the tables hold made-up attribute values, read from no device. They exist
//! because the soft devices of the VM rig cannot show what real hardware reports (NDR and
//! XDR ports, ODP, every capability bit). This is the one place where the values are
//! not a real kernel's; it tests the printer, nothing else.
//!
//! The values reach the printer the way a kernel's answer does: a table fills the uapi
//! response structs (`ib_uverbs_ex_query_device_resp`, `ib_uverbs_query_port_resp_ex`,
//! `ib_uverbs_gid_entry`), and the library's public decoders (`DeviceAttr::from_ex`,
//! `PortAttr::from_resp`, `GidEntry::from_raw`) make the attributes.
//!
//! Format: `key=value` lines, `#` comment lines, the keys of the oracle's contract
//! (tests/vm/README.md) plus `device.{name,node_type,transport,board_id}` and
//! `port.N.active_speed_ex`; numbers in decimal or `0x` hex (no leading zeros: C's
//! `strtoull(.., 0)` would read them as octal). An unknown key is an error (a typo would
//! otherwise read as 0 on both sides), and so is a provider-only key.

use std::collections::BTreeMap;

use uverbs::raw::abi::{
    ib_uverbs_ex_query_device_resp, ib_uverbs_gid_entry, ib_uverbs_query_port_resp_ex,
};
use uverbs::types::FwVersion;
use uverbs::types::GidEntry;
use uverbs::types::{Guid, NodeType, TransportType};
use uverbs::verbs::device_attr::DeviceAttr;
use uverbs::verbs::discover::DeviceInfo;
use uverbs::verbs::port::PortAttr;

use crate::dropin::report::{GidView, HcaReport, PortReport};

/// Attributes only provider libraries know (mlx5's TSO, RSS hash and packet pacing caps,
/// the PCI atomic caps): the kernel does not report them, so uverbs prints 0 for them and
/// the stub never fills them. A table that sets one is refused.
pub const PROVIDER_ONLY: &[&str] = &[
    "ex.tso_caps.max_tso",
    "ex.tso_caps.supported_qpts",
    "ex.rss_caps.rx_hash_fields_mask",
    "ex.rss_caps.rx_hash_function",
    "ex.packet_pacing_caps.qp_rate_limit_min",
    "ex.packet_pacing_caps.qp_rate_limit_max",
    "ex.packet_pacing_caps.supported_qpts",
    "ex.pci_atomic_caps.fetch_add",
    "ex.pci_atomic_caps.compare_swap",
    "ex.pci_atomic_caps.swap",
];

const DEVICE_KEYS: &[&str] = &["name", "node_type", "transport", "board_id"];
const DEV_KEYS: &[&str] = &[
    "fw_ver",
    "node_guid",
    "sys_image_guid",
    "max_mr_size",
    "page_size_cap",
    "vendor_id",
    "vendor_part_id",
    "hw_ver",
    "max_qp",
    "max_qp_wr",
    "device_cap_flags",
    "max_sge",
    "max_sge_rd",
    "max_cq",
    "max_cqe",
    "max_mr",
    "max_pd",
    "max_qp_rd_atom",
    "max_ee_rd_atom",
    "max_res_rd_atom",
    "max_qp_init_rd_atom",
    "max_ee_init_rd_atom",
    "atomic_cap",
    "max_ee",
    "max_rdd",
    "max_mw",
    "max_raw_ipv6_qp",
    "max_raw_ethy_qp",
    "max_mcast_grp",
    "max_mcast_qp_attach",
    "max_total_mcast_qp_attach",
    "max_ah",
    "max_fmr",
    "max_map_per_fmr",
    "max_srq",
    "max_srq_wr",
    "max_srq_sge",
    "max_pkeys",
    "local_ca_ack_delay",
    "phys_port_cnt",
];
const EX_KEYS: &[&str] = &[
    "odp_caps.general_caps",
    "odp_caps.rc_odp_caps",
    "odp_caps.uc_odp_caps",
    "odp_caps.ud_odp_caps",
    "completion_timestamp_mask",
    "hca_core_clock",
    "device_cap_flags_ex",
    "rss_caps.supported_qpts",
    "rss_caps.max_rwq_indirection_tables",
    "rss_caps.max_rwq_indirection_table_size",
    "max_wq_type_rq",
    "raw_packet_caps",
    "tm_caps.max_rndv_hdr_size",
    "tm_caps.max_num_tags",
    "tm_caps.flags",
    "tm_caps.max_ops",
    "tm_caps.max_sge",
    "cq_mod_caps.max_cq_count",
    "cq_mod_caps.max_cq_period",
    "max_dm_size",
    "xrc_odp_caps",
];
const PORT_KEYS: &[&str] = &[
    "state",
    "max_mtu",
    "active_mtu",
    "gid_tbl_len",
    "port_cap_flags",
    "max_msg_sz",
    "bad_pkey_cntr",
    "qkey_viol_cntr",
    "pkey_tbl_len",
    "lid",
    "sm_lid",
    "lmc",
    "max_vl_num",
    "sm_sl",
    "subnet_timeout",
    "init_type_reply",
    "active_width",
    "active_speed",
    "phys_state",
    "link_layer",
    "flags",
    "port_cap_flags2",
    "active_speed_ex",
];
const GID_KEYS: &[&str] = &["gid", "type", "ndev_ifindex"];

/// One synthetic device.
#[derive(Debug, Clone)]
pub struct Table {
    values: BTreeMap<String, String>,
}

fn known_key(k: &str) -> bool {
    let split = |p: &str| k.strip_prefix(p);
    if let Some(r) = split("device.") {
        return DEVICE_KEYS.contains(&r);
    }
    if let Some(r) = split("dev.") {
        return DEV_KEYS.contains(&r);
    }
    if let Some(r) = split("ex.") {
        return EX_KEYS.contains(&r);
    }
    if k == "ctx.num_comp_vectors" {
        return true;
    }
    let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(r) = split("port.") {
        return matches!(r.split_once('.'), Some((n, f)) if num(n) && PORT_KEYS.contains(&f));
    }
    if let Some(r) = split("gid.") {
        let mut it = r.splitn(3, '.');
        return matches!((it.next(), it.next(), it.next()),
            (Some(p), Some(i), Some(f)) if num(p) && num(i) && GID_KEYS.contains(&f));
    }
    false
}

/// A table number: decimal or `0x` hex, as C's `strtoull(.., 0)` reads it; `None` for
/// anything else (octal-looking leading zeros included).
fn parse_num(v: &str) -> Option<u64> {
    if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if v.len() > 1 && v.starts_with('0') {
        return None;
    }
    v.parse().ok()
}

impl Table {
    /// Parses a table; every key must be known, every value of a numeric key a number.
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut values = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (k, v) = l
                .split_once('=')
                .ok_or_else(|| format!("line {}: not key=value: {l}", i + 1))?;
            let (k, v) = (k.trim(), v.trim());
            if PROVIDER_ONLY.contains(&k) {
                return Err(format!(
                    "line {}: {k} is a provider-only attribute (uverbs cannot have it): leave it out",
                    i + 1
                ));
            }
            if !known_key(k) {
                return Err(format!("line {}: unknown key {k}", i + 1));
            }
            let textual = matches!(k, "device.name" | "device.board_id" | "dev.fw_ver")
                || k.ends_with(".gid");
            if !textual && parse_num(v).is_none() {
                return Err(format!("line {}: {k}={v} is not a number", i + 1));
            }
            if values.insert(k.to_string(), v.to_string()).is_some() {
                return Err(format!("line {}: {k} appears twice", i + 1));
            }
        }
        Ok(Table { values })
    }

    fn text(&self, k: &str) -> &str {
        self.values.get(k).map_or("", String::as_str)
    }

    fn num(&self, k: &str) -> u64 {
        self.values.get(k).and_then(|v| parse_num(v)).unwrap_or(0)
    }

    fn port(&self, p: u32, f: &str) -> u64 {
        self.num(&format!("port.{p}.{f}"))
    }

    /// The device name.
    pub fn name(&self) -> &str {
        self.text("device.name")
    }

    /// The number of ports (`dev.phys_port_cnt`).
    pub fn port_count(&self) -> u8 {
        self.num("dev.phys_port_cnt") as u8
    }

    /// The device as `ibv_devinfo -v [-i port]` shows it (`port` 0: every port), made
    /// from the kernel structs the table fills.
    pub fn report(&self, port: u8) -> HcaReport {
        let n = |k: &str| self.num(k);
        let d = |k: &str| self.num(&format!("dev.{k}")) as u32;
        let x = |k: &str| self.num(&format!("ex.{k}"));
        let mut r = ib_uverbs_ex_query_device_resp::default();
        let b = &mut r.base;
        b.node_guid = n("dev.node_guid").to_be();
        b.sys_image_guid = n("dev.sys_image_guid").to_be();
        b.max_mr_size = n("dev.max_mr_size");
        b.page_size_cap = n("dev.page_size_cap");
        b.vendor_id = d("vendor_id");
        b.vendor_part_id = d("vendor_part_id");
        b.hw_ver = d("hw_ver");
        b.max_qp = d("max_qp");
        b.max_qp_wr = d("max_qp_wr");
        b.device_cap_flags = d("device_cap_flags");
        b.max_sge = d("max_sge");
        b.max_sge_rd = d("max_sge_rd");
        b.max_cq = d("max_cq");
        b.max_cqe = d("max_cqe");
        b.max_mr = d("max_mr");
        b.max_pd = d("max_pd");
        b.max_qp_rd_atom = d("max_qp_rd_atom");
        b.max_ee_rd_atom = d("max_ee_rd_atom");
        b.max_res_rd_atom = d("max_res_rd_atom");
        b.max_qp_init_rd_atom = d("max_qp_init_rd_atom");
        b.max_ee_init_rd_atom = d("max_ee_init_rd_atom");
        b.atomic_cap = d("atomic_cap");
        b.max_ee = d("max_ee");
        b.max_rdd = d("max_rdd");
        b.max_mw = d("max_mw");
        b.max_raw_ipv6_qp = d("max_raw_ipv6_qp");
        b.max_raw_ethy_qp = d("max_raw_ethy_qp");
        b.max_mcast_grp = d("max_mcast_grp");
        b.max_mcast_qp_attach = d("max_mcast_qp_attach");
        b.max_total_mcast_qp_attach = d("max_total_mcast_qp_attach");
        b.max_ah = d("max_ah");
        b.max_fmr = d("max_fmr");
        b.max_map_per_fmr = d("max_map_per_fmr");
        b.max_srq = d("max_srq");
        b.max_srq_wr = d("max_srq_wr");
        b.max_srq_sge = d("max_srq_sge");
        b.max_pkeys = d("max_pkeys") as u16;
        b.local_ca_ack_delay = d("local_ca_ack_delay") as u8;
        b.phys_port_cnt = d("phys_port_cnt") as u8;
        r.response_length = core::mem::size_of::<ib_uverbs_ex_query_device_resp>() as u32;
        r.odp_caps.general_caps = x("odp_caps.general_caps");
        r.odp_caps.rc_odp_caps = x("odp_caps.rc_odp_caps") as u32;
        r.odp_caps.uc_odp_caps = x("odp_caps.uc_odp_caps") as u32;
        r.odp_caps.ud_odp_caps = x("odp_caps.ud_odp_caps") as u32;
        r.timestamp_mask = x("completion_timestamp_mask");
        r.hca_core_clock = x("hca_core_clock");
        r.device_cap_flags_ex = x("device_cap_flags_ex");
        r.rss_caps.supported_qpts = x("rss_caps.supported_qpts") as u32;
        r.rss_caps.max_rwq_indirection_tables = x("rss_caps.max_rwq_indirection_tables") as u32;
        r.rss_caps.max_rwq_indirection_table_size =
            x("rss_caps.max_rwq_indirection_table_size") as u32;
        r.max_wq_type_rq = x("max_wq_type_rq") as u32;
        r.raw_packet_caps = x("raw_packet_caps") as u32;
        r.tm_caps.max_rndv_hdr_size = x("tm_caps.max_rndv_hdr_size") as u32;
        r.tm_caps.max_num_tags = x("tm_caps.max_num_tags") as u32;
        r.tm_caps.flags = x("tm_caps.flags") as u32;
        r.tm_caps.max_ops = x("tm_caps.max_ops") as u32;
        r.tm_caps.max_sge = x("tm_caps.max_sge") as u32;
        r.cq_moderation_caps.max_cq_moderation_count = x("cq_mod_caps.max_cq_count") as u16;
        r.cq_moderation_caps.max_cq_moderation_period = x("cq_mod_caps.max_cq_period") as u16;
        r.max_dm_size = x("max_dm_size");
        r.xrc_odp_caps = x("xrc_odp_caps") as u32;
        let attr = DeviceAttr::from_ex(&r, FwVersion::new(self.text("dev.fw_ver")));

        let mut ident = DeviceInfo::new(
            self.name(),
            NodeType::from_raw(n("device.node_type") as u32),
        );
        // ibv_device.transport_type as the table gives it (not derived from the node type).
        ident.transport = TransportType::from_raw(n("device.transport") as i32);
        ident.node_guid = Guid(n("dev.node_guid"));
        ident.sys_image_guid = Some(Guid(n("dev.sys_image_guid")));
        ident.fw_ver = self.text("dev.fw_ver").to_string();
        ident.port_count = u32::from(attr.phys_port_cnt);
        let mut ports = Vec::new();
        for p in 1..=u32::from(attr.phys_port_cnt) {
            if port != 0 && p != u32::from(port) {
                continue;
            }
            let mut q = ib_uverbs_query_port_resp_ex::default();
            let l = &mut q.legacy_resp;
            l.state = self.port(p, "state") as u8;
            l.max_mtu = self.port(p, "max_mtu") as u8;
            l.active_mtu = self.port(p, "active_mtu") as u8;
            l.gid_tbl_len = self.port(p, "gid_tbl_len") as u32;
            l.port_cap_flags = self.port(p, "port_cap_flags") as u32;
            l.max_msg_sz = self.port(p, "max_msg_sz") as u32;
            l.bad_pkey_cntr = self.port(p, "bad_pkey_cntr") as u32;
            l.qkey_viol_cntr = self.port(p, "qkey_viol_cntr") as u32;
            l.pkey_tbl_len = self.port(p, "pkey_tbl_len") as u16;
            l.lid = self.port(p, "lid") as u16;
            l.sm_lid = self.port(p, "sm_lid") as u16;
            l.lmc = self.port(p, "lmc") as u8;
            l.max_vl_num = self.port(p, "max_vl_num") as u8;
            l.sm_sl = self.port(p, "sm_sl") as u8;
            l.subnet_timeout = self.port(p, "subnet_timeout") as u8;
            l.init_type_reply = self.port(p, "init_type_reply") as u8;
            l.active_width = self.port(p, "active_width") as u8;
            l.active_speed = self.port(p, "active_speed") as u8;
            l.phys_state = self.port(p, "phys_state") as u8;
            l.link_layer = self.port(p, "link_layer") as u8;
            l.flags = self.port(p, "flags") as u8;
            q.port_cap_flags2 = self.port(p, "port_cap_flags2") as u16;
            q.active_speed_ex = self.port(p, "active_speed_ex") as u32;
            let attr = PortAttr::from_resp(&q);
            let mut gids = Vec::new();
            // The valid entries below gid_tbl_len, by index (what QUERY_GID_TABLE gives).
            for i in 0..(attr.gid_tbl_len as i32).max(0) as u32 {
                let Some(hex) = self.values.get(&format!("gid.{p}.{i}.gid")) else {
                    continue;
                };
                let mut raw = [0u8; 16];
                for (k, byte) in raw.iter_mut().enumerate() {
                    *byte = hex
                        .get(2 * k..2 * k + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .unwrap_or_else(|| panic!("gid.{p}.{i}.gid is not 32 hex digits"));
                }
                let e = ib_uverbs_gid_entry {
                    gid: [
                        u64::from_ne_bytes(raw[..8].try_into().unwrap_or_default()),
                        u64::from_ne_bytes(raw[8..].try_into().unwrap_or_default()),
                    ],
                    gid_index: i,
                    port_num: p,
                    gid_type: self.num(&format!("gid.{p}.{i}.type")) as u32,
                    netdev_ifindex: self.num(&format!("gid.{p}.{i}.ndev_ifindex")) as u32,
                };
                gids.push(GidView {
                    entry: GidEntry::from_raw(&e),
                    netdev: None,
                });
            }
            ports.push(PortReport {
                num: p,
                attr,
                gids,
                pkeys: None,
            });
        }
        let board = self.text("device.board_id");
        HcaReport {
            ident,
            board_id: (!board.is_empty()).then(|| board.as_bytes().to_vec()),
            attr: Some(attr),
            num_comp_vectors: n("ctx.num_comp_vectors") as u32,
            driver_id: None,
            ports,
            failure: None,
        }
    }
}
