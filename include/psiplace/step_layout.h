/* psiplace — a step as one node sees it at launch, for the placement
 * backends: which node of the step this is and which of the step's tasks
 * it runs.  The SPANK plugin fills it from Slurm (SLURM_STEP_NODELIST,
 * SLURM_STEP_TASKS_PER_NODE, the tasks' global ids); backends that need
 * the whole step (LAMA) compute it from here without communication. */
#ifndef PSIPLACE_STEP_LAYOUT_H
#define PSIPLACE_STEP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_STEP_MAX_NODES 65536

struct psiplace_step {
	const char *node_name;       /* this node (for messages) */
	uint32_t node;               /* this node's position in the step's node list */
	uint32_t nnodes;
	uint32_t *tasks_per_node;    /* [nnodes], malloc'd */
	uint32_t ntasks;             /* whole step */
	uint32_t nlocal;
	uint32_t *gtids;             /* [nlocal]: global id of local task i, malloc'd */
	/* The node of every rank as psiplace asked Slurm for it at submission
	 * (PSIPLACE_LAMA_LAYOUT, "0(x4),1(x6),0(x2)"); NULL when it did not. */
	const char *lama_layout;
};

/* A per-node or per-rank count list in Slurm's N(xK) form
 * (SLURM_STEP_TASKS_PER_NODE "2(x3),1", SLURM_JOB_CPUS_PER_NODE,
 * PSIPLACE_LAMA_LAYOUT) -> counts[0..*n-1] (malloc'd): the one N(xK)
 * parser, psiplace_intvec_parse(), with `what` naming the input. */
int psiplace_tasks_per_node_parse(const char *s, const char *what, uint32_t **counts, uint32_t *n,
				  psiplace_error_t *err);

/* SLURM_STEP_TASKS_PER_NODE as slurmstepd reads it from the step's
 * environment, which srun (not setuid) wrote and the user can change:
 * parsed, then checked against Slurm's own counts of the step (S_JOB_NNODES,
 * S_JOB_TOTAL_TASK_COUNT, this node's S_JOB_NODEID and
 * S_JOB_LOCAL_TASK_COUNT).  Accepted only with one count per node, counts
 * adding up (in 64 bits: 2^20 entries of 10^6 overflow 32) to ntasks, and
 * nlocal on this node; every user of the vector may then rely on that.
 * counts[0..nnodes-1] malloc'd; -1 with one line naming what, the value,
 * what it gives, Slurm's counts and what is accepted. */
int psiplace_step_tasks_per_node(const char *value, const char *what, uint32_t nnodes,
				 uint32_t ntasks, uint32_t node, uint32_t nlocal, uint32_t **counts,
				 psiplace_error_t *err);

/* The sum of n counts, in 64 bits (it cannot wrap for n < 2^32). */
uint64_t psiplace_counts_sum(const uint32_t *counts, uint32_t n);

void psiplace_step_free(struct psiplace_step *s);

#ifdef __cplusplus
}
#endif
#endif
