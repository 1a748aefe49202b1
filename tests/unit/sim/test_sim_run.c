/* The replay on small hand-checked traces: exact starts, waits, makespan,
 * a backfill that may and one that may not start, the window, speed
 * scaling, exclusive nodes, fragmentation, a job too large. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/sim.h"

struct fixture {
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	struct psiplace_sim_report r;
};

/* SWF lines "ID SUBMIT RUN CPUS LIMIT" (the other fields -1) on nodes. */
static void run(struct fixture *f, const char *nodes_csv, const char *jobs,
		const struct psiplace_sim_opts *o)
{
	static char swf[65536];
	char line[256];
	const char *p = jobs;
	psiplace_error_t err;

	swf[0] = '\0';

	while (*p) {
		long id, sub, rn, cpus, lim;
		int used = (int)strlen(p);

		cr_assert_eq(sscanf(p, "%ld %ld %ld %ld %ld;%n", &id, &sub, &rn, &cpus, &lim, &used), 5);
		snprintf(line, sizeof(line), "%ld %ld -1 %ld %ld -1 -1 %ld %ld -1 1 1 1 -1 1 -1 -1 -1\n",
			 id, sub, rn, cpus, cpus, lim);
		cr_assert_lt(strlen(swf) + strlen(line), sizeof(swf));
		strcat(swf, line);
		p += used;
		while (*p == ' ')
			p++;
	}
	cr_assert_eq(psiplace_sim_trace_parse(swf, strlen(swf), "t.swf", PSIPLACE_SIM_SWF, false,
					      &f->t, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_nodetable_parse(nodes_csv, strlen(nodes_csv), "n.csv", &f->nt, &err), 0,
		     "%s", err.text);
	cr_assert_eq(psiplace_sim_run(&f->t, f->nt.nodes, f->nt.n, o, &f->r, &err), 0, "%s",
		     err.text);
}

static void done(struct fixture *f)
{
	psiplace_sim_report_free(&f->r);
	psiplace_sim_trace_free(&f->t);
	psiplace_nodetable_free(&f->nt);
}

static const char *node_of(const struct fixture *f, size_t job, uint32_t k)
{
	const struct psiplace_sim_result *r = &f->r.res[job];

	return f->nt.nodes[f->r.alloc[r->nfirst + k]].name;
}

#define TWO "name,cpus\nn1,4\nn2,4\n"
#define FA { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE } }

/* J1 holds n1 until 100 (limit 100); J2 wants both nodes: reserved at 100
 * on n1,n2.  J3 (limit 200) fits on n2 now but would hold it past 100: it
 * may not start.  J4 (limit 50) ends before 100: it backfills on n2. */
#define EASY "1 0 100 4 100; 2 1 50 8 100; 3 2 10 4 200; 4 3 40 4 50"

Test(sim_run, easy_backfill_only_jobs_that_do_not_delay_the_reservation)
{
	struct psiplace_sim_opts o = FA;
	struct fixture f;

	run(&f, TWO, EASY, &o);
	cr_assert_eq(f.r.res[0].start, 0);
	cr_assert_eq(f.r.res[3].start, 3, "J4 backfilled: %lld", (long long)f.r.res[3].start);
	cr_assert_str_eq(node_of(&f, 3, 0), "n2");
	cr_assert_eq(f.r.res[1].start, 100, "J2 at its reservation: %lld", (long long)f.r.res[1].start);
	cr_assert_eq(f.r.res[2].start, 150, "J3 after J2: %lld", (long long)f.r.res[2].start);
	cr_assert_eq(f.r.jobs, 4);
	cr_assert_eq(f.r.makespan, 160);
	cr_assert_float_eq(f.r.wait_mean, (0 + 99 + 148 + 0) / 4.0, 1e-9);
	cr_assert_float_eq(f.r.wait_median, (0 + 99) / 2.0, 1e-9);
	cr_assert_float_eq(f.r.wait_p95, 148, 1e-9);
	/* bounded slowdown: 1, (99+50)/50, (148+10)/10, 1 */
	cr_assert_float_eq(f.r.bsld_mean, (1 + 149 / 50.0 + 158 / 10.0 + 1) / 4, 1e-9);
	cr_assert_float_eq(f.r.utilisation, (4 * 100 + 8 * 50 + 4 * 10 + 4 * 40) / (8.0 * 160), 1e-9);
	done(&f);
}

Test(sim_run, reservation_beyond_the_window_holds_nothing_back)
{
	struct psiplace_sim_opts o = FA;
	struct fixture f;

	o.bf_window = 10; /* J2's reservation at 100 is 99 s away: none */
	run(&f, TWO, EASY, &o);
	cr_assert_eq(f.r.res[2].start, 2, "J3 starts at once: %lld", (long long)f.r.res[2].start);
	cr_assert_eq(f.r.res[3].start, 12, "J4 when J3 leaves n2: %lld", (long long)f.r.res[3].start);
	cr_assert_eq(f.r.res[1].start, 100, "J2 once both nodes are free: %lld",
		     (long long)f.r.res[1].start);
	done(&f);
}

Test(sim_run, policy_decides_the_nodes)
{
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_LASTAVAILABLE } };
	struct fixture f;

	run(&f, "name,cpus\nn1,4\nn2,4\nn3,4\n", "1 0 10 4 10", &o);
	cr_assert_str_eq(node_of(&f, 0, 0), "n3");
	done(&f);
	o.rank.policy = PSIPLACE_POLICY_FASTEST;
	run(&f, "name,cpus,speed\nn1,4,1\nn2,4,3\nn3,4,2\n", "1 0 10 4 10", &o);
	cr_assert_str_eq(node_of(&f, 0, 0), "n2");
	done(&f);
}

Test(sim_run, speed_scaling_divides_by_the_slowest_nodes_speed)
{
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FASTEST },
				       .speed_ref = 1.0 };
	struct fixture f;

	/* 8 CPUs: SWF jobs take nodes of the smallest node's CPUs (4) */
	run(&f, "name,cpus,speed\nn1,4,1\nn2,4,4\nn3,4,2\n", "1 0 100 4 100; 2 0 100 8 100", &o);
	cr_assert_eq(f.r.res[0].end - f.r.res[0].start, 25, "on n2 (Speed 4)");
	cr_assert_eq(f.r.res[1].nnodes, 2);
	cr_assert_eq(f.r.res[1].end - f.r.res[1].start, 100, "n1 (Speed 1) is the slowest");
	cr_assert_float_eq(f.r.cpu_hours_saved, 4 * 75 / 3600.0, 1e-9);
	done(&f);
}

Test(sim_run, cpus_shared_per_node_unless_exclusive)
{
	struct psiplace_sim_opts o = FA;
	struct fixture f;

	run(&f, "name,cpus\nn1,4\n", "1 0 100 1 100; 2 0 100 1 100", &o);
	cr_assert_eq(f.r.res[1].start, 0, "two 1-CPU jobs share a node");
	done(&f);
	o.exclusive = true;
	run(&f, "name,cpus\nn1,4\n", "1 0 100 1 100; 2 0 100 1 100", &o);
	cr_assert_eq(f.r.res[1].start, 100, "exclusive: one after the other");
	cr_assert_float_eq(f.r.utilisation, 1.0, 1e-9, "whole nodes are allocated");
	done(&f);
}

Test(sim_run, fragmentation_and_shape_waits)
{
	struct psiplace_sim_opts o = FA;
	struct fixture f;

	/* 0-100: J1 has 2 of n1's 4 CPUs; free: 2 on n1 (partly used) + 4 on
	 * n2: a third.  J2 wants 2 whole nodes' worth (8) at 50: 6 CPUs are
	 * free, not 8: no shape wait.  100-150: J2 alone, nothing free. */
	run(&f, TWO, "1 0 100 2 100; 2 50 50 8 50", &o);
	cr_assert_eq(f.r.res[1].start, 100);
	cr_assert_float_eq(f.r.frag, 1.0 / 3, 1e-9);
	cr_assert_eq(f.r.shape_waits, 0);
	done(&f);
	/* J1: 3 CPUs on n1, J2: 3 CPUs on n2; J3 wants 1 node of 2 CPUs... it
	 * fits.  J4 wants 4 CPUs on one node: 2 free in total, no; J5 wants 2
	 * nodes of 1: fits. So a shape wait needs CPUs free but split: */
	run(&f, TWO, "1 0 100 3 100; 2 0 100 3 100; 3 10 100 2 100", &o);
	cr_assert_eq(f.r.res[2].start, 100, "2 CPUs free, 1 on each node");
	cr_assert_eq(f.r.shape_waits, 1);
	done(&f);
}

Test(sim_run, job_larger_than_the_cluster_never_starts)
{
	struct psiplace_sim_opts o = FA;
	struct fixture f;

	run(&f, TWO, "1 0 10 12 10; 2 0 10 4 10", &o);
	cr_assert_eq(f.r.unplaceable, 1);
	cr_assert_eq(f.r.res[0].start, -1);
	cr_assert_eq(f.r.res[1].start, 0);
	cr_assert_eq(f.r.jobs, 1);
	done(&f);
}

/* Random traces under every policy: no node ever holds more CPUs or
 * memory than it has, no job starts before it is eligible, each runs its
 * traced time on as many nodes as it asked. */
Test(sim_run, random_traces_never_overcommit_a_node)
{
	const char *nodes = "name,cpus,real_memory\nn1,4,4000\nn2,8,8000\nn3,8,2000\nn4,16,16000\n"
			    "n5,4,4000\nn6,2,1000\n";
	char jobs[8192] = "", line[128];
	uint64_t seed = 7;

	for (int i = 0; i < 120; i++) {
		long sub, run, cpus, lim;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		sub = (long)(seed >> 33) % 2000;
		run = 1 + (long)(seed >> 20) % 300;
		cpus = 1 + (long)(seed >> 45) % 12;
		lim = run + (long)(seed >> 10) % 200;
		snprintf(line, sizeof(line), "%d %ld %ld %ld %ld; ", i + 1, sub, run, cpus, lim);
		strcat(jobs, line);
	}
	for (int p = PSIPLACE_POLICY_FIRSTAVAILABLE; p < PSIPLACE_POLICY_COUNT; p++) {
		for (int excl = 0; excl < 2; excl++) {
			struct psiplace_sim_opts o = { .rank = { .policy = (enum psiplace_policy)p },
						       .exclusive = excl };
			struct fixture f;

			run(&f, nodes, jobs, &o);
			cr_assert_eq(f.r.jobs, 120, "%d", p);
			for (size_t j = 0; j < f.t.n; j++) {
				const struct psiplace_sim_result *r = &f.r.res[j];

				cr_assert_geq(r->start, f.t.jobs[j].eligible);
				cr_assert_eq(r->end - r->start, f.t.jobs[j].runtime);
			}
			/* at each start, the CPUs in use on each node */
			for (size_t j = 0; j < f.t.n; j++) {
				int64_t t = f.r.res[j].start;
				uint32_t used[6] = { 0 };

				for (size_t k = 0; k < f.t.n; k++) {
					const struct psiplace_sim_result *r = &f.r.res[k];
					uint32_t nn = r->nnodes, per = (f.t.jobs[k].cpus + nn - 1) / nn;

					if (r->start > t || r->end <= t)
						continue;
					for (uint32_t a = 0; a < nn; a++) {
						uint32_t i = f.r.alloc[r->nfirst + a];

						used[i] += excl ? f.nt.nodes[i].cpus : per;
					}
				}
				for (int i = 0; i < 6; i++)
					cr_assert_leq(used[i], f.nt.nodes[i].cpus,
						      "policy %d excl %d: node %d holds %u CPUs at %lld", p,
						      excl, i, used[i], (long long)t);
			}
			done(&f);
		}
	}
}

/* CONTIGUOUS finds no run of 2 free nodes (n2 and n4 free at 10): the
 * select plugin then ranks all candidates, and so does the model. */
Test(sim_run, set_policy_without_a_set_falls_back_to_the_ranking)
{
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_CONTIGUOUS } };
	struct fixture f;

	run(&f, "name,cpus\nn1,4\nn2,4\nn3,4\nn4,4\n",
	    "1 0 100 4 100; 2 0 10 4 10; 3 0 100 4 100; 4 0 10 4 10; 5 1 10 8 10", &o);
	cr_assert_str_eq(node_of(&f, 1, 0), "n2");
	cr_assert_str_eq(node_of(&f, 3, 0), "n4");
	cr_assert_eq(f.r.res[4].start, 10, "%lld", (long long)f.r.res[4].start);
	cr_assert_str_eq(node_of(&f, 4, 0), "n2");
	cr_assert_str_eq(node_of(&f, 4, 1), "n4");
	done(&f);
}
