/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging, one way for every module: SP_LOG_TYPE("decap") once in each .c
 * file that logs (after the includes) gives it the rte_log type
 * slicepath.decap (registered once, whichever file asks first), and
 * SP_LOG(level, fmt, ...) writes "decap: <message>\n" at an RTE_LOG_<level>
 * ("ERR", "WARNING", "INFO", "DEBUG"). Messages have no newline of their own.
 * Levels per module: --log-level=slicepath.decap:debug.
 */
#ifndef SP_LOG_H
#define SP_LOG_H

#include <rte_common.h>
#include <rte_log.h>

#define SP_LOG_TYPE(module)                                                                        \
	static int sp_log_type = RTE_LOGTYPE_USER1;                                                \
	static const char sp_log_prefix[] = module;                                                \
	RTE_INIT(sp_log_type_register)                                                             \
	{                                                                                          \
		int t = rte_log_register_type_and_pick_level("slicepath." module, RTE_LOG_INFO);   \
                                                                                                   \
		if (t >= 0)                                                                        \
			sp_log_type = t;                                                           \
	}

#define SP_LOG(level, fmt, ...)                                                                    \
	rte_log(RTE_LOG_##level, sp_log_type, "%s: " fmt "\n", sp_log_prefix, ##__VA_ARGS__)

#endif
