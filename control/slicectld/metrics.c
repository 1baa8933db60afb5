/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * metrics.text: the node's counters in the Prometheus text exposition
 * format (docs/running.md, "Metrics"), also served over HTTP on a localhost
 * port (http.c). Metric names are stable: slicepath_<what>_<unit>[_total],
 * one family per quantity, the kind of event in a label (port direction,
 * slice stage, queue event), so a dashboard sums or splits with one
 * expression.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/counters.h>

#include "common/latency.h"
#include "methods.h"

static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format wants it: backslash, quote and newline escaped. */
static void
label(FILE *f, const char *key, const char *value, bool last)
{
	fprintf(f, "%s=\"", key);
	for (const char *c = value; *c != '\0'; c++) {
		if (*c == '\\' || *c == '"')
			fputc('\\', f);
		if (*c == '\n')
			fputs("\\n", f);
		else
			fputc(*c, f);
	}
	fputs(last ? "\"" : "\",", f);
}

static json_int_t
num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* name{labels...} value; labels as key, value pairs, NULL-terminated. */
static void
sample(FILE *f, const char *name, json_int_t value, ...)
{
	va_list ap;
	const char *k;
	bool first = true;

	fputs(name, f);
	va_start(ap, value);
	while ((k = va_arg(ap, const char *)) != NULL) {
		const char *v = va_arg(ap, const char *);

		fputs(first ? "{" : ",", f);
		first = false;
		label(f, k, v, true);
	}
	va_end(ap);
	fprintf(f, "%s %" JSON_INTEGER_FORMAT "\n", first ? "" : "}", value);
}

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static void
ports(FILE *f, json_t *node)
{
	static const char *const dirs[] = {SP_PORT_COUNTERS(SP_COUNTER_NAME)};
	json_t *ports = json_object_get(node, "ports"), *p;
	const char *name;
	char key[32];

	for (int unit = 0; unit < 2; unit++) {
		const char *metric = unit == 0 ? "slicepath_port_packets_total"
					       : "slicepath_port_bytes_total";

		family(f, metric, "counter", unit == 0 ? "Packets a port received (rx), sent (tx), "
		       "could not send (tx_drop), handed its host path's interface (to_host) or "
		       "sent for it (from_host)." : "Bytes likewise, without FCS.");
		json_object_foreach(ports, name, p)
			for (size_t d = 0; d < DIM(dirs); d++) {
				snprintf(key, sizeof(key), "%s_%s", dirs[d], unit == 0 ? "pkts" : "bytes");
				sample(f, metric, num(p, key), "port", name, "direction", dirs[d], NULL);
			}
	}
}

static void
reasons(FILE *f, json_t *by_reason, const char *slice)
{
	const char *reason;
	json_t *n;

	json_object_foreach(by_reason, reason, n)
		if (slice == NULL)
			sample(f, "slicepath_drops_total", json_integer_value(n), "reason", reason,
			       NULL);
		else
			sample(f, "slicepath_slice_reasons_total", json_integer_value(n), "slice",
			       slice, "reason", reason, NULL);
}

static const char *const STAGES[] = {SP_SLICE_COUNTERS(SP_COUNTER_NAME)};

static void
slice_counters(FILE *f, json_t *slices)
{
	const char *name;
	json_t *s;
	char key[32];

	for (int unit = 0; unit < 2; unit++) {
		const char *metric = unit == 0 ? "slicepath_slice_packets_total"
					       : "slicepath_slice_bytes_total";

		family(f, metric, "counter", unit == 0 ? "A slice's packets by stage: received, "
		       "forwarded, handed up as exceptions, dropped, taken by its slow path, "
		       "injected by it." : "Bytes likewise.");
		json_object_foreach(slices, name, s)
			for (size_t i = 0; i < DIM(STAGES); i++) {
				snprintf(key, sizeof(key), "%s_%s", STAGES[i], unit == 0 ? "pkts" : "bytes");
				sample(f, metric, num(json_object_get(s, "slice"), key), "slice", name,
				       "stage", STAGES[i], NULL);
			}
	}
	family(f, "slicepath_slice_reasons_total", "counter",
	       "A slice's exceptions and drops by reason (slicepath/reason.h).");
	json_object_foreach(slices, name, s)
		reasons(f, json_object_get(json_object_get(s, "slice"), "reasons"), name);
}

static const char *
l4_key(json_t *ep)
{
	return json_object_get(ep, "tcp_port") != NULL ? "tcp_port" : "udp_port";
}

static void
endpoints(FILE *f, json_t *slices)
{
	static const char *const dirs[] = {SP_ENDPOINT_COUNTERS(SP_COUNTER_NAME)};
	const char *name;
	json_t *s, *ep;
	size_t i;
	char key[32], idx[16], l4[16];

	family(f, "slicepath_endpoint_packets_total", "counter",
	       "Packets a slice's endpoint received (rx) or sent (tx).");
	json_object_foreach(slices, name, s)
		json_array_foreach(json_object_get(s, "endpoints"), i, ep)
			for (size_t d = 0; d < DIM(dirs); d++) {
				snprintf(key, sizeof(key), "%s_pkts", dirs[d]);
				snprintf(idx, sizeof(idx), "%" JSON_INTEGER_FORMAT, num(ep, "index"));
				/* A host slice's TCP endpoint is labelled tcp_port. */
				snprintf(l4, sizeof(l4), "%" JSON_INTEGER_FORMAT, num(ep, l4_key(ep)));
				sample(f, "slicepath_endpoint_packets_total", num(ep, key), "slice", name,
				       "endpoint", idx, "port",
				       json_string_value(json_object_get(ep, "port")), l4_key(ep), l4,
				       "direction", dirs[d], NULL);
			}
}

static void
queues(FILE *f, json_t *slices)
{
	/* Its counters' keys, checked against slicepath/counters.h's queue lists. */
	const struct {
		const char *metric, *type, *help, *key;
	} q[] = {
		{"slicepath_queue_enqueued_packets_total", "counter", "Packets into a slice's queue.",
		 SP_COUNTER_KEY(SP_QUEUE_COUNTER, enq, "_pkts")},
		{"slicepath_queue_sent_packets_total", "counter", "Packets out of it, to its port.",
		 SP_COUNTER_KEY(SP_QUEUE_COUNTER, sent, "_pkts")},
		{"slicepath_queue_sent_bytes_total", "counter", "Bytes out of it.",
		 SP_COUNTER_KEY(SP_QUEUE_COUNTER, sent, "_bytes")},
		{"slicepath_queue_length_packets", "gauge", "Packets it holds now.",
		 SP_COUNTER_KEY(SP_QUEUE_LENGTH, len, "_pkts")},
		{"slicepath_queue_length_bytes", "gauge", "Bytes it holds now.",
		 SP_COUNTER_KEY(SP_QUEUE_LENGTH, len, "_bytes")},
	};
	const char *name, *id, *reason;
	json_t *s, *o, *d;

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		family(f, q[i].metric, q[i].type, q[i].help);
		json_object_foreach(slices, name, s)
			json_object_foreach(json_object_get(s, "queues"), id, o)
				sample(f, q[i].metric, num(o, q[i].key), "slice", name, "queue", id,
				       "port", json_string_value(json_object_get(o, "port")), NULL);
	}
	family(f, "slicepath_queue_dropped_packets_total", "counter",
	       "Packets a slice's queue refused, by reason (docs/qm.md).");
	json_object_foreach(slices, name, s)
		json_object_foreach(json_object_get(s, "queues"), id, o)
			json_object_foreach(json_object_get(o, "drops"), reason, d)
				sample(f, "slicepath_queue_dropped_packets_total", num(d, "pkts"),
				       "slice", name, "queue", id, "reason", reason, NULL);
}

/*
 * stats.get's residence_ns buckets (keyed by the largest value each holds,
 * 16 a power of two) summed into the powers of two from 256 ns to about a
 * second: each le counts the samples below it.
 */
#define RESIDENCE_LE_MIN 8
#define RESIDENCE_LE_MAX 30

static void
residence(FILE *f, json_t *r)
{
	static const char *const name = "slicepath_residence_seconds";
	json_int_t below[RESIDENCE_LE_MAX + 1] = {0};
	struct sp_latency_summary s;
	json_t *n;
	const char *top;
	char le[32], metric[64];

	family(f, name, "histogram", "Sampled times frames spent in the node, from their rx "
	       "burst to the port taking them (one frame every 100 us at most).");
	sp_latency_summary_from_json(r, &s);
	json_object_foreach(json_object_get(r, SP_LATENCY_BUCKETS), top, n) {
		unsigned long long t = strtoull(top, NULL, 10);

		for (int k = RESIDENCE_LE_MIN; k <= RESIDENCE_LE_MAX; k++)
			if (t < 1ULL << k)
				below[k] += json_integer_value(n);
	}
	snprintf(metric, sizeof(metric), "%s_bucket", name);
	for (int k = RESIDENCE_LE_MIN; k <= RESIDENCE_LE_MAX; k++) {
		snprintf(le, sizeof(le), "%.12g", (double)(1ULL << k) * 1e-9);
		sample(f, metric, below[k], "le", le, NULL);
	}
	sample(f, metric, (json_int_t)s.count, "le", "+Inf", NULL);
	fprintf(f, "%s_sum %.9f\n", name, (double)num(r, SP_LATENCY_SUM) * 1e-9);
	snprintf(metric, sizeof(metric), "%s_count", name);
	sample(f, metric, (json_int_t)s.count, NULL);
}

/* slicectld's own: the stored slices by their state in slicepathd, and what it found changed there. */
static void
replay_state(FILE *f, json_t *replay)
{
	static const char *const states[] = {"in_force", "degraded", "absent"};

	family(f, "slicectld_slices", "gauge", "Stored slices by state in slicepathd: in_force, "
	       "degraded (some parts refused, retried), absent (not there at all).");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		sample(f, "slicectld_slices", num(replay, states[i]), "state", states[i], NULL);
	family(f, "slicectld_divergences_total", "counter", "Slices found in slicepathd other "
	       "than stored (changed on its own socket), re-created as stored.");
	sample(f, "slicectld_divergences_total", num(replay, "divergences"), NULL);
}

/*
 * The text for slicepathd's counters: node is stats.get's answer (ports,
 * drops, slices), slices maps each slice's name to stats.get's answer for
 * it (slice, endpoints, queues); replay is replay.status's answer (stored
 * slices by state, divergences). malloc'd; NULL when out of memory.
 */
static char *
metrics_render(json_t *node, json_t *slices, json_t *replay)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	family(f, "slicepath_up", "gauge", "1: slicectld reached slicepathd for these figures.");
	sample(f, "slicepath_up", 1, NULL);
	ports(f, node);
	family(f, "slicepath_drops_total", "counter", "The node's drops by reason, all slices.");
	reasons(f, json_object_get(node, "drops"), NULL);
	residence(f, json_object_get(node, SP_STATS_RESIDENCE));
	slice_counters(f, slices);
	endpoints(f, slices);
	queues(f, slices);
	replay_state(f, replay);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* metrics.text (operators): {"text"} with the above, gathered from slicepathd now. */
static json_t *
m_metrics_text(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *node, *slices, *s, *replay, *r = NULL;
	const char *name;
	char *text;

	(void)params;
	node = backend_call(c->backend, SP_M_STATS_GET, NULL, e);
	if (node == NULL)
		return NULL;
	slices = json_object();
	json_object_foreach(json_object_get(node, "slices"), name, s) {
		json_t *one = backend_call(c->backend, SP_M_STATS_GET, json_pack("{s:s}", "slice", name),
					   e);

		/* A slice deleted meanwhile is left out. */
		if (one != NULL)
			json_object_set_new(slices, name, one);
	}
	replay = model_replay_status(c, who);
	text = metrics_render(node, slices, replay);
	json_decref(replay);
	if (text != NULL)
		r = json_pack("{s:s}", "text", text);
	else
		sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	free(text);
	json_decref(node);
	json_decref(slices);
	return r;
}
CTLD_METHOD(METRICS_TEXT, m_metrics_text, CTLD_OPERATORS)
