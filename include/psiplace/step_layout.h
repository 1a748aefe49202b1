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

void psiplace_step_free(struct psiplace_step *s);

#ifdef __cplusplus
}
#endif
#endif
