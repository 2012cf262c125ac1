//! `uverbs` as `ibstat` and `ibstatus` against infiniband-diags 44 (Debian's), in the VM
//! rig, on at least 2 rxe + 2 siw devices: the rig boots with one of each, and the tests
//! add the others over RDMA netlink on dummy netdevs of their own (deleted at the end).
//!
//! - every option of both tools, devices that do not exist, ports out of range, bad
//!   options, each compared byte for byte (see `ibstat/mod.rs` for the rules);
//! - a port whose netdev is down (set down by the test, then up again);
//! - a device whose uverbs node is missing (renamed for the test): read from sysfs, the
//!   output is still the same;
//! - `uverbs ibstat --json` and `uverbs ibstatus --json` agree with the text.
//!
//! The 16 + 16 pass is `ibstat_scale.rs`. In the guest (tests/vm/run-tests.sh):
//!   UVERBS_TEST_DEVICES=rxe0,siw0 UVERBS_BIN=/uverbs/uverbs ibstat_compat-HASH --include-ignored

mod common;
mod ibstat;

use std::process::Command;
use std::time::{Duration, Instant};

use common::json::{parse_json, Json};
use ibstat::{compare, ours, real, s, sub};
use uverbs::netlink::link::{self, LinkType};

fn ip(args: &[&str]) {
    let ok = Command::new("ip")
        .args(args)
        .status()
        .expect("ip")
        .success();
    assert!(ok, "ip {args:?}");
}

fn state(dev: &str) -> String {
    std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/ports/1/state"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Waits until port 1 of `dev` is in `want` (`4: ACTIVE`, `1: DOWN`), then a little
/// longer for the physical state to follow.
fn wait_state(dev: &str, want: &str) {
    let t = Instant::now();
    while state(dev) != want {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{dev} port 1 stays in {:?}, not {want:?}",
            state(dev)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
}

/// Links and netdevs added for the test, removed when dropped.
struct Extra {
    links: Vec<String>,
    netdevs: Vec<String>,
}

impl Drop for Extra {
    fn drop(&mut self) {
        for l in &self.links {
            let _ = link::del(l);
        }
        for n in &self.netdevs {
            let _ = Command::new("ip").args(["link", "del", n]).status();
        }
    }
}

/// Adds rxe and siw links until there are at least two of each.
fn two_of_each() -> Extra {
    let mut extra = Extra {
        links: Vec::new(),
        netdevs: Vec::new(),
    };
    for (prefix, kind) in [("rxe", LinkType::Rxe), ("siw", LinkType::Siw)] {
        let mut n = 0;
        while ibstat::class_devices()
            .iter()
            .filter(|d| d.starts_with(prefix))
            .count()
            < 2
        {
            let name = (0..)
                .map(|i| format!("{prefix}{i}"))
                .find(|c| !ibstat::class_devices().contains(c))
                .unwrap();
            let netdev = format!("ibs{prefix}{n}");
            n += 1;
            ip(&["link", "add", &netdev, "type", "dummy"]);
            extra.netdevs.push(netdev.clone());
            ip(&["link", "set", &netdev, "up"]);
            link::add(&name, kind, &netdev).unwrap_or_else(|e| panic!("add {name}: {e}"));
            extra.links.push(name.clone());
            wait_state(&name, "4: ACTIVE");
        }
    }
    extra
}

fn report(what: &str, failures: Vec<String>, n: usize) {
    println!(
        "{what}: compared {n} runs with infiniband-diags 44; {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn ibstat_and_ibstatus_match_infiniband_diags() {
    let _extra = two_of_each();
    let env = ibstat::env("all");
    let devs = ibstat::class_devices();
    let (failures, n) = ibstat::compare_all(
        &env,
        &ibstat::ibstat_cases(&devs, 1),
        &ibstat::ibstatus_cases(&devs, 1),
    );
    // Every channel adapter was read through its uverbs node, none from sysfs.
    let src = ibstat::sources(&env);
    let cas: Vec<&String> = devs.iter().filter(|d| ibstat::node_type(d) == 1).collect();
    assert_eq!(src.len(), cas.len(), "{src:?}");
    for (d, kernel) in &src {
        assert!(
            kernel,
            "{d} was read from sysfs, not through its uverbs node"
        );
    }
    report("2+2", failures, n);
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn a_port_whose_netdev_is_down() {
    let extra = two_of_each();
    let env = ibstat::env("down");
    // The devices this test added (their netdevs are its own); else the rig's.
    let shown = link::show().expect("link show");
    let netdev = |d: &str| {
        shown
            .iter()
            .find(|l| l.device == d)
            .and_then(|l| l.netdev.clone())
            .unwrap_or_else(|| panic!("{d} has no netdev"))
    };
    let pick = |prefix: &str| {
        extra
            .links
            .iter()
            .find(|l| l.starts_with(prefix))
            .cloned()
            .unwrap_or_else(|| format!("{prefix}0"))
    };
    let (rxe, siw) = (pick("rxe"), pick("siw"));
    let mut failures = Vec::new();
    let mut n = 0;
    for d in [&rxe, &siw] {
        let nd = netdev(d);
        ip(&["link", "set", &nd, "down"]);
        wait_state(d, "1: DOWN");
        let cases: Vec<(&str, Vec<String>)> = vec![
            ("ibstat", s(&[])),
            ("ibstat", s(&[d])),
            ("ibstat", s(&[d, "1"])),
            ("ibstat", s(&["-p"])),
            ("ibstatus", s(&[])),
            ("ibstatus", s(&[d])),
            ("ibstatus", s(&[&format!("{d}:1")])),
        ];
        for (tool, args) in &cases {
            let what = format!("{tool} {} with {nd} down", args.join(" "));
            let want = real(tool, args);
            failures.extend(compare(&what, &want, &ours(&env, tool, args)));
            failures.extend(compare(
                &format!("uverbs {what}"),
                &want,
                &sub(&env, tool, args),
            ));
            n += 2;
        }
        // The kernel's answer agrees: the port is down.
        let out = ours(&env, "ibstatus", &s(&[d]));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("\tstate:\t\t 1: DOWN\n"),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        ip(&["link", "set", &nd, "up"]);
        wait_state(d, "4: ACTIVE");
    }
    report("netdev down", failures, n);
}

/// Renames a uverbs node away for the test; puts it back when dropped.
struct Hidden {
    from: String,
    to: String,
}

impl Drop for Hidden {
    fn drop(&mut self) {
        let _ = std::fs::rename(&self.to, &self.from);
    }
}

/// The uverbs node of a device, from sysfs.
fn uverbs_node(dev: &str) -> String {
    for e in std::fs::read_dir("/sys/class/infiniband_verbs").expect("infiniband_verbs") {
        let e = e.expect("entry");
        let ib = std::fs::read_to_string(e.path().join("ibdev")).unwrap_or_default();
        if ib.trim() == dev {
            return format!("/dev/infiniband/{}", e.file_name().to_string_lossy());
        }
    }
    panic!("{dev} has no uverbs node")
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn without_a_uverbs_node_the_device_is_read_from_sysfs() {
    let _extra = two_of_each();
    let env = ibstat::env("sysfs");
    let devs = ibstat::class_devices();
    let (rxe, siw) = ("rxe0", "siw0");
    let node = uverbs_node(rxe);
    let siw_node = uverbs_node(siw);
    let _h = Hidden {
        from: node.clone(),
        to: format!("{node}.hidden"),
    };
    let _h2 = Hidden {
        from: siw_node.clone(),
        to: format!("{siw_node}.hidden"),
    };
    std::fs::rename(&node, format!("{node}.hidden")).expect("rename the uverbs node");
    std::fs::rename(&siw_node, format!("{siw_node}.hidden")).expect("rename the uverbs node");
    let src = ibstat::sources(&env);
    assert!(
        src.iter().any(|(d, kernel)| d == rxe && !kernel),
        "{rxe} without its node: {src:?}"
    );
    let mut ibstat_cases = vec![s(&[]), s(&["-p"]), s(&[rxe, "1"]), s(&[rxe, "2"])];
    ibstat_cases.push(s(&["-s", rxe]));
    let ibstatus_cases = vec![s(&[]), s(&[rxe]), s(&[siw]), s(&[&format!("{rxe}:2")])];
    let mut failures = Vec::new();
    let mut n = 0;
    for (tool, cases) in [("ibstat", &ibstat_cases), ("ibstatus", &ibstatus_cases)] {
        for args in cases {
            let what = format!("{tool} {} without {node} and {siw_node}", args.join(" "));
            failures.extend(compare(&what, &real(tool, args), &ours(&env, tool, args)));
            n += 1;
        }
    }
    assert!(devs.len() >= 4);
    report("sysfs fallback", failures, n);
}

fn lines_with<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix(prefix))
        .collect()
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn json_agrees_with_the_text() {
    let _extra = two_of_each();
    let env = ibstat::env("json");
    let parse = |r: &ibstat::Run, what: &str| {
        assert_eq!(
            r.status,
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let doc = parse_json(&r.stdout).unwrap_or_else(|e| {
            panic!(
                "{what} is not JSON: {e}\n{}",
                String::from_utf8_lossy(&r.stdout)
            )
        });
        assert_eq!(
            doc.get("schema_version").and_then(Json::num),
            Some(1.0),
            "{what}"
        );
        doc
    };

    // ibstat: the same CAs in the same order, and per port what the text says.
    let doc = parse(
        &sub(&env, "ibstat", &s(&["--json"])),
        "uverbs ibstat --json",
    );
    let list = real("ibstat", &s(&["-l"]));
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(String::from)
        .collect();
    let cas = doc.get("cas").map(Json::arr).unwrap_or(&[]);
    let json_names: Vec<&str> = cas
        .iter()
        .filter_map(|c| c.get("name").and_then(Json::str))
        .collect();
    assert_eq!(json_names, names, "one entry per CA, in ibstat's order");
    let text = String::from_utf8_lossy(&real("ibstat", &[]).stdout).into_owned();
    let guids = lines_with(&text, "Port GUID: 0x");
    let states = lines_with(&text, "State: ");
    let rates = lines_with(&text, "Rate: ");
    let ports: Vec<&Json> = cas
        .iter()
        .flat_map(|c| c.get("ports").map(Json::arr).unwrap_or(&[]))
        .collect();
    assert_eq!(ports.len(), guids.len(), "one JSON port per text port");
    for (k, p) in ports.iter().enumerate() {
        let guid = p
            .get("port_guid")
            .and_then(Json::str)
            .unwrap_or("")
            .replace(':', "");
        assert_eq!(guid, guids[k], "port {k}");
        let st = p
            .get("state")
            .and_then(|s| s.get("name"))
            .and_then(Json::str);
        let want = match states[k] {
            "Active" => "IBV_PORT_ACTIVE",
            "Down" => "IBV_PORT_DOWN",
            "Initializing" => "IBV_PORT_INIT",
            "Armed" => "IBV_PORT_ARMED",
            other => panic!("unexpected state {other}"),
        };
        assert_eq!(st, Some(want), "port {k}");
        let rate = p.get("rate_gbps").and_then(Json::num).unwrap_or(-1.0);
        assert_eq!(format!("{rate}"), rates[k], "port {k}");
    }
    for c in cas {
        assert_eq!(c.get("error"), Some(&Json::Null));
        assert_eq!(c.get("source").and_then(Json::str), Some("kernel"));
    }
    // A CA that is not listed: nothing on stdout, one line on stderr, 255.
    let r = sub(&env, "ibstat", &s(&["--json", "siw0"]));
    assert_eq!((r.status, r.stdout.len()), (Some(255), 0));
    assert_eq!(r.stderr, b"ibstat: 'siw0' IB device can't be found\n");
    // A port out of range: the CA with its error, 255.
    let r = sub(&env, "ibstat", &s(&["--json", &names[0], "2"]));
    assert_eq!(r.status, Some(255));
    let doc = parse_json(&r.stdout).expect("JSON");
    let err = doc.get("cas").map(Json::arr).unwrap_or(&[])[0]
        .get("error")
        .cloned();
    assert_eq!(
        err.as_ref()
            .and_then(|e| e.get("stage"))
            .and_then(Json::str),
        Some("port")
    );

    // ibstatus: one entry per block, the same values.
    let doc = parse(
        &sub(&env, "ibstatus", &s(&["--json"])),
        "uverbs ibstatus --json",
    );
    let text = String::from_utf8_lossy(&real("ibstatus", &[]).stdout).into_owned();
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Infiniband device '"))
        .collect();
    let gids = lines_with(&text, "default gid:\t ");
    let states = lines_with(&text, "state:\t\t ");
    let entries = doc.get("ports").map(Json::arr).unwrap_or(&[]);
    assert_eq!(entries.len(), heads.len());
    for (k, e) in entries.iter().enumerate() {
        let dev = e.get("device").and_then(Json::str).unwrap_or("");
        let port = e.get("port").and_then(Json::num).unwrap_or(-1.0);
        assert_eq!(
            heads[k],
            format!("Infiniband device '{dev}' port {port} status:")
        );
        assert_eq!(e.get("default_gid").and_then(Json::str), Some(gids[k]));
        let v = e
            .get("state")
            .and_then(|s| s.get("value"))
            .and_then(Json::num)
            .unwrap_or(-1.0);
        assert_eq!(format!("{v}"), states[k].split(':').next().unwrap_or(""));
    }
    // Under the real tool's name, --json is a device name that does not exist.
    let r = ours(&env, "ibstatus", &s(&["--json"]));
    assert_eq!(r.status, Some(255));
    assert_eq!(
        r.stdout,
        b"Fatal error:  device '--json': sys files not found (/sys/class/infiniband/--json/ports)\n"
    );
}
