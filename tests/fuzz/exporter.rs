//! The exporter's HTTP request heads (`src/bin/uverbs/plumbing/http.rs`, compiled in).

use crate::corpus::*;
use crate::harness::*;

/// Request heads, mutated as text and as bytes, through the server's parse loop
/// (`checks::http`: what a head claims lies within what was received, pipelined
/// requests, the 8 KiB bound).
#[test]
fn fuzz_http_heads() {
    let corpus = http_corpus();
    fuzz(
        "http_heads",
        iters(),
        |r| text_input(r, &corpus),
        crate::checks::http,
    );
}
