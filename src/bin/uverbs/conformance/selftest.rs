//! `uverbs selftest`: the conformance cases of `uverbs::selftest` on every device,
//! as KTAP (or JSON), with baselines, per-case timeouts and kselftest's exit statuses.
//!
//! Each device's cases run in a child process (this same program, `selftest --child
//! DEV`), which reports them on a pipe, one line each: `plan N`, then per case `case
//! NAME`, its `diag` and `fact` lines and its `result`. A thread stuck in a system call
//! cannot be abandoned, a process can: when a case gives no result within the timeout,
//! the child is killed, the case is `not ok # TIMEOUT` and the device's other cases are
//! skipped, saying why. The child checks the kernel's health after every case (the
//! device's resources back where they were, nothing in the kernel log).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use uverbs::netlink::link::LinkType;
use uverbs::netlink::NlSocket;
use uverbs::selftest::health::{KernelLog, Resources};
use uverbs::selftest::modules::ModuleTree;
use uverbs::selftest::testbed::Testbed;
use uverbs::selftest::{self, compare_facts, Env, Status};
use uverbs::verbs::discover::{DeviceInfo, Discovery};

use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::io::Io;
use crate::plumbing::json::J;
use crate::plumbing::ktap;
use crate::plumbing::pipe::{Lines, Next};

const HELP: &str = "\
Usage: uverbs selftest [-d DEV]... [--create rxe,siw [--netdev IF]] [--modules DIR]
                       [--list] [--filter GLOB] [--timeout S] [--json]
                       [--record FILE | --baseline FILE] [--bisect]

Conformance cases of the kernel's uverbs interface on each RDMA device, as KTAP version
1 (one subtest block per device) with kselftest's totals line and exit statuses:
QUERY_DEVICE, QUERY_PORT (by ioctl and by write()), the GID and P_Key tables, each
against sysfs and RDMA netlink and the invariants the uapi promises; every object's life
through each interface, and the error paths. After each case the device's resources
must be back where they were (RDMA netlink) and the kernel log must hold no warning,
BUG, sanitizer or lockdep report (/dev/kmsg, root only). Each device runs in a child
process: a case that hangs is killed after the timeout.

  -d, --ib-dev=DEV     only device DEV (repeatable; default every device)
      --create=KINDS   make the devices to test, and remove them at the end: a link
                       of each kind (rxe, siw; comma-separated) named uvst_rxe,
                       uvst_siw, over --netdev or each over a dummy interface made
                       for it (uvst0, uvst1; siw's gets 169.254.250.1/24 for its
                       data cases' RDMA CM), which port.N.events sets down and up
                       (needs CAP_NET_ADMIN); only these devices (and -d's) are
                       tested
      --netdev=IF      the network interface for --create's links (it is never set
                       down: port.N.events skips)
      --modules=DIR    where there is no modprobe: load the kernel modules the run
                       needs (ib_uverbs; for --create rdma_rxe, siw, the CRC modules
                       they use, rdma_ucm for siw and dummy) and their dependencies from the modules
                       tree DIR (/lib/modules/RELEASE, with depmod's modules.dep;
                       needs CAP_SYS_MODULE); they stay loaded
      --list           print the cases (DEVICE CASE), run nothing
      --filter=GLOB    only the cases whose name matches (* and ?)
      --timeout=S      seconds a case may take (default 60)
      --json           one JSON document instead of KTAP
      --record=FILE    write what this kernel answered (every case's facts and outcome)
      --baseline=FILE  compare with a recorded run: a changed answer, or a case that
                       passed there and fails or skips here, is not ok
      --bisect         exit 125 (git bisect's skip) when nothing could be tested
  -h, --help           this text

Exit status: 0 every case passed or skipped, 1 a case failed, 4 every case skipped
(kselftest's statuses), 2 usage error; with --bisect 125 when no device could be tested.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("list", false, b'l'),
    opt("filter", true, b'f'),
    opt("timeout", true, b't'),
    opt("json", false, b'j'),
    opt("record", true, b'r'),
    opt("baseline", true, b'b'),
    opt("bisect", false, b'B'),
    opt("child", true, b'C'),
    opt("create", true, b'c'),
    opt("netdev", true, b'n'),
    opt("own-netdev", true, b'O'),
    opt("modules", true, b'm'),
    opt("help", false, b'h'),
];

/// kselftest's exit statuses.
const KSFT_PASS: i32 = 0;
const KSFT_FAIL: i32 = 1;
const KSFT_SKIP: i32 = 4;
/// git bisect run's "cannot test this commit".
const BISECT_SKIP: i32 = 125;

struct Opts {
    devices: Vec<String>,
    list: bool,
    filter: Option<String>,
    timeout: Duration,
    json: bool,
    record: Option<String>,
    baseline: Option<String>,
    bisect: bool,
    child: Option<String>,
    /// `--create`'s kinds.
    create: Vec<LinkType>,
    /// `--netdev`.
    netdev: Option<String>,
    /// `--modules`.
    modules: Option<String>,
    /// What the cases may change (the child's `--own-netdev`, the parent's test bed).
    env: Env,
    /// The baseline read from `baseline`.
    baseline_record: Option<Record>,
}

/// Whether `name` matches `glob` (`*` any run, `?` one character).
pub fn glob(glob: &str, name: &str) -> bool {
    fn m(g: &[char], n: &[char]) -> bool {
        match (g.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => m(&g[1..], n) || (!n.is_empty() && m(g, &n[1..])),
            (Some('?'), Some(_)) => m(&g[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => m(&g[1..], &n[1..]),
            _ => false,
        }
    }
    let g: Vec<char> = glob.chars().collect();
    let n: Vec<char> = name.chars().collect();
    m(&g, &n)
}

/// One field of a protocol line: no tabs or line breaks.
fn field(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
        .collect()
}

// ------------------------------------------------------------------ the child

/// `selftest --child DEV`: runs the device's cases, reporting on stdout.
fn child(io: &mut Io, dev: &str, filter: Option<&str>, env: &Env) -> i32 {
    let mut say = |line: String| {
        io.out(line);
        io.out("\n");
        io.flush();
    };
    let info = match Discovery::new().device(dev) {
        Ok(i) => i,
        Err(e) => {
            say(format!("error\t{}", field(&e.to_string())));
            return 1;
        }
    };
    let cases: Vec<_> = selftest::cases(&info)
        .into_iter()
        .filter(|c| filter.map_or(true, |g| glob(g, &c.name)))
        .collect();
    say(format!("plan\t{}", cases.len()));
    let mut log = KernelLog::open();
    if let Err(e) = &log {
        say(format!(
            "note\tthe kernel log is not checked: {}",
            field(&e.to_string())
        ));
    }
    let mut sock = NlSocket::open().ok();
    let snapshot = |sock: &mut Option<NlSocket>| -> Result<Resources, String> {
        let s = sock.as_mut().ok_or("no RDMA netlink socket")?;
        let i = info.index.ok_or("the device has no netlink index")?;
        Resources::of(s, i).map_err(|e| e.to_string())
    };
    match snapshot(&mut sock) {
        Ok(r) => say(format!(
            "note\tresources at the start: {}",
            field(&format!("{:?}", r.0))
        )),
        Err(e) => say(format!(
            "note\tthe resources are not checked: {}",
            field(&e)
        )),
    }
    if let Ok(l) = log.as_mut() {
        // what was logged before the first case is not this run's
        let _ = l.reports();
    }
    for c in &cases {
        say(format!("case\t{}\t{}", field(&c.name), field(c.methods)));
        let before = snapshot(&mut sock).ok();
        let mut o = c.run_in(&info, env);
        if let (Some(b), Ok(a)) = (&before, snapshot(&mut sock)) {
            let leaked = a.changed_since(b);
            if !leaked.is_empty() {
                o.diag.push(format!(
                    "resources not back where they were (RDMA netlink): {}",
                    leaked.join(", ")
                ));
                o.set_failed();
            }
        }
        if let Ok(l) = log.as_mut() {
            let reports = l.reports();
            if !reports.is_empty() {
                o.diag
                    .push("the kernel logged a report during this case:".into());
                o.diag.extend(reports.iter().map(|r| format!("  {r}")));
                o.set_failed();
            }
        }
        for d in &o.diag {
            say(format!("diag\t{}", field(d)));
        }
        for (k, v) in o.facts.iter().filter(|(k, _)| !selftest::volatile(k)) {
            say(format!("fact\t{}\t{}", field(k), field(v)));
        }
        say(match o.status() {
            Status::Pass => "result\tpass".into(),
            Status::Fail => "result\tfail".into(),
            Status::Skip(why) => format!("result\tskip\t{}", field(&why)),
            Status::XFail(why) => format!("result\txfail\t{}", field(&why)),
        });
    }
    0
}

// ------------------------------------------------------------------ the parent

/// How a case ended, as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    Pass,
    Fail,
    Skip(String),
    XFail(String),
    Timeout,
    Error(String),
}

impl End {
    fn word(&self) -> &'static str {
        match self {
            End::Pass => "pass",
            End::Fail => "fail",
            End::Skip(_) => "skip",
            End::XFail(_) => "xfail",
            End::Timeout => "timeout",
            End::Error(_) => "error",
        }
    }
}

#[derive(Debug, Clone)]
struct CaseResult {
    name: String,
    end: End,
    diag: Vec<String>,
    facts: Vec<(String, String)>,
}

/// What a recorded run said: per device and case, the outcome word and the facts.
type Record = BTreeMap<(String, String), (String, Vec<(String, String)>)>;

fn read_record(text: &str) -> Result<Record, String> {
    let mut r = Record::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            [dev, case, "outcome", word] => {
                r.entry((dev.to_string(), case.to_string()))
                    .or_insert_with(|| (String::new(), Vec::new()))
                    .0 = word.to_string();
            }
            [dev, case, "fact", k, v] => r
                .entry((dev.to_string(), case.to_string()))
                .or_insert_with(|| (String::new(), Vec::new()))
                .1
                .push((k.to_string(), v.to_string())),
            _ => return Err(format!("line {}: not a record line: {line:?}", n + 1)),
        }
    }
    Ok(r)
}

fn write_record(devs: &[(String, Vec<CaseResult>)]) -> String {
    let mut s = String::from(
        "# uverbs selftest --record: DEVICE<TAB>CASE<TAB>outcome<TAB>WORD, and \
         DEVICE<TAB>CASE<TAB>fact<TAB>KEY<TAB>VALUE (what varies from boot to boot left out)\n",
    );
    for (dev, cases) in devs {
        for c in cases {
            s.push_str(&format!("{dev}\t{}\toutcome\t{}\n", c.name, c.end.word()));
            for (k, v) in &c.facts {
                s.push_str(&format!("{dev}\t{}\tfact\t{k}\t{v}\n", c.name));
            }
        }
    }
    s
}

/// Applies the baseline to one case: a changed fact, or a case that passed there and
/// does not pass here, fails it, with the old and new answers as diagnostics.
fn against_baseline(dev: &str, c: &mut CaseResult, base: &Record) {
    let Some((word, facts)) = base.get(&(dev.to_string(), c.name.clone())) else {
        c.diag
            .push("baseline: this case is not in the baseline".to_string());
        return;
    };
    let diffs = compare_facts(facts, &c.facts);
    let was_pass = word == "pass";
    let regressed = was_pass && c.end != End::Pass;
    if regressed {
        c.diag
            .push(format!("baseline: passed there, {} now", c.end.word()));
    }
    for d in &diffs {
        c.diag.push(format!("baseline: {d}"));
    }
    if regressed || (!diffs.is_empty() && c.end == End::Pass) {
        // A skip that was a pass is a failure here: the capability disappeared.
        c.end = End::Fail;
    }
}

/// Runs one device's child and reads its report; the cases it did not get to, after a
/// timeout or a crash, are skipped with the reason.
#[inline(never)]
fn run_device(
    exe: &std::path::Path,
    dev: &str,
    o: &Opts,
    mut on_case: impl FnMut(usize, usize, &CaseResult),
) -> (Vec<CaseResult>, Vec<String>) {
    let mut notes = Vec::new();
    // The cases the child will run, as the listing gives them: the plan, and the names
    // of those it never got to if it hangs or dies.
    let expected: Vec<String> = Discovery::new()
        .device(dev)
        .map(|i| {
            selftest::cases(&i)
                .into_iter()
                .map(|c| c.name)
                .filter(|n| o.filter.as_deref().map_or(true, |g| glob(g, n)))
                .collect()
        })
        .unwrap_or_default();
    let plan = expected.len();
    let mut cmd = Command::new(exe);
    cmd.arg("selftest").arg("--child").arg(dev);
    if let Some(f) = &o.filter {
        cmd.arg("--filter").arg(f);
    }
    for n in &o.env.own_netdevs {
        cmd.arg("--own-netdev").arg(n);
    }
    let spawned = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child: Child = match spawned {
        Ok(c) => c,
        Err(e) => {
            notes.push(format!("cannot start {}: {e}", exe.display()));
            return (Vec::new(), notes);
        }
    };
    let stdout = child.stdout.take().expect("piped");
    let mut lines = Lines::default();
    let mut results: Vec<CaseResult> = Vec::new();
    let mut current: Option<CaseResult> = None;
    let mut names: Vec<String> = Vec::new();
    let mut stop: Option<String> = None;
    loop {
        // The plan and each case's lines must come within the timeout.
        let line = match lines.next(&stdout, o.timeout) {
            Next::Line(l) => l,
            Next::Timeout => {
                let _ = child.kill();
                let secs = o.timeout.as_secs();
                let mut c = current.take().unwrap_or_else(|| {
                    // between two cases (or before the first): the next one is late
                    let next = expected
                        .iter()
                        .find(|n| !results.iter().any(|r| &r.name == *n))
                        .cloned()
                        .unwrap_or_else(|| "the child's start".into());
                    CaseResult {
                        name: next,
                        end: End::Timeout,
                        diag: vec!["the child did not start this case".into()],
                        facts: Vec::new(),
                    }
                });
                c.end = End::Timeout;
                c.diag.push(format!("no result after {secs} seconds"));
                stop = Some(format!("not run: {} timed out", c.name));
                on_case(results.len() + 1, plan, &c);
                results.push(c);
                break;
            }
            Next::End => {
                if let Some(mut c) = current.take() {
                    c.end = End::Error("the child process ended during the case".into());
                    stop = Some(format!("not run: the child ended during {}", c.name));
                    on_case(results.len() + 1, plan, &c);
                    results.push(c);
                } else if results.len() < plan {
                    stop = Some("not run: the child ended".into());
                }
                break;
            }
        };
        let f: Vec<&str> = line.splitn(3, '\t').collect();
        match f.as_slice() {
            ["plan", n] => {
                if n.parse() != Ok(plan) {
                    notes.push(format!("the child plans {n} cases, the listing {plan}"));
                }
            }
            ["note", t] => notes.push(t.to_string()),
            ["error", t] => notes.push(t.to_string()),
            ["case", name, methods] => {
                names.push(name.to_string());
                current = Some(CaseResult {
                    name: name.to_string(),
                    end: End::Pass,
                    diag: vec![format!("{name}: {methods}")],
                    facts: Vec::new(),
                });
            }
            ["diag", t] => {
                if let Some(c) = current.as_mut() {
                    c.diag.push(t.to_string());
                }
            }
            ["fact", k, v] => {
                if let Some(c) = current.as_mut() {
                    c.facts.push((k.to_string(), v.to_string()));
                }
            }
            ["result", word, rest @ ..] => {
                if let Some(mut c) = current.take() {
                    c.end = match *word {
                        "pass" => End::Pass,
                        "fail" => End::Fail,
                        "xfail" => {
                            End::XFail(rest.first().map_or(String::new(), |r| r.to_string()))
                        }
                        _ => End::Skip(rest.first().map_or(String::new(), |r| r.to_string())),
                    };
                    if let Some(base) = &o.baseline_record {
                        against_baseline(dev, &mut c, base);
                    }
                    on_case(results.len() + 1, plan, &c);
                    results.push(c);
                }
            }
            ["result", ..] | ["case", ..] | ["fact", ..] => {}
            _ => notes.push(format!("unreadable line from the child: {line:?}")),
        }
    }
    drop(stdout);
    let _ = child.wait();
    if let Some(why) = stop {
        // the cases the child never got to
        for n in &expected {
            if !results.iter().any(|r| &r.name == n) {
                let c = CaseResult {
                    name: n.clone(),
                    end: End::Skip(why.clone()),
                    diag: Vec::new(),
                    facts: Vec::new(),
                };
                on_case(results.len() + 1, plan, &c);
                results.push(c);
            }
        }
        notes.push(why);
    }
    (results, notes)
}

/// The counts of kselftest's totals line.
#[derive(Default)]
struct Totals {
    pass: usize,
    fail: usize,
    xfail: usize,
    skip: usize,
    error: usize,
}

impl Totals {
    fn add(&mut self, e: &End) {
        match e {
            End::Pass => self.pass += 1,
            End::Fail | End::Timeout => self.fail += 1,
            End::Skip(_) => self.skip += 1,
            End::XFail(_) => self.xfail += 1,
            End::Error(_) => self.error += 1,
        }
    }
}

fn case_line(n: usize, c: &CaseResult) -> String {
    match &c.end {
        End::Pass => ktap::result(true, n, &c.name, None),
        End::Fail => ktap::result(false, n, &c.name, None),
        End::Skip(why) => ktap::result(true, n, &c.name, Some(("SKIP", why))),
        End::XFail(why) => ktap::result(true, n, &c.name, Some(("XFAIL", why))),
        End::Timeout => ktap::result(false, n, &c.name, Some(("TIMEOUT", ""))),
        End::Error(why) => ktap::result(false, n, &c.name, Some(("ERROR", why))),
    }
}

fn json(devs: &[(String, Vec<CaseResult>, Vec<String>)], t: &Totals) -> J {
    let dev = |(name, cases, notes): &(String, Vec<CaseResult>, Vec<String>)| {
        J::Obj(vec![
            ("name", J::s(name.clone())),
            (
                "notes",
                J::Arr(notes.iter().map(|n| J::s(n.clone())).collect()),
            ),
            (
                "cases",
                J::Arr(
                    cases
                        .iter()
                        .map(|c| {
                            J::Obj(vec![
                                ("name", J::s(c.name.clone())),
                                ("result", J::s(c.end.word())),
                                (
                                    "reason",
                                    match &c.end {
                                        End::Skip(w) | End::XFail(w) | End::Error(w) => {
                                            J::s(w.clone())
                                        }
                                        _ => J::Null,
                                    },
                                ),
                                (
                                    "diagnostics",
                                    J::Arr(c.diag.iter().map(|d| J::s(d.clone())).collect()),
                                ),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    };
    J::Obj(vec![
        ("schema_version", J::u(1u32)),
        ("devices", J::Arr(devs.iter().map(dev).collect())),
        (
            "totals",
            J::Obj(vec![
                ("pass", J::u(t.pass as u64)),
                ("fail", J::u(t.fail as u64)),
                ("xfail", J::u(t.xfail as u64)),
                ("skip", J::u(t.skip as u64)),
                ("error", J::u(t.error as u64)),
            ]),
        ),
    ])
}

/// `uverbs selftest ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut o = Opts {
        devices: Vec::new(),
        list: false,
        filter: None,
        timeout: Duration::from_secs(60),
        json: false,
        record: None,
        baseline: None,
        bisect: false,
        child: None,
        create: Vec::new(),
        netdev: None,
        modules: None,
        env: Env::default(),
        baseline_record: None,
    };
    let text = |v: Vec<u8>| String::from_utf8_lossy(&v).into_owned();
    let parsed = io.options("selftest", HELP, args, "d:h", LONGS, |c, arg| {
        match (c, arg) {
            (b'd', Some(v)) => o.devices.push(text(v)),
            (b'l', _) => o.list = true,
            (b'f', Some(v)) => o.filter = Some(text(v)),
            (b't', Some(v)) => match text(v).parse::<u64>() {
                Ok(s) if s > 0 => o.timeout = Duration::from_secs(s),
                _ => return Err("--timeout takes a number of seconds above 0".into()),
            },
            (b'j', _) => o.json = true,
            (b'r', Some(v)) => o.record = Some(text(v)),
            (b'b', Some(v)) => o.baseline = Some(text(v)),
            (b'B', _) => o.bisect = true,
            (b'C', Some(v)) => o.child = Some(text(v)),
            (b'c', Some(v)) => {
                for k in text(v).split(',') {
                    let kind = match k.trim() {
                        "rxe" => LinkType::Rxe,
                        "siw" => LinkType::Siw,
                        other => return Err(format!("--create takes rxe and siw, not {other:?}")),
                    };
                    if !o.create.contains(&kind) {
                        o.create.push(kind);
                    }
                }
            }
            (b'n', Some(v)) => o.netdev = Some(text(v)),
            (b'm', Some(v)) => o.modules = Some(text(v)),
            (b'O', Some(v)) => o.env.own_netdevs.push(text(v)),
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    if let Some(dev) = &o.child {
        io.flush();
        return child(io, dev, o.filter.as_deref(), &o.env);
    }
    if o.record.is_some() && o.baseline.is_some() {
        return io.usage_error("selftest", "--record and --baseline exclude each other");
    }
    if let Some(path) = o.baseline.clone() {
        match std::fs::read_to_string(&path) // the user's file
            .map_err(|e| e.to_string())
            .and_then(|t| read_record(&t))
        {
            Ok(r) => o.baseline_record = Some(r),
            Err(e) => {
                io.err_line(&format!("uverbs selftest: baseline {path}: {e}"));
                return 2;
            }
        }
    }
    if o.netdev.is_some() && o.create.is_empty() {
        return io.usage_error("selftest", "--netdev goes with --create");
    }
    if let Some(dir) = &o.modules {
        if let Err(e) = load_modules(io, Path::new(dir), &o) {
            return could_not(io, &o, &format!("--modules: {e}"));
        }
    }
    // The devices made for this run: removed when it ends, whatever its verdict.
    let bed = if o.create.is_empty() {
        None
    } else {
        match Testbed::make(&o.create, o.netdev.as_deref()) {
            Ok(b) => {
                o.env = b.env();
                o.devices.extend(b.devices().iter().cloned());
                Some(b)
            }
            Err(e) => {
                // RDMA netlink answers EINVAL for a link type no loaded driver has.
                let hint = if e.errno() == Some(rustix::io::Errno::INVAL) && o.modules.is_none() {
                    " (is the driver loaded? where there is no modprobe, --modules DIR loads it)"
                } else {
                    ""
                };
                return could_not(io, &o, &format!("--create: {e}{hint}"));
            }
        }
    };
    run(io, &o, bed)
}

/// Removes what `--create` made and says whether that went well: every link and the
/// dummy deleted, and no kernel report while they went (a driver that lost track of an
/// object warns as its device is freed). The problems found, one line each.
fn remove_bed(bed: Testbed) -> Vec<String> {
    let mut log = KernelLog::open().ok();
    let mut problems: Vec<String> = bed
        .remove()
        .iter()
        .map(|e| format!("not removed: {e}"))
        .collect();
    if let Some(log) = &mut log {
        problems.extend(log.reports().into_iter().map(|r| format!("kernel: {r}")));
    }
    problems
}

/// `--modules DIR`: ib_uverbs, and for `--create` each kind's driver and (without
/// `--netdev`) dummy, with no stray `dummy0`; what was loaded is said on stderr.
fn load_modules(io: &mut Io, dir: &Path, o: &Opts) -> uverbs::Result<()> {
    let tree = ModuleTree::open(dir)?;
    let mut want = vec![("ib_uverbs", "")];
    for kind in &o.create {
        // The CRC each driver asks the crypto API for when it starts (siw's CRC32C
        // through libcrc32c, rxe's CRC32): the kernel would request_module them, and
        // modules.dep cannot say so. Loaded when the tree has them as modules.
        want.extend(match kind {
            LinkType::Rxe => [("crc32_generic", ""), ("rdma_rxe", "")],
            LinkType::Siw => [("crc32c_generic", ""), ("siw", "")],
        });
        // siw's data cases connect through the RDMA CM's file.
        if *kind == LinkType::Siw {
            want.push(("rdma_ucm", ""));
        }
    }
    if !o.create.is_empty() && o.netdev.is_none() {
        want.push(("dummy", "numdummies=0"));
    }
    let mut loaded = Vec::new();
    for (name, params) in want {
        if name.starts_with("crc32") && !tree.has(name) {
            continue;
        }
        loaded.extend(tree.load(name, params)?);
    }
    if !loaded.is_empty() {
        io.err_line(&format!(
            "uverbs selftest: --modules: loaded {} from {}",
            loaded.join(", "),
            dir.display()
        ));
    }
    Ok(())
}

/// Nothing could be tested, for `why`: KTAP's skipped plan (or an empty JSON
/// document) and kselftest's skip status; with `--bisect`, git bisect's skip.
fn could_not(io: &mut Io, o: &Opts, why: &str) -> i32 {
    if o.bisect {
        io.err_line(&format!("uverbs selftest: could not test: {why}"));
        BISECT_SKIP
    } else {
        if o.json {
            io.out(json(&[], &Totals::default()).pretty());
        } else {
            io.out(format!("KTAP version 1\n1..0 # SKIP {}\n", ktap::diag(why)));
        }
        KSFT_SKIP
    }
}

/// Runs the cases of the chosen devices and reports them; with `--create`, the removal
/// of what it made is one more result, `testbed.remove`, after the devices.
fn run(io: &mut Io, o: &Opts, bed: Option<Testbed>) -> i32 {
    let all = match Discovery::new().devices() {
        Ok(v) => v,
        Err(e) => return could_not(io, o, &format!("no RDMA device: {e}")),
    };
    let mut infos: Vec<DeviceInfo> = Vec::new();
    if o.devices.is_empty() {
        infos = all;
    } else {
        for d in &o.devices {
            match all.iter().find(|i| &i.name == d) {
                Some(i) => infos.push(i.clone()),
                None => return could_not(io, o, &format!("no RDMA device {d}")),
            }
        }
    }
    if infos.is_empty() {
        return could_not(io, o, "no RDMA device");
    }
    if o.list {
        for i in &infos {
            for c in selftest::cases(i) {
                if o.filter.as_deref().map_or(true, |g| glob(g, &c.name)) {
                    io.out(format!("{} {}\n", i.name, c.name));
                }
            }
        }
        return KSFT_PASS;
    }
    let exe = std::env::current_exe()
        .ok()
        .or_else(|| std::env::args_os().next().map(Into::into))
        .unwrap_or_else(|| "uverbs".into());
    let mut totals = Totals::default();
    let mut done: Vec<(String, Vec<CaseResult>, Vec<String>)> = Vec::new();
    if !o.json {
        let plan = infos.len() + usize::from(bed.is_some());
        io.out(format!("KTAP version 1\n1..{plan}\n"));
        io.flush();
    }
    for (n, info) in infos.iter().enumerate() {
        let mut header = false;
        let (results, notes) = run_device(&exe, &info.name, o, |k, plan, c| {
            if o.json {
                return;
            }
            if !header {
                io.out(format!(
                    "  KTAP version 1\n  # Subtest: {}\n  1..{plan}\n",
                    ktap::name(&info.name)
                ));
                header = true;
            }
            for d in &c.diag {
                io.out(format!("  # {}\n", ktap::diag(d)));
            }
            io.out(format!("  {}\n", case_line(k, c)));
            io.flush();
        });
        for r in &results {
            totals.add(&r.end);
        }
        if !o.json {
            if !header {
                io.out(format!(
                    "  KTAP version 1\n  # Subtest: {}\n  1..{}\n",
                    ktap::name(&info.name),
                    results.len()
                ));
            }
            for note in &notes {
                io.out(format!("  # {}\n", ktap::diag(note)));
            }
            let failed = results
                .iter()
                .any(|r| matches!(r.end, End::Fail | End::Timeout | End::Error(_)));
            let all_skipped =
                !results.is_empty() && results.iter().all(|r| matches!(r.end, End::Skip(_)));
            let line = if results.is_empty() {
                ktap::result(false, n + 1, &info.name, Some(("ERROR", "no case ran")))
            } else if failed {
                ktap::result(false, n + 1, &info.name, None)
            } else if all_skipped {
                ktap::result(
                    true,
                    n + 1,
                    &info.name,
                    Some(("SKIP", "every case skipped")),
                )
            } else {
                ktap::result(true, n + 1, &info.name, None)
            };
            io.out(format!("{line}\n"));
            io.flush();
        }
        done.push((info.name.clone(), results, notes));
    }
    if let Some(bed) = bed {
        let problems = remove_bed(bed);
        let end = if problems.is_empty() {
            End::Pass
        } else {
            End::Fail
        };
        totals.add(&end);
        for p in &problems {
            if o.json {
                io.err_line(&format!("uverbs selftest: --create: {p}"));
            } else {
                io.out(format!("# {}\n", ktap::diag(p)));
            }
        }
        if !o.json {
            let line = ktap::result(problems.is_empty(), infos.len() + 1, "testbed.remove", None);
            io.out(format!("{line}\n"));
        }
    }
    if o.json {
        io.out(json(&done, &totals).pretty());
    } else {
        io.out(format!(
            "# Totals: pass:{} fail:{} xfail:{} xpass:0 skip:{} error:{}\n",
            totals.pass, totals.fail, totals.xfail, totals.skip, totals.error
        ));
    }
    if let Some(path) = &o.record {
        let rec: Vec<(String, Vec<CaseResult>)> = done
            .iter()
            .map(|(d, r, _)| (d.clone(), r.clone()))
            .collect();
        if let Err(e) = std::fs::write(path, write_record(&rec)) {
            io.err_line(&format!("uverbs selftest: --record {path}: {e}"));
            return KSFT_FAIL;
        }
    }
    if totals.fail + totals.error > 0 {
        KSFT_FAIL
    } else if totals.pass + totals.xfail == 0 {
        if o.bisect {
            BISECT_SKIP
        } else {
            KSFT_SKIP
        }
    } else {
        KSFT_PASS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("port.*.query", "port.1.query"));
        assert!(glob("*", "anything"));
        assert!(glob("probe.?ifecycle.*", "probe.lifecycle.ioctl"));
        assert!(!glob("port.*.query", "port.1.query_paths"));
        assert!(!glob("device", "device.query"));
    }

    #[test]
    fn records_round_trip_and_baselines_flag_changes() {
        let c = |name: &str, end: End, facts: &[(&str, &str)]| CaseResult {
            name: name.into(),
            end,
            diag: Vec::new(),
            facts: facts
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let then = vec![(
            "rxe0".to_string(),
            vec![
                c("device.query", End::Pass, &[("device.max_qp", "10")]),
                c("probe.error_paths", End::Pass, &[]),
            ],
        )];
        let rec = read_record(&write_record(&then)).unwrap();
        let mut same = c("device.query", End::Pass, &[("device.max_qp", "10")]);
        against_baseline("rxe0", &mut same, &rec);
        assert_eq!(same.end, End::Pass, "{:?}", same.diag);
        let mut changed = c("device.query", End::Pass, &[("device.max_qp", "11")]);
        against_baseline("rxe0", &mut changed, &rec);
        assert_eq!(changed.end, End::Fail);
        assert!(changed
            .diag
            .iter()
            .any(|d| d.contains("baseline 10, now 11")));
        let mut skipped = c("probe.error_paths", End::Skip("no udata".into()), &[]);
        against_baseline("rxe0", &mut skipped, &rec);
        assert_eq!(skipped.end, End::Fail, "a capability that disappeared");
        assert!(read_record("rxe0\tx\tnonsense\n").is_err());
    }
}
