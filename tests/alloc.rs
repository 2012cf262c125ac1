//! No heap allocation on the hot paths: after a warm-up, `query_port`, `query_device`,
//! `query_gid` (one GID entry) and `WatchedPortCache::query_port` allocate nothing, per
//! call, on every device.
//!
//! A counting global allocator wraps the system allocator and counts, per thread, every
//! allocation and reallocation; the test reads its own thread's count around the calls,
//! so the test harness's other threads cannot disturb it. A device test: it runs in the
//! VM rig (tests/vm/run-tests.sh), which sets `UVERBS_TEST_DEVICES`.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use uverbs::{Context, Discovery, WatchedPortCache};

thread_local! {
    // Const-initialised and without a destructor: touching it never allocates, so the
    // allocator can use it.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the only addition is a thread-local counter increment, which
// neither allocates nor unwinds (`try_with` ignores a thread-local already destroyed).
// This is test code, not the library: the crate's `unsafe` stays in src/raw/.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's guarantees for `alloc` are passed on as they are.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this allocator) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// Allocations made by `n` calls of `f`.
fn allocations_of(n: usize, mut f: impl FnMut()) -> u64 {
    let before = allocs();
    for _ in 0..n {
        f();
    }
    allocs() - before
}

#[test]
fn counting_allocator_counts() {
    let n = allocations_of(3, || {
        std::hint::black_box(vec![1u8; 64]);
    });
    assert_eq!(
        n, 3,
        "the counting allocator must see this thread's allocations"
    );
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn hot_queries_do_not_allocate() {
    const N: usize = 1000;
    let devices = Discovery::new().devices().expect("discovery");
    for name in common::devices() {
        let info = devices
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name}: not found by discovery"));
        let ctx = Context::open(info).unwrap_or_else(|e| panic!("open {name}: {e}"));
        let ports = u32::from(ctx.port_count());
        assert!(ports >= 1, "{name}: no ports");

        // Warm-up: first calls may settle lazily initialised state (e.g. a fallback
        // decision); none of that may happen again afterwards.
        for _ in 0..10 {
            for p in 1..=ports {
                ctx.query_port(p)
                    .unwrap_or_else(|e| panic!("{name}: query_port: {e}"));
                ctx.query_gid(p, 0)
                    .unwrap_or_else(|e| panic!("{name}: query_gid: {e}"));
            }
            ctx.query_device()
                .unwrap_or_else(|e| panic!("{name}: query_device: {e}"));
        }

        let mut ok = 0usize;
        let n = allocations_of(N, || {
            for p in 1..=ports {
                ok += ctx.query_port(p).is_ok() as usize;
            }
        });
        assert_eq!(ok, N * ports as usize, "{name}: query_port failed");
        assert_eq!(
            n, 0,
            "{name}: {N} x query_port per port made {n} heap allocations"
        );

        let mut ok = 0usize;
        let n = allocations_of(N, || ok += ctx.query_device().is_ok() as usize);
        assert_eq!(ok, N, "{name}: query_device failed");
        assert_eq!(n, 0, "{name}: {N} x query_device made {n} heap allocations");

        let mut answer = uverbs::DeviceAnswer::default();
        let mut ok = 0usize;
        let n = allocations_of(N, || {
            ok += ctx.query_device_into(&mut answer).is_ok() as usize;
            std::hint::black_box(answer.max_qp());
        });
        assert_eq!(ok, N, "{name}: query_device_into failed");
        assert_eq!(
            n, 0,
            "{name}: {N} x query_device_into made {n} heap allocations"
        );

        let mut found = 0usize;
        let n = allocations_of(N, || {
            if let Ok(Some(e)) = ctx.query_gid(1, 0) {
                found += 1;
                std::hint::black_box(e);
            }
        });
        assert_eq!(found, N, "{name}: GID entry 0 of port 1 is not valid");
        assert_eq!(
            n, 0,
            "{name}: {N} x query_gid (GID entry) made {n} heap allocations"
        );

        // The watched cache answers from memory: no allocation either (its watcher
        // thread may allocate when an event comes, but it counts on its own thread).
        let ctx = Arc::new(ctx);
        let watched = WatchedPortCache::new(ctx.clone())
            .unwrap_or_else(|e| panic!("{name}: WatchedPortCache::new: {e}"));
        for p in 1..=ports {
            watched
                .query_port(p)
                .unwrap_or_else(|e| panic!("{name}: WatchedPortCache::query_port: {e}"));
        }
        let mut ok = 0usize;
        let n = allocations_of(N, || {
            for p in 1..=ports {
                ok += watched.query_port(p).is_ok() as usize;
            }
        });
        assert_eq!(
            ok,
            N * ports as usize,
            "{name}: WatchedPortCache::query_port failed"
        );
        assert_eq!(
            n, 0,
            "{name}: {N} x WatchedPortCache::query_port per port made {n} heap allocations"
        );

        println!(
            "{name} (kernel {}): 0 allocations in {N} x query_port, query_device, \
             query_device_into, query_gid, WatchedPortCache::query_port",
            common::kernel()
        );
    }
}
