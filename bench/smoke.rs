//! Opens every uverbs node by path and prints what the kernel answers (a quick check,
//! without discovery).
use uverbs::verbs::context::{CallPath, OpenOptions, OpenTarget};

fn main() {
    for n in 0..64 {
        let path = format!("/dev/infiniband/uverbs{n}");
        if !std::path::Path::new(&path).exists() {
            continue;
        }
        let name = std::fs::read_to_string(format!("/sys/class/infiniband_verbs/uverbs{n}/ibdev"))
            .unwrap_or_default()
            .trim()
            .to_string();
        for gc in [CallPath::Ioctl, CallPath::Write] {
            let t = OpenTarget {
                name: name.clone(),
                path: path.clone().into(),
                dev: None,
                driver_id: None,
                driver_id_guess: None,
                fw_text: String::new(),
                port_count: None,
                sysfs_root: "/sys".into(),
            };
            match OpenOptions::new().get_context(gc).open_target(&t) {
                Ok(ctx) => {
                    println!(
                        "{name}: driver_id {} ports {} ncv {} gc {:?}",
                        ctx.driver_id(),
                        ctx.port_count(),
                        ctx.num_comp_vectors(),
                        ctx.get_context_path()
                    );
                    println!("{:#?}", ctx.query_device());
                    println!(
                        "{:?}",
                        ctx.query_device_via(CallPath::Write).map(|a| a.max_qp)
                    );
                    println!("{:#?}", ctx.query_port(1));
                    println!(
                        "{:?}",
                        ctx.query_port_via(1, CallPath::Write).map(|p| p.state)
                    );
                    println!("{:?}", ctx.query_port(2).map(|p| p.state));
                }
                Err(e) => println!("{name}: {e}"),
            }
        }
    }
}
