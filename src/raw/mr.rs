//! Memory registration: the one place where the kernel is handed an address it keeps.
//!
//! REG_MR tells the device it may read, and with write access flags write, a range of
//! this process's memory until the region is deregistered. Rust cannot see those
//! accesses, so the memory must outlive the registration and must not be reached
//! through references while the device may write it. This module keeps that promise
//! with ownership:
//!
//! - [`MrBuf`] is page-aligned, zeroed heap memory that hands out no references: it is
//!   read and written by copies ([`MrBuf::read_at`], [`MrBuf::write_at`]) made of
//!   relaxed atomic accesses, since the device may write (or read) the same bytes at the
//!   same moment: a copy may see some words old and others new, never undefined
//!   behaviour.
//! - [`VerbsFile::reg_mr`] takes an `MrBuf` by value and returns a [`RegisteredMr`] that
//!   owns it and lends it only shared ([`RegisteredMr::buf`]), never `&mut` (which
//!   `mem::replace` could take the buffer out of, and free while the device still has
//!   the registration: issue 39's hole A). The only way back to the buffer is
//!   [`VerbsFile::dereg_mr`], which returns it once the kernel has confirmed the
//!   deregistration. A `RegisteredMr` dropped while still registered leaks its buffer
//!   instead of freeing memory the device may reach.
//!
//! A registered buffer cannot be taken out from under its registration:
//!
//! ```compile_fail,E0599
//! # fn main() -> uverbs::Result<()> {
//! use uverbs::raw::mr::MrBuf;
//! use uverbs::raw::CallPath;
//! let ctx = std::sync::Arc::new(uverbs::Context::open_by_name("rxe0")?);
//! let pd = ctx.alloc_pd()?;
//! let mut reg = ctx.raw().reg_mr(pd.handle(), MrBuf::new(4096).unwrap(), 7, CallPath::Auto).unwrap();
//! // error[E0599]: no method named `buf_mut`
//! let _freed = std::mem::replace(reg.buf_mut(), MrBuf::new(4096).unwrap());
//! # Ok(()) }
//! ```
//!
//! (The same lines with a copy in, [`RegisteredMr::write_at`], compile: see
//! `CompileFailTwins` below.)
//! - Registering memory the caller owns some other way is `unsafe`: the builders
//!   [`reg_mr`] and [`write_reg_mr`] have a `# Safety` contract.
#![allow(unsafe_code)]

use core::ptr::NonNull;
use std::alloc::Layout;

use rustix::io::Errno;
use zerocopy::{FromBytes, IntoBytes};

use crate::raw::abi::*;
use crate::raw::driver::siw_ureq_reg_mr;
use crate::raw::fallback::{first_supported, no_ioctl_method, Attempt, CallPath, Interface, Via};
use crate::raw::method::{self, split_resp, DriverIn, Request, WriteRequest};
use crate::raw::VerbsFile;

/// The alignment of an [`MrBuf`]: a page.
pub const MR_ALIGN: usize = 4096;

/// Page-aligned, zeroed memory for a memory region, owned and never lent out as a
/// reference (the device may write it while it is registered).
#[derive(Debug)]
pub struct MrBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: an MrBuf owns its allocation exclusively (like a Box<[u8]>); it hands out no
// reference, and its methods copy through its own pointer under &self (reads) or
// &mut self (writes), so moving it to, or sharing it with, another thread is as safe
// as for Box<[u8]>.
unsafe impl Send for MrBuf {}
// SAFETY: see Send: shared access only reads, by copy.
unsafe impl Sync for MrBuf {}

impl MrBuf {
    /// `len` zeroed bytes, page-aligned (the allocation is rounded up to whole pages).
    ///
    /// # Errors
    ///
    /// `EINVAL` for 0 bytes or a size past `isize::MAX`; `ENOMEM` when the allocator
    /// fails.
    pub fn new(len: usize) -> Result<MrBuf, Errno> {
        let layout = Self::layout(len).ok_or(Errno::INVAL)?;
        // SAFETY: the layout has a non-zero size (len > 0, rounded up to a page).
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or(Errno::NOMEM)?;
        Ok(MrBuf { ptr, len })
    }

    fn layout(len: usize) -> Option<Layout> {
        if len == 0 {
            return None;
        }
        let size = len.checked_add(MR_ALIGN - 1)? & !(MR_ALIGN - 1);
        Layout::from_size_align(size, MR_ALIGN).ok()
    }

    /// A buffer holding a copy of `data`.
    ///
    /// # Errors
    ///
    /// As [`MrBuf::new`].
    pub fn from_slice(data: &[u8]) -> Result<MrBuf, Errno> {
        let mut b = MrBuf::new(data.len())?;
        b.write_at(0, data);
        Ok(b)
    }

    /// Its length in bytes (as asked for; the allocation is whole pages).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a buffer has at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The address of its first byte (what REG_MR registers, and what scatter/gather
    /// entries name).
    pub fn addr(&self) -> u64 {
        self.ptr.as_ptr() as u64
    }

    /// Copies `dst.len()` bytes from `offset` into `dst`. False (and nothing copied)
    /// when the range is outside the buffer.
    ///
    /// While the buffer is registered the device may be writing it during the copy: each
    /// aligned 8-byte word (and each byte outside them) is read whole, as it was before
    /// or after the device's write, with no order between words (a completion read
    /// first orders the data it announces, as the verbs always required).
    pub fn read_at(&self, offset: usize, dst: &mut [u8]) -> bool {
        let Some(end) = offset.checked_add(dst.len()) else {
            return false;
        };
        if end > self.len {
            return false;
        }
        // SAFETY: [offset, end) is inside the allocation (checked above), which lives as
        // long as `self`; `dst` is a distinct allocation (a &mut the caller owns).
        unsafe { copy_out(self.ptr.as_ptr().add(offset), dst) };
        true
    }

    /// Copies `src` to `offset`. False (and nothing copied) when the range is outside the
    /// buffer. While the buffer is registered, the device may read it during the copy:
    /// word by word, as [`MrBuf::read_at`].
    pub fn write_at(&mut self, offset: usize, src: &[u8]) -> bool {
        let Some(end) = offset.checked_add(src.len()) else {
            return false;
        };
        if end > self.len {
            return false;
        }
        // SAFETY: [offset, end) is inside the allocation, which lives as long as `self`;
        // `src` cannot overlap it (no reference into an MrBuf exists).
        unsafe { copy_in(src, self.ptr.as_ptr().add(offset)) };
        true
    }

    /// The whole buffer, copied out.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len];
        self.read_at(0, &mut v);
        v
    }
}

/// Copies `dst.len()` bytes from `src` into `dst` with relaxed atomic loads: bytes up
/// to an 8-byte boundary, then whole aligned words, then the last bytes. Memory the
/// device (or the kernel for it) writes at the same moment is then a race of atomics,
/// not undefined behaviour; on x86_64 and aarch64 each access is a plain load.
///
/// # Safety
///
/// `src..src + dst.len()` is valid for reads and reached by no `&mut` reference; it does
/// not overlap `dst`.
unsafe fn copy_out(src: *const u8, dst: &mut [u8]) {
    use core::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
    let n = dst.len();
    let head = src.align_offset(8).min(n);
    let words = (n - head) / 8;
    for (i, d) in dst[..head].iter_mut().enumerate() {
        // SAFETY: inside the range (i < head <= n); an AtomicU8 needs no alignment; the
        // bytes are only ever accessed by copies (never by reference).
        *d = unsafe { AtomicU8::from_ptr(src.add(i).cast_mut()) }.load(Relaxed);
    }
    for (w, d) in dst[head..head + words * 8].chunks_exact_mut(8).enumerate() {
        // SAFETY: `src + head` is 8-aligned (align_offset), so each word is aligned and
        // inside the range (head + 8 * (w + 1) <= n).
        let v = unsafe { AtomicU64::from_ptr(src.add(head + 8 * w).cast::<u64>().cast_mut()) }
            .load(Relaxed);
        d.copy_from_slice(&v.to_ne_bytes());
    }
    for (i, d) in dst.iter_mut().enumerate().skip(head + words * 8) {
        // SAFETY: inside the range (i < n).
        *d = unsafe { AtomicU8::from_ptr(src.add(i).cast_mut()) }.load(Relaxed);
    }
}

/// Copies `src` to `dst` with relaxed atomic stores, in the same pieces as [`copy_out`].
///
/// # Safety
///
/// `dst..dst + src.len()` is valid for writes and reached by no reference; it does not
/// overlap `src`.
unsafe fn copy_in(src: &[u8], dst: *mut u8) {
    use core::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
    let n = src.len();
    let head = dst.align_offset(8).min(n);
    let words = (n - head) / 8;
    for (i, b) in src[..head].iter().enumerate() {
        // SAFETY: inside the range; no alignment needed; never reached by reference.
        unsafe { AtomicU8::from_ptr(dst.add(i)) }.store(*b, Relaxed);
    }
    for (w, c) in src[head..head + words * 8].chunks_exact(8).enumerate() {
        let mut v = [0u8; 8];
        v.copy_from_slice(c);
        // SAFETY: `dst + head` is 8-aligned, each word inside the range.
        unsafe { AtomicU64::from_ptr(dst.add(head + 8 * w).cast::<u64>()) }
            .store(u64::from_ne_bytes(v), Relaxed);
    }
    for (i, b) in src.iter().enumerate().skip(head + words * 8) {
        // SAFETY: inside the range.
        unsafe { AtomicU8::from_ptr(dst.add(i)) }.store(*b, Relaxed);
    }
}

impl Drop for MrBuf {
    fn drop(&mut self) {
        if let Some(layout) = Self::layout(self.len) {
            // SAFETY: `ptr` came from alloc_zeroed with this very layout (same `len`), and
            // is freed once, here.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

/// A registered memory region that owns its memory: the kernel's handle and keys, and
/// the [`MrBuf`] the device may access. Made by [`VerbsFile::reg_mr`]; undone by
/// [`VerbsFile::dereg_mr`] on the same file. Dropped while registered, it leaks its
/// buffer (the device could still reach it); the kernel frees the registration with
/// the context.
#[derive(Debug)]
pub struct RegisteredMr {
    buf: Option<MrBuf>,
    file_id: u64,
    handle: u32,
    lkey: u32,
    rkey: u32,
    access: u32,
}

impl RegisteredMr {
    /// The kernel's handle of the MR.
    pub fn handle(&self) -> u32 {
        self.handle
    }
    /// The local key.
    pub fn lkey(&self) -> u32 {
        self.lkey
    }
    /// The remote key.
    pub fn rkey(&self) -> u32 {
        self.rkey
    }
    /// The access flags it was registered with (`IB_UVERBS_ACCESS_*`).
    pub fn access(&self) -> u32 {
        self.access
    }
    /// The registered memory (read it by copy; the device may write it).
    pub fn buf(&self) -> &MrBuf {
        // `buf` is Some from registration until dereg_mr or drop take it.
        self.buf
            .as_ref()
            .unwrap_or_else(|| unreachable!("a RegisteredMr owns its buffer"))
    }
    /// Copies `src` into the registered memory at `offset` ([`MrBuf::write_at`]); false
    /// when the range is outside it. The buffer itself is never lent mutably: a
    /// `&mut MrBuf` could be swapped out and freed while registered.
    pub fn write_at(&mut self, offset: usize, src: &[u8]) -> bool {
        match self.buf.as_mut() {
            Some(b) => b.write_at(offset, src),
            None => false,
        }
    }
}

/// The compile-fail example of the module docs, with its one difference: writing by
/// copy instead of taking the buffer out compiles.
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// use uverbs::raw::mr::MrBuf;
/// use uverbs::raw::CallPath;
/// let ctx = std::sync::Arc::new(uverbs::Context::open_by_name("rxe0")?);
/// let pd = ctx.alloc_pd()?;
/// let mut reg = ctx.raw().reg_mr(pd.handle(), MrBuf::new(4096).unwrap(), 7, CallPath::Auto).unwrap();
/// let _ = reg.write_at(0, &[1; 4096]);
/// # Ok(()) }
/// ```
#[cfg(doctest)]
pub struct CompileFailTwins;

impl Drop for RegisteredMr {
    fn drop(&mut self) {
        // Still registered as far as we know: the device may reach this memory until the
        // kernel tears the registration down, so it must never be freed or reused.
        if let Some(b) = self.buf.take() {
            core::mem::forget(b);
        }
    }
}

/// The driver data of REG_MR: siw requires its `siw_ureq_reg_mr` (key byte 0, as
/// rdma-core's libsiw sends); every other driver this crate creates objects on takes
/// none.
fn reg_mr_udata(driver_id: u32) -> Option<siw_ureq_reg_mr> {
    (driver_id == RDMA_DRIVER_SIW).then(siw_ureq_reg_mr::default)
}

/// Room for REG_MR's driver output (siw's `siw_uresp_reg_mr` is 8 bytes).
const REG_MR_DRIVER_OUT: usize = 16;

impl VerbsFile {
    /// REG_MR of `buf` (whole, at its own address as the I/O virtual address) in the PD
    /// `pd`, with `access` (`IB_UVERBS_ACCESS_*`): by INVOKE_WRITE, else `write()`.
    ///
    /// # Errors
    ///
    /// The kernel's errno, with the buffer given back.
    pub fn reg_mr(
        &self,
        pd: u32,
        buf: MrBuf,
        access: u32,
        path: CallPath,
    ) -> Result<RegisteredMr, (MrBuf, Errno)> {
        let cmd = ib_uverbs_reg_mr {
            start: buf.addr(),
            length: buf.len() as u64,
            hca_va: buf.addr(),
            pd_handle: pd,
            access_flags: access,
            ..Default::default()
        };
        // SAFETY: the memory is `buf`'s, which the returned RegisteredMr owns: it is freed
        // only after dereg_mr confirms the deregistration (or leaked), and no reference
        // to it exists (MrBuf copies in and out).
        match unsafe { self.reg_mr_raw(&cmd, path) } {
            Ok((handle, lkey, rkey)) => Ok(RegisteredMr {
                buf: Some(buf),
                file_id: self.id(),
                handle,
                lkey,
                rkey,
                access,
            }),
            Err(e) => Err((buf, e)),
        }
    }

    /// REG_MR of the memory `cmd` names; returns (handle, lkey, rkey).
    ///
    /// # Safety
    ///
    /// As [`reg_mr`] (the builder).
    unsafe fn reg_mr_raw(
        &self,
        cmd: &ib_uverbs_reg_mr,
        path: CallPath,
    ) -> Result<(u32, u32, u32), Errno> {
        let udata = reg_mr_udata(self.driver_id());
        let udata_in = udata.as_ref().map_or(DriverIn::NONE, DriverIn::of);
        let mut ioctl = || {
            let mut resp = [0u8; core::mem::size_of::<ib_uverbs_reg_mr_resp>() + REG_MR_DRIVER_OUT];
            // SAFETY: the caller's contract (this function's).
            let mut req = unsafe { reg_mr(self.driver_id(), cmd, udata_in, &mut resp) };
            self.call(&mut req)?;
            Ok(ib_uverbs_reg_mr_resp::read_from_prefix(&resp[..])
                .map_err(|_| Errno::IO)?
                .0)
        };
        let mut write = || {
            let mut resp = [0u8; core::mem::size_of::<ib_uverbs_reg_mr_resp>() + REG_MR_DRIVER_OUT];
            // SAFETY: the caller's contract (this function's).
            let mut req = unsafe { write_reg_mr(cmd, udata_in, &mut resp) };
            self.write(&mut req)?;
            Ok(ib_uverbs_reg_mr_resp::read_from_prefix(&resp[..])
                .map_err(|_| Errno::IO)?
                .0)
        };
        let r = first_supported(
            self.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::InvokeWrite),
                    unknown: no_ioctl_method,
                    run: &mut ioctl,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut write,
                },
            ],
        )?;
        Ok((r.mr_handle, r.lkey, r.rkey))
    }

    /// Deregisters `mr` (MR_DESTROY by ioctl, else DEREG_MR by `write()`) and gives its
    /// memory back.
    ///
    /// # Errors
    ///
    /// `EBADF` when `mr` was registered on another file (nothing is sent); else the
    /// kernel's errno, with the MR given back still registered.
    pub fn dereg_mr(
        &self,
        mr: RegisteredMr,
        path: CallPath,
    ) -> Result<MrBuf, (RegisteredMr, Errno)> {
        if mr.file_id != self.id() {
            return Err((mr, Errno::BADF));
        }
        match self.destroy_mr_handle(mr.handle, path) {
            Ok(()) => {
                let mut mr = mr;
                match mr.buf.take() {
                    Some(b) => Ok(b),
                    None => Err((mr, Errno::IO)),
                }
            }
            Err(e) => Err((mr, e)),
        }
    }

    /// MR_DESTROY by handle, else DEREG_MR.
    pub(crate) fn destroy_mr_handle(&self, handle: u32, path: CallPath) -> Result<(), Errno> {
        let id = self.driver_id();
        let mut ioctl = || self.call(&mut method::destroy_mr(id, handle));
        let mut write = || {
            let cmd = ib_uverbs_dereg_mr { mr_handle: handle };
            self.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut []))
        };
        first_supported(
            self.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::DestroyIoctl),
                    unknown: no_ioctl_method,
                    run: &mut ioctl,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut write,
                },
            ],
        )
    }

    /// The kernel's answer to REG_MR of `len` bytes at an address where nothing is
    /// mapped (for the error-path probe): `EFAULT` is expected. The request grants the
    /// device no access at all (access flags 0: not even local write), and should the
    /// kernel register anything, it is deregistered before this returns; so even if
    /// another thread maps memory there meanwhile, the device never writes it.
    pub fn reg_mr_unmapped_probe(&self, pd: u32, path: CallPath) -> Result<(), Errno> {
        // A page reserved and released: nothing is mapped there now.
        let addr = unmapped_page()?;
        let cmd = ib_uverbs_reg_mr {
            start: addr,
            length: MR_ALIGN as u64,
            hca_va: addr,
            pd_handle: pd,
            access_flags: 0,
            ..Default::default()
        };
        // SAFETY: access flags 0 give the device no write access to the range, and a
        // registration that succeeds anyway is undone at once (below), before anything
        // could map memory there and rely on it.
        match unsafe { self.reg_mr_raw(&cmd, path) } {
            Ok((handle, _, _)) => {
                let _ = self.destroy_mr_handle(handle, path);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// The address of a page that was mapped and unmapped a moment ago.
fn unmapped_page() -> Result<u64, Errno> {
    use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
    // SAFETY: an anonymous private mapping at an address the kernel chooses touches no
    // existing memory.
    let p = unsafe {
        mmap_anonymous(
            core::ptr::null_mut(),
            MR_ALIGN,
            ProtFlags::empty(),
            MapFlags::PRIVATE,
        )
    }?;
    // SAFETY: `p` is the mapping just made, of that length, which nothing else uses.
    unsafe { munmap(p, MR_ALIGN) }?;
    Ok(p as u64)
}

/// REG_MR by INVOKE_WRITE: registers `[cmd.start, cmd.start + cmd.length)` for the
/// device with `cmd.access_flags`. `resp` receives `ib_uverbs_reg_mr_resp` and the
/// driver's output.
///
/// # Safety
///
/// The device may read, and with write access flags write, the region from the call
/// until the region is deregistered, whatever Rust does with that memory. The caller
/// guarantees that `[start, start + length)` is memory it owns, that stays allocated and
/// is reached through no reference the device's writes would break until the MR is
/// deregistered (or the context is gone); or that the access flags grant the device no
/// write and the MR is deregistered before the memory is reused.
pub unsafe fn reg_mr<'a>(
    driver_id: u32,
    cmd: &'a ib_uverbs_reg_mr,
    udata_in: DriverIn<'a>,
    resp: &'a mut [u8],
) -> Request<'a, 5> {
    let mut buf = crate::raw::attr::IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_INVOKE_WRITE,
        driver_id,
    );
    buf.const_in(
        UVERBS_ATTR_WRITE_CMD,
        u64::from(IB_USER_VERBS_CMD_REG_MR),
        true,
    );
    buf.ptr_in(UVERBS_ATTR_CORE_IN, cmd.as_bytes(), true);
    let (core, driver) = split_resp::<ib_uverbs_reg_mr_resp>(resp);
    buf.ptr_out(UVERBS_ATTR_CORE_OUT, core, true);
    if !udata_in.bytes.is_empty() {
        buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.bytes, true);
    }
    if !driver.is_empty() {
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, driver, true);
    }
    Request::built(buf).with_udata(udata_in.driver_for(IB_USER_VERBS_CMD_REG_MR))
}

/// REG_MR by `write()`.
///
/// # Safety
///
/// As [`reg_mr`].
pub unsafe fn write_reg_mr<'a>(
    cmd: &ib_uverbs_reg_mr,
    udata_in: DriverIn<'_>,
    resp: &'a mut [u8],
) -> WriteRequest<'a> {
    let core = &cmd.as_bytes()[8..];
    WriteRequest::assemble(
        IB_USER_VERBS_CMD_REG_MR,
        false,
        true,
        &[core, udata_in.bytes],
        resp,
    )
    .with_udata(udata_in.driver_for(IB_USER_VERBS_CMD_REG_MR))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_buf_copies_in_and_out_within_bounds() {
        let mut b = MrBuf::new(10).unwrap();
        assert_eq!(b.addr() % MR_ALIGN as u64, 0, "page-aligned");
        assert_eq!(b.to_vec(), vec![0u8; 10], "zeroed");
        assert!(b.write_at(7, b"abc"));
        assert!(!b.write_at(8, b"abc"), "past the end");
        assert!(!b.write_at(usize::MAX, b"a"), "overflowing offset");
        let mut out = [0u8; 3];
        assert!(b.read_at(7, &mut out));
        assert_eq!(&out, b"abc");
        assert!(!b.read_at(9, &mut out));
        assert_eq!(MrBuf::new(0).unwrap_err(), Errno::INVAL);
        let c = MrBuf::from_slice(b"hello").unwrap();
        assert_eq!(c.to_vec(), b"hello");
    }

    #[test]
    fn copies_keep_every_byte_at_every_alignment_and_length() {
        // The atomic copies split a range into head bytes, aligned words and tail bytes:
        // every offset within a word and every length around a few words, both ways.
        let mut b = MrBuf::new(64).unwrap();
        let pattern: Vec<u8> = (1..=64u8).collect();
        for off in 0..9 {
            for len in 0..=40 {
                let src = &pattern[..len];
                assert!(b.write_at(0, &[0; 64]));
                assert!(b.write_at(off, src), "write {off}+{len}");
                let mut all = [0u8; 64];
                assert!(b.read_at(0, &mut all));
                assert_eq!(&all[off..off + len], src, "{off}+{len}");
                assert!(all[..off].iter().chain(&all[off + len..]).all(|&x| x == 0));
                let mut back = vec![0xeeu8; len];
                assert!(b.read_at(off, &mut back));
                assert_eq!(back, src, "read {off}+{len}");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "leaks a page on purpose")]
    fn a_registered_mr_dropped_while_registered_leaks_its_buffer() {
        // No kernel here: build one as reg_mr would after a successful call. Dropped
        // while registered, it must leave its memory allocated.
        let mut buf = MrBuf::new(4096).unwrap();
        buf.write_at(0, b"still here");
        let addr = buf.addr() as usize as *const u8;
        let mr = RegisteredMr {
            buf: Some(buf),
            file_id: 0,
            handle: 1,
            lkey: 2,
            rkey: 3,
            access: 0,
        };
        assert_eq!((mr.handle(), mr.lkey(), mr.rkey()), (1, 2, 3));
        drop(mr);
        let mut got = [0u8; 10];
        // SAFETY: the allocation was leaked by the drop (that is what is tested): it is
        // still allocated, 4096 bytes, and nothing else uses it.
        unsafe { core::ptr::copy_nonoverlapping(addr, got.as_mut_ptr(), 10) };
        assert_eq!(&got, b"still here");
    }

    #[test]
    fn reg_mr_request_bytes() {
        let buf = MrBuf::new(8192).unwrap();
        let cmd = ib_uverbs_reg_mr {
            start: buf.addr(),
            length: 8192,
            hca_va: buf.addr(),
            pd_handle: 1,
            access_flags: 3,
            ..Default::default()
        };
        let key = siw_ureq_reg_mr::default();
        let mut resp = [0u8; 12 + 16];
        let (c, r0, r1) = (
            &cmd as *const ib_uverbs_reg_mr as u64,
            resp.as_ptr() as u64,
            resp[12..].as_ptr() as u64,
        );
        // SAFETY: only built, never run.
        let req = unsafe { reg_mr(RDMA_DRIVER_SIW, &cmd, DriverIn::of(&key), &mut resp) };
        let mut want = Vec::new();
        let attr = |id: u16, len: u16, data: u64| {
            let mut a = Vec::new();
            a.extend_from_slice(&id.to_ne_bytes());
            a.extend_from_slice(&len.to_ne_bytes());
            a.extend_from_slice(&1u16.to_ne_bytes());
            a.extend_from_slice(&0u16.to_ne_bytes());
            a.extend_from_slice(&data.to_ne_bytes());
            a
        };
        want.extend_from_slice(&(24u16 + 5 * 16).to_ne_bytes());
        want.extend_from_slice(&[0, 0, 0, 0, 5, 0]);
        want.extend_from_slice(&[0; 8]);
        want.extend_from_slice(&18u32.to_ne_bytes());
        want.extend_from_slice(&[0; 4]);
        want.extend(attr(
            UVERBS_ATTR_WRITE_CMD,
            8,
            u64::from(IB_USER_VERBS_CMD_REG_MR),
        ));
        want.extend(attr(UVERBS_ATTR_CORE_IN, 40, c));
        want.extend(attr(UVERBS_ATTR_CORE_OUT, 12, r0));
        want.extend(attr(UVERBS_ATTR_UHW_IN, 8, 0)); // the key struct, 8 zero bytes, inline
        want.extend(attr(UVERBS_ATTR_UHW_OUT, 16, r1));
        assert_eq!(req.to_vec(), want);
        assert_eq!(IB_USER_VERBS_CMD_REG_MR, 9);
        // siw's key struct is REG_MR's driver data: the header names siw (the kernel
        // refuses it on any other device)
        assert_eq!(req.header().driver_id, RDMA_DRIVER_SIW);
    }
}

/// A scatter/gather entry of any address, length and local key, for the data path
/// ([`Sge::from_raw`](crate::verbs::datapath::Sge::from_raw)). Making one is `unsafe`:
/// whoever names memory to the device answers for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawSge {
    addr: u64,
    length: u32,
    lkey: u32,
}

impl RawSge {
    /// The SGE `{addr, length, lkey}`.
    ///
    /// # Safety
    ///
    /// The device reads the range (sends, RDMA writes) or writes it (receives, RDMA
    /// reads, atomics' results) whenever it processes a request that carries it, through
    /// the memory region `lkey` names: the kernel refuses a range outside a region of
    /// that key, so the memory reached is registered memory, but the caller must make
    /// sure that memory is not reached through Rust references (nor freed) while such a
    /// request may run. Memory registered by [`VerbsFile::reg_mr`] (an [`MrBuf`]) never
    /// is; memory registered through the `unsafe` builders is the caller's to keep so.
    pub unsafe fn new(addr: u64, length: u32, lkey: u32) -> RawSge {
        RawSge { addr, length, lkey }
    }

    /// The address.
    pub fn addr(&self) -> u64 {
        self.addr
    }
    /// The length.
    pub fn length(&self) -> u32 {
        self.length
    }
    /// The local key.
    pub fn lkey(&self) -> u32 {
        self.lkey
    }
}
