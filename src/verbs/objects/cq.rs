//! Completion channels and completion queues.

use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use zerocopy::FromBytes;

use super::pd::protocol;
use super::{check_driver, failed, ioctl_or_write, run_cmd, DRIVER_OUT};
use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::fallback::Interface;
use crate::raw::lifeline::RevocableFd;
use crate::raw::method::{self, DriverIn};
use crate::verbs::context::Context;

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
        Ok(CompChannel(Arc::new(CompChannelInner {
            ctx: self.clone(),
            fd,
        })))
    }
}

impl CompChannel {
    /// The context the channel belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.0.ctx
    }
}

impl AsFd for CompChannel {
    /// The channel's file, to poll for readability.
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.fd.fd()
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
}

impl Context {
    /// Creates a completion queue of at least `cqe` entries, bound to `channel` if
    /// given, on completion vector `comp_vector` (CQ_CREATE by ioctl, else CREATE_CQ by
    /// `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw; else the
    /// kernel's errno (`EINVAL` for more entries than the device's `max_cqe`, or a
    /// vector past `num_comp_vectors`).
    #[doc(alias = "ibv_create_cq")]
    pub fn create_cq(
        self: &Arc<Self>,
        cqe: u32,
        channel: Option<&CompChannel>,
        comp_vector: u32,
    ) -> Result<Cq> {
        const OP: &str = "CREATE_CQ";
        check_driver(self, OP)?;
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
                    channel.map(|c| c.as_fd()),
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
                        c.as_fd().as_raw_fd()
                    }),
                    ..Default::default()
                };
                let mut resp = [0u8; core::mem::size_of::<ib_uverbs_create_cq_resp>() + DRIVER_OUT];
                file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut resp))?;
                let (r, rest) = ib_uverbs_create_cq_resp::read_from_prefix(&resp[..])
                    .map_err(|_| rustix::io::Errno::IO)?;
                driver_out.copy_from_slice(&rest[..DRIVER_OUT]);
                Ok((r.cq_handle, r.cqe))
            }
        })
        .map_err(|e| failed(self, OP, e))?;
        Ok(Cq(Arc::new(CqInner {
            ctx: self.clone(),
            handle,
            cqe: AtomicU32::new(real_cqe),
            user_handle,
            channel: channel.cloned(),
            driver_out,
            destroyed: false,
        })))
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
        run_cmd(ctx, &cmd, DriverIn::NONE, &mut resp).map_err(|e| failed(ctx, OP, e))?;
        let (r, _) =
            ib_uverbs_resize_cq_resp::read_from_prefix(&resp[..]).map_err(|_| protocol(ctx, OP))?;
        self.0.cqe.store(r.cqe, Ordering::Relaxed);
        Ok(r.cqe)
    }

    /// Destroys the CQ now and returns the kernel's answer; only the last handle can
    /// (else [`Error::InUse`], nothing sent).
    ///
    /// # Errors
    ///
    /// [`Error::InUse`]; else the kernel's errno, with the CQ given back.
    #[doc(alias = "ibv_destroy_cq")]
    pub fn try_destroy(self) -> core::result::Result<(), (Cq, Error)> {
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
        let ctx = &self.ctx;
        let file = ctx.raw();
        let handle = self.handle;
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
