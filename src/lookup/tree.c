/* SPDX-License-Identifier: BSD-3-Clause */
#include "tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_vect.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "base.h"
#include "breathe.h"
#include "lookup.h"
#include "tree_key.h"

/* Leaves this small are scanned; a larger set is cut again (the first try: plans below). */
#define LEAF_MAX 16
/* Cuts on one path at most: a part of the key space this deep is a leaf whatever it holds. */
#define MAX_DEPTH 24

/*
 * References to a child: a node, or a leaf's count and first entry. Nodes
 * and leaf entries lie in one block, a node first as two entries' room: a
 * reference is where in the block its line starts, in entries, so that a
 * lookup finds either with the same three instructions and no branch.
 * While a tree is built a node's reference is its index and a leaf's
 * start an index among the entries (placed() makes them final).
 */
#define REF_LEAF (1u << 31)
#define REF_COUNT_SHIFT 24
#define REF_COUNT_MAX 0x7fu /* this count: scan up to the sentinel entry (pos LK_NONE) */
#define REF_START_MASK ((1u << REF_COUNT_SHIFT) - 1)

/*
 * A node: one cache line. Child c holds the values in [thr[c - 1], thr[c]).
 * Thresholds are stored FLIPped (tree_key.h), as are the key's fields. The
 * thresholds come first, so that an AVX2 step compares them in one 32-byte
 * vector: its eighth lane, the field's word, counts for nothing (the last
 * child is the answer past the seventh threshold anyway).
 */

struct lk_tnode {
	uint32_t thr[LK_TREE_WAYS - 1]; /* FLIPped */
	uint8_t field;
	uint8_t nb_thr;
	uint16_t pad;
	uint32_t child[LK_TREE_WAYS];
} __rte_aligned(64);

/* A leaf's entry (tree_key.h): a box as a lookup compares it, and the answer it gives. */
#define NODE_UNITS (sizeof(struct lk_tnode) / sizeof(struct lk_tleaf)) /* a node's room in entries */

/*
 * Boxes wide in a field are copied into every child of a cut on it. One
 * tree is fastest (a lookup walks one path): most sets stay within a few
 * copies a box, and a tree of up to 16 is still worth its bytes (fw1_100k,
 * ipc1_50k: half the instructions a key of three trees, 1.5-2.7 x their
 * bytes, a third of rte_acl's memory or less); where one tree would copy
 * more, the boxes go into trees of their own by which of the two address
 * fields are narrow (EffiCuts, CutSplit), and a lookup walks each. A set
 * that blows up even so is scanned in larger leaves, and at worst in one
 * list: slow for that slice alone, never more memory than its boxes. A
 * plan's budget only stops its build: the tree within it is the same
 * whatever the budget, so each shape is tried once.
 */
#define NB_GROUPS 3
#define NARROW_BITS 16 /* a field spanning at most 2^16 values is narrow */

static const struct plan {
	bool grouped;
	uint32_t leaf_max;
	uint32_t copies; /* leaf entries at most, per box */
} plans[] = {
	{false, LEAF_MAX, 16},
	{true, LEAF_MAX, 16},
	{true, 64, 16},
	{false, UINT32_MAX, 1},
};

struct lk_tree {
	uint32_t nb_roots;
	uint32_t root[NB_GROUPS];
	uint32_t first[NB_GROUPS]; /* the lowest position in each tree, ascending */
	/* An answer: position << res_bits | result index (all ones: LK_TREE_RES_NONE). */
	uint32_t res_bits;
	uint32_t nb_nodes;
	uint32_t nb_entries;
	struct lk_tleaf *block; /* the nodes, then the leaves' entries (REF_LEAF) */
};

bool
lk_tree_takes(const struct lk_filter *f)
{
	for (unsigned int i = 0; i < LK_TREE_FIELDS; i++) {
		uint32_t inv = ~field_of(f->mask.b, i) & field_max(i);

		if ((inv & (inv + 1)) != 0)
			return false;
	}
	return true;
}

struct lk_tree_box
lk_tree_box_of(const struct lk_filter *f, uint32_t pos)
{
	struct lk_tree_box b = {.pos = pos};

	for (unsigned int i = 0; i < LK_TREE_FIELDS; i++) {
		b.lo[i] = field_of(f->key.b, i);
		b.hi[i] = b.lo[i] | (~field_of(f->mask.b, i) & field_max(i));
	}
	return b;
}

/* ------------------------------------------------------------------------ build */

/* A part of the key space: an interval in each field. */
struct region {
	uint32_t lo[LK_TREE_FIELDS];
	uint32_t hi[LK_TREE_FIELDS];
};

/* What a build grows, in malloc'd memory; copied to the socket's at the end. */
struct builder {
	const struct lk_tree_box *boxes;
	uint32_t res_bits;
	uint32_t leaf_max;
	uint64_t max_entries; /* past it the plan fails (REF_START_MASK bounds it too) */
	struct lk_tnode *nodes;
	uint32_t nb_nodes, cap_nodes;
	struct lk_tleaf *entries;
	uint32_t nb_entries, cap_entries;
	bool nomem;
};

static bool
overlaps(const struct lk_tree_box *b, unsigned int f, uint32_t lo, uint32_t hi)
{
	return b->lo[f] <= hi && b->hi[f] >= lo;
}

static bool
holds_region(const struct lk_tree_box *b, const struct region *r)
{
	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++)
		if (b->lo[f] > r->lo[f] || b->hi[f] < r->hi[f])
			return false;
	return true;
}

/* Box a covers all of box b within region r. */
static bool
covers(const struct lk_tree_box *a, const struct lk_tree_box *b, const struct region *r)
{
	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++) {
		uint32_t lo = RTE_MAX(b->lo[f], r->lo[f]), hi = RTE_MIN(b->hi[f], r->hi[f]);

		if (a->lo[f] > lo || a->hi[f] < hi)
			return false;
	}
	return true;
}

static bool
grow(void **arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap;
	void *p;

	if (need <= n)
		return true;
	while (n < need)
		n = n == 0 ? 64 : 2 * n;
	p = realloc(*arr, (size_t)n * size);
	if (p == NULL)
		return false;
	*arr = p;
	*cap = n;
	return true;
}

static struct lk_tleaf
leaf_entry(const struct lk_tree_box *b, uint32_t res_bits)
{
	uint32_t res_none = (1u << res_bits) - 1;

	return leaf_entry_of(b, b->pos << res_bits | (b->res < res_none ? b->res : res_none));
}

/* A leaf of the boxes of rs (ascending) not shadowed within r by one before them. */
static uint32_t
make_leaf(struct builder *bd, const uint32_t *rs, uint32_t n, const struct region *r)
{
	uint32_t start = bd->nb_entries, kept = 0, *kept_box;

	if (n == 0 || bd->nomem)
		return REF_LEAF;
	kept_box = malloc((size_t)n * sizeof(*kept_box));
	if (kept_box == NULL || (uint64_t)start + n + 1 > bd->max_entries ||
	    !grow((void **)&bd->entries, &bd->cap_entries, start + n + 1, sizeof(*bd->entries))) {
		free(kept_box);
		bd->nomem = true;
		return REF_LEAF;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct lk_tree_box *b = &bd->boxes[rs[i]];
		bool shadowed = false;

		for (uint32_t j = 0; j < kept && !shadowed; j++)
			shadowed = covers(&bd->boxes[kept_box[j]], b, r);
		if (shadowed)
			continue;
		kept_box[kept] = rs[i];
		bd->entries[start + kept++] = leaf_entry(b, bd->res_bits);
	}
	free(kept_box);
	if (kept >= REF_COUNT_MAX) {
		bd->entries[start + kept++] = leaf_with_answer(ANSWER_END);
		bd->nb_entries = start + kept;
		return REF_LEAF | REF_COUNT_MAX << REF_COUNT_SHIFT | start;
	}
	bd->nb_entries = start + kept;
	return REF_LEAF | kept << REF_COUNT_SHIFT | start;
}

/* A way to cut region r on one field: the thresholds, and what the children would hold. */
struct cut {
	unsigned int field;
	unsigned int nb_thr;
	uint32_t thr[LK_TREE_WAYS - 1];
	uint32_t max_child; /* boxes in the fullest child */
	uint64_t sum;       /* boxes in all children, copies counted */
};

/*
 * Sort v[n] (tmp: room for n more): a byte at a time from the lowest. At the
 * root of 131,072 boxes, qsort() took ~20 ms a field, in one stretch the
 * compiler could not breathe in; four passes take ~1 ms.
 */
static void
radix_sort(uint32_t *v, uint32_t *tmp, uint32_t n)
{
	for (unsigned int shift = 0; shift < 32; shift += 8) {
		uint32_t count[257] = {0}, *t;

		for (uint32_t i = 0; i < n; i++)
			count[((v[i] >> shift) & 0xff) + 1]++;
		for (unsigned int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (uint32_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0xff]++] = v[i];
		t = v;
		v = tmp;
		tmp = t;
		lk_breathe();
	}
}

/* Child of value v among the thresholds of c. */
static unsigned int
child_of(const struct cut *c, uint32_t v)
{
	unsigned int k = 0;

	while (k < c->nb_thr && c->thr[k] <= v)
		k++;
	return k;
}

/*
 * The balanced cut of r on field f: the boxes' edges inside r sweep the
 * field; thresholds go where the boxes met so far reach each 1/LK_TREE_WAYS
 * of the sum over the elementary segments (HyperSplit's weighted split).
 * False if no edge falls inside r. scratch: room for 4n.
 */
static bool
cut_on(const struct builder *bd, const uint32_t *rs, uint32_t n, const struct region *r,
       unsigned int f, uint32_t *scratch, struct cut *c)
{
	uint32_t nb = 0, counts[LK_TREE_WAYS] = {0};
	uint64_t total = 0, acc = 0;

	/* Edges: where a box starts (lo) or where one past its end starts (hi + 1). */
	for (uint32_t i = 0; i < n; i++) {
		const struct lk_tree_box *b = &bd->boxes[rs[i]];

		if (b->lo[f] > r->lo[f])
			scratch[nb++] = b->lo[f];
		if (b->hi[f] < r->hi[f])
			scratch[nb++] = b->hi[f] + 1;
	}
	if (nb == 0)
		return false;
	radix_sort(scratch, scratch + nb, nb);
	/* Each edge's weight: boxes overlapping the segment it starts, counted from both ends. */
	total = (uint64_t)nb;
	c->field = f;
	c->nb_thr = 0;
	for (uint32_t i = 0; i < nb && c->nb_thr < LK_TREE_WAYS - 1; i++) {
		acc++;
		if (i + 1 < nb && scratch[i + 1] == scratch[i])
			continue;
		if (acc * LK_TREE_WAYS >= total * (c->nb_thr + 1) &&
		    (c->nb_thr == 0 || c->thr[c->nb_thr - 1] < scratch[i]))
			c->thr[c->nb_thr++] = scratch[i];
	}
	if (c->nb_thr == 0)
		c->thr[c->nb_thr++] = scratch[nb / 2];
	c->sum = 0;
	lk_breathe();
	for (uint32_t i = 0; i < n; i++) {
		const struct lk_tree_box *b = &bd->boxes[rs[i]];
		unsigned int a = child_of(c, RTE_MAX(b->lo[f], r->lo[f]));
		unsigned int z = child_of(c, RTE_MIN(b->hi[f], r->hi[f]));

		for (unsigned int k = a; k <= z; k++)
			counts[k]++;
		c->sum += z - a + 1;
	}
	c->max_child = 0;
	for (unsigned int k = 0; k <= c->nb_thr; k++)
		c->max_child = RTE_MAX(c->max_child, counts[k]);
	return true;
}

static uint32_t build(struct builder *bd, uint32_t *rs, uint32_t n, const struct region *r,
		      unsigned int depth);

/* A node cutting r as c says, its children built from the boxes of rs each overlaps. */
static uint32_t
make_node(struct builder *bd, const uint32_t *rs, uint32_t n, const struct region *r,
	  const struct cut *c, unsigned int depth)
{
	uint32_t id = bd->nb_nodes, *sub = malloc((size_t)n * sizeof(*sub));
	unsigned int f = c->field;
	struct lk_tnode node = {.field = (uint8_t)f, .nb_thr = (uint8_t)c->nb_thr};

	if (sub == NULL || !grow((void **)&bd->nodes, &bd->cap_nodes, id + 1, sizeof(*bd->nodes))) {
		free(sub);
		bd->nomem = true;
		return REF_LEAF;
	}
	bd->nb_nodes++;
	for (unsigned int k = 0; k < LK_TREE_WAYS - 1; k++)
		node.thr[k] = (k < c->nb_thr ? c->thr[k] : UINT32_MAX) ^ FLIP;
	for (unsigned int k = 0; k <= c->nb_thr; k++) {
		struct region cr = *r;
		uint32_t m = 0;

		if (k > 0)
			cr.lo[f] = c->thr[k - 1];
		if (k < c->nb_thr)
			cr.hi[f] = c->thr[k] - 1;
		for (uint32_t i = 0; i < n; i++)
			if (overlaps(&bd->boxes[rs[i]], f, cr.lo[f], cr.hi[f]))
				sub[m++] = rs[i];
		lk_breathe();
		node.child[k] = build(bd, sub, m, &cr, depth + 1);
	}
	/* Values past the last threshold count the unused ones too: they reach the last child. */
	for (unsigned int k = c->nb_thr + 1; k < LK_TREE_WAYS; k++)
		node.child[k] = node.child[c->nb_thr];
	free(sub);
	if (!bd->nomem)
		bd->nodes[id] = node;
	return id;
}

static uint32_t
build(struct builder *bd, uint32_t *rs, uint32_t n, const struct region *r, unsigned int depth)
{
	struct cut best = {.max_child = UINT32_MAX}, c;
	uint32_t *scratch;

	if (bd->nomem)
		return REF_LEAF;
	/* The first box holding all of r answers for all of it: the leaf keeps it alone. */
	if (n <= bd->leaf_max || depth == MAX_DEPTH || holds_region(&bd->boxes[rs[0]], r))
		return make_leaf(bd, rs, n, r);
	scratch = malloc((size_t)n * 4 * sizeof(*scratch));
	if (scratch == NULL) {
		bd->nomem = true;
		return REF_LEAF;
	}
	/* Copies cost memory and each child should shrink: both weigh. */
	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++)
		if (cut_on(bd, rs, n, r, f, scratch, &c) &&
		    (best.max_child == UINT32_MAX ||
		     c.sum + (uint64_t)LK_TREE_WAYS * c.max_child <
			     best.sum + (uint64_t)LK_TREE_WAYS * best.max_child))
			best = c;
	free(scratch);
	if (best.max_child >= n)
		return make_leaf(bd, rs, n, r);
	return make_node(bd, rs, n, r, &best, depth);
}

/* Which tree a box goes to: narrow in the first group field, else in the second, else neither. */
static unsigned int
group_of(const struct lk_tree_box *b, bool grouped)
{
	if (!grouped || b->hi[GROUP_FIELD_A] - b->lo[GROUP_FIELD_A] < (1u << NARROW_BITS))
		return 0;
	if (b->hi[GROUP_FIELD_B] - b->lo[GROUP_FIELD_B] < (1u << NARROW_BITS))
		return 1;
	return 2;
}

/* The trees in the order of their first box: a lookup stops once its match comes before. */
static void
sort_roots(struct lk_tree *t)
{
	for (uint32_t i = 1; i < t->nb_roots; i++)
		for (uint32_t j = i; j > 0 && t->first[j - 1] > t->first[j]; j--) {
			RTE_SWAP(t->first[j - 1], t->first[j]);
			RTE_SWAP(t->root[j - 1], t->root[j]);
		}
}

/* A reference as the builder made it, as lookups take it (REF_LEAF) in a block of nodes_units of nodes. */
static uint32_t
placed(uint32_t ref, uint32_t nodes_units)
{
	return ref & REF_LEAF ? ref + nodes_units : ref * (uint32_t)NODE_UNITS;
}

/* The tree of the n boxes as plan p says into t (zeroed), or false (over its budget). */
static bool
build_plan(struct lk_tree *t, const struct lk_tree_box *boxes, uint32_t n, const struct plan *p,
	   uint32_t *rs, int socket)
{
	struct builder bd = {
		.boxes = boxes,
		.res_bits = t->res_bits,
		.leaf_max = p->leaf_max,
		.max_entries = RTE_MIN((uint64_t)p->copies * n + 1024, (uint64_t)REF_START_MASK),
	};
	uint64_t nodes_units;
	struct region all;

	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++) {
		all.lo[f] = 0;
		all.hi[f] = field_max(f);
	}
	for (unsigned int g = 0; g < NB_GROUPS && !bd.nomem; g++) {
		uint32_t m = 0;

		for (uint32_t i = 0; i < n; i++)
			if (group_of(&boxes[i], p->grouped) == g)
				rs[m++] = i;
		if (m == 0)
			continue;
		t->first[t->nb_roots] = boxes[rs[0]].pos;
		t->root[t->nb_roots++] = build(&bd, rs, m, &all, 0);
	}
	sort_roots(t);
	nodes_units = (uint64_t)bd.nb_nodes * NODE_UNITS;
	if (!bd.nomem && nodes_units + bd.nb_entries <= REF_START_MASK)
		t->block = rte_malloc_socket("lk_tree_data",
					     (nodes_units + bd.nb_entries) * sizeof(*bd.entries) + 1,
					     RTE_CACHE_LINE_SIZE, socket);
	if (t->block != NULL) {
		struct lk_tnode *nodes = (struct lk_tnode *)t->block;

		for (uint32_t i = 0; i < bd.nb_nodes; i++) {
			nodes[i] = bd.nodes[i];
			for (unsigned int c = 0; c < LK_TREE_WAYS; c++)
				nodes[i].child[c] = placed(nodes[i].child[c], (uint32_t)nodes_units);
		}
		for (uint32_t g = 0; g < t->nb_roots; g++)
			t->root[g] = placed(t->root[g], (uint32_t)nodes_units);
		if (bd.nb_entries > 0)
			memcpy(t->block + nodes_units, bd.entries, bd.nb_entries * sizeof(*bd.entries));
		t->nb_nodes = bd.nb_nodes;
		t->nb_entries = bd.nb_entries;
	}
	free(bd.nodes);
	free(bd.entries);
	return t->block != NULL;
}

/* The answer's bits the result index gets: those the positions leave (boxes ascend). */
static uint32_t
res_bits_for(const struct lk_tree_box *boxes, uint32_t n)
{
	uint32_t last = n > 0 ? boxes[n - 1].pos : 0;

	/* Positions up to last, and all ones free for ANSWER_END. */
	return (uint32_t)__builtin_clz(last + 1);
}

struct lk_tree *
lk_tree_build(const struct lk_tree_box *boxes, uint32_t n, int socket)
{
	/* A leaf entry: half a line at 14 bytes, a line at 40 (tree_key.h); a node, a line. */
	RTE_BUILD_BUG_ON(sizeof(struct lk_tleaf) != (LK_KEY_BYTES == 14 ? 32 : 64) ||
			 sizeof(struct lk_tnode) != RTE_CACHE_LINE_SIZE);
	uint32_t *rs = malloc(((size_t)n + 1) * sizeof(*rs));
	struct lk_tree *t = rs != NULL ? rte_malloc_socket("lk_tree", sizeof(*t), 0, socket) : NULL;

	/* The first plan whose tree fits its budget; the last, a list, always does. */
	for (unsigned int i = 0; t != NULL && i < RTE_DIM(plans); i++) {
		memset(t, 0, sizeof(*t));
		t->res_bits = res_bits_for(boxes, n);
		if (build_plan(t, boxes, n, &plans[i], rs, socket)) {
			free(rs);
			return t;
		}
	}
	free(rs);
	rte_free(t);
	rte_errno = ENOMEM;
	return NULL;
}

void
lk_tree_free(struct lk_tree *t)
{
	if (t == NULL)
		return;
	rte_free(t->block);
	rte_free(t);
}

size_t
lk_tree_bytes(const struct lk_tree *t)
{
	return t == NULL ? 0 : (size_t)t->nb_nodes * sizeof(struct lk_tnode) +
				       (size_t)t->nb_entries * sizeof(struct lk_tleaf);
}

uint32_t
lk_tree_entries(const struct lk_tree *t)
{
	return t == NULL ? 0 : t->nb_entries;
}

/* ----------------------------------------------------------------------- lookup */

/* The child holding the key of fields kv (tkey's v): past as many thresholds as are at most its field. */
static __rte_always_inline uint32_t
node_step(const struct lk_tnode *node, const uint32_t *kv)
{
	uint32_t v = kv[node->field];
#ifdef RTE_ARCH_X86
	/* Thresholds 0-3 and 3-6, signed compares on FLIPped values. */
	__m128i fv = _mm_set1_epi32((int32_t)v);
	__m128i lo = _mm_loadu_si128((const __m128i *)&node->thr[0]);
	__m128i hi = _mm_loadu_si128((const __m128i *)&node->thr[3]);
	unsigned int above = (unsigned int)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(lo, fv))) |
			     (unsigned int)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(hi, fv))) << 3;

	/* Thresholds ascend: the first above v is the child. */
	return node->child[__builtin_ctz(above | 1u << (LK_TREE_WAYS - 1))];
#else
	uint32_t c = 0;

	for (unsigned int j = 0; j < LK_TREE_WAYS - 1; j++)
		c += (int32_t)node->thr[j] <= (int32_t)v;
	return node->child[c];
#endif
}

#ifdef RTE_ARCH_X86
/* node_step() in one compare of the seven thresholds (and the field's word, whose bit is ORed away). */
static __rte_always_inline __attribute__((target("avx2"))) uint32_t
node_step_avx2(const struct lk_tnode *node, const uint32_t *kv)
{
	__m256i fv = _mm256_set1_epi32((int32_t)kv[node->field]);
	__m256i thr = _mm256_load_si256((const __m256i *)node->thr); /* the node's line starts with them */
	unsigned int above =
		(unsigned int)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(thr, fv)));

	return node->child[__builtin_ctz(above | 1u << (LK_TREE_WAYS - 1))];
}
#endif

/* Where the reference's node or leaf starts in a tree's block. */
static inline const void *
block_at(const struct lk_tleaf *block, uint32_t ref)
{
	return &block[ref & REF_START_MASK];
}

static inline const void *
ref_at(const struct lk_tree *t, uint32_t ref)
{
	return block_at(t->block, ref);
}

/*
 * The next node's line, or a leaf's first two (prefetches never fault): a
 * leaf's first two lines hold the few entries most scans compare; a longer
 * scan meets its later lines as they come.
 */
static inline void
prefetch_ref(const struct lk_tleaf *block, uint32_t ref)
{
	const char *at = block_at(block, ref);

	rte_prefetch0(at);
	rte_prefetch0(at + ref / REF_LEAF * RTE_CACHE_LINE_SIZE);
}

/* How a leaf's entry is compared: leaf_holds() or its AVX2 form, a constant where inlined. */
typedef bool (*holds_fn)(const struct lk_tleaf *e, const struct tkey *k);

/* The leaf's first entry holding the key, or NULL. */
static __rte_always_inline const struct lk_tleaf *
scan_leaf(const struct lk_tree *t, uint32_t ref, const struct tkey *k, holds_fn holds)
{
	uint32_t count = (ref >> REF_COUNT_SHIFT) & REF_COUNT_MAX;
	const struct lk_tleaf *e = ref_at(t, ref);

	if (count == REF_COUNT_MAX) {
		for (; answer_of(e) != ANSWER_END; e++)
			if (holds(e, k))
				return e;
		return NULL;
	}
	for (uint32_t i = 0; i < count; i++)
		if (holds(&e[i], k))
			return &e[i];
	return NULL;
}

/* The entries of a leaf (up to its sentinel for a count of REF_COUNT_MAX). */
static uint32_t
leaf_length(const struct lk_tree *t, uint32_t ref)
{
	uint32_t count = (ref >> REF_COUNT_SHIFT) & REF_COUNT_MAX;
	const struct lk_tleaf *e = ref_at(t, ref);

	if (count < REF_COUNT_MAX)
		return count;
	for (count = 0; answer_of(&e[count]) != ANSWER_END; count++)
		;
	return count;
}

/* Cache lines of a leaf's first span entries (its first line even for none: prefetch_ref's). */
static uint32_t
leaf_lines(const struct lk_tree *t, uint32_t ref, uint32_t span)
{
	uintptr_t first = (uintptr_t)ref_at(t, ref);
	uintptr_t last = first + RTE_MAX(span, 1u) * sizeof(struct lk_tleaf) - 1;

	return (uint32_t)(last / RTE_CACHE_LINE_SIZE - first / RTE_CACHE_LINE_SIZE + 1);
}

uint32_t
lk_tree_walk(const struct lk_tree *t, const uint8_t *key, struct sp_lookup_walk *w)
{
	struct tkey k;
	uint32_t ref[NB_GROUPS], pos = LK_NONE;

	tkey_fill(&k, key);

	w->trees += t->nb_roots;
	for (uint32_t g = 0; g < t->nb_roots; g++)
		for (ref[g] = t->root[g]; !(ref[g] & REF_LEAF); w->levels++)
			ref[g] = node_step(ref_at(t, ref[g]), k.v);
	/* Every leaf's first two lines are fetched (prefetch_ref); those of trees past the match go unread. */
	for (uint32_t g = 0; g < t->nb_roots; g++) {
		uint32_t length = leaf_length(t, ref[g]), compared = 0;

		if (pos > t->first[g]) {
			const struct lk_tleaf *e = scan_leaf(t, ref[g], &k, leaf_holds);

			compared = e != NULL ? (uint32_t)(e - (const struct lk_tleaf *)ref_at(t, ref[g])) + 1
					     : length;
			w->trees_read++;
			w->entries += compared;
			if (e != NULL)
				pos = RTE_MIN(pos, answer_of(e) >> t->res_bits);
		}
		w->leaf_lines += RTE_MAX(2u, leaf_lines(t, ref[g], compared));
	}
	return pos;
}

/*
 * Every key walks every tree of its own at once, a level a pass: the trees'
 * lines and the keys' are all on their way together, so a burst waits about
 * one path's worth of misses, not one per key and tree in turn. Keys of
 * other slices walk together as well as a slice's own. Each pass takes the
 * walks not yet in a leaf only, listed without a branch. step: node_step()
 * or its AVX2 form, and holds leaf_holds() or its, constants where this is
 * inlined.
 */
static __rte_always_inline void
classify(const struct lk_tree *const *trees, const uint8_t *const *keys, struct lk_tree_hit *hits,
	 uint32_t n, uint32_t (*step)(const struct lk_tnode *, const uint32_t *), holds_fn holds)
{
	struct tkey k[LK_BURST];
	/* Walk w = g * LK_BURST + i: tree g of key i. Its block and key's fields, a load each a step. */
	const struct lk_tleaf *block[NB_GROUPS * LK_BURST];
	const uint32_t *kv[NB_GROUPS * LK_BURST];
	uint32_t ref[NB_GROUPS * LK_BURST];
	uint16_t walk[NB_GROUPS * LK_BURST]; /* walks on their way */
	uint32_t nb_walk = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct lk_tree *t = trees[i];

		tkey_fill(&k[i], keys[i]);
		for (uint32_t g = 0, w = i; g < t->nb_roots; g++, w += LK_BURST) {
			block[w] = t->block;
			kv[w] = k[i].v;
			ref[w] = t->root[g];
			prefetch_ref(t->block, ref[w]);
			walk[nb_walk] = (uint16_t)w;
			nb_walk += !(ref[w] & REF_LEAF);
		}
	}
	while (nb_walk > 0) {
		uint32_t m = 0;

		for (uint32_t j = 0; j < nb_walk; j++) {
			uint32_t w = walk[j];
			/* A walk listed is at a node: its reference is the node's place, no leaf bits. */
			uint32_t r = step((const struct lk_tnode *)&block[w][ref[w]], kv[w]);

			ref[w] = r;
			prefetch_ref(block[w], r);
			walk[m] = (uint16_t)w;
			m += !(r & REF_LEAF);
		}
		nb_walk = m;
	}
	/* The trees in the order of their first box: one that cannot beat the match goes unread. */
	for (uint32_t i = 0; i < n; i++) {
		const struct lk_tree *t = trees[i];
		uint32_t res_none = (1u << t->res_bits) - 1;

		hits[i].pos = LK_NONE;
		for (uint32_t g = 0; g < t->nb_roots && hits[i].pos > t->first[g]; g++) {
			const struct lk_tleaf *e = scan_leaf(t, ref[g * LK_BURST + i], &k[i], holds);
			uint32_t answer = e != NULL ? answer_of(e) : 0;

			if (e != NULL && answer >> t->res_bits < hits[i].pos)
				hits[i] = (struct lk_tree_hit){
					.pos = answer >> t->res_bits,
					.res = (answer & res_none) != res_none ?
						       (uint16_t)(answer & res_none) : LK_TREE_RES_NONE};
		}
	}
}

static void
classify_default(const struct lk_tree *const *trees, const uint8_t *const *keys,
	     struct lk_tree_hit *hits, uint32_t n)
{
	classify(trees, keys, hits, n, node_step, leaf_holds);
}

#ifdef RTE_ARCH_X86
static __attribute__((target("avx2"))) void
classify_avx2(const struct lk_tree *const *trees, const uint8_t *const *keys,
	      struct lk_tree_hit *hits, uint32_t n)
{
	classify(trees, keys, hits, n, node_step_avx2, leaf_holds_avx2);
}
#endif

/* The walk lk_tree_choose_path() chose: the portable one until it is called. */
static void (*classify_path)(const struct lk_tree *const *, const uint8_t *const *,
			     struct lk_tree_hit *, uint32_t) = classify_default;

void
lk_tree_choose_path(void)
{
#ifdef RTE_ARCH_X86
	bool avx2 = rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256 &&
		    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;

	__atomic_store_n(&classify_path, avx2 ? classify_avx2 : classify_default, __ATOMIC_RELAXED);
#endif
}

const char *
lk_tree_method(void)
{
#ifdef RTE_ARCH_X86
	return __atomic_load_n(&classify_path, __ATOMIC_RELAXED) == classify_avx2 ? "tree-avx2" : "tree-sse";
#else
	return "tree-scalar";
#endif
}

void
lk_tree_classify(const struct lk_tree *const *trees, const uint8_t *const *keys,
		 struct lk_tree_hit *hits, uint32_t n)
{
	__atomic_load_n(&classify_path, __ATOMIC_RELAXED)(trees, keys, hits, n);
}
