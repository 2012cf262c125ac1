//! The kernel conformance tools: [`probe`] walks every object method of the uverbs
//! interface on a device and reports what the kernel answered.

pub mod probe;
