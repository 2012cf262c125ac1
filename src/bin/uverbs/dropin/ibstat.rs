//! The `ibstat` personality (infiniband-diags 44) and `uverbs ibstat`.
//!
//! As `ibstat` it takes the real tool's options (its own `-l`, `-s`, `-p` and the
//! common `-z`, `-v`, `-d`, `-h`, `-V` of infiniband-diags, parsed by glibc's
//! `getopt_long` rules), lists the devices libibumad lists, and prints what ibstat
//! prints, with its warnings, panics and exit statuses. `uverbs ibstat` is the same
//! with one more option, `--json`.
//!
//! Which devices: libibumad lists the entries of `/sys/class/infiniband` whose node type
//! is 1 to 3 (channel adapter, switch, router), sorted by name; an iWARP RNIC such as
//! siw (node type 4) is left out, as are usNIC devices: libibumad is the interface to
//! InfiniBand management datagrams (MADs), which those devices do not have.
//!
//! The device model is libibumad's `umad_get_ca()`: it reads every port of a device and
//! fails as a whole when one attribute of one port cannot be read, so `-s`, `-p` and a
//! single port fail the same way (see [`gather`]).

use crate::dropin::ibca::{self, Dev, Listing, PortAttrs, Source};
use crate::plumbing::format::{dec, dec_i, hex};
use crate::plumbing::getopt::{c_strtol, opt, Getopt, LongOpt};
use crate::plumbing::io::Io;
use crate::plumbing::json::{self, J};
use uverbs::sysfs::attr::Attr;
use uverbs::types::{Guid, LinkLayer, NodeType, PhysState, PortCapFlags, PortState};

/// `UMAD_CA_NAME_LEN`: libibumad keeps 19 bytes of a device name (and of a link layer).
const CA_NAME_LEN: usize = 20;
/// `UMAD_CA_MAX_PORTS`: port directories 1..9 only.
const CA_MAX_PORTS: u32 = 10;

/// One option of an infiniband-diags tool, as its usage lists it.
struct DiagOpt {
    name: &'static str,
    letter: u8,
    arg: Option<&'static str>,
    desc: &'static str,
}

/// ibstat's options in usage order: its own, then the common ones it keeps.
const OPTS: &[DiagOpt] = &[
    DiagOpt {
        name: "list_of_cas",
        letter: b'l',
        arg: None,
        desc: "list all IB devices",
    },
    DiagOpt {
        name: "short",
        letter: b's',
        arg: None,
        desc: "short output",
    },
    DiagOpt {
        name: "port_list",
        letter: b'p',
        arg: None,
        desc: "show port list",
    },
    DiagOpt {
        name: "config",
        letter: b'z',
        arg: Some("<config>"),
        desc: "use config file, default: /etc/infiniband-diags/ibdiag.conf",
    },
    DiagOpt {
        name: "verbose",
        letter: b'v',
        arg: None,
        desc: "increase verbosity level",
    },
    DiagOpt {
        name: "debug",
        letter: b'd',
        arg: None,
        desc: "raise debug level",
    },
    DiagOpt {
        name: "help",
        letter: b'h',
        arg: None,
        desc: "help message",
    },
    DiagOpt {
        name: "version",
        letter: b'V',
        arg: None,
        desc: "show version",
    },
];

/// The `--json` option of `uverbs ibstat` (a long option without a letter).
const JSON_OPT: DiagOpt = DiagOpt {
    name: "json",
    letter: 1,
    arg: None,
    desc: "print JSON (uverbs; schema: docs/json-schema.md)",
};

const SHORTS: &str = "lspz:vdhV";
const LONGS: &[LongOpt] = &[
    opt("list_of_cas", false, b'l'),
    opt("short", false, b's'),
    opt("port_list", false, b'p'),
    opt("config", true, b'z'),
    opt("verbose", false, b'v'),
    opt("debug", false, b'd'),
    opt("help", false, b'h'),
    opt("version", false, b'V'),
];
const UVERBS_LONGS: &[LongOpt] = &[
    opt("list_of_cas", false, b'l'),
    opt("short", false, b's'),
    opt("port_list", false, b'p'),
    opt("config", true, b'z'),
    opt("verbose", false, b'v'),
    opt("debug", false, b'd'),
    opt("help", false, b'h'),
    opt("version", false, b'V'),
    opt("json", false, 1),
];

const EXAMPLES: &[&str] = &[
    "-l       # list all IB devices",
    "mthca0 2 # stat port 2 of 'mthca0'",
];

/// Prints `text` from column `start` of a `width`-column screen, breaking lines at
/// spaces as infiniband-diags' usage does: a line ends at the last space before the
/// right margin, unless no space follows it (then the rest goes on one line).
fn wrap(out: &mut Vec<u8>, start: usize, width: usize, text: &str) {
    let room = width.saturating_sub(start);
    let mut s = text.as_bytes();
    loop {
        while let Some((c, rest)) = s.split_first() {
            if c.is_ascii_whitespace() {
                s = rest;
            } else {
                break;
            }
        }
        let space_from = |i: usize| {
            s.get(i..)
                .and_then(|t| t.iter().position(|&b| b == b' '))
                .map(|k| k + i)
        };
        // The cut: just after the last space found before the margin.
        let mut cut = 1;
        let mut next = space_from(1);
        while let Some(p) = next {
            if p >= room {
                break;
            }
            cut = p + 1;
            next = space_from(cut);
        }
        let Some(p) = next else {
            out.extend_from_slice(s);
            return;
        };
        if cut == 1 {
            cut = p;
        }
        out.extend_from_slice(&s[..cut]);
        out.push(b'\n');
        out.extend(std::iter::repeat(b' ').take(start));
        s = &s[cut..];
    }
}

/// The usage text infiniband-diags prints on stderr (then exits with 2).
fn usage(argv0: &[u8], with_json: bool) -> Vec<u8> {
    let mut u = b"\nUsage: ".to_vec();
    u.extend_from_slice(argv0);
    u.extend_from_slice(b" [options] <ca_name> [portnum]\n\nOptions:\n");
    let json = [JSON_OPT];
    let extra: &[DiagOpt] = if with_json { &json } else { &[] };
    for o in OPTS.iter().chain(extra) {
        let mut line = format!("  --{}", o.name).into_bytes();
        if o.letter.is_ascii_graphic() {
            line.extend_from_slice(format!(", -{}", o.letter as char).as_bytes());
        }
        if let Some(a) = o.arg {
            line.extend_from_slice(format!(" {a}").as_bytes());
        }
        let pad = 24usize.saturating_sub(line.len());
        line.extend(std::iter::repeat(b' ').take(pad + 2));
        let col = line.len();
        u.extend_from_slice(&line);
        wrap(&mut u, col, 74, o.desc);
        u.push(b'\n');
    }
    u.extend_from_slice(b"\nExamples:\n");
    for e in EXAMPLES {
        u.extend_from_slice(b"  ");
        u.extend_from_slice(argv0);
        u.push(b' ');
        u.extend_from_slice(e.as_bytes());
        u.push(b'\n');
    }
    u.push(b'\n');
    u
}

/// What the command line asks.
#[derive(Default)]
struct Req {
    list_only: bool,
    short: bool,
    list_ports: bool,
    debug: u32,
    json: bool,
    ca: Option<Vec<u8>>,
    port: i32,
}

/// Name of a node type as ibstat prints it.
fn node_type_str(t: u32) -> &'static str {
    match t {
        1 => "CA",
        2 => "Switch",
        3 => "Router",
        4 => "iWARP RNIC",
        _ => "???",
    }
}

/// One device as `umad_get_ca()` fills `umad_ca_t`.
#[derive(Debug, Clone)]
pub struct Ca {
    /// The name as libibumad keeps it (at most 19 bytes).
    pub name: Vec<u8>,
    pub node_type: u32,
    pub ca_type: Vec<u8>,
    pub fw_ver: Vec<u8>,
    pub hw_ver: Vec<u8>,
    pub node_guid: u64,
    pub system_guid: u64,
    pub numports: u32,
    /// Index = port number (0..=numports); `None` where there is no such port.
    pub ports: Vec<Option<Port>>,
    pub source: Source,
    /// The errno the reads left (C's `errno` after `umad_get_ca()`: that of the last
    /// attribute it could not read, such as a missing `hw_rev`), for a later `%m`.
    pub errno: i32,
}

/// One port as `get_port()` fills `umad_port_t`.
#[derive(Debug, Clone)]
pub struct Port {
    pub portnum: u32,
    pub state: u32,
    pub phys_state: u32,
    pub rate: u32,
    pub fdr10: bool,
    pub rate_text: Option<Vec<u8>>,
    pub base_lid: u32,
    pub lmc: u32,
    pub sm_lid: u32,
    pub capmask: u32,
    pub gid: [u8; 16],
    pub link_layer: Vec<u8>,
}

impl Port {
    fn port_guid(&self) -> u64 {
        u64::from_be_bytes(self.gid[8..].try_into().unwrap_or([0; 8]))
    }
}

/// Why `umad_get_ca()` failed: the errno `%m` then prints, and a warning libibumad
/// printed on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaFailure {
    pub errno: i32,
    pub warning: Option<String>,
}

/// The errno the reads leave behind, as C's `errno` (only failures change it).
struct CErrno(i32);

impl CErrno {
    fn note(&mut self, a: &Attr) {
        if let Some(e) = a.errno() {
            self.0 = e.raw_os_error();
        }
    }
}

/// A number file as `sys_read_uint` reads it.
fn uint(a: &Attr, errno: &mut CErrno) -> Result<u32, ()> {
    errno.note(a);
    a.text()
        .map(|t| ibca::strtoul(ibca::limit(t, 32)))
        .ok_or(())
}

/// A string file as `sys_read_string` reads it into a `max`-byte buffer; empty when the
/// file cannot be read.
fn string(a: &Attr, max: usize, errno: &mut CErrno) -> Vec<u8> {
    errno.note(a);
    a.text()
        .map(|t| ibca::limit(t, max).to_vec())
        .unwrap_or_default()
}

/// `strtoul(s, NULL, 16)` of one GUID/GID group, masked to 16 bits.
fn hex16(s: &[u8]) -> u16 {
    let s = match s {
        [b'0', x, rest @ ..]
            if (x | 0x20) == b'x' && rest.first().is_some_and(u8::is_ascii_hexdigit) =>
        {
            rest
        }
        _ => s,
    };
    let mut v: u64 = 0;
    for &c in s {
        let Some(d) = (c as char).to_digit(16) else {
            break;
        };
        v = v.saturating_mul(16).saturating_add(u64::from(d));
    }
    v as u16
}

/// `sys_read_gid`/`sys_read_guid`: `N` fields separated by any of `: \t\n` (empty
/// fields included, as `strsep` gives them); `None` when there are fewer.
fn groups<const N: usize>(t: &[u8], max: usize) -> Option<[u16; N]> {
    let t = &t[..t.len().min(max - 1)];
    let t = &t[..t.iter().position(|&b| b == 0).unwrap_or(t.len())];
    let mut v = [0; N];
    let mut fields = t.split(|b| b": \t\n".contains(b));
    for x in &mut v {
        *x = hex16(fields.next()?);
    }
    Some(v)
}

fn guid_from_sysfs(a: &Attr, errno: &mut CErrno) -> Result<u64, ()> {
    errno.note(a);
    let g = groups::<4>(a.text().ok_or(())?, 32).ok_or(())?;
    Ok(g.iter().fold(0u64, |acc, &x| (acc << 16) | u64::from(x)))
}

/// `get_port()`: the attributes in libibumad's order, the first failure stopping it.
fn get_port(
    ca_name: &[u8],
    num: u32,
    a: &PortAttrs,
    errno: &mut CErrno,
) -> Result<Port, Option<String>> {
    let lmc = uint(&a.lid_mask_count, errno).map_err(|_| None)?;
    let sm_lid = uint(&a.sm_lid, errno).map_err(|_| None)?;
    uint(&a.sm_sl, errno).map_err(|_| None)?;
    let base_lid = uint(&a.lid, errno).map_err(|_| None)?;
    let state = uint(&a.state, errno).map_err(|_| None)?;
    let phys_state = uint(&a.phys_state, errno).map_err(|_| None)?;
    let rate = uint(&a.rate, errno).map_err(|_| None)?;
    let capmask = match &a.cap_mask {
        Some(c) => uint(c, errno).map_err(|_| None)?,
        None => 0,
    };
    errno.note(&a.link_layer);
    let link_layer = match a.link_layer.text() {
        Some(t) => ibca::limit(t, CA_NAME_LEN).to_vec(),
        None => b"IB".to_vec(),
    };
    errno.note(&a.gid0);
    let g = a.gid0.text().and_then(|t| groups::<8>(t, 64)).ok_or(None)?;
    let mut gid = [0u8; 16];
    for (i, x) in g.iter().enumerate() {
        gid[i * 2..i * 2 + 2].copy_from_slice(&x.to_be_bytes());
    }
    if !a.has_pkeys {
        errno.0 = 2;
        let mut w = String::from("no pkeys found for ");
        w.push_str(&String::from_utf8_lossy(ca_name));
        w.push_str(&format!(":{num} (at dir "));
        w.push_str(
            &ibca::dev_dir(ca_name)
                .join("ports")
                .join(num.to_string())
                .join("pkeys")
                .display()
                .to_string(),
        );
        w.push_str(")...");
        return Err(Some(w));
    }
    // ibstat reads `rate` a second time for its FDR10 test: the text before ')' ends
    // in "FDR10".
    let text = a.rate.text().map(|t| ibca::limit(t, 32).to_vec());
    let fdr10 = text.as_ref().is_some_and(|t| {
        t.iter()
            .position(|&b| b == b')')
            .is_some_and(|p| p >= 5 && t[p - 5..p].eq_ignore_ascii_case(b"fdr10"))
    });
    Ok(Port {
        portnum: num,
        state,
        phys_state,
        rate,
        fdr10,
        rate_text: text,
        base_lid,
        lmc,
        sm_lid,
        capmask,
        gid,
        link_layer,
    })
}

/// `umad_get_ca()` for the device called `name`.
pub fn gather(l: &mut Listing, name: &[u8], trace: &mut Trace) -> Result<Ca, CaFailure> {
    // libibumad copies the name into a 20-byte buffer and reads the device it names.
    let kept = &name[..name.len().min(CA_NAME_LEN - 1)];
    let fail = |errno: i32| CaFailure {
        errno,
        warning: None,
    };
    let unlisted;
    let dev: &Dev = match l.devs.iter().find(|d| d.name == kept) {
        Some(d) => d,
        None => {
            unlisted = Dev::named(kept);
            &unlisted
        }
    };
    let class = &l.class;
    let node_type = ibca::node_type(class, dev).map_err(|e| fail(e.raw_os_error()))?;
    let mut errno = CErrno(0);
    let fw = match dev.nl.as_ref() {
        Some(n) => {
            let mut t = n.fw.as_deref().unwrap_or("").as_bytes().to_vec();
            t.push(b'\n');
            Attr::Text(t)
        }
        None => class.attr(&[kept, b"fw_ver"]),
    };
    let fw_ver = string(&fw, 20, &mut errno);
    let hw_ver = string(&class.attr(&[kept, b"hw_rev"]), 20, &mut errno);
    let ca_type = string(&class.attr(&[kept, b"hca_type"]), 40, &mut errno);
    let node_guid = match dev.nl.as_ref() {
        Some(n) => n.node_guid,
        None => guid_from_sysfs(&class.attr(&[kept, b"node_guid"]), &mut errno)
            .map_err(|_| fail(errno.0))?,
    };
    let system_guid = match dev.nl.as_ref().and_then(|n| n.sys_image_guid) {
        Some(g) => g,
        None => guid_from_sysfs(&class.attr(&[kept, b"sys_image_guid"]), &mut errno)
            .map_err(|_| fail(errno.0))?,
    };
    let names = ibca::port_names(class, dev).map_err(|_| fail(2))?;
    // Port directories must be 0 or 1..9.
    let mut nums = Vec::with_capacity(names.len());
    for n in &names {
        let num = if n.as_slice() == b"0" {
            0
        } else {
            let v = atoi(n);
            if v <= 0 || v as u32 >= CA_MAX_PORTS {
                return Err(fail(errno.0));
            }
            v as u32
        };
        nums.push(num);
    }
    let (source, attrs) = ibca::read_ports(class, dev, l.sock.as_mut(), &names, true);
    trace.add(|| match &source {
        Source::Kernel(p) => format!(
            "{}: ports from QUERY_PORT on /dev/infiniband/{p}",
            String::from_utf8_lossy(kept)
        ),
        Source::Sysfs(why) => format!(
            "{}: ports from sysfs ({why})",
            String::from_utf8_lossy(kept)
        ),
    });
    let numports = nums.iter().copied().max().unwrap_or(0);
    let mut ports: Vec<Option<Port>> = vec![None; numports as usize + 1];
    for (num, a) in nums.iter().zip(&attrs) {
        match get_port(kept, *num, a, &mut errno) {
            Ok(p) => ports[*num as usize] = Some(p),
            Err(warning) => {
                return Err(CaFailure {
                    errno: errno.0,
                    warning,
                })
            }
        }
    }
    Ok(Ca {
        name: kept.to_vec(),
        node_type,
        ca_type,
        fw_ver,
        hw_ver,
        node_guid,
        system_guid,
        numports,
        ports,
        source,
        errno: errno.0,
    })
}

/// C's `atoi`.
fn atoi(s: &[u8]) -> i64 {
    c_strtol_dec(s)
}

fn c_strtol_dec(s: &[u8]) -> i64 {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let neg = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        i += 1;
    }
    let mut v: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(i64::from(s[i] - b'0'));
        i += 1;
    }
    if neg {
        -v
    } else {
        v
    }
}

/// Appends each piece to `o`, in order.
fn put(o: &mut Vec<u8>, pieces: &[&[u8]]) {
    for p in pieces {
        o.extend_from_slice(p);
    }
}

fn ca_header(o: &mut Vec<u8>, ca: &Ca) {
    let t = node_type_str(ca.node_type).as_bytes();
    put(
        o,
        &[t, b" '", &ca.name, b"'\n\t", t, b" type: ", &ca.ca_type],
    );
    o.extend_from_slice(b"\n\tNumber of ports: ");
    dec(o, ca.numports);
    put(o, &[b"\n\tFirmware version: ", &ca.fw_ver]);
    put(o, &[b"\n\tHardware version: ", &ca.hw_ver]);
    o.extend_from_slice(b"\n\tNode GUID: 0x");
    hex(o, ca.node_guid, 16);
    o.extend_from_slice(b"\n\tSystem image GUID: 0x");
    hex(o, ca.system_guid, 16);
    o.push(b'\n');
}

fn port_block(o: &mut Vec<u8>, p: &Port, alone: bool) {
    const STATES: [&str; 5] = ["???", "Down", "Initializing", "Armed", "Active"];
    const PHYS: [&str; 8] = [
        "No state change",
        "Sleep",
        "Polling",
        "Disabled",
        "PortConfigurationTraining",
        "LinkUp",
        "LinkErrorRecovery",
        "PhyTest",
    ];
    let (hdr, pre) = if alone { ("", "") } else { ("\t", "\t\t") };
    let state = STATES.get(p.state as usize).copied().unwrap_or("???");
    let phys = PHYS.get(p.phys_state as usize).copied().unwrap_or("???");
    let (hdr, pre) = (hdr.as_bytes(), pre.as_bytes());
    // The C tool prints these unsigned fields with %d.
    let int = |o: &mut Vec<u8>, v: u32| dec_i(o, v as i32);
    put(o, &[hdr, b"Port "]);
    dec(o, p.portnum);
    put(o, &[b":\n", pre, b"State: ", state.as_bytes(), b"\n"]);
    put(
        o,
        &[
            pre,
            b"Physical state: ",
            phys.as_bytes(),
            b"\n",
            pre,
            b"Rate: ",
        ],
    );
    if p.fdr10 {
        int(o, p.rate);
        o.extend_from_slice(b" (FDR10)");
    } else if p.rate != 2 {
        int(o, p.rate);
    } else {
        o.extend_from_slice(b"2.5");
    }
    put(o, &[b"\n", pre, b"Base lid: "]);
    int(o, p.base_lid);
    put(o, &[b"\n", pre, b"LMC: "]);
    int(o, p.lmc);
    put(o, &[b"\n", pre, b"SM lid: "]);
    int(o, p.sm_lid);
    put(o, &[b"\n", pre, b"Capability mask: 0x"]);
    hex(o, u64::from(p.capmask), 8);
    put(o, &[b"\n", pre, b"Port GUID: 0x"]);
    hex(o, p.port_guid(), 16);
    put(o, &[b"\n", pre, b"Link layer: ", &p.link_layer, b"\n"]);
}

/// The process id, as the C tools print it in their warnings.
fn pid() -> u32 {
    std::process::id()
}

/// `IBWARN`: one line on stderr naming the C function.
fn warn(io: &mut Io, func: &str, msg: &[u8]) {
    let mut m = format!("ibwarn: [{}] {func}: ", pid()).into_bytes();
    m.extend_from_slice(msg);
    m.push(b'\n');
    io.err(m);
}

/// `IBPANIC` from `main`: the message, `: ` and the errno's text; exit status 255.
fn panic(io: &mut Io, msg: &[u8], errno: i32) -> i32 {
    let mut m = format!("ibpanic: [{}] main: ", pid()).into_bytes();
    m.extend_from_slice(msg);
    m.extend_from_slice(b": ");
    m.extend_from_slice(ibca::strerror(errno).as_bytes());
    m.push(b'\n');
    io.err(m);
    255
}

fn quoted(a: &[u8], b: &[u8], c: &[u8]) -> Vec<u8> {
    let mut v = a.to_vec();
    v.extend_from_slice(b);
    v.extend_from_slice(c);
    v
}

/// `ibstat ARGS`, invoked as `argv0`.
pub fn compat(io: &mut Io, argv0: &[u8], args: &[Vec<u8>]) -> i32 {
    run(io, argv0, args, false)
}

/// `uverbs ibstat ARGS`: ibstat with `--json`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    run(io, b"ibstat", args, true)
}

fn run(io: &mut Io, argv0: &[u8], args: &[Vec<u8>], uverbs: bool) -> i32 {
    let longs = if uverbs { UVERBS_LONGS } else { LONGS };
    let mut g = Getopt::new(args, SHORTS, longs);
    let mut req = Req {
        port: -1,
        ..Req::default()
    };
    while let Some(r) = g.next_opt() {
        match r {
            Ok((b'l', _)) => req.list_only = true,
            Ok((b's', _)) => req.short = true,
            Ok((b'p', _)) => req.list_ports = true,
            // The config file sets defaults (CA, port, timeouts, keys) that ibstat does
            // not use: it is not read.
            Ok((b'z', _)) => {}
            Ok((b'v', _)) => {}
            Ok((b'd', _)) => req.debug += 1,
            Ok((b'V', _)) => {
                let mut m = argv0.to_vec();
                m.extend_from_slice(
                    concat!(" BUILD VERSION: uverbs ", env!("CARGO_PKG_VERSION"), "\n").as_bytes(),
                );
                io.err(m);
                return 0;
            }
            Ok((1, _)) => req.json = true,
            Ok(_) => {
                io.err(usage(argv0, uverbs));
                return 2;
            }
            Err(e) => {
                io.err(e.glibc_message(argv0));
                io.err(usage(argv0, uverbs));
                return 2;
            }
        }
    }
    let ops = &g.operands;
    req.ca = ops.first().cloned();
    if let Some(p) = ops.get(1) {
        req.port = c_strtol(p) as i32;
    }
    show(io, &req)
}

fn show(io: &mut Io, req: &Req) -> i32 {
    crate::plumbing::io::warm_heap();
    // libibumad traces from its debug level 1, which the second -d sets.
    let mut trace = Trace {
        on: req.debug >= 2,
        lines: Vec::new(),
    };
    let mut listing = match ibca::list() {
        Ok(l) => l,
        Err(e) if e == rustix::io::Errno::NOENT => Listing::empty(),
        Err(e) => return panic(io, b"can't list IB device names", e.raw_os_error()),
    };
    let rc = show_listed(io, req, &mut listing, &mut trace);
    // The process ends now: the listing goes with it.
    crate::plumbing::io::keep(listing);
    rc
}

fn show_listed(io: &mut Io, req: &Req, listing: &mut Listing, trace: &mut Trace) -> i32 {
    // libibumad's list: node types 1 (CA), 2 (switch), 3 (router), sorted by name.
    let mut skipped = Vec::new();
    let cas: Vec<Vec<u8>> = listing
        .devs
        .iter()
        .filter(|d| {
            let ok = ibca::node_type(&listing.class, d).is_ok_and(|t| (1..=3).contains(&t));
            if !ok {
                skipped.push(String::from_utf8_lossy(&d.name).into_owned());
            }
            ok
        })
        .map(|d| d.name.clone())
        .collect();
    if let Some(e) = &listing.netlink_error {
        trace.add(|| format!("RDMA netlink: {e}; reading sysfs"));
    }
    trace.add(|| {
        format!(
            "{} entries in {}, {} listed (node types 1-3){}",
            listing.devs.len(),
            ibca::CLASS,
            cas.len(),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(
                    "; not listed: {} (no InfiniBand management)",
                    skipped.join(", ")
                )
            }
        )
    });
    let chosen: Vec<Vec<u8>> = match &req.ca {
        Some(n) => match cas.iter().find(|c| c == &n) {
            Some(c) => vec![c.clone()],
            None => {
                flush_trace(io, req, trace);
                if req.json {
                    io.err(quoted(b"ibstat: '", n, b"' IB device can't be found\n"));
                    return 255;
                }
                return panic(io, &quoted(b"'", n, b"' IB device can't be found"), 0);
            }
        },
        None => cas,
    };
    if !req.list_only || req.list_ports || req.json {
        // Their uverbs nodes, in one netlink exchange.
        listing.find_nodes(|d| chosen.contains(&d.name));
    }
    if req.json {
        return json_out(io, req, listing, &chosen, trace);
    }
    // One buffer for the whole output, handed to `io` device by device.
    let mut out = Vec::with_capacity(4096);
    if req.list_ports {
        for name in &chosen {
            let r = gather(listing, name, trace);
            flush_trace(io, req, trace);
            match r {
                Ok(ca) => {
                    for p in ca.ports.iter().flatten() {
                        if p.port_guid() != 0 {
                            out.extend_from_slice(format!("0x{:016x}\n", p.port_guid()).as_bytes());
                        }
                    }
                    io.out(&out);
                    out.clear();
                }
                Err(f) => {
                    if let Some(w) = &f.warning {
                        warn(io, "get_port", w.as_bytes());
                    }
                    return panic(io, b"can't list ports", f.errno);
                }
            }
        }
        flush_trace(io, req, trace);
        return 0;
    }
    flush_trace(io, req, trace);
    for name in &chosen {
        if req.list_only {
            out.extend_from_slice(name);
            out.push(b'\n');
            continue;
        }
        let r = gather(listing, name, trace);
        flush_trace(io, req, trace);
        let ca = match r {
            Ok(ca) => ca,
            Err(f) => {
                io.out(&out);
                out.clear();
                if let Some(w) = &f.warning {
                    warn(io, "get_port", w.as_bytes());
                }
                return panic(
                    io,
                    &quoted(b"stat of IB device '", name, b"' failed"),
                    f.errno,
                );
            }
        };
        if !req.short && req.port >= 0 {
            let p = req.port as usize;
            match ca.ports.get(p).and_then(Option::as_ref) {
                Some(port) if req.port as u32 <= ca.numports => {
                    out.extend_from_slice(format!("{}: '", node_type_str(ca.node_type)).as_bytes());
                    out.extend_from_slice(&ca.name);
                    out.extend_from_slice(b"'\n");
                    port_block(&mut out, port, true);
                }
                _ => {
                    io.out(&out);
                    out.clear();
                    let mut w = format!("{}: '", node_type_str(ca.node_type)).into_bytes();
                    w.extend_from_slice(name);
                    w.extend_from_slice(
                        format!("' has no port number {} - max ({})", req.port, ca.numports)
                            .as_bytes(),
                    );
                    warn(io, "ca_stat", &w);
                    return panic(
                        io,
                        &quoted(b"stat of IB device '", name, b"' failed"),
                        ca.errno,
                    );
                }
            }
            continue;
        }
        ca_header(&mut out, &ca);
        if !req.short {
            for p in ca.ports.iter().flatten() {
                port_block(&mut out, p, false);
            }
        }
        io.out(&out);
        out.clear();
    }
    io.out(out);
    0
}

/// The debug lines that replace libibumad's traces (`-dd`), kept until printed.
pub struct Trace {
    on: bool,
    lines: Vec<String>,
}

impl Trace {
    fn add(&mut self, line: impl FnOnce() -> String) {
        if self.on {
            self.lines.push(line());
        }
    }
}

fn flush_trace(io: &mut Io, _req: &Req, trace: &mut Trace) {
    for t in trace.lines.drain(..) {
        io.err_line(&format!("uverbs: ibstat: {t}"));
    }
}

// ---------------------------------------------------------------- JSON

fn guid(v: u64) -> J {
    J::s(Guid(v).to_string())
}

fn text_j(t: &[u8]) -> J {
    J::s(String::from_utf8_lossy(t).into_owned())
}

/// The rate of a port in Gb/s from its sysfs text (`2.5 Gb/sec (1X SDR)`), as a number.
pub fn rate_gbps(text: &[u8]) -> J {
    let end = text
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'.'))
        .unwrap_or(text.len());
    let num = &text[..end];
    if num.is_empty() || num.starts_with(b".") || num.ends_with(b".") {
        return J::Null;
    }
    J::Num(String::from_utf8_lossy(num).into_owned())
}

/// A link layer text as an enum (`IB`, libibumad's default, is InfiniBand).
pub fn link_layer_j(text: &[u8]) -> J {
    let l = match text {
        b"InfiniBand" | b"IB" => LinkLayer::InfiniBand,
        b"Ethernet" => LinkLayer::Ethernet,
        _ => LinkLayer::Unspecified,
    };
    json::enm(l.c_name(), J::u(l.as_raw()))
}

fn port_j(p: &Port) -> J {
    let cap = PortCapFlags::from_bits_retain(p.capmask);
    J::Obj(vec![
        ("port", J::u(p.portnum)),
        (
            "state",
            json::enm(
                PortState::from_raw(p.state as u8)
                    .c_name()
                    .filter(|_| p.state <= 0xff),
                J::u(p.state),
            ),
        ),
        (
            "phys_state",
            json::enm(
                PhysState::from_raw(p.phys_state as u8)
                    .c_name()
                    .filter(|_| p.phys_state <= 0xff),
                J::u(p.phys_state),
            ),
        ),
        (
            "rate_gbps",
            p.rate_text.as_deref().map_or(J::Null, rate_gbps),
        ),
        ("rate_text", p.rate_text.as_deref().map_or(J::Null, text_j)),
        ("fdr10", J::Num(p.fdr10.to_string())),
        ("base_lid", J::u(p.base_lid)),
        ("lmc", J::u(p.lmc)),
        ("sm_lid", J::u(p.sm_lid)),
        (
            "capability_mask",
            json::flags(
                u64::from(cap.bits()),
                cap.iter_names().map(|(n, f)| (n, u64::from(f.bits()))),
            ),
        ),
        ("port_guid", guid(p.port_guid())),
        ("link_layer", link_layer_j(&p.link_layer)),
    ])
}

fn ca_j(name: &[u8], r: &Result<Ca, CaFailure>, port: i32) -> (J, Option<String>) {
    let mut err = None;
    let mut members = vec![("name", text_j(name))];
    match r {
        Ok(ca) => {
            let nt = NodeType::from_raw(ca.node_type);
            let mut ports = Vec::new();
            if port >= 0 {
                match ca.ports.get(port as usize).and_then(Option::as_ref) {
                    Some(p) => ports.push(port_j(p)),
                    None => {
                        err = Some(format!(
                            "{}: '{}' has no port number {port} - max ({})",
                            node_type_str(ca.node_type),
                            String::from_utf8_lossy(name),
                            ca.numports
                        ))
                    }
                }
            } else {
                ports.extend(ca.ports.iter().flatten().map(port_j));
            }
            members.extend([
                ("node_type", json::enm(nt.c_name(), J::u(ca.node_type))),
                ("ca_type", text_j(&ca.ca_type)),
                ("port_count", J::u(ca.numports)),
                ("fw_ver", text_j(&ca.fw_ver)),
                ("hw_ver", text_j(&ca.hw_ver)),
                ("node_guid", guid(ca.node_guid)),
                ("sys_image_guid", guid(ca.system_guid)),
                (
                    "source",
                    J::s(match ca.source {
                        Source::Kernel(_) => "kernel",
                        Source::Sysfs(_) => "sysfs",
                    }),
                ),
                ("ports", J::Arr(ports)),
            ]);
            members.push((
                "error",
                err.as_ref().map_or(J::Null, |m| {
                    J::Obj(vec![
                        ("stage", J::s("port")),
                        ("errno", J::Null),
                        ("message", J::s(m.clone())),
                    ])
                }),
            ));
        }
        Err(f) => {
            let m = format!(
                "stat of IB device '{}' failed: {}",
                String::from_utf8_lossy(name),
                ibca::strerror(f.errno)
            );
            members.push((
                "error",
                J::Obj(vec![
                    ("stage", J::s("stat")),
                    ("errno", J::u(f.errno as u32)),
                    ("message", J::s(m.clone())),
                ]),
            ));
            err = Some(m);
        }
    }
    (J::Obj(members), err)
}

fn json_out(io: &mut Io, req: &Req, l: &mut Listing, chosen: &[Vec<u8>], trace: &mut Trace) -> i32 {
    let mut cas = Vec::new();
    let mut rc = 0;
    for name in chosen {
        let r = gather(l, name, trace);
        flush_trace(io, req, trace);
        let (j, err) = ca_j(name, &r, if req.short { -1 } else { req.port });
        if let Some(e) = err {
            io.err_line(&format!("ibstat: {e}"));
            rc = 255;
        }
        cas.push(j);
    }
    let doc = json::document("cas", J::Arr(cas));
    io.out(doc.pretty());
    rc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_as_infiniband_diags_lays_it_out() {
        let u = String::from_utf8(usage(b"ibstat", false)).unwrap();
        // Observed from infiniband-diags 44's ibstat in the test VM.
        let want = [
            "",
            "Usage: ibstat [options] <ca_name> [portnum]",
            "",
            "Options:",
            "  --list_of_cas, -l       list all IB devices",
            "  --short, -s             short output",
            "  --port_list, -p         show port list",
            "  --config, -z <config>   use config file, default: /etc/infiniband-diags/ibdiag.conf",
            "  --verbose, -v           increase verbosity level",
            "  --debug, -d             raise debug level",
            "  --help, -h              help message",
            "  --version, -V           show version",
            "",
            "Examples:",
            "  ibstat -l       # list all IB devices",
            "  ibstat mthca0 2 # stat port 2 of 'mthca0'",
            "",
            "",
        ]
        .join("\n");
        assert_eq!(u, want);
        let u = String::from_utf8(usage(b"ibstat", true)).unwrap();
        assert!(u.contains(
            "\n  --json                  print JSON (uverbs; schema: docs/json-schema.md)\n"
        ));
    }

    #[test]
    fn wrapping_breaks_at_the_last_space_before_the_margin() {
        let mut o = Vec::new();
        wrap(
            &mut o,
            26,
            74,
            "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm",
        );
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii \n                          jjjj kkkk llll mmmm"
        );
        // A first word longer than the room stays whole.
        let mut o = Vec::new();
        wrap(&mut o, 70, 74, "abcdefgh ij kl");
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "abcdefgh\n                                                                      ij kl"
        );
    }

    fn port(state: u32, rate: u32, text: &str) -> Port {
        Port {
            portnum: 1,
            state,
            phys_state: 5,
            rate,
            fdr10: text.contains("FDR10"),
            rate_text: Some(text.as_bytes().to_vec()),
            base_lid: 3,
            lmc: 0,
            sm_lid: 1,
            capmask: 0x2651e848,
            gid: [
                0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 0x11, 0x22, 0x33,
            ],
            link_layer: b"InfiniBand".to_vec(),
        }
    }

    #[test]
    fn port_blocks() {
        let mut o = Vec::new();
        port_block(&mut o, &port(4, 40, "40 Gb/sec (4X FDR10)"), true);
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "Port 1:\nState: Active\nPhysical state: LinkUp\nRate: 40 (FDR10)\nBase lid: 3\nLMC: 0\nSM lid: 1\n\
             Capability mask: 0x2651e848\nPort GUID: 0x0002c90300112233\nLink layer: InfiniBand\n"
        );
        let mut o = Vec::new();
        port_block(&mut o, &port(7, 2, "2.5 Gb/sec (1X SDR)"), false);
        let s = String::from_utf8(o).unwrap();
        assert!(s.starts_with("\tPort 1:\n\t\tState: ???\n"), "{s}");
        assert!(s.contains("\t\tRate: 2.5\n"), "{s}");
    }

    #[test]
    fn gid_and_guid_fields_as_strsep_and_strtoul_read_them() {
        assert_eq!(
            groups::<8>(b"fe80:0000:0000:0000:0002:c903:0011:2233\n", 64),
            Some([0xfe80, 0, 0, 0, 2, 0xc903, 0x11, 0x2233])
        );
        assert_eq!(
            groups::<4>(b"0002:c903:0011\n", 32),
            Some([2, 0xc903, 0x11, 0])
        );
        assert_eq!(groups::<4>(b"0002:c903\n", 32), None);
        assert_eq!(hex16(b"12345"), 0x2345);
    }

    #[test]
    fn json_rates() {
        assert_eq!(rate_gbps(b"2.5 Gb/sec (1X SDR)"), J::Num("2.5".into()));
        assert_eq!(rate_gbps(b"100 Gb/sec (4X EDR)"), J::Num("100".into()));
        assert_eq!(rate_gbps(b"Gb/sec"), J::Null);
    }
}
