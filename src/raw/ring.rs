//! The queues rxe and siw share with the process: the one place where the kernel and
//! this process read and write the same memory while both run.
//!
//! Each queue is a mapping of the uverbs file ([`RevocableMap`], under the context's
//! lifeline). The kernel and the process take turns on its slots by a protocol; the
//! types here follow it and never make a Rust reference to memory the kernel may write:
//!
//! - **rxe** ([`RxeQueue`]): an [`rxe_queue_buf`] header, then `index_mask + 1` slots of
//!   `1 << log2_elem_size` bytes. Both numbers are read once, when the queue is mapped,
//!   and checked against the mapping's length; the copy in memory is never trusted again
//!   (the kernel, or a revocation, may change it). The producer and consumer indices are
//!   accessed only as `AtomicU32` (`AtomicU32::from_ptr`), with acquire loads of the
//!   other side's index and release stores of one's own, as `rxe_queue.h` (user space)
//!   and the kernel's `rxe_queue.h` do. Every index is masked before it addresses a
//!   slot, so no value in shared memory can move an access outside the mapping. A work
//!   queue's slots between the consumer and the producer index belong to the kernel
//!   (which keeps its working state in them); the others to the process, which writes
//!   them through raw pointers ([`RxeProducer`]). A completion queue's slots between the
//!   consumer and the producer index belong to the process until it advances the
//!   consumer index ([`RxeConsumer`]).
//! - **siw** ([`SiwQueue`]): an array of elements without a header, each owned by the
//!   kernel while its `flags` has `SIW_WQE_VALID` (work queues) or by the process while
//!   it has it (completion queue). The flags are accessed only as `AtomicU16`
//!   (`AtomicU8` for a completion), with the release store that hands an element over
//!   coming after the element's other bytes, and the acquire load that takes one before
//!   them, as libsiw and the kernel do. A completion queue is followed by the
//!   `siw_cq_ctrl` word that arms it, accessed as `AtomicU32`.
//!
//! Writes and reads of slot bytes are copies between a slot and a buffer of the caller,
//! bounds-checked against the slot size the queue was checked with. Methods that write
//! take `&mut self`: the caller (the verbs layer, under one lock per queue) is the only
//! writer of the process.
//!
//! On revocation ([`Lifeline::revoke`](crate::raw::lifeline::Lifeline::revoke)) the
//! mapping becomes zeroed private memory at the same address: every access here stays
//! inside valid memory, reads see zeros (an empty queue), and writes go nowhere. Callers
//! check the lifeline's flag before they post or poll.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering};

use crate::raw::abi::ib_uverbs_post_send_resp;
use crate::raw::driver::{rxe_queue_buf, siw_cq_ctrl, siw_cqe, siw_sqe};
use crate::raw::lifeline::RevocableMap;
use crate::raw::method::{self, MAX_WRITE_CMD};

/// Why a mapped queue cannot be used: its header or size is not what the driver's
/// answer said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadQueue(pub &'static str);

impl core::fmt::Display for BadQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.0)
    }
}

const RXE_HDR: usize = core::mem::size_of::<rxe_queue_buf>();
const RXE_PRODUCER: usize = core::mem::offset_of!(rxe_queue_buf, producer_index);
const RXE_CONSUMER: usize = core::mem::offset_of!(rxe_queue_buf, consumer_index);

/// An rxe queue: the mapping and the geometry read from its header when it was mapped.
#[derive(Debug)]
pub struct RxeQueue {
    map: RevocableMap,
    mask: u32,
    log2: u32,
}

impl RxeQueue {
    /// Takes a freshly mapped rxe queue. Reads `log2_elem_size` and `index_mask` once
    /// and checks them: a power-of-two slot count, slots of at least `min_elem` bytes,
    /// and header plus slots within the mapping.
    ///
    /// # Errors
    ///
    /// [`BadQueue`] naming the check that failed.
    pub fn new(map: RevocableMap, min_elem: usize) -> Result<RxeQueue, BadQueue> {
        if map.len() < RXE_HDR {
            return Err(BadQueue("the mapping is shorter than the queue header"));
        }
        let base = map.as_ptr();
        // SAFETY: the mapping is at least RXE_HDR bytes (checked), page-aligned, and
        // lives as long as `map`; the two words are read by value (volatile: the kernel
        // wrote them, and nothing in Rust made them), no reference is made.
        let (log2, mask) = unsafe {
            (
                core::ptr::read_volatile(base.cast::<u32>()),
                core::ptr::read_volatile(base.add(4).cast::<u32>()),
            )
        };
        let slots = u64::from(mask) + 1;
        if !slots.is_power_of_two() || mask >= 1 << 24 {
            return Err(BadQueue("index_mask is not a power of two minus one"));
        }
        if log2 >= 16 || (1usize << log2) < min_elem {
            return Err(BadQueue("log2_elem_size is out of range for this queue"));
        }
        let need = (slots << log2) + RXE_HDR as u64;
        if need > map.len() as u64 {
            return Err(BadQueue("the slots reach past the mapping"));
        }
        Ok(RxeQueue { map, mask, log2 })
    }

    /// The slot size in bytes.
    pub fn elem_size(&self) -> usize {
        1 << self.log2
    }

    /// The mapping.
    #[cfg(test)]
    pub fn map(&self) -> &RevocableMap {
        &self.map
    }

    fn index(&self, at: usize) -> &AtomicU32 {
        // SAFETY: `at` is RXE_PRODUCER or RXE_CONSUMER, inside the header (checked in
        // new), 4-byte aligned (the mapping is page-aligned and both offsets are
        // multiples of 128); the memory lives as long as `&self` (the mapping is unmapped
        // only by Drop, with `&mut`). The kernel accesses these words only atomically
        // (smp_load_acquire / smp_store_release), and this crate only through this
        // AtomicU32, so no non-atomic access races with it. A revocation replaces the
        // page with zeroed memory: still valid for atomic access.
        unsafe { AtomicU32::from_ptr(self.map.as_ptr().add(at).cast::<u32>()) }
    }

    /// The producer index (shared: written by the process for work queues, by the
    /// kernel for a completion queue).
    pub fn producer(&self) -> &AtomicU32 {
        self.index(RXE_PRODUCER)
    }

    /// The consumer index (shared: written by the kernel for work queues, by the
    /// process for a completion queue).
    pub fn consumer(&self) -> &AtomicU32 {
        self.index(RXE_CONSUMER)
    }

    /// The address of byte `offset` of slot `index & index_mask`, for `len` bytes;
    /// `None` past the slot.
    fn slot_range(&self, index: u32, offset: usize, len: usize) -> Option<*mut u8> {
        let end = offset.checked_add(len)?;
        if end > self.elem_size() {
            return None;
        }
        let at = RXE_HDR + (((index & self.mask) as usize) << self.log2) + offset;
        // SAFETY: `at + len` is within the mapping: the slot index is masked, and new
        // checked that header plus every slot fits in it; `offset + len` is within the
        // slot (checked above).
        Some(unsafe { self.map.as_ptr().add(at) })
    }

    /// Copies `bytes` into slot `index` at `offset`. False (nothing written) past the
    /// slot.
    fn write(&mut self, index: u32, offset: usize, bytes: &[u8]) -> bool {
        let Some(p) = self.slot_range(index, offset, bytes.len()) else {
            return false;
        };
        // SAFETY: `p` is valid for `bytes.len()` bytes of the mapping (slot_range); no
        // Rust reference points into the mapping, and `bytes` is the caller's own
        // memory, so they do not overlap. The slot is the process's under the queue's
        // protocol (the caller writes only free slots, see RxeProducer), so the kernel
        // does not access it concurrently; `&mut self` excludes other writers here.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        true
    }

    /// Copies from slot `index` at `offset` into `out`. False (nothing read) past the
    /// slot.
    fn read(&self, index: u32, offset: usize, out: &mut [u8]) -> bool {
        let Some(p) = self.slot_range(index, offset, out.len()) else {
            return false;
        };
        // SAFETY: as in write: `p` is valid for `out.len()` bytes; `out` is the caller's
        // exclusive buffer; the slot holds a completion the kernel published (its
        // producer index was loaded with acquire) and will not touch again until the
        // consumer index passes it, which only the caller does.
        unsafe { core::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        true
    }
}

/// The process's side of an rxe work queue (send, receive, shared receive): it
/// produces slots, the kernel consumes them.
#[derive(Debug)]
pub struct RxeProducer {
    q: RxeQueue,
    /// The producer index as this process last published it (never read back from
    /// shared memory).
    prod: u32,
}

impl RxeProducer {
    /// The producer side of `q`, starting at the index the kernel initialised.
    pub fn new(q: RxeQueue) -> Self {
        let prod = q.producer().load(Ordering::Relaxed) & q.mask;
        RxeProducer { q, prod }
    }

    /// Slots free for posting now: the queue holds `slots - 1` requests.
    pub fn free(&self) -> u32 {
        let cons = self.q.consumer().load(Ordering::Acquire) & self.q.mask;
        let used = self.prod.wrapping_sub(cons) & self.q.mask;
        self.q.mask - used
    }

    /// Writes `bytes` at `offset` of the `k`-th free slot (0: the next one to publish).
    /// The caller keeps `k` below [`Self::free`]: slots past it are the kernel's. False
    /// past the slot's end.
    pub fn write(&mut self, k: u32, offset: usize, bytes: &[u8]) -> bool {
        let i = self.prod.wrapping_add(k);
        self.q.write(i, offset, bytes)
    }

    /// Hands the next `n` written slots to the kernel: one release store of the
    /// producer index, after every byte written to them.
    pub fn publish(&mut self, n: u32) {
        self.prod = self.prod.wrapping_add(n) & self.q.mask;
        self.q.producer().store(self.prod, Ordering::Release);
    }
}

/// The process's side of an rxe completion queue: the kernel produces completions, the
/// process consumes them.
#[derive(Debug)]
pub struct RxeConsumer {
    q: RxeQueue,
    /// The consumer index as this process last published it.
    cons: u32,
}

impl RxeConsumer {
    /// The consumer side of `q`, starting at the index the kernel initialised.
    pub fn new(q: RxeQueue) -> Self {
        let cons = q.consumer().load(Ordering::Relaxed) & q.mask;
        RxeConsumer { q, cons }
    }

    /// The queue.
    #[cfg(test)]
    pub fn queue(&self) -> &RxeQueue {
        &self.q
    }

    /// Completions ready to read (an acquire load of the producer index: their bytes are
    /// visible after it).
    pub fn ready(&self) -> u32 {
        let prod = self.q.producer().load(Ordering::Acquire) & self.q.mask;
        prod.wrapping_sub(self.cons) & self.q.mask
    }

    /// Copies bytes at `offset` of the `k`-th ready completion into `out`. The caller
    /// keeps `k` below [`Self::ready`]. False past the slot's end.
    pub fn read(&self, k: u32, offset: usize, out: &mut [u8]) -> bool {
        self.q.read(self.cons.wrapping_add(k), offset, out)
    }

    /// Gives the next `n` completions back to the kernel: one release store of the
    /// consumer index, after every read of them.
    pub fn release(&mut self, n: u32) {
        self.cons = self.cons.wrapping_add(n) & self.q.mask;
        self.q.consumer().store(self.cons, Ordering::Release);
    }
}

/// `offsetof(struct siw_sqe, flags)`, the same in `siw_rqe` and `siw_cqe`.
const SIW_FLAGS: usize = core::mem::offset_of!(siw_sqe, flags);
const _: () = assert!(SIW_FLAGS == core::mem::offset_of!(crate::raw::driver::siw_rqe, flags));
const _: () = assert!(SIW_FLAGS == core::mem::offset_of!(siw_cqe, flags));

/// A siw queue: `num` elements of `elem` bytes, and for a completion queue the control
/// word after them.
#[derive(Debug)]
pub struct SiwQueue {
    map: RevocableMap,
    num: u32,
    elem: usize,
    ctrl: bool,
}

impl SiwQueue {
    /// Takes a freshly mapped siw queue of `num` elements of `elem` bytes (the sizes of
    /// `siw_sqe`, `siw_rqe` or `siw_cqe`), followed by a `siw_cq_ctrl` when `ctrl`.
    ///
    /// # Errors
    ///
    /// [`BadQueue`] when the elements (and the control word) do not fit the mapping, or
    /// there are none.
    pub fn new(map: RevocableMap, num: u32, elem: usize, ctrl: bool) -> Result<Self, BadQueue> {
        if num == 0 || elem < SIW_FLAGS + 2 || elem % 8 != 0 {
            return Err(BadQueue("no elements, or an element size siw does not use"));
        }
        let extra = if ctrl {
            core::mem::size_of::<siw_cq_ctrl>()
        } else {
            0
        };
        let need = (num as usize)
            .checked_mul(elem)
            .and_then(|n| n.checked_add(extra));
        if need.map_or(true, |n| n > map.len()) {
            return Err(BadQueue("the elements reach past the mapping"));
        }
        Ok(SiwQueue {
            map,
            num,
            elem,
            ctrl,
        })
    }

    /// The number of elements.
    pub fn len(&self) -> u32 {
        self.num
    }

    fn at(&self, index: u32, offset: usize, len: usize) -> Option<*mut u8> {
        let end = offset.checked_add(len)?;
        if end > self.elem {
            return None;
        }
        let at = (index % self.num) as usize * self.elem + offset;
        // SAFETY: the element index is reduced modulo `num` and new checked that
        // `num * elem` bytes fit the mapping; `offset + len` is within the element.
        Some(unsafe { self.map.as_ptr().add(at) })
    }

    /// The `flags` of a work queue element (`siw_sqe`, `siw_rqe`), as an atomic.
    pub fn flags16(&self, index: u32) -> &AtomicU16 {
        let p = self.at(index, SIW_FLAGS, 2).unwrap_or_else(|| {
            unreachable!("new checked that the element holds its flags");
        });
        // SAFETY: `p` is inside the element (at), 2-aligned (elements are multiples of 8
        // bytes from a page-aligned base; the flags are at offset 8); the memory lives
        // as long as `&self`. The kernel accesses the flags with READ_ONCE/WRITE_ONCE and
        // smp_store_mb, and this crate only through this atomic.
        unsafe { AtomicU16::from_ptr(p.cast::<u16>()) }
    }

    /// The `flags` of a completion queue element (`siw_cqe`, one byte), as an atomic.
    pub fn flags8(&self, index: u32) -> &AtomicU8 {
        let p = self.at(index, SIW_FLAGS, 1).unwrap_or_else(|| {
            unreachable!("new checked that the element holds its flags");
        });
        // SAFETY: as flags16, for one byte.
        unsafe { AtomicU8::from_ptr(p) }
    }

    /// The completion queue's control word (`siw_cq_ctrl.flags`); `None` for a work
    /// queue.
    pub fn ctrl(&self) -> Option<&AtomicU32> {
        if !self.ctrl {
            return None;
        }
        let at = self.num as usize * self.elem;
        // SAFETY: new checked that `num * elem + 8` bytes fit the mapping; the offset is
        // a multiple of 8; the kernel reads and clears the word with READ_ONCE and
        // WRITE_ONCE, and this crate accesses it only through this atomic.
        Some(unsafe { AtomicU32::from_ptr(self.map.as_ptr().add(at).cast::<u32>()) })
    }

    /// Copies `bytes` into element `index` at `offset`. The caller writes only an
    /// element it owns (a work queue element without SIW_WQE_VALID), and never its
    /// flags this way. False past the element's end.
    pub fn write(&mut self, index: u32, offset: usize, bytes: &[u8]) -> bool {
        let Some(p) = self.at(index, offset, bytes.len()) else {
            return false;
        };
        // SAFETY: `p` is valid for `bytes.len()` bytes of the mapping (at); `bytes` is the
        // caller's memory, which no mapping of the queue overlaps. The element is the
        // process's under siw's protocol (its flags lack SIW_WQE_VALID), so the kernel
        // does not access it concurrently; `&mut self` excludes other writers here.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        true
    }

    /// Copies from element `index` at `offset` into `out`: a completion whose flags were
    /// loaded with acquire and found valid. False past the element's end.
    pub fn read(&self, index: u32, offset: usize, out: &mut [u8]) -> bool {
        let Some(p) = self.at(index, offset, out.len()) else {
            return false;
        };
        // SAFETY: as in write; the completion is the process's until it clears the
        // flags, which only the caller does.
        unsafe { core::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        true
    }
}

/// The doorbell of a QP whose send queue is mapped: a POST_SEND `write()` without work
/// requests (`wr_count` 0), which makes rxe and siw look at the queue. The 32 bytes are
/// built once, with the response pointer at this doorbell's own response word.
#[derive(Debug)]
pub struct Doorbell {
    bytes: [u8; 32],
    /// The word the kernel writes on each ring (`bad_wr`); boxed, so that its address,
    /// which the bytes carry, does not move with the doorbell.
    resp: Box<ib_uverbs_post_send_resp>,
}

impl Doorbell {
    /// The doorbell of the QP `qp_handle`.
    pub fn new(qp_handle: u32) -> Doorbell {
        let mut resp = Box::new(ib_uverbs_post_send_resp::default());
        let mut out = [0u8; MAX_WRITE_CMD];
        let mut bytes = [0u8; 32];
        // The builder's own lengths (a 24-byte body and a 4-byte response) are whole
        // words, so encode cannot fail; if it did, the doorbell would be all zeros and
        // the kernel would refuse it (command 0 of the wrong length: EINVAL).
        if let Ok(n) = method::write_post_send_doorbell(qp_handle, &mut resp).encode(&mut out) {
            if let (Some(dst), Some(src)) = (bytes.get_mut(..n), out.get(..n)) {
                dst.copy_from_slice(src);
            }
        }
        Doorbell { bytes, resp }
    }

    /// The bytes `write(2)` sends, and the response word they point at: borrowed
    /// mutably for the call, so nothing else touches it while the kernel writes it.
    pub(crate) fn parts(&mut self) -> (&[u8; 32], &mut ib_uverbs_post_send_resp) {
        (&self.bytes, &mut self.resp)
    }

    /// The bytes, for tests.
    #[cfg(test)]
    pub fn bytes(&self) -> &[u8; 32] {
        &self.bytes
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! The queues over a memfd (a file the process can map shared, as it maps a uverbs
    //! file): the header checks, index masking, and revocation's replacement of the
    //! mapping. No kernel driver is involved, so these run on the host (not under Miri:
    //! no memfd there).
    use super::*;
    use crate::raw::lifeline::{Lifeline, RevocableFd};
    use std::os::fd::AsFd;

    /// A memfd of `len` bytes with `init` written at its start, under a fresh lifeline.
    pub(crate) fn memfd(len: usize, init: &[(usize, &[u8])]) -> RevocableFd {
        let fd = rustix::fs::memfd_create("uverbs-ring-test", rustix::fs::MemfdFlags::CLOEXEC)
            .expect("memfd");
        rustix::fs::ftruncate(&fd, len as u64).expect("ftruncate");
        for (at, bytes) in init {
            rustix::io::pwrite(&fd, bytes, *at as u64).expect("pwrite");
        }
        Lifeline::new().adopt(fd)
    }

    /// The file's bytes at `at` (not through the mapping).
    pub(crate) fn file_bytes(fd: &RevocableFd, at: usize, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        rustix::io::pread(fd.fd().as_fd(), &mut v, at as u64).expect("pread");
        v
    }

    fn rxe_header(log2: u32, mask: u32) -> Vec<u8> {
        let mut h = log2.to_ne_bytes().to_vec();
        h.extend_from_slice(&mask.to_ne_bytes());
        h
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn rxe_header_is_checked_once() {
        let cases: &[(u32, u32, usize, bool)] = &[
            (6, 3, 4096, true),   // 4 slots of 64 bytes
            (6, 2, 4096, false),  // 3 slots: not a power of two
            (3, 3, 4096, false),  // 8-byte slots, smaller than asked
            (8, 63, 4096, false), // 64 slots of 256 bytes: past the mapping
            (20, 0, 4096, false), // absurd slot size
            (6, u32::MAX, 4096, false),
        ];
        for &(log2, mask, len, ok) in cases {
            let fd = memfd(len, &[(0, &rxe_header(log2, mask))]);
            let map = fd.map_shared(0, len).unwrap();
            let r = RxeQueue::new(map, 48);
            assert_eq!(r.is_ok(), ok, "log2 {log2} mask {mask}: {r:?}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn rxe_indices_are_masked_and_shared() {
        // 4 slots of 64 bytes; the kernel's producer index is garbage.
        let fd = memfd(
            4096,
            &[
                (0, &rxe_header(6, 3)),
                (RXE_PRODUCER, &0xffff_fffeu32.to_ne_bytes()),
            ],
        );
        let q = RxeQueue::new(fd.map_shared(0, 4096).unwrap(), 48).unwrap();
        let mut c = RxeConsumer::new(q);
        // (0xfffffffe & 3) - 0 = 2 completions, whatever the high bits said.
        assert_eq!(c.ready(), 2);
        let mut out = [0u8; 64];
        assert!(c.read(7, 0, &mut out)); // any k: masked into the ring
        assert!(!c.read(0, 1, &mut out)); // past the slot's end
        c.release(2);
        assert_eq!(
            file_bytes(&fd, RXE_CONSUMER, 4),
            2u32.to_ne_bytes(),
            "the consumer index is published in the shared memory"
        );

        // A work queue: the producer writes, the kernel's consumer index frees slots.
        let fd = memfd(4096, &[(0, &rxe_header(6, 3))]);
        let q = RxeQueue::new(fd.map_shared(0, 4096).unwrap(), 48).unwrap();
        let mut p = RxeProducer::new(q);
        assert_eq!(p.free(), 3, "one slot of four stays empty");
        assert!(p.write(0, 0, &[0xaa; 64]));
        assert!(!p.write(0, 60, &[0xaa; 8]));
        p.publish(1);
        assert_eq!(p.free(), 2);
        assert_eq!(file_bytes(&fd, RXE_HDR, 64), vec![0xaa; 64]);
        assert_eq!(file_bytes(&fd, RXE_PRODUCER, 4), 1u32.to_ne_bytes());
        rustix::io::pwrite(fd.fd().as_fd(), &1u32.to_ne_bytes(), RXE_CONSUMER as u64).unwrap();
        assert_eq!(p.free(), 3, "the kernel took the request");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn revocation_replaces_the_mapping_in_place() {
        let fd = memfd(
            4096,
            &[(0, &rxe_header(6, 3)), (RXE_PRODUCER, &1u32.to_ne_bytes())],
        );
        // A second descriptor of the same file, outside the lifeline, to look at it
        // after the revocation.
        let file = rustix::io::dup(fd.fd()).unwrap();
        let q = RxeQueue::new(fd.map_shared(0, 4096).unwrap(), 48).unwrap();
        let addr = q.map().as_ptr();
        let mut c = RxeConsumer::new(q);
        assert_eq!(c.ready(), 1);
        fd.lifeline().revoke().unwrap();
        // The same addresses, now private zeroed memory: an empty queue, and writes
        // that no longer reach the file.
        assert_eq!(c.queue().map().as_ptr(), addr);
        assert_eq!(c.ready(), 0);
        c.release(1);
        let mut idx = [0xffu8; 4];
        rustix::io::pread(&file, &mut idx, RXE_CONSUMER as u64).unwrap();
        assert_eq!(idx, [0; 4], "the file no longer sees the mapping's writes");
        assert!(
            rustix::io::pread(fd.fd(), &mut idx, 0).is_err(),
            "the fd is inert"
        );
        let mut out = [0xffu8; 48];
        assert!(c.read(0, 0, &mut out));
        assert_eq!(out, [0; 48]);
        // A new mapping is refused once revoked.
        assert_eq!(
            fd.map_shared(0, 4096).unwrap_err(),
            rustix::io::Errno::NODEV
        );
        drop(c); // unmaps the replacement
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn siw_flags_hand_elements_over() {
        // 4 CQEs and the control word.
        let mut cqe = siw_cqe {
            id: 9,
            flags: SIW_WQE_VALID_U8,
            bytes: 100,
            ..Default::default()
        };
        use zerocopy::IntoBytes;
        let fd = memfd(4096, &[(32, cqe.as_bytes())]);
        let q = SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 4, 32, true).unwrap();
        assert_eq!(q.flags8(0).load(Ordering::Acquire), 0);
        assert_eq!(q.flags8(1).load(Ordering::Acquire), 1);
        assert_eq!(
            q.flags8(5).load(Ordering::Acquire),
            1,
            "index modulo the count"
        );
        let mut out = [0u8; 32];
        assert!(q.read(1, 0, &mut out));
        cqe.flags = 1;
        assert_eq!(&out[..], cqe.as_bytes());
        q.ctrl().unwrap().store(2, Ordering::SeqCst);
        assert_eq!(file_bytes(&fd, 128, 4), 2u32.to_ne_bytes());
        // Too many elements for the mapping; none at all.
        let fd = memfd(4096, &[]);
        assert!(SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 128, 32, true).is_err());
        let fd = memfd(4096, &[]);
        assert!(SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 0, 32, true).is_err());
    }

    const SIW_WQE_VALID_U8: u8 = crate::raw::driver::SIW_WQE_VALID as u8;
}
