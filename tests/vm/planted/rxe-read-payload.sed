# A planted regression (issue 25), of the kind "a payload corrupted on one path": rxe
# flips a bit in the middle of every RDMA READ response's payload before the packet's
# ICRC is computed, so the requester accepts it. Sends and writes are untouched.
# `uverbs selftest` must fail data.rc.write_read, which compares what a read brought back
# byte for byte (tests/selftest.rs).
/payload, RXE_FROM_MR_OBJ);/a\
	if (payload) ((u8 *)payload_addr(&ack_pkt))[payload / 2] ^= 0x20;
