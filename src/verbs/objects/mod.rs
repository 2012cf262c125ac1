//! The verbs objects: protection domains ([`Pd`]), memory regions ([`Mr`]), completion
//! channels ([`CompChannel`]) and queues ([`Cq`]), queue pairs ([`Qp`]), address handles
//! ([`Ah`]) and shared receive queues ([`Srq`]), created in the kernel without a provider
//! library.
//!
//! ```no_run
//! # fn main() -> uverbs::Result<()> {
//! use std::sync::Arc;
//! use uverbs::verbs::objects::{ModifyQp, QpCap, QpInit};
//! use uverbs::{AccessFlags, Context, QpState, QpType};
//!
//! let ctx = Arc::new(Context::open_by_name("rxe0")?);
//! let pd = ctx.alloc_pd()?;
//! let cq = ctx.create_cq(16, None, 0)?;
//! let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
//!     max_send_wr: 8,
//!     max_recv_wr: 8,
//!     max_send_sge: 1,
//!     max_recv_sge: 1,
//!     max_inline_data: 0,
//! }))?;
//! qp.modify(
//!     &mut ModifyQp::new()
//!         .state(QpState::Init)
//!         .pkey_index(0)
//!         .port(1)
//!         .access(AccessFlags::REMOTE_WRITE),
//! )?;
//! let q = qp.query()?;
//! assert_eq!(q.state(), QpState::Init);
//! assert_eq!(q.attr().port_num, 1);
//! # Ok(())
//! # }
//! ```
//!
//! ## Ownership and order
//!
//! Every object holds what it was created from: a [`Pd`] holds its [`Context`], a
//! [`Qp`] its PD, CQs and SRQ, an [`Mr`] its PD and its memory. So a parent is destroyed
//! after its children, whatever order the handles are dropped in, and a context's file
//! is closed after its last object. [`Pd`], [`Cq`], [`Srq`] and [`CompChannel`] are
//! shared handles (cloning is cheap; the kernel object goes with the last clone);
//! [`Qp`], [`Mr`] and [`Ah`] are owned.
//!
//! `Drop` destroys the kernel object. A destroy that fails there cannot be returned: it
//! is kept on the context ([`Context::take_destroy_errors`]). Each type also has a
//! `try_destroy` that returns the kernel's answer, and the object with it when the
//! kernel refused.
//!
//! ## Interfaces
//!
//! Each method goes by the interface the kernel offers, as rdma-core does: the ioctl
//! method where one exists (CQ, QP and SRQ create and destroy; PD, MR and AH destroy),
//! else the `write()` command carried by INVOKE_WRITE, else `write()` itself. A context
//! opened with [`OpenOptions::objects`](crate::OpenOptions::objects) forces one.
//!
//! ## Drivers
//!
//! Objects are created on rxe and siw, whose queues live in kernel memory. Drivers whose
//! queues live in user memory (mlx5, mlx4, efa, irdma, ...) need queue buffers and
//! doorbells that only their provider library knows how to lay out: every creation
//! there fails with [`Error::DriverNotSupported`] before any request is sent.

mod ah;
mod cq;
mod mr;
mod pd;
mod qp;
mod srq;

pub use ah::{Ah, AhAttr, GlobalRoute};
pub use cq::{CompChannel, Cq};
pub use mr::Mr;
pub(crate) use pd::destroy_pd_handle;
pub use pd::Pd;
pub(crate) use qp::{modify_qp_raw_mask, query_qp_handle};
pub use qp::{AltPath, ModifyQp, Qp, QpAttr, QpCap, QpInit, QpInitAttr, QpQuery};
pub use srq::{ModifySrq, Srq, SrqAttr, SrqInit};

/// The memory a memory region owns (from the raw layer, which keeps the promise that the
/// device never reaches freed memory).
pub use crate::raw::mr::MrBuf;

use std::sync::Arc;

use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::raw::abi::{RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use crate::raw::fallback::{first_supported_by, no_ioctl_method, Interface, Route, Via};
use crate::raw::method::{self, DriverIn, WriteCommand};
use crate::verbs::context::Context;

/// Room for the driver's output of a create (rxe's largest is 32 bytes, siw's 32): the
/// kernel checks only that it is at least the driver's response.
pub(crate) const DRIVER_OUT: usize = 64;

/// The driver's name for messages: the crate's table, else the number.
fn driver_name(id: u32) -> String {
    crate::raw::driver::driver_name(id)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("#{id}"))
}

/// Checks that objects can be created on the context's driver, before any request.
///
/// The driver id is the kernel's, not only the caller's: an [`OpenTarget`] may say any id,
/// and the objects' queues, driver data and mappings are laid out per driver, so the
/// first object of a context asks the kernel to confirm it
/// ([`VerbsFile::confirm_driver`](crate::raw::VerbsFile::confirm_driver), once).
///
/// [`OpenTarget`]: crate::verbs::context::OpenTarget
#[inline]
pub(crate) fn check_driver(ctx: &Context, what: &'static str) -> Result<()> {
    match ctx.driver_id() {
        RDMA_DRIVER_RXE | RDMA_DRIVER_SIW => match ctx.raw().confirm_driver() {
            Ok(()) => Ok(()),
            Err(e) => Err(driver_error(ctx, what, Some(e))),
        },
        _ => Err(driver_error(ctx, what, None)),
    }
}

/// [`check_driver`]'s refusal: the kernel denied the driver id (`Some(EINVAL)`), could
/// not be asked (`Some(errno)`), or the driver is not one objects are made on (`None`).
#[cold]
#[inline(never)]
fn driver_error(ctx: &Context, what: &'static str, e: Option<Errno>) -> Error {
    let op = Op::new(what, ctx.name());
    match e {
        Some(Errno::INVAL) => Error::BadArgument {
            op,
            reason: format!(
                "the context was opened as a {} device, and the kernel says it is not one \
                 (OpenTarget::driver_id is not the device's)",
                driver_name(ctx.driver_id())
            ),
        },
        Some(e) => ctx.kernel_error(op, e),
        None => Error::DriverNotSupported {
            op,
            driver: driver_name(ctx.driver_id()),
        },
    }
}

/// `Err(BadArgument)` unless `other` is `ctx`, the context the object is created in: a
/// handle is a number in one context's table, and the kernel looks every handle of a
/// request up in the table of the file it comes on, so an object of another context
/// would be taken for whatever object of this one has its number (issue 39's hole E: a QP
/// bound to another CQ than the one it records). `what` names the operation, `role`
/// the argument (`"send CQ"`), `owner` the object it is checked against (`"PD"`).
#[inline(always)]
pub(crate) fn same_context(
    ctx: &Arc<Context>,
    other: &Arc<Context>,
    what: &'static str,
    role: &str,
    owner: &str,
) -> Result<()> {
    if Arc::ptr_eq(ctx, other) {
        return Ok(());
    }
    Err(other_context(ctx, other, what, role, owner))
}

/// [`same_context`]'s refusal, naming both contexts.
#[cold]
#[inline(never)]
fn other_context(
    ctx: &Arc<Context>,
    other: &Arc<Context>,
    what: &'static str,
    role: &str,
    owner: &str,
) -> Error {
    Error::BadArgument {
        op: Op::new(what, ctx.name()),
        reason: format!(
            "the {role} belongs to context #{} of {}, the {owner} to context #{} of {}: \
             objects of one context cannot use another's",
            other.serial(),
            other.name(),
            ctx.serial(),
            ctx.name()
        ),
    }
}

/// The routes of an object method: its ioctl (needing `needs`), then `write()`.
const fn routes(needs: Interface) -> [Route; 2] {
    [
        Route {
            via: Via::Ioctl,
            needs: Some(needs),
            unknown: no_ioctl_method,
        },
        Route {
            via: Via::Write,
            needs: None,
            unknown: last_route,
        },
    ]
}

/// The `write()` route is the last: no answer of it moves on.
fn last_route(_: Errno) -> bool {
    false
}

/// Sends a write command by INVOKE_WRITE, else `write()`, as the context's object path
/// says. `resp` receives the core response followed by the driver's output.
pub(crate) fn run_cmd<C: WriteCommand>(
    ctx: &Context,
    cmd: &C,
    udata_in: DriverIn<'_>,
    resp: &mut [u8],
) -> core::result::Result<(), Errno> {
    let file = ctx.raw();
    first_supported_by(
        file.caps(),
        ctx.objects_path(),
        const { &routes(Interface::InvokeWrite) },
        // Inlined into the fallback's common path, where `i` is 0: the request is built
        // in place and the write() route drops out.
        #[inline(always)]
        |i| match i {
            0 => file.call(&mut method::invoke_cmd(
                file.driver_id(),
                cmd,
                udata_in,
                resp,
            )),
            _ => write_cmd(file, cmd, udata_in, resp),
        },
    )
}

/// The `write()` route of [`run_cmd`], kept out of line so that the closure stays small
/// enough to be inlined into the fallback's common path.
#[inline(never)]
fn write_cmd<C: WriteCommand>(
    file: &crate::raw::VerbsFile,
    cmd: &C,
    udata_in: DriverIn<'_>,
    resp: &mut [u8],
) -> core::result::Result<(), Errno> {
    file.write(&mut method::write_cmd(cmd, udata_in, resp))
}

/// Runs `run(true)` (the ioctl method, needing `needs`), else `run(false)` (its
/// `write()` command), as the context's object path says.
pub(crate) fn ioctl_or_write<T>(
    ctx: &Context,
    needs: Interface,
    mut run: impl FnMut(bool) -> core::result::Result<T, Errno>,
) -> core::result::Result<T, Errno> {
    first_supported_by(ctx.raw().caps(), ctx.objects_path(), &routes(needs), |i| {
        run(i == 0)
    })
}

/// The error of a failed object call.
pub(crate) fn failed(ctx: &Context, what: &'static str, e: Errno) -> Error {
    ctx.kernel_error(Op::new(what, ctx.name()), e)
}
