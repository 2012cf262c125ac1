//! The RDMA connection manager's file (`/dev/infiniband/rdma_cm`): one builder per
//! command, and the `write()` that runs it.
//!
//! A command is a [`rdma_ucm_cmd_hdr`] (command, the command's length, the response's
//! length) followed by the command struct; a command that answers carries the address
//! of its response in its `response` field, and the kernel copies the answer there
//! (`drivers/infiniband/core/ucma.c`). So, as for the verbs' `write()` commands, whoever
//! chooses the bytes chooses where the kernel writes: a [`CmRequest`] is made only by the
//! builders below, each of which puts the address of a response it borrows mutably for
//! the request's life (exactly the struct the kernel writes, its size in `out`) and no
//! other address. [`CmFile::call`] runs one safely; the file is checked to be the
//! `rdma_cm` misc device when opened.
#![allow(unsafe_code)]

use core::marker::PhantomData;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use zerocopy::{FromZeros, Immutable, IntoBytes};

use crate::raw::abi::ib_uverbs_qp_attr;
use crate::raw::abi::rdma_cm::*;
use crate::raw::sys;

/// The longest command (ACCEPT's struct and the header).
pub const MAX_CM_CMD: usize = 8 + core::mem::size_of::<rdma_ucm_accept>();

/// A command made by a builder of this module, ready to run with [`CmFile::call`].
#[derive(Debug)]
pub struct CmRequest<'a> {
    bytes: [u8; MAX_CM_CMD],
    len: usize,
    /// The response the bytes point at, borrowed for the request's life.
    _resp: PhantomData<&'a mut [u8]>,
}

impl<'a> CmRequest<'a> {
    /// Header and command: `cmd` with its response pointer at `resp_at` set to `resp`.
    fn build<C: IntoBytes + zerocopy::FromBytes + Immutable>(
        command: u32,
        mut cmd: C,
        resp: Option<(usize, &'a mut [u8])>,
    ) -> Self {
        let out = resp.as_ref().map_or(0, |(_, r)| r.len());
        if let Some((at, r)) = resp {
            let addr = (r.as_mut_ptr() as u64).to_ne_bytes();
            if let Some(dst) = cmd.as_mut_bytes().get_mut(at..at + 8) {
                dst.copy_from_slice(&addr);
            }
        }
        let body = cmd.as_bytes();
        let hdr = rdma_ucm_cmd_hdr {
            cmd: command,
            in_: body.len() as u16,
            out: out as u16,
        };
        let mut bytes = [0u8; MAX_CM_CMD];
        let len = 8 + body.len();
        bytes[..8].copy_from_slice(hdr.as_bytes());
        bytes[8..len].copy_from_slice(body);
        CmRequest {
            bytes,
            len,
            _resp: PhantomData,
        }
    }

    /// The bytes `write(2)` sends (for golden tests).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// CREATE_ID: a new id of port space `ps` and QP type `qp_type`, numbered `uid` in its
/// events.
pub fn create_id(
    uid: u64,
    ps: u16,
    qp_type: u8,
    resp: &mut rdma_ucm_create_id_resp,
) -> CmRequest<'_> {
    let cmd = rdma_ucm_create_id {
        uid,
        ps,
        qp_type,
        ..Default::default()
    };
    let at = core::mem::offset_of!(rdma_ucm_create_id, response);
    CmRequest::build(
        RDMA_USER_CM_CMD_CREATE_ID,
        cmd,
        Some((at, resp.as_mut_bytes())),
    )
}

/// DESTROY_ID: answers how many events the id had.
pub fn destroy_id(id: u32, resp: &mut rdma_ucm_destroy_id_resp) -> CmRequest<'_> {
    let cmd = rdma_ucm_destroy_id {
        id,
        ..Default::default()
    };
    let at = core::mem::offset_of!(rdma_ucm_destroy_id, response);
    CmRequest::build(
        RDMA_USER_CM_CMD_DESTROY_ID,
        cmd,
        Some((at, resp.as_mut_bytes())),
    )
}

/// BIND_IP: binds the id to a local address (the kernel writes no response).
pub fn bind_ip(id: u32, addr: &sockaddr_in6) -> CmRequest<'static> {
    let cmd = rdma_ucm_bind_ip {
        response: 0,
        addr: *addr,
        id,
    };
    CmRequest::build(RDMA_USER_CM_CMD_BIND_IP, cmd, None)
}

/// RESOLVE_IP: resolves `dst` (and binds to `src`, family 0 for any) within
/// `timeout_ms`; the answer is an event.
pub fn resolve_ip(
    id: u32,
    src: &sockaddr_in6,
    dst: &sockaddr_in6,
    timeout_ms: u32,
) -> CmRequest<'static> {
    let cmd = rdma_ucm_resolve_ip {
        src_addr: *src,
        dst_addr: *dst,
        id,
        timeout_ms,
    };
    CmRequest::build(RDMA_USER_CM_CMD_RESOLVE_IP, cmd, None)
}

/// RESOLVE_ROUTE: the answer is an event.
pub fn resolve_route(id: u32, timeout_ms: u32) -> CmRequest<'static> {
    let cmd = rdma_ucm_resolve_route { id, timeout_ms };
    CmRequest::build(RDMA_USER_CM_CMD_RESOLVE_ROUTE, cmd, None)
}

/// QUERY with `RDMA_USER_CM_QUERY_ADDR`: where the id is bound.
pub fn query_addr(id: u32, resp: &mut rdma_ucm_query_addr_resp) -> CmRequest<'_> {
    let cmd = rdma_ucm_query {
        response: 0,
        id,
        option: RDMA_USER_CM_QUERY_ADDR,
    };
    let at = core::mem::offset_of!(rdma_ucm_query, response);
    CmRequest::build(RDMA_USER_CM_CMD_QUERY, cmd, Some((at, resp.as_mut_bytes())))
}

/// LISTEN.
pub fn listen(id: u32, backlog: u32) -> CmRequest<'static> {
    CmRequest::build(
        RDMA_USER_CM_CMD_LISTEN,
        rdma_ucm_listen { id, backlog },
        None,
    )
}

/// GET_EVENT: the next event of any id of the file (`EAGAIN` on a non-blocking file
/// when there is none).
pub fn get_event(resp: &mut rdma_ucm_event_resp) -> CmRequest<'_> {
    let at = core::mem::offset_of!(rdma_ucm_get_event, response);
    CmRequest::build(
        RDMA_USER_CM_CMD_GET_EVENT,
        rdma_ucm_get_event::default(),
        Some((at, resp.as_mut_bytes())),
    )
}

/// INIT_QP_ATTR: the attributes (and their mask) that move the id's QP to `qp_state`.
pub fn init_qp_attr(id: u32, qp_state: u32, resp: &mut ib_uverbs_qp_attr) -> CmRequest<'_> {
    let cmd = rdma_ucm_init_qp_attr {
        response: 0,
        id,
        qp_state,
    };
    let at = core::mem::offset_of!(rdma_ucm_init_qp_attr, response);
    CmRequest::build(
        RDMA_USER_CM_CMD_INIT_QP_ATTR,
        cmd,
        Some((at, resp.as_mut_bytes())),
    )
}

/// CONNECT with the connection parameters (the private data travels inside them).
pub fn connect(id: u32, param: &rdma_ucm_conn_param) -> CmRequest<'static> {
    let cmd = rdma_ucm_connect {
        conn_param: *param,
        id,
        ..Default::default()
    };
    CmRequest::build(RDMA_USER_CM_CMD_CONNECT, cmd, None)
}

/// ACCEPT a connection request's id, numbering it `uid` in its events.
pub fn accept(uid: u64, id: u32, param: &rdma_ucm_conn_param) -> CmRequest<'static> {
    let cmd = rdma_ucm_accept {
        uid,
        conn_param: *param,
        id,
        ..Default::default()
    };
    CmRequest::build(RDMA_USER_CM_CMD_ACCEPT, cmd, None)
}

/// DISCONNECT.
pub fn disconnect(id: u32) -> CmRequest<'static> {
    CmRequest::build(
        RDMA_USER_CM_CMD_DISCONNECT,
        rdma_ucm_disconnect { id },
        None,
    )
}

/// The open `rdma_cm` file.
#[derive(Debug)]
pub struct CmFile {
    fd: OwnedFd,
}

impl CmFile {
    /// Opens `path` (normally `/dev/infiniband/rdma_cm`), non-blocking, and checks that
    /// it is the `rdma_cm` misc device: a character device the kernel lists under that
    /// name ([`node::is_rdma_cm`](super::node::is_rdma_cm)).
    ///
    /// # Errors
    ///
    /// The errno of `open(2)`; `ENODEV` when the file is not that device (or the
    /// kernel lists none: the `rdma_ucm` module is not loaded).
    pub fn open(path: &Path) -> Result<CmFile, Errno> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDWR | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )?;
        let st = rustix::fs::fstat(&fd)?;
        let is_chr = rustix::fs::FileType::from_raw_mode(st.st_mode)
            == rustix::fs::FileType::CharacterDevice;
        let (major, minor) = (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev));
        if !is_chr || !super::node::is_rdma_cm(major, minor) {
            return Err(Errno::NODEV);
        }
        Ok(CmFile { fd })
    }

    /// Runs a command made by a builder of this module.
    ///
    /// # Errors
    ///
    /// The kernel's errno (`EAGAIN` from GET_EVENT when no event is queued).
    pub fn call(&self, req: &mut CmRequest<'_>) -> Result<(), Errno> {
        // SAFETY: a CmRequest is made only by the builders above: the header's `in` is the
        // command struct's length, `out` the length of the response whose address is the
        // command's `response` field, borrowed mutably for the request's life (`'a`) and
        // exactly the struct the kernel copies out (at most `out` bytes); no command
        // carries another address. The fd is the rdma_cm misc device (checked at open).
        unsafe { sys::write_command(self.fd.as_fd(), req.as_bytes()) }
    }

    /// The file, to poll for events.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// An address as the CM commands carry it: IPv4 as a `sockaddr_in` inside the
/// `sockaddr_in6`-sized field (family `AF_INET`, port, address), IPv6 as is.
pub fn sockaddr(addr: &std::net::SocketAddr) -> sockaddr_in6 {
    let mut s = sockaddr_in6::new_zeroed();
    match addr {
        std::net::SocketAddr::V4(a) => {
            s.sin6_family = rustix::net::AddressFamily::INET.as_raw();
            s.sin6_port = a.port().to_be();
            // sockaddr_in: family, port, then the address where sin6_flowinfo is.
            s.sin6_flowinfo = u32::from_ne_bytes(a.ip().octets());
        }
        std::net::SocketAddr::V6(a) => {
            s.sin6_family = rustix::net::AddressFamily::INET6.as_raw();
            s.sin6_port = a.port().to_be();
            s.sin6_flowinfo = a.flowinfo().to_be();
            s.sin6_addr = a.ip().octets();
            s.sin6_scope_id = a.scope_id();
        }
    }
    s
}

/// The address a `__kernel_sockaddr_storage` holds (IPv4 or IPv6), `None` for another
/// family.
pub fn socket_addr(s: &__kernel_sockaddr_storage) -> Option<std::net::SocketAddr> {
    let port = u16::from_be_bytes([s.data[0], s.data[1]]);
    if s.ss_family == rustix::net::AddressFamily::INET.as_raw() {
        let ip = std::net::Ipv4Addr::new(s.data[2], s.data[3], s.data[4], s.data[5]);
        Some(std::net::SocketAddr::from((ip, port)))
    } else if s.ss_family == rustix::net::AddressFamily::INET6.as_raw() {
        let mut o = [0u8; 16];
        o.copy_from_slice(&s.data[6..22]);
        Some(std::net::SocketAddr::from((
            std::net::Ipv6Addr::from(o),
            port,
        )))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_carry_their_response_and_nothing_else() {
        let mut r = rdma_ucm_create_id_resp::default();
        let p = &r as *const rdma_ucm_create_id_resp as u64;
        let req = create_id(0x1122, RDMA_PS_TCP, 2, &mut r);
        let mut want = vec![0, 0, 0, 0, 24, 0, 4, 0]; // CREATE_ID, in 24, out 4
        want.extend_from_slice(&0x1122u64.to_ne_bytes());
        want.extend_from_slice(&p.to_ne_bytes());
        want.extend_from_slice(&[0x06, 0x01, 2, 0, 0, 0, 0, 0]);
        assert_eq!(req.as_bytes(), &want[..]);

        let mut ev = rdma_ucm_event_resp::default();
        let p = &ev as *const rdma_ucm_event_resp as u64;
        let req = get_event(&mut ev);
        let mut want = vec![12, 0, 0, 0, 8, 0, 0x50, 1]; // GET_EVENT, in 8, out 336
        want.extend_from_slice(&p.to_ne_bytes());
        assert_eq!(req.as_bytes(), &want[..]);

        let mut qa = ib_uverbs_qp_attr::default();
        let p = &qa as *const ib_uverbs_qp_attr as u64;
        let req = init_qp_attr(3, 1, &mut qa);
        let mut want = vec![11, 0, 0, 0, 16, 0, 144, 0];
        want.extend_from_slice(&p.to_ne_bytes());
        want.extend_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(req.as_bytes(), &want[..]);

        // BIND_IP of 169.254.129.1:7174: a sockaddr_in in the sockaddr_in6 field, and a
        // response field the kernel never writes, left 0.
        let a = sockaddr(&"169.254.129.1:7174".parse().unwrap());
        let req = bind_ip(4, &a);
        let b = req.as_bytes();
        assert_eq!(&b[..8], &[2, 0, 0, 0, 40, 0, 0, 0]);
        assert_eq!(&b[8..16], &[0; 8]);
        assert_eq!(&b[16..24], &[2, 0, 0x1c, 0x06, 169, 254, 129, 1]);
        assert_eq!(&b[44..48], &[4, 0, 0, 0]);

        let p = rdma_ucm_conn_param {
            qp_num: 0x12,
            responder_resources: 1,
            initiator_depth: 1,
            retry_count: 7,
            rnr_retry_count: 7,
            valid: 1,
            ..Default::default()
        };
        let req = accept(9, 5, &p);
        assert_eq!(req.as_bytes().len(), 8 + 296);
        assert_eq!(&req.as_bytes()[..8], &[8, 0, 0, 0, 0x28, 1, 0, 0]);
        let req = connect(5, &p);
        assert_eq!(&req.as_bytes()[..8], &[6, 0, 0, 0, 0x20, 1, 0, 0]);
        assert_eq!(
            disconnect(5).as_bytes(),
            &[10, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0]
        );
        assert_eq!(
            listen(5, 8).as_bytes(),
            &[7, 0, 0, 0, 8, 0, 0, 0, 5, 0, 0, 0, 8, 0, 0, 0]
        );
        assert_eq!(
            resolve_route(5, 2000).as_bytes(),
            &[4, 0, 0, 0, 8, 0, 0, 0, 5, 0, 0, 0, 0xd0, 7, 0, 0]
        );
    }

    #[test]
    fn addresses() {
        let a: std::net::SocketAddr = "10.1.2.3:80".parse().unwrap();
        let s = sockaddr(&a);
        let mut st = __kernel_sockaddr_storage {
            ss_family: s.sin6_family,
            ..Default::default()
        };
        st.data[..26].copy_from_slice(&s.as_bytes()[2..]);
        assert_eq!(socket_addr(&st), Some(a));
        let a: std::net::SocketAddr = "[fe80::1]:7174".parse().unwrap();
        let s = sockaddr(&a);
        st.ss_family = s.sin6_family;
        st.data[..26].copy_from_slice(&s.as_bytes()[2..]);
        assert_eq!(socket_addr(&st), Some(a));
    }
}
