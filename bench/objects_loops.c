/*
 * objects_loops - the libibverbs side of bench/objects.sh: the object loops of
 * examples/bench_objects.rs through libibverbs, timed the same way.
 *
 * Benchmark tooling only, never part of the crate.  Built on the host against
 * Debian bookworm's libibverbs-dev and run in the VM:
 *
 *     gcc -O2 -Wall -o objects_loops objects_loops.c -libverbs
 *     objects_loops create DEV N    R ibv DEV pd|cq|qp|mr NS   (create + destroy)
 *     objects_loops qp DEV N        R ibv DEV query_qp NS, R ibv DEV modify_qp NS
 *
 * The QP walk is the one of bench_objects.rs: RESET, INIT, RTR, RTS, RESET on rxe
 * (RC, looped back to itself through GID 1); RESET, INIT, RESET on siw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

static void fail(const char *what, int err)
{
	fprintf(stderr, "objects_loops: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l;
	struct ibv_context *ctx = NULL;
	int n, i;

	l = ibv_get_device_list(&n);
	if (!l)
		fail("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (!ctx)
		fail("ibv_open_device", errno ? errno : ENODEV);
	return ctx;
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &a);
	if (!qp)
		fail("ibv_create_qp", errno);
	return qp;
}

static void create_loops(const char *dev, int n)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	void *buf;
	double t;
	int i, round;

	if (!pd || !cq)
		fail("setup", errno);
	if (posix_memalign(&buf, 4096, 4096))
		fail("posix_memalign", ENOMEM);
	for (round = 0; round < 2; round++) {
		int m = round ? n : n / 10 + 1;

		t = now_ns();
		for (i = 0; i < m; i++) {
			struct ibv_pd *p = ibv_alloc_pd(ctx);

			if (!p || ibv_dealloc_pd(p))
				fail("pd", errno);
		}
		if (round)
			printf("R ibv %s pd %.0f\n", dev, (now_ns() - t) / m);
		t = now_ns();
		for (i = 0; i < m; i++) {
			struct ibv_cq *c = ibv_create_cq(ctx, 16, NULL, NULL, 0);

			if (!c || ibv_destroy_cq(c))
				fail("cq", errno);
		}
		if (round)
			printf("R ibv %s cq %.0f\n", dev, (now_ns() - t) / m);
		t = now_ns();
		for (i = 0; i < m; i++)
			if (ibv_destroy_qp(rc_qp(pd, cq)))
				fail("qp", errno);
		if (round)
			printf("R ibv %s qp %.0f\n", dev, (now_ns() - t) / m);
		t = now_ns();
		for (i = 0; i < m; i++) {
			struct ibv_mr *r = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);

			if (!r || ibv_dereg_mr(r))
				fail("mr", errno);
		}
		if (round)
			printf("R ibv %s mr %.0f\n", dev, (now_ns() - t) / m);
	}
}

static int walk(struct ibv_qp *qp, union ibv_gid *gid, int rxe, int check)
{
	struct ibv_qp_attr a;
	int steps = 0, r;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS);
	if (r && check)
		fail("modify INIT", r);
	steps++;
	if (rxe) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.sgid_index = 1;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		if (r && check)
			fail("modify RTR", r);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC);
		if (r && check)
			fail("modify RTS", r);
		steps += 2;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (r && check)
		fail("modify RESET", r);
	return steps + 1;
}

static void qp_loops(const char *dev, int n)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr in;
	union ibv_gid gid;
	int rxe = !strncmp(dev, "rxe", 3), i, steps = 0;
	double t;

	if (!pd || !cq)
		fail("setup", errno);
	qp = rc_qp(pd, cq);
	if (ibv_query_gid(ctx, 1, 1, &gid))
		memset(&gid, 0, sizeof(gid));
	walk(qp, &gid, rxe, 1);
	for (i = 0; i < 10; i++)
		ibv_query_qp(qp, &a, (1 << 21) - 1, &in);
	t = now_ns();
	for (i = 0; i < n; i++)
		if (ibv_query_qp(qp, &a, (1 << 21) - 1, &in))
			fail("ibv_query_qp", errno);
	printf("R ibv %s query_qp %.0f\n", dev, (now_ns() - t) / n);
	t = now_ns();
	for (i = 0; i < n / 4 + 1; i++)
		steps += walk(qp, &gid, rxe, 0);
	printf("R ibv %s modify_qp %.0f\n", dev, (now_ns() - t) / steps);
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 2000;

	if (argc < 3) {
		fprintf(stderr, "usage: objects_loops create|qp DEV [N]\n");
		return 2;
	}
	if (!strcmp(argv[1], "create"))
		create_loops(argv[2], n);
	else if (!strcmp(argv[1], "qp"))
		qp_loops(argv[2], n);
	else
		return 2;
	return 0;
}
