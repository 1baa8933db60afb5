/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepath/methods.h's list as tables, one column of parameters a server (method_list.h). */
#include "method_list.h"

#include <stdio.h>
#include <string.h>

#define NAME(id, name, on, params) [SP_METHOD_##id] = SP_M_##id,
static const char *const names[] = {SP_METHODS(NAME, )};

#define PARAMS(id, name, on, params) [SP_METHOD_##id] = "" params,
static const char *const ctld_params[] = {SP_METHODS(PARAMS, SP_TAKEN_BY_CTLD)};
static const char *const mgmt_params[] = {SP_METHODS(PARAMS, SP_TAKEN_BY_MGMT)};
static const char *const fleet_params[] = {SP_METHODS(PARAMS, SP_TAKEN_BY_FLEET)};

#define ON(id, name, on, params) [SP_METHOD_##id] = SP_METHOD_ON_##id,
static const unsigned int served_by[] = {SP_METHODS(ON, )};

bool
sp_method_served(unsigned int server, enum sp_method_id id)
{
	return (served_by[id] & server) != 0;
}

const char *
sp_method_name(enum sp_method_id id)
{
	return names[id];
}

/* The method-not-found error, listing the methods server serves. */
static int
no_method(unsigned int server, const char *method, struct sp_rpc_error *e)
{
	char list[1024] = "";

	for (int id = 0; id < SP_METHOD_COUNT; id++)
		if (sp_method_served(server, id))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] != '\0' ? ", " : "", names[id]);
	sp_rpc_fail(e, SP_RPC_METHOD_NOT_FOUND, "no method \"%s\"; the methods are %s", method,
		    list);
	return -1;
}

int
sp_method_find(unsigned int server, const char *method, struct sp_rpc_error *e)
{
	for (int id = 0; id < SP_METHOD_COUNT; id++)
		if (sp_method_served(server, id) && strcmp(names[id], method) == 0)
			return id;
	return no_method(server, method, e);
}

int
sp_method_check_params(unsigned int server, enum sp_method_id id, json_t *params,
		       struct sp_rpc_error *e)
{
	const char *const *taken = server == SP_ON_CTLD ? ctld_params
				 : server == SP_ON_MGMT ? mgmt_params
							: fleet_params;

	return sp_rpc_known_keys(params, names[id], taken[id], e);
}
