//! Sysfs: text through every text parser, sysfs trees written from mutated fixture text
//! and read by every reader, the fixture trees mutated, and IPoIB text.

use std::path::{Path, PathBuf};

use uverbs::Error;

use crate::corpus::*;
use crate::harness::*;

/// Sysfs text through every text parser (`checks::sysfs_text`): GUIDs, GIDs, node
/// types, dev numbers, decimal files, firmware versions, counters, port states, rates.
#[test]
fn fuzz_sysfs_text() {
    let corpus = text_corpus();
    fuzz(
        "sysfs_text",
        iters(),
        |r| text_input(r, &corpus),
        crate::checks::sysfs_text,
    );
}

// ------------------------------------------------------------- sysfs trees

/// A sysfs tree written from mutated fixture text, then read by discovery and the GID,
/// P_Key and netdev readers: no panic, typed errors, sane answers.
#[test]
#[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
fn fuzz_sysfs_tree() {
    use std::os::unix::ffi::OsStrExt;
    let corpus = text_corpus();
    // tmpfs when there is one: a disk-backed /tmp makes each tree ~20 times slower.
    let base = match Path::new("/dev/shm") {
        p if p.is_dir() && std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly()) => {
            p.to_path_buf()
        }
        _ => std::env::temp_dir(),
    };
    let root = base.join(format!("uverbs-fuzz-sysfs-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(root.clone());
    let n = (iters() / 100).max(10);
    let execs = fuzz(
        "sysfs_tree",
        n,
        |r| r.bytes(8),
        |seed| {
            let mut r = Rng::new(u64::from_ne_bytes(seed.try_into().unwrap()));
            let _ = std::fs::remove_dir_all(&root);
            let ib = root.join("class/infiniband");
            let verbs = root.join("class/infiniband_verbs");
            std::fs::create_dir_all(&ib).unwrap();
            let text = |r: &mut Rng| text_input(r, &corpus);
            let write = |p: &Path, b: &[u8]| {
                if let Some(d) = p.parent() {
                    let _ = std::fs::create_dir_all(d);
                }
                let _ = std::fs::write(p, b);
            };
            let names: Vec<std::ffi::OsString> = (0..1 + r.below(3))
                .map(|_| {
                    let b: Vec<u8> = match r.below(6) {
                        0 => b"rxe0".to_vec(),
                        1 => b"siw0".to_vec(),
                        2 => b"mlx5_0".to_vec(),
                        3 => vec![b'x', 0xff, 0xfe],
                        4 => vec![b'd'; 200],
                        _ => (0..1 + r.below(12))
                            .map(|_| *r.pick(b"abcrxesiw0123_-."))
                            .collect(),
                    };
                    std::ffi::OsStr::from_bytes(&b).to_owned()
                })
                .collect();
            for (i, name) in names.iter().enumerate() {
                let d = ib.join(name);
                let _ = std::fs::create_dir_all(&d);
                for (f, good) in [
                    ("node_type", "1: CA\n"),
                    ("node_guid", "0200:00ff:fe00:0001\n"),
                    ("sys_image_guid", "0200:00ff:fe00:0001\n"),
                    ("fw_ver", "16.35.2000\n"),
                    ("node_desc", "Software iWARP stack\n"),
                    ("parent", "rxenet0\n"),
                    ("hca_type", "MT4119\n"),
                    ("board_id", "MT_0000000010\n"),
                    ("hw_rev", "0x0\n"),
                ] {
                    match r.below(12) {
                        0 => {}
                        1 => {
                            let _ = std::fs::create_dir_all(d.join(f));
                        }
                        2..=4 => write(&d.join(f), &text(&mut r)),
                        _ => write(&d.join(f), good.as_bytes()),
                    }
                }
                if r.chance(1, 3) {
                    let _ = std::fs::create_dir_all(d.join("device"));
                    let _ = std::os::unix::fs::symlink(
                        *r.pick(&["../../mlx5_core", "/x/bnxt_en", "", "."]),
                        d.join("device/driver"),
                    );
                }
                for port in [
                    r.pick(&["1", "2", "0", "abc", "4294967296", "-1"])
                        .to_string(),
                    "1".into(),
                ] {
                    let p = d.join("ports").join(&port);
                    let _ = std::fs::create_dir_all(p.join("gids"));
                    write(
                        &p.join("link_layer"),
                        r.pick::<&[u8]>(&[b"Ethernet\n", b"InfiniBand\n", b"\xff"]),
                    );
                    for _ in 0..r.below(5) {
                        let idx = r
                            .pick(&["0", "1", "2", "x", "99999999999", "007"])
                            .to_string();
                        write(&p.join("gids").join(&idx), &text(&mut r));
                        if r.chance(2, 3) {
                            write(
                                &p.join("gid_attrs/types").join(&idx),
                                r.pick::<&[u8]>(&[
                                    b"RoCE v2\n",
                                    b"IB/RoCE v1\n",
                                    b"\0",
                                    b"RoCE v3",
                                ]),
                            );
                        }
                        if r.chance(1, 2) {
                            write(
                                &p.join("gid_attrs/ndevs").join(&idx),
                                r.pick::<&[u8]>(&[b"rxenet0\n", b"../x", b"", b"nope"]),
                            );
                        }
                    }
                    for k in 0..r.below(4) {
                        let v: Vec<u8> = if r.chance(3, 4) {
                            format!("0x{:04x}\n", r.next() as u16).into_bytes()
                        } else {
                            text(&mut r)
                        };
                        write(&p.join("pkeys").join(k.to_string()), &v);
                    }
                }
                let u = verbs.join(format!("uverbs{i}"));
                write(&u.join("ibdev"), name.as_bytes());
                write(
                    &u.join("dev"),
                    &if r.chance(2, 3) {
                        format!("231:{}\n", 192 + i).into_bytes()
                    } else {
                        text(&mut r)
                    },
                );
                write(
                    &u.join("abi_version"),
                    &if r.chance(2, 3) {
                        b"2\n".to_vec()
                    } else {
                        text(&mut r)
                    },
                );
            }
            write(&verbs.join("abi_version"), &text(&mut r));
            write(
                &root.join("class/net/rxenet0/ifindex"),
                &if r.chance(1, 2) {
                    b"3\n".to_vec()
                } else {
                    text(&mut r)
                },
            );

            let disc = uverbs::Discovery::new()
                .netlink(false)
                .sysfs_root(&root)
                .dev_root(&root);
            let mut outcome = "devices-err";
            if let Ok(devs) = disc.devices() {
                outcome = "devices-ok";
                assert!(
                    devs.windows(2).all(|w| w[0].name <= w[1].name),
                    "not sorted"
                );
                for d in &devs {
                    assert!(!d.name.is_empty());
                    if let Some(u) = &d.uverbs {
                        assert_eq!(u.path, root.join("infiniband").join(&u.name));
                    }
                    let _ = d.driver_id_guess();
                }
            }
            let _ = disc.core_abi_version();
            for name in &names {
                let Some(name) = name.to_str() else { continue };
                match disc.device(name) {
                    Ok(d) => assert_eq!(d.name, name),
                    Err(e) => assert!(
                        matches!(
                            e,
                            Error::Protocol { .. } | Error::Os { .. } | Error::NoSuchDevice { .. }
                        ),
                        "{e:?}"
                    ),
                }
                for port in 0..3 {
                    if let Ok(g) = uverbs::sysfs::gids(&root, name, port) {
                        assert!(g.windows(2).all(|w| w[0].index <= w[1].index));
                        assert!(g.iter().all(|e| !e.gid.is_zero() && e.port == port));
                    }
                    match uverbs::sysfs::pkeys(&root, name, port) {
                        Ok(p) => assert!(p.len() <= 4),
                        Err(e) => assert!(matches!(e, Error::Protocol { .. }), "{e:?}"),
                    }
                }
            }
            for bad in ["", ".", "..", "a/b", "../class", "x\0y", &"n".repeat(300)] {
                assert!(
                    matches!(disc.device(bad), Err(Error::NoSuchDevice { .. })),
                    "{bad:?}"
                );
            }
            let _ = uverbs::sysfs::ifindex_of(&root, "rxenet0");
            let _ = uverbs::sysfs::netdev_name(&root, 3);
            outcome
        },
    );
    let _ = std::fs::remove_dir_all(&root);
    assert!(execs > 0);
}

// ------------------------------------------------------------------- IPoIB

/// IPoIB text: modes, operational states, link addresses; and the MTU checks for any
/// port answer and any interface.
#[test]
fn fuzz_ipoib_text() {
    let mut corpus = text_corpus();
    for s in IPOIB_TEXT {
        // weighted: most inputs start from IPoIB text
        for _ in 0..20 {
            corpus.push(s.as_bytes().to_vec());
        }
    }
    let ports = kernel_corpus("query_port");
    fuzz(
        "ipoib_text",
        iters(),
        |r| {
            let mut b = text_input(r, &corpus);
            b.push(0);
            b.extend(from_corpus(r, &ports, 64));
            b
        },
        crate::checks::ipoib_text,
    );
}

// ------------------------------------------------------- fixture sysfs trees

/// Copies `src` (files, directories, symlinks as they are) to `dst`.
pub(crate) fn copy_tree(src: &Path, dst: &Path) {
    let _ = std::fs::create_dir_all(dst);
    for e in std::fs::read_dir(src).into_iter().flatten().flatten() {
        let to = dst.join(e.file_name());
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            if let Ok(t) = std::fs::read_link(e.path()) {
                let _ = std::os::unix::fs::symlink(t, &to);
            }
        } else if meta.is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            let _ = std::fs::copy(e.path(), &to);
        }
    }
}

/// Every entry under `dir` (not following symlinks).
pub(crate) fn tree_entries(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.clone());
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
            tree_entries(&p, out);
        }
    }
}

/// Removes a scratch directory when dropped, also when a target fails.
pub(crate) struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn scratch_base() -> PathBuf {
    match Path::new("/dev/shm") {
        p if p.is_dir() && std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly()) => {
            p.to_path_buf()
        }
        _ => std::env::temp_dir(),
    }
}

/// Runs every sysfs reader of the crate on the tree at `root` and checks what it can.
pub(crate) fn read_whole_tree(root: &Path) -> Outcome {
    use uverbs::verbs::ipoib::{ipoib_interfaces, netdevs, Ipoib};
    let list = |d: &str| -> Vec<String> {
        std::fs::read_dir(root.join(d))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect()
    };
    let typed = |e: &Error| {
        matches!(
            e,
            Error::Protocol { .. }
                | Error::Os { .. }
                | Error::NoSuchDevice { .. }
                | Error::BadArgument { .. }
        )
    };
    let disc = uverbs::Discovery::new()
        .netlink(false)
        .sysfs_root(root)
        .dev_root(root);
    let mut outcome = "devices-err";
    match disc.devices() {
        Ok(devs) => {
            outcome = "devices-ok";
            assert!(devs.windows(2).all(|w| w[0].name <= w[1].name));
            for d in &devs {
                let _ = d.driver_id_guess();
            }
        }
        Err(e) => assert!(typed(&e), "{e:?}"),
    }
    let _ = disc.core_abi_version();
    for dev in list("class/infiniband") {
        match disc.device(&dev) {
            Ok(d) => assert_eq!(d.name, dev),
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
        for port in 0..4 {
            if let Ok(g) = uverbs::sysfs::gids(root, &dev, port) {
                assert!(g.iter().all(|e| !e.gid.is_zero() && e.port == port));
            }
            if let Err(e) = uverbs::sysfs::pkeys(root, &dev, port) {
                assert!(typed(&e), "{e:?}");
            }
        }
        match netdevs(root, &dev) {
            Ok(links) => {
                for l in &links {
                    assert_eq!(l.device, dev);
                    assert!(l.port >= 1);
                    let t = l.to_string();
                    assert!(!t.contains('\n'));
                }
            }
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
    }
    match ipoib_interfaces(root) {
        Ok(v) => assert!(v.iter().all(|i| !i.name.is_empty())),
        Err(e) => assert!(typed(&e), "{e:?}"),
    }
    for net in list("class/net") {
        match Ipoib::read(root, &net) {
            Ok(i) => assert_eq!(i.name, net),
            Err(e) => assert!(typed(&e), "{e:?}"),
        }
        let _ = uverbs::sysfs::ifindex_of(root, &net);
    }
    for i in 0..12 {
        let _ = uverbs::sysfs::netdev_name(root, i);
    }
    outcome
}

/// The fixture sysfs trees (tests/fixtures/sysfs/*, tests/fixtures/sysfs-ipoib), copied
/// to a scratch directory and damaged: file contents mutated, entries removed, files
/// turned into directories, symlinks pointing at themselves, their parents or nowhere.
/// Every reader (discovery, GIDs, P_Keys, IPoIB interfaces, netdevs of a port) gives an
/// answer or a typed error, never a panic or a hang.
#[test]
#[cfg_attr(miri, ignore = "writes files: Miri's isolation forbids it")]
fn fuzz_fixture_trees() {
    let mut bases: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("sysfs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    let ipoib = fixtures_dir().join("sysfs-ipoib");
    if ipoib.is_dir() {
        bases.push(ipoib);
    }
    bases.sort();
    assert!(
        !bases.is_empty(),
        "fuzz target fixture_trees: no fixture tree under {}",
        fixtures_dir().display()
    );
    let corpus = text_corpus();
    let root = scratch_base().join(format!("uverbs-fuzz-trees-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(root.clone());
    let n = (iters() / 100).max(10);
    fuzz(
        "fixture_trees",
        n,
        |r| r.bytes(8),
        |seed| {
            let mut r = Rng::new(u64::from_ne_bytes(seed.try_into().unwrap()));
            let _ = std::fs::remove_dir_all(&root);
            copy_tree(r.pick(&bases).as_path(), &root);
            // A pristine tree now and then: the fixtures themselves must read cleanly.
            if r.chance(1, 8) {
                return read_whole_tree(&root);
            }
            let mut entries = Vec::new();
            tree_entries(&root, &mut entries);
            for _ in 0..1 + r.below(6) {
                if entries.is_empty() {
                    break;
                }
                let p = r.pick(&entries).clone();
                let is_file = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file());
                match r.below(8) {
                    0..=3 if is_file => {
                        let mut b = std::fs::read(&p).unwrap_or_default();
                        for _ in 0..1 + r.below(3) {
                            mutate_text(&mut r, &mut b, &corpus);
                        }
                        let _ = std::fs::write(&p, b);
                    }
                    4 => {
                        let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
                    }
                    5 if is_file => {
                        let _ = std::fs::remove_file(&p);
                        let _ = std::fs::create_dir(&p);
                    }
                    6 => {
                        let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
                        let target = *r.pick(&[".", "..", "../..", "nowhere", "/proc/self/fd/0"]);
                        let target = if target == "." {
                            p.file_name().map(PathBuf::from).unwrap_or_default()
                        } else {
                            PathBuf::from(target)
                        };
                        let _ = std::os::unix::fs::symlink(target, &p);
                    }
                    _ => {
                        // a file with a huge number, or an empty one
                        if is_file {
                            let v: &[u8] = r.pick::<&[u8]>(&[
                                b"",
                                b"99999999999999999999999\n",
                                b"-1\n",
                                b"0x\n",
                            ]);
                            let _ = std::fs::write(&p, v);
                        }
                    }
                }
            }
            read_whole_tree(&root)
        },
    );
    let _ = std::fs::remove_dir_all(&root);
}
