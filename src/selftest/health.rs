//! The kernel's health around a conformance case: what the kernel logged (warnings,
//! BUGs, sanitizer and lockdep reports) and whether the device's resources came back to
//! where they were (a kernel-side leak).
//!
//! The log is `/dev/kmsg`, read from where it stood when [`KernelLog::open`] was called
//! (root, or `CAP_SYSLOG` where `dmesg_restrict` is set). Each record is one `read(2)`:
//! `PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;TEXT`, then continuation lines that start with a
//! space. The resources are RDMA netlink's resource summary
//! ([`NlSocket::res_summary`]).

use std::os::fd::OwnedFd;

use rustix::fs::{Mode, OFlags, SeekFrom};
use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::netlink::NlSocket;

/// The first words of the kernel's reports of a problem, and what each is. A line of
/// the log that starts with one of them (after the record's prefix) opens a report.
///
/// The formats, as the kernel prints them (`lib/bug.c`, `kernel/panic.c`,
/// `mm/kasan/report.c`, `lib/ubsan.c`, `lib/refcount.c`, `kernel/locking/lockdep.c`,
/// `kernel/hung_task.c`, `lib/list_debug.c`, `arch/x86/mm/fault.c`,
/// `arch/x86/kernel/traps.c`); `tests` holds one recorded line of each.
pub const REPORTS: &[(&str, &str)] = &[
    (
        "WARNING:",
        "a kernel warning (WARN_ON), or lockdep or RCU's report",
    ),
    (
        "BUG:",
        "a kernel BUG: a sanitizer (KASAN, KCSAN, KFENCE), a bad access, sleeping in atomic",
    ),
    ("kernel BUG at", "BUG_ON"),
    ("UBSAN:", "undefined behaviour (UBSAN)"),
    ("refcount_t:", "a reference count overflow or underflow"),
    ("Oops:", "an oops"),
    ("general protection fault", "a general protection fault"),
    ("INFO: task", "a task blocked for too long (hung task)"),
    (
        "list_add corruption",
        "a corrupted list (CONFIG_DEBUG_LIST)",
    ),
    (
        "list_del corruption",
        "a corrupted list (CONFIG_DEBUG_LIST)",
    ),
    ("Call Trace:", "a stack trace"),
];

/// What kind of report `text` (one log line, without the record prefix) opens, if any.
pub fn report_kind(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    REPORTS
        .iter()
        .find(|(start, _)| t.starts_with(start))
        .map(|(_, what)| *what)
}

/// The text of one `/dev/kmsg` record: what follows the first `;`, continuation lines
/// dropped. `None` for a record without one.
pub fn record_text(record: &[u8]) -> Option<&str> {
    let i = record.iter().position(|&b| b == b';')?;
    let text = &record[i + 1..];
    let end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
    core::str::from_utf8(&text[..end]).ok()
}

/// The kernel log, from the moment it was opened.
#[derive(Debug)]
pub struct KernelLog {
    fd: OwnedFd,
}

impl KernelLog {
    /// Opens `/dev/kmsg` and moves to its end: [`KernelLog::reports`] sees only what
    /// the kernel logs from now on.
    ///
    /// # Errors
    ///
    /// [`Error::Os`] with the errno of `open(2)` (`EPERM` without the right to read the
    /// log, `ENOENT` without `/dev/kmsg`) or `lseek(2)`.
    pub fn open() -> Result<KernelLog> {
        let os = |errno| Error::Os {
            op: Op::new("open the kernel log", "/dev/kmsg"),
            errno,
        };
        let fd = rustix::fs::open(
            "/dev/kmsg",
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(os)?;
        rustix::fs::seek(&fd, SeekFrom::End(0)).map_err(os)?;
        Ok(KernelLog { fd })
    }

    /// The reports the kernel logged since the last call (or since [`KernelLog::open`]):
    /// every line that opens one ([`report_kind`]) and the lines of the same report
    /// after it (at most 30 per report, the stack trace's first frames).
    pub fn reports(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 8192];
        let mut in_report = 0usize;
        loop {
            match rustix::io::read(&self.fd, &mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let Some(text) = record_text(&buf[..n]) else {
                        continue;
                    };
                    if report_kind(text).is_some() && !text.trim_start().starts_with("Call Trace:")
                    {
                        in_report = 30;
                    }
                    if in_report > 0 {
                        in_report -= 1;
                        out.push(text.to_owned());
                    }
                }
                // Records overwritten before they were read: go on with the next.
                Err(Errno::PIPE) | Err(Errno::INTR) => {}
                Err(_) => break,
            }
        }
        out
    }
}

/// How many objects of each resource type a device had at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resources(pub Vec<(String, u64)>);

impl Resources {
    /// The device's resource summary now (RDMA netlink `RES_GET`).
    ///
    /// # Errors
    ///
    /// As [`NlSocket::res_summary`]; [`Error::Protocol`] for an answer without entries.
    pub fn of(sock: &mut NlSocket, dev_index: u32) -> Result<Resources> {
        let r = sock.res_summary(dev_index)?;
        if r.is_empty() {
            // The kernel always lists its resource types: an empty summary is a
            // misread answer, and would let every leak pass.
            return Err(Error::Protocol {
                op: Op::new("nldev RES_GET", ""),
                detail: "the resource summary is empty".into(),
            });
        }
        Ok(Resources(r))
    }

    /// The resource types whose count differs from `before`, as `name: before -> now`.
    pub fn changed_since(&self, before: &Resources) -> Vec<String> {
        let mut out = Vec::new();
        for (name, now) in &self.0 {
            let was = before
                .0
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0, |(_, v)| *v);
            if was != *now {
                out.push(format!("{name}: {was} -> {now}"));
            }
        }
        for (name, was) in &before.0 {
            if *was != 0 && !self.0.iter().any(|(n, _)| n == name) {
                out.push(format!("{name}: {was} -> gone"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line of each report format. Debian's kernels have no KASAN, UBSAN or
    /// lockdep, so the VM never prints these: the KASAN line is the example report of
    /// the kernel's Documentation/dev-tools/kasan.rst; the others are the kernel's
    /// format strings (the files in [`REPORTS`]' doc) filled with sample values (CPU,
    /// PID, addresses, file and line), which is all that can vary in them. The WARNING
    /// and refcount_t lines were also seen in the VM, from the planted siw modules
    /// (tests/vm/planted/siw-alloc-pd-warn.sed, siw-refcount-underflow-warn.sed).
    const RECORDED: &[&str] = &[
        "WARNING: CPU: 0 PID: 212 at drivers/infiniband/sw/rxe/rxe_verbs.c:45 rxe_query_device+0x1c/0x30 [rdma_rxe]",
        "BUG: KASAN: slab-out-of-bounds in kmalloc_oob_right+0xa8/0xbc [kasan_test]",
        "UBSAN: array-index-out-of-bounds in drivers/infiniband/sw/rxe/rxe_qp.c:101:14",
        "refcount_t: underflow; use-after-free.",
        "WARNING: possible circular locking dependency detected",
        "INFO: task kworker/u8:2:123 blocked for more than 120 seconds.",
        "list_del corruption, ffff888100a2b2c8->next is LIST_POISON1 (dead000000000100)",
        "general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] PREEMPT SMP KASAN",
        "kernel BUG at drivers/infiniband/core/uverbs_main.c:500!",
        "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "Oops: 0000 [#1] PREEMPT SMP NOPTI",
    ];

    #[test]
    fn every_recorded_report_is_recognised() {
        for line in RECORDED {
            assert!(report_kind(line).is_some(), "{line}");
        }
        for line in [
            "rdma_rxe: loaded",
            "siw: device registered",
            "rxe0: port 1 ACTIVE",
            "infiniband rxe0: set active",
        ] {
            assert_eq!(report_kind(line), None, "{line}");
        }
    }

    #[test]
    fn record_prefix_and_continuations() {
        let r = b"4,1234,56789012,-;WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1\n SUBSYSTEM=x\n";
        assert_eq!(
            record_text(r),
            Some("WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1")
        );
        assert_eq!(record_text(b"no prefix"), None);
    }

    #[test]
    fn resources_that_changed() {
        let before = Resources(vec![("pd".into(), 1), ("qp".into(), 0)]);
        let same = Resources(vec![("pd".into(), 1), ("qp".into(), 0)]);
        assert!(same.changed_since(&before).is_empty());
        let leak = Resources(vec![("pd".into(), 2), ("qp".into(), 0), ("mr".into(), 1)]);
        assert_eq!(leak.changed_since(&before), ["pd: 1 -> 2", "mr: 0 -> 1"]);
    }
}
