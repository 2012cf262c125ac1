//! Kernel answers: QUERY_PORT and QUERY_DEVICE responses, GID table entries and async
//! event descriptors, decoded from captured, mutated and random bytes.

use uverbs::raw::abi::{
    ib_uverbs_ex_query_device_resp, ib_uverbs_gid_entry, ib_uverbs_query_device_resp,
};
use uverbs::{DeviceAttr, EventType, FwVersion, Gid, GidEntry, Guid, PortAttr};
use zerocopy::FromBytes;

use crate::corpus::*;
use crate::harness::*;
use crate::json_line;

/// QUERY_PORT responses (ioctl 48 bytes, write() 40 bytes), short, long and garbage.
#[test]
fn fuzz_port_response() {
    let corpus = kernel_corpus("query_port");
    fuzz(
        "port_response",
        iters(),
        |r| from_corpus(r, &corpus, 128),
        check_port,
    );
}

pub(crate) fn check_port(b: &[u8]) -> Outcome {
    let p = PortAttr::from_resp_bytes(b);
    // Never reads past its input: the decoder saw the bytes of `b` and zeros after.
    let mut padded = b[..b.len().min(48)].to_vec();
    padded.resize(48, 0);
    assert_eq!(
        p,
        PortAttr::from_resp_bytes(&padded),
        "differs from the zero-padded input"
    );
    // Independent decoding by offset (struct ib_uverbs_query_port_resp{,_ex}).
    let u8_at = |o: usize| padded[o];
    let u16_at = |o: usize| u16::from_ne_bytes([padded[o], padded[o + 1]]);
    let u32_at = |o: usize| u32::from_ne_bytes(padded[o..o + 4].try_into().unwrap());
    assert_eq!(p.port_cap_flags.bits(), u32_at(0));
    assert_eq!(p.max_msg_sz, u32_at(4));
    assert_eq!(p.gid_tbl_len, u32_at(16));
    assert_eq!(p.pkey_tbl_len, u16_at(20));
    assert_eq!(p.lid, u16_at(22));
    assert_eq!(p.sm_lid, u16_at(24));
    assert_eq!(p.state.as_raw(), u8_at(26));
    assert_eq!(p.max_mtu.as_raw(), u8_at(27));
    assert_eq!(p.active_mtu.as_raw(), u8_at(28));
    assert_eq!(p.active_width.as_raw(), u8_at(34));
    assert_eq!(p.active_speed, u8_at(35));
    assert_eq!(p.phys_state.as_raw(), u8_at(36));
    assert_eq!(p.link_layer.as_raw(), u8_at(37));
    assert_eq!(p.port_cap_flags2.bits(), u16_at(40));
    assert_eq!(p.active_speed_ex, u32_at(44));
    // Derived values are total.
    let _ = p.speed().ib_name();
    if let Some(r) = p.rate_decigbps() {
        assert!(r <= 12 * 2000, "rate {r}");
    }
    let _ = p.max_vls();
    let _ = p.subnet_timeout_duration();
    if let Some(m) = p.active_mtu.bytes() {
        assert!((256..=4096).contains(&m));
    }
    let _ = format!(
        "{} {} {} {} {} {:?}",
        p.state, p.max_mtu, p.active_width, p.phys_state, p.link_layer, p
    );
    assert_eq!(
        p.port_cap_flags.ib_names().count() as u32,
        p.port_cap_flags.bits().count_ones()
    );
    match b.len() {
        0..=39 => "short",
        40..=47 => "legacy",
        48 => "ex",
        _ => "long",
    }
}

/// Extended QUERY_DEVICE responses.
#[test]
fn fuzz_device_response() {
    let corpus = kernel_corpus("query_device");
    fuzz(
        "device_response",
        iters(),
        |r| {
            let mut b = from_corpus(r, &corpus, 400);
            // Aim at the interesting range of response_length now and then.
            if b.len() >= 184 && r.chance(1, 3) {
                let legacy = core::mem::size_of::<ib_uverbs_query_device_resp>() as u32;
                let v = *r.pick(&[
                    0,
                    1,
                    legacy,
                    legacy + 8,
                    legacy + 9,
                    200,
                    303,
                    304,
                    305,
                    u32::MAX,
                ]);
                b[180..184].copy_from_slice(&v.to_ne_bytes());
            }
            b
        },
        check_device,
    );
}

pub(crate) fn check_device(b: &[u8]) -> Outcome {
    const SIZE: usize = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
    const LEGACY: usize = core::mem::size_of::<ib_uverbs_query_device_resp>();
    let fw = FwVersion::new("1.2.3");
    let d = DeviceAttr::from_ex_bytes(b, fw);
    let mut padded = b[..b.len().min(SIZE)].to_vec();
    padded.resize(SIZE, 0);
    assert_eq!(
        d,
        DeviceAttr::from_ex_bytes(&padded, fw),
        "differs from the zero-padded input"
    );
    // Bytes past what the kernel says it filled do not matter.
    let rl = u32::from_ne_bytes(padded[LEGACY + 4..LEGACY + 8].try_into().unwrap()) as usize;
    let filled = rl.clamp(LEGACY + 8, SIZE);
    let mut scrambled = padded.clone();
    for (i, x) in scrambled[filled..].iter_mut().enumerate() {
        *x = (i as u8).wrapping_mul(37) ^ 0xa5;
    }
    assert_eq!(
        d,
        DeviceAttr::from_ex_bytes(&scrambled, fw),
        "bytes past response_length {rl} were used"
    );
    assert_eq!(
        d.node_guid,
        Guid::from_be(u64::from_ne_bytes(padded[8..16].try_into().unwrap()))
    );
    assert_eq!(
        d.node_guid.0,
        u64::from_be_bytes(padded[8..16].try_into().unwrap())
    );
    assert_eq!(d.ex_response_length as usize, rl);
    assert_eq!(d.fw_ver, fw);
    let _ = format!("{d:?} {} {}", d.atomic_cap, d.node_guid);
    // The legacy decoder on the same bytes agrees with the legacy part.
    let base = ib_uverbs_query_device_resp::read_from_bytes(&padded[..LEGACY]).unwrap();
    let l = DeviceAttr::from_legacy(&base, fw);
    assert_eq!(
        (l.max_qp, l.phys_port_cnt, l.max_pkeys, l.node_guid),
        (d.max_qp, d.phys_port_cnt, d.max_pkeys, d.node_guid)
    );
    if b.len() < LEGACY {
        "short"
    } else if rl < LEGACY + 8 {
        "legacy-length"
    } else if rl < SIZE {
        "partial-ex"
    } else {
        "full-ex"
    }
}

/// GID table entries (QUERY_GID_TABLE / QUERY_GID_ENTRY answers).
#[test]
fn fuzz_gid_entries() {
    let corpus = kernel_corpus("gid_table");
    fuzz(
        "gid_entries",
        iters(),
        |r| from_corpus(r, &corpus, 256),
        |b| {
            let mut n = 0;
            for chunk in b.chunks_exact(32) {
                let raw = ib_uverbs_gid_entry::read_from_bytes(chunk).unwrap();
                let e = GidEntry::from_raw(&raw);
                assert_eq!(&e.gid.0[..], &chunk[..16]);
                assert_eq!(e.gid_type.as_raw(), raw.gid_type);
                assert_eq!(
                    (e.index, e.port, e.netdev_ifindex),
                    (raw.gid_index, raw.port_num, raw.netdev_ifindex)
                );
                let text = e.gid.to_string();
                assert_eq!(
                    Gid::parse_sysfs(&text),
                    Some(e.gid),
                    "GID {text} does not parse back"
                );
                assert_eq!(e.gid.to_ipv6().octets(), e.gid.0);
                assert_eq!(
                    (u128::from(e.gid.subnet_prefix()) << 64) | u128::from(e.gid.interface_id()),
                    u128::from_be_bytes(e.gid.0)
                );
                n += 1;
            }
            if n == 0 {
                "none"
            } else if b.len() % 32 == 0 {
                "whole"
            } else {
                "ragged"
            }
        },
    );
}

// ------------------------------------------------------------- async events

/// Async event descriptors (16 bytes read from the async event file): every length,
/// every type, every element; names, scopes, Display and the JSON line are total, and
/// the JSON line stays one line of valid JSON string syntax whatever the device name.
#[test]
fn fuzz_event_desc() {
    use uverbs::verbs::event::{EventScope, EVENT_DESC_LEN};
    use uverbs::Event;
    let mut corpus = Vec::new();
    for t in EventType::KNOWN
        .iter()
        .map(|t| t.as_raw())
        .chain([21, 255, u32::MAX])
    {
        for el in [0u64, 1, 2, 255, 256, 1 << 32, u64::MAX] {
            let mut b = el.to_ne_bytes().to_vec();
            b.extend_from_slice(&t.to_ne_bytes());
            b.extend_from_slice(&[0; 4]);
            corpus.push(b);
        }
    }
    fuzz(
        "event_desc",
        iters(),
        |r| {
            let mut b = from_corpus(r, &corpus, 40);
            if r.chance(1, 3) {
                // and a device name to print it with, after the descriptor
                let k = r.len(24);
                b.extend((0..k).map(|_| *r.pick(b"rxe0_\"\\\n\t\x01\x7f\xc3\xa9 {}")));
            }
            b
        },
        |b| {
            let desc = &b[..b.len().min(EVENT_DESC_LEN)];
            let name = String::from_utf8_lossy(&b[desc.len()..]);
            let Some(ev) = Event::from_bytes(desc) else {
                assert_ne!(desc.len(), EVENT_DESC_LEN);
                return "short";
            };
            assert_eq!(desc.len(), EVENT_DESC_LEN);
            assert_eq!(
                ev.element,
                u64::from_ne_bytes(desc[..8].try_into().unwrap())
            );
            assert_eq!(
                ev.kind.as_raw(),
                u32::from_ne_bytes(desc[8..12].try_into().unwrap())
            );
            match ev.scope() {
                EventScope::Port(p) => {
                    assert!(p > 0 && Event::is_port_event_type(ev.kind));
                    assert_eq!(ev.port(), Some(p));
                    assert_eq!(u64::from(p), ev.element);
                }
                _ => assert_eq!(ev.port(), None),
            }
            assert_eq!(ev.is_fatal(), ev.kind == EventType::DeviceFatal);
            let shown = ev.to_string();
            assert!(!shown.contains('\n'), "{shown:?}");
            let _ = ev.on(&name).to_string();
            let j = json_line::event(&ev, &name);
            assert!(j.starts_with("{\"device\":\"") && j.ends_with('}'), "{j}");
            assert!(
                !j.contains(|c: char| (c as u32) < 0x20),
                "raw control character in {j:?}"
            );
            assert!(j.contains(&format!("\"type\":{}", ev.kind.as_raw())), "{j}");
            // The device name is one JSON string: unescaped quotes end it nowhere else.
            let body = &j["{\"device\":\"".len()..];
            let mut esc = false;
            let mut end = None;
            for (i, c) in body.char_indices() {
                match (esc, c) {
                    (true, _) => esc = false,
                    (false, '\\') => esc = true,
                    (false, '"') => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.expect("unterminated device string");
            assert!(body[end..].starts_with("\",\"event\":"), "{j}");
            if ev.kind.c_name().is_some() {
                "known-type"
            } else {
                "unknown-type"
            }
        },
    );
}
