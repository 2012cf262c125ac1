# A planted regression (issue 25), of the kind "a completion field": rxe's receive
# completion reports one byte more than the message held. `uverbs selftest` must fail
# data.rc.send, which compares every receive's byte_len (tests/selftest.rs).
s/qp->resp.length : wqe->dma.length - wqe->dma.resid;/qp->resp.length : wqe->dma.length - wqe->dma.resid + 1;/
