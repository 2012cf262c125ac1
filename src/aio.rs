//! Futures over tokio for the files a program waits on (feature `tokio`, off by default).
//!
//! Each type wraps its synchronous counterpart: an `await` returns when one of its files
//! has something and the non-blocking read of the synchronous API got it, so arming,
//! reading and acknowledging work as they do without tokio:
//!
//! - [`AsyncEventStream`]: a context's async events ([`EventStream`]);
//! - [`AsyncCompChannel`]: a completion channel's events ([`CompChannel`]); arm the CQ
//!   with [`Cq::req_notify`] before waiting, poll it after, and acknowledge with
//!   [`Cq::ack_events`], as with `ibv_get_cq_event(3)`;
//! - [`AsyncDeviceMonitor`]: devices added and removed ([`DeviceMonitor`]);
//! - [`AsyncCmChannel`]: the RDMA CM's events ([`CmChannel`]).
//!
//! The files are gathered in an epoll set of the type's own, and tokio watches that set:
//! so a context's files can be revoked under it (the device is being removed:
//! [`Context::guard`](crate::verbs::context::Context::guard)) without tokio ever holding
//! a number that now names another file, and the context's wake file, in the same set,
//! wakes the waiting task, which then gets [`Error::DeviceRemoved`] or the stream's end.
//!
//! They need a tokio runtime with I/O enabled. The `uverbs` command does not use them:
//! the static binary holds none of this.
#![allow(unsafe_code)]

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::time::Duration;

use rustix::event::epoll;
use tokio::io::unix::{AsyncFd, AsyncFdReadyGuard};
use tokio::io::Interest;

use crate::cm::{CmChannel, CmEvent};
use crate::error::{Error, Op, Result};
use crate::verbs::event::{EventStream, Next};
use crate::verbs::monitor::{DeviceChange, DeviceMonitor};
use crate::verbs::objects::{CompChannel, Cq};

/// An epoll set of some files, registered with tokio's reactor.
#[derive(Debug)]
struct Set(AsyncFd<OwnedFd>);

impl Set {
    fn new<'a>(fds: impl IntoIterator<Item = BorrowedFd<'a>>, what: &'static str) -> Result<Set> {
        let os = |errno| Error::Os {
            op: Op::new(what, "epoll"),
            errno,
        };
        let set = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(os)?;
        for (i, fd) in fds.into_iter().enumerate() {
            // Level-triggered: the set stays readable while a file has something.
            let data = epoll::EventData::new_u64(i as u64);
            epoll::add(&set, fd, data, epoll::EventFlags::IN).map_err(os)?;
        }
        // SAFETY: tokio's contract for registering a descriptor: it must be valid and
        // open, refer to the same open file, and be the number `as_raw_fd` returns, for
        // the whole life of the AsyncFd. `set` is an OwnedFd this function created (the
        // epoll instance above) and moves into the AsyncFd, which owns it until it is
        // dropped; nothing else holds, closes or replaces it (no dup2 over it: the
        // lifeline revokes the uverbs files inside the set, never the set), and
        // OwnedFd::as_raw_fd always returns the number it owns.
        let registered = unsafe { AsyncFd::register_with_interest(set, Interest::READABLE) };
        registered.map(Set).map_err(|e| Error::Os {
            op: Op::new(what, "tokio"),
            errno: rustix::io::Errno::from_io_error(&e.into()).unwrap_or(rustix::io::Errno::IO),
        })
    }

    async fn readable(&self, what: &'static str) -> Result<AsyncFdReadyGuard<'_, OwnedFd>> {
        self.0.readable().await.map_err(|e| Error::Os {
            op: Op::new(what, "tokio"),
            errno: rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::IO),
        })
    }
}

/// A context's async events, awaited.
#[derive(Debug)]
pub struct AsyncEventStream {
    stream: EventStream,
    set: Set,
}

impl AsyncEventStream {
    /// Registers `stream` (its file and its context's wake file) with the current tokio
    /// runtime.
    ///
    /// # Errors
    ///
    /// [`Error::Os`] when the epoll set cannot be made or tokio cannot register it (no
    /// runtime with I/O).
    pub fn new(stream: EventStream) -> Result<AsyncEventStream> {
        let set = Set::new(
            [stream.file_fd(), stream.wake_fd()?],
            "register an event stream",
        )?;
        Ok(AsyncEventStream { stream, set })
    }

    /// The next event, or [`Next::End`] when the stream ended; never [`Next::Empty`].
    ///
    /// # Errors
    ///
    /// As [`EventStream::try_read`].
    #[doc(alias = "ibv_get_async_event")]
    pub async fn next(&mut self) -> Result<Next> {
        loop {
            match self.stream.try_read()? {
                Next::Empty => {}
                other => return Ok(other),
            }
            let mut ready = self.set.readable("wait for an async event").await?;
            match self.stream.try_read()? {
                Next::Empty => ready.clear_ready(),
                other => return Ok(other),
            }
        }
    }

    /// The stream itself.
    pub fn get_ref(&self) -> &EventStream {
        &self.stream
    }
}

/// A completion channel's events, awaited.
#[derive(Debug)]
pub struct AsyncCompChannel {
    channel: CompChannel,
    set: Set,
}

impl AsyncCompChannel {
    /// Registers `channel` (its file and its context's wake file) with the current tokio
    /// runtime.
    ///
    /// # Errors
    ///
    /// As [`AsyncEventStream::new`].
    pub fn new(channel: CompChannel) -> Result<AsyncCompChannel> {
        let set = Set::new(
            [channel.file_fd(), channel.wake_fd()?],
            "register a completion channel",
        )?;
        Ok(AsyncCompChannel { channel, set })
    }

    /// The CQ of the next completion event (armed before with [`Cq::req_notify`]);
    /// acknowledge it with [`Cq::ack_events`].
    ///
    /// # Errors
    ///
    /// As [`CompChannel::get_event`].
    #[doc(alias = "ibv_get_cq_event")]
    pub async fn get_event(&self) -> Result<Cq> {
        loop {
            if let Some(cq) = self.channel.get_event(Some(Duration::ZERO))? {
                return Ok(cq);
            }
            let mut ready = self.set.readable("wait for a completion event").await?;
            match self.channel.get_event(Some(Duration::ZERO))? {
                Some(cq) => return Ok(cq),
                None => ready.clear_ready(),
            }
        }
    }

    /// The channel itself (to create CQs on it).
    pub fn get_ref(&self) -> &CompChannel {
        &self.channel
    }
}

/// Devices added, removed and renamed, awaited.
#[derive(Debug)]
pub struct AsyncDeviceMonitor {
    monitor: DeviceMonitor,
    set: Set,
}

impl AsyncDeviceMonitor {
    /// Registers `monitor`'s sockets with the current tokio runtime.
    ///
    /// # Errors
    ///
    /// As [`AsyncEventStream::new`].
    pub fn new(monitor: DeviceMonitor) -> Result<AsyncDeviceMonitor> {
        let set = Set::new(monitor.fds(), "register the device monitor")?;
        Ok(AsyncDeviceMonitor { monitor, set })
    }

    /// The next change.
    ///
    /// # Errors
    ///
    /// As [`DeviceMonitor::try_next`].
    pub async fn next(&mut self) -> Result<DeviceChange> {
        loop {
            if let Some(c) = self.monitor.try_next()? {
                return Ok(c);
            }
            let mut ready = self.set.readable("wait for a device change").await?;
            match self.monitor.try_next()? {
                Some(c) => return Ok(c),
                None => ready.clear_ready(),
            }
        }
    }

    /// The monitor itself.
    pub fn get_ref(&self) -> &DeviceMonitor {
        &self.monitor
    }
}

/// The RDMA CM's events, awaited.
#[derive(Debug)]
pub struct AsyncCmChannel {
    channel: Arc<CmChannel>,
    set: Set,
}

impl AsyncCmChannel {
    /// Registers `channel` with the current tokio runtime.
    ///
    /// # Errors
    ///
    /// As [`AsyncEventStream::new`].
    pub fn new(channel: Arc<CmChannel>) -> Result<AsyncCmChannel> {
        let set = Set::new([channel.file_fd()], "register an RDMA CM channel")?;
        Ok(AsyncCmChannel { channel, set })
    }

    /// The next event of any id of the channel.
    ///
    /// # Errors
    ///
    /// As [`CmChannel::get_event`].
    #[doc(alias = "rdma_get_cm_event")]
    pub async fn get_event(&self) -> Result<CmEvent> {
        loop {
            // (events an id's own wait set aside come first, without a read)
            if let Some(e) = self.channel.get_event(Some(Duration::ZERO))? {
                return Ok(e);
            }
            let mut ready = self.set.readable("wait for an RDMA CM event").await?;
            match self.channel.get_event(Some(Duration::ZERO))? {
                Some(e) => return Ok(e),
                None => ready.clear_ready(),
            }
        }
    }

    /// The channel itself (to create ids on it).
    pub fn get_ref(&self) -> &Arc<CmChannel> {
        &self.channel
    }
}
