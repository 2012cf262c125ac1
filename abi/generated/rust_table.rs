// @generated from abi/manifest.txt by abi/checker/generate.rs: do not edit.
// Regenerate with: cargo test --test abi_manifest -- --ignored regenerate
// Included by tests/abi_check.rs; the types are in abi/checker/table.rs.

/// The Rust side of every struct, constant and enum that abi/manifest.txt lists.
#[allow(deprecated)] // the deprecated aliases of renamed C names are mirrored too
pub fn rust_table() -> RustTable {
    let mut t = RustTable::default();
    {
        type T = uverbs::raw::abi::ioctl::ib_uverbs_attr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_attr",
            "uverbs::raw::abi::ioctl::ib_uverbs_attr",
            vec![
                field("attr_id", core::mem::offset_of!(T, attr_id), |s: &T| &s.attr_id),
                field("len", core::mem::offset_of!(T, len), |s: &T| &s.len),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("attr_data", core::mem::offset_of!(T, attr_data), |s: &T| &s.attr_data),
                field("data", core::mem::offset_of!(T, data), |s: &T| &s.data),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::ioctl::ib_uverbs_ioctl_hdr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ioctl_hdr",
            "uverbs::raw::abi::ioctl::ib_uverbs_ioctl_hdr",
            vec![
                field("length", core::mem::offset_of!(T, length), |s: &T| &s.length),
                field("object_id", core::mem::offset_of!(T, object_id), |s: &T| &s.object_id),
                field("method_id", core::mem::offset_of!(T, method_id), |s: &T| &s.method_id),
                field("num_attrs", core::mem::offset_of!(T, num_attrs), |s: &T| &s.num_attrs),
                field("reserved1", core::mem::offset_of!(T, reserved1), |s: &T| &s.reserved1),
                field("driver_id", core::mem::offset_of!(T, driver_id), |s: &T| &s.driver_id),
                field("reserved2", core::mem::offset_of!(T, reserved2), |s: &T| &s.reserved2),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::ioctl_verbs::ib_uverbs_query_port_resp_ex;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_port_resp_ex",
            "uverbs::raw::abi::ioctl_verbs::ib_uverbs_query_port_resp_ex",
            vec![
                field("legacy_resp", core::mem::offset_of!(T, legacy_resp), |s: &T| &s.legacy_resp),
                field("port_cap_flags2", core::mem::offset_of!(T, port_cap_flags2), |s: &T| &s.port_cap_flags2),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("active_speed_ex", core::mem::offset_of!(T, active_speed_ex), |s: &T| &s.active_speed_ex),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::ioctl_verbs::ib_uverbs_gid_entry;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_gid_entry",
            "uverbs::raw::abi::ioctl_verbs::ib_uverbs_gid_entry",
            vec![
                field("gid", core::mem::offset_of!(T, gid), |s: &T| &s.gid),
                field("gid_index", core::mem::offset_of!(T, gid_index), |s: &T| &s.gid_index),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("gid_type", core::mem::offset_of!(T, gid_type), |s: &T| &s.gid_type),
                field("netdev_ifindex", core::mem::offset_of!(T, netdev_ifindex), |s: &T| &s.netdev_ifindex),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_cmd_hdr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_cmd_hdr",
            "uverbs::raw::abi::verbs::ib_uverbs_cmd_hdr",
            vec![
                field("command", core::mem::offset_of!(T, command), |s: &T| &s.command),
                field("in_words", core::mem::offset_of!(T, in_words), |s: &T| &s.in_words),
                field("out_words", core::mem::offset_of!(T, out_words), |s: &T| &s.out_words),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ex_cmd_hdr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ex_cmd_hdr",
            "uverbs::raw::abi::verbs::ib_uverbs_ex_cmd_hdr",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("provider_in_words", core::mem::offset_of!(T, provider_in_words), |s: &T| &s.provider_in_words),
                field("provider_out_words", core::mem::offset_of!(T, provider_out_words), |s: &T| &s.provider_out_words),
                field("cmd_hdr_reserved", core::mem::offset_of!(T, cmd_hdr_reserved), |s: &T| &s.cmd_hdr_reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_get_context;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_get_context",
            "uverbs::raw::abi::verbs::ib_uverbs_get_context",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_get_context_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_get_context_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_get_context_resp",
            vec![
                field("async_fd", core::mem::offset_of!(T, async_fd), |s: &T| &s.async_fd),
                field("num_comp_vectors", core::mem::offset_of!(T, num_comp_vectors), |s: &T| &s.num_comp_vectors),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_device;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_device",
            "uverbs::raw::abi::verbs::ib_uverbs_query_device",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_device_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_device_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_query_device_resp",
            vec![
                field("fw_ver", core::mem::offset_of!(T, fw_ver), |s: &T| &s.fw_ver),
                field("node_guid", core::mem::offset_of!(T, node_guid), |s: &T| &s.node_guid),
                field("sys_image_guid", core::mem::offset_of!(T, sys_image_guid), |s: &T| &s.sys_image_guid),
                field("max_mr_size", core::mem::offset_of!(T, max_mr_size), |s: &T| &s.max_mr_size),
                field("page_size_cap", core::mem::offset_of!(T, page_size_cap), |s: &T| &s.page_size_cap),
                field("vendor_id", core::mem::offset_of!(T, vendor_id), |s: &T| &s.vendor_id),
                field("vendor_part_id", core::mem::offset_of!(T, vendor_part_id), |s: &T| &s.vendor_part_id),
                field("hw_ver", core::mem::offset_of!(T, hw_ver), |s: &T| &s.hw_ver),
                field("max_qp", core::mem::offset_of!(T, max_qp), |s: &T| &s.max_qp),
                field("max_qp_wr", core::mem::offset_of!(T, max_qp_wr), |s: &T| &s.max_qp_wr),
                field("device_cap_flags", core::mem::offset_of!(T, device_cap_flags), |s: &T| &s.device_cap_flags),
                field("max_sge", core::mem::offset_of!(T, max_sge), |s: &T| &s.max_sge),
                field("max_sge_rd", core::mem::offset_of!(T, max_sge_rd), |s: &T| &s.max_sge_rd),
                field("max_cq", core::mem::offset_of!(T, max_cq), |s: &T| &s.max_cq),
                field("max_cqe", core::mem::offset_of!(T, max_cqe), |s: &T| &s.max_cqe),
                field("max_mr", core::mem::offset_of!(T, max_mr), |s: &T| &s.max_mr),
                field("max_pd", core::mem::offset_of!(T, max_pd), |s: &T| &s.max_pd),
                field("max_qp_rd_atom", core::mem::offset_of!(T, max_qp_rd_atom), |s: &T| &s.max_qp_rd_atom),
                field("max_ee_rd_atom", core::mem::offset_of!(T, max_ee_rd_atom), |s: &T| &s.max_ee_rd_atom),
                field("max_res_rd_atom", core::mem::offset_of!(T, max_res_rd_atom), |s: &T| &s.max_res_rd_atom),
                field("max_qp_init_rd_atom", core::mem::offset_of!(T, max_qp_init_rd_atom), |s: &T| &s.max_qp_init_rd_atom),
                field("max_ee_init_rd_atom", core::mem::offset_of!(T, max_ee_init_rd_atom), |s: &T| &s.max_ee_init_rd_atom),
                field("atomic_cap", core::mem::offset_of!(T, atomic_cap), |s: &T| &s.atomic_cap),
                field("max_ee", core::mem::offset_of!(T, max_ee), |s: &T| &s.max_ee),
                field("max_rdd", core::mem::offset_of!(T, max_rdd), |s: &T| &s.max_rdd),
                field("max_mw", core::mem::offset_of!(T, max_mw), |s: &T| &s.max_mw),
                field("max_raw_ipv6_qp", core::mem::offset_of!(T, max_raw_ipv6_qp), |s: &T| &s.max_raw_ipv6_qp),
                field("max_raw_ethy_qp", core::mem::offset_of!(T, max_raw_ethy_qp), |s: &T| &s.max_raw_ethy_qp),
                field("max_mcast_grp", core::mem::offset_of!(T, max_mcast_grp), |s: &T| &s.max_mcast_grp),
                field("max_mcast_qp_attach", core::mem::offset_of!(T, max_mcast_qp_attach), |s: &T| &s.max_mcast_qp_attach),
                field("max_total_mcast_qp_attach", core::mem::offset_of!(T, max_total_mcast_qp_attach), |s: &T| &s.max_total_mcast_qp_attach),
                field("max_ah", core::mem::offset_of!(T, max_ah), |s: &T| &s.max_ah),
                field("max_fmr", core::mem::offset_of!(T, max_fmr), |s: &T| &s.max_fmr),
                field("max_map_per_fmr", core::mem::offset_of!(T, max_map_per_fmr), |s: &T| &s.max_map_per_fmr),
                field("max_srq", core::mem::offset_of!(T, max_srq), |s: &T| &s.max_srq),
                field("max_srq_wr", core::mem::offset_of!(T, max_srq_wr), |s: &T| &s.max_srq_wr),
                field("max_srq_sge", core::mem::offset_of!(T, max_srq_sge), |s: &T| &s.max_srq_sge),
                field("max_pkeys", core::mem::offset_of!(T, max_pkeys), |s: &T| &s.max_pkeys),
                field("local_ca_ack_delay", core::mem::offset_of!(T, local_ca_ack_delay), |s: &T| &s.local_ca_ack_delay),
                field("phys_port_cnt", core::mem::offset_of!(T, phys_port_cnt), |s: &T| &s.phys_port_cnt),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ex_query_device;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ex_query_device",
            "uverbs::raw::abi::verbs::ib_uverbs_ex_query_device",
            vec![
                field("comp_mask", core::mem::offset_of!(T, comp_mask), |s: &T| &s.comp_mask),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_odp_caps;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_odp_caps",
            "uverbs::raw::abi::verbs::ib_uverbs_odp_caps",
            vec![
                field("general_caps", core::mem::offset_of!(T, general_caps), |s: &T| &s.general_caps),
                field("rc_odp_caps", core::mem::offset_of!(T, rc_odp_caps), |s: &T| &s.rc_odp_caps),
                field("uc_odp_caps", core::mem::offset_of!(T, uc_odp_caps), |s: &T| &s.uc_odp_caps),
                field("ud_odp_caps", core::mem::offset_of!(T, ud_odp_caps), |s: &T| &s.ud_odp_caps),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_rss_caps;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_rss_caps",
            "uverbs::raw::abi::verbs::ib_uverbs_rss_caps",
            vec![
                field("supported_qpts", core::mem::offset_of!(T, supported_qpts), |s: &T| &s.supported_qpts),
                field("max_rwq_indirection_tables", core::mem::offset_of!(T, max_rwq_indirection_tables), |s: &T| &s.max_rwq_indirection_tables),
                field("max_rwq_indirection_table_size", core::mem::offset_of!(T, max_rwq_indirection_table_size), |s: &T| &s.max_rwq_indirection_table_size),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_tm_caps;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_tm_caps",
            "uverbs::raw::abi::verbs::ib_uverbs_tm_caps",
            vec![
                field("max_rndv_hdr_size", core::mem::offset_of!(T, max_rndv_hdr_size), |s: &T| &s.max_rndv_hdr_size),
                field("max_num_tags", core::mem::offset_of!(T, max_num_tags), |s: &T| &s.max_num_tags),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("max_ops", core::mem::offset_of!(T, max_ops), |s: &T| &s.max_ops),
                field("max_sge", core::mem::offset_of!(T, max_sge), |s: &T| &s.max_sge),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_cq_moderation_caps;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_cq_moderation_caps",
            "uverbs::raw::abi::verbs::ib_uverbs_cq_moderation_caps",
            vec![
                field("max_cq_moderation_count", core::mem::offset_of!(T, max_cq_moderation_count), |s: &T| &s.max_cq_moderation_count),
                field("max_cq_moderation_period", core::mem::offset_of!(T, max_cq_moderation_period), |s: &T| &s.max_cq_moderation_period),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ex_query_device_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ex_query_device_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_ex_query_device_resp",
            vec![
                field("base", core::mem::offset_of!(T, base), |s: &T| &s.base),
                field("comp_mask", core::mem::offset_of!(T, comp_mask), |s: &T| &s.comp_mask),
                field("response_length", core::mem::offset_of!(T, response_length), |s: &T| &s.response_length),
                field("odp_caps", core::mem::offset_of!(T, odp_caps), |s: &T| &s.odp_caps),
                field("timestamp_mask", core::mem::offset_of!(T, timestamp_mask), |s: &T| &s.timestamp_mask),
                field("hca_core_clock", core::mem::offset_of!(T, hca_core_clock), |s: &T| &s.hca_core_clock),
                field("device_cap_flags_ex", core::mem::offset_of!(T, device_cap_flags_ex), |s: &T| &s.device_cap_flags_ex),
                field("rss_caps", core::mem::offset_of!(T, rss_caps), |s: &T| &s.rss_caps),
                field("max_wq_type_rq", core::mem::offset_of!(T, max_wq_type_rq), |s: &T| &s.max_wq_type_rq),
                field("raw_packet_caps", core::mem::offset_of!(T, raw_packet_caps), |s: &T| &s.raw_packet_caps),
                field("tm_caps", core::mem::offset_of!(T, tm_caps), |s: &T| &s.tm_caps),
                field("cq_moderation_caps", core::mem::offset_of!(T, cq_moderation_caps), |s: &T| &s.cq_moderation_caps),
                field("max_dm_size", core::mem::offset_of!(T, max_dm_size), |s: &T| &s.max_dm_size),
                field("xrc_odp_caps", core::mem::offset_of!(T, xrc_odp_caps), |s: &T| &s.xrc_odp_caps),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_port;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_port",
            "uverbs::raw::abi::verbs::ib_uverbs_query_port",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_port_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_port_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_query_port_resp",
            vec![
                field("port_cap_flags", core::mem::offset_of!(T, port_cap_flags), |s: &T| &s.port_cap_flags),
                field("max_msg_sz", core::mem::offset_of!(T, max_msg_sz), |s: &T| &s.max_msg_sz),
                field("bad_pkey_cntr", core::mem::offset_of!(T, bad_pkey_cntr), |s: &T| &s.bad_pkey_cntr),
                field("qkey_viol_cntr", core::mem::offset_of!(T, qkey_viol_cntr), |s: &T| &s.qkey_viol_cntr),
                field("gid_tbl_len", core::mem::offset_of!(T, gid_tbl_len), |s: &T| &s.gid_tbl_len),
                field("pkey_tbl_len", core::mem::offset_of!(T, pkey_tbl_len), |s: &T| &s.pkey_tbl_len),
                field("lid", core::mem::offset_of!(T, lid), |s: &T| &s.lid),
                field("sm_lid", core::mem::offset_of!(T, sm_lid), |s: &T| &s.sm_lid),
                field("state", core::mem::offset_of!(T, state), |s: &T| &s.state),
                field("max_mtu", core::mem::offset_of!(T, max_mtu), |s: &T| &s.max_mtu),
                field("active_mtu", core::mem::offset_of!(T, active_mtu), |s: &T| &s.active_mtu),
                field("lmc", core::mem::offset_of!(T, lmc), |s: &T| &s.lmc),
                field("max_vl_num", core::mem::offset_of!(T, max_vl_num), |s: &T| &s.max_vl_num),
                field("sm_sl", core::mem::offset_of!(T, sm_sl), |s: &T| &s.sm_sl),
                field("subnet_timeout", core::mem::offset_of!(T, subnet_timeout), |s: &T| &s.subnet_timeout),
                field("init_type_reply", core::mem::offset_of!(T, init_type_reply), |s: &T| &s.init_type_reply),
                field("active_width", core::mem::offset_of!(T, active_width), |s: &T| &s.active_width),
                field("active_speed", core::mem::offset_of!(T, active_speed), |s: &T| &s.active_speed),
                field("phys_state", core::mem::offset_of!(T, phys_state), |s: &T| &s.phys_state),
                field("link_layer", core::mem::offset_of!(T, link_layer), |s: &T| &s.link_layer),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_async_event_desc;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_async_event_desc",
            "uverbs::raw::abi::verbs::ib_uverbs_async_event_desc",
            vec![
                field("element", core::mem::offset_of!(T, element), |s: &T| &s.element),
                field("event_type", core::mem::offset_of!(T, event_type), |s: &T| &s.event_type),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::netlink::nlmsghdr;
        t.structs.push(RustStruct::new::<T>(
            "nlmsghdr",
            "uverbs::raw::abi::netlink::nlmsghdr",
            vec![
                field("nlmsg_len", core::mem::offset_of!(T, nlmsg_len), |s: &T| &s.nlmsg_len),
                field("nlmsg_type", core::mem::offset_of!(T, nlmsg_type), |s: &T| &s.nlmsg_type),
                field("nlmsg_flags", core::mem::offset_of!(T, nlmsg_flags), |s: &T| &s.nlmsg_flags),
                field("nlmsg_seq", core::mem::offset_of!(T, nlmsg_seq), |s: &T| &s.nlmsg_seq),
                field("nlmsg_pid", core::mem::offset_of!(T, nlmsg_pid), |s: &T| &s.nlmsg_pid),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::netlink::nlattr;
        t.structs.push(RustStruct::new::<T>(
            "nlattr",
            "uverbs::raw::abi::netlink::nlattr",
            vec![
                field("nla_len", core::mem::offset_of!(T, nla_len), |s: &T| &s.nla_len),
                field("nla_type", core::mem::offset_of!(T, nla_type), |s: &T| &s.nla_type),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::netlink::nlmsgerr;
        t.structs.push(RustStruct::new::<T>(
            "nlmsgerr",
            "uverbs::raw::abi::netlink::nlmsgerr",
            vec![
                field("error", core::mem::offset_of!(T, error), |s: &T| &s.error),
                field("msg", core::mem::offset_of!(T, msg), |s: &T| &s.msg),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::netlink::ifinfomsg;
        t.structs.push(RustStruct::new::<T>(
            "ifinfomsg",
            "uverbs::raw::abi::netlink::ifinfomsg",
            vec![
                field("ifi_family", core::mem::offset_of!(T, ifi_family), |s: &T| &s.ifi_family),
                field("__ifi_pad", core::mem::offset_of!(T, __ifi_pad), |s: &T| &s.__ifi_pad),
                field("ifi_type", core::mem::offset_of!(T, ifi_type), |s: &T| &s.ifi_type),
                field("ifi_index", core::mem::offset_of!(T, ifi_index), |s: &T| &s.ifi_index),
                field("ifi_flags", core::mem::offset_of!(T, ifi_flags), |s: &T| &s.ifi_flags),
                field("ifi_change", core::mem::offset_of!(T, ifi_change), |s: &T| &s.ifi_change),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::netlink::ifaddrmsg;
        t.structs.push(RustStruct::new::<T>(
            "ifaddrmsg",
            "uverbs::raw::abi::netlink::ifaddrmsg",
            vec![
                field("ifa_family", core::mem::offset_of!(T, ifa_family), |s: &T| &s.ifa_family),
                field("ifa_prefixlen", core::mem::offset_of!(T, ifa_prefixlen), |s: &T| &s.ifa_prefixlen),
                field("ifa_flags", core::mem::offset_of!(T, ifa_flags), |s: &T| &s.ifa_flags),
                field("ifa_scope", core::mem::offset_of!(T, ifa_scope), |s: &T| &s.ifa_scope),
                field("ifa_index", core::mem::offset_of!(T, ifa_index), |s: &T| &s.ifa_index),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::mlx5_ib_alloc_ucontext_req_v2;
        t.structs.push(RustStruct::new::<T>(
            "mlx5_ib_alloc_ucontext_req_v2",
            "uverbs::raw::driver::mlx5_ib_alloc_ucontext_req_v2",
            vec![
                field("total_num_bfregs", core::mem::offset_of!(T, total_num_bfregs), |s: &T| &s.total_num_bfregs),
                field("num_low_latency_bfregs", core::mem::offset_of!(T, num_low_latency_bfregs), |s: &T| &s.num_low_latency_bfregs),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("comp_mask", core::mem::offset_of!(T, comp_mask), |s: &T| &s.comp_mask),
                field("max_cqe_version", core::mem::offset_of!(T, max_cqe_version), |s: &T| &s.max_cqe_version),
                field("reserved0", core::mem::offset_of!(T, reserved0), |s: &T| &s.reserved0),
                field("reserved1", core::mem::offset_of!(T, reserved1), |s: &T| &s.reserved1),
                field("reserved2", core::mem::offset_of!(T, reserved2), |s: &T| &s.reserved2),
                field("lib_caps", core::mem::offset_of!(T, lib_caps), |s: &T| &s.lib_caps),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::mlx4_ib_alloc_ucontext_resp;
        t.structs.push(RustStruct::new::<T>(
            "mlx4_ib_alloc_ucontext_resp",
            "uverbs::raw::driver::mlx4_ib_alloc_ucontext_resp",
            vec![
                field("dev_caps", core::mem::offset_of!(T, dev_caps), |s: &T| &s.dev_caps),
                field("qp_tab_size", core::mem::offset_of!(T, qp_tab_size), |s: &T| &s.qp_tab_size),
                field("bf_reg_size", core::mem::offset_of!(T, bf_reg_size), |s: &T| &s.bf_reg_size),
                field("bf_regs_per_page", core::mem::offset_of!(T, bf_regs_per_page), |s: &T| &s.bf_regs_per_page),
                field("cqe_size", core::mem::offset_of!(T, cqe_size), |s: &T| &s.cqe_size),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::efa_ibv_alloc_ucontext_cmd;
        t.structs.push(RustStruct::new::<T>(
            "efa_ibv_alloc_ucontext_cmd",
            "uverbs::raw::driver::efa_ibv_alloc_ucontext_cmd",
            vec![
                field("supported_caps", core::mem::offset_of!(T, supported_caps), |s: &T| &s.supported_caps),
                field("reserved_20", core::mem::offset_of!(T, reserved_20), |s: &T| &s.reserved_20),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::irdma_alloc_ucontext_req;
        t.structs.push(RustStruct::new::<T>(
            "irdma_alloc_ucontext_req",
            "uverbs::raw::driver::irdma_alloc_ucontext_req",
            vec![
                field("rsvd32", core::mem::offset_of!(T, rsvd32), |s: &T| &s.rsvd32),
                field("userspace_ver", core::mem::offset_of!(T, userspace_ver), |s: &T| &s.userspace_ver),
                field("rsvd8", core::mem::offset_of!(T, rsvd8), |s: &T| &s.rsvd8),
                field("comp_mask", core::mem::offset_of!(T, comp_mask), |s: &T| &s.comp_mask),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::hns_roce_ib_alloc_ucontext;
        t.structs.push(RustStruct::new::<T>(
            "hns_roce_ib_alloc_ucontext",
            "uverbs::raw::driver::hns_roce_ib_alloc_ucontext",
            vec![
                field("config", core::mem::offset_of!(T, config), |s: &T| &s.config),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_uresp_alloc_ctx;
        t.structs.push(RustStruct::new::<T>(
            "siw_uresp_alloc_ctx",
            "uverbs::raw::driver::siw_uresp_alloc_ctx",
            vec![
                field("dev_id", core::mem::offset_of!(T, dev_id), |s: &T| &s.dev_id),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::erdma_uresp_alloc_ctx;
        t.structs.push(RustStruct::new::<T>(
            "erdma_uresp_alloc_ctx",
            "uverbs::raw::driver::erdma_uresp_alloc_ctx",
            vec![
                field("dev_id", core::mem::offset_of!(T, dev_id), |s: &T| &s.dev_id),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
                field("sdb_type", core::mem::offset_of!(T, sdb_type), |s: &T| &s.sdb_type),
                field("sdb_offset", core::mem::offset_of!(T, sdb_offset), |s: &T| &s.sdb_offset),
                field("sdb", core::mem::offset_of!(T, sdb), |s: &T| &s.sdb),
                field("rdb", core::mem::offset_of!(T, rdb), |s: &T| &s.rdb),
                field("cdb", core::mem::offset_of!(T, cdb), |s: &T| &s.cdb),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::ioctl_verbs::ib_uverbs_qp_cap;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_qp_cap",
            "uverbs::raw::abi::ioctl_verbs::ib_uverbs_qp_cap",
            vec![
                field("max_send_wr", core::mem::offset_of!(T, max_send_wr), |s: &T| &s.max_send_wr),
                field("max_recv_wr", core::mem::offset_of!(T, max_recv_wr), |s: &T| &s.max_recv_wr),
                field("max_send_sge", core::mem::offset_of!(T, max_send_sge), |s: &T| &s.max_send_sge),
                field("max_recv_sge", core::mem::offset_of!(T, max_recv_sge), |s: &T| &s.max_recv_sge),
                field("max_inline_data", core::mem::offset_of!(T, max_inline_data), |s: &T| &s.max_inline_data),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_alloc_pd;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_alloc_pd",
            "uverbs::raw::abi::verbs::ib_uverbs_alloc_pd",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_alloc_pd_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_alloc_pd_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_alloc_pd_resp",
            vec![
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_dealloc_pd;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_dealloc_pd",
            "uverbs::raw::abi::verbs::ib_uverbs_dealloc_pd",
            vec![
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_reg_mr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_reg_mr",
            "uverbs::raw::abi::verbs::ib_uverbs_reg_mr",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("start", core::mem::offset_of!(T, start), |s: &T| &s.start),
                field("length", core::mem::offset_of!(T, length), |s: &T| &s.length),
                field("hca_va", core::mem::offset_of!(T, hca_va), |s: &T| &s.hca_va),
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
                field("access_flags", core::mem::offset_of!(T, access_flags), |s: &T| &s.access_flags),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_reg_mr_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_reg_mr_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_reg_mr_resp",
            vec![
                field("mr_handle", core::mem::offset_of!(T, mr_handle), |s: &T| &s.mr_handle),
                field("lkey", core::mem::offset_of!(T, lkey), |s: &T| &s.lkey),
                field("rkey", core::mem::offset_of!(T, rkey), |s: &T| &s.rkey),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_dereg_mr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_dereg_mr",
            "uverbs::raw::abi::verbs::ib_uverbs_dereg_mr",
            vec![
                field("mr_handle", core::mem::offset_of!(T, mr_handle), |s: &T| &s.mr_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_comp_channel;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_comp_channel",
            "uverbs::raw::abi::verbs::ib_uverbs_create_comp_channel",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_comp_channel_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_comp_channel_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_comp_channel_resp",
            vec![
                field("fd", core::mem::offset_of!(T, fd), |s: &T| &s.fd),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_cq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_cq",
            "uverbs::raw::abi::verbs::ib_uverbs_create_cq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("user_handle", core::mem::offset_of!(T, user_handle), |s: &T| &s.user_handle),
                field("cqe", core::mem::offset_of!(T, cqe), |s: &T| &s.cqe),
                field("comp_vector", core::mem::offset_of!(T, comp_vector), |s: &T| &s.comp_vector),
                field("comp_channel", core::mem::offset_of!(T, comp_channel), |s: &T| &s.comp_channel),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_cq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_cq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_cq_resp",
            vec![
                field("cq_handle", core::mem::offset_of!(T, cq_handle), |s: &T| &s.cq_handle),
                field("cqe", core::mem::offset_of!(T, cqe), |s: &T| &s.cqe),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_resize_cq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_resize_cq",
            "uverbs::raw::abi::verbs::ib_uverbs_resize_cq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("cq_handle", core::mem::offset_of!(T, cq_handle), |s: &T| &s.cq_handle),
                field("cqe", core::mem::offset_of!(T, cqe), |s: &T| &s.cqe),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_resize_cq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_resize_cq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_resize_cq_resp",
            vec![
                field("cqe", core::mem::offset_of!(T, cqe), |s: &T| &s.cqe),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_cq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_cq",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_cq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("cq_handle", core::mem::offset_of!(T, cq_handle), |s: &T| &s.cq_handle),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_cq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_cq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_cq_resp",
            vec![
                field("comp_events_reported", core::mem::offset_of!(T, comp_events_reported), |s: &T| &s.comp_events_reported),
                field("async_events_reported", core::mem::offset_of!(T, async_events_reported), |s: &T| &s.async_events_reported),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_global_route;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_global_route",
            "uverbs::raw::abi::verbs::ib_uverbs_global_route",
            vec![
                field("dgid", core::mem::offset_of!(T, dgid), |s: &T| &s.dgid),
                field("flow_label", core::mem::offset_of!(T, flow_label), |s: &T| &s.flow_label),
                field("sgid_index", core::mem::offset_of!(T, sgid_index), |s: &T| &s.sgid_index),
                field("hop_limit", core::mem::offset_of!(T, hop_limit), |s: &T| &s.hop_limit),
                field("traffic_class", core::mem::offset_of!(T, traffic_class), |s: &T| &s.traffic_class),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ah_attr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ah_attr",
            "uverbs::raw::abi::verbs::ib_uverbs_ah_attr",
            vec![
                field("grh", core::mem::offset_of!(T, grh), |s: &T| &s.grh),
                field("dlid", core::mem::offset_of!(T, dlid), |s: &T| &s.dlid),
                field("sl", core::mem::offset_of!(T, sl), |s: &T| &s.sl),
                field("src_path_bits", core::mem::offset_of!(T, src_path_bits), |s: &T| &s.src_path_bits),
                field("static_rate", core::mem::offset_of!(T, static_rate), |s: &T| &s.static_rate),
                field("is_global", core::mem::offset_of!(T, is_global), |s: &T| &s.is_global),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_qp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_qp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_qp",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("user_handle", core::mem::offset_of!(T, user_handle), |s: &T| &s.user_handle),
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
                field("send_cq_handle", core::mem::offset_of!(T, send_cq_handle), |s: &T| &s.send_cq_handle),
                field("recv_cq_handle", core::mem::offset_of!(T, recv_cq_handle), |s: &T| &s.recv_cq_handle),
                field("srq_handle", core::mem::offset_of!(T, srq_handle), |s: &T| &s.srq_handle),
                field("max_send_wr", core::mem::offset_of!(T, max_send_wr), |s: &T| &s.max_send_wr),
                field("max_recv_wr", core::mem::offset_of!(T, max_recv_wr), |s: &T| &s.max_recv_wr),
                field("max_send_sge", core::mem::offset_of!(T, max_send_sge), |s: &T| &s.max_send_sge),
                field("max_recv_sge", core::mem::offset_of!(T, max_recv_sge), |s: &T| &s.max_recv_sge),
                field("max_inline_data", core::mem::offset_of!(T, max_inline_data), |s: &T| &s.max_inline_data),
                field("sq_sig_all", core::mem::offset_of!(T, sq_sig_all), |s: &T| &s.sq_sig_all),
                field("qp_type", core::mem::offset_of!(T, qp_type), |s: &T| &s.qp_type),
                field("is_srq", core::mem::offset_of!(T, is_srq), |s: &T| &s.is_srq),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_qp_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_qp_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_qp_resp",
            vec![
                field("qp_handle", core::mem::offset_of!(T, qp_handle), |s: &T| &s.qp_handle),
                field("qpn", core::mem::offset_of!(T, qpn), |s: &T| &s.qpn),
                field("max_send_wr", core::mem::offset_of!(T, max_send_wr), |s: &T| &s.max_send_wr),
                field("max_recv_wr", core::mem::offset_of!(T, max_recv_wr), |s: &T| &s.max_recv_wr),
                field("max_send_sge", core::mem::offset_of!(T, max_send_sge), |s: &T| &s.max_send_sge),
                field("max_recv_sge", core::mem::offset_of!(T, max_recv_sge), |s: &T| &s.max_recv_sge),
                field("max_inline_data", core::mem::offset_of!(T, max_inline_data), |s: &T| &s.max_inline_data),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_qp_dest;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_qp_dest",
            "uverbs::raw::abi::verbs::ib_uverbs_qp_dest",
            vec![
                field("dgid", core::mem::offset_of!(T, dgid), |s: &T| &s.dgid),
                field("flow_label", core::mem::offset_of!(T, flow_label), |s: &T| &s.flow_label),
                field("dlid", core::mem::offset_of!(T, dlid), |s: &T| &s.dlid),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("sgid_index", core::mem::offset_of!(T, sgid_index), |s: &T| &s.sgid_index),
                field("hop_limit", core::mem::offset_of!(T, hop_limit), |s: &T| &s.hop_limit),
                field("traffic_class", core::mem::offset_of!(T, traffic_class), |s: &T| &s.traffic_class),
                field("sl", core::mem::offset_of!(T, sl), |s: &T| &s.sl),
                field("src_path_bits", core::mem::offset_of!(T, src_path_bits), |s: &T| &s.src_path_bits),
                field("static_rate", core::mem::offset_of!(T, static_rate), |s: &T| &s.static_rate),
                field("is_global", core::mem::offset_of!(T, is_global), |s: &T| &s.is_global),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_qp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_qp",
            "uverbs::raw::abi::verbs::ib_uverbs_query_qp",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("qp_handle", core::mem::offset_of!(T, qp_handle), |s: &T| &s.qp_handle),
                field("attr_mask", core::mem::offset_of!(T, attr_mask), |s: &T| &s.attr_mask),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_qp_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_qp_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_query_qp_resp",
            vec![
                field("dest", core::mem::offset_of!(T, dest), |s: &T| &s.dest),
                field("alt_dest", core::mem::offset_of!(T, alt_dest), |s: &T| &s.alt_dest),
                field("max_send_wr", core::mem::offset_of!(T, max_send_wr), |s: &T| &s.max_send_wr),
                field("max_recv_wr", core::mem::offset_of!(T, max_recv_wr), |s: &T| &s.max_recv_wr),
                field("max_send_sge", core::mem::offset_of!(T, max_send_sge), |s: &T| &s.max_send_sge),
                field("max_recv_sge", core::mem::offset_of!(T, max_recv_sge), |s: &T| &s.max_recv_sge),
                field("max_inline_data", core::mem::offset_of!(T, max_inline_data), |s: &T| &s.max_inline_data),
                field("qkey", core::mem::offset_of!(T, qkey), |s: &T| &s.qkey),
                field("rq_psn", core::mem::offset_of!(T, rq_psn), |s: &T| &s.rq_psn),
                field("sq_psn", core::mem::offset_of!(T, sq_psn), |s: &T| &s.sq_psn),
                field("dest_qp_num", core::mem::offset_of!(T, dest_qp_num), |s: &T| &s.dest_qp_num),
                field("qp_access_flags", core::mem::offset_of!(T, qp_access_flags), |s: &T| &s.qp_access_flags),
                field("pkey_index", core::mem::offset_of!(T, pkey_index), |s: &T| &s.pkey_index),
                field("alt_pkey_index", core::mem::offset_of!(T, alt_pkey_index), |s: &T| &s.alt_pkey_index),
                field("qp_state", core::mem::offset_of!(T, qp_state), |s: &T| &s.qp_state),
                field("cur_qp_state", core::mem::offset_of!(T, cur_qp_state), |s: &T| &s.cur_qp_state),
                field("path_mtu", core::mem::offset_of!(T, path_mtu), |s: &T| &s.path_mtu),
                field("path_mig_state", core::mem::offset_of!(T, path_mig_state), |s: &T| &s.path_mig_state),
                field("sq_draining", core::mem::offset_of!(T, sq_draining), |s: &T| &s.sq_draining),
                field("max_rd_atomic", core::mem::offset_of!(T, max_rd_atomic), |s: &T| &s.max_rd_atomic),
                field("max_dest_rd_atomic", core::mem::offset_of!(T, max_dest_rd_atomic), |s: &T| &s.max_dest_rd_atomic),
                field("min_rnr_timer", core::mem::offset_of!(T, min_rnr_timer), |s: &T| &s.min_rnr_timer),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("timeout", core::mem::offset_of!(T, timeout), |s: &T| &s.timeout),
                field("retry_cnt", core::mem::offset_of!(T, retry_cnt), |s: &T| &s.retry_cnt),
                field("rnr_retry", core::mem::offset_of!(T, rnr_retry), |s: &T| &s.rnr_retry),
                field("alt_port_num", core::mem::offset_of!(T, alt_port_num), |s: &T| &s.alt_port_num),
                field("alt_timeout", core::mem::offset_of!(T, alt_timeout), |s: &T| &s.alt_timeout),
                field("sq_sig_all", core::mem::offset_of!(T, sq_sig_all), |s: &T| &s.sq_sig_all),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_modify_qp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_modify_qp",
            "uverbs::raw::abi::verbs::ib_uverbs_modify_qp",
            vec![
                field("dest", core::mem::offset_of!(T, dest), |s: &T| &s.dest),
                field("alt_dest", core::mem::offset_of!(T, alt_dest), |s: &T| &s.alt_dest),
                field("qp_handle", core::mem::offset_of!(T, qp_handle), |s: &T| &s.qp_handle),
                field("attr_mask", core::mem::offset_of!(T, attr_mask), |s: &T| &s.attr_mask),
                field("qkey", core::mem::offset_of!(T, qkey), |s: &T| &s.qkey),
                field("rq_psn", core::mem::offset_of!(T, rq_psn), |s: &T| &s.rq_psn),
                field("sq_psn", core::mem::offset_of!(T, sq_psn), |s: &T| &s.sq_psn),
                field("dest_qp_num", core::mem::offset_of!(T, dest_qp_num), |s: &T| &s.dest_qp_num),
                field("qp_access_flags", core::mem::offset_of!(T, qp_access_flags), |s: &T| &s.qp_access_flags),
                field("pkey_index", core::mem::offset_of!(T, pkey_index), |s: &T| &s.pkey_index),
                field("alt_pkey_index", core::mem::offset_of!(T, alt_pkey_index), |s: &T| &s.alt_pkey_index),
                field("qp_state", core::mem::offset_of!(T, qp_state), |s: &T| &s.qp_state),
                field("cur_qp_state", core::mem::offset_of!(T, cur_qp_state), |s: &T| &s.cur_qp_state),
                field("path_mtu", core::mem::offset_of!(T, path_mtu), |s: &T| &s.path_mtu),
                field("path_mig_state", core::mem::offset_of!(T, path_mig_state), |s: &T| &s.path_mig_state),
                field("en_sqd_async_notify", core::mem::offset_of!(T, en_sqd_async_notify), |s: &T| &s.en_sqd_async_notify),
                field("max_rd_atomic", core::mem::offset_of!(T, max_rd_atomic), |s: &T| &s.max_rd_atomic),
                field("max_dest_rd_atomic", core::mem::offset_of!(T, max_dest_rd_atomic), |s: &T| &s.max_dest_rd_atomic),
                field("min_rnr_timer", core::mem::offset_of!(T, min_rnr_timer), |s: &T| &s.min_rnr_timer),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("timeout", core::mem::offset_of!(T, timeout), |s: &T| &s.timeout),
                field("retry_cnt", core::mem::offset_of!(T, retry_cnt), |s: &T| &s.retry_cnt),
                field("rnr_retry", core::mem::offset_of!(T, rnr_retry), |s: &T| &s.rnr_retry),
                field("alt_port_num", core::mem::offset_of!(T, alt_port_num), |s: &T| &s.alt_port_num),
                field("alt_timeout", core::mem::offset_of!(T, alt_timeout), |s: &T| &s.alt_timeout),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ex_modify_qp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ex_modify_qp",
            "uverbs::raw::abi::verbs::ib_uverbs_ex_modify_qp",
            vec![
                field("base", core::mem::offset_of!(T, base), |s: &T| &s.base),
                field("rate_limit", core::mem::offset_of!(T, rate_limit), |s: &T| &s.rate_limit),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_ex_modify_qp_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_ex_modify_qp_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_ex_modify_qp_resp",
            vec![
                field("comp_mask", core::mem::offset_of!(T, comp_mask), |s: &T| &s.comp_mask),
                field("response_length", core::mem::offset_of!(T, response_length), |s: &T| &s.response_length),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_qp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_qp",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_qp",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("qp_handle", core::mem::offset_of!(T, qp_handle), |s: &T| &s.qp_handle),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_qp_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_qp_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_qp_resp",
            vec![
                field("events_reported", core::mem::offset_of!(T, events_reported), |s: &T| &s.events_reported),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_ah;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_ah",
            "uverbs::raw::abi::verbs::ib_uverbs_create_ah",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("user_handle", core::mem::offset_of!(T, user_handle), |s: &T| &s.user_handle),
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("attr", core::mem::offset_of!(T, attr), |s: &T| &s.attr),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_ah_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_ah_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_ah_resp",
            vec![
                field("ah_handle", core::mem::offset_of!(T, ah_handle), |s: &T| &s.ah_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_ah;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_ah",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_ah",
            vec![
                field("ah_handle", core::mem::offset_of!(T, ah_handle), |s: &T| &s.ah_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_srq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_srq",
            "uverbs::raw::abi::verbs::ib_uverbs_create_srq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("user_handle", core::mem::offset_of!(T, user_handle), |s: &T| &s.user_handle),
                field("pd_handle", core::mem::offset_of!(T, pd_handle), |s: &T| &s.pd_handle),
                field("max_wr", core::mem::offset_of!(T, max_wr), |s: &T| &s.max_wr),
                field("max_sge", core::mem::offset_of!(T, max_sge), |s: &T| &s.max_sge),
                field("srq_limit", core::mem::offset_of!(T, srq_limit), |s: &T| &s.srq_limit),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_create_srq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_create_srq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_create_srq_resp",
            vec![
                field("srq_handle", core::mem::offset_of!(T, srq_handle), |s: &T| &s.srq_handle),
                field("max_wr", core::mem::offset_of!(T, max_wr), |s: &T| &s.max_wr),
                field("max_sge", core::mem::offset_of!(T, max_sge), |s: &T| &s.max_sge),
                field("srqn", core::mem::offset_of!(T, srqn), |s: &T| &s.srqn),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_modify_srq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_modify_srq",
            "uverbs::raw::abi::verbs::ib_uverbs_modify_srq",
            vec![
                field("srq_handle", core::mem::offset_of!(T, srq_handle), |s: &T| &s.srq_handle),
                field("attr_mask", core::mem::offset_of!(T, attr_mask), |s: &T| &s.attr_mask),
                field("max_wr", core::mem::offset_of!(T, max_wr), |s: &T| &s.max_wr),
                field("srq_limit", core::mem::offset_of!(T, srq_limit), |s: &T| &s.srq_limit),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_srq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_srq",
            "uverbs::raw::abi::verbs::ib_uverbs_query_srq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("srq_handle", core::mem::offset_of!(T, srq_handle), |s: &T| &s.srq_handle),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_query_srq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_query_srq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_query_srq_resp",
            vec![
                field("max_wr", core::mem::offset_of!(T, max_wr), |s: &T| &s.max_wr),
                field("max_sge", core::mem::offset_of!(T, max_sge), |s: &T| &s.max_sge),
                field("srq_limit", core::mem::offset_of!(T, srq_limit), |s: &T| &s.srq_limit),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_srq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_srq",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_srq",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("srq_handle", core::mem::offset_of!(T, srq_handle), |s: &T| &s.srq_handle),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_destroy_srq_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_destroy_srq_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_destroy_srq_resp",
            vec![
                field("events_reported", core::mem::offset_of!(T, events_reported), |s: &T| &s.events_reported),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_comp_event_desc;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_comp_event_desc",
            "uverbs::raw::abi::verbs::ib_uverbs_comp_event_desc",
            vec![
                field("cq_handle", core::mem::offset_of!(T, cq_handle), |s: &T| &s.cq_handle),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_wc;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_wc",
            "uverbs::raw::abi::verbs::ib_uverbs_wc",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("status", core::mem::offset_of!(T, status), |s: &T| &s.status),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("vendor_err", core::mem::offset_of!(T, vendor_err), |s: &T| &s.vendor_err),
                field("byte_len", core::mem::offset_of!(T, byte_len), |s: &T| &s.byte_len),
                field("ex", core::mem::offset_of!(T, ex), |s: &T| &s.ex),
                field("qp_num", core::mem::offset_of!(T, qp_num), |s: &T| &s.qp_num),
                field("src_qp", core::mem::offset_of!(T, src_qp), |s: &T| &s.src_qp),
                field("wc_flags", core::mem::offset_of!(T, wc_flags), |s: &T| &s.wc_flags),
                field("pkey_index", core::mem::offset_of!(T, pkey_index), |s: &T| &s.pkey_index),
                field("slid", core::mem::offset_of!(T, slid), |s: &T| &s.slid),
                field("sl", core::mem::offset_of!(T, sl), |s: &T| &s.sl),
                field("dlid_path_bits", core::mem::offset_of!(T, dlid_path_bits), |s: &T| &s.dlid_path_bits),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_req_notify_cq;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_req_notify_cq",
            "uverbs::raw::abi::verbs::ib_uverbs_req_notify_cq",
            vec![
                field("cq_handle", core::mem::offset_of!(T, cq_handle), |s: &T| &s.cq_handle),
                field("solicited_only", core::mem::offset_of!(T, solicited_only), |s: &T| &s.solicited_only),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_send_wr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_send_wr",
            "uverbs::raw::abi::verbs::ib_uverbs_send_wr",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("num_sge", core::mem::offset_of!(T, num_sge), |s: &T| &s.num_sge),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("send_flags", core::mem::offset_of!(T, send_flags), |s: &T| &s.send_flags),
                field("ex", core::mem::offset_of!(T, ex), |s: &T| &s.ex),
                field("wr", core::mem::offset_of!(T, wr), |s: &T| &s.wr),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_post_send;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_post_send",
            "uverbs::raw::abi::verbs::ib_uverbs_post_send",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("qp_handle", core::mem::offset_of!(T, qp_handle), |s: &T| &s.qp_handle),
                field("wr_count", core::mem::offset_of!(T, wr_count), |s: &T| &s.wr_count),
                field("sge_count", core::mem::offset_of!(T, sge_count), |s: &T| &s.sge_count),
                field("wqe_size", core::mem::offset_of!(T, wqe_size), |s: &T| &s.wqe_size),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_post_send_resp;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_post_send_resp",
            "uverbs::raw::abi::verbs::ib_uverbs_post_send_resp",
            vec![
                field("bad_wr", core::mem::offset_of!(T, bad_wr), |s: &T| &s.bad_wr),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::verbs::ib_uverbs_qp_attr;
        t.structs.push(RustStruct::new::<T>(
            "ib_uverbs_qp_attr",
            "uverbs::raw::abi::verbs::ib_uverbs_qp_attr",
            vec![
                field("qp_attr_mask", core::mem::offset_of!(T, qp_attr_mask), |s: &T| &s.qp_attr_mask),
                field("qp_state", core::mem::offset_of!(T, qp_state), |s: &T| &s.qp_state),
                field("cur_qp_state", core::mem::offset_of!(T, cur_qp_state), |s: &T| &s.cur_qp_state),
                field("path_mtu", core::mem::offset_of!(T, path_mtu), |s: &T| &s.path_mtu),
                field("path_mig_state", core::mem::offset_of!(T, path_mig_state), |s: &T| &s.path_mig_state),
                field("qkey", core::mem::offset_of!(T, qkey), |s: &T| &s.qkey),
                field("rq_psn", core::mem::offset_of!(T, rq_psn), |s: &T| &s.rq_psn),
                field("sq_psn", core::mem::offset_of!(T, sq_psn), |s: &T| &s.sq_psn),
                field("dest_qp_num", core::mem::offset_of!(T, dest_qp_num), |s: &T| &s.dest_qp_num),
                field("qp_access_flags", core::mem::offset_of!(T, qp_access_flags), |s: &T| &s.qp_access_flags),
                field("ah_attr", core::mem::offset_of!(T, ah_attr), |s: &T| &s.ah_attr),
                field("alt_ah_attr", core::mem::offset_of!(T, alt_ah_attr), |s: &T| &s.alt_ah_attr),
                field("max_send_wr", core::mem::offset_of!(T, max_send_wr), |s: &T| &s.max_send_wr),
                field("max_recv_wr", core::mem::offset_of!(T, max_recv_wr), |s: &T| &s.max_recv_wr),
                field("max_send_sge", core::mem::offset_of!(T, max_send_sge), |s: &T| &s.max_send_sge),
                field("max_recv_sge", core::mem::offset_of!(T, max_recv_sge), |s: &T| &s.max_recv_sge),
                field("max_inline_data", core::mem::offset_of!(T, max_inline_data), |s: &T| &s.max_inline_data),
                field("pkey_index", core::mem::offset_of!(T, pkey_index), |s: &T| &s.pkey_index),
                field("alt_pkey_index", core::mem::offset_of!(T, alt_pkey_index), |s: &T| &s.alt_pkey_index),
                field("en_sqd_async_notify", core::mem::offset_of!(T, en_sqd_async_notify), |s: &T| &s.en_sqd_async_notify),
                field("sq_draining", core::mem::offset_of!(T, sq_draining), |s: &T| &s.sq_draining),
                field("max_rd_atomic", core::mem::offset_of!(T, max_rd_atomic), |s: &T| &s.max_rd_atomic),
                field("max_dest_rd_atomic", core::mem::offset_of!(T, max_dest_rd_atomic), |s: &T| &s.max_dest_rd_atomic),
                field("min_rnr_timer", core::mem::offset_of!(T, min_rnr_timer), |s: &T| &s.min_rnr_timer),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("timeout", core::mem::offset_of!(T, timeout), |s: &T| &s.timeout),
                field("retry_cnt", core::mem::offset_of!(T, retry_cnt), |s: &T| &s.retry_cnt),
                field("rnr_retry", core::mem::offset_of!(T, rnr_retry), |s: &T| &s.rnr_retry),
                field("alt_port_num", core::mem::offset_of!(T, alt_port_num), |s: &T| &s.alt_port_num),
                field("alt_timeout", core::mem::offset_of!(T, alt_timeout), |s: &T| &s.alt_timeout),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::sockaddr_in6;
        t.structs.push(RustStruct::new::<T>(
            "sockaddr_in6",
            "uverbs::raw::abi::rdma_cm::sockaddr_in6",
            vec![
                field("sin6_family", core::mem::offset_of!(T, sin6_family), |s: &T| &s.sin6_family),
                field("sin6_port", core::mem::offset_of!(T, sin6_port), |s: &T| &s.sin6_port),
                field("sin6_flowinfo", core::mem::offset_of!(T, sin6_flowinfo), |s: &T| &s.sin6_flowinfo),
                field("sin6_addr", core::mem::offset_of!(T, sin6_addr), |s: &T| &s.sin6_addr),
                field("sin6_scope_id", core::mem::offset_of!(T, sin6_scope_id), |s: &T| &s.sin6_scope_id),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::__kernel_sockaddr_storage;
        t.structs.push(RustStruct::new::<T>(
            "__kernel_sockaddr_storage",
            "uverbs::raw::abi::rdma_cm::__kernel_sockaddr_storage",
            vec![
                field("ss_family", core::mem::offset_of!(T, ss_family), |s: &T| &s.ss_family),
                field("data", core::mem::offset_of!(T, data), |s: &T| &s.data),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_cmd_hdr;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_cmd_hdr",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_cmd_hdr",
            vec![
                field("cmd", core::mem::offset_of!(T, cmd), |s: &T| &s.cmd),
                field("in_", core::mem::offset_of!(T, in_), |s: &T| &s.in_),
                field("out", core::mem::offset_of!(T, out), |s: &T| &s.out),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_create_id;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_create_id",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_create_id",
            vec![
                field("uid", core::mem::offset_of!(T, uid), |s: &T| &s.uid),
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("ps", core::mem::offset_of!(T, ps), |s: &T| &s.ps),
                field("qp_type", core::mem::offset_of!(T, qp_type), |s: &T| &s.qp_type),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_create_id_resp;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_create_id_resp",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_create_id_resp",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_destroy_id;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_destroy_id",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_destroy_id",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_destroy_id_resp;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_destroy_id_resp",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_destroy_id_resp",
            vec![
                field("events_reported", core::mem::offset_of!(T, events_reported), |s: &T| &s.events_reported),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_bind_ip;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_bind_ip",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_bind_ip",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("addr", core::mem::offset_of!(T, addr), |s: &T| &s.addr),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_resolve_ip;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_resolve_ip",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_resolve_ip",
            vec![
                field("src_addr", core::mem::offset_of!(T, src_addr), |s: &T| &s.src_addr),
                field("dst_addr", core::mem::offset_of!(T, dst_addr), |s: &T| &s.dst_addr),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("timeout_ms", core::mem::offset_of!(T, timeout_ms), |s: &T| &s.timeout_ms),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_resolve_route;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_resolve_route",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_resolve_route",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("timeout_ms", core::mem::offset_of!(T, timeout_ms), |s: &T| &s.timeout_ms),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_query;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_query",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_query",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("option", core::mem::offset_of!(T, option), |s: &T| &s.option),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_query_addr_resp;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_query_addr_resp",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_query_addr_resp",
            vec![
                field("node_guid", core::mem::offset_of!(T, node_guid), |s: &T| &s.node_guid),
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("pkey", core::mem::offset_of!(T, pkey), |s: &T| &s.pkey),
                field("src_size", core::mem::offset_of!(T, src_size), |s: &T| &s.src_size),
                field("dst_size", core::mem::offset_of!(T, dst_size), |s: &T| &s.dst_size),
                field("src_addr", core::mem::offset_of!(T, src_addr), |s: &T| &s.src_addr),
                field("dst_addr", core::mem::offset_of!(T, dst_addr), |s: &T| &s.dst_addr),
                field("ibdev_index", core::mem::offset_of!(T, ibdev_index), |s: &T| &s.ibdev_index),
                field("reserved1", core::mem::offset_of!(T, reserved1), |s: &T| &s.reserved1),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_conn_param;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_conn_param",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_conn_param",
            vec![
                field("qp_num", core::mem::offset_of!(T, qp_num), |s: &T| &s.qp_num),
                field("qkey", core::mem::offset_of!(T, qkey), |s: &T| &s.qkey),
                field("private_data", core::mem::offset_of!(T, private_data), |s: &T| &s.private_data),
                field("private_data_len", core::mem::offset_of!(T, private_data_len), |s: &T| &s.private_data_len),
                field("srq", core::mem::offset_of!(T, srq), |s: &T| &s.srq),
                field("responder_resources", core::mem::offset_of!(T, responder_resources), |s: &T| &s.responder_resources),
                field("initiator_depth", core::mem::offset_of!(T, initiator_depth), |s: &T| &s.initiator_depth),
                field("flow_control", core::mem::offset_of!(T, flow_control), |s: &T| &s.flow_control),
                field("retry_count", core::mem::offset_of!(T, retry_count), |s: &T| &s.retry_count),
                field("rnr_retry_count", core::mem::offset_of!(T, rnr_retry_count), |s: &T| &s.rnr_retry_count),
                field("valid", core::mem::offset_of!(T, valid), |s: &T| &s.valid),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_ud_param;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_ud_param",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_ud_param",
            vec![
                field("qp_num", core::mem::offset_of!(T, qp_num), |s: &T| &s.qp_num),
                field("qkey", core::mem::offset_of!(T, qkey), |s: &T| &s.qkey),
                field("ah_attr", core::mem::offset_of!(T, ah_attr), |s: &T| &s.ah_attr),
                field("private_data", core::mem::offset_of!(T, private_data), |s: &T| &s.private_data),
                field("private_data_len", core::mem::offset_of!(T, private_data_len), |s: &T| &s.private_data_len),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_ece;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_ece",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_ece",
            vec![
                field("vendor_id", core::mem::offset_of!(T, vendor_id), |s: &T| &s.vendor_id),
                field("attr_mod", core::mem::offset_of!(T, attr_mod), |s: &T| &s.attr_mod),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_connect;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_connect",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_connect",
            vec![
                field("conn_param", core::mem::offset_of!(T, conn_param), |s: &T| &s.conn_param),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("ece", core::mem::offset_of!(T, ece), |s: &T| &s.ece),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_listen;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_listen",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_listen",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("backlog", core::mem::offset_of!(T, backlog), |s: &T| &s.backlog),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_accept;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_accept",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_accept",
            vec![
                field("uid", core::mem::offset_of!(T, uid), |s: &T| &s.uid),
                field("conn_param", core::mem::offset_of!(T, conn_param), |s: &T| &s.conn_param),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("ece", core::mem::offset_of!(T, ece), |s: &T| &s.ece),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_disconnect;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_disconnect",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_disconnect",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_init_qp_attr;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_init_qp_attr",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_init_qp_attr",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("qp_state", core::mem::offset_of!(T, qp_state), |s: &T| &s.qp_state),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_get_event;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_get_event",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_get_event",
            vec![
                field("response", core::mem::offset_of!(T, response), |s: &T| &s.response),
            ],
        ));
    }
    {
        type T = uverbs::raw::abi::rdma_cm::rdma_ucm_event_resp;
        t.structs.push(RustStruct::new::<T>(
            "rdma_ucm_event_resp",
            "uverbs::raw::abi::rdma_cm::rdma_ucm_event_resp",
            vec![
                field("uid", core::mem::offset_of!(T, uid), |s: &T| &s.uid),
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("event", core::mem::offset_of!(T, event), |s: &T| &s.event),
                field("status", core::mem::offset_of!(T, status), |s: &T| &s.status),
                field("param", core::mem::offset_of!(T, param), |s: &T| &s.param),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("ece", core::mem::offset_of!(T, ece), |s: &T| &s.ece),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::mminfo;
        t.structs.push(RustStruct::new::<T>(
            "mminfo",
            "uverbs::raw::driver::mminfo",
            vec![
                field("offset", core::mem::offset_of!(T, offset), |s: &T| &s.offset),
                field("size", core::mem::offset_of!(T, size), |s: &T| &s.size),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_create_ah_resp;
        t.structs.push(RustStruct::new::<T>(
            "rxe_create_ah_resp",
            "uverbs::raw::driver::rxe_create_ah_resp",
            vec![
                field("ah_num", core::mem::offset_of!(T, ah_num), |s: &T| &s.ah_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_create_cq_resp;
        t.structs.push(RustStruct::new::<T>(
            "rxe_create_cq_resp",
            "uverbs::raw::driver::rxe_create_cq_resp",
            vec![
                field("mi", core::mem::offset_of!(T, mi), |s: &T| &s.mi),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_resize_cq_resp;
        t.structs.push(RustStruct::new::<T>(
            "rxe_resize_cq_resp",
            "uverbs::raw::driver::rxe_resize_cq_resp",
            vec![
                field("mi", core::mem::offset_of!(T, mi), |s: &T| &s.mi),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_create_qp_resp;
        t.structs.push(RustStruct::new::<T>(
            "rxe_create_qp_resp",
            "uverbs::raw::driver::rxe_create_qp_resp",
            vec![
                field("rq_mi", core::mem::offset_of!(T, rq_mi), |s: &T| &s.rq_mi),
                field("sq_mi", core::mem::offset_of!(T, sq_mi), |s: &T| &s.sq_mi),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_create_srq_resp;
        t.structs.push(RustStruct::new::<T>(
            "rxe_create_srq_resp",
            "uverbs::raw::driver::rxe_create_srq_resp",
            vec![
                field("mi", core::mem::offset_of!(T, mi), |s: &T| &s.mi),
                field("srq_num", core::mem::offset_of!(T, srq_num), |s: &T| &s.srq_num),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_modify_srq_cmd;
        t.structs.push(RustStruct::new::<T>(
            "rxe_modify_srq_cmd",
            "uverbs::raw::driver::rxe_modify_srq_cmd",
            vec![
                field("mmap_info_addr", core::mem::offset_of!(T, mmap_info_addr), |s: &T| &s.mmap_info_addr),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_sge;
        t.structs.push(RustStruct::new::<T>(
            "rxe_sge",
            "uverbs::raw::driver::rxe_sge",
            vec![
                field("addr", core::mem::offset_of!(T, addr), |s: &T| &s.addr),
                field("length", core::mem::offset_of!(T, length), |s: &T| &s.length),
                field("lkey", core::mem::offset_of!(T, lkey), |s: &T| &s.lkey),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_dma_info;
        t.structs.push(RustStruct::new::<T>(
            "rxe_dma_info",
            "uverbs::raw::driver::rxe_dma_info",
            vec![
                field("length", core::mem::offset_of!(T, length), |s: &T| &s.length),
                field("resid", core::mem::offset_of!(T, resid), |s: &T| &s.resid),
                field("cur_sge", core::mem::offset_of!(T, cur_sge), |s: &T| &s.cur_sge),
                field("num_sge", core::mem::offset_of!(T, num_sge), |s: &T| &s.num_sge),
                field("sge_offset", core::mem::offset_of!(T, sge_offset), |s: &T| &s.sge_offset),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_global_route;
        t.structs.push(RustStruct::new::<T>(
            "rxe_global_route",
            "uverbs::raw::driver::rxe_global_route",
            vec![
                field("dgid", core::mem::offset_of!(T, dgid), |s: &T| &s.dgid),
                field("flow_label", core::mem::offset_of!(T, flow_label), |s: &T| &s.flow_label),
                field("sgid_index", core::mem::offset_of!(T, sgid_index), |s: &T| &s.sgid_index),
                field("hop_limit", core::mem::offset_of!(T, hop_limit), |s: &T| &s.hop_limit),
                field("traffic_class", core::mem::offset_of!(T, traffic_class), |s: &T| &s.traffic_class),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_av;
        t.structs.push(RustStruct::new::<T>(
            "rxe_av",
            "uverbs::raw::driver::rxe_av",
            vec![
                field("port_num", core::mem::offset_of!(T, port_num), |s: &T| &s.port_num),
                field("network_type", core::mem::offset_of!(T, network_type), |s: &T| &s.network_type),
                field("dmac", core::mem::offset_of!(T, dmac), |s: &T| &s.dmac),
                field("grh", core::mem::offset_of!(T, grh), |s: &T| &s.grh),
                field("sgid_addr", core::mem::offset_of!(T, sgid_addr), |s: &T| &s.sgid_addr),
                field("dgid_addr", core::mem::offset_of!(T, dgid_addr), |s: &T| &s.dgid_addr),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_send_wr;
        t.structs.push(RustStruct::new::<T>(
            "rxe_send_wr",
            "uverbs::raw::driver::rxe_send_wr",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("send_flags", core::mem::offset_of!(T, send_flags), |s: &T| &s.send_flags),
                field("ex", core::mem::offset_of!(T, ex), |s: &T| &s.ex),
                field("remote_qpn", core::mem::offset_of!(T, remote_qpn), |s: &T| &s.remote_qpn),
                field("remote_qkey", core::mem::offset_of!(T, remote_qkey), |s: &T| &s.remote_qkey),
                field("pkey_index", core::mem::offset_of!(T, pkey_index), |s: &T| &s.pkey_index),
                field("ud_reserved", core::mem::offset_of!(T, ud_reserved), |s: &T| &s.ud_reserved),
                field("ah_num", core::mem::offset_of!(T, ah_num), |s: &T| &s.ah_num),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
                field("av", core::mem::offset_of!(T, av), |s: &T| &s.av),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_send_wr_rdma;
        t.structs.push(RustStruct::new::<T>(
            "rxe_send_wr",
            "uverbs::raw::driver::rxe_send_wr_rdma",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("send_flags", core::mem::offset_of!(T, send_flags), |s: &T| &s.send_flags),
                field("ex", core::mem::offset_of!(T, ex), |s: &T| &s.ex),
                field("remote_addr", core::mem::offset_of!(T, remote_addr), |s: &T| &s.remote_addr),
                field("rkey", core::mem::offset_of!(T, rkey), |s: &T| &s.rkey),
                field("rdma_reserved", core::mem::offset_of!(T, rdma_reserved), |s: &T| &s.rdma_reserved),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
                field("av", core::mem::offset_of!(T, av), |s: &T| &s.av),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_send_wr_atomic;
        t.structs.push(RustStruct::new::<T>(
            "rxe_send_wr",
            "uverbs::raw::driver::rxe_send_wr_atomic",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("send_flags", core::mem::offset_of!(T, send_flags), |s: &T| &s.send_flags),
                field("ex", core::mem::offset_of!(T, ex), |s: &T| &s.ex),
                field("remote_addr", core::mem::offset_of!(T, remote_addr), |s: &T| &s.remote_addr),
                field("compare_add", core::mem::offset_of!(T, compare_add), |s: &T| &s.compare_add),
                field("swap", core::mem::offset_of!(T, swap), |s: &T| &s.swap),
                field("rkey", core::mem::offset_of!(T, rkey), |s: &T| &s.rkey),
                field("atomic_reserved", core::mem::offset_of!(T, atomic_reserved), |s: &T| &s.atomic_reserved),
                field("av", core::mem::offset_of!(T, av), |s: &T| &s.av),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_send_wqe;
        t.structs.push(RustStruct::new::<T>(
            "rxe_send_wqe",
            "uverbs::raw::driver::rxe_send_wqe",
            vec![
                field("wr", core::mem::offset_of!(T, wr), |s: &T| &s.wr),
                field("status", core::mem::offset_of!(T, status), |s: &T| &s.status),
                field("state", core::mem::offset_of!(T, state), |s: &T| &s.state),
                field("iova", core::mem::offset_of!(T, iova), |s: &T| &s.iova),
                field("mask", core::mem::offset_of!(T, mask), |s: &T| &s.mask),
                field("first_psn", core::mem::offset_of!(T, first_psn), |s: &T| &s.first_psn),
                field("last_psn", core::mem::offset_of!(T, last_psn), |s: &T| &s.last_psn),
                field("ack_length", core::mem::offset_of!(T, ack_length), |s: &T| &s.ack_length),
                field("ssn", core::mem::offset_of!(T, ssn), |s: &T| &s.ssn),
                field("has_rd_atomic", core::mem::offset_of!(T, has_rd_atomic), |s: &T| &s.has_rd_atomic),
                field("dma", core::mem::offset_of!(T, dma), |s: &T| &s.dma),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_recv_wqe;
        t.structs.push(RustStruct::new::<T>(
            "rxe_recv_wqe",
            "uverbs::raw::driver::rxe_recv_wqe",
            vec![
                field("wr_id", core::mem::offset_of!(T, wr_id), |s: &T| &s.wr_id),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("padding", core::mem::offset_of!(T, padding), |s: &T| &s.padding),
                field("dma", core::mem::offset_of!(T, dma), |s: &T| &s.dma),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::rxe_queue_buf;
        t.structs.push(RustStruct::new::<T>(
            "rxe_queue_buf",
            "uverbs::raw::driver::rxe_queue_buf",
            vec![
                field("log2_elem_size", core::mem::offset_of!(T, log2_elem_size), |s: &T| &s.log2_elem_size),
                field("index_mask", core::mem::offset_of!(T, index_mask), |s: &T| &s.index_mask),
                field("pad_1", core::mem::offset_of!(T, pad_1), |s: &T| &s.pad_1),
                field("producer_index", core::mem::offset_of!(T, producer_index), |s: &T| &s.producer_index),
                field("pad_2", core::mem::offset_of!(T, pad_2), |s: &T| &s.pad_2),
                field("consumer_index", core::mem::offset_of!(T, consumer_index), |s: &T| &s.consumer_index),
                field("pad_3", core::mem::offset_of!(T, pad_3), |s: &T| &s.pad_3),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_uresp_create_cq;
        t.structs.push(RustStruct::new::<T>(
            "siw_uresp_create_cq",
            "uverbs::raw::driver::siw_uresp_create_cq",
            vec![
                field("cq_id", core::mem::offset_of!(T, cq_id), |s: &T| &s.cq_id),
                field("num_cqe", core::mem::offset_of!(T, num_cqe), |s: &T| &s.num_cqe),
                field("cq_key", core::mem::offset_of!(T, cq_key), |s: &T| &s.cq_key),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_uresp_create_qp;
        t.structs.push(RustStruct::new::<T>(
            "siw_uresp_create_qp",
            "uverbs::raw::driver::siw_uresp_create_qp",
            vec![
                field("qp_id", core::mem::offset_of!(T, qp_id), |s: &T| &s.qp_id),
                field("num_sqe", core::mem::offset_of!(T, num_sqe), |s: &T| &s.num_sqe),
                field("num_rqe", core::mem::offset_of!(T, num_rqe), |s: &T| &s.num_rqe),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
                field("sq_key", core::mem::offset_of!(T, sq_key), |s: &T| &s.sq_key),
                field("rq_key", core::mem::offset_of!(T, rq_key), |s: &T| &s.rq_key),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_ureq_reg_mr;
        t.structs.push(RustStruct::new::<T>(
            "siw_ureq_reg_mr",
            "uverbs::raw::driver::siw_ureq_reg_mr",
            vec![
                field("stag_key", core::mem::offset_of!(T, stag_key), |s: &T| &s.stag_key),
                field("reserved", core::mem::offset_of!(T, reserved), |s: &T| &s.reserved),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_uresp_reg_mr;
        t.structs.push(RustStruct::new::<T>(
            "siw_uresp_reg_mr",
            "uverbs::raw::driver::siw_uresp_reg_mr",
            vec![
                field("stag", core::mem::offset_of!(T, stag), |s: &T| &s.stag),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_uresp_create_srq;
        t.structs.push(RustStruct::new::<T>(
            "siw_uresp_create_srq",
            "uverbs::raw::driver::siw_uresp_create_srq",
            vec![
                field("num_rqe", core::mem::offset_of!(T, num_rqe), |s: &T| &s.num_rqe),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
                field("srq_key", core::mem::offset_of!(T, srq_key), |s: &T| &s.srq_key),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_sge;
        t.structs.push(RustStruct::new::<T>(
            "siw_sge",
            "uverbs::raw::driver::siw_sge",
            vec![
                field("laddr", core::mem::offset_of!(T, laddr), |s: &T| &s.laddr),
                field("length", core::mem::offset_of!(T, length), |s: &T| &s.length),
                field("lkey", core::mem::offset_of!(T, lkey), |s: &T| &s.lkey),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_sqe;
        t.structs.push(RustStruct::new::<T>(
            "siw_sqe",
            "uverbs::raw::driver::siw_sqe",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("num_sge", core::mem::offset_of!(T, num_sge), |s: &T| &s.num_sge),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("rkey", core::mem::offset_of!(T, rkey), |s: &T| &s.rkey),
                field("raddr", core::mem::offset_of!(T, raddr), |s: &T| &s.raddr),
                field("sge", core::mem::offset_of!(T, sge), |s: &T| &s.sge),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_rqe;
        t.structs.push(RustStruct::new::<T>(
            "siw_rqe",
            "uverbs::raw::driver::siw_rqe",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("num_sge", core::mem::offset_of!(T, num_sge), |s: &T| &s.num_sge),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("unused", core::mem::offset_of!(T, unused), |s: &T| &s.unused),
                field("sge", core::mem::offset_of!(T, sge), |s: &T| &s.sge),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_cqe;
        t.structs.push(RustStruct::new::<T>(
            "siw_cqe",
            "uverbs::raw::driver::siw_cqe",
            vec![
                field("id", core::mem::offset_of!(T, id), |s: &T| &s.id),
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("opcode", core::mem::offset_of!(T, opcode), |s: &T| &s.opcode),
                field("status", core::mem::offset_of!(T, status), |s: &T| &s.status),
                field("bytes", core::mem::offset_of!(T, bytes), |s: &T| &s.bytes),
                field("imm_data", core::mem::offset_of!(T, imm_data), |s: &T| &s.imm_data),
                field("qp_id", core::mem::offset_of!(T, qp_id), |s: &T| &s.qp_id),
            ],
        ));
    }
    {
        type T = uverbs::raw::driver::siw_cq_ctrl;
        t.structs.push(RustStruct::new::<T>(
            "siw_cq_ctrl",
            "uverbs::raw::driver::siw_cq_ctrl",
            vec![
                field("flags", core::mem::offset_of!(T, flags), |s: &T| &s.flags),
                field("pad", core::mem::offset_of!(T, pad), |s: &T| &s.pad),
            ],
        ));
    }
    t.values.push(value("uverbs::raw::abi::ioctl::RDMA_IOCTL_MAGIC", uverbs::raw::abi::ioctl::RDMA_IOCTL_MAGIC));
    t.values.push(value("uverbs::raw::abi::ioctl::RDMA_VERBS_IOCTL", uverbs::raw::abi::ioctl::RDMA_VERBS_IOCTL));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_F_MANDATORY", uverbs::raw::abi::ioctl::UVERBS_ATTR_F_MANDATORY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_F_VALID_OUTPUT", uverbs::raw::abi::ioctl::UVERBS_ATTR_F_VALID_OUTPUT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ID_NS_SHIFT", uverbs::raw::abi::ioctl::UVERBS_ID_NS_SHIFT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ID_NS_MASK", uverbs::raw::abi::ioctl::UVERBS_ID_NS_MASK));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_UHW_IN", uverbs::raw::abi::ioctl::UVERBS_ATTR_UHW_IN));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_UHW_OUT", uverbs::raw::abi::ioctl::UVERBS_ATTR_UHW_OUT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_DEVICE", uverbs::raw::abi::ioctl::UVERBS_OBJECT_DEVICE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_ASYNC_EVENT", uverbs::raw::abi::ioctl::UVERBS_OBJECT_ASYNC_EVENT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_INVOKE_WRITE", uverbs::raw::abi::ioctl::UVERBS_METHOD_INVOKE_WRITE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_INFO_HANDLES", uverbs::raw::abi::ioctl::UVERBS_METHOD_INFO_HANDLES));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_PORT", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_PORT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_GET_CONTEXT", uverbs::raw::abi::ioctl::UVERBS_METHOD_GET_CONTEXT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_CONTEXT", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_CONTEXT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_GID_TABLE", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_GID_TABLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_GID_ENTRY", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_GID_ENTRY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CORE_IN", uverbs::raw::abi::ioctl::UVERBS_ATTR_CORE_IN));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CORE_OUT", uverbs::raw::abi::ioctl::UVERBS_ATTR_CORE_OUT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_WRITE_CMD", uverbs::raw::abi::ioctl::UVERBS_ATTR_WRITE_CMD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_PORT_NUM", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_PORT_NUM));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_RESP", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_RESP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS", uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT", uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_FLAGS", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_FLAGS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_PORT", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_PORT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_ASYNC_EVENT_ALLOC", uverbs::raw::abi::ioctl::UVERBS_METHOD_ASYNC_EVENT_ALLOC));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_IB", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_IB));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_ROCE_V1", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_ROCE_V1));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_ROCE_V2", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_GID_TYPE_ROCE_V2));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPF_GRH_REQUIRED", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPF_GRH_REQUIRED));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SM", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SM));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_NOTICE_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_NOTICE_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_TRAP_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_TRAP_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_OPT_IPD_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_OPT_IPD_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_AUTO_MIGR_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_AUTO_MIGR_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SL_MAP_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SL_MAP_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MKEY_NVRAM", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MKEY_NVRAM));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_PKEY_NVRAM", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_PKEY_NVRAM));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LED_INFO_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LED_INFO_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SM_DISABLED", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SM_DISABLED));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CM_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CM_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SNMP_TUNNEL_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_SNMP_TUNNEL_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_REINIT_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_REINIT_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_DEVICE_MGMT_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_DEVICE_MGMT_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_VENDOR_CLASS_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_VENDOR_CLASS_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_DR_NOTICE_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_DR_NOTICE_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_BOOT_MGMT_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_BOOT_MGMT_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LINK_LATENCY_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LINK_LATENCY_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CLIENT_REG_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_CLIENT_REG_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MCAST_FDB_TOP_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_MCAST_FDB_TOP_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_HIERARCHY_INFO_SUP", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_HIERARCHY_INFO_SUP));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_IP_BASED_GIDS", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_PCF_IP_BASED_GIDS));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_UNKNOWN", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_UNKNOWN));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX5", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX5));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX4", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MLX4));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_CXGB3", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_CXGB3));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_CXGB4", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_CXGB4));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MTHCA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MTHCA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_BNXT_RE", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_BNXT_RE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_OCRDMA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_OCRDMA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_NES", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_NES));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_I40IW", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_I40IW));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_IRDMA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_IRDMA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_VMW_PVRDMA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_VMW_PVRDMA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_QEDR", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_QEDR));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_HNS", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_HNS));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_USNIC", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_USNIC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_RXE", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_RXE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_HFI1", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_HFI1));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_QIB", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_QIB));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_EFA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_EFA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_SIW", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_SIW));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_ERDMA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_ERDMA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MANA", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_MANA));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_IONIC", uverbs::raw::abi::ioctl_verbs::RDMA_DRIVER_IONIC));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_ABI_VERSION", uverbs::raw::abi::verbs::IB_USER_VERBS_ABI_VERSION));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_COMMAND_MASK", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_COMMAND_MASK));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_FLAG_EXTENDED", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_FLAG_EXTENDED));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_GET_CONTEXT", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_GET_CONTEXT));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_DEVICE", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_DEVICE));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_PORT", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_PORT));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_QUERY_DEVICE", uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_QUERY_DEVICE));
    t.values.push(value("uverbs::raw::abi::netlink::NETLINK_RDMA", uverbs::raw::abi::netlink::NETLINK_RDMA));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_ALIGNTO", uverbs::raw::abi::netlink::NLMSG_ALIGNTO));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_HDRLEN", uverbs::raw::abi::netlink::NLMSG_HDRLEN));
    t.values.push(value("uverbs::raw::abi::netlink::NLA_ALIGNTO", uverbs::raw::abi::netlink::NLA_ALIGNTO));
    t.values.push(value("uverbs::raw::abi::netlink::NLA_HDRLEN", uverbs::raw::abi::netlink::NLA_HDRLEN));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_REQUEST", uverbs::raw::abi::netlink::NLM_F_REQUEST));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_MULTI", uverbs::raw::abi::netlink::NLM_F_MULTI));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_ACK", uverbs::raw::abi::netlink::NLM_F_ACK));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_DUMP_INTR", uverbs::raw::abi::netlink::NLM_F_DUMP_INTR));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_ROOT", uverbs::raw::abi::netlink::NLM_F_ROOT));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_MATCH", uverbs::raw::abi::netlink::NLM_F_MATCH));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_DUMP", uverbs::raw::abi::netlink::NLM_F_DUMP));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_EXCL", uverbs::raw::abi::netlink::NLM_F_EXCL));
    t.values.push(value("uverbs::raw::abi::netlink::NLM_F_CREATE", uverbs::raw::abi::netlink::NLM_F_CREATE));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_NOOP", uverbs::raw::abi::netlink::NLMSG_NOOP));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_ERROR", uverbs::raw::abi::netlink::NLMSG_ERROR));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_DONE", uverbs::raw::abi::netlink::NLMSG_DONE));
    t.values.push(value("uverbs::raw::abi::netlink::NLMSG_OVERRUN", uverbs::raw::abi::netlink::NLMSG_OVERRUN));
    t.values.push(value("uverbs::raw::abi::netlink::NLA_F_NESTED", uverbs::raw::abi::netlink::NLA_F_NESTED));
    t.values.push(value("uverbs::raw::abi::netlink::NLA_F_NET_BYTEORDER", uverbs::raw::abi::netlink::NLA_F_NET_BYTEORDER));
    t.values.push(value("uverbs::raw::abi::netlink::NLA_TYPE_MASK", uverbs::raw::abi::netlink::NLA_TYPE_MASK));
    t.values.push(value("uverbs::raw::abi::netlink::NETLINK_ROUTE", uverbs::raw::abi::netlink::NETLINK_ROUTE));
    t.values.push(value("uverbs::raw::abi::netlink::RTM_NEWLINK", uverbs::raw::abi::netlink::RTM_NEWLINK));
    t.values.push(value("uverbs::raw::abi::netlink::RTM_DELLINK", uverbs::raw::abi::netlink::RTM_DELLINK));
    t.values.push(value("uverbs::raw::abi::netlink::RTM_NEWADDR", uverbs::raw::abi::netlink::RTM_NEWADDR));
    t.values.push(value("uverbs::raw::abi::netlink::RTM_GETADDR", uverbs::raw::abi::netlink::RTM_GETADDR));
    t.values.push(value("uverbs::raw::abi::netlink::IFA_ADDRESS", uverbs::raw::abi::netlink::IFA_ADDRESS));
    t.values.push(value("uverbs::raw::abi::netlink::IFA_LOCAL", uverbs::raw::abi::netlink::IFA_LOCAL));
    t.values.push(value("uverbs::raw::abi::netlink::AF_INET", uverbs::raw::abi::netlink::AF_INET));
    t.values.push(value("uverbs::raw::abi::netlink::IFLA_IFNAME", uverbs::raw::abi::netlink::IFLA_IFNAME));
    t.values.push(value("uverbs::raw::abi::netlink::IFLA_LINKINFO", uverbs::raw::abi::netlink::IFLA_LINKINFO));
    t.values.push(value("uverbs::raw::abi::netlink::IFLA_INFO_KIND", uverbs::raw::abi::netlink::IFLA_INFO_KIND));
    t.values.push(value("uverbs::raw::abi::netlink::IFF_UP", uverbs::raw::abi::netlink::IFF_UP));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NL_NLDEV", uverbs::raw::abi::netlink::RDMA_NL_NLDEV));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_GET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_GET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_SET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_SET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_NEWLINK", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_NEWLINK));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_DELLINK", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_DELLINK));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_PORT_GET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_PORT_GET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_SYS_GET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_SYS_GET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_GET_CHARDEV", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_GET_CHARDEV));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK", uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE", uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NL_GROUP_NOTIFY", uverbs::raw::abi::netlink::RDMA_NL_GROUP_NOTIFY));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_MONITOR", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_MONITOR));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_EVENT_TYPE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_EVENT_TYPE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_MONITOR_MODE", uverbs::raw::abi::netlink::RDMA_NLDEV_SYS_ATTR_MONITOR_MODE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_REGISTER_EVENT", uverbs::raw::abi::netlink::RDMA_REGISTER_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_UNREGISTER_EVENT", uverbs::raw::abi::netlink::RDMA_UNREGISTER_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NETDEV_ATTACH_EVENT", uverbs::raw::abi::netlink::RDMA_NETDEV_ATTACH_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NETDEV_DETACH_EVENT", uverbs::raw::abi::netlink::RDMA_NETDEV_DETACH_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_RENAME_EVENT", uverbs::raw::abi::netlink::RDMA_RENAME_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NETDEV_RENAME_EVENT", uverbs::raw::abi::netlink::RDMA_NETDEV_RENAME_EVENT));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PAD", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PAD));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_INDEX", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_INDEX));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_NAME", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_NAME));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_INDEX", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_INDEX));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CAP_FLAGS", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CAP_FLAGS));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_FW_VERSION", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_FW_VERSION));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NODE_GUID", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NODE_GUID));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SYS_IMAGE_GUID", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SYS_IMAGE_GUID));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SUBNET_PREFIX", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SUBNET_PREFIX));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LID", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LID));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SM_LID", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_SM_LID));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LMC", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LMC));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_STATE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_STATE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_PHYS_STATE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_PORT_PHYS_STATE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_NODE_TYPE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_NODE_TYPE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NDEV_INDEX", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NDEV_INDEX));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NDEV_NAME", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_NDEV_NAME));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LINK_TYPE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_LINK_TYPE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_PROTOCOL", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_DEV_PROTOCOL));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_TYPE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_TYPE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_NAME", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_NAME));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_ABI", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV_ABI));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_CHARDEV));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_STAT_GET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_STAT_GET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTERS", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTERS));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_RES_GET", uverbs::raw::abi::netlink::RDMA_NLDEV_CMD_RES_GET));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME));
    t.values.push(value("uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR", uverbs::raw::abi::netlink::RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_PORT_SPEED", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_PORT_SPEED));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_SPEED_RESP", uverbs::raw::abi::ioctl::UVERBS_ATTR_QUERY_PORT_SPEED_RESP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_FD_ARR", uverbs::raw::abi::ioctl::UVERBS_ATTR_GET_CONTEXT_FD_ARR));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA));
    t.values.push(value("uverbs::raw::driver::MLX5_LIB_CAP_4K_UAR", uverbs::raw::driver::MLX5_LIB_CAP_4K_UAR));
    t.values.push(value("uverbs::raw::driver::MLX5_LIB_CAP_DYN_UAR", uverbs::raw::driver::MLX5_LIB_CAP_DYN_UAR));
    t.values.push(value("uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH", uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_TX_BATCH));
    t.values.push(value("uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR", uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_SUPP_CAPS_MIN_SQ_WR));
    t.values.push(value("uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH", uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH));
    t.values.push(value("uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR", uverbs::raw::driver::EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR));
    t.values.push(value("uverbs::raw::driver::IRDMA_ABI_VER", uverbs::raw::driver::IRDMA_ABI_VER));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_PD", uverbs::raw::abi::ioctl::UVERBS_OBJECT_PD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_COMP_CHANNEL", uverbs::raw::abi::ioctl::UVERBS_OBJECT_COMP_CHANNEL));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_CQ", uverbs::raw::abi::ioctl::UVERBS_OBJECT_CQ));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_QP", uverbs::raw::abi::ioctl::UVERBS_OBJECT_QP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_SRQ", uverbs::raw::abi::ioctl::UVERBS_OBJECT_SRQ));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_AH", uverbs::raw::abi::ioctl::UVERBS_OBJECT_AH));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_MR", uverbs::raw::abi::ioctl::UVERBS_OBJECT_MR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_MW", uverbs::raw::abi::ioctl::UVERBS_OBJECT_MW));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_FLOW", uverbs::raw::abi::ioctl::UVERBS_OBJECT_FLOW));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_XRCD", uverbs::raw::abi::ioctl::UVERBS_OBJECT_XRCD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_RWQ_IND_TBL", uverbs::raw::abi::ioctl::UVERBS_OBJECT_RWQ_IND_TBL));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_WQ", uverbs::raw::abi::ioctl::UVERBS_OBJECT_WQ));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_FLOW_ACTION", uverbs::raw::abi::ioctl::UVERBS_OBJECT_FLOW_ACTION));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_DM", uverbs::raw::abi::ioctl::UVERBS_OBJECT_DM));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_OBJECT_COUNTERS", uverbs::raw::abi::ioctl::UVERBS_OBJECT_COUNTERS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_CQ_CREATE", uverbs::raw::abi::ioctl::UVERBS_METHOD_CQ_CREATE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_CQ_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_CQ_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_CQE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_CQE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_USER_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_USER_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_COMP_VECTOR", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_COMP_VECTOR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_FLAGS", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_FLAGS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_RESP_CQE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_RESP_CQE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_EVENT_FD", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_CQ_EVENT_FD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_CQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_CQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_CQ_RESP", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_CQ_RESP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QP_CREATE", uverbs::raw::abi::ioctl::UVERBS_METHOD_QP_CREATE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QP_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_QP_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_XRCD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_XRCD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_PD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_PD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SRQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SRQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_USER_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_USER_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_CAP", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_CAP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_TYPE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_TYPE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_FLAGS", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_FLAGS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SOURCE_QPN", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_SOURCE_QPN));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_EVENT_FD", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_EVENT_FD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RESP_CAP", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RESP_CAP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RESP_QP_NUM", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_QP_RESP_QP_NUM));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_QP_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_QP_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_QP_RESP", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_QP_RESP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_SRQ_CREATE", uverbs::raw::abi::ioctl::UVERBS_METHOD_SRQ_CREATE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_SRQ_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_SRQ_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_PD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_PD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_USER_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_USER_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_WR", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_WR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_SGE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_SGE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_LIMIT", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_LIMIT));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_TYPE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_TYPE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_EVENT_FD", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_EVENT_FD));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM", uverbs::raw::abi::ioctl::UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_SRQ_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_SRQ_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_SRQ_RESP", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_SRQ_RESP));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_DM_MR_REG", uverbs::raw::abi::ioctl::UVERBS_METHOD_DM_MR_REG));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_MR_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_MR_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_ADVISE_MR", uverbs::raw::abi::ioctl::UVERBS_METHOD_ADVISE_MR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_MR", uverbs::raw::abi::ioctl::UVERBS_METHOD_QUERY_MR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_REG_DMABUF_MR", uverbs::raw::abi::ioctl::UVERBS_METHOD_REG_DMABUF_MR));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_MR_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_MR_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_PD_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_PD_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_PD_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_PD_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_METHOD_AH_DESTROY", uverbs::raw::abi::ioctl::UVERBS_METHOD_AH_DESTROY));
    t.values.push(value("uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_AH_HANDLE", uverbs::raw::abi::ioctl::UVERBS_ATTR_DESTROY_AH_HANDLE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_RC", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_RC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_UC", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_UC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_UD", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_UD));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_RAW_PACKET", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_RAW_PACKET));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_XRC_INI", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_XRC_INI));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_XRC_TGT", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_XRC_TGT));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_DRIVER", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QPT_DRIVER));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_SCATTER_FCS", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_SCATTER_FCS));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_CVLAN_STRIPPING", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_CVLAN_STRIPPING));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_SQ_SIG_ALL", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_QP_CREATE_SQ_SIG_ALL));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_BASIC", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_BASIC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_XRC", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_XRC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_TM", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_SRQT_TM));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_LOCAL_WRITE", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_LOCAL_WRITE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_WRITE", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_WRITE));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_READ", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_READ));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_ATOMIC", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_REMOTE_ATOMIC));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_MW_BIND", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_MW_BIND));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_ZERO_BASED", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_ZERO_BASED));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_ON_DEMAND", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_ON_DEMAND));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_HUGETLB", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_HUGETLB));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_OPTIONAL_FIRST", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_OPTIONAL_FIRST));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_OPTIONAL_LAST", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_OPTIONAL_LAST));
    t.values.push(value("uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_RELAXED_ORDERING", uverbs::raw::abi::ioctl_verbs::IB_UVERBS_ACCESS_RELAXED_ORDERING));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ALLOC_PD", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ALLOC_PD));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEALLOC_PD", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEALLOC_PD));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_AH", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_AH));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_AH", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_AH));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_AH", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_AH));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_AH", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_AH));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REG_MR", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REG_MR));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REG_SMR", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REG_SMR));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REREG_MR", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REREG_MR));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_MR", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_MR));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEREG_MR", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEREG_MR));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ALLOC_MW", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ALLOC_MW));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_BIND_MW", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_BIND_MW));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEALLOC_MW", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DEALLOC_MW));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_RESIZE_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_RESIZE_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POLL_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POLL_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_PEEK_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_PEEK_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REQ_NOTIFY_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_REQ_NOTIFY_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_SEND", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_SEND));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_RECV", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_RECV));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ATTACH_MCAST", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_ATTACH_MCAST));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DETACH_MCAST", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DETACH_MCAST));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_SRQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_SRQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_SRQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_MODIFY_SRQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_SRQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_QUERY_SRQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_SRQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_DESTROY_SRQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_SRQ_RECV", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_POST_SRQ_RECV));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_OPEN_XRCD", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_OPEN_XRCD));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CLOSE_XRCD", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CLOSE_XRCD));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_XSRQ", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_CREATE_XSRQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_OPEN_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_CMD_OPEN_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_CREATE_CQ", uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_CREATE_CQ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_CREATE_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_CREATE_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_MODIFY_QP", uverbs::raw::abi::verbs::IB_USER_VERBS_EX_CMD_MODIFY_QP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION", uverbs::raw::abi::verbs::IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN", uverbs::raw::abi::verbs::IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_WRITE", uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_WRITE));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_WRITE_WITH_IMM", uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_WRITE_WITH_IMM));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND", uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND_WITH_IMM", uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND_WITH_IMM));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_READ", uverbs::raw::abi::verbs::IB_UVERBS_WR_RDMA_READ));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_ATOMIC_CMP_AND_SWP", uverbs::raw::abi::verbs::IB_UVERBS_WR_ATOMIC_CMP_AND_SWP));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD", uverbs::raw::abi::verbs::IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_LOCAL_INV", uverbs::raw::abi::verbs::IB_UVERBS_WR_LOCAL_INV));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_BIND_MW", uverbs::raw::abi::verbs::IB_UVERBS_WR_BIND_MW));
    t.values.push(value("uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND_WITH_INV", uverbs::raw::abi::verbs::IB_UVERBS_WR_SEND_WITH_INV));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_ABI_VERSION", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_ABI_VERSION));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_MAX_PRIVATE_DATA", uverbs::raw::abi::rdma_cm::RDMA_MAX_PRIVATE_DATA));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_CREATE_ID", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_CREATE_ID));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_DESTROY_ID", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_DESTROY_ID));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_BIND_IP", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_BIND_IP));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_RESOLVE_IP", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_RESOLVE_IP));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_RESOLVE_ROUTE", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_RESOLVE_ROUTE));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_QUERY_ROUTE", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_QUERY_ROUTE));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_CONNECT", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_CONNECT));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_LISTEN", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_LISTEN));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_ACCEPT", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_ACCEPT));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_REJECT", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_REJECT));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_DISCONNECT", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_DISCONNECT));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_INIT_QP_ATTR", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_INIT_QP_ATTR));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_GET_EVENT", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_GET_EVENT));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_QUERY", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_CMD_QUERY));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_PS_TCP", uverbs::raw::abi::rdma_cm::RDMA_PS_TCP));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_PS_UDP", uverbs::raw::abi::rdma_cm::RDMA_PS_UDP));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_PS_IB", uverbs::raw::abi::rdma_cm::RDMA_PS_IB));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_ADDR", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_ADDR));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_PATH", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_PATH));
    t.values.push(value("uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_GID", uverbs::raw::abi::rdma_cm::RDMA_USER_CM_QUERY_GID));
    t.values.push(value("uverbs::raw::driver::RXE_NETWORK_TYPE_IPV4", uverbs::raw::driver::RXE_NETWORK_TYPE_IPV4));
    t.values.push(value("uverbs::raw::driver::RXE_NETWORK_TYPE_IPV6", uverbs::raw::driver::RXE_NETWORK_TYPE_IPV6));
    t.values.push(value("uverbs::raw::driver::SIW_ABI_VERSION", uverbs::raw::driver::SIW_ABI_VERSION));
    t.values.push(value("uverbs::raw::driver::SIW_MAX_SGE", uverbs::raw::driver::SIW_MAX_SGE));
    t.values.push(value("uverbs::raw::driver::SIW_MAX_INLINE", uverbs::raw::driver::SIW_MAX_INLINE));
    t.values.push(value("uverbs::raw::driver::SIW_UOBJ_MAX_KEY", uverbs::raw::driver::SIW_UOBJ_MAX_KEY));
    t.values.push(value("uverbs::raw::driver::SIW_INVAL_UOBJ_KEY", uverbs::raw::driver::SIW_INVAL_UOBJ_KEY));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_VALID", uverbs::raw::driver::SIW_WQE_VALID));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_INLINE", uverbs::raw::driver::SIW_WQE_INLINE));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_SIGNALLED", uverbs::raw::driver::SIW_WQE_SIGNALLED));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_SOLICITED", uverbs::raw::driver::SIW_WQE_SOLICITED));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_READ_FENCE", uverbs::raw::driver::SIW_WQE_READ_FENCE));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_REM_INVAL", uverbs::raw::driver::SIW_WQE_REM_INVAL));
    t.values.push(value("uverbs::raw::driver::SIW_WQE_COMPLETED", uverbs::raw::driver::SIW_WQE_COMPLETED));
    t.values.push(value("uverbs::raw::driver::SIW_OP_WRITE", uverbs::raw::driver::SIW_OP_WRITE));
    t.values.push(value("uverbs::raw::driver::SIW_OP_READ", uverbs::raw::driver::SIW_OP_READ));
    t.values.push(value("uverbs::raw::driver::SIW_OP_READ_LOCAL_INV", uverbs::raw::driver::SIW_OP_READ_LOCAL_INV));
    t.values.push(value("uverbs::raw::driver::SIW_OP_SEND", uverbs::raw::driver::SIW_OP_SEND));
    t.values.push(value("uverbs::raw::driver::SIW_OP_SEND_WITH_IMM", uverbs::raw::driver::SIW_OP_SEND_WITH_IMM));
    t.values.push(value("uverbs::raw::driver::SIW_OP_SEND_REMOTE_INV", uverbs::raw::driver::SIW_OP_SEND_REMOTE_INV));
    t.values.push(value("uverbs::raw::driver::SIW_OP_FETCH_AND_ADD", uverbs::raw::driver::SIW_OP_FETCH_AND_ADD));
    t.values.push(value("uverbs::raw::driver::SIW_OP_COMP_AND_SWAP", uverbs::raw::driver::SIW_OP_COMP_AND_SWAP));
    t.values.push(value("uverbs::raw::driver::SIW_OP_RECEIVE", uverbs::raw::driver::SIW_OP_RECEIVE));
    t.values.push(value("uverbs::raw::driver::SIW_OP_READ_RESPONSE", uverbs::raw::driver::SIW_OP_READ_RESPONSE));
    t.values.push(value("uverbs::raw::driver::SIW_OP_INVAL_STAG", uverbs::raw::driver::SIW_OP_INVAL_STAG));
    t.values.push(value("uverbs::raw::driver::SIW_OP_REG_MR", uverbs::raw::driver::SIW_OP_REG_MR));
    t.values.push(value("uverbs::raw::driver::SIW_NUM_OPCODES", uverbs::raw::driver::SIW_NUM_OPCODES));
    t.values.push(value("uverbs::raw::driver::SIW_WC_SUCCESS", uverbs::raw::driver::SIW_WC_SUCCESS));
    t.values.push(value("uverbs::raw::driver::SIW_WC_LOC_LEN_ERR", uverbs::raw::driver::SIW_WC_LOC_LEN_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_LOC_PROT_ERR", uverbs::raw::driver::SIW_WC_LOC_PROT_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_LOC_QP_OP_ERR", uverbs::raw::driver::SIW_WC_LOC_QP_OP_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_WR_FLUSH_ERR", uverbs::raw::driver::SIW_WC_WR_FLUSH_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_BAD_RESP_ERR", uverbs::raw::driver::SIW_WC_BAD_RESP_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_LOC_ACCESS_ERR", uverbs::raw::driver::SIW_WC_LOC_ACCESS_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_REM_ACCESS_ERR", uverbs::raw::driver::SIW_WC_REM_ACCESS_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_REM_INV_REQ_ERR", uverbs::raw::driver::SIW_WC_REM_INV_REQ_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_WC_GENERAL_ERR", uverbs::raw::driver::SIW_WC_GENERAL_ERR));
    t.values.push(value("uverbs::raw::driver::SIW_NUM_WC_STATUS", uverbs::raw::driver::SIW_NUM_WC_STATUS));
    t.values.push(value("uverbs::raw::driver::SIW_NOTIFY_NOT", uverbs::raw::driver::SIW_NOTIFY_NOT));
    t.values.push(value("uverbs::raw::driver::SIW_NOTIFY_SOLICITED", uverbs::raw::driver::SIW_NOTIFY_SOLICITED));
    t.values.push(value("uverbs::raw::driver::SIW_NOTIFY_NEXT_COMPLETION", uverbs::raw::driver::SIW_NOTIFY_NEXT_COMPLETION));
    t.values.push(value("uverbs::raw::driver::SIW_NOTIFY_MISSED_EVENTS", uverbs::raw::driver::SIW_NOTIFY_MISSED_EVENTS));
    t.values.push(value("uverbs::raw::driver::SIW_NOTIFY_ALL", uverbs::raw::driver::SIW_NOTIFY_ALL));
    t.enums.push(RustEnum {
        path: "uverbs::types::PortState",
        members: uverbs::types::PortState::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::Mtu",
        members: uverbs::types::Mtu::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::PhysState",
        members: uverbs::types::PhysState::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::LinkLayer",
        members: uverbs::types::LinkLayer::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::Width",
        members: uverbs::types::Width::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::Speed",
        members: uverbs::types::Speed::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::AtomicCap",
        members: uverbs::types::AtomicCap::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::NodeType",
        members: uverbs::types::NodeType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::TransportType",
        members: uverbs::types::TransportType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::GidType",
        members: uverbs::types::GidType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::EventType",
        members: uverbs::types::EventType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::PortCapFlags",
        members: uverbs::types::PortCapFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::PortCapFlags2",
        members: uverbs::types::PortCapFlags2::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::PortFlags",
        members: uverbs::types::PortFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::CoreSupport",
        members: uverbs::types::CoreSupport::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::DeviceCapFlags",
        members: uverbs::types::DeviceCapFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::OdpGeneralCaps",
        members: uverbs::types::OdpGeneralCaps::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::OdpTransportCaps",
        members: uverbs::types::OdpTransportCaps::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::RawPacketCaps",
        members: uverbs::types::RawPacketCaps::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::QpType",
        members: uverbs::types::QpType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::QpState",
        members: uverbs::types::QpState::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::MigState",
        members: uverbs::types::MigState::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::AccessFlags",
        members: uverbs::types::AccessFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::QpAttrMask",
        members: uverbs::types::QpAttrMask::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::SrqAttrMask",
        members: uverbs::types::SrqAttrMask::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::WcStatus",
        members: uverbs::types::WcStatus::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::WcOpcode",
        members: uverbs::types::WcOpcode::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::WcFlags",
        members: uverbs::types::WcFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::CmEventType",
        members: uverbs::types::CmEventType::KNOWN
            .iter()
            .map(|v| member(format!("{v:?}"), v.as_raw(), v.c_name()))
            .collect(),
    });
    t.enums.push(RustEnum {
        path: "uverbs::types::SendFlags",
        members: uverbs::types::SendFlags::all()
            .iter_names()
            .map(|(n, f)| member(n.to_string(), f.bits(), None))
            .collect(),
    });
    t
}
