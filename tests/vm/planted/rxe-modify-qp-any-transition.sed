# A planted regression (issue 25), of the kind "the state machine": rxe's MODIFY_QP stops
# asking ib_modify_qp_is_ok whether the transition and its attribute mask are legal.
# `uverbs selftest` must fail probe.error_paths, which expects RESET->RTS and RESET->INIT
# without its required attributes to be refused (tests/selftest.rs).
s/if (!ib_modify_qp_is_ok(cur_state, new_state, qp_type(qp), mask))/if (0 \&\& !ib_modify_qp_is_ok(cur_state, new_state, qp_type(qp), mask))/
