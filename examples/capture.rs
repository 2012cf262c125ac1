//! Captures the kernel's raw answers for the decoding tests: for every device, the
//! QUERY_PORT responses (ioctl and write()), the extended QUERY_DEVICE response and the
//! GID table, as hex. Run in the VM rig next to the oracle; the outputs of both go to
//! `tests/fixtures/kernel/<kernel>/`.
use uverbs::raw::abi::*;
use uverbs::raw::method;
use uverbs::{Context, Discovery};
use zerocopy::IntoBytes;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() {
    let name = std::env::args().nth(1).expect("usage: capture DEVICE");
    let info = Discovery::new().device(&name).expect("discover");
    let ctx = Context::open(&info).expect("open");
    let id = ctx.driver_id();
    println!("driver_id={id}");
    let mut total = 0usize;
    for port in 1..=ctx.port_count() {
        let mut resp = ib_uverbs_query_port_resp_ex::default();
        ctx.raw()
            .call(&mut method::query_port(id, port, &mut resp))
            .expect("QUERY_PORT");
        println!("query_port.{port}.ioctl={}", hex(resp.as_bytes()));
        total += resp.legacy_resp.gid_tbl_len as usize;
        let mut legacy = ib_uverbs_query_port_resp::default();
        ctx.raw()
            .write(&mut method::write_query_port(port, &mut legacy))
            .expect("QUERY_PORT write()");
        println!("query_port.{port}.write={}", hex(legacy.as_bytes()));
    }
    let mut ex = ib_uverbs_ex_query_device_resp::default();
    let cmd = ib_uverbs_ex_query_device::default();
    ctx.raw()
        .call(&mut method::query_device_ex(id, &cmd, &mut ex))
        .expect("QUERY_DEVICE ex");
    println!("query_device.ex={}", hex(ex.as_bytes()));
    let mut entries = vec![ib_uverbs_gid_entry::default(); total.max(1)];
    let mut n = 0u64;
    ctx.raw()
        .call(&mut method::query_gid_table(id, &mut entries, &mut n))
        .expect("QUERY_GID_TABLE");
    println!("gid_table={}", hex(entries[..n as usize].as_bytes()));
    println!("fw_text={}", info.fw_ver);
    println!("num_comp_vectors={}", ctx.num_comp_vectors());
}
