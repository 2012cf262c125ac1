//! Every verbs call carries its C name: a search for `ibv_post_send` or `rdma_connect`
//! in the documentation finds the method (rustdoc's `#[doc(alias)]`). The table below is
//! the list of libibverbs and librdmacm calls the crate implements, with the file and
//! method that implement each; the test reads the attributes in front of the method.

use std::path::Path;

/// (file under src/, method, the C function it is).
#[rustfmt::skip]
const CALLS: &[(&str, &str, &str)] = &[
    ("verbs/discover.rs", "devices", "ibv_get_device_list"),
    ("verbs/context.rs", "open", "ibv_open_device"),
    ("verbs/context.rs", "query_device", "ibv_query_device"),
    ("verbs/context.rs", "query_device", "ibv_query_device_ex"),
    ("verbs/context.rs", "query_device_into", "ibv_query_device_ex"),
    ("verbs/context.rs", "query_port", "ibv_query_port"),
    ("verbs/context.rs", "query_port_speed", "ibv_query_port_speed"),
    ("verbs/gid.rs", "query_gid", "ibv_query_gid"),
    ("verbs/gid.rs", "query_gid", "ibv_query_gid_ex"),
    ("verbs/gid.rs", "query_gid_table", "ibv_query_gid_table"),
    ("verbs/gid.rs", "query_pkeys", "ibv_query_pkey"),
    ("verbs/event.rs", "events", "ibv_get_async_event"),
    ("verbs/objects/pd.rs", "alloc_pd", "ibv_alloc_pd"),
    ("verbs/objects/pd.rs", "try_destroy", "ibv_dealloc_pd"),
    ("verbs/objects/mr.rs", "reg_mr", "ibv_reg_mr"),
    ("verbs/objects/cq.rs", "create_comp_channel", "ibv_create_comp_channel"),
    ("verbs/objects/cq.rs", "get_event", "ibv_get_cq_event"),
    ("verbs/objects/cq.rs", "ack_events", "ibv_ack_cq_events"),
    ("verbs/objects/cq.rs", "create_cq", "ibv_create_cq"),
    ("verbs/objects/cq.rs", "resize", "ibv_resize_cq"),
    ("verbs/objects/cq.rs", "poll", "ibv_poll_cq"),
    ("verbs/objects/cq.rs", "req_notify", "ibv_req_notify_cq"),
    ("verbs/objects/cq.rs", "try_destroy", "ibv_destroy_cq"),
    ("verbs/objects/qp.rs", "create_qp", "ibv_create_qp"),
    ("verbs/objects/qp.rs", "modify", "ibv_modify_qp"),
    ("verbs/objects/qp.rs", "query", "ibv_query_qp"),
    ("verbs/objects/qp.rs", "query_into", "ibv_query_qp"),
    ("verbs/objects/qp.rs", "post_send", "ibv_post_send"),
    ("verbs/objects/qp.rs", "post_recv", "ibv_post_recv"),
    ("verbs/objects/ah.rs", "create_ah", "ibv_create_ah"),
    ("verbs/objects/srq.rs", "create_srq", "ibv_create_srq"),
    ("verbs/objects/srq.rs", "modify", "ibv_modify_srq"),
    ("verbs/objects/srq.rs", "query", "ibv_query_srq"),
    ("verbs/objects/srq.rs", "post_recv", "ibv_post_srq_recv"),
    ("verbs/objects/srq.rs", "try_destroy", "ibv_destroy_srq"),
    ("cm/mod.rs", "open", "rdma_create_event_channel"),
    ("cm/mod.rs", "create_id", "rdma_create_id"),
    ("cm/mod.rs", "get_event", "rdma_get_cm_event"),
    ("cm/mod.rs", "bind", "rdma_bind_addr"),
    ("cm/mod.rs", "listen", "rdma_listen"),
    ("cm/mod.rs", "resolve_addr", "rdma_resolve_addr"),
    ("cm/mod.rs", "resolve_route", "rdma_resolve_route"),
    ("cm/mod.rs", "connect", "rdma_connect"),
    ("cm/mod.rs", "accept", "rdma_accept"),
    ("cm/mod.rs", "disconnect", "rdma_disconnect"),
];

/// The attribute lines in front of every `pub fn NAME` of `text`, joined per method.
fn attributes_of(text: &str, name: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let Some(rest) = t.strip_prefix("pub fn ") else {
            continue;
        };
        if !rest.starts_with(&format!("{name}(")) && !rest.starts_with(&format!("{name}<")) {
            continue;
        }
        let mut attrs = String::new();
        for p in lines[..i].iter().rev() {
            let p = p.trim_start();
            if p.starts_with("#[") || p.starts_with("///") {
                attrs.push_str(p);
                attrs.push('\n');
            } else {
                break;
            }
        }
        out.push(attrs);
    }
    out
}

#[test]
fn every_verbs_call_carries_its_c_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for (file, method, c) in CALLS {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        let found = attributes_of(&text, method);
        assert!(!found.is_empty(), "src/{file}: no pub fn {method}");
        let alias = format!("#[doc(alias = \"{c}\")]");
        if !found.iter().any(|a| a.contains(&alias)) {
            missing.push(format!("src/{file}: {method} lacks {alias}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
