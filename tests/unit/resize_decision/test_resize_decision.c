/* The resize decision (psiplace/resize_decision.h): golden decision lines
 * on small clusters, one rule or edge case a test. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/resize_decision.h"

#define NOW 100000
#define MAXN 16

struct cluster {
	struct psiplace_rdec_node nodes[MAXN];
	char names[MAXN][8];
	struct psiplace_rdec_running run[8];
	struct psiplace_rdec_pending pend[8];
	struct psiplace_rdec_state s;
	struct psiplace_rdec_params p;
	char out[4096];
};

static const uint32_t N1[] = { 0 }, N2[] = { 1 }, N6[] = { 5 };
static const uint32_t N1_2[] = { 0, 1 }, N1_3[] = { 0, 1, 2 }, N1_4[] = { 0, 1, 2, 3 };
static const uint32_t N4_6[] = { 3, 4, 5 }, N5_6[] = { 4, 5 }, N3_4[] = { 2, 3 };

/* n nodes n1..nN, 4 CPUs, up, usable, in every partition. */
static void cluster(struct cluster *c, size_t n)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		snprintf(c->names[i], sizeof(c->names[i]), "n%zu", i + 1);
		c->nodes[i].node.name = c->names[i];
		c->nodes[i].node.index = (uint32_t)i;
		c->nodes[i].node.cpus = 4;
		c->nodes[i].node.power = true;
		c->nodes[i].node.power_state = PSIPLACE_POWER_UP;
		c->nodes[i].node.next_resv = -1;
		c->nodes[i].usable = true;
	}
	c->s.now = NOW;
	c->s.nodes = c->nodes;
	c->s.nnodes = n;
	c->s.running = c->run;
	c->s.pending = c->pend;
	psiplace_rdec_params_init(&c->p);
}

/* A running job on nodes (held: their CPUs allocated). */
static struct psiplace_rdec_running *running(struct cluster *c, uint32_t id, const uint32_t *nodes,
					     size_t n, uint32_t min, uint32_t max)
{
	struct psiplace_rdec_running *r = &c->run[c->s.nrunning++];

	r->id = id;
	r->nodes = nodes;
	r->nnodes = n;
	r->min = min;
	r->max = max;
	r->end = NOW + 3600;
	for (size_t i = 0; i < n; i++)
		c->nodes[nodes[i]].node.alloc_cpus = c->nodes[nodes[i]].node.cpus;
	return r;
}

static struct psiplace_rdec_pending *pending(struct cluster *c, uint32_t id, uint32_t nodes)
{
	struct psiplace_rdec_pending *p = &c->pend[c->s.npending++];

	p->id = id;
	p->nodes = nodes;
	p->time_limit = 600;
	p->planned_start = PSIPLACE_RDEC_UNKNOWN;
	return p;
}

/* The decisions as lines joined by '\n'. */
static const char *decide(struct cluster *c)
{
	struct psiplace_rdec_result r;
	psiplace_error_t err = { "" };
	size_t at = 0;

	cr_assert_eq(psiplace_rdec_decide(&c->s, &c->p, 1, &r, &err), 0, "%s", err.text);
	c->out[0] = '\0';
	for (size_t i = 0; i < r.n; i++) {
		long n;

		if (i)
			c->out[at++] = '\n';
		n = psiplace_rdec_format(&c->s, &r.d[i], c->out + at, sizeof(c->out) - at);
		cr_assert_geq(n, 0);
		at += (size_t)n;
	}
	psiplace_rdec_result_free(&r);
	return c->out;
}

static void refused(struct cluster *c, const char *msg)
{
	struct psiplace_rdec_result r;
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_rdec_decide(&c->s, &c->p, 1, &r, &err), -1);
	cr_assert_str_eq(err.text, msg);
	cr_assert_eq(r.n, 0);
	cr_assert_null(r.d);
}

/* --- rule 1: ranges, in progress, hysteresis --- */

Test(rdec, idle_cluster_grows_to_max)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4);
	cr_assert_str_eq(decide(&c), "job 1: grow 3 (n2,n3,n4), decision 1");
}

Test(rdec, max_grow_bounds_one_step)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4);
	c.p.max_grow = 1;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n2), decision 1");
}

Test(rdec, min_equals_max_is_never_resized)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_2, 2, 2, 2);
	pending(&c, 9, 4);
	cr_assert_str_eq(decide(&c), "job 1: nothing (fixed)");
}

Test(rdec, in_progress_is_left_alone)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4)->in_progress = true;
	cr_assert_str_eq(decide(&c), "job 1: nothing (in progress)");
}

Test(rdec, min_interval_holds_then_releases)
{
	struct cluster c;
	struct psiplace_rdec_running *r;

	cluster(&c, 2);
	r = running(&c, 1, N1, 1, 1, 2);
	r->last_resize = NOW - 59;
	cr_assert_str_eq(decide(&c), "job 1: nothing (too soon)");
	r->last_resize = NOW - 60;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n2), decision 1");
	c.p.min_interval = 0;
	r->last_resize = NOW;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n2), decision 1");
}

Test(rdec, at_max_without_pending)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, rigid_jobs_get_no_decision_and_keep_their_nodes)
{
	struct cluster c;

	cluster(&c, 3);
	running(&c, 1, N1, 1, 1, 3);
	running(&c, 7, N2, 1, 0, 0);
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n3), decision 1");
}

Test(rdec, shared_node_is_not_idle)
{
	struct cluster c;

	cluster(&c, 3);
	running(&c, 1, N1, 1, 1, 3);
	c.nodes[1].node.alloc_cpus = 1; /* a job psiplace was not told of */
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n3), decision 1");
}

/* --- rule 2: shrinking for the first pending job --- */

Test(rdec, shrink_lets_the_top_pending_job_start)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 2);
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n2,n3) for job 20, decision 1");
}

Test(rdec, shrink_releases_what_the_pending_jobs_policy_prefers)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 2)->policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n3,n4) for job 20, decision 1");
}

Test(rdec, shrink_falls_back_to_the_cluster_policy)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 1);
	c.p.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n4) for job 20, decision 1");
}

Test(rdec, shrink_never_gives_the_batch_host)
{
	struct cluster c;

	cluster(&c, 3);
	running(&c, 1, N1_3, 3, 1, 3);
	pending(&c, 20, 2)->policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n2,n3) for job 20, decision 1");
	c.pend[0].nodes = 3; /* n1 would be needed: nothing */
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, shrink_never_below_min)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 3, 4);
	pending(&c, 20, 2);
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
	c.pend[0].nodes = 1;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
}

Test(rdec, idle_nodes_are_used_before_any_shrink)
{
	struct cluster c;

	cluster(&c, 5);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 3);
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n2,n3) for job 20, decision 1");
	c.pend[0].nodes = 1; /* n5 is enough: it waits for something else */
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, idle_powered_down_node_counts_for_the_pending_job)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_3, 3, 1, 4);
	c.nodes[3].node.power = false;
	c.nodes[3].node.power_state = PSIPLACE_POWERED_DOWN;
	pending(&c, 20, 1);
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)");
}

Test(rdec, pending_job_too_big_even_after_shrinking_all)
{
	struct cluster c;

	cluster(&c, 6);
	running(&c, 1, N1_4, 4, 1, 4);
	running(&c, 2, N5_6, 2, 1, 2);
	pending(&c, 20, 5); /* 3 + 1 releasable, 4 < 5 */
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)\njob 2: nothing (at max)");
	c.pend[0].nodes = 4;
	cr_assert_str_eq(decide(&c), "job 1: shrink 3 (n2,n3,n4) for job 20, decision 1\n"
				     "job 2: shrink 1 (n6) for job 20, decision 2");
}

Test(rdec, only_the_first_pending_job_makes_room)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 8); /* cannot start even after a shrink */
	pending(&c, 21, 1); /* would fit, but waits behind 20 */
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, two_donors_give_in_the_pending_jobs_policy_order)
{
	struct cluster c;

	cluster(&c, 6);
	running(&c, 1, N1_3, 3, 1, 3);
	running(&c, 2, N4_6, 3, 1, 3);
	pending(&c, 20, 3);
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n2,n3) for job 20, decision 1\n"
				     "job 2: shrink 1 (n5) for job 20, decision 2");
	c.pend[0].policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n3) for job 20, decision 1\n"
				     "job 2: shrink 2 (n5,n6) for job 20, decision 2");
}

Test(rdec, donor_in_progress_or_too_soon_gives_nothing)
{
	struct cluster c;

	cluster(&c, 6);
	running(&c, 1, N1_3, 3, 1, 3)->in_progress = true;
	running(&c, 2, N4_6, 3, 1, 3)->last_resize = NOW - 10;
	pending(&c, 20, 1);
	cr_assert_str_eq(decide(&c), "job 1: nothing (in progress)\njob 2: nothing (too soon)");
}

Test(rdec, shrink_disallowed_by_the_site)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1_4, 4, 1, 4);
	pending(&c, 20, 2);
	c.p.allow_shrink = false;
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, shrink_gives_only_nodes_of_the_pending_jobs_partition)
{
	struct cluster c;

	cluster(&c, 4);
	c.nodes[1].partitions = "batch";
	c.nodes[2].partitions = "batch,big";
	c.nodes[3].partitions = "batch,big";
	running(&c, 1, N1_4, 4, 1, 4)->partition = "batch";
	pending(&c, 20, 1)->partition = "big";
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n3) for job 20, decision 1");
	c.pend[0].partition = "other";
	cr_assert_str_eq(decide(&c), "job 1: nothing (at max)");
}

Test(rdec, no_grow_into_the_nodes_a_shrink_frees)
{
	struct cluster c;

	cluster(&c, 6);
	running(&c, 1, N1_4, 4, 1, 4);
	running(&c, 2, N6, 1, 1, 3);
	pending(&c, 20, 3);
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n2,n3) for job 20, decision 1\n"
				     "job 2: nothing (no free node)");
}

/* --- rule 3: growing without delaying a planned start --- */

Test(rdec, top_pending_jobs_planned_nodes_are_protected)
{
	struct cluster c;
	struct psiplace_rdec_pending *p;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4)->end = NOW + 1000;
	running(&c, 3, N2, 1, 0, 0);
	p = pending(&c, 20, 3); /* cannot start now: 2 idle */
	p->planned_start = NOW + 500;
	p->planned = N3_4;
	p->nplanned = 2;
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)");
	p->planned_start = NOW + 1000; /* starts when job 1 ends: a grow delays nothing */
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1");
}

Test(rdec, planned_nodes_of_a_later_pending_job_are_protected_too)
{
	struct cluster c;
	struct psiplace_rdec_pending *p;

	cluster(&c, 5);
	running(&c, 1, N1, 1, 1, 5)->end = NOW + 1000;
	pending(&c, 20, 1)->planned_start = NOW + 2000;
	c.pend[0].planned = N1;
	c.pend[0].nplanned = 1;
	p = pending(&c, 21, 2);
	p->planned_start = NOW + 10;
	p->planned = N3_4;
	p->nplanned = 2;
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n2,n5), decision 1");
}

Test(rdec, unknown_planned_start_reserves_its_size)
{
	struct cluster c;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4);
	pending(&c, 20, 2); /* backfill has not planned it */
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n4), decision 1");
	c.pend[0].policy.policy = PSIPLACE_POLICY_LASTAVAILABLE; /* it would take n3,n4 */
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n2), decision 1");
}

Test(rdec, planned_start_without_nodes_reserves_until_the_end)
{
	struct cluster c;
	struct psiplace_rdec_pending *p;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4)->end = NOW + 1000;
	p = pending(&c, 20, 2);
	p->planned_start = NOW + 999;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n4), decision 1");
	p->planned_start = NOW + 1000;
	cr_assert_str_eq(decide(&c), "job 1: grow 3 (n2,n3,n4), decision 1");
}

Test(rdec, job_without_time_limit_never_passes_a_planned_start)
{
	struct cluster c;
	struct psiplace_rdec_pending *p;

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4)->end = PSIPLACE_RDEC_NEVER;
	p = pending(&c, 20, 1);
	p->planned_start = NOW + 86400 * 365;
	p->planned = N3_4; /* two planned, one asked: the set protects */
	p->nplanned = 2;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n2), decision 1");
}

/* --- rule 3d: nodes a shrink released for a pending job --- */

/* Job 1 just shrank 4 -> 2 for job 20: n3,n4 idle and held for 20, whose
 * plan is still backfill's old one (start at job 1's end, on n3,n4). */
static struct psiplace_rdec_pending *after_shrink(struct cluster *c, size_t n,
						  struct psiplace_rdec_hold *h)
{
	struct psiplace_rdec_pending *p;

	cluster(c, n);
	running(c, 1, N1_2, 2, 1, 4)->end = NOW + 1000;
	p = pending(c, 20, 2);
	p->planned_start = NOW + 1000;
	p->planned = N3_4;
	p->nplanned = 2;
	*h = (struct psiplace_rdec_hold){ .job = 20, .nodes = N3_4, .nnodes = 2 };
	c->s.holds = h;
	c->s.nholds = 1;
	return p;
}

Test(rdec, hold_no_grow_into_the_nodes_released_for_a_pending_job)
{
	struct cluster c;
	struct psiplace_rdec_hold h;

	after_shrink(&c, 4, &h);
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)");
	c.s.nholds = 0; /* the stale plan alone protects nothing */
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1");
}

Test(rdec, hold_other_idle_nodes_may_still_be_granted)
{
	struct cluster c;
	struct psiplace_rdec_hold h;

	after_shrink(&c, 5, &h);
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n5), decision 1");
}

Test(rdec, hold_ignored_when_its_job_is_not_pending)
{
	struct cluster c;
	struct psiplace_rdec_hold h;

	after_shrink(&c, 4, &h);
	h.job = 21; /* started, ended, or left out: not in pending[] */
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1");
	h.job = 20;
	c.s.npending = 0;
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1");
}

Test(rdec, hold_counts_for_its_job_no_second_shrink)
{
	struct cluster c;
	struct psiplace_rdec_hold h;

	after_shrink(&c, 6, &h);
	running(&c, 2, N5_6, 2, 1, 2);
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)\njob 2: nothing (at max)");
}

Test(rdec, hold_counts_in_its_jobs_reservation)
{
	struct cluster c;
	struct psiplace_rdec_hold h;
	struct psiplace_rdec_pending *p = after_shrink(&c, 5, &h);

	p->planned_start = PSIPLACE_RDEC_UNKNOWN; /* 3b: reserves 2, both held for it */
	p->planned = NULL;
	p->nplanned = 0;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n5), decision 1");
	p->nodes = 3; /* one more: the best unheld idle node */
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)");
}

Test(rdec, drained_and_powered_down_nodes_are_never_granted)
{
	struct cluster c;

	cluster(&c, 5);
	running(&c, 1, N1, 1, 1, 5);
	c.nodes[1].usable = false;
	c.nodes[2].node.power = false;
	c.nodes[2].node.power_state = PSIPLACE_POWERED_DOWN;
	c.nodes[3].node.power_state = PSIPLACE_POWERING_UP;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n5), decision 1");
	c.nodes[4].usable = false;
	cr_assert_str_eq(decide(&c), "job 1: nothing (no free node)");
}

Test(rdec, grow_stays_in_the_jobs_partition)
{
	struct cluster c;

	cluster(&c, 4);
	c.nodes[1].partitions = "debug";
	c.nodes[2].partitions = "batch,debug";
	running(&c, 1, N1, 1, 1, 4)->partition = "batch";
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1");
}

Test(rdec, grow_takes_what_the_growing_jobs_policy_prefers)
{
	struct cluster c;

	cluster(&c, 5);
	running(&c, 1, N1, 1, 1, 3)->policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n4,n5), decision 1");
}

/* --- whose policy: the job's own, its partition line's, the cluster's --- */

/* n1..n4, job 1 holding all four, job 20 (2 nodes, partition batch)
 * waiting: n2..n4 may be released (n1 is the batch host). */
static void donor_and_waiter(struct cluster *c, uint32_t need)
{
	cluster(c, 4);
	running(c, 1, N1_4, 4, 1, 4)->partition = "batch";
	pending(c, 20, need)->partition = "batch";
}

Test(rdec, shrink_releases_what_the_partition_line_prefers)
{
	static const struct psiplace_rdec_partpolicy parts[] = {
		{ .name = "debug", .has_policy = true, .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
		{ .name = "batch", .has_policy = true, .policy = PSIPLACE_POLICY_LASTAVAILABLE },
	};
	struct cluster c;

	donor_and_waiter(&c, 2);
	c.p.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	c.p.parts = parts;
	c.p.nparts = 2;
	cr_assert_str_eq(decide(&c), "job 1: shrink 2 (n3,n4) for job 20, decision 1");
}

Test(rdec, shrink_the_waiting_jobs_own_policy_wins_over_its_partition_line)
{
	static const struct psiplace_rdec_partpolicy parts[] = {
		{ .name = "batch", .has_policy = true, .policy = PSIPLACE_POLICY_LASTAVAILABLE },
	};
	struct cluster c;

	donor_and_waiter(&c, 1);
	c.p.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	c.p.parts = parts;
	c.p.nparts = 1;
	c.pend[0].policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
}

Test(rdec, shrink_another_partitions_line_does_not_apply)
{
	static const struct psiplace_rdec_partpolicy parts[] = {
		{ .name = "batch2", .has_policy = true, .policy = PSIPLACE_POLICY_LASTAVAILABLE },
		{ .name = "batc", .has_policy = true, .policy = PSIPLACE_POLICY_LASTAVAILABLE },
	};
	struct cluster c;

	donor_and_waiter(&c, 1);
	c.p.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	c.p.parts = parts;
	c.p.nparts = 2;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
	c.pend[0].partition = "batch2,batc"; /* several partitions: no line, the cluster's */
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
}

Test(rdec, shrink_a_partition_line_without_a_policy_keeps_the_clusters)
{
	struct psiplace_rdec_partpolicy parts[] = { { .name = "batch" } };
	struct cluster c;

	donor_and_waiter(&c, 1);
	c.p.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	c.p.parts = parts;
	c.p.nparts = 1;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n4) for job 20, decision 1");
	/* NodeAllocationPolicy=none on the line: cons_tres's order, not the cluster's */
	parts[0].has_policy = true;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
}

Test(rdec, grow_takes_what_its_partition_line_prefers)
{
	static const struct psiplace_rdec_partpolicy parts[] = {
		{ .name = "batch", .has_policy = true, .policy = PSIPLACE_POLICY_LASTAVAILABLE },
	};
	struct cluster c;

	cluster(&c, 5);
	running(&c, 1, N1, 1, 1, 3)->partition = "batch";
	c.p.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	c.p.parts = parts;
	c.p.nparts = 1;
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n4,n5), decision 1");
	c.run[0].policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE; /* its own wins */
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n2,n3), decision 1");
}

static struct psiplace_priorityf *fn(const char *expr)
{
	struct psiplace_priorityf *f;
	psiplace_error_t err;

	cr_assert_eq(psiplace_priorityf_compile(expr, "test", &f, &err), 0, "%s", err.text);
	return f;
}

/* Speeds n1..n4: 1, 2, 3, 0.5, Priority 10, 20, 5, 1; PRIORITY by the
 * function that applies. */
Test(rdec, priority_function_job_then_partition_line_then_cluster)
{
	struct psiplace_priorityf *speed = fn("SPEED"), *slow = fn("-SPEED"), *prio = fn("PRIORITY");
	struct psiplace_rdec_partpolicy parts[] = {
		{ .name = "batch", .has_policy = true, .policy = PSIPLACE_POLICY_PRIORITY },
	};
	static const double sp[] = { 1.0, 2.0, 3.0, 0.5 }, pr[] = { 10, 20, 5, 1 };
	struct cluster c;

	donor_and_waiter(&c, 1);
	for (int i = 0; i < 4; i++)
		c.nodes[i].node.speed = sp[i], c.nodes[i].node.priority = pr[i];
	c.p.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	c.p.cluster_policy.priorityf = slow;
	c.p.parts = parts;
	c.p.nparts = 1;
	/* the partition's PRIORITY, the cluster's function: the slowest, n4 */
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n4) for job 20, decision 1");
	parts[0].priorityf = speed; /* the partition's function: the fastest, n3 */
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n3) for job 20, decision 1");
	c.pend[0].policy.policy = PSIPLACE_POLICY_PRIORITY; /* the job's own: by Priority, n2 */
	c.pend[0].policy.priorityf = prio;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
	psiplace_priorityf_free(speed);
	psiplace_priorityf_free(slow);
	psiplace_priorityf_free(prio);
}

Test(rdec, policy_overrides_weight_is_passed_to_the_engine)
{
	struct cluster c;

	donor_and_waiter(&c, 1);
	c.nodes[1].node.weight = 2; /* n2 in a later weight tier than n3, n4 */
	c.p.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n3) for job 20, decision 1");
	c.p.policy_overrides_weight = true;
	cr_assert_str_eq(decide(&c), "job 1: shrink 1 (n2) for job 20, decision 1");
}

Test(rdec, two_growers_higher_priority_first_then_lower_id)
{
	struct cluster c;

	cluster(&c, 5);
	running(&c, 1, N1, 1, 1, 3)->priority = 10;
	running(&c, 2, N2, 1, 1, 3)->priority = 20;
	cr_assert_str_eq(decide(&c), "job 1: grow 1 (n5), decision 1\n"
				     "job 2: grow 2 (n3,n4), decision 2");
	c.run[1].priority = 10;
	cr_assert_str_eq(decide(&c), "job 1: grow 2 (n3,n4), decision 1\n"
				     "job 2: grow 1 (n5), decision 2");
}

Test(rdec, decision_ids_count_from_first_id_and_skip_nothing)
{
	struct cluster c;
	struct psiplace_rdec_result r;
	psiplace_error_t err;

	cluster(&c, 5);
	running(&c, 5, N1, 1, 1, 2);
	running(&c, 3, N2, 1, 1, 1);
	running(&c, 4, N3_4, 2, 1, 2);
	cr_assert_eq(psiplace_rdec_decide(&c.s, &c.p, 41, &r, &err), 0, "%s", err.text);
	cr_assert_eq(r.n, 3);
	cr_assert(r.d[0].job == 3 && r.d[0].id == 0 && r.d[0].action == PSIPLACE_RDEC_NOTHING);
	cr_assert(r.d[1].job == 4 && r.d[1].id == 0 && r.d[1].why == PSIPLACE_RDEC_WHY_AT_MAX);
	cr_assert(r.d[2].job == 5 && r.d[2].id == 41 && r.d[2].action == PSIPLACE_RDEC_GROW);
	cr_assert_eq(r.d[2].k, 1);
	cr_assert_eq(r.d[2].nodes[0], 4);
	psiplace_rdec_result_free(&r);
}

Test(rdec, deterministic_whatever_the_order_of_running_jobs)
{
	struct cluster a, b;
	char first[4096];

	cluster(&a, 6);
	running(&a, 1, N1, 1, 1, 3);
	running(&a, 2, N2, 1, 1, 3);
	strcpy(first, decide(&a));
	cluster(&b, 6);
	running(&b, 2, N2, 1, 1, 3);
	running(&b, 1, N1, 1, 1, 3);
	cr_assert_str_eq(decide(&b), first);
	cr_assert_str_eq(first, "job 1: grow 2 (n3,n4), decision 1\njob 2: grow 2 (n5,n6), decision 2");
}

/* --- an inconsistent state is refused --- */

Test(rdec, state_errors)
{
	struct cluster c;
	static const uint32_t bad[] = { 9 };

	cluster(&c, 2);
	running(&c, 1, N1, 1, 1, 2);
	running(&c, 2, N1, 1, 0, 0);
	refused(&c, "resize decision: node 0 held by jobs 1 and 2");
	cluster(&c, 2);
	running(&c, 1, bad, 1, 1, 2);
	refused(&c, "resize decision: job 1: holds node 9 of 2 nodes");
	cluster(&c, 2);
	running(&c, 1, N1, 1, 3, 2);
	refused(&c, "resize decision: job 1: range 3-2 (accepted: 1 <= MIN <= MAX)");
	cluster(&c, 2);
	running(&c, 1, N1, 1, 0, 2);
	refused(&c, "resize decision: job 1: range 0-2 (accepted: 1 <= MIN <= MAX)");
	cluster(&c, 2);
	running(&c, 1, N1, 0, 1, 2);
	refused(&c, "resize decision: running job 1 holds no node");
	cluster(&c, 2);
	pending(&c, 7, 0);
	refused(&c, "resize decision: pending job 7 asks for no node");
	cluster(&c, 2);
	pending(&c, 7, 1)->planned = bad;
	c.pend[0].nplanned = 1;
	refused(&c, "resize decision: job 7: planned on node 9 of 2 nodes");
	cluster(&c, 2);
	pending(&c, 7, 1)->policy.policy = (enum psiplace_policy)99;
	refused(&c, "resize decision: job 7: unknown policy");
	cluster(&c, 2);
	c.p.min_interval = -1;
	refused(&c, "resize decision: negative minimum interval");
	cluster(&c, 2);
	struct psiplace_rdec_partpolicy lines[] = { { .name = "a" }, { .name = NULL } };
	c.p.parts = lines;
	c.p.nparts = 2;
	refused(&c, "resize decision: partition line 2 has no name");
	lines[1].name = "b";
	lines[1].policy = (enum psiplace_policy)99;
	refused(&c, "resize decision: partition b: unknown policy");
	cluster(&c, 2);
	struct psiplace_rdec_hold h = { .job = 7, .nodes = bad, .nnodes = 1 };
	c.s.holds = &h;
	c.s.nholds = 1;
	refused(&c, "resize decision: job 7: held node 9 of 2 nodes");
	h.nnodes = 0;
	refused(&c, "resize decision: hold for job 7 names no node");
	c.s.holds = NULL;
	refused(&c, "resize decision: missing array");
}

Test(rdec, empty_cluster_decides_nothing)
{
	struct cluster c;

	cluster(&c, 0);
	cr_assert_str_eq(decide(&c), "");
}

Test(rdec, format_reports_a_short_buffer)
{
	struct cluster c;
	struct psiplace_rdec_result r;
	psiplace_error_t err;
	char buf[64];

	cluster(&c, 4);
	running(&c, 1, N1, 1, 1, 4);
	cr_assert_eq(psiplace_rdec_decide(&c.s, &c.p, 1, &r, &err), 0);
	cr_assert_eq(psiplace_rdec_format(&c.s, &r.d[0], buf, 10), -1);
	cr_assert_eq(psiplace_rdec_format(&c.s, &r.d[0], buf, 36), -1);
	cr_assert_eq(psiplace_rdec_format(&c.s, &r.d[0], buf, 37), 36);
	cr_assert_str_eq(buf, "job 1: grow 3 (n2,n3,n4), decision 1");
	psiplace_rdec_result_free(&r);
}

Test(rdec, params_defaults_and_reason_words)
{
	struct psiplace_rdec_params p;

	psiplace_rdec_params_init(&p);
	cr_assert_eq(p.min_interval, 60);
	cr_assert_eq(p.max_grow, 0);
	cr_assert(p.allow_shrink);
	cr_assert_eq(p.cluster_policy.policy, PSIPLACE_POLICY_NONE);
	cr_assert_str_eq(psiplace_rdec_why_name(PSIPLACE_RDEC_WHY_NONE), "");
	cr_assert_str_eq(psiplace_rdec_why_name(PSIPLACE_RDEC_WHY_NO_NODES), "no free node");
}

/* --- the rules as invariants, on generated clusters --- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const char *const parts[] = { NULL, "a", "b", "a,b" };
static const enum psiplace_policy pols[] = { PSIPLACE_POLICY_NONE, PSIPLACE_POLICY_FIRSTAVAILABLE,
					     PSIPLACE_POLICY_LASTAVAILABLE, PSIPLACE_POLICY_CONTIGUOUS };

struct gen {
	struct cluster c;
	uint32_t held[8][4];
	uint32_t planned[8][4];
	uint32_t hold[2][3];
	struct psiplace_rdec_hold holds[2];
};

static void generate(struct gen *g, uint64_t *s)
{
	struct cluster *c = &g->c;
	size_t n = 2 + rnd(s) % 12, q = 0;

	cluster(c, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd(s) % 10;

		c->nodes[i].usable = rnd(s) % 10 != 0;
		c->nodes[i].partitions = parts[rnd(s) % 4];
		if (r == 0 || r == 1) {
			c->nodes[i].node.power_state = r ? PSIPLACE_POWERED_DOWN : PSIPLACE_POWERING_UP;
			c->nodes[i].node.power = r == 0;
		}
	}
	while (q < n && c->s.nrunning < 6) {
		size_t len = 1 + rnd(s) % 3, j;
		struct psiplace_rdec_running *r;
		uint32_t min, max;

		if (rnd(s) % 4 == 0) { /* leave a gap */
			q++;
			continue;
		}
		for (j = 0; j < len && q + j < n; j++)
			g->held[c->s.nrunning][j] = (uint32_t)(q + j);
		q += j;
		min = 1 + (uint32_t)(rnd(s) % j);
		max = rnd(s) % 10 < 7 ? min + (uint32_t)(rnd(s) % 4) : 0;
		r = running(c, (uint32_t)(100 - c->s.nrunning * 7), g->held[c->s.nrunning], j,
			    max ? min : 0, max);
		r->partition = parts[rnd(s) % 3];
		r->end = NOW + 100 + (int64_t)(rnd(s) % 2000);
		r->last_resize = rnd(s) % 2 ? NOW - (int64_t)(rnd(s) % 200) : 0;
		r->in_progress = rnd(s) % 10 == 0;
		r->priority = (uint32_t)(rnd(s) % 3);
		r->policy.policy = pols[rnd(s) % 4];
	}
	for (size_t k = 0, np = rnd(s) % 4; k < np; k++) {
		struct psiplace_rdec_pending *p = pending(c, (uint32_t)(500 + k), 1 + (uint32_t)(rnd(s) % 6));

		p->partition = parts[rnd(s) % 3];
		p->policy.policy = pols[rnd(s) % 4];
		if (rnd(s) % 3) {
			p->planned_start = NOW + (int64_t)(rnd(s) % 3000);
			p->nplanned = rnd(s) % 4;
			for (size_t j = 0; j < p->nplanned; j++)
				g->planned[k][j] = (uint32_t)(rnd(s) % n);
			p->planned = g->planned[k];
		}
	}
	c->p.min_interval = (int64_t)(rnd(s) % 100);
	c->p.max_grow = (uint32_t)(rnd(s) % 3);
	c->p.allow_shrink = rnd(s) % 2;
	/* holds for pending jobs, or for a job that is not pending (500 + 3) */
	for (size_t k = 0, nh = rnd(s) % 3; k < nh; k++) {
		struct psiplace_rdec_hold *h = &g->holds[c->s.nholds++];

		h->job = 500 + (uint32_t)(rnd(s) % 4);
		h->nnodes = 1 + rnd(s) % 3;
		for (size_t j = 0; j < h->nnodes; j++)
			g->hold[k][j] = (uint32_t)(rnd(s) % n);
		h->nodes = g->hold[k];
	}
	c->s.holds = g->holds;
}

static const struct psiplace_rdec_running *job_of(const struct cluster *c, uint32_t id)
{
	for (size_t i = 0; i < c->s.nrunning; i++)
		if (c->run[i].id == id)
			return &c->run[i];
	return NULL;
}

static bool planned_before(const struct cluster *c, uint32_t q, int64_t end)
{
	for (size_t i = 0; i < c->s.npending; i++) {
		const struct psiplace_rdec_pending *p = &c->pend[i];

		for (size_t j = 0; j < p->nplanned; j++)
			if (p->planned[j] == q && p->planned_start != PSIPLACE_RDEC_UNKNOWN &&
			    p->planned_start < end)
				return true;
	}
	return false;
}

/* Held for a job of pending[] (rule 3d). */
static bool held_for_pending(const struct cluster *c, uint32_t q)
{
	for (size_t i = 0; i < c->s.nholds; i++)
		for (size_t j = 0; j < c->s.holds[i].nnodes; j++)
			for (size_t k = 0; k < c->s.npending; k++)
				if (c->s.holds[i].nodes[j] == q && c->pend[k].id == c->s.holds[i].job)
					return true;
	return false;
}

static bool holds(const struct psiplace_rdec_running *r, uint32_t q)
{
	for (size_t j = 0; j < r->nnodes; j++)
		if (r->nodes[j] == q)
			return true;
	return false;
}

static void check_shrink(const struct cluster *c, const struct psiplace_rdec_running *r,
			 const struct psiplace_rdec_decision *d)
{
	cr_assert(c->p.allow_shrink && !r->in_progress);
	cr_assert(r->last_resize <= 0 || NOW - r->last_resize >= c->p.min_interval);
	cr_assert_geq(r->nnodes - d->k, r->min, "job %u below its min", r->id);
	cr_assert_eq(d->for_job, c->pend[0].id);
	for (uint32_t i = 0; i < d->k; i++) {
		cr_assert(holds(r, d->nodes[i]) && d->nodes[i] != r->nodes[0]);
		cr_assert(c->nodes[d->nodes[i]].usable);
	}
}

static void check_grow(const struct cluster *c, const struct psiplace_rdec_running *r,
		       const struct psiplace_rdec_decision *d)
{
	cr_assert(!r->in_progress);
	cr_assert_leq(r->nnodes + d->k, r->max);
	cr_assert(!c->p.max_grow || d->k <= c->p.max_grow);
	for (uint32_t i = 0; i < d->k; i++) {
		const struct psiplace_rdec_node *n = &c->nodes[d->nodes[i]];

		cr_assert(n->usable && n->node.power_state == PSIPLACE_POWER_UP);
		cr_assert_eq(n->node.alloc_cpus, 0);
		for (size_t j = 0; j < c->s.nrunning; j++)
			cr_assert_not(holds(&c->run[j], d->nodes[i]));
		cr_assert(!n->partitions || !r->partition || strstr(n->partitions, r->partition));
		cr_assert_not(planned_before(c, d->nodes[i], r->end), "grow into a planned node");
		cr_assert_not(held_for_pending(c, d->nodes[i]), "grow into a held node");
	}
}

static void check_result(const struct cluster *c, const struct psiplace_rdec_result *res)
{
	unsigned char used[MAXN] = { 0 };
	size_t malleable = 0;
	uint64_t next = 1;

	for (size_t i = 0; i < c->s.nrunning; i++)
		malleable += c->run[i].max != 0;
	cr_assert_eq(res->n, malleable);
	for (size_t i = 0; i < res->n; i++) {
		const struct psiplace_rdec_decision *d = &res->d[i];
		const struct psiplace_rdec_running *r = job_of(c, d->job);

		cr_assert(r && r->max);
		cr_assert(i == 0 || res->d[i - 1].job < d->job);
		if (d->action == PSIPLACE_RDEC_NOTHING) {
			cr_assert(d->id == 0 && d->k == 0 && !d->nodes);
			continue;
		}
		cr_assert_eq(d->id, next++);
		cr_assert_geq(d->k, 1);
		for (uint32_t k = 0; k < d->k; k++) {
			cr_assert(k == 0 || d->nodes[k - 1] < d->nodes[k]);
			cr_assert_not(used[d->nodes[k]], "node in two decisions");
			used[d->nodes[k]] = 1;
		}
		if (d->action == PSIPLACE_RDEC_SHRINK)
			check_shrink(c, r, d);
		else
			check_grow(c, r, d);
	}
}

Test(rdec, invariants_hold_on_generated_clusters)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	size_t shrinks = 0, grows = 0;

	for (int round = 0; round < 3000; round++) {
		struct gen g;
		struct psiplace_rdec_result r;
		psiplace_error_t e;
		char first[4096];

		generate(&g, &s);
		cr_assert_eq(psiplace_rdec_decide(&g.c.s, &g.c.p, 1, &r, &e), 0, "%s", e.text);
		check_result(&g.c, &r);
		for (size_t i = 0; i < r.n; i++) {
			shrinks += r.d[i].action == PSIPLACE_RDEC_SHRINK;
			grows += r.d[i].action == PSIPLACE_RDEC_GROW;
		}
		psiplace_rdec_result_free(&r);
		/* the same snapshot, the running jobs in reverse: the same lines */
		strcpy(first, decide(&g.c));
		for (size_t i = 0, j = g.c.s.nrunning - 1; g.c.s.nrunning && i < j; i++, j--) {
			struct psiplace_rdec_running t = g.c.run[i];

			g.c.run[i] = g.c.run[j];
			g.c.run[j] = t;
		}
		cr_assert_str_eq(decide(&g.c), first, "round %d", round);
	}
	/* the generator reaches both actions often */
	cr_assert_gt(shrinks, 80, "%zu shrinks", shrinks);
	cr_assert_gt(grows, 300, "%zu grows", grows);
}
