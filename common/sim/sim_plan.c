/* A pass as Slurm's sched/backfill makes it (opts->plan_all): the queue
 * in priority order, each job started now on the nodes no plan of this
 * pass holds while it would run, or else planned: the first time T (a
 * running job's limit, a plan's end) at which the engine finds its nodes
 * with the jobs ending by T gone and the planned nodes withheld; those
 * nodes are then withheld whole from [T, T + limit).  Slurm's backfill
 * keeps the same per-node time slots (node_space) and reserves for every
 * job it tests, not only the first one (EASY, sim_pass.c). */
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	if (!(q = realloc(*p, c * size)))
		return false;
	*p = q;
	*cap = c;
	return true;
}

void sim_plan_free(struct sim *s)
{
	free(s->plans);
	free(s->plan_nodes);
	free(s->times);
	free(s->view);
}

/* The nodes as they would be at now + dt for job j: the first nrel
 * running jobs (by limit) gone, nodes that a plan holds over
 * [now + dt, now + dt + limit) withheld. */
static void build_view(struct sim *s, const struct sjob *j, int64_t dt, size_t nrel)
{
	int64_t t0 = s->t + dt, t1 = t0 + j->limit;

	memcpy(s->view, s->now, s->n * sizeof(*s->view));
	for (size_t x = 0; x < nrel; x++) {
		const struct sjob *rj = &s->jobs[s->running[x]];
		const uint32_t *hn = held(s, rj);

		for (uint32_t a = 0; a < rj->k; a++) {
			struct psiplace_node *v = &s->view[hn[a]];
			uint32_t c = sim_take_cpus(s, rj, hn[a]);

			v->alloc_cpus -= c < v->alloc_cpus ? c : v->alloc_cpus;
			v->alloc_memory -= rj->mem < v->alloc_memory ? rj->mem : v->alloc_memory;
			v->jobs -= v->jobs > 0;
			v->load1 = v->load5 = v->load15 = v->alloc_cpus;
		}
	}
	if (j->excl)
		for (size_t i = 0; i < s->n; i++)
			s->view[i].power = s->view[i].power && s->view[i].alloc_cpus == 0;
	for (size_t p = 0; p < s->nplans; p++) {
		const struct plan *pl = &s->plans[p];

		if (pl->t0 >= t1 || pl->t1 <= t0)
			continue;
		for (uint32_t a = 0; a < pl->k; a++) /* no free CPU: not eligible */
			s->view[s->plan_nodes[pl->first + a]].alloc_cpus =
				s->view[s->plan_nodes[pl->first + a]].cpus;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Plan job j: the first candidate time within the window at which the
 * engine finds nodes; false when none (the job holds nothing back). */
static bool plan(struct sim *s, const struct sjob *j)
{
	int64_t window = s->opts->bf_window > 0 ? s->opts->bf_window : 86400;
	size_t nt = 0, nrel = 0;


	if (!grow((void **)&s->times, &s->times_cap, s->nrun + s->nplans + 1, sizeof(*s->times)) ||
	    !grow((void **)&s->plans, &s->plans_cap, s->nplans + 1, sizeof(*s->plans)) ||
	    !grow((void **)&s->plan_nodes, &s->plan_nodes_cap, s->nplan_nodes + j->k,
		  sizeof(*s->plan_nodes)))
		return false; /* out of memory: no plan, as beyond the window */
	for (size_t p = 0; p < s->nplans; p++)
		if (s->plans[p].t1 > s->t)
			s->times[nt++] = s->plans[p].t1;
	qsort(s->times, nt, sizeof(*s->times), cmp_i64);
	/* Running jobs end one at a time, ties in start order, and the engine
	 * is asked after each: cons_tres's will-run test does the same. */
	for (size_t x = 0, pe = 0; x < s->nrun || pe < nt;) {
		int64_t t;

		if (x < s->nrun && (pe == nt || s->jobs[s->running[x]].limit_end <= s->times[pe])) {
			t = s->jobs[s->running[x]].limit_end;
			nrel = ++x;
		} else {
			t = s->times[pe++];
		}
		t = t > s->t ? t : s->t;
		if (t - s->t > window)
			break;
		build_view(s, j, t - s->t, nrel);
		if (sim_choose(s, j, s->view, s->n, t - s->t, s->plan_nodes + s->nplan_nodes)) {
			s->plans[s->nplans++] = (struct plan){ t, t + j->limit, s->nplan_nodes, j->k,
							     (uint32_t)(j - s->jobs) };
			s->nplan_nodes += j->k;
			return true;
		}
	}
	return false;
}

/* With opts->trace_starts a job starts at its traced start (where no
 * plan of a job before it holds nodes, or else where it has room) and
 * before it is only planned: the plans Slurm's backfill made then. */
void sim_pass_plan(struct sim *s)
{
	uint32_t depth = s->opts->bf_depth ? s->opts->bf_depth : 500;
	size_t i, w = 0;

	if (!s->view && !(s->view = calloc(s->n + 1, sizeof(*s->view))))
		return; /* out of memory: nothing starts; the loop ends */
	s->nplans = s->nplan_nodes = 0;
	for (i = 0; i < s->nq && i < depth; i++) {
		uint32_t q = s->queue[i];
		struct sjob *j = &s->jobs[q];

		if (j->tstart > s->t) { /* trace_starts: not yet */
			plan(s, j);
			s->queue[w++] = q;
			continue;
		}
		if (j->tk && j->tstart >= 0) { /* trace_nodes: it starts now, where Slurm put it */
			bool ok = false;

			sim_release_needed(s, j);
			if (s->free_total > 0) {
				build_view(s, j, 0, 0);
				ok = sim_choose(s, j, s->view, s->n, 0, s->pick) ||
				     sim_choose_room(s, j, j->excl ? s->idle : s->now, 0, NULL, 0, s->pick);
			}
			sim_start_traced(s, q, ok);
			continue;
		}
		if (s->free_total > 0) {
			build_view(s, j, 0, 0);
			if (sim_choose(s, j, s->view, s->n, 0, s->pick) ||
			    (j->tstart >= 0 && sim_choose_room(s, j, j->excl ? s->idle : s->now, 0, NULL, 0, s->pick))) {
				sim_start_job(s, q, s->pick);
				continue;
			}
			/* Only a shape wait if the nodes withheld for plans are not
			 * what holds it back: with them it would fit now. */
			if (s->free_total >= (int64_t)j->k * j->ppn &&
			    !(s->nplans > 0 &&
			      sim_choose_room(s, j, j->excl ? s->idle : s->now, 0, NULL, 0, s->pick)))
				s->r->res[j->trace].shape_wait = true;
		}
		plan(s, j);
		s->queue[w++] = q;
	}
	if (w < i) {
		memmove(s->queue + w, s->queue + i, (s->nq - i) * sizeof(*s->queue));
		s->nq = w + (s->nq - i);
	}
}
