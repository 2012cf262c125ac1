//! Benchmarks without a device: what the crate adds around a system call, in ns per op.
//!
//! - building the ioctl attribute array (QUERY_PORT, INVOKE_WRITE of the extended
//!   QUERY_DEVICE, QUERY_GID_ENTRY);
//! - decoding the kernel's answers (`PortAttr::from_resp_bytes`,
//!   `DeviceAttr::from_ex_bytes`, `GidEntry::from_raw`).
//!
//! Run with `cargo bench --bench decode`. The inputs are realistic answers (an rxe port
//! and device as Linux 6.1 reports them), filled in by hand.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use uverbs::raw::abi::*;
use uverbs::raw::method;
use uverbs::types::FwVersion;
use uverbs::{DeviceAttr, GidEntry, PortAttr};
use zerocopy::IntoBytes;

/// An rxe port as QUERY_PORT answers it (extended, 48 bytes).
fn port_resp() -> ib_uverbs_query_port_resp_ex {
    let mut r = ib_uverbs_query_port_resp_ex::default();
    let l = &mut r.legacy_resp;
    l.port_cap_flags = 0x0007_0500;
    l.max_msg_sz = 0x0080_0000;
    l.gid_tbl_len = 1024;
    l.pkey_tbl_len = 64;
    l.state = 4; // ACTIVE
    l.max_mtu = 5; // 4096
    l.active_mtu = 3; // 1024
    l.max_vl_num = 1;
    l.active_width = 1;
    l.active_speed = 1;
    l.phys_state = 5; // LINK_UP
    l.link_layer = 2; // Ethernet
    r.port_cap_flags2 = 0;
    r
}

/// An rxe device as the extended QUERY_DEVICE answers it.
fn device_resp() -> ib_uverbs_ex_query_device_resp {
    let mut r = ib_uverbs_ex_query_device_resp::default();
    let b = &mut r.base;
    b.fw_ver = 0;
    b.node_guid = 0x0200_00ff_fe00_0000u64.to_be();
    b.sys_image_guid = b.node_guid;
    b.max_mr_size = u64::MAX;
    b.page_size_cap = 0xffff_f000;
    b.vendor_id = 0xffffff;
    b.max_qp = 0x10000;
    b.max_qp_wr = 0x4000;
    b.device_cap_flags = 0x2102_7c76;
    b.max_sge = 32;
    b.max_sge_rd = 32;
    b.max_cq = 0x4000;
    b.max_cqe = 0x8000;
    b.max_mr = 0x40000;
    b.max_pd = 0x8000;
    b.max_qp_rd_atom = 128;
    b.max_res_rd_atom = 0x10000;
    b.max_qp_init_rd_atom = 128;
    b.atomic_cap = 1;
    b.max_mw = 0x10000;
    b.max_mcast_grp = 8192;
    b.max_mcast_qp_attach = 56;
    b.max_total_mcast_qp_attach = 0x70000;
    b.max_ah = 0x8000;
    b.max_srq = 0x40000;
    b.max_srq_wr = 0x4000;
    b.max_srq_sge = 27;
    b.max_pkeys = 64;
    b.local_ca_ack_delay = 15;
    b.phys_port_cnt = 1;
    r.response_length = core::mem::size_of::<ib_uverbs_ex_query_device_resp>() as u32;
    r.device_cap_flags_ex = 0x2102_7c76;
    r
}

fn gid_entry() -> ib_uverbs_gid_entry {
    let mut e = ib_uverbs_gid_entry::default();
    let gid: [u8; 16] = [
        0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0,
    ];
    e.gid.as_mut_bytes().copy_from_slice(&gid);
    e.gid_index = 0;
    e.port_num = 1;
    e.gid_type = 1; // RoCE v2
    e.netdev_ifindex = 3;
    e
}

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.bench_function("query_port IoctlBuf", |b| {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        b.iter(|| {
            let buf = method::query_port(black_box(RDMA_DRIVER_RXE), black_box(1), &mut resp);
            black_box(&buf);
        })
    });
    g.bench_function("invoke_write ex QUERY_DEVICE IoctlBuf", |b| {
        let cmd = ib_uverbs_ex_query_device::default();
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        b.iter(|| {
            let buf = method::invoke_write(
                black_box(RDMA_DRIVER_RXE),
                IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
                cmd.as_bytes(),
                resp.as_mut_bytes(),
            );
            black_box(&buf);
        })
    });
    g.bench_function("query_gid_entry IoctlBuf", |b| {
        let mut entry = ib_uverbs_gid_entry::default();
        b.iter(|| {
            let buf = method::query_gid_entry(
                black_box(RDMA_DRIVER_RXE),
                black_box(1),
                black_box(0),
                &mut entry,
            );
            black_box(&buf);
        })
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    let port = port_resp();
    g.bench_function("PortAttr::from_resp_bytes (48 B)", |b| {
        b.iter(|| black_box(PortAttr::from_resp_bytes(black_box(port.as_bytes()))))
    });
    g.bench_function("PortAttr::from_resp", |b| {
        b.iter(|| black_box(PortAttr::from_resp(black_box(&port))))
    });
    let dev = device_resp();
    let fw = FwVersion::new("");
    g.bench_function("DeviceAttr::from_ex_bytes", |b| {
        b.iter(|| black_box(DeviceAttr::from_ex_bytes(black_box(dev.as_bytes()), fw)))
    });
    let entry = gid_entry();
    g.bench_function("GidEntry::from_raw", |b| {
        b.iter(|| black_box(GidEntry::from_raw(black_box(&entry))))
    });
    g.finish();
}

fn config() -> Criterion {
    // Short runs: these are nanosecond operations, and the CI machine is shared.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = build, decode
}
criterion_main!(benches);
