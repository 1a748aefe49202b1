/* psiplace — ParaStation task placement when psiplace places the tasks:
 * CPU slots in ParaStation order, TPP slots per task, the next
 * node when one is full or one task per node in turn, overbooking in
 * rounds only when asked.  Pure: the SPANK plugin and `psiplace map`
 * call the same functions. */
#ifndef PSIPLACE_PSI_SLOTS_H
#define PSIPLACE_PSI_SLOTS_H

#include <stdbool.h>
#include <stddef.h>

#include "psiplace/binding.h"
#include "psiplace/topo.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct psiplace_psi_opts {
	unsigned tpp;             /* CPU slots per task, >= 1 */
	const unsigned *cpumap;   /* slot -> OS CPU; NULL: the topology's slots */
	size_t ncpumap;
	const char *cpumap_from;  /* "__PSI_CPUMAP" or "--psi-cpumap", for errors */
	bool overbook;            /* reuse slots in rounds when they run out */
	bool loop_nodes_first;    /* one task per node in turn */
	bool pin, bindmem;
};

/* The node's CPU slots in ParaStation order: the first hardware thread of
 * every core (topology order), then every second thread, ...  slots[i]
 * is an index into t->pus; *n = t->npus.  malloc'd. */
int psiplace_psi_slots(const struct psiplace_topo *t, unsigned **slots, size_t *n, psiplace_error_t *err);

/* Bindings of the node's local tasks 0..nlocal-1 (out[] from
 * psiplace_bindings_new).  -1 with the reason when the node cannot hold
 * them (not enough slots without overbooking, a cpumap entry outside the
 * step's CPUs or too short). */
int psiplace_psi_place_node(const struct psiplace_topo *t, const struct psiplace_psi_opts *o,
			    unsigned nlocal, struct psiplace_binding *out, psiplace_error_t *err);

/* Which node runs each task when psiplace lays out a step itself (the
 * `psiplace map` dry run; under Slurm the step layout comes from Slurm):
 * slots[i] CPU slots on node i; node_of[task] filled.  Without
 * loop-nodes-first a node is filled before the next; with it consecutive
 * tasks go to consecutive nodes with room.  When the slots run out:
 * with overbook the tasks spread evenly over all nodes in proportion to
 * their slots (loop: round robin), else an error. */
int psiplace_psi_layout(const unsigned *slots, unsigned nnodes, const struct psiplace_psi_opts *o,
			unsigned ntasks, unsigned *node_of, psiplace_error_t *err);

/* A whole step on nnodes nodes (topo[i]: node i's topology; nodes may
 * differ) — the `psiplace map` dry run: node_of[0..ntasks-1] and
 * b[0..ntasks-1] filled; the k-th task of a node is its local task k.
 * tasks_per_node NULL: ParaStation's own layout (psiplace_psi_layout);
 * else those counts, in node order (block), or one task per node in turn
 * with loop-nodes-first (cyclic) — as Slurm lays out a step. */
int psiplace_psi_map(const struct psiplace_topo *const *topo, unsigned nnodes, unsigned ntasks,
		     const unsigned *tasks_per_node, const struct psiplace_psi_opts *o,
		     unsigned *node_of, struct psiplace_binding *b, psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
