# A planted regression (issue 25), of the kind "a key check lost on the receive path":
# rxe accepts a UD packet whatever its Q_Key (check_keys() in rxe_recv.c no longer drops
# a mismatch nor counts it in the port's qkey_viol_cntr). `uverbs selftest` must fail
# traffic.ud.qkey_mismatch (tests/selftest_traffic.rs).
s/if (unlikely(deth_qkey(pkt) != qkey)) {/if (unlikely(deth_qkey(pkt) != qkey \&\& 0)) {/
