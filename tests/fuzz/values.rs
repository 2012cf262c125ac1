//! The crate's own tables and printed forms: text round trips (GUIDs, GIDs, dev
//! numbers, firmware versions), enum and flag round trips and names, and errors for
//! every errno. These are properties of the crate's tables; the checks of the same named
//! values against the kernel, verbs.h and libibverbs are listed in tests/README.md.

use uverbs::raw::driver;
use uverbs::sysfs::{parse_dev, parse_guid, parse_node_type};
use uverbs::{
    AtomicCap, DeviceCapFlags, Error, EventType, FwVersion, Gid, GidType, Guid, LinkLayer, Mtu,
    NodeType, Op, PhysState, PortCapFlags, PortState, Speed, TransportType, Width,
};

use crate::harness::*;

/// Round trips of the printed forms: GUIDs, GIDs, dev numbers, firmware versions.
#[test]
fn fuzz_text_round_trips() {
    fuzz(
        "text_round_trips",
        iters(),
        |r| r.bytes(24),
        |b| {
            let g = Guid(u64::from_ne_bytes(b[..8].try_into().unwrap()));
            assert_eq!(parse_guid(&g.to_string()), Some(g));
            assert_eq!(
                parse_guid(&format!(" {}\n", g.to_string().to_uppercase())),
                Some(g)
            );
            assert_eq!(Guid::from_be(g.0.to_be()), g);
            assert_eq!(g.to_bytes(), g.0.to_be_bytes());
            let gid = Gid(b[8..24].try_into().unwrap());
            assert_eq!(Gid::parse_sysfs(&format!("{gid}\n")), Some(gid));
            let (ma, mi) = (
                u32::from_ne_bytes(b[..4].try_into().unwrap()),
                u32::from_ne_bytes(b[4..8].try_into().unwrap()),
            );
            assert_eq!(parse_dev(&format!("{ma}:{mi}\n")), Some((ma, mi)));
            assert_eq!(
                parse_node_type(&format!("{ma}: X\n")),
                Some(NodeType::from_raw(ma))
            );
            // Firmware versions as the providers format them, for every driver id.
            let raw = u64::from_ne_bytes(b[8..16].try_into().unwrap());
            for id in 0..=40 {
                let fw = driver::format_fw_ver(id, raw, "kernel text");
                assert!(fw.as_str().len() <= 63);
                match driver::fw_format(id) {
                    driver::FwFormat::Kernel => assert_eq!(fw.as_str(), "kernel text"),
                    driver::FwFormat::ThreePart { width } => {
                        let parts: Vec<&str> = fw.as_str().split('.').collect();
                        assert_eq!(parts.len(), 3, "{fw}");
                        assert_eq!(parts[0].parse::<u64>().unwrap(), (raw >> 32) & 0xffff);
                        assert_eq!(parts[1].parse::<u64>().unwrap(), (raw >> 16) & 0xffff);
                        assert_eq!(parts[2].parse::<u64>().unwrap(), raw & 0xffff);
                        assert!(parts[2].len() >= width);
                    }
                }
            }
            "ok"
        },
    );
}

/// Firmware version text cut at 63 bytes on a character boundary, for text made of
/// characters of every UTF-8 width.
#[test]
fn fuzz_fw_version_boundaries() {
    fuzz(
        "fw_version_boundaries",
        iters(),
        |r| {
            let mut s = String::new();
            for _ in 0..r.below(80) {
                s.push(*r.pick(&['a', 'é', '€', '𝄞', ' ', '\n', '.']));
            }
            s.into_bytes()
        },
        |b| {
            let s = std::str::from_utf8(b).unwrap();
            let fw = FwVersion::new(s);
            let t = s.trim();
            assert!(t.starts_with(fw.as_str()));
            assert!(fw.as_str().len() <= 63);
            // Cut as late as possible (the next character would not have fit), then
            // trailing white space dropped, so that the result is stable.
            let mut cut = t.len().min(63);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            assert_eq!(fw.as_str(), t[..cut].trim_end());
            assert_eq!(FwVersion::new(fw.as_str()), fw, "stable");
            if t.len() > 63 {
                "cut"
            } else {
                "whole"
            }
        },
    );
}

/// Every enum keeps every raw value: `from_raw(x).as_raw() == x`, exhaustively for the
/// 8-bit ones and over boundaries and random values for the 32-bit ones; names and
/// Display are total; flag sets keep unknown bits.
#[test]
fn enums_round_trip() {
    for x in 0..=u8::MAX {
        assert_eq!(PortState::from_raw(x).as_raw(), x);
        assert_eq!(Mtu::from_raw(x).as_raw(), x);
        assert_eq!(PhysState::from_raw(x).as_raw(), x);
        assert_eq!(LinkLayer::from_raw(x).as_raw(), x);
        assert_eq!(Width::from_raw(x).as_raw(), x);
        let _ = (
            PortState::from_raw(x).devinfo_name(),
            Mtu::from_raw(x).bytes(),
            Width::from_raw(x).lanes(),
        );
        let _ = format!(
            "{} {} {} {} {}",
            PortState::from(x),
            Mtu::from(x),
            PhysState::from(x),
            LinkLayer::from(x),
            Width::from(x)
        );
        assert_eq!(uverbs::PortFlags::from_bits_retain(x).bits(), x);
    }
    let mut r = Rng::new(seed());
    let mut n = 0usize;
    let mut values: Vec<u32> = (0..=1024)
        .chain([u32::MAX, u32::MAX - 1, 1 << 31, 0x7fff_ffff])
        .collect();
    values.extend((0..iters()).map(|_| r.next() as u32));
    for &x in &values {
        assert_eq!(Speed::from_raw(x).as_raw(), x);
        assert_eq!(AtomicCap::from_raw(x).as_raw(), x);
        assert_eq!(NodeType::from_raw(x).as_raw(), x);
        assert_eq!(GidType::from_raw(x).as_raw(), x);
        assert_eq!(EventType::from_raw(x).as_raw(), x);
        let t = TransportType::from_raw(x as i32);
        assert_eq!(t.as_raw(), x as i32);
        let _ = (
            NodeType::from_raw(x).transport(),
            Speed::from_raw(x).lane_rate_decigbps(),
            Speed::from_raw(x).ib_name(),
        );
        let _ = format!(
            "{} {} {} {} {} {}",
            Speed::from(x),
            AtomicCap::from(x),
            NodeType::from(x),
            GidType::from(x),
            EventType::from(x),
            t
        );
        assert_eq!(PortCapFlags::from_bits_retain(x).bits(), x);
        assert_eq!(
            PortCapFlags::from_bits_retain(x).ib_names().count() as u32,
            x.count_ones()
        );
        assert_eq!(
            uverbs::PortCapFlags2::from_bits_retain(x as u16).bits(),
            x as u16
        );
        let wide = (u64::from(x) << 32) | u64::from(x.rotate_left(7));
        assert_eq!(DeviceCapFlags::from_bits_retain(wide).bits(), wide);
        n += 1;
    }
    // Known values have a C name and come back as themselves.
    macro_rules! known {
        ($($t:ty),*) => {$(
            for v in <$t>::KNOWN {
                assert_eq!(<$t>::from_raw(v.as_raw()), *v);
                assert!(v.c_name().is_some(), "{v:?}");
            }
        )*};
    }
    known!(
        PortState,
        Mtu,
        PhysState,
        LinkLayer,
        Width,
        Speed,
        AtomicCap,
        NodeType,
        TransportType,
        GidType,
        EventType
    );
    for x in (i32::MIN..=i32::MIN + 8)
        .chain(-8..=8)
        .chain(i32::MAX - 8..=i32::MAX)
    {
        assert_eq!(TransportType::from_raw(x).as_raw(), x);
    }
    for e in 0..=40u8 {
        let _ = uverbs::types::subnet_timeout_duration(e);
    }
    let _ = uverbs::types::subnet_timeout_duration(u8::MAX);
    println!(
        "fuzz target enums_round_trip: {} executions (256 x 8-bit exhaustive, {n} x 32-bit)",
        256 + n
    );
}

/// Errors print, and keep their errno, for every errno number.
#[test]
fn errors_for_every_errno() {
    let mut n = 0;
    for raw in 1..4096 {
        let errno = rustix::io::Errno::from_raw_os_error(raw);
        let op = if raw % 2 == 0 {
            Op::port("QUERY_PORT", "rxe0", 1)
        } else {
            Op::new("open", "")
        };
        let e = Error::from_errno(op.clone(), errno);
        assert_eq!(e.errno(), Some(errno));
        assert_eq!(e.op(), Some(&op));
        let text = e.to_string();
        assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
        n += 1;
    }
    println!("fuzz target errors_for_every_errno: {n} executions");
}

/// The names the crate derives from its tables follow the C names the ABI check
/// compares with the headers, so that no name can sit on the wrong value:
/// - `Speed::ib_name` is the kernel's `IB_SPEED_<name>` (checked against
///   `include/rdma/ib_verbs.h`);
/// - each InfiniBand capability name of bit `n` (`PORT_CAP_FLAG_NAMES[n]`, IBTA spelling)
///   belongs to the `PortCapFlags` constant whose value is `1 << n` (checked against
///   verbs.h, the uapi headers and OpenSM's table): the constant's name is the IBTA name
///   in upper case with underscores (`IsSMdisabled` is `IS_SM_DISABLED`), bit 0 being
///   the reserved bit.
#[test]
fn names_follow_the_checked_constants() {
    for s in Speed::KNOWN {
        let c = s.c_name().expect("a known speed has a C name");
        assert_eq!(s.ib_name(), c.strip_prefix("IB_SPEED_"), "{s:?}");
    }
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_')
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    let names = uverbs::types::PORT_CAP_FLAG_NAMES;
    for (bit, ib) in names.iter().enumerate() {
        let flag = PortCapFlags::from_bits_retain(1 << bit);
        let (constant, _) = flag
            .iter_names()
            .next()
            .unwrap_or_else(|| panic!("no PortCapFlags constant for bit {bit} ({ib})"));
        if bit == 0 {
            assert_eq!((*ib, constant), ("Reserved", "RESERVED0"));
            continue;
        }
        assert_eq!(
            squash(ib),
            squash(constant),
            "bit {bit}: the IBTA name {ib} is not the constant {constant}"
        );
        assert_eq!(flag.ib_names().collect::<Vec<_>>(), [*ib]);
    }
}
