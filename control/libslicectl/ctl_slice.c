/* SPDX-License-Identifier: BSD-3-Clause */
/* The typed calls: interfaces, endpoints, queues, filters, memory, counters (docs/api.md). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter_json.h"
#include "common/text.h"
#include "ctl_int.h"

/* A call whose result only says it was done. */
static int
call(struct sp_ctl *c, const char *method, json_t *params)
{
	return sp_ctl_call_json(c, method, params, NULL);
}

static uint64_t
u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

int
sp_ctl_iface_list(struct sp_ctl *c, struct sp_ctl_iface *out, unsigned int max)
{
	json_t *list, *o;
	size_t i;
	int rc = sp_ctl_call_json(c, SP_M_IFACE_LIST, NULL, &list);

	if (rc < 0)
		return rc;
	json_array_foreach(list, i, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		struct sp_ctl_iface *f;

		if (i >= max)
			break;
		f = &out[i];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name != NULL ? name : "");
		f->index = (uint16_t)u64(o, "index");
		sp_parse_ipv4(json_string_value(json_object_get(o, "ipv4")), &f->ipv4);
		f->rate = u64(o, "rate");
		f->reserved = u64(o, "reserved");
		f->available = u64(o, "available");
		f->inbound_reserved = u64(o, "inbound_reserved");
		f->inbound_available = u64(o, "inbound_available");
	}
	rc = (int)json_array_size(list);
	json_decref(list);
	return rc;
}

int
sp_ctl_endpoint_reserve(struct sp_ctl *c, const char *slice, const char *port, uint16_t udp_port,
			uint64_t bandwidth, uint64_t inbound, struct sp_ctl_endpoint *out)
{
	json_t *p = json_pack("{s:s, s:s, s:i}", "slice", slice, "port", port, "udp_port", udp_port);
	json_t *r;
	int rc;

	if (bandwidth > 0)
		json_object_set_new(p, "bandwidth", json_integer((json_int_t)bandwidth));
	if (inbound > 0)
		json_object_set_new(p, "inbound", json_integer((json_int_t)inbound));
	rc = sp_ctl_call_json(c, SP_M_ENDPOINT_RESERVE, p, &r);
	if (rc < 0)
		return rc;
	out->index = (uint16_t)u64(r, "endpoint");
	out->udp_port = (uint16_t)u64(r, "udp_port");
	json_decref(r);
	return 0;
}

int
sp_ctl_endpoint_release(struct sp_ctl *c, const char *slice, uint16_t index)
{
	return call(c, SP_M_ENDPOINT_RELEASE, json_pack("{s:s, s:i}", "slice", slice, "endpoint", index));
}

/* The queue's parameters that are not 0 (0: the default, or unchanged). */
static json_t *
queue_params(const char *slice, const struct sp_ctl_queue *q)
{
	json_t *p = json_pack("{s:s, s:i}", "slice", slice, "queue", q->id);

	if (q->threshold > 0)
		json_object_set_new(p, "threshold", json_integer(q->threshold));
	if (q->threshold_packets > 0)
		json_object_set_new(p, "threshold_packets", json_integer(q->threshold_packets));
	if (q->share > 0)
		json_object_set_new(p, "share", json_integer((json_int_t)q->share));
	return p;
}

int
sp_ctl_queue_bind(struct sp_ctl *c, const char *slice, const struct sp_ctl_queue *q)
{
	json_t *p = queue_params(slice, q);

	json_object_set_new(p, "endpoint", json_integer(q->endpoint));
	return call(c, SP_M_QUEUE_BIND, p);
}

int
sp_ctl_queue_set(struct sp_ctl *c, const char *slice, const struct sp_ctl_queue *q)
{
	return call(c, SP_M_QUEUE_SET, queue_params(slice, q));
}

int
sp_ctl_queue_unbind(struct sp_ctl *c, const char *slice, uint16_t id)
{
	return call(c, SP_M_QUEUE_UNBIND, json_pack("{s:s, s:i}", "slice", slice, "queue", id));
}

json_t *
sp_ctl_filter_to_json(const struct sp_ctl_filter *f)
{
	return sp_filter_json(f->position, &f->key, &f->mask, &f->result);
}

int
sp_ctl_filter_write(struct sp_ctl *c, const char *slice, const struct sp_ctl_filter *f, size_t n)
{
	json_t *p, *list;

	if (n == 1) {
		p = sp_ctl_filter_to_json(f);
		json_object_set_new(p, "slice", json_string(slice));
		return call(c, SP_M_FILTER_INSERT, p);
	}
	list = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, sp_ctl_filter_to_json(&f[i]));
	return call(c, SP_M_FILTER_INSERT, json_pack("{s:s, s:o}", "slice", slice, "filters", list));
}

int
sp_ctl_filter_delete(struct sp_ctl *c, const char *slice, uint32_t position)
{
	return call(c, SP_M_FILTER_DELETE, json_pack("{s:s, s:I}", "slice", slice,
						  SP_FILTER_POSITION, (json_int_t)position));
}

bool
sp_ctl_filter_from_json(json_t *o, struct sp_ctl_filter *f)
{
	struct sp_rpc_error e;

	memset(f, 0, sizeof(*f));
	f->hits = u64(o, SP_FILTER_HITS);
	return sp_filter_from_json(o, "", false, &f->position, &f->key, &f->mask, &f->result,
				   &e) == 0;
}

int
sp_ctl_filter_list(struct sp_ctl *c, const char *slice, struct sp_ctl_filter **out)
{
	json_t *list, *o;
	size_t i, n;
	int rc = sp_ctl_call_json(c, SP_M_FILTER_LIST, json_pack("{s:s}", "slice", slice), &list);

	*out = NULL;
	if (rc < 0)
		return rc;
	n = json_array_size(list);
	*out = calloc(n > 0 ? n : 1, sizeof(**out));
	if (*out == NULL) {
		json_decref(list);
		return sp_ctl_fail(c, ENOMEM, 0, "out of memory for %zu filters", n);
	}
	json_array_foreach(list, i, o) {
		if (!sp_ctl_filter_from_json(o, &(*out)[i])) {
			json_decref(list);
			free(*out);
			*out = NULL;
			return sp_ctl_fail(c, EPROTO, 0, "filter %zu of the answer is malformed", i);
		}
	}
	json_decref(list);
	return (int)n;
}

int
sp_ctl_mem_read(struct sp_ctl *c, const char *slice, uint32_t offset, void *buf, size_t len)
{
	json_t *r;
	size_t n = 0;
	int rc;

	if (len > SP_MAX_MEM_IO)
		return sp_ctl_fail(c, EINVAL, SP_RPC_INVALID_PARAMS, "at most %u bytes a call",
				   SP_MAX_MEM_IO);
	rc = sp_ctl_call_json(c, SP_M_MEM_READ, json_pack("{s:s, s:I, s:I}", "slice", slice, "offset",
						       (json_int_t)offset, "length",
						       (json_int_t)len), &r);
	if (rc < 0)
		return rc;
	if (sp_parse_hex_bytes(json_string_value(json_object_get(r, "data")), buf, len, &n) < 0 ||
	    n != len)
		rc = sp_ctl_fail(c, EPROTO, 0, "the answer does not hold %zu bytes", len);
	json_decref(r);
	return rc;
}

/* Call method with params and "data": len bytes of buf as hex (at most max). */
static int
call_with_data(struct sp_ctl *c, const char *method, json_t *params, const void *buf, size_t len,
	       size_t max)
{
	char *hex;

	if (len > max) {
		json_decref(params);
		return sp_ctl_fail(c, EINVAL, SP_RPC_INVALID_PARAMS, "at most %zu bytes a call", max);
	}
	hex = malloc(2 * len + 1);
	if (hex == NULL) {
		json_decref(params);
		return sp_ctl_fail(c, ENOMEM, 0, "out of memory");
	}
	sp_format_hex(hex, buf, len);
	json_object_set_new(params, "data", json_string(hex));
	free(hex);
	return call(c, method, params);
}

int
sp_ctl_mem_write(struct sp_ctl *c, const char *slice, uint32_t offset, const void *buf,
		 size_t len)
{
	return call_with_data(c, SP_M_MEM_WRITE, json_pack("{s:s, s:I}", "slice", slice, "offset",
							(json_int_t)offset), buf, len, SP_MAX_MEM_IO);
}

int
sp_ctl_codeopt_load(struct sp_ctl *c, const char *slice, const void *data, size_t len)
{
	return call_with_data(c, SP_M_CODEOPT_LOAD, json_pack("{s:s}", "slice", slice), data, len,
			      SP_MAX_CODEOPT_DATA);
}

static struct sp_ctl_counter
counter(json_t *o, const char *name)
{
	char key[64];
	struct sp_ctl_counter ct;

	snprintf(key, sizeof(key), "%s_pkts", name);
	ct.pkts = u64(o, key);
	snprintf(key, sizeof(key), "%s_bytes", name);
	ct.bytes = u64(o, key);
	return ct;
}

int
sp_ctl_slice_stats(struct sp_ctl *c, const char *slice, struct sp_ctl_slice_stats *out)
{
	json_t *r, *s, *reasons;
	int rc = sp_ctl_call_json(c, SP_M_STATS_GET, json_pack("{s:s}", "slice", slice), &r);

	if (rc < 0)
		return rc;
	s = json_object_get(r, "slice");
	reasons = json_object_get(s, "reasons");
	memset(out, 0, sizeof(*out));
#define READ_COUNTER(name, what) out->name = counter(s, #name);
#define READ_COUNT(name, what) out->name = u64(s, #name);
	SP_SLICE_COUNTERS(READ_COUNTER)
	SP_SLICE_COUNTS(READ_COUNT)
	for (unsigned int i = 1; i < SP_REASON_MAX; i++)
		out->reason[i] = u64(reasons, sp_reason_name(i));
	json_decref(r);
	return 0;
}
