//! The captured inputs every target starts from: kernel answers, netlink datagrams and
//! sysfs text observed in the VM rig (tests/fixtures), compiled in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use uverbs::raw::abi::ib_uverbs_gid_entry;
use uverbs::GidEntry;
use zerocopy::FromBytes;

use crate::common::unhex;

/// The captured fixtures, compiled in (the VM rig copies only the test binaries).
pub(crate) const KERNEL_CAPTURES: &[(&str, &str)] = &[
    (
        "6.1/rxe0",
        include_str!("../fixtures/kernel/6.1/rxe0.capture"),
    ),
    (
        "6.1/siw0",
        include_str!("../fixtures/kernel/6.1/siw0.capture"),
    ),
    (
        "6.12/rxe0",
        include_str!("../fixtures/kernel/6.12/rxe0.capture"),
    ),
    (
        "6.12/siw0",
        include_str!("../fixtures/kernel/6.12/siw0.capture"),
    ),
];
pub(crate) const NETLINK_CAPTURES: &[&str] = &[
    include_str!("../fixtures/netlink/linux-6.1-rxe0-siw0.hex"),
    include_str!("../fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.hex"),
    include_str!("../fixtures/netlink/linux-6.12-rxe0-siw0.hex"),
    include_str!("../fixtures/netlink/linux-6.12-rxe2-siw2-virtio.hex"),
];
pub(crate) const OBSERVED: &[&str] = &[
    include_str!("../fixtures/netlink/linux-6.1-rxe0-siw0.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.1-siw0-no-ib_uverbs.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.12-rxe0-siw0.observed.txt"),
    include_str!("../fixtures/netlink/linux-6.12-rxe2-siw2-virtio.observed.txt"),
];

/// The fixture tree, for inputs added since this file was written.
pub(crate) fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `read_dir`, except under Miri, whose isolation forbids it (the compiled-in captures
/// suffice there).
pub(crate) fn read_dir_unless_miri(p: &Path) -> std::io::Result<std::fs::ReadDir> {
    if cfg!(miri) {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    std::fs::read_dir(p)
}

pub(crate) fn capture_lines(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The kernel's captured answers whose key starts with `prefix` (decoded from hex),
/// plus those of any capture added to the tree since this file was written.
pub(crate) fn kernel_corpus(prefix: &str) -> Vec<Vec<u8>> {
    let mut texts: Vec<String> = KERNEL_CAPTURES.iter().map(|(_, t)| t.to_string()).collect();
    if let Ok(rd) = read_dir_unless_miri(&fixtures_dir().join("kernel")) {
        for k in rd.flatten() {
            for f in std::fs::read_dir(k.path()).into_iter().flatten().flatten() {
                if f.path().extension().is_some_and(|e| e == "capture") {
                    if let Ok(t) = std::fs::read_to_string(f.path()) {
                        texts.push(t);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for t in texts {
        for (k, v) in capture_lines(&t) {
            if k.starts_with(prefix) && !v.is_empty() {
                out.push(unhex(&v));
            }
        }
    }
    out.sort();
    out.dedup();
    assert!(!out.is_empty(), "no captured '{prefix}' answers");
    out
}

/// Every captured netlink datagram.
pub(crate) fn netlink_corpus() -> Vec<Vec<u8>> {
    let mut texts: Vec<String> = NETLINK_CAPTURES.iter().map(|t| t.to_string()).collect();
    if let Ok(rd) = read_dir_unless_miri(&fixtures_dir().join("netlink")) {
        for f in rd.flatten() {
            if f.path().extension().is_some_and(|e| e == "hex") {
                if let Ok(t) = std::fs::read_to_string(f.path()) {
                    texts.push(t);
                }
            }
        }
    }
    let mut out = Vec::new();
    for t in texts {
        for l in t.lines() {
            if let Some(h) = l.split_whitespace().last() {
                if h.len() >= 32 && h.bytes().all(|c| c.is_ascii_hexdigit()) {
                    out.push(unhex(h));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    assert!(out.len() >= 8, "too few netlink captures");
    out
}

/// Sysfs text: every `= [value]` the VM showed, the fixture trees' files, GIDs printed
/// from the captured GID tables, and a few hand-written shapes.
pub(crate) fn text_corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for t in OBSERVED {
        for l in t.lines() {
            if let Some((_, v)) = l.split_once(" = [") {
                out.push(v.trim_end_matches(']').as_bytes().to_vec());
            }
        }
    }
    fn walk(p: &Path, out: &mut Vec<Vec<u8>>) {
        for e in read_dir_unless_miri(p).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                if b.len() < 4096 {
                    out.push(b);
                }
            }
        }
    }
    walk(&fixtures_dir().join("sysfs"), &mut out);
    for blob in kernel_corpus("gid_table") {
        for chunk in blob.chunks_exact(32) {
            let e = ib_uverbs_gid_entry::read_from_bytes(chunk).unwrap();
            out.push(format!("{}\n", GidEntry::from_raw(&e).gid).into_bytes());
        }
    }
    for s in [
        "0x7fff",
        "0xffff\n",
        "0x0000",
        "ffff",
        "1: CA\n",
        "4: RNIC",
        "231:192\n",
        "511:0",
        "6\n",
        "2",
        "16.35.2000",
        "1.0.0",
        "fe80:0000:0000:0000:0200:00ff:fe00:0000\n",
        "0000:0000:0000:0000:0000:ffff:a9fe:0101",
        "ec0d:9a03:0078:6c2c",
        "RoCE v2",
        "IB/RoCE v1",
        "Ethernet",
        "InfiniBand",
        "2.5 Gb/sec (1X SDR)",
        "100 Gb/sec (4X EDR)",
        "4: ACTIVE",
        "5: LinkUp",
    ] {
        out.push(s.as_bytes().to_vec());
    }
    out.sort();
    out.dedup();
    out
}

/// IPoIB text: what `mode`, `operstate` and `address` of an IPoIB interface hold.
pub(crate) const IPOIB_TEXT: &[&str] = &[
    "datagram\n",
    "connected\n",
    "up\n",
    "down",
    "unknown",
    "lowerlayerdown",
    "dormant",
    "testing",
    "notpresent",
    "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1\n",
    "00:00:00:00:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:01",
    "f2:4e:d2:77:3b:18",
];

/// SYNTHETIC netlink answers, laid out as the kernel's nldev.c fills them, for the
/// parsers no captured datagram reaches: a `STAT_GET` answer with driver counters, a
/// `RES_GET` answer with the resource summary, device notifications (6.12's
/// `RDMA_NLDEV_CMD_MONITOR`) and a `PORT_GET` dump ending with `NLMSG_DONE`. The VM
/// tests compare the real answers with `rdma statistic`, `rdma resource` and `rdma
/// link`; none was captured as bytes.
pub(crate) fn netlink_synthetic() -> Vec<Vec<u8>> {
    use uverbs::netlink::nldev::{TYPE_MONITOR, TYPE_RES_GET, TYPE_STAT_GET};
    use uverbs::netlink::{nl_type, Request};
    use uverbs::raw::abi::netlink::*;
    let dev = |r: &mut Request| {
        r.attr_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 1)
            .and_then(|r| r.attr_str(RDMA_NLDEV_ATTR_DEV_NAME, "rxe0"))
            .map(drop)
            .unwrap();
    };
    /// A table (`kinds`: the table, an entry, its name, its value) of named u64s.
    fn table(r: &mut Request, kinds: [u16; 4], entries: &[(&str, u64)]) {
        let [table, entry, name, value] = kinds;
        r.nested(table, |r| {
            for (n, v) in entries {
                r.nested(entry, |r| {
                    r.attr_str(name, n)?.attr(value, &v.to_ne_bytes())
                })?;
            }
            Ok(r)
        })
        .unwrap();
    }
    let mut out = Vec::new();
    let mut r = Request::new(TYPE_STAT_GET, 0, 1);
    dev(&mut r);
    r.attr_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1).unwrap();
    table(
        &mut r,
        [
            RDMA_NLDEV_ATTR_STAT_HWCOUNTERS,
            RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
            RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
            RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
        ],
        &[
            ("sent_pkts", 7),
            ("rcvd_pkts", u64::MAX),
            ("ack_deferred", 0),
        ],
    );
    out.push(r.bytes().to_vec());
    let mut r = Request::new(TYPE_RES_GET, 0, 1);
    dev(&mut r);
    table(
        &mut r,
        [
            RDMA_NLDEV_ATTR_RES_SUMMARY,
            RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY,
            RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
            RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
        ],
        &[("pd", 1), ("cq", 2), ("qp", 3)],
    );
    out.push(r.bytes().to_vec());
    for (event, netdev) in [
        (RDMA_REGISTER_EVENT, false),
        (RDMA_UNREGISTER_EVENT, false),
        (RDMA_RENAME_EVENT, false),
        (RDMA_NETDEV_ATTACH_EVENT, true),
    ] {
        let mut r = Request::new(TYPE_MONITOR, 0, 0);
        r.attr(RDMA_NLDEV_ATTR_EVENT_TYPE, &[event]).unwrap();
        dev(&mut r);
        if netdev {
            r.attr_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
                .and_then(|r| r.attr_u32(RDMA_NLDEV_ATTR_NDEV_INDEX, 3))
                .and_then(|r| r.attr_str(RDMA_NLDEV_ATTR_NDEV_NAME, "rnet0"))
                .unwrap();
        }
        out.push(r.bytes().to_vec());
    }
    let mut r = Request::new(
        nl_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET),
        NLM_F_MULTI,
        1,
    );
    dev(&mut r);
    r.attr_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
        .and_then(|r| r.attr(RDMA_NLDEV_ATTR_PORT_STATE, &[4]))
        .and_then(|r| r.attr(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, &[5]))
        .and_then(|r| r.attr_u32(RDMA_NLDEV_ATTR_NDEV_INDEX, 3))
        .and_then(|r| r.attr_str(RDMA_NLDEV_ATTR_NDEV_NAME, "rnet0"))
        .unwrap();
    let mut dump = r.bytes().to_vec();
    let mut done = Request::new(NLMSG_DONE, NLM_F_MULTI, 1);
    done.family_header(&0i32.to_ne_bytes()).unwrap();
    dump.extend_from_slice(done.bytes());
    out.push(dump);
    out
}

/// Request heads as HTTP clients send them: Prometheus's scrape (the headers of its
/// scrape loop), curl's, HTTP/1.0 with and without keep-alive, pipelined requests,
/// blank lines first, a query string, and the ones the server refuses: a body, chunked,
/// a head past 8 KiB, a head cut short.
pub(crate) fn http_corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = [
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9550\r\nUser-Agent: Prometheus/2.53.0\r\n\
         Accept: application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n\
         Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: localhost:9550\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
        "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET /metrics HTTP/1.0\n\n",
        "GET /metrics HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\nGET /",
        "\r\n\r\nGET /metrics?name[]=uverbs_port_state HTTP/1.1\r\nConnection: Keep-Alive, TE\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\n",
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut long = b"GET /metrics HTTP/1.1\r\nX-Long: ".to_vec();
    long.resize(8300, b'a');
    long.extend_from_slice(b"\r\n\r\n");
    out.push(long);
    out
}

/// Kernel uevents as `kobject_uevent_env` lays them out (`ACTION@DEVPATH`, then
/// `KEY=VALUE` strings, each ended by a NUL), for the subsystems the device monitor
/// follows and one it does not; and a udev rebroadcast, which it never parses.
/// SYNTHETIC in their values (device paths as rxe, siw and ib_uverbs name them).
pub(crate) fn uevent_corpus() -> Vec<Vec<u8>> {
    [
        &b"add@/devices/virtual/infiniband/rxe0\0ACTION=add\0DEVPATH=/devices/virtual/infiniband/rxe0\0\
           SUBSYSTEM=infiniband\0SEQNUM=2290\0"[..],
        b"remove@/devices/virtual/infiniband/siw0\0ACTION=remove\0DEVPATH=/devices/virtual/infiniband/siw0\0\
          SUBSYSTEM=infiniband\0SEQNUM=2301\0",
        b"add@/devices/virtual/infiniband_verbs/uverbs0\0ACTION=add\0\
          DEVPATH=/devices/virtual/infiniband_verbs/uverbs0\0SUBSYSTEM=infiniband_verbs\0\
          MAJOR=231\0MINOR=192\0DEVNAME=infiniband/uverbs0\0SEQNUM=2291\0",
        b"move@/devices/virtual/infiniband/rxe_b\0ACTION=move\0DEVPATH=/devices/virtual/infiniband/rxe_b\0\
          SUBSYSTEM=infiniband\0DEVPATH_OLD=/devices/virtual/infiniband/rxe_a\0SEQNUM=7\0",
        b"add@/devices/virtual/net/rnet0\0ACTION=add\0DEVPATH=/devices/virtual/net/rnet0\0SUBSYSTEM=net\0\
          INTERFACE=rnet0\0IFINDEX=3\0SEQNUM=2280\0",
        b"change@/devices/virtual/infiniband/rxe0\0ACTION=change\0DEVPATH=/devices/virtual/infiniband/rxe0\0\
          SUBSYSTEM=infiniband\0SEQNUM=18446744073709551615\0",
        b"libudev\0\xfe\xed\xca\xfe\x28\x00\x00\x00",
    ]
    .iter()
    .map(|b| b.to_vec())
    .collect()
}
