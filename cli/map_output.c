/* psiplace map: plain and JSON output of a placement. */
#include <stdlib.h>

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

		if (buf && !psiplace_pset_ranks_string(s, buf, s->n * 12 + 8))
			fprintf(f, "pset %s %s\n", s->name, buf);
		free(buf);
	}
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_list(FILE *f, hwloc_const_bitmap_t b)
{
	char *s = NULL;

	if (!b || hwloc_bitmap_iszero(b) || hwloc_bitmap_list_asprintf(&s, b) < 0) {
		fputs("null", f);
		return;
	}
	json_string(f, s);
	free(s);
}

static void json_node(FILE *f, const struct map_result *r, unsigned n)
{
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	unsigned k;
	size_t i;
	int first = 1;

	for (k = 0; all && k < r->topo[n]->npus; k++)
		hwloc_bitmap_set(all, r->topo[n]->pus[k].os_index);
	fprintf(f, "    {\"node\": %u, \"topology\": ", n);
	json_string(f, r->topo_desc[n]);
	fputs(", \"cpus\": ", f);
	json_list(f, all);
	fputs(", \"ranks\": [", f);
	for (i = 0; i < r->ntasks; i++)
		if (r->task[i].node == n) {
			fprintf(f, "%s%zu", first ? "" : ", ", i);
			first = 0;
		}
	fputs("]}", f);
	hwloc_bitmap_free(all);
}

void map_print_json(FILE *f, const struct map_result *r)
{
	unsigned p, n;
	size_t i;

	fputs("{\n  \"backend\": ", f);
	json_string(f, r->backend);
	fputs(",\n  \"params\": {", f);
	for (p = 0; p < r->nparams; p++) {
		fprintf(f, "%s", p ? ", " : "");
		json_string(f, r->param_name[p]);
		fputs(": ", f);
		json_string(f, r->param_value[p]);
	}
	fputs("},\n  \"nodes\": [\n", f);
	for (n = 0; n < r->nnodes; n++) {
		json_node(f, r, n);
		fputs(n + 1 < r->nnodes ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"tasks\": [\n", f);
	for (i = 0; i < r->ntasks; i++) {
		const struct map_task *t = &r->task[i];

		fprintf(f, "    {\"rank\": %zu, \"node\": %u, \"mapped_cpu\": %d, \"cpus\": ", i, t->node,
			t->pos_os);
		json_list(f, t->cpus);
		fputs(", \"mems\": ", f);
		json_list(f, t->mems);
		fputs(i + 1 < r->ntasks ? "},\n" : "}\n", f);
	}
	fputs(r->psets ? "  ],\n  \"psets\": [\n" : "  ]\n}\n", f);
	for (i = 0; r->psets && i < r->psets->n; i++) {
		const struct psiplace_pset *s = &r->psets->set[i];
		size_t k;

		fputs("    {\"name\": ", f);
		json_string(f, s->name);
		fputs(", \"ranks\": [", f);
		for (k = 0; k < s->n; k++)
			fprintf(f, "%s%u", k ? ", " : "", s->ranks[k]);
		fputs(i + 1 < r->psets->n ? "]},\n" : "]}\n", f);
	}
	if (r->psets)
		fputs("  ]\n}\n", f);
}
