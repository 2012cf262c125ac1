# A planted regression (issue 25), of the kind "a completion status on an error path":
# rxe completes a send whose RNR retries ran out with IBV_WC_RETRY_EXC_ERR (the status of
# exhausted transport retries) instead of IBV_WC_RNR_RETRY_EXC_ERR. Every other status
# is untouched. `uverbs selftest` must fail wire.rc.rnr and pass the other wire.rc.*
# cases (tests/selftest_wire.rs).
s/wqe->status = IB_WC_RNR_RETRY_EXC_ERR;/wqe->status = IB_WC_RETRY_EXC_ERR;/
