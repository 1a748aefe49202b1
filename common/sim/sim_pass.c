/* One EASY pass at an event time: jobs start in priority order until one
 * cannot; it gets a reservation (sim_reserve(): the time T its nodes are free
 * when running jobs end at their limits, and the nodes R the engine would
 * choose then); later jobs start now when they end by T, or else where
 * they leave R what it needs at T.  Node choice is psiplace_choose() over
 * the nodes as they are, the call the select plugin makes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_run_internal.h"

static uint32_t bucket(const struct sim *s, uint32_t f)
{
	return f < s->maxcpus ? f : s->maxcpus;
}

/* Copy node i's state into both engine views and the counters. */
void sim_node_sync(struct sim *s, uint32_t i)
{
	struct psiplace_node *v = &s->now[i];
	uint32_t was = s->nodefree[i];

	v->alloc_cpus = s->alloc[i];
	v->alloc_memory = s->amem[i];
	v->load1 = v->load5 = v->load15 = s->alloc[i]; /* busy CPUs as the load */
	v->jobs = s->njobs[i];
	s->idle[i] = *v;
	s->idle[i].power = v->power && s->alloc[i] == 0;
	if (!v->power)
		return;
	s->nodefree[i] = v->cpus > s->alloc[i] ? v->cpus - s->alloc[i] : 0;
	s->free_total += (int64_t)s->nodefree[i] - (int64_t)was;
	if (s->wasp[i])
		s->free_partial -= was;
	s->wasp[i] = s->alloc[i] > 0 && s->nodefree[i] > 0;
	if (s->wasp[i])
		s->free_partial += s->nodefree[i];
	s->hist[bucket(s, was)]--;
	s->hist[bucket(s, s->nodefree[i])]++;
	sim_room_move(s, i, was, s->nodefree[i]);
}

uint32_t sim_take_cpus(const struct sim *s, const struct sjob *j, uint32_t node)
{
	return j->excl ? s->now[node].cpus : j->ppn;
}

void sim_apply(struct sim *s, const struct sjob *j, const uint32_t *nodes, int sign)
{
	for (uint32_t i = 0; i < j->k; i++) {
		uint32_t n = nodes[i], c = sim_take_cpus(s, j, n);

		if (sign > 0) {
			s->idle_nodes -= s->alloc[n] == 0;
			s->alloc[n] += c;
			s->amem[n] += j->mem;
			s->njobs[n]++;
		} else {
			s->alloc[n] -= c;
			s->amem[n] -= j->mem;
			s->njobs[n]--;
			s->idle_nodes += s->alloc[n] == 0;
		}
		sim_node_sync(s, n);
	}
}

bool sim_choose(struct sim *s, const struct sjob *j, const struct psiplace_node *view, size_t n,
	    int64_t start_in, uint32_t *out)
{
	struct psiplace_rank_opts o = s->opts->rank;
	struct psiplace_job pj = {
		.nodes = j->k, .cpus = j->ppn, .mem = j->mem, .duration = j->limit,
		.start = start_in, .future = start_in > 0,
		.seed = s->opts->seed ^ (j->id * 0x9e3779b97f4a7c15ull),
	};

	o.job = &pj;
	s->engine_calls++;
	if (psiplace_choose(&o, view, n, j->k, out, NULL) == (int)j->k)
		return true;
	/* A set policy without a set (CONTIGUOUS: no run of k): the select
	 * plugin ranks all candidates then, and so does the model.  That
	 * ranking (psiplace_rank_partial) puts the candidates first in index
	 * order, weights aside, as FIRSTAVAILABLE with the weight overridden
	 * chooses them, without sorting all nodes. */
	if (!psiplace_policy_is_set(o.policy))
		return false;
	o.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	o.policy_overrides_weight = true;
	if (psiplace_choose(&o, view, n, j->k, out, NULL) != (int)j->k)
		return false;
	for (uint32_t i = 0; i < j->k; i++)
		if (!psiplace_node_eligible(&view[out[i]], &pj))
			return false;
	return true;
}

/* For a job still running at T: the reservation's nodes keep only what it
 * leaves them (on), or are as they are again (off). */
static void resv_patch(struct sim *s, bool on)
{
	for (uint32_t r = 0; r < s->resv.k; r++) {
		uint32_t i = s->resv.nodes[r], keep;
		uint64_t mfree;

		if (!on) {
			sim_node_sync(s, i);
			continue;
		}
		keep = s->resv.extra[r] < s->nodefree[i] ? s->resv.extra[r] : s->nodefree[i];
		mfree = s->now[i].real_memory > s->amem[i] ? s->now[i].real_memory - s->amem[i] : 0;
		s->now[i].alloc_cpus = s->now[i].cpus - keep;
		if (s->resv.extra_mem[r] < mfree)
			s->now[i].alloc_memory = s->now[i].real_memory - s->resv.extra_mem[r];
		s->idle[i].power = false;
	}
}

/* The reservation's nodes that have room for j now but not beside it. */
static uint32_t resv_taken(const struct sim *s, const struct sjob *j)
{
	uint32_t k = 0;

	for (uint32_t r = 0; r < s->resv.k; r++) {
		uint32_t i = s->resv.nodes[r], f = s->nodefree[i];

		if (j->excl)
			k += s->alloc[i] == 0;
		else
			k += f >= j->ppn && (s->resv.extra[r] < f ? s->resv.extra[r] : f) < j->ppn;
	}
	return k;
}

/* Job q starts now on occupy; its result records nodes. */
static void start_on(struct sim *s, uint32_t q, const uint32_t *nodes, const uint32_t *occupy)
{
	struct sjob *j = &s->jobs[q];
	struct psiplace_sim_report *r = s->r;
	struct psiplace_sim_result *res = &r->res[j->trace];
	double slow = INFINITY;
	int64_t run = j->run;

	sim_apply(s, j, occupy, +1);
	if (s->opts->speed_ref > 0) {
		for (uint32_t i = 0; i < j->k; i++) {
			double sp = s->now[nodes[i]].speed > 0 ? s->now[nodes[i]].speed : 1.0;

			slow = sp < slow ? sp : slow;
		}
		/* bounded before the conversion: a tiny node Speed or a huge
		 * reference would overflow it (1e12 s is about 31,700 years) */
		double scaled = (double)j->run * s->opts->speed_ref / slow;

		run = scaled < 1e12 ? (int64_t)llround(scaled) : (int64_t)1e12;
		s->saved += (double)j->cpus * (double)(j->run - run) / 3600.0;
	}
	res->start = s->t;
	res->end = s->t + run;
	res->nfirst = (uint32_t)r->nalloc;
	res->nnodes = j->k;
	for (uint32_t i = 0; i < j->k; i++) {
		r->alloc[r->nalloc++] = nodes[i];
		s->cpu_secs += (double)sim_take_cpus(s, j, nodes[i]) * (double)run;
	}
	s->used_secs += (double)j->cpus * (double)run;
	j->end = res->end;
	j->limit_end = s->t + j->limit;
	sim_heap_push(&s->ends, j->end, q);
	sim_running_add(s, q);
	if (++s->started % 10000 == 0 && s->opts->progress)
		s->opts->progress(s->opts->progress_arg, s->started, s->njob);
}

void sim_start_job(struct sim *s, uint32_t q, const uint32_t *nodes)
{
	start_on(s, q, nodes, nodes);
}

void sim_start_traced(struct sim *s, uint32_t q, bool chose)
{
	struct sjob *j = &s->jobs[q];
	const uint32_t *tn = s->tnodes + j->tfirst;
	struct psiplace_sim_report *r = s->r;
	uint32_t same = 0;

	if (chose) {
		for (uint32_t i = 0; i < j->k; i++)
			s->mark[tn[i]] = 1;
		for (uint32_t i = 0; i < j->k; i++)
			same += s->mark[s->pick[i]];
		for (uint32_t i = 0; i < j->k; i++)
			s->mark[tn[i]] = 0;
	}
	r->decisions++;
	r->decisions_same += same == j->k;
	r->decisions_noroom += !chose;
	r->res[j->trace].same_as_trace = same == j->k;
	j->on_trace = true;
	start_on(s, q, chose ? s->pick : tn, tn);
}

/* Count-based EASY: j, still running at the reserved time, starts if its
 * CPUs fit in the CPUs left over then; 1 started, 0 no room, -1 not
 * beside the reservation. */
static int start_counted(struct sim *s, uint32_t q)
{
	struct sjob *j = &s->jobs[q];
	int64_t cpus = (int64_t)j->k * j->ppn;

	if (cpus > s->resv.cpus_extra)
		return -1;
	if (!sim_choose_room(s, j, j->excl ? s->idle : s->now, 0, NULL, 0, s->pick))
		return 0;
	sim_start_job(s, q, s->pick);
	s->resv.cpus_extra -= cpus;
	return 1;
}

/* Try job q now; with a reservation, a job still running at T only where
 * the reservation leaves room.  1 started, 0 no room in its shape, -1 no
 * room beside the reservation. */
static int try_now(struct sim *s, uint32_t q)
{
	struct sjob *j = &s->jobs[q];
	bool patch = s->resv.active && s->t + j->limit > s->resv.t, ok;
	uint32_t room = sim_fit_count(s, j->ppn, j->excl);

	if (room < j->k || sim_failed_before(s, j, false))
		return 0;
	if (patch && s->opts->reserve_count) /* textbook EASY: a count of processors */
		return start_counted(s, q);
	if (patch && (sim_failed_before(s, j, true) || room - resv_taken(s, j) < j->k))
		return -1;
	if (patch)
		resv_patch(s, true);
	ok = sim_choose_room(s, j, j->excl ? s->idle : s->now, 0, NULL, 0, s->pick);
	if (patch)
		resv_patch(s, false);
	if (!ok) {
		if (patch) /* sim_pass() remembers the others */
			sim_remember_fail(s, j, true);
		return patch ? -1 : 0;
	}
	sim_start_job(s, q, s->pick);
	if (patch) /* what it holds at T is not the reservation's */
		for (uint32_t a = 0; a < j->k; a++)
			for (uint32_t b = 0; b < s->resv.k; b++)
				if (s->resv.nodes[b] == s->pick[a]) {
					uint32_t c = sim_take_cpus(s, j, s->pick[a]);

					s->resv.extra[b] -= c < s->resv.extra[b] ? c : s->resv.extra[b];
					s->resv.extra_mem[b] -= j->mem < s->resv.extra_mem[b]
									? j->mem
									: s->resv.extra_mem[b];
				}
	return 1;
}

static int job_cmp(const struct sim *s, uint32_t a, uint32_t b)
{
	const struct sjob *x = &s->jobs[a], *y = &s->jobs[b];

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->elig != y->elig)
		return x->elig < y->elig ? -1 : 1;
	return x->trace < y->trace ? -1 : x->trace > y->trace;
}

size_t sim_queue_add(struct sim *s, uint32_t q)
{
	size_t lo = 0, hi = s->nq;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (job_cmp(s, s->queue[mid], q) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->queue + lo + 1, s->queue + lo, (s->nq - lo) * sizeof(*s->queue));
	s->queue[lo] = q;
	s->nq++;
	return lo;
}

/* Walk the queue from position i0 (considered0 jobs considered before
 * it, blocked0: one of them was blocked) and start what may start. */
static void walk(struct sim *s, size_t i0, size_t considered0, bool blocked0)
{
	uint32_t depth = s->opts->bf_depth ? s->opts->bf_depth : 500;
	size_t i, w = i0, considered = considered0, end;
	bool blocked = blocked0; /* a job before could not start: the rest backfill */

	for (i = i0; i < s->nq && considered < depth && s->free_total > 0; i++, considered++) {
		uint32_t q = s->queue[i];
		struct sjob *j = &s->jobs[q];
		int rc = try_now(s, q);

		if (rc == 1)
			continue;
		if (rc == 0) {
			sim_remember_fail(s, j, false);
			if (s->free_total >= (int64_t)j->k * j->ppn)
				s->r->res[j->trace].shape_wait = true;
		}
		if (!blocked && sim_reserve(s, q) < 0) { /* fits nowhere: never starts */
			s->r->unplaceable++;
			continue;
		}
		blocked = true;
		s->queue[w++] = q;
	}
	s->walked_all = i == s->nq;
	end = s->nq;
	if (w < i) {
		memmove(s->queue + w, s->queue + i, (end - i) * sizeof(*s->queue));
		s->nq = w + (end - i);
	}
	s->considered = w; /* a full pass would find them first again */
	s->blocked = blocked;
}

void sim_pass(struct sim *s)
{
	if (s->opts->plan_all || s->opts->trace_starts) {
		sim_pass_plan(s);
		return;
	}
	s->resv.active = s->resv.found = false;
	s->nfail = 0;
	walk(s, 0, 0, false);
}

/* Slurm's main scheduler between two backfill passes (opts->bf_interval):
 * jobs start in order until one cannot; nothing is reserved. */
void sim_pass_main(struct sim *s)
{
	size_t i = 0;

	s->resv.active = false;
	s->nfail = 0;
	while (i < s->nq && s->free_total > 0 && try_now(s, s->queue[i]) == 1)
		i++;
	if (i) {
		memmove(s->queue, s->queue + i, (s->nq - i) * sizeof(*s->queue));
		s->nq -= i;
	}
	s->walked_all = false;
}

/* An event time with arrivals only (no job ended), all queued behind the
 * jobs the last pass walked: those jobs cannot start now either (nothing
 * was given back) and the reservation stands, so only the new jobs are
 * walked — unless the last pass stopped before the queue's end, and then
 * a full pass would not reach them either. */
void sim_pass_arrivals(struct sim *s)
{
	int64_t window = s->opts->bf_window > 0 ? s->opts->bf_window : 86400;
	uint32_t depth = s->opts->bf_depth ? s->opts->bf_depth : 500;

	if (!s->walked_all || s->considered >= depth)
		return;
	s->resv.active = s->resv.found && s->resv.t - s->t <= window;
	walk(s, s->considered, s->considered, s->blocked);
}
