/* A job starts (its result, its end, the accounting) and a job ends
 * (its CPUs given back; with trace_nodes the ends held in a second). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

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
	for (uint32_t i = 0; i < j->k; i++)
		r->alloc[r->nalloc++] = nodes[i];
	if (j->mall && (j->mnodes = malloc((j->mmax > j->k ? j->mmax : j->k) * sizeof(uint32_t)))) {
		/* its work: node-seconds at its traced size's rate, done
		 * wherever it runs; the accounting follows what it holds */
		memcpy(j->mnodes, occupy, j->k * sizeof(uint32_t));
		j->work = (double)j->k0 * (double)run;
		j->rate = j->k0;
		j->wt = j->seg_t = s->t;
		j->busy = INT64_MIN;
		j->last_resize = INT64_MIN;
		s->mrun[s->nmrun++] = q;
	} else {
		s->mall_failed = s->mall_failed || j->mall; /* out of memory */
		for (uint32_t i = 0; i < j->k; i++)
			s->cpu_secs += (double)sim_take_cpus(s, j, nodes[i]) * (double)run;
		s->used_secs += (double)j->cpus * (double)run;
		s->node_secs += (double)j->k * (double)run;
	}
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

void sim_account(struct sim *s, struct sjob *j)
{
	double dt = (double)(s->t - j->seg_t);

	for (uint32_t a = 0; a < j->k; a++)
		s->cpu_secs += (double)sim_take_cpus(s, j, j->mnodes[a]) * dt;
	s->used_secs += (double)j->ppn * (double)j->k * dt;
	s->node_secs += (double)j->k * dt;
	j->seg_t = s->t;
}

void sim_release(struct sim *s, uint32_t q)
{
	struct sjob *j = &s->jobs[q];

	if (j->mnodes)
		sim_account(s, j);
	sim_apply(s, j, held(s, j), -1);
	sim_running_remove(s, q);
	j->done = true;
	if (j->mnodes) {
		for (size_t i = 0; i < s->nmrun; i++)
			if (s->mrun[i] == q) {
				s->mrun[i] = s->mrun[--s->nmrun];
				break;
			}
		s->r->res[j->trace].end = s->t;
		free(j->mnodes);
		j->mnodes = NULL;
	}
}

/* trace_nodes: the export does not say whether a job that ended in this
 * second ended before or after a job that started in it.  It ended
 * before where the starting job's traced nodes need its CPUs (they would
 * be over-committed); otherwise it still holds them while that job is
 * placed (Slurm placed it before the end was processed, or the node was
 * still completing), and is released after the pass. */
static bool over(const struct sim *s, uint32_t n)
{
	return s->need[n] && s->alloc[n] + s->need[n] > s->now[n].cpus;
}

void sim_release_needed(struct sim *s, const struct sjob *j)
{
	for (uint32_t a = 0; a < j->k; a++)
		s->need[s->tnodes[j->tfirst + a]] += sim_take_cpus(s, j, s->tnodes[j->tfirst + a]);
	for (;;) { /* the end that frees the over-committed nodes and the fewest others */
		size_t best = SIZE_MAX;
		uint32_t best_other = UINT32_MAX;

		for (size_t d = 0; d < s->ndeferred; d++) {
			const struct sjob *e = &s->jobs[s->deferred[d]];
			const uint32_t *hn = held(s, e);
			uint32_t hit = 0;

			for (uint32_t a = 0; a < e->k; a++)
				hit += over(s, hn[a]);
			if (hit && e->k - hit < best_other) {
				best = d;
				best_other = e->k - hit;
			}
		}
		if (best == SIZE_MAX)
			break;
		sim_release(s, s->deferred[best]);
		s->deferred[best] = s->deferred[--s->ndeferred];
	}
	for (uint32_t a = 0; a < j->k; a++)
		s->need[s->tnodes[j->tfirst + a]] = 0;
}
