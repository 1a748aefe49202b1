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
#include "sim_replay.h"

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
