//! Kernel modules a self-test loads itself, for a root that has no `modprobe`
//! (`uverbs selftest --modules DIR`: an initramfs holding only the binary and the
//! kernel's modules). There, the kernel's own `request_module` finds no helper to run,
//! so a link type or a dummy interface whose driver is not loaded is simply refused.
//!
//! `DIR` is a modules tree as `depmod` leaves it (`/lib/modules/RELEASE`): its
//! `modules.dep` says where each module is and what it needs, `modules.builtin` which
//! ones are part of the kernel image. A module is loaded after everything it depends
//! on, by `finit_module(2)` on its file (a compressed one, `.ko.xz`, `.ko.zst` or
//! `.ko.gz`, is handed to the kernel to decompress, which it does when built with
//! `CONFIG_MODULE_DECOMPRESS`). One that is loaded already, or built in, is left alone;
//! nothing is unloaded afterwards, as `modprobe` would not.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::path::{Path, PathBuf};

use rustix::io::Errno;

use crate::error::{Error, Op, Result};

/// `finit_module`'s flag: the file is compressed, the kernel decompresses it.
const MODULE_INIT_COMPRESSED_FILE: i32 = 4;

/// A module's name as the kernel knows it: `-` and `_` are the same.
fn canonical(name: &str) -> String {
    name.replace('-', "_")
}

/// The module name of a path in `modules.dep` (`kernel/drivers/infiniband/sw/siw/siw.ko.xz`
/// is `siw`).
fn name_of(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    canonical(file.split(".ko").next().unwrap_or(file))
}

/// One module of a tree: its file (relative to the tree, or absolute) and the modules it
/// needs, as `modules.dep` lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    deps: Vec<String>,
}

/// `modules.dep`'s lines (`PATH: DEP DEP ...`), by module name.
fn parse_dep(text: &str) -> BTreeMap<String, Entry> {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let Some((path, deps)) = line.split_once(':') else {
            continue;
        };
        let path = path.trim();
        if path.is_empty() {
            continue;
        }
        map.insert(
            name_of(path),
            Entry {
                path: path.to_owned(),
                deps: deps.split_whitespace().map(name_of).collect(),
            },
        );
    }
    map
}

/// The modules a tree holds and the ones built into its kernel.
#[derive(Debug, Clone)]
pub struct ModuleTree {
    root: PathBuf,
    entries: BTreeMap<String, Entry>,
    builtin: BTreeSet<String>,
}

impl ModuleTree {
    /// Reads `DIR/modules.dep` (and `DIR/modules.builtin`, when there is one).
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] naming the file when `modules.dep` cannot be read or lists
    /// nothing.
    pub fn open(dir: &Path) -> Result<ModuleTree> {
        let dep = dir.join("modules.dep");
        let op = || Op::new("read modules.dep", "");
        let text = std::fs::read_to_string(&dep).map_err(|e| Error::BadArgument {
            op: op(),
            reason: format!(
                "{}: {e} (give a modules tree made by depmod)",
                dep.display()
            ),
        })?;
        let entries = parse_dep(&text);
        if entries.is_empty() {
            return Err(Error::BadArgument {
                op: op(),
                reason: format!("{}: lists no module", dep.display()),
            });
        }
        let builtin = std::fs::read_to_string(dir.join("modules.builtin"))
            .map(|t| t.lines().map(name_of).collect())
            .unwrap_or_default();
        Ok(ModuleTree {
            root: dir.to_owned(),
            entries,
            builtin,
        })
    }

    /// The modules to load for `name`, dependencies first, each once; `None` when the
    /// tree neither holds `name` (nor one of its dependencies) nor has it built in.
    fn order(&self, name: &str) -> std::result::Result<Vec<String>, String> {
        fn visit(
            t: &ModuleTree,
            name: &str,
            seen: &mut BTreeSet<String>,
            out: &mut Vec<String>,
        ) -> std::result::Result<(), String> {
            if !seen.insert(name.to_owned()) {
                return Ok(());
            }
            match t.entries.get(name) {
                Some(e) => {
                    for d in &e.deps {
                        visit(t, d, seen, out)?;
                    }
                    out.push(name.to_owned());
                    Ok(())
                }
                None if t.builtin.contains(name) => Ok(()),
                None => Err(name.to_owned()),
            }
        }
        let mut out = Vec::new();
        visit(self, &canonical(name), &mut BTreeSet::new(), &mut out)?;
        Ok(out)
    }

    /// Whether the tree holds module `name` (to load) or the kernel has it built in.
    pub fn has(&self, name: &str) -> bool {
        let n = canonical(name);
        self.entries.contains_key(&n) || self.builtin.contains(&n)
    }

    /// Loads `name` and what it depends on, in order, giving `name` itself `params`
    /// (`numdummies=0`); returns the modules this call loaded (not those loaded
    /// already or built in).
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] when the tree does not hold a module that is needed;
    /// the errno of `open` or `finit_module` otherwise, naming the module (`EPERM`
    /// without `CAP_SYS_MODULE`, `ENOEXEC` for a module of another kernel,
    /// `EOPNOTSUPP` for a compressed one the kernel cannot decompress).
    pub fn load(&self, name: &str, params: &str) -> Result<Vec<String>> {
        let order = self.order(name).map_err(|missing| Error::BadArgument {
            op: Op::new("finit_module", &canonical(name)),
            reason: format!(
                "{}: no module {missing} in modules.dep, nor built in",
                self.root.display()
            ),
        })?;
        let target = canonical(name);
        let mut loaded = Vec::new();
        for m in order {
            if loaded_already(&m) {
                continue;
            }
            let p = if m == target { params } else { "" };
            if self.finit(&m, p)? {
                loaded.push(m);
            }
        }
        Ok(loaded)
    }

    /// `finit_module` of one module's file; `false` when the kernel had it already.
    fn finit(&self, name: &str, params: &str) -> Result<bool> {
        let e = &self.entries[name];
        let path = if e.path.starts_with('/') {
            PathBuf::from(&e.path)
        } else {
            self.root.join(&e.path)
        };
        let op = || Op::new("finit_module", name);
        let file = std::fs::File::open(&path).map_err(|err| Error::BadArgument {
            op: op(),
            reason: format!("{}: {err}", path.display()),
        })?;
        let compressed = [".ko.xz", ".ko.zst", ".ko.gz"]
            .iter()
            .any(|s| e.path.ends_with(s));
        let flags = if compressed {
            MODULE_INIT_COMPRESSED_FILE
        } else {
            0
        };
        let params = CString::new(params).map_err(|_| Error::BadArgument {
            op: op(),
            reason: "module parameters hold a NUL byte".into(),
        })?;
        match rustix::system::finit_module(&file, &params, flags) {
            Ok(()) => Ok(true),
            Err(Errno::EXIST) => Ok(false),
            Err(errno) => Err(Error::from_errno(op(), errno)),
        }
    }
}

/// Whether the kernel has module `name` (a loaded module, or a built-in one with
/// parameters, has `/sys/module/NAME`).
fn loaded_already(name: &str) -> bool {
    Path::new("/sys/module").join(name).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dep: &str, builtin: &[&str]) -> ModuleTree {
        ModuleTree {
            root: PathBuf::from("/lib/modules/6.1.0-56-amd64"),
            entries: parse_dep(dep),
            builtin: builtin.iter().map(|s| name_of(s)).collect(),
        }
    }

    // The lines for these modules in the rig's 6.1 guest (busybox depmod over Debian's
    // modules; siw.ko is the rig's own build, in extra/), and dummy as Debian's 6.12
    // package names it (compressed).
    const DEP: &str = "\
extra/siw.ko: kernel/drivers/infiniband/core/ib_core.ko kernel/lib/libcrc32c.ko
kernel/drivers/infiniband/core/ib_core.ko:
kernel/drivers/infiniband/core/ib_uverbs.ko: kernel/drivers/infiniband/core/ib_core.ko
kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko: kernel/drivers/infiniband/core/ib_uverbs.ko kernel/drivers/infiniband/core/ib_core.ko kernel/net/ipv4/udp_tunnel.ko kernel/net/ipv6/ip6_udp_tunnel.ko
kernel/net/ipv4/udp_tunnel.ko:
kernel/net/ipv6/ip6_udp_tunnel.ko:
kernel/drivers/net/dummy.ko.xz:
";

    #[test]
    fn dependencies_come_first_each_once() {
        let t = tree(DEP, &["kernel/lib/libcrc32c.ko"]);
        assert_eq!(
            t.order("rdma_rxe").unwrap(),
            [
                "ib_core",
                "ib_uverbs",
                "udp_tunnel",
                "ip6_udp_tunnel",
                "rdma_rxe"
            ]
        );
        // With libcrc32c built into the kernel (this tree has no line for it) there is
        // nothing to load for it.
        assert_eq!(t.order("siw").unwrap(), ["ib_core", "siw"]);
        assert_eq!(t.order("rdma-rxe").unwrap().last().unwrap(), "rdma_rxe");
        assert_eq!(t.entries["dummy"].path, "kernel/drivers/net/dummy.ko.xz");
        assert!(t.has("dummy") && t.has("libcrc32c") && !t.has("crc32c_generic"));
    }

    #[test]
    fn a_missing_module_or_dependency_is_named() {
        let t = tree(DEP, &[]);
        assert_eq!(t.order("siw").unwrap_err(), "libcrc32c");
        assert_eq!(t.order("mlx5_ib").unwrap_err(), "mlx5_ib");
    }

    #[test]
    fn a_dependency_cycle_ends() {
        let t = tree("a.ko: b.ko\nb.ko: a.ko\n", &[]);
        assert_eq!(t.order("a").unwrap(), ["b", "a"]);
    }

    #[test]
    fn lines_without_a_path_are_ignored() {
        assert!(parse_dep("\n: x.ko\nno colon here\n").is_empty());
    }
}
