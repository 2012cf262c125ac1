# A planted regression (issue 25), of the kind "an event's semantics": rxe's responder
# raises IBV_EVENT_SRQ_LIMIT_REACHED when an SRQ falls below its limit but no longer
# disarms the limit. `uverbs selftest` must fail objects.srq_limit, which expects
# QUERY_SRQ to report the limit 0 after the event and no second event
# (tests/selftest_objects.rs).
s|srq->limit = 0;|/* planted: the limit stays armed */|
