# A planted hang (issue 29): siw's QUERY_PORT waits while the module parameter
# siw_hang is 1, as a driver's query waits on hung firmware (killable, as
# wait_event_killable is: a process that exits takes its stuck thread with it). Every reader of the port
# blocks in the kernel: sysfs ports/N/state and friends (ib_core asks the driver), and
# the uverbs QUERY_PORT call. Writing 0 to /sys/module/siw/parameters/siw_hang lets them
# return. The exporter and check must answer for the other devices within their deadline
# (tests/deadlines.rs). As a driver whose firmware commands time out when its device
# goes, a waiter also returns once the device is being unregistered (the core has
# dropped its last reference: ib_device_try_get fails), so that the removal can go on:
# uverbs must then let go of the device at once.
/^#include <linux\/errno.h>/i\
#include <linux/delay.h>\
#include <linux/moduleparam.h>\
#include <linux/sched/signal.h>
/^int siw_query_port(struct ib_device \*base_dev, u32 port,/i\
static int siw_hang;\
module_param(siw_hang, int, 0644);\
static bool siw_hang_alive(struct ib_device *dev)\
{\
	if (!ib_device_try_get(dev))\
		return false;\
	ib_device_put(dev);\
	return true;\
}\
static int siw_hang_wait(struct ib_device *dev)\
{\
	while (READ_ONCE(siw_hang) && !fatal_signal_pending(current) &&\
	       siw_hang_alive(dev))\
		msleep_interruptible(50);\
	return 0;\
}\

/^int siw_query_port(/,/^{/s/^{$/{\n\tint hung __maybe_unused = siw_hang_wait(base_dev);/
