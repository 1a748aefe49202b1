/* psiplace SPANK plugin: PMIx process sets published from slurmstepd
 * (spank_psets.c). */
#ifndef PSIPLACE_SPANK_PSETS_H
#define PSIPLACE_SPANK_PSETS_H

#include <stdint.h>

#include <slurm/spank.h>

#include "psiplace/error.h"
#include "psiplace/psets.h"
#include "psiplace/user_request.h"

/* The step as the sets need it. */
struct spank_psets_layout {
	uint32_t ntasks, nnodes, nlocal;
	char **node_names;        /* [nnodes] */
	uint32_t *node_of;        /* [ntasks]: node index of each rank; NULL: unknown */
	const uint32_t *gtids;    /* [nlocal]: ranks of the local tasks */
	const char *node;         /* this node's name */
	int *obj[PSIPLACE_PSET_NLEVELS]; /* [nlocal] object index per level (psets.h); NULL: none */
};

/* Compute and publish the step's sets when r asks for them and the step
 * runs a PMIx server; a note for --psi-verbose in ctx.pset_note. */
int spank_psets_publish(spank_t sp, char **env, const struct psiplace_user_request *r,
			const struct spank_psets_layout *l, psiplace_error_t *err);

/* What was published (for --psi-verbose). */
const struct psiplace_psets *spank_psets(void);

/* Restore the server module and free the sets (slurm_spank_exit). */
void spank_psets_exit(void);

#endif
