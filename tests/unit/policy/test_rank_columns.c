/* The columnar fast path (psiplace_nodecols, the best-k selection, the
 * block-wise keys of psiplace_choose/psiplace_rank_partial) against a
 * straightforward reference: per-node evaluation and a full qsort with the
 * documented order (eligible first; weight tier; value descending, NaN
 * last, -0 = +0; node index; array position), on random node tables with
 * many ties, several seeds and sizes 1, 2, 1000 and 100000. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#define TEN_TERMS                                                                        \
	"SPEED + 0.01*AMEM - 10*JOBCOUNT - LOAD + 2*CPROCS + PRIORITY - COST + 0.5*APROCS " \
	"- 5*USAGE + 0.001*MTBF"
#define ALL_TERMS                                                                        \
	"3 + CPROCS - APROCS + 1e-3*CMEM + 2*AMEM - CDISK + ADISK + JOBCOUNT "             \
	"- SUSPENDEDJCOUNT + 0.25*LOAD + 7*SPEED + PRIORITY - COST + 0.5*NODEINDEX "       \
	"+ FEATURE[gpu] + 2*GMETRIC[temp] - ARCH[x86_64] + OS[linux] - 9*POWER "            \
	"+ 100*RANDOM + USAGE - MTBF + PARAPROCS + RESAFFINITY + 1e-5*FREETIME"

static const size_t sizes[] = { 1, 2, 1000, 100000 };
static const uint64_t seeds[] = { 1, 2, 3 };
static const char *const exprs[] = { TEN_TERMS, ALL_TERMS, "-2*POWER + LOAD", "7" };

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const struct psiplace_gmetric temp[] = { { "temp", 40.5 } };

/* Few distinct values per field (ties everywhere), some ineligible nodes,
 * values that are not int32 or float exact when wide is set. */
static struct psiplace_node *table(size_t n, uint64_t seed, bool wide, bool dup_index)
{
	struct psiplace_node *v = calloc(n ? n : 1, sizeof(*v));
	size_t i;

	cr_assert_not_null(v);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (i = 0; i < n; i++) {
		struct psiplace_node *p = &v[i];

		p->index = dup_index ? (uint32_t)rnd((uint32_t)(n / 2 + 1)) : (uint32_t)(n - 1 - i);
		p->weight = rnd(3);
		p->cpus = 4 * (1 + rnd(3));
		p->alloc_cpus = rnd(p->cpus + 1);
		p->load1 = rnd(5) * 0.5;
		p->real_memory = wide && rnd(2) ? (1ULL << 40) + rnd(3) : 1000 * (1 + rnd(3));
		p->alloc_memory = rnd(4) * 300;
		p->tmp_disk = rnd(2) * 500;
		p->speed = wide ? rnd(4) / 3.0 : 1.0 + rnd(3) * 0.5;
		p->priority = rnd(4);
		if (rnd(50) == 0)
			p->priority = NAN;
		else if (rnd(50) == 0)
			p->priority = -0.0;
		else if (rnd(100) == 0)
			p->priority = rnd(2) ? INFINITY : -INFINITY;
		p->cost = rnd(3) * 0.25;
		p->usage = wide ? rnd(3) / 7.0 : rnd(3) * 0.5;
		p->mtbf = rnd(3) * 1000;
		p->jobs = rnd(3);
		p->suspended_jobs = rnd(2);
		p->next_resv = rnd(3) ? -1 : (int64_t)rnd(3) * 3600;
		p->power = rnd(10) != 0;
		p->features = rnd(2) ? "gpu,ib" : "ib";
		p->arch = rnd(2) ? "x86_64" : NULL;
		p->os = rnd(2) ? "linux" : "other";
		p->gmetrics = rnd(2) ? temp : NULL;
		p->ngmetrics = p->gmetrics ? 1 : 0;
		p->para_procs = rnd(3);
		p->rsv_affinity = rnd(2);
	}
	return v;
}

/* The reference: what the policy orders by, node by node. */
static double ref_value(const struct psiplace_rank_opts *o, const struct psiplace_node *n)
{
	const struct psiplace_priorityf *f;
	double busy;

	switch (o->policy) {
	case PSIPLACE_POLICY_FASTEST:
		return n->speed;
	case PSIPLACE_POLICY_CPULOAD:
		busy = n->load1 > (double)n->alloc_cpus ? n->load1 : (double)n->alloc_cpus;
		return (double)n->cpus - busy;
	case PSIPLACE_POLICY_PRIORITY:
		f = o->job && o->job->priorityf ? o->job->priorityf
		    : n->priorityf		  ? n->priorityf
						  : o->cluster_priorityf;
		return f ? psiplace_priorityf_eval(f, n, o->job ? o->job->seed : 0) : n->priority;
	default:
		return 0.0;
	}
}

struct ref {
	bool elig;
	uint64_t weight;
	double key; /* ascending: the value negated, NaN as +inf */
	uint32_t index, pos;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;

	if (a->elig != b->elig)
		return a->elig ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight < b->weight ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The full reference order; *m = the candidates. */
static struct ref *ref_order(const struct psiplace_rank_opts *o, const struct psiplace_node *v,
			     size_t n, size_t *m)
{
	struct ref *r = calloc(n ? n : 1, sizeof(*r));
	size_t i;

	cr_assert_not_null(r);
	*m = 0;
	for (i = 0; i < n; i++) {
		double x = ref_value(o, &v[i]);

		r[i].elig = !o->job || psiplace_node_eligible(&v[i], o->job);
		/* non-candidates: by index, position only */
		r[i].weight = !r[i].elig || o->policy_overrides_weight ? 0 : v[i].weight;
		r[i].key = !r[i].elig || o->policy == PSIPLACE_POLICY_FIRSTAVAILABLE ? 0.0
			   : isnan(x)						 ? INFINITY
										 : -x;
		r[i].index = v[i].index;
		r[i].pos = (uint32_t)i;
		*m += r[i].elig;
	}
	qsort(r, n, sizeof(*r), ref_cmp);
	return r;
}

static void check_choose(const struct psiplace_rank_opts *o, const struct psiplace_node *v,
			 size_t n, const struct psiplace_nodecols *c, const struct ref *r, size_t m,
			 size_t k, const char *what)
{
	uint32_t *out = malloc((k ? k : 1) * sizeof(*out));
	psiplace_error_t err = { "" };
	size_t i;
	int rc;

	cr_assert_not_null(out);
	rc = c ? psiplace_choose_cols(o, c, k, out, &err) : psiplace_choose(o, v, n, k, out, &err);
	if (k > m) {
		cr_assert_eq(rc, -1, "%s: k %zu > %zu eligible accepted", what, k, m);
		cr_assert(strstr(err.text, "eligible"), "%s: %s", what, err.text);
	} else {
		cr_assert_eq(rc, (int)k, "%s: %s", what, err.text);
		for (i = 0; i < k && out[i] == r[i].pos; i++)
			;
		if (i < k)
			cr_assert_fail("%s: k %zu: position %zu is node %u, not %u", what, k, i,
				       out[i], r[i].pos);
	}
	free(out);
}

/* order[0..k-1] the reference's best, then the other candidates (any
 * order), then the non-candidates as in the reference. */
static void check_partial(const struct psiplace_rank_opts *o, const struct psiplace_node *v,
			  size_t n, const struct psiplace_nodecols *c, const struct ref *r,
			  size_t m, size_t k, const char *what)
{
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	unsigned char *seen = calloc(n ? n : 1, 1);
	psiplace_error_t err = { "" };
	size_t i, top = k < m ? k : m;
	int rc;

	cr_assert(order && seen);
	rc = c ? psiplace_rank_partial_cols(o, c, k, order, &err)
	       : psiplace_rank_partial(o, v, n, k, order, &err);
	cr_assert_eq(rc, 0, "%s: %s", what, err.text);
	for (i = 0; i < n; i++) {
		if (order[i] >= n || seen[order[i]])
			cr_assert_fail("%s: k %zu: position %zu: node %u out of range or twice",
				       what, k, i, order[i]);
		seen[order[i]] = 1;
		if ((i < top || i >= m) && order[i] != r[i].pos)
			cr_assert_fail("%s: k %zu: position %zu is %u, not %u", what, k, i,
				       order[i], r[i].pos);
		if (i >= top && i < m && o->job && !psiplace_node_eligible(&v[order[i]], o->job))
			cr_assert_fail("%s: k %zu: position %zu not a candidate", what, k, i);
	}
	free(order);
	free(seen);
}

static void check_all_k(const struct psiplace_rank_opts *o, const struct psiplace_node *v,
			size_t n, const char *what)
{
	const size_t ks[] = { 1, 2, 10, 1000, n / 2, n, n + 1 };
	const size_t nk = n > 20000 ? 5 : sizeof(ks) / sizeof(ks[0]);
	struct psiplace_nodecols *c;
	psiplace_error_t err = { "" };
	size_t m, j;
	struct ref *r = ref_order(o, v, n, &m);
	char w[200];

	cr_assert_eq(psiplace_nodecols_build(o, v, n, &c, &err), 0, "%s", err.text);
	for (j = 0; j < nk; j++) {
		if (!ks[j])
			continue;
		snprintf(w, sizeof(w), "%s n %zu records", what, n);
		check_choose(o, v, n, NULL, r, m, ks[j], w);
		check_partial(o, v, n, NULL, r, m, ks[j], w);
		snprintf(w, sizeof(w), "%s n %zu columns", what, n);
		check_choose(o, v, n, c, r, m, ks[j], w);
		check_partial(o, v, n, c, r, m, ks[j], w);
	}
	psiplace_nodecols_free(c);
	free(r);
}

TestSuite(rank_columns);

Test(rank_columns, eval_cols_bit_identical_to_eval_per_node)
{
	size_t e, s, z, i;

	for (e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		struct psiplace_priorityf *f;
		psiplace_error_t err;

		cr_assert_eq(psiplace_priorityf_compile(exprs[e], "t", &f, &err), 0, "%s", err.text);
		for (s = 0; s < 3; s++) {
			for (z = 0; z < 4 * 2; z++) {
				size_t n = sizes[z % 4];
				struct psiplace_node *v = table(n, seeds[s], z >= 4, false);
				struct psiplace_job job = { .priorityf = f, .seed = seeds[s] };
				struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY,
								.job = &job };
				struct psiplace_nodecols *c;
				double *got = malloc(n * sizeof(*got));

				cr_assert_eq(psiplace_nodecols_build(&o, v, n, &c, &err), 0);
				psiplace_priorityf_eval_cols(f, c, seeds[s], got);
				for (i = 0; i < n; i++) {
					double want = psiplace_priorityf_eval(f, &v[i], seeds[s]);

					if (memcmp(&want, &got[i], sizeof(want)))
						cr_assert_fail("'%s' seed %zu n %zu node %zu: %.17g, not %.17g",
							       exprs[e], s, n, i, got[i], want);
				}
				psiplace_nodecols_free(c);
				free(got);
				free(v);
			}
		}
		psiplace_priorityf_free(f);
	}
}

/* Every fast policy, with and without a job, weight tiers kept or
 * overridden, exact and wide values, unique and duplicate indexes. */
static void policies_on(size_t n, uint64_t seed, bool wide, bool dup)
{
	static const enum psiplace_policy pol[] = {
		PSIPLACE_POLICY_PRIORITY, PSIPLACE_POLICY_FASTEST, PSIPLACE_POLICY_CPULOAD,
		PSIPLACE_POLICY_FIRSTAVAILABLE,
	};
	struct psiplace_node *v = table(n, seed, wide, dup);
	struct psiplace_priorityf *f;
	psiplace_error_t err;
	size_t p, variant;
	char what[160];

	cr_assert_eq(psiplace_priorityf_compile(ALL_TERMS, "t", &f, &err), 0, "%s", err.text);
	for (p = 0; p < sizeof(pol) / sizeof(pol[0]); p++) {
		for (variant = 0; variant < 4; variant++) {
			struct psiplace_job job = { .cpus = 2, .mem = 400, .seed = seed };
			struct psiplace_rank_opts o = { .policy = pol[p] };

			o.job = variant & 1 ? &job : NULL;
			o.policy_overrides_weight = variant & 2;
			if (pol[p] == PSIPLACE_POLICY_PRIORITY && (variant & 1))
				job.priorityf = f;
			else if (pol[p] == PSIPLACE_POLICY_PRIORITY && seed == 2)
				o.cluster_priorityf = f;
			snprintf(what, sizeof(what), "%s seed %llu%s%s variant %zu",
				 psiplace_policy_name(pol[p]), (unsigned long long)seed,
				 wide ? " wide" : "", dup ? " dup-index" : "", variant);
			check_all_k(&o, v, n, what);
		}
	}
	psiplace_priorityf_free(f);
	free(v);
}

Test(rank_columns, choose_and_partial_match_reference_small, .timeout = 60)
{
	size_t s, z;

	for (s = 0; s < 3; s++)
		for (z = 0; z < 3; z++) {
			policies_on(sizes[z], seeds[s], false, false);
			policies_on(sizes[z], seeds[s], true, true);
		}
}

Test(rank_columns, choose_and_partial_match_reference_100k, .timeout = 120)
{
	size_t s;

	for (s = 0; s < 3; s++)
		policies_on(100000, seeds[s], s == 1, s == 2);
}

/* Nodes with their own function: the per-node path, the same order. */
Test(rank_columns, node_functions_fall_back_to_records)
{
	struct psiplace_node *v = table(1000, 7, false, false);
	struct psiplace_priorityf *f, *g;
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY };
	psiplace_error_t err;
	size_t i;

	cr_assert_eq(psiplace_priorityf_compile("SPEED - LOAD", "t", &f, &err), 0);
	cr_assert_eq(psiplace_priorityf_compile("PRIORITY + 2", "t", &g, &err), 0);
	o.cluster_priorityf = f;
	for (i = 0; i < 1000; i += 3)
		v[i].priorityf = g;
	check_all_k(&o, v, 1000, "node functions");
	psiplace_priorityf_free(f);
	psiplace_priorityf_free(g);
	free(v);
}

/* The nodes the threshold's sample reads (128 runs of 16 spread over the
 * table) are the best ones: the threshold keeps too few and the
 * selection must start over with every candidate. */
Test(rank_columns, misleading_sample_still_exact)
{
	size_t n = 100000, i, j;
	struct psiplace_node *v = table(n, 9, false, false);
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY,
					.policy_overrides_weight = true };

	for (i = 0; i < n; i++)
		v[i].priority = (double)(i % 97);
	for (j = 0; j < 128; j++)
		for (i = (n - 16) / 127 * j; i < (n - 16) / 127 * j + 16; i++)
			v[i].priority = 1e6 + (double)i;
	check_all_k(&o, v, n, "misleading sample");
	free(v);
}

/* A table where the best k are the last nodes in array order and all
 * values tie: order by index, then position. */
Test(rank_columns, all_values_tie_index_then_position)
{
	size_t n = 20000, i;
	struct psiplace_node *v = table(n, 4, false, true);
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_FASTEST };

	for (i = 0; i < n; i++) {
		v[i].speed = 2.0;
		v[i].weight = 1;
	}
	check_all_k(&o, v, n, "all tie");
	free(v);
}

/* Columns built for other options: the ones they lack send the decision
 * to the records, and node functions count even when the build had a
 * job function. */
Test(rank_columns, columns_built_for_other_options)
{
	struct psiplace_node *v = table(5000, 11, false, false);
	struct psiplace_priorityf *f, *g;
	struct psiplace_job job = { .seed = 3 };
	struct psiplace_rank_opts built = { .policy = PSIPLACE_POLICY_PRIORITY, .job = &job };
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY };
	struct psiplace_nodecols *c;
	psiplace_error_t err;
	size_t m, i;
	struct ref *r;

	cr_assert_eq(psiplace_priorityf_compile("SPEED - LOAD", "t", &f, &err), 0);
	cr_assert_eq(psiplace_priorityf_compile("PRIORITY + 2*CPROCS", "t", &g, &err), 0);
	job.priorityf = f;
	for (i = 0; i < 5000; i += 7)
		v[i].priorityf = g;
	cr_assert_eq(psiplace_nodecols_build(&built, v, 5000, &c, &err), 0);
	o.cluster_priorityf = f;
	r = ref_order(&o, v, 5000, &m);
	check_choose(&o, v, 5000, c, r, m, 100, "node functions after a job build");
	check_partial(&o, v, 5000, c, r, m, 100, "node functions after a job build");
	free(r);
	o.policy = PSIPLACE_POLICY_CPULOAD;
	r = ref_order(&o, v, 5000, &m);
	check_choose(&o, v, 5000, c, r, m, 100, "CPULOAD on PRIORITY columns");
	check_partial(&o, v, 5000, c, r, m, 100, "CPULOAD on PRIORITY columns");
	free(r);
	psiplace_nodecols_free(c);
	psiplace_priorityf_free(f);
	psiplace_priorityf_free(g);
	free(v);
}
