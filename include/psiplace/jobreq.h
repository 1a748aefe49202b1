/* psiplace — the per-job allocation request that travels from the SPANK
 * plugin (srun/sbatch/salloc) to select/psiplace_cons_tres through
 * spank_job_control_setenv().  In slurmctld it arrives in the job's
 * spank_job_env as NAME=value strings: untrusted, parsed again with
 * bounds. */
#ifndef PSIPLACE_JOBREQ_H
#define PSIPLACE_JOBREQ_H

#include <stddef.h>
#include <stdint.h>

#include "psiplace/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variable names (without the SPANK_ prefix Slurm adds for prolog/epilog). */
#define PSIPLACE_ENV_ALLOC_POLICY "PSIPLACE_ALLOC_POLICY"

/* Bounds for the untrusted job environment. */
#define PSIPLACE_JOBENV_MAX_ENTRIES 4096
#define PSIPLACE_JOBENV_MAX_VALUE 4096

struct psiplace_jobreq {
	enum psiplace_policy policy; /* PSIPLACE_POLICY_NONE: not requested */
};

void psiplace_jobreq_init(struct psiplace_jobreq *r);

/* Parse a job's spank environment (env[0..n-1], entries may be NULL).
 * Returns 0 with r filled (fields not present stay at their defaults), or
 * -1 when something psiplace owns is malformed: r is then reset to the
 * defaults and err says what was wrong. */
int psiplace_jobreq_from_env(const char *const *env, size_t n,
			     struct psiplace_jobreq *r, char *err,
			     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
