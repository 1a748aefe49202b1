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

int psiplace_jobreq_set_policy(struct psiplace_jobreq *r, const char *value, const char *what,
			       char *err, size_t errlen)
{
	if (r->policy != PSIPLACE_POLICY_NONE)
		return psiplace_seterr(err, errlen, "%s: given twice", what);
	return psiplace_policy_parse(value, what, &r->policy, err, errlen);
}

int psiplace_jobreq_set_priority(struct psiplace_jobreq *r, const char *value, const char *what,
				 char *err, size_t errlen)
{
	struct psiplace_priorityf *f;

	if (r->priority[0])
		return psiplace_seterr(err, errlen, "%s: given twice", what);
	if (psiplace_priorityf_compile(value, what, &f, err, errlen) < 0)
		return -1;
	psiplace_priorityf_free(f);
	/* compile bounds the length to PSIPLACE_PRIORITYF_MAXLEN */
	strcpy(r->priority, value);
	return 0;
}

int psiplace_jobreq_finish(struct psiplace_jobreq *r, const char *policy_what,
			   const char *priority_what, char *err, size_t errlen)
{
	if (!r->priority[0])
		return 0;
	if (r->policy == PSIPLACE_POLICY_NONE) {
		r->policy = PSIPLACE_POLICY_PRIORITY;
		return 0;
	}
	if (r->policy != PSIPLACE_POLICY_PRIORITY)
		return psiplace_seterr(err, errlen,
				       "%s implies PRIORITY, but %s is %s; give only one of them",
				       priority_what, policy_what, psiplace_policy_name(r->policy));
	return 0;
}

static int too_long(const char *v, const char *name, char *err, size_t errlen)
{
	if (strnlen(v, PSIPLACE_JOBENV_MAX_VALUE + 1) > PSIPLACE_JOBENV_MAX_VALUE)
		return psiplace_seterr(err, errlen, "%s longer than %d bytes", name,
				       PSIPLACE_JOBENV_MAX_VALUE);
	return 0;
}

static int parse_entry(struct psiplace_jobreq *r, const char *entry, char *err, size_t errlen)
{
	const char *v;

	if ((v = match(entry, PSIPLACE_ENV_ALLOC_POLICY))) {
		if (too_long(v, PSIPLACE_ENV_ALLOC_POLICY, err, errlen) < 0)
			return -1;
		return psiplace_jobreq_set_policy(r, v, PSIPLACE_ENV_ALLOC_POLICY, err, errlen);
	}
	if ((v = match(entry, PSIPLACE_ENV_ALLOC_PRIORITY))) {
		if (too_long(v, PSIPLACE_ENV_ALLOC_PRIORITY, err, errlen) < 0)
			return -1;
		return psiplace_jobreq_set_priority(r, v, PSIPLACE_ENV_ALLOC_PRIORITY, err, errlen);
	}
	return 0;
}

int psiplace_jobreq_from_env(const char *const *env, size_t n,
			     struct psiplace_jobreq *r, char *err, size_t errlen)
{
	size_t i;

	psiplace_jobreq_init(r);
	if (!env)
		return 0;
	if (n > PSIPLACE_JOBENV_MAX_ENTRIES)
		return psiplace_seterr(err, errlen, "job environment has %zu entries (at most %d)",
				       n, PSIPLACE_JOBENV_MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		if (env[i] && parse_entry(r, env[i], err, errlen) < 0) {
			psiplace_jobreq_init(r);
			return -1;
		}
	}
	if (psiplace_jobreq_finish(r, PSIPLACE_ENV_ALLOC_POLICY, PSIPLACE_ENV_ALLOC_PRIORITY, err,
				   errlen) < 0) {
		psiplace_jobreq_init(r);
		return -1;
	}
	return 0;
}
