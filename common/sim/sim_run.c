/* psiplace_sim_run(): the jobs given their shape on this cluster, the
 * event loop (arrivals in eligible order, ends from a heap, one pass per
 * event time) and the report's figures. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/hostlist.h"
#include "psiplace/sim.h"
#include "sim_replay.h"

#define TAU 10.0 /* bounded slowdown's threshold, seconds */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nodes of at least c CPUs, from the sorted capacities. */
static size_t at_least(const uint32_t *caps, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (caps[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n - lo;
}

/* The trace's jobs in this cluster's terms (struct sjob); 0 or -1. */
static int shape_jobs(struct sim *s, const struct psiplace_sim_trace *t, const uint32_t *caps,
		      size_t ncaps, bool mem_known, psiplace_error_t *err)
{
	uint32_t mincpus = ncaps ? caps[0] : 1;

	if (!(s->jobs = calloc(t->n ? t->n : 1, sizeof(*s->jobs))))
		return psiplace_seterr(err, "simulate: out of memory for %zu jobs", t->n);
	s->njob = t->n;
	for (size_t i = 0; i < t->n; i++) {
		const struct psiplace_sim_job *tj = &t->jobs[i];
		struct sjob *j = &s->jobs[i];
		uint32_t cpus = s->opts->swf_requested && tj->req_cpus ? tj->req_cpus
				: tj->cpus ? tj->cpus : 1;

		j->id = tj->id;
		j->trace = (uint32_t)i;
		j->elig = tj->eligible;
		j->tstart = (s->opts->trace_starts || s->opts->trace_nodes) && tj->start >= j->elig
				    ? tj->start
				    : -1;
		j->run = tj->runtime;
		j->limit = tj->limit > 0 ? tj->limit : tj->runtime;
		if (j->run > j->limit) { /* Slurm ends it at its limit */
			s->overruns++;
			if (!s->opts->overrun_run)
				j->run = j->limit;
		}
		j->cpus = cpus;
		j->k = tj->nodes ? tj->nodes : (cpus + mincpus - 1) / mincpus;
		j->ppn = (cpus + j->k - 1) / j->k;
		j->excl = tj->exclusive || s->opts->exclusive;
		j->mem = !mem_known ? 0 : tj->nodes ? tj->mem : tj->mem * j->ppn;
		j->prio = s->opts->submit_order || !t->has_priority ? 0 : tj->priority;
		j->fits = ncaps && at_least(caps, ncaps, j->ppn) >= j->k;
	}
	return 0;
}

static int setup(struct sim *s, const struct psiplace_sim_trace *t,
		 const struct psiplace_node *nodes, size_t n, psiplace_error_t *err)
{
	size_t ncaps = 0, maxk = 1;
	uint32_t *caps = calloc(n ? n : 1, sizeof(*caps));
	bool mem_known = n > 0;
	int rc;

	if (!caps)
		return psiplace_seterr(err, "simulate: out of memory for %zu nodes", n);
	for (size_t i = 0; i < n; i++) {
		if (nodes[i].power && nodes[i].cpus)
			caps[ncaps++] = nodes[i].cpus;
		if (nodes[i].cpus > s->maxcpus)
			s->maxcpus = nodes[i].cpus;
		mem_known = mem_known && nodes[i].real_memory > 0;
	}
	qsort(caps, ncaps, sizeof(*caps), cmp_u32);
	rc = shape_jobs(s, t, caps, ncaps, mem_known, err);
	free(caps);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->njob; i++)
		if (s->jobs[i].fits && s->jobs[i].k > maxk)
			maxk = s->jobs[i].k;
	s->n = n;
	s->now = calloc(n + 1, sizeof(*s->now));
	s->idle = calloc(n + 1, sizeof(*s->idle));
	s->alloc = calloc(n + 1, sizeof(uint32_t));
	s->njobs = calloc(n + 1, sizeof(uint32_t));
	s->nodefree = calloc(n + 1, sizeof(uint32_t));
	s->pick = calloc(n + 1, sizeof(uint32_t));
	s->rel = calloc(n + 1, sizeof(uint32_t));
	s->touched = calloc(n + 1, sizeof(uint32_t));
	s->amem = calloc(n + 1, sizeof(uint64_t));
	s->relmem = calloc(n + 1, sizeof(uint64_t));
	s->wasp = calloc(n + 1, sizeof(bool));
	s->hist = calloc(s->maxcpus + 1, sizeof(uint32_t));
	s->queue = calloc(s->njob + 1, sizeof(uint32_t));
	s->running = calloc(s->njob + 1, sizeof(uint32_t));
	s->ends.key = calloc(s->njob + 1, sizeof(int64_t));
	s->ends.val = calloc(s->njob + 1, sizeof(uint32_t));
	s->wakes.key = calloc(s->njob + 1, sizeof(int64_t));
	s->wakes.val = calloc(s->njob + 1, sizeof(uint32_t));
	s->resv.nodes = calloc(maxk + 1, sizeof(uint32_t));
	s->resv.extra = calloc(maxk + 1, sizeof(uint32_t));
	s->resv.extra_mem = calloc(maxk + 1, sizeof(uint64_t));
	if (!s->now || !s->idle || !s->alloc || !s->njobs || !s->nodefree || !s->pick || !s->rel ||
	    !s->touched || !s->amem || !s->relmem || !s->wasp || !s->hist || !s->queue ||
	    !s->running || !s->ends.key || !s->ends.val ||
	    !s->wakes.key || !s->wakes.val || !s->resv.nodes || !s->resv.extra ||
	    !s->resv.extra_mem)
		return psiplace_seterr(err, "simulate: out of memory for %zu nodes", n);
	for (size_t i = 0; i < n; i++) {
		s->now[i] = nodes[i];
		s->now[i].load1 = s->now[i].load5 = s->now[i].load15 = 0;
		if (s->now[i].power && s->now[i].cpus) {
			s->total_cpus += s->now[i].cpus;
			s->idle_nodes++;
			s->hist[0]++; /* node_sync moves it to its free count */
		} else {
			s->now[i].power = false;
		}
		sim_node_sync(s, (uint32_t)i);
	}
	if (sim_room_setup(s) < 0)
		return psiplace_seterr(err, "simulate: out of memory for %zu nodes", n);
	return 0;
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct psiplace_node *n = arg;

	return strcmp(n[*(const uint32_t *)a].name, n[*(const uint32_t *)b].name);
}

/* The node named h among the nodes sorted by name; -1 none. */
static int64_t find_node(const struct sim *s, const uint32_t *sorted, const char *h)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->now[sorted[mid]].name, h);

		if (!c)
			return sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* trace_nodes: each started job's NodeList as node indexes (sjob.tfirst,
 * tk); a job whose list is missing, unreadable or not its NNodes nodes
 * of this cluster keeps tk 0 and is counted, not compared. */
static int trace_nodes(struct sim *s, const struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	size_t total = 0, used = 0;
	uint32_t *sorted = calloc(s->n + 1, sizeof(*sorted));

	for (size_t i = 0; i < s->njob; i++)
		total += s->jobs[i].fits ? s->jobs[i].k : 0;
	s->tnodes = calloc(total + 1, sizeof(*s->tnodes));
	s->mark = calloc(s->n + 1, 1);
	s->need = calloc(s->n + 1, sizeof(*s->need));
	s->deferred = calloc(s->njob + 1, sizeof(*s->deferred));
	if (!sorted || !s->tnodes || !s->mark || !s->need || !s->deferred) {
		free(sorted);
		return psiplace_seterr(err, "simulate: out of memory for %zu traced nodes", total);
	}
	for (size_t i = 0; i < s->n; i++)
		sorted[i] = (uint32_t)i;
	for (size_t i = 0; i < s->n; i++)
		if (!s->now[i].name) { /* no names: nothing to compare */
			free(sorted);
			return 0;
		}
	qsort_r(sorted, s->n, sizeof(*sorted), by_name, s->now);
	for (size_t i = 0; i < s->njob; i++) {
		const struct psiplace_sim_job *tj = &t->jobs[i];
		struct sjob *j = &s->jobs[i];
		struct psiplace_hostlist hl;
		psiplace_error_t e;
		bool ok;

		if (!j->fits || j->tstart < 0)
			continue;
		ok = tj->nodelist && tj->nodelist < t->nodelists_len &&
		     psiplace_hostlist_expand(t->nodelists + tj->nodelist, "NodeList", &hl, &e) == 0;
		if (ok) {
			ok = hl.n == j->k;
			for (size_t h = 0; ok && h < hl.n; h++) {
				int64_t x = find_node(s, sorted, hl.host[h]);

				ok = x >= 0 && !s->mark[x];
				if (ok) {
					s->mark[x] = 1;
					s->tnodes[used + h] = (uint32_t)x;
				}
			}
			for (size_t h = 0; h < hl.n && h < j->k; h++) {
				int64_t x = find_node(s, sorted, hl.host[h]);

				if (x >= 0)
					s->mark[x] = 0;
			}
			psiplace_hostlist_free(&hl);
		}
		if (!ok) {
			s->r->decisions_untraced++;
			continue;
		}
		j->tfirst = (uint32_t)used;
		j->tk = j->k;
		used += j->k;
	}
	free(sorted);
	return 0;
}

static void sim_free(struct sim *s)
{
	sim_mall_free(s); /* reads the jobs */
	free(s->jobs); free(s->now); free(s->idle); free(s->alloc); free(s->njobs);
	free(s->nodefree); free(s->pick); free(s->rel); free(s->touched);
	free(s->amem); free(s->relmem); free(s->wasp); free(s->hist); free(s->queue); free(s->running);
	free(s->ends.key); free(s->ends.val); free(s->wakes.key); free(s->wakes.val);
	free(s->resv.nodes); free(s->resv.extra); free(s->resv.extra_mem);
	free(s->tnodes); free(s->mark); free(s->need); free(s->deferred);
	sim_plan_free(s);
	sim_room_free(s);
}

static int by_elig(const void *a, const void *b, void *arg)
{
	const struct sjob *j = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (j[x].elig != j[y].elig)
		return j[x].elig < j[y].elig ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Free CPUs on partly used nodes, as a share of all free CPUs, until t. */
static void integrate(struct sim *s, int64_t t)
{
	if (t > s->t && s->free_total > 0) {
		s->frag_area += (double)(t - s->t) * (double)s->free_partial / (double)s->free_total;
		s->frag_time += (double)(t - s->t);
	}
}

static void release_deferred(struct sim *s)
{
	for (size_t d = 0; d < s->ndeferred; d++)
		sim_release(s, s->deferred[d]);
	s->ndeferred = 0;
}

/* The pass an event time gets (after its ends and arrivals). */
static void passes(struct sim *s, int64_t tn, int64_t tb, bool ended, bool behind, size_t ai,
		   size_t nq, bool *stop)
{
	if (s->opts->trace_nodes) {
		size_t held_ends;

		sim_pass(s);
		held_ends = s->ndeferred;
		release_deferred(s);
		if (held_ends && s->nq) /* jobs without a traced placement */
			sim_pass(s);
		return;
	}
	if (s->opts->bf_interval > 0 && tn < s->next_bf && !s->opts->trace_starts) {
		sim_pass_main(s);
		return;
	}
	if (s->opts->bf_interval > 0) {
		s->next_bf = tn + s->opts->bf_interval;
		sim_pass(s);
		if (tn == tb && !ended && ai == s->njob && !s->ends.n && s->nq == nq && !s->nmrun)
			*stop = true; /* nothing will change: the rest never starts */
	} else if (!ended && behind && !s->opts->plan_all && !s->opts->trace_starts) {
		sim_pass_arrivals(s);
	} else {
		sim_pass(s);
	}
}

static void loop(struct sim *s, const uint32_t *arr)
{
	size_t ai = 0;

	s->t = s->njob ? s->jobs[arr[0]].elig : 0;
	s->walked_all = true; /* the empty queue */
	for (;;) {
		int64_t ta = ai < s->njob ? s->jobs[arr[ai]].elig : INT64_MAX;
		int64_t te = s->ends.n ? s->ends.key[0] : INT64_MAX;
		int64_t tw = s->wakes.n ? s->wakes.key[0] : INT64_MAX;
		int64_t tb = s->opts->bf_interval > 0 && s->nq ? s->next_bf : INT64_MAX;
		int64_t tm = s->mdone.n ? s->mdone.key[0] : INT64_MAX;
		int64_t td = s->mall ? s->next_dec : INT64_MAX;
		int64_t tn = ta < te ? ta : te;
		size_t nq = s->nq;
		bool ended = false, behind, stop = false, event;

		tn = tw < tn ? tw : tn;
		tn = tb < tn ? tb : tn;
		tn = tm < tn ? tm : tn;
		tn = td < tn ? td : tn;
		while (s->wakes.n && s->wakes.key[0] <= tn)
			sim_heap_pop(&s->wakes);

		if (tn == INT64_MAX) {
			if (!s->nq)
				break;
			sim_pass(s); /* an empty cluster with jobs left beyond the depth */
			if (s->nq == nq && !s->ends.n)
				break;
			continue;
		}
		if (s->ends.oom || s->mdone.oom)
			break;
		integrate(s, tn);
		s->t = tn;
		event = tn != td;
		while (s->ends.n && s->ends.key[0] == tn) {
			uint32_t q = s->ends.val[0];
			const struct sjob *j = &s->jobs[q];

			sim_heap_pop(&s->ends);
			if (j->done || j->end != tn)
				continue; /* an end a resize moved */
			ended = true;
			if (s->opts->trace_nodes)
				s->deferred[s->ndeferred++] = q;
			else
				sim_release(s, q);
		}
		if (s->mall) {
			s->mall_freed = false;
			sim_mall_complete(s);
			ended = ended || s->mall_freed;
			event = event || tm == tn;
		}
		behind = true; /* every arrival queued behind the jobs there were */
		for (; ai < s->njob && s->jobs[arr[ai]].elig == tn; ai++) {
			event = true;
			if (!s->jobs[arr[ai]].fits) {
				s->r->unplaceable++;
				continue;
			}
			behind = sim_queue_add(s, arr[ai]) >= nq && behind;
			if (s->jobs[arr[ai]].tstart > tn)
				sim_heap_push(&s->wakes, s->jobs[arr[ai]].tstart, arr[ai]);
		}
		passes(s, tn, tb, ended, behind, ai, nq, &stop);
		if (s->mall) {
			if (event || ended)
				sim_mall_touch(s);
			if (s->next_dec <= tn) {
				s->mall_freed = false;
				sim_mall_decide(s);
				if (s->mall_freed) /* a shrink without cost gave nodes back */
					sim_pass(s);
			}
			if (s->mall_failed)
				break;
		}
		if (stop)
			break;
	}
}

static void figures(struct sim *s, struct psiplace_sim_report *r, double *waits)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	double bsld = 0, wsum = 0;
	size_t k = 0;

	for (size_t i = 0; i < s->njob; i++) {
		const struct sjob *j = &s->jobs[i];
		const struct psiplace_sim_result *res = &r->res[j->trace];
		double wait, run;

		if (res->start < 0)
			continue;
		wait = (double)(res->start - j->elig);
		run = (double)(res->end - res->start);
		waits[k++] = wait;
		wsum += wait;
		bsld += fmax(1.0, (wait + run) / fmax(run, TAU));
		first = j->elig < first ? j->elig : first;
		last = res->end > last ? res->end : last;
		r->shape_waits += res->shape_wait;
		if (j->tstart >= 0 && res->start > j->tstart) {
			r->start_delays++;
			if (res->start - j->tstart > r->start_delay_max)
				r->start_delay_max = res->start - j->tstart;
		}
	}
	r->jobs = k;
	r->overruns = s->overruns;
	if (!k)
		return;
	qsort(waits, k, sizeof(*waits), cmp_double);
	r->makespan = last - first;
	r->utilisation = r->makespan > 0 && s->total_cpus > 0
				 ? s->cpu_secs / ((double)s->total_cpus * (double)r->makespan)
				 : 0;
	r->utilisation_used = r->makespan > 0 && s->total_cpus > 0
				      ? s->used_secs / ((double)s->total_cpus * (double)r->makespan)
				      : 0;
	r->wait_mean = wsum / (double)k;
	r->wait_median = k % 2 ? waits[k / 2] : (waits[k / 2 - 1] + waits[k / 2]) / 2;
	r->wait_p95 = waits[(size_t)ceil(0.95 * (double)k) - 1]; /* nearest rank */
	r->bsld_mean = bsld / (double)k;
	r->frag = s->frag_time > 0 ? s->frag_area / s->frag_time : 0;
	r->node_hours = s->node_secs / 3600.0;
	r->cpu_hours_saved = s->saved;
}

int psiplace_sim_run(const struct psiplace_sim_trace *t, const struct psiplace_node *nodes,
		     size_t n, const struct psiplace_sim_opts *opts,
		     struct psiplace_sim_report *r, psiplace_error_t *err)
{
	struct psiplace_sim_opts o = *opts;
	struct sim s = { .opts = &o, .r = r };
	uint32_t *arr = NULL;
	double *waits = NULL;
	size_t nalloc = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	o.trace_starts = o.trace_starts || o.trace_nodes;
	if (!psiplace_policy_valid(opts->rank.policy))
		return psiplace_seterr(err, "simulate: policy %d is not a policy", opts->rank.policy);
	if (opts->malleable && opts->malleable->rule != PSIPLACE_SIM_MALL_NONE && o.trace_starts)
		return psiplace_seterr(err, "simulate: malleable jobs are not replayed with the traced "
				       "starts (--trace-starts, --trace-nodes)");
	rc = setup(&s, t, nodes, n, err);
	if (rc == 0 && o.trace_nodes)
		rc = trace_nodes(&s, t, err);
	for (size_t i = 0; rc == 0 && i < s.njob; i++)
		nalloc += s.jobs[i].fits ? s.jobs[i].k : 0;
	if (rc == 0) {
		r->res = calloc(s.njob + 1, sizeof(*r->res));
		r->alloc = calloc(nalloc + 1, sizeof(*r->alloc));
		arr = calloc(s.njob + 1, sizeof(*arr));
		waits = calloc(s.njob + 1, sizeof(*waits));
		if (!r->res || !r->alloc || !arr || !waits)
			rc = psiplace_seterr(err, "simulate: out of memory for %zu jobs", s.njob);
	}
	if (rc == 0) {
		for (size_t i = 0; i < s.njob; i++) {
			arr[i] = (uint32_t)i;
			r->res[i].start = r->res[i].end = -1;
			r->res[i].same_as_trace = -1;
		}
		rc = sim_mall_setup(&s, t, err);
	}
	if (rc == 0) {
		qsort_r(arr, s.njob, sizeof(*arr), by_elig, s.jobs);
		loop(&s, arr);
		if (s.ends.oom || s.mdone.oom)
			rc = psiplace_seterr(err, "simulate: out of memory for the jobs' ends");
		else if (s.mall_failed)
			rc = psiplace_seterr(err, "simulate: a resize decision could not be applied "
					     "(out of memory, or a state the decision refused)");
		else
			figures(&s, r, waits);
	}
	free(arr);
	free(waits);
	sim_free(&s);
	if (rc < 0)
		psiplace_sim_report_free(r);
	return rc;
}

void psiplace_sim_report_free(struct psiplace_sim_report *r)
{
	if (!r)
		return;
	free(r->res);
	free(r->alloc);
	free(r->resizes);
	free(r->resize_nodes);
	r->res = NULL;
	r->alloc = NULL;
	r->resizes = NULL;
	r->resize_nodes = NULL;
}
