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

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn rc_pingpong_talks_to_ibv_rc_pingpong_both_ways() {
    let dev = common::devices()
        .into_iter()
        .find(|d| d.starts_with("rxe"))
        .expect("an rxe device");
    let ours = example("rc_pingpong");
    let args = |port: u16| {
        vec![
            "-d".to_string(),
            dev.clone(),
            "-g".into(),
            "1".into(),
            "-c".into(),
            "-n".into(),
            "50".into(),
            "-s".into(),
            "8192".into(),
            "-p".into(),
            port.to_string(),
        ]
    };
    for (port, server_is_ours) in [(18601u16, true), (18602, false)] {
        let (server, client) = if server_is_ours {
            (ours.clone(), PathBuf::from("ibv_rc_pingpong"))
        } else {
            (PathBuf::from("ibv_rc_pingpong"), ours.clone())
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
        let who = if server_is_ours {
            "rc_pingpong server, ibv_rc_pingpong client"
        } else {
            "ibv_rc_pingpong server, rc_pingpong client"
        };
        assert!(
            s.status.success() && c.status.success(),
            "{who}\nserver:\n{so}\nclient:\n{co}"
        );
        // The server checked the pages the client marked; the run moved every byte.
        assert!(!so.contains("invalid data"), "{who}: {so}");
        for out in [&so, &co] {
            assert!(out.contains("819200 bytes in "), "{who}: {out}");
            assert!(out.contains("50 iters in "), "{who}: {out}");
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
