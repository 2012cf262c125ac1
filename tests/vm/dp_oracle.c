/*
 * dp_oracle - what libibverbs (rdma-core 44, the rxe provider) gets for the data-path
 * cases of tests/datapath, as key=value lines: every opcode of each QP type,
 * signaled and not, inline sizes, and the fault cases.
 *
 * Test tooling only, never part of the crate.  Built on the host against Debian
 * bookworm's libibverbs-dev and librdmacm-dev and run inside the test VM beside the
 * tests:
 *
 *     gcc -O2 -Wall -o dp_oracle dp_oracle.c -libverbs -lrdmacm
 *     dp_oracle rxe0 CASE
 *     DP_ORACLE_CM=169.254.129.1:7400 dp_oracle siw0 CASE
 *
 * The contract with tests/datapath/oracle.rs, which runs each case with uverbs and
 * prints the same keys:
 *
 * Every case: on DEVICE, port 1, a PD; QP "a" sends, QP "b" receives, each with its own
 * CQ of 64 entries (cqoverrun: b's CQ has 4); a and b are connected to each other
 * through GID 1 of port 1 as ibv_rc_pingpong connects (RC, UC: INIT with every access
 * right, RTR path_mtu 1024 / psn 0 / max_dest_rd_atomic 1 / min_rnr_timer 12, RTS
 * timeout 14 / retry_cnt 7 / rnr_retry 7 (rnr: 0) / psn 0 / max_rd_atomic 1; UD: qkey
 * 0x11111111, RTR, RTS, an AH to GID 1 with hop_limit 64).  Caps: 16 WRs each way (full:
 * 8), 2 SGEs each way, 64 inline bytes.  Memory: "src" (4096 bytes, byte i = i % 251)
 * and "dst" (4096 zeros, or UD: 4096 + 40), every access right (rkey: dst without
 * REMOTE_WRITE).  A completion is printed as K.status, K.opcode, K.byte_len,
 * K.wc_flags, K.imm (host order); "none" when no completion came within 2 s.
 *
 * iWARP (siw), whose QPs reach RTS only through the iWARP CM: with DP_ORACLE_CM set to
 * ADDR:PORT (the device's own IPv4 address), a and b are connected by librdmacm
 * instead (RC only): a listening id bound to ADDR:PORT; a's id resolves it (2 s), its
 * QP made by rdma_create_qp on that id (INIT) and connected with one read each way,
 * retry_count 7, rnr_retry_count as above; b's QP made on the request's id and
 * accepted with the same parameters; then both ESTABLISHED.  The context is
 * librdmacm's for the device, the same caps, CQs and memory.  Every case but state
 * and matrix (their transitions are the CM's on iWARP).  Where siw works asynchronously
 * (its connection is a TCP socket, torn down and answered by kernel threads), a case
 * waits for it to settle so that the answer does not depend on timing:
 *   flush            b posts its receive before the moves to ERR, and a posts its send
 *                    after the two DISCONNECTED events; 0.5 s for each completion.
 *                    siw flushes a user-mapped queue only in a state change (b's move,
 *                    or the peer-close work that tears b's connection down), never at
 *                    a post in ERR: a receive posted after the events was flushed only
 *                    when that work happened to run after it, which the events do not
 *                    order (it raises DISCONNECTED first).  Posted before, the receive
 *                    is flushed by the time b's move returns; a's send, posted once a's
 *                    own move has closed its connection, is never completed;
 *   rkey             rkey.b_state once b is in ERR (the terminate message processed),
 *                    at most 2 s (siw on Linux 6.1 answers RESET for every state: no
 *                    wait then);
 *   full             a and b moved to ERR and the two DISCONNECTED events before
 *                    filling the queues: siw has no RNR wait, so a send that meets no
 *                    receive drops the connection, and a QP being torn down refuses the
 *                    doorbell (ENOTCONN) if it comes while siw holds the QP's state
 *                    lock, so filling in RTS ended in ENOTCONN or the queue's own error
 *                    depending on timing (uverbs 107 once in 60 runs).  In ERR nothing
 *                    takes a request off the mapped queues: each fills to capacity;
 *   cqoverrun        b posts 5 receives and a sends 5 (4 fill b's CQ, the 5th
 *                    overruns it): with 16 each, siw's teardown flushed the receives
 *                    left into whatever room the CQ had then, so a poll that ran
 *                    before it found more (libibverbs 5 or 8 in 4 of 30 runs on 6.12,
 *                    uverbs 8 once); with none left there is nothing to flush.
 *                    cqoverrun.b_state as rkey.b_state (libibverbs read RTS right
 *                    after the event in 2 of 60 runs on 6.12, uverbs ERR).
 *
 *   matrix rc|uc|ud  for each opcode of the type and sig in 0, 1: b posts a receive of
 *                    dst (opcodes that consume one); a posts OP of src[0..100] (atomics:
 *                    remote dst+8, local src+64 as the 8-byte result, compare 0 swap
 *                    0x1122 / add 5), then a signaled marker (RC/UC: a 0-byte RDMA
 *                    write to dst; UD: a send, with a receive posted).  Keys:
 *                    OP.SIG.send.n (a's completions before the marker), OP.SIG.send.*
 *                    (the first), OP.SIG.recv.* (b's), OP.SIG.data (1 when dst[0..100]
 *                    (UD: past the GRH) equals src[0..100]; RDMA read: src+2048 from
 *                    dst), atomics: OP.SIG.old (the result), OP.SIG.new (dst+8).
 *                    Before each opcode dst is cleared.
 *   inline           RC; cap.max_inline_data (as granted), then for L in 0, 1, max,
 *                    max+1: inline.L.post (0 or the errno of ibv_post_send), and when
 *                    posted, inline.L.send.*, inline.L.recv.*, inline.L.data.
 *   state            ibv_post_send of one send in RESET, INIT and RTR: state.S.send
 *                    (errno); ibv_post_recv in RESET: state.reset.recv; then RTS and
 *                    one more send: state.rts.send.n (a's completions in 1 s).
 *   flush            a and b in ERR (modify), a posts a signaled send, b a receive
 *                    (on siw before the moves, see above): flush.send.*, flush.recv.*.
 *   rkey             RC RDMA write into dst, registered without REMOTE_WRITE:
 *                    rkey.send.*, rkey.b_state (ibv_query_qp after the completion).
 *   sge              a sends with an SGE one byte past the end of its MR (src
 *                    registered as 4096 bytes, SGE at offset 4000, 200 bytes):
 *                    sge.send.*.
 *   shortrecv        b posts a receive of 10 bytes, a sends 100: shortrecv.send.*,
 *                    shortrecv.recv.*.
 *   rnr              a's rnr_retry 0, b posts nothing, a sends: rnr.send.*.
 *   full             caps of 8 WRs; b posts nothing and a's rnr_retry is 7 (infinite),
 *                    so the first send waits (siw: both in ERR first, see above): a
 *                    posts sends one by one until one fails:
 *                    full.sq (how many were taken), full.sq.err; b posts receives until
 *                    one fails: full.rq, full.rq.err; an SRQ of 8 WRs: full.srq,
 *                    full.srq.err.
 *   cqoverrun        b's CQ of 4 entries (cq.cqe as granted), b posts 16 receives, a
 *                    sends 16 unsignaled (siw: 5 each, see above): cqoverrun.event
 *                    (the first async event type within 2 s, -1 for none),
 *                    cqoverrun.b_state, cqoverrun.polled
 *                    (completions on b's CQ).
 *
 * On error: one line on stderr naming the call and errno, exit 1.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static void fail(const char *call, int err)
{
	fprintf(stderr, "dp_oracle: %s failed: errno %d (%s)\n", call, err, strerror(err));
	exit(1);
}

#define CHECK(call) do { int _r = (call); if (_r) fail(#call, _r < 0 ? errno : _r); } while (0)
#define NN(p, call) do { if (!(p)) fail(call, errno); } while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cqa, *cqb;
static struct ibv_qp *qa, *qb;
static struct ibv_ah *ah;
static struct ibv_mr *msrc, *mdst;
static unsigned char *src, *dst;
static union ibv_gid gid;
static enum ibv_qp_type qtype;
static const char *cm_at;	/* DP_ORACLE_CM */
static struct rdma_event_channel *ech;
static struct rdma_cm_id *lid, *cid, *sid;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* One completion of cq within `secs` seconds; 0 when none came. */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double t0 = now();

	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			fail("ibv_poll_cq", -n);
		if (n == 1)
			return 1;
	} while (now() - t0 < secs);
	return 0;
}

static void print_wc(const char *k, const struct ibv_wc *wc, int got)
{
	if (!got) {
		printf("%s=none\n", k);
		return;
	}
	printf("%s.status=%d\n%s.opcode=%d\n%s.byte_len=%u\n%s.wc_flags=%u\n%s.imm=%u\n", k,
	       wc->status, k, wc->opcode, k, wc->byte_len, k, wc->wc_flags, k,
	       (wc->wc_flags & IBV_WC_WITH_IMM) ? be32toh(wc->imm_data) : 0);
}

static struct ibv_qp *make_qp(struct ibv_cq *cq, struct ibv_srq *srq, int depth)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = qtype,
		.cap = { .max_send_wr = depth, .max_recv_wr = srq ? 0 : depth,
			 .max_send_sge = 2, .max_recv_sge = 2, .max_inline_data = 64 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	NN(qp, "ibv_create_qp");
	return qp;
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qtype == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
}

static void to_rtr(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;

	if (qtype != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.rq_psn = 0;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = 1;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (qtype == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
}

static void to_rts(struct ibv_qp *qp, int rnr_retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = 0 };
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qtype == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
}

static void to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	CHECK(ibv_query_qp(qp, &a, IBV_QP_STATE, &i));
	return a.qp_state;
}

/* The next CM event, which must be `want`; acknowledged unless it is a request (its id
 * is kept in sid). */
static void cm_event(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *e;

	CHECK(rdma_get_cm_event(ech, &e));
	if (e->event != want) {
		fprintf(stderr, "dp_oracle: CM event %s (status %d) where %s was awaited\n",
			rdma_event_str(e->event), e->status, rdma_event_str(want));
		exit(1);
	}
	if (want == RDMA_CM_EVENT_CONNECT_REQUEST)
		sid = e->id;
	CHECK(rdma_ack_cm_event(e));
}

static struct sockaddr_in cm_addr(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(cm_at, ':');

	if (!colon || colon - cm_at >= (long)sizeof(host)) {
		fprintf(stderr, "dp_oracle: DP_ORACLE_CM=%s is not ADDR:PORT\n", cm_at);
		exit(2);
	}
	memcpy(host, cm_at, colon - cm_at);
	host[colon - cm_at] = 0;
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "dp_oracle: DP_ORACLE_CM=%s is not ADDR:PORT\n", cm_at);
		exit(2);
	}
	a.sin_port = htons(atoi(colon + 1));
	return a;
}

/* The listener and a's resolved id; the context becomes librdmacm's. */
static void cm_resolve(void)
{
	struct sockaddr_in a = cm_addr();

	NN(ech = rdma_create_event_channel(), "rdma_create_event_channel");
	CHECK(rdma_create_id(ech, &lid, NULL, RDMA_PS_TCP));
	CHECK(rdma_bind_addr(lid, (struct sockaddr *)&a));
	CHECK(rdma_listen(lid, 1));
	CHECK(rdma_create_id(ech, &cid, NULL, RDMA_PS_TCP));
	CHECK(rdma_resolve_addr(cid, NULL, (struct sockaddr *)&a, 2000));
	cm_event(RDMA_CM_EVENT_ADDR_RESOLVED);
	CHECK(rdma_resolve_route(cid, 2000));
	cm_event(RDMA_CM_EVENT_ROUTE_RESOLVED);
	ctx = cid->verbs;
}

static struct ibv_qp *cm_qp(struct rdma_cm_id *id, struct ibv_cq *cq, int depth)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 2, .max_recv_sge = 2, .max_inline_data = 64 },
	};

	CHECK(rdma_create_qp(id, pd, &a));
	return id->qp;
}

/* a and b connected by the CM (a: the active side). */
static void cm_connect(int depth, int rnr_retry)
{
	struct rdma_conn_param c = { .responder_resources = 1, .initiator_depth = 1,
				     .retry_count = 7, .rnr_retry_count = rnr_retry };

	qa = cm_qp(cid, cqa, depth);
	CHECK(rdma_connect(cid, &c));
	cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	qb = cm_qp(sid, cqb, depth);
	CHECK(rdma_accept(sid, &c));
	cm_event(RDMA_CM_EVENT_ESTABLISHED);
	cm_event(RDMA_CM_EVENT_ESTABLISHED);
}

/* Everything of a case: PD, CQs (b's of cqb_size), memory, a and b (connected unless
 * connect is 0), a's rnr_retry. */
static void setup(enum ibv_qp_type t, int cqb_size, int depth, int dst_access, int connect,
		  int rnr_retry)
{
	int i;

	qtype = t;
	if (cm_at)
		cm_resolve();
	NN(pd = ibv_alloc_pd(ctx), "ibv_alloc_pd");
	NN(cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0), "ibv_create_cq");
	NN(cqb = ibv_create_cq(ctx, cqb_size, NULL, NULL, 0), "ibv_create_cq");
	src = aligned_alloc(4096, 8192);
	dst = aligned_alloc(4096, 8192);
	NN(src && dst, "aligned_alloc");
	for (i = 0; i < 8192; i++)
		src[i] = i % 251;
	memset(dst, 0, 8192);
	NN(msrc = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC), "ibv_reg_mr");
	NN(mdst = ibv_reg_mr(pd, dst, t == IBV_QPT_UD ? 4096 + 40 : 4096, dst_access), "ibv_reg_mr");
	if (cm_at) {
		cm_connect(depth, rnr_retry);
		return;
	}
	CHECK(ibv_query_gid(ctx, 1, 1, &gid));
	qa = make_qp(cqa, NULL, depth);
	qb = make_qp(cqb, NULL, depth);
	if (!connect)
		return;
	to_init(qa);
	to_init(qb);
	to_rtr(qa, qb->qp_num);
	to_rtr(qb, qa->qp_num);
	to_rts(qa, rnr_retry);
	to_rts(qb, 7);
	if (t == IBV_QPT_UD) {
		struct ibv_ah_attr h = { .is_global = 1, .port_num = 1 };

		h.grh.dgid = gid;
		h.grh.sgid_index = 1;
		h.grh.hop_limit = 64;
		NN(ah = ibv_create_ah(pd, &h), "ibv_create_ah");
	}
}

#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint64_t id, void *addr,
		     uint32_t len, uint32_t lkey)
{
	struct ibv_sge s = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 }, *bad;

	return srq ? ibv_post_srq_recv(srq, &w, &bad) : ibv_post_recv(qp, &w, &bad);
}

/* a posts OP (or the marker when op < 0) */
static int post(int op, int sig, uint64_t id, void *addr, uint32_t len, uint32_t lkey,
		int inl)
{
	struct ibv_sge s = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 }, *bad;

	w.send_flags = (sig ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0);
	w.opcode = op;
	w.imm_data = htobe32(0x01020304);
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w.wr.rdma.remote_addr = (uintptr_t)dst;
		w.wr.rdma.rkey = mdst->rkey;
		break;
	case IBV_WR_RDMA_READ:
		w.wr.rdma.remote_addr = (uintptr_t)dst;
		w.wr.rdma.rkey = mdst->rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		w.wr.atomic.remote_addr = (uintptr_t)dst + 8;
		w.wr.atomic.rkey = mdst->rkey;
		w.wr.atomic.compare_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ? 0 : 5;
		w.wr.atomic.swap = 0x1122;
		break;
	}
	if (qtype == IBV_QPT_UD) {
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = qb->qp_num;
		w.wr.ud.remote_qkey = 0x11111111;
	}
	return ibv_post_send(qa, &w, &bad);
}

static const char *op_name(int op)
{
	switch (op) {
	case IBV_WR_SEND: return "send";
	case IBV_WR_SEND_WITH_IMM: return "send_imm";
	case IBV_WR_RDMA_WRITE: return "write";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "write_imm";
	case IBV_WR_RDMA_READ: return "read";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "cmp_swap";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "fetch_add";
	}
	return "?";
}

static int takes_recv(int op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static void matrix(enum ibv_qp_type t)
{
	static const int rc[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
				  IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
				  IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD, -1 };
	static const int uc[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
				  IBV_WR_RDMA_WRITE_WITH_IMM, -1 };
	static const int ud[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, -1 };
	const int *ops = t == IBV_QPT_RC ? rc : t == IBV_QPT_UC ? uc : ud;
	int g = t == IBV_QPT_UD ? 40 : 0;
	int i, sig;

	setup(t, 64, 16, ALL_ACCESS, 1, 7);
	for (i = 0; ops[i] >= 0; i++) {
		for (sig = 0; sig < 2; sig++) {
			int op = ops[i], n = 0, got;
			struct ibv_wc wc, first;
			char k[64];

			memset(dst, 0, 8192);
			if (takes_recv(op))
				CHECK(post_recv(qb, NULL, 7, dst, 4096 + g, mdst->lkey));
			if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				uint64_t v = op == IBV_WR_ATOMIC_CMP_AND_SWP ? 0 : 40;

				memcpy(dst + 8, &v, 8);
				memset(src + 64, 0xee, 8);
				CHECK(post(op, sig, 1, src + 64, 8, msrc->lkey, 0));
			} else if (op == IBV_WR_RDMA_READ) {
				memcpy(dst, src, 100);
				memset(src + 2048, 0, 100);
				CHECK(post(op, sig, 1, src + 2048, 100, msrc->lkey, 0));
			} else {
				CHECK(post(op, sig, 1, src, 100, msrc->lkey, 0));
			}
			/* the marker */
			if (t == IBV_QPT_UD) {
				CHECK(post_recv(qb, NULL, 8, dst + 4096 - 200, 100 + g, mdst->lkey));
				CHECK(post(IBV_WR_SEND, 1, 99, src, 1, msrc->lkey, 0));
			} else {
				CHECK(post(IBV_WR_RDMA_WRITE, 1, 99, src, 0, msrc->lkey, 0));
			}
			while ((got = poll1(cqa, &wc, 2)) && wc.wr_id != 99)
				if (n++ == 0)
					first = wc;
			snprintf(k, sizeof(k), "%s.%d.send.n", op_name(op), sig);
			printf("%s=%d\n", k, n);
			snprintf(k, sizeof(k), "%s.%d.send", op_name(op), sig);
			print_wc(k, &first, n > 0);
			if (takes_recv(op)) {
				got = poll1(cqb, &wc, 2);
				snprintf(k, sizeof(k), "%s.%d.recv", op_name(op), sig);
				print_wc(k, &wc, got);
			}
			if (t == IBV_QPT_UD)
				poll1(cqb, &wc, 2); /* the marker's receive */
			if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				uint64_t o, v;

				memcpy(&o, src + 64, 8);
				memcpy(&v, dst + 8, 8);
				printf("%s.%d.old=%llu\n%s.%d.new=%llu\n", op_name(op), sig,
				       (unsigned long long)o, op_name(op), sig, (unsigned long long)v);
			} else if (op == IBV_WR_RDMA_READ) {
				printf("%s.%d.data=%d\n", op_name(op), sig, !memcmp(src + 2048, src, 100));
			} else {
				printf("%s.%d.data=%d\n", op_name(op), sig, !memcmp(dst + g, src, 100));
			}
		}
	}
}

static void inline_case(void)
{
	struct ibv_qp_attr qa_attr;
	struct ibv_qp_init_attr init;
	uint32_t max, lens[4];
	int i;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 1, 7);
	CHECK(ibv_query_qp(qa, &qa_attr, IBV_QP_CAP, &init));
	max = init.cap.max_inline_data;
	printf("cap.max_inline_data=%u\n", max);
	lens[0] = 0; lens[1] = 1; lens[2] = max; lens[3] = max + 1;
	for (i = 0; i < 4; i++) {
		struct ibv_wc wc;
		char k[64];
		int r, got;

		memset(dst, 0, 8192);
		CHECK(post_recv(qb, NULL, 7, dst, 4096, mdst->lkey));
		r = post(IBV_WR_SEND, 1, 1, src, lens[i], msrc->lkey, 1);
		printf("inline.%u.post=%d\n", lens[i], r);
		if (r) {
			/* take the receive back out of the way */
			to_state(qb, IBV_QPS_ERR);
			poll1(cqb, &wc, 2);
			continue;
		}
		got = poll1(cqa, &wc, 2);
		snprintf(k, sizeof(k), "inline.%u.send", lens[i]);
		print_wc(k, &wc, got);
		got = poll1(cqb, &wc, 2);
		snprintf(k, sizeof(k), "inline.%u.recv", lens[i]);
		print_wc(k, &wc, got);
		printf("inline.%u.data=%d\n", lens[i], !memcmp(dst, src, lens[i]));
	}
}

static void state_case(void)
{
	struct ibv_wc wc;
	int n = 0;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 0, 7);
	printf("state.reset.send=%d\n", post(IBV_WR_SEND, 1, 1, src, 10, msrc->lkey, 0));
	printf("state.reset.recv=%d\n", post_recv(qa, NULL, 2, dst, 10, mdst->lkey));
	to_init(qa);
	to_init(qb);
	printf("state.init.send=%d\n", post(IBV_WR_SEND, 1, 1, src, 10, msrc->lkey, 0));
	to_rtr(qa, qb->qp_num);
	to_rtr(qb, qa->qp_num);
	printf("state.rtr.send=%d\n", post(IBV_WR_SEND, 1, 1, src, 10, msrc->lkey, 0));
	to_rts(qa, 7);
	to_rts(qb, 7);
	CHECK(post_recv(qb, NULL, 3, dst, 4096, mdst->lkey));
	CHECK(post_recv(qb, NULL, 3, dst, 4096, mdst->lkey));
	CHECK(post_recv(qb, NULL, 3, dst, 4096, mdst->lkey));
	CHECK(post_recv(qb, NULL, 3, dst, 4096, mdst->lkey));
	CHECK(post(IBV_WR_SEND, 1, 4, src, 10, msrc->lkey, 0));
	while (poll1(cqa, &wc, 1))
		n++;
	printf("state.rts.send.n=%d\n", n);
}

/* a and b to ERR; on siw, then the two DISCONNECTED events (the connection is gone). */
static void both_to_err(void)
{
	to_state(qa, IBV_QPS_ERR);
	to_state(qb, IBV_QPS_ERR);
	if (cm_at) {
		cm_event(RDMA_CM_EVENT_DISCONNECTED);
		cm_event(RDMA_CM_EVENT_DISCONNECTED);
	}
}

static void flush_case(void)
{
	struct ibv_wc wc;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 1, 7);
	if (cm_at) /* siw: see the header */
		CHECK(post_recv(qb, NULL, 2, dst, 100, mdst->lkey));
	both_to_err();
	CHECK(post(IBV_WR_SEND, 1, 1, src, 10, msrc->lkey, 0));
	if (!cm_at)
		CHECK(post_recv(qb, NULL, 2, dst, 100, mdst->lkey));
	to_state(qb, IBV_QPS_ERR); /* the responder runs again: the receive is flushed */
	print_wc("flush.send", &wc, poll1(cqa, &wc, cm_at ? 0.5 : 2));
	print_wc("flush.recv", &wc, poll1(cqb, &wc, cm_at ? 0.5 : 2));
}

/* b's state; on siw once b is in ERR (see rkey in the header). */
static int b_state_settled(void)
{
	double t0 = now();
	int st = qp_state(qb);

	while (cm_at && st != IBV_QPS_ERR && st != IBV_QPS_RESET && now() - t0 < 2)
		st = qp_state(qb);
	return st;
}

static void rkey_case(void)
{
	struct ibv_wc wc;

	setup(IBV_QPT_RC, 64, 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 1, 7);
	CHECK(post(IBV_WR_RDMA_WRITE, 1, 1, src, 100, msrc->lkey, 0));
	print_wc("rkey.send", &wc, poll1(cqa, &wc, 2));
	printf("rkey.b_state=%d\n", b_state_settled());
}

static void sge_case(void)
{
	struct ibv_wc wc;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 1, 7);
	CHECK(post_recv(qb, NULL, 2, dst, 4096, mdst->lkey));
	CHECK(post(IBV_WR_SEND, 1, 1, src + 4000, 200, msrc->lkey, 0));
	print_wc("sge.send", &wc, poll1(cqa, &wc, 2));
}

static void shortrecv_case(void)
{
	struct ibv_wc wc;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 1, 7);
	CHECK(post_recv(qb, NULL, 2, dst, 10, mdst->lkey));
	CHECK(post(IBV_WR_SEND, 1, 1, src, 100, msrc->lkey, 0));
	print_wc("shortrecv.send", &wc, poll1(cqa, &wc, 2));
	print_wc("shortrecv.recv", &wc, poll1(cqb, &wc, 2));
}

static void rnr_case(void)
{
	struct ibv_wc wc;

	setup(IBV_QPT_RC, 64, 16, ALL_ACCESS, 1, 0);
	CHECK(post(IBV_WR_SEND, 1, 1, src, 100, msrc->lkey, 0));
	print_wc("rnr.send", &wc, poll1(cqa, &wc, 5));
}

static void full_case(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq;
	int n, r;

	setup(IBV_QPT_RC, 64, 8, ALL_ACCESS, 1, 7);
	if (cm_at) /* siw: see the header */
		both_to_err();
	for (n = 0; (r = post(IBV_WR_SEND, 0, 1, src, 10, msrc->lkey, 0)) == 0 && n < 1000; n++)
		;
	printf("full.sq=%d\nfull.sq.err=%d\n", n, r);
	/* a's receive queue: nothing arrives at a, while b's would take a send that an RNR
	 * retry brings during the fill (one more slot: seen once) */
	for (n = 0; (r = post_recv(qa, NULL, 2, dst, 10, mdst->lkey)) == 0 && n < 1000; n++)
		;
	printf("full.rq=%d\nfull.rq.err=%d\n", n, r);
	NN(srq = ibv_create_srq(pd, &sa), "ibv_create_srq");
	for (n = 0; (r = post_recv(NULL, srq, 2, dst, 10, mdst->lkey)) == 0 && n < 1000; n++)
		;
	printf("full.srq=%d\nfull.srq.err=%d\n", n, r);
}

static void cqoverrun_case(void)
{
	struct ibv_async_event ev;
	struct pollfd p;
	struct ibv_wc wc;
	int i, n = 0, type = -1, count = cm_at ? 5 : 16; /* siw: see the header */

	setup(IBV_QPT_RC, 4, 16, ALL_ACCESS, 1, 7);
	printf("cq.cqe=%d\n", cqb->cqe);
	for (i = 0; i < count; i++)
		CHECK(post_recv(qb, NULL, 2, dst, 100, mdst->lkey));
	for (i = 0; i < count; i++)
		CHECK(post(IBV_WR_SEND, 0, 1, src, 10, msrc->lkey, 0));
	p.fd = ctx->async_fd;
	p.events = POLLIN;
	if (poll(&p, 1, 2000) == 1 && ibv_get_async_event(ctx, &ev) == 0) {
		type = ev.event_type;
		ibv_ack_async_event(&ev);
	}
	printf("cqoverrun.event=%d\n", type);
	printf("cqoverrun.b_state=%d\n", b_state_settled());
	while (poll1(cqb, &wc, 0.5))
		n++;
	printf("cqoverrun.polled=%d\n", n);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: dp_oracle DEVICE CASE [rc|uc|ud]\n");
		return 2;
	}
	NN(list = ibv_get_device_list(NULL), "ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			break;
	if (!list[i]) {
		fprintf(stderr, "dp_oracle: no device %s\n", argv[1]);
		return 1;
	}
	NN(ctx = ibv_open_device(list[i]), "ibv_open_device");
	cm_at = getenv("DP_ORACLE_CM");
	if (cm_at && (!strcmp(argv[2], "matrix") || !strcmp(argv[2], "state"))) {
		fprintf(stderr, "dp_oracle: %s is not a case of the CM (DP_ORACLE_CM)\n", argv[2]);
		return 2;
	}
	if (!strcmp(argv[2], "matrix") && argc > 3)
		matrix(!strcmp(argv[3], "rc") ? IBV_QPT_RC :
		       !strcmp(argv[3], "uc") ? IBV_QPT_UC : IBV_QPT_UD);
	else if (!strcmp(argv[2], "inline"))
		inline_case();
	else if (!strcmp(argv[2], "state"))
		state_case();
	else if (!strcmp(argv[2], "flush"))
		flush_case();
	else if (!strcmp(argv[2], "rkey"))
		rkey_case();
	else if (!strcmp(argv[2], "sge"))
		sge_case();
	else if (!strcmp(argv[2], "shortrecv"))
		shortrecv_case();
	else if (!strcmp(argv[2], "rnr"))
		rnr_case();
	else if (!strcmp(argv[2], "full"))
		full_case();
	else if (!strcmp(argv[2], "cqoverrun"))
		cqoverrun_case();
	else {
		fprintf(stderr, "dp_oracle: unknown case %s\n", argv[2]);
		return 2;
	}
	fflush(stdout);
	/* objects are left to the process's exit (the kernel frees them with the context) */
	return 0;
}
