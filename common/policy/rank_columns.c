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

static void copy_column(const struct psiplace_nodecols *c, int col, size_t lo, size_t w,
			double *s)
{
	size_t i;

	if (c->icol[col])
		for (i = 0; i < w; i++)
			s[i] = (double)c->icol[col][lo + i];
	else if (c->fcol[col])
		for (i = 0; i < w; i++)
			s[i] = (double)c->fcol[col][lo + i];
	else
		memcpy(s, c->col[col] + lo, w * sizeof(*s));
}

static void values(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		   const struct psiplace_priorityf *f, size_t lo, size_t hi, double *s)
{
	switch (o->policy) {
	case PSIPLACE_POLICY_FASTEST:
		copy_column(c, PSIPLACE_COL_SPEED, lo, hi - lo, s);
		break;
	case PSIPLACE_POLICY_CPULOAD:
		copy_column(c, PSIPLACE_COL_CPUFREE, lo, hi - lo, s);
		break;
	case PSIPLACE_POLICY_PRIORITY:
		if (f)
			psiplace_priorityf_eval_block(f, c, lo, hi, o->job ? o->job->seed : 0, s);
		else
			copy_column(c, PSIPLACE_COL_PRIORITY, lo, hi - lo, s);
		break;
	default:
		memset(s, 0, (hi - lo) * sizeof(*s));
		break;
	}
}

/* Rows clo..clo+w-1 of c: k1[i] = the policy's key, elig[i] = a
 * candidate (i < w); returns the candidates. */
static size_t key_block(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
			const struct psiplace_priorityf *f, size_t clo, size_t w, uint64_t *k1,
			unsigned char *elig)
{
	const struct psiplace_job *job = o->job;
	bool keyed = o->policy != PSIPLACE_POLICY_NONE &&
		     o->policy != PSIPLACE_POLICY_FIRSTAVAILABLE;
	double s[BLOCK];
	size_t i, m = 0;

	if (keyed)
		values(o, c, f, clo, clo + w, s);
	for (i = 0; i < w; i++) {
		size_t r = clo + i;

		k1[i] = keyed ? desc(s[i]) : 0;
		elig[i] = !job || (c->power[r] && c->free_cpus[r] && c->free_cpus[r] >= job->cpus &&
				   c->free_mem[r] >= job->mem);
		m += elig[i];
	}
	return m;
}

/* The keys of every node, and where best() finds them. */
struct keys {
	size_t n, m;
	uint64_t *k1, *weight_copy;
	uint32_t *index_copy;
	unsigned char *elig;
	const uint64_t *k0;
	const uint32_t *idx;
};

static void keys_free(struct keys *y)
{
	free(y->k1);
	free(y->weight_copy);
	free(y->index_copy);
	free(y->elig);
}

static int keys_alloc(struct keys *y, size_t n, bool copies)
{
	size_t sz = n ? n : 1;

	y->n = n;
	y->k1 = malloc(sz * sizeof(*y->k1));
	y->elig = malloc(sz);
	if (copies) {
		y->weight_copy = malloc(sz * sizeof(*y->weight_copy));
		y->index_copy = malloc(sz * sizeof(*y->index_copy));
	}
	return y->k1 && y->elig && (!copies || (y->weight_copy && y->index_copy)) ? 0 : -1;
}

/* Keys from the columns: 1 done, 0 the policy needs the records, -1 oom. */
static int keys_cols(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		     struct keys *y)
{
	const struct psiplace_priorityf *f;
	size_t lo;

	if (!fast(o, c, &f))
		return 0;
	if (keys_alloc(y, c->n, false) < 0)
		return -1;
	for (lo = 0; lo < c->n; lo += BLOCK)
		y->m += key_block(o, c, f, lo, lo + BLOCK < c->n ? BLOCK : c->n - lo, y->k1 + lo,
				  y->elig + lo);
	y->k0 = c->weight;
	y->idx = c->index;
	return 1;
}

/* Keys straight from the records, a block of columns at a time (nothing
 * the size of the table but the keys is written). */
static int keys_records(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
			size_t n, struct keys *y)
{
	struct psiplace_nodecols b = { 0 };
	const struct psiplace_priorityf *f;
	size_t lo;
	int rc = -1;

	if (psiplace_cols_alloc(&b, psiplace_cols_wanted(o, nodes, n, &b), BLOCK) < 0)
		goto out;
	rc = 0;
	if (!fast(o, &b, &f))
		goto out;
	rc = -1;
	if (keys_alloc(y, n, true) < 0)
		goto out;
	for (lo = 0; lo < n; lo += BLOCK) {
		size_t w = lo + BLOCK < n ? BLOCK : n - lo;

		psiplace_cols_fill(&b, nodes + lo, w, 0);
		b.nodes = nodes + lo;
		b.n = w;
		y->m += key_block(o, &b, f, 0, w, y->k1 + lo, y->elig + lo);
		memcpy(y->weight_copy + lo, b.weight, w * sizeof(*b.weight));
		memcpy(y->index_copy + lo, b.index, w * sizeof(*b.index));
	}
	y->k0 = y->weight_copy;
	y->idx = y->index_copy;
	rc = 1;
out:
	psiplace_cols_release(&b);
	return rc;
}

static int best(const struct psiplace_rank_opts *o, struct keys *y, size_t k, uint32_t *pos)
{
	return psiplace_best_k(o->policy_overrides_weight ? NULL : y->k0, y->k1, y->idx, y->elig,
			       y->n, y->m, k < y->m ? k : y->m, pos);
}

static int oom(psiplace_error_t *err, size_t n)
{
	return psiplace_seterr(err, "out of memory ranking %zu nodes", n);
}

static int choose(const struct psiplace_rank_opts *opts, struct keys *y, int got, size_t k,
		  uint32_t *out, psiplace_error_t *err)
{
	int rc;

	if (got < 0 || best(opts, y, k, out) < 0)
		rc = oom(err, y->n);
	else if (y->m < k)
		rc = psiplace_seterr(err,
				     "%zu node%s wanted, only %zu of %zu eligible (powered, with a "
				     "free CPU and the job's cpus and mem free)",
				     k, k == 1 ? "" : "s", y->m, y->n);
	else
		rc = (int)k;
	keys_free(y);
	return rc;
}

int psiplace_choose_cols(const struct psiplace_rank_opts *opts, const struct psiplace_nodecols *c,
			 size_t k, uint32_t *out, psiplace_error_t *err)
{
	struct keys y = { 0 };
	int got;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	if (!(got = keys_cols(opts, c, &y)))
		return psiplace_choose_nodes(opts, c->nodes, c->n, k, out, err);
	return choose(opts, &y, got, k, out, err);
}

int psiplace_choose_records(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n, size_t k, uint32_t *out,
			    psiplace_error_t *err)
{
	struct keys y = { 0 };
	int got;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	if (!(got = keys_records(opts, nodes, n, &y)))
		return psiplace_choose_nodes(opts, nodes, n, k, out, err);
	return choose(opts, &y, got, k, out, err);
}

/* After the best: the other candidates by position, then the rest by
 * (index, position). */
static int append_others(const struct keys *y, size_t have, uint32_t *order)
{
	struct psiplace_rated *r;
	unsigned char *taken = calloc(y->n + 1, 1);
	size_t i, nr = 0;

	if (!taken)
		return -1;
	for (i = 0; i < have; i++)
		taken[order[i]] = 1;
	for (i = 0; i < y->n; i++)
		if (y->elig[i] && !taken[i])
			order[have++] = (uint32_t)i;
	if (!(r = malloc((y->n - have + 1) * sizeof(*r)))) {
		free(taken);
		return -1;
	}
	for (i = 0; i < y->n; i++) {
		if (y->elig[i])
			continue;
		memset(&r[nr], 0, sizeof(r[nr]));
		r[nr].idx = y->idx[i];
		r[nr++].pos = (uint32_t)i;
	}
	psiplace_rated_sort(r, nr);
	for (i = 0; i < nr; i++)
		order[have++] = r[i].pos;
	free(r);
	free(taken);
	return 0;
}

static int partial(const struct psiplace_rank_opts *opts, struct keys *y, int got, size_t k,
		   uint32_t *order, psiplace_error_t *err)
{
	int rc = 0;

	if (got < 0 || best(opts, y, k, order) < 0 ||
	    append_others(y, k < y->m ? k : y->m, order) < 0)
		rc = oom(err, y->n);
	keys_free(y);
	return rc;
}

int psiplace_rank_partial_cols(const struct psiplace_rank_opts *opts,
			       const struct psiplace_nodecols *c, size_t k, uint32_t *order,
			       psiplace_error_t *err)
{
	struct keys y = { 0 };
	int got;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	if (!(got = keys_cols(opts, c, &y)))
		return psiplace_rank_partial_nodes(opts, c->nodes, c->n, k, order, err);
	return partial(opts, &y, got, k, order, err);
}

int psiplace_rank_partial_records(const struct psiplace_rank_opts *opts,
				  const struct psiplace_node *nodes, size_t n, size_t k,
				  uint32_t *order, psiplace_error_t *err)
{
	struct keys y = { 0 };
	int got;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	if (!(got = keys_records(opts, nodes, n, &y)))
		return psiplace_rank_partial_nodes(opts, nodes, n, k, order, err);
	return partial(opts, &y, got, k, order, err);
}
