//! The device context: an open `/dev/infiniband/uverbsN` with its kernel ucontext, and the
//! queries made on it.

use std::os::fd::OwnedFd;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Mutex;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::driver;
use crate::raw::fallback::{first_supported, no_ioctl_method, Attempt, Interface, Via};
use crate::raw::lifeline::RevocableFd;
use crate::raw::method;
use crate::raw::VerbsFile;
use crate::types::CoreSupport;
use crate::types::FwVersion;
use crate::verbs::device_attr::{DeviceAnswer, DeviceAttr};
use crate::verbs::discover::{DeviceInfo, Discovery};
use crate::verbs::port::{EffectiveSpeed, PortAttr};

pub use crate::raw::fallback::CallPath;

/// What is needed to open a device: normally built by [`Context::open`] from discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTarget {
    /// Device name (`rxe0`), used in errors.
    pub name: String,
    /// The uverbs character device node.
    pub path: PathBuf,
    /// The node's expected device number (major, minor); the open is refused when the
    /// node has another one. `None` skips the check.
    pub dev: Option<(u32, u32)>,
    /// The device's `rdma_driver_id` when known (netlink); else it is found by a probe.
    pub driver_id: Option<u32>,
    /// A likely driver id (from the driver or device name), tried first by the probe.
    pub driver_id_guess: Option<u32>,
    /// The firmware version text the kernel gives (sysfs or netlink).
    pub fw_text: String,
    /// Number of ports, when known from discovery; else learned by QUERY_DEVICE.
    pub port_count: Option<u32>,
    /// Root of the sysfs tree for what only sysfs has (P_Keys, GID fallback, netdevs).
    pub sysfs_root: PathBuf,
}

impl OpenTarget {
    /// The target for a discovered device.
    ///
    /// # Errors
    ///
    /// [`Error::NotSupported`] (`ENODEV`) when the device has no uverbs node (the
    /// `ib_uverbs` module is not loaded).
    pub fn from_device(info: &DeviceInfo, sysfs_root: &FsPath) -> Result<OpenTarget> {
        let op = || Op::new("open", &info.name);
        let u = info.uverbs.as_ref().ok_or_else(|| Error::NotSupported {
            op: op(),
            errno: Errno::NODEV,
        })?;
        Ok(OpenTarget {
            name: info.name.clone(),
            path: u.path.clone(),
            dev: Some((u.major, u.minor)),
            driver_id: info.driver_id,
            driver_id_guess: info.driver_id_guess(),
            fw_text: info.fw_ver.clone(),
            port_count: Some(info.port_count).filter(|n| *n > 0),
            sysfs_root: sysfs_root.to_owned(),
        })
    }
}

/// Options for opening a context.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use = "options do nothing until a device is opened with them"]
pub struct OpenOptions {
    get_context: CallPath,
    objects: CallPath,
    sysfs_root: Option<PathBuf>,
}

impl OpenOptions {
    /// Default options: GET_CONTEXT by ioctl, falling back to `write()`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Which interface GET_CONTEXT uses.
    pub fn get_context(mut self, path: CallPath) -> Self {
        self.get_context = path;
        self
    }

    /// Which interface the object methods use (PD, MR, CQ, QP, AH, SRQ: create, modify,
    /// query, destroy): [`CallPath::Ioctl`] takes the ioctl method where the kernel has
    /// one and INVOKE_WRITE for the rest, [`CallPath::Write`] the `write()` commands
    /// only. Default [`CallPath::Auto`], as rdma-core. For ABI testing.
    pub fn objects(mut self, path: CallPath) -> Self {
        self.objects = path;
        self
    }

    /// The sysfs root for sysfs-only attributes (default `/sys`; use the
    /// [`Discovery::sysfs_path`] the device was found with).
    pub fn sysfs_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.sysfs_root = Some(root.into());
        self
    }

    /// Opens the device described by `target`.
    ///
    /// # Errors
    ///
    /// Opening the node: [`Error::PermissionDenied`]; [`Error::DeviceGone`] when it does
    /// not exist (`ENOENT`, `ENXIO`, `ENODEV`); [`Error::DevMismatch`] when it is not a
    /// character device or not the expected one; [`Error::BadArgument`] when the
    /// kernel does not list it as a uverbs device (nothing is written to such a
    /// node). Then the kernel's errno of the driver-id probe, GET_CONTEXT and (when the port count is unknown) QUERY_DEVICE,
    /// classified as by [`Error::from_errno`], or [`Error::Protocol`] for an answer the
    /// crate cannot use (every driver id rejected, a `write()` GET_CONTEXT without a
    /// response).
    pub fn open_target(&self, target: &OpenTarget) -> Result<Context> {
        Context::open_impl(target, self)
    }

    /// Opens a discovered device.
    ///
    /// # Errors
    ///
    /// As [`OpenTarget::from_device`] (no uverbs node), then as
    /// [`OpenOptions::open_target`].
    pub fn open(&self, info: &DeviceInfo) -> Result<Context> {
        let root = self.sysfs_root.as_deref().unwrap_or(FsPath::new("/sys"));
        Context::open_impl(&OpenTarget::from_device(info, root)?, self)
    }
}

/// What [`Context::query_context`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ContextAttr {
    /// Number of completion vectors (`ibv_context::num_comp_vectors`).
    pub num_comp_vectors: u32,
    /// What the uverbs core supports for this context (`IB_UVERBS_CORE_SUPPORT_*`).
    pub core_support: CoreSupport,
}

/// An open device with its kernel context (`struct ibv_context` without the provider).
///
/// `Context` is `Send + Sync`: every query is a single system call on the shared file
/// descriptor with its own buffers, which the kernel serialises as needed
/// ([`Context::query_device`] keeps one response buffer, taken without waiting: a
/// caller that finds it taken uses a fresh one).
#[derive(Debug)]
#[doc(alias = "ibv_context")]
pub struct Context {
    file: VerbsFile,
    name: String,
    path: PathBuf,
    port_count: u8,
    num_comp_vectors: u32,
    core_support: CoreSupport,
    fw_text: FwVersion,
    fw_cache: std::sync::OnceLock<(u64, FwVersion)>,
    /// This context's number in the process (from 1), for [`DeviceAnswer`]'s firmware
    /// text.
    id: u64,
    /// The async event fd that the `write()` GET_CONTEXT creates; kept for the event
    /// stream, closed with the context.
    write_async_fd: Mutex<Option<RevocableFd>>,
    /// The QUERY_DEVICE answer of [`Context::query_device`], kept so that its buffer is
    /// not zeroed on every call (the kernel writes `response_length` bytes and
    /// zero-fills the rest; what it says it did not write is zeroed here). A caller that
    /// finds it taken uses a fresh one.
    qd_answer: Mutex<DeviceAnswer>,
    get_context_path: CallPath,
    sysfs_root: PathBuf,
    /// The interface of the object methods ([`OpenOptions::objects`]).
    objects_path: CallPath,
    /// The next `user_handle` for a CQ, QP or SRQ (the kernel echoes it in events).
    next_user_handle: std::sync::atomic::AtomicU64,
    /// Errors of destroys run by `Drop`, kept for [`Context::take_destroy_errors`].
    destroy_errors: Mutex<Vec<Error>>,
    /// The errno with which the kernel refused QUERY_PORT_SPEED (0: not refused yet);
    /// the refusal itself is the file's `Interface::QueryPortSpeed` bit.
    port_speed_errno: core::sync::atomic::AtomicI32,
}

// The promise above, checked at compile time: a field that is not `Send` or `Sync` fails
// the build here.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
};

const PERMISSION_HINT: &str = "the uverbs device node is not accessible to this user; \
     run as root, or grant access (e.g. a udev rule setting MODE=\"0666\" or a group \
     for /dev/infiniband/uverbs*)";

impl Context {
    /// Opens a discovered device with default options. See [`OpenOptions`] to choose
    /// the kernel interfaces.
    ///
    /// # Errors
    ///
    /// As [`OpenOptions::open`].
    #[doc(alias = "ibv_open_device")]
    pub fn open(info: &DeviceInfo) -> Result<Context> {
        OpenOptions::default().open(info)
    }

    /// Finds the device named `name` (netlink, else sysfs) and opens it.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchDevice`] when no device has that name, or another error of
    /// [`Discovery::device`]; then as [`OpenOptions::open`].
    pub fn open_by_name(name: &str) -> Result<Context> {
        let info = Discovery::new().device(name)?;
        Self::open(&info)
    }

    /// Opens the device described by `target` with default options.
    ///
    /// # Errors
    ///
    /// As [`OpenOptions::open_target`].
    pub fn open_target(target: &OpenTarget) -> Result<Context> {
        Self::open_impl(target, &OpenOptions::default())
    }

    fn open_impl(t: &OpenTarget, opts: &OpenOptions) -> Result<Context> {
        let fd = open_node(&t.name, &t.path, t.dev)?;
        let mut file = VerbsFile::new(fd, t.driver_id.unwrap_or(RDMA_DRIVER_UNKNOWN));
        if t.driver_id.is_none() {
            let (id, confirmed) = probe_driver_id(&file, &t.name, t.driver_id_guess)?;
            file.set_driver_id(id, confirmed);
        }
        let mut ctx = Context {
            file,
            name: t.name.clone(),
            path: t.path.clone(),
            port_count: 0,
            num_comp_vectors: 0,
            core_support: CoreSupport::empty(),
            fw_text: FwVersion::new(&t.fw_text),
            fw_cache: std::sync::OnceLock::new(),
            id: {
                static CONTEXTS: std::sync::atomic::AtomicU64 =
                    std::sync::atomic::AtomicU64::new(1);
                CONTEXTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            write_async_fd: Mutex::new(None),
            qd_answer: Mutex::new(DeviceAnswer::default()),
            get_context_path: CallPath::Auto,
            sysfs_root: t.sysfs_root.clone(),
            objects_path: opts.objects,
            next_user_handle: std::sync::atomic::AtomicU64::new(1),
            destroy_errors: Mutex::new(Vec::new()),
            port_speed_errno: core::sync::atomic::AtomicI32::new(0),
        };
        ctx.get_context(opts.get_context)?;
        ctx.port_count = match t.port_count {
            Some(n) => u8::try_from(n).unwrap_or(u8::MAX),
            None => ctx.query_device()?.phys_port_cnt,
        };
        Ok(ctx)
    }

    fn get_context(&mut self, path: CallPath) -> Result<()> {
        let udata_in = driver::get_context_udata_in(self.file.driver_id());
        let mut udata_out = [0u8; driver::UHW_OUT_LEN];
        let file = &self.file;
        let mut ioctl = || {
            let mut ncv = 0u32;
            let mut core = 0u64;
            let mut call = method::GetContext::new(
                file.driver_id(),
                &mut ncv,
                &mut core,
                &udata_in,
                &mut udata_out,
            );
            file.call(&mut call.req)?;
            Ok((CallPath::Ioctl, ncv, core, None))
        };
        let mut write = || {
            let mut out = [0u8; driver::UHW_OUT_LEN];
            let (r, async_fd) = file.get_context_write(&udata_in, &mut out)?;
            Ok((CallPath::Write, r.num_comp_vectors, 0, Some(async_fd)))
        };
        let (via, ncv, core, async_fd) = first_supported(
            file.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::GetContextIoctl),
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
        .map_err(|e: Errno| {
            let op = Op::new("GET_CONTEXT", &self.name);
            if e == Errno::IO && path != CallPath::Ioctl {
                Error::Protocol {
                    op,
                    detail: "the write() GET_CONTEXT answered without a response".into(),
                }
            } else {
                Error::from_errno(op, e)
            }
        })?;
        self.num_comp_vectors = ncv;
        self.core_support = CoreSupport::from_bits_retain(core);
        self.get_context_path = via;
        *self
            .write_async_fd
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = async_fd;
        Ok(())
    }

    /// This context's number among the contexts of the process (from 1): two contexts
    /// of one device are two numbers (their object handles are numbers in two tables).
    pub fn serial(&self) -> u64 {
        self.id
    }

    /// The device name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The uverbs device node this context was opened from.
    pub fn path(&self) -> &FsPath {
        &self.path
    }

    /// The sysfs root this context reads sysfs-only attributes from.
    pub fn sysfs_root(&self) -> &FsPath {
        &self.sysfs_root
    }

    /// The device's `rdma_driver_id` (`RDMA_DRIVER_*`).
    pub fn driver_id(&self) -> u32 {
        self.file.driver_id()
    }

    /// Number of physical ports.
    pub fn port_count(&self) -> u8 {
        self.port_count
    }

    /// Number of completion vectors (`ibv_context::num_comp_vectors`).
    pub fn num_comp_vectors(&self) -> u32 {
        self.num_comp_vectors
    }

    /// What the uverbs core supports for this context, as GET_CONTEXT reported it
    /// (empty when the context was created by `write()`, which does not report it).
    pub fn core_support(&self) -> CoreSupport {
        self.core_support
    }

    /// Which interface created the context.
    pub fn get_context_path(&self) -> CallPath {
        self.get_context_path
    }

    /// The raw kernel interface of this context: the typed requests of
    /// [`raw::method`](crate::raw::method) run safely through it, hand-built ones only
    /// through its `unsafe` entry points. For ABI testing and methods this crate does
    /// not wrap.
    pub fn raw(&self) -> &VerbsFile {
        &self.file
    }

    /// The interface the object methods use ([`OpenOptions::objects`]).
    pub fn objects_path(&self) -> CallPath {
        self.objects_path
    }

    /// The errors of object destroys that ran in `Drop` (where they cannot be
    /// returned), oldest first, taken out of the context. A destroy that failed leaves
    /// the kernel object in place until the context is closed (and a memory region's
    /// buffer allocated, never freed while the device may reach it); use the objects'
    /// `try_destroy` to handle failures where they happen.
    pub fn take_destroy_errors(&self) -> Vec<Error> {
        core::mem::take(
            &mut *self
                .destroy_errors
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        )
    }

    /// Keeps the error of a destroy that ran in `Drop`; not after a revocation, where the
    /// kernel destroys the objects itself once the file is released, nor after a
    /// driver's disassociation ([`Error::DeviceGone`]: `EIO`/`ENODEV`), where it has
    /// destroyed them already (`uverbs_destroy_ufile_hw`).
    pub(crate) fn record_destroy_error(&self, e: Error) {
        if matches!(e, Error::DeviceRemoved { .. } | Error::DeviceGone { .. }) {
            return;
        }
        self.destroy_errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(e);
    }

    /// The error of a kernel call that failed with `e`: [`Error::DeviceRemoved`] once the
    /// context's files were revoked (the errno then comes from the inert file that
    /// replaced them), else the errno classified ([`Error::from_errno`]).
    pub fn kernel_error(&self, op: Op, e: Errno) -> Error {
        if self.file.is_revoked() {
            Error::DeviceRemoved { op }
        } else {
            Error::from_errno(op, e)
        }
    }

    /// Lets go of the device now: the uverbs file and every file made from it (async
    /// event files, completion channels) are replaced by an inert file, so that a
    /// removal of the device does not wait for this process; every later call answers
    /// [`Error::DeviceRemoved`]. Objects of the context lose their kernel objects with
    /// the file (the kernel destroys them when the file is released). Usually called by
    /// the device monitor (see [`crate::verbs::monitor`]).
    ///
    /// # Errors
    ///
    /// The errno of replacing the files: the context is marked removed anyway.
    pub fn revoke(&self) -> Result<()> {
        self.file
            .lifeline()
            .revoke()
            .map_err(|e| Error::from_errno(Op::new("revoke", &self.name), e))
    }

    /// Puts the context under the process-wide device guard: when the device's removal
    /// starts, the context is revoked ([`Context::revoke`]) at once, so that the removal
    /// does not wait for this process. See [`crate::verbs::monitor::guard`].
    ///
    /// # Errors
    ///
    /// [`Error::Os`] when the guard cannot start (no uevent socket).
    pub fn guard(&self) -> Result<()> {
        crate::verbs::monitor::guard(self)
    }

    /// True once the context was revoked ([`Context::revoke`]).
    pub fn is_revoked(&self) -> bool {
        self.file.is_revoked()
    }

    /// A fresh `user_handle` for a CQ, QP or SRQ.
    pub(crate) fn next_user_handle(&self) -> u64 {
        self.next_user_handle
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Takes the async event fd created by a `write()` GET_CONTEXT, if any.
    pub(crate) fn take_write_async_fd(&self) -> Option<RevocableFd> {
        self.write_async_fd
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Checks a port number against the device's port count, before any system call.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`] for 0 or a number past the last port.
    #[inline]
    pub fn check_port(&self, what: &'static str, port: u32) -> Result<u8> {
        if port == 0 || port > u32::from(self.port_count) {
            return Err(Error::NoSuchPort {
                op: Op::port(what, &self.name, port),
                port_count: u32::from(self.port_count),
            });
        }
        Ok(port as u8)
    }

    /// `QUERY_CONTEXT` (since Linux 5.9): the number of completion vectors and the core
    /// support flags, asked again.
    ///
    /// # Errors
    ///
    /// [`Error::NotSupported`] on kernels without the method, and from drivers that do
    /// not implement it (`EOPNOTSUPP`: rxe and siw, on Linux 6.1 and 6.12); else the
    /// kernel's errno, classified.
    pub fn query_context(&self) -> Result<ContextAttr> {
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut req = method::query_context(self.driver_id(), &mut ncv, &mut core);
        self.file
            .call(&mut req)
            .map_err(|e| self.kernel_error(Op::new("QUERY_CONTEXT", &self.name), e))?;
        Ok(ContextAttr {
            num_comp_vectors: ncv,
            core_support: CoreSupport::from_bits_retain(core),
        })
    }

    /// The attributes of port `port` (from 1), by the QUERY_PORT ioctl, falling back to
    /// the `write()` command on kernels without it.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`] before any system call; else the kernel's errno, classified
    /// ([`Error::DeviceGone`] for `ENODEV`/`EIO`).
    #[doc(alias = "ibv_query_port")]
    pub fn query_port(&self, port: u32) -> Result<PortAttr> {
        // The usual case inline: the ioctl, unless the kernel said it lacks it. Any
        // error goes the whole way through query_port_via (which asks again and falls
        // back), so that every answer is handled in one place.
        if !self.file.caps().is_missing(Interface::QueryPortIoctl) {
            let p = self.check_port("QUERY_PORT", port)?;
            let mut resp = ib_uverbs_query_port_resp_ex::default();
            if self
                .file
                .call(&mut method::query_port(self.file.driver_id(), p, &mut resp))
                .is_ok()
            {
                return Ok(PortAttr::from_resp(&resp));
            }
        }
        self.query_port_via(port, CallPath::Auto)
    }

    /// [`Context::query_port`] through the chosen interface.
    ///
    /// # Errors
    ///
    /// As [`Context::query_port`]; with [`CallPath::Ioctl`] on a kernel without the
    /// method, [`Error::NotSupported`].
    pub fn query_port_via(&self, port: u32, path: CallPath) -> Result<PortAttr> {
        let p = self.check_port("QUERY_PORT", port)?;
        let file = &self.file;
        let mut ioctl = || {
            let mut resp = ib_uverbs_query_port_resp_ex::default();
            file.call(&mut method::query_port(file.driver_id(), p, &mut resp))?;
            Ok(PortAttr::from_resp(&resp))
        };
        let mut write = || {
            let mut legacy = ib_uverbs_query_port_resp::default();
            file.write(&mut method::write_query_port(p, &mut legacy))?;
            Ok(PortAttr::from_resp_bytes(zerocopy::IntoBytes::as_bytes(
                &legacy,
            )))
        };
        let mut attr = first_supported(
            file.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::QueryPortIoctl),
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
        .map_err(|e: Errno| self.kernel_error(Op::port("QUERY_PORT", &self.name, port), e))?;
        // As rdma-core (after 64.0) shows it: only when the method answered. It is an
        // ioctl method: the write() path does not ask.
        if path != CallPath::Write {
            attr.effective_speed = self.port_speed(u32::from(p)).ok();
        }
        Ok(attr)
    }

    /// The effective speed of port `port` (from 1): the bandwidth it actually has, in
    /// units of 100 Mb/s (QUERY_PORT_SPEED, since Linux 7.0; `ibv_query_port_speed`).
    ///
    /// The kernel is asked until it says it lacks the method (or the driver the op): that
    /// answer is remembered for the context, and later calls fail the same way without a
    /// system call. [`Context::query_port`] fills [`PortAttr::effective_speed`] from it.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`] before any system call; [`Error::NotSupported`] on kernels
    /// before 7.0 (`EPROTONOSUPPORT`: Linux 6.1 and 6.12 answer so) and with drivers
    /// without the op (`EOPNOTSUPP`); else the kernel's errno, classified.
    #[doc(alias = "ibv_query_port_speed")]
    pub fn query_port_speed(&self, port: u32) -> Result<EffectiveSpeed> {
        self.check_port("QUERY_PORT_SPEED", port)?;
        self.port_speed(port)
            .map_err(|e| self.kernel_error(Op::port("QUERY_PORT_SPEED", &self.name, port), e))
    }

    /// QUERY_PORT_SPEED without building an error (the query_port path allocates nothing).
    fn port_speed(&self, port: u32) -> core::result::Result<EffectiveSpeed, Errno> {
        use core::sync::atomic::Ordering::{Acquire, Release};
        let caps = self.file.caps();
        if caps.is_missing(Interface::QueryPortSpeed) {
            return Err(match self.port_speed_errno.load(Acquire) {
                0 => Errno::OPNOTSUPP,
                e => Errno::from_raw_os_error(e),
            });
        }
        let mut speed = 0u64;
        let id = self.file.driver_id();
        match self
            .file
            .call(&mut method::query_port_speed(id, port, &mut speed))
        {
            Ok(()) => EffectiveSpeed::from_resp_bytes(&speed.to_ne_bytes()).ok_or(Errno::IO),
            Err(e) => {
                // (A revoked context's inert file answers too: that is no answer.)
                if (no_ioctl_method(e) || e == Errno::OPNOTSUPP) && !self.file.is_revoked() {
                    self.port_speed_errno.store(e.raw_os_error(), Release);
                    caps.set_missing(Interface::QueryPortSpeed);
                }
                Err(e)
            }
        }
    }

    /// The attributes of the device: extended QUERY_DEVICE through INVOKE_WRITE,
    /// falling back to the plain one, then to the `write()` commands.
    ///
    /// # Errors
    ///
    /// The kernel's errno, classified.
    #[doc(alias = "ibv_query_device")]
    #[doc(alias = "ibv_query_device_ex")]
    pub fn query_device(&self) -> Result<DeviceAttr> {
        match self.qd_answer.try_lock() {
            Ok(mut a) => {
                self.query_device_into(&mut a)?;
                Ok(a.attr())
            }
            Err(_) => self.query_device_via(CallPath::Auto),
        }
    }

    /// [`Context::query_device`] into `out`, decoded only when its fields are read
    /// ([`DeviceAnswer`]): the kernel writes its answer into `out` in place. The
    /// cheapest fresh query, for callers that ask often.
    ///
    /// # Errors
    ///
    /// As [`Context::query_device`].
    #[doc(alias = "ibv_query_device_ex")]
    pub fn query_device_into(&self, out: &mut DeviceAnswer) -> Result<()> {
        // The usual case inline: the extended command through INVOKE_WRITE, unless the
        // kernel said it lacks it. Any error goes the whole way through the fallback
        // (which asks again), so that every answer is handled in one place.
        if !self.file.caps().is_missing(Interface::QueryDeviceEx) {
            let cmd = ib_uverbs_ex_query_device::default();
            if self
                .file
                .call(&mut method::query_device_ex(
                    self.file.driver_id(),
                    &cmd,
                    &mut out.resp,
                ))
                .is_ok()
            {
                self.finish_ex(out);
                return Ok(());
            }
        }
        self.answer_via(CallPath::Auto, out)
    }

    /// [`Context::query_device`] through the chosen interface.
    ///
    /// # Errors
    ///
    /// As [`Context::query_device`].
    pub fn query_device_via(&self, path: CallPath) -> Result<DeviceAttr> {
        let mut a = DeviceAnswer::default();
        self.answer_via(path, &mut a)?;
        Ok(a.attr())
    }

    /// The extended QUERY_DEVICE through INVOKE_WRITE, falling back to the plain one,
    /// then to the `write()` commands; the answer into `out`.
    fn answer_via(&self, path: CallPath, out: &mut DeviceAnswer) -> Result<()> {
        let file = &self.file;
        let id = file.driver_id();
        let cmd = ib_uverbs_ex_query_device::default();
        // An extended command the kernel or driver lacks: EOPNOTSUPP or ENOSYS (and
        // EINVAL from write() on kernels that do not know the ex command at all).
        fn no_ex(e: Errno) -> bool {
            e == Errno::OPNOTSUPP || e == Errno::NOSYS || no_ioctl_method(e)
        }
        fn no_ex_write(e: Errno) -> bool {
            e == Errno::OPNOTSUPP || e == Errno::NOSYS || e == Errno::INVAL
        }
        let out = core::cell::RefCell::new(out);
        // The legacy answer: the extended part stays zero.
        let legacy = |r: ib_uverbs_query_device_resp| {
            let mut o = out.borrow_mut();
            o.resp = ib_uverbs_ex_query_device_resp::default();
            o.resp.base = r;
            false
        };
        let mut ex_ioctl = || {
            let mut o = out.borrow_mut();
            file.call(&mut method::query_device_ex(id, &cmd, &mut o.resp))?;
            Ok(true)
        };
        let mut plain_ioctl = || {
            let mut resp = ib_uverbs_query_device_resp::default();
            let req = ib_uverbs_query_device::default();
            file.call(&mut method::query_device(id, &req, &mut resp))?;
            Ok(legacy(resp))
        };
        let mut ex_write = || {
            let mut o = out.borrow_mut();
            file.write(&mut method::write_query_device_ex(&cmd, &mut o.resp))?;
            Ok(true)
        };
        let mut plain_write = || {
            let mut resp = ib_uverbs_query_device_resp::default();
            file.write(&mut method::write_query_device(&mut resp))?;
            Ok(legacy(resp))
        };
        let ex = first_supported(
            file.caps(),
            path,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::QueryDeviceEx),
                    unknown: no_ex,
                    run: &mut ex_ioctl,
                },
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::InvokeWrite),
                    unknown: no_ioctl_method,
                    run: &mut plain_ioctl,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: no_ex_write,
                    run: &mut ex_write,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut plain_write,
                },
            ],
        )
        .map_err(|e: Errno| self.kernel_error(Op::new("QUERY_DEVICE", &self.name), e))?;
        let out = out.into_inner();
        if ex {
            self.finish_ex(out);
        } else {
            self.set_fw(out);
        }
        Ok(())
    }

    /// The firmware version for the kernel's raw number, formatted once per context as
    /// the provider would (the number does not change while the device exists).
    fn fw_ver(&self, raw: u64) -> FwVersion {
        let (cached_raw, fw) = self.fw_cache.get_or_init(|| {
            (
                raw,
                driver::format_fw_ver(self.driver_id(), raw, self.fw_text.as_str()),
            )
        });
        if *cached_raw == raw {
            *fw
        } else {
            driver::format_fw_ver(self.driver_id(), raw, self.fw_text.as_str())
        }
    }

    /// Completes an extended answer: zeroes what the kernel did not fill (it zero-fills
    /// our buffer past its answer on current kernels; this guards against one that says
    /// less), and adds the firmware text.
    #[inline(always)]
    fn finish_ex(&self, a: &mut DeviceAnswer) {
        let size = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
        let filled = (a.resp.response_length as usize).clamp(
            core::mem::size_of::<ib_uverbs_query_device_resp>() + 8,
            size,
        );
        if filled < size {
            zerocopy::IntoBytes::as_mut_bytes(&mut a.resp)[filled..].fill(0);
        }
        self.set_fw(a);
    }

    /// The firmware text of an answer, formatted unless it holds this context's text of
    /// the same number already.
    #[inline(always)]
    fn set_fw(&self, a: &mut DeviceAnswer) {
        let key = (self.id, a.resp.base.fw_ver);
        if a.fw_key != key {
            a.fw_ver = self.fw_ver(key.1);
            a.fw_key = key;
        }
    }
}

/// Opens a uverbs node read-write, close-on-exec, and checks its device number.
fn open_node(name: &str, path: &FsPath, dev: Option<(u32, u32)>) -> Result<OwnedFd> {
    let op = || Op::new("open", name);
    let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()).map_err(
        |e| match e {
            Errno::ACCESS | Errno::PERM => Error::PermissionDenied {
                op: op(),
                path: path.to_owned(),
                hint: PERMISSION_HINT,
            },
            Errno::NOENT | Errno::NXIO | Errno::NODEV => Error::DeviceGone { op: op(), errno: e },
            e => Error::from_errno(op(), e),
        },
    )?;
    // Only a character device can be a uverbs node: commands written to anything else
    // would land in a file or a block device.
    let st = rustix::fs::fstat(&fd).map_err(|e| Error::from_errno(op(), e))?;
    let is_chr =
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::CharacterDevice;
    let rdev = st.st_rdev;
    let (fmaj, fmin) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    if !is_chr {
        let (expected_major, expected_minor) = dev.unwrap_or((0, 0));
        return Err(Error::DevMismatch {
            op: op(),
            path: path.to_owned(),
            found_major: 0,
            found_minor: 0,
            expected_major,
            expected_minor,
        });
    }
    if let Some((major, minor)) = dev {
        if (fmaj, fmin) != (major, minor) {
            return Err(Error::DevMismatch {
                op: op(),
                path: path.to_owned(),
                found_major: fmaj,
                found_minor: fmin,
                expected_major: major,
                expected_minor: minor,
            });
        }
    }
    // A device number the caller expects proves nothing (it is theirs to set, and
    // `/dev/mem` has one too): the kernel must list the node as a uverbs device before
    // a command is written to it.
    if !crate::raw::node::is_uverbs(fmaj, fmin) {
        return Err(Error::BadArgument {
            op: op(),
            reason: format!(
                "{} is character device {fmaj}:{fmin}, which the kernel does not list as a \
                 uverbs device (infiniband_verbs)",
                path.display()
            ),
        });
    }
    Ok(fd)
}

/// Finds the device's driver id with rdma-core's harmless INVOKE_WRITE probe
/// ([`VerbsFile::driver_is`]). The guess is tried first, then every known id. Also says whether the kernel confirmed
/// the id: a kernel without INVOKE_WRITE cannot, and then the guess stands for the
/// queries alone (the `write()` path needs no driver id), never for driver data
/// ([`VerbsFile::confirm_driver`] refuses it then).
fn probe_driver_id(file: &VerbsFile, name: &str, guess: Option<u32>) -> Result<(u32, bool)> {
    let op = || Op::new("driver id probe", name);
    let candidates = guess.into_iter().chain(0..=RDMA_DRIVER_IONIC);
    for id in candidates {
        match file.driver_is(id) {
            Ok(true) => return Ok((id, true)),
            Ok(false) => continue,
            // No ioctl interface at all: the write() path needs no driver id.
            Err(e) if no_ioctl_method(e) => {
                return Ok((guess.unwrap_or(RDMA_DRIVER_UNKNOWN), false))
            }
            Err(e) => return Err(Error::from_errno(op(), e)),
        }
    }
    Err(Error::Protocol {
        op: op(),
        detail: "the kernel rejected every known driver id".into(),
    })
}

/// The locked-memory limit (`RLIMIT_MEMLOCK`, soft) of a process that is not root, in
/// bytes: what bounds the memory it can register. `None` for root (effective uid 0, as
/// libibverbs checks it) and for an unlimited limit. libibverbs warns at start when it is
/// 32 KiB or less.
pub fn memlock_limit() -> Option<u64> {
    if rustix::process::geteuid().is_root() {
        return None;
    }
    rustix::process::getrlimit(rustix::process::Resource::Memlock).current
}
