//! `uverbs selftest`'s `objects.*` and `events.*` cases in the VM (issue 25): on rxe
//! every case passes; on siw the QP state walk, the completion channel and the CQ
//! overrun pass, and the rest skip with the reason the driver gives; the output is
//! strict KTAP with kselftest's exit status. And regressions planted in rxe (the SRQ
//! limit left armed after its event; MODIFY_QP without the state table) fail
//! `objects.srq_limit` and `objects.qp_states.rc`, which the stock module passes.

mod common;

use std::process::Output;

use common::selftest::{ktap, planted_fails_case, run as selftest};

/// The result lines of one device's run (`ok 1 objects.cq_resize # SKIP ...`), after
/// reading the whole document strictly.
fn run_lines(dev: &str, filter: &str) -> (Output, String, Vec<String>) {
    let o = selftest(&["-d", dev, "--filter", filter]);
    let doc = String::from_utf8_lossy(&o.stdout).into_owned();
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("{dev} {filter}: not KTAP: {e}\n{doc}"));
    let lines = doc
        .lines()
        .filter(|l| l.starts_with("  ok ") || l.starts_with("  not ok "))
        .map(|l| l.trim_start().to_string())
        .collect();
    (o, doc, lines)
}

/// What each case answers on each driver (observed on Linux 6.1 and 6.12): rxe runs
/// them all; siw (iWARP) has RC QPs only, no CQ resize, and consumes receives and
/// reaches RTS only through the iWARP CM.
fn expected(driver: &str, filter: &str) -> Vec<&'static str> {
    match (driver, filter) {
        ("rxe", "objects.*") => vec![
            "ok 1 objects.qp_states.rc",
            "ok 2 objects.qp_states.uc",
            "ok 3 objects.qp_states.ud",
            "ok 4 objects.cq_resize",
            "ok 5 objects.srq_limit",
        ],
        ("siw", "objects.*") => vec![
            "ok 1 objects.qp_states.rc",
            "ok 2 objects.qp_states.uc # SKIP iWARP has no UC QPs (siw: CREATE_QP EOPNOTSUPP)",
            "ok 3 objects.qp_states.ud # SKIP iWARP has no UD QPs (siw: CREATE_QP EOPNOTSUPP)",
            "ok 4 objects.cq_resize # SKIP siw has no CQ resize (RESIZE_CQ: EOPNOTSUPP)",
            "ok 5 objects.srq_limit # SKIP siw consumes SRQ receives only from an iWARP \
             connection (the CM, which needs an IP address)",
        ],
        ("rxe", _) => vec![
            "ok 1 events.comp_channel",
            "ok 2 events.qp_async",
            "ok 3 events.cq_async",
        ],
        _ => vec![
            "ok 1 events.comp_channel",
            "ok 2 events.qp_async # SKIP siw reaches RTS, and so SQD, only through the iWARP CM",
            "ok 3 events.cq_async",
        ],
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn selftest_objects_and_events_pass_or_skip_with_their_reasons() {
    common::require_siw();
    for driver in ["rxe", "siw"] {
        let dev = common::device(driver);
        for filter in ["objects.*", "events.*"] {
            let t = std::time::Instant::now();
            let (o, doc, lines) = run_lines(&dev, filter);
            assert_eq!(lines, expected(driver, filter), "{dev} {filter}:\n{doc}");
            assert_eq!(o.status.code(), Some(0), "{dev} {filter}:\n{doc}");
            let skips = lines.iter().filter(|l| l.contains("# SKIP")).count();
            let totals = format!(
                "# Totals: pass:{} fail:0 xfail:0 xpass:0 skip:{skips} error:0",
                lines.len() - skips
            );
            assert_eq!(doc.lines().last(), Some(totals.as_str()), "{doc}");
            println!(
                "kernel {}: {dev} {filter}: {} ({:.1} s)",
                common::kernel(),
                totals,
                t.elapsed().as_secs_f64()
            );
        }
    }
    // siw's QUERY_QP reports the state since Linux 6.8 ("RDMA/siw: Set qp_state in
    // siw_query_qp"); the case records which, and a baseline compares it.
    let siw = common::device("siw");
    let rec = std::env::temp_dir().join(format!("uverbs-objects-{}", std::process::id()));
    let o = selftest(&[
        "-d",
        &siw,
        "--filter",
        "objects.qp_states.rc",
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let base = std::fs::read_to_string(&rec).unwrap();
    let _ = std::fs::remove_file(&rec);
    let reports = if common::kernel() == "6.1" {
        "false"
    } else {
        "true"
    };
    let line = format!("{siw}\tobjects.qp_states.rc\tfact\tsiw.query_reports_state\t{reports}");
    assert!(base.lines().any(|l| l == line), "{line:?} in\n{base}");
    println!("kernel {}: {line}", common::kernel());
}

/// Issue 25: a regression planted in rxe, of an event's semantics: its responder raises
/// IBV_EVENT_SRQ_LIMIT_REACHED but leaves the limit armed
/// (tests/vm/planted/rxe-srq-limit-stays-armed.sed). objects.srq_limit catches it:
/// QUERY_SRQ still reports the limit after the event, and the next receive raises it
/// again.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn selftest_objects_catch_a_planted_srq_limit_left_armed() {
    planted_fails_case(
        &common::device("rxe"),
        "rxe-srq-limit-stays-armed",
        "objects.srq_limit",
        "QUERY_SRQ after the event: srq_limit 2, expected 0",
    );
}

/// Issue 25: the state machine planted in rxe for probe.error_paths
/// (tests/vm/planted/rxe-modify-qp-any-transition.sed: MODIFY_QP without
/// ib_modify_qp_is_ok) fails objects.qp_states.rc too: its first illegal step that the
/// core does not refuse itself is RESET->RTS (ib_uverbs refuses RESET->RTR before rxe
/// sees it: the address vector's port is not yet the QP's).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn selftest_objects_catch_a_planted_state_machine() {
    planted_fails_case(
        &common::device("rxe"),
        "rxe-modify-qp-any-transition",
        "objects.qp_states.rc",
        "MODIFY_QP RESET->RTS (mask QpAttrMask(STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | SQ_PSN)): ok, expected errno 22",
    );
}
