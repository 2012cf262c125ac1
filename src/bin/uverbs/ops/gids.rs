//! `uverbs gids [-d DEV] [-i PORT] [--json] [--select TYPE] [--ipv4 ADDR] [--netdev IF]`:
//! the GID tables as operators read them, and the index a RoCE application needs.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

use uverbs::verbs::gid_select::{GidRow, GidSelector, Netdevs};
use uverbs::{Context, DeviceInfo, Discovery, GidType};

use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;
use crate::plumbing::json::{enm, J};

const HELP: &str = "\
Usage: uverbs gids [-d DEV] [-i PORT] [--json]
       uverbs gids --select TYPE [--ipv4 ADDR | --ipv6 ADDR] [--netdev IF] [--vlan ID]
                   [--routable] [-d DEV] [-i PORT] [--json | --env] [--output FILE]

Prints the valid entries of the GID tables: device, port, index, GID, the IPv4
address of an IPv4-mapped GID, the VLAN id of its netdev, its type (IB, RoCE v1,
RoCE v2) and its netdev. The tables come from one QUERY_GID_TABLE call per device
(sysfs where the device cannot be opened), netdev names from /sys/class/net, VLAN ids
from /proc/net/vlan/config.

With a selection it prints only the index of the best matching GID: the value of
NCCL_IB_GID_INDEX or UCX_IB_GID_INDEX (with --json, the whole entry). Among
matches, an IPv4-mapped GID comes first, then other IPv6 ones, link-local ones last;
then the first device, port and index.

With --env it prints what NCCL and UCX read instead, one VARIABLE=VALUE a line:
NCCL_IB_HCA (=DEV:PORT, an exact match), NCCL_IB_GID_INDEX, UCX_NET_DEVICES and
UCX_IB_GID_INDEX: an nccl.conf, a ucx.conf, an env file, or shell assignments. With
--output FILE the text goes to FILE (written whole, then renamed into place) instead
of standard output: what an init container leaves for the application's container.

  -d, --ib-dev=DEV    only device DEV
  -i, --ib-port=PORT  only port PORT
      --json          JSON (docs/json-schema.md)
      --select=TYPE   select a GID of TYPE: ib, roce-v1 or roce-v2
      --ipv4=ADDR     ... that maps IPv4 address ADDR
      --ipv6=ADDR     ... that is IPv6 address (or IB GID) ADDR
      --netdev=IF     ... whose netdev is IF
      --vlan=ID       ... whose netdev is a VLAN device of VLAN ID
      --routable      ... that is not link-local (fe80::/10)
      --env           print NCCL's and UCX's variables for the selected GID
  -o, --output=FILE   write to FILE instead of standard output
  -h, --help          this text

Exit status: 0 success; 1 no GID matches the selection, or an error; 2 usage error.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("json", false, b'j'),
    opt("select", true, b's'),
    opt("ipv4", true, b'4'),
    opt("ipv6", true, b'6'),
    opt("netdev", true, b'n'),
    opt("vlan", true, b'v'),
    opt("routable", false, b'r'),
    opt("env", false, b'e'),
    opt("output", true, b'o'),
    opt("help", false, b'h'),
];

/// Parses a GID type name.
pub fn parse_type(s: &str) -> Option<GidType> {
    match s.to_ascii_lowercase().as_str() {
        "ib" | "0" => Some(GidType::Ib),
        "roce-v1" | "rocev1" | "v1" | "1" => Some(GidType::RoceV1),
        "roce-v2" | "rocev2" | "v2" | "2" => Some(GidType::RoceV2),
        _ => None,
    }
}

/// The type as sysfs names it.
pub fn type_name(t: GidType) -> String {
    match t {
        GidType::Ib => "IB".into(),
        GidType::RoceV1 => "RoCE v1".into(),
        GidType::RoceV2 => "RoCE v2".into(),
        other => format!("type {}", other.as_raw()),
    }
}

/// The GID rows of `infos`' devices (port `port` only, if set), each device's table
/// by QUERY_GID_TABLE, or from sysfs where the device cannot be opened. The errors
/// met, one per device, come back beside the rows.
pub fn rows(
    infos: &[DeviceInfo],
    port: Option<u32>,
    names: &Netdevs,
) -> (Vec<GidRow>, Vec<uverbs::Error>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for info in infos {
        let entries = match Context::open(info) {
            Ok(ctx) => ctx.query_gid_table(usize::MAX),
            Err(open_err) => {
                let mut all = Vec::new();
                let mut err = None;
                for p in 1..=info.port_count {
                    match uverbs::sysfs::gids(Path::new("/sys"), &info.name, p) {
                        Ok(v) => all.extend(v),
                        Err(e) => err = Some(e),
                    }
                }
                match err {
                    Some(_) if all.is_empty() => Err(open_err),
                    _ => Ok(all),
                }
            }
        };
        match entries {
            // In port and index order: the kernel's (QUERY_GID_TABLE walks the ports,
            // then each table), and sysfs's as read.
            Ok(mut e) => {
                e.retain(|e| port.map_or(true, |p| e.port == p));
                out.extend(GidRow::join(&info.name, &e, names));
            }
            Err(e) => errors.push(e),
        }
    }
    (out, errors)
}

fn row_json(r: &GidRow) -> J {
    J::Obj(vec![
        ("device", J::s(r.device.clone())),
        ("port", J::u(r.port)),
        ("index", J::u(r.index)),
        ("gid", J::s(r.gid.to_string())),
        (
            "address",
            J::s(crate::plumbing::format::inet_ntop6(&r.gid.0)),
        ),
        ("ipv4", r.ipv4().map_or(J::Null, |a| J::s(a.to_string()))),
        ("vlan", J::opt_u(r.vlan)),
        ("type", enm(r.gid_type.c_name(), J::u(r.gid_type.as_raw()))),
        ("netdev", J::opt_s(&r.netdev)),
        ("netdev_ifindex", J::u(r.netdev_ifindex)),
    ])
}

fn table(rows: &[GidRow]) -> String {
    let head = [
        "DEV", "PORT", "INDEX", "GID", "IPV4", "VLAN", "TYPE", "NETDEV",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.device.clone(),
                r.port.to_string(),
                r.index.to_string(),
                r.gid.to_string(),
                r.ipv4().map(|a| a.to_string()).unwrap_or_default(),
                r.vlan.map(|v| v.to_string()).unwrap_or_default(),
                type_name(r.gid_type),
                r.netdev.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut width = head.map(str::len);
    for c in &cells {
        for (w, s) in width.iter_mut().zip(c) {
            *w = (*w).max(s.len());
        }
    }
    let mut out = String::new();
    let mut line = |cols: &[&str]| {
        let mut l = String::new();
        for (k, (s, w)) in cols.iter().zip(width).enumerate() {
            if k + 1 == cols.len() {
                l.push_str(s);
            } else {
                l.push_str(&format!("{s:<w$}  "));
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&head);
    for c in &cells {
        let refs: Vec<&str> = c.iter().map(String::as_str).collect();
        line(&refs);
    }
    out
}

/// `uverbs gids ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut json = false;
    let mut dev: Option<String> = None;
    let mut sel = GidSelector::default();
    let mut selecting = false;
    let mut env = false;
    let mut output: Option<std::path::PathBuf> = None;
    let parsed = io.text_options("gids", HELP, args, "d:i:o:h", LONGS, |c, v| {
        match c {
            b'j' => json = true,
            b'e' => env = true,
            b'o' => output = Some(v.into()),
            b'd' => dev = Some(v),
            b'i' => sel.port = Some(crate::plumbing::io::port_arg(&v)?),
            b's' => {
                selecting = true;
                sel.gid_type = Some(
                    parse_type(&v)
                        .ok_or_else(|| format!("bad GID type '{v}' (ib, roce-v1 or roce-v2)"))?,
                )
            }
            b'4' => {
                selecting = true;
                sel.ipv4 = Some(
                    v.parse::<Ipv4Addr>()
                        .map_err(|_| format!("bad IPv4 address '{v}'"))?,
                )
            }
            b'6' => {
                selecting = true;
                sel.ipv6 = Some(
                    v.parse::<Ipv6Addr>()
                        .map_err(|_| format!("bad IPv6 address '{v}'"))?,
                )
            }
            b'n' => {
                selecting = true;
                sel.netdev = Some(v)
            }
            b'v' => {
                selecting = true;
                sel.vlan = Some(
                    v.parse::<u16>()
                        .ok()
                        .filter(|&id| id < 4096)
                        .ok_or_else(|| format!("bad VLAN id '{v}' (0-4095)"))?,
                )
            }
            b'r' => {
                selecting = true;
                sel.routable = true
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    if env && !selecting {
        return io.usage_error("gids", "--env needs a selection (--select TYPE)");
    }
    if env && json {
        return io.usage_error("gids", "--env and --json are two outputs: give one");
    }
    let disc = Discovery::new();
    let infos = match &dev {
        Some(d) => disc.device(d).map(|i| vec![i]),
        None => disc.devices(),
    };
    let infos = match infos {
        Ok(v) => v,
        Err(e) => {
            io.err_line(&crate::plumbing::io::printable(
                format!("uverbs gids: {e}").as_bytes(),
            ));
            return 1;
        }
    };
    let names = Netdevs::read(Path::new("/sys"), Path::new("/proc"));
    let (rows, errors) = rows(&infos, sel.port, &names);
    for e in &errors {
        io.err_line(&crate::plumbing::io::printable(
            format!("uverbs gids: {e}").as_bytes(),
        ));
    }
    if selecting {
        return match sel.select(&rows) {
            Some(r) => {
                let text = if json {
                    row_json(r).pretty()
                } else if env {
                    env_lines(r)
                } else {
                    format!("{}\n", r.index)
                };
                io.out_or_file("gids", output.as_deref(), text)
            }
            None => {
                io.err_line(&crate::plumbing::io::printable(
                    format!("uverbs gids: no GID matches {}", describe(&sel, &dev)).as_bytes(),
                ));
                1
            }
        };
    }
    let text = if json {
        crate::plumbing::json::document("gids", J::Arr(rows.iter().map(row_json).collect()))
            .pretty()
    } else {
        table(&rows)
    };
    match io.out_or_file("gids", output.as_deref(), text) {
        0 => i32::from(!errors.is_empty()),
        status => status,
    }
}

/// The variables NCCL and UCX read for the GID `r`.
fn env_lines(r: &GidRow) -> String {
    let (dev, port, index) = (&r.device, r.port, r.index);
    format!(
        "NCCL_IB_HCA=={dev}:{port}\nNCCL_IB_GID_INDEX={index}\n\
         UCX_NET_DEVICES={dev}:{port}\nUCX_IB_GID_INDEX={index}\n"
    )
}

/// The selection in words, for the message when nothing matches.
fn describe(sel: &GidSelector, dev: &Option<String>) -> String {
    let mut parts = Vec::new();
    if let Some(t) = sel.gid_type {
        parts.push(format!("type {}", type_name(t)));
    }
    if sel.routable {
        parts.push("routable (not link-local)".into());
    }
    if let Some(a) = sel.ipv4 {
        parts.push(format!("IPv4 {a}"));
    }
    if let Some(a) = sel.ipv6 {
        parts.push(format!("IPv6 {a}"));
    }
    if let Some(n) = &sel.netdev {
        parts.push(format!("netdev {n}"));
    }
    if let Some(v) = sel.vlan {
        parts.push(format!("VLAN {v}"));
    }
    let on = match (dev, sel.port) {
        (Some(d), Some(p)) => format!("{d} port {p}"),
        (Some(d), None) => d.clone(),
        (None, Some(p)) => format!("port {p} of any device"),
        (None, None) => "any device".into(),
    };
    format!("{} on {on}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        assert_eq!(parse_type("RoCE-v2"), Some(GidType::RoceV2));
        assert_eq!(parse_type("v1"), Some(GidType::RoceV1));
        assert_eq!(parse_type("ib"), Some(GidType::Ib));
        assert_eq!(parse_type("v3"), None);
        assert_eq!(type_name(GidType::RoceV2), "RoCE v2");
        assert_eq!(type_name(GidType::from_raw(9)), "type 9");
    }

    #[test]
    fn no_match_message() {
        let sel = GidSelector {
            gid_type: Some(GidType::RoceV2),
            ipv4: Some("10.0.0.1".parse().unwrap()),
            ..Default::default()
        };
        assert_eq!(
            describe(&sel, &Some("rxe0".into())),
            "type RoCE v2, IPv4 10.0.0.1 on rxe0"
        );
    }
}
