//! Memory regions.

use crate::error::{Error, Op, Result};
use crate::raw::mr::{MrBuf, RegisteredMr};
use crate::types::AccessFlags;

use super::{check_driver, Pd};

/// A registered memory region (`struct ibv_mr`) that owns its memory: the device may
/// access the buffer while the MR exists, so the buffer is lent out by copy only
/// ([`Mr::read_at`], [`Mr::write_at`]) and given back by [`Mr::try_destroy`] once the
/// kernel has deregistered it. If deregistration fails in `Drop`, the buffer is leaked,
/// never freed while the device could reach it.
#[derive(Debug)]
#[doc(alias = "ibv_mr")]
pub struct Mr {
    pd: Pd,
    reg: Option<RegisteredMr>,
}

impl Pd {
    /// Registers `buf` (REG_MR by INVOKE_WRITE, else `write()`) with `access`; the MR
    /// owns the buffer from now on.
    ///
    /// # Errors
    ///
    /// [`Error::DriverNotSupported`] on drivers other than rxe and siw; else the
    /// kernel's errno. The buffer is dropped with the error.
    #[doc(alias = "ibv_reg_mr")]
    pub fn reg_mr(&self, buf: MrBuf, access: AccessFlags) -> Result<Mr> {
        const OP: &str = "REG_MR";
        let ctx = self.context();
        check_driver(ctx, OP)?;
        match ctx
            .raw()
            .reg_mr(self.handle(), buf, access.bits(), ctx.objects_path())
        {
            Ok(reg) => Ok(Mr {
                pd: self.clone(),
                reg: Some(reg),
            }),
            Err((_, e)) => Err(ctx.kernel_error(Op::new(OP, ctx.name()), e)),
        }
    }
}

impl Mr {
    fn reg(&self) -> &RegisteredMr {
        // `reg` is Some from registration until try_destroy or drop take it.
        self.reg
            .as_ref()
            .unwrap_or_else(|| unreachable!("an Mr is registered"))
    }

    /// The PD it is registered in.
    pub fn pd(&self) -> &Pd {
        &self.pd
    }
    /// The kernel's handle of the MR.
    pub fn handle(&self) -> u32 {
        self.reg().handle()
    }
    /// The local key (`lkey`).
    pub fn lkey(&self) -> u32 {
        self.reg().lkey()
    }
    /// The remote key (`rkey`).
    pub fn rkey(&self) -> u32 {
        self.reg().rkey()
    }
    /// The access rights it was registered with.
    pub fn access(&self) -> AccessFlags {
        AccessFlags::from_bits_retain(self.reg().access())
    }
    /// The registered address (also the I/O virtual address).
    pub fn addr(&self) -> u64 {
        self.reg().buf().addr()
    }
    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.reg().buf().len()
    }
    /// Always false: a memory region has at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
    /// Copies `dst.len()` bytes from `offset` out of the region; false when the range is
    /// outside it.
    pub fn read_at(&self, offset: usize, dst: &mut [u8]) -> bool {
        self.reg().buf().read_at(offset, dst)
    }
    /// Copies `src` into the region at `offset`; false when the range is outside it.
    pub fn write_at(&mut self, offset: usize, src: &[u8]) -> bool {
        match self.reg.as_mut() {
            Some(r) => r.write_at(offset, src),
            None => false,
        }
    }

    /// Deregisters now (MR_DESTROY by ioctl, else DEREG_MR by `write()`) and gives the
    /// memory back.
    ///
    /// # Errors
    ///
    /// The kernel's errno, with the MR given back still registered.
    #[doc(alias = "ibv_dereg_mr")]
    // The object comes back with the error, so the Err variant is as large as both: a
    // cold path, moved once.
    #[allow(clippy::result_large_err)]
    pub fn try_destroy(mut self) -> core::result::Result<MrBuf, (Mr, Error)> {
        let ctx = self.pd.context().clone();
        let Some(reg) = self.reg.take() else {
            unreachable!("an Mr is registered")
        };
        match ctx.raw().dereg_mr(reg, ctx.objects_path()) {
            Ok(buf) => Ok(buf),
            Err((reg, e)) => {
                self.reg = Some(reg);
                Err((self, ctx.kernel_error(Op::new("DEREG_MR", ctx.name()), e)))
            }
        }
    }
}

impl Drop for Mr {
    fn drop(&mut self) {
        if let Some(reg) = self.reg.take() {
            let ctx = self.pd.context();
            // On failure the RegisteredMr comes back and is dropped, which leaks the buffer.
            if let Err((_, e)) = ctx.raw().dereg_mr(reg, ctx.objects_path()) {
                ctx.record_destroy_error(ctx.kernel_error(Op::new("DEREG_MR", ctx.name()), e));
            }
        }
    }
}
