/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading a slice's eBPF object: libbpf opens the ELF from memory (no
 * kernel involved) and finds the "parse" and "format" sections; rte_bpf
 * verifies each (bounds of every memory access, no loops, only our helpers)
 * and compiles it to native code. What either library says on the way is
 * caught and becomes the error the slice's owner reads.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <rte_log.h>
#include <rte_per_lcore.h>

#include <slicepath/bpf.h>

#include "bpf_progs.h"

#define LOG_LEN 1024

static RTE_DEFINE_PER_LCORE(void *, slice_mem);

void
sp_bpf_set_mem(void *mem)
{
	RTE_PER_LCORE(slice_mem) = mem;
}

/* SP_BPF_HELPER_MEM: the verifier bounds what the program does with it by the slice's size. */
static uint64_t
helper_mem(uint64_t a __rte_unused, uint64_t b __rte_unused, uint64_t c __rte_unused,
	   uint64_t d __rte_unused, uint64_t e __rte_unused)
{
	return (uint64_t)(uintptr_t)RTE_PER_LCORE(slice_mem);
}

/* Index 0: no C program can call it; it returns nothing. */
static uint64_t
helper_none(uint64_t a __rte_unused, uint64_t b __rte_unused, uint64_t c __rte_unused,
	    uint64_t d __rte_unused, uint64_t e __rte_unused)
{
	return 0;
}

/* What libbpf and rte_bpf said during one load (the management thread's alone). */
static char said[LOG_LEN];

static void
keep(const char *text)
{
	size_t n = strlen(said);

	/* The lines said, joined by "; " (rte_bpf ends some with ';' already). */
	for (; *text != '\0' && n + 3 < sizeof(said); text++) {
		if (*text != '\n') {
			said[n++] = *text;
			continue;
		}
		while (n > 0 && (said[n - 1] == ';' || said[n - 1] == ' '))
			n--;
		if (text[1] != '\0' && n > 0) {
			said[n++] = ';';
			said[n++] = ' ';
		}
	}
	said[n] = '\0';
}

static int
libbpf_said(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	keep(line);
	return 0;
}

/* Verify and compile one section's instructions. */
static int
load_entry(struct sp_bpf_progs *p, const struct bpf_program *prog, struct sp_bpf_entry *e)
{
	struct rte_bpf_prm prm = {
		.ins = (const struct ebpf_insn *)bpf_program__insns(prog),
		.nb_ins = (uint32_t)bpf_program__insn_cnt(prog),
		.xsym = p->xsym,
		.nb_xsym = RTE_DIM(p->xsym),
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sp_bpf_ctx)},
	};
	FILE *log = rte_log_get_stream(), *buf;
	struct rte_bpf_jit jit = {0};
	char *text = NULL;
	size_t n = 0;

	/* rte_bpf says why it refuses only in the log: catch it, then pass it on. */
	buf = open_memstream(&text, &n);
	if (buf != NULL)
		rte_openlog_stream(buf);
	e->bpf = rte_bpf_load(&prm);
	if (buf != NULL) {
		rte_openlog_stream(log);
		fclose(buf);
		if (e->bpf == NULL)
			keep(text);
		fputs(text, log);
		free(text);
	}
	if (e->bpf == NULL)
		return -EINVAL;
	if (rte_bpf_get_jit(e->bpf, &jit) == 0)
		e->jit = jit.func;
	return 0;
}

static const struct bpf_program *
section(struct bpf_object *obj, const char *name)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
		if (strcmp(bpf_program__section_name(prog), name) == 0)
			return prog;
	return NULL;
}

struct sp_bpf_progs *
sp_bpf_progs_build(const void *obj, size_t len, size_t mem_size, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "slice");
	libbpf_print_fn_t before = libbpf_set_print(libbpf_said);
	struct sp_bpf_progs *p = calloc(1, sizeof(*p));
	const char *names[] = {"parse", "format"};
	struct sp_bpf_entry *entries[2];
	struct bpf_object *o;
	int rc = 0;

	said[0] = '\0';
	o = bpf_object__open_mem(obj, len, &opts);
	libbpf_set_print(before);
	if (p == NULL || o == NULL) {
		snprintf(err, errlen, "not an eBPF object libbpf can open: %s",
			 said[0] != '\0' ? said : strerror(errno));
		free(p);
		return NULL;
	}
	/* Memory the verifier lets the programs use: the slice's block; none if it has none. */
	p->xsym[0] = (struct rte_bpf_xsym){
		.name = "sp_bpf_none",
		.type = RTE_BPF_XTYPE_FUNC,
		.func = {.val = helper_none,
			 .ret = {.type = RTE_BPF_ARG_RAW, .size = sizeof(uint64_t)}},
	};
	p->xsym[SP_BPF_HELPER_MEM] = (struct rte_bpf_xsym){
		.name = "sp_bpf_mem",
		.type = RTE_BPF_XTYPE_FUNC,
		.func = {.val = helper_mem,
			 .ret = mem_size > 0 ? (struct rte_bpf_arg){.type = RTE_BPF_ARG_PTR,
								    .size = mem_size}
					     : (struct rte_bpf_arg){.type = RTE_BPF_ARG_RAW,
								    .size = sizeof(uint64_t)}},
	};
	entries[0] = &p->parse;
	entries[1] = &p->format;
	for (int i = 0; i < 2 && rc == 0; i++) {
		const struct bpf_program *prog = section(o, names[i]);

		if (prog == NULL) {
			snprintf(err, errlen, "the object has no \"%s\" section (SP_BPF_PARSE and "
				 "SP_BPF_FORMAT in slicepath/bpf.h)", names[i]);
			rc = -EINVAL;
		} else if (load_entry(p, prog, entries[i]) < 0) {
			snprintf(err, errlen, "\"%s\" refused by the verifier: %s", names[i],
				 said[0] != '\0' ? said : "no reason given");
			rc = -EINVAL;
		}
	}
	bpf_object__close(o);
	if (rc < 0) {
		sp_bpf_progs_free(p);
		return NULL;
	}
	return p;
}

void
sp_bpf_progs_free(struct sp_bpf_progs *p)
{
	if (p == NULL)
		return;
	if (p->parse.bpf != NULL)
		rte_bpf_destroy(p->parse.bpf);
	if (p->format.bpf != NULL)
		rte_bpf_destroy(p->format.bpf);
	free(p);
}
