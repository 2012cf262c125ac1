//! Errors: every one names the operation and the device (and port), and keeps the errno.

use std::path::PathBuf;

/// The result type of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// What was being done when an error happened: the operation, the device and the port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The operation, e.g. `"QUERY_PORT"` or `"open"`.
    pub what: &'static str,
    /// The device name (`rxe0`), empty when no device is involved.
    pub device: String,
    /// The port, when the operation is about one.
    pub port: Option<u32>,
}

impl Op {
    /// An operation on a device.
    pub fn new(what: &'static str, device: &str) -> Self {
        Op {
            what,
            device: device.to_owned(),
            port: None,
        }
    }
    /// The same, on a port.
    pub fn port(what: &'static str, device: &str, port: u32) -> Self {
        Op {
            what,
            device: device.to_owned(),
            port: Some(port),
        }
    }
}

impl core::fmt::Display for Op {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.what)?;
        if !self.device.is_empty() {
            write!(f, " on {}", self.device)?;
        }
        if let Some(p) = self.port {
            write!(f, " port {p}")?;
        }
        Ok(())
    }
}

/// An error of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No RDMA device of that name exists.
    #[error("no RDMA device named '{name}'")]
    NoSuchDevice {
        /// The name asked for.
        name: String,
    },
    /// The port number is not one of the device's ports.
    #[error("{op}: no such port (the device has {port_count} port(s), numbered from 1)")]
    NoSuchPort {
        /// The operation.
        op: Op,
        /// The device's port count.
        port_count: u32,
    },
    /// The uverbs character device cannot be opened for lack of permission.
    #[error("{op}: permission denied opening {}: {hint}", path.display())]
    PermissionDenied {
        /// The operation.
        op: Op,
        /// The device node.
        path: PathBuf,
        /// What to do about it.
        hint: &'static str,
    },
    /// The device went away (hot-unplug, driver unbound, link deleted): the kernel
    /// disassociated the context.
    #[error("{op}: the device is gone ({errno})")]
    DeviceGone {
        /// The operation.
        op: Op,
        /// The errno (`EIO` or `ENODEV`).
        errno: rustix::io::Errno,
    },
    /// The device is being removed, or was: its uverbs files were let go of
    /// ([`Lifeline::revoke`](crate::raw::lifeline::Lifeline::revoke)), so that the
    /// kernel's removal need not wait for this process. Every later call on the context
    /// and its objects answers this.
    #[error("{op}: the device was removed")]
    DeviceRemoved {
        /// The operation.
        op: Op,
    },
    /// The kernel or the driver does not support the operation.
    #[error("{op}: not supported by this kernel or driver ({errno})")]
    NotSupported {
        /// The operation.
        op: Op,
        /// The errno (`EOPNOTSUPP`, `ENOTTY`, `EPROTONOSUPPORT`, `ENOSYS`).
        errno: rustix::io::Errno,
    },
    /// The kernel rejected an argument.
    #[error("{op}: invalid argument ({errno})")]
    InvalidArgument {
        /// The operation.
        op: Op,
        /// The errno (`EINVAL` or `ERANGE`).
        errno: rustix::io::Errno,
    },
    /// The device's driver keeps its queues in user memory (mlx5, mlx4, efa, ...) and
    /// needs driver data this crate does not build: objects are not created there, and
    /// no request is sent.
    #[error("{op}: object creation is not supported for driver {driver} (uverbs creates objects on rxe and siw only)")]
    DriverNotSupported {
        /// The operation.
        op: Op,
        /// The driver's name (`mlx5`), or its number.
        driver: String,
    },
    /// The object is still used by others (children, or other handles to it): it was
    /// not destroyed and no request was sent.
    #[error("{op}: still in use by {users} other handle(s) or child object(s)")]
    InUse {
        /// The operation.
        op: Op,
        /// How many other references hold it.
        users: usize,
    },
    /// The argument is wrong before any call is made.
    #[error("{op}: {reason}")]
    BadArgument {
        /// The operation.
        op: Op,
        /// What is wrong.
        reason: String,
    },
    /// The device node does not belong to the device (its dev_t differs).
    #[error("{op}: {} is not the device's node (its device number is {found_major}:{found_minor}, expected {expected_major}:{expected_minor})", path.display())]
    DevMismatch {
        /// The operation.
        op: Op,
        /// The node.
        path: PathBuf,
        /// The node's major.
        found_major: u32,
        /// The node's minor.
        found_minor: u32,
        /// The device's major.
        expected_major: u32,
        /// The device's minor.
        expected_minor: u32,
    },
    /// The kernel answered with something this crate cannot use.
    #[error("{op}: unexpected answer from the kernel: {detail}")]
    Protocol {
        /// The operation.
        op: Op,
        /// What was wrong.
        detail: String,
    },
    /// A work request was refused before anything was written to the queue (the data
    /// path checks every request of a call first, and posts all or none).
    #[error("{op}: work request {index}: {problem}")]
    BadWorkRequest {
        /// The operation (`post_send`, `post_recv`, `post_srq_recv`).
        op: Op,
        /// The request's index in the slice posted.
        index: usize,
        /// What is wrong with it.
        problem: WrProblem,
    },
    /// The queue has no room for every work request of the call: none was posted.
    #[error("{op}: the queue has room for {free} work request(s), {wanted} were posted")]
    QueueFull {
        /// The operation.
        op: Op,
        /// The requests it could take.
        free: u32,
        /// The requests of the call.
        wanted: usize,
    },
    /// The queue pair's state does not allow the call (sends need RTS or later,
    /// receives INIT or later): nothing was posted.
    #[error("{op}: the QP is in state {state:?}")]
    BadQpState {
        /// The operation.
        op: Op,
        /// The state the crate last saw (set by modify, query and the RDMA CM).
        state: crate::types::QpState,
    },
    /// Any other failing system call, with its errno.
    #[error("{op}: {errno}")]
    Os {
        /// The operation.
        op: Op,
        /// The errno.
        errno: rustix::io::Errno,
    },
}

impl Error {
    /// Classifies an errno returned by the kernel for an operation.
    pub fn from_errno(op: Op, errno: rustix::io::Errno) -> Self {
        use rustix::io::Errno;
        match errno {
            Errno::IO | Errno::NODEV => Error::DeviceGone { op, errno },
            Errno::OPNOTSUPP | Errno::NOTTY | Errno::PROTONOSUPPORT | Errno::NOSYS => {
                Error::NotSupported { op, errno }
            }
            Errno::INVAL | Errno::RANGE => Error::InvalidArgument { op, errno },
            _ => Error::Os { op, errno },
        }
    }

    /// The same errno-carrying error, as the failure of `op` (an answer parsed under a
    /// generic name, given the object it was about); any other error unchanged.
    pub fn for_op(self, op: Op) -> Self {
        match self {
            Error::DeviceGone { errno, .. } => Error::DeviceGone { op, errno },
            Error::NotSupported { errno, .. } => Error::NotSupported { op, errno },
            Error::InvalidArgument { errno, .. } => Error::InvalidArgument { op, errno },
            Error::Os { errno, .. } => Error::Os { op, errno },
            other => other,
        }
    }

    /// The errno behind the error, if a system call failed.
    pub fn errno(&self) -> Option<rustix::io::Errno> {
        match self {
            Error::DeviceGone { errno, .. }
            | Error::NotSupported { errno, .. }
            | Error::InvalidArgument { errno, .. }
            | Error::Os { errno, .. } => Some(*errno),
            Error::PermissionDenied { .. } => Some(rustix::io::Errno::ACCESS),
            _ => None,
        }
    }

    /// The operation that failed, when there is one.
    pub fn op(&self) -> Option<&Op> {
        match self {
            Error::NoSuchDevice { .. } => None,
            Error::NoSuchPort { op, .. }
            | Error::PermissionDenied { op, .. }
            | Error::DeviceGone { op, .. }
            | Error::NotSupported { op, .. }
            | Error::InvalidArgument { op, .. }
            | Error::BadArgument { op, .. }
            | Error::DriverNotSupported { op, .. }
            | Error::DeviceRemoved { op }
            | Error::InUse { op, .. }
            | Error::DevMismatch { op, .. }
            | Error::Protocol { op, .. }
            | Error::BadWorkRequest { op, .. }
            | Error::QueueFull { op, .. }
            | Error::BadQpState { op, .. }
            | Error::Os { op, .. } => Some(op),
        }
    }
}

/// What is wrong with a work request that was refused before anything was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WrProblem {
    /// More SGEs than the queue takes.
    TooManySges {
        /// The queue's maximum.
        max: u32,
        /// The request's count.
        got: usize,
    },
    /// More inline bytes than the QP takes.
    InlineTooLong {
        /// The QP's maximum.
        max: u32,
        /// The request's length.
        got: usize,
    },
    /// An atomic needs an 8-byte-aligned remote address and 8 local bytes.
    AtomicOperands,
    /// Inline data for an operation that has none to send (a read, an atomic).
    InlineNotForThisOp,
    /// A UD send without a destination ([`SendWr::ud`](crate::verbs::datapath::SendWr::ud)), or a destination on another
    /// type of QP.
    UdDestination,
    /// The address handle was made by a kernel that gives no AH number (rxe before
    /// Linux 5.10): not supported.
    NoAhNumber,
    /// The SGE lengths add up to more than 4 GiB.
    LengthOverflow,
    /// siw takes receive requests of 1 to 6 SGEs only.
    NoSge,
}
