//! The properties checked on input from outside the process, one function per kind:
//! HTTP request heads (the exporter's server), RDMA netlink datagrams, kernel uevents
//! and sysfs text (IPoIB's included). Each takes raw bytes, panics when a property
//! does not hold and returns what the input turned out to be (an [`Outcome`], which the
//! bounded harness counts).
//!
//! Two fuzzers drive the same functions: the bounded harness of this test binary (its
//! own generators, under `cargo test` and Miri) and the coverage-guided targets of
//! `tests/fuzz/coverage` (libFuzzer), which include this file with `#[path]`. So what
//! libFuzzer finds fails here too, and the input it saved, kept under
//! `tests/fuzz/crashes/TARGET/`, is replayed by `cargo test` (`coverage.rs`).
//!
//! Self-contained on purpose (std and uverbs only), so that the other crate can include
//! it: the crate that includes it provides `crate::http`, the command's
//! `src/bin/uverbs/plumbing/http.rs` included with `#[path]` too.

use uverbs::netlink::nldev::{
    parse_chardev, parse_device, parse_hw_counters, parse_notify, parse_res_summary, TYPE_GET,
    TYPE_GET_CHARDEV, TYPE_RES_GET, TYPE_STAT_GET,
};
use uverbs::netlink::{attrs, link, messages, nl_type, parse_answer, Step};
use uverbs::raw::abi::netlink::*;
use uverbs::sysfs::stats::{parse_counter, parse_rate, parse_state, CounterText};
use uverbs::sysfs::{parse_dev, parse_guid, parse_node_type, parse_u32};
use uverbs::{Error, FwVersion, Gid, NodeType, PortAttr};

/// What one execution of a target observed, counted per target (shows that the
/// inputs reach both the accepting and the rejecting paths).
pub type Outcome = &'static str;

/// A check: the bytes in, what they were out (panics when a property fails).
pub type Check = fn(&[u8]) -> Outcome;

/// The coverage-guided targets: each is a binary of `tests/fuzz/coverage` of the same
/// name, and a folder of kept inputs under `tests/fuzz/crashes`.
pub const TARGETS: &[(&str, Check)] = &[
    ("http", http),
    ("netlink", netlink),
    ("uevent", uevent),
    ("sysfs", sysfs),
];

/// Findings listed in `UVERBS_FUZZ_KNOWN` (comma separated ids, see tests/regressions.rs)
/// are not asserted, to look past a finding whose fix has not landed yet.
pub fn known(id: &str) -> bool {
    std::env::var("UVERBS_FUZZ_KNOWN").is_ok_and(|v| v.split(',').any(|k| k.trim() == id))
}

/// True when `inner` lies within `outer` (a decoder handed out a borrowed slice of its
/// input, not of something else).
pub fn within(outer: &[u8], inner: &[u8]) -> bool {
    let o = outer.as_ptr() as usize;
    let i = inner.as_ptr() as usize;
    inner.is_empty() || (i >= o && i + inner.len() <= o + outer.len())
}

// ------------------------------------------------------------------------ HTTP

/// What the exporter's server does with the bytes a client sent: parses a head,
/// drops the bytes it claims and parses the rest (pipelined requests), until the
/// buffer holds no complete head. A head never claims more bytes than it was given,
/// nor none (the loop would not end), nor more than `MAX_HEAD`; it ends with its blank
/// line; it reads the same alone and followed by anything; an incomplete buffer stays
/// under `MAX_HEAD` (what a connection may hold) and its prefixes are incomplete too.
pub fn http(b: &[u8]) -> Outcome {
    use crate::http::{parse_head, Parsed, MAX_HEAD};
    let mut rest = b;
    let mut heads = 0;
    loop {
        match parse_head(rest) {
            Parsed::Head(h) => {
                assert!(
                    h.len > 0 && h.len <= rest.len(),
                    "a head of {} bytes claimed from {}",
                    h.len,
                    rest.len()
                );
                assert!(h.len <= MAX_HEAD, "a head of {} bytes", h.len);
                let head = &rest[..h.len];
                assert!(
                    head.ends_with(b"\n\n") || head.ends_with(b"\n\r\n"),
                    "a head that does not end with its blank line"
                );
                assert_eq!(parse_head(head), Parsed::Head(h.clone()), "the head alone");
                let mut more = head.to_vec();
                more.extend_from_slice(b"GET /next HTTP/1.1\r\n");
                assert_eq!(
                    parse_head(&more),
                    Parsed::Head(h.clone()),
                    "with more after"
                );
                assert!(
                    !h.method.is_empty() && h.method.bytes().all(|c| c.is_ascii_uppercase()),
                    "method {:?}",
                    h.method
                );
                assert!(
                    h.path.starts_with('/')
                        && !h.path.contains('?')
                        && !h.path.bytes().any(|c| c == b' ' || c.is_ascii_control()),
                    "path {:?}",
                    h.path
                );
                // The request line (after any blank lines) names them.
                let line = head.iter().position(|&c| c != b'\r' && c != b'\n');
                let line = &head[line.unwrap_or(0)..];
                assert!(line.starts_with(format!("{} {}", h.method, h.path).as_bytes()));
                heads += 1;
                rest = &rest[h.len..];
            }
            Parsed::Incomplete => {
                assert!(
                    rest.len() < MAX_HEAD,
                    "{} bytes held without a head",
                    rest.len()
                );
                assert_eq!(parse_head(&rest[..rest.len() / 2]), Parsed::Incomplete);
                return if heads > 0 { "heads" } else { "incomplete" };
            }
            Parsed::Bad(status) => {
                assert!(matches!(status, 400 | 431), "status {status}");
                return if heads > 0 { "heads-then-bad" } else { "bad" };
            }
        }
    }
}

// --------------------------------------------------------------------- netlink

/// A netlink datagram through every layer: the messages (inside the datagram, their
/// lengths as the headers say), the attributes of each, every payload parser (borrowed
/// strings inside the payload, no more entries than the bytes can hold), and the answer
/// walker for each request type, with the datagram's sequence number and another.
pub fn netlink(b: &[u8]) -> Outcome {
    let mut ok_msgs = 0usize;
    let mut items = 0usize;
    let mut failed = false;
    let mut last_outcome = "no-message";
    let mut first_seq = None;
    for m in messages(b) {
        assert!(!failed, "the message iterator went on after an error");
        items += 1;
        assert!(
            items <= b.len() / 16 + 1,
            "more messages than the datagram can hold"
        );
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
                failed = true;
                last_outcome = "bad-message";
                continue;
            }
        };
        ok_msgs += 1;
        first_seq.get_or_insert(m.header.nlmsg_seq);
        assert!(within(b, m.payload), "message payload outside the datagram");
        assert_eq!(m.header.nlmsg_len as usize, m.payload.len() + 16);
        netlink_attrs(m.payload);
        let others = netlink_payload(m.payload);
        last_outcome = match (parse_device(m.payload), parse_chardev(m.payload)) {
            (Ok(d), _) => {
                assert!(!d.name.is_empty());
                assert!(within(m.payload, d.name.as_bytes()));
                assert!(d
                    .fw_version
                    .map_or(true, |s| within(m.payload, s.as_bytes())));
                assert!(d.protocol.map_or(true, |s| within(m.payload, s.as_bytes())));
                "device"
            }
            (_, Ok(c)) => {
                assert!(
                    !c.name.is_empty() && !c.name.contains('/') && c.name != "." && c.name != ".."
                );
                assert!(within(m.payload, c.name.as_bytes()));
                assert!(c.major < 1 << 12 && c.minor < 1 << 20);
                "chardev"
            }
            (Err(e), Err(f)) => {
                assert!(matches!(e, Error::Protocol { .. }) && matches!(f, Error::Protocol { .. }));
                others.unwrap_or("unparsable-message")
            }
        };
    }
    // The answer walker, for each request, with the datagram's own sequence number and
    // another one.
    let port_get = nl_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
    for seq in [
        first_seq.unwrap_or(1),
        first_seq.unwrap_or(1).wrapping_add(1),
    ] {
        let mut calls = 0;
        let r = parse_answer(b, seq, TYPE_GET, "fuzz", |p| {
            calls += 1;
            assert!(within(b, p));
            parse_device(p).map(drop)
        });
        assert!(calls <= ok_msgs);
        if let Err(e) = &r {
            let _ = e.to_string();
        }
        let mut calls = 0;
        let r2 = parse_answer(b, seq, TYPE_GET_CHARDEV, "fuzz", |p| {
            calls += 1;
            parse_chardev(p).map(drop)
        });
        assert!(calls <= ok_msgs);
        type Walker = fn(&[u8]) -> uverbs::Result<()>;
        let walkers: [(u16, Walker); 3] = [
            (TYPE_STAT_GET, |p| parse_hw_counters(p, |_, _| ())),
            (TYPE_RES_GET, |p| parse_res_summary(p, |_, _| ())),
            (port_get, |p| link::parse_port(p).map(drop)),
        ];
        for (ty, parse) in walkers {
            let mut calls = 0;
            let r = parse_answer(b, seq, ty, "fuzz", |p| {
                calls += 1;
                assert!(within(b, p));
                parse(p)
            });
            assert!(calls <= ok_msgs);
            if let Err(e) = r {
                let _ = e.to_string();
            }
        }
        if seq == first_seq.unwrap_or(1) {
            last_outcome = match (&r, &r2) {
                (Ok(Step::Done), _) | (_, Ok(Step::Done))
                    if last_outcome == "device" || last_outcome == "chardev" =>
                {
                    "answer-done"
                }
                (Ok(Step::More), _) => "answer-more",
                _ => last_outcome,
            };
        }
    }
    last_outcome
}

/// The attributes of a payload: each value inside it, never more of them than it can
/// hold, nothing after an error.
pub fn netlink_attrs(payload: &[u8]) {
    let mut failed = false;
    let mut n = 0;
    for a in attrs(payload) {
        assert!(!failed, "the attribute iterator went on after an error");
        n += 1;
        assert!(
            n <= payload.len() / 4 + 1,
            "more attributes than the payload can hold"
        );
        match a {
            Ok(a) => {
                assert!(
                    within(payload, a.value),
                    "attribute value outside the payload"
                );
                assert_eq!(a.kind, a.raw_type & NLA_TYPE_MASK);
            }
            Err(_) => failed = true,
        }
    }
}

/// The payload parsers but `GET`'s and `GET_CHARDEV`'s: notifications, driver
/// counters, the resource summary and `PORT_GET`. The outcome of the first that
/// accepted the payload, if any.
fn netlink_payload(p: &[u8]) -> Option<Outcome> {
    let mut outcome = None;
    if let Ok(n) = parse_notify(p) {
        for s in [n.dev_name, n.netdev_name].into_iter().flatten() {
            assert!(within(p, s.as_bytes()), "a name outside the payload");
        }
        outcome = Some("notify");
    }
    let counters = table(p, |p, f| parse_hw_counters(p, f));
    let resources = table(p, |p, f| parse_res_summary(p, f));
    outcome = outcome
        .or(counters.then_some("counters"))
        .or(resources.then_some("resources"));
    if let Ok(l) = link::parse_port(p) {
        assert!(!l.device.is_empty() && l.port != 0);
        outcome = outcome.or(Some("port"));
    }
    outcome
}

/// A table of named values (driver counters, the resource summary) through `parse`:
/// every name non-empty and inside the payload, no more entries than the payload can
/// hold (an entry takes at least 21 bytes: its header, a name of one byte and a u64),
/// errors typed. Whether it held an entry.
fn table<'a>(
    p: &'a [u8],
    parse: impl Fn(&'a [u8], &mut dyn FnMut(&'a str, u64)) -> uverbs::Result<()>,
) -> bool {
    let mut n = 0usize;
    let r = parse(p, &mut |name, _| {
        n += 1;
        assert!(!name.is_empty(), "an entry without a name");
        assert!(within(p, name.as_bytes()), "a name outside the payload");
    });
    assert!(n * 21 <= p.len(), "{n} entries from {} bytes", p.len());
    assert!(n <= 4096);
    if let Err(e) = r {
        assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
    }
    n > 0
}

// ---------------------------------------------------------------------- uevents

/// A kernel uevent (the device monitor's other source): the fields borrowed from the
/// datagram, NUL-free; the name the last component of `DEVPATH`; the action, subsystem
/// and `DEVPATH` as an independent reading of the `KEY=VALUE` strings gives them.
pub fn uevent(b: &[u8]) -> Outcome {
    use uverbs::netlink::uevent::{parse, Action};
    let fields: Vec<&[u8]> = b.split(|&c| c == 0).filter(|f| !f.is_empty()).collect();
    let head = fields
        .first()
        .and_then(|f| core::str::from_utf8(f).ok())
        .and_then(|h| h.split_once('@'));
    let Some(u) = parse(b) else {
        assert!(
            head.is_none(),
            "a datagram starting {head:?} was not parsed"
        );
        return "none";
    };
    let (action, path) = head.expect("parsed without ACTION@DEVPATH");
    let value = |key: &str| {
        fields[1..]
            .iter()
            .filter_map(|f| core::str::from_utf8(f).ok()?.split_once('='))
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
            .next_back()
    };
    for s in [Some(u.devpath), u.subsystem, u.devname, u.devpath_old]
        .into_iter()
        .flatten()
    {
        assert!(within(b, s.as_bytes()), "{s:?} is not in the datagram");
        assert!(!s.contains('\0'));
    }
    assert_eq!(u.devpath, value("DEVPATH").unwrap_or(path));
    assert_eq!(u.subsystem, value("SUBSYSTEM"));
    assert_eq!(u.devname, value("DEVNAME"));
    assert_eq!(u.devpath_old, value("DEVPATH_OLD"));
    assert_eq!(u.seqnum, value("SEQNUM").and_then(|v| v.parse().ok()));
    let want = match action {
        "add" => Action::Add,
        "remove" => Action::Remove,
        "move" => Action::Move,
        "change" => Action::Change,
        _ => Action::Other,
    };
    assert_eq!(u.action, want);
    assert!(!u.name().contains('/') && u.devpath.ends_with(u.name()));
    if let Some(old) = u.old_name() {
        assert!(!old.contains('/'));
    }
    match u.subsystem {
        Some("infiniband" | "infiniband_verbs") => "rdma",
        Some(_) => "other-subsystem",
        None => "no-subsystem",
    }
}

// ------------------------------------------------------------------- sysfs text

/// The coverage-guided `sysfs` target: the same bytes as sysfs text and as IPoIB text.
pub fn sysfs(b: &[u8]) -> Outcome {
    ipoib_text(b);
    sysfs_text(b)
}

/// Sysfs text through every text parser: GUIDs, GIDs, node types, dev numbers, decimal
/// files, firmware versions, counters, port states and rates; what is accepted
/// round-trips, and GUIDs and GIDs only in the kernel's form.
pub fn sysfs_text(b: &[u8]) -> Outcome {
    let s = String::from_utf8_lossy(b);
    let mut accepted = 0;
    if let Some(g) = parse_guid(&s) {
        accepted += 1;
        assert_eq!(parse_guid(&g.to_string()), Some(g));
        assert!(
            s.trim().eq_ignore_ascii_case(&g.to_string()),
            "GUID {s:?} accepted as {g}"
        );
    }
    if let Some(g) = Gid::parse_sysfs(&s) {
        accepted += 1;
        assert_eq!(Gid::parse_sysfs(&g.to_string()), Some(g));
        // F4: exactly the kernel's form (groups of 4 hex digits), modulo case:
        // anything else (a sign, missing digits) is not a GID the kernel printed.
        if !known("F4") {
            assert!(
                s.trim().eq_ignore_ascii_case(&g.to_string()),
                "GID {s:?} accepted as {g} (F4)"
            );
        }
    }
    if let Some(t) = parse_node_type(&s) {
        accepted += 1;
        assert_eq!(NodeType::from_raw(t.as_raw()), t);
    }
    if let Some((ma, mi)) = parse_dev(&s) {
        accepted += 1;
        assert_eq!(parse_dev(&format!("{ma}:{mi}")), Some((ma, mi)));
    }
    if let Some(v) = parse_u32(&s) {
        accepted += 1;
        assert_eq!(parse_u32(&v.to_string()), Some(v));
    }
    match parse_counter(&s) {
        Some(CounterText::Value(v)) => {
            accepted += 1;
            assert_eq!(
                parse_counter(&format!("{v}\n")),
                Some(CounterText::Value(v))
            );
        }
        Some(CounterText::NotAvailable) => {
            accepted += 1;
            assert!(s.trim().starts_with("N/A"));
        }
        None => {}
    }
    if let Some(n) = parse_state(&s) {
        accepted += 1;
        assert_eq!(parse_state(&format!("{n}: ACTIVE\n")), Some(n));
    }
    if let Some(r) = parse_rate(&s) {
        accepted += 1;
        // Printed as the kernel prints it, it reads the same.
        let mut t = format!("{}.{} Gb/sec", r.decigbps / 10, r.decigbps % 10);
        if let Some(l) = r.lanes {
            t += &format!(
                " ({l}X{})",
                r.speed.as_ref().map_or(String::new(), |s| format!(" {s}"))
            );
        }
        if r.lanes.is_some() || r.speed.is_none() {
            assert_eq!(parse_rate(&t).as_ref(), Some(&r), "{t:?}");
        }
    }
    let fw = FwVersion::new(&s);
    assert!(fw.as_str().len() <= 63);
    assert!(s.trim().starts_with(fw.as_str()));
    // F2: no white space left at the end after the cut at 63 bytes.
    if !known("F2") {
        assert_eq!(
            FwVersion::new(fw.as_str()),
            fw,
            "FwVersion is not idempotent (F2)"
        );
        assert_eq!(
            fw.as_str().trim(),
            fw.as_str(),
            "FwVersion keeps surrounding white space (F2)"
        );
    }
    assert_eq!(fw.is_empty(), fw.as_str().is_empty());
    let _ = format!("{fw} {fw:?}");
    if accepted > 0 {
        "accepted"
    } else {
        "rejected"
    }
}

/// IPoIB text (up to the first NUL): modes, operational states, link addresses; and
/// the MTU checks for the port answer after the NUL and an interface made of the text.
pub fn ipoib_text(b: &[u8]) -> Outcome {
    use uverbs::verbs::ipoib::{
        mtu_warnings, Ipoib, IpoibHwAddr, IpoibMode, OperState, IPOIB_CM_MTU,
    };
    let split = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    let s = String::from_utf8_lossy(&b[..split]);
    let port = PortAttr::from_resp_bytes(b.get(split + 1..).unwrap_or(&[]));
    let mode = IpoibMode::parse(&s);
    let _ = mode.to_string();
    let st = OperState::parse(&s);
    assert_eq!(OperState::parse(st.as_str()), st);
    assert_eq!(st.as_str(), s.trim());
    let addr = IpoibHwAddr::parse(&s);
    if let Some(a) = addr {
        assert_eq!(IpoibHwAddr::parse(&a.to_string()), Some(a));
        assert!(
            s.trim().eq_ignore_ascii_case(&a.to_string()),
            "{s:?} accepted as {a}"
        );
        assert!(a.qpn() <= 0xff_ffff);
        assert_eq!(&a.gid().0[..], &a.0[4..]);
        assert_eq!(IpoibHwAddr::from_bytes(&a.0), Some(a));
    }
    assert!(IpoibHwAddr::from_bytes(&b[..split.min(19)]).is_none());
    // The MTU checks on an interface made of this text.
    let mut four = [0u8; 4];
    for (d, s) in four.iter_mut().zip(b) {
        *d = *s;
    }
    let n = u32::from_ne_bytes(four);
    let ipoib = Ipoib {
        name: "ib0".into(),
        ifindex: n,
        mode: mode.clone(),
        mtu: n,
        pkey: n as u16,
        hw_addr: addr.unwrap_or(IpoibHwAddr([0; 20])),
        device: None,
        port: None,
        operstate: st,
        parent: None,
        umcast: None,
    };
    if let Some(l) = ipoib.mtu_limit(&port) {
        assert!(l <= IPOIB_CM_MTU);
    }
    let _ = (ipoib.pkey_base(), ipoib.is_full_member(), ipoib.is_child());
    for w in mtu_warnings(&ipoib, &port) {
        let t = w.to_string();
        assert!(!t.is_empty());
    }
    match (mode, addr) {
        (IpoibMode::Unknown(_), None) => "unknown",
        (_, Some(_)) => "address",
        _ => "mode",
    }
}
