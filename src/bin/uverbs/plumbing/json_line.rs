//! The JSON string escaper of the `uverbs` command (the only one: `json.rs`, `link.rs`
//! and `watch.rs` use it) and the one-line JSON record of an async event that
//! `uverbs watch --json` prints.
//!
//! Self-contained (it needs only the library), so that tests/fuzz includes it with
//! `#[path]` and fuzzes the event line without spawning the command.

use uverbs::verbs::event::{Event, EventScope};

/// Appends `v` to `s` as a JSON string literal: quotes, backslash escapes, and
/// `\uXXXX` for the other control characters and DEL.
///
/// Byte by byte: every character that needs an escape is ASCII, and no byte of a
/// multi-byte UTF-8 sequence is, so the runs between escapes are whole characters and
/// each is copied at once (the names and numbers the command prints have no escapes: one
/// copy per string).
pub fn push_str(s: &mut String, v: &str) {
    s.reserve(v.len() + 2);
    s.push('"');
    let b = v.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let e = ESCAPE[usize::from(c)];
        if e == 0 {
            continue;
        }
        s.push_str(&v[run..i]);
        run = i + 1;
        s.push('\\');
        if e == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            s.push_str("u00");
            s.push(char::from(HEX[usize::from(c >> 4)]));
            s.push(char::from(HEX[usize::from(c & 0xf)]));
        } else {
            s.push(char::from(e));
        }
    }
    s.push_str(&v[run..]);
    s.push('"');
}

/// True when `v` has a character [`push_str`] escapes.
pub fn needs_escape(v: &str) -> bool {
    v.bytes().any(|c| ESCAPE[usize::from(c)] != 0)
}

/// For each byte: 0 when it stands for itself in a JSON string, else the letter that
/// follows the backslash of its escape (`u` for `\u00XX`).
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = b'u';
        c += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[0x7f] = b'u';
    t
};

/// An event of `device` as one line of JSON (no newline):
///
/// `{"device":"rxe0","event":"IBV_EVENT_PORT_ERR","type":10,"scope":"port","port":1,"element":1}`
///
/// `event` is the libibverbs name, or `null` for a type the library does not know
/// (`type` always has the raw number); `scope` is `port`, `device`, `qp`, `cq`, `srq`,
/// `wq` or `unknown`; `port` is `null` unless the event is a port event.
pub fn event(ev: &Event, device: &str) -> String {
    let mut s = String::with_capacity(128);
    s.push_str("{\"device\":");
    push_str(&mut s, device);
    s.push_str(",\"event\":");
    match ev.kind.c_name() {
        Some(n) => push_str(&mut s, n),
        None => s.push_str("null"),
    }
    let scope = match ev.scope() {
        EventScope::Port(_) => "port",
        EventScope::Device => "device",
        EventScope::Qp(_) => "qp",
        EventScope::Cq(_) => "cq",
        EventScope::Srq(_) => "srq",
        EventScope::Wq(_) => "wq",
        // EventScope is non-exhaustive: a scope added later prints as unknown until it
        // gets its name here.
        _ => "unknown",
    };
    let port = match ev.port() {
        Some(p) => p.to_string(),
        None => "null".to_string(),
    };
    s.push_str(&format!(
        ",\"type\":{},\"scope\":\"{scope}\",\"port\":{port},\"element\":{}}}",
        ev.kind.as_raw(),
        ev.element
    ));
    s
}

/// A change of the devices themselves (`DEVICE_ADDED`, `DEVICE_REMOVED`,
/// `DEVICE_RENAMED`) as one line of JSON in the shape of [`event`]'s lines, with `type`,
/// `port` and `element` null (no kernel event carries it) and, for a rename, `from`:
///
/// `{"device":"rxe1","event":"DEVICE_RENAMED","type":null,"scope":"device","port":null,"element":null,"from":"rxe0"}`
pub fn device_change(device: &str, event: &str, from: Option<&str>) -> String {
    let mut s = String::with_capacity(128);
    s.push_str("{\"device\":");
    push_str(&mut s, device);
    s.push_str(",\"event\":");
    push_str(&mut s, event);
    s.push_str(",\"type\":null,\"scope\":\"device\",\"port\":null,\"element\":null");
    if let Some(from) = from {
        s.push_str(",\"from\":");
        push_str(&mut s, from);
    }
    s.push('}');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(element: u64, ty: u32) -> Event {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&element.to_ne_bytes());
        b[8..12].copy_from_slice(&ty.to_ne_bytes());
        Event::from_bytes(&b).unwrap()
    }

    #[test]
    fn port_event() {
        assert_eq!(
            event(&ev(1, 10), "rxe0"),
            r#"{"device":"rxe0","event":"IBV_EVENT_PORT_ERR","type":10,"scope":"port","port":1,"element":1}"#
        );
    }

    #[test]
    fn unknown_type() {
        assert_eq!(
            event(&ev(3, 42), "siw0"),
            r#"{"device":"siw0","event":null,"type":42,"scope":"unknown","port":null,"element":3}"#
        );
    }

    #[test]
    fn every_scope() {
        for (element, ty, scope) in [
            (0, 8, "device"),
            (0x2a, 1, "qp"),
            (5, 0, "cq"),
            (5, 15, "srq"),
            (5, 19, "wq"),
        ] {
            let j = event(&ev(element, ty), "mlx5_0");
            assert!(
                j.contains(&format!(
                    ",\"scope\":\"{scope}\",\"port\":null,\"element\":{element}}}"
                )),
                "{j}"
            );
        }
    }

    #[test]
    fn escapes_the_device_name() {
        let j = event(&ev(1, 9), "a\"b\\c\n\u{1}");
        assert!(j.starts_with(r#"{"device":"a\"b\\c\n\u0001","#), "{j}");
        let mut s = String::new();
        push_str(&mut s, "\r\t\u{7f}é");
        assert_eq!(s, "\"\\r\\t\\u007fé\"");
    }

    /// The escaper against the rule it implements, character by character: every ASCII
    /// character alone, between others and in runs, and multi-byte characters around.
    #[test]
    fn push_str_escapes_exactly_what_json_needs() {
        fn reference(v: &str) -> String {
            let mut s = String::from("\"");
            for c in v.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    '\t' => s.push_str("\\t"),
                    c if (c as u32) < 0x20 || c == '\u{7f}' => {
                        s.push_str(&format!("\\u{:04x}", c as u32))
                    }
                    c => s.push(c),
                }
            }
            s.push('"');
            s
        }
        let mut all = String::new();
        for b in 0u8..0x80 {
            let c = char::from(b);
            for v in [
                c.to_string(),
                format!("ab{c}"),
                format!("{c}é{c}{c}x"),
                format!("€{c}日"),
            ] {
                let mut s = String::new();
                push_str(&mut s, &v);
                assert_eq!(s, reference(&v), "{v:?}");
            }
            all.push(c);
            all.push_str("ü𝄞");
        }
        let mut s = String::new();
        push_str(&mut s, &all);
        assert_eq!(s, reference(&all));
        let mut s = String::from("x");
        push_str(&mut s, "");
        assert_eq!(s, "x\"\"");
    }

    #[test]
    fn device_changes() {
        assert_eq!(
            device_change("rxe_hp", "DEVICE_REMOVED", None),
            r#"{"device":"rxe_hp","event":"DEVICE_REMOVED","type":null,"scope":"device","port":null,"element":null}"#
        );
        assert_eq!(
            device_change("rxe1", "DEVICE_RENAMED", Some("rx\"e0")),
            r#"{"device":"rxe1","event":"DEVICE_RENAMED","type":null,"scope":"device","port":null,"element":null,"from":"rx\"e0"}"#
        );
    }
}
