/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What slicepathd's start needs of the config besides the node: EAL's
 * arguments, the forwarding lcores to launch, the code options to load and
 * those the slices name, the management socket and the channels' directory.
 * The node builder fills it, so that main reads no config; its strings point
 * into the config, which must outlive it.
 */
#ifndef SP_LAUNCH_H
#define SP_LAUNCH_H

#include <stdint.h>

#include "../config/config.h"

struct sp_launch {
	int eal_argc; /* "eal": extra EAL arguments */
	char *const *eal_argv;
	uint16_t nb_lcores;
	unsigned int lcores[SP_MAX_WORKERS]; /* the forwarding lcores' ids, in "lcores" order */
	uint16_t nb_codeopt_libs;
	const char *codeopt_libs[SP_MAX_CODEOPT_LIBS]; /* "codeopt_libs": shared objects to dlopen */
	uint16_t nb_slices;
	const char *slice_codeopts[SP_MAX_SLICES]; /* each slice's "codeopt", in "slices" order */
	const char *mgmt_socket;
	const char *channel_dir;
};

/* Fill l from a validated config. */
void sp_launch_fill(struct sp_launch *l, const struct sp_config *cfg);

#endif
