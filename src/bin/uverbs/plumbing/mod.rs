//! What every command shares, and none of them is about: [`format`] (text formats
//! such as glibc's IPv6 addresses), [`getopt`] (glibc's
//! `getopt_long`, message for message), [`io`] (buffered stdout and stderr as C's stdio
//! flushes them, the exit), [`json`] (the JSON value and writer), [`json_line`] (one
//! JSON object per line), [`ktap`] (the kernel's test output format), [`pipe`] (a child's
//! output line by line, with a deadline), [`deadline`] (reads under a deadline: a reader
//! thread per device), [`http`] (the exporter's HTTP/1.1 responder), [`prom`] (the
//! Prometheus text exposition format) and [`init`] (PID 1 of a bisect's initramfs).

pub mod deadline;
pub mod format;
pub mod getopt;
pub mod http;
pub mod init;
pub mod io;
pub mod json;
pub mod json_line;
pub mod ktap;
pub mod pipe;
pub mod prom;
