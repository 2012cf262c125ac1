//! Processes, waits and scratch RDMA devices for the tests that add and remove devices
//! in the VM (faults, hot-plug).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use uverbs::{Context, DeviceInfo, Discovery, PortAttr};

/// How much later than the baseline a delete may finish with a holder running (the
/// medians of tests/hotplug.rs's scale test).
pub const SLACK: Duration = Duration::from_secs(1);

/// How long one delete with a holder running may take, against its `baseline` (the same
/// delete with no uverbs file open): three baselines, or the baseline and 2 s, whichever
/// is longer. A holder that lets go at once finishes near the baseline; under TCG, on
/// one vCPU shared with traffic or a query loop, single deletes came in up to 1.3 s past
/// a 0.3 s baseline. A holder that keeps the device never lets the delete finish at all:
/// that hang is caught by [`HANG`] past this bound, whatever the noise.
pub fn prompt_bound(baseline: Duration) -> Duration {
    (baseline * 3).max(baseline + Duration::from_secs(2))
}

/// How long past [`prompt_bound`] a delete is waited for before it is called a hang.
pub const HANG: Duration = Duration::from_secs(10);

/// The number of open file descriptors of this process.
pub fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// This process's resident set size in KiB.
/// What process `pid`'s open file descriptors name (the targets of `/proc/PID/fd`).
pub fn open_files(pid: u32) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .collect()
}

pub fn vm_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Runs a command to completion (at most `timeout`); returns (status, stdout+stderr).
pub fn run(cmd: &[&str], timeout: Duration) -> (i32, String) {
    let child = spawn(cmd);
    wait_child(child, timeout).unwrap_or_else(|| panic!("{cmd:?} did not finish in {timeout:?}"))
}

/// A child process whose output goes to a file (not a pipe: a pipe would hold fds in
/// this process while the child runs, and the tests count fds).
pub struct Proc {
    pub child: Child,
    pub log: PathBuf,
}

impl Proc {
    pub fn done(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }
}

pub fn spawn(cmd: &[&str]) -> Proc {
    static N: AtomicU64 = AtomicU64::new(0);
    let log = std::env::temp_dir().join(format!(
        "uverbs-faults-{}-{}.log",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let f = std::fs::File::create(&log).unwrap();
    let child = Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    Proc { child, log }
}

/// Waits for a child at most `timeout`; `None` (the child still running) on timeout.
pub fn wait_child(mut p: Proc, timeout: Duration) -> Option<(i32, String)> {
    let start = Instant::now();
    loop {
        if let Ok(Some(st)) = p.child.try_wait() {
            let text = std::fs::read_to_string(&p.log).unwrap_or_default();
            let _ = std::fs::remove_file(&p.log);
            return Some((st.code().unwrap_or(-1), text));
        }
        if start.elapsed() > timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// This process's effective uid (from /proc: rustix's `process` feature is not on).
pub fn euid() -> u32 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(u32::MAX)
}

/// Polls `f` until it is true, at most `timeout`.
pub fn wait_until(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// Whether a TCP socket listens on `port` (any address, IPv4 or IPv6), from
/// `/proc/net/tcp{,6}`: the readiness of a server that prints nothing when ready.
pub fn tcp_listening(port: u16) -> bool {
    let want = format!(":{port:04X}");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|f| {
        std::fs::read_to_string(f).is_ok_and(|t| {
            t.lines().skip(1).any(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                // local_address is field 1, st field 3 (0A: LISTEN)
                w.len() > 3 && w[1].ends_with(&want) && w[3] == "0A"
            })
        })
    })
}

/// Waits (at most `timeout`) until a TCP socket listens on `port`; panics otherwise.
pub fn wait_listening(port: u16, timeout: Duration, who: &str) {
    assert!(
        wait_until(timeout, || tcp_listening(port)),
        "{who}: nothing listens on TCP port {port} after {timeout:?}"
    );
}

pub fn discover(name: &str) -> Option<DeviceInfo> {
    Discovery::new().device(name).ok()
}

pub fn open(name: &str) -> Context {
    let info = discover(name).unwrap_or_else(|| panic!("{name}: not found"));
    Context::open(&info).unwrap_or_else(|e| panic!("{name}: open: {e}"))
}

/// Port attributes without the counters, which move between two reads.
pub fn steady(mut p: PortAttr) -> PortAttr {
    p.bad_pkey_cntr = 0;
    p.qkey_viol_cntr = 0;
    p
}

/// An extra software RDMA device on its own dummy netdev, made for one test and removed
/// (device, then netdev) when dropped, whatever state the test left them in.
pub struct ScratchDevice {
    pub name: String,
    pub netdev: String,
    pub kind: &'static str,
}

impl ScratchDevice {
    /// Makes netdev `netdev` (dummy, up, 169.254.`subnet`.1/24) and RDMA link `name` of
    /// `kind` (`rxe` or `siw`) on it, and waits until the device is discovered with port
    /// 1 ACTIVE.
    pub fn create(kind: &'static str, name: &str, netdev: &str, subnet: u8) -> ScratchDevice {
        let d = ScratchDevice {
            name: name.into(),
            netdev: netdev.into(),
            kind,
        };
        d.cleanup();
        let t = Duration::from_secs(30);
        for cmd in [
            vec!["ip", "link", "add", netdev, "type", "dummy"],
            vec!["ip", "link", "set", netdev, "up"],
        ] {
            let (st, out) = run(&cmd, t);
            assert_eq!(st, 0, "{cmd:?}: {out}");
        }
        let addr = format!("169.254.{subnet}.1/24");
        let (st, out) = run(&["ip", "addr", "add", &addr, "dev", netdev], t);
        assert_eq!(st, 0, "ip addr add: {out}");
        d.add_link();
        d
    }

    pub fn add_link(&self) {
        self.add_link_with("rdma");
    }

    /// `TOOL link add NAME type KIND netdev NETDEV` (`rdma`, or the `uverbs` binary: the
    /// same syntax), then waits as [`ScratchDevice::create`] does.
    pub fn add_link_with(&self, tool: &str) {
        add_link(tool, self.kind, &self.name, &self.netdev);
    }

    pub fn exists(&self) -> bool {
        Path::new("/sys/class/infiniband").join(&self.name).exists()
    }

    pub fn cleanup(&self) {
        if self.exists() {
            let _ = wait_child(
                spawn(&["rdma", "link", "delete", &self.name]),
                Duration::from_secs(60),
            );
        }
        if Path::new("/sys/class/net").join(&self.netdev).exists() {
            let _ = wait_child(
                spawn(&["ip", "link", "del", &self.netdev]),
                Duration::from_secs(60),
            );
        }
        wait_until(Duration::from_secs(30), || !self.exists());
    }
}

impl Drop for ScratchDevice {
    fn drop(&mut self) {
        self.cleanup();
    }
}

/// `TOOL link add NAME type KIND netdev NETDEV`, then waits (at most 30 s) until the
/// device is discovered with a uverbs node and port 1 ACTIVE.
pub fn add_link(tool: &str, kind: &str, name: &str, netdev: &str) {
    let (st, out) = run(
        &[tool, "link", "add", name, "type", kind, "netdev", netdev],
        Duration::from_secs(30),
    );
    assert_eq!(st, 0, "{tool} link add {name}: {out}");
    let ok = wait_until(Duration::from_secs(30), || {
        discover(name).is_some_and(|d| d.uverbs.is_some())
            && std::fs::read_to_string(format!("/sys/class/infiniband/{name}/ports/1/state"))
                .is_ok_and(|s| s.contains("ACTIVE"))
    });
    assert!(
        ok,
        "{name}: not discovered ACTIVE with a uverbs node in 30 s"
    );
}

/// Runs `rdma link delete NAME` to completion (at most 30 s) and returns how long it
/// took.
pub fn timed_delete(name: &str) -> Duration {
    let t = Instant::now();
    let (st, out) = run(&["rdma", "link", "delete", name], Duration::from_secs(30));
    assert_eq!(st, 0, "rdma link delete {name}: {out}");
    t.elapsed()
}

/// Starts `rdma link delete NAME` while `holder` runs, and checks that it finishes
/// within [`prompt_bound`] of `baseline`. Returns how long it took.
pub fn prompt_delete(d: &ScratchDevice, baseline: Duration, holder: &str) -> Duration {
    let t = Instant::now();
    let p = spawn(&["rdma", "link", "delete", &d.name]);
    let done = wait_child(p, prompt_bound(baseline) + HANG);
    let took = t.elapsed();
    let (st, out) = done.unwrap_or_else(|| {
        panic!(
            "{}: rdma link delete still blocked after {took:?} with {holder} running",
            d.name
        )
    });
    assert_eq!(st, 0, "{}: rdma link delete: {out}", d.name);
    assert!(
        took <= prompt_bound(baseline),
        "{}: the delete took {took:?} with {holder} running, baseline {baseline:?}",
        d.name
    );
    println!(
        "{} (kernel {}): delete with {holder}: {took:?} (baseline {baseline:?})",
        d.name,
        crate::common::kernel()
    );
    took
}

/// The links of driver `kind` (`siw`, `rxe`) the rig made (name, netdev), as `rdma link
/// show` lists them (`link siw0/1 ... netdev siwnet0`).
pub fn links_of(kind: &str) -> Vec<(String, String)> {
    let (st, out) = run(&["rdma", "link", "show"], Duration::from_secs(30));
    assert_eq!(st, 0, "rdma link show: {out}");
    let mut links: Vec<(String, String)> = out
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let dev = w.get(1)?.split('/').next()?;
            let netdev = w
                .iter()
                .position(|x| *x == "netdev")
                .and_then(|i| w.get(i + 1))?;
            dev.starts_with(kind)
                .then(|| (dev.to_string(), netdev.to_string()))
        })
        .collect();
    links.dedup();
    links
}

/// The siw links (name, netdev).
pub fn siw_links() -> Vec<(String, String)> {
    links_of("siw")
}

/// A module of tests/vm/planted/ built for the running kernel (tests/vm/run-tests.sh
/// puts them in the guest and names the folder in UVERBS_PLANTED).
pub fn planted(name: &str) -> PathBuf {
    let dir = std::env::var("UVERBS_PLANTED").expect("UVERBS_PLANTED (tests/vm/run-tests.sh)");
    let ko = Path::new(&dir).join(format!("{name}.ko"));
    assert!(ko.exists(), "{} is missing", ko.display());
    ko
}

/// A driver (siw, rxe) replaced by a planted build, or unloaded: its links deleted, the
/// module removed (and, for a planted build, loaded from that file with the same links
/// added again on the same netdevs: the same device names, and for rxe the same GID 1).
/// The stock module and its links are put back when this is dropped, whatever happened
/// meanwhile.
pub struct PlantedModule {
    /// `siw` or `rxe` (the link type and the names' prefix).
    kind: &'static str,
    /// The module: `siw` or `rdma_rxe`.
    module: &'static str,
    pub links: Vec<(String, String)>,
    /// Each link's GID 1 before (rxe's IPv4 GID, which later tests use).
    gids: Vec<String>,
}

/// The compatible name of the siw case.
pub type PlantedSiw = PlantedModule;

impl PlantedModule {
    /// siw's links deleted and the module removed.
    pub fn unloaded() -> PlantedModule {
        PlantedModule::unload("siw")
    }

    /// The links of `kind` deleted and its module removed.
    pub fn unload(kind: &'static str) -> PlantedModule {
        let module = if kind == "rxe" { "rdma_rxe" } else { "siw" };
        let links = links_of(kind);
        assert!(!links.is_empty(), "no {kind} link to swap the module under");
        let gids = links
            .iter()
            .map(|(n, _)| {
                std::fs::read_to_string(format!("/sys/class/infiniband/{n}/ports/1/gids/1"))
                    .unwrap_or_default()
            })
            .collect();
        let p = PlantedModule {
            kind,
            module,
            links,
            gids,
        };
        p.remove();
        p
    }

    /// The driver's links on the module built at `ko` (tests/vm/planted/KIND-*.sed).
    pub fn load(ko: &Path) -> PlantedModule {
        let name = ko.file_name().unwrap().to_string_lossy();
        let kind = if name.starts_with("rxe-") {
            "rxe"
        } else {
            "siw"
        };
        let p = PlantedModule::unload(kind);
        p.reload(&["insmod", ko.to_str().unwrap()]);
        p
    }

    /// Deletes whatever links of the driver exist and removes the module if it is loaded.
    fn remove(&self) {
        let t = Duration::from_secs(60);
        for (name, _) in links_of(self.kind) {
            let (st, out) = run(&["rdma", "link", "delete", &name], t);
            assert_eq!(st, 0, "rdma link delete {name}: {out}");
        }
        if Path::new("/sys/module").join(self.module).exists() {
            let (st, out) = run(&["rmmod", self.module], t);
            assert_eq!(st, 0, "rmmod {}: {out}", self.module);
        }
    }

    fn reload(&self, load: &[&str]) {
        let (st, out) = run(load, Duration::from_secs(60));
        assert_eq!(st, 0, "{load:?}: {out}");
        for ((name, netdev), gid) in self.links.iter().zip(&self.gids) {
            add_link("rdma", self.kind, name, netdev);
            let path = format!("/sys/class/infiniband/{name}/ports/1/gids/1");
            let back = wait_until(Duration::from_secs(30), || {
                &std::fs::read_to_string(&path).unwrap_or_default() == gid
            });
            assert!(back, "{name}: GID 1 not back to {gid}");
        }
    }
}

impl Drop for PlantedModule {
    fn drop(&mut self) {
        self.remove();
        self.reload(&["modprobe", self.module]);
    }
}
