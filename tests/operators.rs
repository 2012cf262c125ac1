//! Issue 15, for operators: `uverbs gids` (the GID table and the RoCE GID index to use)
//! and `uverbs check` (the health probe), in the VM against the kernel's own answers
//! (sysfs, `rdma link`), and on the host what needs no device.
//!
//! Expected values are read from the kernel: sysfs `ports/N/gids/I`,
//! `gid_attrs/types/I`, `gid_attrs/ndevs/I`, `rate`, `state`; `/proc/net/vlan/config`;
//! `rdma link`.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::scratch::{open_files, prompt_delete, run, timed_delete, wait_until, ScratchDevice};

fn bin() -> PathBuf {
    common::uverbs_bin()
}

struct Out {
    stdout: String,
    stderr: String,
    code: i32,
}

fn uverbs(args: &[&str]) -> Out {
    let o = Command::new(bin()).args(args).output().expect("run uverbs");
    let r = Out {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code().unwrap_or(-1),
    };
    assert!(!r.stderr.contains("panicked"), "panic: {}", r.stderr);
    r
}

fn sys(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim_end().to_string())
}

/// One GID of the sysfs table: (index, gid text, type text, netdev).
fn sysfs_gids(dev: &str, port: u32) -> Vec<(u32, String, String, String)> {
    let dir = format!("/sys/class/infiniband/{dev}/ports/{port}");
    let mut out = Vec::new();
    for ent in std::fs::read_dir(format!("{dir}/gids")).unwrap().flatten() {
        let Ok(i) = ent.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Some(g) = sys(&format!("{dir}/gids/{i}")) else {
            continue;
        };
        if g == "0000:0000:0000:0000:0000:0000:0000:0000" {
            continue;
        }
        let t = sys(&format!("{dir}/gid_attrs/types/{i}")).unwrap_or_default();
        let n = sys(&format!("{dir}/gid_attrs/ndevs/{i}")).unwrap_or_default();
        out.push((i, g, t, n));
    }
    out.sort();
    out
}

/// A VLAN device on an rxe device's netdev with an IPv4 address, removed when dropped.
struct Vlan {
    name: String,
}

impl Vlan {
    fn add(parent: &str, id: u16, addr: &str) -> Vlan {
        let name = format!("{parent}.{id}");
        let t = Duration::from_secs(30);
        let id = id.to_string();
        for cmd in [
            vec![
                "ip", "link", "add", "link", parent, "name", &name, "type", "vlan", "id", &id,
            ],
            vec!["ip", "link", "set", &name, "up"],
            vec!["ip", "addr", "add", addr, "dev", &name],
        ] {
            let (st, out) = run(&cmd, t);
            assert_eq!(st, 0, "{cmd:?}: {out}");
        }
        Vlan { name }
    }
}

impl Drop for Vlan {
    fn drop(&mut self) {
        let _ = run(&["ip", "link", "del", &self.name], Duration::from_secs(30));
    }
}

/// The IPv4-mapped GID of `a.b.c.d` as sysfs prints it.
fn mapped(a: [u8; 4]) -> String {
    format!(
        "0000:0000:0000:0000:0000:ffff:{:02x}{:02x}:{:02x}{:02x}",
        a[0], a[1], a[2], a[3]
    )
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn gids_table_and_roce_v2_selection_on_a_vlan() {
    let devs = common::devices();
    let rxe = devs
        .iter()
        .find(|d| d.starts_with("rxe"))
        .expect("an rxe device");
    let parent = sys(&format!("/sys/class/infiniband/{rxe}/parent")).expect("rxe parent");
    // The netdev of the port, as rdma link prints it.
    let (st, link) = run(
        &["rdma", "link", "show", &format!("{rxe}/1")],
        Duration::from_secs(30),
    );
    assert_eq!(st, 0, "{link}");
    assert!(
        link.contains(&format!("netdev {parent} "))
            || link.trim_end().ends_with(&format!("netdev {parent}")),
        "rdma link: {link}"
    );
    let vlan = Vlan::add(&parent, 7, "169.254.77.1/24");
    let want_gid = mapped([169, 254, 77, 1]);
    assert!(
        wait_until(Duration::from_secs(20), || sysfs_gids(rxe, 1)
            .iter()
            .any(|g| g.1 == want_gid)),
        "the VLAN's IPv4 GID never appeared in sysfs"
    );
    let table = sysfs_gids(rxe, 1);
    let want = table
        .iter()
        .find(|g| g.1 == want_gid && g.2 == "RoCE v2" && g.3 == vlan.name)
        .unwrap_or_else(|| panic!("no RoCE v2 GID {want_gid} on {} in {table:?}", vlan.name));

    // The table, as JSON, equals sysfs row for row; the VLAN is /proc/net/vlan's.
    let o = uverbs(&["gids", "-d", rxe, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let doc = common::json::parse_json(o.stdout.as_bytes()).expect("gids --json parses");
    let rows = doc.get("gids").expect("gids array").arr();
    let got: Vec<(u32, String, String, String)> = rows
        .iter()
        .map(|r| {
            let ty = r
                .get("type")
                .and_then(|t| t.get("value"))
                .and_then(|v| v.num());
            (
                r.get("index").and_then(|v| v.num()).unwrap() as u32,
                r.get("gid").and_then(|v| v.str()).unwrap().to_string(),
                match ty {
                    Some(2.0) => "RoCE v2".to_string(),
                    Some(t) if t <= 1.0 => "IB/RoCE v1".to_string(),
                    other => format!("{other:?}"),
                },
                r.get("netdev")
                    .and_then(|v| v.str())
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(got, table, "uverbs gids --json against sysfs");
    for r in rows {
        let netdev = r.get("netdev").and_then(|v| v.str()).unwrap_or("");
        let vlan_id = r.get("vlan").and_then(|v| v.num());
        assert_eq!(
            vlan_id,
            (netdev == vlan.name).then_some(7.0),
            "VLAN of a GID on {netdev}"
        );
    }

    // Selections: by the VLAN's IPv4 address, by its netdev, by the VLAN id.
    for args in [
        vec!["--select", "roce-v2", "--ipv4", "169.254.77.1"],
        vec!["--select", "roce-v2", "--netdev", &vlan.name],
        vec!["--select", "roce-v2", "--vlan", "7", "--routable"],
    ] {
        let mut a = vec!["gids"];
        a.extend(&args);
        let o = uverbs(&a);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        assert_eq!(o.stdout, format!("{}\n", want.0), "gids {args:?}");
    }
    // The parent netdev's own IPv4 GID (the rig gives rxenetN 169.254.<1+N>.1).
    let n: u8 = rxe.trim_start_matches("rxe").parse().unwrap();
    let own = mapped([169, 254, 1 + n, 1]);
    let own_index = table
        .iter()
        .find(|g| g.1 == own && g.3 == parent)
        .expect("the parent's IPv4 GID")
        .0;
    let o = uverbs(&[
        "gids", "-d", rxe, "--select", "roce-v2", "--netdev", &parent,
    ]);
    assert_eq!(o.stdout, format!("{own_index}\n"), "{}", o.stderr);
    // What an init container leaves for NCCL and UCX: the same GID, as their variables,
    // in a file written whole (issue 26).
    let dir = std::env::temp_dir().join(format!("uverbs-gids-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("nccl.conf");
    let o = uverbs(&[
        "gids",
        "-d",
        rxe,
        "--select",
        "roce-v2",
        "--netdev",
        &parent,
        "--env",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!((o.code, o.stdout.as_str()), (0, ""), "{}", o.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!(
            "NCCL_IB_HCA=={rxe}:1\nNCCL_IB_GID_INDEX={own_index}\n\
             UCX_NET_DEVICES={rxe}:1\nUCX_IB_GID_INDEX={own_index}\n"
        )
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "nothing but the file is left in its folder"
    );
    let missing = dir.join("no-such-dir/nccl.conf");
    let o = uverbs(&[
        "gids",
        "-d",
        rxe,
        "--select",
        "roce-v2",
        "--env",
        "-o",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.starts_with(&format!(
            "uverbs gids: cannot write {}: ",
            missing.display()
        )),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // No match: one line, exit 1.
    let o = uverbs(&["gids", "--select", "roce-v2", "--ipv4", "10.99.99.99"]);
    assert_eq!(o.code, 1);
    assert_eq!(o.stdout, "");
    assert_eq!(
        o.stderr,
        "uverbs gids: no GID matches type RoCE v2, IPv4 10.99.99.99 on any device\n"
    );
    let o = uverbs(&["gids", "--select", "roce-v1", "--netdev", &vlan.name]);
    assert_eq!(o.code, 1, "rxe has no RoCE v1 GID: {}", o.stdout);
    println!(
        "{rxe} (kernel {}): RoCE v2 GID of 169.254.77.1 on {} is index {}; {}'s own is {own_index}",
        common::kernel(),
        vlan.name,
        want.0,
        parent
    );
    drop(vlan);

    // siw: its one GID is of type IB (index 0), without a VLAN.
    if let Some(siw) = devs.iter().find(|d| d.starts_with("siw")) {
        let t = sysfs_gids(siw, 1);
        let o = uverbs(&["gids", "-d", siw, "--select", "ib"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(o.stdout, format!("{}\n", t[0].0));
    }
}

/// Gb/s text of sysfs `rate` ("2.5 Gb/sec (1X SDR)" -> "2.5 Gb/s").
fn sysfs_rate(dev: &str) -> String {
    let r = sys(&format!("/sys/class/infiniband/{dev}/ports/1/rate")).unwrap();
    format!("{} Gb/s", r.split(' ').next().unwrap())
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn check_passes_then_fails_with_the_netdev_down() {
    let d = ScratchDevice::create("rxe", "rxe_chk", "chknet", 201);
    // ACTIVE: silent, exit 0.
    let o = uverbs(&["check", "-d", &d.name]);
    assert_eq!((o.code, o.stdout.as_str(), o.stderr.as_str()), (0, "", ""));
    let o = uverbs(&[
        "check",
        "-d",
        &d.name,
        "-v",
        "--link-layer",
        "ethernet",
        "--gid",
        "roce-v2",
        "--gid-netdev",
        "chknet",
        "--min-mtu",
        "256",
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(
        o.stdout,
        format!(
            "{} port 1: ok (ACTIVE, {}, Ethernet)\n",
            d.name,
            sysfs_rate(&d.name)
        )
    );
    // A condition no port meets: the rate, found as sysfs says.
    let o = uverbs(&[
        "check",
        "-d",
        &d.name,
        "--min-width",
        "4",
        "--min-rate",
        "400",
    ]);
    assert_eq!(o.code, 1);
    let width = sys(&format!("/sys/class/infiniband/{}/ports/1/rate", d.name)).unwrap();
    let lanes = width
        .split('(')
        .nth(1)
        .unwrap()
        .split('X')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        o.stdout,
        format!(
            "{n} port 1: width: wanted at least 4X, found {lanes}X\n{n} port 1: rate: wanted at least 400 Gb/s, found {}\n",
            sysfs_rate(&d.name),
            n = d.name
        )
    );
    // The netdev down: the port leaves ACTIVE (as sysfs says), check fails and says so.
    let (st, out) = run(
        &["ip", "link", "set", &d.netdev, "down"],
        Duration::from_secs(30),
    );
    assert_eq!(st, 0, "{out}");
    let path = format!("/sys/class/infiniband/{}/ports/1/state", d.name);
    assert!(
        wait_until(Duration::from_secs(10), || !sys(&path)
            .unwrap_or_default()
            .contains("ACTIVE")),
        "the port stayed ACTIVE"
    );
    let state = sys(&path).unwrap();
    let found = state.split_once(": ").unwrap().1.to_string();
    let o = uverbs(&["check", "-d", &d.name]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stdout,
        format!("{} port 1: state: wanted ACTIVE, found {found}\n", d.name)
    );
    let (st, out) = run(
        &["ip", "link", "set", &d.netdev, "up"],
        Duration::from_secs(30),
    );
    assert_eq!(st, 0, "{out}");
    assert!(wait_until(Duration::from_secs(10), || sys(&path)
        .unwrap_or_default()
        .contains("ACTIVE")));
    let o = uverbs(&["check", "-d", &d.name]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    // A device that does not exist: one line, exit 1.
    let o = uverbs(&["check", "-d", "nosuchdev9"]);
    assert_eq!(o.code, 1);
    assert_eq!(o.stdout.lines().count(), 1, "{}", o.stdout);
    assert!(o.stdout.contains("nosuchdev9"), "{}", o.stdout);
    println!(
        "check (kernel {}): ok while ACTIVE, '{found}' after ip link set down",
        common::kernel()
    );
}

#[test]
fn check_and_gids_usage_errors() {
    for (args, want) in [
        (
            &["check", "--state", "up"][..],
            "uverbs check: bad port state 'up' (try 'uverbs check --help')\n",
        ),
        (
            &["check", "--min-width", "3"],
            "uverbs check: bad width '3' (1, 2, 4, 8 or 12) (try 'uverbs check --help')\n",
        ),
        (
            &["check", "--gid-netdev", "eth0"],
            "uverbs check: --gid-netdev needs --gid (try 'uverbs check --help')\n",
        ),
        (
            &["gids", "--select", "v3"],
            "uverbs gids: bad GID type 'v3' (ib, roce-v1 or roce-v2) (try 'uverbs gids --help')\n",
        ),
        (
            &["gids", "--ipv4", "1.2.3"],
            "uverbs gids: bad IPv4 address '1.2.3' (try 'uverbs gids --help')\n",
        ),
        (
            &["gids", "--env"],
            "uverbs gids: --env needs a selection (--select TYPE) (try 'uverbs gids --help')\n",
        ),
        (
            &["gids", "--select", "ib", "--env", "--json"],
            "uverbs gids: --env and --json are two outputs: give one (try 'uverbs gids --help')\n",
        ),
    ] {
        let o = uverbs(args);
        assert_eq!((o.code, o.stderr.as_str()), (2, want), "{args:?}");
    }
}

// ------------------------------------------------------------------ the exporter's HTTP side

/// A running `uverbs exporter`, killed when dropped.
struct Exporter {
    child: std::process::Child,
    addr: std::net::SocketAddr,
}

impl Exporter {
    /// Starts `uverbs exporter --listen 127.0.0.1:0 ARGS` and reads the address it
    /// bound from its first line on stderr.
    fn start(args: &[&str]) -> Exporter {
        let (child, addr) = common::start_exporter(args, |l| print!("exporter: {l}"));
        Exporter { child, addr }
    }

    /// One request on a new connection; the whole response (the server closes).
    fn request(&self, req: &[u8]) -> String {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(req).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn scrape(&self) -> String {
        let r = self.request(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(
            r.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            "{r}"
        );
        r.split_once("\r\n\r\n").unwrap().1.to_string()
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn exporter_http_survives_garbage_and_idle_clients() {
    use std::io::{Read, Write};
    let ex = Exporter::start(&["--sysfs-only", "-d", "none-such"]);
    let body = ex.scrape();
    assert!(
        body.contains("# TYPE uverbs_scrape_duration_seconds gauge\n"),
        "{body}"
    );

    // Clients that hold their connection without a request, or stop mid-request: other
    // scrapes are answered at once.
    let mut idle = Vec::new();
    for partial in [
        &b""[..],
        b"GET /metr",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\n",
    ] {
        let mut s = std::net::TcpStream::connect(ex.addr).unwrap();
        s.write_all(partial).unwrap();
        idle.push(s);
    }
    let t = std::time::Instant::now();
    for _ in 0..3 {
        ex.scrape();
    }
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "3 scrapes beside 3 stalled clients took {:?}",
        t.elapsed()
    );

    // Garbage: 400 and the connection closed; a request head over 8 KiB: 431.
    for (req, status) in [
        (&b"\x00\xff\xfe garbage\r\n\r\n"[..], "400 Bad Request"),
        (b"GET /metrics HTTP/9\r\n\r\n", "400 Bad Request"),
        (
            b"GET /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
            "400 Bad Request",
        ),
        (b"POST /metrics HTTP/1.1\r\n\r\n", "405 Method Not Allowed"),
        (
            b"GET /nothing HTTP/1.1\r\nConnection: close\r\n\r\n",
            "404 Not Found",
        ),
    ] {
        let r = ex.request(req);
        assert!(
            r.starts_with(&format!("HTTP/1.1 {status}\r\n")),
            "{:?}: {r}",
            String::from_utf8_lossy(req)
        );
    }
    let mut big = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
    big.extend(vec![b'a'; 9000]);
    assert!(ex.request(&big).starts_with("HTTP/1.1 431 "));

    // Keep-alive: two requests on one connection, pipelined; HEAD has no body.
    let mut s = std::net::TcpStream::connect(ex.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"HEAD /metrics HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert_eq!(out.matches("HTTP/1.1 200 OK\r\n").count(), 2, "{out}");
    assert!(out.ends_with("at /metrics\n"), "{out}");
    drop(idle);
    ex.scrape();
}

#[test]
fn exporter_bad_input_is_one_line_and_a_nonzero_exit() {
    // A port someone else holds.
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = held.local_addr().unwrap().to_string();
    let o = uverbs(&["exporter", "--sysfs-only", "--listen", &addr]);
    assert_eq!(o.code, 1);
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert!(
        o.stderr
            .starts_with(&format!("uverbs exporter: cannot listen on {addr}: "))
            && o.stderr.contains("in use"),
        "{}",
        o.stderr
    );
    // A bad address.
    for bad in ["9550", "example.com:80", "1.2.3.4:99999"] {
        let o = uverbs(&["exporter", "--listen", bad]);
        assert_eq!(o.code, 2, "{bad}");
        assert_eq!(
            o.stderr,
            format!("uverbs exporter: bad listen address '{bad}': expected IP:PORT, [IPv6]:PORT, localhost:PORT or :PORT (try 'uverbs exporter --help')\n")
        );
    }
    // A textfile that cannot be written.
    let dir = std::env::temp_dir().join(format!("uverbs-ro-{}", std::process::id()));
    let path = dir.join("no/such/dir/rdma.prom");
    let o = uverbs(&[
        "exporter",
        "--sysfs-only",
        "--textfile",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "uverbs exporter: cannot write {}: No such file or directory (os error 2)\n",
            path.display()
        )
    );
}

// ------------------------------------------------------------------ against node_exporter

/// One sample of the Prometheus text format.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

impl Sample {
    fn label(&self, k: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses the samples of a Prometheus text exposition (comments skipped).
fn samples(text: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name_end = line.find(['{', ' ']).expect("a metric name");
        let name = line[..name_end].to_string();
        let mut labels = Vec::new();
        let mut rest = &line[name_end..];
        if let Some(r) = rest.strip_prefix('{') {
            let mut chars = r.char_indices().peekable();
            let mut end = None;
            let (mut key, mut val, mut in_val, mut esc) =
                (String::new(), String::new(), false, false);
            while let Some((i, c)) = chars.next() {
                match (in_val, c) {
                    (false, '}') => {
                        end = Some(i);
                        break;
                    }
                    (false, '=') => {
                        assert_eq!(chars.next().map(|x| x.1), Some('"'), "{line}");
                        in_val = true;
                    }
                    (false, ',') => {}
                    (false, c) => key.push(c),
                    (true, '\\') if !esc => esc = true,
                    (true, '"') if !esc => {
                        labels.push((std::mem::take(&mut key), std::mem::take(&mut val)));
                        in_val = false;
                    }
                    (true, c) => {
                        val.push(if esc && c == 'n' { '\n' } else { c });
                        esc = false;
                    }
                }
            }
            rest = &r[end.expect("closing brace") + 1..];
        }
        let value: f64 = rest
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("value of {line:?}"));
        out.push(Sample {
            name,
            labels,
            value,
        });
    }
    out
}

/// The node_exporter binary: `UVERBS_NODE_EXPORTER`, else where scripts/setup.sh
/// unpacks Debian's package, else `prometheus-node-exporter` on PATH.
fn node_exporter() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("UVERBS_NODE_EXPORTER") {
        return Some(PathBuf::from(p));
    }
    let cached = PathBuf::from(
        "/var/cache/uverbs-peers/prometheus-node-exporter/usr/bin/prometheus-node-exporter",
    );
    if cached.is_file() {
        return Some(cached);
    }
    let on_path = PathBuf::from("/usr/bin/prometheus-node-exporter");
    on_path.is_file().then_some(on_path)
}

/// A free TCP port on the loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// GET `path` from `addr` (HTTP/1.0): the body; `None` when nothing listens.
fn http_get(addr: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(format!("GET {path} HTTP/1.0\r\n\r\n").as_bytes())
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out.split_once("\r\n\r\n")?.1.to_string())
}

/// node_exporter's infiniband collector alone on the sysfs tree `sys`: its samples.
fn node_exporter_scrape(bin: &std::path::Path, sys: &std::path::Path) -> Vec<Sample> {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut child = Command::new(bin)
        .arg(format!("--path.sysfs={}", sys.display()))
        .args(["--collector.disable-defaults", "--collector.infiniband"])
        .arg(format!("--web.listen-address={addr}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run node_exporter");
    let mut body = None;
    for _ in 0..200 {
        body = http_get(&addr, "/metrics");
        if body.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    samples(&body.expect("node_exporter answered"))
}

/// The node_exporter → uverbs name table of docs/metrics.md.
fn name_map() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/metrics.md"))
        .expect("docs/metrics.md");
    let mut out = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 3
            && cells[1].starts_with("`node_infiniband_")
            && cells[2].starts_with("`uverbs_")
        {
            let ne = cells[1].trim_matches('`').to_string();
            let uv = cells[2].split('`').nth(1).unwrap().to_string();
            out.push((ne, uv));
        }
    }
    assert!(
        out.len() >= 30,
        "the mapping table of docs/metrics.md: {out:?}"
    );
    out
}

/// Every node_infiniband sample of `ne` has its uverbs sample in `uv`: the mapped
/// name, node_exporter's labels with the same values, the same value. Returns how
/// many were compared.
fn every_node_exporter_sample_in(ne: &[Sample], uv: &[Sample], tree: &str) -> usize {
    let map = name_map();
    let mut n = 0;
    for s in ne.iter().filter(|s| s.name.starts_with("node_infiniband_")) {
        let (_, want) = map
            .iter()
            .find(|(a, _)| *a == s.name)
            .unwrap_or_else(|| panic!("{tree}: {} is not in docs/metrics.md's table", s.name));
        let found = uv.iter().find(|u| {
            u.name == *want && s.labels.iter().all(|(k, v)| u.label(k) == Some(v.as_str()))
        });
        match found {
            Some(u) => assert_eq!(
                u.value, s.value,
                "{tree}: {} {:?} is {} in node_exporter, {} in uverbs ({want})",
                s.name, s.labels, s.value, u.value
            ),
            None => panic!(
                "{tree}: no {want} with labels {:?} for node_exporter's {}",
                s.labels, s.name
            ),
        }
        n += 1;
    }
    n
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for ent in std::fs::read_dir(from).unwrap().flatten() {
        let dst = to.join(ent.file_name());
        if ent.file_type().unwrap().is_dir() {
            copy_tree(&ent.path(), &dst);
        } else {
            std::fs::copy(ent.path(), &dst).unwrap();
        }
    }
}

fn fixture() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/node_exporter-infiniband"
    ))
}

#[test]
fn exporter_matches_node_exporter_on_its_test_data() {
    let Some(ne_bin) = node_exporter() else {
        let why = "node_exporter is not installed (scripts/setup.sh unpacks Debian's \
                   prometheus-node-exporter into /var/cache/uverbs-peers): not compared";
        common::strict::skip_or_fail("exporter_matches_node_exporter_on_its_test_data", why);
        return;
    };
    let sys = fixture().join("sys");
    // node_exporter on its own test data prints its own expected output.
    let ne = node_exporter_scrape(&ne_bin, &sys);
    let expected =
        samples(&std::fs::read_to_string(fixture().join("expected-node_exporter.txt")).unwrap());
    let mut got: Vec<Sample> = ne
        .iter()
        .filter(|s| s.name.starts_with("node_infiniband_"))
        .cloned()
        .collect();
    got.sort_by(|a, b| {
        (&a.name, &a.labels)
            .partial_cmp(&(&b.name, &b.labels))
            .unwrap()
    });
    assert_eq!(
        got, expected,
        "node_exporter against expected-node_exporter.txt"
    );

    let o = uverbs(&["exporter", "--once", "--sysfs", sys.to_str().unwrap()]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (0, ""),
        "uverbs exporter --once"
    );
    let uv = samples(&o.stdout);
    let n = every_node_exporter_sample_in(&ne, &uv, "node_exporter's test data");
    assert_eq!(n, expected.len());

    // SYNTHETIC: the same tree with numbers in the counters the i40iw0 port shows as
    // N/A, so that every counter node_exporter 1.5 knows is compared too.
    let tmp = std::env::temp_dir().join(format!("uverbs-ne-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    copy_tree(&sys, &tmp);
    let counters = tmp.join("class/infiniband/i40iw0/ports/1/counters");
    let mut names: Vec<String> = std::fs::read_dir(&counters)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for (i, n) in names.iter().enumerate() {
        std::fs::write(counters.join(n), format!("{}\n", 1000 + 7 * i as u64)).unwrap();
    }
    let ne2 = node_exporter_scrape(&ne_bin, &tmp);
    let o = uverbs(&["exporter", "--once", "--sysfs", tmp.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let n2 =
        every_node_exporter_sample_in(&ne2, &samples(&o.stdout), "the synthetic i40iw0 counters");
    assert!(
        n2 >= n + names.len(),
        "{n2} compared, {} counters added",
        names.len()
    );
    println!(
        "node_exporter 1.5 and uverbs exporter agree on {n} samples of node_exporter's test data and {n2} with synthetic i40iw0 counters"
    );

    // A tree where one port lacks its state and one counter is garbage: node_exporter
    // exports nothing; uverbs loses only those two values and counts two errors.
    let _ = std::fs::remove_dir_all(&tmp);
    copy_tree(&sys, &tmp);
    let mlx = tmp.join("class/infiniband/mlx4_0/ports");
    std::fs::remove_file(mlx.join("2/state")).unwrap();
    std::fs::write(mlx.join("1/counters/port_xmit_wait"), "garbage\n").unwrap();
    let ne3 = node_exporter_scrape(&ne_bin, &tmp);
    assert!(
        !ne3.iter().any(|s| s.name.starts_with("node_infiniband_")),
        "node_exporter exported infiniband metrics from a broken tree"
    );
    let success = ne3
        .iter()
        .find(|s| {
            s.name == "node_scrape_collector_success" && s.label("collector") == Some("infiniband")
        })
        .expect("node_scrape_collector_success");
    assert_eq!(success.value, 0.0);
    let o = uverbs(&["exporter", "--once", "--sysfs", tmp.to_str().unwrap()]);
    assert_eq!(o.code, 0);
    assert_eq!(
        o.stderr.lines().count(),
        2,
        "one line per error: {}",
        o.stderr
    );
    let uv3 = samples(&o.stdout);
    let find = |name: &str, dev: &str, port: Option<&str>| {
        uv3.iter()
            .find(|s| s.name == name && s.label("device") == Some(dev) && s.label("port") == port)
            .map(|s| s.value)
    };
    assert_eq!(find("uverbs_port_state", "mlx4_0", Some("2")), None);
    assert_eq!(find("uverbs_port_state", "mlx4_0", Some("1")), Some(4.0));
    assert_eq!(
        find("uverbs_port_physical_state", "mlx4_0", Some("2")),
        Some(5.0)
    );
    assert_eq!(
        find("uverbs_port_transmit_wait_total", "mlx4_0", Some("1")),
        None
    );
    assert_eq!(
        find("uverbs_port_transmit_discards_total", "mlx4_0", Some("1")),
        Some(5.0)
    );
    assert_eq!(find("uverbs_port_state", "i40iw0", Some("1")), Some(4.0));
    assert_eq!(
        find("uverbs_device_scrape_errors_total", "mlx4_0", None),
        Some(2.0)
    );
    assert_eq!(
        find("uverbs_device_scrape_errors_total", "i40iw0", None),
        Some(0.0)
    );
    // Everything else node_exporter gave on the intact tree is still there.
    let kept = ne
        .iter()
        .filter(|s| s.name.starts_with("node_infiniband_"))
        .filter(|s| {
            !(s.label("device") == Some("mlx4_0")
                && ((s.name == "node_infiniband_state_id" && s.label("port") == Some("2"))
                    || (s.name == "node_infiniband_port_transmit_wait_total"
                        && s.label("port") == Some("1"))))
        })
        .cloned()
        .collect::<Vec<_>>();
    every_node_exporter_sample_in(&kept, &uv3, "the broken tree");
    let _ = std::fs::remove_dir_all(&tmp);
}

// ------------------------------------------------------------------ the exporter in the VM

/// The value of the sample `name` with these labels in `text`.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples(text)
        .into_iter()
        .find(|s| s.name == name && labels.iter().all(|(k, v)| s.label(k) == Some(v)))
        .map(|s| s.value)
}

/// The number of a sysfs `state` or `phys_state` file (`4: ACTIVE` → 4).
fn sysfs_state(dev: &str, file: &str) -> f64 {
    let t = sys(&format!("/sys/class/infiniband/{dev}/ports/1/{file}")).unwrap();
    t.split(':').next().unwrap().trim().parse().unwrap()
}

/// `promtool check metrics` on `text`: (status, output).
fn promtool_check(text: &str) -> (i32, String) {
    use std::io::Write;
    let mut p = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool (Debian's prometheus package, in the rig)");
    p.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = p.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
    )
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn exporter_is_scraped_by_prometheus_and_passes_promtool() {
    let devs = common::devices();
    let ex = Exporter::start(&[]);
    let body = ex.scrape();
    let (st, out) = promtool_check(&body);
    assert_eq!(
        (st, out.as_str()),
        (0, ""),
        "promtool check metrics:\n{body}"
    );
    for d in &devs {
        for (metric, file) in [
            ("uverbs_port_state", "state"),
            ("uverbs_port_physical_state", "phys_state"),
        ] {
            assert_eq!(
                value(&body, metric, &[("device", d), ("port", "1")]),
                Some(sysfs_state(d, file)),
                "{d}: {metric} against sysfs {file}"
            );
        }
    }
    // A real Prometheus scrapes it every second; PromQL answers the port state.
    let prom = Prometheus::start(ex.addr, "groups: []\n");
    let query = format!("uverbs_port_state{{device=\"{}\",port=\"1\"}}", devs[0]);
    let took = prom.until(&query, " => 4 @", Duration::from_secs(120));
    println!(
        "kernel {}: promtool check metrics passes ({} lines); Prometheus answered {query} => 4 after {took:?}",
        common::kernel(),
        body.lines().count()
    );
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn exporter_sees_a_link_flap() {
    let devs = common::devices();
    let rxe = devs
        .iter()
        .find(|d| d.starts_with("rxe"))
        .expect("an rxe device");
    let parent = sys(&format!("/sys/class/infiniband/{rxe}/parent")).unwrap();
    let ex = Exporter::start(&["-d", rxe]);
    let l = [("device", rxe.as_str()), ("port", "1")];
    let before =
        value(&ex.scrape(), "uverbs_port_state_changes_total", &l).expect("the flap counter");
    for (updown, want) in [("down", 1.0), ("up", 4.0)] {
        let (st, out) = run(
            &["ip", "link", "set", &parent, updown],
            Duration::from_secs(30),
        );
        assert_eq!(st, 0, "{out}");
        let mut last = None;
        let seen = wait_until(Duration::from_secs(10), || {
            last = value(&ex.scrape(), "uverbs_port_state", &l);
            last == Some(want)
        });
        assert!(
            seen,
            "{rxe}: the state metric stayed {last:?} after ip link set {updown}"
        );
        assert_eq!(sysfs_state(rxe, "state"), want, "sysfs agrees");
    }
    let body = ex.scrape();
    let after = value(&body, "uverbs_port_state_changes_total", &l).unwrap();
    assert_eq!(after - before, 2.0, "PORT_ERR then PORT_ACTIVE: {body}");
    println!(
        "{rxe} (kernel {}): ip link set down/up seen in uverbs_port_state (1, then 4) and counted: uverbs_port_state_changes_total {before} -> {after}",
        common::kernel()
    );
}

/// A real Prometheus scraping `target` every second and evaluating `rules` (a rule file's
/// text) every second, in `dir`; killed when dropped.
struct Prometheus {
    child: std::process::Child,
    web: String,
    dir: PathBuf,
}

impl Prometheus {
    fn start(target: std::net::SocketAddr, rules: &str) -> Prometheus {
        let dir = std::env::temp_dir().join(format!("uverbs-prom-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("rules.yml"), rules).unwrap();
        std::fs::write(
            dir.join("prometheus.yml"),
            format!(
                "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - {}\n\
                 scrape_configs:\n  - job_name: rdma\n    static_configs:\n      - targets: ['{target}']\n",
                dir.join("rules.yml").display()
            ),
        )
        .unwrap();
        let web = format!("127.0.0.1:{}", free_port());
        let child = Command::new("prometheus")
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.join("log")).unwrap())
            .spawn()
            .expect("prometheus (Debian's package, in the rig)");
        Prometheus { child, web, dir }
    }

    /// `promtool query instant`'s answer to `q` (one line per series; empty: none), or
    /// its error (Prometheus still starting: refused, 503).
    fn try_query(&self, q: &str) -> Result<String, String> {
        let o = Command::new("promtool")
            .args(["query", "instant", &format!("http://{}", self.web), q])
            .output()
            .unwrap();
        if o.status.success() {
            Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&o.stderr).into_owned())
        }
    }

    fn query(&self, q: &str) -> String {
        self.try_query(q)
            .unwrap_or_else(|e| panic!("promtool query {q}: {e}"))
    }

    /// Waits (at most `within`) until the answer to `q` contains `want`; how long it took.
    fn until(&self, q: &str, want: &str, within: Duration) -> Duration {
        let t = std::time::Instant::now();
        let mut last = String::new();
        let ok = wait_until(within, || {
            last = self.try_query(q).unwrap_or_else(|e| e);
            last.contains(want)
        });
        assert!(
            ok,
            "{q}: no '{want}' after {within:?}: {last:?}; prometheus log:\n{}",
            std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
        );
        t.elapsed()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Issue 26: deploy/prometheus/uverbs-alerts.yml in a real Prometheus scraping the
/// exporter: the port-down rule selects the port whose netdev is set down (pending: its
/// `for` is 2 minutes), three flaps fire the flapping rule, and every other rule's
/// expression is valid against the real series (rxe and siw have none of the IB error
/// counters and no device past its deadline here: those answer nothing; promtool's unit
/// tests, `deploy` phase, show them firing).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn alert_rules_on_a_real_prometheus() {
    let rules = include_str!("../deploy/prometheus/uverbs-alerts.yml");
    let devs = common::devices();
    let rxe = devs
        .iter()
        .find(|d| d.starts_with("rxe"))
        .expect("an rxe device");
    let parent = sys(&format!("/sys/class/infiniband/{rxe}/parent")).unwrap();
    let ex = Exporter::start(&["-d", rxe]);
    let prom = Prometheus::start(ex.addr, rules);
    let up = prom.until(
        &format!("uverbs_port_state{{device=\"{rxe}\"}}"),
        " => 4 @",
        Duration::from_secs(120),
    );
    // every rule's expression runs: nothing fires while the ports are ACTIVE
    let exprs: Vec<String> = rules
        .split("expr:")
        .skip(1)
        .map(|r| {
            let e = r.split("\n        for:").next().unwrap();
            let e = e.split("\n        labels:").next().unwrap();
            e.trim().trim_start_matches('>').trim().to_string()
        })
        .collect();
    assert_eq!(exprs.len(), rules.matches("- alert:").count());
    for e in &exprs {
        assert_eq!(prom.query(e), "", "{e} while every port is ACTIVE");
    }
    // The Grafana dashboard's queries, its variables given the values a user picks (all
    // instances, this device): each answers for the device, but those of the IB port
    // counters, which soft devices do not have (no ports/1/counters in sysfs).
    std::thread::sleep(Duration::from_secs(3)); // samples enough for rate() over 1m
    let dash = common::json::parse_json(include_bytes!("../deploy/grafana/uverbs.json"))
        .expect("the dashboard is JSON");
    let has_pma =
        std::path::Path::new(&format!("/sys/class/infiniband/{rxe}/ports/1/counters")).exists();
    let mut answered = 0;
    for panel in dash.get("panels").expect("panels").arr() {
        let title = panel.get("title").and_then(|t| t.str()).unwrap();
        for t in panel.get("targets").expect("targets").arr() {
            let e = t.get("expr").and_then(|e| e.str()).unwrap();
            let q = e
                .replace("$instance", ".*")
                .replace("$device", rxe)
                .replace("$__range", "1h")
                .replace("$__rate_interval", "1m");
            assert!(!q.contains('$'), "{title}: a variable left in {q}");
            let a = prom.query(&q);
            if title.contains("(port counters)") && !has_pma {
                assert_eq!(a, "", "{title}: {q}");
            } else {
                assert!(
                    !a.is_empty() && a.lines().all(|l| l.contains(&format!("device=\"{rxe}\""))),
                    "{title}: {q} answered {a:?}"
                );
                answered += 1;
            }
        }
    }
    assert!(answered >= 6, "{answered} dashboard queries answered");
    let alert = |name: &str| format!("ALERTS{{alertname=\"{name}\",device=\"{rxe}\"}}");
    let ip = |updown: &str| {
        let (st, out) = run(
            &["ip", "link", "set", &parent, updown],
            Duration::from_secs(30),
        );
        assert_eq!(st, 0, "{out}");
    };
    ip("down");
    let pending = prom.until(
        &alert("RdmaPortNotActive"),
        "alertstate=\"pending\"",
        Duration::from_secs(30),
    );
    // two more flaps: six state changes in all
    for updown in ["up", "down", "up", "down", "up"] {
        ip(updown);
        let want = if updown == "up" { 4.0 } else { 1.0 };
        assert!(wait_until(Duration::from_secs(10), || value(
            &ex.scrape(),
            "uverbs_port_state",
            &[("device", rxe), ("port", "1")]
        ) == Some(want)));
    }
    let firing = prom.until(
        &alert("RdmaPortFlapping"),
        "alertstate=\"firing\"",
        Duration::from_secs(30),
    );
    // ACTIVE again: the port-down alert is gone
    prom.until(
        "count(ALERTS{alertname=\"RdmaPortNotActive\"}) or vector(0)",
        " => 0 @",
        Duration::from_secs(30),
    );
    println!(
        "{rxe} (kernel {}): Prometheus with deploy/prometheus/uverbs-alerts.yml: {} expressions answer nothing while ACTIVE (first scrape after {up:?}); {answered} dashboard queries answer for {rxe}; ip link set down: RdmaPortNotActive pending after {pending:?}; three flaps: RdmaPortFlapping firing after {firing:?}",
        common::kernel(),
        exprs.len()
    );
}

/// `rdma statistic show link DEV/1`: name → value.
fn rdma_statistic(dev: &str) -> Vec<(String, u64)> {
    let (st, out) = run(
        &["rdma", "statistic", "show", "link", &format!("{dev}/1")],
        Duration::from_secs(30),
    );
    assert_eq!(st, 0, "rdma statistic show: {out}");
    let words: Vec<&str> = out.split_whitespace().collect();
    let start = words.iter().position(|w| *w == format!("{dev}/1")).unwrap() + 1;
    words[start..]
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0].to_string(), c[1].parse().unwrap()))
        .collect()
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn counters_equal_sysfs_and_rdma_statistic_after_real_traffic() {
    let rxe = common::device("rxe");
    // perftest's ib_send_bw on rxe's own loopback: the server, then the client to it,
    // for about 3 s, while uverbs counters samples the rates.
    let server = common::scratch::spawn(&["ib_send_bw", "-d", &rxe, "-x", "1", "-F", "-D", "3"]);
    // perftest's server is ready when its exchange port (18515) listens.
    common::scratch::wait_listening(18515, Duration::from_secs(60), "ib_send_bw server");
    let sent = || {
        std::fs::read_to_string(format!(
            "/sys/class/infiniband/{rxe}/ports/1/hw_counters/sent_pkts"
        ))
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0)
    };
    let sent0 = sent();
    let client = common::scratch::spawn(&[
        "ib_send_bw",
        "-d",
        &rxe,
        "-x",
        "1",
        "-F",
        "-D",
        "3",
        "127.0.0.1",
    ]);
    // Sampled while the traffic runs: once rxe has sent packets.
    assert!(
        common::scratch::wait_until(Duration::from_secs(60), || sent() > sent0),
        "ib_send_bw sent nothing on {rxe}"
    );
    let rate = uverbs(&["counters", "-d", &rxe, "-i", "1", "--rate", "--count", "1"]);
    let (cs, cout) =
        common::scratch::wait_child(client, Duration::from_secs(120)).expect("client ends");
    let (ss, sout) =
        common::scratch::wait_child(server, Duration::from_secs(120)).expect("server ends");
    assert_eq!(
        (cs, ss),
        (0, 0),
        "ib_send_bw client:\n{cout}\nserver:\n{sout}"
    );
    assert_eq!(rate.code, 0, "{}", rate.stderr);
    let moving = rate
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{rxe} 1 hw sent_pkts ")))
        .unwrap_or_else(|| panic!("no sent_pkts rate while ib_send_bw ran:\n{}", rate.stdout));
    let per_s: u64 = moving
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches("/s")
        .parse()
        .unwrap();
    assert!(per_s > 0, "{moving}");

    // The traffic is over: sysfs, rdma statistic, uverbs counters and the exporter must
    // say the same.
    let dir = format!("/sys/class/infiniband/{rxe}/ports/1/hw_counters");
    let mut sysfs: Vec<(String, u64)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lifespan")
        .map(|n| {
            let v = sys(&format!("{dir}/{n}")).unwrap().parse().unwrap();
            (n, v)
        })
        .collect();
    sysfs.sort();
    let mut rdma = rdma_statistic(&rxe);
    rdma.sort();
    assert_eq!(rdma, sysfs, "rdma statistic show against sysfs hw_counters");
    let sent = sysfs.iter().find(|(n, _)| n == "sent_pkts").unwrap().1;
    let rcvd = sysfs.iter().find(|(n, _)| n == "rcvd_pkts").unwrap().1;
    assert!(sent > 0 && rcvd > 0, "{sysfs:?}");

    let o = uverbs(&["counters", "-d", &rxe, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let doc = common::json::parse_json(o.stdout.as_bytes()).unwrap();
    let port = &doc.get("devices").unwrap().arr()[0]
        .get("ports")
        .unwrap()
        .arr()[0];
    assert_eq!(port.get("hw_source").and_then(|v| v.str()), Some("netlink"));
    let mut got: Vec<(String, u64)> = port
        .get("hw")
        .unwrap()
        .arr()
        .iter()
        .map(|c| {
            (
                c.get("name").unwrap().str().unwrap().to_string(),
                c.get("value").unwrap().num().unwrap() as u64,
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, sysfs, "uverbs counters --json (netlink) against sysfs");

    let o = uverbs(&["exporter", "--once", "-d", &rxe]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut exp: Vec<(String, u64)> = samples(&o.stdout)
        .into_iter()
        .filter(|s| s.name == "uverbs_port_hw_stat_total" && s.label("port") == Some("1"))
        .map(|s| (s.label("counter").unwrap().to_string(), s.value as u64))
        .collect();
    exp.sort();
    assert_eq!(
        exp, sysfs,
        "the exporter's uverbs_port_hw_stat_total against sysfs"
    );
    // The sysfs-only mode reads the same from hw_counters/.
    let o = uverbs(&["exporter", "--once", "--sysfs-only", "-d", &rxe]);
    let mut exp2: Vec<(String, u64)> = samples(&o.stdout)
        .into_iter()
        .filter(|s| s.name == "uverbs_port_hw_stat_total")
        .map(|s| (s.label("counter").unwrap().to_string(), s.value as u64))
        .collect();
    exp2.sort();
    assert_eq!(exp2, sysfs, "sysfs-only mode");
    println!(
        "{rxe} (kernel {}): after ib_send_bw (sent_pkts rate {per_s}/s while it ran): {} driver counters equal in sysfs, rdma statistic, uverbs counters and the exporter (sent_pkts {sent}, rcvd_pkts {rcvd})",
        common::kernel(),
        sysfs.len()
    );
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn node_exporter_exports_nothing_for_soft_devices_uverbs_does() {
    let devs = common::devices();
    let ne = node_exporter_scrape(
        std::path::Path::new("prometheus-node-exporter"),
        std::path::Path::new("/sys"),
    );
    let ib: Vec<&Sample> = ne
        .iter()
        .filter(|s| s.name.starts_with("node_infiniband_"))
        .collect();
    let success = ne
        .iter()
        .find(|s| {
            s.name == "node_scrape_collector_success" && s.label("collector") == Some("infiniband")
        })
        .map(|s| s.value);
    let ex = Exporter::start(&[]);
    let body = ex.scrape();
    let uv = samples(&body);
    let mut lines = Vec::new();
    for d in &devs {
        let of = |name: &str| {
            uv.iter()
                .filter(|s| s.name == name && s.label("device") == Some(d))
                .count()
        };
        for m in [
            "uverbs_port_state",
            "uverbs_port_rate_bytes_per_second",
            "uverbs_port_gid_info",
            "uverbs_port_state_changes_total",
            "uverbs_device_info",
        ] {
            assert!(of(m) > 0, "{d}: no {m}");
        }
        if d.starts_with("rxe") {
            assert!(
                of("uverbs_port_hw_stat_total") > 0,
                "{d}: no driver counters"
            );
        }
        lines.push(format!(
            "{d}: node_exporter 0 samples; uverbs {} samples ({} driver counters, {} GIDs)",
            uv.iter().filter(|s| s.label("device") == Some(d)).count(),
            of("uverbs_port_hw_stat_total"),
            of("uverbs_port_gid_info")
        ));
    }
    assert!(ib.is_empty(), "node_exporter exported {ib:?}");
    assert_eq!(
        success,
        Some(0.0),
        "node_scrape_collector_success of infiniband"
    );
    println!(
        "kernel {}: node_exporter 1.5: node_scrape_collector_success{{collector=\"infiniband\"}} 0, no node_infiniband_ sample\n  {}",
        common::kernel(),
        lines.join("\n  ")
    );
}

/// `name` renamed, and a new device takes the name (on another netdev), with `ex`, a
/// sysfs-only exporter of `name`, keeping the renamed device's files open (they stay
/// valid: its kernfs directory moved): its next scrape gives the new device's node GUID
/// under `name`, not the renamed one's. Then the new device goes and the name comes
/// back to the first.
fn renamed_and_replaced(ex: &Exporter, name: &str) {
    let guid = |dev: &str| {
        std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/node_guid"))
            .unwrap_or_else(|e| panic!("{dev}/node_guid: {e}"))
            .trim()
            .to_owned()
    };
    let exported = |text: &str| {
        samples(text)
            .into_iter()
            .find(|s| s.name == "uverbs_device_info" && s.label("device") == Some(name))
            .and_then(|s| s.label("node_guid").map(str::to_owned))
    };
    let first = guid(name);
    assert_eq!(exported(&ex.scrape()).as_deref(), Some(first.as_str()));
    let ren = format!("{name}r");
    let set = |from: &str, to: &str| {
        let (st, out) = run(
            &["rdma", "dev", "set", from, "name", to],
            Duration::from_secs(30),
        );
        assert_eq!(st, 0, "rdma dev set {from} name {to}: {out}");
    };
    set(name, &ren);
    let other = ScratchDevice::create("rxe", name, "exnet2", 223);
    let second = guid(name);
    assert_ne!(second, first, "two rxe devices with one node GUID");
    let text = ex.scrape();
    assert_eq!(
        exported(&text).as_deref(),
        Some(second.as_str()),
        "{name} exported with the renamed device's node GUID ({first}), not its own:\n{text}"
    );
    drop(other);
    set(&ren, name);
    println!("{name} renamed to {ren} and a new {name} added: the sysfs-only exporter gave the new device's node GUID ({second}), not the renamed one's ({first})");
}

/// How many of process `pid`'s open files are under device `dev`'s sysfs directory.
fn sysfs_files_held(pid: u32, dev: &str) -> usize {
    let under = format!("/infiniband/{dev}/");
    open_files(pid)
        .iter()
        .filter(|t| t.starts_with("/sys/") && t.to_string_lossy().contains(&under))
        .count()
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn exporter_lets_go_of_a_device_being_deleted() {
    for (kind, name, netdev, subnet) in [
        ("rxe", "rxe_ex", "exnet0", 221),
        ("siw", "siw_ex", "exnet1", 222),
    ] {
        if kind == "siw" {
            common::require_siw();
        }
        let d = ScratchDevice::create(kind, name, netdev, subnet);
        // The baseline: the same delete with no uverbs file open (the first delete and
        // add warm the kernel's paths, the second delete is measured).
        timed_delete(name);
        d.add_link();
        let baseline = timed_delete(name);
        d.add_link();
        // One exporter with uverbs, one from sysfs alone: the second keeps the port's
        // attribute files open between scrapes, and after the re-add must read the new
        // device's files, not the removed one's (which answer ENODEV).
        let exs = [
            Exporter::start(&[]),
            Exporter::start(&["--sysfs-only", "-d", name]),
        ];
        let l = [("device", name), ("port", "1")];
        let pkey0 = [("device", name), ("port", "1"), ("index", "0")];
        let sent = [("device", name), ("port", "1"), ("counter", "sent_pkts")];
        let serves_in = |text: &str| {
            // The state (from sysfs in the second); rxe's P_Key 0 and driver counters
            // (from sysfs; siw, iWARP, has neither a P_Key table nor counters).
            value(text, "uverbs_port_state", &l) == Some(4.0)
                && (kind != "rxe"
                    || value(text, "uverbs_port_pkey_info", &pkey0) == Some(1.0)
                        && value(text, "uverbs_port_hw_stat_total", &sent).is_some())
        };
        let serves = |ex: &Exporter| serves_in(&ex.scrape());
        for (i, ex) in exs.iter().enumerate() {
            assert!(
                wait_until(Duration::from_secs(10), || serves(ex)),
                "{name}: exporter {i} never served ACTIVE, P_Key 0 and its counters:\n{}",
                ex.scrape()
            );
        }
        let holders = "uverbs exporter and a sysfs-only one serving it";
        prompt_delete(&d, baseline, holders);
        for (i, ex) in exs.iter().enumerate() {
            assert!(
                wait_until(Duration::from_secs(10), || value(
                    &ex.scrape(),
                    "uverbs_device_info",
                    &[("device", name)]
                )
                .is_none()),
                "{name} still exported by exporter {i} after its removal"
            );
        }
        // Added again under the same name: followed, with its files read afresh.
        d.add_link();
        for (i, ex) in exs.iter().enumerate() {
            assert!(
                wait_until(Duration::from_secs(15), || serves(ex)),
                "{name}: exporter {i} did not export it again after it came back:\n{}",
                ex.scrape()
            );
        }
        // Removed and added again with no scrape between: the sysfs-only exporter's kept
        // files are the removed device's (reads answer ENODEV); its first scrape once the
        // new device's port is ACTIVE in sysfs must read the new files.
        let kept = sysfs_files_held(exs[1].child.id(), name);
        assert!(
            kept > 0,
            "{name}: the sysfs-only exporter keeps none of its files open"
        );
        timed_delete(name);
        d.add_link();
        let state = format!("/sys/class/infiniband/{name}/ports/1/state");
        assert!(
            wait_until(Duration::from_secs(15), || std::fs::read_to_string(&state)
                .is_ok_and(|s| s.contains("ACTIVE"))),
            "{name} not ACTIVE again in sysfs"
        );
        let first = exs[1].scrape();
        assert!(
            serves_in(&first),
            "{name}: the sysfs-only exporter's first scrape after a remove and re-add:\n{first}"
        );
        if kind == "rxe" {
            renamed_and_replaced(&exs[1], name);
        }
        let took = prompt_delete(&d, baseline, &format!("{holders}, after the re-add"));
        println!(
            "{name} (kernel {}): with uverbs exporter and a sysfs-only one serving it, rdma link delete took {took:?} (baseline {baseline:?}); the device left the scrapes and came back with its state (and rxe's P_Key and counters); removed and added again between two scrapes, the sysfs-only one read the new device's files at once ({kept} kept open)",
            common::kernel()
        );
        d.add_link();
        drop(exs);
    }
}
