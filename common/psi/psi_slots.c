/* ParaStation task placement on one node, and the step layout for dry
 * runs.  Slot order: SMT outermost (psmgmt's logical slots). */
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psi_slots.h"

static int cmp_slot(const void *a, const void *b, void *arg)
{
	const struct psiplace_topo *t = arg;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	if (t->pus[x].thread != t->pus[y].thread)
		return t->pus[x].thread < t->pus[y].thread ? -1 : 1;
	return x < y ? -1 : x > y; /* table order = hwloc topology order */
}

int psiplace_psi_slots(const struct psiplace_topo *t, unsigned **slots, size_t *n, psiplace_error_t *err)
{
	unsigned i, *s = malloc((t->npus ? t->npus : 1) * sizeof(*s));

	if (!s)
		return psiplace_seterr(err, "CPU slots: out of memory");
	for (i = 0; i < t->npus; i++)
		s[i] = i;
	qsort_r(s, t->npus, sizeof(*s), cmp_slot, (void *)t);
	*slots = s;
	*n = t->npus;
	return 0;
}

/* The step's slots as OS CPU numbers: the topology's order, or the user's
 * map restricted to the CPUs the step may use (map order kept). */
static int slot_cpus(const struct psiplace_topo *t, const struct psiplace_psi_opts *o,
		     unsigned **cpus, size_t *n, psiplace_error_t *err)
{
	unsigned *slots, *c;
	size_t ns, i, k = 0;
	hwloc_bitmap_t allowed;

	if (psiplace_psi_slots(t, &slots, &ns, err) < 0)
		return -1;
	if (!o->cpumap) {
		for (i = 0; i < ns; i++)
			slots[i] = t->pus[slots[i]].os_index;
		*cpus = slots;
		*n = ns;
		return 0;
	}
	free(slots);
	allowed = hwloc_bitmap_alloc();
	c = malloc((o->ncpumap ? o->ncpumap : 1) * sizeof(*c));
	if (!allowed || !c) {
		hwloc_bitmap_free(allowed);
		free(c);
		return psiplace_seterr(err, "CPU slots: out of memory");
	}
	for (i = 0; i < t->npus; i++)
		hwloc_bitmap_set(allowed, t->pus[i].os_index);
	for (i = 0; i < o->ncpumap; i++)
		if (hwloc_bitmap_isset(allowed, o->cpumap[i]))
			c[k++] = o->cpumap[i];
	hwloc_bitmap_free(allowed);
	*cpus = c;
	*n = k;
	return 0;
}

static int too_few(const struct psiplace_psi_opts *o, unsigned nlocal, size_t nslots,
		   psiplace_error_t *err)
{
	if (o->cpumap)
		return psiplace_seterr(err,
				       "%s: %zu of its CPUs are allocated to this step on this node; %u tasks with %u CPU slots each need %lu (PSI_OVERBOOK or --psi-overbook reuses slots)",
				       o->cpumap_from ? o->cpumap_from : "cpumap", nslots, nlocal,
				       o->tpp, (unsigned long)nlocal * o->tpp);
	return psiplace_seterr(err,
			       "%u tasks with %u CPU slots each need %lu CPU slots; this node has %zu for the step (PSI_OVERBOOK or --psi-overbook reuses slots)",
			       nlocal, o->tpp, (unsigned long)nlocal * o->tpp, nslots);
}

int psiplace_psi_place_node(const struct psiplace_topo *t, const struct psiplace_psi_opts *o,
			    unsigned nlocal, struct psiplace_binding *out, psiplace_error_t *err)
{
	unsigned *cpus = NULL, tpp = o->tpp ? o->tpp : 1, i, j;
	size_t n = 0;
	hwloc_bitmap_t set;

	if (slot_cpus(t, o, &cpus, &n, err) < 0)
		return -1;
	if (n == 0 || ((unsigned long)nlocal * tpp > n && !o->overbook)) {
		free(cpus);
		return too_few(o, nlocal, n, err);
	}
	if (!(set = hwloc_bitmap_alloc())) {
		free(cpus);
		return psiplace_seterr(err, "CPU slots: out of memory");
	}
	for (i = 0; i < nlocal; i++) {
		hwloc_bitmap_zero(set);
		/* Overbooking reuses the slots in rounds: slot numbers wrap. */
		for (j = 0; j < tpp; j++)
			if (hwloc_bitmap_set(set, cpus[((unsigned long)i * tpp + j) % n]) < 0)
				break;
		if (j < tpp || (o->pin && hwloc_bitmap_copy(out[i].cpus, set) < 0)) {
			psiplace_seterr(err, "CPU slots: out of memory");
			break;
		}
		if (o->bindmem && psiplace_binding_mems_of(t, set, out[i].mems, err) < 0)
			break;
		if (!o->bindmem)
			hwloc_bitmap_zero(out[i].mems);
		if (!o->pin)
			hwloc_bitmap_zero(out[i].cpus);
	}
	hwloc_bitmap_free(set);
	free(cpus);
	if (i < nlocal)
		return -1;
	return 0;
}

static void layout_even(const unsigned *slots, unsigned nnodes, unsigned long total,
			unsigned ntasks, unsigned *node_of)
{
	unsigned i, k = 0, extra;
	unsigned long given = 0;

	/* Quotas in proportion to slots, the remainder to the first nodes. */
	for (i = 0; i < nnodes; i++)
		given += (unsigned long)ntasks * slots[i] / total;
	extra = ntasks - (unsigned)given;
	for (i = 0; i < nnodes; i++) {
		unsigned q = (unsigned)((unsigned long)ntasks * slots[i] / total);
		if (extra && slots[i]) {
			q++;
			extra--;
		}
		while (q-- && k < ntasks)
			node_of[k++] = i;
	}
}

int psiplace_psi_layout(const unsigned *slots, unsigned nnodes, const struct psiplace_psi_opts *o,
			unsigned ntasks, unsigned *node_of, psiplace_error_t *err)
{
	unsigned tpp = o->tpp ? o->tpp : 1, i, k = 0, *room;
	unsigned long total_tasks = 0, total_slots = 0;

	for (i = 0; i < nnodes; i++) {
		total_tasks += slots[i] / tpp;
		total_slots += slots[i];
	}
	if (nnodes == 0 || total_slots == 0)
		return psiplace_seterr(err, "no CPU slots to place %u tasks on", ntasks);
	if (total_tasks < ntasks && !o->overbook)
		return psiplace_seterr(err,
				       "%u tasks with %u CPU slots each do not fit: the %u nodes hold %lu (PSI_OVERBOOK or --psi-overbook reuses slots)",
				       ntasks, tpp, nnodes, total_tasks);
	if (total_tasks < ntasks && !o->loop_nodes_first) {
		layout_even(slots, nnodes, total_slots, ntasks, node_of);
		return 0;
	}
	if (!(room = malloc(nnodes * sizeof(*room))))
		return psiplace_seterr(err, "layout: out of memory");
	for (i = 0; i < nnodes; i++)
		room[i] = total_tasks < ntasks ? (slots[i] ? ~0u : 0) : slots[i] / tpp;
	if (!o->loop_nodes_first) {
		for (i = 0; i < nnodes && k < ntasks; i++)
			while (room[i]-- && k < ntasks)
				node_of[k++] = i;
	} else {
		for (i = 0; k < ntasks; i = (i + 1) % nnodes)
			if (room[i]) {
				room[i]--;
				node_of[k++] = i;
			}
	}
	free(room);
	return 0;
}
