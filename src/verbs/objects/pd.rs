//! Protection domains.

use std::sync::Arc;

use zerocopy::FromBytes;

use super::{check_driver, failed, ioctl_or_write, run_cmd, DRIVER_OUT};
use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::fallback::Interface;
use crate::raw::method::{self, DriverIn};
use crate::verbs::context::Context;

/// A protection domain (`struct ibv_pd`): the scope of memory regions, queue pairs,
/// address handles and shared receive queues. A shared handle: clones refer to the same
/// PD, which is deallocated with the last one (after every object made in it).
#[derive(Debug, Clone)]
#[doc(alias = "ibv_pd")]
pub struct Pd(pub(crate) Arc<PdInner>);

#[derive(Debug)]
pub(crate) struct PdInner {
    pub(crate) ctx: Arc<Context>,
    pub(crate) handle: u32,
    destroyed: bool,
}

impl Context {
    /// Allocates a protection domain (ALLOC_PD by INVOKE_WRITE, else `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw (nothing sent);
    /// else the kernel's errno.
    #[doc(alias = "ibv_alloc_pd")]
    pub fn alloc_pd(self: &Arc<Self>) -> Result<Pd> {
        const OP: &str = "ALLOC_PD";
        check_driver(self, OP)?;
        let mut resp = [0u8; core::mem::size_of::<ib_uverbs_alloc_pd_resp>() + DRIVER_OUT];
        run_cmd(
            self,
            &ib_uverbs_alloc_pd::default(),
            DriverIn::NONE,
            &mut resp,
        )
        .map_err(|e| failed(self, OP, e))?;
        let (r, _) =
            ib_uverbs_alloc_pd_resp::read_from_prefix(&resp[..]).map_err(|_| protocol(self, OP))?;
        Ok(Pd(Arc::new(PdInner {
            ctx: self.clone(),
            handle: r.pd_handle,
            destroyed: false,
        })))
    }
}

pub(crate) fn protocol(ctx: &Context, what: &'static str) -> Error {
    Error::Protocol {
        op: Op::new(what, ctx.name()),
        detail: "short response".into(),
    }
}

impl Pd {
    /// The kernel's handle of the PD.
    pub fn handle(&self) -> u32 {
        self.0.handle
    }

    /// The context the PD belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.0.ctx
    }

    /// Deallocates the PD now and returns the kernel's answer. Only the last handle can:
    /// while clones or child objects hold it, this is [`Error::InUse`] (nothing sent),
    /// with the PD given back.
    ///
    /// # Errors
    ///
    /// [`Error::InUse`]; else the kernel's errno (e.g. `EBUSY`), with the PD given back.
    #[doc(alias = "ibv_dealloc_pd")]
    pub fn try_destroy(self) -> core::result::Result<(), (Pd, Error)> {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => match inner.destroy() {
                Ok(()) => {
                    inner.destroyed = true;
                    Ok(())
                }
                Err(e) => Err((Pd(Arc::new(inner)), e)),
            },
            Err(arc) => {
                let users = Arc::strong_count(&arc) - 1;
                let op = Op::new("DEALLOC_PD", arc.ctx.name());
                Err((Pd(arc), Error::InUse { op, users }))
            }
        }
    }
}

impl PdInner {
    fn destroy(&self) -> Result<()> {
        destroy_pd_handle(&self.ctx, self.handle).map_err(|e| failed(&self.ctx, "DEALLOC_PD", e))
    }
}

/// PD_DESTROY by ioctl, else DEALLOC_PD by `write()`, of any handle (the probe sends it
/// for a PD that still has a QP, to see the kernel refuse).
pub(crate) fn destroy_pd_handle(
    ctx: &Context,
    handle: u32,
) -> core::result::Result<(), rustix::io::Errno> {
    let file = ctx.raw();
    ioctl_or_write(ctx, Interface::DestroyIoctl, |ioctl| {
        if ioctl {
            file.call(&mut method::destroy_pd(file.driver_id(), handle))
        } else {
            let cmd = ib_uverbs_dealloc_pd { pd_handle: handle };
            file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut []))
        }
    })
}

impl Drop for PdInner {
    fn drop(&mut self) {
        if !self.destroyed {
            if let Err(e) = self.destroy() {
                self.ctx.record_destroy_error(e);
            }
        }
    }
}
