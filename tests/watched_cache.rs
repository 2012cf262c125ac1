//! In the VM: the watched port cache follows a netdev going down and up without a
//! system call per query, and a too-small GID table buffer is refused by the kernel
//! (the fallback of `Context::query_gid_table` relies on that).

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::{Context, Error, PortState, WatchedPortCache};

fn wait_for(cache: &WatchedPortCache, state: PortState) -> Duration {
    let t = Instant::now();
    loop {
        let p = cache.query_port(1).expect("watched query");
        if p.state == state {
            return t.elapsed();
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "port never became {state}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn watched_cache_follows_netdev_down_and_up() {
    for dev in common::devices().iter().filter(|d| d.starts_with("rxe")) {
        let parent = std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/parent"))
            .expect("rxe's parent netdev")
            .trim()
            .to_string();
        let ctx = Arc::new(Context::open_by_name(dev).expect("open"));
        let cache = WatchedPortCache::new(ctx.clone()).expect("watched cache");
        assert_eq!(cache.query_port(1).unwrap(), ctx.query_port(1).unwrap());
        let before = cache.updates();
        for _ in 0..10_000 {
            cache.query_port(1).unwrap();
        }
        assert_eq!(cache.updates(), before, "no event, no refresh");
        assert!(matches!(cache.query_port(2), Err(Error::NoSuchPort { .. })));

        let ip = |state: &str| {
            assert!(Command::new("ip")
                .args(["link", "set", &parent, state])
                .status()
                .unwrap()
                .success());
        };
        let mut reader = cache.reader();
        assert_eq!(reader.query_port(1).unwrap(), cache.query_port(1).unwrap());
        assert!(matches!(
            reader.query_port(0),
            Err(Error::NoSuchPort { .. })
        ));
        ip("down");
        let down = wait_for(&cache, PortState::Down);
        assert_eq!(ctx.query_port(1).unwrap().state, PortState::Down);
        assert_eq!(
            reader.query_port(1).unwrap().state,
            PortState::Down,
            "the reader follows"
        );
        ip("up");
        let up = wait_for(&cache, PortState::Active);
        assert_eq!(reader.query_port(1).unwrap().state, PortState::Active);
        assert!(cache.updates() >= before + 2, "two events applied");
        println!("{dev}: the watched cache saw DOWN after {down:?} and ACTIVE after {up:?}");
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn gid_table_buffer_too_small_is_einval_and_bigger_buffers_agree() {
    for dev in &common::devices() {
        let ctx = Context::open_by_name(dev).expect("open");
        let all = ctx.query_gid_table(2047).expect("GID table");
        assert!(!all.is_empty(), "{dev} has at least one GID");
        assert_eq!(ctx.query_gid_table(64).unwrap(), all, "{dev}");
        assert_eq!(ctx.query_gid_table(all.len()).unwrap(), all, "{dev}");
        if all.len() > 1 {
            match ctx.query_gid_table(all.len() - 1) {
                Err(Error::InvalidArgument { errno, .. }) => {
                    assert_eq!(errno, rustix::io::Errno::INVAL)
                }
                other => panic!("{dev}: a buffer one entry short gave {other:?}"),
            }
        }
    }
}
