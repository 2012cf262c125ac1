//! The device context: an open `/dev/infiniband/uverbsN` with its kernel ucontext, and the
//! queries made on it.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use zerocopy::IntoBytes;

use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::attr::IoctlBuf;
use crate::raw::driver;
use crate::raw::method;
use crate::raw::sys;
use crate::verbs::device_attr::{DeviceAttr, FwVersion};
use crate::verbs::discover::{DeviceInfo, Discovery};
use crate::verbs::port::PortAttr;

/// Which kernel interface a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CallPath {
    /// The ioctl method where the kernel has it, else the legacy `write()` command
    /// (what rdma-core does).
    #[default]
    Auto,
    /// Only the ioctl method (`RDMA_VERBS_IOCTL`).
    Ioctl,
    /// Only the legacy `write()` command (kernels before 5.0/5.6, or for ABI testing).
    Write,
}

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
    /// The target for a discovered device. Fails when the device has no uverbs node
    /// (the `ib_uverbs` module is not loaded).
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
pub struct OpenOptions {
    get_context: CallPath,
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

    /// The sysfs root for sysfs-only attributes (default `/sys`; use the
    /// [`Discovery::sysfs_path`] the device was found with).
    pub fn sysfs_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.sysfs_root = Some(root.into());
        self
    }

    /// Opens the device described by `target`.
    pub fn open_target(&self, target: &OpenTarget) -> Result<Context> {
        Context::open_impl(target, self)
    }

    /// Opens a discovered device.
    pub fn open(&self, info: &DeviceInfo) -> Result<Context> {
        let root = self.sysfs_root.as_deref().unwrap_or(FsPath::new("/sys"));
        Context::open_impl(&OpenTarget::from_device(info, root)?, self)
    }
}

// Bits of `Context::missing`: interfaces the kernel answered "unknown" to, so later
// calls go straight to the fallback.
const NO_IOCTL_QUERY_PORT: u8 = 1 << 0;
const NO_INVOKE_WRITE: u8 = 1 << 1;
const NO_EX_QUERY_DEVICE: u8 = 1 << 2;

/// An open device with its kernel context (`struct ibv_context` without the provider).
///
/// `Context` is `Send + Sync`: every query is a single system call on the shared file
/// descriptor with its own stack buffers, which the kernel serialises as needed.
#[derive(Debug)]
#[doc(alias = "ibv_context")]
pub struct Context {
    fd: OwnedFd,
    name: String,
    path: PathBuf,
    driver_id: u32,
    port_count: u8,
    num_comp_vectors: u32,
    core_support: u64,
    fw_text: FwVersion,
    fw_cache: std::sync::OnceLock<(u64, FwVersion)>,
    missing: AtomicU8,
    /// The async event fd that the `write()` GET_CONTEXT creates; kept for the event
    /// stream, closed with the context.
    write_async_fd: Mutex<Option<OwnedFd>>,
    get_context_path: CallPath,
    sysfs_root: PathBuf,
}

fn is_unknown_method(e: Errno) -> bool {
    // ENOTTY: no RDMA_VERBS_IOCTL at all; EPROTONOSUPPORT: no such object or method.
    e == Errno::NOTTY || e == Errno::PROTONOSUPPORT
}

const PERMISSION_HINT: &str = "the uverbs device node is not accessible to this user; \
     run as root, or grant access (e.g. a udev rule setting MODE=\"0666\" or a group \
     for /dev/infiniband/uverbs*)";

impl Context {
    /// Opens a discovered device with default options. See [`OpenOptions`] to choose
    /// the kernel interfaces.
    #[doc(alias = "ibv_open_device")]
    pub fn open(info: &DeviceInfo) -> Result<Context> {
        OpenOptions::default().open(info)
    }

    /// Finds the device named `name` (netlink, else sysfs) and opens it.
    pub fn open_by_name(name: &str) -> Result<Context> {
        let info = Discovery::new().device(name)?;
        Self::open(&info)
    }

    /// Opens the device described by `target` with default options.
    pub fn open_target(target: &OpenTarget) -> Result<Context> {
        Self::open_impl(target, &OpenOptions::default())
    }

    fn open_impl(t: &OpenTarget, opts: &OpenOptions) -> Result<Context> {
        let fd = open_node(&t.name, &t.path, t.dev)?;
        let driver_id = match t.driver_id {
            Some(id) => id,
            None => probe_driver_id(fd.as_fd(), &t.name, t.driver_id_guess)?,
        };
        let mut ctx = Context {
            fd,
            name: t.name.clone(),
            path: t.path.clone(),
            driver_id,
            port_count: 0,
            num_comp_vectors: 0,
            core_support: 0,
            fw_text: FwVersion::new(&t.fw_text),
            fw_cache: std::sync::OnceLock::new(),
            missing: AtomicU8::new(0),
            write_async_fd: Mutex::new(None),
            get_context_path: CallPath::Auto,
            sysfs_root: t.sysfs_root.clone(),
        };
        ctx.get_context(opts.get_context)?;
        ctx.port_count = match t.port_count {
            Some(n) => u8::try_from(n).unwrap_or(u8::MAX),
            None => ctx.query_device()?.phys_port_cnt,
        };
        Ok(ctx)
    }

    fn get_context(&mut self, path: CallPath) -> Result<()> {
        let op = || Op::new("GET_CONTEXT", &self.name);
        let udata_in = driver::get_context_udata_in(self.driver_id);
        let mut udata_out = [0u8; driver::UHW_OUT_LEN];
        if path != CallPath::Write {
            let mut ncv = 0u32;
            let mut core = 0u64;
            let mut call = method::GetContext::new(
                self.driver_id,
                &mut ncv,
                &mut core,
                udata_in.as_bytes(),
                &mut udata_out,
            );
            match sys::verbs_ioctl(self.fd.as_fd(), &mut call.buf) {
                Ok(()) => {
                    self.num_comp_vectors = ncv;
                    self.core_support = core;
                    self.get_context_path = CallPath::Ioctl;
                    return Ok(());
                }
                Err(e) if path == CallPath::Auto && is_unknown_method(e) => {}
                Err(e) => return Err(Error::from_errno(op(), e)),
            }
        }
        // write(): ib_uverbs_cmd_hdr + ib_uverbs_get_context + driver data; the response
        // is ib_uverbs_get_context_resp + the driver's output.
        let mut resp = [0u8; 8 + driver::UHW_OUT_LEN];
        // async_fd starts as -1: a "successful" write() that filled nothing (a file that
        // is not a uverbs node) must not make us adopt fd 0.
        resp[..4].copy_from_slice(&(-1i32).to_ne_bytes());
        sys::write_cmd(
            self.fd.as_fd(),
            IB_USER_VERBS_CMD_GET_CONTEXT,
            udata_in.as_bytes(),
            &mut resp,
        )
        .map_err(|e| Error::from_errno(op(), e))?;
        let (r, _) =
            zerocopy::FromBytes::read_from_prefix(&resp[..]).map_err(|_| Error::Protocol {
                op: op(),
                detail: "short GET_CONTEXT response".into(),
            })?;
        let r: ib_uverbs_get_context_resp = r;
        if r.async_fd as i32 == -1 {
            return Err(Error::Protocol {
                op: op(),
                detail: "the write() GET_CONTEXT answered without a response".into(),
            });
        }
        self.num_comp_vectors = r.num_comp_vectors;
        *self
            .write_async_fd
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = sys::take_new_fd(i64::from(r.async_fd as i32));
        self.get_context_path = CallPath::Write;
        Ok(())
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
        self.driver_id
    }

    /// Number of physical ports.
    pub fn port_count(&self) -> u8 {
        self.port_count
    }

    /// Number of completion vectors (`ibv_context::num_comp_vectors`).
    pub fn num_comp_vectors(&self) -> u32 {
        self.num_comp_vectors
    }

    /// `IB_UVERBS_CORE_SUPPORT_*` bits reported by GET_CONTEXT (0 through `write()`).
    pub fn core_support(&self) -> u64 {
        self.core_support
    }

    /// Which interface created the context.
    pub fn get_context_path(&self) -> CallPath {
        self.get_context_path
    }

    /// The file descriptor of the uverbs device.
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Takes the async event fd created by a `write()` GET_CONTEXT, if any.
    #[allow(dead_code)] // for the event stream
    pub(crate) fn take_write_async_fd(&self) -> Option<OwnedFd> {
        self.write_async_fd
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Issues one `RDMA_VERBS_IOCTL` built with [`crate::raw::method`] or [`IoctlBuf`] on the
    /// device fd, and returns the kernel's errno as is. For ABI testing and methods this
    /// crate does not wrap; the typed queries are built on it.
    pub fn ioctl<const N: usize>(
        &self,
        buf: &mut IoctlBuf<'_, N>,
    ) -> core::result::Result<(), Errno> {
        sys::verbs_ioctl(self.fd.as_fd(), buf)
    }

    /// Issues one legacy `write()` command: `command` (`IB_USER_VERBS_CMD_*`), the
    /// response pointer (to `resp`, whose length sets `out_words`), then `rest` (the
    /// command struct after its `response` field, and driver data). For ABI testing.
    pub fn write_command(
        &self,
        command: u32,
        rest: &[u8],
        resp: &mut [u8],
    ) -> core::result::Result<(), Errno> {
        sys::write_cmd(self.fd.as_fd(), command, rest, resp)
    }

    fn missing(&self, bit: u8) -> bool {
        self.missing.load(Ordering::Relaxed) & bit != 0
    }

    fn set_missing(&self, bit: u8) {
        self.missing.fetch_or(bit, Ordering::Relaxed);
    }

    /// Checks a port number against the device's port count, before any system call.
    pub fn check_port(&self, what: &'static str, port: u32) -> Result<u8> {
        if port == 0 || port > u32::from(self.port_count) {
            return Err(Error::NoSuchPort {
                op: Op::port(what, &self.name, port),
                port_count: u32::from(self.port_count),
            });
        }
        Ok(port as u8)
    }

    /// QUERY_COMP... `QUERY_CONTEXT` (since Linux 5.9): the number of completion vectors
    /// and the core support flags, asked again.
    pub fn query_context(&self) -> Result<(u32, u64)> {
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut buf = method::query_context(self.driver_id, &mut ncv, &mut core);
        self.ioctl(&mut buf)
            .map_err(|e| Error::from_errno(Op::new("QUERY_CONTEXT", &self.name), e))?;
        Ok((ncv, core))
    }

    /// The attributes of port `port` (from 1), by the QUERY_PORT ioctl, falling back to
    /// the `write()` command on kernels without it.
    #[doc(alias = "ibv_query_port")]
    pub fn query_port(&self, port: u32) -> Result<PortAttr> {
        self.query_port_via(port, CallPath::Auto)
    }

    /// [`Context::query_port`] through the chosen interface.
    pub fn query_port_via(&self, port: u32, path: CallPath) -> Result<PortAttr> {
        let p = self.check_port("QUERY_PORT", port)?;
        let op = || Op::port("QUERY_PORT", &self.name, port);
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        if path == CallPath::Ioctl || (path == CallPath::Auto && !self.missing(NO_IOCTL_QUERY_PORT))
        {
            let mut buf = method::query_port(self.driver_id, p, &mut resp);
            match self.ioctl(&mut buf) {
                Ok(()) => return Ok(PortAttr::from_resp(&resp)),
                Err(e) if path == CallPath::Auto && is_unknown_method(e) => {
                    self.set_missing(NO_IOCTL_QUERY_PORT)
                }
                Err(e) => return Err(Error::from_errno(op(), e)),
            }
        }
        // write(): ib_uverbs_query_port after the response pointer is port_num + 7 bytes.
        let mut rest = [0u8; 8];
        rest[0] = p;
        let mut legacy = ib_uverbs_query_port_resp::default();
        sys::write_cmd(
            self.fd.as_fd(),
            IB_USER_VERBS_CMD_QUERY_PORT,
            &rest,
            legacy.as_mut_bytes(),
        )
        .map_err(|e| Error::from_errno(op(), e))?;
        Ok(PortAttr::from_resp_bytes(legacy.as_bytes()))
    }

    /// The attributes of the device: extended QUERY_DEVICE through INVOKE_WRITE,
    /// falling back to the plain one, then to the `write()` commands.
    #[doc(alias = "ibv_query_device")]
    #[doc(alias = "ibv_query_device_ex")]
    pub fn query_device(&self) -> Result<DeviceAttr> {
        self.query_device_via(CallPath::Auto)
    }

    /// [`Context::query_device`] through the chosen interface.
    pub fn query_device_via(&self, path: CallPath) -> Result<DeviceAttr> {
        let op = || Op::new("QUERY_DEVICE", &self.name);
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        let cmd = ib_uverbs_ex_query_device::default();
        let use_ioctl =
            path == CallPath::Ioctl || (path == CallPath::Auto && !self.missing(NO_INVOKE_WRITE));
        if use_ioctl {
            if !self.missing(NO_EX_QUERY_DEVICE) {
                let mut buf = method::invoke_write(
                    self.driver_id,
                    IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
                    cmd.as_bytes(),
                    resp.as_mut_bytes(),
                );
                match self.ioctl(&mut buf) {
                    Ok(()) => return Ok(self.device_attr_ex(&mut resp)),
                    Err(e) if e == Errno::OPNOTSUPP || e == Errno::NOSYS => {
                        self.set_missing(NO_EX_QUERY_DEVICE)
                    }
                    Err(e) if path == CallPath::Auto && is_unknown_method(e) => {
                        self.set_missing(NO_INVOKE_WRITE)
                    }
                    Err(e) => return Err(Error::from_errno(op(), e)),
                }
            }
            if !self.missing(NO_INVOKE_WRITE) {
                let req = ib_uverbs_query_device::default();
                let mut buf = method::invoke_write(
                    self.driver_id,
                    IB_USER_VERBS_CMD_QUERY_DEVICE,
                    req.as_bytes(),
                    resp.base.as_mut_bytes(),
                );
                match self.ioctl(&mut buf) {
                    Ok(()) => return Ok(self.device_attr_legacy(&resp.base)),
                    Err(e) if path == CallPath::Auto && is_unknown_method(e) => {
                        self.set_missing(NO_INVOKE_WRITE)
                    }
                    Err(e) => return Err(Error::from_errno(op(), e)),
                }
            }
        }
        // write(): the extended command first, then the plain one.
        match sys::write_ex_cmd(
            self.fd.as_fd(),
            IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
            cmd.as_bytes(),
            resp.as_mut_bytes(),
        ) {
            Ok(()) => return Ok(self.device_attr_ex(&mut resp)),
            Err(e) if e == Errno::OPNOTSUPP || e == Errno::NOSYS || e == Errno::INVAL => {}
            Err(e) => return Err(Error::from_errno(op(), e)),
        }
        sys::write_cmd(
            self.fd.as_fd(),
            IB_USER_VERBS_CMD_QUERY_DEVICE,
            &[],
            resp.base.as_mut_bytes(),
        )
        .map_err(|e| Error::from_errno(op(), e))?;
        Ok(self.device_attr_legacy(&resp.base))
    }

    /// The firmware version for the kernel's raw number, formatted once per context as
    /// the provider would (the number does not change while the device exists).
    fn fw_ver(&self, raw: u64) -> FwVersion {
        let (cached_raw, fw) = self.fw_cache.get_or_init(|| {
            (
                raw,
                driver::format_fw_ver(self.driver_id, raw, self.fw_text.as_str()),
            )
        });
        if *cached_raw == raw {
            *fw
        } else {
            driver::format_fw_ver(self.driver_id, raw, self.fw_text.as_str())
        }
    }

    fn device_attr_ex(&self, r: &mut ib_uverbs_ex_query_device_resp) -> DeviceAttr {
        let fw = self.fw_ver(r.base.fw_ver);
        // Zero what the kernel did not fill (it leaves the rest of our buffer as it was,
        // which is zero already; this guards against a kernel that says less).
        let filled = (r.response_length as usize).clamp(
            core::mem::size_of::<ib_uverbs_query_device_resp>() + 8,
            core::mem::size_of::<ib_uverbs_ex_query_device_resp>(),
        );
        r.as_mut_bytes()[filled..].fill(0);
        DeviceAttr::from_ex(r, fw)
    }

    fn device_attr_legacy(&self, r: &ib_uverbs_query_device_resp) -> DeviceAttr {
        DeviceAttr::from_legacy(r, self.fw_ver(r.fw_ver))
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
    Ok(fd)
}

/// Finds the device's driver id with rdma-core's harmless INVOKE_WRITE probe: the kernel
/// checks the header's driver id first (EINVAL when wrong) and then answers ENOSPC.
/// The guess is tried first, then every known id.
fn probe_driver_id(fd: BorrowedFd<'_>, name: &str, guess: Option<u32>) -> Result<u32> {
    let op = || Op::new("driver id probe", name);
    let candidates = guess.into_iter().chain(0..=RDMA_DRIVER_IONIC);
    for id in candidates {
        let mut buf = method::invoke_write_probe(id);
        match sys::verbs_ioctl(fd, &mut buf) {
            Err(Errno::NOSPC) | Ok(()) => return Ok(id),
            Err(Errno::INVAL) => continue,
            // No ioctl interface at all: the write() path needs no driver id.
            Err(e) if is_unknown_method(e) => return Ok(guess.unwrap_or(RDMA_DRIVER_UNKNOWN)),
            Err(e) => return Err(Error::from_errno(op(), e)),
        }
    }
    Err(Error::Protocol {
        op: op(),
        detail: "the kernel rejected every known driver id".into(),
    })
}
