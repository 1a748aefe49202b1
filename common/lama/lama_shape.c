/* One node topology prepared for a LAMA map: the tree with absent levels
 * transparent, the map's loops over it and the binding windows. */
#include <stdlib.h>
#include <string.h>

#include "lama_shape.h"
#include "psiplace/error.h"

/* Tree nodes in PU order: a PU opens a new node at level l when its
 * parent or its object there differs from the previous PU's.  A missing
 * object (-1) is one node per parent: the level is transparent. */
static int build_tree(struct psiplace_lama_shape *s)
{
	const struct psiplace_topo *t = s->topo;
	unsigned pu, l;

	for (l = 0; l < NLEV; l++) {
		s->tn[l] = malloc(s->npus * sizeof(unsigned));
		s->lo[l] = malloc(s->npus * sizeof(unsigned));
		s->hi[l] = malloc(s->npus * sizeof(unsigned));
		if (!s->tn[l] || !s->lo[l] || !s->hi[l])
			return -1;
	}
	for (pu = 0; pu < s->npus; pu++) {
		int newnode = pu == 0;

		for (l = 0; l < NLEV; l++) {
			if (l > 0 && !newnode)
				newnode = t->pus[pu].obj[l] != t->pus[pu - 1].obj[l];
			if (l == PSIPLACE_LEVEL_HWTHREAD)
				newnode = 1;
			if (newnode) {
				s->lo[l][s->ntn[l]] = pu;
				s->ntn[l]++;
			}
			s->tn[l][pu] = s->ntn[l] - 1;
			s->hi[l][s->ntn[l] - 1] = pu + 1;
		}
	}
	return 0;
}

static int build_loops(struct psiplace_lama_shape *s, const struct psiplace_lama_opts *o)
{
	int in_map[NLEV] = { 0 };
	unsigned i, j, x, prev = PSIPLACE_LEVEL_NODE;

	for (i = 0; i < o->map_len; i++)
		in_map[o->map[i]] = 1;
	for (i = PSIPLACE_LEVEL_NODE + 1; i < NLEV; i++)
		if (in_map[i])
			s->mlev[s->nloops++] = (enum psiplace_level)i;
	for (j = 0; j < s->nloops; j++) {
		unsigned l = s->mlev[j], np = s->ntn[prev];

		s->mfirst[j] = malloc(np * sizeof(unsigned));
		s->mcount[j] = malloc(np * sizeof(unsigned));
		if (!s->mfirst[j] || !s->mcount[j])
			return -1;
		for (x = 0; x < np; x++) {
			unsigned a = s->tn[l][s->lo[prev][x]], b = s->tn[l][s->hi[prev][x] - 1];

			s->mfirst[j][x] = a;
			s->mcount[j][x] = b - a + 1;
			if (b - a + 1 > s->width[l])
				s->width[l] = b - a + 1;
		}
		prev = l;
	}
	return 0;
}

/* The window container of binding node y: the smallest enclosing tree
 * node that holds at least bwidth binding nodes (private L1/L2 caches
 * hold one core: the L3 or the socket then), never beyond the socket
 * below socket level: a window does not span packages. */
static void window_of(struct psiplace_lama_shape *s, unsigned y)
{
	unsigned B = s->blev, pu = s->lo[B][y];
	int a, top = B > PSIPLACE_LEVEL_SOCKET ? PSIPLACE_LEVEL_SOCKET : PSIPLACE_LEVEL_NODE;

	for (a = (int)B - 1; a >= top; a--) {
		unsigned anc = s->tn[a][pu];
		unsigned first = s->tn[B][s->lo[a][anc]], last = s->tn[B][s->hi[a][anc] - 1];

		if (last - first + 1 >= s->bwidth || a == top) {
			s->bpos[y] = y - first;
			s->bsize[y] = last - first + 1;
			return;
		}
	}
	s->bpos[y] = 0; /* B is the node level: one node, width 1 fits */
	s->bsize[y] = 1;
}

static int build_binding(struct psiplace_lama_shape *s, const struct psiplace_lama_opts *o)
{
	const struct psiplace_topo *t = s->topo;
	unsigned nb, y, pu;

	s->blev = psiplace_lama_place_level(o);
	s->bwidth = psiplace_lama_place_width(o);
	nb = s->ntn[s->blev];
	s->bpos = malloc(nb * sizeof(unsigned));
	s->bsize = malloc(nb * sizeof(unsigned));
	s->bcpus = calloc(nb, sizeof(hwloc_bitmap_t));
	s->bmems = calloc(nb, sizeof(hwloc_bitmap_t));
	if (!s->bpos || !s->bsize || !s->bcpus || !s->bmems)
		return -1;
	for (y = 0; y < nb; y++) {
		window_of(s, y);
		s->bcpus[y] = hwloc_bitmap_alloc();
		s->bmems[y] = hwloc_bitmap_alloc();
		if (!s->bcpus[y] || !s->bmems[y])
			return -1;
	}
	for (pu = 0; pu < s->npus; pu++) {
		y = s->tn[s->blev][pu];
		if (hwloc_bitmap_set(s->bcpus[y], t->pus[pu].os_index) < 0 ||
		    (t->pus[pu].numa_os >= 0 &&
		     hwloc_bitmap_set(s->bmems[y], (unsigned)t->pus[pu].numa_os) < 0))
			return -1;
	}
	return 0;
}

static int cmp_os(const void *a, const void *b, void *arg)
{
	const struct psiplace_pu *p = arg;
	unsigned x = p[*(const unsigned *)a].os_index, y = p[*(const unsigned *)b].os_index;

	return x < y ? -1 : x > y;
}

static int build_os_rank(struct psiplace_lama_shape *s)
{
	unsigned *idx = malloc(s->npus * sizeof(unsigned)), i;

	s->os_rank = malloc(s->npus * sizeof(unsigned));
	if (!idx || !s->os_rank) {
		free(idx);
		return -1;
	}
	for (i = 0; i < s->npus; i++)
		idx[i] = i;
	qsort_r(idx, s->npus, sizeof(unsigned), cmp_os, s->topo->pus);
	for (i = 0; i < s->npus; i++)
		s->os_rank[idx[i]] = i;
	free(idx);
	return 0;
}

struct psiplace_lama_shape *psiplace_lama_shape_new(const struct psiplace_lama_opts *o,
						    const struct psiplace_topo *topo, psiplace_error_t *err)
{
	struct psiplace_lama_shape *s;

	if (!topo || topo->npus == 0) {
		psiplace_seterr(err, "LAMA: a node topology is empty");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		psiplace_seterr(err, "LAMA: out of memory");
		return NULL;
	}
	s->topo = topo;
	s->npus = topo->npus;
	if (build_tree(s) < 0 || build_loops(s, o) < 0 || build_binding(s, o) < 0 ||
	    build_os_rank(s) < 0) {
		psiplace_lama_shape_free(s);
		psiplace_seterr(err, "LAMA: out of memory preparing a topology of %u PUs",
				topo->npus);
		return NULL;
	}
	return s;
}

void psiplace_lama_shape_free(struct psiplace_lama_shape *s)
{
	unsigned l, y;

	if (!s)
		return;
	for (l = 0; l < NLEV; l++) {
		free(s->tn[l]);
		free(s->lo[l]);
		free(s->hi[l]);
		free(s->mfirst[l]);
		free(s->mcount[l]);
	}
	for (y = 0; s->bcpus && y < s->ntn[s->blev]; y++) {
		hwloc_bitmap_free(s->bcpus[y]);
		if (s->bmems)
			hwloc_bitmap_free(s->bmems[y]);
	}
	free(s->bcpus);
	free(s->bmems);
	free(s->bpos);
	free(s->bsize);
	free(s->os_rank);
	free(s);
}
