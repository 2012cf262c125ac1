//! RDMA netlink datagrams: structured mutations of captured answers, the parsers against
//! differential models, dev_t decoding and the request builders.

use uverbs::netlink::nldev::{
    self as nl, huge_decode_dev, parse_chardev, parse_device, TYPE_GET, TYPE_GET_CHARDEV,
};
use uverbs::netlink::{attrs, messages};
use uverbs::raw::abi::netlink::*;

use crate::corpus::*;
use crate::harness::*;

/// A netlink attribute as the fuzzer edits it: `len` overrides the computed length.
#[derive(Clone, Debug)]
pub(crate) struct NlA {
    ty: u16,
    value: Vec<u8>,
    len: Option<u16>,
}

/// A netlink message as the fuzzer edits it.
#[derive(Clone, Debug)]
pub(crate) struct NlM {
    ty: u16,
    flags: u16,
    seq: u32,
    pid: u32,
    /// The payload is either attributes or raw bytes (NLMSG_ERROR/DONE bodies, garbage).
    attrs: Option<Vec<NlA>>,
    raw: Vec<u8>,
    len: Option<u32>,
}

/// Splits a (well-formed) datagram into editable messages, with this file's own walker.
pub(crate) fn nl_split(b: &[u8]) -> Vec<NlM> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + 16 <= b.len() {
        let len = u32::from_ne_bytes(b[off..off + 4].try_into().unwrap()) as usize;
        if len < 16 || off + len > b.len() {
            break;
        }
        let ty = u16::from_ne_bytes(b[off + 4..off + 6].try_into().unwrap());
        let payload = &b[off + 16..off + len];
        let mut m = NlM {
            ty,
            flags: u16::from_ne_bytes(b[off + 6..off + 8].try_into().unwrap()),
            seq: u32::from_ne_bytes(b[off + 8..off + 12].try_into().unwrap()),
            pid: u32::from_ne_bytes(b[off + 12..off + 16].try_into().unwrap()),
            attrs: None,
            raw: payload.to_vec(),
            len: None,
        };
        if ty >= 16 {
            let mut v = Vec::new();
            let mut a = 0;
            let mut ok = true;
            while a + 4 <= payload.len() {
                let alen = u16::from_ne_bytes(payload[a..a + 2].try_into().unwrap()) as usize;
                if alen < 4 || a + alen > payload.len() {
                    ok = false;
                    break;
                }
                v.push(NlA {
                    ty: u16::from_ne_bytes(payload[a + 2..a + 4].try_into().unwrap()),
                    value: payload[a + 4..a + alen].to_vec(),
                    len: None,
                });
                a += (alen + 3) & !3;
            }
            if ok {
                m.attrs = Some(v);
            }
        }
        out.push(m);
        off += (len + 3) & !3;
    }
    out
}

pub(crate) fn nl_attr_bytes(a: &NlA, out: &mut Vec<u8>) {
    let len = a.len.unwrap_or((4 + a.value.len()).min(0xffff) as u16);
    out.extend_from_slice(&len.to_ne_bytes());
    out.extend_from_slice(&a.ty.to_ne_bytes());
    out.extend_from_slice(&a.value);
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

/// The bytes of a run of attributes.
pub(crate) fn nl_attrs_bytes(attrs: &[NlA]) -> Vec<u8> {
    let mut out = Vec::new();
    attrs.iter().for_each(|a| nl_attr_bytes(a, &mut out));
    out
}

/// Inserts an attribute of type `ty` at a random place, with a random value (the place
/// drawn first, then the value).
pub(crate) fn insert_random(r: &mut Rng, attrs: &mut Vec<NlA>, ty: u16) {
    let at = r.below(attrs.len() + 1);
    attrs.insert(
        at,
        NlA {
            ty,
            value: nl_value(r),
            len: None,
        },
    );
}

pub(crate) fn nl_join(ms: &[NlM]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in ms {
        let start = out.len();
        out.extend_from_slice(&[0u8; 16]);
        match &m.attrs {
            Some(v) => v.iter().for_each(|a| nl_attr_bytes(a, &mut out)),
            None => out.extend_from_slice(&m.raw),
        }
        let len = m.len.unwrap_or((out.len() - start) as u32);
        out[start..start + 4].copy_from_slice(&len.to_ne_bytes());
        out[start + 4..start + 6].copy_from_slice(&m.ty.to_ne_bytes());
        out[start + 6..start + 8].copy_from_slice(&m.flags.to_ne_bytes());
        out[start + 8..start + 12].copy_from_slice(&m.seq.to_ne_bytes());
        out[start + 12..start + 16].copy_from_slice(&m.pid.to_ne_bytes());
        while out.len() % 4 != 0 {
            out.push(0);
        }
    }
    out
}

pub(crate) const DEVICE_ATTRS: &[u16] = &[
    RDMA_NLDEV_ATTR_DEV_INDEX,
    RDMA_NLDEV_ATTR_DEV_NAME,
    RDMA_NLDEV_ATTR_PORT_INDEX,
    RDMA_NLDEV_ATTR_CAP_FLAGS,
    RDMA_NLDEV_ATTR_FW_VERSION,
    RDMA_NLDEV_ATTR_NODE_GUID,
    RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
    RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
    RDMA_NLDEV_ATTR_DEV_PROTOCOL,
];
pub(crate) const CHARDEV_ATTRS: &[u16] = &[
    RDMA_NLDEV_ATTR_CHARDEV_NAME,
    RDMA_NLDEV_ATTR_CHARDEV_ABI,
    RDMA_NLDEV_ATTR_CHARDEV,
    RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
];

/// A random attribute value: right-sized or not, text with or without NUL, non-UTF-8.
pub(crate) fn nl_value(rng: &mut Rng) -> Vec<u8> {
    match rng.below(9) {
        0 => vec![rng.byte()],
        1 => rng.interesting(32).to_ne_bytes()[..4].to_vec(),
        2 => rng.interesting(64).to_ne_bytes().to_vec(),
        3 => b"rxe0\0".to_vec(),
        4 => {
            let k = rng.len(40);
            let mut v: Vec<u8> = (0..k).map(|_| *rng.pick(b"abcxyz019_./\0")).collect();
            if rng.chance(1, 2) {
                v.push(0);
            }
            v
        }
        5 => vec![0xff, 0xfe, b'a', 0],
        6 => Vec::new(),
        7 => {
            // nested garbage: attributes inside an attribute
            let mut v = Vec::new();
            for _ in 0..rng.below(4) {
                let a = NlA {
                    ty: rng.byte() as u16 | if rng.chance(1, 2) { NLA_F_NESTED } else { 0 },
                    value: {
                        let k = rng.len(12);
                        rng.bytes(k)
                    },
                    len: if rng.chance(1, 3) {
                        Some(rng.interesting(16) as u16)
                    } else {
                        None
                    },
                };
                nl_attr_bytes(&a, &mut v);
            }
            v
        }
        _ => {
            let k = rng.len(24);
            rng.bytes(k)
        }
    }
}

/// One structural edit of a datagram.
pub(crate) fn mutate_netlink(rng: &mut Rng, ms: &mut Vec<NlM>) {
    if ms.is_empty() {
        ms.push(NlM {
            ty: TYPE_GET,
            flags: NLM_F_MULTI,
            seq: 1,
            pid: 0,
            attrs: Some(Vec::new()),
            raw: Vec::new(),
            len: None,
        });
    }
    let mi = rng.below(ms.len());
    let m = &mut ms[mi];
    match rng.below(14) {
        0 => m.len = Some(*rng.pick(&[0, 1, 15, 16, 17, 19, u32::MAX, 0x8000_0000])),
        1 => {
            let cur = nl_join(std::slice::from_ref(m)).len() as u32;
            m.len = Some(if rng.chance(1, 2) {
                cur + 1 + rng.below(8) as u32
            } else {
                cur.saturating_sub(1 + rng.below(8) as u32)
            });
        }
        2 => {
            let any = rng.byte() as u16;
            m.ty = *rng.pick(&[
                NLMSG_NOOP,
                NLMSG_ERROR,
                NLMSG_DONE,
                NLMSG_OVERRUN,
                TYPE_GET,
                TYPE_GET_CHARDEV,
                0,
                0xffff,
                any,
            ]);
        }
        3 => m.flags ^= *rng.pick(&[NLM_F_MULTI, NLM_F_DUMP_INTR, NLM_F_ACK, 0xffff]),
        4 => m.seq = rng.interesting(32) as u32,
        5 => {
            // an NLMSG_ERROR / NLMSG_DONE body: a code, maybe the request after it
            m.attrs = None;
            let any = rng.next() as i32;
            let code: i32 = *rng.pick(&[
                0,
                -1,
                -2,
                -5,
                -19,
                -22,
                -95,
                -4095,
                -4096,
                i32::MIN,
                i32::MAX,
                1,
                any,
            ]);
            m.raw = code.to_ne_bytes().to_vec();
            let extra = *rng.pick(&[0usize, 1, 2, 3, 16]);
            m.raw.extend(rng.bytes(extra));
        }
        _ => {
            let Some(v) = m.attrs.as_mut() else {
                let k = rng.len(64);
                m.raw = rng.bytes(k);
                return;
            };
            let ai = if v.is_empty() { 0 } else { rng.below(v.len()) };
            match rng.below(9) {
                // a huge, zero, short or off-by-one length
                0 if !v.is_empty() => {
                    let cur = 4 + v[ai].value.len() as u16;
                    v[ai].len = Some(*rng.pick(&[
                        0,
                        1,
                        2,
                        3,
                        4,
                        0xffff,
                        0x8000,
                        cur.wrapping_add(1),
                        cur.wrapping_sub(1),
                        cur.wrapping_add(4),
                    ]));
                }
                // a zero-length attribute (header only) or an all-zero header
                1 => v.insert(
                    ai,
                    NlA {
                        ty: *rng.pick(DEVICE_ATTRS),
                        value: Vec::new(),
                        len: if rng.chance(1, 2) { Some(0) } else { None },
                    },
                ),
                // the value of an attribute replaced (wrong size, bad text, nested garbage)
                2 | 3 if !v.is_empty() => v[ai].value = nl_value(rng),
                // a known attribute added, from either message kind
                4 => {
                    let ty = if rng.chance(1, 2) {
                        *rng.pick(DEVICE_ATTRS)
                    } else {
                        *rng.pick(CHARDEV_ATTRS)
                    };
                    v.insert(
                        ai.min(v.len()),
                        NlA {
                            ty,
                            value: nl_value(rng),
                            len: None,
                        },
                    );
                }
                // NESTED / NET_BYTEORDER flags on a type
                5 if !v.is_empty() => {
                    v[ai].ty ^= *rng.pick(&[
                        NLA_F_NESTED,
                        NLA_F_NET_BYTEORDER,
                        NLA_F_NESTED | NLA_F_NET_BYTEORDER,
                    ])
                }
                // drop or duplicate
                6 if !v.is_empty() => {
                    v.remove(ai);
                }
                7 if !v.is_empty() => {
                    let a = v[ai].clone();
                    v.insert(ai, a);
                }
                _ => {
                    if !v.is_empty() {
                        let j = rng.below(v.len());
                        v.swap(ai, j);
                    }
                }
            }
        }
    }
    if rng.chance(1, 12) {
        // a duplicated or extra message
        let c = ms[rng.below(ms.len())].clone();
        let at = rng.below(ms.len() + 1);
        ms.insert(at, c);
    }
}

pub(crate) fn netlink_input(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(10) {
        0 => {
            let k = rng.len(300);
            rng.bytes(k)
        }
        1 | 2 => from_corpus(rng, corpus, 300),
        _ => {
            let mut ms = nl_split(rng.pick(corpus).as_slice());
            for _ in 0..1 + rng.below(4) {
                mutate_netlink(rng, &mut ms);
            }
            let mut b = nl_join(&ms);
            if rng.chance(1, 6) {
                mutate_bytes(rng, &mut b, corpus);
            }
            b
        }
    }
}

/// Netlink datagrams through every layer: messages, attributes, the answer walker and
/// every payload parser (`checks::netlink`), with structural mutations of captured
/// answers and of synthetic ones (notifications, counters, resources, ports).
#[test]
fn fuzz_netlink() {
    let mut corpus = netlink_corpus();
    corpus.extend(netlink_synthetic());
    fuzz(
        "netlink",
        iters(),
        |r| netlink_input(r, &corpus),
        crate::checks::netlink,
    );
}

/// Device messages built from random attributes, checked against a model of what
/// `parse_device` must answer (not only "no panic": the right answer).
#[test]
fn fuzz_netlink_device_model() {
    fuzz(
        "netlink_device_model",
        iters(),
        |r| {
            let mut attrs = Vec::new();
            // usually the required set, right-sized, then random edits
            if r.chance(3, 4) {
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_INDEX,
                    value: (r.next() as u32).to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_NAME,
                    value: b"mlx5_0\0".to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_PORT_INDEX,
                    value: 2u32.to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_NODE_GUID,
                    value: r.next().to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
                    value: vec![1],
                    len: None,
                });
            }
            for _ in 0..r.below(6) {
                let ty = match r.below(4) {
                    0 => r.byte() as u16,
                    1 => *r.pick(CHARDEV_ATTRS),
                    _ => *r.pick(DEVICE_ATTRS),
                } | if r.chance(1, 8) { NLA_F_NESTED } else { 0 };
                insert_random(r, &mut attrs, ty);
            }
            nl_attrs_bytes(&attrs)
        },
        |b| {
            let got = parse_device(b);
            let want = model_device(b);
            match (&got, &want) {
                (Ok(d), Some(m)) => {
                    assert_eq!(
                        (d.index, d.name, d.port_count, d.node_guid, d.node_type),
                        (m.0, m.1.as_str(), m.2, m.3, m.4)
                    );
                    "ok"
                }
                (Err(_), None) => "err",
                _ => panic!("parse_device gave {got:?}, the model {want:?}"),
            }
        },
    );
}

/// What `parse_device` must return: (index, name, ports, guid, node type), or None.
pub(crate) fn model_device(b: &[u8]) -> Option<(u32, String, u32, u64, u8)> {
    let (mut idx, mut name, mut ports, mut guid, mut nt) = (None, None, None, None, None);
    let mut off = 0;
    while off < b.len() {
        if b.len() - off < 4 {
            return None;
        }
        let len = u16::from_ne_bytes([b[off], b[off + 1]]) as usize;
        let ty = u16::from_ne_bytes([b[off + 2], b[off + 3]]) & NLA_TYPE_MASK;
        if len < 4 || off + len > b.len() {
            return None;
        }
        let v = &b[off + 4..off + len];
        let s = |v: &[u8]| -> Option<String> {
            let end = v.iter().position(|&c| c == 0).unwrap_or(v.len());
            String::from_utf8(v[..end].to_vec()).ok()
        };
        let u32v = |v: &[u8]| -> Option<u32> { Some(u32::from_ne_bytes(v.try_into().ok()?)) };
        let u64v = |v: &[u8]| -> Option<u64> { Some(u64::from_ne_bytes(v.try_into().ok()?)) };
        match ty {
            RDMA_NLDEV_ATTR_DEV_INDEX => idx = Some(u32v(v)?),
            RDMA_NLDEV_ATTR_DEV_NAME => name = Some(s(v)?),
            RDMA_NLDEV_ATTR_PORT_INDEX => ports = Some(u32v(v)?),
            RDMA_NLDEV_ATTR_NODE_GUID => guid = Some(u64v(v)?),
            RDMA_NLDEV_ATTR_DEV_NODE_TYPE => {
                nt = Some(if v.len() == 1 { v[0] } else { return None })
            }
            RDMA_NLDEV_ATTR_SYS_IMAGE_GUID | RDMA_NLDEV_ATTR_CAP_FLAGS => {
                u64v(v)?;
            }
            RDMA_NLDEV_ATTR_FW_VERSION | RDMA_NLDEV_ATTR_DEV_PROTOCOL => {
                s(v)?;
            }
            _ => {}
        }
        off += (len + 3) & !3;
    }
    let name = name?;
    if name.is_empty() {
        return None;
    }
    Some((idx?, name, ports?, guid?, nt?))
}

/// GET_CHARDEV answers from random attributes, against a model.
#[test]
fn fuzz_netlink_chardev_model() {
    fuzz(
        "netlink_chardev_model",
        iters(),
        |r| {
            let mut attrs = Vec::new();
            if r.chance(3, 4) {
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV,
                    value: r.interesting(64).to_ne_bytes().to_vec(),
                    len: None,
                });
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV_ABI,
                    value: r.interesting(64).to_ne_bytes().to_vec(),
                    len: None,
                });
                let name: &[u8] = r.pick::<&[u8]>(&[
                    b"uverbs0\0",
                    b"uverbs31",
                    b".\0",
                    b"..",
                    b"a/b\0",
                    b"\0",
                    b"",
                    b"\xff\0",
                ]);
                attrs.push(NlA {
                    ty: RDMA_NLDEV_ATTR_CHARDEV_NAME,
                    value: name.to_vec(),
                    len: None,
                });
                if r.chance(1, 2) {
                    let v = if r.chance(1, 2) {
                        r.interesting(32).to_ne_bytes()[..4].to_vec()
                    } else {
                        r.interesting(64).to_ne_bytes().to_vec()
                    };
                    attrs.push(NlA {
                        ty: RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
                        value: v,
                        len: None,
                    });
                }
            }
            for _ in 0..r.below(4) {
                let ty = if r.chance(1, 2) {
                    *r.pick(CHARDEV_ATTRS)
                } else {
                    r.byte() as u16
                };
                insert_random(r, &mut attrs, ty);
            }
            nl_attrs_bytes(&attrs)
        },
        |b| {
            let got = parse_chardev(b);
            let want = model_chardev(b);
            match (&got, &want) {
                (Ok(c), Some(m)) => {
                    assert_eq!(
                        (c.name, c.abi, c.major, c.minor, c.driver_id),
                        (m.0.as_str(), m.1, m.2, m.3, m.4)
                    );
                    "ok"
                }
                (Err(_), None) => "err",
                _ => panic!("parse_chardev gave {got:?}, the model {want:?}"),
            }
        },
    );
}

/// What `parse_chardev` must return: (name, abi, major, minor, driver id), or None.
#[allow(clippy::type_complexity)]
pub(crate) fn model_chardev(b: &[u8]) -> Option<(String, u64, u32, u32, Option<u32>)> {
    let (mut name, mut abi, mut dev, mut drv) = (None, None, None, None);
    let mut off = 0;
    while off < b.len() {
        if b.len() - off < 4 {
            return None;
        }
        let len = u16::from_ne_bytes([b[off], b[off + 1]]) as usize;
        let ty = u16::from_ne_bytes([b[off + 2], b[off + 3]]) & NLA_TYPE_MASK;
        if len < 4 || off + len > b.len() {
            return None;
        }
        let v = &b[off + 4..off + len];
        match ty {
            RDMA_NLDEV_ATTR_CHARDEV_NAME => {
                let end = v.iter().position(|&c| c == 0).unwrap_or(v.len());
                name = Some(String::from_utf8(v[..end].to_vec()).ok()?);
            }
            RDMA_NLDEV_ATTR_CHARDEV_ABI => abi = Some(u64::from_ne_bytes(v.try_into().ok()?)),
            RDMA_NLDEV_ATTR_CHARDEV => dev = Some(u64::from_ne_bytes(v.try_into().ok()?)),
            RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID => {
                let x = match v.len() {
                    4 => u64::from(u32::from_ne_bytes(v.try_into().unwrap())),
                    8 => u64::from_ne_bytes(v.try_into().unwrap()),
                    _ => return None,
                };
                drv = Some(u32::try_from(x).ok()?);
            }
            _ => {}
        }
        off += (len + 3) & !3;
    }
    let name = name?;
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    let d = dev? as u32;
    let (major, minor) = ((d >> 8) & 0xfff, (d & 0xff) | ((d >> 12) & 0xf_ff00));
    Some((name, abi?, major, minor, drv))
}

/// `huge_decode_dev` inverts the kernel's `new_encode_dev` for every major/minor pair
/// the kernel can have, and the request builders parse back.
#[test]
fn fuzz_dev_t_and_requests() {
    fuzz(
        "dev_t_and_requests",
        iters(),
        |r| r.next().to_ne_bytes().to_vec(),
        |b| {
            let x = u64::from_ne_bytes(b.try_into().unwrap());
            let (major, minor) = ((x as u32) & 0xfff, ((x >> 12) as u32) & 0xf_ffff);
            let enc = u64::from((minor & 0xff) | (major << 8) | ((minor & !0xff) << 12));
            assert_eq!(huge_decode_dev(enc), (major, minor));
            let (ma, mi) = huge_decode_dev(x);
            assert!(ma < 1 << 12 && mi < 1 << 20);
            let seq = x as u32;
            let idx = (x >> 32) as u32;
            let req = nl::get_chardev_request(seq, idx);
            let m: Vec<_> = messages(req.bytes()).collect::<Result<_, _>>().unwrap();
            assert_eq!(
                (m.len(), m[0].header.nlmsg_seq, m[0].header.nlmsg_type),
                (1, seq, TYPE_GET_CHARDEV)
            );
            let a: Vec<_> = attrs(m[0].payload).collect::<Result<_, _>>().unwrap();
            assert_eq!(a[0].value, idx.to_ne_bytes());
            let d = nl::get_dump_request(seq);
            let m: Vec<_> = messages(d.bytes()).collect::<Result<_, _>>().unwrap();
            assert_eq!(
                (m.len(), m[0].header.nlmsg_seq, m[0].payload.len()),
                (1, seq, 0)
            );
            "ok"
        },
    );
}

/// Kernel uevents (`NETLINK_KOBJECT_UEVENT`, the device monitor's other source),
/// mutated as text and as bytes (`checks::uevent`: an independent reading of the
/// `KEY=VALUE` strings).
#[test]
fn fuzz_uevent() {
    let corpus = uevent_corpus();
    fuzz(
        "uevent",
        iters(),
        |r| text_input(r, &corpus),
        crate::checks::uevent,
    );
}
