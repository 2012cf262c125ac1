//! Asynchronous events of a device: port state changes, GID and P_Key table changes,
//! device failure (`ibv_get_async_event(3)` without libibverbs).
//!
//! The kernel queues one 16-byte `ib_uverbs_async_event_desc` per event on an async
//! event file; [`Context::events`] creates one and [`EventStream`] reads it. Each stream
//! has its own queue: two streams of one context both see every device event.
//!
//! ```no_run
//! # fn main() -> uverbs::Result<()> {
//! let ctx = uverbs::Context::open_by_name("rxe0")?;
//! let mut events = ctx.events()?;
//! while let Some(ev) = events.read()? {
//!     println!("{}", ev.on(ctx.name()));      // rxe0 port 1: IBV_EVENT_PORT_ERR
//! }
//! // None: the stream ended (IBV_EVENT_DEVICE_FATAL was the last event).
//! # Ok(())
//! # }
//! ```
//!
//! ## End of the stream
//!
//! `IBV_EVENT_DEVICE_FATAL` is the last event a stream delivers: the kernel queues it
//! when a device whose driver can disassociate user contexts (mlx4, mlx5, hns, ...) is
//! removed or fails, even after the context has been disassociated. Software devices
//! cannot: on rxe and siw (6.1 and 6.12) `rdma link delete` waits until every context
//! and event file of the device is closed, queries keep answering meanwhile, and no
//! event is queued; deleting the netdev under an rxe device makes QUERY_PORT fail with
//! `ENODEV` ([`Error::DeviceGone`]) and queues GID_CHANGE only. [`EventStream::read`] returns that
//! event, and from then on `Ok(None)` without another system call. A read that the kernel
//! answers with `EIO` (its queue was closed) or with 0 bytes also ends the stream; both
//! are reported the same way, as the end (`Ok(None)` / [`Next::End`]), never as an error.
//!
//! ## Element
//!
//! Port events carry the port number in `element`; events of a QP, CQ, SRQ or WQ carry
//! the `user_handle` given when the object was created (always 0 for objects this crate
//! cannot create yet); device events (`DEVICE_FATAL`, `DEVICE_SPEED_CHANGE`) are about the
//! whole device, whatever `element` holds (the driver may name a port there; rdma-core
//! hands a speed change's element on as `port_num`). [`Event::scope`] sorts this out.

use core::fmt;
use core::time::Duration;
use std::os::fd::BorrowedFd;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::io::Errno;
use zerocopy::FromBytes;

use crate::error::{Error, Op, Result};
use crate::raw::abi::ib_uverbs_async_event_desc;
use crate::raw::lifeline::{PollOnly, RevocableFd};
use crate::types::EventType;
use crate::verbs::context::{CallPath, Context};

/// The size of one event as the kernel writes it (`struct ib_uverbs_async_event_desc`).
pub const EVENT_DESC_LEN: usize = core::mem::size_of::<ib_uverbs_async_event_desc>();

/// One asynchronous event (`struct ibv_async_event` without the object pointers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "ibv_async_event")]
pub struct Event {
    /// What happened. Values this crate does not know are kept raw.
    pub kind: EventType,
    /// The port number for port events, the object's `user_handle` for QP, CQ, SRQ and
    /// WQ events, 0 for device events. See [`Event::scope`].
    pub element: u64,
}

/// What an event is about, from its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventScope {
    /// A port: `PORT_ACTIVE`, `PORT_ERR`, `LID_CHANGE`, `PKEY_CHANGE`, `SM_CHANGE`,
    /// `CLIENT_REREGISTER`, `GID_CHANGE`.
    Port(u32),
    /// The whole device: `DEVICE_FATAL`, `DEVICE_SPEED_CHANGE` (the kernel sets no port;
    /// a speed change usually concerns every port).
    Device,
    /// A queue pair, by its `user_handle`.
    Qp(u64),
    /// A completion queue, by its `user_handle`.
    Cq(u64),
    /// A shared receive queue, by its `user_handle`.
    Srq(u64),
    /// A work queue, by its `user_handle`.
    Wq(u64),
    /// A type this crate does not know, or a port event whose element is not a port
    /// number: the element as the kernel sent it.
    Unknown(u64),
}

impl Event {
    /// Decodes one `ib_uverbs_async_event_desc` (exactly [`EVENT_DESC_LEN`] bytes, native
    /// byte order); `None` for any other length. The reserved word is ignored.
    pub fn from_bytes(bytes: &[u8]) -> Option<Event> {
        let desc = ib_uverbs_async_event_desc::read_from_bytes(bytes).ok()?;
        Some(Event::from_desc(&desc))
    }

    /// Decodes the kernel's struct.
    pub fn from_desc(desc: &ib_uverbs_async_event_desc) -> Event {
        Event {
            kind: EventType::from_raw(desc.event_type),
            element: desc.element,
        }
    }

    /// True for the event types whose element is a port number.
    pub fn is_port_event_type(kind: EventType) -> bool {
        matches!(
            kind,
            EventType::PortActive
                | EventType::PortErr
                | EventType::LidChange
                | EventType::PkeyChange
                | EventType::SmChange
                | EventType::ClientReregister
                | EventType::GidChange
        )
    }

    /// The port of a port event; `None` for other events.
    pub fn port(&self) -> Option<u32> {
        match self.scope() {
            EventScope::Port(p) => Some(p),
            _ => None,
        }
    }

    /// What the event is about.
    pub fn scope(&self) -> EventScope {
        let e = self.element;
        match self.kind {
            k if Self::is_port_event_type(k) => match u32::try_from(e) {
                Ok(p) if p > 0 => EventScope::Port(p),
                _ => EventScope::Unknown(e),
            },
            EventType::DeviceFatal | EventType::DeviceSpeedChange => EventScope::Device,
            EventType::CqErr => EventScope::Cq(e),
            EventType::QpFatal
            | EventType::QpReqErr
            | EventType::QpAccessErr
            | EventType::CommEst
            | EventType::SqDrained
            | EventType::PathMig
            | EventType::PathMigErr
            | EventType::QpLastWqeReached => EventScope::Qp(e),
            EventType::SrqErr | EventType::SrqLimitReached => EventScope::Srq(e),
            EventType::WqFatal => EventScope::Wq(e),
            _ => EventScope::Unknown(e),
        }
    }

    /// True for `IBV_EVENT_DEVICE_FATAL`, the last event of a stream.
    pub fn is_fatal(&self) -> bool {
        self.kind == EventType::DeviceFatal
    }

    /// The event with the device's name, for display: `rxe0 port 1: IBV_EVENT_PORT_ERR`.
    pub fn on<'a>(&'a self, device: &'a str) -> DeviceEvent<'a> {
        DeviceEvent {
            device,
            event: self,
        }
    }

    fn fmt_subject(&self, f: &mut fmt::Formatter<'_>, device: Option<&str>) -> fmt::Result {
        let dev = device.unwrap_or("");
        let sep = if dev.is_empty() { "" } else { " " };
        match self.scope() {
            EventScope::Port(p) => write!(f, "{dev}{sep}port {p}: ")?,
            EventScope::Device if dev.is_empty() => f.write_str("device: ")?,
            EventScope::Device => write!(f, "{dev}: ")?,
            EventScope::Qp(h) => write!(f, "{dev}{sep}qp handle {h:#x}: ")?,
            EventScope::Cq(h) => write!(f, "{dev}{sep}cq handle {h:#x}: ")?,
            EventScope::Srq(h) => write!(f, "{dev}{sep}srq handle {h:#x}: ")?,
            EventScope::Wq(h) => write!(f, "{dev}{sep}wq handle {h:#x}: ")?,
            EventScope::Unknown(e) => write!(f, "{dev}{sep}element {e}: ")?,
        }
        match self.kind.c_name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown event type {}", self.kind.as_raw()),
        }
    }
}

impl fmt::Display for Event {
    /// One line: `port 1: IBV_EVENT_PORT_ERR`, `device: IBV_EVENT_DEVICE_FATAL`,
    /// `qp handle 0x2a: IBV_EVENT_QP_FATAL`, `element 3: unknown event type 42`.
    /// See [`Event::on`] for the form with the device name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_subject(f, None)
    }
}

/// An [`Event`] with its device's name, for display (see [`Event::on`]).
#[derive(Debug, Clone, Copy)]
pub struct DeviceEvent<'a> {
    device: &'a str,
    event: &'a Event,
}

impl fmt::Display for DeviceEvent<'_> {
    /// `rxe0 port 1: IBV_EVENT_PORT_ERR`, `rxe0: IBV_EVENT_DEVICE_FATAL`,
    /// `mlx5_0 qp handle 0x2a: IBV_EVENT_QP_FATAL`, `rxe0 element 3: unknown event type 42`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.event.fmt_subject(f, Some(self.device))
    }
}

/// The result of a non-blocking read: an event, nothing now, or the end of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// An event.
    Event(Event),
    /// No event is queued now; more may come (wait with [`EventStream::wait`] or poll
    /// the fd).
    Empty,
    /// The stream has ended: `DEVICE_FATAL` was delivered, or the kernel closed the
    /// queue. No event will ever come.
    End,
}

/// Where an event stream's file descriptor came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventSource {
    /// Created by the `ASYNC_EVENT_ALLOC` ioctl method (Linux 5.6 and later).
    Ioctl,
    /// The `async_fd` that the legacy `write()` GET_CONTEXT command created.
    WriteGetContext,
}

/// The async event file of a device context: a pollable stream of [`Event`]s.
///
/// The file descriptor is non-blocking (`O_NONBLOCK`, set when the stream is made):
/// [`try_read`](Self::try_read) is exactly one `read(2)`; [`read`](Self::read) waits
/// with `poll(2)` when nothing is queued. To use the stream in an event loop, poll
/// [`poll_fd`](Self::poll_fd) for readability and call `try_read` until [`Next::Empty`].
///
/// The stream stays valid after its [`Context`] is dropped (the kernel keeps the device
/// context alive while the file is open), but no new events come once the context is
/// closed.
#[derive(Debug)]
pub struct EventStream {
    fd: RevocableFd,
    /// What [`EventStream::poll_fd`] lends.
    poll: PollOnly,
    device: String,
    source: EventSource,
    ended: bool,
    /// Feature `fault-injection`: the DEVICE_FATAL of an injected disassociation was
    /// delivered.
    #[cfg(feature = "fault-injection")]
    fatal_injected: bool,
}

// An event stream can be handed to another thread (e.g. a watcher), checked at compile
// time.
const _: () = {
    const fn send<T: Send>() {}
    send::<EventStream>();
};

impl Context {
    /// A new stream of this device's asynchronous events (`ibv_get_async_event(3)`).
    ///
    /// If the context was created by the legacy `write()` GET_CONTEXT, the async event
    /// file that command created is used the first time (it exists already, and an
    /// unread second queue would only accumulate events); otherwise, and for every
    /// further stream, the `ASYNC_EVENT_ALLOC` ioctl method makes a new one. On a kernel
    /// without that method (before 5.6) the only stream is the `write()` one, and a
    /// second call fails with [`Error::NotSupported`].
    ///
    /// Events that happened before the stream was created are not delivered.
    ///
    /// # Errors
    ///
    /// As [`Context::events_via`] with [`CallPath::Auto`].
    #[doc(alias = "ibv_get_async_event")]
    pub fn events(&self) -> Result<EventStream> {
        self.events_via(CallPath::Auto)
    }

    /// [`Context::events`] through a chosen interface: [`CallPath::Ioctl`] always calls
    /// `ASYNC_EVENT_ALLOC`; [`CallPath::Write`] only takes the `write()` GET_CONTEXT's
    /// async file.
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] for [`CallPath::Write`] when there is no `write()` async
    /// file (the context was created by ioctl, or the file was taken already).
    /// `ASYNC_EVENT_ALLOC`: the kernel's errno, classified ([`Error::NotSupported`]
    /// before Linux 5.6); [`Error::Protocol`] when it returns no file descriptor. Making
    /// the file non-blocking: [`Error::Os`] (`fcntl`).
    pub fn events_via(&self, path: CallPath) -> Result<EventStream> {
        if path != CallPath::Ioctl {
            if let Some(fd) = self.take_write_async_fd() {
                return EventStream::from_fd(fd, self.name(), EventSource::WriteGetContext);
            }
            if path == CallPath::Write {
                return Err(Error::BadArgument {
                    op: Op::new("async event file", self.name()),
                    reason: "no async event file from a write() GET_CONTEXT: the context \
                             was created by ioctl, or its file was taken by an earlier stream"
                        .into(),
                });
            }
        }
        let fd = self.raw().alloc_async_event_fd().map_err(|e| {
            let op = Op::new("ASYNC_EVENT_ALLOC", self.name());
            match e {
                // Its file was let go of (the device's removal started): not the
                // kernel's answer.
                _ if self.is_revoked() => Error::DeviceRemoved { op },
                Errno::IO => Error::Protocol {
                    op,
                    detail: "the kernel returned no file descriptor".into(),
                },
                e => Error::from_errno(op, e),
            }
        })?;
        EventStream::from_fd(fd, self.name(), EventSource::Ioctl)
    }
}

impl EventStream {
    /// Makes a stream of an async event file descriptor and sets it non-blocking.
    fn from_fd(fd: RevocableFd, device: &str, source: EventSource) -> Result<EventStream> {
        let op = || Op::new("async event file", device);
        let flags = rustix::fs::fcntl_getfl(fd.fd()).map_err(|e| Error::from_errno(op(), e))?;
        if !flags.contains(OFlags::NONBLOCK) {
            rustix::fs::fcntl_setfl(fd.fd(), flags | OFlags::NONBLOCK)
                .map_err(|e| Error::from_errno(op(), e))?;
        }
        Ok(EventStream {
            fd,
            poll: PollOnly::default(),
            device: device.to_owned(),
            source,
            ended: false,
            #[cfg(feature = "fault-injection")]
            fatal_injected: false,
        })
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Where the file descriptor came from.
    pub fn source(&self) -> EventSource {
        self.source
    }

    /// True once the stream has ended (see [`Next::End`]).
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Reads one event without waiting: one `read(2)`, no allocation unless it fails.
    /// `EIO` (the kernel closed the queue) is [`Next::End`], not an error.
    ///
    /// # Errors
    ///
    /// A read of other than 16 bytes is [`Error::Protocol`]; another errno is returned
    /// classified (`ENODEV` as [`Error::DeviceGone`]).
    pub fn try_read(&mut self) -> Result<Next> {
        if self.ended {
            return Ok(Next::End);
        }
        let mut buf = [0u8; EVENT_DESC_LEN];
        #[cfg(feature = "fault-injection")]
        if self.fd.lifeline().is_disassociated() {
            // As the kernel's disassociation does: DEVICE_FATAL (element 0), then EIO.
            if !std::mem::replace(&mut self.fatal_injected, true) {
                buf[8..12].copy_from_slice(&EventType::DeviceFatal.as_raw().to_ne_bytes());
                let ev = Event::from_bytes(&buf).ok_or_else(|| self.short(EVENT_DESC_LEN))?;
                self.ended = true;
                return Ok(Next::Event(ev));
            }
            self.ended = true;
            return Ok(Next::End);
        }
        loop {
            match rustix::io::read(self.fd.fd(), &mut buf[..]) {
                Ok(0) => {
                    self.ended = true;
                    return Ok(Next::End);
                }
                Ok(n) if n == EVENT_DESC_LEN => {
                    let ev = Event::from_bytes(&buf).ok_or_else(|| self.short(n))?;
                    if ev.is_fatal() {
                        self.ended = true;
                    }
                    return Ok(Next::Event(ev));
                }
                Ok(n) => return Err(self.short(n)),
                Err(Errno::AGAIN) => return Ok(Next::Empty),
                Err(Errno::INTR) => continue,
                Err(Errno::IO) => {
                    self.ended = true;
                    return Ok(Next::End);
                }
                Err(_) if self.is_revoked() => {
                    return Err(Error::DeviceRemoved {
                        op: Op::new("read async event", &self.device),
                    })
                }
                Err(e) => {
                    return Err(Error::from_errno(
                        Op::new("read async event", &self.device),
                        e,
                    ))
                }
            }
        }
    }

    fn short(&self, n: usize) -> Error {
        Error::Protocol {
            op: Op::new("read async event", &self.device),
            detail: format!("read {n} bytes, an event is {EVENT_DESC_LEN}"),
        }
    }

    /// Reads one event, waiting as long as it takes. `Ok(None)` is the end of the
    /// stream: after `DEVICE_FATAL` (which is returned first, as an event), or when the
    /// kernel closed the queue.
    ///
    /// # Errors
    ///
    /// As [`EventStream::try_read`] and [`EventStream::wait`].
    pub fn read(&mut self) -> Result<Option<Event>> {
        loop {
            match self.try_read()? {
                Next::Event(e) => return Ok(Some(e)),
                Next::End => return Ok(None),
                Next::Empty => {
                    self.wait(None)?;
                }
            }
        }
    }

    /// Reads one event, waiting at most `timeout`: [`Next::Empty`] when none came.
    ///
    /// # Errors
    ///
    /// As [`EventStream::try_read`] and [`EventStream::wait`].
    pub fn read_timeout(&mut self, timeout: Duration) -> Result<Next> {
        match self.try_read()? {
            Next::Empty => {}
            other => return Ok(other),
        }
        self.wait(Some(timeout))?;
        self.try_read()
    }

    /// True once the context's files were revoked (the device is being removed): the
    /// next read answers [`Error::DeviceRemoved`].
    pub fn is_revoked(&self) -> bool {
        self.fd.lifeline().is_revoked()
    }

    /// Waits until an event can be read or the stream has ended (then a read answers at
    /// once), at most `timeout` (`None`: no limit). Returns false on timeout. An
    /// interrupted wait (`EINTR`) returns true, so that the caller's read decides. A
    /// revocation of the context's files ends the wait at once (true: the next read
    /// answers [`Error::DeviceRemoved`]).
    ///
    /// # Errors
    ///
    /// [`Error::Os`] (or another class of [`Error::from_errno`]) when `poll(2)` fails
    /// other than with `EINTR`.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Result<bool> {
        if self.ended || self.is_revoked() || self.fd.lifeline().is_disassociated() {
            return Ok(true);
        }
        let ts = timeout.map(|d| Timespec {
            tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(d.subsec_nanos()),
        });
        let wake = self.wake_fd()?;
        let own = self.fd.fd();
        let mut fds = [
            PollFd::new(&own, PollFlags::IN),
            PollFd::new(&wake, PollFlags::IN),
        ];
        match rustix::event::poll(&mut fds, ts.as_ref()) {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(Errno::INTR) => Ok(true),
            Err(e) => Err(Error::from_errno(
                Op::new("poll async events", &self.device),
                e,
            )),
        }
    }
}

impl EventStream {
    /// A descriptor for an event loop: readable when an event is queued, and once the
    /// context's files are revoked (the device is being removed; [`Self::try_read`] then
    /// answers [`Error::DeviceRemoved`]). It can only be polled: an `epoll` set that
    /// watches the event file and the lifeline's wake file, made on the first call (the
    /// event file itself is not lent: see `PollOnly` in SAFETY.md).
    ///
    /// # Errors
    ///
    /// The errno of `epoll_create1(2)`, `eventfd(2)` or `epoll_ctl(2)`, the first time.
    pub fn poll_fd(&self) -> Result<BorrowedFd<'_>> {
        self.poll
            .get(self.fd.fd(), Some(self.fd.lifeline()))
            .map_err(|e| Error::from_errno(Op::new("async event file", &self.device), e))
    }

    /// The event file, for the crate's own waits (`uverbs::aio`).
    #[cfg(feature = "tokio")]
    pub(crate) fn file_fd(&self) -> BorrowedFd<'_> {
        self.fd.fd()
    }

    /// The lifeline of the context the stream belongs to.
    pub(crate) fn lifeline(&self) -> &std::sync::Arc<crate::raw::lifeline::Lifeline> {
        self.fd.lifeline()
    }

    /// The lifeline's wake file, for the crate's own waits.
    pub(crate) fn wake_fd(&self) -> Result<BorrowedFd<'_>> {
        self.fd
            .lifeline()
            .wake_fd()
            .map_err(|e| Error::from_errno(Op::new("async event file", &self.device), e))
    }
}

impl Iterator for EventStream {
    type Item = Result<Event>;

    /// The next event, waiting for it ([`EventStream::read`]); `None` at the end.
    fn next(&mut self) -> Option<Result<Event>> {
        self.read().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(element: u64, ty: u32, reserved: u32) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&element.to_ne_bytes());
        b[8..12].copy_from_slice(&ty.to_ne_bytes());
        b[12..].copy_from_slice(&reserved.to_ne_bytes());
        b
    }

    #[test]
    fn decode_port_event() {
        let e = Event::from_bytes(&desc(1, 10, 0)).unwrap();
        assert_eq!(e.kind, EventType::PortErr);
        assert_eq!(e.element, 1);
        assert_eq!(e.port(), Some(1));
        assert_eq!(e.scope(), EventScope::Port(1));
        assert_eq!(e.to_string(), "port 1: IBV_EVENT_PORT_ERR");
        assert_eq!(e.on("rxe0").to_string(), "rxe0 port 1: IBV_EVENT_PORT_ERR");
    }

    #[test]
    fn every_port_event_type() {
        for raw in [9u32, 10, 11, 12, 13, 17, 18] {
            let e = Event::from_bytes(&desc(2, raw, 0)).unwrap();
            assert_eq!(e.port(), Some(2), "type {raw}");
        }
        for raw in [0u32, 1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 19, 20, 21] {
            let e = Event::from_bytes(&desc(2, raw, 0)).unwrap();
            assert_eq!(e.port(), None, "type {raw}");
        }
    }

    #[test]
    fn unknown_type_kept_raw() {
        let e = Event::from_bytes(&desc(3, 42, 7)).unwrap();
        assert_eq!(e.kind, EventType::Unknown(42));
        assert_eq!(e.kind.as_raw(), 42);
        assert_eq!(e.scope(), EventScope::Unknown(3));
        assert_eq!(e.to_string(), "element 3: unknown event type 42");
        assert_eq!(
            e.on("siw0").to_string(),
            "siw0 element 3: unknown event type 42"
        );
    }

    #[test]
    fn device_and_object_events() {
        let f = Event::from_bytes(&desc(0, 8, 0)).unwrap();
        assert!(f.is_fatal());
        assert_eq!(f.scope(), EventScope::Device);
        assert_eq!(f.to_string(), "device: IBV_EVENT_DEVICE_FATAL");
        assert_eq!(f.on("rxe0").to_string(), "rxe0: IBV_EVENT_DEVICE_FATAL");
        // DEVICE_SPEED_CHANGE (20; Linux 7.0, rdma-core 62), synthetic: the name
        // `uverbs watch` prints, as rdma-core's ibv_asyncwatch names it.
        let s = Event::from_bytes(&desc(0, 20, 0)).unwrap();
        assert_eq!(s.kind, EventType::DeviceSpeedChange);
        assert_eq!(s.scope(), EventScope::Device);
        assert!(!s.is_fatal());
        assert_eq!(s.to_string(), "device: IBV_EVENT_DEVICE_SPEED_CHANGE");
        assert_eq!(
            s.on("mlx5_0").to_string(),
            "mlx5_0: IBV_EVENT_DEVICE_SPEED_CHANGE"
        );
        let q = Event::from_bytes(&desc(0x2a, 1, 0)).unwrap();
        assert_eq!(q.scope(), EventScope::Qp(0x2a));
        assert_eq!(
            q.on("mlx5_0").to_string(),
            "mlx5_0 qp handle 0x2a: IBV_EVENT_QP_FATAL"
        );
        assert_eq!(
            Event::from_bytes(&desc(5, 0, 0)).unwrap().scope(),
            EventScope::Cq(5)
        );
        assert_eq!(
            Event::from_bytes(&desc(5, 15, 0)).unwrap().scope(),
            EventScope::Srq(5)
        );
        assert_eq!(
            Event::from_bytes(&desc(5, 19, 0)).unwrap().scope(),
            EventScope::Wq(5)
        );
    }

    #[test]
    fn port_event_with_bad_element() {
        // Port 0 or a number past u32 cannot be a port: not reported as one.
        let e = Event::from_bytes(&desc(0, 9, 0)).unwrap();
        assert_eq!(e.port(), None);
        assert_eq!(e.scope(), EventScope::Unknown(0));
        let e = Event::from_bytes(&desc(1 << 40, 9, 0)).unwrap();
        assert_eq!(e.port(), None);
        assert_eq!(
            e.to_string(),
            format!("element {}: IBV_EVENT_PORT_ACTIVE", 1u64 << 40)
        );
    }

    #[test]
    fn wrong_lengths_are_none() {
        for n in [0usize, 1, 8, 15, 17, 32] {
            assert_eq!(Event::from_bytes(&vec![0u8; n]), None, "{n} bytes");
        }
    }
}
