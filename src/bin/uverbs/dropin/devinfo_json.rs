//! The JSON documents of `uverbs devinfo --json` and `uverbs devices --json` (schema
//! version 1, docs/json-schema.md): devices, attributes, ports and GIDs, written with
//! the command's JSON writer ([`crate::plumbing::json`]).

use crate::dropin::report::{Failure, GidView, HcaReport, PortReport};
use crate::plumbing::json::{Writer, SCHEMA_VERSION};
use uverbs::types::Guid;
use uverbs::verbs::device_attr::DeviceAttr;
use uverbs::verbs::discover::DeviceInfo;
use uverbs::verbs::port::PortAttr;

// Every document is written member by member into one text ([`Writer`]), with no value
// tree in between: building one (an allocation per object, array and string, each
// freed at the end) cost as much as writing the text.

macro_rules! bitflags_json {
    ($w:expr, $v:expr) => {{
        let v = $v;
        $w.flags(
            u64::from(v.bits()),
            &mut v.iter_names().map(|(n, f)| (n, u64::from(f.bits()))),
        )
    }};
}

/// A GUID as its string (`cc9c:64ff:fe59:8cf6`, as [`Guid`]'s `Display` writes it),
/// formatted on the stack.
fn guid(w: &mut Writer, g: Guid) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut b = [b':'; 19];
    for k in 0..16 {
        b[k + k / 4] = HEX[((g.0 >> (60 - 4 * k)) & 0xf) as usize];
    }
    w.str(core::str::from_utf8(&b).unwrap_or_default());
}

/// The discovery part of a device (shared by `devices` and `devinfo`): its members,
/// written into the object `w` has open.
pub fn ident(w: &mut Writer, d: &DeviceInfo) {
    let nt = d.node_type;
    let tr = d.transport;
    w.key("name");
    w.str(&d.name);
    w.key("index");
    w.opt_u(d.index);
    w.key("node_type");
    w.enm(nt.c_name(), i64::from(nt.as_raw()));
    w.key("transport");
    w.enm(tr.c_name(), i64::from(tr.as_raw()));
    w.key("protocol");
    w.opt_str(d.protocol.as_deref());
    w.key("node_guid");
    guid(w, d.node_guid);
    w.key("sys_image_guid");
    match d.sys_image_guid {
        Some(g) => guid(w, g),
        None => w.null(),
    }
    w.key("fw_ver");
    w.str(&d.fw_ver);
    w.key("port_count");
    w.u(d.port_count);
    for (k, v) in [
        ("node_desc", &d.node_desc),
        ("board_id", &d.board_id),
        ("hca_type", &d.hca_type),
        ("hw_rev", &d.hw_rev),
        ("kernel_driver", &d.kernel_driver),
        ("parent", &d.parent),
    ] {
        w.key(k);
        w.opt_str(v.as_deref());
    }
    w.key("kernel_cap_flags");
    w.opt_u(d.cap_flags);
    w.key("driver_id");
    match d.driver_id {
        Some(id) => w.enm(uverbs::raw::driver::driver_c_name(id), i64::from(id)),
        None => w.null(),
    }
    w.key("uverbs");
    match &d.uverbs {
        Some(u) => {
            w.obj();
            w.key("name");
            w.str(&u.name);
            w.key("path");
            w.str(&u.path.to_string_lossy());
            w.key("major");
            w.u(u.major);
            w.key("minor");
            w.u(u.minor);
            w.key("abi_version");
            w.u(u.abi_version);
            w.end_obj();
        }
        None => w.null(),
    }
}

/// Every field of the device attributes, as one object.
pub fn device_attr(w: &mut Writer, a: &DeviceAttr) {
    let odp = &a.odp_caps;
    w.obj();
    w.key("fw_ver");
    w.str(a.fw_ver.as_str());
    w.key("node_guid");
    guid(w, a.node_guid);
    w.key("sys_image_guid");
    guid(w, a.sys_image_guid);
    w.members_u(&[
        ("max_mr_size", a.max_mr_size),
        ("page_size_cap", a.page_size_cap),
        ("vendor_id", a.vendor_id.into()),
        ("vendor_part_id", a.vendor_part_id.into()),
        ("hw_ver", a.hw_ver.into()),
        ("max_qp", a.max_qp.into()),
        ("max_qp_wr", a.max_qp_wr.into()),
    ]);
    w.key("device_cap_flags");
    bitflags_json!(w, a.device_cap_flags);
    w.members_u(&[
        ("max_sge", a.max_sge.into()),
        ("max_sge_rd", a.max_sge_rd.into()),
        ("max_cq", a.max_cq.into()),
        ("max_cqe", a.max_cqe.into()),
        ("max_mr", a.max_mr.into()),
        ("max_pd", a.max_pd.into()),
        ("max_qp_rd_atom", a.max_qp_rd_atom.into()),
        ("max_ee_rd_atom", a.max_ee_rd_atom.into()),
        ("max_res_rd_atom", a.max_res_rd_atom.into()),
        ("max_qp_init_rd_atom", a.max_qp_init_rd_atom.into()),
        ("max_ee_init_rd_atom", a.max_ee_init_rd_atom.into()),
    ]);
    w.key("atomic_cap");
    w.enm(a.atomic_cap.c_name(), i64::from(a.atomic_cap.as_raw()));
    w.members_u(&[
        ("max_ee", a.max_ee.into()),
        ("max_rdd", a.max_rdd.into()),
        ("max_mw", a.max_mw.into()),
        ("max_raw_ipv6_qp", a.max_raw_ipv6_qp.into()),
        ("max_raw_ethy_qp", a.max_raw_ethy_qp.into()),
        ("max_mcast_grp", a.max_mcast_grp.into()),
        ("max_mcast_qp_attach", a.max_mcast_qp_attach.into()),
        (
            "max_total_mcast_qp_attach",
            a.max_total_mcast_qp_attach.into(),
        ),
        ("max_ah", a.max_ah.into()),
        ("max_fmr", a.max_fmr.into()),
        ("max_map_per_fmr", a.max_map_per_fmr.into()),
        ("max_srq", a.max_srq.into()),
        ("max_srq_wr", a.max_srq_wr.into()),
        ("max_srq_sge", a.max_srq_sge.into()),
        ("max_pkeys", a.max_pkeys.into()),
        ("local_ca_ack_delay", a.local_ca_ack_delay.into()),
        ("phys_port_cnt", a.phys_port_cnt.into()),
        ("ex_response_length", a.ex_response_length.into()),
    ]);
    w.key("odp_caps");
    w.obj();
    w.key("general_caps");
    bitflags_json!(w, odp.general_caps);
    w.key("rc_odp_caps");
    bitflags_json!(w, odp.rc_odp_caps);
    w.key("uc_odp_caps");
    bitflags_json!(w, odp.uc_odp_caps);
    w.key("ud_odp_caps");
    bitflags_json!(w, odp.ud_odp_caps);
    w.key("xrc_odp_caps");
    bitflags_json!(w, a.xrc_odp_caps);
    w.end_obj();
    w.members_u(&[
        ("completion_timestamp_mask", a.completion_timestamp_mask),
        ("hca_core_clock_khz", a.hca_core_clock),
    ]);
    w.key("device_cap_flags_ex");
    bitflags_json!(w, a.device_cap_flags_ex);
    w.key("rss_caps");
    w.obj();
    w.members_u(&[
        ("supported_qpts", a.rss_caps.supported_qpts.into()),
        (
            "max_rwq_indirection_tables",
            a.rss_caps.max_rwq_indirection_tables.into(),
        ),
        (
            "max_rwq_indirection_table_size",
            a.rss_caps.max_rwq_indirection_table_size.into(),
        ),
    ]);
    w.end_obj();
    w.members_u(&[("max_wq_type_rq", a.max_wq_type_rq.into())]);
    w.key("raw_packet_caps");
    bitflags_json!(w, a.raw_packet_caps);
    w.key("tm_caps");
    w.obj();
    w.members_u(&[
        ("max_rndv_hdr_size", a.tm_caps.max_rndv_hdr_size.into()),
        ("max_num_tags", a.tm_caps.max_num_tags.into()),
        ("flags", a.tm_caps.flags.into()),
        ("max_ops", a.tm_caps.max_ops.into()),
        ("max_sge", a.tm_caps.max_sge.into()),
    ]);
    w.end_obj();
    w.key("cq_moderation_caps");
    w.obj();
    w.members_u(&[
        ("max_cq_count", a.cq_mod_caps.max_cq_count.into()),
        ("max_cq_period_us", a.cq_mod_caps.max_cq_period.into()),
    ]);
    w.end_obj();
    w.members_u(&[("max_dm_size", a.max_dm_size)]);
    w.end_obj();
}

/// A rate in tenths of Gb/s as a decimal number (`2.5`), or null.
fn decigbps(w: &mut Writer, v: Option<u32>) {
    match v {
        Some(d) => w.tenths(d.into()),
        None => w.null(),
    }
}

/// `{"name": ..., "value": ..., EXTRA: ...}`: an enum with one more member.
fn enm3(
    w: &mut Writer,
    name: Option<&'static str>,
    value: u64,
    extra: &'static str,
    x: impl FnOnce(&mut Writer),
) {
    w.obj();
    w.key("name");
    match name {
        Some(n) => w.name(n),
        None => w.null(),
    }
    w.key("value");
    w.u(value);
    w.key(extra);
    x(w);
    w.end_obj();
}

/// Every field of a port's attributes, plus its GIDs and P_Keys, as one object.
pub fn port(w: &mut Writer, p: &PortReport) {
    let a: &PortAttr = &p.attr;
    let mtu = |w: &mut Writer, m: uverbs::types::Mtu| {
        enm3(w, m.c_name(), m.as_raw().into(), "bytes", |w| {
            w.opt_u(m.bytes())
        });
    };
    let speed = a.speed();
    w.obj();
    w.key("port");
    w.u(p.num);
    w.key("state");
    w.enm(a.state.c_name(), i64::from(a.state.as_raw()));
    w.key("max_mtu");
    mtu(w, a.max_mtu);
    w.key("active_mtu");
    mtu(w, a.active_mtu);
    w.key("gid_tbl_len");
    w.u(a.gid_tbl_len);
    w.key("port_cap_flags");
    bitflags_json!(w, a.port_cap_flags);
    w.members_u(&[
        ("max_msg_sz", a.max_msg_sz.into()),
        ("bad_pkey_cntr", a.bad_pkey_cntr.into()),
        ("qkey_viol_cntr", a.qkey_viol_cntr.into()),
        ("pkey_tbl_len", a.pkey_tbl_len.into()),
        ("lid", a.lid.into()),
        ("sm_lid", a.sm_lid.into()),
        ("lmc", a.lmc.into()),
    ]);
    w.key("max_vl_num");
    w.obj();
    w.key("value");
    w.u(a.max_vl_num);
    w.key("vls");
    w.opt_u(a.max_vls());
    w.end_obj();
    w.members_u(&[
        ("sm_sl", a.sm_sl.into()),
        ("subnet_timeout", a.subnet_timeout.into()),
        ("init_type_reply", a.init_type_reply.into()),
    ]);
    w.key("active_width");
    let aw = a.active_width;
    enm3(w, aw.c_name(), aw.as_raw().into(), "lanes", |w| {
        w.opt_u(aw.lanes())
    });
    w.members_u(&[
        ("active_speed", a.active_speed.into()),
        ("active_speed_ex", a.active_speed_ex.into()),
    ]);
    w.key("speed");
    enm3(w, speed.c_name(), speed.as_raw().into(), "lane_gbps", |w| {
        decigbps(w, speed.lane_rate_decigbps())
    });
    w.key("rate_gbps");
    decigbps(w, a.rate_decigbps());
    w.key("phys_state");
    w.enm(a.phys_state.c_name(), i64::from(a.phys_state.as_raw()));
    w.key("link_layer");
    w.enm(a.link_layer.c_name(), i64::from(a.link_layer.as_raw()));
    w.key("flags");
    bitflags_json!(w, a.flags);
    w.key("port_cap_flags2");
    bitflags_json!(w, a.port_cap_flags2);
    w.key("gids");
    w.arr();
    for g in &p.gids {
        w.elem();
        gid(w, g);
    }
    w.end_arr();
    w.key("pkeys");
    match &p.pkeys {
        Some(v) => {
            w.arr();
            for &k in v {
                w.elem();
                w.u(k);
            }
            w.end_arr();
        }
        None => w.null(),
    }
    w.end_obj();
}

/// One GID table entry, as one object.
pub fn gid(w: &mut Writer, g: &GidView) {
    let e = &g.entry;
    w.obj();
    w.key("index");
    w.u(e.index);
    w.key("gid");
    w.str(&e.gid.to_string());
    w.key("address");
    w.str(&crate::plumbing::format::inet_ntop6(&e.gid.0));
    w.key("type");
    w.enm(e.gid_type.c_name(), i64::from(e.gid_type.as_raw()));
    w.key("netdev");
    w.opt_str(g.netdev.as_deref());
    w.key("netdev_ifindex");
    w.u(e.netdev_ifindex);
    w.end_obj();
}

/// The JSON error object of a failure.
pub fn failure(w: &mut Writer, f: &Failure) {
    let e = f.error();
    let message = match (f, e) {
        (Failure::BadPort { port, port_count }, _) => {
            format!("port {port} requested, the device has {port_count} port(s)")
        }
        (_, Some(e)) => e.to_string(),
        (_, None) => String::new(),
    };
    w.obj();
    w.key("stage");
    w.str(f.stage());
    w.key("errno");
    match e.and_then(|e| e.errno()) {
        Some(n) => w.i(n.raw_os_error()),
        None => w.null(),
    }
    w.key("message");
    w.str(&message);
    w.end_obj();
}

/// The members every document starts with.
fn head(w: &mut Writer) {
    w.key("schema_version");
    w.u(SCHEMA_VERSION);
    w.key("generator");
    w.str(crate::plumbing::json::GENERATOR);
}

/// One device of `devinfo --json`.
fn hca(w: &mut Writer, r: &HcaReport) {
    w.obj();
    ident(w, &r.ident);
    w.key("attributes");
    match &r.attr {
        Some(a) => device_attr(w, a),
        None => w.null(),
    }
    w.key("num_comp_vectors");
    w.u(r.num_comp_vectors);
    w.key("ports");
    w.arr();
    for p in &r.ports {
        w.elem();
        port(w, p);
    }
    w.end_arr();
    w.key("error");
    match &r.failure {
        Some(f) => failure(w, f),
        None => w.null(),
    }
    w.end_obj();
}

/// The whole `devinfo --json` document.
pub fn devinfo_doc(reports: &[HcaReport]) -> String {
    // About 7 KiB a device with its attributes, one port and two GIDs (so that the text
    // is not copied as it grows), and 256 bytes a GID more.
    let gids: usize = reports
        .iter()
        .flat_map(|r| &r.ports)
        .map(|p| p.gids.len())
        .sum();
    let mut w = Writer::with_capacity(7168 * reports.len() + 256 * gids + 256);
    w.obj();
    head(&mut w);
    w.key("devices");
    w.arr();
    for r in reports {
        w.elem();
        hca(&mut w, r);
    }
    w.end_arr();
    w.end_obj();
    w.finish()
}

/// The whole `devices --json` document.
pub fn devices_doc(devs: &[DeviceInfo]) -> String {
    // Under 1 KiB a device.
    let mut w = Writer::with_capacity(1024 * devs.len() + 256);
    w.obj();
    head(&mut w);
    w.key("devices");
    w.arr();
    for d in devs {
        w.elem();
        w.obj();
        ident(&mut w, d);
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
    w.finish()
}

#[cfg(test)]
pub mod tests {
    //! The golden tests: an rxe device whose every number was observed on a real kernel.
    //! The values below were copied from one run in the reference VM
    //! (`rdma-vm.sh --kernel 6.1`: Debian 6.1.0-56, rxe0 on the dummy netdev rnet0,
    //! ifindex 2, 169.254.1.1/24), where `ibv_devinfo -v -d rxe0` printed
    //! tests/golden/devinfo-rxe0-v.txt and `uverbs devinfo --json -d rxe0` printed
    //! tests/golden/devinfo-rxe0.json. Nothing here is made up; the renderers must
    //! reproduce both files from these values.
    use super::*;
    use crate::plumbing::json::J;
    use uverbs::types::FwVersion;
    use uverbs::types::*;
    use uverbs::types::{Gid, GidEntry};
    use uverbs::verbs::device_attr::DeviceAttr;
    use uverbs::verbs::discover::UverbsDev;

    pub fn rxe0_fixture() -> HcaReport {
        let guid = Guid(0xcc9c_64ff_fe59_8cf6);
        let mut ident = DeviceInfo::new("rxe0", NodeType::Ca);
        ident.index = Some(0);
        ident.node_guid = guid;
        ident.sys_image_guid = Some(guid);
        ident.port_count = 1;
        ident.uverbs = Some(UverbsDev {
            name: "uverbs0".into(),
            path: "/dev/infiniband/uverbs0".into(),
            major: 231,
            minor: 192,
            abi_version: 2,
        });
        ident.driver_id = Some(14);
        ident.protocol = Some("roce".into());
        ident.cap_flags = Some(0x0122_3c76);
        ident.node_desc = Some("rxe".into());
        ident.parent = Some("rnet0".into());

        let mut a = DeviceAttr::default();
        a.fw_ver = FwVersion::new("0.0.0");
        a.node_guid = guid;
        a.sys_image_guid = guid;
        a.max_mr_size = u64::MAX;
        a.page_size_cap = 0xffff_f000;
        a.vendor_id = 0xffffff;
        a.max_qp = 1_048_560;
        a.max_qp_wr = 1_048_576;
        a.device_cap_flags = DeviceCapFlags::from_bits_retain(0x0122_3c76);
        a.max_sge = 32;
        a.max_sge_rd = 32;
        a.max_cq = 1_048_576;
        a.max_cqe = 32767;
        a.max_mr = 524_287;
        a.max_pd = 1_048_576;
        a.max_qp_rd_atom = 128;
        a.max_res_rd_atom = 258_048;
        a.max_qp_init_rd_atom = 128;
        a.atomic_cap = AtomicCap::Hca;
        a.max_mw = 524_287;
        a.max_mcast_grp = 8192;
        a.max_mcast_qp_attach = 56;
        a.max_total_mcast_qp_attach = 458_752;
        a.max_ah = 32767;
        a.max_srq = 917_503;
        a.max_srq_wr = 1_048_576;
        a.max_srq_sge = 27;
        a.max_pkeys = 64;
        a.local_ca_ack_delay = 15;
        a.phys_port_cnt = 1;
        a.ex_response_length = 304;
        a.device_cap_flags_ex = DeviceCapFlags::from_bits_retain(0x0122_3c76);
        // Every other field: 0, as rxe reports it.

        let mut p = PortAttr::default();
        p.state = PortState::Active;
        p.max_mtu = Mtu::Mtu4096;
        p.active_mtu = Mtu::Mtu1024;
        p.gid_tbl_len = 1024;
        p.port_cap_flags = PortCapFlags::from_bits_retain(0x0001_0000);
        p.max_msg_sz = 0x80_0000;
        p.pkey_tbl_len = 1;
        p.max_vl_num = 1;
        p.active_width = Width::X1;
        p.active_speed = 1;
        p.phys_state = PhysState::LinkUp;
        p.link_layer = LinkLayer::Ethernet;
        p.flags = PortFlags::from_bits_retain(1);
        // Counters, LIDs, SM fields, port_cap_flags2, active_speed_ex: 0.

        let g = |index: u32, text: &str| {
            let mut entry = GidEntry::new(
                1,
                index,
                Gid(text.parse::<std::net::Ipv6Addr>().unwrap().octets()),
            );
            entry.gid_type = GidType::RoceV2;
            entry.netdev_ifindex = 2;
            GidView {
                entry,
                netdev: Some("rnet0".into()),
            }
        };
        HcaReport {
            ident,
            board_id: None,
            attr: Some(a),
            num_comp_vectors: 1,
            driver_id: Some(14),
            ports: vec![PortReport {
                num: 1,
                attr: p,
                gids: vec![
                    g(0, "fe80::cc9c:64ff:fe59:8cf6"),
                    g(1, "::ffff:169.254.1.1"),
                ],
                pkeys: Some(vec![0xffff]),
            }],
            failure: None,
        }
    }

    const GOLDEN: &str = "tests/golden/devinfo-rxe0.json";

    /// The renderer reproduces the reviewed file: this detects a change of the output.
    /// That the file itself is right (its members and types as docs/json-schema.md says,
    /// its values those rdma-core printed in the same boot) is tests/json_schema.rs's.
    #[test]
    fn golden_rxe0() {
        let got = devinfo_doc(&[rxe0_fixture()]);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if std::env::var_os("UVERBS_BLESS").is_some() && got != want {
            // Rewriting the file is not a pass: the run that blesses fails, and the
            // next one compares against the reviewed file.
            std::fs::write(&path, &got).unwrap();
            panic!("{GOLDEN} rewritten (UVERBS_BLESS): review the diff, then run again");
        }
        assert!(
            got == want,
            "JSON differs from {GOLDEN} (UVERBS_BLESS=1 rewrites it):\n{got}"
        );
    }

    #[test]
    fn golden_rxe0_text() {
        let want = include_str!("../../../../tests/golden/devinfo-rxe0-v.txt");
        let (out, err) = crate::dropin::text::render_hca(
            &rxe0_fixture(),
            true,
            crate::dropin::text::Flavor::Compat,
        );
        assert_eq!(err, "");
        assert!(out == want, "text differs from the golden file:\n{out}");
    }

    /// A device whose port was refused: the error object, as the value type wrote it.
    #[test]
    fn failure_object() {
        let mut r = rxe0_fixture();
        r.failure = Some(Failure::BadPort {
            port: 3,
            port_count: 1,
        });
        let doc = devinfo_doc(&[r]);
        let want = J::Obj(vec![
            ("stage", J::s("port")),
            ("errno", J::Null),
            (
                "message",
                J::s("port 3 requested, the device has 1 port(s)"),
            ),
        ])
        .pretty();
        // the same object, three levels in (document, devices, device)
        let want = want.trim_end().replace('\n', "\n      ");
        assert!(doc.contains(&format!("\"error\": {want}\n    }}")), "{doc}");
    }

    #[test]
    fn escaping() {
        let v = J::Obj(vec![("k", J::s("a\"b\\c\n\u{1}é"))]);
        assert_eq!(v.pretty(), "{\n  \"k\": \"a\\\"b\\\\c\\n\\u0001é\"\n}\n");
        assert_eq!(J::Arr(vec![]).pretty(), "[]\n");
        let v = J::Obj(vec![
            ("a", J::Arr(vec![J::u(1u64), J::Null, J::s("x y")])),
            ("b", J::Obj(vec![])),
        ]);
        assert_eq!(v.compact(), r#"{"a":[1,null,"x y"],"b":{}}"#);
    }
}
