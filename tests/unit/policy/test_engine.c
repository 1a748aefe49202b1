/* The ranking engine (common/policy*.c): each policy, each tie rule, weight tiers, set
 * choices, function precedence, partial selection = full order prefix. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#define N 6

static struct psiplace_node nodes[N];

static void setup(void)
{
	size_t i;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < N; i++) {
		nodes[i].index = (uint32_t)i;
		nodes[i].cpus = 8;
		nodes[i].threads = 8;
		nodes[i].real_memory = 1000;
		nodes[i].speed = 1.0;
		nodes[i].power = true;
		nodes[i].next_resv = -1;
	}
}

/* The order as a string of node indexes ("3 1 0"). */
static char *order_str(const struct psiplace_rank_opts *o, size_t k)
{
	static char buf[256];
	uint32_t out[64];
	psiplace_error_t err = { "" };
	int rc, i;

	if (k)
		rc = psiplace_choose(o, nodes, N, k, out, &err);
	else
		rc = psiplace_rank(o, nodes, N, out, &err) == 0 ? N : -1;
	cr_assert(rc >= 0, "%s", err.text);
	buf[0] = '\0';
	for (i = 0; i < rc; i++)
		sprintf(buf + strlen(buf), "%s%u", i ? " " : "", nodes[out[i]].index);
	return buf;
}

static struct psiplace_rank_opts opts(enum psiplace_policy p)
{
	return (struct psiplace_rank_opts){ .policy = p };
}

TestSuite(rank, .init = setup);

Test(rank, policy_valid_is_the_enum_range)
{
	int p;

	for (p = PSIPLACE_POLICY_NONE; p < PSIPLACE_POLICY_COUNT; p++)
		cr_assert(psiplace_policy_valid((enum psiplace_policy)p));
	cr_assert(!psiplace_policy_valid(PSIPLACE_POLICY_COUNT));
}

Test(rank, firstavailable_ascending_lastavailable_descending)
{
	struct psiplace_rank_opts f = opts(PSIPLACE_POLICY_FIRSTAVAILABLE),
				  l = opts(PSIPLACE_POLICY_LASTAVAILABLE);

	cr_assert_str_eq(order_str(&f, 0), "0 1 2 3 4 5");
	cr_assert_str_eq(order_str(&l, 0), "5 4 3 2 1 0");
	cr_assert_str_eq(order_str(&l, 2), "5 4");
}

Test(rank, ineligible_nodes_follow_in_index_order)
{
	struct psiplace_rank_opts l = opts(PSIPLACE_POLICY_LASTAVAILABLE);
	uint32_t out[N];
	psiplace_error_t err;

	nodes[4].power = false;
	nodes[1].alloc_cpus = 8;
	cr_assert_eq(psiplace_rank(&l, nodes, N, out, &err), 0);
	cr_assert_str_eq(order_str(&l, 0), "5 4 3 2 1 0"); /* no job: all candidates */
	l.job = &(struct psiplace_job){ 0 };
	cr_assert_str_eq(order_str(&l, 0), "5 3 2 0 1 4");
}

Test(rank, job_cpus_and_mem_per_node_decide_eligibility)
{
	struct psiplace_job job = { .cpus = 6, .mem = 600 };
	struct psiplace_rank_opts f = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE, .job = &job };
	uint32_t out[N];
	psiplace_error_t err;

	nodes[0].alloc_cpus = 3;  /* 5 free < 6 */
	nodes[2].alloc_memory = 500; /* 500 free < 600 */
	cr_assert_str_eq(order_str(&f, 2), "1 3");
	cr_assert_eq(psiplace_choose(&f, nodes, N, 5, out, &err), -1);
	cr_assert_str_eq(err.text, "5 nodes wanted, only 4 of 6 eligible (powered, with a free CPU and "
			      "the job's cpus and mem free)");
}

Test(rank, lastavailable_best_fit_in_time)
{
	struct psiplace_job job = { .duration = 100 };
	struct psiplace_rank_opts l = { .policy = PSIPLACE_POLICY_LASTAVAILABLE, .job = &job };

	nodes[0].next_resv = 500; /* gap 400 */
	nodes[1].next_resv = 150; /* gap 50: best */
	nodes[2].next_resv = 50;  /* conflicts */
	nodes[3].next_resv = 150; /* gap 50: tie with 1, descending index first */
	cr_assert_str_eq(order_str(&l, 0), "3 1 0 5 4 2");
	job.start = 100; /* now the job ends at 200 */
	cr_assert_str_eq(order_str(&l, 0), "0 5 4 3 2 1");
}

/* A will-run plan starting now: the job's end is now + duration, not one
 * second later (RELIABILITY R4: the plugin passed the flag as start = 1). */
Test(rank, lastavailable_future_start_now_fits_exactly)
{
	struct psiplace_job job = { .duration = 100, .future = true };
	struct psiplace_rank_opts l = { .policy = PSIPLACE_POLICY_LASTAVAILABLE, .job = &job };

	nodes[1].next_resv = 100; /* ends exactly when the reservation starts: fits, gap 0 */
	/* the others have no reservation: class 1, behind a fit */
	cr_assert_str_eq(order_str(&l, 0), "1 5 4 3 2 0");
	job.start = 1; /* what the old flag meant as a time: now it conflicts */
	cr_assert_str_eq(order_str(&l, 0), "5 4 3 2 0 1");
}

Test(rank, cpuload_future_flag_ranks_as_minresource)
{
	struct psiplace_job job = { .future = true };
	struct psiplace_rank_opts c = opts(PSIPLACE_POLICY_CPULOAD);

	nodes[0].load1 = 7.5;
	nodes[4].real_memory = 500;
	c.job = &job; /* a will-run plan starting now: loads say nothing */
	cr_assert_str_eq(order_str(&c, 0), "4 0 1 2 3 5");
}

Test(rank, cpuload_free_cpu_power_and_future_start)
{
	struct psiplace_job job = { .start = 60 };
	struct psiplace_rank_opts c = opts(PSIPLACE_POLICY_CPULOAD);

	nodes[0].load1 = 7.5;     /* 0.5 free */
	nodes[1].alloc_cpus = 4;  /* 4 free, load below */
	nodes[1].load1 = 1.0;
	nodes[2].load1 = 6.0;     /* 2 free */
	nodes[3].alloc_cpus = 2;  /* max(2, 3) = 3 busy: 5 free */
	nodes[3].load1 = 3.0;
	nodes[4].real_memory = 500;
	cr_assert_str_eq(order_str(&c, 0), "4 5 3 1 2 0");
	c.job = &job; /* a future start ranks as MINRESOURCE */
	cr_assert_str_eq(order_str(&c, 0), "4 0 1 2 3 5");
}

Test(rank, minresource_memory_then_cpus_then_disk)
{
	struct psiplace_rank_opts m = opts(PSIPLACE_POLICY_MINRESOURCE);

	nodes[0].real_memory = 2000;
	nodes[1].cpus = 16;
	nodes[2].tmp_disk = 10;
	nodes[3].cpus = 4;
	nodes[5].real_memory = 500;
	cr_assert_str_eq(order_str(&m, 0), "5 3 4 2 1 0");
}

Test(rank, fastest_descending_speed_ties_by_index)
{
	struct psiplace_rank_opts f = opts(PSIPLACE_POLICY_FASTEST);

	nodes[2].speed = 3.0;
	nodes[4].speed = 2.0;
	nodes[5].speed = 3.0;
	cr_assert_str_eq(order_str(&f, 0), "2 5 4 0 1 3");
}

Test(rank, weight_is_the_major_key_unless_overridden)
{
	struct psiplace_rank_opts f = opts(PSIPLACE_POLICY_FASTEST);

	nodes[0].weight = 1;
	nodes[0].speed = 9.0;
	nodes[3].speed = 2.0;
	nodes[1].weight = 1;
	cr_assert_str_eq(order_str(&f, 0), "3 2 4 5 0 1");
	f.policy_overrides_weight = true;
	cr_assert_str_eq(order_str(&f, 0), "0 3 1 2 4 5");
}

Test(rank, priority_function_precedence_job_node_cluster_priority)
{
	struct psiplace_priorityf *job_f, *node_f, *cluster_f;
	struct psiplace_job job = { 0 };
	struct psiplace_rank_opts p = { .policy = PSIPLACE_POLICY_PRIORITY, .job = &job };
	psiplace_error_t err;

	cr_assert_eq(psiplace_priorityf_compile("NODEINDEX", "j", &job_f, &err), 0);
	cr_assert_eq(psiplace_priorityf_compile("100", "n", &node_f, &err), 0);
	cr_assert_eq(psiplace_priorityf_compile("-NODEINDEX", "c", &cluster_f, &err), 0);
	nodes[0].priority = 1;
	nodes[1].priority = 5;
	nodes[4].priority = 3;
	cr_assert_str_eq(order_str(&p, 0), "1 4 0 2 3 5"); /* node Priority */
	p.cluster_priorityf = cluster_f;
	cr_assert_str_eq(order_str(&p, 0), "0 1 2 3 4 5");
	nodes[3].priorityf = node_f;
	cr_assert_str_eq(order_str(&p, 0), "3 0 1 2 4 5");
	job.priorityf = job_f;
	cr_assert_str_eq(order_str(&p, 0), "5 4 3 2 1 0");
	psiplace_priorityf_free(job_f);
	psiplace_priorityf_free(node_f);
	psiplace_priorityf_free(cluster_f);
}

Test(rank, contiguous_first_run_and_set_first_in_rank)
{
	struct psiplace_job job = { .nodes = 2 };
	struct psiplace_rank_opts c = { .policy = PSIPLACE_POLICY_CONTIGUOUS, .job = &job };
	uint32_t out[N];
	psiplace_error_t err;

	nodes[1].alloc_cpus = 8;
	nodes[3].power = false;
	cr_assert_str_eq(order_str(&c, 2), "4 5");
	cr_assert_str_eq(order_str(&c, 1), "0");
	cr_assert_str_eq(order_str(&c, 0), "4 5 0 2 1 3");
	cr_assert_eq(psiplace_choose(&c, nodes, N, 3, out, &err), -1);
	cr_assert_str_eq(err.text, "CONTIGUOUS: no run of 3 consecutive eligible nodes");
}

Test(rank, contiguous_uses_node_index_not_array_position)
{
	struct psiplace_rank_opts c = opts(PSIPLACE_POLICY_CONTIGUOUS);

	nodes[0].index = 10;
	nodes[1].index = 3;
	nodes[2].index = 11;
	nodes[3].index = 5;
	nodes[4].index = 12;
	nodes[5].index = 4;
	cr_assert_str_eq(order_str(&c, 3), "3 4 5");
	cr_assert_str_eq(order_str(&c, 0) , "3 4 5 10 11 12");
}

Test(rank, maxbalance_smallest_span_then_faster_then_lower_index)
{
	struct psiplace_rank_opts m = opts(PSIPLACE_POLICY_MAXBALANCE);

	nodes[0].speed = 1.0;
	nodes[1].speed = 2.0;
	nodes[2].speed = 1.25;
	nodes[3].speed = 2.0;
	nodes[4].speed = 2.5;
	nodes[5].speed = 2.0;
	cr_assert_str_eq(order_str(&m, 3), "1 3 5"); /* span 0 */
	cr_assert_str_eq(order_str(&m, 2), "1 3");   /* span 0, lowest indexes */
	nodes[5].speed = 1.0;
	/* {1.0, 1.0} and {2.0, 2.0} both span 0: the faster set wins */
	cr_assert_str_eq(order_str(&m, 2), "1 3");
	/* [1, 2] (span 1) beats [1.25, 2.5]; five nodes lie in [1, 2]: the
	 * four lowest indexes */
	cr_assert_str_eq(order_str(&m, 4), "0 1 2 3");
}

Test(rank, maxbalance_keeps_weight_tiers_by_widening)
{
	struct psiplace_rank_opts m = opts(PSIPLACE_POLICY_MAXBALANCE);

	nodes[0].speed = 3.0;
	nodes[1].speed = 3.0;
	nodes[1].weight = 1;
	nodes[2].speed = 1.0;
	nodes[3].speed = 2.0;
	nodes[4].weight = 1;
	nodes[5].weight = 1;
	/* tier 0 = {0, 2, 3}: best pair there is {2(1.0), 3(2.0)} span 1 vs {3, 0} span 1:
	 * faster wins */
	cr_assert_str_eq(order_str(&m, 2), "0 3");
	/* three fit in tier 0 exactly; four need tier 1: 1.0 1.0 1.0 2.0 */
	cr_assert_str_eq(order_str(&m, 3), "0 2 3");
	cr_assert_str_eq(order_str(&m, 4), "2 3 4 5");
	m.policy_overrides_weight = true;
	cr_assert_str_eq(order_str(&m, 2), "0 1");
}

static int cmp_u32(const void *a, const void *b)
{
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

Test(rank, partial_selection_equals_the_prefix_of_the_full_order)
{
	enum { M = 5000 };
	struct psiplace_node *big = calloc(M, sizeof(*big));
	uint32_t *full = calloc(M, sizeof(*full)), *part = calloc(M, sizeof(*part));
	uint32_t *part2 = calloc(M, sizeof(*part2));
	struct psiplace_job job = { 0 };
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_CPULOAD, .job = &job };
	psiplace_error_t err;
	size_t i, k;
	int p;

	srand(7);
	for (i = 0; i < M; i++) {
		big[i].index = (uint32_t)i;
		big[i].cpus = 1 + (uint32_t)(rand() % 4);
		big[i].load1 = (rand() % 8) / 2.0;
		big[i].speed = (rand() % 5) / 2.0;
		big[i].real_memory = (uint64_t)(rand() % 3);
		big[i].weight = (uint64_t)(rand() % 2);
		big[i].power = rand() % 10 != 0;
		big[i].next_resv = -1;
	}
	for (p = PSIPLACE_POLICY_FIRSTAVAILABLE; p <= PSIPLACE_POLICY_PRIORITY; p++) {
		int m;

		if (psiplace_policy_is_set((enum psiplace_policy)p))
			continue;
		o.policy = (enum psiplace_policy)p;
		cr_assert_eq(psiplace_rank(&o, big, M, full, &err), 0);
		for (i = 0, m = 0; i < M; i++)
			m += psiplace_node_eligible(&big[i], o.job);
		cr_assert(m > 1000);
		for (k = 1; k <= 1000; k *= 10) {
			cr_assert_eq(psiplace_choose(&o, big, M, k, part, &err), (int)k);
			cr_assert_arr_eq(part, full, k * sizeof(*part), "policy %d k %zu", p, k);
		}
		cr_assert_eq(psiplace_choose(&o, big, M, (size_t)m, part, &err), m);
		cr_assert_arr_eq(part, full, (size_t)m * sizeof(*part));
		/* partial rank: the same head, then a permutation of the rest */
		cr_assert_eq(psiplace_rank_partial(&o, big, M, 100, part, &err), 0);
		cr_assert_arr_eq(part, full, 100 * sizeof(*part));
		cr_assert_arr_eq(part + m, full + m, (M - (size_t)m) * sizeof(*part));
		qsort(part + 100, (size_t)m - 100, sizeof(*part), cmp_u32);
		memcpy(part2, full + 100, ((size_t)m - 100) * sizeof(*part));
		qsort(part2, (size_t)m - 100, sizeof(*part), cmp_u32);
		cr_assert_arr_eq(part + 100, part2, ((size_t)m - 100) * sizeof(*part));
	}
	free(big);
	free(full);
	free(part);
	free(part2);
}

Test(rank, score_text_for_explain)
{
	struct psiplace_rank_opts o = opts(PSIPLACE_POLICY_MINRESOURCE);
	char buf[64];

	nodes[2].tmp_disk = 7;
	psiplace_node_score(&o, &nodes[2], buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000/8/7");
	o.policy = PSIPLACE_POLICY_CPULOAD;
	nodes[2].load1 = 1.5;
	psiplace_node_score(&o, &nodes[2], buf, sizeof(buf));
	cr_assert_str_eq(buf, "6.5");
}

Test(rank, contiguous_widens_over_many_weight_tiers)
{
	struct psiplace_node v[40];
	struct psiplace_rank_opts c = opts(PSIPLACE_POLICY_CONTIGUOUS);
	uint32_t out[4];
	psiplace_error_t err;
	int j;

	memset(v, 0, sizeof(v));
	for (j = 0; j < 40; j++) {
		v[j].index = j < 35 ? (uint32_t)(2 * j) : (uint32_t)(100 + j - 35);
		v[j].weight = (uint64_t)j; /* one tier per node: no run before tier 36 */
	}
	cr_assert_eq(psiplace_choose(&c, v, 40, 2, out, &err), 2, "%s", err.text);
	cr_assert_eq(v[out[0]].index, 100);
	cr_assert_eq(v[out[1]].index, 101);
	cr_assert_eq(psiplace_choose(&c, v, 40, 6, out, &err), -1);
	c.policy = PSIPLACE_POLICY_MAXBALANCE;
	for (j = 0; j < 40; j++)
		v[j].speed = j == 38 || j == 39 ? 5.0 : (double)j;
	cr_assert_eq(psiplace_choose(&c, v, 40, 2, out, &err), 2, "%s", err.text);
	cr_assert_eq(v[out[0]].index, 0); /* tiers 0 and 1: speeds 0 and 1 */
	cr_assert_eq(v[out[1]].index, 2);
}

/* psiplace_policy_fields() is what a caller fills (the select plugin fills
 * only those groups from slurmctld's records): for every policy, nodes with
 * every other group left at its default rank exactly as full nodes do, with
 * a job that needs CPUs (eligibility) and some nodes partly allocated. */
static void keep_only(struct psiplace_node *n, unsigned fields)
{
	static const struct psiplace_node unknown = { .speed = 1.0, .next_resv = -1 };
	struct psiplace_node full = *n;

	*n = unknown;
	n->name = full.name;
	n->index = full.index;
	n->weight = full.weight;
	n->cpus = full.cpus;
	n->threads = full.threads;
	n->power = full.power;
	n->next_resv = full.next_resv;
	if (fields & PSIPLACE_FIELDS_ALLOC) {
		n->alloc_cpus = full.alloc_cpus;
		n->alloc_memory = full.alloc_memory;
	}
	if (fields & PSIPLACE_FIELDS_STATIC) {
		n->real_memory = full.real_memory;
		n->tmp_disk = full.tmp_disk;
		n->features = full.features;
		n->arch = full.arch;
		n->os = full.os;
	}
	if (fields & PSIPLACE_FIELDS_CONF) {
		n->speed = full.speed;
		n->priority = full.priority;
		n->cost = full.cost;
		n->priorityf = full.priorityf;
	}
	if (fields & PSIPLACE_FIELDS_LOAD) {
		n->load1 = full.load1;
		n->load5 = full.load5;
		n->load15 = full.load15;
		n->jobs = full.jobs;
		n->suspended_jobs = full.suspended_jobs;
		n->usage = full.usage;
		n->mtbf = full.mtbf;
		n->gmetrics = full.gmetrics;
		n->ngmetrics = full.ngmetrics;
	}
}

Test(rank, declared_fields_decide_the_order)
{
	enum { M = 300 };
	static struct psiplace_node full[M], part[M];
	static uint32_t want[M], got[M];
	struct psiplace_job job = { .cpus = 2, .nodes = 3, .duration = 600 };
	struct psiplace_rank_opts o = { .job = &job };
	psiplace_error_t err = { "" };
	size_t i;
	int p;

	srand(11);
	for (i = 0; i < M; i++) {
		full[i] = (struct psiplace_node){ .index = (uint32_t)i, .power = true };
		full[i].cpus = 4 + (uint32_t)(rand() % 3) * 4;
		full[i].threads = full[i].cpus;
		full[i].alloc_cpus = (uint32_t)(rand() % 3) * 2; /* 0, 2 or 4: some too full */
		full[i].real_memory = 1000 * (1 + (uint64_t)(rand() % 4));
		full[i].tmp_disk = (uint64_t)(rand() % 5);
		full[i].load1 = (rand() % 10) / 2.0;
		full[i].speed = (rand() % 6) / 2.0;
		full[i].priority = rand() % 7;
		full[i].weight = (uint64_t)(rand() % 2);
		full[i].next_resv = rand() % 3 ? -1 : rand() % 2000;
		full[i].jobs = (uint32_t)(rand() % 3);
	}
	for (p = PSIPLACE_POLICY_FIRSTAVAILABLE; p < PSIPLACE_POLICY_COUNT; p++) {
		unsigned fields = psiplace_policy_fields((enum psiplace_policy)p);

		cr_assert(fields & PSIPLACE_FIELDS_ALLOC, "policy %s does not read the allocation",
			  psiplace_policy_name((enum psiplace_policy)p));
		o.policy = (enum psiplace_policy)p;
		for (i = 0; i < M; i++) {
			part[i] = full[i];
			keep_only(&part[i], fields);
		}
		cr_assert_eq(psiplace_rank(&o, full, M, want, &err), 0, "%s", err.text);
		cr_assert_eq(psiplace_rank(&o, part, M, got, &err), 0, "%s", err.text);
		cr_assert_arr_eq(got, want, sizeof(want), "policy %s: the order depends on a field "
			     "it does not declare", psiplace_policy_name((enum psiplace_policy)p));
	}
}

/* The test above can fail: a policy that declares too little (FASTEST
 * without psiplace.conf) ranks differently from the full nodes. */
Test(rank, too_few_fields_change_the_order)
{
	enum { M = 50 };
	static struct psiplace_node full[M], part[M];
	static uint32_t want[M], got[M];
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_FASTEST };
	psiplace_error_t err = { "" };
	size_t i;

	for (i = 0; i < M; i++) {
		full[i] = (struct psiplace_node){ .index = (uint32_t)i, .power = true, .cpus = 4 };
		full[i].speed = (double)(i % 7);
		part[i] = full[i];
		keep_only(&part[i], PSIPLACE_FIELDS_ALLOC);
	}
	cr_assert_eq(psiplace_rank(&o, full, M, want, &err), 0);
	cr_assert_eq(psiplace_rank(&o, part, M, got, &err), 0);
	cr_assert(memcmp(got, want, sizeof(want)) != 0);
}

/* Index order within weight tiers, from test_policy_names.c. */
static void check_order(enum psiplace_policy p, bool overrides, const struct psiplace_node *n, size_t k,
		 const uint32_t *want)
{
	struct psiplace_rank_opts o = { .policy = p, .policy_overrides_weight = overrides };
	uint32_t order[16];
	psiplace_error_t err;
	size_t i;

	cr_assert_eq(psiplace_rank(&o, n, k, order, &err), 0, "%s", err.text);
	for (i = 0; i < k; i++)
		cr_expect_eq(order[i], want[i], "position %zu: %u, want %u", i, order[i], want[i]);
}

Test(rank, firstavailable_index_ascending_within_weight_tier)
{
	/* positions 0..3 hold nodes 7, 2, 5, 3; node 5 is in a heavier tier */
	struct psiplace_node n[] = {
		{ .index = 7, .weight = 1 }, { .index = 2, .weight = 1 },
		{ .index = 5, .weight = 9 }, { .index = 3, .weight = 1 },
	};

	check_order(PSIPLACE_POLICY_FIRSTAVAILABLE, false, n, 4, (uint32_t[]){ 1, 3, 0, 2 });
	check_order(PSIPLACE_POLICY_FIRSTAVAILABLE, true, n, 4, (uint32_t[]){ 1, 3, 2, 0 });
}

Test(rank, lastavailable_index_descending_within_weight_tier)
{
	struct psiplace_node n[] = {
		{ .index = 7, .weight = 1 }, { .index = 2, .weight = 1 },
		{ .index = 5, .weight = 9 }, { .index = 3, .weight = 1 },
	};

	check_order(PSIPLACE_POLICY_LASTAVAILABLE, false, n, 4, (uint32_t[]){ 0, 3, 1, 2 });
	check_order(PSIPLACE_POLICY_LASTAVAILABLE, true, n, 4, (uint32_t[]){ 0, 2, 3, 1 });
}

/* PreferPoweredUp=no: a powered-down node is ranked by the policy; the
 * columnar path agrees with the record path. */
Test(rank, ignore_power_ranks_powered_down_nodes_with_the_others)
{
	struct psiplace_rank_opts l = opts(PSIPLACE_POLICY_LASTAVAILABLE);
	struct psiplace_nodecols *c;
	psiplace_error_t err;
	uint32_t out[N];
	char *s;

	nodes[5].power = false;
	nodes[4].power = false;
	l.job = &(struct psiplace_job){ 0 };
	cr_assert_str_eq(order_str(&l, 0), "3 2 1 0 4 5");
	cr_assert(!psiplace_node_eligible_opts(&l, &nodes[5]));
	l.ignore_power = true;
	cr_assert_str_eq(order_str(&l, 0), "5 4 3 2 1 0");
	cr_assert(psiplace_node_eligible_opts(&l, &nodes[5]));
	cr_assert(!nodes[5].power, "the record keeps its power state");
	cr_assert_eq(psiplace_nodecols_build(&l, nodes, N, &c, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_choose_cols(&l, c, 2, out, &err), 2, "%s", err.text);
	cr_assert(out[0] == 5 && out[1] == 4);
	l.ignore_power = false;
	cr_assert_eq(psiplace_choose_cols(&l, c, 2, out, &err), 2, "%s", err.text);
	cr_assert(out[0] == 3 && out[1] == 2);
	psiplace_nodecols_free(c);
	s = order_str(&l, 2);
	cr_assert_str_eq(s, "3 2");
}
