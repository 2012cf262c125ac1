//! Helpers shared by the integration tests: the VM rig's device list and oracle, the
//! oracle's key contract, and the hex of captured kernel answers.
//!
//! Such tests are `#[ignore]`d with the reason, so that on a machine without RDMA devices
//! they show as ignored, never as passed; the rig runs them with `--include-ignored` and
//! sets `UVERBS_TEST_DEVICES`. Run by hand without it, they fail and say why.
#![allow(dead_code)]

pub mod json;
pub mod scratch;
pub mod selftest;
pub mod strict;

use std::collections::BTreeMap;

use std::process::Command;

use uverbs::{Context, DeviceAttr, GidEntry, PortAttr};

/// The `uverbs` binary: `UVERBS_BIN` (the VM rig's static build), else this build's.
///
/// Cargo builds the binary before any integration test, and the VM rig always sets
/// `UVERBS_BIN`: a missing file is a failure, never a skip.
pub fn uverbs_bin() -> std::path::PathBuf {
    let bin = std::env::var_os("UVERBS_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_uverbs")));
    assert!(
        bin.exists(),
        "the uverbs binary {} is missing",
        bin.display()
    );
    bin
}

/// Starts `uverbs exporter --listen 127.0.0.1:0 ARGS` and reads the address it bound
/// from its first line on stderr. The rest of stderr goes to `line`, a line at a time,
/// on a thread of its own (so that the exporter never blocks writing it).
pub fn start_exporter<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    mut line: impl FnMut(&str) + Send + 'static,
) -> (std::process::Child, std::net::SocketAddr) {
    use std::io::BufRead;
    let mut child = Command::new(uverbs_bin())
        .args(["exporter", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start uverbs exporter");
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|r| r.split("/metrics").next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    std::thread::spawn(move || {
        let mut rest = String::new();
        while err.read_line(&mut rest).is_ok_and(|n| n > 0) {
            line(&rest);
            rest.clear();
        }
    });
    (child, addr)
}

/// Asserts that the siw module is loaded: the VM rig always loads it (and makes `siw0`),
/// so a test's siw half that finds no module is a broken rig, not a skip.
pub fn require_siw() {
    assert!(
        std::path::Path::new("/sys/module/siw").exists(),
        "the siw module is not loaded: the VM rig always loads it ({})",
        kernel()
    );
}

/// The reason given to `#[ignore]` on every device test.
pub const NEEDS_DEVICES: &str =
    "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig";

/// The devices the rig created (env `UVERBS_TEST_DEVICES`, comma separated).
pub fn devices() -> Vec<String> {
    let v = std::env::var("UVERBS_TEST_DEVICES").unwrap_or_default();
    let list: Vec<String> = v
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    assert!(
        !list.is_empty(),
        "UVERBS_TEST_DEVICES is not set: this test needs real RDMA devices; \
         run it in the VM rig (tests/vm/run-tests.sh)"
    );
    list
}

/// The first device of [`devices`] whose name starts with `kind` (`rxe`, `siw`).
pub fn device(kind: &str) -> String {
    devices()
        .into_iter()
        .find(|d| d.starts_with(kind))
        .unwrap_or_else(|| panic!("a {kind} device in UVERBS_TEST_DEVICES"))
}

/// The kernel series the rig booted (`6.1`, `6.12`), for messages.
pub fn kernel() -> String {
    std::env::var("UVERBS_VM_KERNEL").unwrap_or_else(|_| "host".into())
}

/// Keys the oracle prints that the kernel does not report: rdma-core fills them from
/// provider data (mlx5's driver response) or its own tables. For rxe and siw they must
/// be 0 there, which the test checks.
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

/// Keys the crate reports that rdma-core 44 (Debian bookworm) has no field for; the
/// oracle built against rdma-core 64.0 prints them (`UVERBS_ORACLE_64`).
pub const NEWER_THAN_RDMA_CORE_44: &[&str] = &["active_speed_ex", "effective_speed"];

/// Bytes from hex text (two digits per byte, surrounding white space ignored), as the
/// captures in tests/fixtures store kernel answers.
pub fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Lowercase hex text of bytes (the inverse of [`unhex`]).
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// The message of a caught panic's payload.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".into()
    }
}

/// Parses `key=value` lines.
pub fn parse_lines(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The oracle's `dev.*` and `ex.*` keys from the crate's device attributes.
pub fn device_lines(d: &DeviceAttr, m: &mut BTreeMap<String, String>) {
    let mut put = |k: &str, v: String| {
        m.insert(k.to_string(), v);
    };
    put("dev.fw_ver", d.fw_ver.to_string());
    put("dev.node_guid", format!("0x{:016x}", d.node_guid.0));
    put(
        "dev.sys_image_guid",
        format!("0x{:016x}", d.sys_image_guid.0),
    );
    put("dev.max_mr_size", d.max_mr_size.to_string());
    put("dev.page_size_cap", d.page_size_cap.to_string());
    put("dev.vendor_id", d.vendor_id.to_string());
    put("dev.vendor_part_id", d.vendor_part_id.to_string());
    put("dev.hw_ver", d.hw_ver.to_string());
    // libibverbs' fields are C ints: print the u32 the kernel sent as a signed int.
    let i = |v: u32| (v as i32).to_string();
    put("dev.max_qp", i(d.max_qp));
    put("dev.max_qp_wr", i(d.max_qp_wr));
    put(
        "dev.device_cap_flags",
        (d.device_cap_flags.bits() as u32).to_string(),
    );
    put("dev.max_sge", i(d.max_sge));
    put("dev.max_sge_rd", i(d.max_sge_rd));
    put("dev.max_cq", i(d.max_cq));
    put("dev.max_cqe", i(d.max_cqe));
    put("dev.max_mr", i(d.max_mr));
    put("dev.max_pd", i(d.max_pd));
    put("dev.max_qp_rd_atom", i(d.max_qp_rd_atom));
    put("dev.max_ee_rd_atom", i(d.max_ee_rd_atom));
    put("dev.max_res_rd_atom", i(d.max_res_rd_atom));
    put("dev.max_qp_init_rd_atom", i(d.max_qp_init_rd_atom));
    put("dev.max_ee_init_rd_atom", i(d.max_ee_init_rd_atom));
    put("dev.atomic_cap", i(d.atomic_cap.as_raw()));
    put("dev.max_ee", i(d.max_ee));
    put("dev.max_rdd", i(d.max_rdd));
    put("dev.max_mw", i(d.max_mw));
    put("dev.max_raw_ipv6_qp", i(d.max_raw_ipv6_qp));
    put("dev.max_raw_ethy_qp", i(d.max_raw_ethy_qp));
    put("dev.max_mcast_grp", i(d.max_mcast_grp));
    put("dev.max_mcast_qp_attach", i(d.max_mcast_qp_attach));
    put(
        "dev.max_total_mcast_qp_attach",
        i(d.max_total_mcast_qp_attach),
    );
    put("dev.max_ah", i(d.max_ah));
    put("dev.max_fmr", i(d.max_fmr));
    put("dev.max_map_per_fmr", i(d.max_map_per_fmr));
    put("dev.max_srq", i(d.max_srq));
    put("dev.max_srq_wr", i(d.max_srq_wr));
    put("dev.max_srq_sge", i(d.max_srq_sge));
    put("dev.max_pkeys", d.max_pkeys.to_string());
    put("dev.local_ca_ack_delay", d.local_ca_ack_delay.to_string());
    put("dev.phys_port_cnt", d.phys_port_cnt.to_string());
    put(
        "ex.odp_caps.general_caps",
        d.odp_caps.general_caps.bits().to_string(),
    );
    put(
        "ex.odp_caps.rc_odp_caps",
        d.odp_caps.rc_odp_caps.bits().to_string(),
    );
    put(
        "ex.odp_caps.uc_odp_caps",
        d.odp_caps.uc_odp_caps.bits().to_string(),
    );
    put(
        "ex.odp_caps.ud_odp_caps",
        d.odp_caps.ud_odp_caps.bits().to_string(),
    );
    put(
        "ex.completion_timestamp_mask",
        d.completion_timestamp_mask.to_string(),
    );
    put("ex.hca_core_clock", d.hca_core_clock.to_string());
    put(
        "ex.device_cap_flags_ex",
        d.device_cap_flags_ex.bits().to_string(),
    );
    put(
        "ex.rss_caps.supported_qpts",
        d.rss_caps.supported_qpts.to_string(),
    );
    put(
        "ex.rss_caps.max_rwq_indirection_tables",
        d.rss_caps.max_rwq_indirection_tables.to_string(),
    );
    put(
        "ex.rss_caps.max_rwq_indirection_table_size",
        d.rss_caps.max_rwq_indirection_table_size.to_string(),
    );
    put("ex.max_wq_type_rq", d.max_wq_type_rq.to_string());
    put("ex.raw_packet_caps", d.raw_packet_caps.bits().to_string());
    put(
        "ex.tm_caps.max_rndv_hdr_size",
        d.tm_caps.max_rndv_hdr_size.to_string(),
    );
    put(
        "ex.tm_caps.max_num_tags",
        d.tm_caps.max_num_tags.to_string(),
    );
    put("ex.tm_caps.flags", d.tm_caps.flags.to_string());
    put("ex.tm_caps.max_ops", d.tm_caps.max_ops.to_string());
    put("ex.tm_caps.max_sge", d.tm_caps.max_sge.to_string());
    put(
        "ex.cq_mod_caps.max_cq_count",
        d.cq_mod_caps.max_cq_count.to_string(),
    );
    put(
        "ex.cq_mod_caps.max_cq_period",
        d.cq_mod_caps.max_cq_period.to_string(),
    );
    put("ex.max_dm_size", d.max_dm_size.to_string());
    put("ex.xrc_odp_caps", d.xrc_odp_caps.bits().to_string());
}

/// The oracle's `port.N.*` keys from the crate's port attributes.
pub fn port_lines(n: u32, p: &PortAttr, m: &mut BTreeMap<String, String>) {
    let mut put = |k: &str, v: String| {
        m.insert(format!("port.{n}.{k}"), v);
    };
    put("state", p.state.as_raw().to_string());
    put("max_mtu", p.max_mtu.as_raw().to_string());
    put("active_mtu", p.active_mtu.as_raw().to_string());
    put("gid_tbl_len", (p.gid_tbl_len as i32).to_string());
    put("port_cap_flags", p.port_cap_flags.bits().to_string());
    put("max_msg_sz", p.max_msg_sz.to_string());
    put("bad_pkey_cntr", p.bad_pkey_cntr.to_string());
    put("qkey_viol_cntr", p.qkey_viol_cntr.to_string());
    put("pkey_tbl_len", p.pkey_tbl_len.to_string());
    put("lid", p.lid.to_string());
    put("sm_lid", p.sm_lid.to_string());
    put("lmc", p.lmc.to_string());
    put("max_vl_num", p.max_vl_num.to_string());
    put("sm_sl", p.sm_sl.to_string());
    put("subnet_timeout", p.subnet_timeout.to_string());
    put("init_type_reply", p.init_type_reply.to_string());
    put("active_width", p.active_width.as_raw().to_string());
    put("active_speed", p.active_speed.to_string());
    put("phys_state", p.phys_state.as_raw().to_string());
    put("link_layer", p.link_layer.as_raw().to_string());
    put("flags", p.flags.bits().to_string());
    put("port_cap_flags2", p.port_cap_flags2.bits().to_string());
    put("active_speed_ex", p.active_speed_ex.to_string());
}

/// The oracle's `gid.P.I.*` keys from GID entries.
pub fn gid_lines(gids: &[GidEntry], m: &mut BTreeMap<String, String>) {
    for g in gids {
        let k = format!("gid.{}.{}", g.port, g.index);
        let hex: String = g.gid.0.iter().map(|b| format!("{b:02x}")).collect();
        m.insert(format!("{k}.gid"), hex);
        m.insert(format!("{k}.type"), g.gid_type.as_raw().to_string());
        m.insert(format!("{k}.ndev_ifindex"), g.netdev_ifindex.to_string());
    }
}

/// Values that move between two reads (counters) are compared loosely.
pub fn is_counter(k: &str) -> bool {
    k.ends_with(".bad_pkey_cntr") || k.ends_with(".qkey_viol_cntr")
}

/// Asserts that every key of the oracle's answer equals the crate's (with the
/// documented exceptions), and that the crate reports nothing the oracle lacks.
pub fn compare(dev: &str, ours: &BTreeMap<String, String>, theirs: &BTreeMap<String, String>) {
    compare_with(dev, "libibverbs", ours, theirs, NEWER_THAN_RDMA_CORE_44)
}

/// [`compare`] against the oracle `who` (`libibverbs 64.0`...), where the crate may
/// report the fields named in `newer` that the oracle's libibverbs has no field for.
pub fn compare_with(
    dev: &str,
    who: &str,
    ours: &BTreeMap<String, String>,
    theirs: &BTreeMap<String, String>,
    newer: &[&str],
) {
    // Two empty answers are equal and prove nothing: the oracle must have said something.
    assert!(!theirs.is_empty(), "{dev}: {who} answered nothing");
    assert!(!ours.is_empty(), "{dev}: uverbs answered nothing");
    let mut diffs = Vec::new();
    for (k, v) in theirs {
        match ours.get(k) {
            Some(o) if o == v || is_counter(k) => {}
            Some(o) => diffs.push(format!("{k}: uverbs {o}, {who} {v}")),
            None if PROVIDER_ONLY.contains(&k.as_str()) => {
                assert_eq!(v, "0", "{dev}: provider-only {k} is non-zero in {who}")
            }
            None => diffs.push(format!("{k}: missing in uverbs ({who} {v})")),
        }
    }
    for k in ours.keys() {
        let field = k.rsplit('.').next().unwrap_or(k);
        if !theirs.contains_key(k) && !newer.contains(&field) {
            diffs.push(format!(
                "{k}: reported by uverbs ({}), absent in {who}",
                ours[k]
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "{dev} on kernel {}: {} difference(s) with {who}:\n  {}",
        kernel(),
        diffs.len(),
        diffs.join("\n  ")
    );
    println!(
        "{dev} (kernel {}): {} attributes equal {who}'s",
        kernel(),
        theirs.len()
    );
}

/// Runs the libibverbs oracle (`UVERBS_ORACLE`) on a device and parses its lines.
pub fn oracle(dev: &str) -> BTreeMap<String, String> {
    let bin = std::env::var("UVERBS_ORACLE").expect("UVERBS_ORACLE names the oracle binary");
    oracle_at(&bin, dev)
}

/// The oracle built against rdma-core 64.0 (`UVERBS_ORACLE_64`, which the rig provides).
pub fn oracle_64(dev: &str) -> BTreeMap<String, String> {
    let bin = std::env::var("UVERBS_ORACLE_64").expect(
        "UVERBS_ORACLE_64 names the oracle built against rdma-core 64.0: tests/vm/run-tests.sh \
         builds it when tests/vm/rdma-core.sh can build rdma-core 64.0 (see its notes)",
    );
    oracle_at(&bin, dev)
}

/// Runs an oracle binary on a device and parses its lines.
pub fn oracle_at(bin: &str, dev: &str) -> BTreeMap<String, String> {
    let out = Command::new(bin)
        .arg(dev)
        .output()
        .unwrap_or_else(|e| panic!("running {bin}: {e}"));
    assert!(
        out.status.success(),
        "oracle {dev} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_lines(&String::from_utf8_lossy(&out.stdout))
}

/// The oracle's keys from the crate's answers on an open context.
pub fn our_lines(ctx: &Context) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let d = ctx.query_device().expect("query_device");
    device_lines(&d, &mut m);
    m.insert("ex.phys_port_cnt_ex".into(), ctx.port_count().to_string());
    m.insert(
        "ctx.num_comp_vectors".into(),
        ctx.num_comp_vectors().to_string(),
    );
    let mut total = 0usize;
    for n in 1..=u32::from(ctx.port_count()) {
        let p = ctx.query_port(n).expect("query_port");
        total += p.gid_tbl_len as usize;
        port_lines(n, &p, &mut m);
        // ibv_query_port_speed() as the rdma-core 64.0 oracle prints it.
        let speed = match ctx.query_port_speed(n) {
            Ok(s) => s.units_100mbps().to_string(),
            Err(uverbs::Error::NotSupported { .. }) => "unsupported".into(),
            Err(e) => format!("error:{}", e.errno().map_or(0, |e| e.raw_os_error())),
        };
        m.insert(format!("port.{n}.effective_speed"), speed);
        for (i, pkey) in ctx.query_pkeys(n).expect("P_Keys").iter().enumerate() {
            m.insert(format!("pkey.{n}.{i}"), format!("0x{pkey:04x}"));
        }
    }
    gid_lines(&ctx.query_gid_table(total).expect("GID table"), &mut m);
    m
}

/// One `GET PATH` on a new connection to `addr` (connect within 5 s, the answer within
/// `read_timeout`): the body of a 200 answer, `None` for anything else.
pub fn http_get(
    addr: std::net::SocketAddr,
    path: &str,
    read_timeout: std::time::Duration,
) -> Option<String> {
    use std::io::{Read, Write};
    let mut s =
        std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5)).ok()?;
    s.set_read_timeout(Some(read_timeout)).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_owned())
}

/// Whether `fd` polls readable within `secs` seconds (0: now), by `poll(2)`.
pub fn readable_within(fd: std::os::fd::BorrowedFd<'_>, secs: i64) -> bool {
    let mut fds = [rustix::event::PollFd::new(
        &fd,
        rustix::event::PollFlags::IN,
    )];
    let t = rustix::event::Timespec {
        tv_sec: secs,
        tv_nsec: 0,
    };
    rustix::event::poll(&mut fds, Some(&t)).expect("poll") == 1
}
