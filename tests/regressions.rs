//! Regression tests: one per finding of the fuzz harness (tests/fuzz/), the fault tests
//! (tests/faults.rs) and the unsafe audit. Each names its finding (F1, F2, ...), the
//! input that showed it and what the right behaviour is. They run on any machine (no
//! RDMA device needed); the ones that need a device are in tests/faults.rs.
//!
//! The fuzz harness skips the invariant of a finding listed in `UVERBS_FUZZ_KNOWN`; these
//! tests never do.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use uverbs::raw::abi::ib_uverbs_gid_entry;
use uverbs::{Error, FwVersion, Gid, OpenTarget};

#[allow(dead_code)]
#[path = "../src/bin/uverbs/plumbing/getopt.rs"]
mod getopt;

mod common;

use common::panic_text;

/// F1: a GID table buffer of 2048 entries or more (65536 bytes: more than an ioctl
/// attribute's 16-bit length) made the QUERY_GID_TABLE builder panic ("attribute longer
/// than 64 KiB", src/raw/attr.rs `ptr_out`), so `Context::query_gid_table(n)` panicked for
/// n >= 2048, e.g. from `uverbs devinfo --json` on a device whose ports' `gid_tbl_len`
/// add up to 2048 or more; and `query_gid_table(usize::MAX)` overflowed the allocation.
/// (Fixed in 467ed7b: the attribute length saturates, `query_gid_table` clamps to 2047
/// entries; tests/faults.rs `gid_table_sizes_do_not_panic` checks the context.)
#[test]
fn f1_gid_table_of_2048_entries_does_not_panic() {
    for n in [2047usize, 2048, 4096, 65536] {
        let r = catch_unwind(AssertUnwindSafe(|| {
            let mut entries = vec![ib_uverbs_gid_entry::default(); n];
            let mut num = 0u64;
            let buf = uverbs::raw::method::query_gid_table(14, &mut entries, &mut num);
            buf.attrs().len()
        }));
        if let Err(p) = r {
            panic!(
                "F1: method::query_gid_table with {n} entries panicked: {}",
                panic_text(&*p)
            );
        }
    }
}

/// F1b: with the saturating attribute length, `method::query_gid_table` given 2048 or
/// more entries offers the kernel 65535 bytes, which is not a whole number of 32-byte
/// entries: the kernel refuses it (`uverbs_attr_ptr_get_array_size`: EINVAL) instead of
/// filling 2047 entries. The builder should offer whole entries only (at most 2047).
#[test]
fn f1b_gid_table_builder_offers_whole_entries() {
    for n in [1usize, 2047, 2048, 4096] {
        let mut entries = vec![ib_uverbs_gid_entry::default(); n];
        let mut num = 0u64;
        let buf = uverbs::raw::method::query_gid_table(14, &mut entries, &mut num);
        let len = usize::from(buf.attrs()[1].len);
        assert!(
            len % 32 == 0 && len / 32 == n.min(2047),
            "F1b: {n} entries offered as {len} bytes"
        );
    }
}

/// F2: `FwVersion::new` cut long text at 63 bytes but kept the white space that then
/// ended it: "rnet0\n\n\n…1" (found by the fuzzer) became "rnet0\n\n…", which prints
/// line breaks and is not a fixed point (`FwVersion::new(fw.as_str()) != fw`).
#[test]
fn f2_fw_version_cut_leaves_no_trailing_white_space() {
    let mut text = String::from("rnet0");
    text.push_str(&"\n".repeat(70));
    text.push('1');
    let fw = FwVersion::new(&text);
    assert_eq!(fw.as_str(), "rnet0", "F2");
    let fw = FwVersion::new(&format!("{}  x", "a".repeat(62)));
    assert_eq!(fw.as_str(), "a".repeat(62), "F2");
    assert_eq!(FwVersion::new(fw.as_str()), fw, "F2");
}

/// F3: the one-line usage errors of `uverbs devinfo` echo the argument as given, so an
/// argument with a control character (`-i $'1\n2'`, `$'-\n'`, an ESC sequence) printed
/// several lines, or drove the terminal. They must stay one line (escape the argument).
/// (The `ibv_devinfo` personality keeps glibc's raw messages, as rdma-core does.)
#[test]
fn f3_usage_error_messages_are_one_line() {
    let args: Vec<Vec<u8>> = vec![
        b"-\n".to_vec(),
        b"--ib-\x1b[31mport".to_vec(),
        b"--x\ny".to_vec(),
    ];
    static LONGS: [getopt::LongOpt; 1] = [getopt::opt("ib-port", true, b'i')];
    let mut g = getopt::Getopt::new(&args, "i:", &LONGS);
    let mut seen = 0;
    while let Some(r) = g.next_opt() {
        if let Err(e) = r {
            seen += 1;
            let m = e.short_message();
            assert!(!m.contains(|c: char| c.is_control()), "F3: {m:?}");
        }
    }
    assert_eq!(seen, 3);
}

/// F3, end to end: the binary's usage errors, whatever the argument holds.
#[test]
#[cfg_attr(miri, ignore = "spawns a process")]
fn f3_cli_usage_errors_are_one_line() {
    let bin = common::uverbs_bin();
    for args in [
        &["devinfo", "-i", "1\n2"][..],
        &["devinfo", "ex\ntra"],
        &["devinfo", "-\n"],
        &["devinfo", "-d", "a\nb"],
    ] {
        let out = std::process::Command::new(&bin)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(
            err.lines().count(),
            1,
            "F3: uverbs {args:?} printed {err:?}"
        );
    }
}

/// F4: `Gid::parse_sysfs` took a group with a sign ("+e80:…", found by the fuzzer as
/// "c2b1:bcfc:9717:+000:…") for a hex number (`u16::from_str_radix` accepts a leading
/// '+'), unlike `parse_guid`, which refuses it. The kernel prints exactly four hex
/// digits per group.
#[test]
fn f4_gid_parse_refuses_signs() {
    for s in [
        "+e80:0000:0000:0000:0000:0000:0000:0001",
        "c2b1:bcfc:9717:+000:0000:0000:0000:0000\n",
        "fe80:0000:0000:0000:0000:0000:0000:+001",
    ] {
        assert_eq!(Gid::parse_sysfs(s), None, "F4: {s:?}");
    }
    assert!(Gid::parse_sysfs("fe80:0000:0000:0000:0000:0000:0000:0001").is_some());
    assert!(Gid::parse_sysfs("FE80:0000:0000:0000:0000:0000:0000:0001\n").is_some());
}

fn target(path: &str, dev: Option<(u32, u32)>) -> OpenTarget {
    OpenTarget {
        name: "fake0".into(),
        path: PathBuf::from(path),
        dev,
        driver_id: None,
        driver_id_guess: None,
        fw_text: String::new(),
        port_count: None,
        sysfs_root: PathBuf::from("/sys"),
    }
}

/// Opens `t`, which is not a uverbs device: it must fail. A `Context` wrongly opened on
/// it is leaked, not dropped (F6: dropping it would close an fd it does not own).
fn open_must_fail(t: &OpenTarget) -> Error {
    match uverbs::Context::open_target(t) {
        Err(e) => e,
        Ok(ctx) => {
            let how = format!("{:?}", ctx.get_context_path());
            std::mem::forget(ctx);
            panic!(
                "F5/F6: {} (not a uverbs device) opened as a device context (GET_CONTEXT via \
                 {how}): the write() fallback took write()'s success for the kernel's answer, \
                 and the context adopted fd 0 (an unfilled async_fd) as its own",
                t.path.display()
            )
        }
    }
}

/// F5: a path that is not a uverbs character device was opened as one: the ioctls fail
/// with ENOTTY, the `write()` fallback "succeeds" (write() accepts the bytes), and the
/// crate wrote its GET_CONTEXT and QUERY_DEVICE commands into the file (48 bytes into a
/// regular file here; into a block device with the expected numbers it would overwrite
/// the start of the disk). `open_node` must refuse anything but a character device, with
/// or without an expected dev_t, and nothing may be written.
#[test]
#[cfg_attr(miri, ignore = "opens files")]
fn f5_regular_file_is_not_a_device() {
    struct RemoveOnDrop(PathBuf);
    impl Drop for RemoveOnDrop {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let dir = std::env::temp_dir().join(format!("uverbs-regress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _cleanup = RemoveOnDrop(dir.clone());
    let file = dir.join("uverbs0");
    std::fs::write(&file, b"").unwrap();
    let e = open_must_fail(&target(file.to_str().unwrap(), None));
    let written = std::fs::metadata(&file).unwrap().len();
    assert_eq!(
        written, 0,
        "F5: the crate wrote {written} bytes into a regular file"
    );
    assert!(
        matches!(
            e,
            Error::DevMismatch { .. } | Error::Protocol { .. } | Error::NotSupported { .. }
        ),
        "F5: {e:?}"
    );
}

/// F6 (unsafe audit, SAFETY.md #2): on a character device that is not uverbs
/// (`/dev/null`) the `write()` GET_CONTEXT "succeeded" without the kernel writing a
/// response; its zeroed `async_fd` (0) went to `sys::take_new_fd`, so the context took
/// ownership of stdin and closed it when dropped: the invariant of that `unsafe` block
/// ("the fd number the kernel returned from a successful call that created it") did
/// not hold. An unfilled response must be detected (a sentinel) and refused.
#[test]
#[cfg_attr(miri, ignore = "opens files")]
fn f6_dev_null_is_not_a_device_and_stdin_is_not_adopted() {
    let e = open_must_fail(&target("/dev/null", None));
    let _ = e.to_string();
    // With the numbers of /dev/null as the "expected" ones, the dev_t check passes:
    // the uverbs-node check (F7) refuses it, and behind it the response check.
    let e = open_must_fail(&target("/dev/null", Some((1, 3))));
    let _ = e.to_string();
}

/// F7 (API review): the device number a caller sets in `OpenTarget::dev` is theirs to
/// choose, so it proves nothing: with a terminal's own numbers as the expected ones,
/// the ioctls failed with ENOTTY and the `write()` fallback wrote GET_CONTEXT into
/// the terminal (into `/dev/mem` with 1:1, it would have written physical memory).
/// The kernel must list the node as a uverbs device before anything is written to
/// it; here a pseudo-terminal's other side shows that nothing was.
#[test]
#[cfg_attr(miri, ignore = "opens files")]
fn f7_expected_numbers_do_not_make_a_node_uverbs() {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master =
        openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let path = name.to_str().expect("pts path").to_owned();
    // Hold the terminal open, so that reading the other side answers EAGAIN (nothing
    // written) rather than EIO (nobody there).
    let _slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .expect("open pts");
    let st = rustix::fs::stat(path.as_str()).expect("stat pts");
    let dev = (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev));
    let e = open_must_fail(&target(&path, Some(dev)));
    rustix::fs::fcntl_setfl(&master, rustix::fs::OFlags::NONBLOCK).expect("O_NONBLOCK");
    let mut buf = [0u8; 256];
    match rustix::io::read(&master, &mut buf) {
        Err(rustix::io::Errno::AGAIN) => {}
        Ok(n) => panic!("F7: {n} bytes were written to {path}: {:02x?}", &buf[..n]),
        Err(e) => panic!("F7: reading the terminal's other side: {e}"),
    }
    let text = e.to_string();
    assert!(
        matches!(e, Error::BadArgument { .. })
            && text.contains(&path)
            && text.contains(&format!("{}:{}", dev.0, dev.1)),
        "F7: {e:?}"
    );
    // The same for /dev/null with its own numbers.
    let e = open_must_fail(&target("/dev/null", Some((1, 3))));
    assert!(matches!(e, Error::BadArgument { .. }), "F7: {e:?}");
}

/// F7 for the RDMA CM: its file is accepted only when the kernel lists it as misc
/// `rdma_cm`, whatever the path.
#[test]
#[cfg_attr(miri, ignore = "opens files")]
fn f7_cm_channel_refuses_other_devices() {
    for p in ["/dev/null", "/dev/zero"] {
        match uverbs::cm::CmChannel::open_at(std::path::Path::new(p)) {
            Err(Error::DeviceGone { errno, .. }) => {
                assert_eq!(errno, rustix::io::Errno::NODEV, "{p}")
            }
            other => panic!("F7: {p} opened as the RDMA CM: {other:?}"),
        }
    }
}
