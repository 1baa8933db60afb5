/* SPDX-License-Identifier: BSD-3-Clause */
/* A forwarding lcore: the LC role (src/lc/) and the NPEs it runs. */
#ifndef SP_LCORE_H
#define SP_LCORE_H

/* rte_eal_remote_launch() entry: arg is the struct sp_node. */
int sp_lcore_main(void *arg);

#endif
