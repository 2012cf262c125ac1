//! [`SysDir`]: the one way this crate reads sysfs.
//!
//! A directory is opened once; every file under it is then opened relative to its
//! descriptor (`openat(2)`), read with one `read(2)` into a buffer on the stack, and
//! closed: three system calls per attribute (one when kept open: below), no path
//! string built per file, no heap buffer. (Through `std::fs::read` on musl the same attribute costs six: `open`,
//! `fcntl(F_SETFD)` as musl's `O_CLOEXEC` fallback, `fstat` for a size hint, two
//! `read`s and `close`.) A sysfs attribute's `show` function fills at most a page, and
//! the kernel hands the whole of it to the first `read`, as rdma-core's
//! `ibv_read_sysfs_file()` relies on too.
//!
//! Directories are listed with `getdents64` into a stack buffer (no allocation per
//! entry), and a directory that fits in that buffer costs one call, not the two of a
//! `readdir` loop: see [`SysDir::for_each_raw_name`].
//!
//! A process that reads the same attributes again and again (the exporter, once per
//! scrape) can keep them open: a directory made with [`SysDir::keep_files`], and every
//! directory opened under it, reads each attribute through [`KeptFiles`], which opens it
//! the first time and then reads it again with one `pread(2)` at offset 0: one system
//! call per attribute instead of three. A sysfs attribute read at offset 0 is shown
//! afresh (`seq_read_iter` restarts at position 0 and calls the attribute's `show`), and
//! an open attribute does not hold its device: removing a kernfs node waits only for the
//! reads in progress, and later reads of the open file fail with `ENODEV`, upon which
//! the file is opened again by name (the device came back) or found absent. Tables
//! read whole (GIDs, P_Keys: up to a thousand files a port) are not kept
//! ([`SysDir::unkept`]).

use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rustix::fs::{openat, Mode, OFlags, RawDir, CWD};
use rustix::io::Errno;

/// The largest attribute read: one page, the most a sysfs `show` function writes.
pub const ATTR_MAX: usize = 4096;

/// An open sysfs directory (or any directory laid out like one: the fixture trees of
/// the tests are plain files).
#[derive(Debug)]
pub struct SysDir {
    fd: OwnedFd,
    /// Where this directory's attributes are kept open, and its path there.
    kept: Option<KeptAt>,
}

/// A kept directory's store, the collection it reads for, and the directory's identity.
#[derive(Debug)]
struct KeptAt {
    files: Arc<KeptFiles>,
    /// The collection ([`KeptFiles::begin`]).
    round: u64,
    /// `dev:ino:mtime` of the directory: what its files are kept under.
    dir: String,
}

/// Attribute files kept open from one collection to the next: the first read opens a
/// file, the next ones read it again with `pread(2)` at offset 0.
///
/// A file is kept under its name and its directory's identity: device, inode number and
/// modification time, taken with one `fstat` when the directory is opened. So a device
/// renamed (its kernfs directory moves, its files stay valid) keeps its files under its
/// new name and never lends them to another device that takes the old name; a device
/// removed and added again has new directories; and a directory whose entries changed
/// (a file created, removed or renamed over: what a plain file tree used as a sysfs root
/// may see) has a new modification time, so its files are opened again. A file changed
/// in place is read afresh, as sysfs shows an attribute afresh at offset 0. A kept file
/// whose node was removed answers `ENODEV`: it is closed and the file opened again by
/// name (gone: absent); another error closes it and is the answer.
///
/// [`KeptFiles::sweep`] closes the files that no collection since the swept one read
/// (a device gone, an attribute no longer asked for). At most `cap` files are kept, the
/// others are opened per read as without a store. Each kept sysfs file holds about a
/// page of kernel memory (its `seq_file` buffer, allocated at the first read and freed
/// at the close): choose `cap` with that in mind. Reads of different files run in
/// parallel (the lock is not held across the read).
#[derive(Debug)]
pub struct KeptFiles {
    inner: Mutex<Kept>,
}

#[derive(Debug)]
struct Kept {
    /// Key -> (the open file, the last collection that read it).
    files: HashMap<String, (Arc<OwnedFd>, u64)>,
    /// The key being looked up (reused: no allocation per read once kept).
    key: String,
    /// The last collection begun.
    round: u64,
    cap: usize,
}

impl KeptFiles {
    /// A store that keeps at most `cap` files open.
    pub fn new(cap: usize) -> Arc<KeptFiles> {
        Arc::new(KeptFiles {
            inner: Mutex::new(Kept {
                files: HashMap::new(),
                key: String::new(),
                round: 0,
                cap,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Each change is one insert or remove: a panic cannot leave it half done.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many files are open.
    pub fn len(&self) -> usize {
        self.lock().files.len()
    }

    /// Whether no file is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Begins a collection: its number, for [`KeptFiles::sweep`].
    fn begin(&self) -> u64 {
        let mut g = self.lock();
        g.round += 1;
        g.round
    }

    /// Closes the files that no collection since `round` read (collections that
    /// overlap keep each other's files).
    pub fn sweep(&self, round: u64) {
        self.lock().files.retain(|_, (_, read)| *read >= round);
    }

    /// Reads file `name` of directory `dir` into `buf` through its kept file, or
    /// `open`s it (and keeps it).
    fn read(
        &self,
        at: &KeptAt,
        name: &str,
        buf: &mut [u8],
        open: impl FnOnce() -> Result<OwnedFd, Errno>,
    ) -> Result<usize, Errno> {
        let kept = {
            let mut g = self.lock();
            g.set_key(at, name);
            let Kept { files, key, .. } = &mut *g;
            files.get_mut(key.as_str()).map(|(fd, read)| {
                *read = (*read).max(at.round);
                fd.clone()
            })
        };
        if let Some(fd) = kept {
            match rustix::io::pread(&*fd, &mut *buf, 0) {
                Ok(n) => return Ok(n),
                Err(e) => {
                    self.forget(at, name, &fd);
                    // Removed (a device gone, or gone and back): judged by a fresh
                    // open. Another error is the answer.
                    if e != Errno::NODEV {
                        return Err(e);
                    }
                }
            }
        }
        let fd = open()?;
        let n = rustix::io::read(&fd, buf)?;
        let mut g = self.lock();
        if g.files.len() < g.cap {
            g.set_key(at, name);
            let key = g.key.clone();
            g.files.insert(key, (Arc::new(fd), at.round));
        }
        Ok(n)
    }

    /// Closes the kept file `name` of `at` if it is still `fd`.
    fn forget(&self, at: &KeptAt, name: &str, fd: &Arc<OwnedFd>) {
        let mut g = self.lock();
        g.set_key(at, name);
        let Kept { files, key, .. } = &mut *g;
        if files
            .get(key.as_str())
            .is_some_and(|(f, _)| Arc::ptr_eq(f, fd))
        {
            files.remove(key.as_str());
        }
    }
}

impl Kept {
    /// The key of file `name` of `at`'s directory, into the reused `key`.
    fn set_key(&mut self, at: &KeptAt, name: &str) {
        self.key.clear();
        self.key.push_str(&at.dir);
        self.key.push('/');
        self.key.push_str(name);
    }
}

/// The identity of an open directory for [`KeptFiles`]: `dev:ino:mtime`.
fn dir_identity(fd: BorrowedFd<'_>) -> Option<String> {
    let st = rustix::fs::fstat(fd).ok()?;
    Some(format!(
        "{}:{}:{}.{}",
        st.st_dev, st.st_ino, st.st_mtime, st.st_mtime_nsec
    ))
}

/// Whether an errno from opening or reading an attribute means "this attribute is not
/// there" rather than a failure: the file or a directory on the way is missing, or the
/// attribute exists but its driver cannot show it (`EOPNOTSUPP`, `ENODATA`, `EINVAL`,
/// `ENODEV` from the `show` function).
pub fn is_absent(e: Errno) -> bool {
    matches!(
        e,
        Errno::NOENT
            | Errno::NOTDIR
            | Errno::OPNOTSUPP
            | Errno::NODATA
            | Errno::INVAL
            | Errno::NODEV
    )
}

/// A decimal number as a file name, on the stack (`gids/17`, `pkeys/0`).
#[derive(Debug, Clone, Copy)]
pub struct NumName {
    buf: [u8; 10],
    start: u8,
}

impl NumName {
    /// The decimal digits of `n`.
    pub fn new(mut n: u32) -> Self {
        let mut buf = [0u8; 10];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        NumName {
            buf,
            start: i as u8,
        }
    }

    /// The digits, as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[usize::from(self.start)..]
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        // Only ASCII digits were written.
        core::str::from_utf8(&self.buf[usize::from(self.start)..]).unwrap_or("0")
    }
}

/// Drops the trailing newlines and NULs a `show` function ends its text with.
fn trim_end(b: &[u8]) -> &[u8] {
    let mut n = b.len();
    while n > 0 && matches!(b[n - 1], b'\n' | b'\0') {
        n -= 1;
    }
    &b[..n]
}

/// Reads the file at `path` with one `read(2)` into `buf` (for a single file, where
/// opening its directory first would cost more than it saves).
///
/// # Errors
///
/// The errno of `open(2)` or `read(2)` (see [`is_absent`]).
pub fn read_file<'b>(path: &Path, buf: &'b mut [MaybeUninit<u8>]) -> Result<&'b mut [u8], Errno> {
    let fd = openat(CWD, path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    let (got, _) = rustix::io::read(&fd, buf)?;
    Ok(got)
}

impl SysDir {
    /// Opens the directory at `path` (a sysfs root, or a directory under it).
    ///
    /// # Errors
    ///
    /// The errno of `open(2)` (`ENOENT` when it does not exist, `ENOTDIR` when it is not
    /// a directory).
    pub fn open(path: &Path) -> Result<SysDir, Errno> {
        Self::open_in(CWD, path)
    }

    fn open_in<P: rustix::path::Arg>(dir: BorrowedFd<'_>, path: P) -> Result<SysDir, Errno> {
        let fd = openat(
            dir,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(SysDir { fd, kept: None })
    }

    /// This directory, with its attributes and those of every directory opened under it
    /// kept open in `files` (see [`KeptFiles`]), for one collection: the directories
    /// opened from it, and their files, belong to it. [`SysDir::kept_round`] gives the
    /// number to sweep with once it is done.
    pub fn keep_files(self, files: &Arc<KeptFiles>) -> SysDir {
        let kept = dir_identity(self.fd.as_fd()).map(|dir| KeptAt {
            files: files.clone(),
            round: files.begin(),
            dir,
        });
        SysDir { fd: self.fd, kept }
    }

    /// The collection this directory reads for, when it keeps its files
    /// ([`KeptFiles::sweep`] with it once the collection is done).
    pub fn kept_round(&self) -> Option<u64> {
        self.kept.as_ref().map(|k| k.round)
    }

    /// This directory without its store of kept files: its files and those of the
    /// directories opened under it are opened per read. For tables read whole (a port's
    /// GIDs, up to a thousand files; its P_Keys, up to 128), where keeping each file open
    /// would hold a page of kernel memory per entry (the `seq_file` buffer a sysfs file
    /// keeps until it is closed) and crowd out the attributes worth keeping.
    pub fn unkept(self) -> SysDir {
        SysDir {
            fd: self.fd,
            kept: None,
        }
    }

    /// Opens the directory `rel` under this one (`rel` may have several components,
    /// `ports/1`, and need not be UTF-8).
    ///
    /// # Errors
    ///
    /// The errno of `openat(2)`.
    pub fn dir<P: rustix::path::Arg>(&self, rel: P) -> Result<SysDir, Errno> {
        let mut d = Self::open_in(self.fd.as_fd(), rel)?;
        // A kept directory's child keeps its files too, under its own identity.
        if let Some(k) = &self.kept {
            d.kept = dir_identity(d.fd.as_fd()).map(|dir| KeptAt {
                files: k.files.clone(),
                round: k.round,
                dir,
            });
        }
        Ok(d)
    }

    /// Opens file `rel` under this directory for reading (`openat(2)`): `rel` may have
    /// several components (`rxe0/ports/1/rate`) and need not be UTF-8. For a caller that
    /// tells a failed open from a failed read; [`SysDir::read`] does both.
    ///
    /// # Errors
    ///
    /// The errno of `openat(2)`.
    pub fn open_file<P: rustix::path::Arg>(&self, rel: P) -> Result<OwnedFd, Errno> {
        openat(
            self.fd.as_fd(),
            rel,
            OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
    }

    /// Reads file `name` into `buf` with one `read(2)` (through its kept file when this
    /// directory keeps its files: one `pread(2)`) and returns how many bytes it read.
    ///
    /// # Errors
    ///
    /// The errno of `openat(2)` or `read(2)` (see [`is_absent`]).
    pub fn read(&self, name: &str, buf: &mut [u8]) -> Result<usize, Errno> {
        match &self.kept {
            Some(k) => k.files.read(k, name, buf, || self.open_file(name)),
            None => rustix::io::read(self.open_file(name)?, buf),
        }
    }

    /// Reads attribute `name` and hands its bytes, without the trailing newlines and
    /// NULs, to `f`: `Ok(None)` when the attribute is absent ([`is_absent`]).
    ///
    /// # Errors
    ///
    /// Any other errno of `openat(2)` or `read(2)` (`EACCES`, `EIO`, ...).
    pub fn with_bytes<T>(
        &self,
        name: &str,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<Option<T>, Errno> {
        // Initialised (a page of zeroes costs little next to the system call), so that
        // a read through a kept file, which may be retried, returns a length.
        let mut buf = [0u8; ATTR_MAX];
        match self.read(name, &mut buf) {
            Ok(n) => Ok(Some(f(trim_end(&buf[..n])))),
            Err(e) if is_absent(e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// [`SysDir::with_bytes`] as text: bytes that are not UTF-8 are replaced (sysfs text
    /// is ASCII).
    ///
    /// # Errors
    ///
    /// As [`SysDir::with_bytes`].
    pub fn with_attr<T>(&self, name: &str, f: impl FnOnce(&str) -> T) -> Result<Option<T>, Errno> {
        self.with_bytes(name, |b| match core::str::from_utf8(b) {
            Ok(s) => f(s),
            Err(_) => f(&String::from_utf8_lossy(b)),
        })
    }

    /// Attribute `name` as a string, without its trailing newline; `Ok(None)` when absent.
    ///
    /// # Errors
    ///
    /// As [`SysDir::with_attr`].
    pub fn attr(&self, name: &str) -> Result<Option<String>, Errno> {
        self.with_attr(name, str::to_owned)
    }

    /// Attribute `name`, trimmed of surrounding white space, when it can be read at all
    /// and is UTF-8 (any failure is `None`).
    pub fn attr_trim(&self, name: &str) -> Option<String> {
        self.parse(name, |s| Some(s.to_owned()))
    }

    /// Attribute `name` parsed by `parse` from its trimmed text; `None` when it cannot be
    /// read, is not UTF-8, or does not parse.
    pub fn parse<T>(&self, name: &str, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        self.with_bytes(name, |b| parse(core::str::from_utf8(b).ok()?.trim()))
            .ok()
            .flatten()
            .flatten()
    }

    /// The last component of the target of symbolic link `name` (`device/driver` →
    /// `mlx5_core`); `None` when it is not a readable link.
    pub fn link_name(&self, name: &str) -> Option<String> {
        let mut buf = [MaybeUninit::<u8>::uninit(); 512];
        let (target, _) = rustix::fs::readlinkat_raw(self.fd.as_fd(), name, &mut buf).ok()?;
        let target = &*target;
        let base = match target.iter().rposition(|&c| c == b'/') {
            Some(p) => &target[p + 1..],
            None => target,
        };
        (!base.is_empty()).then(|| String::from_utf8_lossy(base).into_owned())
    }

    /// Calls `f` with the name of every entry but `.`, `..` and other dot files, in the
    /// kernel's order; names that are not UTF-8 are left out
    /// ([`SysDir::for_each_raw_name`] has them all). Lists from the descriptor's current
    /// position: list a `SysDir` once.
    ///
    /// # Errors
    ///
    /// The errno of `getdents64(2)`.
    pub fn for_each_name(&self, mut f: impl FnMut(&str)) -> Result<(), Errno> {
        self.for_each_raw_name(|name| {
            if let Ok(n) = core::str::from_utf8(name) {
                f(n);
            }
        })
    }

    /// Calls `f` with the name of every entry but `.`, `..` and other dot files, as
    /// bytes, in the kernel's order. Lists from the descriptor's current position: list a
    /// `SysDir` once.
    ///
    /// One `getdents64` call is enough when the answer leaves room in the buffer for
    /// the longest possible entry: the kernel stops filling the buffer only at the end of
    /// the directory or when the next entry does not fit (`filldir64`; kernfs, which is
    /// sysfs, and the tmpfs of `/dev` emit every entry in one pass), so room left means
    /// nothing is left. A `readdir` loop would make a second call to be told so. A
    /// directory larger than the buffer is listed call by call to its end.
    ///
    /// # Errors
    ///
    /// The errno of `getdents64(2)`.
    pub fn for_each_raw_name(&self, mut f: impl FnMut(&[u8])) -> Result<(), Errno> {
        let mut buf = [MaybeUninit::<u8>::uninit(); ATTR_MAX];
        // What one call can fill: `RawDir` may give up to 7 bytes to align the buffer.
        let room = ATTR_MAX - 8;
        let mut it = RawDir::new(self.fd.as_fd(), &mut buf);
        // The bytes the entries of the current call take.
        let mut filled = 0usize;
        while let Some(e) = it.next() {
            let e = e?;
            let name = e.file_name().to_bytes();
            filled += dirent_len(name.len());
            if name.first() != Some(&b'.') {
                f(name);
            }
            if it.is_buffer_empty() {
                if filled + dirent_len(NAME_MAX) <= room {
                    break;
                }
                filled = 0;
            }
        }
        Ok(())
    }

    /// The entry names ([`SysDir::for_each_name`]), sorted.
    ///
    /// # Errors
    ///
    /// The errno of `getdents64(2)`.
    pub fn names(&self) -> Result<Vec<String>, Errno> {
        let mut v = Vec::new();
        self.for_each_name(|n| v.push(n.to_owned()))?;
        super::attr::sort_small(&mut v, |a, b| a > b);
        Ok(v)
    }

    /// Whether `name` exists under this directory (`faccessat(2)`, following links).
    pub fn exists(&self, name: &str) -> bool {
        rustix::fs::accessat(
            self.fd.as_fd(),
            name,
            rustix::fs::Access::EXISTS,
            rustix::fs::AtFlags::empty(),
        )
        .is_ok()
    }
}

/// The longest file name (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// The size of one `linux_dirent64` record for a name of `len` bytes: the 19-byte
/// header, the name and its NUL, rounded up to 8 bytes (`filldir64`'s `reclen`).
const fn dirent_len(len: usize) -> usize {
    (19 + len + 1 + 7) & !7
}

impl AsFd for SysDir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_names() {
        assert_eq!(NumName::new(0).as_str(), "0");
        assert_eq!(NumName::new(7).as_str(), "7");
        assert_eq!(NumName::new(1023).as_str(), "1023");
        assert_eq!(NumName::new(u32::MAX).as_str(), "4294967295");
    }

    #[test]
    fn trims_newlines_and_nuls() {
        assert_eq!(trim_end(b"rxe\n"), b"rxe");
        assert_eq!(trim_end(b"a b\n\0\n"), b"a b");
        assert_eq!(trim_end(b""), b"");
        assert_eq!(trim_end(b"\n"), b"");
        assert_eq!(trim_end(b" x "), b" x ");
    }

    /// Kept files: a kept directory's children keep their files too; a kept file is
    /// read again (content rewritten in place is seen, no second file is opened); a file
    /// renamed over another is read from the new file (its directory changed); a sweep
    /// closes what no later collection read; no more than `cap` are kept. (That a
    /// removed sysfs node's kept file is reopened by name is proved on real sysfs, by
    /// tests/operators.rs in the VM.)
    #[test]
    #[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
    fn kept_files_read_afresh_sweep_and_cap() {
        let base = std::env::temp_dir().join(format!("uverbs-kept-{}", std::process::id()));
        std::fs::create_dir_all(base.join("ports/1")).unwrap();
        std::fs::write(base.join("ports/1/state"), "4: ACTIVE\n").unwrap();
        std::fs::write(base.join("fw_ver"), "1.2.3\n").unwrap();
        let kept = KeptFiles::new(8);
        let top = SysDir::open(&base).unwrap().keep_files(&kept);
        let port = top.dir("ports/1").unwrap();
        assert_eq!(port.attr("state").unwrap().as_deref(), Some("4: ACTIVE"));
        assert_eq!(top.attr("fw_ver").unwrap().as_deref(), Some("1.2.3"));
        assert_eq!(top.attr("absent").unwrap(), None);
        assert_eq!(kept.len(), 2, "the two files read, not the absent one");
        std::fs::write(base.join("ports/1/state"), "1: DOWN\n").unwrap();
        // Another SysDir for the same directory reads through the same kept file.
        let again = top.dir("ports/1").unwrap();
        assert_eq!(again.attr("state").unwrap().as_deref(), Some("1: DOWN"));
        assert_eq!(kept.len(), 2);
        // Replaced by a rename (past the file system's clock tick, which stamps the
        // directory's modification time): the directory changed, the new file is read.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(base.join("ports/1/state.new"), "2: INIT\n").unwrap();
        std::fs::rename(base.join("ports/1/state.new"), base.join("ports/1/state")).unwrap();
        let renamed = top.dir("ports/1").unwrap();
        assert_eq!(renamed.attr("state").unwrap().as_deref(), Some("2: INIT"));
        assert_eq!(
            kept.len(),
            3,
            "the old directory's file waits for the sweep"
        );
        // A later collection that reads fw_ver only: its sweep closes the other two.
        let next = SysDir::open(&base).unwrap().keep_files(&kept);
        let round = next.kept_round().unwrap();
        assert!(round > top.kept_round().unwrap());
        assert_eq!(next.attr("fw_ver").unwrap().as_deref(), Some("1.2.3"));
        kept.sweep(round);
        assert_eq!(kept.len(), 1);
        kept.sweep(round + 1);
        assert!(kept.is_empty());
        let one = KeptFiles::new(1);
        let top1 = SysDir::open(&base).unwrap().keep_files(&one);
        assert_eq!(top1.attr("fw_ver").unwrap().as_deref(), Some("1.2.3"));
        let p1 = top1.dir("ports/1").unwrap();
        assert_eq!(p1.attr("state").unwrap().as_deref(), Some("2: INIT"));
        assert_eq!(
            one.len(),
            1,
            "at most cap files kept; the others read all the same"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// Every name of a directory, whether it fits in one `getdents64` answer or takes
    /// many (long names: about 14 entries a call), as `std::fs::read_dir` lists them.
    #[test]
    #[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
    fn lists_small_and_large_directories_whole() {
        let base = std::env::temp_dir().join(format!("uverbs-sysdir-{}", std::process::id()));
        for (sub, n, len) in [("small", 5usize, 4usize), ("large", 300, 200)] {
            let d = base.join(sub);
            std::fs::create_dir_all(&d).unwrap();
            for k in 0..n {
                let name = format!("{k:0len$}");
                std::fs::write(d.join(name), b"x").unwrap();
            }
            std::fs::write(d.join(".hidden"), b"x").unwrap();
            let mut want: Vec<Vec<u8>> = std::fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_encoded_bytes())
                .filter(|n| !n.starts_with(b"."))
                .collect();
            want.sort();
            let mut got = Vec::new();
            SysDir::open(&d)
                .unwrap()
                .for_each_raw_name(|n| got.push(n.to_vec()))
                .unwrap();
            got.sort();
            assert_eq!(got.len(), n, "{sub}");
            assert_eq!(got, want, "{sub}");
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn dirent_sizes() {
        // linux_dirent64: d_ino 8, d_off 8, d_reclen 2, d_type 1, then the name and NUL.
        assert_eq!(dirent_len(1), 24);
        assert_eq!(dirent_len(4), 24);
        assert_eq!(dirent_len(5), 32);
        assert_eq!(dirent_len(NAME_MAX), 280);
    }
}
