/* Spawn plans: the paper's worked example (Table 2), Hypercube growth,
 * invariants over random allocations, and every error of the builder. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/spawnplan.h"

static const int table2_a[] = { 4, 2, 8, 12, 3, 3, 4, 4, 6, 3 };
static const int table2_r[] = { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

static struct psiplace_spawn_request request(size_t n, const int *a, const int *r,
					     enum psiplace_spawn_strategy s,
					     enum psiplace_spawn_method m)
{
	struct psiplace_spawn_request req = { n, a, r, NULL, s, m };
	return req;
}

static void build_ok(const struct psiplace_spawn_request *req, struct psiplace_spawn_plan *p)
{
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_spawn_plan_build(req, p, &err), 0, "%s", err.text);
}

static void build_fails(const struct psiplace_spawn_request *req, const char *msg)
{
	struct psiplace_spawn_plan p;
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_spawn_plan_build(req, &p, &err), -1);
	cr_assert_str_eq(err.text, msg);
	cr_assert_eq(p.ngroups, 0);
	cr_assert_null(p.groups);
	cr_assert_null(p.steps);
}

static void assert_step(const struct psiplace_spawn_plan *p, size_t k, int total,
			int generated, int nodes, int new_nodes)
{
	const struct psiplace_spawn_step *st = &p->steps[k];

	cr_assert_eq(st->step, (int)k);
	cr_assert_eq(st->total, total, "step %zu total %d", k, st->total);
	cr_assert_eq(st->generated, generated, "step %zu generated %d", k, st->generated);
	cr_assert_eq(st->nodes, nodes, "step %zu nodes %d", k, st->nodes);
	cr_assert_eq(st->new_nodes, new_nodes, "step %zu new %d", k, st->new_nodes);
}

Test(spawnplan, table2_worked_example_steps)
{
	struct psiplace_spawn_request req = request(10, table2_a, table2_r,
						    PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	cr_assert_eq(p.nsteps, 4);
	assert_step(&p, 0, 2, 0, 1, 0);
	assert_step(&p, 1, 6, 4, 2, 1);
	assert_step(&p, 2, 40, 34, 8, 6);
	assert_step(&p, 3, 49, 9, 10, 2);
	cr_assert_eq(p.nsources, 2);
	cr_assert_eq(p.merged_size, 49);
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, table2_worked_example_groups)
{
	/* id: node size step spawner parent parent_rank first_rank new */
	static const int want[10][8] = {
		{ 0, 2, 1, 0, -1, 0, 2, 0 },   { 1, 2, 1, 1, -1, 1, 4, 1 },
		{ 2, 8, 2, 0, -1, 0, 6, 1 },   { 3, 12, 2, 1, -1, 1, 14, 1 },
		{ 4, 3, 2, 2, 0, 0, 26, 1 },   { 5, 3, 2, 3, 0, 1, 29, 1 },
		{ 6, 4, 2, 4, 1, 0, 32, 1 },   { 7, 4, 2, 5, 1, 1, 36, 1 },
		{ 8, 6, 3, 0, -1, 0, 40, 1 },  { 9, 3, 3, 1, -1, 1, 46, 1 },
	};
	struct psiplace_spawn_request req = request(10, table2_a, table2_r,
						    PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;
	size_t i;

	build_ok(&req, &p);
	cr_assert_eq(p.ngroups, 10);
	for (i = 0; i < 10; i++) {
		const struct psiplace_spawn_group *g = &p.groups[i];
		int got[8] = { (int)g->node, g->size, g->step, g->spawner, g->parent,
			       g->parent_rank, g->first_rank, g->new_node };
		cr_assert_eq(g->id, (int)i);
		cr_assert_arr_eq(got, want[i], sizeof(got), "group %zu", i);
	}
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, table2_hypercube_rejected_pointing_to_diffusive)
{
	struct psiplace_spawn_request req = request(10, table2_a, table2_r,
						    PSIPLACE_SPAWN_HYPERCUBE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: hypercube needs the same number of cores on every node, but node 0 has 4 and node 1 has 2; use the diffusive strategy");
}

Test(spawnplan, table2_baseline_spawns_every_core)
{
	struct psiplace_spawn_request req = request(10, table2_a, table2_r,
						    PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_BASELINE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	/* S = A: node 0 gets 4 (replacing its 2 sources) and node 1 gets 2;
	 * then 8 processes spawn the 8 groups left in one step. */
	cr_assert_eq(p.nsteps, 3);
	assert_step(&p, 0, 2, 0, 1, 0);
	assert_step(&p, 1, 8, 6, 2, 1);
	assert_step(&p, 2, 51, 43, 10, 8);
	cr_assert_eq(p.merged_size, 49);
	cr_assert_eq(p.groups[0].first_rank, 0);
	cr_assert_eq(psiplace_spawn_merged_rank(&p, -1, 0), -1);
	cr_assert_eq(psiplace_spawn_rank(&p, 0, 0), 2);
	cr_assert_eq(psiplace_spawn_merged_rank(&p, 0, 0), 0);
	cr_assert_eq(psiplace_spawn_merged_rank(&p, 9, 2), 48);
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, hypercube_figure1_one_core_seven_groups_three_steps)
{
	int a[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, r[8] = { 1 };
	static const int spawner[7] = { 0, 0, 1, 0, 1, 2, 3 };
	static const int parent[7] = { -1, -1, 0, -1, 0, 1, 2 };
	struct psiplace_spawn_request req = request(8, a, r, PSIPLACE_SPAWN_HYPERCUBE,
						    PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;
	int i;

	build_ok(&req, &p);
	cr_assert_eq(p.nsteps, 4);
	cr_assert_eq(p.ngroups, 7);
	for (i = 0; i < 7; i++) {
		cr_assert_eq(p.groups[i].spawner, spawner[i], "group %d", i);
		cr_assert_eq(p.groups[i].parent, parent[i], "group %d", i);
		cr_assert_eq(p.groups[i].parent_rank, 0, "group %d", i);
	}
	assert_step(&p, 3, 8, 4, 8, 4);
	psiplace_spawn_plan_free(&p);
}

/* Each step every existing process fills one new node: N(k) = N0 (C+1)^k. */
static void hypercube_growth(int c, int n0, int k)
{
	size_t n = (size_t)n0, i;
	struct psiplace_spawn_plan p;
	int *a, *r, step;

	for (step = 0; step < k; step++)
		n *= (size_t)(c + 1);
	a = calloc(n, sizeof(*a));
	r = calloc(n, sizeof(*r));
	for (i = 0; i < n; i++) {
		a[i] = c;
		r[i] = i < (size_t)n0 ? c : 0;
	}
	struct psiplace_spawn_request req = request(n, a, r, PSIPLACE_SPAWN_HYPERCUBE,
						    PSIPLACE_SPAWN_MERGE);
	build_ok(&req, &p);
	cr_assert_eq(p.nsteps, (size_t)k + 1, "C=%d N0=%d", c, n0);
	for (step = 0, n = (size_t)n0; step <= k; step++) {
		assert_step(&p, (size_t)step, (int)n * c, step ? (int)(n - n / (size_t)(c + 1)) * c : 0,
			    (int)n, step ? (int)(n - n / (size_t)(c + 1)) : 0);
		n *= (size_t)(c + 1);
	}
	for (i = 0; i < p.ngroups; i++)
		cr_assert_eq(p.groups[i].size, c);
	psiplace_spawn_plan_free(&p);
	free(a);
	free(r);
}

Test(spawnplan, hypercube_nodes_grow_by_cores_plus_one)
{
	hypercube_growth(1, 1, 3);
	hypercube_growth(1, 1, 10);
	hypercube_growth(2, 1, 5);
	hypercube_growth(4, 1, 4);
	hypercube_growth(4, 3, 3);
	hypercube_growth(8, 2, 3);
	hypercube_growth(48, 1, 2);
	hypercube_growth(112, 1, 2);
}

Test(spawnplan, hypercube_last_step_uses_only_the_first_processes)
{
	int a[7] = { 2, 2, 2, 2, 2, 2, 2 }, r[7] = { 2 };
	struct psiplace_spawn_request req = request(7, a, r, PSIPLACE_SPAWN_HYPERCUBE,
						    PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	/* 1 node -> 3 nodes (2 spawners) -> 7 nodes: 4 of the 6 processes spawn. */
	cr_assert_eq(p.nsteps, 3);
	assert_step(&p, 1, 6, 4, 3, 2);
	assert_step(&p, 2, 14, 8, 7, 4);
	cr_assert_eq(p.steps[2].ngroups, 4);
	cr_assert_null(psiplace_spawn_child(&p, 1, 0, 2)); /* spawn rank 4 */
	cr_assert_eq(psiplace_spawn_child(&p, 0, 1, 2)->id, 5); /* spawn rank 3 */
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, zero_entries_are_skipped)
{
	int a[6] = { 0, 4, 0, 4, 0, 4 }, r[6] = { 0, 4, 0, 0, 0, 0 };
	struct psiplace_spawn_request req = request(6, a, r, PSIPLACE_SPAWN_HYPERCUBE,
						    PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	cr_assert_eq(p.ngroups, 2);
	cr_assert_eq(p.groups[0].node, 3);
	cr_assert_eq(p.groups[1].node, 5);
	assert_step(&p, 1, 12, 8, 3, 2);
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, oversubscription_adds_to_capacity)
{
	int a[3] = { 2, 2, 4 }, r[3] = { 2, 0, 0 }, o[3] = { 2, 2, 0 };
	struct psiplace_spawn_request req = { 3, a, r, o, PSIPLACE_SPAWN_HYPERCUBE,
					      PSIPLACE_SPAWN_MERGE };
	struct psiplace_spawn_plan p;
	psiplace_error_t err;

	/* capacity 4,4,4 is homogeneous, but node 0 runs 2 of 4 */
	cr_assert_eq(psiplace_spawn_plan_build(&req, &p, &err), -1);
	cr_assert_str_eq(err.text, "spawn plan: hypercube spawns whole nodes, but node 0 runs 2 of its 4 cores; use the diffusive strategy");
	req.strategy = PSIPLACE_SPAWN_DIFFUSIVE;
	build_ok(&req, &p);
	cr_assert_eq(p.groups[0].size, 2);
	cr_assert_eq(p.groups[1].size, 4);
	cr_assert_eq(p.groups[2].size, 4);
	cr_assert_eq(p.merged_size, 12);
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, baseline_accepts_sources_on_nodes_it_gives_back)
{
	int a[3] = { 4, 0, 0 }, r[3] = { 4, 4, 4 };
	struct psiplace_spawn_request req = request(3, a, r, PSIPLACE_SPAWN_HYPERCUBE,
						    PSIPLACE_SPAWN_BASELINE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	cr_assert_eq(p.ngroups, 1);
	assert_step(&p, 0, 12, 0, 3, 0);
	assert_step(&p, 1, 16, 4, 3, 0);
	cr_assert_eq(p.merged_size, 4);
	psiplace_spawn_plan_free(&p);
}

Test(spawnplan, child_and_ranks_out_of_range)
{
	struct psiplace_spawn_request req = request(10, table2_a, table2_r,
						    PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);
	struct psiplace_spawn_plan p;

	build_ok(&req, &p);
	cr_assert_eq(psiplace_spawn_rank(&p, -1, 2), -1);
	cr_assert_eq(psiplace_spawn_rank(&p, -2, 0), -1);
	cr_assert_eq(psiplace_spawn_rank(&p, 10, 0), -1);
	cr_assert_eq(psiplace_spawn_rank(&p, 0, 2), -1);
	cr_assert_eq(psiplace_spawn_rank(&p, 0, -1), -1);
	cr_assert_eq(psiplace_spawn_merged_rank(&p, -1, 1), 1);
	cr_assert_eq(psiplace_spawn_merged_rank(&p, 3, 11), 25);
	cr_assert_null(psiplace_spawn_child(&p, -1, 0, 0));
	cr_assert_null(psiplace_spawn_child(&p, -1, 0, 4));
	cr_assert_null(psiplace_spawn_child(&p, 2, 0, 3)); /* spawn rank 6 */
	cr_assert_eq(psiplace_spawn_child(&p, -1, 1, 3)->id, 9);
	cr_assert_eq(psiplace_spawn_child(&p, 1, 1, 2)->id, 7);
	psiplace_spawn_plan_free(&p);
}

/* ---- invariants over random allocations ---- */

static unsigned long long rng_state;

static int rnd(int n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int)((rng_state >> 33) % (unsigned long long)n);
}

static void check_groups(const struct psiplace_spawn_request *req,
			 const struct psiplace_spawn_plan *p)
{
	int merge = req->method == PSIPLACE_SPAWN_MERGE, rank = merge ? p->nsources : 0;
	size_t i, g = 0;

	for (i = 0; i < req->nnodes; i++) {
		int cap = req->cores[i] + (req->oversub ? req->oversub[i] : 0);
		int s = merge ? cap - req->running[i] : cap;
		if (!s)
			continue;
		/* every node's free capacity used exactly once, groups in node order */
		cr_assert_lt(g, p->ngroups);
		cr_assert_eq(p->groups[g].id, (int)g);
		cr_assert_eq(p->groups[g].node, i);
		cr_assert_eq(p->groups[g].size, s);
		cr_assert_eq(p->groups[g].new_node, req->running[i] == 0);
		/* rank order: sources first, then groups by id */
		cr_assert_eq(p->groups[g].first_rank, rank);
		rank += s;
		g++;
	}
	cr_assert_eq(g, p->ngroups);
	cr_assert_eq(p->merged_size, rank);
}

static void check_step(const struct psiplace_spawn_plan *p, size_t k, char *spawned)
{
	const struct psiplace_spawn_step *st = &p->steps[k], *prev = &p->steps[k - 1];
	int gen = 0, fresh = 0, j;
	size_t left = p->ngroups - (size_t)st->first_group;

	cr_assert_eq(st->first_group, prev->first_group + prev->ngroups);
	/* as many groups as existing processes allow, at least one */
	cr_assert_eq((size_t)st->ngroups, left < (size_t)prev->total ? left : (size_t)prev->total);
	cr_assert_gt(st->ngroups, 0);
	memset(spawned, 0, (size_t)prev->total);
	for (j = 0; j < st->ngroups; j++) {
		const struct psiplace_spawn_group *g = &p->groups[st->first_group + j];
		cr_assert_eq(g->step, (int)k);
		/* the spawner exists before the step and spawns once in it */
		cr_assert_lt(g->spawner, prev->total);
		cr_assert_eq(spawned[g->spawner], 0);
		spawned[g->spawner] = 1;
		/* its parent exists before the child */
		if (g->parent >= 0)
			cr_assert_lt(p->groups[g->parent].step, g->step);
		cr_assert_eq(psiplace_spawn_rank(p, g->parent, g->parent_rank), g->spawner);
		cr_assert_eq(psiplace_spawn_child(p, g->parent, g->parent_rank, (int)k), g);
		gen += g->size;
		fresh += g->new_node;
	}
	cr_assert_eq(st->generated, gen);
	cr_assert_eq(st->total, prev->total + gen);
	cr_assert_eq(st->new_nodes, fresh);
	cr_assert_eq(st->nodes, prev->nodes + fresh);
}

static void check_plan(const struct psiplace_spawn_request *req, const struct psiplace_spawn_plan *p)
{
	int ns = 0, nodes0 = 0, merge = req->method == PSIPLACE_SPAWN_MERGE;
	size_t i, k;
	char *spawned;

	for (i = 0; i < req->nnodes; i++) {
		ns += req->running[i];
		nodes0 += req->running[i] > 0;
	}
	cr_assert_eq(p->nsources, ns);
	check_groups(req, p);
	cr_assert_eq(p->steps[0].total, ns);
	cr_assert_eq(p->steps[0].nodes, nodes0);
	spawned = malloc((size_t)p->steps[p->nsteps - 1].total);
	for (k = 1; k < p->nsteps; k++)
		check_step(p, k, spawned);
	free(spawned);
	cr_assert_eq((size_t)(p->steps[p->nsteps - 1].first_group + p->steps[p->nsteps - 1].ngroups),
		     p->ngroups);
	cr_assert_eq(p->steps[p->nsteps - 1].total, ns + p->merged_size - (merge ? ns : 0));
}

static void random_request(struct psiplace_spawn_request *req, int *a, int *r, int *o, size_t n)
{
	int homogeneous = rnd(4) == 0, c = 1 + rnd(64);
	size_t i;

	for (i = 0; i < n; i++) {
		a[i] = homogeneous ? (rnd(6) ? c : 0) : rnd(6) ? 1 + rnd(128) : 0;
		o[i] = a[i] && rnd(3) == 0 ? rnd(8) : 0;
		r[i] = 0;
	}
	do
		i = (size_t)rnd((int)n);
	while (!a[i] && rnd(8));
	r[i] = a[i] ? 1 + rnd(a[i] + o[i]) : 1 + rnd(4); /* a[i] == 0 only Baseline can take */
	if (rnd(3) == 0 && i + 1 < n)
		r[i + 1] = a[i + 1] + o[i + 1];
	*req = (struct psiplace_spawn_request){ n, a, r, rnd(2) ? o : NULL,
						homogeneous ? PSIPLACE_SPAWN_HYPERCUBE : PSIPLACE_SPAWN_DIFFUSIVE,
						rnd(2) ? PSIPLACE_SPAWN_BASELINE : PSIPLACE_SPAWN_MERGE };
	if (!req->oversub)
		for (i = 0; i < n; i++)
			o[i] = 0;
}

Test(spawnplan, invariants_hold_over_random_allocations)
{
	enum { CASES = 4000, MAXN = 300 };
	static int a[MAXN], r[MAXN], o[MAXN];
	struct psiplace_spawn_request req;
	struct psiplace_spawn_plan p;
	psiplace_error_t err;
	int c, built = 0;

	rng_state = 20260522;
	for (c = 0; c < CASES; c++) {
		random_request(&req, a, r, o, 1 + (size_t)rnd(MAXN));
		if (psiplace_spawn_plan_build(&req, &p, &err) < 0) {
			/* only the documented refusals of random input */
			cr_assert(strstr(err.text, "hypercube") || strstr(err.text, "exceeds the node's capacity") ||
				  strstr(err.text, "oversubscribe[") || strstr(err.text, "nothing to spawn"),
				  "case %d: %s", c, err.text);
			continue;
		}
		check_plan(&req, &p);
		psiplace_spawn_plan_free(&p);
		built++;
	}
	cr_assert_gt(built, CASES / 2, "only %d plans built", built);
}

/* ---- every error, exact message ---- */

Test(spawnplan, error_empty_vectors)
{
	int a[1] = { 1 }, r[1] = { 1 };
	struct psiplace_spawn_request req = request(0, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: no nodes (empty cores vector); give one entry per node");
}

Test(spawnplan, error_too_many_nodes)
{
	int a[1] = { 1 }, r[1] = { 1 };
	struct psiplace_spawn_request req = request(PSIPLACE_SPAWN_MAX_NODES + 1, a, r,
						    PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: 1048577 nodes, at most 1048576 accepted");
}

Test(spawnplan, error_missing_vector)
{
	int a[1] = { 1 };
	struct psiplace_spawn_request req = request(1, a, NULL, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: the cores and running vectors are both required");
}

Test(spawnplan, error_negative_entries)
{
	int a[2] = { 4, -1 }, r[2] = { 1, 0 }, r2[2] = { 1, -3 }, a2[2] = { 4, 4 }, o[2] = { 0, -2 };
	struct psiplace_spawn_request req = request(2, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: cores[1] = -1 is negative; accepted: 0..1000000");
	req.cores = a2;
	req.running = r2;
	build_fails(&req, "spawn plan: running[1] = -3 is negative; accepted: 0..1000000");
	req.running = r;
	req.oversub = o;
	build_fails(&req, "spawn plan: oversubscribe[1] = -2 is negative; accepted: 0..1000000");
}

Test(spawnplan, error_entry_too_large)
{
	int a[2] = { 4, 1000001 }, r[2] = { 1, 0 };
	struct psiplace_spawn_request req = request(2, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: cores[1] = 1000001 is too large; accepted: 0..1000000");
}

Test(spawnplan, error_oversubscription_without_cores)
{
	int a[2] = { 4, 0 }, r[2] = { 1, 0 }, o[2] = { 0, 3 };
	struct psiplace_spawn_request req = { 2, a, r, o, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE };

	build_fails(&req, "spawn plan: oversubscribe[1] = 3 on a node without cores (cores[1] = 0)");
}

Test(spawnplan, error_running_exceeds_cores_with_merge)
{
	int a[3] = { 4, 4, 4 }, r[3] = { 4, 5, 0 };
	struct psiplace_spawn_request req = request(3, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: running[1] = 5 exceeds the node's capacity 4 (cores + oversubscription); merge keeps the running processes, so R must not exceed A");
}

Test(spawnplan, error_no_running_process)
{
	int a[3] = { 4, 4, 4 }, r[3] = { 0, 0, 0 };
	struct psiplace_spawn_request req = request(3, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: no running process to spawn from (running is 0 on every node)");
	req.method = PSIPLACE_SPAWN_BASELINE;
	build_fails(&req, "spawn plan: no running process to spawn from (running is 0 on every node)");
}

Test(spawnplan, error_nothing_to_spawn)
{
	int a[3] = { 4, 0, 2 }, r[3] = { 4, 0, 2 }, z[3] = { 0, 0, 0 };
	struct psiplace_spawn_request req = request(3, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: nothing to spawn (cores - running is 0 on every node)");
	req.method = PSIPLACE_SPAWN_BASELINE;
	req.cores = z;
	build_fails(&req, "spawn plan: nothing to spawn (cores is 0 on every node)");
}

Test(spawnplan, error_more_than_int_max_processes)
{
	enum { N = 2148 };
	static int a[N], r[N];
	size_t i;

	for (i = 0; i < N; i++)
		a[i] = 1000000;
	r[0] = 1;
	struct psiplace_spawn_request req = request(N, a, r, PSIPLACE_SPAWN_DIFFUSIVE, PSIPLACE_SPAWN_MERGE);
	build_fails(&req, "spawn plan: 2148000000 processes in all, more than 2147483647");
}

Test(spawnplan, error_hypercube_partial_source_node)
{
	int a[3] = { 4, 4, 4 }, r[3] = { 4, 2, 0 };
	struct psiplace_spawn_request req = request(3, a, r, PSIPLACE_SPAWN_HYPERCUBE, PSIPLACE_SPAWN_MERGE);

	build_fails(&req, "spawn plan: hypercube spawns whole nodes, but node 1 runs 2 of its 4 cores; use the diffusive strategy");
}

Test(spawnplan, strategy_and_method_names)
{
	enum psiplace_spawn_strategy s;
	enum psiplace_spawn_method m;
	psiplace_error_t err;

	cr_assert_eq(psiplace_spawn_strategy_parse("HyperCube", "--strategy", &s, &err), 0);
	cr_assert_eq(s, PSIPLACE_SPAWN_HYPERCUBE);
	cr_assert_str_eq(psiplace_spawn_strategy_name(s), "hypercube");
	cr_assert_eq(psiplace_spawn_strategy_parse("diffusive", "--strategy", &s, &err), 0);
	cr_assert_eq(s, PSIPLACE_SPAWN_DIFFUSIVE);
	cr_assert_eq(psiplace_spawn_method_parse("Baseline", "--method", &m, &err), 0);
	cr_assert_eq(m, PSIPLACE_SPAWN_BASELINE);
	cr_assert_str_eq(psiplace_spawn_method_name(m), "baseline");
	cr_assert_eq(psiplace_spawn_strategy_parse("cube", "--strategy", &s, &err), -1);
	cr_assert_str_eq(err.text, "--strategy: 'cube' is not a spawn strategy; accepted: diffusive, hypercube");
	cr_assert_eq(psiplace_spawn_method_parse("zombie\n", "--method", &m, &err), -1);
	cr_assert_str_eq(err.text, "--method: 'zombie\\x0a' is not a spawn method; accepted: merge, baseline");
}
