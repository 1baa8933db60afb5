/* SPDX-License-Identifier: BSD-3-Clause */
#include "slice.h"
#include "../hostslice/hslice.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_log.h>
#include <rte_malloc.h>
#include "../common/log.h"

SP_LOG_TYPE("codeopt")

#define MAX_CODEOPTS 32

/* A host slice's: no callbacks, its frames never reach a code option (hostslice/hslice.h). */
static const struct sp_codeopt host_codeopt = {.name = SP_CODEOPT_HOST,
					       .abi_version = SP_CODEOPT_ABI};

/* Filled by constructors before main() and by dlopen() at start-up, read
 * afterwards only: no lock needed. */
static const struct sp_codeopt *codeopts[MAX_CODEOPTS];
static int log_types[MAX_CODEOPTS]; /* each one's rte_log type (sp_slice_log) */
static unsigned int nb_codeopts;
static unsigned int nb_refused;

static int
refuse(int rc)
{
	nb_refused++;
	return rc;
}

unsigned int
sp_codeopt_refused(void)
{
	return nb_refused;
}

int
sp_codeopt_register(const struct sp_codeopt *co)
{
	if (co == NULL || co->name == NULL || co->name[0] == '\0' ||
	    strlen(co->name) >= SP_NAME_LEN || co->parse == NULL || co->format == NULL ||
	    (co->load == NULL) != (co->release == NULL)) {
		SP_LOG(ERR, "code option refused: it needs a name shorter than %d bytes, "
		       "parse and format, and load and release both or neither", SP_NAME_LEN);
		return refuse(-EINVAL);
	}
	if (co->abi_version != SP_CODEOPT_ABI) {
		SP_LOG(ERR, "code option %s refused: built for ABI %u, this daemon runs ABI %u; "
		       "rebuild it against this slicepath's codeopt.h", co->name, co->abi_version,
		       SP_CODEOPT_ABI);
		return refuse(-ENOTSUP);
	}
	if (sp_codeopt_find(co->name) != NULL) {
		SP_LOG(ERR, "code option %s refused: the name is taken", co->name);
		return refuse(-EEXIST);
	}
	if (nb_codeopts == MAX_CODEOPTS) {
		SP_LOG(ERR, "code option %s refused: at most %d code options", co->name,
		       MAX_CODEOPTS);
		return refuse(-ENOSPC);
	}
	{
		char type[sizeof("slicepath.codeopt.") + SP_NAME_LEN];
		int t;

		/* Registered here, before the lcores start: rte_log's types are not for them to add. */
		snprintf(type, sizeof(type), "slicepath.codeopt.%s", co->name);
		t = rte_log_register_type_and_pick_level(type, RTE_LOG_INFO);
		log_types[nb_codeopts] = t >= 0 ? t : sp_log_type;
	}
	codeopts[nb_codeopts++] = co;
	return 0;
}

void
sp_slice_log(const struct sp_slice *s, uint32_t level, const char *fmt, ...)
{
	int type = sp_log_type;
	char line[512];
	va_list ap;

	for (unsigned int i = 0; i < nb_codeopts; i++)
		if (codeopts[i] == s->co)
			type = log_types[i];
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rte_log(level, type, "%s: slice %s: %s\n", s->co->name, s->name, line);
}

const struct sp_codeopt *
sp_codeopt_find(const char *name)
{
	for (unsigned int i = 0; i < nb_codeopts; i++)
		if (strcmp(codeopts[i]->name, name) == 0)
			return codeopts[i];
	return NULL;
}

const char *
sp_codeopt_name(unsigned int i)
{
	if (i < nb_codeopts)
		return codeopts[i]->name;
	return i == nb_codeopts ? host_codeopt.name : NULL;
}

void
sp_codeopt_names(char *buf, size_t len)
{
	size_t off = 0;
	const char *name;

	buf[0] = '\0';
	for (unsigned int i = 0; (name = sp_codeopt_name(i)) != NULL && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s%s", i > 0 ? ", " : "", name,
				name == host_codeopt.name ? " (a host slice)" : "");
}

/* The serial of the last slice made (sp_slice.serial). */
static uint64_t slice_serial;

struct sp_slice *
sp_slice_create(uint16_t id, const char *name, const char *codeopt, uint16_t npe, size_t mem_size,
		char *err, size_t errlen)
{
	const struct sp_codeopt *co = strcmp(codeopt, SP_CODEOPT_HOST) == 0 ? &host_codeopt :
				      sp_codeopt_find(codeopt);
	struct sp_slice *s;
	char names[256];
	int rc;

	if (co == NULL) {
		sp_codeopt_names(names, sizeof(names));
		snprintf(err, errlen, "unknown code option \"%s\"; use one of: %s", codeopt, names);
		return NULL;
	}
	s = rte_zmalloc("sp_slice", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		goto nomem;
	if (mem_size > 0) {
		s->mem = rte_zmalloc("sp_slice_mem", mem_size, RTE_CACHE_LINE_SIZE);
		if (s->mem == NULL)
			goto nomem;
	}
	s->id = id;
	s->serial = __atomic_add_fetch(&slice_serial, 1, __ATOMIC_RELAXED);
	s->npe = npe;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->co = co;
	s->mem_size = mem_size;
	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++)
		s->qmap[q] = SP_QUEUE_UNBOUND;
	if (co->slice_init != NULL) {
		rc = co->slice_init(s);
		if (rc < 0) {
			snprintf(err, errlen, "code option %s failed to start: %s", co->name,
				 strerror(-rc));
			rte_free(s->mem);
			rte_free(s);
			return NULL;
		}
	}
	return s;
nomem:
	snprintf(err, errlen, "out of memory for %zu bytes of slice memory", mem_size);
	if (s != NULL)
		rte_free(s->mem);
	rte_free(s);
	return NULL;
}

void
sp_slice_destroy(struct sp_slice *s)
{
	if (s == NULL)
		return;
	if (s->co->slice_fini != NULL)
		s->co->slice_fini(s);
	rte_free(s->mem);
	rte_free(s);
}

uint16_t
sp_slice_id(const struct sp_slice *s)
{
	return s->id;
}

void *
sp_slice_mem(struct sp_slice *s)
{
	return s->mem;
}

size_t
sp_slice_mem_size(const struct sp_slice *s)
{
	return s->mem_size;
}

void *
sp_slice_priv(struct sp_slice *s)
{
	return __atomic_load_n(&s->priv, __ATOMIC_ACQUIRE);
}

/* A release store: load() publishes what parse() then reads whole. */
void
sp_slice_set_priv(struct sp_slice *s, void *priv)
{
	__atomic_store_n(&s->priv, priv, __ATOMIC_RELEASE);
}
