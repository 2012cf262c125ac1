/*
 * qp_oracle - what libibverbs' ibv_query_qp says about a queue pair walked through
 * its states, as key=value lines.
 *
 * Test tooling only, never part of the crate.  Built on the host against Debian
 * bookworm's libibverbs-dev (rdma-core 44) and run inside the test VM:
 *
 *     gcc -O2 -Wall -o qp_oracle qp_oracle.c -libverbs
 *     qp_oracle rxe0 rc|uc|ud SGID_INDEX
 *
 * tests/objects.rs walks a QP of the same configuration through the same steps with
 * uverbs and prints the same keys; the two are compared line by line.  The walk (the
 * contract with that test):
 *
 *   create  PD; CQ of 16 entries; QP of TYPE, cap 8/8/1/1/0, sq_sig_all 0
 *   reset   (no modify)
 *   init    RC: INIT, pkey_index 0, port 1, access REMOTE_WRITE|REMOTE_READ
 *           UC: INIT, pkey_index 0, port 1, access REMOTE_WRITE
 *           UD: INIT, pkey_index 0, port 1, qkey 0x11111111
 *   rtr     RC: RTR, path_mtu 1024, dest_qp_num = its own QP number, rq_psn 0x123,
 *               max_dest_rd_atomic 1, min_rnr_timer 12, AV: GRH to GID SGID_INDEX of
 *               port 1 (sgid_index SGID_INDEX, hop_limit 64), port 1
 *           UC: as RC without max_dest_rd_atomic and min_rnr_timer
 *           UD: RTR
 *   rts     RC: RTS, timeout 14, retry_cnt 7, rnr_retry 7, sq_psn 0x456, max_rd_atomic 1
 *           UC, UD: RTS, sq_psn 0x456
 *
 * After each step: STEP.modify=ERRNO when the modify failed (0 when it worked), then
 * every field of ibv_qp_attr and ibv_qp_init_attr from ibv_query_qp with every
 * standard mask bit (0..20).  qp_num=N once at the start.  Objects are printed as
 * whether they are the ones the QP was created with (init.send_cq=created).
 * On error: one line on stderr naming the failing call and errno, exit 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static void fail(const char *call, int err)
{
	fprintf(stderr, "qp_oracle: %s failed: errno %d (%s)\n", call, err, strerror(err));
	exit(1);
}

#define U(step, key, v) printf("%s.%s=%llu\n", step, key, (unsigned long long)(v))

static void print_ah(const char *step, const char *p, const struct ibv_ah_attr *a)
{
	char k[64];
	int i;

	snprintf(k, sizeof(k), "%s.dgid", p);
	printf("%s.%s=", step, k);
	for (i = 0; i < 16; i++)
		printf("%02x", a->grh.dgid.raw[i]);
	printf("\n");
#define AH(f, v) do { snprintf(k, sizeof(k), "%s.%s", p, f); U(step, k, v); } while (0)
	AH("flow_label", a->grh.flow_label);
	AH("sgid_index", a->grh.sgid_index);
	AH("hop_limit", a->grh.hop_limit);
	AH("traffic_class", a->grh.traffic_class);
	AH("dlid", a->dlid);
	AH("sl", a->sl);
	AH("src_path_bits", a->src_path_bits);
	AH("static_rate", a->static_rate);
	AH("is_global", a->is_global);
	AH("port_num", a->port_num);
#undef AH
}

static void print_query(const char *step, struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr in;
	int ret;

	memset(&a, 0, sizeof(a));
	memset(&in, 0, sizeof(in));
	ret = ibv_query_qp(qp, &a, (1 << 21) - 1, &in);
	if (ret)
		fail("ibv_query_qp", ret);
	U(step, "qp_state", a.qp_state);
	U(step, "cur_qp_state", a.cur_qp_state);
	U(step, "path_mtu", a.path_mtu);
	U(step, "path_mig_state", a.path_mig_state);
	U(step, "qkey", a.qkey);
	U(step, "rq_psn", a.rq_psn);
	U(step, "sq_psn", a.sq_psn);
	U(step, "dest_qp_num", a.dest_qp_num);
	U(step, "qp_access_flags", a.qp_access_flags);
	U(step, "cap.max_send_wr", a.cap.max_send_wr);
	U(step, "cap.max_recv_wr", a.cap.max_recv_wr);
	U(step, "cap.max_send_sge", a.cap.max_send_sge);
	U(step, "cap.max_recv_sge", a.cap.max_recv_sge);
	U(step, "cap.max_inline_data", a.cap.max_inline_data);
	print_ah(step, "ah", &a.ah_attr);
	print_ah(step, "alt_ah", &a.alt_ah_attr);
	U(step, "pkey_index", a.pkey_index);
	U(step, "alt_pkey_index", a.alt_pkey_index);
	U(step, "en_sqd_async_notify", a.en_sqd_async_notify);
	U(step, "sq_draining", a.sq_draining);
	U(step, "max_rd_atomic", a.max_rd_atomic);
	U(step, "max_dest_rd_atomic", a.max_dest_rd_atomic);
	U(step, "min_rnr_timer", a.min_rnr_timer);
	U(step, "port_num", a.port_num);
	U(step, "timeout", a.timeout);
	U(step, "retry_cnt", a.retry_cnt);
	U(step, "rnr_retry", a.rnr_retry);
	U(step, "alt_port_num", a.alt_port_num);
	U(step, "alt_timeout", a.alt_timeout);
	U(step, "init.qp_type", in.qp_type);
	printf("%s.init.send_cq=%s\n", step, in.send_cq == cq ? "created" : "other");
	printf("%s.init.recv_cq=%s\n", step, in.recv_cq == cq ? "created" : "other");
	printf("%s.init.srq=%s\n", step, in.srq ? "some" : "none");
	U(step, "init.cap.max_send_wr", in.cap.max_send_wr);
	U(step, "init.cap.max_recv_wr", in.cap.max_recv_wr);
	U(step, "init.cap.max_send_sge", in.cap.max_send_sge);
	U(step, "init.cap.max_recv_sge", in.cap.max_recv_sge);
	U(step, "init.cap.max_inline_data", in.cap.max_inline_data);
	U(step, "init.sq_sig_all", in.sq_sig_all);
}

static void step(const char *name, struct ibv_qp *qp, struct ibv_cq *cq,
		 struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	printf("%s.modify=%d\n", name, ret);
	print_query(name, qp, cq);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	enum ibv_qp_type t;
	int n, i, mask, sgid;

	if (argc != 4) {
		fprintf(stderr, "usage: qp_oracle DEVNAME rc|uc|ud SGID_INDEX\n");
		return 2;
	}
	sgid = atoi(argv[3]);
	if (!strcmp(argv[2], "rc"))
		t = IBV_QPT_RC;
	else if (!strcmp(argv[2], "uc"))
		t = IBV_QPT_UC;
	else if (!strcmp(argv[2], "ud"))
		t = IBV_QPT_UD;
	else {
		fprintf(stderr, "qp_oracle: unknown QP type %s\n", argv[2]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list)
		fail("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("ibv_open_device", errno ? errno : ENODEV);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		fail("ibv_alloc_pd", errno);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		fail("ibv_create_cq", errno);
	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = t;
	init.cap.max_send_wr = 8;
	init.cap.max_recv_wr = 8;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		fail("ibv_create_qp", errno);
	if (ibv_query_gid(ctx, 1, sgid, &gid))
		memset(&gid, 0, sizeof(gid));
	printf("qp_num=%u\n", qp->qp_num);
	print_query("reset", qp, cq);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (t == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    (t == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	step("init", qp, cq, &a, mask);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.rq_psn = 0x123;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = sgid;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (t == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	step("rtr", qp, cq, &a, mask);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x456;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	step("rts", qp, cq, &a, mask);

	if (ibv_destroy_qp(qp))
		fail("ibv_destroy_qp", errno);
	if (ibv_destroy_cq(cq))
		fail("ibv_destroy_cq", errno);
	if (ibv_dealloc_pd(pd))
		fail("ibv_dealloc_pd", errno);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
