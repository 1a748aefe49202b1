/* The LAMA mapper: nested loops over the map letters (leftmost innermost)
 * across the nodes' trees, binding windows, MPPR limits, passes and
 * oversubscription, then natural or sequential rank order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lama_shape.h"
#include "psiplace/error.h"

/* Per-mapping counters: MPPR counts per tree node of each limited level,
 * and which window holds each binding node in the current pass. */
struct run {
	const struct psiplace_lama_opts *o;
	unsigned nnodes;
	struct psiplace_lama_shape *const *shape;
	const unsigned *caps; /* tasks per node, or NULL: LAMA decides */
	unsigned *left;       /* per node, with caps */
	size_t *off[NLEV];    /* per MPPR entry: node -> first counter */
	unsigned *count[NLEV];
	size_t *boff;         /* node -> first binding node (windows) */
	unsigned *owner, *stamp;
	uint64_t *sweep;      /* optional: sweep of each placement */
};

static int alloc_counters(struct run *r)
{
	const struct psiplace_lama_opts *o = r->o;
	unsigned e, i;

	for (e = 0; e < o->nmppr; e++) {
		size_t tot = 0;

		r->off[e] = malloc(r->nnodes * sizeof(size_t));
		if (!r->off[e])
			return -1;
		for (i = 0; i < r->nnodes; i++) {
			r->off[e][i] = tot;
			tot += r->shape[i]->ntn[o->mppr[e].level];
		}
		r->count[e] = calloc(tot ? tot : 1, sizeof(unsigned));
		if (!r->count[e])
			return -1;
	}
	if (psiplace_lama_place_width(o) > 1) {
		size_t tot = 0;

		r->boff = malloc(r->nnodes * sizeof(size_t));
		if (!r->boff)
			return -1;
		for (i = 0; i < r->nnodes; i++) {
			r->boff[i] = tot;
			tot += r->shape[i]->ntn[r->shape[i]->blev];
		}
		r->owner = calloc(tot, sizeof(unsigned));
		r->stamp = calloc(tot, sizeof(unsigned));
		if (!r->owner || !r->stamp)
			return -1;
	}
	return 0;
}

static void free_counters(struct run *r)
{
	unsigned e;

	for (e = 0; e < NLEV; e++) {
		free(r->off[e]);
		free(r->count[e]);
	}
	free(r->boff);
	free(r->owner);
	free(r->stamp);
	free(r->left);
}

/* MPPR on the window y..y+K-1: every tree node of a limited level that
 * shares a PU with it (ancestors, the objects, descendants) must be below
 * its limit; commit counts them. */
static int mppr_ok(struct run *r, unsigned node, unsigned y, int commit)
{
	const struct psiplace_lama_shape *s = r->shape[node];
	unsigned lo = s->lo[s->blev][y], hi = s->hi[s->blev][y + s->bwidth - 1] - 1;
	unsigned e, x;

	for (e = 0; e < r->o->nmppr; e++) {
		unsigned l = r->o->mppr[e].level;
		unsigned *c = r->count[e] + r->off[e][node];

		for (x = s->tn[l][lo]; x <= s->tn[l][hi]; x++) {
			if (commit)
				c[x]++;
			else if (c[x] >= r->o->mppr[e].limit)
				return 0;
		}
	}
	return 1;
}

/* Windows of one pass never partly overlap: the same window again is
 * fine (two tasks on one core's threads), a shifted one is not. */
static int window_ok(struct run *r, unsigned node, unsigned y, unsigned pass, int commit)
{
	const struct psiplace_lama_shape *s = r->shape[node];
	unsigned k;

	if (s->bwidth == 1)
		return 1;
	if (s->bpos[y] + s->bwidth > s->bsize[y])
		return 0;
	for (k = 0; k < s->bwidth; k++) {
		size_t i = r->boff[node] + y + k;

		if (commit) {
			r->stamp[i] = pass;
			r->owner[i] = y;
		} else if (r->stamp[i] == pass && r->owner[i] != y) {
			return 0;
		}
	}
	return 1;
}

/* The PU at the loop coordinates on a node, or -1 when it has none. */
static int walk(const struct psiplace_lama_shape *s, const unsigned *coord)
{
	unsigned j, x = 0;

	for (j = 0; j < s->nloops; j++) {
		unsigned c = coord[s->mlev[j]];

		if (c >= s->mcount[j][x])
			return -1;
		x = s->mfirst[j][x] + c;
	}
	return (int)x;
}

static int fail(const struct psiplace_lama_opts *o, psiplace_error_t *err, const char *what,
		size_t placed, size_t n)
{
	char b[16], m[64];

	psiplace_lama_bind_string(o, b, sizeof(b));
	psiplace_lama_mppr_string(o, m, sizeof(m));
	if (!strcmp(what, "oversubscription"))
		return psiplace_seterr(err,
				       "LAMA detected oversubscription after mapping %zu of %zu processes (map %s, bind %s, mppr %s, order %s); --psi-oversubscribe allows it",
				       placed, n, o->map_str, b, m, o->sequential ? "s" : "n");
	return psiplace_seterr(err,
			       "LAMA cannot place process %zu of %zu: a whole pass found no free location (map %s, bind %s, mppr %s, order %s)",
			       placed, n, o->map_str, b, m, o->sequential ? "s" : "n");
}

/* Loop bounds, by map position: the node count for n, else the largest
 * child count of that level over all nodes. */
static void bounds(struct run *r, unsigned *bound, unsigned *npos)
{
	const struct psiplace_lama_opts *o = r->o;
	unsigned i, k;

	for (i = 0; i < o->map_len; i++) {
		bound[i] = 0;
		if (o->map[i] == PSIPLACE_LEVEL_NODE) {
			bound[i] = r->nnodes;
			*npos = i;
			continue;
		}
		for (k = 0; k < r->nnodes; k++)
			if (r->shape[k]->width[o->map[i]] > bound[i])
				bound[i] = r->shape[k]->width[o->map[i]];
	}
}

/* Try the location at coord; 1 when a task was placed there. */
static int try_place(struct run *r, const unsigned *coord, unsigned pass, int use_mppr,
		     struct psiplace_lama_task *t)
{
	unsigned node = coord[PSIPLACE_LEVEL_NODE];
	const struct psiplace_lama_shape *s = r->shape[node];
	int pu;
	unsigned y;

	if (r->left && r->left[node] == 0)
		return 0;
	pu = walk(s, coord);
	if (pu < 0)
		return 0;
	y = s->tn[s->blev][pu];
	if (!window_ok(r, node, y, pass, 0) || (use_mppr && !mppr_ok(r, node, y, 0)))
		return 0;
	window_ok(r, node, y, pass, 1);
	if (use_mppr)
		mppr_ok(r, node, y, 1);
	if (r->left)
		r->left[node]--;
	t->node = node;
	t->pu = (unsigned)pu;
	t->bind = r->o->bind_width ? (int)y : -1;
	return 1;
}

/* A pass visits the product of the largest widths; nodes of very
 * different shapes could make that absurd. */
#define MAX_LOCATIONS 10000000000ull

static int too_many_locations(const unsigned *bound, unsigned n)
{
	uint64_t p = 1;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (bound[i] == 0)
			return 0;
		if (p > MAX_LOCATIONS / bound[i])
			return 1;
		p *= bound[i];
	}
	return 0;
}

/* Passes over all locations until n tasks are placed (mapping order). */
static int run_passes(struct run *r, size_t n, struct psiplace_lama_task *task, psiplace_error_t *err)
{
	const struct psiplace_lama_opts *o = r->o;
	unsigned bound[NLEV], coord[NLEV], npos = 0, pass, i;
	int use_mppr = o->nmppr > 0;
	uint64_t sweep = 0;
	size_t placed = 0;

	bounds(r, bound, &npos);
	if (too_many_locations(bound, o->map_len))
		return psiplace_seterr(err,
				       "LAMA: the nodes differ so much that one pass would visit more than %llu locations (map %s)",
				       (unsigned long long)MAX_LOCATIONS, o->map_str);
	for (pass = 1; placed < n; pass++) {
		size_t before = placed;
		int more = 1;

		memset(coord, 0, sizeof(coord));
		while (more && placed < n) {
			if (try_place(r, coord, pass, use_mppr, &task[placed])) {
				if (r->sweep)
					r->sweep[placed] = sweep;
				placed++;
			}
			/* Odometer: the leftmost letter turns fastest. */
			for (i = 0; i < o->map_len; i++) {
				if (++coord[o->map[i]] < bound[i])
					break;
				coord[o->map[i]] = 0;
			}
			more = i < o->map_len;
			if (i > npos)
				sweep++;
		}
		if (placed == n)
			break;
		if (placed == before)
			return fail(o, err, "progress", placed, n);
		if (!o->oversubscribe)
			return fail(o, err, "oversubscription", placed, n);
		use_mppr = 0; /* oversubscribed: MPPR no longer holds, cycle */
	}
	return 0;
}

/* Sequential order: ranks by (node, OS index of the thread), stable. */
static int order_sequential(struct psiplace_lama_map *m)
{
	size_t *base = calloc(m->nnodes + 1, sizeof(size_t)), tot, i;
	size_t *cnt = NULL;
	struct psiplace_lama_task *out = NULL;
	unsigned k;

	if (!base)
		return -1;
	for (k = 0; k < m->nnodes; k++)
		base[k + 1] = base[k] + m->shape[k]->npus;
	tot = base[m->nnodes];
	cnt = calloc(tot + 1, sizeof(size_t));
	out = malloc(m->ntasks * sizeof(*out));
	if (!cnt || !out) {
		free(base);
		free(cnt);
		free(out);
		return -1;
	}
	for (i = 0; i < m->ntasks; i++)
		cnt[base[m->task[i].node] + m->shape[m->task[i].node]->os_rank[m->task[i].pu] + 1]++;
	for (i = 1; i <= tot; i++)
		cnt[i] += cnt[i - 1];
	for (i = 0; i < m->ntasks; i++) {
		const struct psiplace_lama_task *t = &m->task[i];

		out[cnt[base[t->node] + m->shape[t->node]->os_rank[t->pu]]++] = *t;
	}
	free(m->task);
	m->task = out;
	free(base);
	free(cnt);
	return 0;
}

/* Prepare one shape per distinct topology pointer. */
static int prepare(const struct psiplace_lama_opts *o, unsigned nnodes,
		   const struct psiplace_topo *const *topo, struct psiplace_lama_map *m, psiplace_error_t *err)
{
	unsigned i, k;

	m->nnodes = nnodes;
	m->bind_width = o->bind_width;
	m->topo = calloc(nnodes ? nnodes : 1, sizeof(*m->topo));
	m->shape = calloc(nnodes ? nnodes : 1, sizeof(*m->shape));
	m->shapes = calloc(nnodes ? nnodes : 1, sizeof(*m->shapes));
	if (!m->topo || !m->shape || !m->shapes)
		return psiplace_seterr(err, "LAMA: out of memory for %u nodes", nnodes);
	for (i = 0; i < nnodes; i++) {
		m->topo[i] = topo[i];
		/* Identical nodes are usually given as one pointer, often in
		 * runs: look back at the previous node first. */
		if (i > 0 && topo[i] == topo[i - 1]) {
			m->shape[i] = m->shape[i - 1];
			continue;
		}
		for (k = 0; k < m->nshapes && m->shapes[k]->topo != topo[i]; k++)
			;
		if (k == m->nshapes) {
			m->shapes[k] = psiplace_lama_shape_new(o, topo[i], err);
			if (!m->shapes[k])
				return -1;
			m->nshapes++;
		}
		m->shape[i] = m->shapes[k];
	}
	return 0;
}

static int map_common(const struct psiplace_lama_opts *o, unsigned nnodes,
		      const struct psiplace_topo *const *topo, const unsigned *caps, size_t ntasks,
		      uint64_t *sweep, struct psiplace_lama_map *m, psiplace_error_t *err)
{
	struct run r;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	if (nnodes == 0)
		return psiplace_seterr(err, "LAMA: no nodes to map on");
	if (prepare(o, nnodes, topo, m, err) < 0)
		goto out;
	m->ntasks = ntasks;
	m->task = malloc((ntasks ? ntasks : 1) * sizeof(*m->task));
	r.o = o;
	r.nnodes = nnodes;
	r.shape = m->shape;
	r.sweep = sweep;
	if (caps) {
		r.left = malloc(nnodes * sizeof(unsigned));
		if (r.left)
			memcpy(r.left, caps, nnodes * sizeof(unsigned));
	}
	if (!m->task || (caps && !r.left) || alloc_counters(&r) < 0) {
		psiplace_seterr(err, "LAMA: out of memory for %zu processes", ntasks);
		goto out;
	}
	if (run_passes(&r, ntasks, m->task, err) < 0)
		goto out;
	if (o->sequential && order_sequential(m) < 0) {
		psiplace_seterr(err, "LAMA: out of memory ordering %zu processes", ntasks);
		goto out;
	}
	rc = 0;
out:
	free_counters(&r);
	if (rc < 0)
		psiplace_lama_map_free(m);
	return rc;
}

int psiplace_lama_map(const struct psiplace_lama_opts *o, unsigned nnodes,
		      const struct psiplace_topo *const *topo, size_t ntasks,
		      struct psiplace_lama_map *m, psiplace_error_t *err)
{
	return map_common(o, nnodes, topo, NULL, ntasks, NULL, m, err);
}

int psiplace_lama_map_counts(const struct psiplace_lama_opts *o, unsigned nnodes,
			     const struct psiplace_topo *const *topo, const unsigned *tasks_per_node,
			     struct psiplace_lama_map *m, psiplace_error_t *err)
{
	size_t n = 0;
	unsigned i;

	for (i = 0; i < nnodes; i++)
		n += tasks_per_node[i];
	return map_common(o, nnodes, topo, tasks_per_node, n, NULL, m, err);
}

int psiplace_lama_map_sweeps(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			     unsigned ntasks, uint64_t *sweep, struct psiplace_lama_map *m,
			     psiplace_error_t *err)
{
	return map_common(o, 1, &topo, NULL, ntasks, sweep, m, err);
}

int psiplace_lama_map_local(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			    unsigned ntasks, hwloc_bitmap_t *cpus, hwloc_bitmap_t *mems,
			    psiplace_error_t *err)
{
	struct psiplace_lama_map m;
	unsigned k;

	if (psiplace_lama_map(o, 1, &topo, ntasks, &m, err) < 0)
		return -1;
	for (k = 0; k < ntasks; k++)
		psiplace_lama_task_sets(&m, k, cpus ? cpus[k] : NULL, mems ? mems[k] : NULL);
	psiplace_lama_map_free(&m);
	return 0;
}

int psiplace_lama_task_sets(const struct psiplace_lama_map *m, size_t rank, hwloc_bitmap_t cpus,
			    hwloc_bitmap_t mems)
{
	const struct psiplace_lama_task *t;
	const struct psiplace_lama_shape *s;
	unsigned k;

	if (rank >= m->ntasks)
		return -1;
	t = &m->task[rank];
	s = m->shape[t->node];
	if (cpus)
		hwloc_bitmap_zero(cpus);
	if (mems)
		hwloc_bitmap_zero(mems);
	for (k = 0; t->bind >= 0 && k < s->bwidth; k++) {
		if (cpus)
			hwloc_bitmap_or(cpus, cpus, s->bcpus[t->bind + (int)k]);
		if (mems)
			hwloc_bitmap_or(mems, mems, s->bmems[t->bind + (int)k]);
	}
	return 0;
}

void psiplace_lama_map_free(struct psiplace_lama_map *m)
{
	unsigned k;

	for (k = 0; m->shapes && k < m->nshapes; k++)
		psiplace_lama_shape_free(m->shapes[k]);
	free(m->shapes);
	free(m->shape);
	free(m->topo);
	free(m->task);
	memset(m, 0, sizeof(*m));
}
