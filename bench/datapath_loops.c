/* bench/datapath_loops.c - libibverbs' side of the user-space cost rows of
 * bench/datapath.sh (examples/bench_datapath.rs is uverbs' side; the same loops).
 *
 *   datapath_loops cost DEV N BATCHES
 *     C ibv DEV post_recv NS_PER_CALL   per batch: N ibv_post_recv of one receive (one
 *                                       SGE) into a fresh RC QP in INIT with room for N
 *     C ibv DEV poll_empty NS_PER_CALL  per batch: N ibv_poll_cq(cq, 1, wc) of an empty CQ
 *
 *   datapath_loops watch FILE
 *     reads the counter FILE (sysfs) every millisecond until SIGTERM, then prints
 *     "W SECS PACKETS": the window from the last reading before the counter first
 *     moved to the reading after it last moved, and how much it moved in between
 *     (the rate of a run without its process start and connection setup).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static void die(const char *what)
{
	fprintf(stderr, "datapath_loops: %s failed\n", what);
	exit(1);
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

static long long counter(int fd)
{
	char b[32];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);
	if (n < 0)
		die("read the counter");
	if (n == 0)
		return -1; /* a file being rewritten (not sysfs): the next reading */
	b[n] = 0;
	return atoll(b);
}

static int watch(const char *file)
{
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		die(file);
	signal(SIGTERM, on_term);
	long long c0 = counter(fd), prev = c0, last_c = c0;
	double t_prev = now_ns(), t_first = 0, t_last = 0;
	struct timespec ms = { 0, 1000000 };
	while (!stop) {
		nanosleep(&ms, NULL);
		long long c = counter(fd);
		double t = now_ns();
		if (c < 0)
			continue;
		if (c != prev) {
			if (!t_first)
				t_first = t_prev;
			t_last = t;
			last_c = c;
		}
		prev = c;
		t_prev = t;
	}
	printf("W %.4f %lld\n", t_first ? (t_last - t_first) / 1e9 : 0.0, last_c - c0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "watch"))
		return watch(argv[2]);
	if (argc != 5 || strcmp(argv[1], "cost")) {
		fprintf(stderr, "usage: datapath_loops cost DEV N BATCHES\n");
		return 2;
	}
	const char *dev = argv[2];
	unsigned n = atoi(argv[3]), batches = atoi(argv[4]);
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("open");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("alloc_pd");
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("reg_mr");
	for (unsigned b = 0; b < batches; b++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, n + 1, NULL, NULL, 0);
		if (!cq)
			die("create_cq");
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = n, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);
		if (!qp)
			die("create_qp");
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
					 .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
			die("modify_qp INIT");
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
		double t0 = now_ns();
		for (unsigned i = 0; i < n; i++) {
			wr.wr_id = i;
			if (ibv_post_recv(qp, &wr, &bad))
				die("post_recv");
		}
		printf("C ibv %s post_recv %.1f\n", dev, (now_ns() - t0) / n);
		struct ibv_wc wc;
		int seen = 0;
		t0 = now_ns();
		for (unsigned i = 0; i < n; i++)
			seen += ibv_poll_cq(cq, 1, &wc);
		double ns = (now_ns() - t0) / n;
		if (seen)
			die("poll (an entry in a CQ nothing completed into)");
		printf("C ibv %s poll_empty %.1f\n", dev, ns);
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq))
			die("destroy");
	}
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
