//! Address handles and the address vector they share with queue pairs.

use zerocopy::FromBytes;

use super::pd::protocol;
use super::{check_driver, failed, ioctl_or_write, run_cmd, Pd, DRIVER_OUT};
use crate::error::{Error, Result};
use crate::raw::abi::*;
use crate::raw::fallback::Interface;
use crate::raw::method::{self, DriverIn};
use crate::types::Gid;

/// The global route header of an address vector (`struct ibv_global_route`): needed on
/// RoCE and iWARP, and between InfiniBand subnets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "ibv_global_route")]
pub struct GlobalRoute {
    /// The destination GID.
    pub dgid: Gid,
    /// The flow label.
    pub flow_label: u32,
    /// The index of the source GID in the port's table.
    pub sgid_index: u8,
    /// The hop limit (IPv6) or TTL (RoCE v2 over IPv4).
    pub hop_limit: u8,
    /// The traffic class.
    pub traffic_class: u8,
}

/// An address vector (`struct ibv_ah_attr`): where a UD send goes, or the path of a
/// connected QP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "ibv_ah_attr")]
pub struct AhAttr {
    /// The global route header (used when [`Self::is_global`]).
    pub grh: GlobalRoute,
    /// The destination LID (InfiniBand).
    pub dlid: u16,
    /// The service level.
    pub sl: u8,
    /// The source path bits.
    pub src_path_bits: u8,
    /// The static rate (`enum ibv_rate`; 0: no limit).
    pub static_rate: u8,
    /// Whether the GRH is present.
    pub is_global: bool,
    /// The local port.
    pub port_num: u8,
}

impl AhAttr {
    /// A global route (RoCE, or InfiniBand across subnets) from GID index `sgid_index`
    /// of port `port` to `dgid`, at most `hop_limit` hops (the TTL over IPv4); flow
    /// label, traffic class, service level and rate 0.
    pub fn global(port: u8, sgid_index: u8, dgid: Gid, hop_limit: u8) -> AhAttr {
        AhAttr {
            grh: GlobalRoute {
                dgid,
                sgid_index,
                hop_limit,
                ..GlobalRoute::default()
            },
            is_global: true,
            port_num: port,
            ..AhAttr::default()
        }
    }

    pub(crate) fn to_uverbs(self) -> ib_uverbs_ah_attr {
        ib_uverbs_ah_attr {
            grh: ib_uverbs_global_route {
                dgid: self.grh.dgid.0,
                flow_label: self.grh.flow_label,
                sgid_index: self.grh.sgid_index,
                hop_limit: self.grh.hop_limit,
                traffic_class: self.grh.traffic_class,
                reserved: 0,
            },
            dlid: self.dlid,
            sl: self.sl,
            src_path_bits: self.src_path_bits,
            static_rate: self.static_rate,
            is_global: u8::from(self.is_global),
            port_num: self.port_num,
            reserved: 0,
        }
    }

    pub(crate) fn to_dest(self) -> ib_uverbs_qp_dest {
        ib_uverbs_qp_dest {
            dgid: self.grh.dgid.0,
            flow_label: self.grh.flow_label,
            dlid: self.dlid,
            reserved: 0,
            sgid_index: self.grh.sgid_index,
            hop_limit: self.grh.hop_limit,
            traffic_class: self.grh.traffic_class,
            sl: self.sl,
            src_path_bits: self.src_path_bits,
            static_rate: self.static_rate,
            is_global: u8::from(self.is_global),
            port_num: self.port_num,
        }
    }

    pub(crate) fn from_dest(d: &ib_uverbs_qp_dest) -> AhAttr {
        AhAttr {
            grh: GlobalRoute {
                dgid: Gid(d.dgid),
                flow_label: d.flow_label,
                sgid_index: d.sgid_index,
                hop_limit: d.hop_limit,
                traffic_class: d.traffic_class,
            },
            dlid: d.dlid,
            sl: d.sl,
            src_path_bits: d.src_path_bits,
            static_rate: d.static_rate,
            is_global: d.is_global != 0,
            port_num: d.port_num,
        }
    }
}

/// An address handle (`struct ibv_ah`): a resolved address vector for UD sends.
#[derive(Debug)]
#[doc(alias = "ibv_ah")]
pub struct Ah {
    pd: Pd,
    handle: u32,
    attr: AhAttr,
    driver_out: [u8; DRIVER_OUT],
    destroyed: bool,
}

impl Pd {
    /// Creates an address handle for `attr` (CREATE_AH by INVOKE_WRITE, else
    /// `write()`). On RoCE the kernel resolves the destination's Ethernet address from
    /// the GID.
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw; else the
    /// kernel's errno.
    #[doc(alias = "ibv_create_ah")]
    pub fn create_ah(&self, attr: &AhAttr) -> Result<Ah> {
        const OP: &str = "CREATE_AH";
        let ctx = self.context();
        check_driver(ctx, OP)?;
        let cmd = ib_uverbs_create_ah {
            user_handle: ctx.next_user_handle(),
            pd_handle: self.handle(),
            attr: attr.to_uverbs(),
            ..Default::default()
        };
        let mut resp = [0u8; core::mem::size_of::<ib_uverbs_create_ah_resp>() + DRIVER_OUT];
        run_cmd(ctx, &cmd, DriverIn::NONE, &mut resp).map_err(|e| failed(ctx, OP, e))?;
        let (r, rest) =
            ib_uverbs_create_ah_resp::read_from_prefix(&resp[..]).map_err(|_| protocol(ctx, OP))?;
        let mut driver_out = [0u8; DRIVER_OUT];
        driver_out.copy_from_slice(&rest[..DRIVER_OUT]);
        Ok(Ah {
            pd: self.clone(),
            handle: r.ah_handle,
            attr: *attr,
            driver_out,
            destroyed: false,
        })
    }
}

impl Ah {
    /// The kernel's handle of the AH.
    pub fn handle(&self) -> u32 {
        self.handle
    }
    /// The address vector it was created with.
    pub fn attr(&self) -> &AhAttr {
        &self.attr
    }
    /// The PD it belongs to.
    pub fn pd(&self) -> &Pd {
        &self.pd
    }
    /// The driver's output of the create (rxe: `rxe_create_ah_resp`, with the `ah_num`
    /// a UD send names; then zeros).
    pub fn driver_data(&self) -> &[u8] {
        &self.driver_out
    }

    fn destroy(&self) -> Result<()> {
        let ctx = self.pd.context();
        let file = ctx.raw();
        let handle = self.handle;
        ioctl_or_write(ctx, Interface::DestroyIoctl, |ioctl| {
            if ioctl {
                file.call(&mut method::destroy_ah(file.driver_id(), handle))
            } else {
                let cmd = ib_uverbs_destroy_ah { ah_handle: handle };
                file.write(&mut method::write_cmd(&cmd, DriverIn::NONE, &mut []))
            }
        })
        .map_err(|e| failed(ctx, "DESTROY_AH", e))
    }

    /// Destroys the AH now (AH_DESTROY by ioctl, else DESTROY_AH by `write()`).
    ///
    /// # Errors
    ///
    /// The kernel's errno, with the AH given back.
    #[doc(alias = "ibv_destroy_ah")]
    // The object comes back with the error, so the Err variant is as large as both: a
    // cold path, moved once.
    #[allow(clippy::result_large_err)]
    pub fn try_destroy(mut self) -> core::result::Result<(), (Ah, Error)> {
        match self.destroy() {
            Ok(()) => {
                self.destroyed = true;
                Ok(())
            }
            Err(e) => Err((self, e)),
        }
    }
}

impl Drop for Ah {
    fn drop(&mut self) {
        if !self.destroyed {
            if let Err(e) = self.destroy() {
                self.pd.context().record_destroy_error(e);
            }
        }
    }
}
