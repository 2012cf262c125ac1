//! Completion channels and completion queues.

use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

use zerocopy::FromBytes;

use super::pd::protocol;
use super::{check_driver, failed, ioctl_or_write, run_cmd, same_context, DRIVER_OUT};
use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::fallback::Interface;
use crate::raw::lifeline::{PollOnly, RevocableFd};
use crate::raw::method::{self, DriverIn};
use crate::verbs::context::Context;
use crate::verbs::datapath::{self, CqRing, QueueLock, Wc};

/// A completion channel (`struct ibv_comp_channel`): a file that becomes readable when a
/// CQ bound to it has a completion to report (after the CQ was armed). A shared handle;
/// the file is closed with the last clone, after every CQ bound to it.
#[derive(Debug, Clone)]
#[doc(alias = "ibv_comp_channel")]
pub struct CompChannel(Arc<CompChannelInner>);

#[derive(Debug)]
struct CompChannelInner {
    ctx: Arc<Context>,
    fd: RevocableFd,
    /// What [`CompChannel::poll_fd`] lends.
    poll: PollOnly,
    /// The CQs bound to it, by `user_handle` (what an event names).
    cqs: Mutex<Vec<(u64, Weak<CqInner>)>>,
}

impl Context {
    /// Creates a completion channel (CREATE_COMP_CHANNEL by INVOKE_WRITE, else
    /// `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw; else the
    /// kernel's errno.
    #[doc(alias = "ibv_create_comp_channel")]
    pub fn create_comp_channel(self: &Arc<Self>) -> Result<CompChannel> {
        const OP: &str = "CREATE_COMP_CHANNEL";
        check_driver(self, OP)?;
        let fd = self
            .raw()
            .create_comp_channel(self.objects_path())
            .map_err(|e| failed(self, OP, e))?;
        // Non-blocking: get_event waits with poll(2), beside the lifeline's wake file.
        let flags = rustix::fs::fcntl_getfl(fd.fd()).map_err(|e| failed(self, OP, e))?;
        rustix::fs::fcntl_setfl(fd.fd(), flags | rustix::fs::OFlags::NONBLOCK)
            .map_err(|e| failed(self, OP, e))?;
        Ok(CompChannel(Arc::new(CompChannelInner {
            ctx: self.clone(),
            fd,
            poll: PollOnly::default(),
            cqs: Mutex::new(Vec::new()),
        })))
    }
}

impl CompChannel {
    /// The context the channel belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.0.ctx
    }

    fn register(&self, cq: &Arc<CqInner>) {
        let mut cqs = self.0.cqs.lock().unwrap_or_else(|p| p.into_inner());
        cqs.retain(|(_, w)| w.strong_count() > 0);
        cqs.push((cq.user_handle, Arc::downgrade(cq)));
    }

    /// The next completion event (`ibv_get_cq_event`): the CQ that has a completion to
    /// report since it was armed ([`Cq::req_notify`]), waiting at most `timeout`
    /// (`None`: no limit); `Ok(None)` on timeout. Each event counts on the CQ until
    /// [`Cq::ack_events`] acknowledges it (`ibv_ack_cq_events`). The file is
    /// non-blocking; a revocation of the context ends the wait.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceRemoved`] once the context was revoked; the errno of `read(2)` or
    /// `poll(2)`; [`Error::Protocol`] for a short event.
    #[doc(alias = "ibv_get_cq_event")]
    pub fn get_event(&self, timeout: Option<std::time::Duration>) -> Result<Option<Cq>> {
        const OP: &str = "get_cq_event";
        let ctx = &self.0.ctx;
        let mut waited = false;
        loop {
            if ctx.is_revoked() {
                return Err(Error::DeviceRemoved {
                    op: Op::new(OP, ctx.name()),
                });
            }
            let mut buf = [0u8; core::mem::size_of::<ib_uverbs_comp_event_desc>()];
            match rustix::io::read(self.0.fd.fd(), &mut buf) {
                Ok(n) if n == buf.len() => {
                    let d = ib_uverbs_comp_event_desc::read_from_bytes(&buf[..])
                        .map_err(|_| protocol(ctx, OP))?;
                    let cqs = self.0.cqs.lock().unwrap_or_else(|p| p.into_inner());
                    let cq = cqs
                        .iter()
                        .find(|(h, _)| *h == d.cq_handle)
                        .and_then(|(_, w)| w.upgrade());
                    drop(cqs);
                    // An event of a CQ destroyed meanwhile names nothing: skip it.
                    if let Some(cq) = cq {
                        cq.events_got.fetch_add(1, Ordering::Relaxed);
                        return Ok(Some(Cq(cq)));
                    }
                    continue;
                }
                Ok(_) => return Err(protocol(ctx, OP)),
                Err(rustix::io::Errno::AGAIN) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(ctx.kernel_error(Op::new(OP, ctx.name()), e)),
            }
            if waited {
                return Ok(None);
            }
            waited = true;
            let wake = ctx
                .raw()
                .lifeline()
                .wake_fd()
                .map_err(|e| Error::from_errno(Op::new(OP, ctx.name()), e))?;
            let own = self.0.fd.fd();
            let mut fds = [
                rustix::event::PollFd::new(&own, rustix::event::PollFlags::IN),
                rustix::event::PollFd::new(&wake, rustix::event::PollFlags::IN),
            ];
            let ts = timeout.map(|d| rustix::event::Timespec {
                tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                tv_nsec: i64::from(d.subsec_nanos()),
            });
            match rustix::event::poll(&mut fds, ts.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(Error::from_errno(Op::new(OP, ctx.name()), e)),
            }
        }
    }
}

impl CompChannel {
    /// A descriptor for an event loop: readable when a completion event is queued, and
    /// once the context's files are revoked (the device is being removed). It can only be
    /// polled: an `epoll` set watching the channel's file and the lifeline's wake file,
    /// made on the first call (the channel's file is not lent, nor can it be named by
    /// number in a raw CREATE_CQ: a raw CQ on it would have its events taken for a verbs
    /// CQ's, and a copy of the file would hold a device being removed hostage).
    ///
    /// # Errors
    ///
    /// The errno of `epoll_create1(2)`, `eventfd(2)` or `epoll_ctl(2)`, the first time.
    pub fn poll_fd(&self) -> Result<BorrowedFd<'_>> {
        self.0
            .poll
            .get(self.0.fd.fd(), Some(self.0.fd.lifeline()))
            .map_err(|e| Error::from_errno(Op::new("completion channel", self.0.ctx.name()), e))
    }

    /// The channel's file, for the crate's own waits and CQ_CREATE.
    pub(crate) fn file_fd(&self) -> BorrowedFd<'_> {
        self.0.fd.fd()
    }

    /// The lifeline's wake file, for the crate's own waits (`uverbs::aio`).
    #[cfg(feature = "tokio")]
    pub(crate) fn wake_fd(&self) -> Result<BorrowedFd<'_>> {
        let ctx = &self.0.ctx;
        ctx.raw()
            .lifeline()
            .wake_fd()
            .map_err(|e| Error::from_errno(Op::new("completion channel", ctx.name()), e))
    }
}

/// A completion queue (`struct ibv_cq`). A shared handle: queue pairs hold the CQs
/// they complete into, and the CQ is destroyed with the last handle.
#[derive(Debug, Clone)]
#[doc(alias = "ibv_cq")]
pub struct Cq(pub(crate) Arc<CqInner>);

#[derive(Debug)]
pub(crate) struct CqInner {
    ctx: Arc<Context>,
    pub(crate) handle: u32,
    cqe: AtomicU32,
    user_handle: u64,
    channel: Option<CompChannel>,
    driver_out: [u8; DRIVER_OUT],
    destroyed: bool,
    /// The mapped queue (replaced by a resize).
    ring: QueueLock<CqRing>,
    /// Completion events delivered by the channel, and acknowledged.
    events_got: AtomicU32,
    events_acked: AtomicU32,
}

impl Context {
    /// Creates a completion queue of at least `cqe` entries, bound to `channel` if
    /// given, on completion vector `comp_vector` (CQ_CREATE by ioctl, else CREATE_CQ by
    /// `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw;
    /// [`Error::BadArgument`] for a channel of another context; else the kernel's errno
    /// (`EINVAL` for more entries than the device's `max_cqe`, or a vector past
    /// `num_comp_vectors`).
    #[doc(alias = "ibv_create_cq")]
    pub fn create_cq(
        self: &Arc<Self>,
        cqe: u32,
        channel: Option<&CompChannel>,
        comp_vector: u32,
    ) -> Result<Cq> {
        const OP: &str = "CREATE_CQ";
        check_driver(self, OP)?;
        if let Some(c) = channel {
            same_context(self, c.context(), OP, "completion channel", "context")?;
        }
        let file = self.raw();
        let user_handle = self.next_user_handle();
        let mut driver_out = [0u8; DRIVER_OUT];
        let (handle, real_cqe) = ioctl_or_write(self, Interface::CqIoctl, |ioctl| {
            driver_out = [0; DRIVER_OUT];
            if ioctl {
                let mut resp_cqe = 0u32;
                let (mut req, slot) = method::create_cq(
                    file.driver_id(),
                    &cqe,
                    &user_handle,
                    channel.map(|c| c.file_fd()),
                    &comp_vector,
                    &mut resp_cqe,
                    DriverIn::NONE,
                    &mut driver_out,
                );
                file.call(&mut req)?;
                let handle = handle_of(req.data(slot))?;
                Ok((handle, resp_cqe))
            } else {
                let cmd = ib_uverbs_create_cq {
                    user_handle,
                    cqe,
                    comp_vector,
                    comp_channel: channel.map_or(-1, |c| {
                        use std::os::fd::AsRawFd;
                        c.file_fd().as_raw_fd()
                    }),
                    ..Default::default()
                };
                let mut resp = [0u8; core::mem::size_of::<ib_uverbs_create_cq_resp>() + DRIVER_OUT];
                // (write_any: the command names the crate's own channel by its number)
                file.write(&mut method::write_any(&cmd, DriverIn::NONE, &mut resp))?;
                let (r, rest) = ib_uverbs_create_cq_resp::read_from_prefix(&resp[..])
                    .map_err(|_| rustix::io::Errno::IO)?;
                driver_out.copy_from_slice(&rest[..DRIVER_OUT]);
                Ok((r.cq_handle, r.cqe))
            }
        })
        .map_err(|e| failed(self, OP, e))?;
        let ring = match datapath::map_cq(self, &driver_out) {
            Ok(r) => r,
            Err(e) => {
                if let Err(d) = destroy_cq_handle(self, handle) {
                    self.record_destroy_error(d);
                }
                return Err(e);
            }
        };
        let inner = Arc::new(CqInner {
            ctx: self.clone(),
            handle,
            cqe: AtomicU32::new(real_cqe),
            user_handle,
            channel: channel.cloned(),
            driver_out,
            destroyed: false,
            ring: QueueLock::new(ring),
            events_got: AtomicU32::new(0),
            events_acked: AtomicU32::new(0),
        });
        if let Some(ch) = channel {
            ch.register(&inner);
        }
        Ok(Cq(inner))
    }
}

/// [`Error::DeviceRemoved`] of `op`: out of line, off the data path's fast path.
#[cold]
#[inline(never)]
pub(crate) fn removed(ctx: &Context, op: &'static str) -> Error {
    Error::DeviceRemoved {
        op: Op::new(op, ctx.name()),
    }
}

/// The handle the kernel wrote into an IDR NEW attribute (it starts as `u64::MAX`).
pub(crate) fn handle_of(data: u64) -> core::result::Result<u32, rustix::io::Errno> {
    u32::try_from(data).map_err(|_| rustix::io::Errno::IO)
}

impl Cq {
    /// The kernel's handle of the CQ.
    pub fn handle(&self) -> u32 {
        self.0.handle
    }
    /// The number of entries the kernel gave it (at least what was asked for).
    pub fn cqe(&self) -> u32 {
        self.0.cqe.load(Ordering::Relaxed)
    }
    /// The `user_handle` the kernel reports in this CQ's async events.
    pub fn user_handle(&self) -> u64 {
        self.0.user_handle
    }
    /// The completion channel it reports to, if any.
    pub fn channel(&self) -> Option<&CompChannel> {
        self.0.channel.as_ref()
    }
    /// The context it belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.0.ctx
    }
    /// The driver's output of the create (rxe: `rxe_create_cq_resp`, siw:
    /// `siw_uresp_create_cq`, then zeros): where its queue is mapped.
    pub fn driver_data(&self) -> &[u8] {
        &self.0.driver_out
    }

    /// Resizes the CQ to at least `cqe` entries (RESIZE_CQ by INVOKE_WRITE, else
    /// `write()`) and returns the new size. rxe resizes; siw has no resize
    /// (`EOPNOTSUPP`: [`Error::NotSupported`]).
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "ibv_resize_cq")]
    pub fn resize(&self, cqe: u32) -> Result<u32> {
        const OP: &str = "RESIZE_CQ";
        let ctx = &self.0.ctx;
        let cmd = ib_uverbs_resize_cq {
            cq_handle: self.0.handle,
            cqe,
            ..Default::default()
        };
        let mut resp = [0u8; core::mem::size_of::<ib_uverbs_resize_cq_resp>() + DRIVER_OUT];
        // The queue's lock is held throughout: nothing polls the old queue while the
        // kernel moves its completions to the new one.
        let mut ring = self.0.ring.lock();
        run_cmd(ctx, &cmd, DriverIn::NONE, &mut resp).map_err(|e| failed(ctx, OP, e))?;
        let (r, rest) =
            ib_uverbs_resize_cq_resp::read_from_prefix(&resp[..]).map_err(|_| protocol(ctx, OP))?;
        self.0.cqe.store(r.cqe, Ordering::Relaxed);
        if ctx.driver_id() == RDMA_DRIVER_RXE {
            // rxe made a new queue: map it (the old mapping goes with the old ring).
            let (d, _) = crate::raw::driver::rxe_resize_cq_resp::read_from_prefix(rest)
                .map_err(|_| protocol(ctx, OP))?;
            *ring = datapath::rxe_cq_ring(ctx, &d.mi)?;
        }
        Ok(r.cqe)
    }

    /// Copies up to `wc.len()` completions out of the mapped queue, oldest first, and
    /// returns how many (`ibv_poll_cq`). No system call, no allocation.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceRemoved`] once the context was revoked (the queue is gone).
    #[doc(alias = "ibv_poll_cq")]
    #[inline(always)]
    pub fn poll(&self, wc: &mut [Wc]) -> Result<usize> {
        if self.0.ctx.is_revoked() {
            return Err(removed(&self.0.ctx, "poll_cq"));
        }
        Ok(self.0.ring.lock().poll(wc))
    }

    /// Arms the CQ (`ibv_req_notify_cq`): its completion channel reports the next
    /// completion (`solicited_only`: the next solicited or error one). rxe: the
    /// REQ_NOTIFY_CQ command; siw: a store into the queue's control word, as libsiw does.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceRemoved`] once the context was revoked; else the kernel's errno.
    #[doc(alias = "ibv_req_notify_cq")]
    pub fn req_notify(&self, solicited_only: bool) -> Result<()> {
        const OP: &str = "REQ_NOTIFY_CQ";
        let ctx = &self.0.ctx;
        if ctx.is_revoked() {
            return Err(removed(ctx, OP));
        }
        // siw: a store into the queue's control word; rxe: the command.
        if self.0.ring.lock().arm(solicited_only).is_some() {
            return Ok(());
        }
        let cmd = ib_uverbs_req_notify_cq {
            cq_handle: self.0.handle,
            solicited_only: u32::from(solicited_only),
        };
        run_cmd(ctx, &cmd, DriverIn::NONE, &mut []).map_err(|e| failed(ctx, OP, e))
    }

    /// Acknowledges `n` completion events of this CQ taken by
    /// [`CompChannel::get_event`] (`ibv_ack_cq_events`). A CQ with events not yet
    /// acknowledged is not destroyed by [`Cq::try_destroy`], as `ibv_destroy_cq` waits
    /// for them.
    #[doc(alias = "ibv_ack_cq_events")]
    pub fn ack_events(&self, n: u32) {
        let got = self.0.events_got.load(Ordering::Relaxed);
        let _ = self
            .0
            .events_acked
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| {
                Some(a.saturating_add(n).min(got))
            });
    }

    /// Completion events taken from the channel, and of those acknowledged.
    pub fn events(&self) -> (u32, u32) {
        (
            self.0.events_got.load(Ordering::Relaxed),
            self.0.events_acked.load(Ordering::Relaxed),
        )
    }

    /// Destroys the CQ now and returns the kernel's answer; only the last handle can
    /// (else [`Error::InUse`], nothing sent), and only once every completion event taken
    /// was acknowledged (else [`Error::InUse`] counting the events, nothing sent).
    ///
    /// # Errors
    ///
    /// [`Error::InUse`]; else the kernel's errno, with the CQ given back.
    #[doc(alias = "ibv_destroy_cq")]
    pub fn try_destroy(self) -> core::result::Result<(), (Cq, Error)> {
        let (got, acked) = self.events();
        if got != acked {
            let op = Op::new("DESTROY_CQ", self.0.ctx.name());
            let users = (got - acked) as usize;
            return Err((self, Error::InUse { op, users }));
        }
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => match inner.destroy() {
                Ok(_) => {
                    inner.destroyed = true;
                    Ok(())
                }
                Err(e) => Err((Cq(Arc::new(inner)), e)),
            },
            Err(arc) => {
                let users = Arc::strong_count(&arc) - 1;
                let op = Op::new("DESTROY_CQ", arc.ctx.name());
                Err((Cq(arc), Error::InUse { op, users }))
            }
        }
    }
}

impl CqInner {
    /// Destroys the CQ; returns the count of completion events the kernel reported.
    fn destroy(&self) -> Result<u32> {
        destroy_cq_handle(&self.ctx, self.handle)
    }
}

/// CQ_DESTROY by ioctl, else DESTROY_CQ by `write()`, of a handle; returns the count of
/// completion events the kernel reported.
fn destroy_cq_handle(ctx: &Context, handle: u32) -> Result<u32> {
    let file = ctx.raw();
    ioctl_or_write(ctx, Interface::CqIoctl, |ioctl| {
        let mut resp = ib_uverbs_destroy_cq_resp::default();
        if ioctl {
            file.call(&mut method::destroy_cq(file.driver_id(), handle, &mut resp))?;
        } else {
            let cmd = ib_uverbs_destroy_cq {
                cq_handle: handle,
                ..Default::default()
            };
            file.write(&mut method::write_cmd(
                &cmd,
                DriverIn::NONE,
                zerocopy::IntoBytes::as_mut_bytes(&mut resp),
            ))?;
        }
        Ok(resp.comp_events_reported)
    })
    .map_err(|e| failed(ctx, "DESTROY_CQ", e))
}

impl Drop for CqInner {
    fn drop(&mut self) {
        if !self.destroyed {
            if let Err(e) = self.destroy() {
                self.ctx.record_destroy_error(e);
            }
        }
    }
}
