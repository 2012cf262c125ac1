# A planted regression (issue 25), of the kind "a kernel warning": siw's ALLOC_PD hits a
# WARN_ON, a real splat of a module in the kernel log (Debian's kernels have no KASAN,
# UBSAN or lockdep to give one). `uverbs selftest`'s health check must fail the first
# case that allocates a PD, naming the report (tests/selftest.rs).
/siw_dbg_pd(pd, "now %d PD/i\
	WARN_ON(1);
