/* A whole step laid out and placed ParaStation's way: the dry run of
 * `psiplace map` and the golden-output oracle of the tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psi_slots.h"

/* Slots of one node as seen by the layout: with a cpumap only the mapped
 * CPUs that exist count. */
static unsigned node_slots(const struct psiplace_topo *t, const struct psiplace_psi_opts *o)
{
	unsigned k = 0, i;
	size_t m;

	if (!o->cpumap)
		return t->npus;
	for (m = 0; m < o->ncpumap; m++)
		for (i = 0; i < t->npus; i++)
			if (t->pus[i].os_index == o->cpumap[m]) {
				k++;
				break;
			}
	return k;
}

/* Slurm's layout for given counts: block, or cyclic over the nodes that
 * still have tasks to take. */
static int layout_counts(const unsigned *tpn, unsigned nnodes, unsigned ntasks, bool cyclic,
			 unsigned *node_of, psiplace_error_t *err)
{
	unsigned *left = malloc((nnodes ? nnodes : 1) * sizeof(*left)), i, k = 0;
	unsigned long sum = 0;

	if (!left)
		return psiplace_seterr(err, "map: out of memory");
	for (i = 0; i < nnodes; i++)
		sum += (left[i] = tpn[i]);
	if (sum != ntasks) {
		free(left);
		return psiplace_seterr(err, "tasks per node add up to %lu, not %u", sum, ntasks);
	}
	if (!cyclic) {
		for (i = 0; i < nnodes; i++)
			while (left[i]--)
				node_of[k++] = i;
	} else {
		for (i = 0; k < ntasks; i = (i + 1) % nnodes)
			if (left[i]) {
				left[i]--;
				node_of[k++] = i;
			}
	}
	free(left);
	return 0;
}

int psiplace_psi_map(const struct psiplace_topo *const *topo, unsigned nnodes, unsigned ntasks,
		     const unsigned *tasks_per_node, const struct psiplace_psi_opts *o,
		     unsigned *node_of, struct psiplace_binding *b, psiplace_error_t *err)
{
	unsigned *slots = malloc((nnodes ? nnodes : 1) * sizeof(*slots)), *local = NULL;
	struct psiplace_binding *nb = NULL;
	unsigned i, node, rc = 0;

	if (!slots)
		return psiplace_seterr(err, "map: out of memory");
	for (i = 0; i < nnodes; i++)
		slots[i] = node_slots(topo[i], o);
	rc = tasks_per_node ? layout_counts(tasks_per_node, nnodes, ntasks, o->loop_nodes_first,
					    node_of, err)
			    : psiplace_psi_layout(slots, nnodes, o, ntasks, node_of, err);
	free(slots);
	if (rc)
		return -1;
	local = malloc((ntasks ? ntasks : 1) * sizeof(*local));
	for (node = 0; local && node < nnodes && !rc; node++) {
		unsigned n = 0;
		psiplace_error_t nerr;

		for (i = 0; i < ntasks; i++)
			if (node_of[i] == node)
				local[n++] = i;
		if (!n)
			continue;
		if (!(nb = psiplace_bindings_new(n))) {
			rc = 1;
			break;
		}
		if (psiplace_psi_place_node(topo[node], o, n, nb, &nerr) < 0) {
			psiplace_bindings_free(nb, n);
			free(local);
			if (nnodes > 1)
				return psiplace_seterr(err, "node %u: %s", node, nerr.text);
			return psiplace_seterr(err, "%s", nerr.text);
		}
		for (i = 0; i < n; i++) {
			hwloc_bitmap_copy(b[local[i]].cpus, nb[i].cpus);
			hwloc_bitmap_copy(b[local[i]].mems, nb[i].mems);
		}
		psiplace_bindings_free(nb, n);
	}
	if (!local || rc) {
		free(local);
		return psiplace_seterr(err, "map: out of memory");
	}
	free(local);
	return 0;
}
