/* select/psiplace_cons_tres: the merged job's cores after select_p_job_expand.
 *
 * cons_tres's merge (cons_common.c's select_p_job_expand in 22.05,
 * select_cons_tres.c's from 23.11) copies each node's cores with
 * job_resources_bits_copy() (src/common/job_resources.c), which computes the
 * node's core offsets in both structures and then ignores them:
 * bit_or(new->core_bitmap, from->core_bitmap) ORs the whole source bitmap in
 * at bit 0 (22.05 to 26.05 alike).  The merged job's core bitmap then holds
 * the cores of its first nodes only, and its last nodes have none: a step
 * there gets an empty CPU mask (task_g_set_affinity: Invalid argument), and
 * cons_tres counts those cores free.  The wrapper saves both jobs' per-node
 * cores before the merge and rebuilds the bitmap after it
 * (doc/malleability.md, "22.05's merge and the cores of the grown job"). */
#ifndef PSIPLACE_SELECT_EXPAND_CORES_H
#define PSIPLACE_SELECT_EXPAND_CORES_H

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"

/* One job's allocation as it was before the merge. */
struct psiplace_sel_expand_side {
	bitstr_t *res_nodes; /* job_resrcs->node_bitmap */
	bitstr_t *job_nodes; /* the job record's node_bitmap */
	bitstr_t *cores;     /* job_resrcs->core_bitmap */
	uint32_t nhosts, nreps;
	uint16_t *sockets, *cores_per_socket;
	uint32_t *reps;
};

/* Saves job's allocation; 0, or -1 (nothing saved) when it has none. */
int psiplace_sel_expand_save(const job_record_t *job, struct psiplace_sel_expand_side *s);
void psiplace_sel_expand_free(struct psiplace_sel_expand_side *s);

/* The core bitmap the merged allocation r (to's job_resrcs after the merge)
 * should have: every node's cores are those the two jobs had there.  NULL
 * when a node's core count differs between the layouts (nothing to
 * repair safely); otherwise a new bitmap the caller frees. */
bitstr_t *psiplace_sel_expand_cores(const job_resources_t *r,
				    const struct psiplace_sel_expand_side *from,
				    const struct psiplace_sel_expand_side *to);

#endif
