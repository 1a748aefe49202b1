/* psiplace — LAMA at step launch: what the SPANK plugin does on each node
 * (in a step, each node places its own tasks), and what it
 * sets at submission.  Pure: no Slurm headers; the plugin passes the LAMA
 * options of the gathered request (psiplace/request_launch.h), the node's
 * topology and the step as Slurm laid it out. */
#ifndef PSIPLACE_LAMA_LAUNCH_H
#define PSIPLACE_LAMA_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "psiplace/binding.h"
#include "psiplace/hostlist.h"
#include "psiplace/lama.h"
#include "psiplace/readfile.h"
#include "psiplace/step_layout.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which of Slurm's distributions the step's layout is, as far as this
 * node sees it: the node's global task ids (any order) compared with
 * block and cyclic for the step's per-node counts.  Bit 1 << BLOCK and/or
 * bit 1 << CYCLIC (a node can match both, e.g. one task on node 0); 0 =
 * neither (arbitrary, plane, a hostfile).  -1 when the step's counts do
 * not add up or out of memory. */
int psiplace_lama_step_dists(const struct psiplace_step *s);

/* Does the layout Slurm produced give this node the tasks LAMA's node
 * order gives it?  Block or cyclic layouts are checked with
 * psiplace_lama_verify_local() (exact on nodes of any shape); any other
 * layout against s->lama_layout when psiplace asked Slurm for it at
 * submission (computed there from every node's topology), else against
 * LAMA's order for nodes shaped like this one.  A one-node
 * step always matches.  0 yes; -1 with one line giving the reason and
 * both layouts (Slurm's and LAMA's, nodes of tasks 0..). */
int psiplace_lama_check_step(const struct psiplace_lama_opts *o, const struct psiplace_topo *t,
			     const struct psiplace_step *s, psiplace_error_t *err);

/* The node's part of the step under the LAMA options o (finished): the
 * layout checked, then out[i] (from psiplace_bindings_new, s->nlocal
 * entries) the CPU and NUMA sets of local task i.  pin false
 * (--psi-no-pinproc) empties both sets, bindmem false (--psi-no-bindmem)
 * the NUMA sets.  summary
 * (may be NULL) receives one line for --psi-verbose: the effective map,
 * bind, MPPR, order and the layout seen. */
int psiplace_lama_place_node(const struct psiplace_lama_opts *o, bool pin, bool bindmem,
			     const struct psiplace_topo *t, const struct psiplace_step *s,
			     struct psiplace_binding *out, char *summary, size_t sumlen,
			     psiplace_error_t *err);

/* Submission inside a known allocation (srun in a job): LAMA's own layout
 * of ntasks tasks over the allocation's nodes (topo[i]; cpus[i] CPUs of
 * node i allocated).  0 with *fits: false when LAMA puts more tasks on a
 * node than it has CPUs there (Slurm would refuse that layout), else true
 * with *dist, and for ARBITRARY node_of_rank (ntasks long) receives each
 * rank's node.  -1 with err. */
int psiplace_lama_alloc_layout(const struct psiplace_lama_opts *o, unsigned nnodes,
			       const struct psiplace_topo *const *topo, const unsigned *cpus,
			       size_t ntasks, bool *fits, enum psiplace_lama_dist *dist,
			       unsigned *node_of_rank, psiplace_error_t *err);

/* A layout for the step (PSIPLACE_LAMA_LAYOUT): each rank's node as its
 * position among the nodes that get tasks (the step's node list), in the
 * syntax of SLURM_STEP_TASKS_PER_NODE: "0(x4),1(x6),0(x2)".  malloc'd;
 * NULL when out of memory or longer than PSIPLACE_STEP_MAX_NODES ranks. */
char *psiplace_lama_layout_format(const unsigned *node_of_rank, size_t n, unsigned nnodes);

/* What srun inside a job asks Slurm for when LAMA's node order over the
 * allocation is neither block nor cyclic. */
struct psiplace_lama_ask {
	size_t ntasks;
	char **host;        /* [ntasks]: node of each rank (SLURM_HOSTFILE lines), into hosts */
	char *layout;       /* PSIPLACE_LAMA_LAYOUT for the steps' check */
	struct psiplace_hostlist hosts; /* the allocation's nodes */
};

/* Read the allocation (get: SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE;
 * ntasks: the command line's -n, SLURM_NTASKS when <= 0; nnodes: the
 * command line's -N, which must be the whole allocation, <= 0 when not
 * given) and every node's topology from topology_file (TopologyFile: %n
 * per node), and compute the layout of the LAMA options o over it.  0
 * with *ask true and *a filled when that layout is arbitrary and fits the
 * allocated CPUs; 0 with *ask false and *a empty when there is nothing to
 * ask (a value or a topology missing, block or cyclic, LAMA fails: the
 * step reports that); -1 with err only when out of memory.  Free with
 * psiplace_lama_ask_free. */
int psiplace_lama_ask_load(const struct psiplace_lama_opts *o, long ntasks, long nnodes,
			   const char *topology_file, psiplace_getenv_fn get, void *arg,
			   struct psiplace_lama_ask *a, bool *ask, psiplace_error_t *err);
void psiplace_lama_ask_free(struct psiplace_lama_ask *a);

#ifdef __cplusplus
}
#endif
#endif
