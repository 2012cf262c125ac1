/*
 * stub.c - a test libibverbs that answers from a table, for the printer's
 * differential test (src/bin/uverbs/printer_diff.rs).
 *
 * Test tooling only, written for this project.  It is linked, at test time, with
 * rdma-core 64.0's own libibverbs/examples/devinfo.c (taken from the release archive,
 * never committed) in place of the real libibverbs, so that devinfo.c prints attribute
 * values that the soft devices of the VM cannot show (NDR and XDR ports, every ODP and
 * capability bit, ...).  uverbs' printer renders the same table, and the two texts are
 * compared byte for byte.
 *
 * The table ($UVERBS_STUB_TABLE) is a synthetic attribute table, one `key=value` per
 * line (`#` starts a comment line), with the keys of the oracle's contract
 * (tests/vm/README.md: dev.*, ex.*, ctx.num_comp_vectors, port.N.*, gid.P.I.*) plus
 * device.name, device.node_type, device.transport, device.board_id and
 * port.N.active_speed_ex.  Numbers are C integer literals (strtoull base 0).  Keys a
 * table leaves out are 0.
 *
 * What devinfo.c 64.0 calls, and what answers it here:
 *   ibv_get_device_list / ibv_free_device_list  one device, from device.*
 *   ibv_get_device_name                         device.name
 *   ibv_open_device / ibv_close_device          a verbs_context (ABI "extended") whose
 *                                               query_device_ex and query_port ops read
 *                                               the table: ibv_query_device_ex() and
 *                                               ibv_query_port() are inline functions
 *                                               of verbs.h that dispatch through them
 *   ibv_query_gid                               gid.P.I.gid; an empty index reads as the
 *                                               zero GID (libibverbs turns ENODATA into
 *                                               that)
 *   ibv_query_gid_type                          gid.P.I.type: IB (0) and RoCE v1 (1) are
 *                                               IBV_GID_TYPE_SYSFS_IB_ROCE_V1, anything
 *                                               else ROCE_V2; an empty index IB_ROCE_V1
 *                                               (as libibverbs answers ENODATA)
 *   ibv_read_sysfs_file                         "board_id": device.board_id, else -1
 *   ibv_is_qpt_supported                        inline in verbs.h
 *   ibv_query_device, ibv_query_port            the legacy fallbacks the inline
 *                                               functions reference; never reached
 *
 * Provider-only attributes (tso_caps, rss_caps.rx_hash_*, packet_pacing_caps,
 * pci_atomic_caps: mlx5's and other providers' own data, which the kernel does not
 * report and uverbs therefore has not) are never filled: the tables must not set them,
 * which printer_diff.rs checks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <infiniband/verbs.h>
#include <infiniband/driver.h>

struct entry {
	char *key;
	char *val;
};

static struct entry *table;
static size_t entries;

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static void load(void)
{
	const char *path = getenv("UVERBS_STUB_TABLE");
	char line[512];
	FILE *f;

	if (table)
		return;
	if (!path || !(f = fopen(path, "r"))) {
		fprintf(stderr, "stub: cannot read UVERBS_STUB_TABLE (%s)\n", path ? path : "unset");
		exit(100);
	}
	table = calloc(4096, sizeof(*table));
	while (table && entries < 4096 && fgets(line, sizeof(line), f)) {
		char *l = trim(line), *eq;

		if (!*l || *l == '#')
			continue;
		eq = strchr(l, '=');
		if (!eq) {
			fprintf(stderr, "stub: not key=value: %s\n", l);
			exit(100);
		}
		*eq = 0;
		table[entries].key = strdup(trim(l));
		table[entries].val = strdup(trim(eq + 1));
		entries++;
	}
	fclose(f);
}

static const char *get(const char *key)
{
	size_t i;

	load();
	for (i = 0; i < entries; i++)
		if (strcmp(table[i].key, key) == 0)
			return table[i].val;
	return NULL;
}

static unsigned long long num(const char *key)
{
	const char *v = get(key);

	return v ? strtoull(v, NULL, 0) : 0;
}

static unsigned long long pnum(unsigned port, const char *field)
{
	char key[96];

	snprintf(key, sizeof(key), "port.%u.%s", port, field);
	return num(key);
}

static struct ibv_device device;
static struct ibv_device *device_list[2];
static struct verbs_context vctx;

static int stub_query_device_ex(struct ibv_context *ctx,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *a, size_t size)
{
	struct ibv_device_attr *d = &a->orig_attr;
	const char *fw = get("dev.fw_ver");

	(void)ctx;
	(void)input;
	memset(a, 0, size);
	if (fw)
		snprintf(d->fw_ver, sizeof(d->fw_ver), "%s", fw);
	d->node_guid = htobe64(num("dev.node_guid"));
	d->sys_image_guid = htobe64(num("dev.sys_image_guid"));
#define D(f) d->f = num("dev." #f)
	D(max_mr_size); D(page_size_cap); D(vendor_id); D(vendor_part_id); D(hw_ver);
	D(max_qp); D(max_qp_wr); D(device_cap_flags); D(max_sge); D(max_sge_rd); D(max_cq);
	D(max_cqe); D(max_mr); D(max_pd); D(max_qp_rd_atom); D(max_ee_rd_atom);
	D(max_res_rd_atom); D(max_qp_init_rd_atom); D(max_ee_init_rd_atom); D(atomic_cap);
	D(max_ee); D(max_rdd); D(max_mw); D(max_raw_ipv6_qp); D(max_raw_ethy_qp);
	D(max_mcast_grp); D(max_mcast_qp_attach); D(max_total_mcast_qp_attach); D(max_ah);
	D(max_fmr); D(max_map_per_fmr); D(max_srq); D(max_srq_wr); D(max_srq_sge);
	D(max_pkeys); D(local_ca_ack_delay); D(phys_port_cnt);
#undef D
#define X(f, key) a->f = num("ex." key)
	X(odp_caps.general_caps, "odp_caps.general_caps");
	X(odp_caps.per_transport_caps.rc_odp_caps, "odp_caps.rc_odp_caps");
	X(odp_caps.per_transport_caps.uc_odp_caps, "odp_caps.uc_odp_caps");
	X(odp_caps.per_transport_caps.ud_odp_caps, "odp_caps.ud_odp_caps");
	X(completion_timestamp_mask, "completion_timestamp_mask");
	X(hca_core_clock, "hca_core_clock");
	X(device_cap_flags_ex, "device_cap_flags_ex");
	X(rss_caps.supported_qpts, "rss_caps.supported_qpts");
	X(rss_caps.max_rwq_indirection_tables, "rss_caps.max_rwq_indirection_tables");
	X(rss_caps.max_rwq_indirection_table_size, "rss_caps.max_rwq_indirection_table_size");
	X(max_wq_type_rq, "max_wq_type_rq");
	X(raw_packet_caps, "raw_packet_caps");
	X(tm_caps.max_rndv_hdr_size, "tm_caps.max_rndv_hdr_size");
	X(tm_caps.max_num_tags, "tm_caps.max_num_tags");
	X(tm_caps.flags, "tm_caps.flags");
	X(tm_caps.max_ops, "tm_caps.max_ops");
	X(tm_caps.max_sge, "tm_caps.max_sge");
	X(cq_mod_caps.max_cq_count, "cq_mod_caps.max_cq_count");
	X(cq_mod_caps.max_cq_period, "cq_mod_caps.max_cq_period");
	X(max_dm_size, "max_dm_size");
	X(xrc_odp_caps, "xrc_odp_caps");
#undef X
	a->phys_port_cnt_ex = d->phys_port_cnt;
	return 0;
}

static int stub_query_port(struct ibv_context *ctx, uint8_t port,
			   struct ibv_port_attr *a, size_t len)
{
	(void)ctx;
	if (port == 0 || port > num("dev.phys_port_cnt"))
		return EINVAL;
	memset(a, 0, len);
#define P(f) a->f = pnum(port, #f)
	P(state); P(max_mtu); P(active_mtu); P(gid_tbl_len); P(port_cap_flags);
	P(max_msg_sz); P(bad_pkey_cntr); P(qkey_viol_cntr); P(pkey_tbl_len); P(lid);
	P(sm_lid); P(lmc); P(max_vl_num); P(sm_sl); P(subnet_timeout); P(init_type_reply);
	P(active_width); P(active_speed); P(phys_state); P(link_layer); P(flags);
	P(port_cap_flags2); P(active_speed_ex);
#undef P
	return 0;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	const char *name = get("device.name");

	snprintf(device.name, sizeof(device.name), "%s", name ? name : "");
	snprintf(device.ibdev_path, sizeof(device.ibdev_path), "/sys/class/infiniband/%s",
		 device.name);
	device.node_type = num("device.node_type");
	device.transport_type = num("device.transport");
	device_list[0] = &device;
	device_list[1] = NULL;
	if (num_devices)
		*num_devices = 1;
	return device_list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	(void)list;
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	memset(&vctx, 0, sizeof(vctx));
	vctx.sz = sizeof(vctx);
	vctx.query_device_ex = stub_query_device_ex;
	vctx.query_port = stub_query_port;
	vctx.context.device = dev;
	vctx.context.cmd_fd = -1;
	vctx.context.async_fd = -1;
	vctx.context.num_comp_vectors = num("ctx.num_comp_vectors");
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	return &vctx.context;
}

int ibv_close_device(struct ibv_context *ctx)
{
	(void)ctx;
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	char key[96];
	const char *hex;
	int i;

	(void)ctx;
	memset(gid, 0, sizeof(*gid));
	snprintf(key, sizeof(key), "gid.%u.%d.gid", port, index);
	hex = get(key);
	if (!hex)
		return 0;
	if (strlen(hex) != 32) {
		fprintf(stderr, "stub: %s is not 32 hex digits\n", key);
		exit(100);
	}
	for (i = 0; i < 16; i++) {
		char byte[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		gid->raw[i] = strtoul(byte, NULL, 16);
	}
	return 0;
}

int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index,
		       enum ibv_gid_type_sysfs *type)
{
	char key[96];
	const char *t;

	(void)ctx;
	snprintf(key, sizeof(key), "gid.%u.%u.type", port, index);
	t = get(key);
	if (!t || strtoul(t, NULL, 0) <= 1)
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	else
		*type = IBV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	const char *b = get("device.board_id");

	(void)dir;
	if (strcmp(file, "board_id") != 0 || !b || !size)
		return -1;
	snprintf(buf, size, "%s", b);
	return strlen(buf);
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	(void)ctx;
	(void)attr;
	fprintf(stderr, "stub: the legacy ibv_query_device was called\n");
	exit(101);
}

/* (in parentheses: verbs.h defines ibv_query_port as a function-like macro) */
int (ibv_query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	(void)ctx;
	(void)port;
	(void)attr;
	fprintf(stderr, "stub: the legacy ibv_query_port was called\n");
	exit(101);
}
