//! Benchmarks on real RDMA devices: the hot queries, the two port caches (`PortCache`, one
//! `read(2)` per query, and `WatchedPortCache`, no system call), and open + GET_CONTEXT +
//! close, per device.
//!
//! They need devices, so they run in the VM rig: `bench/run.sh` builds this bench for
//! musl (`cargo bench --target x86_64-unknown-linux-musl --bench device --no-run`) and
//! runs it in the guest with `UVERBS_TEST_DEVICES` set (e.g. `rxe0,siw0`). Without that
//! variable it prints why and does nothing. The side-by-side comparison with
//! libibverbs is `bench/run.sh`'s job (bench/bench_loops.rs, bench/ibv_loops.c); this
//! bench tracks the crate's own numbers with criterion's statistics.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::Criterion;
use uverbs::{Context, Discovery, PortCache, WatchedPortCache};

fn bench_device(c: &mut Criterion, info: &uverbs::DeviceInfo) {
    let ctx = Arc::new(Context::open(info).unwrap_or_else(|e| panic!("open {}: {e}", info.name)));
    let gid_tbl_len = ctx
        .query_port(1)
        .unwrap_or_else(|e| panic!("{}: query_port: {e}", info.name))
        .gid_tbl_len;
    let max_gids = (gid_tbl_len as usize).max(1);
    let mut cache =
        PortCache::new(&*ctx).unwrap_or_else(|e| panic!("{}: PortCache: {e}", info.name));
    let watched = WatchedPortCache::new(ctx.clone())
        .unwrap_or_else(|e| panic!("{}: WatchedPortCache: {e}", info.name));

    let mut g = c.benchmark_group(info.name.as_str());
    g.bench_function("query_port", |b| {
        b.iter(|| black_box(ctx.query_port(1).unwrap()))
    });
    g.bench_function("query_device", |b| {
        b.iter(|| black_box(ctx.query_device().unwrap()))
    });
    g.bench_function("query_gid_table", |b| {
        b.iter(|| black_box(ctx.query_gid_table(max_gids).unwrap()))
    });
    g.bench_function("query_gid (entry 1/0)", |b| {
        b.iter(|| black_box(ctx.query_gid(1, 0).unwrap()))
    });
    g.bench_function("PortCache::query_port", |b| {
        b.iter(|| black_box(cache.query_port(1).unwrap()))
    });
    g.bench_function("WatchedPortCache::query_port", |b| {
        b.iter(|| black_box(watched.query_port(black_box(1)).unwrap()))
    });
    g.bench_function("open + GET_CONTEXT + close", |b| {
        b.iter(|| drop(black_box(Context::open(info).unwrap())))
    });
    g.finish();
}

fn main() {
    let wanted: Vec<String> = std::env::var("UVERBS_TEST_DEVICES")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if wanted.is_empty() {
        println!(
            "device benches skipped: UVERBS_TEST_DEVICES is not set (they need real RDMA \
             devices; bench/run.sh runs them in the VM rig)"
        );
        return;
    }
    let devices = Discovery::new().devices().expect("discovery");
    // Under TCG every system call costs microseconds: short windows keep the run short.
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
        .configure_from_args();
    for name in &wanted {
        let info = devices
            .iter()
            .find(|d| &d.name == name)
            .unwrap_or_else(|| panic!("{name}: no such device"));
        bench_device(&mut c, info);
    }
    c.final_summary();
}
