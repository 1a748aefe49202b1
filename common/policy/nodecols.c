/* The columnar node table: one pass over the node records copies the
 * fields a decision reads into contiguous arrays, so the evaluation and
 * the key pass stream only what they use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

static uint64_t free_u64(uint64_t c, uint64_t a)
{
	return c > a ? c - a : 0;
}

static double freetime(const struct psiplace_node *n)
{
	if (n->next_resv < 0 || n->next_resv > PSIPLACE_FREETIME_HORIZON)
		return PSIPLACE_FREETIME_HORIZON;
	return (double)n->next_resv;
}

static double cpufree(const struct psiplace_node *n)
{
	double busy = n->load1 > (double)n->alloc_cpus ? n->load1 : (double)n->alloc_cpus;

	return (double)n->cpus - busy;
}

#define LOOP(expr)                                         \
	for (i = 0; i < w; i++) {                          \
		const struct psiplace_node *p = &nodes[i]; \
		d[i] = (expr);                             \
	}                                                  \
	break

/* d[i] = column col of nodes[i], i < w, exactly as the per-node code
 * computes the value. */
static void fill_column(int col, const struct psiplace_node *nodes, size_t w, double *d)
{
	size_t i;

	switch (col) {
	case PSIPLACE_COL_CPROCS: LOOP((double)p->cpus);
	case PSIPLACE_COL_APROCS:
		LOOP(p->cpus > p->alloc_cpus ? (double)(p->cpus - p->alloc_cpus) : 0.0);
	case PSIPLACE_COL_CMEM: LOOP((double)p->real_memory);
	case PSIPLACE_COL_AMEM:
		LOOP(p->real_memory > p->alloc_memory ?
			     (double)(p->real_memory - p->alloc_memory) : 0.0);
	case PSIPLACE_COL_CDISK: LOOP((double)p->tmp_disk);
	case PSIPLACE_COL_JOBCOUNT: LOOP((double)p->jobs);
	case PSIPLACE_COL_SUSPENDED: LOOP((double)p->suspended_jobs);
	case PSIPLACE_COL_LOAD: LOOP(p->load1);
	case PSIPLACE_COL_SPEED: LOOP(p->speed);
	case PSIPLACE_COL_PRIORITY: LOOP(p->priority);
	case PSIPLACE_COL_COST: LOOP(p->cost);
	case PSIPLACE_COL_NODEINDEX: LOOP((double)p->index);
	case PSIPLACE_COL_POWER: LOOP(p->power ? 1.0 : 0.0);
	case PSIPLACE_COL_USAGE: LOOP(p->usage);
	case PSIPLACE_COL_MTBF: LOOP(p->mtbf);
	case PSIPLACE_COL_PARAPROCS: LOOP(p->para_procs);
	case PSIPLACE_COL_RSVAFFINITY: LOOP(p->rsv_affinity);
	case PSIPLACE_COL_FREETIME: LOOP(freetime(p));
	case PSIPLACE_COL_CPUFREE: LOOP(cpufree(p));
	default:
		for (i = 0; i < w; i++)
			d[i] = 0.0;
		break;
	}
}

#undef LOOP

/* The value columns the policy reads; sets c->f and c->mixed_functions. */
uint32_t psiplace_cols_wanted(const struct psiplace_rank_opts *o,
			      const struct psiplace_node *nodes, size_t n,
			      struct psiplace_nodecols *c)
{
	size_t i;

	if (o->policy != PSIPLACE_POLICY_PRIORITY)
		return psiplace_policy_columns(o->policy);
	if (o->job && o->job->priorityf) {
		c->f = o->job->priorityf;
	} else {
		for (i = 0; i < n; i++)
			if (nodes[i].priorityf)
				break;
		if (i < n) {
			c->mixed_functions = true;
			return 0;
		}
		c->f = o->cluster_priorityf;
	}
	return c->f ? psiplace_priorityf_columns(c->f) : 1u << PSIPLACE_COL_PRIORITY;
}

int psiplace_cols_alloc(struct psiplace_nodecols *c, uint32_t want, size_t size)
{
	size_t sz = size ? size : 1;
	int j;

	c->index = malloc(sz * sizeof(*c->index));
	c->free_cpus = malloc(sz * sizeof(*c->free_cpus));
	c->weight = malloc(sz * sizeof(*c->weight));
	c->free_mem = malloc(sz * sizeof(*c->free_mem));
	c->power = malloc(sz);
	if (!c->index || !c->free_cpus || !c->weight || !c->free_mem || !c->power)
		return -1;
	for (j = 0; j < PSIPLACE_COL_COUNT; j++) {
		if (!(want & (1u << j)))
			continue;
		if (!(c->col[j] = malloc(sz * sizeof(double))))
			return -1;
		c->filled |= 1u << j;
	}
	return 0;
}

void psiplace_cols_release(struct psiplace_nodecols *c)
{
	int j;

	free(c->index);
	free(c->free_cpus);
	free(c->weight);
	free(c->free_mem);
	free(c->power);
	for (j = 0; j < PSIPLACE_COL_COUNT; j++) {
		free(c->col[j]);
		free(c->fcol[j]);
		free(c->icol[j]);
	}
}

/* The base arrays; returns whether a node has its own function. */
static bool fill_base(struct psiplace_nodecols *c, const struct psiplace_node *nodes, size_t w,
		      size_t at)
{
	bool own = false;
	size_t i;

	for (i = 0; i < w; i++) {
		const struct psiplace_node *p = &nodes[i];

		c->index[at + i] = p->index;
		c->weight[at + i] = p->weight;
		c->free_cpus[at + i] = p->cpus > p->alloc_cpus ? p->cpus - p->alloc_cpus : 0;
		c->free_mem[at + i] = free_u64(p->real_memory, p->alloc_memory);
		c->power[at + i] = p->power;
		own |= p->priorityf != NULL;
	}
	return own;
}

void psiplace_cols_fill(struct psiplace_nodecols *c, const struct psiplace_node *nodes,
			size_t w, size_t at)
{
	int j;

	fill_base(c, nodes, w, at);
	for (j = 0; j < PSIPLACE_COL_COUNT; j++)
		if (c->col[j])
			fill_column(j, nodes, w, c->col[j] + at);
}

static bool exact_int(double d)
{
	return d >= INT32_MIN && d <= INT32_MAX && (double)(int32_t)d == d &&
	       !(d == 0.0 && signbit(d));
}

static bool exact_float(double d)
{
	return (double)(float)d == d || d != d;
}

/* Rows 0..lo-1 of column j, stored narrow so far, as doubles from now on. */
static int widen(struct psiplace_nodecols *c, int j, size_t lo)
{
	double *d = malloc((c->n ? c->n : 1) * sizeof(*d));
	size_t i;

	if (!d)
		return -1;
	for (i = 0; i < lo; i++)
		d[i] = c->icol[j] ? (double)c->icol[j][i] : (double)c->fcol[j][i];
	free(c->icol[j]);
	free(c->fcol[j]);
	c->icol[j] = NULL;
	c->fcol[j] = NULL;
	c->col[j] = d;
	return 0;
}

/* Rows lo..lo+w-1 of column j from v[]: kept int32 or float while every
 * value converts back to the same double (fewer bytes to stream, the same
 * sums), doubles from the first one that does not. */
static int store(struct psiplace_nodecols *c, int j, size_t lo, size_t w, const double *v)
{
	bool ok = true;
	size_t i;

	if (c->icol[j]) {
		for (i = 0; i < w; i++)
			ok &= exact_int(v[i]);
		if (ok) {
			for (i = 0; i < w; i++)
				c->icol[j][lo + i] = (int32_t)v[i];
			return 0;
		}
	} else if (c->fcol[j]) {
		for (i = 0; i < w; i++)
			ok &= exact_float(v[i]);
		if (ok) {
			for (i = 0; i < w; i++)
				c->fcol[j][lo + i] = (float)v[i];
			return 0;
		}
	}
	if (!c->col[j] && widen(c, j, lo) < 0)
		return -1;
	memcpy(c->col[j] + lo, v, w * sizeof(*v));
	return 0;
}

/* Columns of whole numbers start as int32, the others as float. */
static int alloc_narrow(struct psiplace_nodecols *c, uint32_t want)
{
	const uint32_t dbl = 1u << PSIPLACE_COL_LOAD | 1u << PSIPLACE_COL_SPEED |
			     1u << PSIPLACE_COL_PRIORITY | 1u << PSIPLACE_COL_COST |
			     1u << PSIPLACE_COL_USAGE | 1u << PSIPLACE_COL_MTBF |
			     1u << PSIPLACE_COL_PARAPROCS | 1u << PSIPLACE_COL_RSVAFFINITY |
			     1u << PSIPLACE_COL_CPUFREE;
	size_t sz = c->n ? c->n : 1;
	int j;

	for (j = 0; j < PSIPLACE_COL_COUNT; j++) {
		if (!(want & (1u << j)))
			continue;
		if (dbl & (1u << j))
			c->fcol[j] = malloc(sz * sizeof(float));
		else
			c->icol[j] = malloc(sz * sizeof(int32_t));
		if (!c->fcol[j] && !c->icol[j])
			return -1;
		c->filled |= 1u << j;
	}
	return 0;
}

#define BLOCK 64 /* rows of records read per column: they stay in L1 */

int psiplace_nodecols_build(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n,
			    struct psiplace_nodecols **out, psiplace_error_t *err)
{
	struct psiplace_nodecols *c;
	double v[BLOCK];
	uint32_t want;
	size_t lo;
	int j;

	*out = NULL;
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	if (!(c = calloc(1, sizeof(*c))))
		return psiplace_seterr(err, "out of memory building columns of %zu nodes", n);
	c->nodes = nodes;
	c->n = n;
	want = psiplace_cols_wanted(opts, nodes, 0, c);
	if (psiplace_cols_alloc(c, 0, n) < 0 || alloc_narrow(c, want) < 0)
		goto oom;
	for (lo = 0; lo < n; lo += BLOCK) {
		size_t w = lo + BLOCK < n ? BLOCK : n - lo;

		/* whether nodes have their own functions, for any later options */
		c->mixed_functions |= fill_base(c, nodes + lo, w, lo);
		for (j = 0; j < PSIPLACE_COL_COUNT; j++) {
			if (!(want & (1u << j)))
				continue;
			fill_column(j, nodes + lo, w, v);
			if (store(c, j, lo, w, v) < 0)
				goto oom;
		}
	}
	*out = c;
	return 0;
oom:
	psiplace_nodecols_free(c);
	return psiplace_seterr(err, "out of memory building columns of %zu nodes", n);
}

void psiplace_nodecols_free(struct psiplace_nodecols *c)
{
	if (!c)
		return;
	psiplace_cols_release(c);
	free(c);
}
