/* psiplace-malleabled's pure half (cli/malleabled/md_model.h) on made-up
 * records: the state file, the snapshot, and whole cycles (orders, acks,
 * deadlines, restarts) with the exact texts written into AdminComment. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "md_model.h"

#define NOW 1000000

struct rec {
	struct psiplace_md_node nodes[8];
	struct psiplace_md_part parts[2];
	struct psiplace_md_job jobs[8];
	struct psiplace_md_input in;
	struct psiplace_md_params p;
	struct psiplace_md_tracks T;
	struct psiplace_md_out out;
};

static const char *const names[] = { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8" };

static void rec(struct rec *r, size_t n)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r->nodes[i].name = names[i];
		r->nodes[i].cpus = 4;
		r->nodes[i].usable = true;
		r->nodes[i].partitions = "debug";
	}
	r->parts[0].name = "debug";
	r->parts[0].total_nodes = (uint32_t)n;
	r->in.now = NOW;
	r->in.nodes = r->nodes;
	r->in.nnodes = n;
	r->in.parts = r->parts;
	r->in.nparts = 1;
	r->in.jobs = r->jobs;
	psiplace_rdec_params_init(&r->p.rdec);
	r->p.rdec.min_interval = 0;
	r->p.ack_timeout = 60;
	r->p.hold_time = 120;
	r->p.max_pending = 100;
	psiplace_md_tracks_init(&r->T);
	psiplace_md_out_init(&r->out);
}

static struct psiplace_md_job *job(struct rec *r, uint32_t id, enum psiplace_md_jstate st,
				   const char *nodes, uint32_t n)
{
	struct psiplace_md_job *j = &r->jobs[r->in.njobs++];

	j->id = id;
	j->state = st;
	j->eligible = true;
	j->name = "wrap";
	j->partition = "debug";
	j->nodes = nodes;
	j->num_nodes = n;
	j->priority = 100;
	j->end = PSIPLACE_RDEC_NEVER;
	j->time_limit = PSIPLACE_RDEC_NEVER;
	if (st == PSIPLACE_MD_RUNNING)
		for (size_t i = 0; i < r->in.nnodes; i++)
			if (strstr(nodes, r->nodes[i].name))
				r->nodes[i].allocated = true;
	return j;
}

static void run(struct rec *r)
{
	psiplace_error_t err;

	psiplace_md_out_free(&r->out);
	cr_assert_eq(psiplace_md_cycle(&r->in, &r->p, &r->T, &r->out, &err), 0, "%s", err.text);
}

static void assert_action(const struct rec *r, size_t i, enum psiplace_md_act kind, uint32_t job,
			  const char *text)
{
	cr_assert_gt(r->out.n, i, "action %zu missing (%zu actions)", i, r->out.n);
	cr_assert_eq(r->out.a[i].kind, kind, "action %zu", i);
	cr_assert_eq(r->out.a[i].job, job, "action %zu", i);
	if (text)
		cr_assert_str_eq(r->out.a[i].text, text, "action %zu", i);
}

static bool said(const struct rec *r, const char *line)
{
	for (size_t i = 0; i < r->out.nline; i++)
		if (!strcmp(r->out.line[i], line))
			return true;
	return false;
}

static void finish(struct rec *r)
{
	psiplace_md_out_free(&r->out);
	psiplace_md_tracks_free(&r->T);
}

Test(malleabled, idle_cluster_grow_order_into_admin_comment)
{
	struct rec r;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1)->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	cr_assert_eq(r.out.ndecision, 1);
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 3 (n2,n3,n4), decision 1");
	cr_assert_eq(r.out.n, 1);
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-resize=1;grow;3;1000060");
	cr_assert_eq(r.T.next_id, 2);
	cr_assert_eq(r.T.n, 1);
	cr_assert_eq(r.T.t[0].order.id, 1);
	finish(&r);
}

Test(malleabled, rigid_job_waiting_makes_a_shrink_naming_the_nodes)
{
	struct rec r;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4)->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 2);
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 2 (n2,n3) for job 11, decision 1");
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10,
		      "psiplace-resize=1;shrink;2;1000060;n2,n3;11");
	finish(&r);
}

Test(malleabled, job_without_range_is_not_decided)
{
	struct rec r;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1)->admin_comment = "reserved";
	run(&r);
	cr_assert_eq(r.out.ndecision, 0);
	cr_assert_eq(r.out.n, 0);
	cr_assert_eq(r.T.n, 0);
	finish(&r);
}

Test(malleabled, ack_of_current_order_clears_it_back_to_the_range)
{
	struct rec r;
	struct psiplace_md_job *j;
	char held[sizeof(r.out.a[0].text)];

	rec(&r, 4);
	r.p.rdec.min_interval = 600;
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	/* what slurmctld now holds (a copy: the next run frees r.out) */
	snprintf(held, sizeof(held), "%s", r.out.a[0].text);
	j->admin_comment = held;
	j->comment = "psiplace-ack=1;done;4";
	j->num_nodes = 4;
	r.in.now += 5;
	run(&r);
	cr_assert(said(&r, "job 10: decision 1 acknowledged done, size 4 (Slurm: 4 nodes)"));
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-malleable=1-4");
	cr_assert_eq(r.T.t[0].order.id, 0);
	cr_assert_eq(r.T.t[0].last_resize, NOW + 5);
	/* within MalleableMinInterval: no new order */
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (too soon)");
	cr_assert_eq(r.out.n, 1);
	finish(&r);
}

Test(malleabled, ack_of_another_id_is_ignored_and_logged_once)
{
	struct rec r;
	struct psiplace_md_job *j;

	rec(&r, 4);
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	j->admin_comment = "psiplace-resize=1;grow;3;1000060";
	j->comment = "psiplace-ack=9;done;4";
	run(&r);
	cr_assert(said(&r, "job 10: ignoring acknowledgement 9 (the outstanding decision is 1)"));
	cr_assert_eq(r.out.n, 0, "nothing written");
	cr_assert_eq(r.T.t[0].order.id, 1);
	run(&r);
	cr_assert_not(said(&r, "job 10: ignoring acknowledgement 9 (the outstanding decision is 1)"));
	finish(&r);
}

Test(malleabled, order_past_its_deadline_is_withdrawn_and_helper_cancelled)
{
	struct rec r;
	struct psiplace_md_job *j, *h;

	rec(&r, 4);
	r.p.rdec.min_interval = 600;
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	j->admin_comment = "psiplace-resize=1;grow;3;1000060";
	h = job(&r, 12, PSIPLACE_MD_PENDING, NULL, 3);
	h->name = "psiplace-grow-10-1";
	r.in.now = 1000060;
	run(&r);
	cr_assert_eq(r.out.n, 0, "at the deadline it still stands");
	r.in.now = 1000061;
	run(&r);
	cr_assert(said(&r, "job 10: decision 1 withdrawn (not acknowledged by its deadline)"));
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-malleable=1-4");
	assert_action(&r, 1, PSIPLACE_MD_CANCEL, 12, NULL);
	cr_assert_eq(r.out.n, 2);
	cr_assert_eq(r.T.next_id, 2, "the id is not given again");
	finish(&r);
}

Test(malleabled, restart_without_state_adopts_the_order_and_moves_the_counter)
{
	struct rec r;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1)->admin_comment =
		"psiplace-resize=41;grow;3;1000060";
	job(&r, 20, PSIPLACE_MD_RUNNING, "n2", 1)->admin_comment = "psiplace-malleable=1-2";
	run(&r);
	cr_assert(said(&r, "job 10: adopting decision 41 found in its AdminComment"));
	cr_assert_eq(psiplace_md_track_of(&r.T, 10, false)->order.id, 41);
	/* job 20's grow takes the next id after the adopted one */
	cr_assert_str_eq(r.out.decision[0], "job 20: grow 1 (n3), decision 42");
	cr_assert_eq(r.T.next_id, 43);
	finish(&r);
}

Test(malleabled, order_lost_by_slurmctld_is_written_again)
{
	struct rec r;
	struct psiplace_md_job *j;

	rec(&r, 4);
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	run(&r); /* the write did not happen: AdminComment still the range */
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-resize=1;grow;3;1000060");
	cr_assert_eq(r.out.ndecision, 1);
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (in progress)");
	finish(&r);
}

Test(malleabled, ended_job_track_dropped_and_helper_cancelled)
{
	struct rec r;
	struct psiplace_md_job *j, *h;

	rec(&r, 4);
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	j->state = PSIPLACE_MD_OTHER;
	h = job(&r, 12, PSIPLACE_MD_PENDING, NULL, 3);
	h->name = "psiplace-grow-10-1";
	run(&r);
	cr_assert_eq(r.T.n, 0);
	assert_action(&r, 0, PSIPLACE_MD_CANCEL, 12, NULL);
	cr_assert(said(&r, "job 10: ended with decision 1 outstanding"));
	finish(&r);
}

Test(malleabled, sweep_cancels_every_helper_no_outstanding_grow_stands_for)
{
	struct rec r;
	struct psiplace_md_job *j;
	static const char *const orphans[] = {
		"psiplace-grow-10-7",  /* an old decision of the job */
		"psiplace-grow-99-1",  /* a job that is not running */
		"psiplace-grow-10-01", /* not the text the job's side writes */
		"psiplace-grow-10-1x", "psiplace-grow-",
	};

	rec(&r, 4);
	r.p.rdec.min_interval = 600;
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	cr_assert_eq(r.T.t[0].order.id, 1);
	j->admin_comment = "psiplace-resize=1;grow;3;1000060";
	job(&r, 30, PSIPLACE_MD_PENDING, NULL, 3)->name = "psiplace-grow-10-1";
	for (size_t i = 0; i < sizeof(orphans) / sizeof(orphans[0]); i++)
		job(&r, 31 + (uint32_t)i, i % 2 ? PSIPLACE_MD_RUNNING : PSIPLACE_MD_PENDING,
		    i % 2 ? "n4" : NULL, 1)->name = orphans[i];
	job(&r, 40, PSIPLACE_MD_OTHER, NULL, 1)->name = "psiplace-grow-10-3"; /* ended */
	run(&r);
	cr_assert_eq(r.out.n, 5, "one cancel per orphan, none for decision 1's helper");
	for (size_t i = 0; i < 5; i++) {
		char line[160];

		assert_action(&r, i, PSIPLACE_MD_CANCEL, 31 + (uint32_t)i, NULL);
		snprintf(line, sizeof(line),
			 "cancelling grow helper %zu (%s): no outstanding decision stands for it",
			 31 + i, orphans[i]);
		cr_assert(said(&r, line), "%s", line);
	}
	cr_assert_eq(r.T.t[0].order.id, 1, "the order stands");
	finish(&r);
}

Test(malleabled, sweep_after_an_ack_failed_cancels_the_helper_once)
{
	struct rec r;
	struct psiplace_md_job *j;

	rec(&r, 4);
	r.p.rdec.min_interval = 600;
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	run(&r);
	j->admin_comment = "psiplace-resize=1;grow;3;1000060";
	j->comment = "psiplace-ack=1;failed;1;no_node";
	job(&r, 30, PSIPLACE_MD_PENDING, NULL, 3)->name = "psiplace-grow-10-1";
	run(&r);
	cr_assert(said(&r, "job 10: cancelling its grow helper 30 (psiplace-grow-10-1)"));
	size_t cancels = 0;

	for (size_t i = 0; i < r.out.n; i++)
		cancels += r.out.a[i].kind == PSIPLACE_MD_CANCEL;
	cr_assert_eq(cancels, 1, "one scancel, not one more by the sweep");
	finish(&r);
}

Test(malleabled, restart_without_state_counts_past_the_ack_in_comment)
{
	struct rec r;
	struct psiplace_md_job *j;

	rec(&r, 4);
	/* the order 41 was acknowledged and cleared before the state was lost */
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	j->comment = "psiplace-ack=41;done;1";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 3 (n2,n3,n4), decision 42");
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-resize=42;grow;3;1000060");
	cr_assert_eq(r.T.next_id, 43);
	/* the old acknowledgement does not answer decision 42 */
	j->admin_comment = "psiplace-resize=42;grow;3;1000060";
	run(&r);
	cr_assert_eq(r.T.t[0].order.id, 42);
	cr_assert_eq(r.out.n, 0);
	finish(&r);
}

Test(malleabled, ack_id_beyond_the_id_range_does_not_move_the_counter)
{
	struct rec r;
	struct psiplace_md_job *j;

	rec(&r, 4);
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-4";
	j->comment = "psiplace-ack=18446744073709551615;done;1";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 3 (n2,n3,n4), decision 1");
	cr_assert_eq(r.T.next_id, 2);
	j->comment = "psiplace-ack=9007199254740991;done;1"; /* PSIPLACE_MD_ID_MAX - 1 */
	run(&r);
	cr_assert_eq(r.T.next_id, PSIPLACE_MD_ID_MAX);
	finish(&r);
}

/* The shrink job 10 refuses, at time now: its order text acknowledged failed. */
static void refuse_shrink(struct rec *r, struct psiplace_md_job *j, char *held, size_t len,
			  char *ack, size_t alen)
{
	cr_assert(!strncmp(r->out.decision[0], "job 10: shrink 2 ", 17), "%s", r->out.decision[0]);
	snprintf(held, len, "%s", r->out.a[r->out.n - 1].text);
	j->admin_comment = held;
	snprintf(ack, alen, "psiplace-ack=%llu;failed;4;busy",
		 (unsigned long long)r->T.t[0].order.id);
	j->comment = ack;
}

Test(malleabled, refused_shrink_backs_off_doubling_and_a_done_one_resets_it)
{
	struct rec r;
	struct psiplace_md_job *j;
	char held[sizeof(r.out.a[0].text)], ack[64];

	rec(&r, 4);
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4);
	j->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 2);
	run(&r);
	refuse_shrink(&r, j, held, sizeof(held), ack, sizeof(ack));
	r.in.now = NOW + 1;
	run(&r);
	cr_assert(said(&r, "job 10: shrink refused 1 time in a row: no shrink order for 10 s"));
	cr_assert_eq(r.T.t[0].no_shrink_until, NOW + 11);
	j->admin_comment = "psiplace-malleable=1-4";
	r.in.now = NOW + 10;
	run(&r);
	cr_assert(strncmp(r.out.decision[0], "job 10: shrink", 14), "%s", r.out.decision[0]);
	cr_assert_eq(r.out.n, 0);
	r.in.now = NOW + 11;
	run(&r);
	refuse_shrink(&r, j, held, sizeof(held), ack, sizeof(ack));
	r.in.now = NOW + 12;
	run(&r);
	cr_assert(said(&r, "job 10: shrink refused 2 times in a row: no shrink order for 20 s"));
	j->admin_comment = "psiplace-malleable=1-4";
	r.in.now = NOW + 31;
	run(&r);
	cr_assert(strncmp(r.out.decision[0], "job 10: shrink", 14), "%s", r.out.decision[0]);
	r.in.now = NOW + 32;
	run(&r);
	cr_assert(!strncmp(r.out.decision[0], "job 10: shrink 2 ", 17), "%s", r.out.decision[0]);
	/* carried out: the back-off ends */
	snprintf(held, sizeof(held), "%s", r.out.a[0].text);
	j->admin_comment = held;
	snprintf(ack, sizeof(ack), "psiplace-ack=%llu;done;2",
		 (unsigned long long)r.T.t[0].order.id);
	j->comment = ack;
	r.in.now = NOW + 33;
	run(&r);
	cr_assert_eq(r.T.t[0].refusals, 0);
	cr_assert_eq(r.T.t[0].no_shrink_until, 0);
	finish(&r);
}

Test(malleabled, unacknowledged_shrink_counts_as_refused)
{
	struct rec r;
	struct psiplace_md_job *j;
	char held[sizeof(r.out.a[0].text)];

	rec(&r, 4);
	r.p.rdec.min_interval = 30; /* the back-off starts at MalleableMinInterval */
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4);
	j->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 2);
	run(&r);
	snprintf(held, sizeof(held), "%s", r.out.a[0].text);
	j->admin_comment = held;
	r.in.now = NOW + 61;
	run(&r);
	cr_assert(said(&r, "job 10: decision 1 withdrawn (not acknowledged by its deadline)"));
	cr_assert(said(&r, "job 10: shrink refused 1 time in a row: no shrink order for 30 s"));
	cr_assert_eq(r.T.t[0].no_shrink_until, NOW + 91);
	finish(&r);
}

Test(malleabled, snapshot_within_shrink_backoff_min_is_the_size)
{
	struct rec r;
	struct psiplace_md_snapshot s;
	psiplace_error_t err;
	struct psiplace_md_track *t;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-3]", 3);
	t = psiplace_md_track_of(&r.T, 10, true);
	t->min = 1;
	t->max = 4;
	t->refusals = 1;
	t->no_shrink_until = NOW + 1;
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.running[0].min, 3, "it may not shrink");
	cr_assert_eq(s.state.running[0].max, 4, "it may grow");
	psiplace_md_snapshot_free(&s);
	t->no_shrink_until = NOW;
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.running[0].min, 1, "the back-off is over");
	psiplace_md_snapshot_free(&s);
	finish(&r);
}

Test(malleabled, snapshot_pending_by_priority_without_helpers_or_held_jobs)
{
	struct rec r;
	struct psiplace_md_snapshot s;
	psiplace_error_t err;

	rec(&r, 4);
	job(&r, 5, PSIPLACE_MD_PENDING, NULL, 1)->priority = 10;
	job(&r, 6, PSIPLACE_MD_PENDING, "n[2-3]", 2)->priority = 50;
	job(&r, 7, PSIPLACE_MD_PENDING, NULL, 1)->name = "psiplace-grow-1-2";
	job(&r, 8, PSIPLACE_MD_PENDING, NULL, 1)->eligible = false;
	job(&r, 9, PSIPLACE_MD_PENDING, NULL, 0)->priority = 50;
	r.jobs[1].start = NOW + 30;
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.npending, 3);
	cr_assert_eq(s.state.pending[0].id, 6);
	cr_assert_eq(s.state.pending[0].planned_start, NOW + 30);
	cr_assert_eq(s.state.pending[0].nplanned, 2);
	cr_assert_eq(s.state.pending[0].planned[0], 1);
	cr_assert_eq(s.state.pending[0].planned[1], 2);
	cr_assert_eq(s.state.pending[1].id, 9);
	cr_assert_eq(s.state.pending[1].nodes, 1, "0 nodes asked: 1");
	cr_assert_eq(s.state.pending[1].planned_start, PSIPLACE_RDEC_UNKNOWN);
	cr_assert_eq(s.state.pending[2].id, 5);
	psiplace_md_snapshot_free(&s);
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 1, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.npending, 1, "capped at max_pending");
	psiplace_md_snapshot_free(&s);
	finish(&r);
}

Test(malleabled, snapshot_shared_nodes_stay_with_the_malleable_job)
{
	struct rec r;
	struct psiplace_md_snapshot s;
	psiplace_error_t err;
	struct psiplace_md_track *t;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n1,n2", 2);
	job(&r, 11, PSIPLACE_MD_RUNNING, "n[2-3]", 2);
	job(&r, 12, PSIPLACE_MD_RUNNING, "n3", 1);
	job(&r, 13, PSIPLACE_MD_RUNNING, "n9", 1);
	t = psiplace_md_track_of(&r.T, 11, true);
	t->min = 1;
	t->max = 8;
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.nrunning, 2);
	cr_assert_eq(s.state.running[0].id, 11);
	cr_assert_eq(s.state.running[0].nnodes, 2);
	cr_assert_eq(s.state.running[0].max, 4, "MAX cut to the partition's size");
	cr_assert_eq(s.state.running[1].id, 10);
	cr_assert_eq(s.state.running[1].nnodes, 1, "n2 stays job 11's");
	cr_assert_eq(s.state.running[1].nodes[0], 0);
	cr_assert_eq(s.skipped, 2, "job 12 (batch host n3 is job 11's), job 13 (unknown node)");
	cr_assert(s.state.nodes[0].node.alloc_cpus == 4 && s.state.nodes[3].node.alloc_cpus == 0);
	psiplace_md_snapshot_free(&s);
	finish(&r);
}

/* After a merge NodeList is in node order; the batch host (the job
 * record's batch_host) is the decision's first node, the others keep
 * their order. */
Test(malleabled, snapshot_batch_host_first)
{
	struct rec r;
	struct psiplace_md_snapshot s;
	psiplace_error_t err;

	rec(&r, 4);
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4)->batch_host = "n3";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 1);
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.nrunning, 1);
	cr_assert_eq(s.state.running[0].nnodes, 4);
	cr_assert_eq(s.state.running[0].nodes[0], 2, "n3, the batch host, first");
	cr_assert_eq(s.state.running[0].nodes[1], 0);
	cr_assert_eq(s.state.running[0].nodes[2], 1);
	cr_assert_eq(s.state.running[0].nodes[3], 3);
	psiplace_md_snapshot_free(&s);
	r.jobs[0].batch_host = "n9";
	cr_assert_eq(psiplace_md_snapshot_build(&r.in, &r.T, 100, NULL, &s,
						&err),
		     0);
	cr_assert_eq(s.state.running[0].nodes[0], 0, "a batch host not in NodeList: its order");
	cr_assert_eq(s.state.running[0].nodes[3], 3);
	psiplace_md_snapshot_free(&s);
	finish(&r);
}

Test(malleabled, partition_max_nodes_below_min_is_not_malleable)
{
	struct rec r;

	rec(&r, 4);
	r.parts[0].max_nodes = 2;
	job(&r, 10, PSIPLACE_MD_RUNNING, "n1,n2,n3", 3)->admin_comment = "psiplace-malleable=3-4";
	run(&r);
	cr_assert_eq(r.out.ndecision, 0);
	finish(&r);
}

Test(malleabled, state_file_round_trip)
{
	struct psiplace_md_tracks T, back;
	struct psiplace_md_track *t;
	psiplace_error_t err;
	char *text, *again;

	psiplace_md_tracks_init(&T);
	T.next_id = 17;
	t = psiplace_md_track_of(&T, 30, true);
	t->min = 1;
	t->max = 4;
	t->last_resize = 999;
	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize=16;shrink;2;5000;n[3-4];31",
						&t->order, &err),
		     1);
	psiplace_md_track_of(&T, 20, true)->max = 2;
	t = psiplace_md_track_of(&T, 40, true);
	t->min = 2;
	t->max = 8;
	t->refusals = 3;
	t->no_shrink_until = 1040;
	cr_assert_eq(psiplace_md_hold_add(&T, 31, 5100, "n[3-4]"), 0);
	cr_assert_gt(psiplace_md_tracks_format(&T, &text), 0);
	cr_assert_str_eq(text, "psiplace-malleabled 1\nnext_id 17\njob 20 0 2 0 -\n"
			       "job 30 1 4 999 psiplace-resize=16;shrink;2;5000;n[3-4];31\n"
			       "job 40 2 8 0 - 3 1040\nhold 31 5100 n[3-4]\n");
	psiplace_md_tracks_init(&back);
	cr_assert_eq(psiplace_md_tracks_parse(text, "st", &back, &err), 0, "%s", err.text);
	cr_assert_gt(psiplace_md_tracks_format(&back, &again), 0);
	cr_assert_str_eq(again, text);
	free(text);
	free(again);
	psiplace_md_tracks_free(&T);
	psiplace_md_tracks_free(&back);
}

Test(malleabled, state_file_counter_never_below_an_order_id)
{
	struct psiplace_md_tracks T;
	psiplace_error_t err;

	psiplace_md_tracks_init(&T);
	cr_assert_eq(psiplace_md_tracks_parse("psiplace-malleabled 1\nnext_id 3\n"
					      "job 5 1 4 0 psiplace-resize=9;grow;1;50\n",
					      "st", &T, &err),
		     0, "%s", err.text);
	cr_assert_eq(T.next_id, 10);
	psiplace_md_tracks_free(&T);
}

Test(malleabled, state_file_errors_one_line)
{
	struct psiplace_md_tracks T;
	psiplace_error_t err;

	psiplace_md_tracks_init(&T);
	cr_assert_eq(psiplace_md_tracks_parse("hello\n", "st", &T, &err), -1);
	cr_assert_str_eq(err.text, "st:1: not a state file of this daemon (expected "
				   "'psiplace-malleabled 1'): 'hello'");
	cr_assert_eq(psiplace_md_tracks_parse("psiplace-malleabled 1\nnext_id 0\n", "st", &T, &err),
		     -1);
	cr_assert_str_eq(err.text, "st:2: not 'next_id N' (N >= 1): 'next_id 0'");
	cr_assert_eq(psiplace_md_tracks_parse("psiplace-malleabled 1\nnext_id 2\njob 1 2\n", "st",
					      &T, &err),
		     -1);
	cr_assert_str_eq(
		err.text,
		"st:3: not 'job J MIN MAX LAST_RESIZE ORDER|- [REFUSALS NO_SHRINK_UNTIL]': "
		"'job 1 2'");
	cr_assert_eq(psiplace_md_tracks_parse("psiplace-malleabled 1\nnext_id 2\njob 1 1 2 0 -\n"
					      "job 1 1 2 0 -\n",
					      "st", &T, &err),
		     -1);
	cr_assert_str_eq(err.text, "st:4: a second line for job 'job 1 1 2 0 -'");
	/* the back-off's two fields: both, REFUSALS >= 1, nothing after */
	static const char *const bad[] = { "job 1 1 2 0 - 1", "job 1 1 2 0 - 0 5",
					   "job 1 1 2 0 - 1 5 x", "job 1 1 2 0 - x 5" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];

		snprintf(text, sizeof(text), "psiplace-malleabled 1\nnext_id 2\n%s\n", bad[i]);
		cr_assert_eq(psiplace_md_tracks_parse(text, "st", &T, &err), -1, "%s", bad[i]);
		cr_assert(strstr(err.text, "st:3: not 'job J MIN MAX"), "%s", err.text);
	}
	static const char *const bad_holds[] = { "hold 0 5 n1", "hold 7 5", "hold 7 x n1",
						 "hold 7 5 n1 n2" };

	for (size_t i = 0; i < sizeof(bad_holds) / sizeof(bad_holds[0]); i++) {
		char text[128], want[128];

		snprintf(text, sizeof(text), "psiplace-malleabled 1\nnext_id 2\n%s\n", bad_holds[i]);
		snprintf(want, sizeof(want), "st:3: not 'hold JOB UNTIL NODES': '%s'", bad_holds[i]);
		cr_assert_eq(psiplace_md_tracks_parse(text, "st", &T, &err), -1, "%s", bad_holds[i]);
		cr_assert_str_eq(err.text, want);
		cr_assert_eq(T.nholds, 0);
	}
	cr_assert_eq(psiplace_md_tracks_parse("psiplace-malleabled 1\n", "st", &T, &err), -1);
	cr_assert_str_eq(err.text, "st: truncated (no next_id line)");
	cr_assert_eq(T.n, 0);
	cr_assert_eq(T.next_id, 1);
}

/* --- the nodes a shrink released, held for the job it was made for --- */

/* Job 10 (1-4, on n1-n4, ends at NOW + 1000) was ordered to shrink 2
 * (n2,n3) for rigid job 11; now it acknowledges done on n1,n4 and job 11
 * still pends with backfill's stale plan: start at job 10's end, on n2,n3
 * (which protects nothing from a grow of job 10). */
static void shrunk_for_11(struct rec *r, struct psiplace_md_job **j10, struct psiplace_md_job **j11)
{
	static char admin[PSIPLACE_RCHAN_ADMIN_MAX];

	rec(r, 4);
	*j10 = job(r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4);
	(*j10)->admin_comment = "psiplace-malleable=1-4";
	(*j10)->end = NOW + 1000;
	*j11 = job(r, 11, PSIPLACE_MD_PENDING, NULL, 2);
	run(r);
	cr_assert_str_eq(r->out.decision[0], "job 10: shrink 2 (n2,n3) for job 11, decision 1");
	snprintf(admin, sizeof(admin), "%s", r->out.a[0].text);
	(*j10)->admin_comment = admin;
	(*j10)->nodes = "n[1,4]";
	(*j10)->num_nodes = 2;
	(*j10)->comment = "psiplace-ack=1;done;2";
	r->nodes[1].allocated = r->nodes[2].allocated = false;
	(*j11)->nodes = "n[2-3]";
	(*j11)->start = NOW + 1000;
	r->in.now += 2;
}

/* The cycle that reads the acknowledgement, and slurmctld then holding
 * what it wrote: job 10's AdminComment back to the range. */
static void ack_read(struct rec *r, struct psiplace_md_job *j10)
{
	run(r);
	assert_action(r, 0, PSIPLACE_MD_WRITE_ADMIN, 10, "psiplace-malleable=1-4");
	j10->admin_comment = "psiplace-malleable=1-4";
}

Test(malleabled, hold_no_grow_into_the_nodes_a_shrink_released_until_its_job_starts)
{
	struct rec r;
	struct psiplace_md_job *j10, *j11;

	shrunk_for_11(&r, &j10, &j11);
	ack_read(&r, j10);
	cr_assert(said(&r, "job 11: holding n2,n3 (released by job 10, decision 1) until it starts, "
			   "at most 120 s"));
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (no free node)");
	cr_assert_eq(r.T.nholds, 1);
	r.in.now += 30; /* the scheduler has not started it yet */
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (no free node)");
	/* it starts on the released nodes: the hold ends */
	j11->state = PSIPLACE_MD_RUNNING;
	j11->start = r.in.now;
	r.nodes[1].allocated = r.nodes[2].allocated = true;
	run(&r);
	cr_assert(said(&r, "job 11: hold of n2,n3 ended: it started"));
	cr_assert_eq(r.T.nholds, 0);
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (no free node)");
	finish(&r);
}

Test(malleabled, hold_ends_at_hold_time_or_when_its_job_is_gone)
{
	struct rec r;
	struct psiplace_md_job *j10, *j11;

	shrunk_for_11(&r, &j10, &j11);
	ack_read(&r, j10);
	r.in.now += 119;
	run(&r);
	cr_assert_eq(r.T.nholds, 1);
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (no free node)");
	r.in.now += 1; /* 120 s after the acknowledgement */
	run(&r);
	cr_assert(said(&r, "job 11: hold of n2,n3 ended: time is up"));
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 2 (n2,n3), decision 2");
	finish(&r);

	shrunk_for_11(&r, &j10, &j11);
	ack_read(&r, j10);
	r.in.njobs = 1; /* job 11 cancelled and purged */
	run(&r);
	cr_assert(said(&r, "job 11: hold of n2,n3 ended: it is no longer pending"));
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 2 (n2,n3), decision 2");
	finish(&r);
}

Test(malleabled, hold_time_zero_holds_nothing)
{
	struct rec r;
	struct psiplace_md_job *j10, *j11;

	shrunk_for_11(&r, &j10, &j11);
	r.p.hold_time = 0;
	run(&r);
	cr_assert_eq(r.T.nholds, 0);
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 2 (n2,n3), decision 2");
	finish(&r);
}

Test(malleabled, hold_survives_a_restart_with_the_state_file)
{
	struct rec r;
	struct psiplace_md_job *j10, *j11;
	struct psiplace_md_tracks back;
	psiplace_error_t err;
	char *text;

	shrunk_for_11(&r, &j10, &j11);
	ack_read(&r, j10);
	cr_assert_gt(psiplace_md_tracks_format(&r.T, &text), 0);
	psiplace_md_tracks_init(&back);
	cr_assert_eq(psiplace_md_tracks_parse(text, "st", &back, &err), 0, "%s", err.text);
	free(text);
	psiplace_md_tracks_free(&r.T);
	r.T = back;
	r.in.now += 5;
	run(&r);
	cr_assert_eq(r.T.nholds, 1);
	cr_assert_str_eq(r.out.decision[0], "job 10: nothing (no free node)");
	finish(&r);
}

/* --- each job's own policy, from the policy part of its AdminComment --- */

Test(malleabled, shrink_names_the_nodes_of_the_waiting_jobs_own_policy)
{
	struct rec r;

	rec(&r, 4);
	r.p.rdec.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4)->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 1)->admin_comment = "psiplace-policy=FIRSTAVAILABLE";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n2) for job 11, decision 1");
	r.jobs[1].admin_comment = NULL; /* none: the cluster's LASTAVAILABLE */
	psiplace_md_tracks_free(&r.T);
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n4) for job 11, decision 1");
	finish(&r);
}

/* Speeds and priorities from psiplace.conf (as the testbed's): FASTEST
 * takes n3, PRIORITY - SPEED n2 (18; n1 9, n3 2, n4 0.5). */
Test(malleabled, a_waiting_jobs_priority_function_and_psiconf_speeds)
{
	static const char conf[] = "NodeName=n1 Speed=1.0 Priority=10\nNodeName=n2 Speed=2.0 Priority=20\n"
				   "NodeName=n3 Speed=3.0 Priority=5\nNodeName=n4 Speed=0.5 Priority=1\n";
	struct psiplace_psiconf pc;
	psiplace_error_t err;
	struct rec r;

	cr_assert_eq(psiplace_psiconf_parse(conf, strlen(conf), "psiplace.conf", &pc, &err), 0, "%s",
		     err.text);
	rec(&r, 4);
	r.p.rdec.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	r.p.psiconf = &pc;
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4)->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 1)->admin_comment = "psiplace-policy=FASTEST";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n3) for job 11, decision 1");
	psiplace_md_tracks_free(&r.T);
	r.jobs[1].admin_comment = "psiplace-policy=PRIORITY;PRIORITY - SPEED";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n2) for job 11, decision 1");
	/* without psiconf every speed is 1.0: FASTEST ties, index order */
	psiplace_md_tracks_free(&r.T);
	r.p.psiconf = NULL;
	r.jobs[1].admin_comment = "psiplace-policy=FASTEST";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n2) for job 11, decision 1");
	finish(&r);
	psiplace_psiconf_free(&pc);
}

Test(malleabled, a_malformed_policy_part_falls_back_and_is_counted)
{
	struct rec r;

	rec(&r, 4);
	r.p.rdec.cluster_policy.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	job(&r, 10, PSIPLACE_MD_RUNNING, "n[1-4]", 4)->admin_comment = "psiplace-malleable=1-4";
	job(&r, 11, PSIPLACE_MD_PENDING, NULL, 1)->admin_comment = "psiplace-policy=FAST";
	job(&r, 12, PSIPLACE_MD_PENDING, NULL, 1)->admin_comment = "psiplace-policy=PRIORITY;SPEED +";
	r.jobs[2].priority = 1;
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: shrink 1 (n4) for job 11, decision 1");
	cr_assert_eq(r.out.bad_policies, 2);
	finish(&r);
}

Test(malleabled, grow_by_the_malleable_jobs_own_policy_and_orders_keep_it)
{
	struct rec r;
	struct psiplace_md_job *j;
	char held[sizeof(r.out.a[0].text)];

	rec(&r, 4);
	r.p.rdec.cluster_policy.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	r.p.rdec.min_interval = 600;
	j = job(&r, 10, PSIPLACE_MD_RUNNING, "n1", 1);
	j->admin_comment = "psiplace-malleable=1-2 psiplace-policy=LASTAVAILABLE";
	run(&r);
	cr_assert_str_eq(r.out.decision[0], "job 10: grow 1 (n4), decision 1");
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10,
		      "psiplace-resize=1;grow;1;1000060 psiplace-policy=LASTAVAILABLE");
	snprintf(held, sizeof(held), "%s", r.out.a[0].text);
	j->admin_comment = held;
	j->comment = "psiplace-ack=1;failed;1;no helper";
	run(&r);
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10,
		      "psiplace-malleable=1-2 psiplace-policy=LASTAVAILABLE");
	/* slurmctld lost the order: written again with the policy part */
	j->comment = NULL;
	j->admin_comment = "psiplace-malleable=1-2 psiplace-policy=PRIORITY;SPEED";
	r.T.t[0].order.id = 1;
	r.T.t[0].order.kind = PSIPLACE_RCHAN_GROW;
	r.T.t[0].order.k = 1;
	r.T.t[0].order.deadline = NOW + 60;
	run(&r);
	assert_action(&r, 0, PSIPLACE_MD_WRITE_ADMIN, 10,
		      "psiplace-resize=1;grow;1;1000060 psiplace-policy=PRIORITY;SPEED");
	finish(&r);
}
