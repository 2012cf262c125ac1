//! Which kernel device a character node is, as the kernel itself says.
//!
//! A command written to a file is read by whatever driver owns the file: on a uverbs
//! node it is a verbs command, on `/dev/mem` it is bytes stored in physical memory.
//! So before any command goes out, the node's device number must be one the kernel
//! lists under the right name. The answer comes from the kernel's own tables
//! (`/sys/dev/char`, else `/proc/devices` and `/proc/misc`), never from a path or a
//! sysfs root a caller chose.

use std::path::Path;

/// The fixed major of the first uverbs devices.
const UVERBS_MAJOR: u32 = 231;
/// The fixed minors of uverbs devices on that major (the minors below are `umad` and
/// `issm`); devices past these 32 get a dynamic major of their own.
const UVERBS_FIXED_MINORS: std::ops::Range<u32> = 192..224;
/// The major of misc devices, such as `rdma_cm`.
const MISC_MAJOR: u32 = 10;

/// Whether character device `major:minor` is a uverbs device (class `infiniband_verbs`).
pub fn is_uverbs(major: u32, minor: u32) -> bool {
    if major == UVERBS_MAJOR {
        // The major is shared with umad and issm, whose minors are below these.
        return UVERBS_FIXED_MINORS.contains(&minor);
    }
    match sys_dev_char(major, minor) {
        Some(target) => parent_is(&target, "infiniband_verbs"),
        None => read_proc("/proc/devices").is_some_and(|t| proc_lists_major(&t, major)),
    }
}

/// Whether character device `major:minor` is the RDMA CM's misc device (`rdma_cm`).
pub fn is_rdma_cm(major: u32, minor: u32) -> bool {
    if major != MISC_MAJOR {
        return false;
    }
    match sys_dev_char(major, minor) {
        Some(target) => {
            parent_is(&target, "misc") && target.file_name() == Some("rdma_cm".as_ref())
        }
        None => read_proc("/proc/misc").is_some_and(|t| proc_lists_misc(&t, minor)),
    }
}

/// Where `/sys/dev/char/MAJ:MIN` leads: `Some(target)` when sysfs answers (an empty
/// path when sysfs is there but has no such device), `None` when there is no sysfs.
fn sys_dev_char(major: u32, minor: u32) -> Option<std::path::PathBuf> {
    match std::fs::read_link(format!("/sys/dev/char/{major}:{minor}")) {
        Ok(t) => Some(t),
        Err(_) if Path::new("/sys/dev/char").is_dir() => Some(std::path::PathBuf::new()),
        Err(_) => None,
    }
}

fn parent_is(target: &Path, class: &str) -> bool {
    target
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == class)
}

fn read_proc(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Whether `/proc/devices` text lists `major` as `infiniband_verbs` among the
/// character devices.
fn proc_lists_major(text: &str, major: u32) -> bool {
    text.lines()
        .skip_while(|l| l.trim() != "Character devices:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .any(|l| {
            let mut w = l.split_whitespace();
            w.next().and_then(|m| m.parse::<u32>().ok()) == Some(major)
                && w.next() == Some("infiniband_verbs")
                && w.next().is_none()
        })
}

/// Whether `/proc/misc` text lists `minor` as `rdma_cm`.
fn proc_lists_misc(text: &str, minor: u32) -> bool {
    text.lines().any(|l| {
        let mut w = l.split_whitespace();
        w.next().and_then(|m| m.parse::<u32>().ok()) == Some(minor)
            && w.next() == Some("rdma_cm")
            && w.next().is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The layout of /proc/devices ("%3d %s", a section per kind, a blank line between)
    // and /proc/misc ("%3i %s"); the real files are read in the VM by every open.
    const DEVICES: &str = "Character devices:\n  1 mem\n  4 /dev/vc/0\n 10 misc\n231 infiniband_verbs\n231 infiniband_mad\n241 infiniband_verbs\n\nBlock devices:\n242 infiniband_verbs\n";
    const MISC: &str = " 58 rdma_cm\n183 hw_random\n 59 cpu_dma_latency\n";

    #[test]
    fn proc_devices() {
        assert!(proc_lists_major(DEVICES, 241));
        assert!(proc_lists_major(DEVICES, 231));
        assert!(!proc_lists_major(DEVICES, 1));
        assert!(!proc_lists_major(DEVICES, 10));
        // Block devices are not character devices.
        assert!(!proc_lists_major(DEVICES, 242));
        assert!(!proc_lists_major("", 241));
    }

    #[test]
    fn proc_misc() {
        assert!(proc_lists_misc(MISC, 58));
        assert!(!proc_lists_misc(MISC, 59));
        assert!(!proc_lists_misc(MISC, 183));
    }

    #[test]
    fn fixed_uverbs_minors() {
        assert!(is_uverbs(231, 192));
        assert!(is_uverbs(231, 223));
        // umad0, issm0, and one past the fixed minors.
        assert!(!is_uverbs(231, 0));
        assert!(!is_uverbs(231, 64));
        assert!(!is_uverbs(231, 224));
        // Not misc.
        assert!(!is_rdma_cm(1, 3));
    }

    #[test]
    fn sysfs_targets() {
        assert!(parent_is(
            Path::new("../../devices/virtual/infiniband_verbs/uverbs0"),
            "infiniband_verbs"
        ));
        assert!(parent_is(
            Path::new("../../devices/pci0000:00/0000:00:03.0/infiniband_verbs/uverbs1"),
            "infiniband_verbs"
        ));
        assert!(!parent_is(
            Path::new("../../devices/virtual/mem/null"),
            "infiniband_verbs"
        ));
        assert!(!parent_is(Path::new(""), "infiniband_verbs"));
    }
}
