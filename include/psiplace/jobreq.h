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
#include "psiplace/priorityf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variable names (without the SPANK_ prefix Slurm adds for prolog/epilog). */
#define PSIPLACE_ENV_ALLOC_POLICY "PSIPLACE_ALLOC_POLICY"
#define PSIPLACE_ENV_ALLOC_PRIORITY "PSIPLACE_ALLOC_PRIORITY"

/* Bounds for the untrusted job environment. */
#define PSIPLACE_JOBENV_MAX_ENTRIES 4096
#define PSIPLACE_JOBENV_MAX_VALUE 4096

struct psiplace_jobreq {
	enum psiplace_policy policy; /* PSIPLACE_POLICY_NONE: not requested */
	/* The job's PRIORITYF as given (validated; compile it where it is
	 * used); empty: none.  A function implies PRIORITY. */
	char priority[PSIPLACE_PRIORITYF_MAXLEN + 1];
};

void psiplace_jobreq_init(struct psiplace_jobreq *r);

/* Set the policy or the function from one option or variable (`what`
 * names it for the error line).  Each may be called once per request. */
int psiplace_jobreq_set_policy(struct psiplace_jobreq *r, const char *value,
			       const char *what, char *err, size_t errlen);
int psiplace_jobreq_set_priority(struct psiplace_jobreq *r, const char *value,
				 const char *what, char *err, size_t errlen);

/* After the setters: a function implies PRIORITY; with another explicit
 * policy it is an error naming both. */
int psiplace_jobreq_finish(struct psiplace_jobreq *r, const char *policy_what,
			   const char *priority_what, char *err, size_t errlen);

/* Parse a job's spank environment (env[0..n-1], entries may be NULL):
 * PSIPLACE_ALLOC_POLICY and PSIPLACE_ALLOC_PRIORITY, each at most once.
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
