# A planted regression (issue 25), of the kind "a limit no longer enforced": siw's
# CREATE_QP stops refusing a send queue deeper than its max_qp_wr. `uverbs selftest`
# must fail probe.error_paths, whose "max_send_wr max_qp_wr + 1" expects EINVAL
# (tests/selftest.rs).
s|(attrs->cap.max_send_wr > SIW_MAX_QP_WR) \|\||(0) \|\||
