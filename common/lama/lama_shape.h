/* psiplace — private to the LAMA files: one node topology prepared for a
 * LAMA map (its tree with absent levels made transparent, the loops of the
 * map string, the binding windows). */
#ifndef PSIPLACE_LAMA_SHAPE_H
#define PSIPLACE_LAMA_SHAPE_H

#include <stdint.h>

#include "psiplace/lama.h"
#include "psiplace/error.h"

#define NLEV PSIPLACE_LEVEL_COUNT

struct psiplace_lama_shape {
	const struct psiplace_topo *topo;
	unsigned npus;
	/* Tree: a tree node at level l is a distinct (parent, object at l)
	 * pair, -1 (absent) making one node per parent; every tree node's PUs
	 * are contiguous in topology order.  tn[l][pu] is the PU's tree node
	 * at level l (tn[h][pu] == pu); lo/hi its PU range. */
	unsigned ntn[NLEV];
	unsigned *tn[NLEV];
	unsigned *lo[NLEV], *hi[NLEV];
	/* Loops: the map's levels in hierarchy order without n.  For loop j,
	 * a tree node x of the previous loop's level (the node for j = 0) has
	 * children mfirst[j][x] .. + mcount[j][x] - 1 at level mlev[j]. */
	unsigned nloops;
	enum psiplace_level mlev[NLEV];
	unsigned *mfirst[NLEV], *mcount[NLEV];
	unsigned width[NLEV]; /* by level: largest child count of its loop */
	/* Binding windows over tree nodes of level blev: a window of bwidth
	 * starting at y fits when bpos[y] + bwidth <= bsize[y] (position and
	 * count inside the smallest enclosing tree node holding >= bwidth). */
	enum psiplace_level blev;
	unsigned bwidth;
	unsigned *bpos, *bsize;
	hwloc_bitmap_t *bcpus, *bmems; /* per binding tree node */
	unsigned *os_rank; /* per PU: rank of its OS index on the node */
};

/* Prepare topo for o (after psiplace_lama_finish). */
struct psiplace_lama_shape *psiplace_lama_shape_new(const struct psiplace_lama_opts *o,
						    const struct psiplace_topo *topo, psiplace_error_t *err);
void psiplace_lama_shape_free(struct psiplace_lama_shape *s);

/* The one-node map with the sweep (turn of the letters left of n) of
 * each placement, for psiplace_lama_verify_local(). */
int psiplace_lama_map_sweeps(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			     unsigned ntasks, uint64_t *sweep, struct psiplace_lama_map *m,
			     psiplace_error_t *err);

/* Binding level and width used for placement: unbound tasks are placed
 * like 1h. */
static inline enum psiplace_level psiplace_lama_place_level(const struct psiplace_lama_opts *o)
{
	return o->bind_width ? o->bind_level : PSIPLACE_LEVEL_HWTHREAD;
}

static inline unsigned psiplace_lama_place_width(const struct psiplace_lama_opts *o)
{
	return o->bind_width ? o->bind_width : 1;
}

#endif
