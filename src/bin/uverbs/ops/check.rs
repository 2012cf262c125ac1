//! `uverbs check`: a health probe for readiness and liveness checks (a Kubernetes `exec`
//! probe, a systemd `ExecCondition=`, a batch job's prologue): conditions on the ports a
//! workload needs; exit 0 when every one holds, else 1 and one line per failed
//! condition.

use std::path::Path;
use std::time::Instant;

use uverbs::verbs::counters::CounterReader;
use uverbs::verbs::gid_select::{GidRow, GidSelector, Netdevs};
use uverbs::{Context, DeviceInfo, Discovery, GidEntry, GidType, LinkLayer, PhysState};
use uverbs::{PortAttr, PortState};

use crate::plumbing::deadline::{self, Outcome, Progress, Readers};
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;

const HELP: &str = "\
Usage: uverbs check [-d DEV]... [-i PORT] [CONDITION]... [-v] [--device-timeout SECS]

Checks conditions on RDMA ports, for container readiness and liveness probes,
systemd's ExecCondition= or a job prologue. Each port checked (every port of each -d
device, or of every device; only PORT with -i) must meet every condition. Without a
condition, the port must be ACTIVE.

Conditions:
      --state=STATE       logical state: DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER, or
                          its number
      --phys-state=STATE  physical state: Sleep, Polling, Disabled,
                          PortConfigurationTraining, LinkUp, LinkErrorRecovery,
                          PhyTest, or its number
      --min-width=N       at least N lanes (1, 2, 4, 8, 12; 4X is accepted)
      --min-speed=GBPS    a lane speed of at least GBPS Gb/s (2.5 SDR ... 200 XDR)
      --min-rate=GBPS     width x lane speed of at least GBPS Gb/s
      --min-mtu=BYTES     an active MTU of at least BYTES (256 ... 4096)
      --link-layer=LL     InfiniBand or Ethernet
      --gid=TYPE          a GID of TYPE (ib, roce-v1, roce-v2) that is not link-local
                          (for RoCE: routable, an IPv4-mapped or global IPv6 address)
      --gid-netdev=IF     ... and whose netdev is IF

  -d, --ib-dev=DEV        check device DEV (repeatable; default: every device)
  -i, --ib-port=PORT      check port PORT only
  -v, --verbose           also print one line per port that meets every condition
      --device-timeout=SECS
                          how long to wait for a device's answers (and for the
                          device list) before failing it (default 5; 0.001 to
                          3600); keep it below the probe's own timeout
  -h, --help              this text

Each failed condition prints one line: DEVICE port N: CONDITION: wanted W, found F.
The ports are read with one QUERY_PORT each (one QUERY_GID_TABLE per device for
--gid), no more than 'uverbs devinfo -d DEV' costs.

Each device is read by a thread of its own, all at once. A device that has not
answered within --device-timeout fails: one line DEVICE: no answer within T (reading
WHAT), naming the call it was in; the other devices are checked on time.

Exit status: 0 every condition holds on every port; 1 a condition fails, or a
device or port is missing, cannot be read or does not answer in time; 2 usage error.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("state", true, b's'),
    opt("phys-state", true, b'p'),
    opt("min-width", true, b'w'),
    opt("min-speed", true, b'S'),
    opt("min-rate", true, b'r'),
    opt("min-mtu", true, b'm'),
    opt("link-layer", true, b'l'),
    opt("gid", true, b'g'),
    opt("gid-netdev", true, b'n'),
    opt("verbose", false, b'v'),
    opt("device-timeout", true, b'T'),
    opt("help", false, b'h'),
];

const STATES: [&str; 6] = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"];
const PHYS: [&str; 8] = [
    "",
    "Sleep",
    "Polling",
    "Disabled",
    "PortConfigurationTraining",
    "LinkUp",
    "LinkErrorRecovery",
    "PhyTest",
];

fn state_name(s: PortState) -> String {
    let raw = s.as_raw();
    match STATES.get(usize::from(raw)) {
        Some(n) => (*n).to_string(),
        None => format!("state {raw}"),
    }
}

fn phys_name(s: PhysState) -> String {
    let raw = s.as_raw();
    match PHYS.get(usize::from(raw)) {
        Some(n) if !n.is_empty() => (*n).to_string(),
        _ => format!("physical state {raw}"),
    }
}

fn link_layer_name(l: LinkLayer) -> String {
    match l {
        LinkLayer::InfiniBand => "InfiniBand".into(),
        LinkLayer::Ethernet => "Ethernet".into(),
        other => format!("link layer {}", other.as_raw()),
    }
}

/// Parses a name (any case) or a number against a name table.
fn parse_named(v: &str, names: &[&str]) -> Option<u8> {
    if let Ok(n) = v.parse::<u8>() {
        return Some(n);
    }
    let want: String = v.chars().filter(|c| *c != ' ' && *c != '_').collect();
    names
        .iter()
        .position(|n| !n.is_empty() && n.replace('_', "").eq_ignore_ascii_case(&want))
        .and_then(|i| u8::try_from(i).ok())
        .or_else(|| {
            // ACTIVE_DEFER's underscore, PhyTest's old spelling "Phy Test".
            names
                .iter()
                .position(|n| !n.is_empty() && n.eq_ignore_ascii_case(v))
                .and_then(|i| u8::try_from(i).ok())
        })
}

/// Parses `2.5`, `25`, `100` as tenths of Gb/s.
fn parse_decigbps(v: &str) -> Option<u32> {
    let (int, frac) = match v.split_once('.') {
        Some((i, f)) => (i, f),
        None => (v, "0"),
    };
    if int.is_empty() || frac.len() != 1 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: u32 = int.parse().ok()?;
    i.checked_mul(10)?.checked_add(frac.parse::<u32>().ok()?)
}

fn gbps(deci: u32) -> String {
    if deci % 10 == 0 {
        format!("{} Gb/s", deci / 10)
    } else {
        format!("{}.{} Gb/s", deci / 10, deci % 10)
    }
}

/// One condition.
#[derive(Debug, Clone, PartialEq)]
enum Cond {
    State(PortState),
    Phys(PhysState),
    MinWidth(u32),
    MinSpeed(u32),
    MinRate(u32),
    MinMtu(u32),
    LinkLayer(LinkLayer),
    Gid(GidType),
}

/// What a port is, for the conditions.
struct Port<'a> {
    attr: &'a PortAttr,
    /// The port's GID rows (only read when a GID condition is asked).
    gids: &'a [GidRow],
}

/// Checks `c` on `p`: `None` when it holds, else `(condition, wanted, found)`.
fn failure(c: &Cond, p: &Port<'_>, netdev: &Option<String>) -> Option<(String, String, String)> {
    let a = p.attr;
    let f = |c: &str, w: String, found: String| Some((c.to_string(), w, found));
    match c {
        Cond::State(s) if a.state != *s => f("state", state_name(*s), state_name(a.state)),
        Cond::Phys(s) if a.phys_state != *s => {
            f("physical state", phys_name(*s), phys_name(a.phys_state))
        }
        Cond::MinWidth(n) => {
            let lanes = a.active_width.lanes();
            match lanes {
                Some(l) if l >= *n => None,
                Some(l) => f("width", format!("at least {n}X"), format!("{l}X")),
                None => f(
                    "width",
                    format!("at least {n}X"),
                    format!("width {}", a.active_width.as_raw()),
                ),
            }
        }
        Cond::MinSpeed(d) => {
            let s = a.speed();
            match s.lane_rate_decigbps() {
                Some(got) if got >= *d => None,
                got => f(
                    "lane speed",
                    format!("at least {}", gbps(*d)),
                    match (got, s.ib_name()) {
                        (Some(g), Some(n)) => format!("{} ({n})", gbps(g)),
                        _ => format!("speed {}", s.as_raw()),
                    },
                ),
            }
        }
        Cond::MinRate(d) => match a.rate_decigbps() {
            Some(got) if got >= *d => None,
            got => f(
                "rate",
                format!("at least {}", gbps(*d)),
                got.map_or_else(|| "unknown".to_string(), gbps),
            ),
        },
        Cond::MinMtu(b) => match a.active_mtu.bytes() {
            Some(got) if got >= *b => None,
            got => f(
                "active MTU",
                format!("at least {b}"),
                got.map_or_else(
                    || format!("MTU {}", a.active_mtu.as_raw()),
                    |g| g.to_string(),
                ),
            ),
        },
        Cond::LinkLayer(l) if a.link_layer != *l => f(
            "link layer",
            link_layer_name(*l),
            link_layer_name(a.link_layer),
        ),
        Cond::Gid(t) => {
            let sel = GidSelector {
                gid_type: Some(*t),
                netdev: netdev.clone(),
                routable: true,
                ..GidSelector::default()
            };
            if sel.select(p.gids).is_some() {
                return None;
            }
            let on = netdev
                .as_ref()
                .map(|n| format!(" on {n}"))
                .unwrap_or_default();
            let found: Vec<String> = p
                .gids
                .iter()
                .map(|r| {
                    format!(
                        "{} {} {}",
                        r.index,
                        crate::ops::gids::type_name(r.gid_type),
                        r.netdev.as_deref().unwrap_or("-")
                    )
                })
                .collect();
            f(
                "GID",
                format!("a routable {} GID{on}", crate::ops::gids::type_name(*t)),
                if found.is_empty() {
                    "no GID".into()
                } else {
                    format!("only [{}]", found.join(", "))
                },
            )
        }
        _ => None,
    }
}

/// What one device answered: each port's QUERY_PORT and, for a GID condition, its
/// GID table.
struct Answers {
    ports: Vec<(u32, uverbs::Result<PortAttr>)>,
    gids: Option<uverbs::Result<Vec<GidEntry>>>,
}

/// A device's job, on its reader thread: opens it, queries its ports (`port` only,
/// when given) and, with `gids`, its GID table; the device is closed when it returns.
fn read_device(
    info: &DeviceInfo,
    port: Option<u32>,
    gids: bool,
    p: &Progress<'_>,
) -> uverbs::Result<Answers> {
    p.set("GET_CONTEXT", 0);
    let ctx = Context::open(info)?;
    let ports: Vec<u32> = match port {
        Some(p) => vec![p],
        None => (1..=u32::from(ctx.port_count())).collect(),
    };
    let gids = gids.then(|| {
        p.set("QUERY_GID_TABLE", 0);
        ctx.query_gid_table(usize::MAX)
    });
    let ports = ports
        .into_iter()
        .map(|n| {
            p.set("QUERY_PORT", n);
            (n, ctx.query_port(n))
        })
        .collect();
    Ok(Answers { ports, gids })
}

/// One line on stdout, control characters escaped.
fn line(io: &mut Io, s: &str) {
    let mut v = crate::plumbing::io::printable(s.as_bytes()).into_bytes();
    v.push(b'\n');
    io.out(v);
}

/// `uverbs check ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut devs: Vec<String> = Vec::new();
    let mut port: Option<u32> = None;
    let mut conds: Vec<Cond> = Vec::new();
    let mut netdev: Option<String> = None;
    let mut verbose = false;
    let mut timeout = deadline::DEFAULT_TIMEOUT;
    let parsed = io.text_options("check", HELP, args, "d:i:vh", LONGS, |c, v| {
        match c {
            b'd' => devs.push(v),
            b'i' => port = Some(crate::plumbing::io::port_arg(&v)?),
            b's' => conds.push(Cond::State(PortState::from_raw(
                parse_named(&v, &STATES).ok_or_else(|| format!("bad port state '{v}'"))?,
            ))),
            b'p' => conds.push(Cond::Phys(PhysState::from_raw(
                parse_named(&v, &PHYS)
                    .or_else(|| v.eq_ignore_ascii_case("Phy Test").then_some(7))
                    .ok_or_else(|| format!("bad physical state '{v}'"))?,
            ))),
            b'w' => conds.push(Cond::MinWidth(
                v.trim_end_matches(['X', 'x'])
                    .parse::<u32>()
                    .ok()
                    .filter(|n| [1, 2, 4, 8, 12].contains(n))
                    .ok_or_else(|| format!("bad width '{v}' (1, 2, 4, 8 or 12)"))?,
            )),
            b'S' => conds.push(Cond::MinSpeed(
                parse_decigbps(&v).ok_or_else(|| format!("bad speed '{v}' (Gb/s, e.g. 25)"))?,
            )),
            b'r' => conds.push(Cond::MinRate(
                parse_decigbps(&v).ok_or_else(|| format!("bad rate '{v}' (Gb/s, e.g. 100)"))?,
            )),
            b'm' => conds.push(Cond::MinMtu(
                v.parse::<u32>()
                    .ok()
                    .filter(|m| [256, 512, 1024, 2048, 4096].contains(m))
                    .ok_or_else(|| format!("bad MTU '{v}' (256, 512, 1024, 2048 or 4096)"))?,
            )),
            b'l' => conds.push(Cond::LinkLayer(match v.to_ascii_lowercase().as_str() {
                "infiniband" | "ib" => LinkLayer::InfiniBand,
                "ethernet" | "eth" => LinkLayer::Ethernet,
                _ => return Err(format!("bad link layer '{v}' (InfiniBand or Ethernet)")),
            })),
            b'g' => conds
                .push(Cond::Gid(crate::ops::gids::parse_type(&v).ok_or_else(
                    || format!("bad GID type '{v}' (ib, roce-v1 or roce-v2)"),
                )?)),
            b'n' => netdev = Some(v),
            b'v' => verbose = true,
            b'T' => {
                timeout = deadline::parse_timeout(&v).ok_or_else(|| {
                    format!("bad --device-timeout '{v}': expected seconds from 0.001 to 3600")
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    if netdev.is_some() && !conds.iter().any(|c| matches!(c, Cond::Gid(_))) {
        return io.usage_error("check", "--gid-netdev needs --gid");
    }
    if conds.is_empty() {
        conds.push(Cond::State(PortState::Active));
    }
    let want_gids = conds.iter().any(|c| matches!(c, Cond::Gid(_)));
    let start = Instant::now();
    let deadline = start + timeout;
    // One reader thread per device, and one for the device list (RDMA netlink).
    // (Their state is counters' and the exporter's, unused here: one copy of the
    // plumbing in the binary.)
    let readers: Readers<Option<CounterReader>> = Readers::new("uverbs-rd-");
    let wanted = devs.clone();
    let listed = readers.start("", deadline, timeout, move |_, p| {
        p.set("the device list", 0);
        let disc = Discovery::new();
        if wanted.is_empty() {
            match disc.devices() {
                Ok(v) => Some(v.into_iter().map(Ok).collect()),
                Err(e) => Some(vec![Err(e)]),
            }
            .filter(|v: &Vec<_>| !v.is_empty())
        } else {
            Some(wanted.iter().map(|d| disc.device(d)).collect::<Vec<_>>())
        }
    });
    let infos = match listed.wait() {
        Outcome::Done(Some(v), _) => v,
        Outcome::Done(None, _) => {
            io.out("no RDMA device: wanted at least one, found none\n");
            return 1;
        }
        Outcome::Late(late) => {
            line(io, &format!("device list: {late}"));
            return 1;
        }
    };
    // Every device's job started (they run at once), then each waited for.
    let jobs: Vec<_> = infos
        .into_iter()
        .map(|info| {
            info.map(|info| {
                let key = info.name.clone();
                let job = readers.start(&key, deadline, timeout, move |_, p| {
                    let got = read_device(&info, port, want_gids, p);
                    (info, got)
                });
                (key, job)
            })
        })
        .collect();
    let names = if want_gids && netdev.is_some() {
        Netdevs::read(Path::new("/sys"), Path::new("/proc"))
    } else {
        Netdevs::default()
    };
    let mut failed = 0usize;
    for job in jobs {
        let (key, job) = match job {
            Ok(j) => j,
            Err(e) => {
                line(io, &e.to_string());
                failed += 1;
                continue;
            }
        };
        let (info, answers) = match job.wait() {
            Outcome::Done((info, Ok(a)), _) => (info, a),
            Outcome::Done((_, Err(e)), _) => {
                line(io, &e.to_string());
                failed += 1;
                continue;
            }
            Outcome::Late(late) => {
                line(io, &format!("{key}: {late}"));
                failed += 1;
                continue;
            }
        };
        let gids = match answers.gids {
            Some(Ok(e)) => GidRow::join(&info.name, &e, &names),
            Some(Err(e)) => {
                line(io, &e.to_string());
                failed += 1;
                Vec::new()
            }
            None => Vec::new(),
        };
        for (p, attr) in answers.ports {
            let attr = match attr {
                Ok(a) => a,
                Err(e) => {
                    line(io, &e.to_string());
                    failed += 1;
                    continue;
                }
            };
            let port_gids: Vec<GidRow> = gids.iter().filter(|g| g.port == p).cloned().collect();
            let view = Port {
                attr: &attr,
                gids: &port_gids,
            };
            let mut ok = true;
            for c in &conds {
                if let Some((what, wanted, found)) = failure(c, &view, &netdev) {
                    ok = false;
                    failed += 1;
                    line(
                        io,
                        &format!(
                            "{} port {p}: {what}: wanted {wanted}, found {found}",
                            info.name
                        ),
                    );
                }
            }
            if ok && verbose {
                line(
                    io,
                    &format!(
                        "{} port {p}: ok ({}, {}, {})",
                        info.name,
                        state_name(attr.state),
                        attr.rate_decigbps()
                            .map_or_else(|| "rate unknown".into(), gbps),
                        link_layer_name(attr.link_layer)
                    ),
                );
            }
        }
    }
    i32::from(failed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uverbs::{Mtu, Speed, Width};

    #[test]
    fn names_and_numbers() {
        assert_eq!(parse_named("active", &STATES), Some(4));
        assert_eq!(parse_named("ACTIVE_DEFER", &STATES), Some(5));
        assert_eq!(parse_named("3", &STATES), Some(3));
        assert_eq!(parse_named("linkup", &PHYS), Some(5));
        assert_eq!(parse_named("Phy_Test", &PHYS), Some(7));
        assert_eq!(parse_named("up", &STATES), None);
        assert_eq!(parse_decigbps("2.5"), Some(25));
        assert_eq!(parse_decigbps("100"), Some(1000));
        assert_eq!(parse_decigbps("2.55"), None);
        assert_eq!(parse_decigbps(".5"), None);
        assert_eq!(gbps(25), "2.5 Gb/s");
        assert_eq!(gbps(1000), "100 Gb/s");
    }

    /// rxe0's port as the 6.1 kernel answered (tests/golden: ACTIVE, LinkUp, 1X SDR,
    /// MTU 1024, Ethernet).
    fn rxe_port() -> PortAttr {
        let mut p = PortAttr::default();
        p.state = PortState::Active;
        p.phys_state = PhysState::LinkUp;
        p.active_width = Width::X1;
        p.active_speed = 1;
        p.active_mtu = Mtu::Mtu1024;
        p.link_layer = LinkLayer::Ethernet;
        p
    }

    #[test]
    fn failed_conditions_name_wanted_and_found() {
        let a = rxe_port();
        let port = Port {
            attr: &a,
            gids: &[],
        };
        let fail = |c: Cond| failure(&c, &port, &None);
        assert_eq!(fail(Cond::State(PortState::Active)), None);
        assert_eq!(
            fail(Cond::State(PortState::Down)),
            Some(("state".into(), "DOWN".into(), "ACTIVE".into()))
        );
        assert_eq!(fail(Cond::MinRate(1000)).unwrap().2, "2.5 Gb/s", "1X SDR");
        assert_eq!(fail(Cond::MinRate(25)), None);
        assert_eq!(
            fail(Cond::MinSpeed(250)).unwrap(),
            (
                "lane speed".into(),
                "at least 25 Gb/s".into(),
                "2.5 Gb/s (SDR)".into()
            )
        );
        assert_eq!(fail(Cond::MinWidth(4)).unwrap().1, "at least 4X");
        assert_eq!(fail(Cond::MinMtu(4096)).unwrap().2, "1024");
        assert_eq!(fail(Cond::MinMtu(1024)), None);
        assert_eq!(
            fail(Cond::LinkLayer(LinkLayer::InfiniBand)).unwrap().2,
            "Ethernet"
        );
        assert_eq!(fail(Cond::Gid(GidType::RoceV2)).unwrap().2, "no GID");
        assert_eq!(Speed::from_raw(1), Speed::Sdr);
    }
}
