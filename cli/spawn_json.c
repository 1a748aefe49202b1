/* spawn-plan --format json: the plan as one JSON document (schema in
 * doc/spawn.md).  One line per node, step, group and spawner, so that
 * line-based tools and diffs stay readable. */
#include <stdio.h>

#include "commands.h"
#include "psiplace/psets.h"
#include "psiplace/spawnplan.h"

static void json_host(FILE *f, char *const *hosts, size_t node)
{
	const char *s;

	if (!hosts) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (s = hosts[node]; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_int_or_null(FILE *f, int v, int is_null)
{
	if (is_null)
		fputs("null", f);
	else
		fprintf(f, "%d", v);
}

static void json_nodes(FILE *f, const struct psiplace_spawn_request *req, char *const *hosts)
{
	size_t i;
	int o;

	fputs("  \"nodes\": [\n", f);
	for (i = 0; i < req->nnodes; i++) {
		o = req->oversub ? req->oversub[i] : 0;
		fprintf(f, "    {\"node\": %zu, \"host\": ", i);
		json_host(f, hosts, i);
		fprintf(f, ", \"cores\": %d, \"running\": %d, \"oversubscribe\": %d}%s\n",
			req->cores[i], req->running[i], o, i + 1 < req->nnodes ? "," : "");
	}
	fputs("  ],\n", f);
}

static void json_steps(FILE *f, const struct psiplace_spawn_plan *p)
{
	const struct psiplace_spawn_step *st;
	char pset[64];
	size_t k;

	fputs("  \"steps\": [\n", f);
	for (k = 0; k < p->nsteps; k++) {
		st = &p->steps[k];
		fprintf(f, "    {\"step\": %d, \"total\": %d, \"generated\": ", st->step, st->total);
		json_int_or_null(f, st->generated, k == 0);
		fprintf(f, ", \"nodes\": %d, \"new_nodes\": ", st->nodes);
		json_int_or_null(f, st->new_nodes, k == 0);
		fprintf(f, ", \"first_group\": %d, \"ngroups\": %d, \"pset\": ", st->first_group,
			st->ngroups);
		if (psiplace_pset_spawn_name(st->step, pset, sizeof(pset)) == 0)
			fprintf(f, "\"%s\"", pset);
		else
			fputs("null", f);
		fputs(k + 1 < p->nsteps ? "},\n" : "}\n", f);
	}
	fputs("  ],\n", f);
}

static void json_groups(FILE *f, const struct psiplace_spawn_plan *p, char *const *hosts)
{
	const struct psiplace_spawn_group *g;
	size_t i;

	fputs("  \"groups\": [\n", f);
	for (i = 0; i < p->ngroups; i++) {
		g = &p->groups[i];
		fprintf(f, "    {\"id\": %d, \"node\": %zu, \"host\": ", g->id, g->node);
		json_host(f, hosts, g->node);
		fprintf(f, ", \"size\": %d, \"step\": %d, \"spawner\": %d, \"parent\": ",
			g->size, g->step, g->spawner);
		json_int_or_null(f, g->parent, g->parent < 0);
		fprintf(f, ", \"parent_rank\": %d, \"first_rank\": %d, \"new_node\": %s}%s\n",
			g->parent_rank, g->first_rank, g->new_node ? "true" : "false",
			i + 1 < p->ngroups ? "," : "");
	}
	fputs("  ],\n", f);
}

/* One spawner: its identity and, per step it spawns in, the group and host. */
static void json_spawner(FILE *f, const struct psiplace_spawn_plan *p, char *const *hosts,
			 const struct psiplace_spawn_group *first)
{
	const struct psiplace_spawn_group *g;
	const char *sep = "";
	size_t k;

	fprintf(f, "    {\"spawner\": %d, \"group\": ", first->spawner);
	json_int_or_null(f, first->parent, first->parent < 0);
	fprintf(f, ", \"rank\": %d, \"spawns\": [", first->parent_rank);
	for (k = 1; k < p->nsteps; k++) {
		if (first->spawner >= p->steps[k].ngroups)
			continue;
		g = &p->groups[p->steps[k].first_group + first->spawner];
		fprintf(f, "%s{\"step\": %zu, \"group\": %d, \"size\": %d, \"host\": ", sep, k, g->id, g->size);
		json_host(f, hosts, g->node);
		fputc('}', f);
		sep = ", ";
	}
	fputs("]}", f);
}

/* Spawn ranks 0 .. (most groups in one step) - 1 spawn; each one's first
 * group is in the first step where it spawns. */
static void json_spawners(FILE *f, const struct psiplace_spawn_plan *p, char *const *hosts)
{
	int j, most = 0;
	size_t k;

	for (k = 1; k < p->nsteps; k++)
		if (p->steps[k].ngroups > most)
			most = p->steps[k].ngroups;
	fputs("  \"spawners\": [\n", f);
	for (j = 0; j < most; j++) {
		for (k = 1; k < p->nsteps && j >= p->steps[k].ngroups; k++)
			;
		json_spawner(f, p, hosts, &p->groups[p->steps[k].first_group + j]);
		fputs(j + 1 < most ? ",\n" : "\n", f);
	}
	fputs("  ]\n", f);
}

void spawn_plan_print_json(FILE *f, const struct psiplace_spawn_request *req,
			   const struct psiplace_spawn_plan *plan,
			   char *const *hosts)
{
	fprintf(f, "{\n  \"strategy\": \"%s\",\n  \"method\": \"%s\",\n",
		psiplace_spawn_strategy_name(plan->strategy),
		psiplace_spawn_method_name(plan->method));
	fprintf(f, "  \"sources\": %d,\n  \"merged_size\": %d,\n", plan->nsources,
		plan->merged_size);
	json_nodes(f, req, hosts);
	json_steps(f, plan);
	json_groups(f, plan, hosts);
	json_spawners(f, plan, hosts);
	fputs("}\n", f);
}
