//! The drop-in tools: rdma-core's `ibv_devinfo` and `ibv_devices`, infiniband-diags'
//! `ibstat` and `ibstatus`, byte for byte under their own names, and `uverbs devinfo`,
//! `devices`, `ibstat`, `ibstatus` with `--json`.
//!
//! - [`devinfo`], [`devices`]: the commands; [`devlist`] the device list both take,
//!   [`report`] what `devinfo` gathers, [`text`] and [`devinfo_json`] how it prints.
//! - [`ibstat`], [`ibstatus`]: the commands; [`ibca`] what both gather.
//! - `printer_table`, `printer_diff` (tests only): the `ibv_devinfo` printer against
//!   rdma-core's own `devinfo.c` on synthetic tables.

pub mod devices;
pub mod devinfo;
pub mod devinfo_json;
pub mod devlist;
pub mod ibca;
pub mod ibstat;
pub mod ibstatus;
#[cfg(test)]
mod printer_diff;
#[cfg(test)]
pub mod printer_table;
pub mod report;
pub mod text;
