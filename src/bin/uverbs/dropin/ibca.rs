//! What `ibstat` and `ibstatus` print, for both personalities: the devices under
//! `/sys/class/infiniband` and, per port, the text of the sysfs attributes the real tools
//! read (`state`, `rate`, `gids/0`, ...).
//!
//! Where the facts come from:
//! - the device names: one readdir of `/sys/class/infiniband`, the list both tools walk;
//! - node type, node and system image GUIDs, firmware text, port count: one RDMA netlink
//!   device dump (the same kernel values sysfs prints);
//! - per port: one QUERY_PORT and one QUERY_GID_ENTRY (index 0) on the device's uverbs
//!   node (named by netlink's GET_CHARDEV, asked for every device at once). The kernel's
//!   own sysfs formats turn that one answer into the attribute texts ([`kernel_port`]);
//!   `tests/ibstat_compat.rs` checks them against the files;
//! - the capability mask (`cap_mask`), `hca_type` and `hw_rev`: sysfs, which alone has
//!   them as ibstat prints them (QUERY_PORT replaces bit 26 of the capability mask by the
//!   kernel's `ip_gids` flag, so it cannot stand in for the file).
//!
//! A device that netlink does not report, or whose uverbs node is missing or does not
//! open, is read from sysfs file by file, as the real tools read it.
//!
//! Sysfs is read through [`Class`]: the class directory is opened once and every file
//! is opened relative to it, a shorter path walk for the kernel than from `/` (under the
//! VM rig's emulation, about half the cost of each open).
//!
//! Both tools are short-lived: what a run builds is kept until the process exits
//! ([`keep`](crate::plumbing::io::keep)).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::plumbing::format::{dec, hex};
use rustix::io::Errno;
use uverbs::netlink::{nldev, NlSocket};
use uverbs::sysfs::attr::{names_of, read_attr, read_attr_in, read_names, sort_names, Attr};
use uverbs::sysfs::SysDir;
use uverbs::types::{LinkLayer, Speed, Width};
use uverbs::verbs::context::{Context, OpenTarget};

/// The netlink receive buffer: the answers read here are a few hundred bytes each.
const NL_BUF: usize = 2048;

/// The sysfs class directory both tools read.
pub const CLASS: &str = "/sys/class/infiniband";

/// A path `PREFIX/PART/PART...` built in `buf` (on the caller's stack); longer paths are
/// cut (and then do not exist).
fn join_in<'a>(buf: &'a mut [u8; 512], prefix: &[u8], parts: &[&[u8]]) -> &'a [u8] {
    let mut n = prefix.len().min(buf.len());
    buf[..n].copy_from_slice(&prefix[..n]);
    for p in parts {
        if n > 0 && n < buf.len() {
            buf[n] = b'/';
            n += 1;
        }
        let k = p.len().min(buf.len() - n);
        buf[n..n + k].copy_from_slice(&p[..k]);
        n += k;
    }
    &buf[..n]
}

/// A path under the class directory, `CLASS/PART/PART...`, built in `buf` (on the
/// caller's stack); longer paths are cut (and then do not exist).
pub fn class_path<'a>(buf: &'a mut [u8; 512], parts: &[&[u8]]) -> &'a [u8] {
    join_in(buf, CLASS.as_bytes(), parts)
}

/// `read_attr` of `CLASS/PART/PART...`.
pub fn class_attr(parts: &[&[u8]]) -> Attr {
    let mut b = [0u8; 512];
    read_attr(class_path(&mut b, parts))
}

/// The class directory, open (or `None` when it could not be opened): files under it
/// are opened relative to it.
pub struct Class(Option<SysDir>);

impl Class {
    /// Opens [`CLASS`]; `Err(errno)` when it cannot be opened.
    fn open() -> Result<Class, Errno> {
        SysDir::open(Path::new(CLASS)).map(|d| Class(Some(d)))
    }

    /// A class whose files are read by absolute path.
    pub fn none() -> Class {
        Class(None)
    }

    /// The relative path `PART/PART...` when it can stand for `CLASS/PART/PART...`: not
    /// when the first part is empty or starts with `/` (a name a user gave, which the
    /// real tools join as is).
    fn rel<'a>(&self, buf: &'a mut [u8; 512], parts: &[&[u8]]) -> Option<(&SysDir, &'a [u8])> {
        let dir = self.0.as_ref()?;
        let first = parts.first()?;
        if first.is_empty() || first[0] == b'/' {
            return None;
        }
        Some((dir, join_in(buf, b"", parts)))
    }

    /// The attribute `CLASS/PART/PART...`.
    pub fn attr(&self, parts: &[&[u8]]) -> Attr {
        let mut b = [0u8; 512];
        match self.rel(&mut b, parts) {
            Some((dir, rel)) => read_attr_in(dir, rel),
            None => class_attr(parts),
        }
    }

    /// The names in the directory `CLASS/PART/PART...` ([`read_names`]).
    pub fn names(&self, parts: &[&[u8]]) -> Result<Vec<Vec<u8>>, Errno> {
        let mut b = [0u8; 512];
        match self.rel(&mut b, parts) {
            Some((dir, rel)) => names_of(&dir.dir(rel)?),
            None => read_names(class_path(&mut [0; 512], parts)),
        }
    }
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
pub fn rate_text(width: Width, speed: Speed) -> Result<Vec<u8>, Errno> {
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
    let mut t = Vec::with_capacity(32);
    dec(&mut t, rate / 10);
    if rate % 10 != 0 {
        t.extend_from_slice(b".5");
    }
    t.extend_from_slice(b" Gb/sec (");
    dec(&mut t, lanes);
    t.extend_from_slice(b"X ");
    t.extend_from_slice(name.as_bytes());
    t.extend_from_slice(b")\n");
    Ok(t)
}

/// `N: NAME` and a newline, as the kernel prints a port's states.
fn numbered(raw: u8, name: &str) -> Vec<u8> {
    let mut t = Vec::with_capacity(32);
    dec(&mut t, u32::from(raw));
    t.extend_from_slice(b": ");
    t.extend_from_slice(name.as_bytes());
    t.push(b'\n');
    t
}

/// A number and a newline, in decimal or (`0x`) hex, as the kernel prints a port's
/// numbers.
fn number(n: u32, in_hex: bool) -> Vec<u8> {
    let mut t = Vec::with_capacity(16);
    if in_hex {
        t.extend_from_slice(b"0x");
        hex(&mut t, u64::from(n), 0);
    } else {
        dec(&mut t, n);
    }
    t.push(b'\n');
    t
}

/// The kernel's `state` text: `4: ACTIVE`.
pub fn state_text(raw: u8) -> Vec<u8> {
    const NAMES: [&str; 6] = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"];
    numbered(
        raw,
        NAMES.get(usize::from(raw)).copied().unwrap_or("UNKNOWN"),
    )
}

/// The kernel's `phys_state` text: `5: LinkUp`.
pub fn phys_state_text(raw: u8) -> Vec<u8> {
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
    numbered(
        raw,
        NAMES.get(usize::from(raw)).copied().unwrap_or("<unknown>"),
    )
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
pub fn gid_text(g: &[u8; 16]) -> Vec<u8> {
    let mut t = Vec::with_capacity(40);
    for (i, pair) in g.chunks(2).enumerate() {
        if i > 0 {
            t.push(b':');
        }
        hex(&mut t, u64::from(u16::from_be_bytes([pair[0], pair[1]])), 4);
    }
    t.push(b'\n');
    t
}

/// One device of the class directory, with what netlink says about it.
#[derive(Debug, Clone)]
pub struct Dev {
    pub name: Vec<u8>,
    pub nl: Option<NlDev>,
    /// Its uverbs node, when asked for in advance ([`Listing::find_nodes`]): the answer
    /// to GET_CHARDEV, or why there is none.
    pub node: Option<Result<Node, String>>,
}

impl Dev {
    /// A device known by name only (not in the listing).
    pub fn named(name: &[u8]) -> Dev {
        Dev {
            name: name.to_vec(),
            nl: None,
            node: None,
        }
    }
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

/// A device's uverbs node, as GET_CHARDEV names it.
#[derive(Debug, Clone)]
pub struct Node {
    /// The name under `/dev/infiniband` (`uverbs0`).
    pub name: String,
    pub dev: (u32, u32),
    pub driver_id: Option<u32>,
}

impl Node {
    fn from_answer(c: &nldev::NlChardev<'_>) -> Node {
        Node {
            name: c.name.to_owned(),
            dev: (c.major, c.minor),
            driver_id: c.driver_id,
        }
    }
}

/// The devices under `/sys/class/infiniband` (sorted bytewise, names starting with a dot
/// left out), completed from one netlink dump, and the socket for the uverbs nodes.
pub struct Listing {
    pub devs: Vec<Dev>,
    pub sock: Option<NlSocket>,
    /// Why netlink could not be used (for the debug trace).
    pub netlink_error: Option<String>,
    /// The class directory, for the files read later.
    pub class: Class,
}

impl Listing {
    /// No device, no netlink (the class directory does not exist).
    pub fn empty() -> Listing {
        Listing {
            devs: Vec::new(),
            sock: None,
            netlink_error: None,
            class: Class::none(),
        }
    }

    /// Asks netlink for the uverbs nodes of the devices `want` picks (those netlink
    /// reports), all in one exchange ([`NlSocket::uverbs_chardevs`]), and keeps them in
    /// [`Dev::node`]. Without a socket, or when the exchange fails, each device is asked
    /// for when it is opened.
    pub fn find_nodes(&mut self, want: impl Fn(&Dev) -> bool) {
        let Some(sock) = self.sock.as_mut() else {
            return;
        };
        let mut which = Vec::with_capacity(self.devs.len());
        let mut indexes = Vec::with_capacity(self.devs.len());
        for (i, d) in self.devs.iter().enumerate() {
            if let (Some(nl), None, true) = (&d.nl, &d.node, want(d)) {
                which.push(i);
                indexes.push(nl.index);
            }
        }
        let devs = &mut self.devs;
        let _ = sock.uverbs_chardevs(&indexes, |k, r| {
            devs[which[k]].node = Some(match r {
                Ok(c) => Ok(Node::from_answer(&c)),
                Err(e) => Err(format!("no uverbs node: {e}")),
            });
        });
        crate::plumbing::io::keep((which, indexes));
    }
}

/// Reads the class directory; `Err(errno)` when it cannot be read.
pub fn list() -> Result<Listing, Errno> {
    let class = Class::open()?;
    let names = match &class.0 {
        Some(d) => names_of(d)?,
        None => Vec::new(),
    };
    let mut devs: Vec<Dev> = Vec::with_capacity(names.len());
    devs.extend(names.into_iter().map(|name| Dev {
        name,
        nl: None,
        node: None,
    }));
    let (sock, netlink_error) = match dump(&mut devs) {
        Ok(s) => (Some(s), None),
        Err(e) => {
            for d in &mut devs {
                d.nl = None;
            }
            (None, Some(e.to_string()))
        }
    };
    Ok(Listing {
        devs,
        sock,
        netlink_error,
        class,
    })
}

/// Dumps the devices over netlink into `devs` (the device of each name); the socket is
/// kept for the uverbs nodes.
fn dump(devs: &mut [Dev]) -> uverbs::Result<NlSocket> {
    let mut s = NlSocket::open()?;
    // The device dump is one device per datagram, GET_CHARDEV one short answer.
    s.set_recv_buffer(NL_BUF);
    for d in s.devices()? {
        if let Some(dev) = devs.iter_mut().find(|x| x.name == d.name.as_bytes()) {
            dev.nl = Some(NlDev {
                index: d.index,
                node_type: d.node_type,
                node_guid: d.node_guid,
                sys_image_guid: d.sys_image_guid,
                fw: d.fw_version,
                port_count: d.port_count,
            });
        }
    }
    Ok(s)
}

/// The class directory of a device (or any name a user gave: the tools join it as is).
pub fn dev_dir(name: &[u8]) -> PathBuf {
    let mut p = PathBuf::from(CLASS);
    p.push(std::ffi::OsStr::from_bytes(name));
    p
}

/// A device's node type: netlink's, else sysfs `node_type` read as `strtoul` does.
pub fn node_type(class: &Class, d: &Dev) -> Result<u32, Errno> {
    if let Some(n) = &d.nl {
        return Ok(u32::from(n.node_type));
    }
    let a = class.attr(&[&d.name, b"node_type"]);
    match a {
        Attr::Text(t) => Ok(strtoul(limit(&t, 32))),
        other => Err(other.errno().unwrap_or(Errno::IO)),
    }
}

/// What `sys_read_string(..., max_len)` leaves of a file's text: at most `max_len - 1`
/// bytes, cut at the last newline.
pub fn limit(t: &[u8], max_len: usize) -> &[u8] {
    let v = &t[..t.len().min(max_len - 1)];
    // C strings end at a NUL.
    let v = match v.iter().position(|&b| b == 0) {
        Some(z) => &v[..z],
        None => v,
    };
    match v.iter().rposition(|&b| b == b'\n') {
        Some(nl) => &v[..nl],
        None => v,
    }
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
    class: &Class,
    d: &Dev,
    sock: Option<&mut NlSocket>,
    ports: &[Vec<u8>],
    cap_mask: bool,
) -> (Source, Vec<PortAttrs>) {
    let why = match (&d.nl, sock) {
        (Some(nl), sock) => match open(d, nl, sock) {
            Ok((ctx, path)) => {
                let mut v = Vec::with_capacity(ports.len());
                v.extend(
                    ports
                        .iter()
                        .map(|p| kernel_port(class, &ctx, d, nl, p, cap_mask)),
                );
                return (Source::Kernel(path), v);
            }
            Err(e) => e,
        },
        (None, _) => "RDMA netlink does not report it".to_owned(),
    };
    let mut v = Vec::with_capacity(ports.len());
    v.extend(
        ports
            .iter()
            .map(|p| sysfs_port(class, &d.name, p, cap_mask)),
    );
    (Source::Sysfs(why), v)
}

/// The uverbs node of `d`: the one found in advance, else asked for now.
fn node(d: &Dev, nl: &NlDev, sock: Option<&mut NlSocket>) -> Result<Node, String> {
    if let Some(n) = &d.node {
        return n.clone();
    }
    let sock = sock.ok_or_else(|| "no RDMA netlink socket".to_owned())?;
    let mut node = Err("no uverbs node".to_owned());
    sock.uverbs_chardevs(&[nl.index], |_, r| {
        node = match r {
            Ok(c) => Ok(Node::from_answer(&c)),
            Err(e) => Err(format!("no uverbs node: {e}")),
        };
    })
    .map_err(|e| e.to_string())?;
    node
}

fn open(d: &Dev, nl: &NlDev, sock: Option<&mut NlSocket>) -> Result<(Context, String), String> {
    let n = node(d, nl, sock)?;
    let t = OpenTarget {
        name: String::from_utf8_lossy(&d.name).into_owned(),
        path: Path::new("/dev/infiniband").join(&n.name),
        dev: Some(n.dev),
        driver_id: n.driver_id,
        driver_id_guess: None,
        fw_text: nl.fw.clone().unwrap_or_default(),
        port_count: Some(nl.port_count).filter(|n| *n > 0),
        sysfs_root: PathBuf::from("/sys"),
    };
    let ctx = Context::open_target(&t).map_err(|e| e.to_string())?;
    crate::plumbing::io::keep(t);
    Ok((ctx, n.name))
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
pub fn port_names(class: &Class, d: &Dev) -> Result<Vec<Vec<u8>>, Errno> {
    match &d.nl {
        Some(nl) if nl.node_type == 2 => Ok(vec![b"0".to_vec()]),
        Some(nl) => {
            let mut v: Vec<Vec<u8>> = (1..=nl.port_count)
                .map(|n| n.to_string().into_bytes())
                .collect();
            sort_names(&mut v);
            Ok(v)
        }
        None => class.names(&[&d.name, b"ports"]),
    }
}

/// The attribute texts of one port from one QUERY_PORT answer (and QUERY_GID_ENTRY for
/// index 0), in the kernel's sysfs formats.
pub fn kernel_port(
    class: &Class,
    ctx: &Context,
    d: &Dev,
    nl: &NlDev,
    p: &[u8],
    cap_mask: bool,
) -> PortAttrs {
    let Some(num) = port_number(nl, p) else {
        return PortAttrs::absent();
    };
    let text = Attr::Text;
    let port_attr = |f: &[u8]| class.attr(&[&d.name, b"ports", p, f]);
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
                lid_mask_count: text(number(a.lmc.into(), false)),
                sm_lid: text(number(a.sm_lid.into(), true)),
                sm_sl: text(number(a.sm_sl.into(), false)),
                lid: text(number(a.lid.into(), true)),
                state: text(state_text(a.state.as_raw())),
                phys_state: text(phys_state_text(a.phys_state.as_raw())),
                rate: match rate_text(a.active_width, speed) {
                    Ok(s) => text(s),
                    Err(e) => Attr::ReadError(e),
                },
                cap_mask: cap,
                link_layer: text(link_layer_text(a.link_layer).as_bytes().to_vec()),
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
pub fn sysfs_port(class: &Class, dev: &[u8], p: &[u8], cap_mask: bool) -> PortAttrs {
    let r = |f: &[u8]| class.attr(&[dev, b"ports", p, f]);
    let has_pkeys = class
        .names(&[dev, b"ports", p, b"pkeys"])
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
            b"2.5 Gb/sec (1X SDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Qdr).unwrap(),
            b"40 Gb/sec (4X QDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Fdr10).unwrap(),
            b"40 Gb/sec (4X FDR10)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Fdr).unwrap(),
            b"56 Gb/sec (4X FDR)\n"
        );
        assert_eq!(
            rate_text(Width::X1, Speed::Fdr).unwrap(),
            b"14 Gb/sec (1X FDR)\n"
        );
        assert_eq!(
            rate_text(Width::X12, Speed::Ddr).unwrap(),
            b"60 Gb/sec (12X DDR)\n"
        );
        assert_eq!(
            rate_text(Width::X2, Speed::Ndr).unwrap(),
            b"200 Gb/sec (2X NDR)\n"
        );
        assert_eq!(
            rate_text(Width::X4, Speed::Xdr).unwrap(),
            b"800 Gb/sec (4X XDR)\n"
        );
        // An unknown speed is SDR; an unknown width fails the read.
        assert_eq!(
            rate_text(Width::X2, Speed::Unknown(3)).unwrap(),
            b"5 Gb/sec (2X SDR)\n"
        );
        assert_eq!(rate_text(Width::Unknown(3), Speed::Sdr), Err(Errno::INVAL));
    }

    #[test]
    fn state_texts() {
        assert_eq!(state_text(4), b"4: ACTIVE\n");
        assert_eq!(state_text(5), b"5: ACTIVE_DEFER\n");
        assert_eq!(state_text(9), b"9: UNKNOWN\n");
        assert_eq!(phys_state_text(5), b"5: LinkUp\n");
        assert_eq!(phys_state_text(7), b"7: Phy Test\n");
        assert_eq!(phys_state_text(8), b"8: <unknown>\n");
        assert_eq!(
            gid_text(&[
                0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0xc8, 0x94, 0x8a, 0xff, 0xfe, 0x15, 0x36, 0xe8
            ]),
            b"fe80:0000:0000:0000:c894:8aff:fe15:36e8\n"
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
