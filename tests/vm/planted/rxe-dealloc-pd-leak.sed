# A planted regression (issue 25), of the kind "a leak": rxe's DEALLOC_PD forgets its own
# record of the PD (the core's is gone, so RDMA netlink counts nothing left). The driver
# finds it when its device is freed and warns (rxe_pool_cleanup's WARN_ON). `uverbs
# selftest --create rxe` must fail testbed.remove, the removal of the device it made,
# showing the report (tests/selftest.rs).
/^static int rxe_dealloc_pd(/,/^}/s/rxe_cleanup(pd)/0/
