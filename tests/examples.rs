//! The examples a user would copy (`examples/`), run in the VM against the rdma-core
//! program each one talks to (issue 27): `rc_pingpong` against `ibv_rc_pingpong` on
//! rxe0, each of them the server in turn, with `-c` (the server checks the pages the
//! client marked, after the buffer went back and forth); the output has
//! `ibv_rc_pingpong`'s shape line for line.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::scratch::wait_listening;

fn example(name: &str) -> PathBuf {
    let dir = std::env::var_os("UVERBS_EXAMPLES")
        .map(PathBuf::from)
        .expect("UVERBS_EXAMPLES names the examples (the VM rig sets it)");
    let p = dir.join(name);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// The lines of a ping-pong's output with the numbers masked (addresses, PSNs, times
/// and rates differ from run to run and program to program).
fn shape(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            l.split(' ')
                .map(|w| {
                    if w.chars().any(|c| c.is_ascii_digit()) {
                        "#"
                    } else {
                        w
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn output(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `ours` against rdma-core's `theirs` on rxe0, each the server in turn, with `-c` (the
/// server checks the pages the client marked), `iters` messages of `size` bytes: both
/// succeed, the server's check passes, and both print the same lines.
fn pingpong_both_ways(ours: &str, theirs: &str, size: usize, first_port: u16) {
    let dev = common::device("rxe");
    let ours = example(ours);
    let iters = 50;
    let args = |port: u16| {
        vec![
            "-d".to_string(),
            dev.clone(),
            "-g".into(),
            "1".into(),
            "-c".into(),
            "-n".into(),
            iters.to_string(),
            "-s".into(),
            size.to_string(),
            "-p".into(),
            port.to_string(),
        ]
    };
    for (port, server_is_ours) in [(first_port, true), (first_port + 1, false)] {
        let (server, client) = if server_is_ours {
            (ours.clone(), PathBuf::from(theirs))
        } else {
            (PathBuf::from(theirs), ours.clone())
        };
        let s = Command::new(&server)
            .args(args(port))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_listening(port, Duration::from_secs(30), "the ping-pong server");
        let c = Command::new(&client)
            .args(args(port))
            .arg("127.0.0.1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let s = s.wait_with_output().unwrap();
        let (so, co) = (output(&s), output(&c));
        let who = format!("{} server, {} client", server.display(), client.display());
        assert!(
            s.status.success() && c.status.success(),
            "{who}\nserver:\n{so}\nclient:\n{co}"
        );
        // The server checked the pages the client marked; the run moved every byte.
        assert!(!so.contains("invalid data"), "{who}: {so}");
        for out in [&so, &co] {
            assert!(
                out.contains(&format!("{} bytes in ", size * iters * 2)),
                "{who}: {out}"
            );
            assert!(out.contains(&format!("{iters} iters in ")), "{who}: {out}");
        }
        // Both programs print the same lines.
        assert_eq!(
            shape(&so),
            shape(&co),
            "{who}\nserver:\n{so}\nclient:\n{co}"
        );
        println!("{who}:\n{co}");
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn rc_pingpong_talks_to_ibv_rc_pingpong_both_ways() {
    pingpong_both_ways("rc_pingpong", "ibv_rc_pingpong", 8192, 18601);
}

/// UD: the message fits the port's MTU (1024 on the rig's dummy netdevs).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn ud_pingpong_talks_to_ibv_ud_pingpong_both_ways() {
    pingpong_both_ways("ud_pingpong", "ibv_ud_pingpong", 1024, 18611);
}

/// `select_gid` chooses what `uverbs gids --select roce-v2 --ipv4` chooses: rxe0's
/// IPv4 GID (the rig gives rxe<i> 169.254.<1+i>.1).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn select_gid_agrees_with_uverbs_gids() {
    let _ = common::devices();
    let o = Command::new(example("select_gid"))
        .arg("169.254.1.1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output(&o));
    let ours = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let u = Command::new(common::uverbs_bin())
        .args(["gids", "--select", "roce-v2", "--ipv4", "169.254.1.1"])
        .output()
        .unwrap();
    assert!(u.status.success(), "{}", output(&u));
    let index = String::from_utf8_lossy(&u.stdout).trim().to_string();
    assert_eq!(ours, format!("rxe0 1 {index}"));
    let none = Command::new(example("select_gid"))
        .arg("10.9.9.9")
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1), "{}", output(&none));
}

/// `watch_ports` prints a port going down and up, follows a device added after it
/// started, and lets go of a device being removed: the removal finishes within the
/// hot-plug bound of its baseline with the example running.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn watch_ports_sees_events_and_lets_go_of_a_removed_device() {
    use common::scratch::{prompt_delete, timed_delete, ScratchDevice};
    use std::io::BufRead;
    let rxe = common::device("rxe");
    let parent = std::fs::read_to_string(format!("/sys/class/infiniband/{rxe}/parent"))
        .unwrap()
        .trim()
        .to_string();
    let mut child = Command::new(example("watch_ports"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let mut wait_for = |want: &dyn Fn(&str) -> bool, what: &str| {
        let t = std::time::Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
                let hit = want(&l);
                seen.push(l);
                if hit {
                    return;
                }
            }
        }
        panic!("no {what} from watch_ports; it printed {seen:?}");
    };
    wait_for(&|l| l.starts_with("watching: "), "start line");
    // Its event files are open once it has started them (a thread per device).
    let pid = child.id();
    assert!(common::scratch::wait_until(Duration::from_secs(30), || {
        common::scratch::open_files(pid)
            .iter()
            .filter(|f| f.to_string_lossy().contains("infinibandevent"))
            .count()
            >= common::devices().len()
    }));
    for (state, event) in [
        ("down", "IBV_EVENT_PORT_ERR"),
        ("up", "IBV_EVENT_PORT_ACTIVE"),
    ] {
        let (st, o) = common::scratch::run(
            &["ip", "link", "set", &parent, state],
            Duration::from_secs(10),
        );
        assert_eq!(st, 0, "{o}");
        let want = format!("{rxe} port 1: {event}");
        wait_for(&|l: &str| l == want, &want);
    }
    // A device made after the start is followed, and let go of when it is removed.
    let d = ScratchDevice::create("rxe", "rxe_ex", "exwatch", 231);
    wait_for(&|l| l.contains("rxe_ex"), "the new device");
    assert!(common::scratch::wait_until(Duration::from_secs(30), || {
        common::scratch::open_files(pid)
            .iter()
            .filter(|f| f.to_string_lossy().contains("infinibandevent"))
            .count()
            > common::devices().len()
    }));
    // The baseline: the same delete with no program holding the device.
    let d2 = ScratchDevice::create("rxe", "rxe_ex2", "exwatch2", 232);
    let baseline = timed_delete(&d2.name);
    drop(d2);
    prompt_delete(&d, baseline, "watch_ports");
    wait_for(&|l| l == "rxe_ex: let go", "rxe_ex: let go");
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether an RDMA CM id listens on `port` (`rdma resource show cm_id`): the readiness
/// of an RDMA CM server on RoCE, where no TCP socket listens.
fn cm_listening(port: u16) -> bool {
    Command::new("rdma")
        .args(["resource", "show", "cm_id"])
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.contains("LISTEN") && l.contains(&format!(":{port} ")))
        })
}

/// The lines `rping -v` prints for `count` pings of `size` bytes (`prefix` "ping data"
/// on the client, "server ping data" on the server).
fn rping_lines(prefix: &str, count: usize, size: usize) -> Vec<String> {
    (0..count)
        .map(|ping| {
            let mut v = format!("rdma-ping-{ping}: ").into_bytes();
            let mut c = b'A' + (ping % 58) as u8;
            while v.len() < size - 1 {
                v.push(c);
                c = if c == b'z' { b'A' } else { c + 1 };
            }
            v.truncate(size - 1);
            format!("{prefix}: {}", String::from_utf8_lossy(&v))
        })
        .collect()
}

fn data_lines(out: &str, prefix: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with(&format!("{prefix}: ")))
        .map(String::from)
        .collect()
}

/// `examples/rping` against librdmacm's `rping`, each the server in turn, on siw
/// (iWARP: the CM is the only way to RTS) and on rxe, every ping validated (`-V`) and
/// its data printed the same by both programs.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn rping_talks_to_librdmacm_rping_both_ways() {
    let devs = common::devices();
    let ours = example("rping");
    let (count, size) = (5usize, 64usize);
    let mut port = 18700u16;
    for dev in devs
        .iter()
        .filter(|d| d.starts_with("siw") || d.starts_with("rxe"))
    {
        let n: u32 = dev[3..].parse().unwrap();
        // the rig's addresses: rxe<i> 169.254.<1+i>.1, siw<i> 169.254.<129+i>.1
        let addr = if dev.starts_with("siw") {
            format!("169.254.{}.1", 129 + n)
        } else {
            format!("169.254.{}.1", 1 + n)
        };
        for server_is_ours in [true, false] {
            port += 1;
            let p = port.to_string();
            let c = count.to_string();
            let s = size.to_string();
            let (server, client) = if server_is_ours {
                (ours.clone(), PathBuf::from("rping"))
            } else {
                (PathBuf::from("rping"), ours.clone())
            };
            let srv = Command::new(&server)
                .args(["-s", "-a", &addr, "-p", &p, "-v", "-C", &c, "-S", &s])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            assert!(
                common::scratch::wait_until(Duration::from_secs(30), || cm_listening(port)),
                "{dev}: the rping server never listened on {port}"
            );
            let cli = Command::new(&client)
                .args(["-c", "-a", &addr, "-p", &p, "-v", "-V", "-C", &c, "-S", &s])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let srv = srv.wait_with_output().unwrap();
            let (so, co) = (output(&srv), output(&cli));
            let who = format!(
                "{dev}: {} server, {} client",
                if server_is_ours {
                    "examples/rping"
                } else {
                    "rping"
                },
                if server_is_ours {
                    "rping"
                } else {
                    "examples/rping"
                }
            );
            assert!(
                srv.status.success() && cli.status.success(),
                "{who}\nserver:\n{so}\nclient:\n{co}"
            );
            assert!(!co.contains("mismatch"), "{who}: {co}");
            assert_eq!(
                data_lines(&co, "ping data"),
                rping_lines("ping data", count, size),
                "{who}: {co}"
            );
            assert_eq!(
                data_lines(&so, "server ping data"),
                rping_lines("server ping data", count, size),
                "{who}: {so}"
            );
        }
    }
}
