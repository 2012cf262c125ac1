//! `rdma_netlink.h`: the RDMA netlink (`NETLINK_RDMA`) device interface, "nldev", and the
//! generic netlink framing of `<linux/netlink.h>` that carries it.
//!
//! Only what device discovery uses (and the `NEWLINK`/`DELLINK` commands for a later
//! `link add`/`link del`) is mirrored. The `RDMA_NL*` names come from
//! `<rdma/rdma_netlink.h>`; the `NETLINK_RDMA`, `NLM_F_*`, `NLMSG_*` and `NLA_*` names and
//! the [`nlmsghdr`], [`nlattr`] and [`nlmsgerr`] structs come from `<linux/netlink.h>`.
//!
//! Netlink data is in host byte order. Attribute values are aligned to 4 bytes only, so
//! a `u64` attribute may sit at any 4-byte boundary.
//!
//! Not glob re-exported from [`crate::raw::abi`]: use `abi::netlink::...`.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

// ---------------------------------------------------------------- <linux/netlink.h>

/// `NETLINK_RDMA`: the netlink protocol number of the RDMA subsystem (registered by
/// `ib_core`; `socket()` fails with `EPROTONOSUPPORT` when it is not loaded).
pub const NETLINK_RDMA: u32 = 20;

/// `NLMSG_ALIGNTO`: netlink messages start on this boundary.
pub const NLMSG_ALIGNTO: u32 = 4;
/// `NLMSG_HDRLEN`: the aligned size of [`nlmsghdr`].
pub const NLMSG_HDRLEN: u32 = 16;
/// `NLA_ALIGNTO`: attributes start on this boundary.
pub const NLA_ALIGNTO: u32 = 4;
/// `NLA_HDRLEN`: the aligned size of [`nlattr`].
pub const NLA_HDRLEN: u32 = 4;

/// `NLM_F_REQUEST`: the message is a request.
pub const NLM_F_REQUEST: u16 = 0x1;
/// `NLM_F_MULTI`: the message is part of a multipart answer ended by [`NLMSG_DONE`].
pub const NLM_F_MULTI: u16 = 0x2;
/// `NLM_F_ACK`: ask for an acknowledgement ([`NLMSG_ERROR`] with error 0).
pub const NLM_F_ACK: u16 = 0x4;
/// `NLM_F_DUMP_INTR`: the dump was interrupted by a change (its content is inconsistent).
pub const NLM_F_DUMP_INTR: u16 = 0x10;
/// `NLM_F_ROOT`: return the whole table.
pub const NLM_F_ROOT: u16 = 0x100;
/// `NLM_F_MATCH`: return all matching entries.
pub const NLM_F_MATCH: u16 = 0x200;
/// `NLM_F_DUMP`: `NLM_F_ROOT | NLM_F_MATCH`, a dump request.
pub const NLM_F_DUMP: u16 = NLM_F_ROOT | NLM_F_MATCH;
/// `NLM_F_EXCL` (a NEW request): fail with `EEXIST` if the object exists.
pub const NLM_F_EXCL: u16 = 0x200;
/// `NLM_F_CREATE` (a NEW request): create the object if it does not exist.
pub const NLM_F_CREATE: u16 = 0x400;

/// `NLMSG_NOOP`: a message to ignore.
pub const NLMSG_NOOP: u16 = 0x1;
/// `NLMSG_ERROR`: an error or an acknowledgement; the payload is [`nlmsgerr`].
pub const NLMSG_ERROR: u16 = 0x2;
/// `NLMSG_DONE`: the end of a multipart answer; the payload is the dump's `int` status.
pub const NLMSG_DONE: u16 = 0x3;
/// `NLMSG_OVERRUN`: data was lost.
pub const NLMSG_OVERRUN: u16 = 0x4;

/// `NLA_F_NESTED`: the attribute holds attributes.
pub const NLA_F_NESTED: u16 = 1 << 15;
/// `NLA_F_NET_BYTEORDER`: the attribute's value is in network byte order.
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
/// `NLA_TYPE_MASK`: the attribute type without the two flag bits.
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// `struct nlmsghdr`: the header of every netlink message (16 bytes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct nlmsghdr {
    /// Length of the message, header included.
    pub nlmsg_len: u32,
    /// Message type: for nldev, `RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command)`.
    pub nlmsg_type: u16,
    /// `NLM_F_*` flags.
    pub nlmsg_flags: u16,
    /// Sequence number, echoed by the kernel.
    pub nlmsg_seq: u32,
    /// Sending port id (0 for the kernel).
    pub nlmsg_pid: u32,
}
const _: () = assert!(core::mem::size_of::<nlmsghdr>() == 16);

/// `struct nlattr`: the header of a netlink attribute (4 bytes), followed by the value.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct nlattr {
    /// Length of the attribute, header included, padding excluded.
    pub nla_len: u16,
    /// Attribute type, possibly with [`NLA_F_NESTED`] / [`NLA_F_NET_BYTEORDER`].
    pub nla_type: u16,
}
const _: () = assert!(core::mem::size_of::<nlattr>() == 4);

/// `struct nlmsgerr`: the payload of [`NLMSG_ERROR`] (20 bytes, possibly followed by
/// extended-ack attributes).
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct nlmsgerr {
    /// Negative errno, or 0 for an acknowledgement.
    pub error: i32,
    /// The header of the request that caused it.
    pub msg: nlmsghdr,
}
const _: () = assert!(core::mem::size_of::<nlmsgerr>() == 20);

// ------------------------------------ <linux/rtnetlink.h>, <linux/if_link.h>, <linux/if.h>
// The network interfaces `uverbs selftest --create` makes and flaps for its own devices
// (a dummy interface under an rxe or siw link), over a `NETLINK_ROUTE` socket.

/// `NETLINK_ROUTE`: the netlink protocol of network interfaces, addresses and routes.
pub const NETLINK_ROUTE: u32 = 0;
/// `RTM_NEWLINK`: create an interface, or change one (its flags, with `ifi_change`).
pub const RTM_NEWLINK: u16 = 16;
/// `RTM_DELLINK`: delete an interface.
pub const RTM_DELLINK: u16 = 17;
/// `IFLA_IFNAME`: the interface name (a NUL-terminated string).
pub const IFLA_IFNAME: u16 = 3;
/// `IFLA_LINKINFO`: nested; the kind of a virtual interface and its data.
pub const IFLA_LINKINFO: u16 = 18;
/// `IFLA_INFO_KIND` (inside [`IFLA_LINKINFO`]): the kind's name (`"dummy"`).
pub const IFLA_INFO_KIND: u16 = 1;
/// `IFF_UP`: the interface is administratively up.
pub const IFF_UP: u32 = 1;

/// `struct ifinfomsg`: the fixed part of an `RTM_*LINK` message (16 bytes), after the
/// netlink header and before the attributes.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ifinfomsg {
    /// Address family (`AF_UNSPEC`).
    pub ifi_family: u8,
    /// Padding.
    pub __ifi_pad: u8,
    /// `ARPHRD_*` device type.
    pub ifi_type: u16,
    /// Interface index; 0 to name the interface by [`IFLA_IFNAME`].
    pub ifi_index: i32,
    /// `IFF_*` flags.
    pub ifi_flags: u32,
    /// Which of `ifi_flags` to change.
    pub ifi_change: u32,
}
const _: () = assert!(core::mem::size_of::<ifinfomsg>() == 16);

/// `RTM_NEWADDR`: add an address to an interface; also the type of each message of an
/// address dump.
pub const RTM_NEWADDR: u16 = 20;
/// `RTM_GETADDR`: list addresses (a dump).
pub const RTM_GETADDR: u16 = 22;

/// `struct ifaddrmsg`: the fixed part of an `RTM_*ADDR` message (8 bytes), after the
/// netlink header and before the attributes.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
pub struct ifaddrmsg {
    /// Address family (`AF_INET`: [`AF_INET`]).
    pub ifa_family: u8,
    /// Prefix length of the address.
    pub ifa_prefixlen: u8,
    /// `IFA_F_*` flags (the low 8 bits).
    pub ifa_flags: u8,
    /// Scope (`RT_SCOPE_*`).
    pub ifa_scope: u8,
    /// Interface index.
    pub ifa_index: u32,
}
const _: () = assert!(core::mem::size_of::<ifaddrmsg>() == 8);

/// `IFA_ADDRESS`: the address (for a point-to-point link, the peer's).
pub const IFA_ADDRESS: u16 = 1;
/// `IFA_LOCAL`: the local address.
pub const IFA_LOCAL: u16 = 2;
/// `AF_INET` (`<sys/socket.h>`): IPv4, as an [`ifaddrmsg`]'s family.
pub const AF_INET: u8 = 2;

// ---------------------------------------------------------------- <rdma/rdma_netlink.h>

/// `RDMA_NL_NLDEV`: the netlink client number of the RDMA device interface; message
/// types are `(RDMA_NL_NLDEV << 10) + command` (`RDMA_NL_GET_TYPE`).
pub const RDMA_NL_NLDEV: u16 = 5;

/// `RDMA_NLDEV_CMD_GET`: device information; dumpable (one message per device).
pub const RDMA_NLDEV_CMD_GET: u16 = 1;
/// `RDMA_NLDEV_CMD_SET`: rename a device, set its net namespace or DIM.
pub const RDMA_NLDEV_CMD_SET: u16 = 2;
/// `RDMA_NLDEV_CMD_NEWLINK`: create a software device (`rdma link add NAME type rxe
/// netdev ND`), with `DEV_NAME`, `LINK_TYPE` and `NDEV_NAME`.
pub const RDMA_NLDEV_CMD_NEWLINK: u16 = 3;
/// `RDMA_NLDEV_CMD_DELLINK`: delete a software device, by `DEV_INDEX`.
pub const RDMA_NLDEV_CMD_DELLINK: u16 = 4;
/// `RDMA_NLDEV_CMD_PORT_GET`: port information; dumpable per device.
pub const RDMA_NLDEV_CMD_PORT_GET: u16 = 5;
/// `RDMA_NLDEV_CMD_SYS_GET`: subsystem-wide settings (net namespace mode, copy-on-fork).
pub const RDMA_NLDEV_CMD_SYS_GET: u16 = 6;
/// `RDMA_NLDEV_CMD_GET_CHARDEV`: the character device of a client (`uverbs`, `umad`) for
/// a device (since Linux 5.3).
pub const RDMA_NLDEV_CMD_GET_CHARDEV: u16 = 15;

/// `RDMA_NLDEV_ATTR_PAD`: padding attribute (= `RDMA_NLDEV_ATTR_UNSPEC`), to skip.
pub const RDMA_NLDEV_ATTR_PAD: u16 = 0;
/// `RDMA_NLDEV_ATTR_DEV_INDEX` (u32): the kernel's device index.
pub const RDMA_NLDEV_ATTR_DEV_INDEX: u16 = 1;
/// `RDMA_NLDEV_ATTR_DEV_NAME` (NUL-terminated string): the device name.
pub const RDMA_NLDEV_ATTR_DEV_NAME: u16 = 2;
/// `RDMA_NLDEV_ATTR_PORT_INDEX` (u32): a port number; in a `CMD_GET` answer, the last
/// port number (`rdma_end_port`), i.e. the port count of a channel adapter.
pub const RDMA_NLDEV_ATTR_PORT_INDEX: u16 = 3;
/// `RDMA_NLDEV_ATTR_CAP_FLAGS` (u64): device capability flags (`CMD_GET`) or port
/// capability flags (`CMD_PORT_GET`).
pub const RDMA_NLDEV_ATTR_CAP_FLAGS: u16 = 4;
/// `RDMA_NLDEV_ATTR_FW_VERSION` (string): firmware version; absent when empty.
pub const RDMA_NLDEV_ATTR_FW_VERSION: u16 = 5;
/// `RDMA_NLDEV_ATTR_NODE_GUID` (u64): node GUID, in host order.
pub const RDMA_NLDEV_ATTR_NODE_GUID: u16 = 6;
/// `RDMA_NLDEV_ATTR_SYS_IMAGE_GUID` (u64): system image GUID, in host order.
pub const RDMA_NLDEV_ATTR_SYS_IMAGE_GUID: u16 = 7;
/// `RDMA_NLDEV_ATTR_SUBNET_PREFIX` (u64): subnet prefix of an InfiniBand port.
pub const RDMA_NLDEV_ATTR_SUBNET_PREFIX: u16 = 8;
/// `RDMA_NLDEV_ATTR_LID` (u32): LID of an InfiniBand port.
pub const RDMA_NLDEV_ATTR_LID: u16 = 9;
/// `RDMA_NLDEV_ATTR_SM_LID` (u32): LID of the subnet manager of an InfiniBand port.
pub const RDMA_NLDEV_ATTR_SM_LID: u16 = 10;
/// `RDMA_NLDEV_ATTR_LMC` (u8): LID mask count of an InfiniBand port.
pub const RDMA_NLDEV_ATTR_LMC: u16 = 11;
/// `RDMA_NLDEV_ATTR_PORT_STATE` (u8): logical port state.
pub const RDMA_NLDEV_ATTR_PORT_STATE: u16 = 12;
/// `RDMA_NLDEV_ATTR_PORT_PHYS_STATE` (u8): physical port state.
pub const RDMA_NLDEV_ATTR_PORT_PHYS_STATE: u16 = 13;
/// `RDMA_NLDEV_ATTR_DEV_NODE_TYPE` (u8): node type (`RDMA_NODE_*`, as `ibv_node_type`).
pub const RDMA_NLDEV_ATTR_DEV_NODE_TYPE: u16 = 14;
/// `RDMA_NLDEV_ATTR_NDEV_INDEX` (u32): ifindex of a port's netdev.
pub const RDMA_NLDEV_ATTR_NDEV_INDEX: u16 = 50;
/// `RDMA_NLDEV_ATTR_NDEV_NAME` (string): name of a port's netdev.
pub const RDMA_NLDEV_ATTR_NDEV_NAME: u16 = 51;
/// `RDMA_NLDEV_ATTR_LINK_TYPE` (string): the software driver of a `NEWLINK` (`rxe`, `siw`).
pub const RDMA_NLDEV_ATTR_LINK_TYPE: u16 = 65;
/// `RDMA_NLDEV_ATTR_DEV_PROTOCOL` (string): `ib`, `roce`, `iw`, `opa` or `usnic`.
pub const RDMA_NLDEV_ATTR_DEV_PROTOCOL: u16 = 67;
/// `RDMA_NLDEV_ATTR_CHARDEV_TYPE` (string): the client of `GET_CHARDEV` (`uverbs`).
pub const RDMA_NLDEV_ATTR_CHARDEV_TYPE: u16 = 69;
/// `RDMA_NLDEV_ATTR_CHARDEV_NAME` (string): the `/dev` name of the node (`uverbs0`).
pub const RDMA_NLDEV_ATTR_CHARDEV_NAME: u16 = 70;
/// `RDMA_NLDEV_ATTR_CHARDEV_ABI` (u64): the client's ABI version; for uverbs the driver's
/// `uverbs_abi_ver` (rxe 2, siw 1), not the core uverbs ABI 6.
pub const RDMA_NLDEV_ATTR_CHARDEV_ABI: u16 = 71;
/// `RDMA_NLDEV_ATTR_CHARDEV` (u64): the node's `dev_t`, as the kernel's `huge_encode_dev`.
pub const RDMA_NLDEV_ATTR_CHARDEV: u16 = 72;
/// `RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID` (declared u64, sent by the kernel as a u32): the
/// device's `rdma_driver_id`; absent for drivers without driver-id binding.
pub const RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID: u16 = 73;

// ------------------------------------------------------------------ statistics (issue 15)
// RDMA_NLDEV_CMD_STAT_GET with DEV_INDEX and PORT_INDEX (and no STAT_RES) answers the
// port's driver counters (the sysfs hw_counters/ set, QP-bound counters included) in one
// message: a STAT_HWCOUNTERS nest of STAT_HWCOUNTER_ENTRY nests, each with a name and a
// value (drivers/infiniband/core/nldev.c, stat_get_doit_default_counter; no admin
// permission needed).

/// `RDMA_NLDEV_CMD_STAT_GET`: statistics; with `DEV_INDEX` and `PORT_INDEX` only, the
/// port's driver counters (`rdma statistic show`).
pub const RDMA_NLDEV_CMD_STAT_GET: u16 = 17;
/// `RDMA_NLDEV_ATTR_STAT_HWCOUNTERS` (nested): the table of driver counters.
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTERS: u16 = 80;
/// `RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY` (nested): one counter of the table.
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY: u16 = 81;
/// `RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME` (string): the counter's name, as its
/// `hw_counters/` file is named.
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME: u16 = 82;
/// `RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE` (u64): the counter's value.
pub const RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE: u16 = 83;

// RDMA_NLDEV_CMD_RES_GET with DEV_INDEX answers the device's resource summary: a
// RES_SUMMARY nest of RES_SUMMARY_ENTRY nests, each the name of a resource type ("pd",
// "cq", "qp", "cm_id", "mr", "ctx", "srq") and how many of them exist now
// (drivers/infiniband/core/nldev.c, fill_res_info; no admin permission needed).

/// `RDMA_NLDEV_CMD_RES_GET`: the resource tracking summary of a device.
pub const RDMA_NLDEV_CMD_RES_GET: u16 = 9;
/// `RDMA_NLDEV_ATTR_RES_SUMMARY` (nested): one entry per resource type.
pub const RDMA_NLDEV_ATTR_RES_SUMMARY: u16 = 15;
/// `RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY` (nested): one resource type.
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY: u16 = 16;
/// `RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME` (string): the resource type's name.
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME: u16 = 17;
/// `RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR` (u64): how many exist now.
pub const RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR: u16 = 18;

// ------------------------------------------------------------------ device notifications
// The RDMA netlink notification group (Linux 6.12): RDMA_NLDEV_CMD_MONITOR messages to
// multicast group RDMA_NL_GROUP_NOTIFY. A kernel that has it says so in SYS_GET's
// answer (RDMA_NLDEV_SYS_ATTR_MONITOR_MODE = 1); older kernels omit the attribute.

/// `RDMA_NL_GROUP_NOTIFY`: the multicast group of device notifications (Linux 6.12).
pub const RDMA_NL_GROUP_NOTIFY: u32 = 4;
/// `RDMA_NLDEV_CMD_MONITOR`: the command of notification messages (Linux 6.12).
pub const RDMA_NLDEV_CMD_MONITOR: u16 = 28;
/// `RDMA_NLDEV_ATTR_EVENT_TYPE` (u8, `enum rdma_nl_notify_event_type`; Linux 6.12).
pub const RDMA_NLDEV_ATTR_EVENT_TYPE: u16 = 102;
/// `RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK` (u8, SYS_GET: 1 on every kernel since 5.13, which
/// copies pinned pages on fork).
pub const RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK: u16 = 93;
/// `RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE` (u8, SYS_GET: 1 when unprivileged users may
/// set a Q_Key with the high bit; Linux 6.5).
pub const RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE: u16 = 96;
/// `RDMA_NLDEV_SYS_ATTR_MONITOR_MODE` (u8, 1 when notifications are sent; Linux 6.12).
pub const RDMA_NLDEV_SYS_ATTR_MONITOR_MODE: u16 = 103;
/// `RDMA_REGISTER_EVENT`: a device was registered.
pub const RDMA_REGISTER_EVENT: u8 = 0;
/// `RDMA_UNREGISTER_EVENT`: a device is being unregistered.
pub const RDMA_UNREGISTER_EVENT: u8 = 1;
/// `RDMA_NETDEV_ATTACH_EVENT`: a port got its netdev.
pub const RDMA_NETDEV_ATTACH_EVENT: u8 = 2;
/// `RDMA_NETDEV_DETACH_EVENT`: a port lost its netdev.
pub const RDMA_NETDEV_DETACH_EVENT: u8 = 3;
/// `RDMA_RENAME_EVENT`: a device was renamed (Linux 6.15).
pub const RDMA_RENAME_EVENT: u8 = 4;
/// `RDMA_NETDEV_RENAME_EVENT`: a port's netdev was renamed (Linux 6.15).
pub const RDMA_NETDEV_RENAME_EVENT: u8 = 5;
