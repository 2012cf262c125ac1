//! Sysfs attributes read the way the C tools read them (infiniband-diags' `ibstat` and
//! `ibstatus` through libibumad, rdma-core's `ibv_read_sysfs_file()`): one `open(2)` and
//! one `read(2)` per attribute, with the errno of whichever failed kept, since the tools
//! print what a failed open or read gave them. Directory listings come sorted bytewise
//! without dot-names, as a shell's `*` gives them in the C locale.
//!
//! The command's drop-in tools format what these return; they read nothing themselves.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::io::Errno;

use super::SysDir;

/// The text of one sysfs attribute as a reader finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    /// The file could not be opened (`ENOENT` when it does not exist).
    NoFile(Errno),
    /// The file opened but reading failed (the kernel's show function failed).
    ReadError(Errno),
    /// The bytes one `read(2)` returned.
    Text(Vec<u8>),
}

impl Attr {
    /// The text, when there is one.
    pub fn text(&self) -> Option<&[u8]> {
        match self {
            Attr::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The errno of a failed open or read.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            Attr::NoFile(e) | Attr::ReadError(e) => Some(*e),
            Attr::Text(_) => None,
        }
    }
}

/// Reads an open attribute with one `read(2)`, as the C tools do (a sysfs attribute is
/// never longer than a page, and one read returns all of it).
fn read_fd(fd: &std::os::fd::OwnedFd) -> Attr {
    let mut buf = [0u8; 4096];
    loop {
        match rustix::io::read(fd, &mut buf) {
            Ok(n) => return Attr::Text(buf[..n].to_vec()),
            Err(Errno::INTR) => {}
            Err(e) => return Attr::ReadError(e),
        }
    }
}

/// Reads the sysfs attribute at `path` (absolute) with one `open(2)` and one `read(2)`.
pub fn read_attr(path: &[u8]) -> Attr {
    use rustix::fs::{Mode, OFlags};
    match rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => read_fd(&fd),
        Err(e) => Attr::NoFile(e),
    }
}

/// Reads the attribute `rel` under the open directory `dir` with one `openat(2)` and one
/// `read(2)`.
pub fn read_attr_in(dir: &SysDir, rel: &[u8]) -> Attr {
    match dir.open_file(rel) {
        Ok(fd) => read_fd(&fd),
        Err(e) => Attr::NoFile(e),
    }
}

/// A device's `board_id` exactly as `ibv_read_sysfs_file()` gives it to `ibv_devinfo`:
/// at most 256 bytes, one trailing newline dropped, `None` when nothing is left (or the
/// file is missing, unreadable or fills the buffer without a newline), cut at a NUL.
pub fn board_id(sysfs_root: &Path, name: &str) -> Option<Vec<u8>> {
    let mut buf = [core::mem::MaybeUninit::<u8>::uninit(); 256];
    // One read(), as in C; sysfs returns the whole attribute at once.
    let buf = super::read_file(
        &sysfs_root
            .join("class/infiniband")
            .join(name)
            .join("board_id"),
        &mut buf,
    )
    .ok()?;
    let mut len = buf.len();
    if len == 0 {
        return None;
    }
    if buf[len - 1] == b'\n' {
        len -= 1;
    } else if len == 256 {
        return None;
    }
    if len == 0 {
        return None;
    }
    let s = &buf[..len];
    let end = s.iter().position(|&b| b == 0).unwrap_or(len);
    Some(s[..end].to_vec())
}

/// The names in a directory, sorted bytewise, without `.`-names (a shell's `*`).
pub fn read_names(dir: &[u8]) -> Result<Vec<Vec<u8>>, Errno> {
    let d = SysDir::open(Path::new(std::ffi::OsStr::from_bytes(dir)))?;
    names_of(&d)
}

/// The names in an open directory, sorted bytewise, without `.`-names (a shell's `*`).
pub fn names_of(dir: &SysDir) -> Result<Vec<Vec<u8>>, Errno> {
    // Room for the names of a few dozen devices or ports at once: growing by doubling
    // would free each smaller buffer on the way.
    let mut v = Vec::with_capacity(64);
    dir.for_each_raw_name(|n| v.push(n.to_vec()))?;
    sort_names(&mut v);
    Ok(v)
}

/// Sorts names bytewise (the C locale's order), by [`sort_small`].
pub fn sort_names(v: &mut [Vec<u8>]) {
    sort_small(v, |a, b| a > b);
}

/// Sorts by insertion (stable): `after(a, b)` says `a` goes after `b`. The lists the
/// crate sorts (devices, ports, directory entries, GID indexes) are short, and this is
/// a few instructions where each of the standard library's sorts is kilobytes of code
/// per element type (about 9 KiB in a program that only discovers and opens a device),
/// which an emulator translates anew in every process. Quadratic: not for long lists.
pub fn sort_small<T>(v: &mut [T], mut after: impl FnMut(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && after(&v[j - 1], &v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's stable sort: the same order, equal keys kept in
    /// their order, on every arrangement of a few keys with repeats (and the edge cases).
    #[test]
    fn sort_small_is_the_stable_sort() {
        let keys = [3u8, 1, 2, 1, 0, 3];
        // every rotation and its reverse, each element tagged with where it started
        for r in 0..keys.len() {
            for rev in [false, true] {
                let mut v: Vec<(u8, usize)> = keys
                    .iter()
                    .cycle()
                    .skip(r)
                    .take(keys.len())
                    .copied()
                    .enumerate()
                    .map(|(i, k)| (k, i))
                    .collect();
                if rev {
                    v.reverse();
                }
                let mut want = v.clone();
                want.sort_by_key(|e| e.0);
                sort_small(&mut v, |a, b| a.0 > b.0);
                assert_eq!(v, want);
            }
        }
        let mut none: [u8; 0] = [];
        sort_small(&mut none, |a, b| a > b);
        let mut one = [7u8];
        sort_small(&mut one, |a, b| a > b);
        assert_eq!(one, [7]);
        let mut names = vec![
            b"siw0".to_vec(),
            b"rxe1".to_vec(),
            b"rxe0".to_vec(),
            b"mlx5_0".to_vec(),
        ];
        sort_names(&mut names);
        assert_eq!(names, [&b"mlx5_0"[..], b"rxe0", b"rxe1", b"siw0"]);
    }
}
