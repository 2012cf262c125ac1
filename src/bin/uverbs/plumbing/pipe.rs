//! Reading a child process's output line by line, with a deadline per line.

use std::time::Duration;

/// A pipe's lines, each awaited at most a timeout (`poll(2)`): what `uverbs selftest`
/// reads its children's reports with (a child that hangs in the kernel writes nothing,
/// and is then killed).
#[derive(Default)]
pub struct Lines {
    buf: Vec<u8>,
    eof: bool,
}

pub enum Next {
    /// A line (without its newline).
    Line(String),
    /// Nothing within the timeout.
    Timeout,
    /// The other end closed the pipe.
    End,
}

impl Lines {
    /// The next line of `fd`, waited for at most `timeout`.
    pub fn next(&mut self, fd: &impl std::os::fd::AsFd, timeout: Duration) -> Next {
        use rustix::event::{poll, PollFd, PollFlags};
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Next::Line(String::from_utf8_lossy(&line[..i]).into_owned());
            }
            if self.eof {
                return Next::End;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Next::Timeout;
            }
            let t = rustix::event::Timespec::try_from(left).unwrap_or(rustix::event::Timespec {
                tv_sec: 1,
                tv_nsec: 0,
            });
            let mut fds = [PollFd::new(fd, PollFlags::IN)];
            match poll(&mut fds, Some(&t)) {
                Ok(0) => return Next::Timeout,
                Ok(_) => {
                    let mut b = [0u8; 4096];
                    match rustix::io::read(fd, &mut b) {
                        Ok(0) => self.eof = true,
                        Ok(n) => self.buf.extend_from_slice(&b[..n]),
                        Err(rustix::io::Errno::INTR) => {}
                        Err(_) => self.eof = true,
                    }
                }
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => self.eof = true,
            }
        }
    }
}
