//! What `ibstat` and `ibstatus` print, for both personalities: the devices under
//! `/sys/class/infiniband` and, per port, the text of the sysfs attributes the real tools
//! read (`state`, `rate`, `gids/0`, ...).
//!
//! Where the facts come from:
//! - the device names: one readdir of `/sys/class/infiniband`, the list both tools walk;
//! - node type, node and system image GUIDs, firmware text, port count: one RDMA netlink
//!   device dump (the same kernel values sysfs prints);
//! - per port: one QUERY_PORT and one QUERY_GID_ENTRY (index 0) on the device's uverbs
//!   node (named by netlink's GET_CHARDEV). The kernel's own sysfs formats turn that one
//!   answer into the attribute texts ([`kernel_port`]); `tests/ibstat_compat.rs` checks
//!   them against the files;
//! - the capability mask (`cap_mask`), `hca_type` and `hw_rev`: sysfs, which alone has
//!   them as ibstat prints them (QUERY_PORT replaces bit 26 of the capability mask by the
//!   kernel's `ip_gids` flag, so it cannot stand in for the file).
//!
//! A device that netlink does not report, or whose uverbs node is missing or does not
//! open, is read from sysfs file by file, as the real tools read it.

use std::path::{Path, PathBuf};

use rustix::io::Errno;
use uverbs::netlink::{nldev, parse_answer, NlSocket};
use uverbs::verbs::context::{Context, OpenTarget};
use uverbs::verbs::types::{LinkLayer, Speed, Width};

/// The netlink receive buffer: the answers read here are a few hundred bytes each.
const NL_BUF: usize = 2048;

/// The sysfs class directory both tools read.
pub const CLASS: &str = "/sys/class/infiniband";

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

/// Reads a sysfs attribute with one `read(2)`, as the C tools do (a sysfs attribute is
/// never longer than a page, and one read returns all of it). The path is built on the
/// stack and opened with one `open(2)` (std's `File::open` adds an `fcntl` on musl).
pub fn read_attr(path: &[u8]) -> Attr {
    use rustix::fs::{Mode, OFlags};
    let fd = match rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => fd,
        Err(e) => return Attr::NoFile(e),
    };
    let mut buf = [0u8; 4096];
    loop {
        match rustix::io::read(&fd, &mut buf) {
            Ok(n) => return Attr::Text(buf[..n].to_vec()),
            Err(Errno::INTR) => {}
            Err(e) => return Attr::ReadError(e),
        }
    }
}

/// A path under the class directory, `CLASS/PART/PART...`, built in `buf` (on the
/// caller's stack); longer paths are cut (and then do not exist).
pub fn class_path<'a>(buf: &'a mut [u8; 512], parts: &[&[u8]]) -> &'a [u8] {
    let mut n = CLASS.len().min(buf.len());
    buf[..n].copy_from_slice(&CLASS.as_bytes()[..n]);
    for p in parts {
        if n < buf.len() {
            buf[n] = b'/';
            n += 1;
        }
        let k = p.len().min(buf.len() - n);
        buf[n..n + k].copy_from_slice(&p[..k]);
        n += k;
    }
    &buf[..n]
}

/// `read_attr` of `CLASS/PART/PART...`.
pub fn class_attr(parts: &[&[u8]]) -> Attr {
    let mut b = [0u8; 512];
    read_attr(class_path(&mut b, parts))
}

/// Keeps one block of each small size class of the allocator alive while it lives.
/// musl's allocator (the static binary's) returns a size class's memory to the kernel
/// as soon as its last block is freed, so a run that builds a string, uses it and
/// frees it, once per device, pays an `mmap` and a `munmap` each time (about 0.1 ms
/// each under emulation, where they flush the emulated TLB); with a block of each
/// class held, that memory stays mapped and is reused.
pub struct WarmHeap(#[allow(dead_code)] Vec<Vec<u8>>);

pub fn warm_heap() -> WarmHeap {
    WarmHeap((1..=40).map(|k| Vec::with_capacity(k * 16 - 4)).collect())
}

/// The attributes of one port that the tools read, by sysfs file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortAttrs {
    pub lid_mask_count: Attr,
    pub sm_lid: Attr,
    pub sm_sl: Attr,
    pub lid: Attr,
    pub state: Attr,
    pub phys_state: Attr,
    pub rate: Attr,
    /// `None` when not asked for (ibstatus does not print it).
    pub cap_mask: Option<Attr>,
    pub link_layer: Attr,
    /// `gids/0`.
    pub gid0: Attr,
    /// Whether the `pkeys` directory has entries (ibstat requires it).
    pub has_pkeys: bool,
    /// The uverbs answer these texts were made from (for JSON), when there was one.
    pub kernel: Option<KernelPort>,
}

/// What the kernel answered for a port (JSON reports the typed values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelPort {
    pub width: Width,
    pub speed: Speed,
    pub gid0: [u8; 16],
}

impl PortAttrs {
    /// A port whose directory does not exist: every file is missing.
    pub fn absent() -> Self {
        let none = || Attr::NoFile(Errno::NOENT);
        PortAttrs {
            lid_mask_count: none(),
            sm_lid: none(),
            sm_sl: none(),
            lid: none(),
            state: none(),
            phys_state: none(),
            rate: none(),
            cap_mask: Some(none()),
            link_layer: none(),
            gid0: none(),
            has_pkeys: false,
            kernel: None,
        }
    }
}

/// The kernel's `rate` text (`rate_show` in `drivers/infiniband/core/sysfs.c`): lanes ×
/// lane rate, e.g. `10 Gb/sec (4X QDR)`, `2.5 Gb/sec (1X SDR)`; an unknown speed counts
/// as SDR; an unknown width makes the read fail with `EINVAL`.
pub fn rate_text(width: Width, speed: Speed) -> Result<String, Errno> {
    let lanes = width.lanes().ok_or(Errno::INVAL)?;
    let (name, deci) = match speed {
        Speed::Ddr => ("DDR", 50),
        Speed::Qdr => ("QDR", 100),
        Speed::Fdr10 => ("FDR10", 100),
        Speed::Fdr => ("FDR", 140),
        Speed::Edr => ("EDR", 250),
        Speed::Hdr => ("HDR", 500),
        Speed::Ndr => ("NDR", 1000),
        Speed::Xdr => ("XDR", 2000),
        _ => ("SDR", 25),
    };
    let rate = deci * lanes;
    let half = if rate % 10 != 0 { ".5" } else { "" };
    Ok(format!("{}{half} Gb/sec ({lanes}X {name})\n", rate / 10))
}

/// The kernel's `state` text: `4: ACTIVE`.
pub fn state_text(raw: u8) -> String {
    const NAMES: [&str; 6] = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"];
    let name = NAMES.get(usize::from(raw)).copied().unwrap_or("UNKNOWN");
    format!("{raw}: {name}\n")
}

/// The kernel's `phys_state` text: `5: LinkUp`.
pub fn phys_state_text(raw: u8) -> String {
    const NAMES: [&str; 8] = [
        "<unknown>",
        "Sleep",
        "Polling",
        "Disabled",
        "PortConfigurationTraining",
        "LinkUp",
        "LinkErrorRecovery",
        "Phy Test",
    ];
    let name = NAMES.get(usize::from(raw)).copied().unwrap_or("<unknown>");
    format!("{raw}: {name}\n")
}

/// The kernel's `link_layer` text.
pub fn link_layer_text(l: LinkLayer) -> &'static str {
    match l {
        LinkLayer::InfiniBand => "InfiniBand\n",
        LinkLayer::Ethernet => "Ethernet\n",
        _ => "Unknown\n",
    }
}

/// A GID as sysfs prints it (`%pI6`): eight groups of four hex digits.
pub fn gid_text(g: &[u8; 16]) -> String {
    let mut s = String::with_capacity(40);
    for (i, pair) in g.chunks(2).enumerate() {
        if i > 0 {
            s.push(':');
        }
        s.push_str(&format!("{:02x}{:02x}", pair[0], pair[1]));
    }
    s.push('\n');
    s
}

/// One device of the class directory, with what netlink says about it.
#[derive(Debug, Clone)]
pub struct Dev {
    pub name: Vec<u8>,
    pub nl: Option<NlDev>,
}

/// A device as RDMA netlink reports it.
#[derive(Debug, Clone)]
pub struct NlDev {
    pub index: u32,
    pub node_type: u8,
    pub node_guid: u64,
    pub sys_image_guid: Option<u64>,
    pub fw: Option<String>,
    pub port_count: u32,
}

/// The devices under `/sys/class/infiniband` (sorted bytewise, names starting with a dot
/// left out), completed from one netlink dump, and the socket for the uverbs nodes.
pub struct Listing {
    pub devs: Vec<Dev>,
    pub sock: Option<NlSocket>,
    /// Why netlink could not be used (for the debug trace).
    pub netlink_error: Option<String>,
}

/// Reads the class directory; `Err(errno)` when it cannot be read.
pub fn list() -> Result<Listing, Errno> {
    let names = read_names(CLASS.as_bytes())?;
    let (mut sock, mut nl, mut netlink_error) = (None, Vec::new(), None);
    match dump() {
        Ok((s, v)) => {
            sock = Some(s);
            nl = v;
        }
        Err(e) => netlink_error = Some(e.to_string()),
    }
    let devs = names
        .into_iter()
        .map(|name| {
            let nl = nl.iter().find(|d| d.0.as_bytes() == name.as_slice());
            Dev {
                nl: nl.map(|d| d.1.clone()),
                name,
            }
        })
        .collect();
    Ok(Listing {
        devs,
        sock,
        netlink_error,
    })
}

/// The names in a directory, sorted bytewise, without `.`-names (a shell's `*`).
pub fn read_names(dir: &[u8]) -> Result<Vec<Vec<u8>>, Errno> {
    use core::mem::MaybeUninit;
    use rustix::fs::{Mode, OFlags, RawDir};
    let fd = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    let mut it = RawDir::new(&fd, &mut buf);
    let mut v = Vec::new();
    while let Some(e) = it.next() {
        let n = e?.file_name().to_bytes().to_vec();
        if !n.starts_with(b".") {
            v.push(n);
        }
    }
    sort_names(&mut v);
    Ok(v)
}

/// Sorts names bytewise (the C locale's order) by insertion: lists of devices and
/// ports are short, and this is a few instructions where the standard library's sort
/// is kilobytes of code, which an emulator translates anew in every process.
pub fn sort_names(v: &mut [Vec<u8>]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

fn dump() -> uverbs::Result<(NlSocket, Vec<(String, NlDev)>)> {
    let mut s = NlSocket::open()?;
    // The device dump is one device per datagram, GET_CHARDEV one short answer.
    s.set_recv_buffer(NL_BUF);
    let seq = s.fresh_seq();
    let req = nldev::get_dump_request(seq);
    let mut out = Vec::new();
    for dg in s.raw_exchange(req.bytes(), seq, nldev::TYPE_GET)? {
        parse_answer(&dg, seq, nldev::TYPE_GET, "nldev GET", |p| {
            let d = nldev::parse_device(p)?;
            out.push((
                d.name.to_owned(),
                NlDev {
                    index: d.index,
                    node_type: d.node_type,
                    node_guid: d.node_guid,
                    sys_image_guid: d.sys_image_guid,
                    fw: d.fw_version.map(str::to_owned),
                    port_count: d.port_count,
                },
            ));
            Ok(())
        })?;
    }
    Ok((s, out))
}

/// The class directory of a device (or any name a user gave: the tools join it as is).
pub fn dev_dir(name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let mut p = PathBuf::from(CLASS);
    p.push(std::ffi::OsStr::from_bytes(name));
    p
}

/// A device's node type: netlink's, else sysfs `node_type` read as `strtoul` does.
pub fn node_type(d: &Dev) -> Result<u32, Errno> {
    if let Some(n) = &d.nl {
        return Ok(u32::from(n.node_type));
    }
    let a = class_attr(&[&d.name, b"node_type"]);
    match a {
        Attr::Text(t) => Ok(strtoul(&limit(&t, 32))),
        other => Err(other.errno().unwrap_or(Errno::IO)),
    }
}

/// What `sys_read_string(..., max_len)` leaves of a file's text: at most `max_len - 1`
/// bytes, cut at the last newline.
pub fn limit(t: &[u8], max_len: usize) -> Vec<u8> {
    let mut v = t[..t.len().min(max_len - 1)].to_vec();
    // C strings end at a NUL.
    if let Some(z) = v.iter().position(|&b| b == 0) {
        v.truncate(z);
    }
    if let Some(nl) = v.iter().rposition(|&b| b == b'\n') {
        v.truncate(nl);
    }
    v
}

/// `strtoul(s, NULL, 0)` truncated to 32 bits, as libibumad stores it in an `unsigned`.
pub fn strtoul(s: &[u8]) -> u32 {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let neg = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let (base, start) = if s.len() > i + 2
        && s[i] == b'0'
        && (s[i + 1] | 0x20) == b'x'
        && s[i + 2].is_ascii_hexdigit()
    {
        (16, i + 2)
    } else if i < s.len() && s[i] == b'0' {
        (8, i)
    } else {
        (10, i)
    };
    let mut v: u64 = 0;
    let mut over = false;
    for &c in &s[start..] {
        let Some(d) = (c as char).to_digit(base) else {
            break;
        };
        v = match v
            .checked_mul(u64::from(base))
            .and_then(|x| x.checked_add(u64::from(d)))
        {
            Some(x) => x,
            None => {
                over = true;
                u64::MAX
            }
        };
    }
    let v = if over { u64::MAX } else { v };
    let v = if neg { v.wrapping_neg() } else { v };
    v as u32
}

/// How the ports of a device were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// QUERY_PORT and QUERY_GID_ENTRY on this uverbs node (`uverbs0`, under
    /// `/dev/infiniband`).
    Kernel(String),
    /// The sysfs files, for this reason.
    Sysfs(String),
}

/// Reads the ports named `ports` (directory names under `ports/`) of device `d`: from
/// the kernel when the device has a uverbs node that opens, else from sysfs.
/// `cap_mask`: also read the capability mask (ibstat).
pub fn read_ports(
    d: &Dev,
    sock: Option<&mut NlSocket>,
    ports: &[Vec<u8>],
    cap_mask: bool,
) -> (Source, Vec<PortAttrs>) {
    let why = match (&d.nl, sock) {
        (Some(nl), Some(sock)) => match open(d, nl, sock) {
            Ok((ctx, path)) => {
                let v = ports
                    .iter()
                    .map(|p| kernel_port(&ctx, d, nl, p, cap_mask))
                    .collect();
                return (Source::Kernel(path), v);
            }
            Err(e) => e,
        },
        (None, _) => "RDMA netlink does not report it".to_owned(),
        (Some(_), None) => "no RDMA netlink socket".to_owned(),
    };
    let v = ports
        .iter()
        .map(|p| sysfs_port(&d.name, p, cap_mask))
        .collect();
    (Source::Sysfs(why), v)
}

fn open(d: &Dev, nl: &NlDev, sock: &mut NlSocket) -> Result<(Context, String), String> {
    let seq = sock.fresh_seq();
    let req = nldev::get_chardev_request(seq, nl.index);
    let mut target = None;
    let mut node = String::new();
    let name = String::from_utf8_lossy(&d.name).into_owned();
    let dgs = sock
        .raw_exchange(req.bytes(), seq, nldev::TYPE_GET_CHARDEV)
        .map_err(|e| e.to_string())?;
    for dg in &dgs {
        parse_answer(dg, seq, nldev::TYPE_GET_CHARDEV, "nldev GET_CHARDEV", |p| {
            let c = nldev::parse_chardev(p)?;
            node = c.name.to_owned();
            target = Some(OpenTarget {
                name: name.clone(),
                path: Path::new("/dev/infiniband").join(c.name),
                dev: Some((c.major, c.minor)),
                driver_id: c.driver_id,
                driver_id_guess: None,
                fw_text: nl.fw.clone().unwrap_or_default(),
                port_count: Some(nl.port_count).filter(|n| *n > 0),
                sysfs_root: PathBuf::from("/sys"),
            });
            Ok(())
        })
        .map_err(|e| format!("no uverbs node: {e}"))?;
    }
    let t = target.ok_or_else(|| "no uverbs node".to_owned())?;
    let ctx = Context::open_target(&t).map_err(|e| e.to_string())?;
    Ok((ctx, node))
}

/// Whether `p` is the directory name of one of the device's ports: `1`..`N` on a
/// channel adapter or router, `0` on a switch.
fn port_number(nl: &NlDev, p: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(p).ok()?;
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    let n: u32 = s.parse().ok()?;
    if nl.node_type == 2 {
        (n == 0).then_some(n)
    } else {
        (n >= 1 && n <= nl.port_count).then_some(n)
    }
}

/// The port directory names of a device: from netlink's port count (`1`..`N`, or `0`
/// on a switch), else the `ports` directory; sorted bytewise (a shell's `*`).
pub fn port_names(d: &Dev) -> Result<Vec<Vec<u8>>, Errno> {
    match &d.nl {
        Some(nl) if nl.node_type == 2 => Ok(vec![b"0".to_vec()]),
        Some(nl) => {
            let mut v: Vec<Vec<u8>> = (1..=nl.port_count)
                .map(|n| n.to_string().into_bytes())
                .collect();
            sort_names(&mut v);
            Ok(v)
        }
        None => read_names(class_path(&mut [0; 512], &[&d.name, b"ports"])),
    }
}

/// The attribute texts of one port from one QUERY_PORT answer (and QUERY_GID_ENTRY for
/// index 0), in the kernel's sysfs formats.
pub fn kernel_port(ctx: &Context, d: &Dev, nl: &NlDev, p: &[u8], cap_mask: bool) -> PortAttrs {
    let Some(num) = port_number(nl, p) else {
        return PortAttrs::absent();
    };
    let text = |s: String| Attr::Text(s.into_bytes());
    let numtext = num.to_string();
    let port_attr = |f: &[u8]| class_attr(&[&d.name, b"ports", numtext.as_bytes(), f]);
    let cap = cap_mask.then(|| port_attr(b"cap_mask"));
    match ctx.query_port(num) {
        Ok(a) => {
            let gid0 = if a.gid_tbl_len == 0 {
                None
            } else {
                // An empty or unreadable slot reads as the zero GID in sysfs.
                Some(match ctx.query_gid(num, 0) {
                    Ok(Some(e)) => e.gid.0,
                    _ => [0; 16],
                })
            };
            let speed = a.speed();
            PortAttrs {
                lid_mask_count: text(format!("{}\n", a.lmc)),
                sm_lid: text(format!("0x{:x}\n", a.sm_lid)),
                sm_sl: text(format!("{}\n", a.sm_sl)),
                lid: text(format!("0x{:x}\n", a.lid)),
                state: text(state_text(a.state.as_raw())),
                phys_state: text(phys_state_text(a.phys_state.as_raw())),
                rate: match rate_text(a.active_width, speed) {
                    Ok(s) => text(s),
                    Err(e) => Attr::ReadError(e),
                },
                cap_mask: cap,
                link_layer: text(link_layer_text(a.link_layer).to_owned()),
                gid0: match gid0 {
                    Some(g) => text(gid_text(&g)),
                    None => Attr::NoFile(Errno::NOENT),
                },
                has_pkeys: a.pkey_tbl_len > 0,
                kernel: Some(KernelPort {
                    width: a.active_width,
                    speed,
                    gid0: gid0.unwrap_or([0; 16]),
                }),
            }
        }
        Err(e) => {
            // Every sysfs attribute that queries the port fails with the same errno;
            // the link layer and the GIDs do not query it: read those files.
            let err = Attr::ReadError(e.errno().unwrap_or(Errno::IO));
            PortAttrs {
                lid_mask_count: err.clone(),
                sm_lid: err.clone(),
                sm_sl: err.clone(),
                lid: err.clone(),
                state: err.clone(),
                phys_state: err.clone(),
                rate: err,
                cap_mask: cap,
                link_layer: port_attr(b"link_layer"),
                gid0: port_attr(b"gids/0"),
                has_pkeys: true,
                kernel: None,
            }
        }
    }
}

/// The attribute texts of one port read from sysfs, file by file.
pub fn sysfs_port(dev: &[u8], p: &[u8], cap_mask: bool) -> PortAttrs {
    let r = |f: &[u8]| class_attr(&[dev, b"ports", p, f]);
    let has_pkeys = read_names(class_path(&mut [0; 512], &[dev, b"ports", p, b"pkeys"]))
        .is_ok_and(|v| !v.is_empty());
    PortAttrs {
        lid_mask_count: r(b"lid_mask_count"),
        sm_lid: r(b"sm_lid"),
        sm_sl: r(b"sm_sl"),
        lid: r(b"lid"),
        state: r(b"state"),
        phys_state: r(b"phys_state"),
        rate: r(b"rate"),
        cap_mask: cap_mask.then(|| r(b"cap_mask")),
        link_layer: r(b"link_layer"),
        gid0: r(b"gids/0"),
        has_pkeys,
        kernel: None,
    }
}

/// glibc's `strerror` text for the errnos these tools can meet (`%m`).
pub fn strerror(e: i32) -> String {
    let s = match e {
        0 => "Success",
        1 => "Operation not permitted",
        2 => "No such file or directory",
        4 => "Interrupted system call",
        5 => "Input/output error",
        6 => "No such device or address",
        11 => "Resource temporarily unavailable",
        12 => "Cannot allocate memory",
        13 => "Permission denied",
        16 => "Device or resource busy",
        19 => "No such device",
        20 => "Not a directory",
        21 => "Is a directory",
        22 => "Invalid argument",
        24 => "Too many open files",
        61 => "No data available",
        95 => "Operation not supported",
        110 => "Connection timed out",
        _ => return format!("Unknown error {e}"),
    };
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_texts_as_the_kernel_prints_them() {
        assert_eq!(
            rate_text(Width::X1, Speed::Sdr).unwrap(),
            "2.5 Gb/sec (1X SDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Qdr).unwrap(),
            "40 Gb/sec (4X QDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Fdr10).unwrap(),
            "40 Gb/sec (4X FDR10)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Fdr).unwrap(),
            "56 Gb/sec (4X FDR)\n"
        );
        assert_eq!(
            rate_text(Width::X1, Speed::Fdr).unwrap(),
            "14 Gb/sec (1X FDR)\n"
        );
        assert_eq!(
            rate_text(Width::X12, Speed::Ddr).unwrap(),
            "60 Gb/sec (12X DDR)\n"
        );
        assert_eq!(
            rate_text(Width::X2, Speed::Ndr).unwrap(),
            "200 Gb/sec (2X NDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Xdr).unwrap(),
            "800 Gb/sec (4X XDR)\n"
        );
        // An unknown speed is SDR; an unknown width fails the read.
        assert_eq!(
            rate_text(Width::X2, Speed::Unknown(3)).unwrap(),
            "5 Gb/sec (2X SDR)\n"
        );
        assert_eq!(rate_text(Width::Unknown(3), Speed::Sdr), Err(Errno::INVAL));
    }

    #[test]
    fn state_texts() {
        assert_eq!(state_text(4), "4: ACTIVE\n");
        assert_eq!(state_text(5), "5: ACTIVE_DEFER\n");
        assert_eq!(state_text(9), "9: UNKNOWN\n");
        assert_eq!(phys_state_text(5), "5: LinkUp\n");
        assert_eq!(phys_state_text(7), "7: Phy Test\n");
        assert_eq!(phys_state_text(8), "8: <unknown>\n");
        assert_eq!(
            gid_text(&[
                0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0xc8, 0x94, 0x8a, 0xff, 0xfe, 0x15, 0x36, 0xe8
            ]),
            "fe80:0000:0000:0000:c894:8aff:fe15:36e8\n"
        );
    }

    #[test]
    fn sys_read_string_limits() {
        assert_eq!(limit(b"4: ACTIVE\n", 32), b"4: ACTIVE");
        assert_eq!(
            limit(b"0123456789012345678901234\n", 20),
            b"0123456789012345678"
        );
        assert_eq!(limit(b"a\nb\nc", 32), b"a\nb");
        assert_eq!(limit(b"ab\0cd\n", 32), b"ab");
    }

    #[test]
    fn strtoul_as_glibc() {
        assert_eq!(strtoul(b"4: ACTIVE"), 4);
        assert_eq!(strtoul(b"0x1a"), 26);
        assert_eq!(strtoul(b"0x00010000"), 0x10000);
        assert_eq!(strtoul(b"2.5 Gb/sec (1X SDR)"), 2);
        assert_eq!(strtoul(b"010"), 8);
        assert_eq!(strtoul(b"abc"), 0);
        assert_eq!(strtoul(b"-1"), u32::MAX);
    }
}
