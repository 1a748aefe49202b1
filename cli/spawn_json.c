/* spawn-plan --format json: the plan as one JSON document (schema in
 * doc/spawn.md), written by the command's one JSON writer (json_out.c):
 * one line per node, step, group and spawner. */
#include <stdio.h>

#include "commands.h"
#include "json_out.h"
#include "psiplace/psets.h"
#include "psiplace/spawnplan.h"

static json_t *int_or_null(int v, int is_null)
{
	return is_null ? json_null() : json_integer(v);
}

static json_t *host(char *const *hosts, size_t node)
{
	return hosts ? cli_json_str(hosts[node]) : json_null();
}

static json_t *nodes(int *bad, const struct psiplace_spawn_request *req, char *const *hosts)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < req->nnodes; i++) {
		json_t *o = json_object();

		cli_json_set(o, "node", json_integer((json_int_t)i), bad);
		cli_json_set(o, "host", host(hosts, i), bad);
		cli_json_set(o, "cores", json_integer(req->cores[i]), bad);
		cli_json_set(o, "running", json_integer(req->running[i]), bad);
		cli_json_set(o, "oversubscribe", json_integer(req->oversub ? req->oversub[i] : 0), bad);
		cli_json_append(a, o, bad);
	}
	return a;
}

static json_t *steps(int *bad, const struct psiplace_spawn_plan *p)
{
	json_t *a = json_array();
	char pset[64];
	size_t k;

	for (k = 0; k < p->nsteps; k++) {
		const struct psiplace_spawn_step *st = &p->steps[k];
		json_t *o = json_object();

		cli_json_set(o, "step", json_integer(st->step), bad);
		cli_json_set(o, "total", json_integer(st->total), bad);
		cli_json_set(o, "generated", int_or_null(st->generated, k == 0), bad);
		cli_json_set(o, "nodes", json_integer(st->nodes), bad);
		cli_json_set(o, "new_nodes", int_or_null(st->new_nodes, k == 0), bad);
		cli_json_set(o, "first_group", json_integer(st->first_group), bad);
		cli_json_set(o, "ngroups", json_integer(st->ngroups), bad);
		cli_json_set(o, "pset", psiplace_pset_spawn_name(st->step, pset, sizeof(pset)) == 0 ?
					  cli_json_str(pset) : json_null(), bad);
		cli_json_append(a, o, bad);
	}
	return a;
}

static json_t *groups(int *bad, const struct psiplace_spawn_plan *p, char *const *hosts)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < p->ngroups; i++) {
		const struct psiplace_spawn_group *g = &p->groups[i];
		json_t *o = json_object();

		cli_json_set(o, "id", json_integer(g->id), bad);
		cli_json_set(o, "node", json_integer((json_int_t)g->node), bad);
		cli_json_set(o, "host", host(hosts, g->node), bad);
		cli_json_set(o, "size", json_integer(g->size), bad);
		cli_json_set(o, "step", json_integer(g->step), bad);
		cli_json_set(o, "spawner", json_integer(g->spawner), bad);
		cli_json_set(o, "parent", int_or_null(g->parent, g->parent < 0), bad);
		cli_json_set(o, "parent_rank", json_integer(g->parent_rank), bad);
		cli_json_set(o, "first_rank", json_integer(g->first_rank), bad);
		cli_json_set(o, "new_node", json_boolean(g->new_node), bad);
		cli_json_append(a, o, bad);
	}
	return a;
}

/* One spawner: its identity and, per step it spawns in, the group and host. */
static json_t *spawner(int *bad, const struct psiplace_spawn_plan *p, char *const *hosts,
		       const struct psiplace_spawn_group *first)
{
	json_t *o = json_object(), *spawns = json_array();
	size_t k;

	cli_json_set(o, "spawner", json_integer(first->spawner), bad);
	cli_json_set(o, "group", int_or_null(first->parent, first->parent < 0), bad);
	cli_json_set(o, "rank", json_integer(first->parent_rank), bad);
	for (k = 1; k < p->nsteps; k++) {
		const struct psiplace_spawn_group *g;
		json_t *s;

		if (first->spawner >= p->steps[k].ngroups)
			continue;
		g = &p->groups[p->steps[k].first_group + first->spawner];
		s = json_object();
		cli_json_set(s, "step", json_integer((json_int_t)k), bad);
		cli_json_set(s, "group", json_integer(g->id), bad);
		cli_json_set(s, "size", json_integer(g->size), bad);
		cli_json_set(s, "host", host(hosts, g->node), bad);
		cli_json_append(spawns, s, bad);
	}
	cli_json_set(o, "spawns", spawns, bad);
	return o;
}

/* Spawn ranks 0 .. (most groups in one step) - 1 spawn; each one's first
 * group is in the first step where it spawns. */
static json_t *spawners(int *bad, const struct psiplace_spawn_plan *p, char *const *hosts)
{
	json_t *a = json_array();
	int j, most = 0;
	size_t k;

	for (k = 1; k < p->nsteps; k++)
		if (p->steps[k].ngroups > most)
			most = p->steps[k].ngroups;
	for (j = 0; j < most; j++) {
		for (k = 1; k < p->nsteps && j >= p->steps[k].ngroups; k++)
			;
		cli_json_append(a, spawner(bad, p, hosts, &p->groups[p->steps[k].first_group + j]), bad);
	}
	return a;
}

int spawn_plan_print_json(FILE *f, const struct psiplace_spawn_request *req,
			  const struct psiplace_spawn_plan *plan, char *const *hosts)
{
	json_t *doc = json_object();
	int bad_doc = 0, *bad = &bad_doc;

	cli_json_set(doc, "strategy", cli_json_str(psiplace_spawn_strategy_name(plan->strategy)), bad);
	cli_json_set(doc, "method", cli_json_str(psiplace_spawn_method_name(plan->method)), bad);
	cli_json_set(doc, "sources", json_integer(plan->nsources), bad);
	cli_json_set(doc, "merged_size", json_integer(plan->merged_size), bad);
	cli_json_set(doc, "nodes", nodes(bad, req, hosts), bad);
	cli_json_set(doc, "steps", steps(bad, plan), bad);
	cli_json_set(doc, "groups", groups(bad, plan, hosts), bad);
	cli_json_set(doc, "spawners", spawners(bad, plan, hosts), bad);
	if (bad_doc) {
		json_decref(doc);
		return -1;
	}
	return cli_json_print(f, doc);
}
