/* The job's allocation request as slurmctld receives it: hostile input. */
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/jobreq.h"

void psiplace_jobreq_init(struct psiplace_jobreq *r)
{
	memset(r, 0, sizeof(*r));
	r->policy = PSIPLACE_POLICY_NONE;
}

/* The value of NAME=value when entry names `name`, else NULL. */
static const char *match(const char *entry, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(entry, name, n) || entry[n] != '=')
		return NULL;
	return entry + n + 1;
}

int psiplace_jobreq_from_env(const char *const *env, size_t n,
			     struct psiplace_jobreq *r, char *err, size_t errlen)
{
	size_t i;
	const char *v;

	psiplace_jobreq_init(r);
	if (!env)
		return 0;
	if (n > PSIPLACE_JOBENV_MAX_ENTRIES)
		return psiplace_seterr(err, errlen, "job environment has %zu entries (at most %d)",
				       n, PSIPLACE_JOBENV_MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		if (!env[i])
			continue;
		if ((v = match(env[i], PSIPLACE_ENV_ALLOC_POLICY))) {
			if (strnlen(v, PSIPLACE_JOBENV_MAX_VALUE + 1) > PSIPLACE_JOBENV_MAX_VALUE) {
				psiplace_jobreq_init(r);
				return psiplace_seterr(err, errlen, "%s longer than %d bytes",
						       PSIPLACE_ENV_ALLOC_POLICY,
						       PSIPLACE_JOBENV_MAX_VALUE);
			}
			if (psiplace_policy_parse(v, PSIPLACE_ENV_ALLOC_POLICY, &r->policy,
						  err, errlen) < 0) {
				psiplace_jobreq_init(r);
				return -1;
			}
		}
	}
	return 0;
}
