//! Output with C stdio's buffering, so that stdout and stderr interleave as they do in
//! rdma-core's tools even when both go to one file (`>log 2>&1`): stderr is unbuffered;
//! stdout is line-buffered on a terminal, else fully buffered as glibc does it, in
//! blocks of the file's `st_blksize` (below 8192; else 8192), a full block being
//! written when the next byte arrives, and the rest at exit.
//! Write errors (a closed pipe) are ignored: the exit status stays the command's.

use std::io::IsTerminal;

use crate::plumbing::getopt::{Getopt, LongOpt};

enum Mode {
    Line,
    Block(usize),
}

pub struct Io {
    mode: Mode,
    buf: Vec<u8>,
}

fn write_fd(stderr: bool, mut b: &[u8]) {
    while !b.is_empty() {
        let r = if stderr {
            rustix::io::write(std::io::stderr(), b)
        } else {
            rustix::io::write(std::io::stdout(), b)
        };
        match r {
            Ok(0) => return,
            Ok(n) => b = &b[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return,
        }
    }
}

impl Io {
    pub fn new() -> Self {
        let out = std::io::stdout();
        let mode = if out.is_terminal() {
            Mode::Line
        } else {
            // glibc's _IO_file_doallocate: BUFSIZ unless 0 < st_blksize < BUFSIZ.
            // st_blksize is i64 on x86_64, narrower elsewhere.
            #[allow(clippy::unnecessary_cast)]
            let blk = rustix::fs::fstat(&out).map_or(0, |st| st.st_blksize as i64);
            Mode::Block(if blk > 0 && blk < 8192 {
                blk as usize
            } else {
                8192
            })
        };
        // The whole block at once: growing it by doubling would allocate and free (and,
        // in musl's allocator, map and unmap) on the way.
        let buf = match mode {
            Mode::Block(n) => Vec::with_capacity(n),
            Mode::Line => Vec::new(),
        };
        Io { mode, buf }
    }

    pub fn out(&mut self, b: impl AsRef<[u8]>) {
        let mut data = b.as_ref();
        match self.mode {
            Mode::Line => {
                self.buf.extend_from_slice(data);
                if let Some(p) = self.buf.iter().rposition(|&c| c == b'\n') {
                    write_fd(false, &self.buf[..=p]);
                    self.buf.drain(..=p);
                }
            }
            Mode::Block(n) => {
                let take = (n - self.buf.len()).min(data.len());
                self.buf.extend_from_slice(&data[..take]);
                data = &data[take..];
                if !data.is_empty() {
                    write_fd(false, &self.buf);
                    self.buf.clear();
                    let whole = data.len() - data.len() % n;
                    write_fd(false, &data[..whole]);
                    self.buf.extend_from_slice(&data[whole..]);
                }
            }
        }
    }

    pub fn err(&mut self, b: impl AsRef<[u8]>) {
        write_fd(true, b.as_ref());
    }

    /// A usage error of `uverbs CMD`: one line naming the command and its help (control
    /// characters escaped), and exit status 2.
    pub fn usage_error(&mut self, cmd: &str, msg: &str) -> i32 {
        let msg = printable(msg.as_bytes());
        self.err_line(&format!("uverbs {cmd}: {msg} (try 'uverbs {cmd} --help')"));
        2
    }

    /// Parses the options of `uverbs CMD` (glibc `getopt_long` rules, see `getopt.rs`),
    /// handing each one to `take` as its short letter (or long option's value) and its
    /// argument. `take` answers `Ok(true)` when it took the option, `Ok(false)` when the
    /// command has no such option, `Err(message)` for a bad value.
    ///
    /// `-h`/`--help` (`h`, which `shorts`/`longs` must name) prints `help` and ends the
    /// command with status 0, at the point where it is seen. A parse error, an option
    /// `take` refuses, and any operand (no subcommand takes one) are usage errors: one
    /// line, status 2. `Err(status)` means: the command is over, exit with `status`.
    pub fn options(
        &mut self,
        cmd: &str,
        help: &str,
        args: &[Vec<u8>],
        shorts: &'static str,
        longs: &'static [LongOpt],
        mut take: impl FnMut(u8, Option<Vec<u8>>) -> Result<bool, String>,
    ) -> Result<(), i32> {
        self.options_dyn(cmd, help, args, shorts, longs, &mut take)
    }

    /// [`Io::options`]' one copy (each command's closure is called through a `dyn`: a
    /// generic parse loop was a copy per command in the binary).
    fn options_dyn(
        &mut self,
        cmd: &str,
        help: &str,
        args: &[Vec<u8>],
        shorts: &'static str,
        longs: &'static [LongOpt],
        take: &mut dyn FnMut(u8, Option<Vec<u8>>) -> Result<bool, String>,
    ) -> Result<(), i32> {
        let mut g = Getopt::new(args, shorts, longs);
        while let Some(r) = g.next_opt() {
            match r {
                Ok((b'h', _)) => {
                    self.out(help);
                    return Err(0);
                }
                Ok((c, arg)) => match take(c, arg) {
                    Ok(true) => {}
                    Ok(false) => {
                        let msg = format!("unexpected option '{}'", c as char);
                        return Err(self.usage_error(cmd, &msg));
                    }
                    Err(msg) => return Err(self.usage_error(cmd, &msg)),
                },
                Err(e) => return Err(self.usage_error(cmd, &e.short_message())),
            }
        }
        if let Some(extra) = g.operands.first() {
            let msg = format!("unexpected argument '{}'", String::from_utf8_lossy(extra));
            return Err(self.usage_error(cmd, &msg));
        }
        Ok(())
    }

    /// [`Io::options`] for a command whose option arguments are text: `take` gets each
    /// argument as a `String` (bytes that are not UTF-8 replaced; empty for an option
    /// without one).
    pub fn text_options(
        &mut self,
        cmd: &str,
        help: &str,
        args: &[Vec<u8>],
        shorts: &'static str,
        longs: &'static [LongOpt],
        mut take: impl FnMut(u8, String) -> Result<bool, String>,
    ) -> Result<(), i32> {
        self.options_dyn(cmd, help, args, shorts, longs, &mut |c, arg| {
            take(c, text_arg(arg))
        })
    }

    /// `text` on standard output, or written whole to `file` ([`write_atomically`]);
    /// the exit status: 1, with a line naming the file, when it cannot be written.
    pub fn out_or_file(&mut self, cmd: &str, file: Option<&std::path::Path>, text: String) -> i32 {
        let Some(path) = file else {
            self.out(text);
            return 0;
        };
        match write_atomically(path, &text) {
            Ok(()) => 0,
            Err(e) => {
                self.err_line(&printable(
                    format!("uverbs {cmd}: cannot write {}: {e}", path.display()).as_bytes(),
                ));
                1
            }
        }
    }

    /// One line on stderr (a newline is added).
    pub fn err_line(&mut self, s: &str) {
        let mut v = Vec::with_capacity(s.len() + 1);
        v.extend_from_slice(s.as_bytes());
        v.push(b'\n');
        self.err(v);
    }

    pub fn flush(&mut self) {
        write_fd(false, &self.buf);
        self.buf.clear();
    }
}

// ---------------------------------------------------------------- memory of a run
//
// Every command is a short-lived process. musl's allocator (the static binary's) hands a
// group of blocks back to the kernel as soon as its last block is freed, one `munmap`
// each, and under the VM rig's emulation every `munmap` flushes the emulated TLB (about
// 0.1 ms with the refills that follow). So what a run builds for its whole life is kept
// until the process exits, which gives all of it back at once, and the blocks a run
// makes and drops per device come from groups that stay mapped.

/// Keeps one block of each small size class of the allocator (up to 636 bytes) for the
/// rest of the process, so that the group of each class stays mapped: a run that builds
/// a string, uses it and frees it, once per device, then reuses that memory instead of
/// mapping and unmapping a group each time.
pub fn warm_heap() {
    keep(
        (1..=40)
            .map(|k| Vec::<u8>::with_capacity(k * 16 - 4))
            .collect::<Vec<_>>(),
    );
}

/// Lets go of `v` without freeing it, for what a run keeps until the process exits
/// (see above). Only for values that hold memory, or files the exit may close: a
/// device's context is dropped as soon as it is no longer needed, never kept.
pub fn keep<T>(v: T) {
    std::mem::forget(v);
}

/// libibverbs' start-up warning (printed by `ibverbs_init()` on the first device list):
/// a non-root process whose locked-memory limit is 32 KiB or less is told so
/// ([`uverbs::verbs::context::memlock_limit`]).
pub fn memlock_warning() -> Option<String> {
    let soft = uverbs::verbs::context::memlock_limit()?;
    (soft <= 32768).then(|| {
        format!(
            "libibverbs: Warning: RLIMIT_MEMLOCK is {soft} bytes.\n    This will severely limit memory registrations.\n"
        )
    })
}

/// Byte-wise `printf("%-16s")`.
pub fn pad16(name: &[u8]) -> Vec<u8> {
    let mut v = name.to_vec();
    while v.len() < 16 {
        v.push(b' ');
    }
    v
}

pub use crate::plumbing::getopt::{printable, Printable};

/// A port number option's value: 1 to 255, else the usage message.
pub fn port_arg(v: &str) -> Result<u32, String> {
    v.parse::<u32>()
        .ok()
        .filter(|p| (1..=255).contains(p))
        .ok_or_else(|| format!("bad port '{v}' (1-255)"))
}

/// An option's argument as text (bytes that are not UTF-8 replaced; empty when none).
fn text_arg(arg: Option<Vec<u8>>) -> String {
    match arg {
        Some(v) => String::from_utf8(v)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        None => String::new(),
    }
}

/// Writes `text` to `path` as a whole or not at all: into a temporary file beside it
/// (`.NAME.PID.tmp`), then renamed over it, so that a reader (node_exporter's textfile
/// collector, a container started after an init container) never sees half a file.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let r = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
