//! [`VerbsFile`]: an open `/dev/infiniband/uverbsN`, the one handle through which every
//! request reaches the kernel.
//!
//! Requests made by the builders of [`method`](super::method) run safely
//! ([`VerbsFile::call`], [`VerbsFile::write`]). Requests a caller assembles by hand run
//! only through the `unsafe` [`VerbsFile::ioctl`] and [`VerbsFile::write_command`]: the
//! kernel decides from an attribute's id, not from how it was built, whether it writes
//! through it, so the caller must prove what the kernel will write where.
#![allow(unsafe_code)]

use std::os::fd::OwnedFd;
use std::sync::Arc;

use rustix::io::Errno;
use zerocopy::FromBytes;

use crate::raw::abi::ib_uverbs_get_context_resp;
use crate::raw::abi::ib_uverbs_post_send_resp;
use crate::raw::attr::IoctlBuf;
use crate::raw::driver::UdataIn;
use crate::raw::fallback::{CallPath, Caps};
use crate::raw::lifeline::{Lifeline, RevocableFd, RevocableMap};
use crate::raw::method::{self, Request, WriteRequest, MAX_WRITE_CMD};
use crate::raw::ring::Doorbell;
use crate::raw::sys;

/// An open uverbs file: its descriptor, the device's `rdma_driver_id` (sent in every
/// ioctl header), and the interfaces the kernel has said it lacks ([`Caps`]).
///
/// The descriptor is not lent out: a safe `write(2)` on it could carry any command, with
/// any response address.
///
/// A hand-built request cannot run from safe code:
///
/// ```compile_fail,E0133
/// # fn main() -> uverbs::Result<()> {
/// use uverbs::raw::abi::*;
/// use uverbs::raw::attr::IoctlBuf;
/// let ctx = uverbs::Context::open_by_name("rxe0")?;
/// let victim = 0x1111_1111_1111_1111u64;
/// let mut buf = IoctlBuf::<4>::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE, 14);
/// // RESP_NUM_ENTRIES is an output: the kernel would write 8 bytes at &victim.
/// buf.const_in(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &victim as *const u64 as u64, true);
/// ctx.raw().ioctl(&mut buf); // error[E0133]: call to unsafe function
/// # Ok(()) }
/// ```
///
/// Nor can a hand-built `write()` command:
///
/// ```compile_fail,E0133
/// # fn main() -> uverbs::Result<()> {
/// let ctx = uverbs::Context::open_by_name("rxe0")?;
/// let mut resp = [0u8; 176];
/// // REG_MR's body names an address the device may write to later.
/// let rest = [0u8; 40];
/// ctx.raw().write_command(9 /* IB_USER_VERBS_CMD_REG_MR */, &rest, &mut resp);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct VerbsFile {
    fd: RevocableFd,
    driver_id: u32,
    /// Whether the kernel has confirmed `driver_id` (the INVOKE_WRITE probe), which
    /// driver data needs: an id given by the caller ([`OpenTarget::driver_id`]) is not
    /// trusted with it.
    ///
    /// [`OpenTarget::driver_id`]: crate::verbs::context::OpenTarget::driver_id
    driver_confirmed: core::sync::atomic::AtomicBool,
    caps: Caps,
    id: u64,
}

/// Numbers the files of this process, so that a handle or registration made on one is
/// never taken for another's.
static NEXT_FILE_ID: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);

impl VerbsFile {
    /// A file whose driver id is known (or still to be probed: see
    /// [`Self::set_driver_id`]). Only for a character device checked to be a uverbs node.
    pub(crate) fn new(fd: OwnedFd, driver_id: u32) -> Self {
        VerbsFile {
            fd: Lifeline::new().adopt(fd),
            driver_id,
            driver_confirmed: core::sync::atomic::AtomicBool::new(false),
            caps: Caps::default(),
            id: NEXT_FILE_ID.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The driver id `probe_driver_id` found: `confirmed` when the kernel answered the
    /// probe for it (not when it had no ioctl interface to ask, and a guess stands).
    pub(crate) fn set_driver_id(&mut self, driver_id: u32, confirmed: bool) {
        self.driver_id = driver_id;
        *self.driver_confirmed.get_mut() = confirmed;
    }

    /// Makes sure the kernel agrees that this file's device has driver id
    /// [`Self::driver_id`], asking it once (rdma-core's INVOKE_WRITE probe: `ENOSPC` when
    /// the header's driver id is the device's, `EINVAL` when not). Driver data is sent
    /// only after this: it names memory or not depending on the driver that reads it.
    ///
    /// # Errors
    ///
    /// `EINVAL` when the id is not the device's; `EOPNOTSUPP` when the kernel has no
    /// INVOKE_WRITE to ask with (driver data cannot be sent then); else the probe's
    /// errno.
    #[inline]
    pub fn confirm_driver(&self) -> Result<(), Errno> {
        if self
            .driver_confirmed
            .load(core::sync::atomic::Ordering::Acquire)
        {
            return Ok(());
        }
        self.ask_driver()
    }

    /// [`Self::confirm_driver`]'s question to the kernel (once a file).
    #[cold]
    #[inline(never)]
    fn ask_driver(&self) -> Result<(), Errno> {
        match self.driver_is(self.driver_id) {
            Ok(true) => {
                self.driver_confirmed
                    .store(true, core::sync::atomic::Ordering::Release);
                Ok(())
            }
            Ok(false) => Err(Errno::INVAL),
            Err(e) if crate::raw::fallback::no_ioctl_method(e) => Err(Errno::OPNOTSUPP),
            Err(e) => Err(e),
        }
    }

    /// Whether the device's driver id is `id`, by rdma-core's harmless INVOKE_WRITE
    /// probe: the kernel checks the header's driver id first (`EINVAL` when wrong), then
    /// answers `ENOSPC` for the missing buffers, changing nothing.
    ///
    /// # Errors
    ///
    /// Any other answer of the kernel (a kernel without the ioctl interface answers one
    /// that [`no_ioctl_method`](crate::raw::fallback) recognises).
    pub(crate) fn driver_is(&self, id: u32) -> Result<bool, Errno> {
        match self.call(&mut method::invoke_write_probe(id)) {
            Ok(()) | Err(Errno::NOSPC) => Ok(true),
            Err(Errno::INVAL) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Whether a `write()` command carrying driver data for driver `udata` (0: none) may
    /// go to this file: its driver's, confirmed by the kernel. One compare when it
    /// carries none. (An ioctl request needs no such check: its header names the driver,
    /// and the kernel compares that with the device's own: `Request::with_udata`.)
    #[inline(always)]
    fn check_udata(&self, udata: u32) -> Result<(), Errno> {
        if udata == 0 {
            return Ok(());
        }
        self.check_udata_for(udata)
    }

    /// [`Self::check_udata`] of a command that carries driver data.
    #[inline(never)]
    fn check_udata_for(&self, udata: u32) -> Result<(), Errno> {
        // (UDATA_MISMATCH is no driver's id, whatever id the file was given)
        if udata != self.driver_id || udata == method::UDATA_MISMATCH {
            return Err(Errno::INVAL);
        }
        self.confirm_driver()
    }

    /// The lifeline of this file and of every file made from it (async event files,
    /// completion channels): [`Lifeline::revoke`] lets go of them all.
    pub fn lifeline(&self) -> &Arc<Lifeline> {
        self.fd.lifeline()
    }

    /// True once the file was revoked: every call fails, and its errors mean that the
    /// device was removed.
    pub fn is_revoked(&self) -> bool {
        self.fd.lifeline().is_revoked()
    }

    /// This file's number among the files of the process (from 1).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The device's `rdma_driver_id` (`RDMA_DRIVER_*`).
    pub fn driver_id(&self) -> u32 {
        self.driver_id
    }

    /// The interfaces the kernel has answered "unknown" to on this file.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// Issues a request made by a builder of [`method`](super::method), and returns the
    /// kernel's errno as it is. `ioctl(fd, RDMA_VERBS_IOCTL, req)`.
    ///
    /// # Errors
    ///
    /// The kernel's errno: see the method's documentation in the kernel
    /// (`EINVAL` for a bad argument, `EPROTONOSUPPORT` for a method it lacks, ...).
    pub fn call<const N: usize>(&self, req: &mut Request<'_, N>) -> Result<(), Errno> {
        self.lifeline().check_injected()?;
        // SAFETY: a Request is made only by the builders of raw::method, each of which
        // pushes every attribute id of its method with the kind the kernel's spec gives
        // it, borrows every output mutably and every input for the request's life, and
        // carries driver data only from a Udata type made for that command, whose
        // driver the header names, so that the kernel refuses it on any other device
        // (Request::with_udata; see raw::method's module docs and SAFETY.md): exactly
        // sys::verbs_ioctl's contract.
        unsafe { sys::verbs_ioctl(self.fd.fd(), req.buf_mut()) }
    }

    /// Issues a `write()` command made by a builder of [`method`](super::method).
    ///
    /// # Errors
    ///
    /// The kernel's errno, or `EIO` if it took fewer bytes than the command has.
    pub fn write(&self, req: &mut WriteRequest<'_>) -> Result<(), Errno> {
        self.lifeline().check_injected()?;
        self.check_udata(req.udata_driver())?;
        let mut bytes = [0u8; MAX_WRITE_CMD];
        let n = req.encode(&mut bytes)?;
        // SAFETY: WriteRequest::encode puts the address of the request's response buffer,
        // exclusively borrowed for the request's life, in the response pointer, with
        // `out_words` from its length; the bodies are those of the builders of
        // raw::method, which carry no other address for the driver they go to
        // (check_udata, above; SAFETY.md). The fd is a uverbs node
        // (Context::open checks that the kernel lists the character device as one).
        unsafe { sys::write_command(self.fd.fd(), &bytes[..n]) }
    }

    /// Issues an ioctl the caller built: `ioctl(fd, RDMA_VERBS_IOCTL, buf)`. For methods
    /// and attributes this crate does not wrap, and for ABI testing.
    ///
    /// # Safety
    ///
    /// The kernel reads and writes through each attribute as the method's spec says for
    /// that attribute id, whatever builder made it. For every attribute of `buf`:
    ///
    /// - an id the method writes through (`PTR_OUT`) must have been added with
    ///   [`IoctlBuf::ptr_out`], so that it points at memory lent for the call;
    /// - an id the method reads through must carry readable memory of its `len`
    ///   (`ptr_in`, `enum_in`) or an inline value (`const_in`);
    /// - `IDR` and `FD` ids must carry handles and descriptors of this file's objects
    ///   (`idr_in`, `idr_new`, `fd_in`, `fd_new`);
    /// - no attribute may make the kernel keep an address past the call (a memory
    ///   registration, a queue buffer, driver data naming user memory) unless that
    ///   memory stays valid, and is not otherwise used in ways the device's writes could
    ///   break, for as long as the kernel keeps it.
    ///
    /// A file descriptor the kernel creates (an `FD` attribute of access NEW) is the
    /// caller's to close.
    ///
    /// A QUERY_PORT built by hand, the way the contract asks:
    ///
    /// ```no_run
    /// # fn main() -> uverbs::Result<()> {
    /// use uverbs::raw::abi::*;
    /// use uverbs::raw::attr::IoctlBuf;
    /// use zerocopy::IntoBytes;
    /// let ctx = uverbs::Context::open_by_name("rxe0")?;
    /// let mut resp = ib_uverbs_query_port_resp_ex::default();
    /// let mut buf = IoctlBuf::<2>::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, ctx.driver_id());
    /// buf.const_in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1, true);
    /// buf.ptr_out(UVERBS_ATTR_QUERY_PORT_RESP, resp.as_mut_bytes(), true);
    /// // SAFETY: PORT_NUM is a CONST_IN the kernel only reads; RESP is the PTR_OUT it
    /// // writes, lent as `resp` (48 bytes, any bit pattern valid); nothing else.
    /// unsafe { ctx.raw().ioctl(&mut buf) }.expect("QUERY_PORT");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// The kernel's errno, as it is.
    #[doc(alias = "execute_ioctl")]
    pub unsafe fn ioctl<const N: usize>(&self, buf: &mut IoctlBuf<'_, N>) -> Result<(), Errno> {
        self.lifeline().check_injected()?;
        // SAFETY: the caller's contract above is sys::verbs_ioctl's.
        unsafe { sys::verbs_ioctl(self.fd.fd(), buf) }
    }

    /// Issues a legacy `write()` command the caller built: `command`
    /// (`IB_USER_VERBS_CMD_*`, without the extended flag), the response pointer (to
    /// `resp`, whose length sets `out_words`), then `rest`: the command struct after its
    /// `response` field, and driver data.
    ///
    /// # Safety
    ///
    /// The kernel acts on what `rest` says. Any address in it (REG_MR's `start`, a
    /// driver's queue buffer) must be what that command expects, and the memory it names
    /// must stay valid, and not be used in ways the device's writes could break, for as
    /// long as the kernel keeps it. `resp` must be at least the command's response size
    /// (the kernel writes up to `resp.len()` bytes there, never more).
    ///
    /// # Errors
    ///
    /// `EINVAL` when the command is longer than [`MAX_WRITE_CMD`] bytes or a length is
    /// not a whole number of words; otherwise the kernel's errno.
    pub unsafe fn write_command(
        &self,
        command: u32,
        rest: &[u8],
        resp: &mut [u8],
    ) -> Result<(), Errno> {
        self.lifeline().check_injected()?;
        let mut req = method::write_request_raw(command, rest, resp);
        let mut bytes = [0u8; MAX_WRITE_CMD];
        let n = req.encode(&mut bytes)?;
        // SAFETY: the response pointer is `resp`'s, exclusively borrowed for the call,
        // with `out_words` from its length; what `rest` carries is the caller's contract.
        unsafe { sys::write_command(self.fd.fd(), &bytes[..n]) }
    }

    /// Maps `len` bytes of the file at mmap offset `offset` (a queue's cookie: rxe's
    /// `mminfo.offset`, siw's `*_key`), shared, under the file's lifeline (revoking it
    /// replaces the mapping; dropping the map unmaps it). `len` is rounded up to whole
    /// pages, as the kernel maps them.
    ///
    /// # Errors
    ///
    /// `ENODEV` once revoked; `EIO` with an injected disassociation; else the errno of
    /// `mmap(2)` (`EINVAL` for an offset the driver did not hand out or has already
    /// mapped, or a length past the queue).
    pub(crate) fn map_queue(&self, offset: u64, len: usize) -> Result<RevocableMap, Errno> {
        self.lifeline().check_injected()?;
        let page = rustix::param::page_size();
        let len = len.checked_add(page - 1).ok_or(Errno::INVAL)? & !(page - 1);
        self.fd.map_shared(offset, len)
    }

    /// Rings a QP's doorbell: POST_SEND without work requests by `write()`.
    ///
    /// # Errors
    ///
    /// The kernel's errno (`EINVAL` from rxe for a QP not yet in RTS, `ENOTCONN` from
    /// siw); `EBADF` once revoked; `EIO` with an injected disassociation.
    pub(crate) fn ring_doorbell(&self, db: &mut Doorbell) -> Result<(), Errno> {
        self.lifeline().check_injected()?;
        let (bytes, resp) = db.parts();
        debug_assert_eq!(
            bytes.get(8..16),
            Some(&(resp as *mut ib_uverbs_post_send_resp as u64).to_ne_bytes()[..])
        );
        // SAFETY: the bytes are write_post_send_doorbell's (Doorbell::new), a POST_SEND
        // with wr_count 0 that carries no address but the response pointer, which points
        // at `resp`: the doorbell's boxed response word, exclusively borrowed here for
        // the call (out_words 1: the kernel writes those 4 bytes and no more). The fd is
        // a uverbs node.
        unsafe { sys::write_command(self.fd.fd(), bytes) }
    }

    /// ASYNC_EVENT_ALLOC: a new async event file of this context, as an owned fd.
    ///
    /// # Errors
    ///
    /// The kernel's errno; `EIO` if it answered success without a descriptor.
    pub(crate) fn alloc_async_event_fd(&self) -> Result<RevocableFd, Errno> {
        let (mut req, slot) = method::async_event_alloc(self.driver_id);
        self.call(&mut req)?;
        // SAFETY: the FD attribute of access NEW at `slot` started as -1
        // (IoctlBuf::fd_new) and the call succeeded: the number in it is the descriptor
        // the kernel installed for this call a moment ago, which nothing else owns.
        let fd = unsafe { sys::take_new_fd(req.data(slot) as i64) }.ok_or(Errno::IO)?;
        Ok(self.lifeline().adopt(fd))
    }

    /// CREATE_COMP_CHANNEL (by INVOKE_WRITE, else `write()`): a new completion event
    /// file, as an owned fd.
    ///
    /// # Errors
    ///
    /// The kernel's errno; `EIO` if it answered success without a descriptor.
    pub(crate) fn create_comp_channel(&self, path: CallPath) -> Result<RevocableFd, Errno> {
        use crate::raw::abi::{ib_uverbs_create_comp_channel, ib_uverbs_create_comp_channel_resp};
        use crate::raw::fallback::{first_supported, no_ioctl_method, Attempt, Interface, Via};
        use crate::raw::method::DriverIn;
        let cmd = ib_uverbs_create_comp_channel::default();
        let run = |via: Via| -> Result<u32, Errno> {
            let mut resp = [0xffu8; core::mem::size_of::<ib_uverbs_create_comp_channel_resp>()];
            match via {
                // (the descriptor it creates is adopted below)
                Via::Ioctl => self.call(&mut method::invoke_any(
                    self.driver_id,
                    &cmd,
                    DriverIn::NONE,
                    &mut resp,
                ))?,
                _ => self.write(&mut method::write_any(&cmd, DriverIn::NONE, &mut resp))?,
            }
            Ok(
                ib_uverbs_create_comp_channel_resp::read_from_bytes(&resp[..])
                    .map_err(|_| Errno::IO)?
                    .fd,
            )
        };
        let fd = first_supported(
            self.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::InvokeWrite),
                    unknown: no_ioctl_method,
                    run: &mut || run(Via::Ioctl),
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut || run(Via::Write),
                },
            ],
        )? as i32;
        if fd == -1 {
            return Err(Errno::IO);
        }
        // SAFETY: `fd` started as -1 (all bits set) and the call succeeded, so the kernel
        // wrote the number of the completion channel file it installed for this command
        // a moment ago, which nothing else owns.
        let fd = unsafe { sys::take_new_fd(i64::from(fd)) }.ok_or(Errno::IO)?;
        Ok(self.lifeline().adopt(fd))
    }

    /// GET_CONTEXT by `write()`: creates the context and returns the core response and
    /// the async event file the command creates. `resp_driver` receives the driver's
    /// output.
    ///
    /// # Errors
    ///
    /// The kernel's errno; `EIO` if the call "succeeded" without writing a response
    /// (a file that is not a uverbs node would; a `VerbsFile` is only made for those).
    pub(crate) fn get_context_write(
        &self,
        udata_in: &UdataIn,
        resp_driver: &mut [u8],
    ) -> Result<(ib_uverbs_get_context_resp, RevocableFd), Errno> {
        const CORE: usize = core::mem::size_of::<ib_uverbs_get_context_resp>();
        let mut resp = [0u8; CORE + crate::raw::driver::UHW_OUT_LEN];
        let n = CORE + resp_driver.len().min(crate::raw::driver::UHW_OUT_LEN);
        // async_fd starts as -1: a "successful" write() that filled nothing must not make
        // us adopt a number we do not own.
        resp[..4].copy_from_slice(&(-1i32).to_ne_bytes());
        self.write(&mut method::write_get_context(udata_in, &mut resp[..n]))?;
        let (r, _) =
            ib_uverbs_get_context_resp::read_from_prefix(&resp[..]).map_err(|_| Errno::IO)?;
        let driver_len = n - CORE;
        resp_driver[..driver_len].copy_from_slice(&resp[CORE..n]);
        let fd = r.async_fd as i32;
        if fd == -1 {
            return Err(Errno::IO);
        }
        // SAFETY: the kernel replaced the -1 we put in `async_fd` with the descriptor of
        // the async event file it installed for this command; nothing else owns it.
        let owned = unsafe { sys::take_new_fd(i64::from(fd)) }.ok_or(Errno::IO)?;
        Ok((r, self.lifeline().adopt(owned)))
    }
}

/// The compile-fail examples of [`VerbsFile`], with their one difference: inside
/// `unsafe`, they compile. (Stable rustdoc does not check a `compile_fail` example's
/// error code, so this pins that the only error there is the missing `unsafe`.)
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// use uverbs::raw::abi::*;
/// use uverbs::raw::attr::IoctlBuf;
/// let ctx = uverbs::Context::open_by_name("rxe0")?;
/// let victim = 0x1111_1111_1111_1111u64;
/// let mut buf = IoctlBuf::<4>::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE, 14);
/// buf.const_in(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &victim as *const u64 as u64, true);
/// let _ = unsafe { ctx.raw().ioctl(&mut buf) };
/// # Ok(()) }
/// ```
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// let ctx = uverbs::Context::open_by_name("rxe0")?;
/// let mut resp = [0u8; 176];
/// let rest = [0u8; 40];
/// let _ = unsafe { ctx.raw().write_command(9 /* IB_USER_VERBS_CMD_REG_MR */, &rest, &mut resp) };
/// # Ok(()) }
/// ```
#[cfg(doctest)]
pub struct CompileFailTwins;
