//! The `args.*` cases: the kernel's rules for the arguments of the object and query
//! methods, one rule a case, each checked against the answer the kernel's source gives
//! (the case cites the function) and observed so on Debian's Linux 6.1 and 6.12, rxe and
//! siw. Each case makes its objects and drops them before it returns; where a refusal
//! is checked, the same request with the one argument made valid is asked too (the
//! control), so that the refusal is the argument's.
//!
//! - `args.port.*`, `args.gid.*`, `args.pkey.*`: QUERY_PORT of port 0 and of one past
//!   the last, by ioctl (the QUERY_PORT method, `uverbs_std_types_device.c`) and by
//!   `write()` (`ib_uverbs_query_port`, `uverbs_cmd.c`), both refused by
//!   `ib_query_port` (`device.c`: `rdma_is_port_valid`); QUERY_GID_ENTRY of an empty
//!   index (`ENODATA`), of the index `gid_tbl_len` and of port 0 (`EINVAL`:
//!   `rdma_get_gid_attr`, `cache.c`); QUERY_GID_TABLE for 0 entries (`EINVAL`: the
//!   QUERY_GID_TABLE handler) and for exactly the valid ones; the P_Key table in sysfs
//!   ends at `pkey_tbl_len` (`alloc_port_table_group`, `sysfs.c`).
//! - `args.mr.*`: REG_MR's access rights (`ib_check_mr_access`,
//!   include/rdma/ib_verbs.h): remote write or atomic without local write, bits the
//!   kernel does not define (`EINVAL`), on-demand paging on a device without it
//!   (`EOPNOTSUPP`; `EINVAL` before Linux 6.2), FLUSH_GLOBAL (since 6.2 as the device's
//!   cap says), an optional bit (relaxed ordering: accepted where unsupported), and
//!   each right alone accepted, with the keys the driver answers.
//! - `args.ah.*` (rxe; siw has no address handles): no GRH on a RoCE port, port 0, one
//!   past the last (`rdma_check_ah_attr`, `verbs.c`; `ib_uverbs_create_ah`), an empty
//!   source GID index (`ENODATA`: `rdma_fill_sgid_attr`).
//! - `args.cq.*`: a completion vector past `num_comp_vectors` by ioctl and by
//!   `write()` (`EINVAL`: the CQ_CREATE handler, `create_cq` in `uverbs_cmd.c`), the
//!   last one, a CQ of one entry.
//! - `args.pd.many`: 200 PDs in a row, each its own handle, netlink's count up by 200
//!   and back.
//! - `args.qp.*`: MODIFY_QP's port (`modify_qp`, `uverbs_cmd.c`), the privileged Q_Key
//!   (`modify_qp`: `EPERM` without RDMA netlink's privileged Q_Key mode or
//!   `CAP_NET_RAW`; the self-test runs as root, which has it), an SQ PSN past 24 bits
//!   (masked, `_ib_modify_qp`, `verbs.c`), and what QUERY_QP reads back of what
//!   MODIFY_QP set, with rxe's rounding of the RDMA read depths up to a power of two
//!   (`rxe_qp_from_attr`, `rxe_qp.c`) and its limit (`rxe_qp_chk_attr`). siw takes an RC
//!   QP past INIT only through the iWARP CM, and has no UD: those cases skip there.
//! - `args.srq.*`: MODIFY_SRQ's size and limit (`rxe_srq_chk_attr`, `rxe_srq.c`;
//!   `siw_modify_srq`, `siw_verbs.c`: no resize).
//! - `args.destroy.*`: destroying an object others still use is `EBUSY`
//!   (`ib_destroy_usecnt`, `rdma_core.c`, from `uverbs_free_pd`, `uverbs_free_cq`,
//!   `uverbs_free_srq`), and it stays usable.
//! - `args.netlink.copy_on_fork`: RDMA netlink's SYS_GET says the kernel copies pinned
//!   pages on fork (`nldev_sys_get_doit`, `nldev.c`: always 1 since Linux 5.13, which
//!   added the attribute, commit 6cc9e215eb27); a kernel whose answer lacks it (5.10)
//!   makes no such promise, and the case is skipped, saying so (the answer is the
//!   capability: rdma-core reads an absent attribute the same way).
//!
//! Not asked: an MR of 0 bytes, of `max_mr_size` + 1 bytes (2^64 - 1 on both drivers)
//! or over unmapped memory beyond `probe.error_paths`' (an `MrBuf` has at least one
//! byte and owns its memory: no safe call names other memory); an AH's source GID index
//! past the table (the field is 8 bits; rxe's table has 1024 entries).

use std::sync::Arc;

use rustix::io::Errno;

use crate::error::Result;
use crate::netlink::NlSocket;
use crate::raw::abi::{
    ib_uverbs_destroy_cq_resp, ib_uverbs_destroy_srq_resp, ib_uverbs_gid_entry,
    ib_uverbs_query_port_resp, ib_uverbs_query_port_resp_ex, RDMA_DRIVER_RXE, RDMA_DRIVER_SIW,
};
use crate::raw::fallback::CallPath;
use crate::raw::method::{self, DriverIn};
use crate::selftest::health::Resources;
use crate::selftest::Outcome;
use crate::types::{AccessFlags, LinkLayer, Mtu, QpType, TransportType};
use crate::verbs::context::{Context, OpenOptions};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::objects::{
    run_cmd, AhAttr, Cq, ModifyQp, ModifySrq, MrBuf, Pd, Qp, QpCap, QpInit, SrqInit,
};

/// The cases: full name, what they ask.
pub(super) const CASES: [(&str, &str); 46] = [
    (
        "args.port.zero.ioctl",
        "QUERY_PORT (ioctl) of port 0: EINVAL",
    ),
    (
        "args.port.zero.write",
        "QUERY_PORT (write) of port 0: EINVAL",
    ),
    (
        "args.port.past_last.ioctl",
        "QUERY_PORT (ioctl) of port count + 1: EINVAL",
    ),
    (
        "args.port.past_last.write",
        "QUERY_PORT (write) of port count + 1: EINVAL",
    ),
    (
        "args.gid.empty_index",
        "QUERY_GID_ENTRY of an empty index: ENODATA",
    ),
    (
        "args.gid.past_table",
        "QUERY_GID_ENTRY of index gid_tbl_len: EINVAL",
    ),
    ("args.gid.port_zero", "QUERY_GID_ENTRY of port 0: EINVAL"),
    (
        "args.gid.table_zero",
        "QUERY_GID_TABLE for 0 entries: EINVAL",
    ),
    (
        "args.gid.table_exact",
        "QUERY_GID_TABLE for exactly the valid entries, one fewer: EINVAL",
    ),
    (
        "args.pkey.past_table",
        "sysfs P_Key table: pkey_tbl_len entries, no more",
    ),
    (
        "args.mr.remote_write_alone",
        "REG_MR REMOTE_WRITE without LOCAL_WRITE: EINVAL",
    ),
    (
        "args.mr.remote_atomic_alone",
        "REG_MR REMOTE_ATOMIC without LOCAL_WRITE: EINVAL",
    ),
    (
        "args.mr.access.none",
        "REG_MR with no right (local read): made",
    ),
    ("args.mr.access.local_write", "REG_MR LOCAL_WRITE: made"),
    ("args.mr.access.remote_read", "REG_MR REMOTE_READ: made"),
    (
        "args.mr.access.remote_write",
        "REG_MR LOCAL_WRITE|REMOTE_WRITE: made",
    ),
    (
        "args.mr.access.remote_atomic",
        "REG_MR LOCAL_WRITE|REMOTE_ATOMIC: made",
    ),
    ("args.mr.access.mw_bind", "REG_MR MW_BIND: made"),
    ("args.mr.unknown_bit", "REG_MR with access bit 15: EINVAL"),
    (
        "args.mr.optional_bit",
        "REG_MR RELAXED_ORDERING (optional): made",
    ),
    (
        "args.mr.on_demand",
        "REG_MR ON_DEMAND: made where the device has ODP, else EOPNOTSUPP (before 6.2: EINVAL)",
    ),
    (
        "args.mr.flush_global",
        "REG_MR FLUSH_GLOBAL: as the device's FLUSH_GLOBAL cap says",
    ),
    ("args.ah.no_grh", "CREATE_AH on RoCE without a GRH: EINVAL"),
    ("args.ah.port_zero", "CREATE_AH on port 0: EINVAL"),
    ("args.ah.past_last", "CREATE_AH on port count + 1: EINVAL"),
    (
        "args.ah.sgid_empty",
        "CREATE_AH from an empty source GID index: ENODATA",
    ),
    (
        "args.cq.vector_past.ioctl",
        "CREATE_CQ (ioctl) on vector num_comp_vectors: EINVAL",
    ),
    (
        "args.cq.vector_past.write",
        "CREATE_CQ (write) on vector num_comp_vectors: EINVAL",
    ),
    (
        "args.cq.vector_last",
        "CREATE_CQ on the last completion vector: made",
    ),
    (
        "args.cq.one_entry",
        "CREATE_CQ of 1 entry: made, at least 1",
    ),
    (
        "args.pd.many",
        "ALLOC_PD x200: distinct handles, netlink counts, all freed",
    ),
    (
        "args.qp.port_zero",
        "MODIFY_QP RESET->INIT on port 0: EINVAL",
    ),
    (
        "args.qp.past_last",
        "MODIFY_QP RESET->INIT on port count + 1: EINVAL",
    ),
    (
        "args.qp.ud_qkey_psn",
        "MODIFY_QP UD Q_Key and SQ PSN: QUERY_QP reads them back",
    ),
    (
        "args.qp.privileged_qkey",
        "MODIFY_QP UD Q_Key 0x80000000: as netlink's mode says",
    ),
    (
        "args.qp.psn_masked",
        "MODIFY_QP UD RTS with SQ PSN 0x1abcdef: read back 0xabcdef",
    ),
    (
        "args.qp.rc_rtr",
        "MODIFY_QP RC RTR: QUERY_QP reads MTU, PSN, dest, RNR timer back",
    ),
    (
        "args.qp.rc_rts",
        "MODIFY_QP RC RTS: QUERY_QP reads timeout, retries, PSN back",
    ),
    (
        "args.qp.rd_atomic_rounded",
        "MODIFY_QP RC RDMA read depths 3, 5: read back 4, 8 (rxe)",
    ),
    (
        "args.qp.rd_atomic_past_max",
        "MODIFY_QP RC max_rd_atomic past max_qp_rd_atom: EINVAL",
    ),
    (
        "args.srq.resize",
        "MODIFY_SRQ max_wr 4 -> 64: QUERY_SRQ >= 64 (siw: EOPNOTSUPP)",
    ),
    (
        "args.srq.limit_past_size",
        "MODIFY_SRQ limit past the SRQ's size: EINVAL",
    ),
    (
        "args.destroy.pd_with_mr",
        "DEALLOC_PD of a PD with an MR: EBUSY, MR still there",
    ),
    (
        "args.destroy.cq_with_qp",
        "DESTROY_CQ of a CQ with a QP: EBUSY, QP still there",
    ),
    (
        "args.destroy.srq_with_qp",
        "DESTROY_SRQ of an SRQ with a QP: EBUSY, QP still there",
    ),
    (NETLINK, "nldev SYS_GET: COPY_ON_FORK is 1"),
];

/// The netlink case (no context).
const NETLINK: &str = "args.netlink.copy_on_fork";

const EINVAL: Res = Err(Errno::INVAL);
const OK: Res = Ok(());
type Res = core::result::Result<(), Errno>;

// The rules, cited in diagnostics (kernel functions and files).
const PORT_RULE: &str = "ib_query_port, device.c: rdma_is_port_valid";
const GID_RULE: &str = "rdma_get_gid_attr, core/cache.c";
const MR_RULE: &str = "ib_check_mr_access, include/rdma/ib_verbs.h";
const AH_RULE: &str = "ib_uverbs_create_ah, rdma_check_ah_attr (verbs.c)";
const CQ_RULE: &str = "comp_vector >= num_comp_vectors: the CQ_CREATE handler, create_cq";
const QP_PORT: &str = "modify_qp, uverbs_cmd.c: rdma_is_port_valid";
const BUSY_RULE: &str = "ib_destroy_usecnt, core/rdma_core.c";
const SIW_RC: &str = "siw takes an RC QP past INIT only through the iWARP CM (siw_qp_modify)";

/// Runs the netlink case.
fn run_netlink() -> Outcome {
    let mut o = Outcome::new();
    match NlSocket::open().and_then(|mut s| crate::netlink::nldev::sys_get(&mut s)) {
        Ok(a) if a.copy_on_fork.is_none() => {
            return Outcome::skip(
                "the kernel's SYS_GET has no COPY_ON_FORK attribute (Linux 5.13 added it, \
                 commit 6cc9e215eb27, once pinned pages of every size were copied on fork): \
                 it makes no such promise, as rdma-core reads an absent attribute",
            )
        }
        Ok(a) => {
            o.fact("copy_on_fork", format!("{:?}", a.copy_on_fork));
            o.fact("privileged_qkey", format!("{:?}", a.privileged_qkey));
            o.check(a.copy_on_fork == Some(1), || {
                format!(
                    "SYS_GET COPY_ON_FORK {:?}, expected Some(1) (nldev_sys_get_doit, nldev.c)",
                    a.copy_on_fork
                )
            });
        }
        Err(e) => o.fail(e.to_string()),
    }
    o
}

/// Runs case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    if name == NETLINK {
        return run_netlink();
    }
    let mut o = Outcome::new();
    let ctx = match Context::open(info) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            o.fail(format!("open: {e}"));
            return o;
        }
    };
    let siw = match ctx.driver_id() {
        RDMA_DRIVER_RXE => false,
        RDMA_DRIVER_SIW => true,
        _ => return Outcome::skip("the args cases know rxe and siw only"),
    };
    let c = Case {
        info,
        ctx: &ctx,
        siw,
    };
    if let Err(e) = c.run(name, &mut o) {
        o.fail(e.to_string());
    }
    o
}

struct Case<'a> {
    info: &'a DeviceInfo,
    ctx: &'a Arc<Context>,
    siw: bool,
}

fn text(r: Res) -> String {
    match r {
        Ok(()) => "ok".to_owned(),
        Err(e) => format!("errno {}", e.raw_os_error()),
    }
}

/// The errno of a crate result (EIO when the error carries none).
fn res<T>(r: &Result<T>) -> Res {
    match r {
        Ok(_) => Ok(()),
        Err(e) => Err(e.errno().unwrap_or(Errno::IO)),
    }
}

/// Records `got` as fact `key` and checks it is `want` (by `rule`).
fn expect(o: &mut Outcome, key: &str, got: Res, want: Res, rule: &str) {
    o.fact(key, text(got));
    o.check(got == want, || {
        format!("{key}: expected {}, got {} ({rule})", text(want), text(got))
    });
}

/// A field read back: checks `got == want`.
fn back<T: PartialEq + core::fmt::Debug>(o: &mut Outcome, what: &str, got: T, want: T, rule: &str) {
    o.fact(what, format!("{got:?}"));
    o.check(got == want, || {
        format!("QUERY_QP {what}: {got:?}, set {want:?} ({rule})")
    });
}

/// The running kernel's (major, minor) release, (0, 0) when unreadable.
fn release() -> (u32, u32) {
    let u = rustix::system::uname();
    let r = u.release().to_string_lossy();
    let mut n = r
        .split(|c: char| !c.is_ascii_digit())
        .map(|x| x.parse().unwrap_or(0));
    (n.next().unwrap_or(0), n.next().unwrap_or(0))
}

/// Whether this process has CAP_NET_RAW (bit 13 of `CapEff` in /proc/self/status).
fn net_raw() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let hex = s
                .lines()
                .find_map(|l| l.strip_prefix("CapEff:"))?
                .trim()
                .to_owned();
            u64::from_str_radix(&hex, 16).ok()
        })
        .is_some_and(|c| c & (1 << 13) != 0)
}

const CAP: QpCap = QpCap {
    max_send_wr: 2,
    max_recv_wr: 2,
    max_send_sge: 1,
    max_recv_sge: 1,
    max_inline_data: 0,
};

/// MODIFY_QP as the kernel answers it (the errno, unclassified).
fn modify(qp: &Qp, m: ModifyQp) -> Res {
    run_cmd(
        qp.pd().context(),
        &m.to_uverbs(qp.handle()),
        DriverIn::NONE,
        &mut [],
    )
}

impl Case<'_> {
    fn run(&self, name: &str, o: &mut Outcome) -> Result<()> {
        let ctx = self.ctx;
        let last = ctx.port_count();
        match name {
            "args.port.zero.ioctl" => self.port(0, false, o),
            "args.port.zero.write" => self.port(0, true, o),
            "args.port.past_last.ioctl" => self.port(last.saturating_add(1), false, o),
            "args.port.past_last.write" => self.port(last.saturating_add(1), true, o),
            "args.gid.empty_index" | "args.gid.past_table" | "args.gid.port_zero" => {
                self.gid(name, o)?
            }
            "args.gid.table_zero" | "args.gid.table_exact" => self.gid_table(name, o)?,
            "args.pkey.past_table" => self.pkey(o)?,
            "args.mr.remote_write_alone" => self.mr(AccessFlags::REMOTE_WRITE.bits(), EINVAL, o)?,
            "args.mr.remote_atomic_alone" => {
                self.mr(AccessFlags::REMOTE_ATOMIC.bits(), EINVAL, o)?
            }
            "args.mr.access.none" => self.mr(0, OK, o)?,
            "args.mr.access.local_write" => self.mr(AccessFlags::LOCAL_WRITE.bits(), OK, o)?,
            "args.mr.access.remote_read" => self.mr(AccessFlags::REMOTE_READ.bits(), OK, o)?,
            "args.mr.access.remote_write" => self.mr(
                (AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE).bits(),
                OK,
                o,
            )?,
            "args.mr.access.remote_atomic" => self.mr(
                (AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_ATOMIC).bits(),
                OK,
                o,
            )?,
            "args.mr.access.mw_bind" => self.mr(AccessFlags::MW_BIND.bits(), OK, o)?,
            "args.mr.unknown_bit" => self.mr(1 << 15, EINVAL, o)?,
            "args.mr.optional_bit" => self.mr(AccessFlags::RELAXED_ORDERING.bits(), OK, o)?,
            "args.mr.on_demand" => {
                // A device with on-demand paging (its odp_caps say so: 7.3's rxe, not
                // 6.12's) registers it; without, EINVAL until Linux 6.2 made it EOPNOTSUPP
                // (with the FLUSH rights; no capability tells that change).
                let odp = ctx
                    .query_device()?
                    .odp_caps
                    .general_caps
                    .contains(crate::types::OdpGeneralCaps::SUPPORT);
                o.fact("odp", odp);
                let want = match (odp, release() >= (6, 2)) {
                    (true, _) => OK,
                    (false, true) => Err(Errno::OPNOTSUPP),
                    (false, false) => EINVAL,
                };
                self.mr(AccessFlags::ON_DEMAND.bits(), want, o)?
            }
            "args.mr.flush_global" => {
                // Bit 8 is undefined before Linux 6.2 (EINVAL); since, it needs the
                // device's IB_DEVICE_FLUSH_GLOBAL (bit 38) or is EOPNOTSUPP.
                let cap = ctx.query_device()?.device_cap_flags_ex.bits() & (1 << 38) != 0;
                o.fact("cap", cap);
                let want = match (release() >= (6, 2), cap) {
                    (false, _) => EINVAL,
                    (true, true) => OK,
                    (true, false) => Err(Errno::OPNOTSUPP),
                };
                self.mr(1 << 8, want, o)?
            }
            "args.ah.no_grh" | "args.ah.port_zero" | "args.ah.past_last" | "args.ah.sgid_empty" => {
                self.ah(name, o)?
            }
            "args.cq.vector_past.ioctl" => self.vector(CallPath::Ioctl, o)?,
            "args.cq.vector_past.write" => self.vector(CallPath::Write, o)?,
            "args.cq.vector_last" => {
                let v = ctx.num_comp_vectors().saturating_sub(1);
                o.fact("vector", v);
                let r = ctx.create_cq(4, None, v);
                expect(o, "answer", res(&r), OK, CQ_RULE);
            }
            "args.cq.one_entry" => {
                let cq = ctx.create_cq(1, None, 0)?;
                o.fact("cqe", cq.cqe());
                o.check(cq.cqe() >= 1, || {
                    format!("CREATE_CQ of 1: cqe {}", cq.cqe())
                });
            }
            "args.pd.many" => self.many_pds(o)?,
            "args.qp.port_zero" => self.qp_port(0, o)?,
            "args.qp.past_last" => self.qp_port(last.saturating_add(1), o)?,
            "args.qp.ud_qkey_psn" | "args.qp.privileged_qkey" | "args.qp.psn_masked" => {
                self.ud(name, o)?
            }
            "args.qp.rc_rtr"
            | "args.qp.rc_rts"
            | "args.qp.rd_atomic_rounded"
            | "args.qp.rd_atomic_past_max" => self.rc(name, o)?,
            "args.srq.resize" | "args.srq.limit_past_size" => self.srq(name, o)?,
            "args.destroy.pd_with_mr" | "args.destroy.cq_with_qp" | "args.destroy.srq_with_qp" => {
                self.destroy(name, o)?
            }
            _ => o.fail(format!("no args case {name}")),
        }
        Ok(())
    }

    /// QUERY_PORT of `port` by ioctl or `write()`, and of port 1 the same way.
    fn port(&self, port: u8, write: bool, o: &mut Outcome) {
        let f = self.ctx.raw();
        let ask = |p: u8| -> Res {
            if write {
                let mut r = ib_uverbs_query_port_resp::default();
                f.write(&mut method::write_query_port(p, &mut r))
            } else {
                let mut r = ib_uverbs_query_port_resp_ex::default();
                f.call(&mut method::query_port(f.driver_id(), p, &mut r))
            }
        };
        expect(o, "port_1", ask(1), OK, "the control");
        o.fact("port", port);
        expect(o, "answer", ask(port), EINVAL, PORT_RULE);
    }

    fn gid_entry(&self, port: u32, index: u32) -> Res {
        let f = self.ctx.raw();
        let mut e = ib_uverbs_gid_entry::default();
        f.call(&mut method::query_gid_entry(
            f.driver_id(),
            port,
            index,
            &mut e,
        ))
    }

    /// Port 1's GID table length and its valid indexes.
    fn gids(&self) -> Result<(u32, Vec<u32>)> {
        let len = self.ctx.query_port(1)?.gid_tbl_len;
        let all = self
            .ctx
            .query_gid_table(len as usize * usize::from(self.ctx.port_count()))?;
        let valid = all
            .iter()
            .filter(|g| g.port == 1)
            .map(|g| g.index)
            .collect();
        Ok((len, valid))
    }

    fn gid(&self, name: &str, o: &mut Outcome) -> Result<()> {
        let (len, valid) = self.gids()?;
        o.fact("gid_tbl_len", len);
        let Some(&first) = valid.first() else {
            o.fail("port 1 has no valid GID");
            return Ok(());
        };
        expect(
            o,
            "valid_index",
            self.gid_entry(1, first),
            OK,
            "the control",
        );
        let (port, index, want) = match name {
            "args.gid.empty_index" => match (0..len).find(|i| !valid.contains(i)) {
                Some(i) => (1, i, Err(Errno::NODATA)),
                None => {
                    *o = Outcome::skip(format!(
                        "every one of port 1's {len} GID entries is valid: none is empty"
                    ));
                    return Ok(());
                }
            },
            "args.gid.past_table" => (1, len, EINVAL),
            _ => (0, first, EINVAL),
        };
        o.fact("asked", format!("port {port} index {index}"));
        expect(o, "answer", self.gid_entry(port, index), want, GID_RULE);
        Ok(())
    }

    fn gid_table(&self, name: &str, o: &mut Outcome) -> Result<()> {
        let f = self.ctx.raw();
        let ask = |n: usize| -> core::result::Result<u64, Errno> {
            let mut v = vec![ib_uverbs_gid_entry::default(); n];
            let mut got = 0u64;
            f.call(&mut method::query_gid_table(
                f.driver_id(),
                &mut v,
                &mut got,
            ))
            .map(|()| got)
        };
        const RULE: &str = "the QUERY_GID_TABLE handler, uverbs_std_types_device.c";
        if name == "args.gid.table_zero" {
            expect(o, "answer", ask(0).map(drop), EINVAL, RULE);
            return Ok(());
        }
        let (len, valid) = self.gids()?;
        let ports = usize::from(self.ctx.port_count());
        let n = self.ctx.query_gid_table(len as usize * ports)?.len();
        o.fact("valid", n);
        o.fact("valid.port_1", valid.len());
        let got = ask(n);
        o.check(got == Ok(n as u64), || {
            format!("QUERY_GID_TABLE for {n} entries (the valid ones): {got:?} ({RULE})")
        });
        if n >= 2 {
            expect(o, "one_fewer", ask(n - 1).map(drop), EINVAL, RULE);
        } else {
            o.fact(
                "one_fewer",
                "not asked (that is 0 entries: args.gid.table_zero)",
            );
        }
        Ok(())
    }

    fn pkey(&self, o: &mut Outcome) -> Result<()> {
        if self.info.transport == TransportType::Iwarp {
            *o = Outcome::skip("iWARP has no P_Keys");
            return Ok(());
        }
        let len = self.ctx.query_port(1)?.pkey_tbl_len;
        o.fact("pkey_tbl_len", len);
        let read = |i: u16| {
            let p = self
                .ctx
                .sysfs_root()
                .join("class/infiniband")
                .join(&self.info.name)
                .join(format!("ports/1/pkeys/{i}"));
            crate::sysfs::attr::read_attr(p.as_os_str().as_encoded_bytes())
        };
        const RULE: &str = "alloc_port_table_group, core/sysfs.c";
        let lastr = read(len.saturating_sub(1));
        o.check(lastr.errno().is_none(), || {
            format!(
                "pkeys/{}: {:?} ({RULE})",
                len.saturating_sub(1),
                lastr.errno()
            )
        });
        let past = read(len).errno();
        o.fact("past", format!("{past:?}"));
        o.check(past == Some(Errno::NOENT), || {
            format!("pkeys/{len}: {past:?}, expected ENOENT ({RULE})")
        });
        Ok(())
    }

    fn mr(&self, bits: u32, want: Res, o: &mut Outcome) -> Result<()> {
        let pd = self.ctx.alloc_pd()?;
        let buf = MrBuf::new(4096).map_err(|e| crate::error::Error::Os {
            op: crate::error::Op::new("allocating 4 KiB", self.ctx.name()),
            errno: e,
        })?;
        o.fact("access", format!("{bits:#x}"));
        let r = pd.reg_mr(buf, AccessFlags::from_bits_retain(bits));
        expect(o, "answer", res(&r), want, MR_RULE);
        if let Ok(mr) = &r {
            let remote =
                AccessFlags::REMOTE_READ | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_ATOMIC;
            let (l, k) = (mr.lkey(), mr.rkey());
            o.fact(
                "rkey",
                if k == 0 {
                    "0"
                } else if k == l {
                    "lkey"
                } else {
                    "other"
                },
            );
            // siw's rkey is its STag, the lkey (siw_mr_add_mem, siw_mem.c); rxe's is the
            // lkey too since its rxe_mr_init stopped answering 0 without a remote right
            // (6.1 still did; 6.12 does not): 0 is right only there, on rxe.
            let old_rxe = !self.siw && bits & remote.bits() == 0 && k == 0;
            o.check(k == l || old_rxe, || {
                format!("REG_MR access {bits:#x}: lkey {l:#x}, rkey {k:#x}: neither the lkey nor rxe's 0 without a remote right (rxe_mr_init, rxe_mr.c; siw_mr_add_mem, siw_mem.c)")
            });
        }
        Ok(())
    }

    fn ah(&self, name: &str, o: &mut Outcome) -> Result<()> {
        if self.siw {
            *o = Outcome::skip("siw has no address handles (CREATE_AH: EOPNOTSUPP)");
            return Ok(());
        }
        let pd = self.ctx.alloc_pd()?;
        let (len, valid) = self.gids()?;
        let Some(g) = self.ctx.query_gid(1, valid.first().copied().unwrap_or(0))? else {
            o.fail("port 1 has no valid GID");
            return Ok(());
        };
        let good = AhAttr::global(1, g.index as u8, g.gid, 1);
        expect(o, "valid", res(&pd.create_ah(&good)), OK, "the control");
        let last = self.ctx.port_count();
        let (attr, want) = match name {
            "args.ah.no_grh" => {
                if self.ctx.query_port(1)?.link_layer != LinkLayer::Ethernet {
                    *o = Outcome::skip("port 1 is not RoCE");
                    return Ok(());
                }
                (
                    AhAttr {
                        is_global: false,
                        ..good
                    },
                    EINVAL,
                )
            }
            "args.ah.port_zero" => (
                AhAttr {
                    port_num: 0,
                    ..good
                },
                EINVAL,
            ),
            "args.ah.past_last" => (
                AhAttr {
                    port_num: last.saturating_add(1),
                    ..good
                },
                EINVAL,
            ),
            _ => match (0..len.min(256)).find(|i| !valid.contains(i)) {
                Some(i) => {
                    let mut a = good;
                    a.grh.sgid_index = i as u8;
                    o.fact("sgid_index", i);
                    (a, Err(Errno::NODATA))
                }
                None => {
                    *o = Outcome::skip("no empty GID index below 256");
                    return Ok(());
                }
            },
        };
        expect(o, "answer", res(&pd.create_ah(&attr)), want, AH_RULE);
        Ok(())
    }

    fn vector(&self, path: CallPath, o: &mut Outcome) -> Result<()> {
        let ctx = Arc::new(OpenOptions::new().objects(path).open(self.info)?);
        let n = ctx.num_comp_vectors();
        o.fact("num_comp_vectors", n);
        let control = ctx.create_cq(4, None, 0);
        expect(o, "vector_0", res(&control), OK, "the control");
        expect(
            o,
            "answer",
            res(&ctx.create_cq(4, None, n)),
            EINVAL,
            CQ_RULE,
        );
        Ok(())
    }

    fn many_pds(&self, o: &mut Outcome) -> Result<()> {
        const N: usize = 200;
        let Some(index) = self.info.index else {
            o.fail("the device has no netlink index");
            return Ok(());
        };
        let mut sock = NlSocket::open()?;
        let count = |s: &mut NlSocket| -> Result<u64> {
            let r = Resources::of(s, index)?;
            Ok(r.0.iter().find(|(n, _)| n == "pd").map_or(0, |(_, v)| *v))
        };
        let before = Resources::of(&mut sock, index)?;
        let pd0 = count(&mut sock)?;
        let pds = (0..N)
            .map(|_| self.ctx.alloc_pd())
            .collect::<Result<Vec<Pd>>>()?;
        let mut h: Vec<u32> = pds.iter().map(Pd::handle).collect();
        h.sort_unstable();
        h.dedup();
        o.check(h.len() == N, || {
            format!("{N} PDs, {} distinct handles", h.len())
        });
        let during = count(&mut sock)?;
        o.check(during == pd0 + N as u64, || {
            format!("netlink counts {during} PDs with {N} made over {pd0}")
        });
        let mut failed = 0;
        for pd in pds {
            failed += usize::from(pd.try_destroy().is_err());
        }
        o.check(failed == 0, || format!("{failed} DEALLOC_PD failed"));
        let changed = Resources::of(&mut sock, index)?.changed_since(&before);
        o.check(changed.is_empty(), || {
            format!("after: {}", changed.join(", "))
        });
        Ok(())
    }

    fn qp(&self, pd: &Pd, cq: &Cq, t: QpType) -> Result<Qp> {
        pd.create_qp(&QpInit::new(t, cq, cq).cap(CAP))
    }

    fn qp_port(&self, port: u8, o: &mut Outcome) -> Result<()> {
        let pd = self.ctx.alloc_pd()?;
        let cq = self.ctx.create_cq(4, None, 0)?;
        let qp = self.qp(&pd, &cq, QpType::Rc)?;
        let init = |p| ModifyQp::init(QpType::Rc, p, AccessFlags::empty(), 0);
        o.fact("port", port);
        expect(o, "answer", modify(&qp, init(port)), EINVAL, QP_PORT);
        expect(o, "port_1", modify(&qp, init(1)), OK, "the control");
        Ok(())
    }

    fn ud(&self, name: &str, o: &mut Outcome) -> Result<()> {
        if self.siw {
            *o = Outcome::skip("iWARP has no UD QPs (siw: CREATE_QP EOPNOTSUPP)");
            return Ok(());
        }
        let pd = self.ctx.alloc_pd()?;
        let cq = self.ctx.create_cq(4, None, 0)?;
        let qp = self.qp(&pd, &cq, QpType::Ud)?;
        let init = |q| ModifyQp::init(QpType::Ud, 1, AccessFlags::empty(), q);
        match name {
            "args.qp.privileged_qkey" => {
                let mode = NlSocket::open()
                    .and_then(|mut s| crate::netlink::nldev::sys_get(&mut s))?
                    .privileged_qkey;
                o.fact("netlink.privileged_qkey", format!("{mode:?}"));
                // The high bit needs the mode on or CAP_NET_RAW (Linux 6.5; Debian's 6.1
                // has it too, with the netlink attribute); without the attribute, no rule.
                let raw = net_raw();
                o.fact("cap_net_raw", raw);
                let (want, rule) = match mode {
                    Some(0) if !raw => (
                        Err(Errno::PERM),
                        "modify_qp, uverbs_cmd.c: the privileged Q_Key mode off, no CAP_NET_RAW",
                    ),
                    _ => (
                        OK,
                        "modify_qp, uverbs_cmd.c: CAP_NET_RAW or the privileged Q_Key mode",
                    ),
                };
                expect(o, "answer", modify(&qp, init(0x8000_0000)), want, rule);
            }
            _ => {
                expect(o, "init", modify(&qp, init(0x1234_5678)), OK, "RESET->INIT");
                expect(
                    o,
                    "rtr",
                    modify(&qp, ModifyQp::new().state(crate::types::QpState::Rtr)),
                    OK,
                    "INIT->RTR",
                );
                // _ib_modify_qp (verbs.c) masks a PSN past 24 bits, with a warning.
                let masked = name == "args.qp.psn_masked";
                let psn = if masked { 0x1ab_cdef } else { 0xab_cdef };
                expect(
                    o,
                    "rts",
                    modify(&qp, ModifyQp::rts(QpType::Ud, psn)),
                    OK,
                    "RTR->RTS",
                );
                let a = qp.query()?.attr();
                const RULE: &str = "ib_uverbs_query_qp; _ib_modify_qp masks a PSN to 24 bits";
                if !masked {
                    back(o, "qkey", a.qkey, 0x1234_5678, RULE);
                }
                back(o, "sq_psn", a.sq_psn, 0xab_cdef, RULE);
            }
        }
        Ok(())
    }

    /// An RC QP taken to RTR towards itself and to RTS, each step's modification passed
    /// through `tune`; QUERY_QP's answers checked by the case.
    fn rc(&self, name: &str, o: &mut Outcome) -> Result<()> {
        if self.siw {
            *o = Outcome::skip(SIW_RC);
            return Ok(());
        }
        let dev = self.ctx.query_device()?;
        let pd = self.ctx.alloc_pd()?;
        let cq = self.ctx.create_cq(4, None, 0)?;
        let qp = self.qp(&pd, &cq, QpType::Rc)?;
        let Some(g) = self.ctx.query_gid(1, 0)? else {
            *o = Outcome::skip("port 1 has no GID at index 0");
            return Ok(());
        };
        let init = ModifyQp::init(QpType::Rc, 1, AccessFlags::REMOTE_READ, 0);
        expect(o, "init", modify(&qp, init), OK, "RESET->INIT");
        let path = AhAttr::global(1, 0, g.gid, 1);
        let rtr = ModifyQp::rtr(QpType::Rc, Mtu::Mtu512, qp.qp_num(), 0x2345, path);
        let (dest, rd) = match name {
            "args.qp.rd_atomic_rounded" => (3, 5),
            _ => (4, 8),
        };
        let rtr = rtr.max_dest_rd_atomic(dest).min_rnr_timer(17);
        expect(o, "rtr", modify(&qp, rtr), OK, "INIT->RTR");
        let rts = ModifyQp::rts(QpType::Rc, 0x3456)
            .timeout(20)
            .retry_cnt(5)
            .rnr_retry(6);
        if name == "args.qp.rd_atomic_past_max" {
            let over = dev.max_qp_rd_atom.saturating_add(1);
            o.fact("max_qp_rd_atom", dev.max_qp_rd_atom);
            let Ok(over) = u8::try_from(over) else {
                *o = Outcome::skip("max_qp_rd_atom + 1 does not fit the 8-bit field");
                return Ok(());
            };
            let r = modify(&qp, rts.max_rd_atomic(over));
            expect(o, "answer", r, EINVAL, "rxe_qp_chk_attr, rxe_qp.c");
            return Ok(());
        }
        let rts = rts.max_rd_atomic(rd);
        if name != "args.qp.rc_rtr" {
            expect(o, "rts", modify(&qp, rts), OK, "RTR->RTS");
        }
        let a = qp.query()?.attr();
        const Q: &str = "rxe_qp_from_attr, rxe_qp_to_attr (rxe_qp.c)";
        match name {
            "args.qp.rc_rtr" => {
                back(o, "path_mtu", a.path_mtu, Mtu::Mtu512, Q);
                back(o, "dest_qp_num", a.dest_qp_num, qp.qp_num(), Q);
                back(o, "rq_psn", a.rq_psn, 0x2345, Q);
                back(o, "max_dest_rd_atomic", a.max_dest_rd_atomic, 4, Q);
                back(o, "min_rnr_timer", a.min_rnr_timer, 17, Q);
                back(o, "sgid_index", a.ah_attr.grh.sgid_index, 0, Q);
            }
            "args.qp.rc_rts" => {
                back(o, "sq_psn", a.sq_psn, 0x3456, Q);
                back(o, "timeout", a.timeout, 20, Q);
                back(o, "retry_cnt", a.retry_cnt, 5, Q);
                back(o, "rnr_retry", a.rnr_retry, 6, Q);
                back(o, "max_rd_atomic", a.max_rd_atomic, 8, Q);
            }
            _ => {
                // rxe rounds both depths up to a power of two.
                back(o, "max_dest_rd_atomic", a.max_dest_rd_atomic, 4, Q);
                back(o, "max_rd_atomic", a.max_rd_atomic, 8, Q);
            }
        }
        Ok(())
    }

    fn srq(&self, name: &str, o: &mut Outcome) -> Result<()> {
        let pd = self.ctx.alloc_pd()?;
        let srq = pd.create_srq(&SrqInit {
            max_wr: 4,
            max_sge: 1,
            srq_limit: 0,
        })?;
        o.fact("granted", srq.max_wr());
        if name == "args.srq.resize" {
            let r = srq.modify(&ModifySrq::new().max_wr(64));
            let (want, rule) = if self.siw {
                (
                    Err(Errno::OPNOTSUPP),
                    "siw_modify_srq, siw_verbs.c: no resize",
                )
            } else {
                (OK, "rxe_srq_chk_attr, rxe_srq_from_attr (rxe_srq.c)")
            };
            expect(o, "answer", res(&r), want, rule);
            let now = srq.query()?.max_wr;
            o.fact("max_wr", now);
            let grown = if self.siw {
                now == srq.max_wr()
            } else {
                now >= 64
            };
            o.check(grown, || {
                format!("QUERY_SRQ max_wr {now} after the resize ({rule})")
            });
        } else {
            let r = srq.modify(&ModifySrq::new().limit(1024));
            let rule = if self.siw {
                "siw_modify_srq, siw_verbs.c: limit > num_rqe"
            } else {
                "rxe_srq_chk_attr, rxe_srq.c: limit past the queue"
            };
            expect(o, "answer", res(&r), EINVAL, rule);
            expect(
                o,
                "limit_1",
                res(&srq.modify(&ModifySrq::new().limit(1))),
                OK,
                "the control",
            );
        }
        Ok(())
    }

    fn destroy(&self, name: &str, o: &mut Outcome) -> Result<()> {
        let ctx = self.ctx;
        let f = ctx.raw();
        let pd = ctx.alloc_pd()?;
        let cq = ctx.create_cq(4, None, 0)?;
        match name {
            "args.destroy.pd_with_mr" => {
                let buf = MrBuf::new(4096).map_err(|e| crate::error::Error::Os {
                    op: crate::error::Op::new("allocating 4 KiB", ctx.name()),
                    errno: e,
                })?;
                let mr = pd.reg_mr(buf, AccessFlags::LOCAL_WRITE)?;
                let r = crate::verbs::objects::destroy_pd_handle(ctx, pd.handle());
                expect(o, "answer", r, Err(Errno::BUSY), BUSY_RULE);
                expect(
                    o,
                    "dereg_mr",
                    mr.try_destroy()
                        .map(drop)
                        .map_err(|(_, e)| e.errno().unwrap_or(Errno::IO)),
                    OK,
                    "the MR was left",
                );
            }
            "args.destroy.cq_with_qp" => {
                let qp = self.qp(&pd, &cq, QpType::Rc)?;
                let mut resp = ib_uverbs_destroy_cq_resp::default();
                let r = f.call(&mut method::destroy_cq(
                    f.driver_id(),
                    cq.handle(),
                    &mut resp,
                ));
                expect(o, "answer", r, Err(Errno::BUSY), BUSY_RULE);
                expect(o, "query_qp", res(&qp.query()), OK, "the QP was left");
            }
            _ => {
                let srq = pd.create_srq(&SrqInit {
                    max_wr: 4,
                    max_sge: 1,
                    srq_limit: 0,
                })?;
                let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(CAP).srq(&srq))?;
                let mut resp = ib_uverbs_destroy_srq_resp::default();
                let r = f.call(&mut method::destroy_srq(
                    f.driver_id(),
                    srq.handle(),
                    &mut resp,
                ));
                expect(o, "answer", r, Err(Errno::BUSY), BUSY_RULE);
                expect(o, "query_qp", res(&qp.query()), OK, "the QP was left");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_in_the_group() {
        for (i, (n, _)) in CASES.iter().enumerate() {
            assert!(n.starts_with("args."), "{n}");
            assert!(CASES[..i].iter().all(|(m, _)| m != n), "{n} twice");
        }
    }
}
