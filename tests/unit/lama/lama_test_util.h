/* Helpers of the LAMA tests: topologies by synthetic description, options
 * from NAME, VALUE pairs, and maps rendered as compact strings. */
#ifndef PSIPLACE_TEST_LAMA_UTIL_H
#define PSIPLACE_TEST_LAMA_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

#define MAXT 8

static struct psiplace_topo topos[MAXT];
static unsigned ntopos;

static inline const struct psiplace_topo *topo(const char *desc)
{
	psiplace_error_t err;

	cr_assert_lt(ntopos, MAXT);
	cr_assert_eq(psiplace_topo_load(desc, NULL, &topos[ntopos], &err), 0, "%s", err);
	return &topos[ntopos++];
}

static inline void free_topos(void)
{
	while (ntopos)
		psiplace_topo_free(&topos[--ntopos]);
}

/* kv: NULL-terminated NAME, VALUE pairs (VALUE NULL for flags). */
static inline void opts(struct psiplace_lama_opts *o, const char *const *kv)
{
	psiplace_error_t err;

	psiplace_lama_opts_init(o);
	for (; kv && kv[0]; kv += 2)
		cr_assert_eq(psiplace_lama_apply(o, kv[0], kv[1], &err), 0, "%s", err);
	cr_assert_eq(psiplace_lama_finish(o, &err), 0, "%s", err);
}

/* "NODE:CPUS" per rank, blank-separated ("-" unbound). */
static inline char *render(const struct psiplace_lama_map *m)
{
	size_t cap = 64 + m->ntasks * 32, k = 0, i;
	char *s = malloc(cap);
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	s[0] = '\0';
	for (i = 0; i < m->ntasks; i++) {
		char l[64];

		psiplace_lama_task_sets(m, i, b, NULL);
		if (hwloc_bitmap_iszero(b))
			snprintf(l, sizeof(l), "-");
		else
			hwloc_bitmap_list_snprintf(l, sizeof(l), b);
		k += (size_t)snprintf(s + k, cap - k, "%s%u:%s", i ? " " : "", m->task[i].node, l);
	}
	hwloc_bitmap_free(b);
	return s;
}

/* Map n tasks over the given nodes; the rendering, or "error: MSG". */
static inline char *map_nodes(unsigned nnodes, const struct psiplace_topo *const *t, size_t n,
		       const char *const *kv)
{
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	psiplace_error_t err;
	char *s;

	opts(&o, kv);
	if (psiplace_lama_map(&o, nnodes, t, n, &m, &err) < 0) {
		s = malloc(sizeof(err) + 8);
		snprintf(s, sizeof(err) + 8, "error: %s", err.text);
		return s;
	}
	s = render(&m);
	psiplace_lama_map_free(&m);
	return s;
}

static inline char *map1(const char *desc, unsigned nnodes, size_t n, const char *const *kv)
{
	const struct psiplace_topo *t = topo(desc), *all[64];
	unsigned i;

	for (i = 0; i < nnodes; i++)
		all[i] = t;
	return map_nodes(nnodes, all, n, kv);
}

#define EXPECT_MAP(got, want)                                                              \
	do {                                                                               \
		char *g_ = (got);                                                          \
		cr_assert_str_eq(g_, want);                                                \
		free(g_);                                                                  \
	} while (0)

#endif
