//! Text formats that the drop-in tools and the operators' tools share: an IPv6 address as
//! glibc's `inet_ntop` writes it, and numbers appended to a byte buffer.

use std::fmt::Write;

/// glibc's `inet_ntop(AF_INET6)`: lower-case hex words without leading zeros, the first
/// longest run of two or more zero words as `::`, and a dotted IPv4 tail for IPv4-mapped
/// (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) addresses.
pub fn inet_ntop6(b: &[u8; 16]) -> String {
    let words: Vec<u16> = b
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    let (mut best_base, mut best_len) = (usize::MAX, 0usize);
    let (mut cur_base, mut cur_len) = (usize::MAX, 0usize);
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            if cur_base == usize::MAX {
                cur_base = i;
                cur_len = 1;
            } else {
                cur_len += 1;
            }
        } else if cur_base != usize::MAX {
            if best_base == usize::MAX || cur_len > best_len {
                best_base = cur_base;
                best_len = cur_len;
            }
            cur_base = usize::MAX;
        }
    }
    if cur_base != usize::MAX && (best_base == usize::MAX || cur_len > best_len) {
        best_base = cur_base;
        best_len = cur_len;
    }
    if best_base != usize::MAX && best_len < 2 {
        best_base = usize::MAX;
    }
    let mut s = String::new();
    let mut i = 0;
    while i < 8 {
        if best_base != usize::MAX && i >= best_base && i < best_base + best_len {
            if i == best_base {
                s.push(':');
            }
            i += 1;
            continue;
        }
        if i != 0 {
            s.push(':');
        }
        if i == 6 && best_base == 0 && (best_len == 6 || (best_len == 5 && words[5] == 0xffff)) {
            let _ = write!(s, "{}.{}.{}.{}", b[12], b[13], b[14], b[15]);
            return s;
        }
        let _ = write!(s, "{:x}", words[i]);
        i += 1;
    }
    if best_base != usize::MAX && best_base + best_len == 8 {
        s.push(':');
    }
    s
}

/// `n` in decimal (`%u`), appended to `o` without `core::fmt`: its machinery (a
/// `format!` is a `String` made, written through a formatter and freed) costs several
/// hundred instructions a number, and the drop-in tools print dozens per device.
#[inline(never)]
pub fn dec(o: &mut Vec<u8>, n: u32) {
    o.extend_from_slice(uverbs::sysfs::NumName::new(n).as_bytes());
}

/// `n` in decimal with a minus sign when negative (`%d`).
#[inline(never)]
pub fn dec_i(o: &mut Vec<u8>, n: i32) {
    if n < 0 {
        o.push(b'-');
    }
    dec(o, n.unsigned_abs());
}

/// `n` in lower-case hex, zero-padded to `width` digits (`%0*x`; a wider number keeps
/// all its digits, and 0 is one digit at any width).
#[inline(never)]
pub fn hex(o: &mut Vec<u8>, n: u64, width: usize) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut b = [b'0'; 16];
    let mut i = b.len();
    let mut n = n;
    loop {
        i -= 1;
        b[i] = DIGITS[(n & 0xf) as usize];
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    let i = i.min(b.len().saturating_sub(width));
    o.extend_from_slice(&b[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_printf_writes_them() {
        let cases: [(u64, usize); 7] = [
            (0, 0),
            (7, 1),
            (10, 4),
            (0xfe80, 4),
            (0x1_0000, 4),
            (u64::MAX, 16),
            (0x2_0000_0000_0000, 16),
        ];
        for (n, w) in cases {
            let mut o = Vec::new();
            hex(&mut o, n, w);
            assert_eq!(o, format!("{n:0w$x}").into_bytes(), "{n:#x} at {w}");
        }
        for n in [0u32, 7, 10, 65536, u32::MAX] {
            let mut o = Vec::new();
            dec(&mut o, n);
            assert_eq!(o, n.to_string().into_bytes());
        }
        for n in [0i32, -1, 42, i32::MIN, i32::MAX] {
            let mut o = Vec::new();
            dec_i(&mut o, n);
            assert_eq!(o, n.to_string().into_bytes());
        }
        let mut o = b"x".to_vec();
        hex(&mut o, 0xab, 8);
        dec(&mut o, 5);
        assert_eq!(o, b"x000000ab5");
    }

    fn ntop(s: &str) -> String {
        let a: std::net::Ipv6Addr = s.parse().unwrap();
        inet_ntop6(&a.octets())
    }

    #[test]
    fn inet_ntop_like_glibc() {
        assert_eq!(
            ntop("fe80::f406:94ff:fe33:4244"),
            "fe80::f406:94ff:fe33:4244"
        );
        assert_eq!(ntop("::ffff:169.254.1.1"), "::ffff:169.254.1.1");
        // IPv4-compatible: glibc prints a dotted tail (Rust does not).
        assert_eq!(ntop("::1.2.3.4"), "::1.2.3.4");
        assert_eq!(ntop("::1"), "::1");
        assert_eq!(ntop("::"), "::");
        assert_eq!(ntop("1::"), "1::");
        assert_eq!(ntop("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(ntop("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4");
        assert_eq!(ntop("1:0:2:3:4:5:6:7"), "1:0:2:3:4:5:6:7");
        assert_eq!(ntop("2001:db8::ffff:0:1"), "2001:db8::ffff:0:1");
    }
}
