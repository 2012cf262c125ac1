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
 *     objects_loops count DEV OP N  N iterations of OP, nothing else that depends on
 *                                   N (no clock, no output in the loop), after the
 *                                   same set-up whatever N and OP: the ops of
 *                                   bench_objects.rs's count mode (bench/hotcalls.sh
 *                                   takes the instructions at two N), through
 *                                   libibverbs: query_qp, modify_qp (the walk), pd,
 *                                   mr, cq, qp, ah, srq (create + destroy), req_notify,
 *                                   post_recv, poll_empty, post_send,
 *                                   post_send_inline, post_send16, poll1, poll16;
 *                                   last line "X short_polls K"
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

#define COUNT_MAX 128

static void post(struct ibv_qp *qp, struct ibv_send_wr *wr, int rxe)
{
	struct ibv_send_wr *bad;
	int r;

	if (!rxe)
		fail("post_send (rxe only: an RC QP on siw sends once the iWARP CM connected it)",
		     EOPNOTSUPP);
	if ((r = ibv_post_send(qp, wr, &bad)))
		fail("ibv_post_send", r);
}

/* The completions of the sends, each poll asking for PER; the polls that found fewer
 * (the device not done yet) are counted apart, each followed by 10 ms. */
static int reap(struct ibv_cq *cq, int n, int per)
{
	struct ibv_wc wc[16];
	struct timespec wait = { 0, 200000000 }, more = { 0, 10000000 };
	int got = 0, want = n * per, k, i, shorts = 0;

	nanosleep(&wait, NULL);
	while (got < want) {
		k = ibv_poll_cq(cq, per, wc);
		if (k < 0)
			fail("ibv_poll_cq", EIO);
		for (i = 0; i < k; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				fail("a completion with an error", EIO);
		got += k;
		if (k < per) {
			shorts++;
			nanosleep(&more, NULL);
		}
	}
	return shorts;
}

static void count(const char *dev, const char *op, int n)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp, *dqp;
	struct ibv_cq *dcq;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr in;
	struct ibv_ah_attr ah;
	struct ibv_srq_init_attr si;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_send_wr one, inl, sixteen[16];
	struct ibv_recv_wr recv, *rbad;
	struct ibv_wc wc;
	struct timespec wait = { 0, 200000000 };
	union ibv_gid gid;
	static char data[64];
	void *buf, *dbuf;
	int rxe = !strncmp(dev, "rxe", 3), i, r, shorts = 0, depth = 16 * COUNT_MAX;

	if (n > COUNT_MAX)
		fail("N past COUNT_MAX", EINVAL);
	if (!pd || !cq)
		fail("setup", errno);
	qp = rc_qp(pd, cq);
	if (ibv_query_gid(ctx, 1, 1, &gid))
		memset(&gid, 0, sizeof(gid));
	walk(qp, &gid, rxe, 1);
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	ah.grh.dgid = gid;
	ah.grh.sgid_index = 1;
	ah.grh.hop_limit = 64;
	ah.port_num = 1;
	memset(&si, 0, sizeof(si));
	si.attr.max_wr = 16;
	si.attr.max_sge = 1;
	if (posix_memalign(&buf, 4096, 4096) || posix_memalign(&dbuf, 4096, 4096))
		fail("posix_memalign", ENOMEM);
	/* The data path: a QP of its own with queues as deep as the largest N needs, in
	 * RTS looped back to itself on rxe (INIT on siw), its CQ, and one MR. */
	dcq = ibv_create_cq(ctx, depth + 1, NULL, NULL, 0);
	if (!dcq)
		fail("ibv_create_cq", errno);
	memset(&in, 0, sizeof(in));
	in.send_cq = dcq;
	in.recv_cq = dcq;
	in.qp_type = IBV_QPT_RC;
	in.cap.max_send_wr = depth;
	in.cap.max_recv_wr = COUNT_MAX;
	in.cap.max_send_sge = 1;
	in.cap.max_recv_sge = 1;
	in.cap.max_inline_data = 64;
	dqp = ibv_create_qp(pd, &in);
	if (!dqp)
		fail("ibv_create_qp", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if ((r = ibv_modify_qp(dqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			       IBV_QP_ACCESS_FLAGS)))
		fail("modify INIT", r);
	if (rxe) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dqp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr = ah;
		if ((r = ibv_modify_qp(dqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
			fail("modify RTR", r);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		if ((r = ibv_modify_qp(dqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC)))
			fail("modify RTS", r);
	}
	mr = ibv_reg_mr(pd, dbuf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		fail("ibv_reg_mr", errno);
	sge.addr = (uintptr_t)dbuf;
	sge.length = 64;
	sge.lkey = mr->lkey;
	memset(&one, 0, sizeof(one));
	one.wr_id = 1;
	one.sg_list = &sge;
	one.num_sge = 1;
	one.opcode = IBV_WR_RDMA_WRITE;
	one.send_flags = IBV_SEND_SIGNALED;
	one.wr.rdma.remote_addr = (uintptr_t)dbuf + 2048;
	one.wr.rdma.rkey = mr->rkey;
	memset(data, 0x5a, sizeof(data));
	struct ibv_sge isge = { .addr = (uintptr_t)data, .length = sizeof(data) };
	inl = one;
	inl.sg_list = &isge;
	inl.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	for (i = 0; i < 16; i++) {
		sixteen[i] = one;
		sixteen[i].wr_id = i;
		sixteen[i].next = i < 15 ? &sixteen[i + 1] : NULL;
	}
	memset(&recv, 0, sizeof(recv));
	recv.wr_id = 7;
	recv.sg_list = &sge;
	recv.num_sge = 1;

	if (!strcmp(op, "query_qp")) {
		for (i = 0; i < n; i++)
			if ((r = ibv_query_qp(qp, &a, (1 << 21) - 1, &in)))
				fail("ibv_query_qp", r);
	} else if (!strcmp(op, "modify_qp")) {
		for (i = 0; i < n; i++)
			walk(qp, &gid, rxe, 1);
	} else if (!strcmp(op, "pd")) {
		for (i = 0; i < n; i++) {
			struct ibv_pd *p = ibv_alloc_pd(ctx);

			if (!p || ibv_dealloc_pd(p))
				fail("pd", errno);
		}
	} else if (!strcmp(op, "cq")) {
		for (i = 0; i < n; i++) {
			struct ibv_cq *c = ibv_create_cq(ctx, 16, NULL, NULL, 0);

			if (!c || ibv_destroy_cq(c))
				fail("cq", errno);
		}
	} else if (!strcmp(op, "qp")) {
		for (i = 0; i < n; i++)
			if (ibv_destroy_qp(rc_qp(pd, cq)))
				fail("qp", errno);
	} else if (!strcmp(op, "mr")) {
		for (i = 0; i < n; i++) {
			struct ibv_mr *m = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);

			if (!m || ibv_dereg_mr(m))
				fail("mr", errno);
		}
	} else if (!strcmp(op, "ah")) {
		for (i = 0; i < n; i++) {
			struct ibv_ah *h = ibv_create_ah(pd, &ah);

			if (!h || ibv_destroy_ah(h))
				fail("ah", errno);
		}
	} else if (!strcmp(op, "srq")) {
		for (i = 0; i < n; i++) {
			struct ibv_srq *q = ibv_create_srq(pd, &si);

			if (!q || ibv_destroy_srq(q))
				fail("srq", errno);
		}
	} else if (!strcmp(op, "req_notify")) {
		for (i = 0; i < n; i++)
			if ((r = ibv_req_notify_cq(cq, 0)))
				fail("ibv_req_notify_cq", r);
	} else if (!strcmp(op, "post_recv")) {
		for (i = 0; i < n; i++)
			if ((r = ibv_post_recv(dqp, &recv, &rbad)))
				fail("ibv_post_recv", r);
	} else if (!strcmp(op, "poll_empty")) {
		for (i = 0; i < n; i++)
			if (ibv_poll_cq(cq, 1, &wc))
				fail("ibv_poll_cq (an entry in a CQ nothing completed into)", EIO);
	} else if (!strcmp(op, "post_send")) {
		for (i = 0; i < n; i++)
			post(dqp, &one, rxe);
	} else if (!strcmp(op, "post_send_inline")) {
		for (i = 0; i < n; i++)
			post(dqp, &inl, rxe);
	} else if (!strcmp(op, "post_send16")) {
		for (i = 0; i < n; i++)
			post(dqp, sixteen, rxe);
	} else if (!strcmp(op, "poll1")) {
		for (i = 0; i < n; i++)
			post(dqp, &one, rxe);
		shorts = reap(dcq, n, 1);
	} else if (!strcmp(op, "poll16")) {
		for (i = 0; i < n; i++)
			post(dqp, sixteen, rxe);
		shorts = reap(dcq, n, 16);
	} else {
		fail(op, EINVAL);
	}
	if (!strncmp(op, "post_send", 9))
		nanosleep(&wait, NULL); /* the polls' wait, so that they differ by the polls */
	printf("X short_polls %d\n", shorts);
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 2000;

	if (argc == 5 && !strcmp(argv[1], "count")) {
		count(argv[2], argv[3], atoi(argv[4]));
		return 0;
	}

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
