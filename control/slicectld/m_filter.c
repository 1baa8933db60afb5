/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * filter.insert, filter.delete, filter.list, mem.read and mem.write: a
 * slice's filters and memory block, by its owner or an operator. A filter's
 * endpoint and queue are checked against the model (a replay writes them
 * there); slicepathd checks positions, keys, results and bounds; what it
 * took is stored.
 */
#include <stdlib.h>

#include "common/filter_json.h"
#include "common/text.h"
#include "ctl_int.h"
#include "methods.h"

/* Store one filter as slicepathd keeps it: its key masked. */
static bool
store_filter(struct ctld *c, const struct ctld_slice *s, json_t *o)
{
	struct sp_ctl_filter f;

	if (!sp_ctl_filter_from_json(o, &f))
		return false;
	for (unsigned int i = 0; i < SP_KEY_BYTES; i++)
		f.key.b[i] &= f.mask.b[i];
	return store_put_filter(c->store, s->id, &f) == 0;
}

/* Each filter's endpoint and queue as the model has them; one slicepathd cannot read it says why. */
static bool
targets_in_model(const struct ctld_slice *s, json_t *params, struct sp_rpc_error *e)
{
	json_t *list = json_object_get(params, "filters"), *o;
	struct sp_ctl_filter f;
	char where[32];
	size_t i;

	if (list == NULL)
		return !sp_ctl_filter_from_json(params, &f) ||
		       model_check_target(s, f.result.endpoint, f.result.queue, "", e);
	json_array_foreach(list, i, o) {
		snprintf(where, sizeof(where), "filters[%zu].", i);
		if (sp_ctl_filter_from_json(o, &f) &&
		    !model_check_target(s, f.result.endpoint, f.result.queue, where, e))
			return false;
	}
	return true;
}

/* One filter (position, key, mask, result) or a batch ("filters": [...]): all or none. */
static json_t *
m_filter_insert(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	json_t *r, *list, *o;
	bool stored = true;
	size_t i;

	if (s == NULL || !targets_in_model(s, params, e) || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_FILTER_INSERT, ctld_params_for(params, json_string(s->name)),
			 e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	list = json_object_get(params, "filters");
	if (list == NULL)
		stored = store_filter(c, s, params);
	json_array_foreach(list, i, o)
		stored = stored && store_filter(c, s, o);
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	return r;
}
CTLD_METHOD(FILTER_INSERT, m_filter_insert, CTLD_ANYONE)

/* {"slice", "position"} */
static json_t *
m_filter_delete(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	json_t *r;
	uint64_t pos;
	bool stored;

	if (s == NULL || sp_rpc_uint(params, SP_FILTER_POSITION, UINT32_MAX, &pos, e) < 0 ||
	    !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_FILTER_DELETE, ctld_params_for(params, json_string(s->name)),
			 e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	stored = store_del_filter(c->store, s->id, (uint32_t)pos) == 0;
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	return r;
}
CTLD_METHOD(FILTER_DELETE, m_filter_delete, CTLD_ANYONE)

/* {"slice"} -> the filters in position order, with their hits. */
static json_t *
m_filter_list(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return ctld_read_slice(c, who, params, SP_M_FILTER_LIST, e);
}
CTLD_METHOD(FILTER_LIST, m_filter_list, CTLD_ANYONE)

/* {"slice", "offset", "length"} -> {"data": hex} */
static json_t *
m_mem_read(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return ctld_read_slice(c, who, params, SP_M_MEM_READ, e);
}
CTLD_METHOD(MEM_READ, m_mem_read, CTLD_ANYONE)

/* {"slice", "offset", "data": hex}: written to the fast path and stored, page by page. */
static json_t *
m_mem_write(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	uint8_t *bytes = NULL;
	uint64_t offset = 0;
	json_t *r;
	size_t n = 0;
	bool stored;

	if (s == NULL || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_MEM_WRITE, ctld_params_for(params, json_string(s->name)), e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	/* slicepathd took them: offset and data are as the API wants them. */
	sp_rpc_uint(params, "offset", UINT32_MAX, &offset, e);
	bytes = malloc(SP_MAX_MEM_IO);
	stored = bytes != NULL &&
		 sp_parse_hex_bytes(json_string_value(json_object_get(params, "data")), bytes,
				    SP_MAX_MEM_IO, &n) == 0 &&
		 store_mem_write(c->store, s->id, (uint32_t)offset, bytes, n) == 0;
	free(bytes);
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	return r;
}
CTLD_METHOD(MEM_WRITE, m_mem_write, CTLD_ANYONE)
