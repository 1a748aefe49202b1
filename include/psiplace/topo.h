/* psiplace — the hardware of one node as the placement code sees it.
 *
 * A flat table of the node's processing units (hardware threads) in hwloc's
 * topology order, each carrying the node-wide logical index of its ancestor
 * at every level LAMA and ParaStation know.  Built from hwloc (this system,
 * an XML file or a synthetic description such as "pack:2 core:4 pu:2"),
 * optionally restricted to a CPU set (the step's allocated CPUs). */
#ifndef PSIPLACE_TOPO_H
#define PSIPLACE_TOPO_H

#include <stddef.h>

#include <hwloc.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels from the largest to the smallest.  Letters: LAMA's map letters. */
enum psiplace_level {
	PSIPLACE_LEVEL_NODE = 0, /* n */
	PSIPLACE_LEVEL_BOARD,    /* b: hwloc has no boards; always absent */
	PSIPLACE_LEVEL_SOCKET,   /* s: hwloc package */
	PSIPLACE_LEVEL_NUMA,     /* N */
	PSIPLACE_LEVEL_L3,       /* L3 */
	PSIPLACE_LEVEL_L2,       /* L2 */
	PSIPLACE_LEVEL_L1,       /* L1 (data cache) */
	PSIPLACE_LEVEL_CORE,     /* c */
	PSIPLACE_LEVEL_HWTHREAD, /* h */
	PSIPLACE_LEVEL_COUNT
};

struct psiplace_pu {
	unsigned os_index;  /* Linux CPU number */
	unsigned thread;    /* position of this PU inside its core (0: first thread) */
	int numa_os;        /* OS index of its NUMA node; -1 when unknown */
	/* Node-wide logical index of the ancestor at each level (the PU's own
	 * logical index at HWTHREAD, 0 at NODE); -1 when the topology lacks
	 * the level altogether. */
	int obj[PSIPLACE_LEVEL_COUNT];
};

struct psiplace_topo {
	unsigned npus;
	struct psiplace_pu *pus; /* topology order (hwloc logical PU order) */
	/* Objects per level that hold at least one PU of the table; 0 when
	 * the level is absent. */
	unsigned count[PSIPLACE_LEVEL_COUNT];
	int is_this_system; /* binding with it is real */
};

/* The one way psiplace opens a node's hwloc topology (slurmstepd's
 * TopologyFile, the command's --topology): desc NULL or "" = this system; a
 * path to an existing regular file = hwloc XML; anything else = an hwloc
 * synthetic description.  Disallowed PUs are always kept: Slurm numbers
 * cores node-wide, and the step's own CPUs come from its allocated cores
 * (psiplace_topo_cpus_of_cores), not from the cgroup hwloc sees.  On
 * success *out is loaded (hwloc_topology_destroy it); err names desc. */
int psiplace_hwloc_open(const char *desc, hwloc_topology_t *out, psiplace_error_t *err);

/* The CPUs of Slurm's abstract core ids (a list such as "0-3,8", as in
 * S_STEP_ALLOC_CORES or scontrol show job -d): cores counted node-wide in
 * hwloc's logical core order, which is the node's declared order when the
 * declaration matches the hardware.  -1 with err when the list is not one
 * or an id is beyond the topology's cores. */
int psiplace_topo_cpus_of_cores(hwloc_topology_t topo, const char *cores, hwloc_bitmap_t cpus,
				psiplace_error_t *err);

/* Load a topology (psiplace_hwloc_open) and build its table.  When
 * restrict_to is not NULL only its PUs are kept (counts and indexes stay
 * node-wide so that different restrictions of one node agree). */
int psiplace_topo_load(const char *desc, hwloc_const_cpuset_t restrict_to,
		       struct psiplace_topo *t, psiplace_error_t *err);

/* Build the table from an hwloc topology the caller loaded. */
int psiplace_topo_from_hwloc(hwloc_topology_t topo, hwloc_const_cpuset_t restrict_to,
			     struct psiplace_topo *t, psiplace_error_t *err);

void psiplace_topo_free(struct psiplace_topo *t);

/* LAMA letter of a level ("n", "b", "s", "N", "L3", "L2", "L1", "c", "h"). */
const char *psiplace_level_letter(enum psiplace_level l);

#ifdef __cplusplus
}
#endif
#endif
