/* psiplace — what a placement backend (ParaStation's, LAMA's) returns for
 * one task, and what the SPANK plugin applies: a CPU set and the NUMA
 * nodes for its memory.  OS indexes throughout. */
#ifndef PSIPLACE_BINDING_H
#define PSIPLACE_BINDING_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>

#include "psiplace/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct psiplace_binding {
	hwloc_bitmap_t cpus; /* empty: do not bind CPUs */
	hwloc_bitmap_t mems; /* NUMA node OS indexes; empty: do not bind memory */
};

/* Allocate n empty bindings; NULL when out of memory. */
struct psiplace_binding *psiplace_bindings_new(size_t n);
void psiplace_bindings_free(struct psiplace_binding *b, size_t n);

/* mems = the NUMA nodes (OS indexes) holding any CPU of cpus, from the
 * table (which outlives the hwloc topology it was built from, so
 * hwloc_cpuset_to_nodeset() is not at hand).  0, or -1 out of memory. */
int psiplace_binding_mems_of(const struct psiplace_topo *t, hwloc_const_bitmap_t cpus,
			     hwloc_bitmap_t mems, psiplace_error_t *err);

/* Slurm's mask list of n bindings ("0x3,0xc", SLURM_CPU_BIND_LIST), of
 * any length: *out is malloc'd.  0, or -1 when out of memory. */
int psiplace_bindings_mask_list(const struct psiplace_binding *b, size_t n, char **out);

/* Linux list format ("0-3,8"); "-" for an empty set.  Returns the length
 * or -1 when buf is too small. */
int psiplace_bitmap_list(hwloc_const_bitmap_t set, char *buf, size_t len);

/* Both lists of one binding (PSIPLACE_CPUS, PSIPLACE_MEMS) in that format,
 * each malloc'd to fit, however many CPUs: both or neither.  0, or -1 out
 * of memory with *cpus and *mems NULL. */
int psiplace_binding_lists(const struct psiplace_binding *b, char **cpus, char **mems);

#ifdef __cplusplus
}
#endif
#endif
