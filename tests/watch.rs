//! `uverbs watch` in the VM: taking an rxe device's netdev down and up prints PORT_ERR
//! then PORT_ACTIVE, as text and as JSON lines.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn watch_prints_port_events() {
    let devs = common::devices();
    let Some(rxe) = devs.iter().find(|d| d.starts_with("rxe")) else {
        panic!("the rig always creates an rxe device; got {devs:?}");
    };
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN names the uverbs binary");
    let parent = std::fs::read_to_string(format!("/sys/class/infiniband/{rxe}/parent"))
        .expect("rxe's parent netdev")
        .trim()
        .to_string();
    for json in [false, true] {
        let mut cmd = Command::new(&bin);
        cmd.args(["watch", "-d", rxe]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Ready when the watch holds the device's async event file (no sleep: the first
        // event would be lost if the link moved before it was open).
        let pid = child.id();
        assert!(
            common::scratch::wait_until(Duration::from_secs(30), || {
                common::scratch::open_files(pid)
                    .iter()
                    .any(|f| f.to_string_lossy().contains("infinibandevent"))
            }),
            "uverbs watch never opened {rxe}'s async event file"
        );
        // Its lines as they come, from a reader thread.
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut lines: Vec<String> = Vec::new();
        for state in ["down", "up"] {
            let ok = Command::new("ip")
                .args(["link", "set", &parent, state])
                .status()
                .unwrap();
            assert!(ok.success(), "ip link set {parent} {state}");
            // Each move prints one line: wait for it (at most 30 s).
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(l) => lines.push(l),
                Err(_) => panic!("no event line after ip link set {state}; so far {lines:?}"),
            }
        }
        let _ = Command::new("kill").arg(child.id().to_string()).status();
        let _ = child.wait();
        reader.join().unwrap();
        lines.extend(rx.try_iter());
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let want = if json {
            vec![
                format!("{{\"device\":\"{rxe}\",\"event\":\"IBV_EVENT_PORT_ERR\",\"type\":10,\"scope\":\"port\",\"port\":1,\"element\":1}}"),
                format!("{{\"device\":\"{rxe}\",\"event\":\"IBV_EVENT_PORT_ACTIVE\",\"type\":9,\"scope\":\"port\",\"port\":1,\"element\":1}}"),
            ]
        } else {
            vec![
                format!("{rxe} port 1: IBV_EVENT_PORT_ERR"),
                format!("{rxe} port 1: IBV_EVENT_PORT_ACTIVE"),
            ]
        };
        assert_eq!(lines, want, "uverbs watch output (json={json})");
    }
}
