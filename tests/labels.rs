//! Issue 26: `uverbs labels`, node labels for node-feature-discovery that follow the
//! hardware. In the VM: the labels against sysfs (`state`, `phys_state`, `link_layer`,
//! `rate` of each port), and the file kept by a running `uverbs labels -o FILE` follows a
//! link going down and up and a device added and removed within a second, while the
//! device's delete never waits for it. On the host: usage errors.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::scratch::{prompt_delete, run, spawn, timed_delete, wait_until, ScratchDevice};

const NS: &str = "feature.node.kubernetes.io/";

/// The labels of a feature file (name without the namespace -> value), and its expiry.
fn parse(text: &str) -> (BTreeMap<String, String>, Option<String>) {
    let mut labels = BTreeMap::new();
    let mut expiry = None;
    for l in text.lines() {
        if let Some(e) = l.strip_prefix("# +expiry-time=") {
            expiry = Some(e.to_string());
        } else if l.starts_with('#') {
            continue;
        } else {
            let (k, v) = l.split_once('=').unwrap_or((l, "true"));
            let k = k
                .strip_prefix(NS)
                .unwrap_or_else(|| panic!("{k}: not in {NS}"));
            // what Kubernetes allows: the name part and the value at most 63 characters
            assert!(k.len() <= 63 && v.len() <= 63, "{l}");
            assert!(
                v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')),
                "{l}"
            );
            assert!(
                labels.insert(k.to_string(), v.to_string()).is_none(),
                "{l} twice"
            );
        }
    }
    (labels, expiry)
}

fn sys(dev: &str, file: &str) -> String {
    std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/ports/1/{file}"))
        .unwrap_or_else(|e| panic!("{dev} {file}: {e}"))
        .trim()
        .to_string()
}

/// What sysfs says a port's labels are: `4: ACTIVE` -> ACTIVE, `5: LinkUp` -> LinkUp,
/// `2.5 Gb/sec (1X SDR)` -> 2.5.
fn want(dev: &str) -> BTreeMap<String, String> {
    let after_colon = |s: String| s.split_once(": ").map(|(_, n)| n.to_string()).unwrap_or(s);
    let state = after_colon(sys(dev, "state"));
    let phys = after_colon(sys(dev, "phys_state"));
    let mut m = BTreeMap::new();
    let base = format!("rdma.{dev}-1");
    m.insert(format!("{base}.link-layer"), sys(dev, "link_layer"));
    m.insert(
        format!("{base}.healthy"),
        (state == "ACTIVE" && phys == "LinkUp").to_string(),
    );
    m.insert(format!("{base}.state"), state);
    m.insert(format!("{base}.phys-state"), phys);
    let rate = sys(dev, "rate");
    m.insert(
        format!("{base}.rate-gbps"),
        rate.split(' ').next().unwrap().to_string(),
    );
    m
}

fn port_labels(all: &BTreeMap<String, String>, dev: &str) -> BTreeMap<String, String> {
    let p = format!("rdma.{dev}-1.");
    all.iter()
        .filter(|(k, _)| k.starts_with(&p))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn labels_equal_sysfs() {
    let o = Command::new(common::uverbs_bin())
        .args(["labels", "--once"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (labels, expiry) = parse(&String::from_utf8_lossy(&o.stdout));
    assert!(expiry.is_some_and(|e| e.len() == 20 && e.ends_with('Z')));
    let devs = common::devices();
    assert!(!devs.is_empty());
    for d in &devs {
        assert_eq!(port_labels(&labels, d), want(d), "{d}");
    }
    let healthy = devs
        .iter()
        .filter(|d| want(d)[&format!("rdma.{d}-1.healthy")] == "true");
    assert_eq!(labels["rdma.present"], "true");
    assert_eq!(labels["rdma.devices"], devs.len().to_string());
    assert_eq!(labels["rdma.ports"], devs.len().to_string());
    assert_eq!(labels["rdma.healthy-ports"], healthy.count().to_string());
    println!(
        "labels (kernel {}): {} labels for {devs:?}, equal to sysfs",
        common::kernel(),
        labels.len()
    );
}

/// Waits (at most `within`) until the file's labels satisfy `ok`; how long it took.
fn until_file(
    file: &Path,
    within: Duration,
    ok: impl Fn(&BTreeMap<String, String>) -> bool,
) -> Option<Duration> {
    let t = Instant::now();
    wait_until(within, || {
        std::fs::read_to_string(file).is_ok_and(|s| ok(&parse(&s).0))
    })
    .then(|| t.elapsed())
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn the_file_follows_links_and_devices_within_a_second() {
    let dir = std::env::temp_dir().join(format!("uverbs-nfd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("uverbs");
    // a baseline for the delete of a device nobody holds
    let d = ScratchDevice::create("rxe", "rxe_lbl", "lblnet", 211);
    let baseline = timed_delete(&d.name);
    d.add_link();

    let mut p = spawn(&[
        common::uverbs_bin().to_str().unwrap(),
        "labels",
        "--output",
        file.to_str().unwrap(),
    ]);
    let state = |l: &BTreeMap<String, String>| l.get("rdma.rxe_lbl-1.state").cloned();
    until_file(&file, Duration::from_secs(30), |l| {
        state(l).as_deref() == Some("ACTIVE")
    })
    .expect("the labels never showed rxe_lbl ACTIVE");

    // the netdev down: the port goes DOWN (a PORT_ERR event), then up again
    let mut took = Vec::new();
    for (updown, want) in [("down", "DOWN"), ("up", "ACTIVE")] {
        let (st, out) = run(
            &["ip", "link", "set", &d.netdev, updown],
            Duration::from_secs(10),
        );
        assert_eq!(st, 0, "{out}");
        let t = until_file(&file, Duration::from_secs(10), |l| {
            state(l).as_deref() == Some(want)
        })
        .unwrap_or_else(|| panic!("ip link set {updown}: the labels never showed {want}"));
        took.push(t);
    }
    let (labels, _) = parse(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(port_labels(&labels, "rxe_lbl"), want("rxe_lbl"));

    // a device removed (the delete does not wait for the running labels), then added
    let before: usize = labels["rdma.devices"].parse().unwrap();
    // the delete itself is prompt (prompt_delete fails otherwise); the labels follow
    // within a second of its end
    prompt_delete(&d, baseline, "uverbs labels");
    let gone = until_file(&file, Duration::from_secs(10), |l| {
        state(l).is_none() && l["rdma.devices"] == (before - 1).to_string()
    })
    .expect("the removed device stayed in the labels");
    took.push(gone);
    // added: from when sysfs shows its port ACTIVE (add_link waits for that)
    let t = Instant::now();
    d.add_link();
    let added = t.elapsed();
    let back = until_file(&file, Duration::from_secs(10), |l| {
        state(l).as_deref() == Some("ACTIVE") && l["rdma.devices"] == before.to_string()
    })
    .expect("the added device never showed in the labels");
    took.push(back);

    assert!(
        !p.done(),
        "uverbs labels ended: {}",
        std::fs::read_to_string(&p.log).unwrap_or_default()
    );
    let _ = p.child.kill();
    let _ = p.child.wait();
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["uverbs"], "only the file is left in features.d");
    std::fs::remove_dir_all(&dir).unwrap();
    for t in &took {
        assert!(
            *t <= Duration::from_secs(1),
            "a change took {t:?} to reach the labels: {took:?}"
        );
    }
    println!(
        "labels (kernel {}): down {:?}, up {:?}, removed {:?}, added {:?} after the link was ACTIVE (adding took {added:?})",
        common::kernel(),
        took[0],
        took[1],
        took[2],
        took[3]
    );
}

#[test]
fn usage_errors() {
    for (args, want) in [
        (
            &["labels", "--expiry", "60"][..],
            "uverbs labels: bad expiry '60' (seconds, 120 or more) (try 'uverbs labels --help')\n",
        ),
        (
            &["labels", "-x"],
            "uverbs labels: invalid option -- 'x' (try 'uverbs labels --help')\n",
        ),
    ] {
        let o = Command::new(common::uverbs_bin())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            (o.status.code(), String::from_utf8_lossy(&o.stderr).as_ref()),
            (Some(2), want),
            "{args:?}"
        );
    }
}
