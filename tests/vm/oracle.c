/*
 * oracle - what libibverbs says about one RDMA device, as key=value lines.
 *
 * Test tooling only, never part of the crate.  Built on the host against
 * Debian bookworm's libibverbs-dev (rdma-core 44) and run inside the test VM:
 *
 *     gcc -O2 -Wall -o oracle oracle.c -libverbs
 *     oracle rxe0
 *
 * The output is a contract with the crate's Rust tests, which print the same
 * keys from the crate's own answers and compare line by line (see README.md
 * in this directory).  Order: dev.*, ex.*, ctx.*, port.*, gid.*, pkey.*.
 * On error: one line on stderr naming the failing call and errno, exit 1.
 *
 * Built twice: against Debian's rdma-core 44 (as above), and with
 * -DORACLE_RDMA_CORE=64 against the rdma-core 64.0 the rig builds
 * (tests/vm/rdma-core.sh; run-tests.sh makes /uverbs/oracle-64, linked to
 * /opt/rdma-core-64.0/lib/libibverbs.so.1).  What 44's verbs.h lacks is printed
 * only by the newer build:
 *   - port.N.active_speed_ex (struct ibv_port_attr has it since rdma-core 49),
 *   - port.N.effective_speed: ibv_query_port_speed() (rdma-core 62) in units of
 *     100 Mb/s, or "unsupported" (EOPNOTSUPP, EPROTONOSUPPORT), or "error:ERRNO".
 *     rxe's and siw's providers have no query_port_speed op: libibverbs answers
 *     EOPNOTSUPP for them without asking the kernel.
 * Naming note: ibv_odp_caps keeps the per-transport bits in a nested struct
 * (odp_caps.per_transport_caps.rc_odp_caps); the keys flatten that to
 * ex.odp_caps.rc_odp_caps / uc_odp_caps / ud_odp_caps.
 */
#include <endian.h>
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#ifndef ORACLE_RDMA_CORE
#define ORACLE_RDMA_CORE 44
#endif

static void fail(const char *call, int err)
{
	fprintf(stderr, "oracle: %s failed: errno %d (%s)\n", call, err, strerror(err));
	exit(1);
}

/* printing helpers: every integer in decimal, as unsigned or signed as the field */
#define U(key, v) printf("%s=%llu\n", key, (unsigned long long)(v))
#define I(key, v) printf("%s=%lld\n", key, (long long)(v))

static int by_port_then_index(const void *a, const void *b)
{
	const struct ibv_gid_entry *x = a, *y = b;

	if (x->port_num != y->port_num)
		return x->port_num < y->port_num ? -1 : 1;
	if (x->gid_index != y->gid_index)
		return x->gid_index < y->gid_index ? -1 : 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: oracle DEVNAME\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list)
		fail("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
			break;
	if (i == n)
		fail("ibv_get_device_list (no such device)", ENODEV);
	ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("ibv_open_device", errno);

	/* ---- device: ibv_query_device_ex with a comp_mask 0 input */
	struct ibv_query_device_ex_input in;
	struct ibv_device_attr_ex ex;
	memset(&in, 0, sizeof(in));
	memset(&ex, 0, sizeof(ex));
	ret = ibv_query_device_ex(ctx, &in, &ex);
	if (ret)
		fail("ibv_query_device_ex", ret);
	const struct ibv_device_attr *d = &ex.orig_attr;

	printf("dev.fw_ver=%s\n", d->fw_ver);
	printf("dev.node_guid=0x%016llx\n", (unsigned long long)be64toh(d->node_guid));
	printf("dev.sys_image_guid=0x%016llx\n", (unsigned long long)be64toh(d->sys_image_guid));
	U("dev.max_mr_size", d->max_mr_size);
	U("dev.page_size_cap", d->page_size_cap);
	U("dev.vendor_id", d->vendor_id);
	U("dev.vendor_part_id", d->vendor_part_id);
	U("dev.hw_ver", d->hw_ver);
	I("dev.max_qp", d->max_qp);
	I("dev.max_qp_wr", d->max_qp_wr);
	U("dev.device_cap_flags", d->device_cap_flags);
	I("dev.max_sge", d->max_sge);
	I("dev.max_sge_rd", d->max_sge_rd);
	I("dev.max_cq", d->max_cq);
	I("dev.max_cqe", d->max_cqe);
	I("dev.max_mr", d->max_mr);
	I("dev.max_pd", d->max_pd);
	I("dev.max_qp_rd_atom", d->max_qp_rd_atom);
	I("dev.max_ee_rd_atom", d->max_ee_rd_atom);
	I("dev.max_res_rd_atom", d->max_res_rd_atom);
	I("dev.max_qp_init_rd_atom", d->max_qp_init_rd_atom);
	I("dev.max_ee_init_rd_atom", d->max_ee_init_rd_atom);
	I("dev.atomic_cap", d->atomic_cap);
	I("dev.max_ee", d->max_ee);
	I("dev.max_rdd", d->max_rdd);
	I("dev.max_mw", d->max_mw);
	I("dev.max_raw_ipv6_qp", d->max_raw_ipv6_qp);
	I("dev.max_raw_ethy_qp", d->max_raw_ethy_qp);
	I("dev.max_mcast_grp", d->max_mcast_grp);
	I("dev.max_mcast_qp_attach", d->max_mcast_qp_attach);
	I("dev.max_total_mcast_qp_attach", d->max_total_mcast_qp_attach);
	I("dev.max_ah", d->max_ah);
	I("dev.max_fmr", d->max_fmr);
	I("dev.max_map_per_fmr", d->max_map_per_fmr);
	I("dev.max_srq", d->max_srq);
	I("dev.max_srq_wr", d->max_srq_wr);
	I("dev.max_srq_sge", d->max_srq_sge);
	U("dev.max_pkeys", d->max_pkeys);
	U("dev.local_ca_ack_delay", d->local_ca_ack_delay);
	U("dev.phys_port_cnt", d->phys_port_cnt);

	U("ex.odp_caps.general_caps", ex.odp_caps.general_caps);
	U("ex.odp_caps.rc_odp_caps", ex.odp_caps.per_transport_caps.rc_odp_caps);
	U("ex.odp_caps.uc_odp_caps", ex.odp_caps.per_transport_caps.uc_odp_caps);
	U("ex.odp_caps.ud_odp_caps", ex.odp_caps.per_transport_caps.ud_odp_caps);
	U("ex.completion_timestamp_mask", ex.completion_timestamp_mask);
	U("ex.hca_core_clock", ex.hca_core_clock);
	U("ex.device_cap_flags_ex", ex.device_cap_flags_ex);
	U("ex.tso_caps.max_tso", ex.tso_caps.max_tso);
	U("ex.tso_caps.supported_qpts", ex.tso_caps.supported_qpts);
	U("ex.rss_caps.supported_qpts", ex.rss_caps.supported_qpts);
	U("ex.rss_caps.max_rwq_indirection_tables", ex.rss_caps.max_rwq_indirection_tables);
	U("ex.rss_caps.max_rwq_indirection_table_size", ex.rss_caps.max_rwq_indirection_table_size);
	U("ex.rss_caps.rx_hash_fields_mask", ex.rss_caps.rx_hash_fields_mask);
	U("ex.rss_caps.rx_hash_function", ex.rss_caps.rx_hash_function);
	U("ex.max_wq_type_rq", ex.max_wq_type_rq);
	U("ex.packet_pacing_caps.qp_rate_limit_min", ex.packet_pacing_caps.qp_rate_limit_min);
	U("ex.packet_pacing_caps.qp_rate_limit_max", ex.packet_pacing_caps.qp_rate_limit_max);
	U("ex.packet_pacing_caps.supported_qpts", ex.packet_pacing_caps.supported_qpts);
	U("ex.raw_packet_caps", ex.raw_packet_caps);
	U("ex.tm_caps.max_rndv_hdr_size", ex.tm_caps.max_rndv_hdr_size);
	U("ex.tm_caps.max_num_tags", ex.tm_caps.max_num_tags);
	U("ex.tm_caps.flags", ex.tm_caps.flags);
	U("ex.tm_caps.max_ops", ex.tm_caps.max_ops);
	U("ex.tm_caps.max_sge", ex.tm_caps.max_sge);
	U("ex.cq_mod_caps.max_cq_count", ex.cq_mod_caps.max_cq_count);
	U("ex.cq_mod_caps.max_cq_period", ex.cq_mod_caps.max_cq_period);
	U("ex.max_dm_size", ex.max_dm_size);
	U("ex.pci_atomic_caps.fetch_add", ex.pci_atomic_caps.fetch_add);
	U("ex.pci_atomic_caps.compare_swap", ex.pci_atomic_caps.compare_swap);
	U("ex.pci_atomic_caps.swap", ex.pci_atomic_caps.swap);
	U("ex.xrc_odp_caps", ex.xrc_odp_caps);
	U("ex.phys_port_cnt_ex", ex.phys_port_cnt_ex);

	I("ctx.num_comp_vectors", ctx->num_comp_vectors);

	/* ---- ports */
	int nports = d->phys_port_cnt, p;
	struct ibv_port_attr *pa = calloc(nports + 1, sizeof(*pa));
	size_t total_gids = 0;
	char key[64];
	if (!pa)
		fail("calloc", ENOMEM);
	for (p = 1; p <= nports; p++) {
		ret = ibv_query_port(ctx, p, &pa[p]);
		if (ret)
			fail("ibv_query_port", ret);
		const struct ibv_port_attr *a = &pa[p];
#define P(field) (snprintf(key, sizeof(key), "port.%d." #field, p), U(key, a->field))
		P(state);
		P(max_mtu);
		P(active_mtu);
		snprintf(key, sizeof(key), "port.%d.gid_tbl_len", p);
		I(key, a->gid_tbl_len);
		P(port_cap_flags);
		P(max_msg_sz);
		P(bad_pkey_cntr);
		P(qkey_viol_cntr);
		P(pkey_tbl_len);
		P(lid);
		P(sm_lid);
		P(lmc);
		P(max_vl_num);
		P(sm_sl);
		P(subnet_timeout);
		P(init_type_reply);
		P(active_width);
		P(active_speed);
		P(phys_state);
		P(link_layer);
		P(flags);
		P(port_cap_flags2);
#if ORACLE_RDMA_CORE >= 49
		P(active_speed_ex);
#endif
#undef P
#if ORACLE_RDMA_CORE >= 62
		{
			uint64_t speed = 0;
			int r = ibv_query_port_speed(ctx, p, &speed);

			if (r == 0)
				printf("port.%d.effective_speed=%llu\n", p, (unsigned long long)speed);
			else if (r == EOPNOTSUPP || r == EPROTONOSUPPORT)
				printf("port.%d.effective_speed=unsupported\n", p);
			else
				printf("port.%d.effective_speed=error:%d\n", p, r);
		}
#endif
		if (a->gid_tbl_len > 0)
			total_gids += a->gid_tbl_len;
	}

	/* ---- GID table: the valid entries of all ports, by port then index */
	if (total_gids > 0) {
		struct ibv_gid_entry *g = calloc(total_gids, sizeof(*g));
		ssize_t got, k;
		if (!g)
			fail("calloc", ENOMEM);
		got = ibv_query_gid_table(ctx, g, total_gids, 0);
		if (got < 0)
			fail("ibv_query_gid_table", (int)-got);
		qsort(g, got, sizeof(*g), by_port_then_index);
		for (k = 0; k < got; k++) {
			printf("gid.%u.%u.gid=", g[k].port_num, g[k].gid_index);
			for (i = 0; i < 16; i++)
				printf("%02x", g[k].gid.raw[i]);
			printf("\n");
			printf("gid.%u.%u.type=%u\n", g[k].port_num, g[k].gid_index, g[k].gid_type);
			printf("gid.%u.%u.ndev_ifindex=%u\n", g[k].port_num, g[k].gid_index,
			       g[k].ndev_ifindex);
		}
		free(g);
	}

	/* ---- P_Key table, up to the first index that fails */
	for (p = 1; p <= nports; p++) {
		for (i = 0; i < pa[p].pkey_tbl_len; i++) {
			__be16 pkey;
			if (ibv_query_pkey(ctx, p, i, &pkey))
				break;
			printf("pkey.%d.%d=0x%04x\n", p, i, ntohs(pkey));
		}
	}

	free(pa);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	if (fflush(stdout) || ferror(stdout))
		fail("write", errno ? errno : EIO);
	return 0;
}
