/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's "steering" (docs/config.md): how endpoints' frames reach their
 * NPE's lcore. The config reads it, the node builder hands it to the
 * steering (src/node/steer.h).
 */
#ifndef SP_STEERING_H
#define SP_STEERING_H

enum sp_steering {
	SP_STEERING_AUTO,     /* rte_flow rules where the device takes them, else software */
	SP_STEERING_RTE_FLOW, /* rte_flow rules, or the node does not start */
	SP_STEERING_SOFTWARE, /* RSS or the device's spreading, and the rings between lcores */
};

#endif
