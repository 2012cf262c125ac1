//! The `raw.*` cases: the kernel's rules for requests no well-behaved library sends,
//! through the raw layer's builders (`raw::method`), each answer checked against the
//! rule in the kernel's source that makes it, cited in the case:
//!
//! - `ib_uverbs_ioctl` and `ib_uverbs_cmd_verbs` (drivers/infiniband/core/uverbs_ioctl.c):
//!   a header whose `driver_id` is not the device's is `EINVAL`; an object or method the
//!   kernel does not define is `EPROTONOSUPPORT`;
//! - `ib_uverbs_ioctl` (same file): a header whose `reserved1` or `reserved2` is not
//!   zero is `EPROTONOSUPPORT`; `uverbs_process_attr`: a pointer attribute whose
//!   `attr_data` (reserved) is not zero, `EINVAL`;
//! - `uverbs_set_attr` (same file): an attribute id the method does not define is
//!   `EPROTONOSUPPORT` when flagged `UVERBS_ATTR_F_MANDATORY`, else skipped;
//! - `verify_hdr` (drivers/infiniband/core/uverbs_main.c): a legacy `write()` command
//!   whose response buffer is shorter than the command's response is `ENOSPC`; an
//!   extended one's response is never too short (`uapi_merge_write` in
//!   drivers/infiniband/core/uverbs_uapi.c keeps no size for it): it is truncated;
//! - `uverbs_request`, `uverbs_response`, `uverbs_response_length` and
//!   `ib_uverbs_ex_query_device` (drivers/infiniband/core/uverbs_cmd.c): request bytes
//!   past the kernel's struct must be zero (`EOPNOTSUPP`); a longer response buffer is
//!   zero-filled past what the kernel wrote, and `response_length` says how much that
//!   was; unknown `comp_mask` bits and a non-zero `reserved` are `EINVAL`;
//! - `rdma_lookup_get_uobject` and `lookup_get_idr_uobject`
//!   (drivers/infiniband/core/rdma_core.c): a handle of another type is `EINVAL`, one
//!   that names no object (any more) `ENOENT`, by ioctl and by `write()` alike.
//!
//! The same rules were observed on Debian's Linux 6.1 and 6.12, on rxe and siw. Each
//! case opens its own context; `raw.handles` alone makes objects (a PD and a CQ).

use std::sync::Arc;

use rustix::io::Errno;
use zerocopy::{FromBytes, IntoBytes};

use crate::raw::abi::ib_uverbs_dealloc_pd;
use crate::raw::abi::{
    ib_uverbs_ex_query_device, ib_uverbs_ex_query_device_resp, ib_uverbs_query_port_resp,
    ib_uverbs_query_port_resp_ex, UVERBS_ATTR_F_VALID_OUTPUT,
};
use crate::raw::method::{self, DriverIn, Reserved, Undefined};
use crate::selftest::Outcome;
use crate::verbs::context::Context;
use crate::verbs::discover::DeviceInfo;

/// The cases: full name, the kernel methods they exercise.
pub(super) const CASES: [(&str, &str); 11] = [
    (
        "raw.ioctl.reserved",
        "QUERY_PORT with a reserved field of the header (EPROTONOSUPPORT) or an attribute (EINVAL) set",
    ),
    (
        "raw.ioctl.unknown_attr.mandatory",
        "QUERY_PORT with an undefined attribute id, mandatory: EPROTONOSUPPORT",
    ),
    (
        "raw.ioctl.unknown_attr.optional",
        "QUERY_PORT with an undefined attribute id, optional: skipped",
    ),
    (
        "raw.ioctl.unknown_method",
        "RDMA_VERBS_IOCTL to an undefined method and object: EPROTONOSUPPORT",
    ),
    (
        "raw.ioctl.driver_id",
        "QUERY_PORT with another driver's id in the header: EINVAL",
    ),
    (
        "raw.ex.comp_mask",
        "QUERY_DEVICE_EX (ioctl, write) with comp_mask or reserved set: EINVAL",
    ),
    (
        "raw.ex.trailing",
        "QUERY_DEVICE_EX (ioctl, write) with a longer request: zero accepted, else EOPNOTSUPP",
    ),
    (
        "raw.write.short_response",
        "QUERY_PORT by write() into a response buffer shorter than its struct: ENOSPC",
    ),
    (
        "raw.ex.short_response",
        "QUERY_DEVICE_EX (ioctl, write) into short buffers: truncated, response_length where it fits",
    ),
    (
        "raw.write.long_response",
        "QUERY_PORT, QUERY_DEVICE_EX (ioctl, write) into a longer buffer: the rest zeroed",
    ),
    (
        "raw.handles",
        "PD_DESTROY, DEALLOC_PD with a CQ's handle (EINVAL) and a destroyed PD's (ENOENT)",
    ),
];

/// Runs case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    let ctx = match Context::open(info) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            let mut o = Outcome::new();
            o.fail(format!("open: {e}"));
            return o;
        }
    };
    let mut o = Outcome::new();
    match name {
        "raw.ioctl.reserved" => reserved(&ctx, &mut o),
        "raw.ioctl.unknown_attr.mandatory" => unknown_attr(&ctx, true, &mut o),
        "raw.ioctl.unknown_attr.optional" => unknown_attr(&ctx, false, &mut o),
        "raw.ioctl.unknown_method" => unknown_method(&ctx, &mut o),
        "raw.ioctl.driver_id" => driver_id(&ctx, &mut o),
        "raw.ex.comp_mask" => comp_mask(&ctx, &mut o),
        "raw.ex.trailing" => trailing(&ctx, &mut o),
        "raw.write.short_response" => short_response(&ctx, &mut o),
        "raw.ex.short_response" => ex_short_response(&ctx, &mut o),
        "raw.write.long_response" => long_response(&ctx, &mut o),
        "raw.handles" => handles(&ctx, &mut o),
        _ => o.fail(format!("no raw case {name}")),
    }
    o
}

fn answer(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".to_owned(),
        Err(e) => format!("errno {}", e.raw_os_error()),
    }
}

/// Records the kernel's answer to `what` as a fact and checks it is `want`; the
/// diagnostic names the rule (`why`).
fn expect(o: &mut Outcome, what: &str, got: Result<(), Errno>, want: Result<(), Errno>, why: &str) {
    o.fact(what, answer(got));
    o.check(got == want, || {
        format!(
            "{what}: expected {}, got {} ({why})",
            answer(want),
            answer(got)
        )
    });
}

const IOCTL: &str = "ib_uverbs_ioctl, drivers/infiniband/core/uverbs_ioctl.c";
const PROCESS_ATTR: &str = "uverbs_process_attr, drivers/infiniband/core/uverbs_ioctl.c";

/// QUERY_PORT (port 1) with one reserved field set at a time: the header's two words,
/// refused before any attribute is read; the response attribute's `attr_data`, refused
/// before the kernel writes through it (the response stays as it was).
fn reserved(ctx: &Context, o: &mut Outcome) {
    for (which, what, want, why) in [
        (
            Reserved::Header1,
            "QUERY_PORT, header reserved1 1",
            Errno::PROTONOSUPPORT,
            IOCTL,
        ),
        (
            Reserved::Header2,
            "QUERY_PORT, header reserved2 1",
            Errno::PROTONOSUPPORT,
            IOCTL,
        ),
        (
            Reserved::AttrData,
            "QUERY_PORT, RESP attr_data 1",
            Errno::INVAL,
            PROCESS_ATTR,
        ),
    ] {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        let got = ctx.raw().call(&mut method::query_port_with_reserved(
            ctx.driver_id(),
            1,
            &mut resp,
            which,
        ));
        expect(o, what, got, Err(want), why);
        o.check(resp == ib_uverbs_query_port_resp_ex::default(), || {
            format!("{what}: the response was written although the call was refused ({why})")
        });
    }
}

const SET_ATTR: &str = "uverbs_set_attr, drivers/infiniband/core/uverbs_ioctl.c";
const CMD_VERBS: &str = "ib_uverbs_cmd_verbs, drivers/infiniband/core/uverbs_ioctl.c";
const REQUEST: &str = "uverbs_request, drivers/infiniband/core/uverbs_cmd.c";
const EX_QUERY: &str = "ib_uverbs_ex_query_device, drivers/infiniband/core/uverbs_cmd.c";
const VERIFY_HDR: &str = "verify_hdr, drivers/infiniband/core/uverbs_main.c";
const RESPONSE: &str = "uverbs_response, drivers/infiniband/core/uverbs_cmd.c";

/// An undefined attribute id on QUERY_PORT (port 1): mandatory, refused; optional,
/// skipped, and the method's output written as without it.
fn unknown_attr(ctx: &Context, mandatory: bool, o: &mut Outcome) {
    let mut plain = ib_uverbs_query_port_resp_ex::default();
    let mut resp = ib_uverbs_query_port_resp_ex::default();
    let mut req = method::query_port_with_undefined_attr(ctx.driver_id(), 1, &mut resp, mandatory);
    let got = ctx.raw().call(&mut req);
    let written = req
        .attrs()
        .get(1)
        .is_some_and(|a| a.flags & UVERBS_ATTR_F_VALID_OUTPUT != 0);
    if mandatory {
        expect(o, "QUERY_PORT", got, Err(Errno::PROTONOSUPPORT), SET_ATTR);
        return;
    }
    expect(o, "QUERY_PORT", got, Ok(()), SET_ATTR);
    if got.is_err() {
        return;
    }
    o.check(written, || {
        "QUERY_PORT: RESP not marked UVERBS_ATTR_F_VALID_OUTPUT".into()
    });
    match ctx
        .raw()
        .call(&mut method::query_port(ctx.driver_id(), 1, &mut plain))
    {
        Ok(()) => {
            let (a, b) = (&resp.legacy_resp, &plain.legacy_resp);
            let key = |r: &ib_uverbs_query_port_resp| (r.state, r.max_mtu, r.gid_tbl_len);
            o.check(key(a) == key(b), || {
                format!(
                    "QUERY_PORT: state, max_mtu, gid_tbl_len {:?} with the extra attribute, {:?} without",
                    key(a),
                    key(b)
                )
            });
        }
        Err(e) => o.fail(format!("QUERY_PORT without the extra attribute: {e}")),
    }
}

fn unknown_method(ctx: &Context, o: &mut Outcome) {
    for (which, what) in [
        (Undefined::Method, "DEVICE method 20"),
        (Undefined::Object, "object 200"),
    ] {
        let got = ctx
            .raw()
            .call(&mut method::undefined_method(ctx.driver_id(), which));
        expect(o, what, got, Err(Errno::PROTONOSUPPORT), CMD_VERBS);
    }
}

fn driver_id(ctx: &Context, o: &mut Outcome) {
    let mut resp = ib_uverbs_query_port_resp_ex::default();
    let other = ctx.driver_id() ^ 1;
    let got = ctx.raw().call(&mut method::query_port(other, 1, &mut resp));
    expect(
        o,
        &format!("QUERY_PORT with driver_id {other}"),
        got,
        Err(Errno::INVAL),
        CMD_VERBS,
    );
}

/// QUERY_DEVICE_EX with `cmd` into `resp`, by INVOKE_WRITE (`path` "ioctl") or by
/// `write()` (any other).
fn query_device_ex(ctx: &Context, path: &str, cmd: &[u8], resp: &mut [u8]) -> Result<(), Errno> {
    if path == "ioctl" {
        ctx.raw().call(&mut method::query_device_ex_bytes(
            ctx.driver_id(),
            cmd,
            resp,
        ))
    } else {
        ctx.raw()
            .write(&mut method::write_query_device_ex_bytes(cmd, resp))
    }
}

/// QUERY_DEVICE_EX with `cmd` by INVOKE_WRITE and by `write()`, into a response of the
/// crate's struct; the answers, in that order.
fn ex_both(ctx: &Context, cmd: &[u8]) -> [Result<(), Errno>; 2] {
    let mut resp = ib_uverbs_ex_query_device_resp::default();
    ["ioctl", "write"].map(|path| query_device_ex(ctx, path, cmd, resp.as_mut_bytes()))
}

fn comp_mask(ctx: &Context, o: &mut Outcome) {
    for (cmd, what) in [
        (
            ib_uverbs_ex_query_device {
                comp_mask: 1,
                reserved: 0,
            },
            "comp_mask 1",
        ),
        (
            ib_uverbs_ex_query_device {
                comp_mask: 0,
                reserved: 1,
            },
            "reserved 1",
        ),
    ] {
        let [i, w] = ex_both(ctx, cmd.as_bytes());
        expect(o, &format!("ioctl {what}"), i, Err(Errno::INVAL), EX_QUERY);
        expect(o, &format!("write {what}"), w, Err(Errno::INVAL), EX_QUERY);
    }
}

fn trailing(ctx: &Context, o: &mut Outcome) {
    for (tail, want, what) in [
        (0u8, Ok(()), "8 zero bytes after the struct"),
        (
            1u8,
            Err(Errno::OPNOTSUPP),
            "a non-zero byte after the struct",
        ),
    ] {
        let mut cmd = [0u8; 16];
        cmd[15] = tail;
        let [i, w] = ex_both(ctx, &cmd);
        expect(o, &format!("ioctl {what}"), i, want, REQUEST);
        expect(o, &format!("write {what}"), w, want, REQUEST);
    }
}

/// The offset just past `response_length` in the extended response: the least a
/// response_length can say.
const EX_MIN_RESP: usize =
    core::mem::offset_of!(ib_uverbs_ex_query_device_resp, response_length) + 4;

fn short_response(ctx: &Context, o: &mut Outcome) {
    // The legacy response has no response_length: a buffer one word short is refused
    // whole, before the handler runs.
    let port_resp = core::mem::size_of::<ib_uverbs_query_port_resp>();
    for len in [8, port_resp - 4] {
        let mut resp = [0u8; 64];
        let got = ctx
            .raw()
            .write(&mut method::write_query_port_bytes(1, &mut resp[..len]));
        expect(
            o,
            &format!("QUERY_PORT into {len} of {port_resp} bytes"),
            got,
            Err(Errno::NOSPC),
            VERIFY_HDR,
        );
    }
}

/// QUERY_DEVICE_EX, by ioctl (INVOKE_WRITE) and by `write()`, into the whole response,
/// into a buffer ending just past `response_length`, and into one ending before it (the
/// legacy attributes only). `UAPI_DEF_WRITE_IO_EX(..., response_length)` names the least
/// response, but `uapi_merge_write` (drivers/infiniband/core/uverbs_uapi.c) keeps a
/// method's `req_size` and `resp_size` only for the legacy commands: an extended one's
/// stay 0, so neither `verify_hdr` nor the INVOKE_WRITE handler refuses a short buffer
/// (`ENOSPC` is the legacy commands' answer: `raw.write.short_response`). The handler
/// runs and `uverbs_response` writes what fits, `response_length` saying how much
/// (`uverbs_response_length`: the lesser of the buffer and the struct) where it fits at
/// all. Only a `write()` that names a response of no words is refused (`EINVAL`,
/// `verify_hdr`). The same source in 6.1 and 6.12; observed on both.
fn ex_short_response(ctx: &Context, o: &mut Outcome) {
    const EX: usize = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
    // The legacy attributes: what precedes comp_mask and response_length.
    const LEGACY: usize = EX_MIN_RESP - 8;
    let cmd = ib_uverbs_ex_query_device::default();
    let query = |path: &str, resp: &mut [u8]| query_device_ex(ctx, path, cmd.as_bytes(), resp);
    for path in ["ioctl", "write"] {
        let mut full = [0u8; EX];
        let got = query(path, &mut full);
        expect(
            o,
            &format!("{path} QUERY_DEVICE_EX into {EX} bytes"),
            got,
            Ok(()),
            RESPONSE,
        );
        for len in [EX_MIN_RESP, LEGACY] {
            let mut short = [0xffu8; EX];
            let what = format!("{path} QUERY_DEVICE_EX into {len} bytes");
            let got = query(path, &mut short[..len]);
            expect(o, &what, got, Ok(()), "uapi_merge_write, drivers/infiniband/core/uverbs_uapi.c: no resp_size for extended commands");
            if got.is_err() {
                continue;
            }
            // What fits is the whole answer's (response_length aside), and nothing
            // past the buffer is touched.
            o.check(short[..LEGACY] == full[..LEGACY], || {
                format!("{what}: the legacy attributes differ from the whole answer's")
            });
            o.check(short[len..].iter().all(|&b| b == 0xff), || {
                format!("{what}: bytes past the buffer written")
            });
            if len == EX_MIN_RESP {
                let got = ib_uverbs_ex_query_device_resp::read_from_prefix(&short[..])
                    .map(|(r, _)| r.response_length as usize)
                    .unwrap_or(0);
                o.fact(format!("{path} response_length into {len} bytes"), got);
                o.check(got == len, || {
                    format!("{what}: response_length {got}, not {len} (uverbs_response_length)")
                });
            }
        }
    }
    let got = query("write", &mut []);
    expect(
        o,
        "write QUERY_DEVICE_EX into 0 bytes",
        got,
        Err(Errno::INVAL),
        VERIFY_HDR,
    );
}

fn long_response(ctx: &Context, o: &mut Outcome) {
    // QUERY_PORT: the kernel's 40 bytes, then 8 of ours, zeroed.
    let port_resp = core::mem::size_of::<ib_uverbs_query_port_resp>();
    let mut resp = [0xffu8; 48];
    let got = ctx
        .raw()
        .write(&mut method::write_query_port_bytes(1, &mut resp));
    expect(o, "QUERY_PORT into 48 bytes", got, Ok(()), RESPONSE);
    if got.is_ok() {
        o.check(resp[port_resp..].iter().all(|&b| b == 0), || {
            format!(
                "QUERY_PORT into 48 bytes: bytes {port_resp}.. not zeroed: {:02x?}",
                &resp[port_resp..]
            )
        });
    }
    // QUERY_DEVICE_EX: response_length is what the kernel wrote; the rest is zeroed.
    const EX: usize = core::mem::size_of::<ib_uverbs_ex_query_device_resp>();
    let cmd = ib_uverbs_ex_query_device::default();
    for path in ["ioctl", "write"] {
        let mut resp = [0xffu8; EX + 64];
        let got = query_device_ex(ctx, path, cmd.as_bytes(), &mut resp);
        let what = format!("{path} QUERY_DEVICE_EX into {} bytes", EX + 64);
        expect(o, &what, got, Ok(()), RESPONSE);
        if got.is_err() {
            continue;
        }
        let Ok((r, _)) = ib_uverbs_ex_query_device_resp::read_from_prefix(&resp[..]) else {
            continue;
        };
        let len = r.response_length as usize;
        o.fact(format!("{path} response_length"), len);
        o.check((EX_MIN_RESP..=EX + 64).contains(&len), || {
            format!(
                "{what}: response_length {len} outside {EX_MIN_RESP}..={}",
                EX + 64
            )
        });
        if let Some(rest) = resp.get(len..) {
            o.check(rest.iter().all(|&b| b == 0), || {
                format!("{what}: bytes past response_length {len} not zeroed")
            });
        }
    }
}

const LOOKUP: &str = "rdma_lookup_get_uobject, drivers/infiniband/core/rdma_core.c";

/// PD_DESTROY (ioctl) and DEALLOC_PD (`write()`) given a CQ's handle, then a destroyed
/// PD's.
fn handles(ctx: &Arc<Context>, o: &mut Outcome) {
    let (pd, cq) = match (ctx.alloc_pd(), ctx.create_cq(4, None, 0)) {
        (Ok(p), Ok(c)) => (p, c),
        (p, c) => {
            for (what, e) in [("ALLOC_PD", p.err()), ("CREATE_CQ", c.err())] {
                if let Some(e) = e {
                    o.fail(format!("{what}: {e}"));
                }
            }
            return;
        }
    };
    let destroy = |handle: u32| {
        let file = ctx.raw();
        let ioctl = file.call(&mut method::destroy_pd(file.driver_id(), handle));
        let cmd = ib_uverbs_dealloc_pd { pd_handle: handle };
        let write = file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut []));
        [ioctl, write]
    };
    let [i, w] = destroy(cq.handle());
    expect(o, "PD_DESTROY of a CQ handle", i, Err(Errno::INVAL), LOOKUP);
    expect(o, "DEALLOC_PD of a CQ handle", w, Err(Errno::INVAL), LOOKUP);
    let stale = pd.handle();
    drop(pd);
    let [i, w] = destroy(stale);
    expect(
        o,
        "PD_DESTROY of a destroyed PD",
        i,
        Err(Errno::NOENT),
        LOOKUP,
    );
    expect(
        o,
        "DEALLOC_PD of a destroyed PD",
        w,
        Err(Errno::NOENT),
        LOOKUP,
    );
    drop(cq);
}
