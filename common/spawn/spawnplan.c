/* Parallel spawn plans (Hypercube, Iterative Diffusive): which process
 * spawns which per-node group in which step.  See spawnplan.h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/spawnplan.h"

struct totals {
	long long sources; /* NS */
	long long spawn;   /* sum of S */
	size_t groups;     /* nodes with S > 0 */
	int nodes0;        /* nodes with R > 0 */
};

static int capacity(const struct psiplace_spawn_request *req, size_t i)
{
	return req->cores[i] + (req->oversub ? req->oversub[i] : 0);
}

/* S[i]: Merge fills what the sources leave free, Baseline the whole node. */
static int spawn_size(const struct psiplace_spawn_request *req, size_t i)
{
	if (req->method == PSIPLACE_SPAWN_BASELINE)
		return capacity(req, i);
	return capacity(req, i) - req->running[i];
}

static int check_entry(const char *vec, size_t i, int v, psiplace_error_t *err)
{
	if (v < 0)
		return psiplace_seterr(err, "spawn plan: %s[%zu] = %d is negative; accepted: 0..%d",
				       vec, i, v, PSIPLACE_INTVEC_MAX_VALUE);
	if (v > PSIPLACE_INTVEC_MAX_VALUE)
		return psiplace_seterr(err, "spawn plan: %s[%zu] = %d is too large; accepted: 0..%d",
				       vec, i, v, PSIPLACE_INTVEC_MAX_VALUE);
	return 0;
}

static int check_vectors(const struct psiplace_spawn_request *req, psiplace_error_t *err)
{
	size_t i;

	if (!req->nnodes)
		return psiplace_seterr(err, "spawn plan: no nodes (empty cores vector); give one entry per node");
	if (req->nnodes > PSIPLACE_SPAWN_MAX_NODES)
		return psiplace_seterr(err, "spawn plan: %zu nodes, at most %u accepted",
				       req->nnodes, PSIPLACE_SPAWN_MAX_NODES);
	if (!req->cores || !req->running)
		return psiplace_seterr(err, "spawn plan: the cores and running vectors are both required");
	for (i = 0; i < req->nnodes; i++) {
		if (check_entry("cores", i, req->cores[i], err) < 0 ||
		    check_entry("running", i, req->running[i], err) < 0 ||
		    (req->oversub && check_entry("oversubscribe", i, req->oversub[i], err) < 0))
			return -1;
		if (req->oversub && req->oversub[i] > 0 && req->cores[i] == 0)
			return psiplace_seterr(err, "spawn plan: oversubscribe[%zu] = %d on a node without cores (cores[%zu] = 0)",
					       i, req->oversub[i], i);
		if (req->method == PSIPLACE_SPAWN_MERGE && req->running[i] > capacity(req, i))
			return psiplace_seterr(err, "spawn plan: running[%zu] = %d exceeds the node's capacity %d (cores + oversubscription); merge keeps the running processes, so R must not exceed A",
					       i, req->running[i], capacity(req, i));
	}
	return 0;
}

static int count(const struct psiplace_spawn_request *req, struct totals *t, psiplace_error_t *err)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < req->nnodes; i++) {
		t->sources += req->running[i];
		t->spawn += spawn_size(req, i);
		t->groups += spawn_size(req, i) > 0;
		t->nodes0 += req->running[i] > 0;
	}
	if (!t->sources)
		return psiplace_seterr(err, "spawn plan: no running process to spawn from (running is 0 on every node)");
	if (!t->spawn)
		return psiplace_seterr(err, req->method == PSIPLACE_SPAWN_MERGE ?
				       "spawn plan: nothing to spawn (cores - running is 0 on every node)" :
				       "spawn plan: nothing to spawn (cores is 0 on every node)");
	if (t->sources + t->spawn > INT_MAX)
		return psiplace_seterr(err, "spawn plan: %lld processes in all, more than %d",
				       t->sources + t->spawn, INT_MAX);
	return 0;
}

/* Hypercube: one group size C everywhere, so that T(k) = N(k) * C.  The
 * allocation is checked as a whole before the sources' nodes. */
static int check_hypercube(const struct psiplace_spawn_request *req, psiplace_error_t *err)
{
	size_t i, first = req->nnodes;

	for (i = 0; i < req->nnodes; i++) {
		if (!capacity(req, i))
			continue;
		if (first == req->nnodes)
			first = i;
		else if (capacity(req, i) != capacity(req, first))
			return psiplace_seterr(err, "spawn plan: hypercube needs the same number of cores on every node, but node %zu has %d and node %zu has %d; use the diffusive strategy",
					       first, capacity(req, first), i, capacity(req, i));
	}
	for (i = 0; i < req->nnodes && req->method == PSIPLACE_SPAWN_MERGE; i++)
		if (req->running[i] && req->running[i] != capacity(req, i))
			return psiplace_seterr(err, "spawn plan: hypercube spawns whole nodes, but node %zu runs %d of its %d cores; use the diffusive strategy",
					       i, req->running[i], capacity(req, i));
	return 0;
}

/* One group per node with S > 0, numbered in node order; their ranks
 * follow the sources (Merge) or start at 0 (Baseline). */
static void make_groups(const struct psiplace_spawn_request *req, struct psiplace_spawn_plan *plan)
{
	int rank = plan->method == PSIPLACE_SPAWN_MERGE ? plan->nsources : 0;
	struct psiplace_spawn_group *g;
	size_t i;

	for (i = 0; i < req->nnodes; i++) {
		if (spawn_size(req, i) <= 0)
			continue;
		g = &plan->groups[plan->ngroups];
		g->id = (int)plan->ngroups++;
		g->node = i;
		g->size = spawn_size(req, i);
		g->new_node = req->running[i] == 0;
		g->first_rank = rank;
		rank += g->size;
	}
	plan->merged_size = rank;
}

/* Spawn rank j -> its group (-1: sources) and rank there.  *cursor only
 * moves forward while j grows within a step. */
static void locate(const struct psiplace_spawn_plan *plan, int j, size_t *cursor,
		   int *group, int *local)
{
	const struct psiplace_spawn_group *g;

	if (j < plan->nsources) {
		*group = -1;
		*local = j;
		return;
	}
	for (;;) {
		g = &plan->groups[*cursor];
		if (j < psiplace_spawn_rank(plan, g->id, 0) + g->size)
			break;
		(*cursor)++;
	}
	*group = g->id;
	*local = j - psiplace_spawn_rank(plan, g->id, 0);
}

/* Step k: the T(k-1) existing processes spawn the next groups, one each,
 * spawn ranks 0, 1, ... taking groups in id order. */
static void make_steps(struct psiplace_spawn_plan *plan, int nodes0)
{
	struct psiplace_spawn_step *st = &plan->steps[0];
	size_t next = 0, cursor;
	int j, k;

	*st = (struct psiplace_spawn_step){ 0, plan->nsources, 0, nodes0, 0, 0, 0 };
	for (k = 1; next < plan->ngroups; k++) {
		st = &plan->steps[k];
		*st = plan->steps[k - 1];
		st->step = k;
		st->generated = st->new_nodes = 0;
		st->first_group = (int)next;
		st->ngroups = (size_t)st->total < plan->ngroups - next ? st->total : (int)(plan->ngroups - next);
		for (j = 0, cursor = 0; j < st->ngroups; j++, next++) {
			struct psiplace_spawn_group *g = &plan->groups[next];
			g->step = k;
			g->spawner = j;
			locate(plan, j, &cursor, &g->parent, &g->parent_rank);
			st->generated += g->size;
			st->new_nodes += g->new_node;
		}
		st->total += st->generated;
		st->nodes += st->new_nodes;
	}
	plan->nsteps = (size_t)k;
}

int psiplace_spawn_plan_build(const struct psiplace_spawn_request *req,
			      struct psiplace_spawn_plan *plan, psiplace_error_t *err)
{
	struct totals t;

	memset(plan, 0, sizeof(*plan));
	if (check_vectors(req, err) < 0 || count(req, &t, err) < 0 ||
	    (req->strategy == PSIPLACE_SPAWN_HYPERCUBE && check_hypercube(req, err) < 0))
		return -1;
	plan->groups = calloc(t.groups, sizeof(*plan->groups));
	plan->steps = calloc(t.groups + 1, sizeof(*plan->steps));
	if (!plan->groups || !plan->steps) {
		psiplace_spawn_plan_free(plan);
		return psiplace_seterr(err, "spawn plan: out of memory for %zu groups", t.groups);
	}
	plan->strategy = req->strategy;
	plan->method = req->method;
	plan->nsources = (int)t.sources;
	make_groups(req, plan);
	make_steps(plan, t.nodes0);
	return 0;
}

void psiplace_spawn_plan_free(struct psiplace_spawn_plan *plan)
{
	if (!plan)
		return;
	free(plan->groups);
	free(plan->steps);
	memset(plan, 0, sizeof(*plan));
}

int psiplace_spawn_rank(const struct psiplace_spawn_plan *plan, int group, int local_rank)
{
	const struct psiplace_spawn_group *g;

	if (local_rank < 0)
		return -1;
	if (group == -1)
		return local_rank < plan->nsources ? local_rank : -1;
	if (group < 0 || (size_t)group >= plan->ngroups)
		return -1;
	g = &plan->groups[group];
	if (local_rank >= g->size)
		return -1;
	if (plan->method == PSIPLACE_SPAWN_MERGE)
		return g->first_rank + local_rank;
	return plan->nsources + g->first_rank + local_rank;
}

int psiplace_spawn_merged_rank(const struct psiplace_spawn_plan *plan, int group, int local_rank)
{
	int j = psiplace_spawn_rank(plan, group, local_rank);

	if (j < 0 || plan->method == PSIPLACE_SPAWN_MERGE)
		return j;
	return group == -1 ? -1 : j - plan->nsources;
}

const struct psiplace_spawn_group *
psiplace_spawn_child(const struct psiplace_spawn_plan *plan, int group, int local_rank, int step)
{
	int j = psiplace_spawn_rank(plan, group, local_rank);
	const struct psiplace_spawn_step *st;

	if (j < 0 || step < 1 || (size_t)step >= plan->nsteps)
		return NULL;
	st = &plan->steps[step];
	/* Spawn ranks below T(step-1) are exactly the processes that exist
	 * when the step starts; the step uses the first ngroups of them. */
	if (j >= st->ngroups)
		return NULL;
	return &plan->groups[st->first_group + j];
}
