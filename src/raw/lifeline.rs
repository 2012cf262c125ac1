//! Revocable files: a device's uverbs files can be let go of on the spot, so that a
//! device being removed is never held hostage.
//!
//! rxe and siw cannot disassociate a user context: the kernel's unregistration of the
//! device waits until every uverbs file of it (the context's file, its async event and
//! completion channel files, and every mapping of it) is released. A [`Lifeline`] is
//! shared by every file of one context; [`Lifeline::revoke`] lets go of all of them at
//! once:
//!
//! - each registered descriptor is made to point at an inert file (`dup2` of an
//!   `O_PATH` descriptor of `/` over it), which drops this process's reference to the
//!   uverbs file at once, while the number stays open and owned (so no other open can
//!   take it, and no call on it can reach an unrelated file). A call already inside the
//!   kernel finishes on the old file; every later call gets `EBADF` from the inert one;
//! - the lifeline's flag is set, so that such errors read as [`DeviceRemoved`]
//!   (`is_revoked`), and cached answers are no longer given out;
//! - its wake file (an `eventfd`) becomes readable, so that a thread blocked in
//!   `poll(2)` on one of the files (which keeps that file alive while it sleeps) wakes up
//!   and sees the flag.
//!
//! The check costs nothing on the success path: errors are mapped after the fact, and
//! the caches read one atomic flag.
//!
//! [`DeviceRemoved`]: crate::Error::DeviceRemoved
#![allow(unsafe_code)]

use std::mem::ManuallyDrop;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rustix::event::{eventfd, EventfdFlags};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// The files of one context, and the switch that lets go of them all.
#[derive(Debug)]
pub struct Lifeline {
    revoked: AtomicBool,
    /// Made on first use (most contexts never wait on a file).
    wake: std::sync::OnceLock<OwnedFd>,
    /// The numbers of the live [`RevocableFd`]s. A `RevocableFd` removes its number
    /// under this lock before closing it, and `revoke` replaces the files under it, so a
    /// number listed here is always open and owned by its `RevocableFd`.
    fds: Mutex<Vec<RawFd>>,
    /// Feature `fault-injection`: the files act as if the driver had disassociated them.
    #[cfg(feature = "fault-injection")]
    disassociated: AtomicBool,
}

impl Lifeline {
    /// A lifeline with no file yet.
    pub fn new() -> Arc<Lifeline> {
        Arc::new(Lifeline {
            revoked: AtomicBool::new(false),
            wake: std::sync::OnceLock::new(),
            fds: Mutex::new(Vec::new()),
            #[cfg(feature = "fault-injection")]
            disassociated: AtomicBool::new(false),
        })
    }

    /// Test only (feature `fault-injection`): from now on the files of this lifeline act
    /// as a driver's disassociation leaves them (`ib_uverbs_free_hw_resources`: the
    /// kernel destroys the context's objects, every later command fails with `EIO`,
    /// each async event file is sent `DEVICE_FATAL` and then answers `EIO`), without a
    /// system call: no driver in the VM rig (rxe, siw) can disassociate.
    #[cfg(feature = "fault-injection")]
    pub fn inject_disassociation(&self) {
        self.disassociated.store(true, Ordering::Release);
        // The kernel wakes the event files' readers with the DEVICE_FATAL it queues.
        std::sync::atomic::fence(Ordering::SeqCst);
        if let Some(w) = self.wake.get() {
            let _ = rustix::io::write(w, &1u64.to_ne_bytes());
        }
    }

    /// True once `inject_disassociation` (feature `fault-injection`) ran; always false
    /// without the feature.
    #[inline(always)]
    pub fn is_disassociated(&self) -> bool {
        #[cfg(feature = "fault-injection")]
        return self.disassociated.load(Ordering::Acquire);
        #[cfg(not(feature = "fault-injection"))]
        false
    }

    /// `Err(EIO)` in place of a command once a disassociation was injected; without the
    /// feature, `Ok(())` and no code.
    #[inline(always)]
    pub(crate) fn check_injected(&self) -> Result<(), Errno> {
        if self.is_disassociated() {
            return Err(Errno::IO);
        }
        Ok(())
    }

    /// True once [`Self::revoke`] has run: the files are gone.
    pub fn is_revoked(&self) -> bool {
        self.revoked.load(Ordering::Acquire)
    }

    /// A file that becomes readable when the lifeline is revoked: poll it beside the
    /// files a thread waits on.
    ///
    /// # Errors
    ///
    /// The errno of `eventfd(2)`, the first time.
    pub fn wake_fd(&self) -> Result<BorrowedFd<'_>, Errno> {
        if let Some(fd) = self.wake.get() {
            return Ok(fd.as_fd());
        }
        let fd = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        // Another thread may have made one meanwhile: keep the first, drop ours.
        let fd = self.wake.get_or_init(|| fd);
        // Pairs with the fence in revoke: either revoke sees the wake file and writes
        // it, or this sees the flag and writes it (never neither).
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.is_revoked() || self.is_disassociated() {
            let _ = rustix::io::write(fd, &1u64.to_ne_bytes());
        }
        Ok(fd.as_fd())
    }

    /// Lets go of every file of the lifeline now (see the module docs). Idempotent.
    ///
    /// # Errors
    ///
    /// The errno of opening the inert file or of `dup2(2)`: the lifeline is marked
    /// revoked anyway, and the files that could not be replaced stay open (they are
    /// released when their owners drop them).
    pub fn revoke(&self) -> Result<(), Errno> {
        let fds = self.fds.lock().unwrap_or_else(|p| p.into_inner());
        self.revoked.store(true, Ordering::Release);
        let result = replace_with_inert(&fds);
        drop(fds);
        // Wake whoever polls the wake file (a full counter is already readable).
        std::sync::atomic::fence(Ordering::SeqCst);
        if let Some(w) = self.wake.get() {
            let _ = rustix::io::write(w, &1u64.to_ne_bytes());
        }
        result
    }

    /// Takes `fd` under the lifeline (replaced at once if it is revoked already).
    pub(crate) fn adopt(self: &Arc<Self>, fd: OwnedFd) -> RevocableFd {
        let mut fds = self.fds.lock().unwrap_or_else(|p| p.into_inner());
        let raw = fd.as_raw_fd();
        fds.push(raw);
        if self.is_revoked() {
            let _ = replace_with_inert(&[raw]);
        }
        RevocableFd {
            fd: ManuallyDrop::new(fd),
            lifeline: self.clone(),
        }
    }
}

/// Points each of `fds` at an inert file. The caller holds the lifeline's lock, under
/// which every listed number is open and owned by a live [`RevocableFd`].
fn replace_with_inert(fds: &[RawFd]) -> Result<(), Errno> {
    if fds.is_empty() {
        return Ok(());
    }
    let inert = rustix::fs::open("/", OFlags::PATH | OFlags::CLOEXEC, Mode::empty())?;
    let mut result = Ok(());
    for &raw in fds {
        // SAFETY: `raw` is listed, so it is open and owned by a live RevocableFd, which
        // cannot close it while the caller holds the lock. The temporary OwnedFd only
        // lends the number to dup2 and is never dropped (ManuallyDrop), so the number is
        // not closed here; dup2 replaces the file behind it atomically, and the number
        // stays open and owned by the same RevocableFd.
        let mut target = ManuallyDrop::new(unsafe { OwnedFd::from_raw_fd(raw) });
        if let Err(e) = rustix::io::dup2(&inert, &mut target) {
            result = Err(e);
        }
    }
    result
}

/// A file descriptor under a [`Lifeline`]: usable like an `OwnedFd` until the lifeline
/// is revoked, inert after that. Closed when dropped.
#[derive(Debug)]
pub struct RevocableFd {
    fd: ManuallyDrop<OwnedFd>,
    lifeline: Arc<Lifeline>,
}

impl RevocableFd {
    /// The descriptor, for a system call.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The lifeline it is under.
    pub fn lifeline(&self) -> &Arc<Lifeline> {
        &self.lifeline
    }
}

impl Drop for RevocableFd {
    fn drop(&mut self) {
        let mut fds = self.lifeline.fds.lock().unwrap_or_else(|p| p.into_inner());
        let raw = self.fd.as_raw_fd();
        if let Some(i) = fds.iter().position(|&f| f == raw) {
            fds.swap_remove(i);
        }
        // SAFETY: dropped once, here, after the number left the list (under the lock,
        // so revoke cannot be replacing it now).
        unsafe { ManuallyDrop::drop(&mut self.fd) };
        drop(fds);
    }
}
