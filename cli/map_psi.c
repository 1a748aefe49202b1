/* psiplace map: the ParaStation backend, the same placement code as the
 * SPANK plugin on the same gathered request. */
#include <stdlib.h>
#include <string.h>

#include "map_backend.h"
#include "psiplace/error.h"
#include "psiplace/psi_slots.h"
#include "psiplace/request_launch.h"

static void add_param(struct map_result *out, const char *name, const char *text)
{
	if (out->nparams == MAP_MAX_PARAMS)
		return;
	out->param_name[out->nparams] = name;
	snprintf(out->param_value[out->nparams], sizeof(out->param_value[0]), "%s", text);
	out->nparams++;
}

static int fill(const struct psiplace_user_request *r, size_t ntasks, const unsigned *node_of,
		const struct psiplace_binding *b, struct map_result *out, psiplace_error_t *err)
{
	size_t i;

	char tpp[16];

	snprintf(tpp, sizeof(tpp), "%u", r->tpp);
	out->backend = "psi";
	add_param(out, "tpp", tpp);
	add_param(out, "loop_nodes_first", r->loop_nodes_first ? "yes" : "no");
	add_param(out, "overbook", r->overbook ? "yes" : "no");
	add_param(out, "cpumap", r->cpumap_from ? r->own.val[PSIPLACE_OPT_CPUMAP] : "none");
	add_param(out, "pin", r->pin ? "yes" : "no");
	add_param(out, "bindmem", r->bindmem ? "yes" : "no");
	out->ntasks = ntasks;
	if (!(out->task = calloc(ntasks ? ntasks : 1, sizeof(*out->task))))
		return psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	for (i = 0; i < ntasks; i++) {
		struct map_task *t = &out->task[i];

		t->node = node_of[i];
		t->pos_os = hwloc_bitmap_first(b[i].cpus);
		t->cpus = hwloc_bitmap_dup(b[i].cpus);
		t->mems = hwloc_bitmap_dup(b[i].mems);
		if (!t->cpus || !t->mems)
			return psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	}
	return 0;
}

int map_psi_place(const struct psiplace_user_request *r, unsigned nnodes,
		  const struct psiplace_topo *const *topo, size_t ntasks,
		  const unsigned *tasks_per_node, struct map_result *out, psiplace_error_t *err)
{
	struct psiplace_psi_opts o;
	struct psiplace_binding *b = NULL;
	unsigned *node_of = NULL;
	int rc = -1;

	if (ntasks > 0xffffffffu)
		return psiplace_seterr(err, "-n: at most %u tasks", 0xffffffffu);
	psiplace_psi_opts_of_request(r, &o);
	if (!(b = psiplace_bindings_new(ntasks)) || !(node_of = calloc(ntasks ? ntasks : 1, sizeof(*node_of))))
		psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	else if (psiplace_psi_map(topo, nnodes, (unsigned)ntasks, tasks_per_node, &o, node_of, b, err) == 0)
		rc = fill(r, ntasks, node_of, b, out, err);
	psiplace_bindings_free(b, ntasks);
	free(node_of);
	return rc;
}
