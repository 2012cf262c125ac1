# A planted regression (issue 25), of the kind "a refcount underflow": siw's ALLOC_PD
# drops a reference it never took (a refcount_t at 0 decremented), which the kernel's
# refcount_t reports ("refcount_t: underflow; use-after-free.", then its WARNING) and
# saturates instead of wrapping. Debian's kernels have no KASAN, UBSAN or lockdep, so
# this and siw-alloc-pd-warn are the real reports the health check is proved on.
# `uverbs selftest` must fail the first case that allocates a PD (tests/selftest.rs).
/siw_dbg_pd(pd, "now %d PD/i\
	{ refcount_t planted = REFCOUNT_INIT(0);\
	  if (refcount_dec_and_test(&planted))\
		return -EINVAL; }
