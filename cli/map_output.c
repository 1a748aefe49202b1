/* psiplace map: plain and JSON output of a placement. */
#include <stdlib.h>

#include "json_out.h"
#include "map_result.h"

void map_result_free(struct map_result *r)
{
	size_t i;

	for (i = 0; r->task && i < r->ntasks; i++) {
		hwloc_bitmap_free(r->task[i].cpus);
		hwloc_bitmap_free(r->task[i].mems);
	}
	free(r->task);
	r->task = NULL;
	r->ntasks = 0;
}

/* Linux list format ("0-3,8"), "-" for an empty set. */
static void print_list(FILE *f, hwloc_const_bitmap_t b)
{
	char *s = NULL;

	if (!b || hwloc_bitmap_iszero(b) || hwloc_bitmap_list_asprintf(&s, b) < 0) {
		fputc('-', f);
		return;
	}
	fputs(s, f);
	free(s);
}

void map_print_plain(FILE *f, const struct map_result *r)
{
	size_t i;

	for (i = 0; i < r->ntasks; i++) {
		fprintf(f, "%zu %u ", i, r->task[i].node);
		print_list(f, r->task[i].cpus);
		fputc('\n', f);
	}
	for (i = 0; r->psets && i < r->psets->n; i++) {
		const struct psiplace_pset *s = &r->psets->set[i];
		char *buf = malloc(s->n * 12 + 8);

		if (buf && psiplace_pset_ranks_string(s, buf, s->n * 12 + 8) == 0)
			fprintf(f, "pset %s %s\n", s->name, buf);
		free(buf);
	}
}

/* Linux list format ("0-3,8"), null for an empty set. */
static json_t *json_list(hwloc_const_bitmap_t b)
{
	char *s = NULL;
	json_t *v;

	if (!b || hwloc_bitmap_iszero(b) || hwloc_bitmap_list_asprintf(&s, b) < 0)
		return json_null();
	v = cli_json_str(s);
	free(s);
	return v;
}

static json_t *json_node(const struct map_result *r, unsigned n, int *bad)
{
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	json_t *o = json_object(), *ranks = json_array();
	unsigned k;
	size_t i;

	for (k = 0; all && k < r->topo[n]->npus; k++)
		hwloc_bitmap_set(all, r->topo[n]->pus[k].os_index);
	cli_json_set(o, "node", json_integer(n), bad);
	cli_json_set(o, "topology", cli_json_str(r->topo_desc[n]), bad);
	cli_json_set(o, "cpus", json_list(all), bad);
	for (i = 0; i < r->ntasks; i++)
		if (r->task[i].node == n)
			cli_json_append(ranks, json_integer((json_int_t)i), bad);
	cli_json_set(o, "ranks", ranks, bad);
	hwloc_bitmap_free(all);
	return o;
}

int map_print_json(FILE *f, const struct map_result *r)
{
	json_t *doc = json_object(), *params = json_object(), *nodes = json_array(),
	       *tasks = json_array(), *psets = r->psets ? json_array() : NULL;
	unsigned p, n;
	size_t i, k;
	int bad = 0;

	cli_json_set(doc, "backend", cli_json_str(r->backend), &bad);
	for (p = 0; p < r->nparams; p++)
		cli_json_set(params, r->param_name[p], cli_json_str(r->param_value[p]), &bad);
	cli_json_set(doc, "params", params, &bad);
	for (n = 0; n < r->nnodes; n++)
		cli_json_append(nodes, json_node(r, n, &bad), &bad);
	cli_json_set(doc, "nodes", nodes, &bad);
	for (i = 0; i < r->ntasks; i++) {
		const struct map_task *t = &r->task[i];
		json_t *o = json_object();

		cli_json_set(o, "rank", json_integer((json_int_t)i), &bad);
		cli_json_set(o, "node", json_integer(t->node), &bad);
		cli_json_set(o, "mapped_cpu", json_integer(t->pos_os), &bad);
		cli_json_set(o, "cpus", json_list(t->cpus), &bad);
		cli_json_set(o, "mems", json_list(t->mems), &bad);
		cli_json_append(tasks, o, &bad);
	}
	cli_json_set(doc, "tasks", tasks, &bad);
	for (i = 0; r->psets && i < r->psets->n; i++) {
		const struct psiplace_pset *s = &r->psets->set[i];
		json_t *o = json_object(), *ranks = json_array();

		cli_json_set(o, "name", cli_json_str(s->name), &bad);
		for (k = 0; k < s->n; k++)
			cli_json_append(ranks, json_integer(s->ranks[k]), &bad);
		cli_json_set(o, "ranks", ranks, &bad);
		cli_json_append(psets, o, &bad);
	}
	if (psets)
		cli_json_set(doc, "psets", psets, &bad);
	if (bad) {
		json_decref(doc);
		return -1;
	}
	return cli_json_print(f, doc);
}
