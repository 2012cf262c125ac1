//! The system calls that hand the kernel pointers it reads and writes through, and the
//! adoption of file descriptors the kernel creates. Every function here is `unsafe`:
//! its contract says what the caller proves. The callers are [`super::file`] (the typed
//! requests of [`super::method`], proven there, and the raw entry points, which pass the
//! contract on to their callers). Every block carries a `// SAFETY:` proof and is
//! listed in `SAFETY.md`.
#![allow(unsafe_code)]

use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd};

use rustix::io::{self, Errno};
use rustix::ioctl::{ioctl, Opcode, Updater};

use crate::raw::abi::RDMA_VERBS_IOCTL;
use crate::raw::attr::IoctlBuf;

const VERBS_IOCTL: Opcode = RDMA_VERBS_IOCTL as Opcode;

/// Issues `RDMA_VERBS_IOCTL` with the header and attributes of `buf`.
///
/// # Safety
///
/// For every attribute of `buf`, what the method `(object_id, method_id)` does with that
/// attribute id must be what the attribute lends: an id the method reads through
/// (`PTR_IN`, `ENUM_IN` longer than 8 bytes) must point at `len` readable bytes, and an
/// id it writes through (`PTR_OUT`) must point at `len` bytes that nothing else reads or
/// writes during the call and that may take any bit pattern. [`IoctlBuf`] guarantees
/// the borrows (its pointer attributes come from slices borrowed for its lifetime, the
/// outputs mutably); the caller guarantees that each id has the kind it was built with,
/// and that no attribute makes the kernel retain an address past the call (a memory
/// registration, a queue buffer) unless that memory stays valid for as long.
pub(crate) unsafe fn verbs_ioctl<const N: usize>(
    fd: BorrowedFd<'_>,
    buf: &mut IoctlBuf<'_, N>,
) -> io::Result<()> {
    // SAFETY: RDMA_VERBS_IOCTL is _IOWR(0x1b, 1, struct ib_uverbs_ioctl_hdr) and its
    // argument is a pointer to that header followed by `num_attrs` ib_uverbs_attr, which
    // is the repr(C) layout of IoctlBuf (header, then the attribute array; `hdr.length`
    // and `num_attrs` count only the attributes in use). The kernel reads `length` bytes
    // from it and writes back only into that memory (flags, fd and handle numbers),
    // which `&mut buf` makes exclusively ours for the call. What the kernel does through
    // each attribute's `data` is this function's contract, which the caller proves.
    unsafe {
        let arg = Updater::<VERBS_IOCTL, IoctlBuf<'_, N>>::new(buf);
        ioctl(fd, arg)
    }
}

/// Writes one legacy `write()` command (`ib_uverbs_cmd_hdr` first) to a uverbs file.
/// `EIO` if the kernel took fewer bytes than the command has.
///
/// The system call is made here, not with `rustix::io::write`: rustix declares `write(2)`
/// as a call that reads memory and writes none (its inline assembly is `readonly`),
/// which is true of `write(2)` in general and false of a uverbs command, whose response
/// the kernel writes through the pointer inside the bytes. Under that promise an
/// optimised build may keep using the response buffer's old contents after the call
/// (seen: a release build read back the -1 it had put in CREATE_COMP_CHANNEL's `fd`).
/// This assembly makes no such promise, so the compiler assumes any memory whose
/// address has escaped (the response pointer, cast into the bytes) may have changed.
/// On architectures without it, the command fails with `ENOSYS` (the ioctl path,
/// INVOKE_WRITE, carries the same commands).
///
/// # Safety
///
/// The kernel acts on what the bytes say: the response pointer in the command (plain
/// commands: the first 8 bytes after the header; extended ones: the ex header's
/// `response`) must point at `out_words` words (4 bytes each, 8 for extended) that
/// nothing else uses during the call and that may take any bit pattern, and any other
/// address the command carries must be what that command expects, valid for as long as
/// the kernel keeps it. `fd` must be a uverbs file (on any other file the bytes land
/// wherever that file puts them).
pub(crate) unsafe fn write_command(fd: BorrowedFd<'_>, bytes: &[u8]) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: write(2) of `bytes` (valid for reads of its length) to `fd`; what the
    // kernel does with the command is this function's contract.
    let n = unsafe { raw_write(fd.as_raw_fd(), bytes.as_ptr(), bytes.len()) }?;
    if n != bytes.len() {
        return Err(Errno::IO);
    }
    Ok(())
}

/// `write(2)` as inline assembly that may read and write memory.
///
/// # Safety
///
/// `ptr` is valid for reads of `len` bytes; the caller answers for what the file does
/// with them.
#[cfg(target_arch = "x86_64")]
unsafe fn raw_write(fd: i32, ptr: *const u8, len: usize) -> io::Result<usize> {
    let ret: isize;
    // SAFETY: the x86_64 Linux system call convention: number in rax (1 = write), fd in
    // rdi, buffer in rsi, length in rdx; the kernel clobbers rcx and r11 and returns in
    // rax. No `nomem`/`readonly` option: the call may write memory (see write_command).
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") 1isize => ret,
            in("rdi") fd as isize,
            in("rsi") ptr,
            in("rdx") len,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    syscall_result(ret)
}

/// `write(2)` as inline assembly that may read and write memory.
///
/// # Safety
///
/// As the x86_64 version.
#[cfg(target_arch = "aarch64")]
unsafe fn raw_write(fd: i32, ptr: *const u8, len: usize) -> io::Result<usize> {
    let ret: isize;
    // SAFETY: the arm64 Linux convention: number in x8 (64 = write), arguments in
    // x0-x2, result in x0. No `nomem`/`readonly` option.
    unsafe {
        core::arch::asm!(
            "svc 0",
            in("x8") 64usize,
            inlateout("x0") fd as isize => ret,
            in("x1") ptr,
            in("x2") len,
            options(nostack),
        );
    }
    syscall_result(ret)
}

/// `write(2)` as inline assembly that may read and write memory.
///
/// # Safety
///
/// As the x86_64 version.
#[cfg(target_arch = "riscv64")]
unsafe fn raw_write(fd: i32, ptr: *const u8, len: usize) -> io::Result<usize> {
    let ret: isize;
    // SAFETY: the riscv64 Linux convention: number in a7 (64 = write), arguments in
    // a0-a2, result in a0. No `nomem`/`readonly` option.
    unsafe {
        core::arch::asm!(
            "ecall",
            in("a7") 64usize,
            inlateout("a0") fd as isize => ret,
            in("a1") ptr,
            in("a2") len,
            options(nostack),
        );
    }
    syscall_result(ret)
}

/// No assembly for this architecture: the `write()` commands are unavailable.
///
/// # Safety
///
/// None needed: nothing is called.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
unsafe fn raw_write(_fd: i32, _ptr: *const u8, _len: usize) -> io::Result<usize> {
    Err(Errno::NOSYS)
}

/// A raw system call's return value: `-4095..=-1` is an errno.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
))]
fn syscall_result(ret: isize) -> io::Result<usize> {
    if (-4095..0).contains(&ret) {
        Err(Errno::from_raw_os_error(-ret as i32))
    } else {
        Ok(ret as usize)
    }
}

/// Takes ownership of a file descriptor the kernel has just installed in this process
/// (the fd of ASYNC_EVENT_ALLOC, or `async_fd` of the GET_CONTEXT write command).
/// `None` for a number that cannot be an fd (negative or past `i32`).
///
/// # Safety
///
/// `raw` must be the number of a file descriptor that the kernel created for this call
/// a moment ago, which nothing else in the process owns or will close: the returned
/// `OwnedFd` closes it.
pub(crate) unsafe fn take_new_fd(raw: i64) -> Option<OwnedFd> {
    let raw = RawFd::try_from(raw).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the contract: a fresh fd the kernel installed for us, owned by nothing
    // else, so this OwnedFd is its only owner and closes it once.
    Some(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// The CPU's cycle counter (x86_64: `rdtsc`, as perftest's `get_cycles`); elsewhere the
/// monotonic clock in nanoseconds. For measuring latency in cycles, as `perftest -C`.
#[inline(always)]
pub fn cycles() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC reads the time-stamp counter into edx:eax; it takes no operand,
        // touches no memory and exists on every x86_64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        (t.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(t.tv_nsec as u64)
    }
}
