//! The kernel conformance tools: [`probe`] walks every object method of the uverbs
//! interface on a device and reports what the kernel answered; [`selftest`] is the
//! conformance suite a kernel CI runs (KTAP, baselines, timeouts, bisect).

pub mod probe;
pub mod selftest;
