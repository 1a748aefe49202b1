/* The state of the nodes as jobs take and give back CPUs (both engine
 * views, the counters, the room layout), the running jobs by limit, and
 * the shapes that found no room in this pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

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

		if (s->ipos && s->alloc[n] == 0 && sign > 0) { /* no longer idle */
			uint32_t at = s->ipos[n], last = s->ilist[--s->nidle];

			s->ilist[at] = last;
			s->ipos[last] = at;
		}
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
			if (s->ipos && s->alloc[n] == 0) { /* idle again */
				s->ipos[n] = (uint32_t)s->nidle;
				s->ilist[s->nidle++] = n;
			}
		}
		sim_node_sync(s, n);
	}
}

static bool before(const struct sim *s, uint32_t a, uint32_t b)
{
	const struct sjob *x = &s->jobs[a], *y = &s->jobs[b];

	return x->limit_end < y->limit_end || (x->limit_end == y->limit_end && a < b);
}

static size_t running_pos(const struct sim *s, uint32_t q)
{
	size_t lo = 0, hi = s->nrun;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (before(s, s->running[mid], q))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sim_running_add(struct sim *s, uint32_t q)
{
	size_t p = running_pos(s, q);

	memmove(s->running + p + 1, s->running + p, (s->nrun - p) * sizeof(*s->running));
	s->running[p] = q;
	s->nrun++;
}

void sim_running_remove(struct sim *s, uint32_t q)
{
	size_t p = running_pos(s, q);

	if (p < s->nrun && s->running[p] == q) {
		memmove(s->running + p, s->running + p + 1,
			(s->nrun - p - 1) * sizeof(*s->running));
		s->nrun--;
	}
}

bool sim_failed_before(const struct sim *s, const struct sjob *j, bool patched)
{
	for (size_t i = 0; i < s->nfail; i++) {
		const struct shape *f = &s->fail[i];

		if ((patched || !f->patched) && j->k >= f->k && j->ppn >= f->ppn && j->mem >= f->mem && (j->excl || !f->excl))
			return true;
	}
	return false;
}

void sim_remember_fail(struct sim *s, const struct sjob *j, bool patched)
{
	if (s->nfail < SIM_MAXFAIL)
		s->fail[s->nfail++] = (struct shape){ j->k, j->ppn, j->mem, j->excl, patched };
}
