//! The checks the coverage-guided targets run: `tests/fuzz/checks.rs`, shared word for
//! word with the bounded harness (tests/fuzz), and the parser of the command's HTTP
//! server, which checks.rs calls as `crate::http`.
//!
//! The HTTP parser lives in the `uverbs` binary, not the library: it is compiled in here
//! from its file, as tests/fuzz does, rather than made public API of the library for
//! the sake of its tests.

#[allow(dead_code)]
#[path = "../../../../src/bin/uverbs/plumbing/http.rs"]
mod http;

#[path = "../../checks.rs"]
pub mod checks;
