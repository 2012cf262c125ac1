//! The disassociate path, which no driver of the VM rig has (feature `fault-injection`;
//! `tests/vm/run-tests.sh` builds the tests with it).
//!
//! What the kernel does when a driver with `disassociate_ucontext` (mlx5, ...) is
//! removed while a process holds a context, read from `drivers/infiniband/core`
//! (`ib_uverbs_remove_one` -> `ib_uverbs_free_hw_resources`): it destroys every object
//! of the file (`uverbs_destroy_ufile_hw`, `RDMA_REMOVE_DRIVER_REMOVE`), queues
//! `IB_EVENT_DEVICE_FATAL` on each async event file
//! (`uverbs_async_event_destroy_uobj`) and wakes its readers, marks the queues closed
//! (later reads: `EIO`), and disconnects the file from the device, so that every later
//! command answers `EIO` (`ib_uverbs_ioctl`/`ib_uverbs_write`: no `ib_dev`).
//!
//! `Lifeline::inject_disassociation` puts a real context on a real rxe or siw device in
//! that state without a system call (the kernel objects stay until the file closes).
//! The test checks what the crate makes of it: typed errors naming the device, a
//! waiting reader woken with `DEVICE_FATAL`, the stream and the caches ended, objects
//! dropped without a panic or a reported leak, every fd released.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use uverbs::verbs::objects::{MrBuf, QpInit};
use uverbs::{AccessFlags, Context, Error, EventType, Next, PortCache, QpType};

fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

fn gone(what: &str, dev: &str, r: Result<(), Error>) {
    match r {
        Err(Error::DeviceGone { op, errno }) => {
            assert_eq!(errno, Errno::IO, "{dev}: {what}");
            assert_eq!(
                op.device, dev,
                "{dev}: {what}: the error names another device"
            );
        }
        other => panic!("{dev}: {what} after the disassociation: {other:?}"),
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn disassociated_context_answers_typed_errors() {
    for dev in common::devices() {
        // The port cache puts its context under the process-wide device guard, whose
        // thread and sockets stay: start it first, then count.
        Context::open_by_name(&dev).unwrap().guard().unwrap();
        let fds0 = fd_count();
        let ctx = Arc::new(Context::open_by_name(&dev).unwrap());
        let mut events = ctx.events().unwrap();
        let mut cache = PortCache::new(ctx.clone()).unwrap();
        let pd = ctx.alloc_pd().unwrap();
        let channel = ctx.create_comp_channel().unwrap();
        let cq = ctx.create_cq(8, Some(&channel), 0).unwrap();
        let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq)).unwrap();
        let mr = pd
            .reg_mr(MrBuf::new(4096).unwrap(), AccessFlags::LOCAL_WRITE)
            .unwrap();
        assert!(ctx.query_port(1).is_ok());

        // A reader waiting on the stream when the device goes.
        let (woke, first) = std::thread::scope(|s| {
            let h = s.spawn(|| {
                let t = Instant::now();
                let r = events.read_timeout(Duration::from_secs(20));
                (t.elapsed(), r)
            });
            std::thread::sleep(Duration::from_millis(200));
            ctx.raw().lifeline().inject_disassociation();
            h.join().unwrap()
        });
        assert!(
            woke < Duration::from_secs(2),
            "{dev}: the reader woke after {woke:?}"
        );
        match first {
            Ok(Next::Event(ev)) => assert_eq!(ev.kind, EventType::DeviceFatal, "{dev}"),
            other => panic!("{dev}: the waiting reader got {other:?}"),
        }
        assert!(events.is_ended());
        assert!(matches!(events.try_read(), Ok(Next::End)));

        gone("query_port", &dev, ctx.query_port(1).map(drop));
        gone("query_device", &dev, ctx.query_device().map(drop));
        gone("alloc_pd", &dev, ctx.alloc_pd().map(drop));
        gone("create_cq", &dev, ctx.create_cq(8, None, 0).map(drop));
        gone("query_qp", &dev, qp.query().map(drop));
        gone("resize_cq", &dev, cq.resize(16).map(drop));
        let e = ctx.query_port(1).unwrap_err();
        println!(
            "{dev} (kernel {}): after the disassociation: {e}",
            common::kernel()
        );
        assert!(e.to_string().contains(&dev), "{e}");

        // The cache reads DEVICE_FATAL from its own stream and stops answering.
        let r = cache.query_port(1);
        assert!(
            matches!(r, Err(Error::DeviceGone { .. })),
            "{dev}: port cache after DEVICE_FATAL: {r:?}"
        );
        assert!(cache.fatal().is_some(), "{dev}");

        drop((qp, mr, cq, channel, pd));
        let errs = ctx.take_destroy_errors();
        assert!(
            errs.is_empty(),
            "{dev}: destroys reported as failed: {errs:?}"
        );
        drop((cache, events, ctx));
        assert_eq!(fd_count(), fds0, "{dev}: fds left");
    }
}
