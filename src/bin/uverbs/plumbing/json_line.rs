//! The JSON string escaper of the `uverbs` command (the only one: `json.rs`, `link.rs`
//! and `watch.rs` use it) and the one-line JSON record of an async event that
//! `uverbs watch --json` prints.
//!
//! Self-contained (it needs only the library), so that tests/fuzz includes it with
//! `#[path]` and fuzzes the event line without spawning the command.

use uverbs::verbs::event::{Event, EventScope};

/// Appends `v` to `s` as a JSON string literal: quotes, backslash escapes, and
/// `\uXXXX` for the other control characters and DEL.
pub fn push_str(s: &mut String, v: &str) {
    use core::fmt::Write;
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

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
