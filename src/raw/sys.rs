//! The system calls that cross into memory the kernel writes through pointers: the only
//! `unsafe` code of the crate. Every block carries a `// SAFETY:` proof and is listed in
//! `SAFETY.md`. Plain reads, writes, opens and sockets use rustix's safe API elsewhere.
#![allow(unsafe_code)]

use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd};

use rustix::io::{self, Errno};
use rustix::ioctl::{ioctl, Opcode, Updater};

use crate::raw::abi::{
    ib_uverbs_cmd_hdr, ib_uverbs_ex_cmd_hdr, IB_USER_VERBS_CMD_FLAG_EXTENDED, RDMA_VERBS_IOCTL,
};
use crate::raw::attr::IoctlBuf;

const VERBS_IOCTL: Opcode = RDMA_VERBS_IOCTL as Opcode;

/// Issues `RDMA_VERBS_IOCTL` with the header and attributes of `buf`.
pub(crate) fn verbs_ioctl<const N: usize>(
    fd: BorrowedFd<'_>,
    buf: &mut IoctlBuf<'_, N>,
) -> io::Result<()> {
    // SAFETY: RDMA_VERBS_IOCTL is _IOWR(0x1b, 1, struct ib_uverbs_ioctl_hdr) and its
    // argument is a pointer to that header followed by `num_attrs` ib_uverbs_attr, which
    // is the repr(C) layout of IoctlBuf (header, then the attribute array; `hdr.length`
    // and `num_attrs` count only the attributes in use). The kernel reads `length` bytes
    // from it and writes back only into that memory (flags, fd numbers), which
    // `&mut buf` makes exclusively ours for the call. Every attribute that carries a
    // pointer was built by IoctlBuf::ptr_in/ptr_out from a slice borrowed for the
    // buffer's lifetime `'a` with exactly `len` bytes (mutable for outputs), so every
    // address the kernel dereferences is valid and unaliased for the whole call.
    unsafe {
        let arg = Updater::<VERBS_IOCTL, IoctlBuf<'_, N>>::new(buf);
        ioctl(fd, arg)
    }
}

/// Largest `write()` command this crate builds: header, ex header, command struct and
/// driver data.
const MAX_WRITE_CMD: usize = 256;

/// Issues a legacy (non-extended) `write()` command: `ib_uverbs_cmd_hdr`, then the
/// command struct whose first field is the `response` pointer (filled here with `resp`),
/// then `rest` (the remainder of the command struct and its driver data).
///
/// No `unsafe` keyword is needed, but the kernel writes through the `response` pointer:
/// it is built here, from `resp`, which is exclusively borrowed for the call and
/// `resp.len()` bytes long, and `out_words` tells the kernel that length.
pub(crate) fn write_cmd(
    fd: BorrowedFd<'_>,
    command: u32,
    rest: &[u8],
    resp: &mut [u8],
) -> io::Result<()> {
    let hdr_len = core::mem::size_of::<ib_uverbs_cmd_hdr>();
    let len = hdr_len + 8 + rest.len();
    if len > MAX_WRITE_CMD
        || len % 4 != 0
        || resp.len() % 4 != 0
        || resp.len() / 4 > usize::from(u16::MAX)
    {
        return Err(Errno::INVAL);
    }
    let hdr = ib_uverbs_cmd_hdr {
        command,
        in_words: (len / 4) as u16,
        out_words: (resp.len() / 4) as u16,
    };
    let mut buf = [0u8; MAX_WRITE_CMD];
    buf[..hdr_len].copy_from_slice(zerocopy::IntoBytes::as_bytes(&hdr));
    buf[hdr_len..hdr_len + 8].copy_from_slice(&(resp.as_mut_ptr() as u64).to_ne_bytes());
    buf[hdr_len + 8..len].copy_from_slice(rest);
    let n = io::write(fd, &buf[..len])?;
    if n != len {
        return Err(Errno::IO);
    }
    Ok(())
}

/// Issues an extended `write()` command (`IB_USER_VERBS_CMD_FLAG_EXTENDED`):
/// `ib_uverbs_cmd_hdr`, `ib_uverbs_ex_cmd_hdr` whose `response` points at `resp`, then
/// `cmd`. No driver data. Same pointer discipline as [`write_cmd`].
pub(crate) fn write_ex_cmd(
    fd: BorrowedFd<'_>,
    command: u32,
    cmd: &[u8],
    resp: &mut [u8],
) -> io::Result<()> {
    let hdr_len = core::mem::size_of::<ib_uverbs_cmd_hdr>();
    let ex_len = core::mem::size_of::<ib_uverbs_ex_cmd_hdr>();
    let len = hdr_len + ex_len + cmd.len();
    if len > MAX_WRITE_CMD
        || cmd.len() % 8 != 0
        || resp.len() % 8 != 0
        || resp.len() / 8 > usize::from(u16::MAX)
    {
        return Err(Errno::INVAL);
    }
    let hdr = ib_uverbs_cmd_hdr {
        command: command | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        in_words: (cmd.len() / 8) as u16,
        out_words: (resp.len() / 8) as u16,
    };
    let ex = ib_uverbs_ex_cmd_hdr {
        response: resp.as_mut_ptr() as u64,
        provider_in_words: 0,
        provider_out_words: 0,
        cmd_hdr_reserved: 0,
    };
    let mut buf = [0u8; MAX_WRITE_CMD];
    buf[..hdr_len].copy_from_slice(zerocopy::IntoBytes::as_bytes(&hdr));
    buf[hdr_len..hdr_len + ex_len].copy_from_slice(zerocopy::IntoBytes::as_bytes(&ex));
    buf[hdr_len + ex_len..len].copy_from_slice(cmd);
    let n = io::write(fd, &buf[..len])?;
    if n != len {
        return Err(Errno::IO);
    }
    Ok(())
}

/// Takes ownership of a file descriptor the kernel has just installed in this process
/// for us (the fd of ASYNC_EVENT_ALLOC, or `async_fd` of the GET_CONTEXT write command).
///
/// Returns `None` for a negative number.
pub(crate) fn take_new_fd(raw: i64) -> Option<OwnedFd> {
    let raw = RawFd::try_from(raw).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: only called with the fd number the kernel returned from a successful call
    // that created that file descriptor for this process a moment ago; nothing else in
    // the process knows the number, so this OwnedFd is its only owner and closes it once.
    Some(unsafe { OwnedFd::from_raw_fd(raw) })
}
