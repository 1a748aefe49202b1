/* Ranking over the columnar node table: for the policies whose order is
 * (weight tier, one value descending, index), a blocked pass computes the
 * value and eligibility column by column, and only the best k are
 * selected and sorted.  Other policies, and tables whose columns do not
 * fit the options, go the per-node way (engine.c): same order either way. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#define BLOCK 512

static bool has(const struct psiplace_nodecols *c, int col)
{
	return c->filled & (1u << col);
}

/* The function PRIORITY uses on every node (NULL: the PRIORITY field);
 * false when it differs between nodes or its columns were not built. */
static bool uniform_function(const struct psiplace_rank_opts *o,
			     const struct psiplace_nodecols *c,
			     const struct psiplace_priorityf **f)
{
	uint32_t need;

	if (o->job && o->job->priorityf)
		*f = o->job->priorityf;
	else if (c->mixed_functions)
		return false;
	else
		*f = o->cluster_priorityf;
	need = *f ? psiplace_priorityf_columns(*f) : 1u << PSIPLACE_COL_PRIORITY;
	return (c->filled & need) == need;
}

static bool fast(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		 const struct psiplace_priorityf **f)
{
	*f = NULL;
	switch (o->policy) {
	case PSIPLACE_POLICY_NONE:
	case PSIPLACE_POLICY_FIRSTAVAILABLE:
		return true;
	case PSIPLACE_POLICY_FASTEST:
		return has(c, PSIPLACE_COL_SPEED);
	case PSIPLACE_POLICY_CPULOAD:
		return !(o->job && o->job->start > 0) && has(c, PSIPLACE_COL_CPUFREE);
	case PSIPLACE_POLICY_PRIORITY:
		return uniform_function(o, c, f);
	default:
		return false;
	}
}

static uint64_t desc(double d)
{
	return psiplace_dkey(d != d ? d : -d);
}

static void values(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		   const struct psiplace_priorityf *f, size_t lo, size_t hi, double *s)
{
	const double *v;

	switch (o->policy) {
	case PSIPLACE_POLICY_FASTEST:
		v = c->col[PSIPLACE_COL_SPEED];
		break;
	case PSIPLACE_POLICY_CPULOAD:
		v = c->col[PSIPLACE_COL_CPUFREE];
		break;
	case PSIPLACE_POLICY_PRIORITY:
		if (f) {
			psiplace_priorityf_eval_block(f, c, lo, hi, o->job ? o->job->seed : 0, s);
			return;
		}
		v = c->col[PSIPLACE_COL_PRIORITY];
		break;
	default:
		memset(s, 0, (hi - lo) * sizeof(*s));
		return;
	}
	memcpy(s, v + lo, (hi - lo) * sizeof(*s));
}

/* k1[i] = the policy's key, elig[i] = a candidate; returns the candidates. */
static size_t key_pass(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		       const struct psiplace_priorityf *f, uint64_t *k1, unsigned char *elig)
{
	const struct psiplace_job *job = o->job;
	bool keyed = o->policy != PSIPLACE_POLICY_NONE &&
		     o->policy != PSIPLACE_POLICY_FIRSTAVAILABLE;
	double s[BLOCK];
	size_t lo, i, m = 0;

	for (lo = 0; lo < c->n; lo += BLOCK) {
		size_t hi = lo + BLOCK < c->n ? lo + BLOCK : c->n;

		if (keyed)
			values(o, c, f, lo, hi, s);
		for (i = lo; i < hi; i++) {
			k1[i] = keyed ? desc(s[i - lo]) : 0;
			elig[i] = !job || (c->power[i] && c->free_cpus[i] &&
					   c->free_cpus[i] >= job->cpus &&
					   c->free_mem[i] >= job->mem);
			m += elig[i];
		}
	}
	return m;
}

/* The fast path: 1 done (*m candidates, pos[0..min(k, m)-1] the best in
 * order), 0 not applicable, -1 out of memory. */
static int best(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c, size_t k,
		uint32_t *pos, unsigned char **eligp, size_t *m)
{
	const struct psiplace_priorityf *f;
	size_t sz = c->n ? c->n : 1;
	unsigned char *elig;
	uint64_t *k1;
	int rc;

	if (!fast(o, c, &f))
		return 0;
	k1 = malloc(sz * sizeof(*k1));
	elig = malloc(sz);
	if (!k1 || !elig) {
		free(k1);
		free(elig);
		return -1;
	}
	*m = key_pass(o, c, f, k1, elig);
	rc = psiplace_best_k(o->policy_overrides_weight ? NULL : c->weight, k1, c->index, elig,
			     c->n, *m, k < *m ? k : *m, pos);
	free(k1);
	if (rc < 0 || !eligp)
		free(elig);
	else
		*eligp = elig;
	return rc < 0 ? -1 : 1;
}

static int oom(psiplace_error_t *err, size_t n)
{
	return psiplace_seterr(err, "out of memory ranking %zu nodes", n);
}

int psiplace_choose_cols(const struct psiplace_rank_opts *opts, const struct psiplace_nodecols *c,
			 size_t k, uint32_t *out, psiplace_error_t *err)
{
	size_t m;
	int rc;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	rc = best(opts, c, k, out, NULL, &m);
	if (rc == 0)
		return psiplace_choose_nodes(opts, c->nodes, c->n, k, out, err);
	if (rc < 0)
		return oom(err, c->n);
	if (m < k)
		return psiplace_seterr(err,
				       "%zu node%s wanted, only %zu of %zu eligible (powered, with a "
				       "free CPU and the job's cpus and mem free)",
				       k, k == 1 ? "" : "s", m, c->n);
	return (int)k;
}

/* After the best: the other candidates by position, then the rest by
 * (index, position). */
static int append_others(const struct psiplace_nodecols *c, const unsigned char *elig,
			 size_t have, uint32_t *order)
{
	struct psiplace_rated *r;
	unsigned char *taken = calloc(c->n + 1, 1);
	size_t i, nr = 0;

	if (!taken)
		return -1;
	for (i = 0; i < have; i++)
		taken[order[i]] = 1;
	for (i = 0; i < c->n; i++)
		if (elig[i] && !taken[i])
			order[have++] = (uint32_t)i;
	if (!(r = malloc((c->n - have + 1) * sizeof(*r)))) {
		free(taken);
		return -1;
	}
	for (i = 0; i < c->n; i++) {
		if (elig[i])
			continue;
		memset(&r[nr], 0, sizeof(r[nr]));
		r[nr].idx = c->index[i];
		r[nr++].pos = (uint32_t)i;
	}
	psiplace_rated_sort(r, nr);
	for (i = 0; i < nr; i++)
		order[have++] = r[i].pos;
	free(r);
	free(taken);
	return 0;
}

int psiplace_rank_partial_cols(const struct psiplace_rank_opts *opts,
			       const struct psiplace_nodecols *c, size_t k, uint32_t *order,
			       psiplace_error_t *err)
{
	unsigned char *elig = NULL;
	size_t m;
	int rc;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	rc = best(opts, c, k, order, &elig, &m);
	if (rc == 0)
		return psiplace_rank_partial_nodes(opts, c->nodes, c->n, k, order, err);
	if (rc < 0)
		return oom(err, c->n);
	rc = append_others(c, elig, k < m ? k : m, order);
	free(elig);
	return rc < 0 ? oom(err, c->n) : 0;
}
