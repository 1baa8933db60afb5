/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the JSON config parser, sp_config_parse(), on arbitrary bytes.
 * Invariants: the result is 0 or a negative errno; an error comes with a
 * non-empty one-line message and leaves the config empty; a success yields
 * counts within their limits and NUL-terminated names. One error input in
 * SHORT_ERR_EVERY (chosen by its size) is parsed a second time into a short
 * message buffer, which must stay NUL-terminated and not be overrun (message
 * buffers are heap blocks of exactly their size, so AddressSanitizer sees any
 * write past them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "sp_test.h"

/* Largest errno value; anything below -MAX_ERRNO is not an errno. */
#define MAX_ERRNO 4095

/* Short message buffers: 1 .. SHORT_ERR_MAX bytes, for one error input in SHORT_ERR_EVERY. */
#define SHORT_ERR_MAX 48
#define SHORT_ERR_EVERY 8

static struct sp_config cfg;

static void __attribute__((noreturn))
fail(const char *what, int rc, const char *err, const char *text)
{
	sp_test_fail("%s (rc %d, message \"%s\", %zu bytes of input)", what, rc, err,
		     strlen(text));
}

static int
all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	return len == 0 || (b[0] == 0 && memcmp(b, b + 1, len - 1) == 0);
}

static int
terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

/* A successful parse that broke an invariant (no rc, no message). */
static void __attribute__((noreturn))
bad(const char *what, const char *text)
{
	fail(what, 0, "", text);
}

static void
check_success(const char *text)
{
	if (cfg.nb_ports > SP_MAX_PORTS || cfg.nb_neighbors > SP_MAX_NEIGHBORS ||
	    cfg.nb_lcores > SP_MAX_WORKERS || cfg.nb_npes > SP_MAX_NPES ||
	    cfg.nb_slices > SP_MAX_SLICES || cfg.nb_codeopt_libs > SP_MAX_CODEOPT_LIBS ||
	    cfg.eal_argc < 0 || cfg.eal_argc > SP_MAX_EAL_ARGS)
		bad("a count is over its limit", text);
	for (int i = 0; i < cfg.eal_argc; i++)
		if (cfg.eal_argv[i] == NULL)
			bad("an EAL argument is NULL", text);
	for (uint16_t i = 0; i < cfg.nb_ports; i++)
		if (!terminated(cfg.ports[i].name, SP_NAME_LEN) ||
		    !terminated(cfg.ports[i].device, SP_DEVARGS_LEN))
			bad("a port name or device is not NUL-terminated", text);
	for (uint16_t i = 0; i < cfg.nb_neighbors; i++)
		if (cfg.neighbors[i].port >= cfg.nb_ports)
			bad("a neighbor names a port that does not exist", text);
	for (uint16_t i = 0; i < cfg.nb_slices; i++) {
		const struct sp_cfg_slice *s = &cfg.slices[i];

		if (!terminated(s->name, SP_NAME_LEN) || !terminated(s->codeopt, SP_NAME_LEN))
			bad("a slice name or code option is not NUL-terminated", text);
		if (s->nb_endpoints > SP_MAX_SLICE_ENDPOINTS ||
		    s->nb_queues > SP_MAX_SLICE_QUEUES || (s->nb_filters > 0 && !s->filters))
			bad("a slice's endpoint, queue or filter count is wrong", text);
		for (uint16_t e = 0; e < s->nb_endpoints; e++)
			if (s->endpoints[e].port >= cfg.nb_ports)
				bad("an endpoint names a port that does not exist", text);
	}
}

static void
check_error(int rc, const char *err, size_t errlen, const char *text)
{
	if (rc >= 0 || rc < -MAX_ERRNO)
		fail("result is neither 0 nor a negative errno", rc, "", text);
	if (!terminated(err, errlen))
		fail("message is not NUL-terminated within the buffer", rc, "", text);
	if (errlen > 1 && err[0] == '\0')
		fail("error without a message", rc, err, text);
	if (strchr(err, '\n') != NULL)
		fail("message spans more than one line", rc, err, text);
	if (!all_zero(&cfg, sizeof(cfg)))
		fail("config not left empty after an error", rc, err, text);
}

/* The same error again, into a message buffer of short_len bytes. */
static void
parse_short(const char *text, int rc, size_t short_len)
{
	char *err = malloc(short_len);
	int rc2;

	if (err == NULL)
		abort();
	memset(err, 0x55, short_len);
	rc2 = sp_config_parse(text, &cfg, err, short_len);
	if (rc2 != rc)
		fail("a shorter message buffer changed the result", rc2, "", text);
	check_error(rc2, err, short_len, text);
	free(err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *err = malloc(SP_CONFIG_ERR_LEN);
	int rc;

	if (text == NULL || err == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memset(err, 0x55, SP_CONFIG_ERR_LEN);

	rc = sp_config_parse(text, &cfg, err, SP_CONFIG_ERR_LEN);
	if (rc == 0) {
		check_success(text);
		sp_config_free(&cfg);
	} else {
		check_error(rc, err, SP_CONFIG_ERR_LEN, text);
		if (size % SHORT_ERR_EVERY == 0)
			parse_short(text, rc, 1 + size / SHORT_ERR_EVERY % SHORT_ERR_MAX);
	}
	free(err);
	free(text);
	return 0;
}
