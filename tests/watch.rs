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
        let child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        for state in ["down", "up"] {
            let ok = Command::new("ip")
                .args(["link", "set", &parent, state])
                .status()
                .unwrap();
            assert!(ok.success(), "ip link set {parent} {state}");
            std::thread::sleep(Duration::from_millis(500));
        }
        let _ = Command::new("kill").arg(child.id().to_string()).status();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
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
