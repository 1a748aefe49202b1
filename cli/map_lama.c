/* psiplace map: the LAMA backend, from the gathered request's LAMA strings. */
#include <stdlib.h>
#include <string.h>

#include "map_backend.h"
#include "psiplace/error.h"
#include "psiplace/lama.h"

static void add_param(struct map_result *out, const char *name, const char *value)
{
	if (out->nparams == MAP_MAX_PARAMS)
		return;
	out->param_name[out->nparams] = name;
	snprintf(out->param_value[out->nparams], sizeof(out->param_value[0]), "%s", value);
	out->nparams++;
}

/* Which Slurm distribution gives this map's node order (srun -m). */
static enum psiplace_lama_dist node_order(const struct psiplace_lama_map *m)
{
	unsigned *seq = malloc((m->ntasks ? m->ntasks : 1) * sizeof(unsigned));
	enum psiplace_lama_dist d = PSIPLACE_LAMA_DIST_ARBITRARY;
	size_t i;

	if (!seq)
		return d;
	for (i = 0; i < m->ntasks; i++)
		seq[i] = m->task[i].node;
	d = psiplace_lama_classify(seq, m->ntasks, m->nnodes);
	free(seq);
	return d;
}

static int fill(const struct psiplace_lama_opts *o, const struct psiplace_lama_map *m,
		struct map_result *out, psiplace_error_t *err)
{
	char b[64];
	size_t i;

	out->backend = "lama";
	add_param(out, "map", o->map_str);
	psiplace_lama_bind_string(o, b, sizeof(b));
	add_param(out, "bind", b);
	psiplace_lama_mppr_string(o, b, sizeof(b));
	add_param(out, "mppr", b);
	add_param(out, "order", o->sequential ? "sequential" : "natural");
	add_param(out, "oversubscribe", o->oversubscribe ? "yes" : "no");
	add_param(out, "distribution", psiplace_lama_dist_name(node_order(m)));
	out->ntasks = m->ntasks;
	out->task = calloc(m->ntasks ? m->ntasks : 1, sizeof(*out->task));
	if (!out->task)
		return psiplace_seterr(err, "out of memory for %zu tasks", m->ntasks);
	for (i = 0; i < m->ntasks; i++) {
		struct map_task *t = &out->task[i];

		t->node = m->task[i].node;
		t->pos_os = (int)m->topo[t->node]->pus[m->task[i].pu].os_index;
		t->cpus = hwloc_bitmap_alloc();
		t->mems = hwloc_bitmap_alloc();
		if (!t->cpus || !t->mems)
			return psiplace_seterr(err, "out of memory for %zu tasks", m->ntasks);
		psiplace_lama_task_sets(m, i, t->cpus, t->mems);
	}
	return 0;
}

int map_lama_place(const struct psiplace_lama_opts *o, unsigned nnodes,
		   const struct psiplace_topo *const *topo, size_t ntasks,
		   const unsigned *tasks_per_node, struct map_result *out, psiplace_error_t *err)
{
	struct psiplace_lama_map m;
	int rc;

	rc = tasks_per_node ? psiplace_lama_map_counts(o, nnodes, topo, tasks_per_node, &m, err)
			    : psiplace_lama_map(o, nnodes, topo, ntasks, &m, err);
	if (rc < 0)
		return -1;
	rc = fill(o, &m, out, err);
	psiplace_lama_map_free(&m);
	return rc;
}
