/* The top blocked job's reservation: walk the running jobs in the order
 * of their limits (sched/backfill's view: a job ends at its limit), count
 * the nodes that would have room for the job, and when there are enough,
 * ask the engine which nodes it would take at that time. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

/* Room for j on node i once rel[i] CPUs are released. */
static bool room(const struct sim *s, const struct sjob *j, uint32_t i)
{
	if (!s->now[i].power)
		return false;
	if (j->excl)
		return s->alloc[i] == s->rel[i];
	return s->nodefree[i] + s->rel[i] >= j->ppn;
}

/* The released jobs' nodes in the views, for the engine's choice at T. */
static void patch(struct sim *s, size_t ntouched, bool on)
{
	for (size_t t = 0; t < ntouched; t++) {
		uint32_t i = s->touched[t];

		if (!on) {
			sim_node_sync(s, i);
			continue;
		}
		s->now[i].alloc_cpus = s->alloc[i] - s->rel[i];
		s->now[i].alloc_memory = s->amem[i] - s->relmem[i];
		s->now[i].load1 = s->now[i].load5 = s->now[i].load15 = s->now[i].alloc_cpus;
		s->idle[i] = s->now[i];
		s->idle[i].power = s->now[i].power && s->now[i].alloc_cpus == 0;
	}
}

static void set_resv(struct sim *s, const struct sjob *j, int64_t t)
{
	int64_t window = s->opts->bf_window > 0 ? s->opts->bf_window : 86400;

	s->resv.t = t;
	s->resv.k = j->k;
	s->resv.active = t - s->t <= window;
	s->resv.found = true;
	for (uint32_t r = 0; r < j->k; r++) {
		uint32_t i = s->resv.nodes[r], c = sim_take_cpus(s, j, i);
		uint64_t mfree = s->now[i].real_memory > s->amem[i] - s->relmem[i]
					 ? s->now[i].real_memory - (s->amem[i] - s->relmem[i])
					 : 0;

		s->resv.extra[r] = s->nodefree[i] + s->rel[i] - c;
		s->resv.extra_mem[r] = mfree > j->mem ? mfree - j->mem : 0;
	}
	if (s->opts->reserve_count) {
		int64_t total = 0;

		for (uint32_t i = 0; i < s->n; i++)
			if (s->now[i].power)
				total += (int64_t)s->nodefree[i] + s->rel[i];
		s->resv.cpus_extra = total - (int64_t)j->k * j->ppn;
	}
}

int sim_reserve(struct sim *s, uint32_t q)
{
	const struct sjob *j = &s->jobs[q];
	size_t nt = 0, x;
	uint32_t cnt = 0, base = 0; /* nodes that gain room; that have it now */
	int found = -1;

	base = sim_fit_count(s, j->ppn, j->excl);

	for (x = 0; x < s->nrun && found < 0; x++) {
		const struct sjob *rj = &s->jobs[s->running[x]];
		const uint32_t *hn = held(s, rj);
		int64_t t = rj->limit_end > s->t ? rj->limit_end : s->t;

		for (uint32_t a = 0; a < rj->k; a++) {
			uint32_t i = hn[a];
			bool had = room(s, j, i);

			if (!s->rel[i] && !s->relmem[i])
				s->touched[nt++] = i;
			s->rel[i] += sim_take_cpus(s, rj, i);
			s->relmem[i] += rj->mem;
			cnt += !had && room(s, j, i);
		}
		if (x + 1 < s->nrun && s->jobs[s->running[x + 1]].limit_end <= t)
			continue; /* the others ending then first */
		if (base + cnt < j->k)
			continue;
		patch(s, nt, true);
		if (sim_choose_room(s, j, j->excl ? s->idle : s->now, t - s->t, s->touched, nt,
				s->resv.nodes)) {
			set_resv(s, j, t);
			s->resv.q = q;
			found = 0;
		}
		patch(s, nt, false);
	}
	for (size_t t = 0; t < nt; t++)
		s->rel[s->touched[t]] = 0, s->relmem[s->touched[t]] = 0;
	return found;
}
