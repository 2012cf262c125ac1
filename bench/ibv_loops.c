/*
 * ibv_loops.c - the libibverbs side of the side-by-side benchmark (bench/run.sh).
 *
 * Runs the same loops as examples/bench_loops.rs, through libibverbs (rdma-core), in
 * the VM rig, and one loop with no library at all: the floor, a QUERY_PORT ioctl
 * built by hand once and issued again and again on libibverbs' own command fd, with
 * nothing decoded.
 *
 *   ibv_loops loops DEV [BATCHES [SCALE [OPS]]]
 *       one line per batch:  R libibverbs DEV OP NS_PER_OP
 *       OP: floor_qp, query_port, floor_qd (the hand-built INVOKE_WRITE of the
 *       extended QUERY_DEVICE), query_device, gid_table, gid_entry, open_close,
 *       disc (ibv_get_device_list + ibv_free_device_list), disc_open_query,
 *       gid_scan (ibv_query_gid_ex of every index of port 1, as ibv_devinfo -v does)
 *       OPS: comma-separated subset (default: all); SCALE multiplies the iterations.
 *       floor_qp/query_port and floor_qd/query_device run as back-to-back pairs of
 *       short batches; each pair also prints  Q libibverbs DEV OP RATIO  (op / floor).
 *       After query_port's pairs, as many A/A pairs of ibv_query_port against itself:
 *       Q libibverbs DEV query_port_aa RATIO only (the rig's own spread).
 *   ibv_loops cold DEV
 *       from main(): ibv_get_device_list + ibv_open_device + ibv_query_port (the
 *       first ones of the process):  C libibverbs DEV disc_open_query_cold NS, and
 *       C libibverbs DEV disc_cold NS for ibv_get_device_list alone; then the same
 *       again in the same process (C ... disc_open_query_second NS), and the minor
 *       page faults of the first round (C ... disc_open_query_cold_minflt N);
 *       with "once" after DEV, the first round only
 *   ibv_loops count DEV OP N
 *       N calls of OP and nothing else that depends on N (no clock, no output), after
 *       the same set-up whatever N and OP: bench/hotcalls.sh counts the run's
 *       instructions under callgrind at two N and divides their difference by the
 *       difference of N. OP: floor_qp, query_port, floor_qd, query_device
 *       (ibv_query_device_ex, or ibv_query_device where the provider has no _ex),
 *       gid_table (ibv_query_gid_table of gid_tbl_len entries), gid_entry
 *       (ibv_query_gid_ex of index 0)
 *
 * Build (host, against rdma-core's headers): gcc -O2 -o ibv_loops ibv_loops.c -libverbs
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "ibv_loops: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The hand-built QUERY_PORT call: header + PORT_NUM (inline) + RESP (pointer). */
struct query_port_req {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[2];
};

/* INVOKE_WRITE of the extended QUERY_DEVICE: CORE_IN (inline), CORE_OUT, WRITE_CMD. */
struct invoke_write_req {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[3];
};

static void build_query_port(struct query_port_req *r, uint32_t driver_id, uint8_t port,
			     struct ib_uverbs_query_port_resp_ex *resp)
{
	memset(r, 0, sizeof(*r));
	r->hdr.length = sizeof(*r);
	r->hdr.object_id = UVERBS_OBJECT_DEVICE;
	r->hdr.method_id = UVERBS_METHOD_QUERY_PORT;
	r->hdr.num_attrs = 2;
	r->hdr.driver_id = driver_id;
	r->attrs[0].attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM;
	r->attrs[0].len = sizeof(uint64_t);
	r->attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	r->attrs[0].data = port;
	r->attrs[1].attr_id = UVERBS_ATTR_QUERY_PORT_RESP;
	r->attrs[1].len = sizeof(*resp);
	r->attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	r->attrs[1].data = (uintptr_t)resp;
}

static void build_invoke_write(struct invoke_write_req *r, uint32_t driver_id,
			       struct ib_uverbs_ex_query_device_resp *resp)
{
	memset(r, 0, sizeof(*r));
	r->hdr.length = sizeof(*r);
	r->hdr.object_id = UVERBS_OBJECT_DEVICE;
	r->hdr.method_id = UVERBS_METHOD_INVOKE_WRITE;
	r->hdr.num_attrs = 3;
	r->hdr.driver_id = driver_id;
	r->attrs[0].attr_id = UVERBS_ATTR_CORE_IN;
	r->attrs[0].len = sizeof(struct ib_uverbs_ex_query_device); /* 8: inline, zero */
	r->attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	r->attrs[1].attr_id = UVERBS_ATTR_CORE_OUT;
	r->attrs[1].len = sizeof(*resp);
	r->attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	r->attrs[1].data = (uintptr_t)resp;
	r->attrs[2].attr_id = UVERBS_ATTR_WRITE_CMD;
	r->attrs[2].len = sizeof(uint64_t);
	r->attrs[2].flags = UVERBS_ATTR_F_MANDATORY;
	r->attrs[2].data = IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED;
}

/* The device's rdma_driver_id, which the ioctl header must carry: the kernel answers
 * EINVAL to a wrong one. Found the way rdma-core's probe does it: INVOKE_WRITE with
 * only WRITE_CMD answers ENOSPC (missing buffers) once the id is right. */
static uint32_t find_driver_id(int fd, const char *name)
{
	uint32_t guess = strncmp(name, "rxe", 3) == 0 ? RDMA_DRIVER_RXE
			 : strncmp(name, "siw", 3) == 0 ? RDMA_DRIVER_SIW
							: 0;
	for (int i = -1; i < 64; i++) {
		uint32_t id = i < 0 ? guess : (uint32_t)i;
		struct {
			struct ib_uverbs_ioctl_hdr hdr;
			struct ib_uverbs_attr attr;
		} probe;
		memset(&probe, 0, sizeof(probe));
		probe.hdr.length = sizeof(probe);
		probe.hdr.object_id = UVERBS_OBJECT_DEVICE;
		probe.hdr.method_id = UVERBS_METHOD_INVOKE_WRITE;
		probe.hdr.num_attrs = 1;
		probe.hdr.driver_id = id;
		probe.attr.attr_id = UVERBS_ATTR_WRITE_CMD;
		probe.attr.len = sizeof(uint64_t);
		probe.attr.flags = UVERBS_ATTR_F_MANDATORY;
		probe.attr.data = IB_USER_VERBS_CMD_QUERY_DEVICE;
		if (ioctl(fd, RDMA_VERBS_IOCTL, &probe) == 0 || errno == ENOSPC)
			return id;
		if (errno != EINVAL)
			die("driver id probe", errno);
	}
	die("driver id probe", EINVAL);
	return 0;
}

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	for (int i = 0; list && list[i]; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

static const char *ops_filter;
static int wanted(const char *op)
{
	if (!ops_filter || !*ops_filter || strcmp(ops_filter, "all") == 0)
		return 1;
	size_t n = strlen(op);
	for (const char *p = ops_filter; (p = strstr(p, op)); p += n)
		if ((p == ops_filter || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

static const char *dev_name;
static void report(const char *op, uint64_t ns, long iters)
{
	printf("R libibverbs %s %s %.1f\n", dev_name, op, (double)ns / (double)iters);
}

static void fail(const char *op, int err)
{
	fprintf(stderr, "ibv_loops: %s on %s: %s\n", op, dev_name, strerror(err));
	exit(1);
}

static double scale = 1.0;

/* One batch of OP: ITERS * scale runs of the statement after the macro, timed as a
 * whole; the loop condition reports the batch when it ends. */
struct batch {
	const char *op;
	long n, i;
	uint64_t t0;
};
static struct batch batch_start(const char *op, long iters)
{
	long n = (long)((double)iters * scale);
	struct batch b = { op, n > 0 ? n : 1, 0, 0 };
	b.t0 = now_ns();
	return b;
}
static int batch_end(const struct batch *b)
{
	report(b->op, now_ns() - b->t0, b->n);
	return 0;
}
#define PAIRS 25
static long iters_of(long iters)
{
	long n = (long)((double)iters * scale);
	return n > 0 ? n : 1;
}
static void report_pair(const char *floor_op, const char *op, uint64_t tf, uint64_t tq, long n)
{
	report(floor_op, tf, n);
	report(op, tq, n);
	printf("Q libibverbs %s %s %.4f\n", dev_name, op, (double)tq / (double)tf);
}
#define BATCH(op, iters) \
	for (struct batch _b = batch_start(op, iters); _b.i < _b.n || batch_end(&_b); _b.i++)

static int loops(const char *name, int batches)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	if (!list)
		die("ibv_get_device_list", errno);
	struct ibv_device *dev = find_dev(list, name);
	if (!dev)
		die(name, ENODEV);
	struct ibv_context *ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);

	struct ibv_port_attr pa;
	int rc = ibv_query_port(ctx, 1, &pa);
	if (rc)
		fail("ibv_query_port", rc);
	int max_gids = pa.gid_tbl_len > 0 ? pa.gid_tbl_len : 1;
	struct ibv_gid_entry *gids = calloc((size_t)max_gids, sizeof(*gids));

	uint32_t driver_id = find_driver_id(ctx->cmd_fd, name);
	struct ib_uverbs_query_port_resp_ex qp_resp;
	struct query_port_req qp_req;
	memset(&qp_resp, 0, sizeof(qp_resp));
	build_query_port(&qp_req, driver_id, 1, &qp_resp);
	struct ib_uverbs_ex_query_device_resp qd_resp;
	struct invoke_write_req qd_req;
	memset(&qd_resp, 0, sizeof(qd_resp));
	build_invoke_write(&qd_req, driver_id, &qd_resp);

	/* ibv_query_device_ex, or the plain one where the provider has no _ex. */
	struct ibv_device_attr_ex ax;
	int have_ex = ibv_query_device_ex(ctx, NULL, &ax) == 0;

	/* Check once that every call works before timing it. */
	if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qp_req))
		fail("floor QUERY_PORT", errno);
	if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qd_req))
		fail("floor INVOKE_WRITE", errno);
	if (ibv_query_gid_table(ctx, gids, (size_t)max_gids, 0) < 0)
		fail("ibv_query_gid_table", errno);
	struct ibv_gid_entry ge;
	if ((rc = ibv_query_gid_ex(ctx, 1, 0, &ge, 0)))
		fail("ibv_query_gid_ex", rc);

	for (int b = 0; b < batches; b++) {
		/* Each query against its floor: back-to-back pairs of short batches, the
		 * order alternating, and the ratio of each pair (a Q line). */
		for (int p = 0; p < PAIRS && (wanted("floor_qp") || wanted("query_port")); p++) {
			long n = iters_of(20);
			uint64_t tf = 0, tq = 0;
			for (int half = 0; half < 2; half++) {
				uint64_t t0 = now_ns();
				if ((half == 0) == (p % 2 == 0)) {
					for (long i = 0; i < n; i++)
						if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qp_req))
							fail("floor QUERY_PORT", errno);
					tf = now_ns() - t0;
				} else {
					for (long i = 0; i < n; i++)
						if ((rc = ibv_query_port(ctx, 1, &pa)))
							fail("ibv_query_port", rc);
					tq = now_ns() - t0;
				}
			}
			report_pair("floor_qp", "query_port", tf, tq, n);
		}
		/* The rig's own spread (A/A) for the cached-query target: ibv_query_port
		 * against itself in the same pairs, only the ratio printed. */
		for (int p = 0; p < PAIRS && wanted("query_port"); p++) {
			long n = iters_of(20);
			uint64_t t[2];
			for (int half = 0; half < 2; half++) {
				uint64_t t0 = now_ns();
				for (long i = 0; i < n; i++)
					if ((rc = ibv_query_port(ctx, 1, &pa)))
						fail("ibv_query_port", rc);
				t[(half == 0) == (p % 2 == 0) ? 0 : 1] = now_ns() - t0;
			}
			printf("Q libibverbs %s query_port_aa %.4f\n", dev_name, (double)t[1] / (double)t[0]);
		}
		for (int p = 0; p < PAIRS && (wanted("floor_qd") || wanted("query_device")); p++) {
			long n = iters_of(20);
			uint64_t tf = 0, tq = 0;
			for (int half = 0; half < 2; half++) {
				uint64_t t0 = now_ns();
				if ((half == 0) == (p % 2 == 0)) {
					for (long i = 0; i < n; i++)
						if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qd_req))
							fail("floor INVOKE_WRITE", errno);
					tf = now_ns() - t0;
				} else if (have_ex) {
					for (long i = 0; i < n; i++)
						if ((rc = ibv_query_device_ex(ctx, NULL, &ax)))
							fail("ibv_query_device_ex", rc);
					tq = now_ns() - t0;
				} else {
					for (long i = 0; i < n; i++)
						if ((rc = ibv_query_device(ctx, &ax.orig_attr)))
							fail("ibv_query_device", rc);
					tq = now_ns() - t0;
				}
			}
			report_pair("floor_qd", "query_device", tf, tq, n);
		}
		if (wanted("gid_table"))
			BATCH("gid_table", 300)
				if (ibv_query_gid_table(ctx, gids, (size_t)max_gids, 0) < 0)
					fail("ibv_query_gid_table", errno);
		if (wanted("gid_scan"))
			BATCH("gid_scan", max_gids < 512 ? 512 / max_gids : 1)
				for (int i = 0; i < (int)pa.gid_tbl_len; i++)
					ibv_query_gid_ex(ctx, 1, (uint32_t)i, &ge, 0); /* ENODATA: empty */
		if (wanted("gid_entry"))
			BATCH("gid_entry", 500)
				if ((rc = ibv_query_gid_ex(ctx, 1, 0, &ge, 0)))
					fail("ibv_query_gid_ex", rc);
		if (wanted("open_close"))
			BATCH("open_close", 10) {
				struct ibv_context *c = ibv_open_device(dev);
				if (!c)
					fail("ibv_open_device", errno);
				ibv_close_device(c);
			}
		if (wanted("disc"))
			BATCH("disc", 5) {
				struct ibv_device **l = ibv_get_device_list(NULL);
				if (!l)
					fail("ibv_get_device_list", errno);
				ibv_free_device_list(l);
			}
		if (wanted("disc_open_query"))
			BATCH("disc_open_query", 5) {
				struct ibv_device **l = ibv_get_device_list(NULL);
				struct ibv_device *d = find_dev(l, name);
				if (!d)
					fail("ibv_get_device_list", ENODEV);
				struct ibv_context *c = ibv_open_device(d);
				if (!c)
					fail("ibv_open_device", errno);
				if ((rc = ibv_query_port(c, 1, &pa)))
					fail("ibv_query_port", rc);
				ibv_close_device(c);
				ibv_free_device_list(l);
			}
		fflush(stdout);
	}
	if (!have_ex)
		fprintf(stderr, "ibv_loops: %s: no ibv_query_device_ex, timed ibv_query_device\n", name);
	free(gids);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}

/* Minor page faults of this process so far (/proc/self/stat, field 10). */
static long minflt(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	long v = -1;
	/* after ") ": state ppid pgrp session tty_nr tpgid flags minflt */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld", &v) != 1)
		return -1;
	return v;
}

/* The first discovery + open + answer of a process (providers loaded on the way),
 * then the same again: what the first round costs over the second is first-execution
 * cost (page faults, and under TCG the translation of code run for the first time). */
static int cold(const char *name, int once)
{
	long f0 = minflt();
	uint64_t t0 = now_ns();
	struct ibv_device **list = ibv_get_device_list(NULL);
	uint64_t t_disc = now_ns();
	struct ibv_device *dev = find_dev(list, name);
	if (!dev)
		die(name, ENODEV);
	struct ibv_context *ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);
	struct ibv_port_attr pa;
	int rc = ibv_query_port(ctx, 1, &pa);
	uint64_t t1 = now_ns();
	long f1 = minflt();
	if (rc)
		fail("ibv_query_port", rc);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("C libibverbs %s disc_cold %llu\n", name, (unsigned long long)(t_disc - t0));
	printf("C libibverbs %s disc_open_query_cold %llu\n", name, (unsigned long long)(t1 - t0));
	if (once)
		return 0;

	uint64_t t2 = now_ns();
	list = ibv_get_device_list(NULL);
	dev = find_dev(list, name);
	if (!dev)
		die(name, ENODEV);
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);
	rc = ibv_query_port(ctx, 1, &pa);
	uint64_t t3 = now_ns();
	if (rc)
		fail("ibv_query_port", rc);
	ibv_close_device(ctx);
	ibv_free_device_list(list);

	printf("C libibverbs %s disc_open_query_second %llu\n", name, (unsigned long long)(t3 - t2));
	if (f0 >= 0 && f1 >= 0)
		printf("C libibverbs %s disc_open_query_cold_minflt %ld\n", name, f1 - f0);
	return 0;
}

static int count(const char *name, const char *op, long n)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = find_dev(list, name);
	if (!dev)
		die(name, ENODEV);
	struct ibv_context *ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);
	struct ibv_port_attr pa;
	int rc = ibv_query_port(ctx, 1, &pa);
	if (rc)
		fail("ibv_query_port", rc);
	size_t max_gids = pa.gid_tbl_len > 0 ? pa.gid_tbl_len : 1;
	struct ibv_gid_entry *gids = calloc(max_gids, sizeof(*gids));
	uint32_t driver_id = find_driver_id(ctx->cmd_fd, name);
	struct ib_uverbs_query_port_resp_ex qp_resp;
	struct query_port_req qp_req;
	build_query_port(&qp_req, driver_id, 1, &qp_resp);
	struct ib_uverbs_ex_query_device_resp qd_resp;
	struct invoke_write_req qd_req;
	build_invoke_write(&qd_req, driver_id, &qd_resp);
	struct ibv_device_attr_ex ax;
	int have_ex = ibv_query_device_ex(ctx, NULL, &ax) == 0;
	struct ibv_gid_entry ge;

	if (!strcmp(op, "floor_qp")) {
		for (long i = 0; i < n; i++)
			if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qp_req))
				fail("floor QUERY_PORT", errno);
	} else if (!strcmp(op, "query_port")) {
		for (long i = 0; i < n; i++)
			if ((rc = ibv_query_port(ctx, 1, &pa)))
				fail("ibv_query_port", rc);
	} else if (!strcmp(op, "floor_qd")) {
		for (long i = 0; i < n; i++)
			if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &qd_req))
				fail("floor INVOKE_WRITE", errno);
	} else if (!strcmp(op, "query_device")) {
		for (long i = 0; i < n; i++)
			if ((rc = have_ex ? ibv_query_device_ex(ctx, NULL, &ax)
					  : ibv_query_device(ctx, &ax.orig_attr)))
				fail("ibv_query_device_ex", rc);
	} else if (!strcmp(op, "gid_table")) {
		for (long i = 0; i < n; i++)
			if (ibv_query_gid_table(ctx, gids, max_gids, 0) < 0)
				fail("ibv_query_gid_table", errno);
	} else if (!strcmp(op, "gid_entry")) {
		for (long i = 0; i < n; i++)
			if ((rc = ibv_query_gid_ex(ctx, 1, 0, &ge, 0)))
				fail("ibv_query_gid_ex", rc);
	} else {
		fail(op, EINVAL);
	}
	free(gids);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "count") == 0) {
		dev_name = argv[2];
		return count(argv[2], argv[3], atol(argv[4]));
	}
	if (argc < 3) {
		fprintf(stderr, "usage: ibv_loops loops DEV [BATCHES [SCALE [OPS]]] | cold DEV [once]\n");
		return 2;
	}
	dev_name = argv[2];
	if (strcmp(argv[1], "cold") == 0)
		return cold(argv[2], argc > 3 && strcmp(argv[3], "once") == 0);
	int batches = argc > 3 ? atoi(argv[3]) : 21;
	if (argc > 4)
		scale = atof(argv[4]);
	if (argc > 5)
		ops_filter = argv[5];
	return loops(argv[2], batches);
}
