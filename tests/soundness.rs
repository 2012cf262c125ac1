//! Issue 39 in a real kernel (the VM rig): what safe code could make the kernel do at
//! 8025e87, refused now. Each test is a program without `unsafe` that once made the
//! kernel write where it should not (holes B, C), or bound an object to another
//! context's (hole E), or trusted a driver id and an event the caller made up; here each
//! answer is a refusal, and the memory the kernel would have written is checked
//! untouched. (Holes A and D are gone from the API: `compile_fail` examples in
//! `src/raw/mr.rs` and `src/raw/mod.rs`.)
mod common;

use std::io::Write;
use std::sync::Arc;

use common::{device, devices, require_siw, NEEDS_DEVICES};
use uverbs::cm::{CmChannel, CmEvent, CmId, ConnParam};
use uverbs::raw::abi::rdma_cm::{
    rdma_ucm_cmd_hdr, rdma_ucm_create_id, RDMA_PS_TCP, RDMA_USER_CM_CMD_CREATE_ID,
};
use uverbs::raw::abi::{ib_uverbs_modify_srq, RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use uverbs::raw::driver::siw_ureq_reg_mr;
use uverbs::raw::method::{invoke_cmd, write_cmd, DriverIn};
use uverbs::verbs::objects::{QpInit, SrqInit};
use uverbs::{CmEventType, Context, Discovery, Error, OpenTarget, PortCache, QpType};
use zerocopy::IntoBytes;

fn open(dev: &str) -> Arc<Context> {
    let info = Discovery::new().device(dev).expect("discover");
    Arc::new(Context::open(&info).unwrap_or_else(|e| panic!("{dev}: {e}")))
}

/// Hole C: the rdma_cm file was lent (`AsFd`); a CREATE_ID written on a copy of it made
/// the kernel write the new id's number at a response address the program chose. What
/// is lent now is an epoll set: the same write is refused, and the victim is as it was.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn the_cm_channel_lends_no_file_that_takes_commands() {
    let _ = NEEDS_DEVICES;
    let ch = CmChannel::open().expect("rdma_cm");
    let victim = [0x5au8; 8];
    let cmd = rdma_ucm_create_id {
        uid: 1,
        response: victim.as_ptr() as u64,
        ps: RDMA_PS_TCP,
        qp_type: 2,
        ..Default::default()
    };
    let hdr = rdma_ucm_cmd_hdr {
        cmd: RDMA_USER_CM_CMD_CREATE_ID,
        in_: core::mem::size_of::<rdma_ucm_create_id>() as u16,
        out: 4,
    };
    let mut bytes = hdr.as_bytes().to_vec();
    bytes.extend_from_slice(cmd.as_bytes());
    let lent = ch.poll_fd().expect("poll_fd");
    let mut f = std::fs::File::from(lent.try_clone_to_owned().expect("dup"));
    let r = f.write_all(&bytes);
    let errno = r.as_ref().err().and_then(|e| e.raw_os_error());
    assert_eq!(
        errno,
        Some(libc_einval()),
        "write on the lent descriptor: {r:?}"
    );
    assert_eq!(
        std::hint::black_box(&victim),
        &[0x5au8; 8],
        "the kernel wrote the victim"
    );
    // The lent descriptor still does its job: readable once an event waits.
    let id = ch.create_id().expect("CREATE_ID");
    // rxe0's own address (the rig's): ADDR_RESOLVED comes at once
    id.resolve_addr_nowait(
        "169.254.1.1:7000".parse().unwrap(),
        std::time::Duration::from_secs(5),
    )
    .expect("RESOLVE_IP");
    assert!(common::readable_within(lent, 10), "no event within 10 s");
    drop(f);
    assert!(ch.get_event(None).expect("GET_EVENT").is_some());
}

fn libc_einval() -> i32 {
    rustix::io::Errno::INVAL.raw_os_error()
}

/// Hole B: siw's REG_MR driver data (8 bytes, every field public) sent with rxe's
/// MODIFY_SRQ was read by rxe as `mmap_info_addr`, and rxe wrote 16 bytes of queue
/// information there. Driver data is typed by driver and command now: the request is
/// refused: by `write()` before any system call (the file's driver, confirmed by the
/// kernel, is not siw), by INVOKE_WRITE by the kernel itself (the request's header names
/// siw, and the kernel compares that with the device's driver first), and the victim is
/// as it was.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn driver_data_goes_only_with_its_driver_and_command() {
    let dev = device("rxe");
    let ctx = open(&dev);
    let pd = ctx.alloc_pd().expect("ALLOC_PD");
    let srq = pd
        .create_srq(&SrqInit {
            max_wr: 16,
            max_sge: 1,
            srq_limit: 0,
        })
        .expect("CREATE_SRQ");
    let before = srq.query().expect("QUERY_SRQ").max_wr;
    let victim = [0x5au8; 16];
    let a = (victim.as_ptr() as u64).to_ne_bytes();
    let key = siw_ureq_reg_mr {
        stag_key: a[0],
        reserved: [a[1], a[2], a[3]],
        pad: u32::from_ne_bytes([a[4], a[5], a[6], a[7]]),
    };
    let cmd = ib_uverbs_modify_srq {
        srq_handle: srq.handle(),
        attr_mask: 1, // IB_SRQ_MAX_WR: rxe resizes and writes the new queue's mminfo
        max_wr: 64,
        srq_limit: 0,
    };
    let by_write = ctx
        .raw()
        .write(&mut write_cmd(&cmd, DriverIn::of(&key), &mut []));
    assert_eq!(by_write, Err(rustix::io::Errno::INVAL), "{dev}: write()");
    let mut none = [0u8; 0];
    let by_ioctl = ctx.raw().call(&mut invoke_cmd(
        ctx.driver_id(),
        &cmd,
        DriverIn::of(&key),
        &mut none,
    ));
    assert_eq!(
        by_ioctl,
        Err(rustix::io::Errno::INVAL),
        "{dev}: INVOKE_WRITE"
    );
    assert_eq!(
        std::hint::black_box(&victim),
        &[0x5au8; 16],
        "{dev}: the kernel wrote the victim"
    );
    // The SRQ was not resized behind the verbs layer's back.
    assert_eq!(srq.query().expect("QUERY_SRQ").max_wr, before, "{dev}");
}

/// The driver id that types driver data is the kernel's: a context opened as another
/// driver's (an `OpenTarget` may say any id, and over `write()` nothing checks it) is
/// refused at its first object, before any driver data or queue layout is trusted.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn a_driver_id_the_kernel_denies_creates_nothing() {
    require_siw();
    for (dev, lie) in [(device("siw"), "rxe"), (device("rxe"), "siw")] {
        let info = Discovery::new().device(&dev).expect("discover");
        let mut t = OpenTarget::from_device(&info, std::path::Path::new("/sys")).expect("target");
        let truth = t.driver_id.expect("netlink gives the driver id");
        let lied = if lie == "rxe" {
            RDMA_DRIVER_RXE
        } else {
            RDMA_DRIVER_SIW
        };
        assert_ne!(truth, lied);
        t.driver_id = Some(lied);
        let ctx = Arc::new(
            uverbs::OpenOptions::new()
                .get_context(uverbs::CallPath::Write)
                .objects(uverbs::CallPath::Write)
                .open_target(&t)
                .unwrap_or_else(|e| panic!("{dev} opened as {lie}: {e}")),
        );
        match ctx.alloc_pd() {
            Err(Error::BadArgument { reason, .. }) => {
                assert!(
                    reason.contains("the kernel says it is not one"),
                    "{dev}: {reason}"
                )
            }
            other => panic!("{dev} opened as {lie}: ALLOC_PD answered {other:?}"),
        }
    }
}

/// Hole E: a QP created in one context with the CQs (or the SRQ) of another was bound
/// by the kernel to whatever objects of its own context had those handle numbers. Now
/// refused, naming both contexts; so are a CQ on another context's completion channel
/// and a port cache on another context's event stream.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn objects_of_another_context_are_refused() {
    for dev in devices() {
        let (a, b) = (open(&dev), open(&dev));
        let pd = a.alloc_pd().expect("ALLOC_PD");
        let own = a.create_cq(8, None, 0).expect("CREATE_CQ");
        let theirs = b.create_cq(8, None, 0).expect("CREATE_CQ");
        let names_both = |e: &Error| {
            let t = e.to_string();
            assert!(matches!(e, Error::BadArgument { .. }), "{dev}: {e:?}");
            assert!(
                t.contains(&format!("context #{} of {dev}", a.serial()))
                    && t.contains(&format!("context #{} of {dev}", b.serial())),
                "{dev}: {t}"
            );
        };
        for (send, recv) in [(&theirs, &own), (&own, &theirs)] {
            let e = pd
                .create_qp(&QpInit::new(QpType::Rc, send, recv))
                .unwrap_err();
            names_both(&e);
        }
        if dev.starts_with("rxe") {
            let srq = b
                .alloc_pd()
                .expect("ALLOC_PD")
                .create_srq(&SrqInit {
                    max_wr: 4,
                    max_sge: 1,
                    srq_limit: 0,
                })
                .expect("CREATE_SRQ");
            let e = pd
                .create_qp(&QpInit::new(QpType::Rc, &own, &own).srq(&srq))
                .unwrap_err();
            names_both(&e);
        }
        let ch = b.create_comp_channel().expect("CREATE_COMP_CHANNEL");
        names_both(&a.create_cq(8, Some(&ch), 0).unwrap_err());
        // the same objects of one context still make a QP
        pd.create_qp(&QpInit::new(QpType::Rc, &own, &own))
            .unwrap_or_else(|e| panic!("{dev}: {e}"));
        let stream = b.events().expect("events");
        match PortCache::with_events(a.clone(), stream) {
            Err(Error::BadArgument { reason, .. }) => {
                assert!(reason.contains("another context"), "{dev}: {reason}")
            }
            other => panic!(
                "{dev}: PortCache::with_events of another context's stream: {:?}",
                other.err()
            ),
        }
    }
}

/// The smaller one: `CmId::from_request` made a `CmId` of any id an event named, so two
/// `CmId`s could destroy one kernel id (the second DESTROY_ID, an unrelated id that
/// reused the number). An id no connection request of the channel announced is refused.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn only_an_announced_request_is_adopted() {
    let ch = CmChannel::open().expect("rdma_cm");
    let id = ch.create_id().expect("CREATE_ID");
    let forged = CmEvent {
        kind: CmEventType::ConnectRequest,
        id: id.id(),
        uid: 1,
        status: 0,
        conn: ConnParam::default(),
    };
    match CmId::from_request(&ch, &forged) {
        Err(Error::BadArgument { reason, .. }) => {
            assert!(
                reason.contains("announced by no connection request"),
                "{reason}"
            )
        }
        other => panic!("a forged connection request was adopted: {other:?}"),
    }
    // The id is still its one owner's, destroyed once when it is dropped.
    drop(id);
}

/// The same family in the RDMA CM: a QP of another device than the id's (the kernel
/// would look its number up on the id's device: on iWARP, connect whatever QP has it),
/// and a made-up answer to a CONNECT (which would record a QP as connected), refused.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn the_cm_takes_its_own_device_s_qps_and_the_kernel_s_answers() {
    require_siw();
    let t = std::time::Duration::from_secs(10);
    let ch = CmChannel::open().expect("rdma_cm");
    let id = ch.create_id().expect("CREATE_ID");
    // siw0's own address (the rig's): the id is bound to siw0
    id.resolve_addr("169.254.129.1:7471".parse().unwrap(), t)
        .expect("RESOLVE_IP");
    id.resolve_route(t).expect("RESOLVE_ROUTE");
    let rxe = open(&device("rxe"));
    let cq = rxe.create_cq(4, None, 0).expect("CREATE_CQ");
    let qp = rxe
        .alloc_pd()
        .expect("ALLOC_PD")
        .create_qp(&QpInit::new(QpType::Rc, &cq, &cq))
        .expect("CREATE_QP");
    match id.connect_nowait(&qp, &ConnParam::default()) {
        Err(Error::BadArgument { reason, .. }) => {
            assert!(reason.contains("the id is bound to the device"), "{reason}")
        }
        other => panic!("CONNECT with rxe0's QP on siw0's id: {other:?}"),
    }
    let forged = CmEvent {
        kind: CmEventType::Established,
        id: id.id(),
        uid: 1,
        status: 0,
        conn: ConnParam::default(),
    };
    match id.complete_connect(&qp, &forged) {
        Err(Error::BadArgument { reason, .. }) => {
            assert!(reason.contains("sent no CONNECT"), "{reason}")
        }
        other => panic!("a made-up ESTABLISHED completed a connection: {other:?}"),
    }
    assert_eq!(qp.state(), uverbs::QpState::Reset);
}
