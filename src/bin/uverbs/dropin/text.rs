//! The text of rdma-core's `ibv_devinfo`, byte for byte, as release 64.0 prints it:
//! field order, tabs, number formats (C `%d` of `int` fields, `%x`, `%X`), the names it
//! gives enum values (its own, including "invalid ..." for unknown values), the capability
//! lists with their "Unknown flags" lines, and the GID lines (RoCE v2 GIDs through glibc's
//! `inet_ntop`). Plus, from rdma-core after 64.0, the `effective_speed` line where the
//! kernel answers QUERY_PORT_SPEED.
//!
//! Where rdma-core 44 (Debian 12) prints the same values differently, this follows 64.0;
//! the differences are listed in the README and in `tests/cli_compat.rs`
//! (`RDMA_CORE_44_DIFFERS`): 44 has no XDR (it prints the 8-bit `active_speed`), no ODP
//! `SUPPORT_FLUSH`/`SUPPORT_ATOMIC_WRITE` lines and no `CC_DMA_BOUNCE` (it counts those
//! bits in "Unknown flags"), and its usage text says "(default first device found)".
//! The printer is checked against 64.0's own `devinfo.c` on synthetic attribute tables
//! (`printer_diff.rs`) and against both releases on real devices in the VM.

use std::fmt::Write as _;

use uverbs::types::{GidType, LinkLayer, Mtu, PortState, Speed, TransportType, Width};
use uverbs::verbs::device_attr::DeviceAttr;
use uverbs::verbs::port::PortAttr;

use crate::dropin::report::{Failure, GidView, HcaReport, PortReport};

/// Which wording to use for failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// rdma-core's lines, exactly.
    Compat,
    /// rdma-core's lines where they say what is wrong; more precise ones where they do not
    /// (an open failure names the device, the node and the cause).
    Uverbs,
}

fn transport_str(t: TransportType) -> &'static str {
    match t.as_raw() {
        0 => "InfiniBand",
        1 => "iWARP",
        2 => "usNIC",
        3 => "usNIC UDP",
        4 => "unspecified",
        _ => "invalid transport",
    }
}

// The names and numbers below come from the library's tables (`PortState::devinfo_name`,
// `Mtu::bytes`, `Width::lanes`, `Speed::lane_rate_decigbps`, `PortAttr::max_vls`), so
// that the byte-for-byte comparisons with rdma-core's ibv_devinfo check those tables
// too; only the words rdma-core uses for values it does not know are here.

fn port_state_str(s: PortState) -> &'static str {
    s.devinfo_name().unwrap_or("invalid state")
}

fn phys_state_str(s: u8) -> &'static str {
    match s {
        1 => "SLEEP",
        2 => "POLLING",
        3 => "DISABLED",
        // rdma-core's spelling.
        4 => "PORT_CONFIGURATION TRAINNING",
        5 => "LINK_UP",
        6 => "LINK_ERROR_RECOVERY",
        7 => "PHY TEST",
        _ => "invalid physical state",
    }
}

fn atomic_cap_str(a: u32) -> &'static str {
    match a {
        0 => "ATOMIC_NONE",
        1 => "ATOMIC_HCA",
        2 => "ATOMIC_GLOB",
        _ => "invalid atomic capability",
    }
}

fn mtu_str(m: Mtu) -> String {
    m.bytes()
        .map_or_else(|| "invalid MTU".to_string(), |b| b.to_string())
}

fn width_str(w: Width) -> String {
    w.lanes()
        .map_or_else(|| "invalid width".to_string(), |n| n.to_string())
}

/// The lane speed: `active_speed_ex` when set, else `active_speed` (as 64.0; 44 only
/// knows the 8-bit field and has no XDR).
fn speed_str(s: u32) -> String {
    match Speed::from_raw(s).lane_rate_decigbps() {
        Some(d) => format!("{}.{} Gbps", d / 10, d % 10),
        None => "invalid speed".to_string(),
    }
}

fn vl_str(p: &PortAttr) -> String {
    p.max_vls()
        .map_or_else(|| "invalid value".to_string(), |n| n.to_string())
}

fn link_layer_str(l: LinkLayer) -> &'static str {
    match l.as_raw() {
        0 => "Unspecified",
        1 => "InfiniBand",
        2 => "Ethernet",
        _ => "Unknown",
    }
}

/// `%04x:%04x:%04x:%04x` of a host-order GUID.
fn guid_str(v: u64) -> String {
    format!(
        "{:04x}:{:04x}:{:04x}:{:04x}",
        (v >> 48) & 0xffff,
        (v >> 32) & 0xffff,
        (v >> 16) & 0xffff,
        v & 0xffff
    )
}

macro_rules! line {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The capability lines of a flag set, as `ibv_devinfo` prints them: for each bit of
/// `names` (in table order) that is set in `bits`, its name on a line of its own; then,
/// if `unknown` and any set bit has no name, `Unknown flags: 0x<those bits>`.
fn flag_lines(o: &mut String, bits: u64, names: &[(u64, &str)], unknown: bool) {
    let mut known = 0u64;
    for &(bit, name) in names {
        known |= bit;
        if bits & bit != 0 {
            line!(o, "\t\t\t\t\t{name}");
        }
    }
    if unknown && bits & !known != 0 {
        line!(o, "\t\t\t\t\tUnknown flags: 0x{:X}", bits & !known);
    }
}

fn device_cap_flags(o: &mut String, f: u32) {
    const NAMES: &[(u64, &str)] = &[
        (1 << 0, "RESIZE_MAX_WR"),
        (1 << 1, "BAD_PKEY_CNTR"),
        (1 << 2, "BAD_QKEY_CNTR"),
        (1 << 3, "RAW_MULTI"),
        (1 << 4, "AUTO_PATH_MIG"),
        (1 << 5, "CHANGE_PHY_PORT"),
        (1 << 6, "UD_AV_PORT_ENFORCE"),
        (1 << 7, "CURR_QP_STATE_MOD"),
        (1 << 8, "SHUTDOWN_PORT"),
        (1 << 9, "INIT_TYPE"),
        (1 << 10, "PORT_ACTIVE_EVENT"),
        (1 << 11, "SYS_IMAGE_GUID"),
        (1 << 12, "RC_RNR_NAK_GEN"),
        (1 << 13, "SRQ_RESIZE"),
        (1 << 14, "N_NOTIFY_CQ"),
        (1 << 17, "MEM_WINDOW"),
        (1 << 18, "UD_IP_CSUM"),
        (1 << 20, "XRC"),
        (1 << 21, "MEM_MGT_EXTENSIONS"),
        (1 << 23, "MEM_WINDOW_TYPE_2A"),
        (1 << 24, "MEM_WINDOW_TYPE_2B"),
        (1 << 25, "RC_IP_CSUM"),
        (1 << 26, "RAW_IP_CSUM"),
        (1 << 29, "MANAGED_FLOW_STEERING"),
    ];
    flag_lines(o, u64::from(f), NAMES, true);
}

fn odp_trans_caps(o: &mut String, t: u32) {
    const NAMES: &[(u64, &str)] = &[
        (1 << 0, "SUPPORT_SEND"),
        (1 << 1, "SUPPORT_RECV"),
        (1 << 2, "SUPPORT_WRITE"),
        (1 << 3, "SUPPORT_READ"),
        (1 << 4, "SUPPORT_ATOMIC"),
        (1 << 5, "SUPPORT_SRQ"),
        (1 << 6, "SUPPORT_FLUSH"),
        (1 << 7, "SUPPORT_ATOMIC_WRITE"),
    ];
    if t == 0 {
        line!(o, "\t\t\t\t\tNO SUPPORT");
        return;
    }
    flag_lines(o, u64::from(t), NAMES, true);
}

fn odp_caps(o: &mut String, a: &DeviceAttr) {
    const GENERAL: &[(u64, &str)] = &[(1 << 0, "ODP_SUPPORT"), (1 << 1, "ODP_SUPPORT_IMPLICIT")];
    line!(o, "\tgeneral_odp_caps:");
    flag_lines(o, a.odp_caps.general_caps.bits(), GENERAL, true);
    line!(o, "\trc_odp_caps:");
    odp_trans_caps(o, a.odp_caps.rc_odp_caps.bits());
    line!(o, "\tuc_odp_caps:");
    odp_trans_caps(o, a.odp_caps.uc_odp_caps.bits());
    line!(o, "\tud_odp_caps:");
    odp_trans_caps(o, a.odp_caps.ud_odp_caps.bits());
    line!(o, "\txrc_odp_caps:");
    odp_trans_caps(o, a.xrc_odp_caps.bits());
}

fn supported_qpts(o: &mut String, q: u32) {
    // `1 << IBV_QPT_RAW_PACKET`, `1 << IBV_QPT_UD`.
    const NAMES: &[(u64, &str)] = &[(1 << 8, "SUPPORT_RAW_PACKET"), (1 << 4, "SUPPORT_UD")];
    line!(o, "\t\tsupported_qp:");
    flag_lines(o, u64::from(q), NAMES, true);
}

fn verbose_device(o: &mut String, a: &DeviceAttr, num_comp_vectors: u32) {
    let d = |v: u32| v as i32;
    line!(o, "\tmax_mr_size:\t\t\t0x{:x}", a.max_mr_size);
    line!(o, "\tpage_size_cap:\t\t\t0x{:x}", a.page_size_cap);
    line!(o, "\tmax_qp:\t\t\t\t{}", d(a.max_qp));
    line!(o, "\tmax_qp_wr:\t\t\t{}", d(a.max_qp_wr));
    let flags = a.device_cap_flags.bits() as u32;
    line!(o, "\tdevice_cap_flags:\t\t0x{flags:08x}");
    device_cap_flags(o, flags);
    line!(o, "\tmax_sge:\t\t\t{}", d(a.max_sge));
    line!(o, "\tmax_sge_rd:\t\t\t{}", d(a.max_sge_rd));
    line!(o, "\tmax_cq:\t\t\t\t{}", d(a.max_cq));
    line!(o, "\tmax_cqe:\t\t\t{}", d(a.max_cqe));
    line!(o, "\tmax_mr:\t\t\t\t{}", d(a.max_mr));
    line!(o, "\tmax_pd:\t\t\t\t{}", d(a.max_pd));
    line!(o, "\tmax_qp_rd_atom:\t\t\t{}", d(a.max_qp_rd_atom));
    line!(o, "\tmax_ee_rd_atom:\t\t\t{}", d(a.max_ee_rd_atom));
    line!(o, "\tmax_res_rd_atom:\t\t{}", d(a.max_res_rd_atom));
    line!(o, "\tmax_qp_init_rd_atom:\t\t{}", d(a.max_qp_init_rd_atom));
    line!(o, "\tmax_ee_init_rd_atom:\t\t{}", d(a.max_ee_init_rd_atom));
    let atomic = a.atomic_cap.as_raw();
    line!(
        o,
        "\tatomic_cap:\t\t\t{} ({})",
        atomic_cap_str(atomic),
        atomic as i32
    );
    line!(o, "\tmax_ee:\t\t\t\t{}", d(a.max_ee));
    line!(o, "\tmax_rdd:\t\t\t{}", d(a.max_rdd));
    line!(o, "\tmax_mw:\t\t\t\t{}", d(a.max_mw));
    line!(o, "\tmax_raw_ipv6_qp:\t\t{}", d(a.max_raw_ipv6_qp));
    line!(o, "\tmax_raw_ethy_qp:\t\t{}", d(a.max_raw_ethy_qp));
    line!(o, "\tmax_mcast_grp:\t\t\t{}", d(a.max_mcast_grp));
    line!(o, "\tmax_mcast_qp_attach:\t\t{}", d(a.max_mcast_qp_attach));
    line!(
        o,
        "\tmax_total_mcast_qp_attach:\t{}",
        d(a.max_total_mcast_qp_attach)
    );
    line!(o, "\tmax_ah:\t\t\t\t{}", d(a.max_ah));
    line!(o, "\tmax_fmr:\t\t\t{}", d(a.max_fmr));
    if a.max_fmr != 0 {
        line!(o, "\tmax_map_per_fmr:\t\t{}", d(a.max_map_per_fmr));
    }
    line!(o, "\tmax_srq:\t\t\t{}", d(a.max_srq));
    if a.max_srq != 0 {
        line!(o, "\tmax_srq_wr:\t\t\t{}", d(a.max_srq_wr));
        line!(o, "\tmax_srq_sge:\t\t\t{}", d(a.max_srq_sge));
    }
    line!(o, "\tmax_pkeys:\t\t\t{}", a.max_pkeys);
    line!(o, "\tlocal_ca_ack_delay:\t\t{}", a.local_ca_ack_delay);
    odp_caps(o, a);
    if a.completion_timestamp_mask != 0 {
        line!(
            o,
            "\tcompletion timestamp_mask:\t\t\t0x{:016x}",
            a.completion_timestamp_mask
        );
    } else {
        line!(o, "\tcompletion_timestamp_mask not supported");
    }
    if a.hca_core_clock != 0 {
        line!(o, "\thca_core_clock:\t\t\t{}kHZ", a.hca_core_clock);
    } else {
        line!(o, "\tcore clock not supported");
    }
    let raw = a.raw_packet_caps.bits();
    if raw != 0 {
        const RAW: &[(u64, &str)] = &[
            (1 << 0, "C-VLAN stripping offload"),
            (1 << 1, "Scatter FCS offload"),
            (1 << 2, "IP csum offload"),
            (1 << 3, "Delay drop"),
        ];
        line!(o, "\traw packet caps:");
        flag_lines(o, u64::from(raw), RAW, false);
    }
    let ex = a.device_cap_flags_ex.bits();
    line!(o, "\tdevice_cap_flags_ex:\t\t0x{ex:X}");
    // rdma-core names only the high half here; the low half is device_cap_flags.
    const EX_HIGH: &[(u64, &str)] = &[
        (1 << 34, "RAW_SCATTER_FCS"),
        (1 << 36, "PCI_WRITE_END_PADDING"),
        (1 << 41, "CC_DMA_BOUNCE"),
    ];
    flag_lines(o, ex & 0xffff_ffff_0000_0000, EX_HIGH, true);
    // TSO capabilities are reported by providers only (mlx5), never by the kernel's
    // QUERY_DEVICE: 0 here, as rdma-core's rxe and siw providers report.
    line!(o, "\ttso_caps:");
    line!(o, "\t\tmax_tso:\t\t\t0");
    line!(o, "\trss_caps:");
    line!(
        o,
        "\t\tmax_rwq_indirection_tables:\t\t\t{}",
        a.rss_caps.max_rwq_indirection_tables
    );
    line!(
        o,
        "\t\tmax_rwq_indirection_table_size:\t\t\t{}",
        a.rss_caps.max_rwq_indirection_table_size
    );
    // rx_hash_function and rx_hash_fields_mask are provider-only fields too.
    line!(o, "\t\trx_hash_function:\t\t\t\t0x0");
    line!(o, "\t\trx_hash_fields_mask:\t\t\t\t0x0");
    if a.rss_caps.supported_qpts != 0 {
        supported_qpts(o, a.rss_caps.supported_qpts);
    }
    line!(o, "\tmax_wq_type_rq:\t\t\t{}", a.max_wq_type_rq);
    // Packet pacing: provider-only as well.
    line!(o, "\tpacket_pacing_caps:");
    line!(o, "\t\tqp_rate_limit_min:\t0kbps");
    line!(o, "\t\tqp_rate_limit_max:\t0kbps");
    let tm = &a.tm_caps;
    if tm.max_num_tags != 0 {
        line!(o, "\tmax_rndv_hdr_size:\t\t{}", tm.max_rndv_hdr_size);
        line!(o, "\tmax_num_tags:\t\t\t{}", tm.max_num_tags);
        line!(o, "\tmax_ops:\t\t\t{}", tm.max_ops);
        line!(o, "\tmax_sge:\t\t\t{}", tm.max_sge);
        line!(o, "\tflags:");
        flag_lines(o, u64::from(tm.flags), &[(1 << 0, "IBV_TM_CAP_RC")], false);
    } else {
        line!(o, "\ttag matching not supported");
    }
    let cq = &a.cq_mod_caps;
    if cq.max_cq_count != 0 && cq.max_cq_period != 0 {
        line!(o, "\n\tcq moderation caps:");
        line!(o, "\t\tmax_cq_count:\t{}", cq.max_cq_count);
        line!(o, "\t\tmax_cq_period:\t{} us\n", cq.max_cq_period);
    }
    if a.max_dm_size != 0 {
        line!(
            o,
            "\tmaximum available device memory:\t{}Bytes\n",
            a.max_dm_size
        );
    }
    line!(o, "\tnum_comp_vectors:\t\t{}", num_comp_vectors as i32);
}

fn port_lines(o: &mut String, p: &PortAttr, num: u32, verbose: bool, transport: TransportType) {
    line!(o, "\t\tport:\t{num}");
    let st = p.state;
    line!(
        o,
        "\t\t\tstate:\t\t\t{} ({})",
        port_state_str(st),
        st.as_raw()
    );
    let m = p.max_mtu;
    line!(o, "\t\t\tmax_mtu:\t\t{} ({})", mtu_str(m), m.as_raw());
    let m = p.active_mtu;
    line!(o, "\t\t\tactive_mtu:\t\t{} ({})", mtu_str(m), m.as_raw());
    line!(o, "\t\t\tsm_lid:\t\t\t{}", p.sm_lid);
    line!(o, "\t\t\tport_lid:\t\t{}", p.lid);
    line!(o, "\t\t\tport_lmc:\t\t0x{:02x}", p.lmc);
    line!(o, "\t\t\tlink_layer:\t\t{}", link_layer_str(p.link_layer));
    if !verbose {
        return;
    }
    line!(o, "\t\t\tmax_msg_sz:\t\t0x{:x}", p.max_msg_sz);
    line!(
        o,
        "\t\t\tport_cap_flags:\t\t0x{:08x}",
        p.port_cap_flags.bits()
    );
    line!(
        o,
        "\t\t\tport_cap_flags2:\t0x{:04x}",
        p.port_cap_flags2.bits()
    );
    line!(o, "\t\t\tmax_vl_num:\t\t{} ({})", vl_str(p), p.max_vl_num);
    line!(o, "\t\t\tbad_pkey_cntr:\t\t0x{:x}", p.bad_pkey_cntr);
    line!(o, "\t\t\tqkey_viol_cntr:\t\t0x{:x}", p.qkey_viol_cntr);
    line!(o, "\t\t\tsm_sl:\t\t\t{}", p.sm_sl);
    line!(o, "\t\t\tpkey_tbl_len:\t\t{}", p.pkey_tbl_len);
    line!(o, "\t\t\tgid_tbl_len:\t\t{}", p.gid_tbl_len as i32);
    line!(o, "\t\t\tsubnet_timeout:\t\t{}", p.subnet_timeout);
    line!(o, "\t\t\tinit_type_reply:\t{}", p.init_type_reply);
    let w = p.active_width;
    line!(
        o,
        "\t\t\tactive_width:\t\t{}X ({})",
        width_str(w),
        w.as_raw()
    );
    // active_speed_ex when the kernel set it (XDR needs it), else the 8-bit field.
    let speed = match p.active_speed_ex {
        0 => u32::from(p.active_speed),
        ex => ex,
    };
    line!(
        o,
        "\t\t\tactive_speed:\t\t{} ({})",
        speed_str(speed),
        speed as i32
    );
    // rdma-core after 64.0 prints the effective speed (QUERY_PORT_SPEED, Linux 7.0) when
    // the method answers: `%.1f Gbps` of the 100 Mb/s units divided by 10.
    if let Some(e) = p.effective_speed {
        line!(o, "\t\t\teffective_speed:\t{:.1} Gbps", e.gbps());
    }
    if transport.as_raw() == 0 {
        let ps = p.phys_state.as_raw();
        line!(o, "\t\t\tphys_state:\t\t{} ({})", phys_state_str(ps), ps);
    }
}

fn gid_line(o: &mut String, g: &GidView, link_layer: LinkLayer) {
    let raw = g.entry.gid.0;
    // ibv_devinfo skips GIDs whose interface id (bytes 8..15) is zero.
    if raw[8..].iter().all(|&b| b == 0) {
        return;
    }
    // ibv_query_gid_type(): IB and RoCE v1 are "IB/RoCE v1", anything else "RoCE v2".
    let v2 = !matches!(g.entry.gid_type, GidType::Ib | GidType::RoceV1);
    let suffix = if link_layer.as_raw() == 2 {
        if v2 {
            ", RoCE v2"
        } else {
            ", RoCE v1"
        }
    } else {
        ""
    };
    let i = g.entry.index as i32;
    if v2 {
        line!(
            o,
            "\t\t\tGID[{i:3}]:\t\t{}{suffix}",
            crate::plumbing::format::inet_ntop6(&raw)
        );
    } else {
        let mut s = String::new();
        for (k, pair) in raw.chunks(2).enumerate() {
            if k > 0 {
                s.push(':');
            }
            let _ = write!(s, "{:02x}{:02x}", pair[0], pair[1]);
        }
        line!(o, "\t\t\tGID[{i:3}]:\t\t{s}{suffix}");
    }
}

fn port_block(o: &mut String, pr: &PortReport, verbose: bool, transport: TransportType) {
    port_lines(o, &pr.attr, pr.num, verbose, transport);
    if verbose {
        for g in &pr.gids {
            gid_line(o, g, pr.attr.link_layer);
        }
    }
}

/// The error line for a failure (with its newline).
pub fn failure_line(f: &Failure, name: &str, flavor: Flavor) -> String {
    let detail = |s: &str| match (flavor, f.error()) {
        (Flavor::Uverbs, Some(e)) => format!("{s}: {e}\n"),
        _ => format!("{s}\n"),
    };
    match f {
        Failure::Open(e) => match flavor {
            Flavor::Compat => "Failed to open device\n".to_string(),
            Flavor::Uverbs => format!("uverbs: {e}\n"),
        },
        Failure::QueryDevice(_) => detail("Failed to query device props"),
        Failure::BadPort { .. } => "Invalid port requested for device\n".to_string(),
        Failure::QueryPort(p, _) => detail(&format!("Failed to query port {p} props")),
        Failure::QueryGid(p, i, _) => detail(&format!(
            "Failed to query gid to port {p}, index {}",
            *i as i32
        )),
        Failure::QueryGidTable(_) => detail(&format!("Failed to query the GID table of {name}")),
    }
}

/// Renders one device as `ibv_devinfo` prints it: stdout text and stderr text. (The
/// command prints through [`render_hca_into`]; the golden tests and the printer's
/// differential test, which builds this file on its own, call this.)
#[cfg_attr(not(test), allow(dead_code))]
pub fn render_hca(r: &HcaReport, verbose: bool, flavor: Flavor) -> (String, String) {
    let (mut o, mut e) = (String::new(), String::new());
    render_hca_into(r, verbose, flavor, &mut o, &mut e);
    (o, e)
}

/// [`render_hca`], appended to `o` (stdout) and `e` (stderr): a caller that prints
/// many devices reuses its two buffers.
pub fn render_hca_into(
    r: &HcaReport,
    verbose: bool,
    flavor: Flavor,
    o: &mut String,
    e: &mut String,
) {
    let early = matches!(
        r.failure,
        Some(Failure::Open(_) | Failure::QueryDevice(_) | Failure::BadPort { .. })
    );
    let attr = match (&r.attr, early) {
        (Some(a), false) => a,
        _ => {
            if let Some(f) = &r.failure {
                e.push_str(&failure_line(f, &r.ident.name, flavor));
            }
            return;
        }
    };
    let transport = r.ident.transport;
    line!(o, "hca_id:\t{}", r.ident.name);
    line!(
        o,
        "\ttransport:\t\t\t{} ({})",
        transport_str(transport),
        transport.as_raw()
    );
    if !attr.fw_ver.is_empty() {
        line!(o, "\tfw_ver:\t\t\t\t{}", attr.fw_ver);
    }
    line!(o, "\tnode_guid:\t\t\t{}", guid_str(attr.node_guid.0));
    line!(
        o,
        "\tsys_image_guid:\t\t\t{}",
        guid_str(attr.sys_image_guid.0)
    );
    line!(o, "\tvendor_id:\t\t\t0x{:04x}", attr.vendor_id);
    line!(o, "\tvendor_part_id:\t\t\t{}", attr.vendor_part_id as i32);
    line!(o, "\thw_ver:\t\t\t\t0x{:X}", attr.hw_ver);
    if let Some(b) = &r.board_id {
        line!(o, "\tboard_id:\t\t\t{}", String::from_utf8_lossy(b));
    }
    line!(o, "\tphys_port_cnt:\t\t\t{}", attr.phys_port_cnt);
    if verbose {
        verbose_device(o, attr, r.num_comp_vectors);
    }
    for pr in &r.ports {
        port_block(o, pr, verbose, transport);
        if let Some(f @ Failure::QueryGid(p, _, _)) = &r.failure {
            if *p == pr.num {
                e.push_str(&failure_line(f, &r.ident.name, flavor));
                return;
            }
        }
        o.push('\n');
    }
    if let Some(f @ Failure::QueryPort(..)) = &r.failure {
        e.push_str(&failure_line(f, &r.ident.name, flavor));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dropin::devinfo_json::tests::rxe0_fixture;
    use uverbs::error::{Error, Op};

    fn einval(what: &'static str) -> Error {
        Error::InvalidArgument {
            op: Op::new(what, "rxe0"),
            errno: rustix::io::Errno::INVAL,
        }
    }

    #[test]
    fn unknown_device_cap_flags_ex_of_linux_6_12() {
        // rxe on 6.12 (observed): bits 38-40 (flush and atomic write) are unknown to
        // rdma-core 44.
        let mut r = rxe0_fixture();
        if let Some(a) = r.attr.as_mut() {
            a.device_cap_flags_ex =
                uverbs::types::DeviceCapFlags::from_bits_retain(0x1C0_0122_3C76);
        }
        let (out, _) = render_hca(&r, true, Flavor::Compat);
        assert!(out.contains(
            "\tdevice_cap_flags_ex:\t\t0x1C001223C76\n\t\t\t\t\tUnknown flags: 0x1C000000000\n\ttso_caps:"
        ));
    }

    #[test]
    fn lines_that_rdma_core_64_added() {
        // Synthetic values (soft devices have none of these): XDR in active_speed_ex, the
        // ODP flush and atomic-write bits, CC_DMA_BOUNCE. printer_diff.rs checks the same
        // against rdma-core 64.0's own devinfo.c.
        use uverbs::types::{DeviceCapFlags, OdpTransportCaps};
        let mut r = rxe0_fixture();
        if let Some(a) = r.attr.as_mut() {
            a.device_cap_flags_ex = DeviceCapFlags::from_bits_retain(1 << 41 | 1 << 40);
            a.odp_caps.rc_odp_caps = OdpTransportCaps::from_bits_retain(0x1c0);
        }
        r.ports[0].attr.active_speed = 128;
        r.ports[0].attr.active_speed_ex = 256;
        let (out, _) = render_hca(&r, true, Flavor::Compat);
        assert!(out.contains(
            "\trc_odp_caps:\n\t\t\t\t\tSUPPORT_FLUSH\n\t\t\t\t\tSUPPORT_ATOMIC_WRITE\n\t\t\t\t\tUnknown flags: 0x100\n\tuc_odp_caps:"
        ), "{out}");
        assert!(out.contains("\t\t\t\t\tCC_DMA_BOUNCE\n\t\t\t\t\tUnknown flags: 0x10000000000\n"));
        assert!(out.contains("\t\t\tactive_speed:\t\t200.0 Gbps (256)\n"));
        // Without active_speed_ex the 8-bit field is printed.
        r.ports[0].attr.active_speed_ex = 0;
        let (out, _) = render_hca(&r, true, Flavor::Compat);
        assert!(out.contains("\t\t\tactive_speed:\t\t100.0 Gbps (128)\n"));
    }

    #[test]
    fn effective_speed_line_where_rdma_core_prints_it() {
        // SYNTHETIC: no kernel here has QUERY_PORT_SPEED. rdma-core's line (after 64.0,
        // libibverbs/examples/devinfo.c): "\t\t\teffective_speed:\t%.1f Gbps\n" of
        // port_speed / 10.0, right after active_speed, only when the query succeeded.
        use uverbs::verbs::port::EffectiveSpeed;
        let mut r = rxe0_fixture();
        let (without, _) = render_hca(&r, true, Flavor::Compat);
        assert!(!without.contains("effective_speed"));
        for (units, text) in [
            (4000, "400.0"),
            (2000, "200.0"),
            (1, "0.1"),
            (25, "2.5"),
            (0, "0.0"),
        ] {
            r.ports[0].attr.effective_speed = Some(EffectiveSpeed(units));
            let (out, _) = render_hca(&r, true, Flavor::Compat);
            let want = format!(
                "\t\t\tactive_speed:\t\t2.5 Gbps (1)\n\t\t\teffective_speed:\t{text} Gbps\n\t\t\tphys_state:"
            );
            assert!(out.contains(&want), "{out}");
            // Not in the short form, which has no speed at all.
            let (short, _) = render_hca(&r, false, Flavor::Compat);
            assert!(!short.contains("effective_speed"));
        }
    }

    #[test]
    fn gid_failure_stops_inside_the_port() {
        let mut r = rxe0_fixture();
        r.failure = Some(Failure::QueryGid(1, 5, einval("QUERY_GID_ENTRY")));
        let (out, err) = render_hca(&r, true, Flavor::Compat);
        assert!(
            out.ends_with("GID[  1]:\t\t::ffff:169.254.1.1, RoCE v2\n"),
            "{out}"
        );
        assert_eq!(err, "Failed to query gid to port 1, index 5\n");
        assert_eq!(r.rc(), -1);
        let (_, err) = render_hca(&r, true, Flavor::Uverbs);
        assert!(err.starts_with("Failed to query gid to port 1, index 5: QUERY_GID_ENTRY on rxe0"));
    }

    #[test]
    fn early_failures() {
        let mut r = rxe0_fixture();
        r.failure = Some(Failure::BadPort {
            port: 2,
            port_count: 1,
        });
        assert_eq!(
            render_hca(&r, false, Flavor::Compat),
            (String::new(), "Invalid port requested for device\n".into())
        );
        assert_eq!(r.rc(), 4);
        r.failure = Some(Failure::QueryDevice(einval("QUERY_DEVICE")));
        assert_eq!(
            render_hca(&r, false, Flavor::Compat).1,
            "Failed to query device props\n"
        );
        assert_eq!(r.rc(), 2);
        r.attr = None;
        r.failure = Some(Failure::Open(Error::PermissionDenied {
            op: Op::new("open", "rxe0"),
            path: "/dev/infiniband/uverbs0".into(),
            hint: "run as root",
        }));
        assert_eq!(
            render_hca(&r, false, Flavor::Compat),
            (String::new(), "Failed to open device\n".into())
        );
        assert_eq!(
            render_hca(&r, false, Flavor::Uverbs).1,
            "uverbs: open on rxe0: permission denied opening /dev/infiniband/uverbs0: run as root\n"
        );
        assert_eq!(r.rc(), 1);
    }

    #[test]
    fn port_failure_after_the_ports_before_it() {
        let mut r = rxe0_fixture();
        r.failure = Some(Failure::QueryPort(2, einval("QUERY_PORT")));
        let (out, err) = render_hca(&r, false, Flavor::Compat);
        assert!(out.ends_with("link_layer:\t\tEthernet\n\n"));
        assert_eq!(err, "Failed to query port 2 props\n");
        assert_eq!(r.rc(), 22);
    }
}
