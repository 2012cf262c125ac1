//! One builder per kernel method: each fills an attribute array with exactly the
//! attributes the method takes, in the order rdma-core sends them, and fixes each one's
//! id and direction. Builders do no I/O, so their request bytes are pinned by golden
//! tests.
//!
//! ## Why a [`Request`] is safe to run
//!
//! The kernel reads and writes through an attribute according to the method's spec for
//! that attribute id. A builder here is the only way to make a [`Request`], and each
//! one proves its own request:
//!
//! - every id is a constant of the method, pushed with the builder of its kind
//!   (`const_in` for `CONST_IN`, `ptr_out` for `PTR_OUT`, ...), so the kernel's view of
//!   each attribute matches what the builder lent it;
//! - every output is a `&'a mut` borrow of a buffer of exactly the struct the kernel
//!   writes (or a byte slice whose length is the attribute's `len`), held by the
//!   request for its whole life;
//! - every input the kernel reads is a `&'a` borrow or a value; driver data (udata) is a
//!   typed value of [`driver`](crate::raw::driver), never bytes from the caller, since
//!   some drivers read user addresses out of it; and its type names the driver and the
//!   command it is for ([`Udata`], [`DriverIn`]): a request carries it only with that
//!   command, and only to a device of that driver (an ioctl's header names the driver,
//!   which the kernel checks against the device; a `write()` command goes only to a file
//!   whose driver id the kernel confirmed).
//!
//! So [`VerbsFile::call`](crate::raw::VerbsFile::call) runs a `Request` without `unsafe`.
//! A caller who needs a request no builder makes (an attribute this crate does not
//! send, a method it does not wrap) builds an [`IoctlBuf`] and runs it with the
//! `unsafe` [`VerbsFile::ioctl`](crate::raw::VerbsFile::ioctl).
//!
//! The same holds for the legacy `write()` commands: [`WriteRequest`] values are made
//! only by the builders below ([`write_get_context`], ...), and run safely with
//! [`VerbsFile::write`](crate::raw::VerbsFile::write).

use core::ops::Deref;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::raw::abi::*;
use crate::raw::attr::{AttrSlot, IoctlBuf};
use crate::raw::driver::UdataIn;

/// An ioctl request made by a builder of this module: its attribute ids, directions and
/// buffers are fixed (see the [module docs](self)), so it is safe to execute with
/// [`VerbsFile::call`](crate::raw::VerbsFile::call). Read it through `Deref` (header,
/// attributes, outputs after the call, golden bytes).
#[derive(Debug)]
pub struct Request<'a, const N: usize> {
    buf: IoctlBuf<'a, N>,
}

impl<'a, const N: usize> Request<'a, N> {
    /// Only the builders of `src/raw` (this file and `mr.rs`) make requests.
    pub(in crate::raw) fn built(buf: IoctlBuf<'a, N>) -> Self {
        Request { buf }
    }

    /// The same request, carrying driver data for driver `udata` (see
    /// [`DriverIn::driver_for`]; 0: none): its header names that driver, which the
    /// kernel compares with the device's own before it reads anything else
    /// (`ib_uverbs_cmd_verbs`: `EINVAL` when they differ; [`UDATA_MISMATCH`] is no
    /// device's). So driver data reaches only a device of its driver, checked by the
    /// kernel against the device itself, at no cost here.
    pub(in crate::raw) fn with_udata(mut self, udata: u32) -> Self {
        if udata != 0 {
            self.buf.set_hdr_driver_id(udata);
        }
        self
    }

    /// The buffer the kernel reads and writes back into, for the system call alone.
    pub(crate) fn buf_mut(&mut self) -> &mut IoctlBuf<'a, N> {
        &mut self.buf
    }
}

impl<'a, const N: usize> Deref for Request<'a, N> {
    type Target = IoctlBuf<'a, N>;
    fn deref(&self) -> &IoctlBuf<'a, N> {
        &self.buf
    }
}

/// GET_CONTEXT (`UVERBS_METHOD_GET_CONTEXT`, since Linux 5.6): creates the device
/// context of the file. Outputs: the number of completion vectors and the core support
/// flags (both optional), and the driver's output data.
#[derive(Debug)]
pub struct GetContext<'a> {
    /// The call.
    pub req: Request<'a, 4>,
    /// `NUM_COMP_VECTORS`.
    pub num_comp_vectors: AttrSlot,
    /// `CORE_SUPPORT`.
    pub core_support: AttrSlot,
}

impl<'a> GetContext<'a> {
    /// Builds the call. `num_comp_vectors` and `core_support` receive the outputs;
    /// `udata_in` (the driver's input, [`driver::get_context_udata_in`]) is sent when
    /// not empty; `udata_out` (the driver's output) is always sent.
    ///
    /// [`driver::get_context_udata_in`]: crate::raw::driver::get_context_udata_in
    pub fn new(
        driver_id: u32,
        num_comp_vectors: &'a mut u32,
        core_support: &'a mut u64,
        udata_in: &'a UdataIn,
        udata_out: &'a mut [u8],
    ) -> Self {
        let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, driver_id);
        let ncv = buf.ptr_out(
            UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
            num_comp_vectors.as_mut_bytes(),
            false,
        );
        let cs = buf.ptr_out(
            UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
            core_support.as_mut_bytes(),
            false,
        );
        if !udata_in.as_bytes().is_empty() {
            buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.as_bytes(), false);
        }
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, udata_out, false);
        GetContext {
            req: Request::built(buf),
            num_comp_vectors: ncv,
            core_support: cs,
        }
    }
}

/// QUERY_CONTEXT (`UVERBS_METHOD_QUERY_CONTEXT`, since Linux 5.9).
pub fn query_context<'a>(
    driver_id: u32,
    num_comp_vectors: &'a mut u32,
    core_support: &'a mut u64,
) -> Request<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, driver_id);
    buf.ptr_out(
        UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
        num_comp_vectors.as_mut_bytes(),
        false,
    );
    buf.ptr_out(
        UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
        core_support.as_mut_bytes(),
        false,
    );
    Request::built(buf)
}

/// QUERY_PORT (`UVERBS_METHOD_QUERY_PORT`, since Linux 5.0). The port number is a
/// `CONST_IN` (sent with `len` 8).
pub fn query_port<'a>(
    driver_id: u32,
    port: u8,
    resp: &'a mut ib_uverbs_query_port_resp_ex,
) -> Request<'a, 2> {
    Request::built(query_port_buf(driver_id, port, resp))
}

/// QUERY_PORT's attributes, in a buffer with room for `N - 2` more.
fn query_port_buf<'a, const N: usize>(
    driver_id: u32,
    port: u8,
    resp: &'a mut ib_uverbs_query_port_resp_ex,
) -> IoctlBuf<'a, N> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, driver_id);
    buf.const_in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, u64::from(port), true);
    buf.ptr_out(UVERBS_ATTR_QUERY_PORT_RESP, resp.as_mut_bytes(), true);
    buf
}

/// INVOKE_WRITE (`UVERBS_METHOD_INVOKE_WRITE`, since Linux 5.0) of any `write()`
/// command: `command` is `IB_USER_VERBS_CMD_*` (with `IB_USER_VERBS_CMD_FLAG_EXTENDED`
/// for `_ex` commands), `core_in` its command struct after the response pointer,
/// `core_out` its response.
///
/// This returns a bare [`IoctlBuf`], which only the `unsafe`
/// [`VerbsFile::ioctl`](crate::raw::VerbsFile::ioctl) runs: the kernel acts on what
/// `core_in` says, and some commands carry addresses (REG_MR's `start`). The typed
/// commands are [`query_device`] and [`query_device_ex`].
pub fn invoke_write<'a>(
    driver_id: u32,
    command: u32,
    core_in: &'a [u8],
    core_out: &'a mut [u8],
) -> IoctlBuf<'a, 3> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.ptr_in(UVERBS_ATTR_CORE_IN, core_in, true);
    buf.ptr_out(UVERBS_ATTR_CORE_OUT, core_out, true);
    buf.const_in(UVERBS_ATTR_WRITE_CMD, u64::from(command), true);
    buf
}

/// The extended QUERY_DEVICE through INVOKE_WRITE (`IB_USER_VERBS_EX_CMD_QUERY_DEVICE |
/// FLAG_EXTENDED`): `cmd` is its 8-byte command (`comp_mask` and `reserved`, both 0),
/// `resp` its answer, of which the kernel fills `response_length` bytes.
pub fn query_device_ex<'a>(
    driver_id: u32,
    cmd: &'a ib_uverbs_ex_query_device,
    resp: &'a mut ib_uverbs_ex_query_device_resp,
) -> Request<'a, 3> {
    Request::built(invoke_write(
        driver_id,
        IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        cmd.as_bytes(),
        resp.as_mut_bytes(),
    ))
}

/// The plain QUERY_DEVICE through INVOKE_WRITE (`IB_USER_VERBS_CMD_QUERY_DEVICE`): `cmd`
/// is its command after the response pointer (8 reserved bytes), `resp` the answer.
pub fn query_device<'a>(
    driver_id: u32,
    cmd: &'a ib_uverbs_query_device,
    resp: &'a mut ib_uverbs_query_device_resp,
) -> Request<'a, 3> {
    Request::built(invoke_write(
        driver_id,
        IB_USER_VERBS_CMD_QUERY_DEVICE,
        cmd.as_bytes(),
        resp.as_mut_bytes(),
    ))
}

/// The probe rdma-core uses to learn whether INVOKE_WRITE works: only `WRITE_CMD` =
/// QUERY_DEVICE. The kernel checks the header's driver id first (`EINVAL` when wrong),
/// then answers `ENOSPC` for the missing buffers: so `ENOSPC` means "supported, and the
/// driver id is right", with no context needed and nothing changed.
pub fn invoke_write_probe<'a>(driver_id: u32) -> Request<'a, 1> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.const_in(
        UVERBS_ATTR_WRITE_CMD,
        u64::from(IB_USER_VERBS_CMD_QUERY_DEVICE),
        true,
    );
    Request::built(buf)
}

/// QUERY_GID_TABLE (`UVERBS_METHOD_QUERY_GID_TABLE`, since Linux 5.10): every valid
/// entry of every port, `entries.len()` at most (and at most 2047: the attribute length
/// is 16 bits, so only whole entries that fit are offered).
pub fn query_gid_table<'a>(
    driver_id: u32,
    entries: &'a mut [ib_uverbs_gid_entry],
    num_entries: &'a mut u64,
) -> Request<'a, 4> {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_GID_TABLE,
        driver_id,
    );
    buf.const_in(
        UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
        core::mem::size_of::<ib_uverbs_gid_entry>() as u64,
        true,
    );
    let whole = entries
        .len()
        .min(usize::from(u16::MAX) / core::mem::size_of::<ib_uverbs_gid_entry>());
    let entries = &mut entries[..whole];
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
        entries.as_mut_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
        num_entries.as_mut_bytes(),
        true,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0, false);
    Request::built(buf)
}

/// QUERY_GID_ENTRY (`UVERBS_METHOD_QUERY_GID_ENTRY`, since Linux 5.10): one entry.
pub fn query_gid_entry<'a>(
    driver_id: u32,
    port: u32,
    index: u32,
    entry: &'a mut ib_uverbs_gid_entry,
) -> Request<'a, 4> {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_GID_ENTRY,
        driver_id,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, u64::from(port), true);
    buf.const_in(
        UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
        u64::from(index),
        true,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0, true);
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
        entry.as_mut_bytes(),
        true,
    );
    Request::built(buf)
}

/// ASYNC_EVENT_ALLOC (`UVERBS_METHOD_ASYNC_EVENT_ALLOC` of `UVERBS_OBJECT_ASYNC_EVENT`,
/// since Linux 5.6): a new async event file; the kernel writes its fd into the slot.
pub(crate) fn async_event_alloc<'a>(driver_id: u32) -> (Request<'a, 1>, AttrSlot) {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_ASYNC_EVENT,
        UVERBS_METHOD_ASYNC_EVENT_ALLOC,
        driver_id,
    );
    let slot = buf.fd_new(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
    (Request::built(buf), slot)
}

// ------------------------------------------- QUERY_PORT_SPEED (issue 16; Linux 7.0)

/// QUERY_PORT_SPEED (`UVERBS_METHOD_QUERY_PORT_SPEED`, since Linux 7.0): the port's
/// effective speed, in units of 100 Mb/s, into `speed`. Unlike QUERY_PORT's, the port
/// number is a `u32` (`CONST_IN`, sent with `len` 8); the answer is a `u64` `PTR_OUT`.
/// Older kernels answer `EPROTONOSUPPORT`, a driver without the op `EOPNOTSUPP`.
pub fn query_port_speed(driver_id: u32, port: u32, speed: &mut u64) -> Request<'_, 2> {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_PORT_SPEED,
        driver_id,
    );
    buf.const_in(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, u64::from(port), true);
    buf.ptr_out(
        UVERBS_ATTR_QUERY_PORT_SPEED_RESP,
        speed.as_mut_bytes(),
        true,
    );
    Request::built(buf)
}

// ------------------------------------------------------------------ write() commands

/// The largest `write()` command: header, ex header, command struct and driver data.
pub const MAX_WRITE_CMD: usize = 256;

/// A legacy `write()` command made by a builder of this module: the command number, the
/// command struct (after its response pointer, when it has one) with its driver data,
/// and the response buffer the kernel writes into, borrowed for the request's life. Safe
/// to execute with [`VerbsFile::write`](crate::raw::VerbsFile::write) for the same
/// reasons as a [`Request`].
#[derive(Debug)]
pub struct WriteRequest<'a> {
    command: u32,
    extended: bool,
    has_response: bool,
    body: [u8; MAX_WRITE_CMD],
    body_len: usize,
    resp: &'a mut [u8],
    /// As [`Request`]'s: the driver its driver data was made for (0: none).
    udata: u32,
}

impl<'a> WriteRequest<'a> {
    fn built(command: u32, extended: bool, body: &[u8], resp: &'a mut [u8]) -> Self {
        Self::assemble(command, extended, true, &[body], resp)
    }

    /// The command from its parts (core struct, driver data), copied into one body.
    /// Only the builders of `src/raw` (this file and `mr.rs`) make requests.
    pub(in crate::raw) fn assemble(
        command: u32,
        extended: bool,
        has_response: bool,
        parts: &[&[u8]],
        resp: &'a mut [u8],
    ) -> Self {
        let mut b = [0u8; MAX_WRITE_CMD];
        let mut n = 0usize;
        for p in parts {
            if let Some(dst) = b.get_mut(n..n + p.len()) {
                dst.copy_from_slice(p);
            }
            n += p.len();
        }
        WriteRequest {
            command,
            extended,
            has_response,
            body: b,
            body_len: n,
            resp,
            udata: 0,
        }
    }

    /// The same request, carrying driver data for driver `udata` (see
    /// [`DriverIn::driver_for`]; 0: none). A `write()` command names no driver, so
    /// [`VerbsFile::write`](crate::raw::VerbsFile::write) checks it: it sends the
    /// request only to a file of that driver, whose id the kernel has confirmed.
    pub(in crate::raw) fn with_udata(mut self, udata: u32) -> Self {
        self.udata = udata;
        self
    }

    /// The driver whose data the request carries (0: none).
    pub fn udata_driver(&self) -> u32 {
        self.udata
    }

    /// Writes the bytes `write(2)` sends into `out` and returns their length: for a plain
    /// command `ib_uverbs_cmd_hdr`, the response pointer (commands that answer), then
    /// the body; for an extended one `ib_uverbs_cmd_hdr`, `ib_uverbs_ex_cmd_hdr` (with
    /// the response pointer), then the body. `EINVAL` when the lengths are not what the
    /// header can say (a builder bug).
    pub fn encode(&mut self, out: &mut [u8; MAX_WRITE_CMD]) -> Result<usize, rustix::io::Errno> {
        use rustix::io::Errno;
        let hdr_len = core::mem::size_of::<ib_uverbs_cmd_hdr>();
        let body = self.body.get(..self.body_len).ok_or(Errno::INVAL)?;
        let resp_ptr = self.resp.as_mut_ptr() as u64;
        let resp_len = self.resp.len();
        if self.extended {
            let ex_len = core::mem::size_of::<ib_uverbs_ex_cmd_hdr>();
            let len = hdr_len + ex_len + body.len();
            if len > MAX_WRITE_CMD
                || body.len() % 8 != 0
                || resp_len % 8 != 0
                || resp_len / 8 > usize::from(u16::MAX)
            {
                return Err(Errno::INVAL);
            }
            let hdr = ib_uverbs_cmd_hdr {
                command: self.command | IB_USER_VERBS_CMD_FLAG_EXTENDED,
                in_words: (body.len() / 8) as u16,
                out_words: (resp_len / 8) as u16,
            };
            let ex = ib_uverbs_ex_cmd_hdr {
                response: resp_ptr,
                provider_in_words: 0,
                provider_out_words: 0,
                cmd_hdr_reserved: 0,
            };
            out[..hdr_len].copy_from_slice(hdr.as_bytes());
            out[hdr_len..hdr_len + ex_len].copy_from_slice(ex.as_bytes());
            out[hdr_len + ex_len..len].copy_from_slice(body);
            Ok(len)
        } else {
            let ptr_len = if self.has_response { 8 } else { 0 };
            let len = hdr_len + ptr_len + body.len();
            if len > MAX_WRITE_CMD
                || len % 4 != 0
                || resp_len % 4 != 0
                || resp_len / 4 > usize::from(u16::MAX)
                || (!self.has_response && resp_len != 0)
            {
                return Err(Errno::INVAL);
            }
            let hdr = ib_uverbs_cmd_hdr {
                command: self.command,
                in_words: (len / 4) as u16,
                out_words: (resp_len / 4) as u16,
            };
            out[..hdr_len].copy_from_slice(hdr.as_bytes());
            if self.has_response {
                out[hdr_len..hdr_len + 8].copy_from_slice(&resp_ptr.to_ne_bytes());
            }
            out[hdr_len + ptr_len..len].copy_from_slice(body);
            Ok(len)
        }
    }

    /// The response buffer (after the call: what the kernel wrote).
    pub fn response(&self) -> &[u8] {
        self.resp
    }
}

/// A plain `write()` command of any number and body, for the `unsafe`
/// [`VerbsFile::write_command`](crate::raw::VerbsFile::write_command) alone.
pub(crate) fn write_request_raw<'a>(
    command: u32,
    body: &[u8],
    resp: &'a mut [u8],
) -> WriteRequest<'a> {
    WriteRequest::built(command, false, body, resp)
}

/// GET_CONTEXT by `write()`: `ib_uverbs_get_context` (the response pointer), then the
/// driver's input; the response is `ib_uverbs_get_context_resp` followed by the
/// driver's output, so `resp` is both (at least 8 bytes).
pub fn write_get_context<'a>(udata_in: &UdataIn, resp: &'a mut [u8]) -> WriteRequest<'a> {
    WriteRequest::built(
        IB_USER_VERBS_CMD_GET_CONTEXT,
        false,
        udata_in.as_bytes(),
        resp,
    )
}

/// QUERY_PORT by `write()`: `ib_uverbs_query_port` after its response pointer is the
/// port number and 7 reserved bytes.
pub fn write_query_port(port: u8, resp: &mut ib_uverbs_query_port_resp) -> WriteRequest<'_> {
    let mut body = [0u8; 8];
    body[0] = port;
    WriteRequest::built(
        IB_USER_VERBS_CMD_QUERY_PORT,
        false,
        &body,
        resp.as_mut_bytes(),
    )
}

/// The plain QUERY_DEVICE by `write()`: no body after the response pointer.
pub fn write_query_device(resp: &mut ib_uverbs_query_device_resp) -> WriteRequest<'_> {
    WriteRequest::built(
        IB_USER_VERBS_CMD_QUERY_DEVICE,
        false,
        &[],
        resp.as_mut_bytes(),
    )
}

/// The extended QUERY_DEVICE by `write()` (`IB_USER_VERBS_EX_CMD_QUERY_DEVICE` with
/// `FLAG_EXTENDED`): the 8-byte command, the response by the ex header's pointer.
pub fn write_query_device_ex<'a>(
    cmd: &ib_uverbs_ex_query_device,
    resp: &'a mut ib_uverbs_ex_query_device_resp,
) -> WriteRequest<'a> {
    WriteRequest::built(
        IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
        true,
        cmd.as_bytes(),
        resp.as_mut_bytes(),
    )
}

// ------------------------------------------------------------------ ABI conformance

/// An attribute id that the DEVICE object's methods do not define, in the core
/// namespace and inside the range the kernel can key (`uapi_key_attr`: core ids below
/// 32). QUERY_PORT defines 0 and 1.
pub const UNDEFINED_ATTR_ID: u16 = 31;
/// A method id of the DEVICE object that the kernel does not define (it defines 0 to 7).
pub const UNDEFINED_METHOD_ID: u16 = 20;
/// An object id that the kernel does not define (its core objects are numbered below 40).
pub const UNDEFINED_OBJECT_ID: u16 = 200;

/// QUERY_PORT ([`query_port`]) with one attribute more: [`UNDEFINED_ATTR_ID`], an
/// inline 0, flagged `UVERBS_ATTR_F_MANDATORY` or not. The kernel refuses an undefined
/// mandatory attribute (`EPROTONOSUPPORT`) and skips an optional one
/// (`uverbs_set_attr`, drivers/infiniband/core/uverbs_ioctl.c). The extra attribute
/// carries no address: its value is 0 (were a later kernel to define the id as an
/// output, its write to address 0 would fail with `EFAULT`).
pub fn query_port_with_undefined_attr<'a>(
    driver_id: u32,
    port: u8,
    resp: &'a mut ib_uverbs_query_port_resp_ex,
    mandatory: bool,
) -> Request<'a, 3> {
    let mut buf = query_port_buf(driver_id, port, resp);
    buf.const_in(UNDEFINED_ATTR_ID, 0, mandatory);
    Request::built(buf)
}

/// Which field the kernel reserves [`query_port_with_reserved`] sets to 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// The header's `reserved1` (a 64-bit word).
    Header1,
    /// The header's `reserved2` (a 32-bit word).
    Header2,
    /// The RESP attribute's `attr_data` (a pointer attribute's `reserved`).
    AttrData,
}

/// QUERY_PORT of `port`, as [`query_port`] builds it, with one field the kernel reserves
/// set to 1: the header's `reserved1` or `reserved2` (`ib_uverbs_ioctl`,
/// drivers/infiniband/core/uverbs_ioctl.c, answers `EPROTONOSUPPORT` before it reads an
/// attribute), or the response attribute's `attr_data` (`uverbs_process_attr`, same
/// file: `EINVAL` before it writes through it). The attributes still describe only
/// `resp`: whatever the kernel makes of the field, it writes nothing else.
pub fn query_port_with_reserved<'a>(
    driver_id: u32,
    port: u8,
    resp: &'a mut ib_uverbs_query_port_resp_ex,
    which: Reserved,
) -> Request<'a, 2> {
    let mut buf = query_port_buf(driver_id, port, resp);
    match which {
        Reserved::Header1 => buf.set_hdr_reserved(1, 0),
        Reserved::Header2 => buf.set_hdr_reserved(0, 1),
        Reserved::AttrData => {
            buf.set_attr_data(1, 1);
        }
    }
    Request::built(buf)
}

/// Which id of a request names nothing the kernel defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undefined {
    /// [`UNDEFINED_METHOD_ID`] of the DEVICE object.
    Method,
    /// Method 0 of [`UNDEFINED_OBJECT_ID`].
    Object,
}

/// A request without attributes to a method or an object the kernel does not define:
/// `ib_uverbs_cmd_verbs` (drivers/infiniband/core/uverbs_ioctl.c) finds no method and
/// answers `EPROTONOSUPPORT`. Without attributes the kernel has nothing to read or
/// write but the header.
pub fn undefined_method<'a>(driver_id: u32, which: Undefined) -> Request<'a, 0> {
    let (object, method) = match which {
        Undefined::Method => (UVERBS_OBJECT_DEVICE, UNDEFINED_METHOD_ID),
        Undefined::Object => (UNDEFINED_OBJECT_ID, 0),
    };
    Request::built(IoctlBuf::new(object, method, driver_id))
}

/// The extended QUERY_DEVICE through INVOKE_WRITE with a request and a response of any
/// length: `cmd` is `ib_uverbs_ex_query_device` and whatever follows it (which the
/// kernel requires to be zero, `uverbs_request`), `resp` the buffer the kernel fills
/// (at most its length: `uverbs_copy_to_struct_or_zero`). The command names no address,
/// so any bytes are harmless.
pub fn query_device_ex_bytes<'a>(
    driver_id: u32,
    cmd: &'a [u8],
    resp: &'a mut [u8],
) -> Request<'a, 3> {
    Request::built(invoke_write(
        driver_id,
        IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        cmd,
        resp,
    ))
}

/// The extended QUERY_DEVICE by `write()` with a request and a response of any length
/// (each a multiple of 8 bytes, or [`WriteRequest::encode`] refuses): as
/// [`query_device_ex_bytes`]. The response pointer is `resp`'s, with `out_words` from
/// its length, so the kernel writes nowhere else.
pub fn write_query_device_ex_bytes<'a>(cmd: &[u8], resp: &'a mut [u8]) -> WriteRequest<'a> {
    WriteRequest::built(IB_USER_VERBS_EX_CMD_QUERY_DEVICE, true, cmd, resp)
}

/// QUERY_PORT by `write()` ([`write_query_port`]) with a response buffer of any length
/// (a multiple of 4 bytes): the kernel refuses one shorter than its response (`ENOSPC`,
/// `verify_hdr` in drivers/infiniband/core/uverbs_main.c) and zero-fills the rest of a
/// longer one (`uverbs_response`); it writes nowhere but `resp`.
pub fn write_query_port_bytes(port: u8, resp: &mut [u8]) -> WriteRequest<'_> {
    let mut body = [0u8; 8];
    body[0] = port;
    WriteRequest::built(IB_USER_VERBS_CMD_QUERY_PORT, false, &body, resp)
}

// ------------------------------------------------------------------ the object model

/// Driver input data (`UHW_IN`, or the tail of a `write()` command), typed by the
/// driver that reads it *and* the command it comes with: whether bytes name memory
/// depends on the (driver, command) pair that reads them, not on the Rust type that holds
/// them (siw's 8-byte REG_MR key struct, read by rxe's MODIFY_SRQ, is an address rxe
/// writes 16 bytes to: issue 39's hole B). So a `DriverIn` is made only from a [`Udata`]
/// type, which names its driver and command; a builder given one made for another
/// command makes a request that never runs. By ioctl the request's header names the
/// driver, which the kernel compares with the device's own before anything else
/// ([`VerbsFile::call`]); by `write()`, [`VerbsFile::write`] sends it only to a file of
/// that driver whose id the kernel has confirmed (not only the caller's [`OpenTarget`]).
/// Drivers that read user
/// addresses out of their input (rxe's MODIFY_SRQ) have builders of their own that borrow
/// what the address names.
///
/// [`VerbsFile::call`]: crate::raw::VerbsFile::call
/// [`VerbsFile::write`]: crate::raw::VerbsFile::write
/// [`OpenTarget`]: crate::verbs::context::OpenTarget
#[derive(Debug, Clone, Copy)]
pub struct DriverIn<'a> {
    pub(in crate::raw) bytes: &'a [u8],
    driver: u32,
    command: u32,
}

/// The driver a request is marked for when its driver data was made for another command:
/// no device has this id, so the request never runs.
pub const UDATA_MISMATCH: u32 = u32::MAX;

impl DriverIn<'static> {
    /// No driver input.
    pub const NONE: DriverIn<'static> = DriverIn {
        bytes: &[],
        driver: 0,
        command: 0,
    };
}

impl<'a> DriverIn<'a> {
    /// The driver input `v`, for its driver and command.
    pub fn of<T: Udata>(v: &'a T) -> Self {
        DriverIn {
            bytes: v.as_bytes(),
            driver: T::DRIVER,
            command: T::COMMAND,
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The driver a request of `command` carrying this input must go to: 0 when there is
    /// no input, [`UDATA_MISMATCH`] when it was made for another command.
    pub(in crate::raw) fn driver_for(&self, command: u32) -> u32 {
        if self.bytes.is_empty() {
            0
        } else if self.command == command {
            self.driver
        } else {
            UDATA_MISMATCH
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Driver input that driver [`Self::DRIVER`] reads for command [`Self::COMMAND`] and that
/// names no user memory there, so that it can travel in a request built in safe code.
/// Sealed: only this crate implements it, one (driver, command) pair per type.
pub trait Udata: IntoBytes + Immutable + sealed::Sealed {
    /// The driver that reads it (`RDMA_DRIVER_*`).
    const DRIVER: u32;
    /// The command it comes with (`IB_USER_VERBS_CMD_*`; the ioctl methods of the same
    /// verb use the same number).
    const COMMAND: u32;
}

impl sealed::Sealed for crate::raw::driver::siw_ureq_reg_mr {}
/// siw's REG_MR input: the key byte of the STag and padding (`siw_reg_user_mr`).
impl Udata for crate::raw::driver::siw_ureq_reg_mr {
    const DRIVER: u32 = RDMA_DRIVER_SIW;
    const COMMAND: u32 = IB_USER_VERBS_CMD_REG_MR;
}

/// A `write()` command struct of `ib_user_verbs.h` that this crate sends, with its
/// command number and response struct. Sealed: only this crate implements it, and only
/// for commands whose struct names no user memory (REG_MR names the region, so it has
/// its own `unsafe` builder, [`reg_mr`](crate::raw::mr::reg_mr)). The same value travels by INVOKE_WRITE
/// ([`invoke_cmd`]) or by `write()` ([`write_cmd`]).
pub trait WriteCommand: IntoBytes + Immutable + sealed::Sealed {
    /// `IB_USER_VERBS_CMD_*`.
    const COMMAND: u32;
    /// Whether the struct begins with the `__aligned_u64 response` pointer (commands
    /// that answer); the kernel ignores that field when the command comes by ioctl.
    const HAS_RESPONSE: bool;
    /// The core response (without the driver's output); [`NoResponse`] when none.
    type Resp: FromBytes + IntoBytes + KnownLayout + Immutable + Default;
    /// Whether the command creates a file descriptor (CREATE_COMP_CHANNEL) or names one
    /// by its number (CREATE_CQ's `comp_channel`): [`invoke_cmd`] and [`write_cmd`]
    /// refuse those at compile time. A descriptor nobody owns, outside the context's
    /// lifeline, would hold a device being removed hostage (`Context::create_comp_channel`
    /// adopts its own); a number is a descriptor the caller chooses without holding it
    /// (the crate's own completion channels, which it does not lend: a raw CQ on one
    /// would have its events taken for a verbs CQ's). [`create_cq`] takes the channel as
    /// a `BorrowedFd` the caller holds.
    const FD: bool = false;
}

/// The response of commands that have none (size 0).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct NoResponse;

macro_rules! write_command {
    ($cmd:ty, $num:expr, $resp:ty, fd) => {
        impl sealed::Sealed for $cmd {}
        impl WriteCommand for $cmd {
            const COMMAND: u32 = $num;
            const HAS_RESPONSE: bool = true;
            type Resp = $resp;
            const FD: bool = true;
        }
    };
    ($cmd:ty, $num:expr, $resp:ty) => {
        impl sealed::Sealed for $cmd {}
        impl WriteCommand for $cmd {
            const COMMAND: u32 = $num;
            const HAS_RESPONSE: bool = true;
            type Resp = $resp;
        }
    };
    ($cmd:ty, $num:expr) => {
        impl sealed::Sealed for $cmd {}
        impl WriteCommand for $cmd {
            const COMMAND: u32 = $num;
            const HAS_RESPONSE: bool = false;
            type Resp = NoResponse;
        }
    };
}

// Every struct below holds handles, counts, flags, attribute values and the opaque
// `user_handle` (which the kernel only echoes back in events): no address but the
// response pointer, which the builders fill from the request's own buffer. (CREATE_CQ
// also names a descriptor by number: `FD`, above.)
write_command!(
    ib_uverbs_alloc_pd,
    IB_USER_VERBS_CMD_ALLOC_PD,
    ib_uverbs_alloc_pd_resp
);
write_command!(ib_uverbs_dealloc_pd, IB_USER_VERBS_CMD_DEALLOC_PD);
write_command!(ib_uverbs_dereg_mr, IB_USER_VERBS_CMD_DEREG_MR);
write_command!(
    ib_uverbs_create_comp_channel,
    IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
    ib_uverbs_create_comp_channel_resp,
    fd
);
write_command!(
    ib_uverbs_create_cq,
    IB_USER_VERBS_CMD_CREATE_CQ,
    ib_uverbs_create_cq_resp,
    fd
);
write_command!(
    ib_uverbs_resize_cq,
    IB_USER_VERBS_CMD_RESIZE_CQ,
    ib_uverbs_resize_cq_resp
);
write_command!(
    ib_uverbs_destroy_cq,
    IB_USER_VERBS_CMD_DESTROY_CQ,
    ib_uverbs_destroy_cq_resp
);
write_command!(
    ib_uverbs_create_qp,
    IB_USER_VERBS_CMD_CREATE_QP,
    ib_uverbs_create_qp_resp
);
write_command!(
    ib_uverbs_query_qp,
    IB_USER_VERBS_CMD_QUERY_QP,
    ib_uverbs_query_qp_resp
);
write_command!(ib_uverbs_modify_qp, IB_USER_VERBS_CMD_MODIFY_QP);
write_command!(
    ib_uverbs_destroy_qp,
    IB_USER_VERBS_CMD_DESTROY_QP,
    ib_uverbs_destroy_qp_resp
);
write_command!(
    ib_uverbs_create_ah,
    IB_USER_VERBS_CMD_CREATE_AH,
    ib_uverbs_create_ah_resp
);
write_command!(ib_uverbs_destroy_ah, IB_USER_VERBS_CMD_DESTROY_AH);
write_command!(
    ib_uverbs_create_srq,
    IB_USER_VERBS_CMD_CREATE_SRQ,
    ib_uverbs_create_srq_resp
);
write_command!(ib_uverbs_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ);
write_command!(
    ib_uverbs_query_srq,
    IB_USER_VERBS_CMD_QUERY_SRQ,
    ib_uverbs_query_srq_resp
);
write_command!(
    ib_uverbs_destroy_srq,
    IB_USER_VERBS_CMD_DESTROY_SRQ,
    ib_uverbs_destroy_srq_resp
);
write_command!(ib_uverbs_req_notify_cq, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

/// POST_SEND by `write()` with no work request (`wr_count` 0, `sge_count` 0,
/// `wqe_size` = `sizeof(struct ib_uverbs_send_wr)`, which the kernel requires even then):
/// the doorbell of a QP whose send queue is mapped (rxe, siw). The kernel checks the QP
/// and calls the driver's `post_send` with no request, and writes `bad_wr` (0) to `resp`.
/// It carries no address but the response pointer.
pub fn write_post_send_doorbell(
    qp_handle: u32,
    resp: &mut ib_uverbs_post_send_resp,
) -> WriteRequest<'_> {
    let cmd = ib_uverbs_post_send {
        response: 0,
        qp_handle,
        wr_count: 0,
        sge_count: 0,
        wqe_size: core::mem::size_of::<ib_uverbs_send_wr>() as u32,
    };
    WriteRequest::built(
        IB_USER_VERBS_CMD_POST_SEND,
        false,
        &cmd.as_bytes()[8..],
        resp.as_mut_bytes(),
    )
}

/// Splits a response buffer into the core response (the first `size_of::<R>()` bytes,
/// or all of it when shorter) and the driver's output (the rest).
pub(in crate::raw) fn split_resp<R>(resp: &mut [u8]) -> (&mut [u8], &mut [u8]) {
    let core = core::mem::size_of::<R>().min(resp.len());
    resp.split_at_mut(core)
}

/// A write command carried by INVOKE_WRITE: `CORE_IN` is the whole command struct (its
/// response field included, which the kernel ignores here), `CORE_OUT` the first
/// `size_of::<C::Resp>()` bytes of `resp`, `UHW_IN` the driver input and `UHW_OUT` the
/// rest of `resp`. Empty parts are left out, as rdma-core does.
///
/// A command that creates a file descriptor, or names one by number, does not build:
///
/// ```compile_fail,E0080
/// use uverbs::raw::abi::ib_uverbs_create_comp_channel;
/// use uverbs::raw::method::{invoke_cmd, DriverIn};
/// let mut resp = [0u8; 4];
/// // error[E0080]: evaluation of constant value failed (WriteCommand::FD)
/// let _ = invoke_cmd(14, &ib_uverbs_create_comp_channel::default(), DriverIn::NONE, &mut resp);
/// ```
// Inlined: at a call site that knows the command and its buffers, most of it folds away.
#[inline(always)]
pub fn invoke_cmd<'a, C: WriteCommand>(
    driver_id: u32,
    cmd: &'a C,
    udata_in: DriverIn<'a>,
    resp: &'a mut [u8],
) -> Request<'a, 5> {
    const { assert!(!C::FD, "a command that creates or names a descriptor") };
    invoke_any(driver_id, cmd, udata_in, resp)
}

/// The compile-fail example of [`invoke_cmd`], with its one difference: a command that
/// creates no descriptor builds.
///
/// ```
/// use uverbs::raw::abi::ib_uverbs_alloc_pd;
/// use uverbs::raw::method::{invoke_cmd, DriverIn};
/// let mut resp = [0u8; 4];
/// let _ = invoke_cmd(14, &ib_uverbs_alloc_pd::default(), DriverIn::NONE, &mut resp);
/// ```
#[cfg(doctest)]
pub struct CompileFailTwins;

/// [`invoke_cmd`] for every command, those that create or name a descriptor included
/// (for the crate's own calls: it adopts what it creates under the file's lifeline, and
/// names only its own channels).
#[inline(always)]
pub(crate) fn invoke_any<'a, C: WriteCommand>(
    driver_id: u32,
    cmd: &'a C,
    udata_in: DriverIn<'a>,
    resp: &'a mut [u8],
) -> Request<'a, 5> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.const_in(UVERBS_ATTR_WRITE_CMD, u64::from(C::COMMAND), true);
    buf.ptr_in(UVERBS_ATTR_CORE_IN, cmd.as_bytes(), true);
    let (core, driver) = split_resp::<C::Resp>(resp);
    if !core.is_empty() {
        buf.ptr_out(UVERBS_ATTR_CORE_OUT, core, true);
    }
    if !udata_in.bytes.is_empty() {
        buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.bytes, true);
    }
    if !driver.is_empty() {
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, driver, true);
    }
    Request::built(buf).with_udata(udata_in.driver_for(C::COMMAND))
}

/// The same command by `write()`: the struct after its response pointer, then the driver
/// input; `resp` receives the core response followed by the driver's output. As
/// [`invoke_cmd`], a command that creates or names a descriptor does not build.
pub fn write_cmd<'a, C: WriteCommand>(
    cmd: &C,
    udata_in: DriverIn<'_>,
    resp: &'a mut [u8],
) -> WriteRequest<'a> {
    const { assert!(!C::FD, "a command that creates or names a descriptor") };
    write_any(cmd, udata_in, resp)
}

/// [`write_cmd`] for every command (see [`invoke_any`]).
pub(crate) fn write_any<'a, C: WriteCommand>(
    cmd: &C,
    udata_in: DriverIn<'_>,
    resp: &'a mut [u8],
) -> WriteRequest<'a> {
    let core = cmd.as_bytes();
    let core = if C::HAS_RESPONSE { &core[8..] } else { core };
    let resp = if C::HAS_RESPONSE {
        resp
    } else {
        &mut resp[..0]
    };
    WriteRequest::assemble(
        C::COMMAND,
        false,
        C::HAS_RESPONSE,
        &[core, udata_in.bytes],
        resp,
    )
    .with_udata(udata_in.driver_for(C::COMMAND))
}

/// MODIFY_SRQ on rxe, by INVOKE_WRITE: rxe requires its `rxe_modify_srq_cmd`, whose
/// `mmap_info_addr` names where the kernel writes the resized queue's [`mminfo`]: this
/// builder points it at `mi`, which the request borrows. `ucmd` is the storage for that
/// driver struct (any value; it is overwritten).
///
/// [`mminfo`]: crate::raw::driver::mminfo
pub fn modify_srq_rxe<'a>(
    driver_id: u32,
    cmd: &'a ib_uverbs_modify_srq,
    ucmd: &'a mut crate::raw::driver::rxe_modify_srq_cmd,
    mi: &'a mut crate::raw::driver::mminfo,
) -> Request<'a, 5> {
    // `mi` stays borrowed for the request's life ('a): the kernel's write to
    // `mmap_info_addr` on a resize lands in memory lent to the call.
    ucmd.mmap_info_addr = mi.as_mut_bytes().as_mut_ptr() as u64;
    let ucmd: &'a crate::raw::driver::rxe_modify_srq_cmd = ucmd;
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.const_in(
        UVERBS_ATTR_WRITE_CMD,
        u64::from(IB_USER_VERBS_CMD_MODIFY_SRQ),
        true,
    );
    buf.ptr_in(UVERBS_ATTR_CORE_IN, cmd.as_bytes(), true);
    buf.ptr_in(UVERBS_ATTR_UHW_IN, ucmd.as_bytes(), true);
    // rxe's struct: sent only to an rxe file (VerbsFile::call checks)
    Request::built(buf).with_udata(RDMA_DRIVER_RXE)
}

/// MODIFY_SRQ on rxe by `write()`: as [`modify_srq_rxe`].
pub fn write_modify_srq_rxe<'a>(
    cmd: &ib_uverbs_modify_srq,
    ucmd: &mut crate::raw::driver::rxe_modify_srq_cmd,
    mi: &'a mut crate::raw::driver::mminfo,
) -> WriteRequest<'a> {
    // MODIFY_SRQ answers nothing: the response is empty. `mi` stays borrowed for the
    // request's life ('a), so the kernel's write to `mmap_info_addr` lands in memory
    // lent to the call.
    ucmd.mmap_info_addr = mi.as_mut_bytes().as_mut_ptr() as u64;
    WriteRequest::assemble(
        IB_USER_VERBS_CMD_MODIFY_SRQ,
        false,
        false,
        &[cmd.as_bytes(), ucmd.as_bytes()],
        &mut [],
    )
    .with_udata(RDMA_DRIVER_RXE)
}

/// Destroys an object by handle with its type's ioctl DESTROY method (PD, MR, AH: the
/// methods whose only attribute is the handle). `object` is `UVERBS_OBJECT_*`, `method`
/// and `attr` the type's `UVERBS_METHOD_*_DESTROY` and `UVERBS_ATTR_DESTROY_*_HANDLE`.
fn destroy_by_handle<'a>(
    driver_id: u32,
    object: u16,
    method: u16,
    attr: u16,
    handle: u32,
) -> Request<'a, 1> {
    let mut buf = IoctlBuf::new(object, method, driver_id);
    buf.idr_in(attr, handle);
    Request::built(buf)
}

/// PD_DESTROY (`UVERBS_METHOD_PD_DESTROY`).
pub fn destroy_pd<'a>(driver_id: u32, handle: u32) -> Request<'a, 1> {
    destroy_by_handle(
        driver_id,
        UVERBS_OBJECT_PD,
        UVERBS_METHOD_PD_DESTROY,
        UVERBS_ATTR_DESTROY_PD_HANDLE,
        handle,
    )
}

/// MR_DESTROY (`UVERBS_METHOD_MR_DESTROY`): deregisters the MR.
pub fn destroy_mr<'a>(driver_id: u32, handle: u32) -> Request<'a, 1> {
    destroy_by_handle(
        driver_id,
        UVERBS_OBJECT_MR,
        UVERBS_METHOD_MR_DESTROY,
        UVERBS_ATTR_DESTROY_MR_HANDLE,
        handle,
    )
}

/// AH_DESTROY (`UVERBS_METHOD_AH_DESTROY`).
pub fn destroy_ah<'a>(driver_id: u32, handle: u32) -> Request<'a, 1> {
    destroy_by_handle(
        driver_id,
        UVERBS_OBJECT_AH,
        UVERBS_METHOD_AH_DESTROY,
        UVERBS_ATTR_DESTROY_AH_HANDLE,
        handle,
    )
}

/// CQ_CREATE (`UVERBS_METHOD_CQ_CREATE`, Linux 4.17): the new handle comes back in the
/// returned slot ([`IoctlBuf::data`]), the CQ's real size in `resp_cqe`, the driver's
/// output in `udata_out`.
#[allow(clippy::too_many_arguments)]
pub fn create_cq<'a>(
    driver_id: u32,
    cqe: &'a u32,
    user_handle: &'a u64,
    comp_channel: Option<std::os::fd::BorrowedFd<'a>>,
    comp_vector: &'a u32,
    resp_cqe: &'a mut u32,
    udata_in: DriverIn<'a>,
    udata_out: &'a mut [u8],
) -> (Request<'a, 9>, AttrSlot) {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, driver_id);
    let handle = buf.idr_new(UVERBS_ATTR_CREATE_CQ_HANDLE);
    buf.ptr_out(
        UVERBS_ATTR_CREATE_CQ_RESP_CQE,
        resp_cqe.as_mut_bytes(),
        true,
    );
    buf.ptr_in(UVERBS_ATTR_CREATE_CQ_CQE, cqe.as_bytes(), true);
    buf.ptr_in(
        UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
        user_handle.as_bytes(),
        true,
    );
    if let Some(fd) = comp_channel {
        buf.fd_in(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, fd, true);
    }
    buf.ptr_in(
        UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
        comp_vector.as_bytes(),
        true,
    );
    if !udata_in.bytes.is_empty() {
        buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.bytes, true);
    }
    if !udata_out.is_empty() {
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, udata_out, true);
    }
    (
        Request::built(buf).with_udata(udata_in.driver_for(IB_USER_VERBS_CMD_CREATE_CQ)),
        handle,
    )
}

/// CQ_DESTROY (`UVERBS_METHOD_CQ_DESTROY`): `resp` receives the counts of completion
/// and async events the kernel reported for the CQ.
pub fn destroy_cq<'a>(
    driver_id: u32,
    handle: u32,
    resp: &'a mut ib_uverbs_destroy_cq_resp,
) -> Request<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, driver_id);
    buf.idr_in(UVERBS_ATTR_DESTROY_CQ_HANDLE, handle);
    buf.ptr_out(UVERBS_ATTR_DESTROY_CQ_RESP, resp.as_mut_bytes(), true);
    Request::built(buf)
}

/// The inputs of QP_CREATE that are handles and values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CreateQp {
    /// The PD's handle.
    pub pd: u32,
    /// The send CQ's handle.
    pub send_cq: u32,
    /// The receive CQ's handle.
    pub recv_cq: u32,
    /// The SRQ's handle, if the QP receives from one.
    pub srq: Option<u32>,
    /// `IB_UVERBS_QPT_*`.
    pub qp_type: u32,
    /// `IB_UVERBS_QP_CREATE_*` (`IB_UVERBS_QP_CREATE_SQ_SIG_ALL` for `sq_sig_all`).
    pub flags: u32,
}

/// QP_CREATE (`UVERBS_METHOD_QP_CREATE`, Linux 5.8): the handle comes back in the slot,
/// the granted capacities in `resp_cap`, the QP number in `resp_qpn`.
#[allow(clippy::too_many_arguments)]
pub fn create_qp<'a>(
    driver_id: u32,
    qp: &CreateQp,
    user_handle: &'a u64,
    cap: &'a ib_uverbs_qp_cap,
    resp_cap: &'a mut ib_uverbs_qp_cap,
    resp_qpn: &'a mut u32,
    udata_in: DriverIn<'a>,
    udata_out: &'a mut [u8],
) -> (Request<'a, 13>, AttrSlot) {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, driver_id);
    let handle = buf.idr_new(UVERBS_ATTR_CREATE_QP_HANDLE);
    buf.ptr_out(
        UVERBS_ATTR_CREATE_QP_RESP_CAP,
        resp_cap.as_mut_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
        resp_qpn.as_mut_bytes(),
        true,
    );
    buf.idr_in(UVERBS_ATTR_CREATE_QP_PD_HANDLE, qp.pd);
    buf.idr_in(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, qp.send_cq);
    buf.idr_in(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, qp.recv_cq);
    if let Some(srq) = qp.srq {
        buf.idr_in(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, srq);
    }
    buf.ptr_in(
        UVERBS_ATTR_CREATE_QP_USER_HANDLE,
        user_handle.as_bytes(),
        true,
    );
    buf.ptr_in(UVERBS_ATTR_CREATE_QP_CAP, cap.as_bytes(), true);
    buf.const_in(UVERBS_ATTR_CREATE_QP_TYPE, u64::from(qp.qp_type), true);
    if qp.flags != 0 {
        buf.const_in(UVERBS_ATTR_CREATE_QP_FLAGS, u64::from(qp.flags), true);
    }
    if !udata_in.bytes.is_empty() {
        buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.bytes, true);
    }
    if !udata_out.is_empty() {
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, udata_out, true);
    }
    (
        Request::built(buf).with_udata(udata_in.driver_for(IB_USER_VERBS_CMD_CREATE_QP)),
        handle,
    )
}

/// QP_DESTROY (`UVERBS_METHOD_QP_DESTROY`): `resp` receives the count of async events
/// the kernel reported for the QP.
pub fn destroy_qp<'a>(
    driver_id: u32,
    handle: u32,
    resp: &'a mut ib_uverbs_destroy_qp_resp,
) -> Request<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, driver_id);
    buf.idr_in(UVERBS_ATTR_DESTROY_QP_HANDLE, handle);
    buf.ptr_out(UVERBS_ATTR_DESTROY_QP_RESP, resp.as_mut_bytes(), true);
    Request::built(buf)
}

/// SRQ_CREATE (`UVERBS_METHOD_SRQ_CREATE`, Linux 5.8) of a basic SRQ: the handle comes
/// back in the slot; `resp` receives max_wr, max_sge and the SRQ number.
pub fn create_srq<'a>(
    driver_id: u32,
    pd: u32,
    attr: &'a CreateSrqValues,
    resp: &'a mut CreateSrqResp,
    udata_in: DriverIn<'a>,
    udata_out: &'a mut [u8],
) -> (Request<'a, 11>, AttrSlot) {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, driver_id);
    let handle = buf.idr_new(UVERBS_ATTR_CREATE_SRQ_HANDLE);
    buf.idr_in(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, pd);
    buf.const_in(
        UVERBS_ATTR_CREATE_SRQ_TYPE,
        u64::from(IB_UVERBS_SRQT_BASIC),
        true,
    );
    buf.ptr_in(
        UVERBS_ATTR_CREATE_SRQ_USER_HANDLE,
        attr.user_handle.as_bytes(),
        true,
    );
    buf.ptr_in(UVERBS_ATTR_CREATE_SRQ_MAX_WR, attr.max_wr.as_bytes(), true);
    buf.ptr_in(
        UVERBS_ATTR_CREATE_SRQ_MAX_SGE,
        attr.max_sge.as_bytes(),
        true,
    );
    buf.ptr_in(
        UVERBS_ATTR_CREATE_SRQ_LIMIT,
        attr.srq_limit.as_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR,
        resp.max_wr.as_mut_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE,
        resp.max_sge.as_mut_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM,
        resp.srq_num.as_mut_bytes(),
        true,
    );
    if !udata_in.bytes.is_empty() {
        buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in.bytes, true);
    }
    if !udata_out.is_empty() {
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, udata_out, true);
    }
    (
        Request::built(buf).with_udata(udata_in.driver_for(IB_USER_VERBS_CMD_CREATE_SRQ)),
        handle,
    )
}

/// SRQ_CREATE's inputs, each a `PTR_IN` of its C type (so borrowed by the request).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CreateSrqValues {
    /// The opaque value the kernel reports in this SRQ's async events.
    pub user_handle: u64,
    /// Work requests.
    pub max_wr: u32,
    /// Scatter/gather entries per work request.
    pub max_sge: u32,
    /// The limit that arms `IBV_EVENT_SRQ_LIMIT_REACHED` (0: not armed).
    pub srq_limit: u32,
}

/// SRQ_CREATE's outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CreateSrqResp {
    /// The granted work requests.
    pub max_wr: u32,
    /// The granted scatter/gather entries.
    pub max_sge: u32,
    /// The SRQ number.
    pub srq_num: u32,
}

/// SRQ_DESTROY (`UVERBS_METHOD_SRQ_DESTROY`).
pub fn destroy_srq<'a>(
    driver_id: u32,
    handle: u32,
    resp: &'a mut ib_uverbs_destroy_srq_resp,
) -> Request<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY, driver_id);
    buf.idr_in(UVERBS_ATTR_DESTROY_SRQ_HANDLE, handle);
    buf.ptr_out(UVERBS_ATTR_DESTROY_SRQ_RESP, resp.as_mut_bytes(), true);
    Request::built(buf)
}

#[cfg(test)]
mod tests {
    //! Golden bytes of every request: the header and attribute array exactly as the
    //! kernel reads them. Pointers are this process's addresses, so they are spliced in
    //! where the golden text says `PTR(n)`; everything else is fixed.
    use super::*;

    /// Builds the expected bytes from a golden text: hex bytes, `PTR(n)` (8 bytes, the
    /// n-th pointer), whitespace and `#` comments ignored.
    fn golden(text: &str, ptrs: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            for tok in line.split_whitespace() {
                if let Some(n) = tok.strip_prefix("PTR(").and_then(|t| t.strip_suffix(')')) {
                    out.extend_from_slice(&ptrs[n.parse::<usize>().unwrap()].to_ne_bytes());
                } else {
                    out.push(u8::from_str_radix(tok, 16).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn query_port_speed_request() {
        let mut speed = 0u64;
        let p = &speed as *const u64 as u64;
        let buf = query_port_speed(RDMA_DRIVER_MLX5, 2, &mut speed);
        let want = golden(
            "
            38 00  00 00  07 00  02 00        # length 56, DEVICE, QUERY_PORT_SPEED (7), 2 attrs
            00 00 00 00 00 00 00 00           # reserved1
            01 00 00 00  00 00 00 00          # driver_id 1 (mlx5), reserved2
            00 00  08 00  01 00  00 00        # PORT_NUM, len 8, MANDATORY
            02 00 00 00 00 00 00 00           #   port 2 inline (a u32 in the spec)
            01 00  08 00  01 00  00 00        # RESP, len 8 (u64), MANDATORY
            PTR(0)
            ",
            &[p],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn query_port_request() {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        let p = resp.as_bytes().as_ptr() as u64;
        let buf = query_port(RDMA_DRIVER_RXE, 1, &mut resp);
        let want = golden(
            "
            38 00  00 00  02 00  02 00        # length 56, DEVICE, QUERY_PORT, 2 attrs
            00 00 00 00 00 00 00 00           # reserved1
            0e 00 00 00  00 00 00 00          # driver_id 14 (rxe), reserved2
            00 00  08 00  01 00  00 00        # PORT_NUM, len 8, MANDATORY
            01 00 00 00 00 00 00 00           #   port 1 inline
            01 00  30 00  01 00  00 00        # RESP, len 48, MANDATORY
            PTR(0)
            ",
            &[p],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn get_context_request_for_siw_and_mlx5() {
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let (a, b, c) = (
            &ncv as *const u32 as u64,
            &core as *const u64 as u64,
            out.as_ptr() as u64,
        );
        let call = GetContext::new(
            RDMA_DRIVER_SIW,
            &mut ncv,
            &mut core,
            &UdataIn::EMPTY,
            &mut out,
        );
        let want = golden(
            "
            48 00  00 00  03 00  03 00        # length 72, DEVICE, GET_CONTEXT, 3 attrs
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00          # driver_id 18 (siw)
            00 00  04 00  00 00  00 00        # NUM_COMP_VECTORS, len 4, optional
            PTR(0)
            01 00  08 00  00 00  00 00        # CORE_SUPPORT, len 8
            PTR(1)
            01 10  00 02  00 00  00 00        # UHW_OUT (0x1001), len 512
            PTR(2)
            ",
            &[a, b, c],
        );
        assert_eq!(call.req.to_vec(), want);

        let udata = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_MLX5);
        assert_eq!(
            udata.as_bytes(),
            &golden(
                "08 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  # 8 bfregs
                 01 00 00 00  00 00 00 00  03 00 00 00 00 00 00 00   # cqe v1, 4K|DYN UAR",
                &[]
            )[..]
        );
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let (a, b, d) = (
            &ncv as *const u32 as u64,
            &core as *const u64 as u64,
            out.as_ptr() as u64,
        );
        let c = udata.as_bytes().as_ptr() as u64;
        let call = GetContext::new(RDMA_DRIVER_MLX5, &mut ncv, &mut core, &udata, &mut out);
        let want = golden(
            "
            58 00  00 00  03 00  04 00        # length 88, 4 attrs
            00 00 00 00 00 00 00 00
            01 00 00 00  00 00 00 00          # driver_id 1 (mlx5)
            00 00  04 00  00 00  00 00  PTR(0)
            01 00  08 00  00 00  00 00  PTR(1)
            00 10  20 00  00 00  00 00  PTR(2)  # UHW_IN, 32 bytes by pointer
            01 10  00 02  00 00  00 00  PTR(3)
            ",
            &[a, b, c, d],
        );
        assert_eq!(call.req.to_vec(), want);
    }

    #[test]
    fn small_udata_in_travels_inline() {
        let udata = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_EFA);
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let call = GetContext::new(RDMA_DRIVER_EFA, &mut ncv, &mut core, &udata, &mut out);
        let attr = call.req.attrs()[2];
        assert_eq!(
            (attr.attr_id, attr.len, attr.flags),
            (UVERBS_ATTR_UHW_IN, 8, 0)
        );
        assert_eq!(
            attr.data, 3,
            "EFA's supported_caps TX_BATCH|MIN_SQ_WR inline"
        );
        for (id, want) in [
            (RDMA_DRIVER_IRDMA, 16usize),
            (RDMA_DRIVER_HNS, 8),
            (RDMA_DRIVER_IONIC, 8),
        ] {
            assert_eq!(
                crate::raw::driver::get_context_udata_in(id)
                    .as_bytes()
                    .len(),
                want,
                "driver {id}"
            );
        }
        for id in [
            RDMA_DRIVER_RXE,
            RDMA_DRIVER_SIW,
            RDMA_DRIVER_MLX4,
            RDMA_DRIVER_ERDMA,
            RDMA_DRIVER_BNXT_RE,
        ] {
            assert!(
                crate::raw::driver::get_context_udata_in(id)
                    .as_bytes()
                    .is_empty(),
                "driver {id}"
            );
        }
        let irdma = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_IRDMA);
        assert_eq!(irdma.as_bytes()[4], 5, "irdma userspace_ver 5");
    }

    #[test]
    fn invoke_write_query_device_ex_request() {
        let cmd = ib_uverbs_ex_query_device::default();
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        let out = resp.as_bytes().as_ptr() as u64;
        let buf = invoke_write(
            RDMA_DRIVER_SIW,
            IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
            cmd.as_bytes(),
            resp.as_mut_bytes(),
        );
        let want = golden(
            "
            48 00  00 00  00 00  03 00        # length 72, DEVICE, INVOKE_WRITE, 3 attrs
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00        # CORE_IN, 8 bytes inline (comp_mask, reserved)
            00 00 00 00 00 00 00 00
            01 00  30 01  01 00  00 00        # CORE_OUT, 304 bytes
            PTR(0)
            02 00  08 00  01 00  00 00        # WRITE_CMD
            01 00 00 80 00 00 00 00           #   QUERY_DEVICE | FLAG_EXTENDED
            ",
            &[out],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn driver_id_probe_request() {
        let buf = invoke_write_probe(RDMA_DRIVER_MLX5);
        let want = golden(
            "
            28 00  00 00  00 00  01 00        # length 40, 1 attr
            00 00 00 00 00 00 00 00
            01 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  01 00 00 00 00 00 00 00  # WRITE_CMD = QUERY_DEVICE
            ",
            &[],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn gid_requests() {
        let mut entries = [ib_uverbs_gid_entry::default(); 4];
        let mut n = 0u64;
        let (e, np) = (entries.as_bytes().as_ptr() as u64, &n as *const u64 as u64);
        let buf = query_gid_table(RDMA_DRIVER_RXE, &mut entries, &mut n);
        let want = golden(
            "
            58 00  00 00  05 00  04 00        # length 88, QUERY_GID_TABLE, 4 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00  20 00 00 00 00 00 00 00  # ENTRY_SIZE 32
            02 00  80 00  01 00  00 00  PTR(0)                   # RESP_ENTRIES, 4 x 32
            03 00  08 00  01 00  00 00  PTR(1)                   # RESP_NUM_ENTRIES
            01 00  08 00  00 00  00 00  00 00 00 00 00 00 00 00  # FLAGS 0, optional
            ",
            &[e, np],
        );
        assert_eq!(buf.to_vec(), want);

        let mut entry = ib_uverbs_gid_entry::default();
        let ep = entry.as_bytes().as_ptr() as u64;
        let buf = query_gid_entry(RDMA_DRIVER_SIW, 1, 5, &mut entry);
        let want = golden(
            "
            58 00  00 00  06 00  04 00        # QUERY_GID_ENTRY
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00  01 00 00 00 00 00 00 00  # PORT 1
            01 00  08 00  01 00  00 00  05 00 00 00 00 00 00 00  # GID_INDEX 5
            02 00  08 00  01 00  00 00  00 00 00 00 00 00 00 00  # FLAGS, mandatory here
            03 00  20 00  01 00  00 00  PTR(0)                   # RESP_ENTRY
            ",
            &[ep],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn async_event_alloc_and_query_context_requests() {
        let (buf, slot) = async_event_alloc(RDMA_DRIVER_RXE);
        let want = golden(
            "
            28 00  10 00  00 00  01 00        # ASYNC_EVENT object 16, ALLOC
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # FD_HANDLE, len 0, -1 until written
            ",
            &[],
        );
        assert_eq!(buf.to_vec(), want);
        assert!(!buf.valid_output(slot));

        let mut ncv = 0u32;
        let mut core = 0u64;
        let (a, b) = (&ncv as *const u32 as u64, &core as *const u64 as u64);
        let buf = query_context(RDMA_DRIVER_RXE, &mut ncv, &mut core);
        let want = golden(
            "
            38 00  00 00  04 00  02 00
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  04 00  00 00  00 00  PTR(0)
            01 00  08 00  00 00  00 00  PTR(1)
            ",
            &[a, b],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn object_attribute_kinds() {
        // IDR in/new, FD in and ENUM_IN, as the kernel reads them (uverbs_ioctl.c:
        // IDR and FD attributes have len 0 and the handle or fd in `data`; ENUM_IN names
        // its element in attr_data's first byte).
        // Standard input's descriptor (0): borrowed without a system call.
        use std::os::fd::{AsFd, AsRawFd};
        let stdin = std::io::stdin();
        let fd = stdin.as_fd();
        let raw = fd.as_raw_fd() as u64;
        let data = [7u8; 12];
        let p = data.as_ptr() as u64;
        let mut buf = IoctlBuf::<5>::new(2, 0, RDMA_DRIVER_RXE); // object 2, method 0
        let new = buf.idr_new(0);
        buf.idr_in(1, 0x2a);
        buf.fd_in(2, fd, true);
        buf.enum_in(3, 1, &[5, 0, 0, 0], false);
        buf.enum_in(4, 2, &data, true);
        let want = golden(
            "
            68 00  02 00  00 00  05 00        # length 104, 5 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # IDR NEW: len 0, -1
            01 00  00 00  01 00  00 00  2a 00 00 00 00 00 00 00  # IDR handle 42
            02 00  00 00  01 00  00 00  PTR(0)                   # FD: the fd number
            03 00  04 00  00 00  01 00  05 00 00 00 00 00 00 00  # ENUM_IN elem 1, inline
            04 00  0c 00  01 00  02 00  PTR(1)                   # ENUM_IN elem 2, by pointer
            ",
            &[raw, p],
        );
        assert_eq!(buf.to_vec(), want);
        assert_eq!(buf.data(new), u64::MAX);
        assert!(!buf.valid_output(new));
    }

    #[test]
    fn abi_conformance_requests() {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        let p = resp.as_bytes().as_ptr() as u64;
        let buf = query_port_with_undefined_attr(RDMA_DRIVER_RXE, 1, &mut resp, true);
        let want = golden(
            "
            48 00  00 00  02 00  03 00        # length 72, DEVICE, QUERY_PORT, 3 attrs
            00 00 00 00 00 00 00 00           # reserved1
            0e 00 00 00  00 00 00 00          # driver_id 14 (rxe), reserved2
            00 00  08 00  01 00  00 00        # PORT_NUM, len 8, MANDATORY
            01 00 00 00 00 00 00 00           #   port 1 inline
            01 00  30 00  01 00  00 00        # RESP, len 48, MANDATORY
            PTR(0)
            1f 00  08 00  01 00  00 00        # id 31 (undefined), len 8, MANDATORY
            00 00 00 00 00 00 00 00           #   0 inline
            ",
            &[p],
        );
        assert_eq!(buf.to_vec(), want);
        let buf = query_port_with_undefined_attr(RDMA_DRIVER_RXE, 1, &mut resp, false);
        assert_eq!(buf.attrs()[2].flags, 0);

        let mut resp = ib_uverbs_query_port_resp_ex::default();
        let p = resp.as_bytes().as_ptr() as u64;
        let want = |r1: &str, r2: &str, data: &str| {
            golden(
                &format!(
                    "
            38 00  00 00  02 00  02 00        # length 56, DEVICE, QUERY_PORT, 2 attrs
            {r1}                              # reserved1
            0e 00 00 00  {r2}                 # driver_id 14 (rxe), reserved2
            00 00  08 00  01 00  00 00        # PORT_NUM, len 8, MANDATORY
            01 00 00 00 00 00 00 00           #   port 1 inline
            01 00  30 00  01 00  {data}       # RESP, len 48, MANDATORY, attr_data
            PTR(0)
            "
                ),
                &[p],
            )
        };
        let zero8 = "00 00 00 00 00 00 00 00";
        for (which, bytes) in [
            (
                Reserved::Header1,
                want("01 00 00 00 00 00 00 00", "00 00 00 00", "00 00"),
            ),
            (Reserved::Header2, want(zero8, "01 00 00 00", "00 00")),
            (Reserved::AttrData, want(zero8, "00 00 00 00", "01 00")),
        ] {
            let buf = query_port_with_reserved(RDMA_DRIVER_RXE, 1, &mut resp, which);
            assert_eq!(buf.to_vec(), bytes, "{which:?}");
        }

        let buf = undefined_method(RDMA_DRIVER_SIW, Undefined::Method);
        let want = golden(
            "
            18 00  00 00  14 00  00 00        # length 24, DEVICE, method 20, no attrs
            00 00 00 00 00 00 00 00           # reserved1
            12 00 00 00  00 00 00 00          # driver_id 18 (siw), reserved2
            ",
            &[],
        );
        assert_eq!(buf.to_vec(), want);
        let buf = undefined_method(RDMA_DRIVER_SIW, Undefined::Object);
        assert_eq!(&buf.to_vec()[..8], &[0x18, 0, 0xc8, 0, 0, 0, 0, 0]);

        let cmd = [0u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
        let mut resp = [0u8; 192];
        let (c, r) = (cmd.as_ptr() as u64, resp.as_ptr() as u64);
        let buf = query_device_ex_bytes(RDMA_DRIVER_RXE, &cmd, &mut resp);
        let want = golden(
            "
            48 00  00 00  00 00  03 00        # length 72, DEVICE, INVOKE_WRITE, 3 attrs
            00 00 00 00 00 00 00 00           # reserved1
            0e 00 00 00  00 00 00 00          # driver_id 14 (rxe), reserved2
            00 00  10 00  01 00  00 00        # CORE_IN, len 16, MANDATORY
            PTR(0)
            01 00  c0 00  01 00  00 00        # CORE_OUT, len 192, MANDATORY
            PTR(1)
            02 00  08 00  01 00  00 00        # WRITE_CMD, MANDATORY
            01 00 00 80 00 00 00 00           #   QUERY_DEVICE | EXTENDED
            ",
            &[c, r],
        );
        assert_eq!(buf.to_vec(), want);

        let mut out = [0u8; MAX_WRITE_CMD];
        let mut resp = [0u8; 192];
        let rp = resp.as_ptr() as u64;
        let n = write_query_device_ex_bytes(&cmd, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            01 00 00 80  02 00  18 00         # QUERY_DEVICE|EXTENDED, in 2, out 24 (x8)
            PTR(0)                            # ex header: response
            00 00  00 00  00 00 00 00         # provider in/out words, reserved
            00 00 00 00 00 00 00 00           # comp_mask, reserved
            01 00 00 00 00 00 00 00           # a trailing word
            ",
            &[rp],
        );
        assert_eq!(&out[..n], &want[..]);
        // A request the ex header cannot say (not whole words) is refused.
        let mut resp = [0u8; 192];
        assert_eq!(
            write_query_device_ex_bytes(&cmd[..12], &mut resp).encode(&mut out),
            Err(rustix::io::Errno::INVAL)
        );

        let mut resp = [0u8; 8];
        let rp = resp.as_ptr() as u64;
        let n = write_query_port_bytes(1, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            02 00 00 00  06 00  02 00         # QUERY_PORT, in 6 words, out 2 words (8 B)
            PTR(0)                            # response
            01 00 00 00 00 00 00 00           # port 1, reserved
            ",
            &[rp],
        );
        assert_eq!(&out[..n], &want[..]);
    }

    #[test]
    fn write_requests() {
        let mut out = [0u8; MAX_WRITE_CMD];
        let mut resp = ib_uverbs_query_port_resp::default();
        let rp = resp.as_bytes().as_ptr() as u64;
        let n = write_query_port(2, &mut resp).encode(&mut out).unwrap();
        let want = golden(
            "
            02 00 00 00  06 00  0a 00         # QUERY_PORT, in 6 words, out 10 words (40 B)
            PTR(0)                            # response
            02 00 00 00 00 00 00 00           # port 2, reserved
            ",
            &[rp],
        );
        assert_eq!(&out[..n], &want[..]);

        let udata = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_RXE);
        let mut resp = [0u8; 8 + 512];
        let rp = resp.as_ptr() as u64;
        let n = write_get_context(&udata, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            00 00 00 00  04 00  82 00         # GET_CONTEXT, in 4 words, out 130 words
            PTR(0)
            ",
            &[rp],
        );
        assert_eq!(&out[..n], &want[..]);

        let mut resp = ib_uverbs_query_device_resp::default();
        let rp = resp.as_bytes().as_ptr() as u64;
        let n = write_query_device(&mut resp).encode(&mut out).unwrap();
        let want = golden("01 00 00 00  04 00  2c 00  PTR(0)", &[rp]);
        assert_eq!(&out[..n], &want[..]);

        let cmd = ib_uverbs_ex_query_device::default();
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        let rp = resp.as_bytes().as_ptr() as u64;
        let n = write_query_device_ex(&cmd, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            01 00 00 80  01 00  26 00         # QUERY_DEVICE|EXTENDED, in 1, out 38 (x8)
            PTR(0)                            # ex header: response
            00 00  00 00  00 00 00 00         # provider in/out words, reserved
            00 00 00 00 00 00 00 00           # comp_mask, reserved
            ",
            &[rp],
        );
        assert_eq!(&out[..n], &want[..]);

        // Lengths the header cannot say are refused, not truncated.
        let mut odd = [0u8; 6];
        assert_eq!(
            write_request_raw(2, &[0; 8], &mut odd).encode(&mut out),
            Err(rustix::io::Errno::INVAL)
        );
        let mut resp = [0u8; 8];
        assert_eq!(
            write_request_raw(2, &[0; 300], &mut resp).encode(&mut out),
            Err(rustix::io::Errno::INVAL)
        );
    }

    #[test]
    fn object_destroy_requests() {
        for (req, obj, method) in [
            (destroy_pd(RDMA_DRIVER_RXE, 7), 1u8, 0u8),
            (destroy_mr(RDMA_DRIVER_RXE, 7), 7, 1),
            (destroy_ah(RDMA_DRIVER_RXE, 7), 6, 0),
        ] {
            let want = golden(
                &format!(
                    "28 00  {obj:02x} 00  {method:02x} 00  01 00   # length 40, object, method, 1 attr
                     00 00 00 00 00 00 00 00
                     0e 00 00 00  00 00 00 00
                     00 00  00 00  01 00  00 00  07 00 00 00 00 00 00 00  # IDR handle 7, len 0"
                ),
                &[],
            );
            assert_eq!(req.to_vec(), want, "object {obj}");
        }
        let mut cq = ib_uverbs_destroy_cq_resp::default();
        let p = cq.as_bytes().as_ptr() as u64;
        let want = golden(
            "38 00  03 00  01 00  02 00        # CQ, CQ_DESTROY, 2 attrs
             00 00 00 00 00 00 00 00
             12 00 00 00  00 00 00 00
             00 00  00 00  01 00  00 00  09 00 00 00 00 00 00 00  # HANDLE 9 (IDR)
             01 00  08 00  01 00  00 00  PTR(0)                   # RESP, 8 bytes",
            &[p],
        );
        assert_eq!(destroy_cq(RDMA_DRIVER_SIW, 9, &mut cq).to_vec(), want);
        let mut qp = ib_uverbs_destroy_qp_resp::default();
        let p = qp.as_bytes().as_ptr() as u64;
        let want = golden(
            "38 00  04 00  01 00  02 00        # QP, QP_DESTROY
             00 00 00 00 00 00 00 00
             0e 00 00 00  00 00 00 00
             00 00  00 00  01 00  00 00  03 00 00 00 00 00 00 00
             01 00  04 00  01 00  00 00  PTR(0)                   # RESP, 4 bytes",
            &[p],
        );
        assert_eq!(destroy_qp(RDMA_DRIVER_RXE, 3, &mut qp).to_vec(), want);
        let mut srq = ib_uverbs_destroy_srq_resp::default();
        let p = srq.as_bytes().as_ptr() as u64;
        let want = golden(
            "38 00  05 00  01 00  02 00        # SRQ, SRQ_DESTROY
             00 00 00 00 00 00 00 00
             0e 00 00 00  00 00 00 00
             00 00  00 00  01 00  00 00  04 00 00 00 00 00 00 00
             01 00  04 00  01 00  00 00  PTR(0)",
            &[p],
        );
        assert_eq!(destroy_srq(RDMA_DRIVER_RXE, 4, &mut srq).to_vec(), want);
    }

    #[test]
    fn create_cq_request() {
        let stdin = std::io::stdin();
        use std::os::fd::{AsFd, AsRawFd};
        let ch = stdin.as_fd();
        let (cqe, uh, vec) = (16u32, 0x1122_3344_5566_7788u64, 0u32);
        let mut resp_cqe = 0u32;
        let mut out = [0u8; 64];
        let ptrs = [
            &resp_cqe as *const u32 as u64,
            out.as_ptr() as u64,
            ch.as_raw_fd() as u64,
        ];
        let (req, slot) = create_cq(
            RDMA_DRIVER_RXE,
            &cqe,
            &uh,
            Some(ch),
            &vec,
            &mut resp_cqe,
            DriverIn::NONE,
            &mut out,
        );
        let want = golden(
            "
            88 00  03 00  00 00  07 00        # length 136, CQ, CQ_CREATE, 7 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # HANDLE: IDR NEW
            06 00  04 00  01 00  00 00  PTR(0)                   # RESP_CQE, 4 bytes
            01 00  04 00  01 00  00 00  10 00 00 00 00 00 00 00  # CQE 16 (u32 inline)
            02 00  08 00  01 00  00 00  88 77 66 55 44 33 22 11  # USER_HANDLE (u64)
            03 00  00 00  01 00  00 00  PTR(2)                   # COMP_CHANNEL: the fd
            04 00  04 00  01 00  00 00  00 00 00 00 00 00 00 00  # COMP_VECTOR 0
            01 10  40 00  01 00  00 00  PTR(1)                   # UHW_OUT, 64 bytes
            ",
            &ptrs,
        );
        assert_eq!(req.to_vec(), want);
        assert_eq!(req.data(slot), u64::MAX);
    }

    #[test]
    fn create_qp_and_srq_requests() {
        let cap = ib_uverbs_qp_cap {
            max_send_wr: 8,
            max_recv_wr: 8,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        };
        let uh = 5u64;
        let mut rcap = ib_uverbs_qp_cap::default();
        let mut qpn = 0u32;
        let mut out = [0u8; 64];
        let ptrs = [
            &rcap as *const ib_uverbs_qp_cap as u64,
            &qpn as *const u32 as u64,
            &cap as *const ib_uverbs_qp_cap as u64,
            out.as_ptr() as u64,
        ];
        let (req, _) = create_qp(
            RDMA_DRIVER_RXE,
            &CreateQp {
                pd: 1,
                send_cq: 2,
                recv_cq: 3,
                srq: Some(4),
                qp_type: IB_UVERBS_QPT_RC,
                flags: IB_UVERBS_QP_CREATE_SQ_SIG_ALL,
            },
            &uh,
            &cap,
            &mut rcap,
            &mut qpn,
            DriverIn::NONE,
            &mut out,
        );
        let want = golden(
            "
            d8 00  04 00  00 00  0c 00        # length 216, QP, QP_CREATE, 12 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # HANDLE: IDR NEW
            0d 00  14 00  01 00  00 00  PTR(0)                   # RESP_CAP, 20 bytes
            0e 00  04 00  01 00  00 00  PTR(1)                   # RESP_QP_NUM
            02 00  00 00  01 00  00 00  01 00 00 00 00 00 00 00  # PD 1
            04 00  00 00  01 00  00 00  02 00 00 00 00 00 00 00  # SEND_CQ 2
            05 00  00 00  01 00  00 00  03 00 00 00 00 00 00 00  # RECV_CQ 3
            03 00  00 00  01 00  00 00  04 00 00 00 00 00 00 00  # SRQ 4
            07 00  08 00  01 00  00 00  05 00 00 00 00 00 00 00  # USER_HANDLE 5
            08 00  14 00  01 00  00 00  PTR(2)                   # CAP, 20 bytes
            09 00  08 00  01 00  00 00  02 00 00 00 00 00 00 00  # TYPE RC (CONST_IN)
            0a 00  08 00  01 00  00 00  00 10 00 00 00 00 00 00  # FLAGS SQ_SIG_ALL
            01 10  40 00  01 00  00 00  PTR(3)                   # UHW_OUT
            ",
            &ptrs,
        );
        assert_eq!(req.to_vec(), want);

        let v = CreateSrqValues {
            user_handle: 6,
            max_wr: 16,
            max_sge: 1,
            srq_limit: 0,
        };
        let mut r = CreateSrqResp::default();
        let mut out = [0u8; 64];
        let ptrs = [
            &r.max_wr as *const u32 as u64,
            &r.max_sge as *const u32 as u64,
            &r.srq_num as *const u32 as u64,
            out.as_ptr() as u64,
        ];
        let (req, _) = create_srq(RDMA_DRIVER_SIW, 1, &v, &mut r, DriverIn::NONE, &mut out);
        let want = golden(
            "
            c8 00  05 00  00 00  0b 00        # length 200, SRQ, SRQ_CREATE, 11 attrs
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # HANDLE: IDR NEW
            01 00  00 00  01 00  00 00  01 00 00 00 00 00 00 00  # PD 1
            09 00  08 00  01 00  00 00  00 00 00 00 00 00 00 00  # TYPE BASIC
            04 00  08 00  01 00  00 00  06 00 00 00 00 00 00 00  # USER_HANDLE 6
            05 00  04 00  01 00  00 00  10 00 00 00 00 00 00 00  # MAX_WR 16
            06 00  04 00  01 00  00 00  01 00 00 00 00 00 00 00  # MAX_SGE 1
            07 00  04 00  01 00  00 00  00 00 00 00 00 00 00 00  # LIMIT 0
            0b 00  04 00  01 00  00 00  PTR(0)                   # RESP_MAX_WR
            0c 00  04 00  01 00  00 00  PTR(1)                   # RESP_MAX_SGE
            0d 00  04 00  01 00  00 00  PTR(2)                   # RESP_SRQ_NUM
            01 10  40 00  01 00  00 00  PTR(3)                   # UHW_OUT
            ",
            &ptrs,
        );
        assert_eq!(req.to_vec(), want);
    }

    #[test]
    fn write_commands_by_invoke_write_and_write() {
        // ALLOC_PD: the command is only its response pointer.
        let cmd = ib_uverbs_alloc_pd::default();
        let mut resp = [0u8; 4 + 64];
        let (c, r0, r1) = (
            cmd.as_bytes().as_ptr() as u64,
            resp.as_ptr() as u64,
            resp[4..].as_ptr() as u64,
        );
        let req = invoke_cmd(RDMA_DRIVER_RXE, &cmd, DriverIn::NONE, &mut resp);
        let want = golden(
            "
            58 00  00 00  00 00  04 00        # INVOKE_WRITE, 4 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  03 00 00 00 00 00 00 00  # WRITE_CMD ALLOC_PD
            00 00  08 00  01 00  00 00  00 00 00 00 00 00 00 00  # CORE_IN: 8 bytes, inline
            01 00  04 00  01 00  00 00  PTR(0)                   # CORE_OUT: pd_handle
            01 10  40 00  01 00  00 00  PTR(1)                   # UHW_OUT: the rest
            ",
            &[r0, r1],
        );
        assert_eq!(req.to_vec(), want);
        let _ = c;
        let mut out = [0u8; MAX_WRITE_CMD];
        let mut resp = [0u8; 4 + 64];
        let r0 = resp.as_ptr() as u64;
        let n = write_cmd(&cmd, DriverIn::NONE, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "03 00 00 00  04 00  11 00  PTR(0)  # ALLOC_PD, in 4 words, out 17",
            &[r0],
        );
        assert_eq!(&out[..n], &want[..]);

        // DEALLOC_PD: no response at all.
        let cmd = ib_uverbs_dealloc_pd { pd_handle: 2 };
        let n = write_cmd(&cmd, DriverIn::NONE, &mut [])
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "04 00 00 00  03 00  00 00  02 00 00 00  # DEALLOC_PD 2",
            &[],
        );
        assert_eq!(&out[..n], &want[..]);
        let req = invoke_cmd(RDMA_DRIVER_RXE, &cmd, DriverIn::NONE, &mut []);
        let want = golden(
            "
            38 00  00 00  00 00  02 00
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  04 00 00 00 00 00 00 00  # WRITE_CMD DEALLOC_PD
            00 00  04 00  01 00  00 00  02 00 00 00 00 00 00 00  # CORE_IN: pd_handle inline
            ",
            &[],
        );
        assert_eq!(req.to_vec(), want);

        // MODIFY_QP (112 bytes, no response) and siw's REG_MR driver input.
        let cmd = ib_uverbs_modify_qp {
            qp_handle: 1,
            attr_mask: 1,
            qp_state: 1,
            ..Default::default()
        };
        let n = write_cmd(&cmd, DriverIn::NONE, &mut [])
            .encode(&mut out)
            .unwrap();
        assert_eq!(n, 8 + 112);
        assert_eq!(&out[..8], &golden("1a 00 00 00  1e 00  00 00", &[])[..]);
        assert_eq!(&out[8..n], cmd.as_bytes());
        let key = crate::raw::driver::siw_ureq_reg_mr::default();
        assert_eq!(DriverIn::of(&key).as_bytes(), &[0u8; 8]);
    }

    #[test]
    fn driver_data_is_typed_by_driver_and_command() {
        // Issue 39, hole B: siw's REG_MR key struct attached to rxe's MODIFY_SRQ would be
        // read by rxe as the address it writes the resized queue's mminfo to. The
        // request is marked as one that no device takes (VerbsFile::write refuses it
        // before any system call; by ioctl the header names no device's driver, and the
        // kernel refuses it); made for its own command, it is marked for siw, and without
        // driver data it names the file's driver.
        let key = crate::raw::driver::siw_ureq_reg_mr {
            stag_key: 0x78,
            ..Default::default()
        };
        let srq = ib_uverbs_modify_srq {
            srq_handle: 1,
            attr_mask: 1,
            max_wr: 64,
            ..Default::default()
        };
        assert_eq!(
            write_cmd(&srq, DriverIn::of(&key), &mut []).udata_driver(),
            UDATA_MISMATCH
        );
        assert_eq!(
            invoke_cmd(RDMA_DRIVER_RXE, &srq, DriverIn::of(&key), &mut [])
                .header()
                .driver_id,
            UDATA_MISMATCH,
            "by ioctl, the header names no device's driver: the kernel refuses it"
        );
        assert_eq!(
            invoke_cmd(RDMA_DRIVER_RXE, &srq, DriverIn::NONE, &mut [])
                .header()
                .driver_id,
            RDMA_DRIVER_RXE
        );
        assert_eq!(write_cmd(&srq, DriverIn::NONE, &mut []).udata_driver(), 0);
        let (mut cqe, mut out) = (0u32, [0u8; 32]);
        let (req, _) = create_cq(
            RDMA_DRIVER_SIW,
            &16,
            &1,
            None,
            &0,
            &mut cqe,
            DriverIn::of(&key),
            &mut out,
        );
        assert_eq!(
            req.header().driver_id,
            UDATA_MISMATCH,
            "REG_MR's data on CREATE_CQ"
        );
        // (REG_MR's own builder marks it for siw: raw::mr's reg_mr_request_bytes)
        let mut ucmd = crate::raw::driver::rxe_modify_srq_cmd::default();
        let mut mi = crate::raw::driver::mminfo::default();
        assert_eq!(
            write_modify_srq_rxe(&srq, &mut ucmd, &mut mi).udata_driver(),
            RDMA_DRIVER_RXE
        );
    }

    #[test]
    fn data_path_commands() {
        // The doorbell: POST_SEND with no work request, wqe_size 56 (ib_uverbs_send_wr).
        let mut resp = ib_uverbs_post_send_resp::default();
        let r = &resp as *const ib_uverbs_post_send_resp as u64;
        let mut out = [0u8; MAX_WRITE_CMD];
        let n = write_post_send_doorbell(7, &mut resp)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            1c 00 00 00  08 00  01 00         # POST_SEND (28), in 8 words, out 1
            PTR(0)                            # response: bad_wr
            07 00 00 00  00 00 00 00          # qp_handle 7, wr_count 0
            00 00 00 00  38 00 00 00          # sge_count 0, wqe_size 56
            ",
            &[r],
        );
        assert_eq!(&out[..n], &want[..]);
        // Built once per QP: the same bytes, pointing at the doorbell's own word.
        let db = crate::raw::ring::Doorbell::new(7);
        assert_eq!(&db.bytes()[..8], &want[..8]);
        assert_eq!(&db.bytes()[16..], &want[16..]);

        // REQ_NOTIFY_CQ: no response.
        let cmd = ib_uverbs_req_notify_cq {
            cq_handle: 5,
            solicited_only: 1,
        };
        let n = write_cmd(&cmd, DriverIn::NONE, &mut [])
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "17 00 00 00  04 00  00 00  05 00 00 00  01 00 00 00  # REQ_NOTIFY_CQ (23) 5, solicited",
            &[],
        );
        assert_eq!(&out[..n], &want[..]);
        let req = invoke_cmd(RDMA_DRIVER_RXE, &cmd, DriverIn::NONE, &mut []);
        let want = golden(
            "
            38 00  00 00  00 00  02 00
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  17 00 00 00 00 00 00 00  # WRITE_CMD REQ_NOTIFY_CQ
            00 00  08 00  01 00  00 00  05 00 00 00 01 00 00 00  # CORE_IN inline
            ",
            &[],
        );
        assert_eq!(req.to_vec(), want);
    }

    #[test]
    fn rxe_modify_srq_points_at_its_own_buffer() {
        let cmd = ib_uverbs_modify_srq {
            srq_handle: 3,
            attr_mask: 2,
            max_wr: 0,
            srq_limit: 4,
        };
        let mut ucmd = crate::raw::driver::rxe_modify_srq_cmd::default();
        let mut mi = crate::raw::driver::mminfo::default();
        let mip = &mi as *const crate::raw::driver::mminfo as u64;
        let (c, u) = (
            cmd.as_bytes().as_ptr() as u64,
            &ucmd as *const crate::raw::driver::rxe_modify_srq_cmd as u64,
        );
        let req = modify_srq_rxe(RDMA_DRIVER_RXE, &cmd, &mut ucmd, &mut mi);
        let want = golden(
            "
            48 00  00 00  00 00  03 00
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  21 00 00 00 00 00 00 00  # WRITE_CMD MODIFY_SRQ (33)
            00 00  10 00  01 00  00 00  PTR(0)                   # CORE_IN, 16 bytes
            00 10  08 00  01 00  00 00  PTR(1)                   # UHW_IN: the address, inline
            ",
            &[c, mip],
        );
        // UHW_IN is 8 bytes, so it travels inline: its data IS the address of `mi`.
        assert_eq!(req.to_vec(), want);
        let _ = u;
        let mut out = [0u8; MAX_WRITE_CMD];
        let mut ucmd = crate::raw::driver::rxe_modify_srq_cmd::default();
        let mut mi = crate::raw::driver::mminfo::default();
        let mip = &mi as *const crate::raw::driver::mminfo as u64;
        let n = write_modify_srq_rxe(&cmd, &mut ucmd, &mut mi)
            .encode(&mut out)
            .unwrap();
        let want = golden(
            "
            21 00 00 00  08 00  00 00         # MODIFY_SRQ (33), in 8 words, no response
            03 00 00 00  02 00 00 00  00 00 00 00  04 00 00 00   # handle 3, LIMIT, 0, 4
            PTR(0)                            # rxe_modify_srq_cmd.mmap_info_addr
            ",
            &[mip],
        );
        assert_eq!(&out[..n], &want[..]);
    }
}
