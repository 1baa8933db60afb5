/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: slicepath-gen's spec parser, gen_spec_parse(), on any text.
 *
 * Invariants: 0 or -1; an error is one non-empty line; a spec has 1 to
 * GEN_MAX_STREAMS streams with unique non-empty names, a rate within
 * limits, a payload that fits a frame, at least one flow, and
 * phases in order within the duration.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_pkt.h"
#include "gen.h"

static struct gen_spec spec;

static void
check_stream(const struct gen_stream_spec *s, double duration)
{
	SP_TEST_CHECK(s->name[0] != '\0' && memchr(s->name, '\0', GEN_NAME_LEN) != NULL,
		      "a stream without a name");
	SP_TEST_CHECK(s->pps >= 1e-3 && s->pps <= 1e9, "stream %s: %g packets/s", s->name, s->pps);
	SP_TEST_CHECK(s->outer_len + s->inner_len + s->payload <= GEN_MAX_FRAME,
		      "stream %s: payload %u", s->name, s->payload);
	SP_TEST_CHECK(sp_ip_is_v4(&s->src_ip) == sp_ip_is_v4(&s->dst_ip) &&
			      s->outer_len == (sp_ip_is_v4(&s->dst_ip) ? GEN_OUTER_LEN : GEN_OUTER6_LEN),
		      "stream %s: outer headers of %u bytes between addresses of two families",
		      s->name, s->outer_len);
	SP_TEST_CHECK(s->flows >= 1 && s->ttl >= 1 && s->dst_port >= 1, "stream %s: flows %u, "
		      "ttl %u, dst_port %u", s->name, s->flows, s->ttl, s->dst_port);
	SP_TEST_CHECK(s->tx_port < GEN_MAX_PORTS && s->rx_port < GEN_MAX_PORTS,
		      "stream %s: ports %u, %u", s->name, s->tx_port, s->rx_port);
	SP_TEST_CHECK(s->nb_phases >= 1 && s->nb_phases <= GEN_MAX_PHASES, "stream %s: %u phases",
		      s->name, s->nb_phases);
	for (unsigned int i = 0; i < s->nb_phases; i++) {
		const struct gen_phase *ph = &s->phases[i];

		SP_TEST_CHECK(ph->start >= 0 && ph->start < ph->stop && ph->stop <= duration &&
				      (i == 0 || ph->start >= s->phases[i - 1].stop),
			      "stream %s: phase %u [%g, %g] of %g s", s->name, i, ph->start,
			      ph->stop, duration);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	int rc;

	SP_TEST_CHECK(text != NULL, "no memory");
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	rc = gen_spec_parse(text, &spec, err, sizeof(err));
	free(text);
	SP_TEST_CHECK(rc == 0 || rc == -1, "returned %d", rc);
	if (rc < 0) {
		SP_TEST_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL, "error message \"%s\"", err);
		return 0;
	}
	SP_TEST_CHECK(spec.nb_streams >= 1 && spec.nb_streams <= GEN_MAX_STREAMS, "%u streams",
		      spec.nb_streams);
	SP_TEST_CHECK(spec.duration > 0 && spec.drain >= 0 && spec.interval >= 0,
		      "duration %g, drain %g, interval %g", spec.duration, spec.drain, spec.interval);
	for (unsigned int i = 0; i < spec.nb_streams; i++) {
		check_stream(&spec.streams[i], spec.duration);
		for (unsigned int k = 0; k < i; k++)
			SP_TEST_CHECK(strcmp(spec.streams[i].name, spec.streams[k].name) != 0,
				      "two streams named %s", spec.streams[i].name);
	}
	return 0;
}
