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
//!   and sees the flag;
//! - each registered mapping of the file (the queues of rxe and siw, [`RevocableMap`])
//!   is replaced in place by anonymous private memory of the same address and length
//!   (`mmap` with `MAP_FIXED`): a mapping holds the file open, so it must go too, but
//!   code of this process may be reading or writing the queue at that very moment.
//!   After the replacement every address in the range is still valid memory (zeroed), so
//!   a borrow of the ring or a raw pointer into it stays sound; the owner unmaps the range
//!   when it is dropped (when `&mut self` proves no borrow is live), and its users see the
//!   flag before they trust the ring again.
//!
//! The check costs nothing on the success path: errors are mapped after the fact, and
//! the caches read one atomic flag.
//!
//! [`DeviceRemoved`]: crate::Error::DeviceRemoved
#![allow(unsafe_code)]

use std::mem::ManuallyDrop;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rustix::event::{eventfd, EventfdFlags};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// What a [`Lifeline`] lets go of.
#[derive(Debug, Default)]
struct Files {
    fds: Vec<RawFd>,
    /// `(address, length)` of each live mapping.
    maps: Vec<(usize, usize)>,
}

/// Takes `x` out of `list` (order does not matter), if it is there.
fn unlist<T: PartialEq>(list: &mut Vec<T>, x: T) {
    if let Some(i) = list.iter().position(|f| *f == x) {
        list.swap_remove(i);
    }
}

/// The files of one context, and the switch that lets go of them all.
#[derive(Debug)]
pub struct Lifeline {
    revoked: AtomicBool,
    /// Made on first use (most contexts never wait on a file).
    wake: std::sync::OnceLock<OwnedFd>,
    /// The numbers of the live [`RevocableFd`]s and the ranges of the live
    /// [`RevocableMap`]s. A `RevocableFd` removes its number under this lock before
    /// closing it, a `RevocableMap` its range before unmapping it, and `revoke` replaces
    /// the files and the mappings under it, so a number listed here is always open and
    /// owned by its `RevocableFd`, and a range always mapped and owned by its
    /// `RevocableMap`.
    files: Mutex<Files>,
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
            files: Mutex::new(Files::default()),
            #[cfg(feature = "fault-injection")]
            disassociated: AtomicBool::new(false),
        })
    }

    /// The lists of live files, locked (a panic while it was held left them consistent:
    /// each change is one push or one swap_remove).
    fn files(&self) -> std::sync::MutexGuard<'_, Files> {
        self.files.lock().unwrap_or_else(|p| p.into_inner())
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
    /// files a thread waits on. Never lent out: a `read(2)` of it would drain it, and a
    /// waiter polling it would then sleep through a revocation; event loops get a
    /// [`PollOnly`] descriptor that watches it.
    ///
    /// # Errors
    ///
    /// The errno of `eventfd(2)`, the first time.
    pub(crate) fn wake_fd(&self) -> Result<BorrowedFd<'_>, Errno> {
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
        let files = self.files();
        self.revoked.store(true, Ordering::Release);
        let maps = replace_with_anonymous(&files.maps);
        let fds = replace_with_inert(&files.fds);
        drop(files);
        let result = maps.and(fds);
        // Wake whoever polls the wake file (a full counter is already readable).
        std::sync::atomic::fence(Ordering::SeqCst);
        if let Some(w) = self.wake.get() {
            let _ = rustix::io::write(w, &1u64.to_ne_bytes());
        }
        result
    }

    /// Takes `fd` under the lifeline (replaced at once if it is revoked already).
    pub(crate) fn adopt(self: &Arc<Self>, fd: OwnedFd) -> RevocableFd {
        let mut files = self.files();
        let raw = fd.as_raw_fd();
        files.fds.push(raw);
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

/// The descriptor this crate lends to event loops for a file it owns: an `epoll`
/// instance that watches the file (and, for the files of a context, its lifeline's wake
/// file), made on first use. It can be polled (readable while a watched file is), and
/// nothing else: an epoll descriptor takes no `read(2)`, `write(2)` or command ioctl of
/// the files it watches (issue 39: the `rdma_cm` file, lent as it was, accepted commands
/// whose response address the caller chose), cannot change their flags (a blocking
/// event file would hang the crate's non-blocking reads), and holds no reference to
/// them, so a copy of it kept by the caller never holds a device being removed hostage.
/// A file replaced by a revocation leaves the set; the wake file then keeps it readable.
#[derive(Debug, Default)]
pub(crate) struct PollOnly(std::sync::OnceLock<OwnedFd>);

impl PollOnly {
    /// The epoll descriptor watching `file` (level-triggered, for readability) and, for a
    /// file of a context, the `lifeline`'s wake file; made the first time. A file that
    /// cannot be added once the lifeline is revoked is left out: the revocation made it
    /// the inert file, which epoll does not take, and the wake file, readable from then
    /// on, stands for it.
    pub(crate) fn get<'a>(
        &'a self,
        file: BorrowedFd<'_>,
        lifeline: Option<&Lifeline>,
    ) -> Result<BorrowedFd<'a>, Errno> {
        use rustix::event::epoll;
        if let Some(ep) = self.0.get() {
            return Ok(ep.as_fd());
        }
        let ep = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let add = |fd: BorrowedFd<'_>| {
            epoll::add(&ep, fd, epoll::EventData::new_u64(0), epoll::EventFlags::IN)
        };
        match lifeline {
            Some(l) => {
                add(l.wake_fd()?)?;
                if let Err(e) = add(file) {
                    if !l.is_revoked() {
                        return Err(e);
                    }
                }
            }
            None => add(file)?,
        }
        // Another thread may have made one meanwhile: keep the first, drop ours.
        Ok(self.0.get_or_init(|| ep).as_fd())
    }
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
        let mut files = self.lifeline.files();
        unlist(&mut files.fds, self.fd.as_raw_fd());
        // SAFETY: dropped once, here, after the number left the list (under the lock,
        // so revoke cannot be replacing it now).
        unsafe { ManuallyDrop::drop(&mut self.fd) };
        drop(files);
    }
}

/// Puts anonymous private memory in place of each mapping of `maps` (same address,
/// same length, read-write, zeroed), which lets go of the file each one held. The
/// caller holds the lifeline's lock, under which every listed range is mapped and owned
/// by a live [`RevocableMap`].
fn replace_with_anonymous(maps: &[(usize, usize)]) -> Result<(), Errno> {
    use rustix::mm::{mmap_anonymous, MapFlags, ProtFlags};
    let mut result = Ok(());
    for &(addr, len) in maps {
        // SAFETY: [addr, addr + len) is a live mapping that a RevocableMap made and
        // owns, which cannot unmap it while the caller holds the lock: MAP_FIXED
        // replaces exactly that mapping (the kernel swaps it under its mmap lock, so an
        // access racing with the call reaches the old pages or the new ones, never a
        // hole) and nothing else of the process. No Rust reference points into the range
        // (RevocableMap hands out raw pointers and atomics only), and the new memory is
        // valid for reads and writes of any bit pattern, so every pointer into the range
        // stays usable.
        let r = unsafe {
            mmap_anonymous(
                addr as *mut core::ffi::c_void,
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::FIXED,
            )
        };
        if let Err(e) = r {
            result = Err(e);
        }
    }
    result
}

impl RevocableFd {
    /// Maps `len` bytes of this file at the file's mmap offset `offset` (a cookie the
    /// driver handed out: rxe's `mminfo.offset`, siw's `*_key`), shared and read-write,
    /// under the file's lifeline: [`Lifeline::revoke`] replaces it, and it is unmapped
    /// when dropped.
    ///
    /// # Errors
    ///
    /// `EINVAL` for a length of 0; the lifeline is revoked: `ENODEV`; else the errno of
    /// `mmap(2)` (the driver refuses an offset it did not hand out, or one already
    /// mapped).
    pub(crate) fn map_shared(&self, offset: u64, len: usize) -> Result<RevocableMap, Errno> {
        use rustix::mm::{mmap, MapFlags, ProtFlags};
        if len == 0 {
            return Err(Errno::INVAL);
        }
        let mut files = self.lifeline.files();
        if self.lifeline.is_revoked() {
            return Err(Errno::NODEV);
        }
        // SAFETY: no MAP_FIXED: the kernel picks an address where nothing is mapped, so
        // no memory of the process is touched. The mapping is owned by the RevocableMap
        // made below, which hands out no reference into it.
        let p = unsafe {
            mmap(
                core::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                self.fd(),
                offset,
            )
        }?;
        let ptr = NonNull::new(p.cast::<u8>()).ok_or(Errno::NOMEM)?;
        files.maps.push((ptr.as_ptr() as usize, len));
        drop(files);
        Ok(RevocableMap {
            ptr,
            len,
            lifeline: self.lifeline.clone(),
        })
    }
}

/// A shared mapping of a uverbs file under a [`Lifeline`] (a queue the kernel shares
/// with the process). It hands out raw pointers only, never a reference into the
/// memory, which the kernel writes at any time. After [`Lifeline::revoke`] the range is
/// private zeroed memory; dropping the map unmaps it either way.
#[derive(Debug)]
pub struct RevocableMap {
    ptr: NonNull<u8>,
    len: usize,
    lifeline: Arc<Lifeline>,
}

// SAFETY: a RevocableMap owns its mapping like a Box owns its allocation; it hands out
// raw pointers only (whose users follow the queue's sharing protocol, see
// crate::raw::ring), and its only mutation, unmapping, needs `&mut self` (Drop).
unsafe impl Send for RevocableMap {}
// SAFETY: see Send: `&self` gives out addresses, nothing else.
unsafe impl Sync for RevocableMap {}

impl RevocableMap {
    /// The first byte of the mapping (page-aligned).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a mapping has at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The lifeline it is under.
    pub fn lifeline(&self) -> &Arc<Lifeline> {
        &self.lifeline
    }
}

impl Drop for RevocableMap {
    fn drop(&mut self) {
        let mut files = self.lifeline.files();
        unlist(&mut files.maps, (self.ptr.as_ptr() as usize, self.len));
        // SAFETY: the range is this map's own mapping (the file's, or the anonymous
        // memory revoke put in its place), unmapped once, here; `&mut self` proves that
        // no borrow of the map, and so no pointer it handed out to a live borrower,
        // remains. It left the list under the lock first, so revoke cannot be replacing
        // it, nor later map over memory that is no longer ours.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
        drop(files);
    }
}
