//! One builder per kernel method: each fills an [`IoctlBuf`] with exactly the attributes
//! the method takes, in the order rdma-core sends them. Builders do no I/O, so their
//! request bytes are pinned by golden tests.

use zerocopy::IntoBytes;

use crate::raw::abi::*;
use crate::raw::attr::{AttrSlot, IoctlBuf};

/// GET_CONTEXT (`UVERBS_METHOD_GET_CONTEXT`, since Linux 5.6): creates the device
/// context of the file. Outputs: the number of completion vectors and the core support
/// flags (both optional), and the driver's output data.
pub struct GetContext<'a> {
    /// The call.
    pub buf: IoctlBuf<'a, 4>,
    /// `NUM_COMP_VECTORS`.
    pub num_comp_vectors: AttrSlot,
    /// `CORE_SUPPORT`.
    pub core_support: AttrSlot,
}

impl<'a> GetContext<'a> {
    /// Builds the call. `num_comp_vectors` and `core_support` receive the outputs;
    /// `udata_in` is sent when non-empty; `udata_out` is always sent.
    pub fn new(
        driver_id: u32,
        num_comp_vectors: &'a mut u32,
        core_support: &'a mut u64,
        udata_in: &'a [u8],
        udata_out: &'a mut [u8],
    ) -> Self {
        let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, driver_id);
        let ncv = buf.ptr_out(
            UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
            num_comp_vectors.as_mut_bytes(),
            false,
        );
        let cs = buf.ptr_out(
            UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
            core_support.as_mut_bytes(),
            false,
        );
        if !udata_in.is_empty() {
            buf.ptr_in(UVERBS_ATTR_UHW_IN, udata_in, false);
        }
        buf.ptr_out(UVERBS_ATTR_UHW_OUT, udata_out, false);
        GetContext {
            buf,
            num_comp_vectors: ncv,
            core_support: cs,
        }
    }
}

/// QUERY_CONTEXT (`UVERBS_METHOD_QUERY_CONTEXT`, since Linux 5.9).
pub fn query_context<'a>(
    driver_id: u32,
    num_comp_vectors: &'a mut u32,
    core_support: &'a mut u64,
) -> IoctlBuf<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, driver_id);
    buf.ptr_out(
        UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
        num_comp_vectors.as_mut_bytes(),
        false,
    );
    buf.ptr_out(
        UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
        core_support.as_mut_bytes(),
        false,
    );
    buf
}

/// QUERY_PORT (`UVERBS_METHOD_QUERY_PORT`, since Linux 5.0). The port number is a
/// `CONST_IN` (sent with `len` 8).
pub fn query_port<'a>(
    driver_id: u32,
    port: u8,
    resp: &'a mut ib_uverbs_query_port_resp_ex,
) -> IoctlBuf<'a, 2> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, driver_id);
    buf.const_in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, u64::from(port), true);
    buf.ptr_out(UVERBS_ATTR_QUERY_PORT_RESP, resp.as_mut_bytes(), true);
    buf
}

/// INVOKE_WRITE (`UVERBS_METHOD_INVOKE_WRITE`, since Linux 5.0): a `write()` command
/// carried by ioctl. `command` is `IB_USER_VERBS_CMD_*` (with
/// `IB_USER_VERBS_CMD_FLAG_EXTENDED` for `_ex` commands).
pub fn invoke_write<'a>(
    driver_id: u32,
    command: u32,
    core_in: &'a [u8],
    core_out: &'a mut [u8],
) -> IoctlBuf<'a, 3> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.ptr_in(UVERBS_ATTR_CORE_IN, core_in, true);
    buf.ptr_out(UVERBS_ATTR_CORE_OUT, core_out, true);
    buf.const_in(UVERBS_ATTR_WRITE_CMD, u64::from(command), true);
    buf
}

/// The probe rdma-core uses to learn whether INVOKE_WRITE works: only `WRITE_CMD` =
/// QUERY_DEVICE. The kernel checks the header's driver id first (`EINVAL` when wrong),
/// then answers `ENOSPC` for the missing buffers: so `ENOSPC` means "supported, and the
/// driver id is right", with no context needed and nothing changed.
pub fn invoke_write_probe<'a>(driver_id: u32) -> IoctlBuf<'a, 1> {
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, driver_id);
    buf.const_in(
        UVERBS_ATTR_WRITE_CMD,
        u64::from(IB_USER_VERBS_CMD_QUERY_DEVICE),
        true,
    );
    buf
}

/// QUERY_GID_TABLE (`UVERBS_METHOD_QUERY_GID_TABLE`, since Linux 5.10): every valid
/// entry of every port, `entries.len() / 32` at most.
pub fn query_gid_table<'a>(
    driver_id: u32,
    entries: &'a mut [ib_uverbs_gid_entry],
    num_entries: &'a mut u64,
) -> IoctlBuf<'a, 4> {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_GID_TABLE,
        driver_id,
    );
    buf.const_in(
        UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
        core::mem::size_of::<ib_uverbs_gid_entry>() as u64,
        true,
    );
    // The attribute length is 16 bits: offer whole entries only (at most 2047).
    let whole = entries
        .len()
        .min(usize::from(u16::MAX) / core::mem::size_of::<ib_uverbs_gid_entry>());
    let entries = &mut entries[..whole];
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
        entries.as_mut_bytes(),
        true,
    );
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
        num_entries.as_mut_bytes(),
        true,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0, false);
    buf
}

/// QUERY_GID_ENTRY (`UVERBS_METHOD_QUERY_GID_ENTRY`, since Linux 5.10): one entry.
pub fn query_gid_entry<'a>(
    driver_id: u32,
    port: u32,
    index: u32,
    entry: &'a mut ib_uverbs_gid_entry,
) -> IoctlBuf<'a, 4> {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_GID_ENTRY,
        driver_id,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, u64::from(port), true);
    buf.const_in(
        UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
        u64::from(index),
        true,
    );
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0, true);
    buf.ptr_out(
        UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
        entry.as_mut_bytes(),
        true,
    );
    buf
}

/// ASYNC_EVENT_ALLOC (`UVERBS_METHOD_ASYNC_EVENT_ALLOC` of `UVERBS_OBJECT_ASYNC_EVENT`,
/// since Linux 5.6): a new async event file; the kernel writes its fd into the slot.
pub fn async_event_alloc<'a>(driver_id: u32) -> (IoctlBuf<'a, 1>, AttrSlot) {
    let mut buf = IoctlBuf::new(
        UVERBS_OBJECT_ASYNC_EVENT,
        UVERBS_METHOD_ASYNC_EVENT_ALLOC,
        driver_id,
    );
    let slot = buf.fd_new(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
    (buf, slot)
}

#[cfg(test)]
mod tests {
    //! Golden bytes of every request: the header and attribute array exactly as the
    //! kernel reads them. Pointers are this process's addresses, so they are spliced in
    //! where the golden text says `PTR(n)`; everything else is fixed.
    use super::*;

    /// Builds the expected bytes from a golden text: hex bytes, `PTR(n)` (8 bytes, the
    /// n-th pointer), whitespace and `#` comments ignored.
    fn golden(text: &str, ptrs: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            for tok in line.split_whitespace() {
                if let Some(n) = tok.strip_prefix("PTR(").and_then(|t| t.strip_suffix(')')) {
                    out.extend_from_slice(&ptrs[n.parse::<usize>().unwrap()].to_ne_bytes());
                } else {
                    out.push(u8::from_str_radix(tok, 16).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn query_port_request() {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        let p = resp.as_bytes().as_ptr() as u64;
        let buf = query_port(RDMA_DRIVER_RXE, 1, &mut resp);
        let want = golden(
            "
            38 00  00 00  02 00  02 00        # length 56, DEVICE, QUERY_PORT, 2 attrs
            00 00 00 00 00 00 00 00           # reserved1
            0e 00 00 00  00 00 00 00          # driver_id 14 (rxe), reserved2
            00 00  08 00  01 00  00 00        # PORT_NUM, len 8, MANDATORY
            01 00 00 00 00 00 00 00           #   port 1 inline
            01 00  30 00  01 00  00 00        # RESP, len 48, MANDATORY
            PTR(0)
            ",
            &[p],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn get_context_request_for_siw_and_mlx5() {
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let (a, b, c) = (
            &ncv as *const u32 as u64,
            &core as *const u64 as u64,
            out.as_ptr() as u64,
        );
        let call = GetContext::new(RDMA_DRIVER_SIW, &mut ncv, &mut core, &[], &mut out);
        let want = golden(
            "
            48 00  00 00  03 00  03 00        # length 72, DEVICE, GET_CONTEXT, 3 attrs
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00          # driver_id 18 (siw)
            00 00  04 00  00 00  00 00        # NUM_COMP_VECTORS, len 4, optional
            PTR(0)
            01 00  08 00  00 00  00 00        # CORE_SUPPORT, len 8
            PTR(1)
            01 10  00 02  00 00  00 00        # UHW_OUT (0x1001), len 512
            PTR(2)
            ",
            &[a, b, c],
        );
        assert_eq!(call.buf.to_vec(), want);

        let udata = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_MLX5);
        assert_eq!(
            udata.as_bytes(),
            &golden(
                "08 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  # 8 bfregs
                 01 00 00 00  00 00 00 00  03 00 00 00 00 00 00 00   # cqe v1, 4K|DYN UAR",
                &[]
            )[..]
        );
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let (a, b, d) = (
            &ncv as *const u32 as u64,
            &core as *const u64 as u64,
            out.as_ptr() as u64,
        );
        let c = udata.as_bytes().as_ptr() as u64;
        let call = GetContext::new(
            RDMA_DRIVER_MLX5,
            &mut ncv,
            &mut core,
            udata.as_bytes(),
            &mut out,
        );
        let want = golden(
            "
            58 00  00 00  03 00  04 00        # length 88, 4 attrs
            00 00 00 00 00 00 00 00
            01 00 00 00  00 00 00 00          # driver_id 1 (mlx5)
            00 00  04 00  00 00  00 00  PTR(0)
            01 00  08 00  00 00  00 00  PTR(1)
            00 10  20 00  00 00  00 00  PTR(2)  # UHW_IN, 32 bytes by pointer
            01 10  00 02  00 00  00 00  PTR(3)
            ",
            &[a, b, c, d],
        );
        assert_eq!(call.buf.to_vec(), want);
    }

    #[test]
    fn small_udata_in_travels_inline() {
        let udata = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_EFA);
        let mut ncv = 0u32;
        let mut core = 0u64;
        let mut out = [0u8; 512];
        let call = GetContext::new(
            RDMA_DRIVER_EFA,
            &mut ncv,
            &mut core,
            udata.as_bytes(),
            &mut out,
        );
        let attr = call.buf.attrs()[2];
        assert_eq!(
            (attr.attr_id, attr.len, attr.flags),
            (UVERBS_ATTR_UHW_IN, 8, 0)
        );
        assert_eq!(attr.data, 3, "EFA's comp_mask TX_BATCH|MIN_SQ_WR inline");
        for (id, want) in [
            (RDMA_DRIVER_IRDMA, 16usize),
            (RDMA_DRIVER_HNS, 8),
            (RDMA_DRIVER_IONIC, 8),
        ] {
            assert_eq!(
                crate::raw::driver::get_context_udata_in(id)
                    .as_bytes()
                    .len(),
                want,
                "driver {id}"
            );
        }
        for id in [
            RDMA_DRIVER_RXE,
            RDMA_DRIVER_SIW,
            RDMA_DRIVER_MLX4,
            RDMA_DRIVER_ERDMA,
            RDMA_DRIVER_BNXT_RE,
        ] {
            assert!(
                crate::raw::driver::get_context_udata_in(id)
                    .as_bytes()
                    .is_empty(),
                "driver {id}"
            );
        }
        let irdma = crate::raw::driver::get_context_udata_in(RDMA_DRIVER_IRDMA);
        assert_eq!(irdma.as_bytes()[4], 5, "irdma userspace_ver 5");
    }

    #[test]
    fn invoke_write_query_device_ex_request() {
        let cmd = ib_uverbs_ex_query_device::default();
        let mut resp = ib_uverbs_ex_query_device_resp::default();
        let out = resp.as_bytes().as_ptr() as u64;
        let buf = invoke_write(
            RDMA_DRIVER_SIW,
            IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
            cmd.as_bytes(),
            resp.as_mut_bytes(),
        );
        let want = golden(
            "
            48 00  00 00  00 00  03 00        # length 72, DEVICE, INVOKE_WRITE, 3 attrs
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00        # CORE_IN, 8 bytes inline (comp_mask, reserved)
            00 00 00 00 00 00 00 00
            01 00  30 01  01 00  00 00        # CORE_OUT, 304 bytes
            PTR(0)
            02 00  08 00  01 00  00 00        # WRITE_CMD
            01 00 00 80 00 00 00 00           #   QUERY_DEVICE | FLAG_EXTENDED
            ",
            &[out],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn driver_id_probe_request() {
        let buf = invoke_write_probe(RDMA_DRIVER_MLX5);
        let want = golden(
            "
            28 00  00 00  00 00  01 00        # length 40, 1 attr
            00 00 00 00 00 00 00 00
            01 00 00 00  00 00 00 00
            02 00  08 00  01 00  00 00  01 00 00 00 00 00 00 00  # WRITE_CMD = QUERY_DEVICE
            ",
            &[],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn gid_requests() {
        let mut entries = [ib_uverbs_gid_entry::default(); 4];
        let mut n = 0u64;
        let (e, np) = (entries.as_bytes().as_ptr() as u64, &n as *const u64 as u64);
        let buf = query_gid_table(RDMA_DRIVER_RXE, &mut entries, &mut n);
        let want = golden(
            "
            58 00  00 00  05 00  04 00        # length 88, QUERY_GID_TABLE, 4 attrs
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00  20 00 00 00 00 00 00 00  # ENTRY_SIZE 32
            02 00  80 00  01 00  00 00  PTR(0)                   # RESP_ENTRIES, 4 x 32
            03 00  08 00  01 00  00 00  PTR(1)                   # RESP_NUM_ENTRIES
            01 00  08 00  00 00  00 00  00 00 00 00 00 00 00 00  # FLAGS 0, optional
            ",
            &[e, np],
        );
        assert_eq!(buf.to_vec(), want);

        let mut entry = ib_uverbs_gid_entry::default();
        let ep = entry.as_bytes().as_ptr() as u64;
        let buf = query_gid_entry(RDMA_DRIVER_SIW, 1, 5, &mut entry);
        let want = golden(
            "
            58 00  00 00  06 00  04 00        # QUERY_GID_ENTRY
            00 00 00 00 00 00 00 00
            12 00 00 00  00 00 00 00
            00 00  08 00  01 00  00 00  01 00 00 00 00 00 00 00  # PORT 1
            01 00  08 00  01 00  00 00  05 00 00 00 00 00 00 00  # GID_INDEX 5
            02 00  08 00  01 00  00 00  00 00 00 00 00 00 00 00  # FLAGS, mandatory here
            03 00  20 00  01 00  00 00  PTR(0)                   # RESP_ENTRY
            ",
            &[ep],
        );
        assert_eq!(buf.to_vec(), want);
    }

    #[test]
    fn async_event_alloc_and_query_context_requests() {
        let (buf, slot) = async_event_alloc(RDMA_DRIVER_RXE);
        let want = golden(
            "
            28 00  10 00  00 00  01 00        # ASYNC_EVENT object 16, ALLOC
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  00 00  01 00  00 00  ff ff ff ff ff ff ff ff  # FD_HANDLE, len 0, -1 until written
            ",
            &[],
        );
        assert_eq!(buf.to_vec(), want);
        assert!(!buf.valid_output(slot));

        let mut ncv = 0u32;
        let mut core = 0u64;
        let (a, b) = (&ncv as *const u32 as u64, &core as *const u64 as u64);
        let buf = query_context(RDMA_DRIVER_RXE, &mut ncv, &mut core);
        let want = golden(
            "
            38 00  00 00  04 00  02 00
            00 00 00 00 00 00 00 00
            0e 00 00 00  00 00 00 00
            00 00  04 00  00 00  00 00  PTR(0)
            01 00  08 00  00 00  00 00  PTR(1)
            ",
            &[a, b],
        );
        assert_eq!(buf.to_vec(), want);
    }
}
