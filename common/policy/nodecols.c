/* The columnar node table: one pass over the node records copies the
 * fields a decision reads into contiguous arrays, so the evaluation and
 * the key pass stream only what they use. */
#include <stdlib.h>

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

/* Each column exactly as the per-node code computes the value. */
static double value(const struct psiplace_node *n, int col)
{
	switch (col) {
	case PSIPLACE_COL_CPROCS: return (double)n->cpus;
	case PSIPLACE_COL_APROCS:
		return n->cpus > n->alloc_cpus ? (double)(n->cpus - n->alloc_cpus) : 0.0;
	case PSIPLACE_COL_CMEM: return (double)n->real_memory;
	case PSIPLACE_COL_AMEM:
		return n->real_memory > n->alloc_memory ?
			       (double)(n->real_memory - n->alloc_memory) : 0.0;
	case PSIPLACE_COL_CDISK: return (double)n->tmp_disk;
	case PSIPLACE_COL_JOBCOUNT: return (double)n->jobs;
	case PSIPLACE_COL_SUSPENDED: return (double)n->suspended_jobs;
	case PSIPLACE_COL_LOAD: return n->load1;
	case PSIPLACE_COL_SPEED: return n->speed;
	case PSIPLACE_COL_PRIORITY: return n->priority;
	case PSIPLACE_COL_COST: return n->cost;
	case PSIPLACE_COL_NODEINDEX: return (double)n->index;
	case PSIPLACE_COL_POWER: return n->power ? 1.0 : 0.0;
	case PSIPLACE_COL_USAGE: return n->usage;
	case PSIPLACE_COL_MTBF: return n->mtbf;
	case PSIPLACE_COL_PARAPROCS: return n->para_procs;
	case PSIPLACE_COL_RSVAFFINITY: return n->rsv_affinity;
	case PSIPLACE_COL_FREETIME: return freetime(n);
	case PSIPLACE_COL_CPUFREE: return cpufree(n);
	default: return 0.0;
	}
}

/* The value columns the policy reads; sets c->f and c->mixed_functions. */
static uint32_t wanted(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
		       size_t n, struct psiplace_nodecols *c)
{
	size_t i;

	switch (o->policy) {
	case PSIPLACE_POLICY_FASTEST:
		return 1u << PSIPLACE_COL_SPEED;
	case PSIPLACE_POLICY_CPULOAD:
		return 1u << PSIPLACE_COL_CPUFREE;
	case PSIPLACE_POLICY_PRIORITY:
		break;
	default:
		return 0;
	}
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

static void fill(struct psiplace_nodecols *c, const struct psiplace_node *nodes, size_t n)
{
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		const struct psiplace_node *p = &nodes[i];

		c->index[i] = p->index;
		c->weight[i] = p->weight;
		c->free_cpus[i] = p->cpus > p->alloc_cpus ? p->cpus - p->alloc_cpus : 0;
		c->free_mem[i] = free_u64(p->real_memory, p->alloc_memory);
		c->power[i] = p->power;
		for (j = 0; j < PSIPLACE_COL_COUNT; j++)
			if (c->col[j])
				c->col[j][i] = value(p, j);
	}
}

int psiplace_nodecols_build(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n,
			    struct psiplace_nodecols **out, psiplace_error_t *err)
{
	struct psiplace_nodecols *c;
	size_t sz = n ? n : 1;
	uint32_t want;
	int j;

	*out = NULL;
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	if (!(c = calloc(1, sizeof(*c))))
		goto oom;
	c->nodes = nodes;
	c->n = n;
	want = wanted(opts, nodes, n, c);
	c->index = malloc(sz * sizeof(*c->index));
	c->free_cpus = malloc(sz * sizeof(*c->free_cpus));
	c->weight = malloc(sz * sizeof(*c->weight));
	c->free_mem = malloc(sz * sizeof(*c->free_mem));
	c->power = malloc(sz);
	if (!c->index || !c->free_cpus || !c->weight || !c->free_mem || !c->power)
		goto oom;
	for (j = 0; j < PSIPLACE_COL_COUNT; j++) {
		if (!(want & (1u << j)))
			continue;
		if (!(c->col[j] = malloc(sz * sizeof(double))))
			goto oom;
		c->filled |= 1u << j;
	}
	fill(c, nodes, n);
	*out = c;
	return 0;
oom:
	psiplace_nodecols_free(c);
	return psiplace_seterr(err, "out of memory building columns of %zu nodes", n);
}

void psiplace_nodecols_free(struct psiplace_nodecols *c)
{
	int j;

	if (!c)
		return;
	free(c->index);
	free(c->free_cpus);
	free(c->weight);
	free(c->free_mem);
	free(c->power);
	for (j = 0; j < PSIPLACE_COL_COUNT; j++)
		free(c->col[j]);
	free(c);
}
