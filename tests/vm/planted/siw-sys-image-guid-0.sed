# A planted regression (issue 25): siw's QUERY_DEVICE answers sys_image_guid 0, the
# bug rxe shipped after 2ac5415022d1 (fixed in 2025). `uverbs selftest` must fail its
# device.query case on such a device (tests/selftest.rs).
s|^\(\s*\)addrconf_addr_eui48((u8 \*)&attr->sys_image_guid,|\1attr->sys_image_guid = 0;\n\1if (0) addrconf_addr_eui48((u8 *)\&attr->sys_image_guid,|
