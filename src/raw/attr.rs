//! The attribute array of an `RDMA_VERBS_IOCTL` call.
//!
//! [`IoctlBuf`] is the header and up to `N` attributes laid out as the kernel reads them,
//! on the stack (no allocation). Inputs of 8 bytes or less travel inline in the
//! attribute's `data`; larger inputs and every output travel as a pointer into a buffer
//! the `IoctlBuf` borrows for its whole life, so the kernel can only ever write into
//! memory the caller lent it. The kernel marks every output it wrote with
//! `UVERBS_ATTR_F_VALID_OUTPUT`, which [`IoctlBuf::valid_output`] reads back.
//!
//! Building a buffer is harmless; executing one is not. The kernel decides from the
//! attribute *id* whether it reads or writes through an attribute, not from which of
//! these functions made it: a `const_in` whose id the method declares as an output
//! makes the kernel write to the "value" as an address. So an `IoctlBuf` runs only
//! through [`VerbsFile::ioctl`](crate::raw::VerbsFile::ioctl), which is `unsafe`; the
//! builders of [`method`](crate::raw::method), which fix every id and direction, make
//! [`Request`](crate::raw::method::Request)s, which run safely.
//!
//! The kinds of attribute (`include/rdma/uverbs_ioctl.h`):
//!
//! | kind | builder | `len` | `data` |
//! |---|---|---|---|
//! | `CONST_IN`, `FLAGS_IN` | [`IoctlBuf::const_in`] | 8 | the value |
//! | `PTR_IN` | [`IoctlBuf::ptr_in`] | bytes | inline up to 8 bytes, else a pointer |
//! | `PTR_OUT` | [`IoctlBuf::ptr_out`] | bytes | a pointer |
//! | `ENUM_IN` | [`IoctlBuf::enum_in`] | bytes | as `PTR_IN`; `attr_data` names the element |
//! | `IDR` (READ, WRITE, DESTROY) | [`IoctlBuf::idr_in`] | 0 | the object handle |
//! | `IDR` (NEW) | [`IoctlBuf::idr_new`] | 0 | the kernel writes the new handle |
//! | `FD` (READ) | [`IoctlBuf::fd_in`] | 0 | the fd number |
//! | `FD` (NEW) | [`IoctlBuf::fd_new`] | 0 | the kernel writes the new fd |

use core::marker::PhantomData;
use std::os::fd::{AsRawFd, BorrowedFd};

use zerocopy::IntoBytes;

use crate::raw::abi::{
    ib_uverbs_attr, ib_uverbs_ioctl_hdr, UVERBS_ATTR_F_MANDATORY, UVERBS_ATTR_F_VALID_OUTPUT,
};

/// Index of an attribute inside an [`IoctlBuf`], to read back what the kernel wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrSlot(usize);

/// The header and attributes of one ioctl call.
///
/// Invariant (relied upon by `sys::verbs_ioctl`): every attribute whose `data` is a
/// pointer points at a buffer borrowed for `'a` with at least `len` bytes, writable when
/// it is an output; `hdr.length` and `hdr.num_attrs` match the attributes in use.
#[repr(C)]
#[derive(Debug)]
pub struct IoctlBuf<'a, const N: usize> {
    hdr: ib_uverbs_ioctl_hdr,
    attrs: [ib_uverbs_attr; N],
    _borrows: PhantomData<&'a mut [u8]>,
}

impl<'a, const N: usize> IoctlBuf<'a, N> {
    /// A call of `method_id` on `object_id`, for a device whose `rdma_driver_id` is
    /// `driver_id`.
    pub fn new(object_id: u16, method_id: u16, driver_id: u32) -> Self {
        IoctlBuf {
            hdr: ib_uverbs_ioctl_hdr {
                length: core::mem::size_of::<ib_uverbs_ioctl_hdr>() as u16,
                object_id,
                method_id,
                num_attrs: 0,
                reserved1: 0,
                driver_id,
                reserved2: 0,
            },
            attrs: [ib_uverbs_attr::default(); N],
            _borrows: PhantomData,
        }
    }

    fn push(&mut self, attr: ib_uverbs_attr) -> AttrSlot {
        let i = usize::from(self.hdr.num_attrs);
        assert!(i < N, "IoctlBuf<{N}> is full: the method builder is wrong");
        self.attrs[i] = attr;
        self.hdr.num_attrs += 1;
        self.hdr.length += core::mem::size_of::<ib_uverbs_attr>() as u16;
        AttrSlot(i)
    }

    fn flags(mandatory: bool) -> u16 {
        if mandatory {
            UVERBS_ATTR_F_MANDATORY
        } else {
            0
        }
    }

    /// A `CONST_IN` or `FLAGS_IN` value: always sent with `len` 8, inline, whatever its C
    /// type (the kernel range-checks it).
    pub fn const_in(&mut self, attr_id: u16, value: u64, mandatory: bool) -> AttrSlot {
        self.push(ib_uverbs_attr {
            attr_id,
            len: 8,
            flags: Self::flags(mandatory),
            attr_data: 0,
            data: value,
        })
    }

    /// A `PTR_IN` buffer: inline when it has 8 bytes or less, else by pointer. The
    /// kernel's `len` is 16 bits: a longer buffer is sent as its first 65535 bytes.
    pub fn ptr_in(&mut self, attr_id: u16, data: &'a [u8], mandatory: bool) -> AttrSlot {
        let len = u16::try_from(data.len()).unwrap_or(u16::MAX);
        let value = if data.len() <= 8 {
            let mut inline = [0u8; 8];
            inline[..data.len()].copy_from_slice(data);
            u64::from_ne_bytes(inline)
        } else {
            data.as_ptr() as u64
        };
        self.push(ib_uverbs_attr {
            attr_id,
            len,
            flags: Self::flags(mandatory),
            attr_data: 0,
            data: value,
        })
    }

    /// A `PTR_OUT` buffer, always by pointer. The kernel's `len` is 16 bits: of a longer
    /// buffer only the first 65535 bytes are offered (never more than the slice).
    pub fn ptr_out(&mut self, attr_id: u16, out: &'a mut [u8], mandatory: bool) -> AttrSlot {
        let len = u16::try_from(out.len()).unwrap_or(u16::MAX);
        self.push(ib_uverbs_attr {
            attr_id,
            len,
            flags: Self::flags(mandatory),
            attr_data: 0,
            data: out.as_mut_ptr() as u64,
        })
    }

    /// An `ENUM_IN` attribute: element `elem_id` of the attribute's enum, with that
    /// element's data (inline up to 8 bytes, else by pointer, as [`Self::ptr_in`]).
    pub fn enum_in(
        &mut self,
        attr_id: u16,
        elem_id: u8,
        data: &'a [u8],
        mandatory: bool,
    ) -> AttrSlot {
        let slot = self.ptr_in(attr_id, data, mandatory);
        // `attr_data.enum_data`: elem_id in the first byte, reserved 0 in the second.
        self.attrs[slot.0].attr_data = u16::from_ne_bytes([elem_id, 0]);
        slot
    }

    /// An `IDR` attribute naming an existing object by its handle (access READ, WRITE
    /// or DESTROY, which the method's spec fixes; `len` 0). Always mandatory.
    pub fn idr_in(&mut self, attr_id: u16, handle: u32) -> AttrSlot {
        self.push(ib_uverbs_attr {
            attr_id,
            len: 0,
            flags: UVERBS_ATTR_F_MANDATORY,
            attr_data: 0,
            data: u64::from(handle),
        })
    }

    /// An `IDR` attribute of access NEW: the kernel creates the object and writes its
    /// handle into the attribute's `data` ([`Self::data`] after the call). `data`
    /// starts as `u64::MAX`, so an answer the kernel did not write is never a handle.
    pub fn idr_new(&mut self, attr_id: u16) -> AttrSlot {
        self.push(ib_uverbs_attr {
            attr_id,
            len: 0,
            flags: UVERBS_ATTR_F_MANDATORY,
            attr_data: 0,
            data: u64::MAX,
        })
    }

    /// An `FD` attribute naming an existing file of this device by its descriptor
    /// (a completion channel; `len` 0), borrowed for the buffer's life so that the
    /// number cannot be closed and reused before the call.
    pub fn fd_in(&mut self, attr_id: u16, fd: BorrowedFd<'a>, mandatory: bool) -> AttrSlot {
        self.push(ib_uverbs_attr {
            attr_id,
            len: 0,
            flags: Self::flags(mandatory),
            attr_data: 0,
            data: fd.as_raw_fd() as u64,
        })
    }

    /// An `FD` attribute that the kernel fills with a new file descriptor (`len` 0). Its
    /// `data` starts as `u64::MAX` (-1), so an answer the kernel did not write can never
    /// be mistaken for fd 0.
    pub fn fd_new(&mut self, attr_id: u16) -> AttrSlot {
        self.push(ib_uverbs_attr {
            attr_id,
            len: 0,
            flags: UVERBS_ATTR_F_MANDATORY,
            attr_data: 0,
            data: u64::MAX,
        })
    }

    /// True when the kernel wrote the output attribute.
    pub fn valid_output(&self, slot: AttrSlot) -> bool {
        self.attrs[slot.0].flags & UVERBS_ATTR_F_VALID_OUTPUT != 0
    }

    /// The attribute's `data` word after the call (an fd number for [`Self::fd_new`]).
    pub fn data(&self, slot: AttrSlot) -> u64 {
        self.attrs[slot.0].data
    }

    /// The header.
    pub fn header(&self) -> &ib_uverbs_ioctl_hdr {
        &self.hdr
    }

    /// Sets the header's `reserved1` and `reserved2`, which the kernel wants zero (ABI
    /// tests: `ib_uverbs_ioctl` refuses a non-zero one with `EPROTONOSUPPORT` before it
    /// reads an attribute). Nothing the kernel reads or writes through changes.
    pub(crate) fn set_hdr_reserved(&mut self, reserved1: u64, reserved2: u32) {
        self.hdr.reserved1 = reserved1;
        self.hdr.reserved2 = reserved2;
    }

    /// Sets the header's `driver_id`: the driver the request's driver data is for, which
    /// the kernel compares with the device's own before it reads anything else
    /// (`ib_uverbs_cmd_verbs`: `EINVAL` when they differ).
    pub(crate) fn set_hdr_driver_id(&mut self, driver_id: u32) {
        self.hdr.driver_id = driver_id;
    }

    /// Sets the `attr_data` of attribute `i`, which a pointer attribute reserves (ABI
    /// tests: `uverbs_process_attr` refuses a non-zero one with `EINVAL` before it
    /// copies through it); false past the attributes in use. Only for pointer
    /// attributes: an enum attribute's `attr_data` is its element's id.
    pub(crate) fn set_attr_data(&mut self, i: usize, v: u16) -> bool {
        match self.attrs[..usize::from(self.hdr.num_attrs)].get_mut(i) {
            Some(a) => {
                a.attr_data = v;
                true
            }
            None => false,
        }
    }

    /// The attributes in use.
    pub fn attrs(&self) -> &[ib_uverbs_attr] {
        &self.attrs[..usize::from(self.hdr.num_attrs)]
    }

    /// The header followed by the attributes in use, as one byte vector (tests, golden
    /// files).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = self.hdr.as_bytes().to_vec();
        v.extend_from_slice(self.attrs().as_bytes());
        v
    }
}
