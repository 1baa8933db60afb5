/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control API's method list (slicepath/methods.h) as each server reads
 * it: which methods it serves, the parameters it takes, and the "no method"
 * and unknown parameter refusals its dispatcher answers.
 */
#ifndef SP_METHOD_LIST_H
#define SP_METHOD_LIST_H

#include <stdbool.h>

#include <slicepath/methods.h>

#include "jsonrpc.h"

/* Whether server (SP_ON_CTLD, SP_ON_MGMT or SP_ON_FLEET) serves method id. */
bool sp_method_served(unsigned int server, enum sp_method_id id);

/* The name of method id: "slice.create"... */
const char *sp_method_name(enum sp_method_id id);

/*
 * The method named method that server serves: its id, or -1 with e filled
 * (no such method, listing those server serves).
 */
int sp_method_find(unsigned int server, const char *method, struct sp_rpc_error *e);
/*
 * Refuse a parameter of method id that server does not take: 0, or -1 with
 * e filled naming it and those server takes.
 */
int sp_method_check_params(unsigned int server, enum sp_method_id id, json_t *params,
			   struct sp_rpc_error *e);

#endif
