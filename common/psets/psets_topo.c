/* The node-local process sets from a node's topology: which socket, NUMA
 * node, L3 cache and core holds each local task's first CPU (psets.h). */
#include <stdlib.h>

#include <hwloc.h>

#include "psiplace/error.h"
#include "psiplace/psets.h"
#include "psiplace/topo.h"

static const enum psiplace_level level_of[PSIPLACE_PSET_NLEVELS] = {
	PSIPLACE_LEVEL_NODE, PSIPLACE_LEVEL_SOCKET, PSIPLACE_LEVEL_NUMA, PSIPLACE_LEVEL_L3,
	PSIPLACE_LEVEL_CORE,
};

static int obj_of_cpu(const struct psiplace_topo *t, int cpu, int lv)
{
	unsigned p;

	for (p = 0; cpu >= 0 && p < t->npus; p++)
		if (t->pus[p].os_index == (unsigned)cpu)
			return t->pus[p].obj[level_of[lv]];
	return -1;
}

int psiplace_psets_topo_objs(const struct psiplace_topo *t, const hwloc_const_bitmap_t *cpus,
			     size_t nlocal, unsigned levels, int *obj[PSIPLACE_PSET_NLEVELS],
			     psiplace_error_t *err)
{
	int lv;
	size_t i;

	for (lv = 0; lv < PSIPLACE_PSET_NLEVELS; lv++)
		obj[lv] = NULL;
	for (lv = 1; lv < PSIPLACE_PSET_NLEVELS; lv++) {
		if (!(levels & (1u << lv)))
			continue;
		if (!(obj[lv] = malloc((nlocal ? nlocal : 1) * sizeof(int)))) {
			psiplace_psets_topo_objs_free(obj);
			return psiplace_seterr(err, "out of memory");
		}
		for (i = 0; i < nlocal; i++)
			obj[lv][i] = cpus[i] ? obj_of_cpu(t, hwloc_bitmap_first(cpus[i]), lv) : -1;
	}
	return 0;
}

void psiplace_psets_topo_objs_free(int *obj[PSIPLACE_PSET_NLEVELS])
{
	int lv;

	for (lv = 0; lv < PSIPLACE_PSET_NLEVELS; lv++) {
		free(obj[lv]);
		obj[lv] = NULL;
	}
}
