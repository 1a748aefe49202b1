/* Malleable jobs in the replay (opts.malleable, common/sim/sim_mall.c):
 * a grow and a shrink whose effect is computed by hand, the efficiency
 * and the cost, and on random traces the invariants: no node held by two
 * jobs at any time, every malleable job within its range, its work
 * conserved.  Also the options' error lines and the sacct Comment tag. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/sim.h"

struct fixture {
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	struct psiplace_sim_report r;
};

/* SWF lines "ID SUBMIT RUN PROCS LIMIT;" on nodes. */
static int run_rc(struct fixture *f, const char *nodes_csv, const char *jobs,
		  const struct psiplace_sim_opts *o, psiplace_error_t *err)
{
	static char swf[1 << 20];
	const char *p = jobs;
	size_t at = 0;

	swf[0] = '\0';
	while (*p) {
		long id, sub, rn, cpus, lim;
		int used = (int)strlen(p);

		cr_assert_eq(
			sscanf(p, "%ld %ld %ld %ld %ld;%n", &id, &sub, &rn, &cpus, &lim, &used), 5);
		at += (size_t)snprintf(swf + at, sizeof(swf) - at,
				       "%ld %ld -1 %ld %ld -1 -1 %ld %ld -1 1 1 1 -1 1 -1 -1 -1\n",
				       id, sub, rn, cpus, cpus, lim);
		cr_assert_lt(at, sizeof(swf));
		p += used;
		while (*p == ' ')
			p++;
	}
	cr_assert_eq(
		psiplace_sim_trace_parse(swf, at, "t.swf", PSIPLACE_SIM_SWF, false, &f->t, err), 0,
		"%s", err->text);
	cr_assert_eq(psiplace_nodetable_parse(nodes_csv, strlen(nodes_csv), "n.csv", &f->nt, err),
		     0, "%s", err->text);
	return psiplace_sim_run(&f->t, f->nt.nodes, f->nt.n, o, &f->r, err);
}

static void run(struct fixture *f, const char *nodes_csv, const char *jobs,
		const struct psiplace_sim_opts *o)
{
	psiplace_error_t err;

	cr_assert_eq(run_rc(f, nodes_csv, jobs, o, &err), 0, "%s", err.text);
}

static void done(struct fixture *f)
{
	psiplace_sim_report_free(&f->r);
	psiplace_sim_trace_free(&f->t);
	psiplace_nodetable_free(&f->nt);
}

#define FOUR "name,cpus\nn1,1\nn2,1\nn3,1\nn4,1\n"

static struct psiplace_sim_malleable mall(enum psiplace_sim_mall_rule rule)
{
	struct psiplace_sim_malleable m;

	psiplace_sim_malleable_init(&m);
	m.rule = rule;
	m.fraction = 1.0;
	m.log = true;
	return m;
}

/* A of 2 nodes, 100 s (200 node-seconds), range [1, 4], alone on 4 nodes:
 * the first decision (t 0) grows it by the 2 idle nodes; the grow costs
 * ceil(0.24 + 2 x 0.23) = 1 s without progress, then 200 / 4 = 50 s: it
 * ends at 51 (rigid: 100). */
Test(sim_malleable, a_grow_into_idle_nodes_by_hand)
{
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_FRACTION);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m };
	struct fixture f;

	run(&f, FOUR, "1 0 100 2 1000", &o);
	cr_assert_eq(f.r.malleable, 1);
	cr_assert_eq(f.r.res[0].mall_min, 1);
	cr_assert_eq(f.r.res[0].mall_max, 4);
	cr_assert_eq(f.r.res[0].start, 0);
	cr_assert_eq(f.r.res[0].end, 51);
	cr_assert_eq(f.r.makespan, 51);
	cr_assert_eq(f.r.grows, 1);
	cr_assert_eq(f.r.shrinks, 0);
	cr_assert_eq(f.r.nresizes, 1);
	cr_assert_eq(f.r.resizes[0].t, 0);
	cr_assert_eq(f.r.resizes[0].done, 1);
	cr_assert_eq(f.r.resizes[0].from, 2);
	cr_assert_eq(f.r.resizes[0].to, 4);
	cr_assert_eq(f.r.resize_nodes[f.r.resizes[0].first], 2, "%u",
		     f.r.resize_nodes[f.r.resizes[0].first]); /* n3, n4: FIRSTAVAILABLE */
	cr_assert_eq(f.r.resize_nodes[f.r.resizes[0].first + 1], 3);
	/* held: 2 nodes 0..0, 4 nodes 0..51: 204 node-seconds */
	cr_assert_float_eq(f.r.node_hours, 204.0 / 3600, 1e-9);
	done(&f);

	m.efficiency = 0.5; /* 2 + 0.5 x 2 = 3 nodes' work a second: 1 + ceil(200 / 3) */
	run(&f, FOUR, "1 0 100 2 1000", &o);
	cr_assert_eq(f.r.res[0].end, 68);
	done(&f);

	m.efficiency = 1;
	m.grow_base = m.grow_per_node = 0; /* no cost: 200 / 4 */
	run(&f, FOUR, "1 0 100 2 1000", &o);
	cr_assert_eq(f.r.res[0].end, 50);
	done(&f);

	m.range_hi = 1.5; /* [1, 3]: one node more, 1 + ceil(200 / 3) */
	run(&f, FOUR, "1 0 100 2 1000", &o);
	cr_assert_eq(f.r.res[0].mall_max, 3);
	cr_assert_eq(f.r.resizes[0].to, 3);
	cr_assert_eq(f.r.res[0].end, 67);
	done(&f);
}

/* A of 4 nodes, 100 s (400 node-seconds), range [2, 4]; B rigid, 2 nodes,
 * 50 s, submitted at 10.  Rigid: B waits for A's end, 100..150.
 * Malleable (min-nodes=3: only A): at 10 A shrinks by 2 (n2, n3: B's
 * policy's first of A's nodes but its batch host) for B; the shrink costs
 * 1 s, so B starts at 11 on n2, n3 and ends at 61.  A did 40 node-seconds
 * by 10, none 10..11, 2 x 59 from 11 to 70, when its minimum interval
 * (60 s after 10) lets it grow back into n2, n3: 400 - 40 - 118 = 242
 * left, 1 s of cost, 242 / 4 = 60.5: A ends at 71 + 61 = 132. */
Test(sim_malleable, a_shrink_for_the_first_waiting_job_by_hand)
{
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_MIN_NODES);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m };
	struct psiplace_sim_opts rigid = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE } };
	struct fixture f;

	run(&f, FOUR, "1 0 100 4 1000; 2 10 50 2 1000", &rigid);
	cr_assert_eq(f.r.res[1].start, 100);
	cr_assert_eq(f.r.makespan, 150);
	done(&f);

	m.min_nodes = 3;
	run(&f, FOUR, "1 0 100 4 1000; 2 10 50 2 1000", &o);
	cr_assert_eq(f.r.malleable, 1);
	cr_assert_eq(f.r.res[1].mall_max, 0, "B is rigid");
	cr_assert_eq(f.r.res[1].start, 11);
	cr_assert_eq(f.r.res[1].end, 61);
	cr_assert_eq(f.nt.nodes[f.r.alloc[f.r.res[1].nfirst]].index, 1);     /* n2 */
	cr_assert_eq(f.nt.nodes[f.r.alloc[f.r.res[1].nfirst + 1]].index, 2); /* n3 */
	cr_assert_eq(f.r.shrinks, 1);
	cr_assert_eq(f.r.grows, 1);
	cr_assert_eq(f.r.nresizes, 2);
	cr_assert_eq(f.r.resizes[0].t, 10);
	cr_assert_eq(f.r.resizes[0].done, 11);
	cr_assert_eq(f.r.resizes[0].to, 2);
	cr_assert_eq(f.r.resize_nodes[f.r.resizes[0].first], 1);
	cr_assert_eq(f.r.resize_nodes[f.r.resizes[0].first + 1], 2);
	cr_assert_eq(f.r.resizes[1].t, 70);
	cr_assert_eq(f.r.resizes[1].to, 4);
	cr_assert_eq(f.r.res[0].end, 132);
	cr_assert_eq(f.r.makespan, 132);
	cr_assert_float_eq(f.r.wait_mean, 0.5, 1e-9);
	done(&f);

	m.min_interval = 0; /* back as soon as B ends: tick 65 (5 s ticks), not 70 */
	run(&f, FOUR, "1 0 100 4 1000; 2 10 50 2 1000", &o);
	cr_assert_eq(f.r.resizes[1].t, 65);
	/* 400 - 40 - 2 x 54 = 252, 1 s, 252 / 4 = 63: 66 + 63 */
	cr_assert_eq(f.r.res[0].end, 129);
	done(&f);
}

/* A shrink that cannot start the first waiting job is not made: B wants 4
 * nodes of 4, A may give only 2 (its minimum). */
Test(sim_malleable, no_partial_shrink)
{
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_MIN_NODES);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m };
	struct fixture f;

	m.min_nodes = 3;
	run(&f, FOUR, "1 0 100 3 1000; 2 10 50 4 1000", &o);
	cr_assert_eq(f.r.shrinks, 0);
	cr_assert_eq(f.r.grows, 1, "A grows into n4 at 0 (no one waits then)");
	done(&f);
}

/* Random traces of single-CPU nodes: reconstruct who holds which node
 * over time from the results and the resize log, and check. */
struct span {
	int64_t t0, t1;
	uint32_t job;
};

static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void check_invariants(struct fixture *f, const struct psiplace_sim_malleable *m)
{
	size_t nn = f->nt.n, cap = 4096;
	struct span **sp = calloc(nn, sizeof(*sp));
	size_t *ns = calloc(nn, sizeof(*ns));
	uint32_t *held = calloc(nn, sizeof(*held));
	int64_t *since = calloc(nn, sizeof(*since));

	cr_assert(sp && ns && held && since);
	for (size_t i = 0; i < nn; i++)
		cr_assert(sp[i] = calloc(cap, sizeof(**sp)));
	for (size_t j = 0; j < f->t.n; j++) {
		const struct psiplace_sim_result *r = &f->r.res[j];
		uint32_t k = r->nnodes;
		double work = 0, rate, need;
		int64_t t = r->start, busy_until = r->start, limit = f->t.jobs[j].limit;
		int64_t run = f->t.jobs[j].runtime < limit ? f->t.jobs[j].runtime : limit;

		if (r->start < 0)
			continue;
		for (size_t i = 0; i < nn; i++)
			held[i] = 0;
		for (uint32_t a = 0; a < k; a++)
			held[f->r.alloc[r->nfirst + a]] = 1,
						    since[f->r.alloc[r->nfirst + a]] = r->start;
		rate = k;
		need = (double)k * (double)run;
		for (size_t x = 0; x < f->r.nresizes; x++) {
			const struct psiplace_sim_resize *z = &f->r.resizes[x];
			const uint32_t *zn = f->r.resize_nodes + z->first;
			uint32_t dk = z->to > z->from ? z->to - z->from : z->from - z->to;

			if (z->job != j)
				continue;
			cr_assert_eq(z->from, k, "job %zu: resize from %u, holds %u", j, z->from,
				     k);
			cr_assert(z->to >= r->mall_min && z->to <= r->mall_max,
				  "job %zu: size %u outside [%u, %u]", j, z->to, r->mall_min,
				  r->mall_max);
			cr_assert_geq(z->t, busy_until,
				      "job %zu: a resize while one is in progress", j);
			cr_assert(z->t >= r->start && z->done <= r->end);
			work += rate * (double)(z->t - (t > busy_until ? t : busy_until));
			for (uint32_t a = 0; a < dk; a++) {
				uint32_t i = zn[a];

				if (z->to > z->from) { /* taken at t */
					cr_assert(!held[i]);
					held[i] = 1;
					since[i] = z->t;
				} else { /* given back when done */
					cr_assert(held[i]);
					held[i] = 0;
					cr_assert_lt(ns[i], cap);
					sp[i][ns[i]++] =
						(struct span){ since[i], z->done, (uint32_t)j };
				}
			}
			k = z->to;
			t = z->t;
			busy_until = z->done;
			rate = (double)r->nnodes + m->efficiency * ((double)k - (double)r->nnodes);
		}
		for (size_t i = 0; i < nn; i++)
			if (held[i]) {
				cr_assert_lt(ns[i], cap);
				sp[i][ns[i]++] = (struct span){ since[i], r->end, (uint32_t)j };
			}
		work += rate * (double)(r->end - busy_until);
		/* conserved: every node-second of the traced run is done, and the
		 * job ends in the second the last one is (the clock's unit) */
		cr_assert_geq(work + 1e-6, need, "job %zu: %.1f of %.1f node-seconds", j, work,
			      need);
		cr_assert_lt(work, need + rate + 1e-6, "job %zu: %.1f of %.1f node-seconds", j,
			     work, need);
	}
	for (size_t i = 0; i < nn; i++) {
		for (size_t a = 0; a < ns[i]; a++)
			for (size_t b = a + 1; b < ns[i]; b++)
				cr_assert(
					sp[i][a].t1 <= sp[i][b].t0 || sp[i][b].t1 <= sp[i][a].t0,
					"node %zu held by jobs %u [%lld, %lld) and %u [%lld, %lld)",
					i, sp[i][a].job, (long long)sp[i][a].t0,
					(long long)sp[i][a].t1, sp[i][b].job,
					(long long)sp[i][b].t0, (long long)sp[i][b].t1);
		free(sp[i]);
	}
	free(sp);
	free(ns);
	free(held);
	free(since);
}

Test(sim_malleable, random_traces_keep_the_invariants)
{
	static const char *const eight =
		"name,cpus\nn1,1\nn2,1\nn3,1\nn4,1\nn5,1\nn6,1\nn7,1\nn8,1\n";
	size_t total_resizes = 0;

	for (unsigned seed = 1; seed <= 40; seed++) {
		struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_FRACTION);
		struct psiplace_sim_opts o = { .rank = { .policy = 1 + seed % 7 },
					       .malleable = &m };
		static char jobs[1 << 16];
		size_t at = 0;
		unsigned s = seed;
		long sub = 0;
		struct fixture f;

		m.fraction = 0.5;
		m.seed = seed;
		m.efficiency = seed % 3 ? 1.0 : 0.7;
		m.min_interval = seed % 4 ? 60 : 0;
		if (seed % 6 == 0) /* resizes without cost: a shrink's nodes back at once */
			m.grow_base = m.grow_per_node = m.shrink_base = 0;
		if (seed % 6 == 3) /* costly resizes: several seconds */
			m.grow_per_node = m.shrink_per_node = 2.5;
		o.plan_all = seed % 5 == 0;
		o.reserve_count = seed % 5 == 1;
		for (int j = 1; j <= 60; j++) {
			long run = 1 + lcg(&s) % 400, lim = run + lcg(&s) % 300;

			sub += lcg(&s) % 40;
			if (lcg(&s) % 8 == 0)
				lim = run > 5 ? run - 5 : run; /* killed at its limit */
			at += (size_t)snprintf(jobs + at, sizeof(jobs) - at, "%d %ld %ld %u %ld; ",
					       j, sub, run, 1 + lcg(&s) % 6, lim);
		}
		jobs[at - 2] = '\0';
		run(&f, eight, jobs, &o);
		cr_assert_gt(f.r.malleable, 0);
		check_invariants(&f, &m);
		total_resizes += f.r.nresizes;
		done(&f);
	}
	cr_assert_gt(total_resizes, 100, "the traces resize (%zu)", total_resizes);
}

/* The same seed chooses the same jobs, a share near the fraction. */
Test(sim_malleable, fraction_is_reproducible)
{
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_FRACTION);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m };
	static char jobs[1 << 16];
	struct fixture a, b;
	size_t at = 0, same = 0;

	for (int j = 1; j <= 1000; j++)
		at += (size_t)snprintf(jobs + at, sizeof(jobs) - at, "%d %d 10 1 20; ", j, j * 100);
	jobs[at - 2] = '\0';
	m.fraction = 0.25;
	m.seed = 7;
	run(&a, FOUR, jobs, &o);
	run(&b, FOUR, jobs, &o);
	cr_assert(a.r.malleable > 200 && a.r.malleable < 300, "%zu of 1000", a.r.malleable);
	for (size_t i = 0; i < 1000; i++)
		same += (a.r.res[i].mall_max > 0) == (b.r.res[i].mall_max > 0);
	cr_assert_eq(same, 1000);
	done(&b);
	m.seed = 8;
	run(&b, FOUR, jobs, &o);
	same = 0;
	for (size_t i = 0; i < 1000; i++)
		same += (a.r.res[i].mall_max > 0) == (b.r.res[i].mall_max > 0);
	cr_assert_lt(same, 1000, "another seed, other jobs");
	done(&a);
	done(&b);
}

Test(sim_malleable, options_one_error_line_naming_flag_value_accepted)
{
	static const struct {
		const char *flag, *value, *err;
	} bad[] = {
		{ "malleable", "fraction=0",
		  "--malleable: 'fraction=0' is not accepted; accepted: "
		  "fraction=F (0 < F <= 1) with an optional ,seed=N; "
		  "min-nodes=N (N >= 1); trace" },
		{ "malleable", "fraction=1.5", NULL },
		{ "malleable", "min-nodes=0", NULL },
		{ "malleable", "seed=3", NULL },
		{ "malleable", "trace,min-nodes=2", NULL },
		{ "malleable", "half", NULL },
		{ "malleable", "", NULL },
		{ "malleable-range", "2,1",
		  "--malleable-range: '2,1' is not accepted; accepted: LO,HI, "
		  "multiples of a job's nodes: 0 < LO <= 1 <= HI <= 1000" },
		{ "malleable-range", "0.5", NULL },
		{ "malleable-range", "0,2", NULL },
		{ "resize-interval", "0",
		  "--resize-interval: '0' is not accepted; accepted: a whole "
		  "number of seconds, 1 to 86400" },
		{ "resize-interval", "5s", NULL },
		{ "resize-min-interval", "-1", NULL },
		{ "resize-cost", "1,2,3",
		  "--resize-cost: '1,2,3' is not accepted; accepted: "
		  "GROW_BASE,GROW_PER_NODE,SHRINK_BASE,SHRINK_PER_NODE, "
		  "seconds, each 0 to 86400" },
		{ "resize-cost", "1,2,3,-4", NULL },
		{ "resize-cost", "1,2,3,nan", NULL },
		{ "resize-efficiency", "0",
		  "--resize-efficiency: '0' is not accepted; accepted: a "
		  "number, 0 < E <= 1" },
		{ "resize-efficiency", "1.01", NULL },
	};
	struct psiplace_sim_malleable m;
	psiplace_error_t err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		psiplace_sim_malleable_init(&m);
		cr_assert_eq(psiplace_sim_malleable_option(&m, bad[i].flag, bad[i].value, &err), -1,
			     "--%s %s", bad[i].flag, bad[i].value);
		cr_assert(!strchr(err.text, '\n'));
		if (bad[i].err)
			cr_assert_str_eq(err.text, bad[i].err);
		else
			cr_assert(strstr(err.text, bad[i].flag) && strstr(err.text, "accepted:"),
				  "%s", err.text);
	}
	psiplace_sim_malleable_init(&m);
	cr_assert_eq(psiplace_sim_malleable_option(&m, "malleable", "fraction=0.25,seed=1", &err),
		     0);
	cr_assert_eq(m.rule, PSIPLACE_SIM_MALL_FRACTION);
	cr_assert_float_eq(m.fraction, 0.25, 1e-12);
	cr_assert_eq(m.seed, 1);
	cr_assert_eq(psiplace_sim_malleable_option(&m, "malleable", "min-nodes=4", &err), 0);
	cr_assert_eq(m.rule, PSIPLACE_SIM_MALL_MIN_NODES);
	cr_assert_eq(m.min_nodes, 4);
	cr_assert_eq(psiplace_sim_malleable_option(&m, "resize-cost", "0.3,0.1,0.2,0.05", &err), 0);
	cr_assert_float_eq(m.shrink_per_node, 0.05, 1e-12);
	cr_assert_eq(psiplace_sim_malleable_option(&m, "malleable-range", "1,4", &err), 0);
	cr_assert_float_eq(m.range_hi, 4, 1e-12);
}

/* sacct: Comment or AdminComment psi-malleable=MIN-MAX, or AdminComment
 * psiplace-malleable=MIN-MAX (job_submit/psiplace), marks the job;
 * `--malleable trace` then uses its range. */
Test(sim_malleable, sacct_comment_marks_malleable_jobs)
{
	static const char hdr[] =
		"JobIDRaw|Submit|Start|End|Timelimit|NNodes|NCPUS|Comment|AdminComment\n";
	static const char rows[] =
		"1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:20:00|2|2|psi-malleable=1-4|\n"
		"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:20:00|1|1|run 3|\n"
		"3|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:20:00|1|1||x psi-malleable=1-2\n"
		"4|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:20:00|1|1||psiplace-malleable=1-3\n";
	char text[1024];
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	struct psiplace_sim_report r;
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_TRACE);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m };
	psiplace_error_t err;

	snprintf(text, sizeof(text), "%s%s", hdr, rows);
	cr_assert_eq(psiplace_sim_trace_parse(text, strlen(text), "s", PSIPLACE_SIM_AUTO, false, &t,
					      &err),
		     0, "%s", err.text);
	cr_assert_eq(t.jobs[0].mall_min, 1);
	cr_assert_eq(t.jobs[0].mall_max, 4);
	cr_assert_eq(t.jobs[1].mall_max, 0);
	cr_assert_eq(t.jobs[2].mall_max, 2);
	/* what job_submit/psiplace writes into AdminComment */
	cr_assert_eq(t.jobs[3].mall_min, 1);
	cr_assert_eq(t.jobs[3].mall_max, 3);
	cr_assert_eq(psiplace_nodetable_parse(FOUR, strlen(FOUR), "n", &nt, &err), 0);
	cr_assert_eq(psiplace_sim_run(&t, nt.nodes, nt.n, &o, &r, &err), 0, "%s", err.text);
	cr_assert_eq(r.malleable, 3);
	cr_assert_eq(r.res[0].mall_max, 4);
	cr_assert_eq(r.res[2].mall_max, 2);
	psiplace_sim_report_free(&r);
	psiplace_nodetable_free(&nt);
	psiplace_sim_trace_free(&t);

	snprintf(
		text, sizeof(text), "%s%s", hdr,
		"1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:20:00|2|2|psi-malleable=4-1|\n");
	cr_assert_eq(psiplace_sim_trace_parse(text, strlen(text), "s", PSIPLACE_SIM_AUTO, false, &t,
					      &err),
		     -1);
	cr_assert_str_eq(err.text, "s:2: Comment: psi-malleable= is not MIN-MAX (1 <= MIN <= MAX)");
}

Test(sim_malleable, not_with_traced_starts)
{
	struct psiplace_sim_malleable m = mall(PSIPLACE_SIM_MALL_FRACTION);
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE },
				       .malleable = &m,
				       .trace_starts = true };
	struct fixture f;
	psiplace_error_t err;

	cr_assert_eq(run_rc(&f, FOUR, "1 0 100 2 1000", &o, &err), -1);
	cr_assert(strstr(err.text, "traced starts"), "%s", err.text);
	psiplace_sim_trace_free(&f.t);
	psiplace_nodetable_free(&f.nt);
}
