//! RDMA netlink: one message builder ([`Request`]), a pure parser over `&[u8]`
//! ([`messages`], [`attrs`], [`parse_answer`]) and a small blocking client over a
//! `NETLINK_RDMA` socket ([`NlSocket`]). The nldev protocol on top of it is in
//! [`nldev`] (devices, uverbs nodes, ports), links in [`link`]; the network interfaces
//! a self-test makes for its own devices in [`route`] (`NETLINK_ROUTE`).
//!
//! The builder and parsers do no I/O and do not allocate (except to describe an error),
//! so they can be unit tested on captured bytes and fuzzed: every length is checked, every
//! loop advances by at least one header, and malformed input gives
//! [`Error::Protocol`], never a panic.

pub mod link;
pub mod nldev;
pub mod route;
pub mod uevent;

use core::sync::atomic::{AtomicU32, Ordering};
use std::os::fd::{AsFd, OwnedFd};
use std::time::Duration;

use rustix::net::netlink::SocketAddrNetlink;
use rustix::net::{self, AddressFamily, Protocol, RecvFlags, SendFlags, SocketFlags, SocketType};
use zerocopy::{FromBytes, IntoBytes};

use crate::error::{Error, Op, Result};
use crate::raw::abi::netlink::*;

/// `RDMA_NL_GET_TYPE(client, op)`: the netlink message type of an RDMA netlink command.
pub const fn nl_type(client: u16, op: u16) -> u16 {
    (client << 10) + op
}

pub(crate) fn proto(what: &'static str, detail: impl Into<String>) -> Error {
    Error::Protocol {
        op: Op::new(what, ""),
        detail: detail.into(),
    }
}

const fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The largest request [`Request`] builds (the nldev requests are under 100 bytes).
pub const MAX_REQUEST: usize = 256;

/// One netlink request, built on the stack: the header, then attributes, each padded to
/// 4 bytes. The header's length is kept up to date, so [`Request::bytes`] is always a
/// complete message.
#[derive(Debug, Clone)]
pub struct Request {
    buf: [u8; MAX_REQUEST],
    len: usize,
}

impl Request {
    /// A message of type `ty` (see [`nl_type`]) with `flags` (`NLM_F_*`) and sequence
    /// number `seq`, without attributes.
    pub fn new(ty: u16, flags: u16, seq: u32) -> Self {
        let mut r = Request {
            buf: [0; MAX_REQUEST],
            len: 16,
        };
        let hdr = nlmsghdr {
            nlmsg_len: 16,
            nlmsg_type: ty,
            nlmsg_flags: flags,
            nlmsg_seq: seq,
            nlmsg_pid: 0,
        };
        r.buf[..16].copy_from_slice(hdr.as_bytes());
        r
    }

    /// Appends attribute `kind` with `value`, padded to 4 bytes.
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] when the attribute does not fit in the request (no request
    /// of this crate comes near); the request is unchanged.
    pub fn attr(&mut self, kind: u16, value: &[u8]) -> Result<&mut Self> {
        let len = 4 + value.len();
        let end = self.len + align4(len);
        if end > MAX_REQUEST {
            return Err(Error::BadArgument {
                op: Op::new("netlink request", ""),
                reason: format!("attribute {kind} of {} bytes does not fit", value.len()),
            });
        }
        let a = nlattr {
            nla_len: len as u16,
            nla_type: kind,
        };
        self.buf[self.len..self.len + 4].copy_from_slice(a.as_bytes());
        self.buf[self.len + 4..self.len + len].copy_from_slice(value);
        self.len = end;
        self.buf[..4].copy_from_slice(&(end as u32).to_ne_bytes());
        Ok(self)
    }

    /// Appends the fixed part of a message family (`struct ifinfomsg` of `RTM_*LINK`),
    /// padded to 4 bytes: before any attribute.
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] when it does not fit, or an attribute came first; the
    /// request is unchanged.
    pub fn family_header(&mut self, bytes: &[u8]) -> Result<&mut Self> {
        let end = self.len + align4(bytes.len());
        if self.len != 16 || end > MAX_REQUEST {
            return Err(Error::BadArgument {
                op: Op::new("netlink request", ""),
                reason: format!("a family header of {} bytes goes first", bytes.len()),
            });
        }
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len = end;
        self.buf[..4].copy_from_slice(&(end as u32).to_ne_bytes());
        Ok(self)
    }

    /// Appends attribute `kind` (marked [`NLA_F_NESTED`]) holding the attributes that
    /// `inner` appends.
    ///
    /// # Errors
    ///
    /// As [`Request::attr`], and what `inner` returns; the request is then unchanged.
    pub fn nested(
        &mut self,
        kind: u16,
        inner: impl FnOnce(&mut Self) -> Result<&mut Self>,
    ) -> Result<&mut Self> {
        let start = self.len;
        self.attr(kind | NLA_F_NESTED, &[])?;
        if let Err(e) = inner(self) {
            self.len = start;
            self.buf[..4].copy_from_slice(&(start as u32).to_ne_bytes());
            return Err(e);
        }
        let len = (self.len - start) as u16;
        self.buf[start..start + 2].copy_from_slice(&len.to_ne_bytes());
        Ok(self)
    }

    /// Appends a `u32` attribute (native byte order).
    ///
    /// # Errors
    ///
    /// As [`Request::attr`].
    pub fn attr_u32(&mut self, kind: u16, v: u32) -> Result<&mut Self> {
        self.attr(kind, &v.to_ne_bytes())
    }

    /// Appends a NUL-terminated string attribute.
    ///
    /// # Errors
    ///
    /// As [`Request::attr`].
    pub fn attr_str(&mut self, kind: u16, s: &str) -> Result<&mut Self> {
        let n = s.len();
        let mut v = [0u8; MAX_REQUEST];
        if n >= MAX_REQUEST {
            return self.attr(kind, s.as_bytes());
        }
        v[..n].copy_from_slice(s.as_bytes());
        self.attr(kind, &v[..=n])
    }

    /// The message's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The sequence number.
    pub fn seq(&self) -> u32 {
        u32::from_ne_bytes([self.buf[8], self.buf[9], self.buf[10], self.buf[11]])
    }
}

/// One netlink message of a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// The header.
    pub header: nlmsghdr,
    /// What follows the header (for nldev: the attributes).
    pub payload: &'a [u8],
}

/// The messages of a datagram, in order; see [`messages`].
#[derive(Debug, Clone)]
pub struct Messages<'a> {
    rest: &'a [u8],
}

/// Splits a datagram into its netlink messages. A header whose length is shorter than
/// the header or longer than the rest of the datagram gives an error, after which the
/// iteration ends.
pub fn messages(datagram: &[u8]) -> Messages<'_> {
    Messages { rest: datagram }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let Ok((header, _)) = nlmsghdr::read_from_prefix(rest) else {
            self.rest = &[];
            return Some(Err(proto(
                "netlink",
                format!("truncated message header ({} bytes)", rest.len()),
            )));
        };
        let len = header.nlmsg_len as usize;
        if len < 16 || len > rest.len() {
            self.rest = &[];
            return Some(Err(proto(
                "netlink",
                format!(
                    "bad message length {len} ({} bytes left in the datagram)",
                    rest.len()
                ),
            )));
        }
        self.rest = &rest[align4(len).min(rest.len())..];
        Some(Ok(Message {
            header,
            payload: &rest[16..len],
        }))
    }
}

/// One netlink attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'a> {
    /// The type, without the `NLA_F_NESTED` / `NLA_F_NET_BYTEORDER` flags.
    pub kind: u16,
    /// The raw `nla_type`, flags included.
    pub raw_type: u16,
    /// The value (padding excluded).
    pub value: &'a [u8],
}

/// The attributes of a message payload; see [`attrs`].
#[derive(Debug, Clone)]
pub struct Attrs<'a> {
    rest: &'a [u8],
}

/// Iterates over the attributes of a payload. A length shorter than the attribute header
/// or longer than the rest gives an error, after which the iteration ends.
pub fn attrs(payload: &[u8]) -> Attrs<'_> {
    Attrs { rest: payload }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let Ok((a, _)) = nlattr::read_from_prefix(rest) else {
            self.rest = &[];
            return Some(Err(proto(
                "netlink",
                format!("truncated attribute header ({} bytes)", rest.len()),
            )));
        };
        let len = a.nla_len as usize;
        if len < 4 || len > rest.len() {
            self.rest = &[];
            return Some(Err(proto(
                "netlink",
                format!(
                    "bad attribute length {len} for type {} ({} bytes left)",
                    a.nla_type,
                    rest.len()
                ),
            )));
        }
        self.rest = &rest[align4(len).min(rest.len())..];
        Some(Ok(Attr {
            kind: a.nla_type & NLA_TYPE_MASK,
            raw_type: a.nla_type,
            value: &rest[4..len],
        }))
    }
}

pub(crate) fn get_u8(op: &'static str, a: &Attr<'_>) -> Result<u8> {
    match a.value {
        [v] => Ok(*v),
        v => Err(proto(
            op,
            format!("attribute {} is {} bytes, expected 1", a.kind, v.len()),
        )),
    }
}

pub(crate) fn get_u32(op: &'static str, a: &Attr<'_>) -> Result<u32> {
    <[u8; 4]>::try_from(a.value)
        .map(u32::from_ne_bytes)
        .map_err(|_| {
            proto(
                op,
                format!(
                    "attribute {} is {} bytes, expected 4",
                    a.kind,
                    a.value.len()
                ),
            )
        })
}

pub(crate) fn get_u64(op: &'static str, a: &Attr<'_>) -> Result<u64> {
    <[u8; 8]>::try_from(a.value)
        .map(u64::from_ne_bytes)
        .map_err(|_| {
            proto(
                op,
                format!(
                    "attribute {} is {} bytes, expected 8",
                    a.kind,
                    a.value.len()
                ),
            )
        })
}

/// A u32 sent either as `nla_put_u32` or as `nla_put_u64` (`UVERBS_DRIVER_ID`).
pub(crate) fn get_u32_or_u64(op: &'static str, a: &Attr<'_>) -> Result<u64> {
    match a.value.len() {
        4 => get_u32(op, a).map(u64::from),
        8 => get_u64(op, a),
        n => Err(proto(
            op,
            format!("attribute {} is {n} bytes, expected 4 or 8", a.kind),
        )),
    }
}

/// A string attribute: the bytes up to the first NUL (or all of them), as UTF-8.
pub(crate) fn get_str<'a>(op: &'static str, a: &Attr<'a>) -> Result<&'a str> {
    let v = a.value;
    let v = match v.iter().position(|&c| c == 0) {
        Some(n) => &v[..n],
        None => v,
    };
    core::str::from_utf8(v)
        .map_err(|_| proto(op, format!("attribute {} is not UTF-8: {v:02x?}", a.kind)))
}

/// What one answer datagram said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// More datagrams follow (a multipart answer without its `NLMSG_DONE` yet).
    More,
    /// The answer is complete.
    Done,
}

/// Walks the messages of one answer datagram to the request of sequence number `seq`,
/// calling `on_message` with the payload of each message of type `want_type`.
///
/// - A message with another sequence number is an error (a stale answer).
/// - `NLMSG_ERROR` with a non-zero error gives [`Error::from_errno`] for `op`; with 0
///   (an acknowledgement) the answer is complete.
/// - `NLMSG_DONE` completes the answer; its negative status, if any, is an error too.
/// - A message of `want_type` without `NLM_F_MULTI` completes the answer.
/// - `NLM_F_DUMP_INTR` on a message is an error (`EINTR`, the dump may be inconsistent;
///   the caller may retry).
/// - `NLMSG_NOOP` is skipped; `NLMSG_OVERRUN` and any other type are errors.
///
/// # Errors
///
/// [`Error::Protocol`] for a malformed message, a foreign sequence number or message
/// type (`NLMSG_OVERRUN` included); [`Error::Os`] with `EINTR` for an interrupted dump;
/// the kernel's errno of `NLMSG_ERROR` or `NLMSG_DONE`, classified
/// ([`Error::from_errno`]); the error `on_message` returns.
pub fn parse_answer<'a>(
    datagram: &'a [u8],
    seq: u32,
    want_type: u16,
    op: &'static str,
    mut on_message: impl FnMut(&'a [u8]) -> Result<()>,
) -> Result<Step> {
    for m in messages(datagram) {
        let m = m?;
        let h = m.header;
        if h.nlmsg_seq != seq {
            return Err(proto(
                op,
                format!(
                    "answer with sequence number {} to request {seq}",
                    h.nlmsg_seq
                ),
            ));
        }
        if h.nlmsg_flags & NLM_F_DUMP_INTR != 0 {
            return Err(Error::Os {
                op: Op::new(op, ""),
                errno: rustix::io::Errno::INTR,
            });
        }
        match h.nlmsg_type {
            NLMSG_NOOP => {}
            NLMSG_ERROR => {
                let Ok((e, _)) = nlmsgerr::read_from_prefix(m.payload) else {
                    // The kernel always sends the full struct; accept a bare int too.
                    let Ok((code, _)) = i32::read_from_prefix(m.payload) else {
                        return Err(proto(op, "truncated NLMSG_ERROR"));
                    };
                    return errno_result(op, code).map(|()| Step::Done);
                };
                return errno_result(op, e.error).map(|()| Step::Done);
            }
            NLMSG_DONE => {
                if let Ok((code, _)) = i32::read_from_prefix(m.payload) {
                    errno_result(op, code)?;
                }
                return Ok(Step::Done);
            }
            t if t == want_type => {
                on_message(m.payload)?;
                if h.nlmsg_flags & NLM_F_MULTI == 0 {
                    return Ok(Step::Done);
                }
            }
            t => {
                return Err(proto(op, format!("unexpected message type {t}")));
            }
        }
    }
    Ok(Step::More)
}

fn errno_result(op: &'static str, code: i32) -> Result<()> {
    if code >= 0 {
        return Ok(());
    }
    match code.checked_neg() {
        Some(e) if e < 4096 => Err(Error::from_errno(
            Op::new(op, ""),
            rustix::io::Errno::from_raw_os_error(e),
        )),
        _ => Err(proto(op, format!("bad error code {code}"))),
    }
}

// ---------------------------------------------------------------- the socket

/// How long to wait for each answer datagram.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(2);
/// The receive buffer, part of the socket (no heap allocation, which musl's allocator
/// would map and unmap for each socket). Answers to requests are small (the kernel
/// allocates them at `NLMSG_DEFAULT_SIZE`, under a page), and a dump never sends a
/// datagram larger than the reader's largest receive buffer (`netlink_dump` sizes its
/// buffers to `max_recvmsg_len`, at least `NLMSG_GOODSIZE`, under a page); a larger
/// datagram would be reported as truncated, not misread.
const RECV_BUF: usize = 8 * 1024;
/// At most this many datagrams per answer.
const MAX_DATAGRAMS: usize = 4096;

/// A netlink socket (`NETLINK_RDMA`, or `NETLINK_ROUTE` for [`route`]), with its
/// receive buffer and sequence counter.
#[derive(Debug)]
pub struct NlSocket {
    fd: OwnedFd,
    buf: [u8; RECV_BUF],
    /// How much of `buf` a receive offers the kernel ([`NlSocket::set_recv_buffer`]).
    buf_len: usize,
    seq: u32,
}

pub(crate) fn os(what: &'static str) -> impl FnOnce(rustix::io::Errno) -> Error {
    move |errno| Error::Os {
        op: Op::new(what, ""),
        errno,
    }
}

impl NlSocket {
    /// Opens a `NETLINK_RDMA` socket: one system call. The kernel binds it on the first
    /// request (no `bind`), answers synchronously (no send timeout), and an answer that
    /// is not queued yet is waited for with `poll` for at most [`RECV_TIMEOUT`] (no
    /// socket options).
    ///
    /// # Errors
    ///
    /// [`Error::Os`] with the errno of `socket`; `EPROTONOSUPPORT` when `ib_core` is not
    /// loaded.
    pub fn open() -> Result<Self> {
        const PROTO: core::num::NonZeroU32 = match core::num::NonZeroU32::new(NETLINK_RDMA) {
            Some(p) => p,
            None => panic!("NETLINK_RDMA is not 0"),
        };
        Self::open_protocol(Some(Protocol::from_raw(PROTO)))
    }

    /// Opens a `NETLINK_ROUTE` socket (network interfaces), otherwise as
    /// [`NlSocket::open`]: for [`route`].
    ///
    /// # Errors
    ///
    /// [`Error::Os`] with the errno of `socket`.
    pub fn open_route() -> Result<Self> {
        // NETLINK_ROUTE is protocol 0: the family's default.
        const _: () = assert!(NETLINK_ROUTE == 0);
        Self::open_protocol(None)
    }

    fn open_protocol(protocol: Option<Protocol>) -> Result<Self> {
        let fd = net::socket_with(
            AddressFamily::NETLINK,
            SocketType::RAW,
            SocketFlags::CLOEXEC,
            protocol,
        )
        .map_err(os("netlink socket"))?;
        // Start from a value that differs between processes (the stack's address, which
        // address-space randomisation moves) and between the sockets of one process, so
        // that answers to another socket's requests cannot be mistaken for ours; no
        // system call for it.
        static SOCKETS: AtomicU32 = AtomicU32::new(0);
        let here = 0u8;
        let seq = ((core::ptr::addr_of!(here) as usize >> 4) as u32)
            .wrapping_add(SOCKETS.fetch_add(1, Ordering::Relaxed))
            .wrapping_mul(0x9e37_79b9)
            | 1;
        Ok(NlSocket {
            fd,
            buf: [0; RECV_BUF],
            buf_len: RECV_BUF,
            seq,
        })
    }

    pub(crate) fn next_seq(&mut self) -> u32 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    fn send(&self, req: &[u8], what: &'static str) -> Result<()> {
        let n = net::sendto(
            &self.fd,
            req,
            SendFlags::empty(),
            &SocketAddrNetlink::new(0, 0),
        )
        .map_err(os(what))?;
        if n != req.len() {
            return Err(proto(
                what,
                format!("short send: {n} of {} bytes", req.len()),
            ));
        }
        Ok(())
    }

    /// Receives one datagram from the kernel into the buffer; returns its length.
    /// Datagrams from other senders are dropped.
    fn recv(&mut self, what: &'static str) -> Result<usize> {
        self.recv_inner(what, true)
            .and_then(|n| n.ok_or_else(|| proto(what, "no datagram")))
    }

    /// [`NlSocket::recv`] of a datagram queued already: `None` when none is (no wait).
    pub(crate) fn recv_queued(&mut self, what: &'static str) -> Result<Option<usize>> {
        self.recv_inner(what, false)
    }

    fn recv_inner(&mut self, what: &'static str, wait: bool) -> Result<Option<usize>> {
        for _ in 0..MAX_DATAGRAMS {
            let got = net::recvfrom(
                &self.fd,
                &mut self.buf[..self.buf_len],
                RecvFlags::TRUNC | RecvFlags::DONTWAIT,
            );
            let (got, full, from) = match got {
                // Nothing queued yet: wait for it, at most RECV_TIMEOUT.
                Err(rustix::io::Errno::AGAIN) if wait => {
                    self.wait(what)?;
                    continue;
                }
                Err(rustix::io::Errno::AGAIN) => return Ok(None),
                other => other.map_err(os(what))?,
            };
            let from_kernel = match from.map(SocketAddrNetlink::try_from) {
                Some(Ok(a)) => a.pid() == 0,
                // No address: on a netlink socket that cannot come from a peer.
                None => true,
                Some(Err(_)) => false,
            };
            if !from_kernel {
                continue;
            }
            if full > got {
                return Err(proto(
                    what,
                    format!("datagram of {full} bytes truncated to {got}"),
                ));
            }
            return Ok(Some(got));
        }
        Err(proto(what, "too many foreign datagrams"))
    }

    /// Waits until a datagram is queued, at most [`RECV_TIMEOUT`]; `ETIMEDOUT` then.
    fn wait(&self, what: &'static str) -> Result<()> {
        let timeout = rustix::event::Timespec {
            tv_sec: RECV_TIMEOUT.as_secs() as _,
            tv_nsec: RECV_TIMEOUT.subsec_nanos() as _,
        };
        let mut fds = [rustix::event::PollFd::new(
            &self.fd,
            rustix::event::PollFlags::IN,
        )];
        loop {
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(0) => {
                    return Err(Error::Os {
                        op: Op::new(what, ""),
                        errno: rustix::io::Errno::TIMEDOUT,
                    })
                }
                Ok(_) => return Ok(()),
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(os(what)(e)),
            }
        }
    }

    /// Sends `req` (whose header carries `seq`) and feeds each answer datagram to
    /// [`parse_answer`] until the answer is complete: `on_message` gets the payload of
    /// every message of type `want_type`, read in place from the socket's buffer (no
    /// copy). Datagrams left over from an earlier request are skipped.
    ///
    /// # Errors
    ///
    /// As [`NlSocket::raw_exchange`] for sending and receiving (`what` names the
    /// operation), then as [`parse_answer`], whose errors end the exchange.
    pub fn transact(
        &mut self,
        req: &[u8],
        seq: u32,
        want_type: u16,
        what: &'static str,
        mut on_message: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        self.send(req, what)?;
        for _ in 0..MAX_DATAGRAMS {
            let n = self.recv(what)?;
            let step = parse_answer(&self.buf[..n], seq, want_type, what, &mut on_message);
            match step {
                Ok(Step::Done) => return Ok(()),
                Ok(Step::More) => {}
                // A stale answer to an earlier request (e.g. the rest of a dump that
                // failed to parse): skip it.
                Err(_) if is_stale(&self.buf[..n], seq) => {}
                Err(e) => return Err(e),
            }
        }
        Err(proto(what, "answer longer than the bound on datagrams"))
    }

    /// Reads and drops whatever is queued, without waiting.
    pub(crate) fn drain(&mut self) {
        for _ in 0..MAX_DATAGRAMS {
            match net::recv(&self.fd, &mut self.buf[..self.buf_len], RecvFlags::DONTWAIT) {
                Ok((n, _)) if n > 0 => {}
                _ => break,
            }
        }
    }

    /// Sends raw request bytes and returns the raw answer datagrams (for captures and
    /// tests), until the answer to `seq` is complete or an error is read.
    ///
    /// # Errors
    ///
    /// [`Error::Os`] when sending or receiving fails (`ETIMEDOUT` after
    /// [`RECV_TIMEOUT`] without an answer); [`Error::Protocol`] for a truncated
    /// datagram or too many foreign ones. An error *in* the answer is not one here: it
    /// is in the datagrams returned.
    pub fn raw_exchange(&mut self, req: &[u8], seq: u32, want_type: u16) -> Result<Vec<Vec<u8>>> {
        self.send(req, "netlink send")?;
        let mut out = Vec::new();
        for _ in 0..MAX_DATAGRAMS {
            let n = self.recv("netlink recv")?;
            out.push(self.buf[..n].to_vec());
            match parse_answer(&self.buf[..n], seq, want_type, "netlink", |_| Ok(())) {
                Ok(Step::More) => {}
                _ => return Ok(out),
            }
        }
        Ok(out)
    }

    /// Sets the size of the receive buffer (default and largest 8 KiB, the buffer the
    /// socket holds). The kernel sizes the datagrams of a dump to the reader's buffer:
    /// with 32 KiB it allocates 32 KiB for each datagram, even for the nldev device
    /// dump, which sends one device (about 100 bytes) per datagram; a small buffer makes
    /// a dump of many devices cheaper. A datagram larger than the buffer is an error,
    /// never silently cut.
    pub fn set_recv_buffer(&mut self, len: usize) {
        self.buf_len = len.clamp(64, RECV_BUF);
    }

    /// A fresh sequence number for a request built by the caller.
    pub fn fresh_seq(&mut self) -> u32 {
        self.next_seq()
    }

    /// The socket's file descriptor.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Whether every message of the datagram carries a sequence number other than `seq`.
pub(crate) fn is_stale(datagram: &[u8], seq: u32) -> bool {
    let mut any = false;
    for m in messages(datagram) {
        match m {
            Ok(m) if m.header.nlmsg_seq != seq => any = true,
            _ => return false,
        }
    }
    any
}
