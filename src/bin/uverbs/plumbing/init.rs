//! PID 1 of an initramfs that holds only this program and the kernel's modules: a kernel
//! bisect's boot (`scripts/bisect-boot.sh`). The kernel gives init the words after `--`
//! on its command line as arguments; they are run as `uverbs ARGS` (`selftest --create
//! rxe,siw --modules DIR --bisect`), after `/proc`, `/sys` and `/dev` are mounted and the
//! loopback interface is up. The
//! status goes to the console as one line, `uverbs-init: exit N`, that the script reads,
//! and the machine is powered off. Only as `/init` (argv[0]'s name is `init`) with PID 1:
//! the first process of a container's PID namespace runs the command as usual.

use rustix::mount::{mount, MountFlags};
use rustix::system::{reboot, RebootCommand};

use crate::plumbing::io::Io;

/// The line that starts the run, before anything else is printed: with it and without
/// [`exit_line`], the kernel died under the test.
pub const START: &str = "uverbs-init: start";

/// The verdict line.
pub fn exit_line(code: i32) -> String {
    format!("uverbs-init: exit {code}")
}

/// Runs `main(io, args)` as PID 1 and powers off.
pub fn run(io: &mut Io, args: &[Vec<u8>], main: fn(&mut Io, &[Vec<u8>]) -> i32) -> ! {
    io.err_line(START);
    for (fs, dir) in [("proc", "/proc"), ("sysfs", "/sys"), ("devtmpfs", "/dev")] {
        // Made when missing; EBUSY when the kernel mounted it already (devtmpfs).
        let _ = std::fs::create_dir(dir);
        if let Err(e) = mount(fs, dir, fs, MountFlags::empty(), None) {
            if e != rustix::io::Errno::BUSY {
                io.err_line(&format!("uverbs-init: mount {fs} on {dir}: {e}"));
            }
        }
    }
    // As any init does: the loopback interface up (a TCP connection to a local
    // address, such as siw's through the RDMA CM, goes through it).
    if let Err(e) = uverbs::netlink::route::set_up("lo", true) {
        io.err_line(&format!("uverbs-init: lo up: {e}"));
    }
    let code = if args.is_empty() {
        io.err_line("uverbs-init: no command: give it after -- on the kernel command line");
        2
    } else {
        main(io, args)
    };
    io.flush();
    io.err_line(&exit_line(code));
    io.flush();
    rustix::fs::sync();
    if let Err(e) = reboot(RebootCommand::PowerOff) {
        io.err_line(&format!("uverbs-init: power off: {e}"));
        io.flush();
    }
    // Without the power off (no CAP_SYS_BOOT), the status: init's exit ends the
    // machine (the kernel panics, and reboots with panic=-1) or the PID namespace.
    std::process::exit(code & 0xff)
}
