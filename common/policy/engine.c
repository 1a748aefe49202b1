/* The node-ranking engine: one rating pass, one total-order comparison.
 *
 * Every eligible node gets integer keys (weight tier, up to three policy
 * keys, then the index tie-break), so ordering is lexicographic integer
 * comparison: a full sort for psiplace_rank(), a partial selection of the
 * best k for psiplace_choose().  Set policies (MAXBALANCE, CONTIGUOUS)
 * choose from the rated nodes in set_policies.c.  The entry points
 * psiplace_rank_partial() and psiplace_choose() sit above this file and
 * the columnar path (rank_dispatch.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

bool psiplace_policy_valid(enum psiplace_policy p)
{
	return p >= PSIPLACE_POLICY_NONE && p < PSIPLACE_POLICY_COUNT;
}

bool psiplace_node_eligible(const struct psiplace_node *n, const struct psiplace_job *job)
{
	uint32_t free_cpus = n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0;
	uint64_t free_mem = n->real_memory > n->alloc_memory ? n->real_memory - n->alloc_memory
							      : 0;

	if (!n->power || free_cpus == 0)
		return false;
	if (job && (free_cpus < job->cpus || free_mem < job->mem))
		return false;
	return true;
}

bool psiplace_node_eligible_opts(const struct psiplace_rank_opts *o, const struct psiplace_node *n)
{
	struct psiplace_node up;

	if (!o->ignore_power || n->power)
		return psiplace_node_eligible(n, o->job);
	up = *n;
	up.power = true;
	return psiplace_node_eligible(&up, o->job);
}

static uint64_t desc(double d)
{
	return psiplace_dkey(isnan(d) ? NAN : -d);
}

/* The PRIORITYF that applies to a node: job > node's own > cluster. */
static const struct psiplace_priorityf *node_function(const struct psiplace_rank_opts *o,
						      const struct psiplace_node *n)
{
	if (o->job && o->job->priorityf)
		return o->job->priorityf;
	if (n->priorityf)
		return n->priorityf;
	return o->cluster_priorityf;
}

double psiplace_priority_value(const struct psiplace_rank_opts *o, const struct psiplace_node *n)
{
	const struct psiplace_priorityf *f = node_function(o, n);

	return f ? psiplace_priorityf_eval(f, n, o->job ? o->job->seed : 0) : n->priority;
}

static bool future_start(const struct psiplace_rank_opts *o)
{
	return o->job && (o->job->future || o->job->start > 0);
}

/* LASTAVAILABLE's time fit: class 0 (the job ends before the next
 * reservation; key = the gap), 1 (no reservation), 2 (a reservation
 * starts before the job would end). */
static void time_fit(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		     uint64_t *cls, int64_t *gap)
{
	int64_t end;

	*cls = 0;
	*gap = 0;
	if (!o->job || o->job->duration <= 0)
		return;
	end = (o->job->start > 0 ? o->job->start : 0) + o->job->duration;
	if (n->next_resv < 0)
		*cls = 1;
	else if (n->next_resv >= end)
		*gap = n->next_resv - end;
	else {
		*cls = 2;
		*gap = n->next_resv - end;
	}
}

/* ---- The policies: how each rates a node (keys k[1..3] after the weight
 * tier k[0], tie-break idx) and prints its score, one function each, and
 * one descriptor per policy tying them to the fields they read. */

static int fmt_double(char *buf, size_t len, double v)
{
	if (v == 0.0)
		v = 0.0; /* no "-0" */
	return snprintf(buf, len, "%.10g", v);
}

/* FIRSTAVAILABLE, the set policies, NONE: index order. */
static void rate_index(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		       struct psiplace_rated *r)
{
	(void)o;
	(void)n;
	(void)r;
}

static int score_index(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		       char *buf, size_t len)
{
	(void)o;
	return snprintf(buf, len, "%u", n->index);
}

static void rate_last(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		      struct psiplace_rated *r)
{
	uint64_t cls;
	int64_t gap;

	time_fit(o, n, &cls, &gap);
	r->k[1] = cls;
	/* within a class: the smallest gap first; conflicts by index only */
	r->k[2] = cls == 0 ? (uint64_t)gap : 0;
	r->idx = ~n->index;
}

static int score_last(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		      char *buf, size_t len)
{
	uint64_t cls;
	int64_t gap;

	if (!o->job || o->job->duration <= 0)
		return snprintf(buf, len, "%u", n->index);
	time_fit(o, n, &cls, &gap);
	if (cls == 1)
		return snprintf(buf, len, "none");
	return snprintf(buf, len, "%lld", (long long)gap);
}

static void rate_minresource(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			     struct psiplace_rated *r)
{
	(void)o;
	r->k[1] = n->real_memory;
	r->k[2] = n->cpus;
	r->k[3] = n->tmp_disk;
}

static int score_minresource(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			     char *buf, size_t len)
{
	(void)o;
	return snprintf(buf, len, "%llu/%u/%llu", (unsigned long long)n->real_memory, n->cpus,
			(unsigned long long)n->tmp_disk);
}

/* CPULOAD: CPUs free of load and allocation; a future start ranks as
 * MINRESOURCE (today's load says nothing about then). */
static double cpus_unloaded(const struct psiplace_node *n)
{
	double busy = n->load1 > (double)n->alloc_cpus ? n->load1 : (double)n->alloc_cpus;

	return (double)n->cpus - busy;
}

static void rate_cpuload(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			 struct psiplace_rated *r)
{
	if (future_start(o))
		rate_minresource(o, n, r);
	else
		r->k[1] = desc(cpus_unloaded(n));
}

static int score_cpuload(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			 char *buf, size_t len)
{
	if (future_start(o))
		return score_minresource(o, n, buf, len);
	return fmt_double(buf, len, cpus_unloaded(n));
}

static void rate_fastest(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			 struct psiplace_rated *r)
{
	(void)o;
	r->k[1] = desc(n->speed);
}

/* FASTEST, and MAXBALANCE's input (it balances speeds). */
static int score_speed(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		       char *buf, size_t len)
{
	(void)o;
	return fmt_double(buf, len, n->speed);
}

static void rate_priority(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			  struct psiplace_rated *r)
{
	r->k[1] = desc(psiplace_priority_value(o, n));
}

static int score_priority(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			  char *buf, size_t len)
{
	return fmt_double(buf, len, psiplace_priority_value(o, n));
}

/* Everything the engine and its callers know about one policy. */
struct policy_desc {
	void (*rate)(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		     struct psiplace_rated *r);
	int (*score)(const struct psiplace_rank_opts *o, const struct psiplace_node *n, char *buf,
		     size_t len);
	unsigned fields; /* PSIPLACE_FIELDS_* rate() reads */
	bool set;        /* chooses a set (set_policies.c), not an order */
	bool columnar;   /* ordered from columns (rank_columns.c), except CPULOAD's future start */
	uint32_t columns; /* the value columns its key reads (PRIORITY: its function's) */
};

#define F_ALLOC PSIPLACE_FIELDS_ALLOC
static const struct policy_desc policies[PSIPLACE_POLICY_COUNT] = {
	[PSIPLACE_POLICY_NONE] = { .rate = rate_index, .score = score_index,
				   .fields = PSIPLACE_FIELDS_ALL },
	[PSIPLACE_POLICY_FIRSTAVAILABLE] = { .rate = rate_index, .score = score_index,
					     .fields = F_ALLOC },
	[PSIPLACE_POLICY_LASTAVAILABLE] = { .rate = rate_last, .score = score_last,
					    .fields = F_ALLOC },
	[PSIPLACE_POLICY_CPULOAD] = { .rate = rate_cpuload, .score = score_cpuload,
				      .fields = F_ALLOC | PSIPLACE_FIELDS_STATIC |
						PSIPLACE_FIELDS_LOAD,
				      .columnar = true, .columns = 1u << PSIPLACE_COL_CPUFREE },
	[PSIPLACE_POLICY_MINRESOURCE] = { .rate = rate_minresource, .score = score_minresource,
					  .fields = F_ALLOC | PSIPLACE_FIELDS_STATIC },
	[PSIPLACE_POLICY_MAXBALANCE] = { .rate = rate_index, .score = score_speed,
					 .fields = F_ALLOC | PSIPLACE_FIELDS_CONF, .set = true },
	[PSIPLACE_POLICY_FASTEST] = { .rate = rate_fastest, .score = score_speed,
				      .fields = F_ALLOC | PSIPLACE_FIELDS_CONF, .columnar = true,
				      .columns = 1u << PSIPLACE_COL_SPEED },
	[PSIPLACE_POLICY_CONTIGUOUS] = { .rate = rate_index, .score = score_index,
					 .fields = F_ALLOC, .set = true },
	/* a PRIORITYF may read any field */
	[PSIPLACE_POLICY_PRIORITY] = { .rate = rate_priority, .score = score_priority,
				       .fields = PSIPLACE_FIELDS_ALL, .columnar = true },
};
#undef F_ALLOC

static const struct policy_desc *policy_of(enum psiplace_policy p)
{
	return psiplace_policy_valid(p) ? &policies[p] : &policies[PSIPLACE_POLICY_NONE];
}

bool psiplace_policy_is_set(enum psiplace_policy p)
{
	return policy_of(p)->set;
}

unsigned psiplace_policy_fields(enum psiplace_policy p)
{
	return policy_of(p)->fields;
}

uint32_t psiplace_policy_columns(enum psiplace_policy p)
{
	return policy_of(p)->columns;
}

static void rate(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
		 struct psiplace_rated *r)
{
	r->k[0] = o->policy_overrides_weight ? 0 : n->weight;
	r->k[1] = r->k[2] = r->k[3] = 0;
	r->idx = n->index;
	policy_of(o->policy)->rate(o, n, r);
}

/* Without a job the caller (select plugin: cons_tres) has filtered the
 * candidates already: all of them count. */
static bool candidate(const struct psiplace_rank_opts *o, const struct psiplace_node *n)
{
	return !o->job || psiplace_node_eligible_opts(o, n);
}

/* Rate the eligible nodes into r (allocated, *m entries). */
int psiplace_rate_eligible(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
			   size_t n, struct psiplace_rated **r, size_t *m, psiplace_error_t *err)
{
	size_t i, c = 0;

	*r = NULL;
	*m = 0;
	if (!psiplace_policy_valid(o->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)o->policy);
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	if (n && !(*r = malloc(n * sizeof(**r))))
		return psiplace_seterr(err, "out of memory rating %zu nodes", n);
	for (i = 0; i < n; i++) {
		if (!candidate(o, &nodes[i]))
			continue;
		rate(o, &nodes[i], &(*r)[c]);
		(*r)[c].pos = (uint32_t)i;
		c++;
	}
	*m = c;
	return 0;
}

/* The nodes not flagged in taken[], eligible ones first, each group in
 * index order, appended to order[have..]. */
static size_t append_rest(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
			  size_t n, const unsigned char *taken, uint32_t *order, size_t have)
{
	struct psiplace_rated *r = malloc((n - have) * sizeof(*r) + 1);
	size_t i, c = 0;

	if (!r)
		return have;
	for (i = 0; i < n; i++) {
		if (taken[i])
			continue;
		r[c].k[0] = !candidate(o, &nodes[i]);
		r[c].k[1] = r[c].k[2] = r[c].k[3] = 0;
		r[c].idx = nodes[i].index;
		r[c++].pos = (uint32_t)i;
	}
	psiplace_rated_sort(r, c);
	for (i = 0; i < c; i++)
		order[have++] = r[i].pos;
	free(r);
	return have;
}

/* The order of psiplace_rank() with only its first `sorted` entries
 * ordered exactly (the rest of the candidates follow unordered). */
static int rank_impl(const struct psiplace_rank_opts *opts, const struct psiplace_node *nodes,
		     size_t n, size_t sorted, uint32_t *order, psiplace_error_t *err)
{
	struct psiplace_rated *r;
	unsigned char *taken;
	size_t m, i, have = 0;
	int c = 0;

	if (psiplace_rate_eligible(opts, nodes, n, &r, &m, err) < 0)
		return -1;
	if (!(taken = calloc(n + 1, 1))) {
		free(r);
		return psiplace_seterr(err, "out of memory ranking %zu nodes", n);
	}
	if (psiplace_policy_is_set(opts->policy)) {
		size_t k = opts->job && opts->job->nodes ? opts->job->nodes : 1;

		if (k <= m)
			c = psiplace_choose_set(opts, nodes, r, m, k, order, NULL);
		have = c > 0 ? (size_t)c : 0;
	} else {
		if (sorted < m) {
			psiplace_rated_select(r, m, sorted);
			psiplace_rated_sort(r, sorted);
		} else {
			psiplace_rated_sort(r, m);
		}
		for (i = 0; i < m; i++)
			order[have++] = r[i].pos;
	}
	for (i = 0; i < have; i++)
		taken[order[i]] = 1;
	free(r);
	if (append_rest(opts, nodes, n, taken, order, have) != n) {
		free(taken);
		return psiplace_seterr(err, "out of memory ranking %zu nodes", n);
	}
	free(taken);
	return 0;
}

int psiplace_rank(const struct psiplace_rank_opts *opts, const struct psiplace_node *nodes,
		  size_t n, uint32_t *order, psiplace_error_t *err)
{
	return rank_impl(opts, nodes, n, n, order, err);
}

int psiplace_rank_partial_nodes(const struct psiplace_rank_opts *opts,
				const struct psiplace_node *nodes, size_t n, size_t k,
				uint32_t *order, psiplace_error_t *err)
{
	return rank_impl(opts, nodes, n, k, order, err);
}

/* The policies the columnar path orders (rank_columns.c, chosen by
 * rank_dispatch.c). */
bool psiplace_policy_columnar(const struct psiplace_rank_opts *o)
{
	return policy_of(o->policy)->columnar &&
	       !(o->policy == PSIPLACE_POLICY_CPULOAD && future_start(o));
}

int psiplace_choose_nodes(const struct psiplace_rank_opts *opts, const struct psiplace_node *nodes,
			  size_t n, size_t k, uint32_t *out, psiplace_error_t *err)
{
	struct psiplace_rated *r;
	size_t m, i;
	int rc;

	if (psiplace_rate_eligible(opts, nodes, n, &r, &m, err) < 0)
		return -1;
	if (m < k) {
		free(r);
		return psiplace_seterr(err,
				       "%zu node%s wanted, only %zu of %zu eligible (powered, with a "
				       "free CPU and the job's cpus and mem free)",
				       k, k == 1 ? "" : "s", m, n);
	}
	if (psiplace_policy_is_set(opts->policy)) {
		rc = psiplace_choose_set(opts, nodes, r, m, k, out, err);
		free(r);
		return rc;
	}
	psiplace_rated_select(r, m, k);
	psiplace_rated_sort(r, k);
	for (i = 0; i < k; i++)
		out[i] = r[i].pos;
	free(r);
	return (int)k;
}

int psiplace_node_score(const struct psiplace_rank_opts *o, const struct psiplace_node *n,
			char *buf, size_t len)
{
	return policy_of(o->policy)->score(o, n, buf, len);
}
