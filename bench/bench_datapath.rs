//! The uverbs side of the user-space cost rows of `bench/datapath.sh`, run in the VM rig
//! beside `bench/datapath_loops.c` (the same loops through libibverbs and its rxe and
//! siw providers). Neither loop makes a system call on either side: a receive is a
//! store into the mapped receive queue (no doorbell on rxe or siw), an empty poll reads
//! the mapped CQ's indices (rxe) or its next entry's flags (siw).
//!
//! ```text
//! bench_datapath cost DEV N BATCHES
//!     C uverbs DEV post_recv NS_PER_CALL    per batch: N post_recv calls of one
//!                                           receive (one SGE) into a fresh RC QP in
//!                                           INIT with room for N
//!     C uverbs DEV poll_empty NS_PER_CALL   per batch: N polls of an empty CQ, one
//!                                           entry asked
//! ```
//!
//! Build: `cargo build --release --target x86_64-unknown-linux-musl --example bench_datapath`.

use std::process::exit;
use std::sync::Arc;
use std::time::Instant;

use uverbs::verbs::datapath::{RecvWr, Sge, Wc};
use uverbs::verbs::objects::{ModifyQp, MrBuf, QpCap, QpInit};
use uverbs::{AccessFlags, Context, Discovery, QpState, QpType};

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("bench_datapath: {what}: {e}");
    exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || args[1] != "cost" {
        eprintln!("usage: bench_datapath cost DEV N BATCHES");
        exit(2);
    }
    let dev = &args[2];
    let n: u32 = args[3].parse().unwrap_or_else(|e| fail("N", e));
    let batches: u32 = args[4].parse().unwrap_or_else(|e| fail("BATCHES", e));
    let info = Discovery::new()
        .device(dev)
        .unwrap_or_else(|e| fail("device", e));
    let ctx = Arc::new(Context::open(&info).unwrap_or_else(|e| fail("open", e)));
    let pd = ctx.alloc_pd().unwrap_or_else(|e| fail("alloc_pd", e));
    let mr = pd
        .reg_mr(
            MrBuf::new(4096).unwrap_or_else(|e| fail("memory", e)),
            AccessFlags::LOCAL_WRITE,
        )
        .unwrap_or_else(|e| fail("reg_mr", e));
    let sge = [Sge::new(&mr, 0, 64).unwrap_or_else(|| fail("sge", "past the MR"))];
    for _ in 0..batches {
        let cq = ctx
            .create_cq(n + 1, None, 0)
            .unwrap_or_else(|e| fail("create_cq", e));
        let qp = pd
            .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
                max_send_wr: 1,
                max_recv_wr: n,
                max_send_sge: 1,
                max_recv_sge: 1,
                max_inline_data: 0,
            }))
            .unwrap_or_else(|e| fail("create_qp", e));
        qp.modify(
            &mut ModifyQp::new()
                .state(QpState::Init)
                .pkey_index(0)
                .port(1)
                .access(AccessFlags::LOCAL_WRITE),
        )
        .unwrap_or_else(|e| fail("modify_qp INIT", e));
        let t0 = Instant::now();
        for i in 0..n {
            if let Err(e) = qp.post_recv(&[RecvWr::new(u64::from(i), &sge)]) {
                fail("post_recv", e);
            }
        }
        let ns = t0.elapsed().as_nanos() as f64 / f64::from(n);
        println!("C uverbs {dev} post_recv {ns:.1}");
        let mut wc = [Wc::default(); 1];
        let mut seen = 0usize;
        let t0 = Instant::now();
        for _ in 0..n {
            seen += cq.poll(&mut wc).unwrap_or_else(|e| fail("poll", e));
        }
        let ns = t0.elapsed().as_nanos() as f64 / f64::from(n);
        if seen != 0 {
            fail("poll", "an entry in a CQ nothing completed into");
        }
        println!("C uverbs {dev} poll_empty {ns:.1}");
    }
}
