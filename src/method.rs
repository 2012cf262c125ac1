//! One builder per kernel method: each fills an [`IoctlBuf`] with exactly the attributes
//! the method takes, in the order rdma-core sends them. Builders do no I/O, so their
//! request bytes are pinned by golden tests.

use zerocopy::IntoBytes;

use crate::abi::*;
use crate::attr::{AttrSlot, IoctlBuf};

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
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE, driver_id);
    buf.const_in(
        UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
        core::mem::size_of::<ib_uverbs_gid_entry>() as u64,
        true,
    );
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
    let mut buf = IoctlBuf::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, driver_id);
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, u64::from(port), true);
    buf.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, u64::from(index), true);
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
