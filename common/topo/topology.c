/* The node's PUs with their ancestors at every level, from hwloc. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "psiplace/error.h"
#include "psiplace/topo.h"

static const char *const letters[PSIPLACE_LEVEL_COUNT] = {
	"n", "b", "s", "N", "L3", "L2", "L1", "c", "h",
};

const char *psiplace_level_letter(enum psiplace_level l)
{
	return (unsigned)l < PSIPLACE_LEVEL_COUNT ? letters[l] : "?";
}

static hwloc_obj_type_t hwloc_type(enum psiplace_level l)
{
	switch (l) {
	case PSIPLACE_LEVEL_SOCKET: return HWLOC_OBJ_PACKAGE;
	case PSIPLACE_LEVEL_L3: return HWLOC_OBJ_L3CACHE;
	case PSIPLACE_LEVEL_L2: return HWLOC_OBJ_L2CACHE;
	case PSIPLACE_LEVEL_L1: return HWLOC_OBJ_L1CACHE;
	case PSIPLACE_LEVEL_CORE: return HWLOC_OBJ_CORE;
	case PSIPLACE_LEVEL_HWTHREAD: return HWLOC_OBJ_PU;
	default: return HWLOC_OBJ_TYPE_MAX;
	}
}

/* NUMA nodes are memory children in hwloc 2, not ancestors of PUs: the
 * PU's local NUMA nodes (hwloc's cpuset-to-nodeset; ns is scratch), the
 * first of them when there are several (DDR and HBM on one package). */
static hwloc_obj_t numa_of(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_nodeset_t ns)
{
	int first;

	if (hwloc_cpuset_to_nodeset(topo, pu->cpuset, ns) < 0 ||
	    (first = hwloc_bitmap_first(ns)) < 0)
		return NULL;
	return hwloc_get_numanode_obj_by_os_index(topo, (unsigned)first);
}

static void fill_pu(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_nodeset_t ns,
		    struct psiplace_pu *p)
{
	hwloc_obj_t core, numa;
	int l;

	memset(p, 0, sizeof(*p));
	p->os_index = pu->os_index;
	for (l = 0; l < PSIPLACE_LEVEL_COUNT; l++) {
		hwloc_obj_type_t ty = hwloc_type((enum psiplace_level)l);
		hwloc_obj_t a;

		if (l == PSIPLACE_LEVEL_NODE) {
			p->obj[l] = 0;
			continue;
		}
		if (l == PSIPLACE_LEVEL_NUMA) {
			numa = numa_of(topo, pu, ns);
			p->obj[l] = numa ? (int)numa->logical_index : -1;
			p->numa_os = numa ? (int)numa->os_index : -1;
			continue;
		}
		if (ty == HWLOC_OBJ_TYPE_MAX) {
			p->obj[l] = -1;
			continue;
		}
		a = ty == HWLOC_OBJ_PU ? pu : hwloc_get_ancestor_obj_by_type(topo, ty, pu);
		p->obj[l] = a ? (int)a->logical_index : -1;
	}
	core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
	if (core) {
		hwloc_obj_t c = NULL;
		unsigned k = 0;

		while ((c = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset,
								     HWLOC_OBJ_PU, c)) && c != pu)
			k++;
		p->thread = k;
	}
}

/* A level counts as present when any kept PU has an ancestor there; count
 * the distinct ancestors.  0, or -1 out of memory. */
static int count_levels(struct psiplace_topo *t)
{
	int l;
	unsigned i;

	for (l = 0; l < PSIPLACE_LEVEL_COUNT; l++) {
		int max = -1;
		unsigned char *seen;

		for (i = 0; i < t->npus; i++)
			if (t->pus[i].obj[l] > max)
				max = t->pus[i].obj[l];
		t->count[l] = 0;
		if (max < 0)
			continue;
		seen = calloc((size_t)max + 1, 1);
		if (!seen)
			return -1;
		for (i = 0; i < t->npus; i++) {
			int o = t->pus[i].obj[l];
			if (o >= 0 && !seen[o]) {
				seen[o] = 1;
				t->count[l]++;
			}
		}
		free(seen);
	}
	return 0;
}

int psiplace_topo_from_hwloc(hwloc_topology_t topo, hwloc_const_cpuset_t restrict_to,
			     struct psiplace_topo *t, psiplace_error_t *err)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	hwloc_obj_t pu = NULL;
	hwloc_nodeset_t ns;
	unsigned k = 0;

	memset(t, 0, sizeof(*t));
	if (n <= 0)
		return psiplace_seterr(err, "topology has no processing units");
	t->pus = calloc((size_t)n, sizeof(*t->pus));
	if (!t->pus || !(ns = hwloc_bitmap_alloc())) {
		psiplace_topo_free(t);
		return psiplace_seterr(err, "out of memory for %d PUs", n);
	}
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		if (restrict_to && !hwloc_bitmap_isset(restrict_to, pu->os_index))
			continue;
		fill_pu(topo, pu, ns, &t->pus[k++]);
	}
	hwloc_bitmap_free(ns);
	t->npus = k;
	if (k == 0) {
		psiplace_topo_free(t);
		return psiplace_seterr(err, "no processing unit of the topology is in the allowed CPU set");
	}
	t->is_this_system = hwloc_topology_is_thissystem(topo);
	if (count_levels(t) < 0) {
		psiplace_topo_free(t);
		return psiplace_seterr(err, "out of memory for %d PUs", n);
	}
	return 0;
}

int psiplace_hwloc_open(const char *desc, hwloc_topology_t *out, psiplace_error_t *err)
{
	hwloc_topology_t topo;
	struct stat st;
	char q[128];
	int rc;

	*out = NULL;
	if (hwloc_topology_init(&topo) < 0)
		return psiplace_seterr(err, "hwloc_topology_init failed");
	hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (desc && *desc) {
		psiplace_quote(q, sizeof(q), desc, 100);
		if (stat(desc, &st) == 0 && S_ISREG(st.st_mode))
			rc = hwloc_topology_set_xml(topo, desc);
		else
			rc = hwloc_topology_set_synthetic(topo, desc);
		if (rc < 0) {
			hwloc_topology_destroy(topo);
			return psiplace_seterr(err,
					       "topology '%s' is neither a readable hwloc XML file nor a valid synthetic description (e.g. 'pack:2 core:4 pu:2')",
					       q);
		}
	}
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return psiplace_seterr(err, "hwloc cannot load the topology");
	}
	*out = topo;
	return 0;
}

int psiplace_topo_cpus_of_cores(hwloc_topology_t topo, const char *cores, hwloc_bitmap_t cpus,
				psiplace_error_t *err)
{
	int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), id, last, rc = 0;
	hwloc_bitmap_t ids = hwloc_bitmap_alloc();
	char q[96];

	if (!ids)
		return psiplace_seterr(err, "out of memory");
	psiplace_quote(q, sizeof(q), cores ? cores : "", 64);
	if (!cores || !*cores || strspn(cores, "0123456789,-") != strlen(cores) ||
	    hwloc_bitmap_list_sscanf(ids, cores) < 0 || hwloc_bitmap_iszero(ids)) {
		hwloc_bitmap_free(ids);
		return psiplace_seterr(err, "core ids '%s' are not a list such as 0-3,8", q);
	}
	last = hwloc_bitmap_last(ids);
	if (ncores <= 0 || last < 0 || last >= ncores) {
		rc = psiplace_seterr(err,
				     "Slurm's core ids %s do not fit this node's topology (%d core%s): the node's declared Sockets/CoresPerSocket differ from the hardware (slurmd -C shows the real layout)",
				     q, ncores, ncores == 1 ? "" : "s");
	} else {
		hwloc_bitmap_zero(cpus);
		hwloc_bitmap_foreach_begin(id, ids) {
			hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)id);

			hwloc_bitmap_or(cpus, cpus, core->cpuset);
		}
		hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(ids);
	return rc;
}

int psiplace_topo_load(const char *desc, hwloc_const_cpuset_t restrict_to,
		       struct psiplace_topo *t, psiplace_error_t *err)
{
	hwloc_topology_t topo;
	int rc;

	memset(t, 0, sizeof(*t));
	if (psiplace_hwloc_open(desc, &topo, err) < 0)
		return -1;
	rc = psiplace_topo_from_hwloc(topo, restrict_to, t, err);
	hwloc_topology_destroy(topo);
	return rc;
}

void psiplace_topo_free(struct psiplace_topo *t)
{
	free(t->pus);
	memset(t, 0, sizeof(*t));
}
