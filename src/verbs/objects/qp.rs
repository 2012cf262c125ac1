//! Queue pairs: create, modify, query, destroy.

use std::sync::atomic::{AtomicU32, Ordering};

use zerocopy::FromBytes;

use super::cq::{handle_of, removed};
use super::{
    check_driver, failed, ioctl_or_write, run_cmd, same_context, AhAttr, Cq, Pd, Srq, DRIVER_OUT,
};
use crate::error::{Error, Op, Result};
use crate::raw::abi::*;
use crate::raw::fallback::Interface;
use crate::raw::method::{self, CreateQp, DriverIn};
use crate::types::{AccessFlags, MigState, Mtu, QpAttrMask, QpState, QpType};
use crate::verbs::datapath::{self, QueueLock, RecvRing, RecvWr, SendRing, SendWr};

/// The capacities of a queue pair (`struct ibv_qp_cap`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "ibv_qp_cap")]
pub struct QpCap {
    /// Work requests of the send queue.
    pub max_send_wr: u32,
    /// Work requests of the receive queue (0 with an SRQ).
    pub max_recv_wr: u32,
    /// Scatter/gather entries per send work request.
    pub max_send_sge: u32,
    /// Scatter/gather entries per receive work request.
    pub max_recv_sge: u32,
    /// Bytes of inline data per send work request.
    pub max_inline_data: u32,
}

impl QpCap {
    fn to_uverbs(self) -> ib_uverbs_qp_cap {
        ib_uverbs_qp_cap {
            max_send_wr: self.max_send_wr,
            max_recv_wr: self.max_recv_wr,
            max_send_sge: self.max_send_sge,
            max_recv_sge: self.max_recv_sge,
            max_inline_data: self.max_inline_data,
        }
    }

    fn from_uverbs(c: &ib_uverbs_qp_cap) -> QpCap {
        QpCap {
            max_send_wr: c.max_send_wr,
            max_recv_wr: c.max_recv_wr,
            max_send_sge: c.max_send_sge,
            max_recv_sge: c.max_recv_sge,
            max_inline_data: c.max_inline_data,
        }
    }
}

/// What a queue pair is created with (`struct ibv_qp_init_attr`): its type and CQs
/// (required), then its capacities, SRQ and signalling as chained setters.
#[derive(Debug, Clone, Copy)]
#[doc(alias = "ibv_qp_init_attr")]
#[must_use = "QP attributes do nothing until passed to Pd::create_qp"]
pub struct QpInit<'a> {
    qp_type: QpType,
    send_cq: &'a Cq,
    recv_cq: &'a Cq,
    srq: Option<&'a Srq>,
    cap: QpCap,
    sq_sig_all: bool,
}

impl<'a> QpInit<'a> {
    /// A QP of `qp_type` completing sends into `send_cq` and receives into `recv_cq`,
    /// with capacities of one work request and one SGE each way (set them with
    /// [`Self::cap`]).
    pub fn new(qp_type: QpType, send_cq: &'a Cq, recv_cq: &'a Cq) -> Self {
        QpInit {
            qp_type,
            send_cq,
            recv_cq,
            srq: None,
            cap: QpCap {
                max_send_wr: 1,
                max_recv_wr: 1,
                max_send_sge: 1,
                max_recv_sge: 1,
                max_inline_data: 0,
            },
            sq_sig_all: false,
        }
    }
    /// The capacities to ask for.
    pub fn cap(mut self, cap: QpCap) -> Self {
        self.cap = cap;
        self
    }
    /// Receive from `srq` instead of a receive queue of its own.
    pub fn srq(mut self, srq: &'a Srq) -> Self {
        self.srq = Some(srq);
        self
    }
    /// Whether every send work request generates a completion.
    pub fn sq_sig_all(mut self, on: bool) -> Self {
        self.sq_sig_all = on;
        self
    }
}

/// The attributes of a queue pair (`struct ibv_qp_attr`), as QUERY_QP answers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "ibv_qp_attr")]
pub struct QpAttr {
    /// The current state.
    pub qp_state: QpState,
    /// The state the kernel reports as "current" (as `qp_state` on every driver here).
    pub cur_qp_state: QpState,
    /// The path MTU (RC and UC).
    pub path_mtu: Mtu,
    /// The path migration state.
    pub path_mig_state: MigState,
    /// The Q_Key (UD).
    pub qkey: u32,
    /// The receive queue's PSN (RC and UC).
    pub rq_psn: u32,
    /// The send queue's PSN.
    pub sq_psn: u32,
    /// The destination QP number (RC and UC).
    pub dest_qp_num: u32,
    /// The remote access rights enabled.
    pub qp_access_flags: AccessFlags,
    /// The capacities.
    pub cap: QpCap,
    /// The primary path.
    pub ah_attr: AhAttr,
    /// The alternate path.
    pub alt_ah_attr: AhAttr,
    /// The primary P_Key index.
    pub pkey_index: u16,
    /// The alternate P_Key index.
    pub alt_pkey_index: u16,
    /// Whether the SQD drained event is enabled. QUERY_QP does not carry it
    /// (`ib_uverbs_query_qp_resp` has no such field; the man page calls it irrelevant
    /// for a query): always false, as libibverbs leaves it.
    pub en_sqd_async_notify: bool,
    /// Whether the send queue is draining (state SQD).
    pub sq_draining: bool,
    /// Outstanding RDMA reads and atomics as initiator (RC).
    pub max_rd_atomic: u8,
    /// Responder resources for RDMA reads and atomics (RC).
    pub max_dest_rd_atomic: u8,
    /// The minimum RNR NAK timer (RC).
    pub min_rnr_timer: u8,
    /// The primary port.
    pub port_num: u8,
    /// The local ACK timeout of the primary path (RC).
    pub timeout: u8,
    /// The retry count (RC).
    pub retry_cnt: u8,
    /// The RNR retry count (RC).
    pub rnr_retry: u8,
    /// The alternate port.
    pub alt_port_num: u8,
    /// The local ACK timeout of the alternate path (RC).
    pub alt_timeout: u8,
}

/// The creation attributes of a queue pair as a query answers them (`struct
/// ibv_qp_init_attr`): objects by their handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpInitAttr {
    /// The type.
    pub qp_type: QpType,
    /// The send CQ's handle.
    pub send_cq: u32,
    /// The receive CQ's handle.
    pub recv_cq: u32,
    /// The SRQ's handle, if any.
    pub srq: Option<u32>,
    /// The capacities (the current ones, as the kernel answers).
    pub cap: QpCap,
    /// Whether every send work request generates a completion.
    pub sq_sig_all: bool,
}

/// The alternate path of a queue pair (`IBV_QP_ALT_PATH`: `alt_ah_attr`,
/// `alt_pkey_index`, `alt_port_num`, `alt_timeout`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AltPath {
    /// The address vector.
    pub ah_attr: AhAttr,
    /// The P_Key index.
    pub pkey_index: u16,
    /// The port.
    pub port_num: u8,
    /// The local ACK timeout.
    pub timeout: u8,
}

/// A modification of a queue pair (`ibv_modify_qp`): the attributes to set, one setter
/// each, and so the mask the kernel gets ([`QpAttrMask`]: a bit is set exactly when its
/// attribute was given).
///
/// ```
/// use uverbs::verbs::objects::ModifyQp;
/// use uverbs::{AccessFlags, QpAttrMask, QpState};
/// let m = ModifyQp::new().state(QpState::Init).pkey_index(0).port(1).access(AccessFlags::empty());
/// assert_eq!(m.mask(), QpAttrMask::STATE | QpAttrMask::PKEY_INDEX | QpAttrMask::PORT | QpAttrMask::ACCESS_FLAGS);
/// ```
///
/// It holds the MODIFY_QP command itself, mask included, and [`Qp::modify`] sends that
/// command as it is, with the QP's handle written in: the kernel reads it from the
/// caller's value, so a modification is never copied (under the rig's emulator, a copy
/// of its 112 bytes cost a tenth of the fastest driver's whole modify_qp). Equality
/// leaves that handle out.
#[derive(Debug, Clone, Copy, Default)]
#[doc(alias = "ibv_modify_qp")]
#[must_use = "a QP change does nothing until passed to Qp::modify"]
pub struct ModifyQp {
    cmd: ib_uverbs_modify_qp,
}

impl PartialEq for ModifyQp {
    fn eq(&self, other: &Self) -> bool {
        self.to_uverbs(0) == other.to_uverbs(0)
    }
}

impl Eq for ModifyQp {}

macro_rules! setter {
    ($(#[$m:meta])* $name:ident($t:ty) => $bit:ident, |$c:ident, $v:ident| $body:expr) => {
        $(#[$m])*
        pub fn $name(mut self, $v: $t) -> Self {
            let $c = &mut self.cmd;
            $body;
            self.cmd.attr_mask |= QpAttrMask::$bit.bits();
            self
        }
    };
}

impl ModifyQp {
    /// Nothing to set yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// RESET to INIT on port `port` with P_Key index 0: for RC and UC the remote access
    /// rights `access`, for UD the Q_Key `qkey` (each type's required attributes).
    pub fn init(qp_type: QpType, port: u8, access: AccessFlags, qkey: u32) -> Self {
        let m = Self::new().state(QpState::Init).pkey_index(0).port(port);
        match qp_type {
            QpType::Ud => m.qkey(qkey),
            _ => m.access(access),
        }
    }

    /// INIT to RTR: for RC and UC towards QP `dest_qp_num`, whose first PSN is
    /// `rq_psn`, along `path` with MTU `mtu`, and for RC the responder's limits as
    /// `ibv_rc_pingpong` sets them (one RDMA read or atomic in flight, RNR timer 12:
    /// 0.64 ms); for UD the state alone.
    pub fn rtr(qp_type: QpType, mtu: Mtu, dest_qp_num: u32, rq_psn: u32, path: AhAttr) -> Self {
        let m = Self::new().state(QpState::Rtr);
        let m = match qp_type {
            QpType::Ud => return m,
            _ => m
                .path_mtu(mtu)
                .dest_qp_num(dest_qp_num)
                .rq_psn(rq_psn)
                .av(path),
        };
        match qp_type {
            QpType::Rc => m.max_dest_rd_atomic(1).min_rnr_timer(12),
            _ => m,
        }
    }

    /// RTR to RTS with first send PSN `sq_psn`, and for RC the requester's retries as
    /// `ibv_rc_pingpong` sets them (timeout 14: 67 ms, 7 retries and RNR retries, one
    /// RDMA read or atomic in flight).
    pub fn rts(qp_type: QpType, sq_psn: u32) -> Self {
        let m = Self::new().state(QpState::Rts).sq_psn(sq_psn);
        match qp_type {
            QpType::Rc => m.timeout(14).retry_cnt(7).rnr_retry(7).max_rd_atomic(1),
            _ => m,
        }
    }

    /// The same modification without the attributes of `mask`: their bits are cleared,
    /// so the kernel does not read them (their values stay in the command, unread). For
    /// a transition asked without one of the attributes it requires, which the kernel
    /// must refuse.
    ///
    /// ```
    /// use uverbs::verbs::objects::ModifyQp;
    /// use uverbs::{AccessFlags, QpAttrMask, QpType};
    /// let m = ModifyQp::init(QpType::Rc, 1, AccessFlags::empty(), 0).without(QpAttrMask::PORT);
    /// assert_eq!(m.mask(), QpAttrMask::STATE | QpAttrMask::PKEY_INDEX | QpAttrMask::ACCESS_FLAGS);
    /// ```
    pub fn without(mut self, mask: QpAttrMask) -> Self {
        self.cmd.attr_mask &= !mask.bits();
        self
    }

    /// The attributes given so far, as the kernel's mask.
    pub fn mask(&self) -> QpAttrMask {
        QpAttrMask::from_bits_retain(self.cmd.attr_mask)
    }

    /// The MODIFY_QP command this modification sends for the QP with `qp_handle`.
    pub fn to_uverbs(&self, qp_handle: u32) -> ib_uverbs_modify_qp {
        ib_uverbs_modify_qp {
            qp_handle,
            ..self.cmd
        }
    }

    setter!(
        /// The new state (`IBV_QP_STATE`).
        state(QpState) => STATE, |c, v| c.qp_state = v.as_raw() as u8);
    setter!(
        /// The state the caller believes current (`IBV_QP_CUR_STATE`).
        cur_state(QpState) => CUR_STATE, |c, v| c.cur_qp_state = v.as_raw() as u8);
    setter!(
        /// Enable the SQD drained event (`IBV_QP_EN_SQD_ASYNC_NOTIFY`).
        en_sqd_async_notify(bool) => EN_SQD_ASYNC_NOTIFY, |c, v| c.en_sqd_async_notify = u8::from(v));
    setter!(
        /// The remote access rights (`IBV_QP_ACCESS_FLAGS`).
        access(AccessFlags) => ACCESS_FLAGS, |c, v| c.qp_access_flags = v.bits());
    setter!(
        /// The P_Key index (`IBV_QP_PKEY_INDEX`).
        pkey_index(u16) => PKEY_INDEX, |c, v| c.pkey_index = v);
    setter!(
        /// The port (`IBV_QP_PORT`).
        port(u8) => PORT, |c, v| c.port_num = v);
    setter!(
        /// The Q_Key (`IBV_QP_QKEY`, UD).
        qkey(u32) => QKEY, |c, v| c.qkey = v);
    setter!(
        /// The primary path (`IBV_QP_AV`).
        av(AhAttr) => AV, |c, v| c.dest = v.to_dest());
    setter!(
        /// The path MTU (`IBV_QP_PATH_MTU`).
        path_mtu(Mtu) => PATH_MTU, |c, v| c.path_mtu = v.as_raw());
    setter!(
        /// The local ACK timeout (`IBV_QP_TIMEOUT`).
        timeout(u8) => TIMEOUT, |c, v| c.timeout = v);
    setter!(
        /// The retry count (`IBV_QP_RETRY_CNT`).
        retry_cnt(u8) => RETRY_CNT, |c, v| c.retry_cnt = v);
    setter!(
        /// The RNR retry count (`IBV_QP_RNR_RETRY`).
        rnr_retry(u8) => RNR_RETRY, |c, v| c.rnr_retry = v);
    setter!(
        /// The receive queue's PSN (`IBV_QP_RQ_PSN`).
        rq_psn(u32) => RQ_PSN, |c, v| c.rq_psn = v);
    setter!(
        /// Outstanding RDMA reads and atomics as initiator (`IBV_QP_MAX_QP_RD_ATOMIC`).
        max_rd_atomic(u8) => MAX_QP_RD_ATOMIC, |c, v| c.max_rd_atomic = v);
    setter!(
    /// The alternate path (`IBV_QP_ALT_PATH`).
    alt_path(AltPath) => ALT_PATH, |c, v| {
        c.alt_dest = v.ah_attr.to_dest();
        c.alt_pkey_index = v.pkey_index;
        c.alt_port_num = v.port_num;
        c.alt_timeout = v.timeout;
    });
    setter!(
        /// The minimum RNR NAK timer (`IBV_QP_MIN_RNR_TIMER`).
        min_rnr_timer(u8) => MIN_RNR_TIMER, |c, v| c.min_rnr_timer = v);
    setter!(
        /// The send queue's PSN (`IBV_QP_SQ_PSN`).
        sq_psn(u32) => SQ_PSN, |c, v| c.sq_psn = v);
    setter!(
        /// Responder resources for RDMA reads and atomics (`IBV_QP_MAX_DEST_RD_ATOMIC`).
        max_dest_rd_atomic(u8) => MAX_DEST_RD_ATOMIC, |c, v| c.max_dest_rd_atomic = v);
    setter!(
        /// The path migration state (`IBV_QP_PATH_MIG_STATE`).
        path_mig_state(MigState) => PATH_MIG_STATE, |c, v| c.path_mig_state = v.as_raw() as u8);
    setter!(
        /// The destination QP number (`IBV_QP_DEST_QPN`).
        dest_qp_num(u32) => DEST_QPN, |c, v| c.dest_qp_num = v);
}

/// A queue pair (`struct ibv_qp`). It holds its PD, CQs and SRQ, so they outlive it.
#[derive(Debug)]
#[doc(alias = "ibv_qp")]
pub struct Qp {
    pd: Pd,
    send_cq: Cq,
    recv_cq: Cq,
    srq: Option<Srq>,
    handle: u32,
    qp_num: u32,
    /// The type, and the objects by their handles: the creation attributes a query
    /// answers with.
    objects: QpObjects,
    cap: QpCap,
    sq_sig_all: bool,
    user_handle: u64,
    driver_out: [u8; DRIVER_OUT],
    destroyed: bool,
    /// The state as the crate last saw it (`QpState::as_raw`).
    state: AtomicU32,
    /// The mapped send queue and its doorbell.
    sq: QueueLock<SendRing>,
    /// The mapped receive queue (none with an SRQ).
    rq: Option<QueueLock<RecvRing>>,
}

/// Every standard `IBV_QP_*` bit (0-20): the mask a query asks with.
const QUERY_ALL: u32 = (1 << 21) - 1;

impl Pd {
    /// Creates a queue pair in this PD (QP_CREATE by ioctl, else CREATE_QP by
    /// `write()`).
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw;
    /// [`Error::BadArgument`] (naming both contexts) when a CQ or the SRQ belongs to
    /// another context than the PD; else the kernel's errno: `EINVAL` for capacities
    /// past the device's limits, and on siw `EOPNOTSUPP` ([`Error::NotSupported`]) for
    /// any type but RC.
    #[doc(alias = "ibv_create_qp")]
    pub fn create_qp(&self, init: &QpInit<'_>) -> Result<Qp> {
        const OP: &str = "CREATE_QP";
        let ctx = self.context();
        check_driver(ctx, OP)?;
        same_context(ctx, init.send_cq.context(), OP, "send CQ", "PD")?;
        same_context(ctx, init.recv_cq.context(), OP, "receive CQ", "PD")?;
        if let Some(srq) = init.srq {
            same_context(ctx, srq.pd().context(), OP, "SRQ", "PD")?;
        }
        let file = ctx.raw();
        let user_handle = ctx.next_user_handle();
        let cap = init.cap.to_uverbs();
        let raw = CreateQp {
            pd: self.handle(),
            send_cq: init.send_cq.handle(),
            recv_cq: init.recv_cq.handle(),
            srq: init.srq.map(Srq::handle),
            qp_type: init.qp_type.as_raw(),
            flags: if init.sq_sig_all {
                IB_UVERBS_QP_CREATE_SQ_SIG_ALL
            } else {
                0
            },
        };
        let mut driver_out = [0u8; DRIVER_OUT];
        let (handle, qp_num, granted) = ioctl_or_write(ctx, Interface::QpIoctl, |ioctl| {
            driver_out = [0; DRIVER_OUT];
            if ioctl {
                let mut resp_cap = ib_uverbs_qp_cap::default();
                let mut qpn = 0u32;
                let (mut req, slot) = method::create_qp(
                    file.driver_id(),
                    &raw,
                    &user_handle,
                    &cap,
                    &mut resp_cap,
                    &mut qpn,
                    DriverIn::NONE,
                    &mut driver_out,
                );
                file.call(&mut req)?;
                let handle = handle_of(req.data(slot))?;
                Ok((handle, qpn, resp_cap))
            } else {
                let cmd = ib_uverbs_create_qp {
                    user_handle,
                    pd_handle: raw.pd,
                    send_cq_handle: raw.send_cq,
                    recv_cq_handle: raw.recv_cq,
                    srq_handle: raw.srq.unwrap_or(0),
                    max_send_wr: cap.max_send_wr,
                    max_recv_wr: cap.max_recv_wr,
                    max_send_sge: cap.max_send_sge,
                    max_recv_sge: cap.max_recv_sge,
                    max_inline_data: cap.max_inline_data,
                    sq_sig_all: u8::from(init.sq_sig_all),
                    qp_type: raw.qp_type as u8,
                    is_srq: u8::from(raw.srq.is_some()),
                    ..Default::default()
                };
                let mut resp = [0u8; core::mem::size_of::<ib_uverbs_create_qp_resp>() + DRIVER_OUT];
                file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut resp))?;
                let (r, rest) = ib_uverbs_create_qp_resp::read_from_prefix(&resp[..])
                    .map_err(|_| rustix::io::Errno::IO)?;
                driver_out.copy_from_slice(&rest[..DRIVER_OUT]);
                Ok((
                    r.qp_handle,
                    r.qpn,
                    ib_uverbs_qp_cap {
                        max_send_wr: r.max_send_wr,
                        max_recv_wr: r.max_recv_wr,
                        max_send_sge: r.max_send_sge,
                        max_recv_sge: r.max_recv_sge,
                        max_inline_data: r.max_inline_data,
                    },
                ))
            }
        })
        .map_err(|e| failed(ctx, OP, e))?;
        let granted = QpCap::from_uverbs(&granted);
        let (sq, rq) =
            match datapath::map_qp(ctx, handle, &driver_out, &granted, init.srq.is_some()) {
                Ok(r) => r,
                Err(e) => {
                    if let Err(d) = destroy_qp_handle(ctx, handle) {
                        ctx.record_destroy_error(failed(ctx, "DESTROY_QP", d));
                    }
                    return Err(e);
                }
            };
        Ok(Qp {
            pd: self.clone(),
            send_cq: init.send_cq.clone(),
            recv_cq: init.recv_cq.clone(),
            srq: init.srq.cloned(),
            handle,
            qp_num,
            objects: QpObjects {
                qp_type: init.qp_type,
                send_cq: init.send_cq.handle(),
                recv_cq: init.recv_cq.handle(),
                srq: init.srq.map(Srq::handle),
            },
            cap: granted,
            sq_sig_all: init.sq_sig_all,
            user_handle,
            driver_out,
            destroyed: false,
            state: AtomicU32::new(QpState::Reset.as_raw()),
            sq: QueueLock::new(sq),
            rq: rq.map(QueueLock::new),
        })
    }
}

impl Qp {
    /// The kernel's handle of the QP.
    pub fn handle(&self) -> u32 {
        self.handle
    }
    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        self.qp_num
    }
    /// The type.
    pub fn qp_type(&self) -> QpType {
        self.objects.qp_type
    }
    /// Whether every send work request generates a completion.
    pub fn sq_sig_all(&self) -> bool {
        self.sq_sig_all
    }
    /// The capacities the kernel granted at creation.
    pub fn cap(&self) -> QpCap {
        self.cap
    }
    /// The `user_handle` the kernel reports in this QP's async events.
    pub fn user_handle(&self) -> u64 {
        self.user_handle
    }
    /// The PD.
    pub fn pd(&self) -> &Pd {
        &self.pd
    }
    /// The send CQ.
    pub fn send_cq(&self) -> &Cq {
        &self.send_cq
    }
    /// The receive CQ.
    pub fn recv_cq(&self) -> &Cq {
        &self.recv_cq
    }
    /// The SRQ, if any.
    pub fn srq(&self) -> Option<&Srq> {
        self.srq.as_ref()
    }
    /// The driver's output of the create (rxe: `rxe_create_qp_resp`, siw:
    /// `siw_uresp_create_qp`, then zeros): where its queues are mapped.
    pub fn driver_data(&self) -> &[u8] {
        &self.driver_out
    }

    /// Modifies the QP (MODIFY_QP by INVOKE_WRITE, else `write()`): sets the
    /// attributes `m` was given. `m` is borrowed mutably for one reason: the QP's handle
    /// is written into its command, which the kernel then reads where it is (see
    /// [`ModifyQp`]); nothing else of `m` changes, and it can modify other QPs after.
    ///
    /// # Errors
    ///
    /// The kernel's errno: `EINVAL` for a transition the QP's state does not allow, or
    /// a mask without the attributes the transition needs.
    #[doc(alias = "ibv_modify_qp")]
    #[inline]
    pub fn modify(&self, m: &mut ModifyQp) -> Result<()> {
        let ctx = self.pd.context();
        m.cmd.qp_handle = self.handle;
        run_cmd(ctx, &m.cmd, DriverIn::NONE, &mut []).map_err(|e| failed(ctx, "MODIFY_QP", e))?;
        if m.mask().contains(QpAttrMask::STATE) {
            self.note_state(QpState::from_raw(m.cmd.qp_state.into()));
        }
        Ok(())
    }

    /// The state as the crate last saw it: set by [`Qp::modify`], by [`Qp::query`] on
    /// rxe (siw on Linux 6.1 does not report the state), and by the RDMA CM. A QP the
    /// kernel moved to an error state on its own still shows the state before.
    pub fn state(&self) -> QpState {
        QpState::from_raw(self.state.load(Ordering::Relaxed))
    }

    /// Records the state the kernel is known to have put the QP in.
    pub(crate) fn note_state(&self, s: QpState) {
        self.state.store(s.as_raw(), Ordering::Relaxed);
    }

    /// Posts send work requests (`ibv_post_send`): all of them, or none when one is
    /// refused, the send queue has no room for all, or the QP is not yet in RTS (see
    /// [`crate::verbs::datapath`]). Then rings the doorbell once (an empty POST_SEND
    /// `write()`; siw skips it while the kernel is still working on the queue). No
    /// allocation.
    ///
    /// # Errors
    ///
    /// [`Error::BadWorkRequest`], [`Error::QueueFull`], [`Error::BadQpState`],
    /// [`Error::NotSupported`] (siw: immediate data, atomics), [`Error::DeviceRemoved`]:
    /// nothing was posted. An error of the doorbell (the kernel's errno) comes after the
    /// requests were handed to the queue.
    #[doc(alias = "ibv_post_send")]
    pub fn post_send(&self, wrs: &[SendWr<'_>]) -> Result<()> {
        const OP: &str = "post_send";
        let ctx = self.pd.context();
        if ctx.is_revoked() {
            return Err(removed(ctx, OP));
        }
        let state = self.state();
        if matches!(
            state,
            QpState::Reset | QpState::Init | QpState::Rtr | QpState::Undefined
        ) {
            return Err(Error::BadQpState {
                op: Op::new(OP, ctx.name()),
                state,
            });
        }
        if wrs.is_empty() {
            return Ok(());
        }
        let mut sq = self.sq.lock();
        let ring = sq
            .post(self.objects.qp_type, self.sq_sig_all, wrs)
            .map_err(|f| datapath::post_error(ctx, OP, wrs.len(), f))?;
        if ring {
            ctx.raw()
                .ring_doorbell(sq.doorbell())
                .map_err(|e| failed(ctx, OP, e))?;
        }
        Ok(())
    }

    /// Posts receive work requests (`ibv_post_recv`): all of them, or none when one is
    /// refused, the receive queue has no room for all, or the QP is in RESET. No system
    /// call, no allocation.
    ///
    /// # Errors
    ///
    /// [`Error::BadWorkRequest`], [`Error::QueueFull`], [`Error::BadQpState`],
    /// [`Error::DeviceRemoved`]; [`Error::BadArgument`] for a QP that receives from an
    /// SRQ.
    #[doc(alias = "ibv_post_recv")]
    pub fn post_recv(&self, wrs: &[RecvWr<'_>]) -> Result<()> {
        const OP: &str = "post_recv";
        let ctx = self.pd.context();
        if ctx.is_revoked() {
            return Err(removed(ctx, OP));
        }
        let Some(rq) = &self.rq else {
            return Err(Error::BadArgument {
                op: Op::new(OP, ctx.name()),
                reason: "the QP has no receive queue (it receives from an SRQ, or was made with max_recv_wr 0)".into(),
            });
        };
        let state = self.state();
        if matches!(state, QpState::Reset | QpState::Undefined) {
            return Err(Error::BadQpState {
                op: Op::new(OP, ctx.name()),
                state,
            });
        }
        rq.lock()
            .post(wrs)
            .map_err(|f| datapath::post_error(ctx, OP, wrs.len(), f))
    }

    /// Send requests the send queue can take now.
    pub fn send_queue_free(&self) -> u32 {
        self.sq.lock().free()
    }

    /// Receive requests the receive queue can take now (0 with an SRQ).
    pub fn recv_queue_free(&self) -> u32 {
        self.rq.as_ref().map_or(0, |rq| rq.lock().free())
    }

    /// Every attribute of the QP and its creation attributes (QUERY_QP by INVOKE_WRITE,
    /// else `write()`), decoded when read ([`QpQuery::attr`], [`QpQuery::init_attr`]).
    /// [`Qp::query_into`] answers into a caller's value instead, without the copy out.
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "ibv_query_qp")]
    #[inline]
    pub fn query(&self) -> Result<QpQuery> {
        let mut q = QpQuery::default();
        self.query_into(&mut q)?;
        Ok(q)
    }

    /// [`Qp::query`] into `out`, as `ibv_query_qp` fills its caller's structs: the
    /// kernel writes its answer straight into `out`, and the call does not copy it. For
    /// callers that query again and again, with one `QpQuery` (`QpQuery::default()`).
    ///
    /// # Errors
    ///
    /// The kernel's errno; `out` then holds no answer (its attributes are zero).
    #[doc(alias = "ibv_query_qp")]
    #[inline]
    pub fn query_into(&self, out: &mut QpQuery) -> Result<()> {
        let ctx = self.pd.context();
        out.objects = self.objects;
        // The kernel writes the whole answer (zero-filling what it has no value for), so
        // the last one need not be cleared first; a failed call clears it.
        if let Err(e) = query_qp_into(ctx, self.handle, &mut out.raw) {
            out.raw = ib_uverbs_query_qp_resp::default();
            return Err(failed(ctx, "QUERY_QP", e));
        }
        if ctx.driver_id() == RDMA_DRIVER_RXE {
            self.note_state(QpState::from_raw(u32::from(out.raw.qp_state)));
        }
        Ok(())
    }

    fn destroy(&self) -> Result<()> {
        let ctx = self.pd.context();
        destroy_qp_handle(ctx, self.handle).map_err(|e| failed(ctx, "DESTROY_QP", e))
    }

    /// Destroys the QP now (QP_DESTROY by ioctl, else DESTROY_QP by `write()`).
    ///
    /// # Errors
    ///
    /// The kernel's errno, with the QP given back.
    #[doc(alias = "ibv_destroy_qp")]
    // The object comes back with the error, so the Err variant is as large as both: a
    // cold path, moved once.
    #[allow(clippy::result_large_err)]
    pub fn try_destroy(mut self) -> core::result::Result<(), (Qp, Error)> {
        match self.destroy() {
            Ok(()) => {
                self.destroyed = true;
                Ok(())
            }
            Err(e) => Err((self, e)),
        }
    }
}

/// The answer of QUERY_QP, decoded when read. The default value is no answer yet (every
/// attribute zero, the QP type unknown), for [`Qp::query_into`] to fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpQuery {
    raw: ib_uverbs_query_qp_resp,
    objects: QpObjects,
}

impl Default for QpQuery {
    fn default() -> Self {
        QpQuery {
            raw: ib_uverbs_query_qp_resp::default(),
            objects: QpObjects {
                qp_type: QpType::from_raw(0),
                send_cq: 0,
                recv_cq: 0,
                srq: None,
            },
        }
    }
}

/// The creation attributes of a QP that its query answers with from the crate's own
/// record: its type and its objects' handles, copied into each answer at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct QpObjects {
    qp_type: QpType,
    send_cq: u32,
    recv_cq: u32,
    srq: Option<u32>,
}

impl QpQuery {
    /// The QP's current state.
    pub fn state(&self) -> QpState {
        QpState::from_raw(u32::from(self.raw.qp_state))
    }

    /// The current capacities.
    pub fn cap(&self) -> QpCap {
        let r = &self.raw;
        QpCap {
            max_send_wr: r.max_send_wr,
            max_recv_wr: r.max_recv_wr,
            max_send_sge: r.max_send_sge,
            max_recv_sge: r.max_recv_sge,
            max_inline_data: r.max_inline_data,
        }
    }

    /// The kernel's answer as it came (`struct ib_uverbs_query_qp_resp`).
    pub fn raw(&self) -> &ib_uverbs_query_qp_resp {
        &self.raw
    }

    /// Every field of `ibv_qp_attr`.
    pub fn attr(&self) -> QpAttr {
        let r = &self.raw;
        QpAttr {
            qp_state: QpState::from_raw(u32::from(r.qp_state)),
            cur_qp_state: QpState::from_raw(u32::from(r.cur_qp_state)),
            path_mtu: Mtu::from_raw(r.path_mtu),
            path_mig_state: MigState::from_raw(u32::from(r.path_mig_state)),
            qkey: r.qkey,
            rq_psn: r.rq_psn,
            sq_psn: r.sq_psn,
            dest_qp_num: r.dest_qp_num,
            qp_access_flags: AccessFlags::from_bits_retain(r.qp_access_flags),
            cap: self.cap(),
            ah_attr: AhAttr::from_dest(&r.dest),
            alt_ah_attr: AhAttr::from_dest(&r.alt_dest),
            pkey_index: r.pkey_index,
            alt_pkey_index: r.alt_pkey_index,
            en_sqd_async_notify: false,
            sq_draining: r.sq_draining != 0,
            max_rd_atomic: r.max_rd_atomic,
            max_dest_rd_atomic: r.max_dest_rd_atomic,
            min_rnr_timer: r.min_rnr_timer,
            port_num: r.port_num,
            timeout: r.timeout,
            retry_cnt: r.retry_cnt,
            rnr_retry: r.rnr_retry,
            alt_port_num: r.alt_port_num,
            alt_timeout: r.alt_timeout,
        }
    }

    /// Every field of `ibv_qp_init_attr` (objects by their handles).
    pub fn init_attr(&self) -> QpInitAttr {
        let r = &self.raw;
        QpInitAttr {
            qp_type: self.objects.qp_type,
            send_cq: self.objects.send_cq,
            recv_cq: self.objects.recv_cq,
            srq: self.objects.srq,
            cap: self.cap(),
            sq_sig_all: r.sq_sig_all != 0,
        }
    }
}

/// MODIFY_QP of `qp` with a raw attribute mask and no attribute set (the probe sends a
/// bit past the standard ones, which the kernel refuses).
pub(crate) fn modify_qp_raw_mask(
    qp: &Qp,
    mask: u32,
) -> core::result::Result<(), rustix::io::Errno> {
    let cmd = ib_uverbs_modify_qp {
        qp_handle: qp.handle,
        attr_mask: mask,
        ..Default::default()
    };
    run_cmd(qp.pd.context(), &cmd, DriverIn::NONE, &mut [])
}

/// QUERY_QP of any handle (the probe asks with a stale one).
pub(crate) fn query_qp_handle(
    ctx: &crate::verbs::context::Context,
    handle: u32,
) -> core::result::Result<ib_uverbs_query_qp_resp, rustix::io::Errno> {
    let mut resp = ib_uverbs_query_qp_resp::default();
    query_qp_into(ctx, handle, &mut resp)?;
    Ok(resp)
}

/// QUERY_QP of any handle, every standard attribute asked, answered into `resp`.
#[inline]
fn query_qp_into(
    ctx: &crate::verbs::context::Context,
    handle: u32,
    resp: &mut ib_uverbs_query_qp_resp,
) -> core::result::Result<(), rustix::io::Errno> {
    let cmd = ib_uverbs_query_qp {
        qp_handle: handle,
        attr_mask: QUERY_ALL,
        ..Default::default()
    };
    run_cmd(
        ctx,
        &cmd,
        DriverIn::NONE,
        zerocopy::IntoBytes::as_mut_bytes(resp),
    )
}

/// QP_DESTROY by ioctl, else DESTROY_QP by `write()`, of any handle.
pub(crate) fn destroy_qp_handle(
    ctx: &crate::verbs::context::Context,
    handle: u32,
) -> core::result::Result<(), rustix::io::Errno> {
    let file = ctx.raw();
    ioctl_or_write(ctx, Interface::QpIoctl, |ioctl| {
        let mut resp = ib_uverbs_destroy_qp_resp::default();
        if ioctl {
            file.call(&mut method::destroy_qp(file.driver_id(), handle, &mut resp))
        } else {
            let cmd = ib_uverbs_destroy_qp {
                qp_handle: handle,
                ..Default::default()
            };
            file.write(&mut method::write_cmd(
                &cmd,
                DriverIn::NONE,
                zerocopy::IntoBytes::as_mut_bytes(&mut resp),
            ))
        }
    })
}

impl Drop for Qp {
    fn drop(&mut self) {
        if !self.destroyed {
            if let Err(e) = self.destroy() {
                self.pd.context().record_destroy_error(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modify_keeps_its_mask_in_the_command_and_takes_the_handle_at_the_call() {
        let m = ModifyQp::rts(QpType::Rc, 0x123);
        let want = QpAttrMask::STATE
            | QpAttrMask::SQ_PSN
            | QpAttrMask::TIMEOUT
            | QpAttrMask::RETRY_CNT
            | QpAttrMask::RNR_RETRY
            | QpAttrMask::MAX_QP_RD_ATOMIC;
        assert_eq!(m.mask(), want);
        let cmd = m.to_uverbs(7);
        assert_eq!(cmd.qp_handle, 7);
        assert_eq!(cmd.attr_mask, want.bits());
        assert_eq!(
            (
                cmd.qp_state,
                cmd.sq_psn,
                cmd.timeout,
                cmd.retry_cnt,
                cmd.rnr_retry
            ),
            (QpState::Rts.as_raw() as u8, 0x123, 14, 7, 7)
        );
        assert_eq!(cmd.max_rd_atomic, 1);
        // What Qp::modify does to it: the handle changes, the modification does not.
        let mut sent = m;
        sent.cmd.qp_handle = 9;
        assert_eq!(sent, m);
        assert_eq!(sent.to_uverbs(7), cmd);
        assert_ne!(sent, ModifyQp::rts(QpType::Rc, 0x124));
        assert_ne!(ModifyQp::new().state(QpState::Init), ModifyQp::new());
    }

    #[test]
    fn without_clears_only_the_given_bits_of_the_sent_mask() {
        let full = ModifyQp::rtr(
            QpType::Rc,
            Mtu::Mtu1024,
            7,
            0x10,
            AhAttr::global(1, 0, crate::types::Gid::default(), 1),
        );
        let m = full.without(QpAttrMask::AV | QpAttrMask::RQ_PSN);
        assert_eq!(m.mask(), full.mask() - QpAttrMask::AV - QpAttrMask::RQ_PSN);
        assert_eq!(m.to_uverbs(3).attr_mask, m.mask().bits());
        // A bit that was not set stays clear; the others stay as they were.
        assert_eq!(full.without(QpAttrMask::QKEY), full);
        assert_eq!(full.without(QpAttrMask::empty()), full);
        assert_eq!(m.to_uverbs(3).rq_psn, 0x10, "the value stays, unread");
    }
}
