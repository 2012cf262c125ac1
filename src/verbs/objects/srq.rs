//! Shared receive queues.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use zerocopy::FromBytes;

use super::cq::{handle_of, removed};
use super::pd::protocol;
use super::{check_driver, failed, ioctl_or_write, run_cmd, Pd, DRIVER_OUT};
use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::driver::{mminfo, rxe_modify_srq_cmd};
use crate::raw::fallback::Interface;
use crate::raw::method::{self, CreateSrqResp, CreateSrqValues, DriverIn};
use crate::types::SrqAttrMask;
use crate::verbs::datapath::{self, QueueLock, RecvRing, RecvWr};

/// What a shared receive queue is created with (`struct ibv_srq_init_attr`'s `attr`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[doc(alias = "ibv_srq_init_attr")]
pub struct SrqInit {
    /// Work requests it holds.
    pub max_wr: u32,
    /// Scatter/gather entries per work request.
    pub max_sge: u32,
    /// The limit that arms `IBV_EVENT_SRQ_LIMIT_REACHED` (0: not armed).
    pub srq_limit: u32,
}

/// The attributes of a shared receive queue (`struct ibv_srq_attr`), as QUERY_SRQ
/// answers them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[doc(alias = "ibv_srq_attr")]
pub struct SrqAttr {
    /// Work requests it holds.
    pub max_wr: u32,
    /// Scatter/gather entries per work request.
    pub max_sge: u32,
    /// The armed limit (0: not armed).
    pub srq_limit: u32,
}

/// A modification of a shared receive queue: the attributes to set, and so the mask
/// (`enum ibv_srq_attr_mask`) the kernel gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[doc(alias = "ibv_modify_srq")]
#[must_use = "an SRQ change does nothing until passed to Srq::modify"]
pub struct ModifySrq {
    mask: SrqAttrMask,
    max_wr: u32,
    srq_limit: u32,
}

impl ModifySrq {
    /// Nothing to set yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Resize to `max_wr` work requests (`IBV_SRQ_MAX_WR`; rxe resizes, siw does not).
    pub fn max_wr(mut self, max_wr: u32) -> Self {
        self.max_wr = max_wr;
        self.mask |= SrqAttrMask::MAX_WR;
        self
    }
    /// Arm the limit event at `limit` (`IBV_SRQ_LIMIT`).
    pub fn limit(mut self, limit: u32) -> Self {
        self.srq_limit = limit;
        self.mask |= SrqAttrMask::LIMIT;
        self
    }
    /// The mask this modification sends.
    pub fn mask(&self) -> SrqAttrMask {
        self.mask
    }
}

/// A shared receive queue (`struct ibv_srq`). A shared handle: queue pairs hold the SRQ
/// they receive from.
#[derive(Debug, Clone)]
#[doc(alias = "ibv_srq")]
pub struct Srq(pub(crate) Arc<SrqInner>);

#[derive(Debug)]
pub(crate) struct SrqInner {
    pd: Pd,
    pub(crate) handle: u32,
    srq_num: u32,
    max_wr: AtomicU32,
    max_sge: u32,
    user_handle: u64,
    driver_out: [u8; DRIVER_OUT],
    destroyed: bool,
    /// The mapped queue (replaced by a resize on rxe).
    ring: QueueLock<RecvRing>,
}

impl Pd {
    /// Creates a basic shared receive queue (SRQ_CREATE by ioctl, else CREATE_SRQ by
    /// `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw; else the
    /// kernel's errno (`EINVAL` past the device's `max_srq_wr` or `max_srq_sge`).
    #[doc(alias = "ibv_create_srq")]
    pub fn create_srq(&self, init: &SrqInit) -> Result<Srq> {
        const OP: &str = "CREATE_SRQ";
        let ctx = self.context();
        check_driver(ctx, OP)?;
        let file = ctx.raw();
        let values = CreateSrqValues {
            user_handle: ctx.next_user_handle(),
            max_wr: init.max_wr,
            max_sge: init.max_sge,
            srq_limit: init.srq_limit,
        };
        let mut driver_out = [0u8; DRIVER_OUT];
        let (handle, r) = ioctl_or_write(ctx, Interface::SrqIoctl, |ioctl| {
            driver_out = [0; DRIVER_OUT];
            if ioctl {
                let mut r = CreateSrqResp::default();
                let (mut req, slot) = method::create_srq(
                    file.driver_id(),
                    self.handle(),
                    &values,
                    &mut r,
                    DriverIn::NONE,
                    &mut driver_out,
                );
                file.call(&mut req)?;
                let handle = handle_of(req.data(slot))?;
                Ok((handle, r))
            } else {
                let cmd = ib_uverbs_create_srq {
                    user_handle: values.user_handle,
                    pd_handle: self.handle(),
                    max_wr: values.max_wr,
                    max_sge: values.max_sge,
                    srq_limit: values.srq_limit,
                    ..Default::default()
                };
                let mut resp =
                    [0u8; core::mem::size_of::<ib_uverbs_create_srq_resp>() + DRIVER_OUT];
                file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut resp))?;
                let (r, rest) = ib_uverbs_create_srq_resp::read_from_prefix(&resp[..])
                    .map_err(|_| rustix::io::Errno::IO)?;
                driver_out.copy_from_slice(&rest[..DRIVER_OUT]);
                Ok((
                    r.srq_handle,
                    CreateSrqResp {
                        max_wr: r.max_wr,
                        max_sge: r.max_sge,
                        srq_num: r.srqn,
                    },
                ))
            }
        })
        .map_err(|e| failed(ctx, OP, e))?;
        let ring = match datapath::map_srq(ctx, &driver_out, r.max_sge) {
            Ok(r) => r,
            Err(e) => {
                if let Err(d) = destroy_srq_handle(ctx, handle) {
                    ctx.record_destroy_error(d);
                }
                return Err(e);
            }
        };
        Ok(Srq(Arc::new(SrqInner {
            pd: self.clone(),
            handle,
            srq_num: r.srq_num,
            max_wr: AtomicU32::new(r.max_wr),
            max_sge: r.max_sge,
            user_handle: values.user_handle,
            driver_out,
            destroyed: false,
            ring: QueueLock::new(ring),
        })))
    }
}

impl Srq {
    /// The kernel's handle of the SRQ.
    pub fn handle(&self) -> u32 {
        self.0.handle
    }
    /// The SRQ number.
    pub fn srq_num(&self) -> u32 {
        self.0.srq_num
    }
    /// The work requests the kernel gave it (at creation, or the last resize).
    pub fn max_wr(&self) -> u32 {
        self.0.max_wr.load(Ordering::Relaxed)
    }
    /// The scatter/gather entries per work request the kernel gave it.
    pub fn max_sge(&self) -> u32 {
        self.0.max_sge
    }
    /// The `user_handle` the kernel reports in this SRQ's async events.
    pub fn user_handle(&self) -> u64 {
        self.0.user_handle
    }
    /// The PD it belongs to.
    pub fn pd(&self) -> &Pd {
        &self.0.pd
    }
    /// The driver's output of the create (rxe: `rxe_create_srq_resp`, siw:
    /// `siw_uresp_create_srq`, then zeros).
    pub fn driver_data(&self) -> &[u8] {
        &self.0.driver_out
    }

    /// Modifies the SRQ (MODIFY_SRQ by INVOKE_WRITE, else `write()`). On rxe the
    /// command carries rxe's driver struct, whose answer (the resized queue's mapping)
    /// lands in a buffer of this call.
    ///
    /// # Errors
    ///
    /// The kernel's errno (siw: `EOPNOTSUPP` for a resize).
    #[doc(alias = "ibv_modify_srq")]
    pub fn modify(&self, m: &ModifySrq) -> Result<()> {
        const OP: &str = "MODIFY_SRQ";
        let ctx = self.0.pd.context();
        let file = ctx.raw();
        let cmd = ib_uverbs_modify_srq {
            srq_handle: self.0.handle,
            attr_mask: m.mask.bits(),
            max_wr: m.max_wr,
            srq_limit: m.srq_limit,
        };
        // The queue's lock is held throughout: nothing posts to the old queue while the
        // kernel moves its requests to a resized one.
        let mut ring = self.0.ring.lock();
        if file.driver_id() == RDMA_DRIVER_RXE {
            let mut mi = mminfo::default();
            ioctl_or_write(ctx, Interface::InvokeWrite, |ioctl| {
                let mut ucmd = rxe_modify_srq_cmd::default();
                mi = mminfo::default();
                if ioctl {
                    file.call(&mut method::modify_srq_rxe(
                        file.driver_id(),
                        &cmd,
                        &mut ucmd,
                        &mut mi,
                    ))
                } else {
                    file.write(&mut method::write_modify_srq_rxe(&cmd, &mut ucmd, &mut mi))
                }
            })
            .map_err(|e| failed(ctx, OP, e))?;
            if m.mask.contains(SrqAttrMask::MAX_WR) && mi.size != 0 {
                // rxe made a new queue: map it (the old mapping goes with the old ring).
                *ring = datapath::rxe_srq_ring(ctx, &mi, self.0.max_sge)?;
            }
        } else {
            run_cmd(ctx, &cmd, DriverIn::NONE, &mut []).map_err(|e| failed(ctx, OP, e))?;
        }
        drop(ring);
        if m.mask.contains(SrqAttrMask::MAX_WR) {
            if let Ok(a) = self.query() {
                self.0.max_wr.store(a.max_wr, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Posts receive work requests to the SRQ (`ibv_post_srq_recv`): all of them, or
    /// none when one is refused or the queue has no room for all. No system call, no
    /// allocation.
    ///
    /// # Errors
    ///
    /// [`Error::BadWorkRequest`], [`Error::QueueFull`], [`Error::DeviceRemoved`].
    #[doc(alias = "ibv_post_srq_recv")]
    pub fn post_recv(&self, wrs: &[RecvWr<'_>]) -> Result<()> {
        const OP: &str = "post_srq_recv";
        let ctx = self.0.pd.context();
        if ctx.is_revoked() {
            return Err(removed(ctx, OP));
        }
        self.0
            .ring
            .lock()
            .post(wrs)
            .map_err(|f| datapath::post_error(ctx, OP, wrs.len(), f))
    }

    /// Receive requests the queue can take now.
    pub fn free(&self) -> u32 {
        self.0.ring.lock().free()
    }

    /// The SRQ's attributes (QUERY_SRQ by INVOKE_WRITE, else `write()`).
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "ibv_query_srq")]
    pub fn query(&self) -> Result<SrqAttr> {
        const OP: &str = "QUERY_SRQ";
        let ctx = self.0.pd.context();
        let cmd = ib_uverbs_query_srq {
            srq_handle: self.0.handle,
            ..Default::default()
        };
        let mut resp = [0u8; core::mem::size_of::<ib_uverbs_query_srq_resp>()];
        run_cmd(ctx, &cmd, DriverIn::NONE, &mut resp).map_err(|e| failed(ctx, OP, e))?;
        let r =
            ib_uverbs_query_srq_resp::read_from_bytes(&resp[..]).map_err(|_| protocol(ctx, OP))?;
        Ok(SrqAttr {
            max_wr: r.max_wr,
            max_sge: r.max_sge,
            srq_limit: r.srq_limit,
        })
    }

    /// Destroys the SRQ now; only the last handle can (else [`Error::InUse`], nothing
    /// sent).
    ///
    /// # Errors
    ///
    /// [`Error::InUse`]; else the kernel's errno, with the SRQ given back.
    #[doc(alias = "ibv_destroy_srq")]
    pub fn try_destroy(self) -> core::result::Result<(), (Srq, Error)> {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => match inner.destroy() {
                Ok(()) => {
                    inner.destroyed = true;
                    Ok(())
                }
                Err(e) => Err((Srq(Arc::new(inner)), e)),
            },
            Err(arc) => {
                let users = Arc::strong_count(&arc) - 1;
                let op = Op::new("DESTROY_SRQ", arc.pd.context().name());
                Err((Srq(arc), Error::InUse { op, users }))
            }
        }
    }
}

impl SrqInner {
    fn destroy(&self) -> Result<()> {
        destroy_srq_handle(self.pd.context(), self.handle)
    }
}

/// SRQ_DESTROY by ioctl, else DESTROY_SRQ by `write()`, of a handle.
fn destroy_srq_handle(ctx: &crate::verbs::context::Context, handle: u32) -> Result<()> {
    let file = ctx.raw();
    ioctl_or_write(ctx, Interface::SrqIoctl, |ioctl| {
        let mut resp = ib_uverbs_destroy_srq_resp::default();
        if ioctl {
            file.call(&mut method::destroy_srq(
                file.driver_id(),
                handle,
                &mut resp,
            ))
        } else {
            let cmd = ib_uverbs_destroy_srq {
                srq_handle: handle,
                ..Default::default()
            };
            file.write(&mut method::write_cmd(
                &cmd,
                DriverIn::NONE,
                zerocopy::IntoBytes::as_mut_bytes(&mut resp),
            ))
        }
    })
    .map_err(|e| failed(ctx, "DESTROY_SRQ", e))
}

impl Drop for SrqInner {
    fn drop(&mut self) {
        if !self.destroyed {
            if let Err(e) = self.destroy() {
                self.pd.context().record_destroy_error(e);
            }
        }
    }
}
