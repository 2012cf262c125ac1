//! GID and P_Key tables.
//!
//! The GID table comes from the QUERY_GID_TABLE ioctl (one call for every port, since
//! Linux 5.10), single entries from QUERY_GID_ENTRY, with sysfs as the fallback on
//! older kernels. P_Keys exist only in sysfs (as in libibverbs).

use zerocopy::IntoBytes;

use crate::error::{Op, Result};
use crate::raw::abi::ib_uverbs_gid_entry;
use crate::raw::fallback::{first_supported, no_ioctl_method, Attempt, CallPath, Interface, Via};
use crate::raw::method;
use crate::types::{Gid, GidEntry, GidType};
use crate::verbs::context::Context;

/// Names of network interfaces by ifindex (a GID entry's `netdev_ifindex`): one
/// `SIOCGIFNAME` ioctl per name on a socket opened once, where sysfs would take a listing
/// of `class/net` and an `ifindex` file read per interface tried
/// ([`sysfs::netdev_name`](crate::sysfs::netdev_name)). The names are those of this
/// process's network namespace.
#[derive(Debug)]
pub struct NetdevNames {
    fd: std::os::fd::OwnedFd,
}

impl NetdevNames {
    /// Opens the socket the queries go through (`AF_UNIX`, datagram).
    ///
    /// # Errors
    ///
    /// [`Error::Os`](crate::error::Error::Os) with the errno of `socket(2)`.
    pub fn new() -> Result<Self> {
        let fd = rustix::net::socket_with(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::DGRAM,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|errno| crate::error::Error::Os {
            op: Op::new("netdev names socket", ""),
            errno,
        })?;
        Ok(NetdevNames { fd })
    }

    /// The name of the interface with `ifindex`; `None` for 0 or an index no interface
    /// has.
    pub fn name(&self, ifindex: u32) -> Option<String> {
        if ifindex == 0 {
            return None;
        }
        rustix::net::netdevice::index_to_name_inlined(&self.fd, ifindex)
            .ok()
            .map(|n| n.as_str().to_owned())
    }
}

impl GidEntry {
    /// Decodes the kernel's entry.
    pub fn from_raw(e: &ib_uverbs_gid_entry) -> Self {
        let mut gid = [0u8; 16];
        gid.copy_from_slice(e.gid.as_bytes());
        GidEntry {
            gid: Gid(gid),
            index: e.gid_index,
            port: e.port_num,
            gid_type: GidType::from_raw(e.gid_type),
            netdev_ifindex: e.netdev_ifindex,
        }
    }
}

/// Where a GID table came from: the kernel wrote this many entries, or sysfs gave these.
enum Answer {
    Kernel(usize),
    Sysfs(Vec<GidEntry>),
}

impl GidEntry {
    /// The entry in the kernel's format (the inverse of [`GidEntry::from_raw`]).
    pub fn to_raw(&self) -> ib_uverbs_gid_entry {
        let mut raw = ib_uverbs_gid_entry {
            gid_index: self.index,
            port_num: self.port,
            gid_type: self.gid_type.as_raw(),
            netdev_ifindex: self.netdev_ifindex,
            ..Default::default()
        };
        raw.gid.as_mut_bytes().copy_from_slice(&self.gid.0);
        raw
    }
}

/// A GID table as [`Context::query_gid_table_into`] fills it: a buffer made once, of
/// the kernel's entries, decoded when read (`ibv_query_gid_table` into the caller's
/// array).
#[derive(Debug, Clone)]
pub struct GidTable {
    raw: Vec<ib_uverbs_gid_entry>,
    len: usize,
}

impl GidTable {
    /// The most entries one QUERY_GID_TABLE can carry: its attribute's length is 16 bits,
    /// 2047 entries of 32 bytes.
    pub const MAX: usize = u16::MAX as usize / core::mem::size_of::<ib_uverbs_gid_entry>();

    /// An empty table with room for `max_entries` valid GIDs (1 to [`GidTable::MAX`]):
    /// the sum of the ports' `gid_tbl_len` holds every table.
    pub fn new(max_entries: usize) -> Self {
        GidTable {
            raw: vec![ib_uverbs_gid_entry::default(); max_entries.clamp(1, Self::MAX)],
            len: 0,
        }
    }

    /// The entries it can hold.
    pub fn capacity(&self) -> usize {
        self.raw.len()
    }

    /// The valid entries of the last query.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the last query found no valid entry (or there was none yet).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `i` of the last query, decoded.
    pub fn get(&self, i: usize) -> Option<GidEntry> {
        self.raw[..self.len].get(i).map(GidEntry::from_raw)
    }

    /// The entries of the last query, decoded one by one.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = GidEntry> + '_ {
        self.raw[..self.len].iter().map(GidEntry::from_raw)
    }
}

impl Context {
    /// Every valid GID of every port, in one QUERY_GID_TABLE call (Linux 5.10 and later),
    /// falling back to sysfs. `max_entries` bounds the answer; use the sum of the ports'
    /// `gid_tbl_len`. Allocates the answer; [`Context::query_gid_table_into`] reuses a
    /// [`GidTable`] instead.
    ///
    /// # Errors
    ///
    /// The kernel's errno, classified (`EINVAL` when the valid entries do not fit in
    /// `max_entries`, or in the 2047 entries one call can carry); on kernels without the
    /// method, as [`Context::sysfs_gids`].
    #[doc(alias = "ibv_query_gid_table")]
    pub fn query_gid_table(&self, max_entries: usize) -> Result<Vec<GidEntry>> {
        let max = max_entries.clamp(1, GidTable::MAX);
        // Most devices have a few valid GIDs: try a buffer on the stack first, and only
        // when the kernel says it is too small (EINVAL) one of `max` entries.
        const FIRST: usize = 64;
        let mut small = [ib_uverbs_gid_entry::default(); FIRST];
        let decode = |raw: &[ib_uverbs_gid_entry]| raw.iter().map(GidEntry::from_raw).collect();
        if max <= FIRST {
            let n = self.gid_table_raw(&mut small[..max])?;
            return Ok(decode(&small[..n]));
        }
        match self.gid_table_raw(&mut small) {
            Ok(n) => Ok(decode(&small[..n])),
            Err(e) if e.errno() == Some(rustix::io::Errno::INVAL) => {
                let mut big = vec![ib_uverbs_gid_entry::default(); max];
                let n = self.gid_table_raw(&mut big)?;
                Ok(decode(&big[..n]))
            }
            Err(e) => Err(e),
        }
    }

    /// [`Context::query_gid_table`] into a table the caller keeps from call to call: no
    /// allocation, and an entry is decoded only when read ([`GidTable::get`],
    /// [`GidTable::iter`]). Returns the number of valid entries.
    ///
    /// # Errors
    ///
    /// As [`Context::query_gid_table`] with the table's capacity as `max_entries`; the
    /// table is then empty.
    #[doc(alias = "ibv_query_gid_table")]
    pub fn query_gid_table_into(&self, table: &mut GidTable) -> Result<usize> {
        table.len = 0;
        table.len = self.gid_table_raw(&mut table.raw)?;
        Ok(table.len)
    }

    /// The valid entries into `raw` (the kernel's format); their count.
    fn gid_table_raw(&self, raw: &mut [ib_uverbs_gid_entry]) -> Result<usize> {
        let file = self.raw();
        let op = || Op::new("QUERY_GID_TABLE", self.name());
        // The kernel writes `raw` itself; sysfs' entries are copied in after.
        let got = {
            let mut ioctl = || {
                let mut n = 0u64;
                file.call(&mut method::query_gid_table(file.driver_id(), raw, &mut n))
                    .map_err(|e| self.kernel_error(op(), e))?;
                Ok(Answer::Kernel(usize::try_from(n).unwrap_or(usize::MAX)))
            };
            let mut sysfs = || {
                let mut all = Vec::new();
                for port in 1..=u32::from(self.port_count()) {
                    all.extend(self.sysfs_gids(port)?);
                }
                Ok(Answer::Sysfs(all))
            };
            self.ioctl_else_sysfs(Interface::GidTableIoctl, &mut ioctl, &mut sysfs)?
        };
        match got {
            Answer::Kernel(n) => Ok(n.min(raw.len())),
            Answer::Sysfs(entries) => {
                // As the kernel answers a table that does not fit.
                if entries.len() > raw.len() {
                    return Err(self.kernel_error(op(), rustix::io::Errno::INVAL));
                }
                for (slot, e) in raw.iter_mut().zip(&entries) {
                    *slot = e.to_raw();
                }
                Ok(entries.len())
            }
        }
    }

    /// One GID table entry by QUERY_GID_ENTRY (sysfs on kernels before 5.10);
    /// `Ok(None)` for an empty slot.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`](crate::error::Error::NoSuchPort) before any system call; else the kernel's errno (an index
    /// past the table is `EINVAL`).
    #[doc(alias = "ibv_query_gid")]
    #[doc(alias = "ibv_query_gid_ex")]
    pub fn query_gid(&self, port: u32, index: u32) -> Result<Option<GidEntry>> {
        self.check_port("QUERY_GID_ENTRY", port)?;
        let file = self.raw();
        let op = || Op::port("QUERY_GID_ENTRY", self.name(), port);
        let mut ioctl = || {
            let mut raw = ib_uverbs_gid_entry::default();
            match file.call(&mut method::query_gid_entry(
                file.driver_id(),
                port,
                index,
                &mut raw,
            )) {
                Ok(()) => Ok(Some(GidEntry::from_raw(&raw))),
                // An empty slot (rdma-core reads it as the zero GID).
                Err(rustix::io::Errno::NODATA) => Ok(None),
                Err(e) => Err(self.kernel_error(op(), e)),
            }
        };
        let mut sysfs = || {
            Ok(self
                .sysfs_gids(port)?
                .into_iter()
                .find(|e| e.index == index))
        };
        self.ioctl_else_sysfs(Interface::GidEntryIoctl, &mut ioctl, &mut sysfs)
    }

    /// `ioctl` on kernels with `interface`, else `sysfs` (the GID methods' fallback:
    /// both methods arrived in Linux 5.10).
    fn ioctl_else_sysfs<T>(
        &self,
        interface: Interface,
        ioctl: &mut dyn FnMut() -> Result<T>,
        sysfs: &mut dyn FnMut() -> Result<T>,
    ) -> Result<T> {
        first_supported(
            self.raw().caps(),
            CallPath::Auto,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(interface),
                    unknown: no_ioctl_method,
                    run: ioctl,
                },
                Attempt {
                    via: Via::Other,
                    needs: None,
                    unknown: |_| false,
                    run: sysfs,
                },
            ],
        )
    }

    /// The GIDs of a port read from sysfs (`/sys/class/infiniband/DEV/ports/N/gids`).
    ///
    /// # Errors
    ///
    /// [`Error::Os`](crate::error::Error::Os) with the errno when the port's `gids` directory cannot be read (no
    /// such port, no such device). Entries that cannot be read or parsed are skipped.
    pub fn sysfs_gids(&self, port: u32) -> Result<Vec<GidEntry>> {
        crate::sysfs::gids(self.sysfs_root(), self.name(), port)
    }

    /// The P_Key table of a port from sysfs, in host order (bit 15: full membership).
    /// Stops at the first index that cannot be read.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`](crate::error::Error::NoSuchPort) before any file is read; [`Error::Protocol`](crate::error::Error::Protocol) when a P_Key
    /// file does not hold a 16-bit hexadecimal number.
    #[doc(alias = "ibv_query_pkey")]
    pub fn query_pkeys(&self, port: u32) -> Result<Vec<u16>> {
        self.check_port("query P_Keys", port)?;
        crate::sysfs::pkeys(self.sysfs_root(), self.name(), port)
    }
}
