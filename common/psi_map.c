/* A whole step laid out and placed ParaStation's way: the dry run of
 * `psiplace map` and the golden-output oracle of the tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psi_place.h"
#include "psiplace/request.h"

void psiplace_psi_opts_of_request(const struct psiplace_request *r, struct psiplace_psi_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tpp = r->tpp ? r->tpp : 1;
	o->cpumap = r->cpumap;
	o->ncpumap = r->ncpumap;
	o->cpumap_from = r->cpumap_from;
	o->overbook = r->overbook;
	o->loop_nodes_first = r->loop_nodes_first;
	o->pin = r->pin;
	o->bindmem = r->bindmem;
}

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

int psiplace_psi_map(const struct psiplace_topo *t, unsigned nnodes, unsigned ntasks,
		     const struct psiplace_psi_opts *o, unsigned *node_of,
		     struct psiplace_binding *b, char *err, size_t errlen)
{
	unsigned *slots = malloc((nnodes ? nnodes : 1) * sizeof(*slots)), *local = NULL;
	struct psiplace_binding *nb = NULL;
	unsigned i, node, rc = 0;

	if (!slots)
		return psiplace_seterr(err, errlen, "map: out of memory");
	for (i = 0; i < nnodes; i++)
		slots[i] = node_slots(t, o);
	if (psiplace_psi_layout(slots, nnodes, o, ntasks, node_of, err, errlen) < 0) {
		free(slots);
		return -1;
	}
	free(slots);
	local = malloc((ntasks ? ntasks : 1) * sizeof(*local));
	for (node = 0; local && node < nnodes && !rc; node++) {
		unsigned n = 0;

		for (i = 0; i < ntasks; i++)
			if (node_of[i] == node)
				local[n++] = i;
		if (!n)
			continue;
		if (!(nb = psiplace_bindings_new(n))) {
			rc = 1;
			break;
		}
		if (psiplace_psi_place_node(t, o, n, nb, err, errlen) < 0) {
			psiplace_bindings_free(nb, n);
			free(local);
			return -1;
		}
		for (i = 0; i < n; i++) {
			hwloc_bitmap_copy(b[local[i]].cpus, nb[i].cpus);
			hwloc_bitmap_copy(b[local[i]].mems, nb[i].mems);
		}
		psiplace_bindings_free(nb, n);
	}
	if (!local || rc) {
		free(local);
		return psiplace_seterr(err, errlen, "map: out of memory");
	}
	free(local);
	return 0;
}

int psiplace_map_format(unsigned ntasks, const unsigned *node_of, const struct psiplace_binding *b,
			bool json, char **out, char *err, size_t errlen)
{
	char *buf = NULL, cpus[4096], mems[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned i;

	if (!f)
		return psiplace_seterr(err, errlen, "map: out of memory");
	if (json)
		fputs("{\"tasks\":[", f);
	for (i = 0; i < ntasks; i++) {
		if (psiplace_bitmap_list(b[i].cpus, cpus, sizeof(cpus)) < 0 ||
		    psiplace_bitmap_list(b[i].mems, mems, sizeof(mems)) < 0) {
			fclose(f);
			free(buf);
			return psiplace_seterr(err, errlen, "map: CPU list of task %u too long", i);
		}
		if (json)
			fprintf(f, "%s\n{\"rank\":%u,\"node\":%u,\"cpus\":\"%s\",\"mems\":\"%s\"}",
				i ? "," : "", i, node_of[i], cpus, mems);
		else
			fprintf(f, "%u %u %s\n", i, node_of[i], cpus);
	}
	if (json)
		fputs("\n]}\n", f);
	if (fclose(f) != 0) {
		free(buf);
		return psiplace_seterr(err, errlen, "map: out of memory");
	}
	*out = buf;
	return 0;
}
