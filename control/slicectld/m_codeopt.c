/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * codeopt.load: data for the slice's code option (an eBPF object for bpf),
 * from its owner. slicepathd checks it (the verifier's reason comes back as
 * the error); what it took is stored and handed again whenever the slice
 * is restored.
 */
#include <stdlib.h>

#include "common/text.h"
#include "methods.h"

/* {"slice", "data": hex} -> {"loaded": bytes} */
static json_t *
m_codeopt_load(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	uint8_t *bytes = NULL;
	json_t *r;
	size_t n = 0;
	bool stored;

	if (s == NULL || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_CODEOPT_LOAD, ctld_params_for(params, json_string(s->name)),
			 e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	/* slicepathd took it: the data is well-formed hex within the limit. */
	bytes = malloc(SP_MAX_CODEOPT_DATA);
	stored = bytes != NULL &&
		 sp_parse_hex_bytes(json_string_value(json_object_get(params, "data")), bytes,
				    SP_MAX_CODEOPT_DATA, &n) == 0 &&
		 store_codeopt_data_put(c->store, s->id, bytes, n) == 0;
	free(bytes);
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	return r;
}
CTLD_METHOD(CODEOPT_LOAD, m_codeopt_load, CTLD_ANYONE)
