//! `uverbs labels [-d DEV] [--once] [--output FILE] [--expiry S]`: node labels that follow
//! the RDMA hardware, as a node-feature-discovery local feature file.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use uverbs::{LinkLayer, PhysState, PortState};

use crate::ops::follow::{Follower, Happened};
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;

const HELP: &str = "\
Usage: uverbs labels [-d DEV] [--once] [--output FILE] [--expiry SECS]

Writes node labels that follow the RDMA hardware, in the format of node-feature-
discovery's local feature files (NFD 0.14 and later: NAME=VALUE lines, a
'# +expiry-time=' directive): whether the node has RDMA devices, how many ports and
how many healthy ones (ACTIVE and LinkUp), and per port its link layer, state,
physical state and rate in Gb/s. Names are in feature.node.kubernetes.io/, which NFD
allows by default; values are cut to what a label allows.

It keeps the labels current until stopped: each device's async events (a port going
down or up) and devices added and removed rewrite them at once, and every 60 seconds
they are written again with a new expiry, so that labels of a node whose uverbs has
stopped expire. A device being removed is let go of at once. With --once it writes
them once and exits.

Every device is held open to follow its events: one that cannot be opened (no access
to its uverbs node) is an error at start, rather than labels of a node without it.

Point --output at NFD's features.d (/etc/kubernetes/node-feature-discovery/features.d/
on the node, shared with nfd-worker): the file is written whole, through a temporary
file whose name starts with a dot, which NFD ignores.

  -d, --ib-dev=DEV     only device DEV
      --once           write the labels once and exit
  -o, --output=FILE    write FILE (replaced whole) instead of standard output
      --expiry=SECS    the labels expire SECS after each write (default 300, at least
                       120: a rewrite comes every 60 s)
  -h, --help           this text

Exit status: 0 with --once; 1 on an error; 2 on a usage error; 3 when the device of
-d goes away.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("once", false, b'1'),
    opt("output", true, b'o'),
    opt("expiry", true, b'e'),
    opt("help", false, b'h'),
];

/// How often the labels are written even when nothing changed (their expiry moves on).
const REFRESH: Duration = Duration::from_secs(60);

/// The labels' namespace: NFD accepts it without --extra-label-ns.
const NS: &str = "feature.node.kubernetes.io/";

/// One port as the labels describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct PortLabels {
    pub device: String,
    pub port: u32,
    pub link_layer: LinkLayer,
    pub state: PortState,
    pub phys_state: PhysState,
    /// Tenths of Gb/s (width × lane speed); `None` when the speed is unknown.
    pub rate_decigbps: Option<u32>,
}

impl PortLabels {
    fn healthy(&self) -> bool {
        self.state == PortState::Active && self.phys_state == PhysState::LinkUp
    }
}

/// A label value as Kubernetes allows it: at most 63 of `[A-Za-z0-9._-]`, beginning and
/// ending with a letter or digit; other characters become `_`.
pub fn label_value(v: &str) -> String {
    let mut s: String = v
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(63);
    let s = s.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    s.to_string()
}

fn state_word(s: PortState) -> String {
    match s {
        PortState::Down => "DOWN".into(),
        PortState::Init => "INIT".into(),
        PortState::Armed => "ARMED".into(),
        PortState::Active => "ACTIVE".into(),
        PortState::ActiveDefer => "ACTIVE_DEFER".into(),
        other => "state-".to_string() + &num(other.as_raw().into()),
    }
}

fn phys_word(s: PhysState) -> String {
    match s {
        PhysState::Sleep => "Sleep".into(),
        PhysState::Polling => "Polling".into(),
        PhysState::Disabled => "Disabled".into(),
        PhysState::PortConfigurationTraining => "PortConfigurationTraining".into(),
        PhysState::LinkUp => "LinkUp".into(),
        PhysState::LinkErrorRecovery => "LinkErrorRecovery".into(),
        PhysState::PhyTest => "PhyTest".into(),
        other => "phys-".to_string() + &num(other.as_raw().into()),
    }
}

fn link_layer_word(l: LinkLayer) -> String {
    match l {
        LinkLayer::InfiniBand => "InfiniBand".into(),
        LinkLayer::Ethernet => "Ethernet".into(),
        other => "link-layer-".to_string() + &num(other.as_raw().into()),
    }
}

fn num(n: u64) -> String {
    let mut s = String::new();
    crate::plumbing::json::push_u64(&mut s, n);
    s
}

/// One line: the namespace, the name's parts, `=`, the value.
fn label(s: &mut String, name: &[&str], value: &str) {
    s.push_str(NS);
    for p in name {
        s.push_str(p);
    }
    s.push('=');
    s.push_str(value);
    s.push('\n');
}

/// The feature file: a header, the expiry, and one `NAME=VALUE` line a label, the node's
/// first, then each port's in device and port order.
pub fn feature_file(ports: &[PortLabels], expiry: SystemTime) -> String {
    let mut s =
        String::from("# uverbs labels: RDMA devices and ports of this node\n# +expiry-time=");
    s.push_str(&rfc3339(expiry));
    s.push('\n');
    let devices = {
        let mut d: Vec<&str> = ports.iter().map(|p| p.device.as_str()).collect();
        d.dedup();
        d.len()
    };
    let healthy = ports.iter().filter(|p| p.healthy()).count();
    let present = if ports.is_empty() { "false" } else { "true" };
    label(&mut s, &["rdma.present"], present);
    label(&mut s, &["rdma.devices"], &num(devices as u64));
    label(&mut s, &["rdma.ports"], &num(ports.len() as u64));
    label(&mut s, &["rdma.healthy-ports"], &num(healthy as u64));
    for p in ports {
        // the name part of a label: at most 63 characters; a device name is at most
        // 63 in the kernel (IB_DEVICE_NAME_MAX 64), cut to leave room for the rest
        let mut dev = label_value(&p.device);
        dev.truncate(32);
        let port = num(p.port.into());
        let base = ["rdma.", dev.as_str(), "-", port.as_str()];
        let mut line = |what: &str, value: &str| {
            let mut name = base.to_vec();
            name.push(what);
            label(&mut s, &name, &label_value(value));
        };
        line(".link-layer", &link_layer_word(p.link_layer));
        line(".state", &state_word(p.state));
        line(".phys-state", &phys_word(p.phys_state));
        if let Some(r) = p.rate_decigbps {
            let mut g = num((r / 10).into());
            if r % 10 != 0 {
                g.push('.');
                g.push_str(&num((r % 10).into()));
            }
            line(".rate-gbps", &g);
        }
        line(".healthy", if p.healthy() { "true" } else { "false" });
    }
    s
}

/// `t` as RFC 3339 in UTC, to the second (`2026-11-27T10:22:29Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // days since 1970-01-01 to a civil date (the proleptic Gregorian calendar), by eras
    // of 400 years (146,097 days)
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

/// The ports of the followed devices, queried now; errors of a device are reported and
/// its ports left out.
fn ports(f: &Follower, report: &mut impl FnMut(String)) -> Vec<PortLabels> {
    let mut out = Vec::new();
    let mut devices: Vec<_> = f.devices.iter().collect();
    uverbs::sysfs::attr::sort_small(&mut devices, |a, b| a.name > b.name);
    for d in devices {
        for n in 1..=u32::from(d.ctx.port_count()) {
            match d.ctx.query_port(n) {
                Ok(a) => out.push(PortLabels {
                    device: d.name.clone(),
                    port: n,
                    link_layer: a.link_layer,
                    state: a.state,
                    phys_state: a.phys_state,
                    rate_decigbps: a.rate_decigbps(),
                }),
                Err(e) => report(e.to_string()),
            }
        }
    }
    out
}

/// `uverbs labels ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut only: Option<String> = None;
    let mut once = false;
    let mut output: Option<PathBuf> = None;
    let mut expiry = Duration::from_secs(300);
    let parsed = io.text_options("labels", HELP, args, "d:o:h", LONGS, |c, v| {
        match c {
            b'd' => only = Some(v),
            b'1' => once = true,
            b'o' => output = Some(v.into()),
            b'e' => {
                expiry = v
                    .parse::<u64>()
                    .ok()
                    .filter(|s| (120..=86_400 * 365).contains(s))
                    .map(Duration::from_secs)
                    .ok_or_else(|| format!("bad expiry '{v}' (seconds, 120 or more)"))?
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    let mut f = match Follower::start_reporting(io, "labels", only.clone()) {
        Ok((f, 0)) => f,
        // A device that cannot be opened (no access to its uverbs node) would be
        // missing from the labels as if the node had none: no labels rather than false.
        Ok(_) => return 1,
        Err(status) => return status,
    };
    loop {
        let mut report = |e: String| {
            error(io, &e);
        };
        let text = feature_file(&ports(&f, &mut report), SystemTime::now() + expiry);
        let status = io.out_or_file("labels", output.as_deref(), text);
        if output.is_none() {
            io.flush();
        }
        if once || status != 0 {
            return status;
        }
        // Until something happens or it is time to renew the expiry.
        let deadline = Instant::now() + REFRESH;
        let mut gone = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let mut changed = false;
            let waited = f.wait(Some(left), &mut |h| match h {
                Happened::Event { .. } | Happened::Added(_) | Happened::Renamed { .. } => {
                    changed = true
                }
                Happened::Removed(name) | Happened::Ended(name) => {
                    changed = true;
                    if only.is_some() {
                        error(io, &format!("{name}: the device is gone"));
                        gone = true;
                    }
                }
                Happened::Error(e) => {
                    error(io, &e);
                }
            });
            if let Err(e) = waited {
                return error(io, &format!("poll: {e}"));
            }
            if gone {
                return 3;
            }
            if changed {
                break;
            }
        }
    }
}

/// Prints `e` as one line; returns status 1.
fn error(io: &mut Io, e: &str) -> i32 {
    io.err_line(&crate::plumbing::io::printable(
        format!("uverbs labels: {e}").as_bytes(),
    ));
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_rfc3339() {
        let at = |s: u64| rfc3339(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century divisible by 400)
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_774_949), "2026-11-27T10:22:29Z");
        // 2100-03-01 (2100 is not a leap year)
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00Z");
        assert_eq!(at(253_402_300_799), "9999-12-31T23:59:59Z");
    }

    #[test]
    fn values_as_labels_allow() {
        assert_eq!(label_value("rxe0"), "rxe0");
        assert_eq!(label_value("mlx5 bond/0"), "mlx5_bond_0");
        assert_eq!(label_value("-x-"), "x");
        assert_eq!(label_value(&"a".repeat(80)).len(), 63);
        assert_eq!(label_value("é"), "");
    }

    #[test]
    fn the_file() {
        let p = |device: &str, port, state, phys, rate| PortLabels {
            device: device.into(),
            port,
            link_layer: LinkLayer::Ethernet,
            state,
            phys_state: phys,
            rate_decigbps: rate,
        };
        let ports = [
            p("rxe0", 1, PortState::Active, PhysState::LinkUp, Some(25)),
            p("siw0", 1, PortState::Down, PhysState::Disabled, None),
        ];
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_774_949);
        assert_eq!(
            feature_file(&ports, t),
            "# uverbs labels: RDMA devices and ports of this node\n\
             # +expiry-time=2026-11-27T10:22:29Z\n\
             feature.node.kubernetes.io/rdma.present=true\n\
             feature.node.kubernetes.io/rdma.devices=2\n\
             feature.node.kubernetes.io/rdma.ports=2\n\
             feature.node.kubernetes.io/rdma.healthy-ports=1\n\
             feature.node.kubernetes.io/rdma.rxe0-1.link-layer=Ethernet\n\
             feature.node.kubernetes.io/rdma.rxe0-1.state=ACTIVE\n\
             feature.node.kubernetes.io/rdma.rxe0-1.phys-state=LinkUp\n\
             feature.node.kubernetes.io/rdma.rxe0-1.rate-gbps=2.5\n\
             feature.node.kubernetes.io/rdma.rxe0-1.healthy=true\n\
             feature.node.kubernetes.io/rdma.siw0-1.link-layer=Ethernet\n\
             feature.node.kubernetes.io/rdma.siw0-1.state=DOWN\n\
             feature.node.kubernetes.io/rdma.siw0-1.phys-state=Disabled\n\
             feature.node.kubernetes.io/rdma.siw0-1.healthy=false\n"
        );
        assert!(feature_file(&[], t).contains("rdma.present=false\n"));
    }
}
