//! perftest's exchange, the out-of-band conversation both sides of a test hold
//! before and after it: the wire format and its two transports (TCP, and the RDMA CM
//! with `-R`), with no benchmark in it.
//!
//! As perftest 4.5 does it over TCP (its `perftest_communication.c`;
//! `-R` below): the client connects to port 18515. Each exchange of N bytes is written by
//! the client first and read back, and read first and answered by the server:
//! the version text (16 bytes), the page size (cycle buffer) and cache-line size (4
//! bytes each, network order; each side takes the larger), the MTU (2 bytes of text,
//! e.g. "3"; each side takes the smaller), then handshakes of the QP's address as
//! 108 bytes of text (`LID:OUT_READS:QPN:PSN:RKEY:VADDR:` then the 16 GID bytes and the
//! SRQ number, colon-separated hex). The number of handshakes and where the QP moves
//! to RTR/RTS differ by test (below); the bandwidth tests end with the client's report
//! (size, iterations, peak and average bandwidth, message rate: 8 bytes each, network
//! order) and both close with a handshake and `done`.
//!
//! With `-R` (perftest's `--rdma_cm`; iWARP devices such as siw need it: their QPs reach
//! RTS only through the iWARP CM) the same exchange runs over an RDMA CM connection
//! instead of TCP, and the test's QP is connected through the RDMA CM too, as perftest
//! 4.5 does it:
//! - the exchange's own connection: the server binds the port on every address and
//!   listens (backlog 1); the client resolves SERVER:PORT and connects (no private
//!   data, no RDMA reads, 7 retries). Each side has one receive of 56 bytes posted
//!   before connecting; a message is one signaled send of exactly its size, and a
//!   received message is copied out before its receive is posted again. The server
//!   destroys its listening id once it has accepted.
//! - the versions, sizes and MTU as over TCP; then the RDMA CM connection of the test's
//!   QP, between two handshakes (their content is not used): the server listens on the
//!   same port again, the client connects (again after 100 ms while it is refused).
//! - a handshake is perftest's `struct pingpong_dest` in binary, 56 bytes: LID,
//!   outstanding reads, QPN, PSN, rkey (4 bytes each, network order), 4 bytes of
//!   padding, the buffer's address (8 bytes, network order), the GID (16 bytes), the
//!   SRQ number and the GID index (4 bytes each, network order).
//! - the test's handshakes as over TCP, but the QP is not moved by hand (the CM did),
//!   and the close is the handshake alone (no `done`); then the client disconnects the
//!   test's connection, and each side waits for its end (at most 2 s) before it goes.
//!
//! On an iWARP device (with or without `-R`), send_bw has perftest's receive credits
//! (iWARP has no RNR retry: a send meeting an empty receive queue ends the
//! connection): each side's handshake names a 4-byte credit word instead of its
//! buffer; the server RDMA-writes its count of receives (host order) there at every
//! third of its receive depth, and the client posts a send only while fewer than the
//! receive depth (at most the iterations) are beyond the last credit.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{Cq, Mr, MrBuf, Qp, QpCap, QpInit};
use uverbs::{AccessFlags, CmEventType, Context, DeviceInfo, QpType};

use super::Fail;

pub(super) const VERSION: &[u8] = b"6.06";
pub(super) const KEY: usize = 108;

/// What one side tells the other about its QP (perftest's `struct pingpong_dest`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Dest {
    pub(super) lid: u16,
    pub(super) out_reads: u32,
    pub(super) qpn: u32,
    pub(super) psn: u32,
    pub(super) rkey: u32,
    pub(super) vaddr: u64,
    pub(super) gid: [u8; 16],
    pub(super) srqn: u32,
}

impl Dest {
    /// perftest's 108-byte text, NUL-terminated.
    pub(super) fn encode(&self) -> [u8; KEY] {
        use std::fmt::Write as _;
        let mut s = format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid, self.out_reads, self.qpn, self.psn, self.rkey, self.vaddr
        );
        for b in self.gid {
            let _ = write!(s, "{b:02x}:");
        }
        let _ = write!(s, "{:08x}:", self.srqn);
        let mut out = [0u8; KEY];
        let n = s.len().min(KEY - 1);
        out[..n].copy_from_slice(&s.as_bytes()[..n]);
        out
    }

    pub(super) fn decode(m: &[u8; KEY]) -> Option<Dest> {
        let end = m.iter().position(|&b| b == 0).unwrap_or(KEY);
        let s = std::str::from_utf8(&m[..end]).ok()?;
        let f: Vec<&str> = s.split(':').collect();
        if f.len() < 23 {
            return None;
        }
        let h = |i: usize| u64::from_str_radix(f[i], 16).ok();
        let mut gid = [0u8; 16];
        for (i, g) in gid.iter_mut().enumerate() {
            *g = u8::from_str_radix(f[6 + i], 16).ok()?;
        }
        Some(Dest {
            lid: h(0)? as u16,
            out_reads: h(1)? as u32,
            qpn: h(2)? as u32,
            psn: h(3)? as u32,
            rkey: h(4)? as u32,
            vaddr: h(5)?,
            gid,
            srqn: h(22)? as u32,
        })
    }
}

/// How long a step of the RDMA CM (resolving, connecting, a message of the exchange)
/// may take.
pub(super) const CM_WAIT: Duration = Duration::from_secs(30);
/// The size of perftest's `struct pingpong_dest`: the exchange's receive size with -R.
pub(super) const BIN_KEY: usize = 56;

impl Dest {
    /// perftest's binary `struct pingpong_dest` (with -R), 56 bytes.
    /// The GID index is sent as -1 (perftest's reader does not use it).
    pub(super) fn encode_bin(&self) -> [u8; BIN_KEY] {
        let mut m = [0u8; BIN_KEY];
        m[0..4].copy_from_slice(&u32::from(self.lid).to_be_bytes());
        m[4..8].copy_from_slice(&self.out_reads.to_be_bytes());
        m[8..12].copy_from_slice(&self.qpn.to_be_bytes());
        m[12..16].copy_from_slice(&self.psn.to_be_bytes());
        m[16..20].copy_from_slice(&self.rkey.to_be_bytes());
        m[24..32].copy_from_slice(&self.vaddr.to_be_bytes());
        m[32..48].copy_from_slice(&self.gid);
        m[48..52].copy_from_slice(&self.srqn.to_be_bytes());
        m[52..56].copy_from_slice(&u32::MAX.to_be_bytes());
        m
    }

    pub(super) fn decode_bin(m: &[u8; BIN_KEY]) -> Dest {
        let w = |i: usize| u32::from_be_bytes([m[i], m[i + 1], m[i + 2], m[i + 3]]);
        let mut vaddr = [0u8; 8];
        vaddr.copy_from_slice(&m[24..32]);
        let mut gid = [0u8; 16];
        gid.copy_from_slice(&m[32..48]);
        Dest {
            lid: w(0) as u16,
            out_reads: w(4),
            qpn: w(8),
            psn: w(12),
            rkey: w(16),
            vaddr: u64::from_be_bytes(vaddr),
            gid,
            srqn: w(48),
        }
    }
}

/// The RDMA CM's connection parameters perftest gives for writes and sends: no RDMA
/// reads either way, 7 retries, no private data.
pub(super) fn cm_param() -> ConnParam {
    ConnParam {
        responder_resources: 0,
        initiator_depth: 0,
        ..ConnParam::default()
    }
}

/// SERVER:PORT as the RDMA CM's destination (IPv4, as perftest resolves it).
pub(super) fn cm_addr(host: &str, port: u16) -> Result<SocketAddr, Fail> {
    (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .find(SocketAddr::is_ipv4)
        .ok_or_else(|| format!("{host} has no IPv4 address"))
}

/// The exchange over the RDMA CM (-R): one RC QP of its own, one message at a time.
pub(super) struct CmLink {
    pub(super) qp: Qp,
    pub(super) scq: Cq,
    pub(super) rcq: Cq,
    /// Bytes 0..56: the receive; 64..120: what is sent.
    pub(super) mr: Mr,
    pub(super) dev: DeviceInfo,
    pub(super) _id: CmId,
}

/// How long the exchange's receive waits on siw before each kick (`CmLink::recv`).
pub(super) const KICK_AFTER: Duration = Duration::from_secs(1);

/// The exchange's QP, CQs and buffer on the device `id` is bound to, its receive posted;
/// `connect` (the client's connect, the server's accept) then makes it a link.
pub(super) fn cm_link(
    id: CmId,
    connect: impl FnOnce(&CmId, &Qp) -> Result<(), Fail>,
) -> Result<CmLink, Fail> {
    let dev = id
        .query_addr()
        .and_then(|a| a.device())
        .map_err(|e| e.to_string())?;
    let ctx = Arc::new(Context::open(&dev).map_err(|e| e.to_string())?);
    let pd = ctx.alloc_pd().map_err(|e| e.to_string())?;
    let scq = ctx.create_cq(2, None, 0).map_err(|e| e.to_string())?;
    let rcq = ctx.create_cq(2, None, 0).map_err(|e| e.to_string())?;
    let qp = pd
        .create_qp(&QpInit::new(QpType::Rc, &scq, &rcq).cap(QpCap {
            max_send_wr: 2,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        }))
        .map_err(|e| e.to_string())?;
    let mr = pd
        .reg_mr(
            MrBuf::new(128).map_err(|e| format!("memory: {e}"))?,
            AccessFlags::LOCAL_WRITE,
        )
        .map_err(|e| e.to_string())?;
    id.init_qp(&qp).map_err(|e| e.to_string())?;
    CmLink::post_recv(&qp, &mr)?;
    connect(&id, &qp)?;
    Ok(CmLink {
        qp,
        scq,
        rcq,
        mr,
        dev,
        _id: id,
    })
}

impl CmLink {
    pub(super) fn post_recv(qp: &Qp, mr: &Mr) -> Result<(), Fail> {
        let sge = [Sge::new(mr, 0, BIN_KEY as u32).ok_or("the exchange's buffer")?];
        qp.post_recv(&[RecvWr::new(5, &sge)])
            .map_err(|e| e.to_string())
    }

    /// The client's side: resolves, connects; `Err` when refused (the server may not
    /// listen yet).
    pub(super) fn connect(to: SocketAddr) -> Result<CmLink, Fail> {
        let ch = CmChannel::open().map_err(|e| e.to_string())?;
        let id = ch.create_id().map_err(|e| e.to_string())?;
        id.resolve_addr(to, CM_WAIT).map_err(|e| e.to_string())?;
        id.resolve_route(CM_WAIT).map_err(|e| e.to_string())?;
        cm_link(id, |id, qp| {
            id.connect(qp, &cm_param(), CM_WAIT)
                .map(drop)
                .map_err(|e| e.to_string())
        })
    }

    /// The server's side: listens on `port` of every address, accepts one connection,
    /// stops listening.
    pub(super) fn accept(port: u16) -> Result<CmLink, Fail> {
        let ch = CmChannel::open().map_err(|e| e.to_string())?;
        let listen = cm_listen(&ch, port)?;
        let req = cm_request(&ch, None)?;
        let id = CmId::from_request(&ch, &req).map_err(|e| e.to_string())?;
        let link = cm_link(id, |id, qp| {
            id.accept(qp, &cm_param(), CM_WAIT)
                .map(drop)
                .map_err(|e| e.to_string())
        })?;
        drop(listen);
        Ok(link)
    }

    /// One completion of `cq`, successful, waiting at most [`CM_WAIT`].
    pub(super) fn one(cq: &Cq, what: &str) -> Result<Wc, Fail> {
        Self::one_or(cq, what, |_| Ok(()))
    }

    /// [`CmLink::one`], calling `idle` with the time waited while no completion is there.
    pub(super) fn one_or(
        cq: &Cq,
        what: &str,
        mut idle: impl FnMut(Duration) -> Result<(), Fail>,
    ) -> Result<Wc, Fail> {
        let t0 = Instant::now();
        let mut wc = [Wc::default(); 1];
        loop {
            if cq.poll(&mut wc).map_err(|e| e.to_string())? == 1 {
                if !wc[0].is_ok() {
                    return Err(format!("the exchange's {what} failed: {:?}", wc[0].status));
                }
                return Ok(wc[0]);
            }
            let waited = t0.elapsed();
            if waited > CM_WAIT {
                return Err(format!("the exchange's {what} did not complete"));
            }
            idle(waited)?;
        }
    }

    pub(super) fn send(&mut self, data: &[u8]) -> Result<(), Fail> {
        if data.len() > BIN_KEY || !self.mr.write_at(64, data) {
            return Err("an exchange message is too long".into());
        }
        let sge = [Sge::new(&self.mr, 64, data.len() as u32).ok_or("the exchange's buffer")?];
        self.qp
            .post_send(&[SendWr::new(5, SendOp::Send).sg(&sge).signaled()])
            .map_err(|e| e.to_string())?;
        Self::one(&self.scq, "send").map(|_| ())
    }

    /// The next message. On siw, every [`KICK_AFTER`] without one, an unsignaled
    /// zero-length RDMA WRITE goes to the other side first: siw (Linux 6.1 and 6.12)
    /// sends the MPA reply of an accepted connection before it hands the socket's
    /// receive callback to the QP, so a message that arrives in between stays unread on
    /// the socket until more data comes (seen once in about 150 `-R` runs: the client
    /// waited 30 s for a reply to a message the server had not seen). The empty WRITE
    /// is such data and changes nothing on the other side: siw uses no receive and
    /// checks no key for it.
    pub(super) fn recv(&mut self, out: &mut [u8]) -> Result<(), Fail> {
        let qp = &self.qp;
        let siw = qp.pd().context().driver_id() == uverbs::raw::abi::RDMA_DRIVER_SIW;
        let mut kick_at = KICK_AFTER;
        let wc = Self::one_or(&self.rcq, "receive", |waited| {
            if siw && waited > kick_at && qp.send_queue_free() > 0 {
                let empty = Remote { addr: 0, rkey: 0 };
                qp.post_send(&[SendWr::new(6, SendOp::RdmaWrite(empty))])
                    .map_err(|e| format!("the exchange's kick: {e}"))?;
                kick_at = waited + KICK_AFTER;
            }
            Ok(())
        })?;
        if (wc.byte_len as usize) < out.len() {
            return Err(format!(
                "an exchange message of {} bytes where {} were awaited",
                wc.byte_len,
                out.len()
            ));
        }
        self.mr.read_at(0, out);
        Self::post_recv(&self.qp, &self.mr)
    }
}

/// A listening RDMA CM id on `port` of every address.
pub(super) fn cm_listen(ch: &Arc<CmChannel>, port: u16) -> Result<CmId, Fail> {
    let listen = ch.create_id().map_err(|e| e.to_string())?;
    listen
        .bind(SocketAddr::from(([0, 0, 0, 0], port)))
        .map_err(|e| e.to_string())?;
    listen.listen(1).map_err(|e| e.to_string())?;
    Ok(listen)
}

/// The next connection request of `ch` (other events are left out).
pub(super) fn cm_request(
    ch: &Arc<CmChannel>,
    limit: Option<Duration>,
) -> Result<uverbs::cm::CmEvent, Fail> {
    let t0 = Instant::now();
    loop {
        let left = limit.map(|l| l.saturating_sub(t0.elapsed()));
        match ch.get_event(left).map_err(|e| e.to_string())? {
            Some(e) if e.kind == CmEventType::ConnectRequest => return Ok(e),
            Some(_) => {}
            None => return Err("no connection request came".into()),
        }
    }
}

/// The out-of-band link of the exchange.
pub(super) enum Link {
    Tcp(TcpStream),
    Cm(Box<CmLink>),
}

/// The exchange with the other side.
pub(super) struct Exchange {
    pub(super) link: Link,
    pub(super) client: bool,
}

pub(super) fn io_err(e: Fail) -> std::io::Error {
    std::io::Error::other(e)
}

impl Exchange {
    /// Connects to `server` (the client), or waits for the client (`None`: the server),
    /// on `port`, over TCP or (`rdma_cm`) through the RDMA CM.
    pub(super) fn connect(
        server: Option<&str>,
        port: u16,
        rdma_cm: bool,
    ) -> Result<Exchange, Fail> {
        let client = server.is_some();
        // The server may still be starting: the client tries for 10 s.
        let t0 = Instant::now();
        let retry = |e: Fail| -> Result<(), Fail> {
            if t0.elapsed() > Duration::from_secs(10) {
                return Err(e);
            }
            std::thread::sleep(Duration::from_millis(100));
            Ok(())
        };
        let link = match (server, rdma_cm) {
            (Some(host), false) => loop {
                match TcpStream::connect((host, port)) {
                    Ok(sock) => break Link::Tcp(sock),
                    Err(e) => retry(format!("cannot connect to {host}:{}: {e}", port))?,
                }
            },
            (Some(host), true) => {
                let to = cm_addr(host, port)?;
                loop {
                    match CmLink::connect(to) {
                        Ok(l) => break Link::Cm(Box::new(l)),
                        Err(e) => {
                            retry(format!("cannot connect to {to} through the RDMA CM: {e}"))?
                        }
                    }
                }
            }
            (None, false) => {
                let l = TcpListener::bind(("0.0.0.0", port))
                    .map_err(|e| format!("cannot listen on TCP port {}: {e}", port))?;
                let (sock, _) = l
                    .accept()
                    .map_err(|e| format!("cannot accept on TCP port {}: {e}", port))?;
                Link::Tcp(sock)
            }
            (None, true) => {
                Link::Cm(Box::new(CmLink::accept(port).map_err(|e| {
                    format!("cannot accept on RDMA CM port {}: {e}", port)
                })?))
            }
        };
        Ok(Exchange { link, client })
    }

    /// The device of the exchange's RDMA CM connection (-R).
    pub(super) fn cm_device(&self) -> Option<&DeviceInfo> {
        match &self.link {
            Link::Cm(l) => Some(&l.dev),
            Link::Tcp(_) => None,
        }
    }

    pub(super) fn write(&mut self, mine: &[u8]) -> std::io::Result<()> {
        match &mut self.link {
            Link::Tcp(s) => s.write_all(mine),
            Link::Cm(l) => l.send(mine).map_err(io_err),
        }
    }

    pub(super) fn read(&mut self, theirs: &mut [u8]) -> std::io::Result<()> {
        match &mut self.link {
            Link::Tcp(s) => s.read_exact(theirs),
            Link::Cm(l) => l.recv(theirs).map_err(io_err),
        }
    }

    /// One exchange: the client writes first, the server reads first.
    pub(super) fn xchg(&mut self, mine: &[u8], theirs: &mut [u8]) -> std::io::Result<()> {
        if self.client {
            self.write(mine)?;
            self.read(theirs)
        } else {
            self.read(theirs)?;
            self.write(mine)
        }
    }

    pub(super) fn hand_shake(&mut self, my: &Dest) -> std::io::Result<Dest> {
        if let Link::Cm(_) = self.link {
            let mut m = [0u8; BIN_KEY];
            self.xchg(&my.encode_bin(), &mut m)?;
            return Ok(Dest::decode_bin(&m));
        }
        let mut m = [0u8; KEY];
        self.xchg(&my.encode(), &mut m)?;
        Dest::decode(&m).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "unparsable QP address")
        })
    }

    pub(super) fn close(&mut self, my: &Dest) -> std::io::Result<()> {
        self.hand_shake(my)?;
        match &mut self.link {
            Link::Tcp(s) => s.write_all(b"done\0"),
            Link::Cm(_) => Ok(()),
        }
    }
}

/// The client's report, as perftest's xchg_bw_reports sends it: size, iterations, peak
/// and average bandwidth, message rate (8 bytes each, network order).
pub(super) fn xchg_reports(
    ex: &mut Exchange,
    size: usize,
    iters: usize,
    mbs: f64,
    mpps: f64,
) -> std::io::Result<()> {
    let mut r = [0u8; 8];
    for v in [
        (size as u64).to_be_bytes(),
        (iters as u64).to_be_bytes(),
        mbs.to_bits().to_be_bytes(),
        mbs.to_bits().to_be_bytes(),
        mpps.to_bits().to_be_bytes(),
    ] {
        ex.xchg(&v, &mut r)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_text_is_perftests() {
        let d = Dest {
            lid: 0,
            out_reads: 1,
            qpn: 0x12,
            psn: 0x293b4f,
            rkey: 0x391,
            vaddr: 0x558bf76b8000,
            gid: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 1, 1],
            srqn: 0,
        };
        let m = d.encode();
        let text = std::str::from_utf8(&m[..107]).unwrap();
        assert_eq!(
            text,
            "0000:0001:000012:293b4f:00000391:0000558bf76b8000:00:00:00:00:00:00:00:00:00:00:ff:ff:a9:fe:01:01:00000000:"
        );
        assert_eq!(m[107], 0);
        assert_eq!(Dest::decode(&m), Some(d));
    }

    #[test]
    fn binary_key_is_perftests_pingpong_dest() {
        // struct pingpong_dest on x86-64 (perftest 4.5): int lid, out_reads, qpn, psn;
        // unsigned rkey; 4 bytes padding; unsigned long long vaddr; union ibv_gid gid;
        // unsigned srqn; int gid_index: 56 bytes, sent in network order (HAVE_ENDIAN).
        let d = Dest {
            lid: 0x0102,
            out_reads: 1,
            qpn: 0x12,
            psn: 0x293b4f,
            rkey: 0x391,
            vaddr: 0x558b_f76b_8000,
            gid: [
                0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
            ],
            srqn: 7,
        };
        let m = d.encode_bin();
        let want: [u8; BIN_KEY] = [
            0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 0x12, 0, 0x29, 0x3b, 0x4f, 0, 0, 3, 0x91, 0, 0, 0, 0,
            0, 0, 0x55, 0x8b, 0xf7, 0x6b, 0x80, 0, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0x11, 0x22,
            0xff, 0xfe, 0x33, 0x44, 0x55, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(m, want);
        assert_eq!(Dest::decode_bin(&m), d);
    }
}
