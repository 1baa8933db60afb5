/* SPDX-License-Identifier: BSD-3-Clause */
#include "launch.h"

void
sp_launch_fill(struct sp_launch *l, const struct sp_config *cfg)
{
	l->eal_argc = cfg->eal_argc;
	l->eal_argv = cfg->eal_argv;
	l->nb_lcores = cfg->nb_lcores;
	for (uint16_t i = 0; i < cfg->nb_lcores; i++)
		l->lcores[i] = cfg->lcores[i].id;
	l->nb_codeopt_libs = cfg->nb_codeopt_libs;
	for (uint16_t i = 0; i < cfg->nb_codeopt_libs; i++)
		l->codeopt_libs[i] = cfg->codeopt_libs[i];
	l->nb_slices = cfg->nb_slices;
	for (uint16_t i = 0; i < cfg->nb_slices; i++)
		l->slice_codeopts[i] = cfg->slices[i].codeopt;
	l->mgmt_socket = cfg->mgmt_socket;
	l->channel_dir = cfg->channel_dir;
}
