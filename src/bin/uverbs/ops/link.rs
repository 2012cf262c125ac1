//! `uverbs link add NAME type rxe|siw netdev IF`, `uverbs link del NAME`,
//! `uverbs link show [--json]`: soft-RDMA links over RDMA netlink, as `rdma link` does.

use uverbs::netlink::link::{self, LinkType};

use crate::plumbing::io::Io;

const HELP: &str = "\
Usage: uverbs link add NAME type rxe|siw netdev IFNAME
       uverbs link del NAME
       uverbs link show [--json]

Creates and deletes Soft-RoCE (rxe) and Soft-iWARP (siw) devices and lists every RDMA
port with its state and network device, through RDMA netlink (no iproute2 needed).
add and del need CAP_NET_ADMIN.
";

fn strip(name: Option<&str>, prefix: &str) -> String {
    match name {
        Some(n) => n.strip_prefix(prefix).unwrap_or(n).to_string(),
        None => "UNKNOWN".into(),
    }
}

/// `uverbs link ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let args: Vec<String> = args
        .iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match words.as_slice() {
        [] | ["show"] | ["list"] => return show(io, false),
        ["show", "--json"] | ["--json"] => return show(io, true),
        ["-h"] | ["--help"] | ["help"] => {
            io.out(HELP);
            return 0;
        }
        ["add", name, rest @ ..] => {
            let (mut kind, mut netdev) = (None, None);
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                match (*w, it.next()) {
                    ("type", Some(&"rxe")) => kind = Some(LinkType::Rxe),
                    ("type", Some(&"siw")) => kind = Some(LinkType::Siw),
                    ("type", Some(t)) => {
                        return io
                            .usage_error("link", &format!("unknown link type '{t}' (rxe or siw)"))
                    }
                    ("netdev", Some(n)) => netdev = Some(*n),
                    (w, _) => return io.usage_error("link", &format!("unexpected '{w}'")),
                }
            }
            match (kind, netdev) {
                (Some(k), Some(n)) => link::add(name, k, n),
                _ => return io.usage_error("link", "add needs 'type rxe|siw' and 'netdev IFNAME'"),
            }
        }
        ["del" | "delete", name] => link::del(name),
        [w, ..] => return io.usage_error("link", &format!("unknown link command '{w}'")),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs link: {e}").as_bytes(),
            ));
            1
        }
    }
}

fn show(io: &mut Io, json: bool) -> i32 {
    let links = match link::show() {
        Ok(l) => l,
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs link: {e}").as_bytes(),
            ));
            return 1;
        }
    };
    if json {
        use crate::plumbing::json_line::push_str as js;
        let mut s = String::from("[");
        for (i, l) in links.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"device\":");
            js(&mut s, &l.device);
            s.push_str(&format!(",\"port\":{},\"state\":{{\"name\":", l.port));
            js(&mut s, &strip(l.state.c_name(), "IBV_PORT_"));
            s.push_str(&format!(
                ",\"value\":{}}},\"physical_state\":{{\"name\":",
                l.state.as_raw()
            ));
            js(&mut s, &strip(l.phys_state.c_name(), "IB_PORT_PHYS_STATE_"));
            s.push_str(&format!(
                ",\"value\":{}}},\"netdev\":",
                l.phys_state.as_raw()
            ));
            match &l.netdev {
                Some(n) => js(&mut s, n),
                None => s.push_str("null"),
            }
            s.push_str(&format!(
                ",\"netdev_index\":{}}}",
                l.netdev_index.map_or("null".to_string(), |n| n.to_string())
            ));
        }
        s.push_str("]\n");
        io.out(s);
        return 0;
    }
    for l in &links {
        let mut line = format!(
            "link {}/{} state {} physical_state {}",
            l.device,
            l.port,
            strip(l.state.c_name(), "IBV_PORT_"),
            strip(l.phys_state.c_name(), "IB_PORT_PHYS_STATE_")
        );
        if let Some(n) = &l.netdev {
            line.push_str(&format!(" netdev {n}"));
        }
        line.push('\n');
        io.out(line);
    }
    0
}
