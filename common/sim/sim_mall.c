/* Malleable jobs in the replay (opts->malleable; doc/simulate.md,
 * "Malleable jobs"): which jobs are malleable and their ranges, and at
 * each decision point the replay's state as the resource manager's
 * daemon would give it to psiplace_rdec_decide() — the very function,
 * not a copy —, then its SHRINK and GROW decisions begun: nodes taken at
 * once (grow) or given back when the resize's cost has passed (shrink),
 * the job's remaining work spread over its new size.
 *
 * Decision points are the daemon's: every `interval` seconds of simulated
 * time.  Between two events nothing the decision reads changes but the
 * hysteresis, so only the first tick at or after an event is evaluated,
 * and the tick at which a job's minimum interval runs out. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/resize_decision.h"
#include "psiplace/sim.h"
#include "sim_replay.h"

/* A pending job that the plan gives no start: later than every limit
 * (rule 3 of the decision then protects nothing for it; EASY promises
 * it nothing either). */
#define NO_PLAN (INT64_MAX / 2)

struct sim_rdec {
	struct psiplace_rdec_node *nodes; /* the nodes the decision is shown */
	uint32_t *pos, *back;             /* node -> its position there (UINT32_MAX: none); back */
	size_t n;
	struct psiplace_rdec_running *run;
	uint32_t *rnodes; /* the running jobs' nodes as positions */
	struct psiplace_rdec_pending *pend;
	uint32_t *pnodes; /* the pending jobs' planned nodes as positions */
	size_t pcap;
	uint32_t *plan_of; /* per job: its plan + 1 this pass (backfill slurm) */
	int64_t off;       /* added to every time: the decision's times are > 0 */
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static bool chosen(const struct psiplace_sim_malleable *m, const struct psiplace_sim_job *tj,
		   const struct sjob *j)
{
	switch (m->rule) {
	case PSIPLACE_SIM_MALL_FRACTION:
		return (double)(mix(m->seed ^ mix(tj->id)) >> 11) * 0x1.0p-53 < m->fraction;
	case PSIPLACE_SIM_MALL_MIN_NODES: return j->k >= m->min_nodes;
	case PSIPLACE_SIM_MALL_TRACE: return tj->mall_max > 0;
	default: return false;
	}
}

int sim_mall_setup(struct sim *s, const struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	const struct psiplace_sim_malleable *m = s->opts->malleable;
	uint32_t npow = 0;
	struct sim_rdec *rd;

	if (!m || m->rule == PSIPLACE_SIM_MALL_NONE)
		return 0;
	s->mall = m;
	for (size_t i = 0; i < s->n; i++)
		npow += s->now[i].power;
	s->t0 = INT64_MAX;
	for (size_t i = 0; i < s->njob; i++) {
		struct sjob *j = &s->jobs[i];
		const struct psiplace_sim_job *tj = &t->jobs[j->trace];
		uint32_t lo, hi;

		s->t0 = j->elig < s->t0 ? j->elig : s->t0;
		if (!j->fits || !chosen(m, tj, j))
			continue;
		if (m->rule == PSIPLACE_SIM_MALL_TRACE) {
			lo = tj->mall_min < j->k ? tj->mall_min : j->k;
			hi = tj->mall_max > j->k ? tj->mall_max : j->k;
		} else {
			lo = (uint32_t)ceil(m->range_lo * j->k - 1e-9);
			hi = (uint32_t)floor(m->range_hi * j->k + 1e-9);
		}
		lo = lo < 1 ? 1 : lo;
		hi = hi > npow ? npow : hi;
		hi = hi < j->k ? j->k : hi;
		j->excl = true; /* the decision moves whole nodes */
		if (m->baseline)
			continue;
		j->mall = true;
		j->mmin = lo;
		j->mmax = hi;
		j->k0 = j->k;
		s->r->res[j->trace].mall_min = lo;
		s->r->res[j->trace].mall_max = hi;
		s->r->malleable++;
	}
	if (m->baseline)
		return 0;
	s->next_dec = INT64_MAX;
	s->rd = rd = calloc(1, sizeof(*rd));
	s->mrun = calloc(s->njob + 1, sizeof(*s->mrun));
	s->ilist = calloc(s->n + 1, sizeof(*s->ilist));
	s->ipos = calloc(s->n + 1, sizeof(*s->ipos));
	s->mdone.key = calloc(64, sizeof(*s->mdone.key));
	s->mdone.val = calloc(64, sizeof(*s->mdone.val));
	s->mdone.cap = 64;
	s->ends.cap = s->njob + 1; /* a resize's new end is pushed, the old one stays */
	if (!rd || !s->mrun || !s->ilist || !s->ipos || !s->mdone.key || !s->mdone.val)
		return psiplace_seterr(err, "simulate: out of memory for malleable jobs");
	rd->nodes = calloc(s->n + 1, sizeof(*rd->nodes));
	rd->pos = malloc((s->n + 1) * sizeof(*rd->pos));
	rd->back = calloc(s->n + 1, sizeof(*rd->back));
	rd->rnodes = calloc(s->n + 1, sizeof(*rd->rnodes));
	rd->pnodes = calloc(s->n + 1, sizeof(*rd->pnodes));
	rd->pcap = s->n + 1;
	rd->plan_of = calloc(s->njob + 1, sizeof(*rd->plan_of));
	rd->run = calloc(s->njob + 1, sizeof(*rd->run));
	if (!rd->nodes || !rd->pos || !rd->back || !rd->rnodes || !rd->pnodes || !rd->plan_of ||
	    !rd->run)
		return psiplace_seterr(err, "simulate: out of memory for malleable jobs");
	for (size_t i = 0; i < s->n; i++) {
		rd->pos[i] = UINT32_MAX;
		if (s->now[i].power && s->alloc[i] == 0) {
			s->ipos[i] = (uint32_t)s->nidle;
			s->ilist[s->nidle++] = (uint32_t)i;
		}
	}
	rd->off = s->t0 < INT64_MAX ? 1 - s->t0 : 0;
	return 0;
}

void sim_mall_free(struct sim *s)
{
	struct sim_rdec *rd = s->rd;

	for (size_t i = 0; i < s->njob && s->jobs; i++)
		free(s->jobs[i].mnodes);
	free(s->mrun);
	free(s->ilist);
	free(s->ipos);
	free(s->mdone.key);
	free(s->mdone.val);
	if (rd) {
		free(rd->nodes);
		free(rd->pos);
		free(rd->back);
		free(rd->rnodes);
		free(rd->pnodes);
		free(rd->plan_of);
		free(rd->run);
		free(rd->pend);
		free(rd);
	}
}

static int64_t tick(const struct sim *s, int64_t t)
{
	int64_t iv = s->mall->interval > 0 ? s->mall->interval : 5, d = t - s->t0;

	return s->t0 + (d + iv - 1) / iv * iv;
}

void sim_mall_touch(struct sim *s)
{
	int64_t at;

	if (!s->mall || !s->nmrun)
		return;
	at = tick(s, s->t);
	s->next_dec = at < s->next_dec ? at : s->next_dec;
}

/* A resize's cost in whole seconds (rounded up: the clock's unit). */
static int64_t cost(const struct sim *s, bool grow, uint32_t k)
{
	double c = grow ? s->mall->grow_base + s->mall->grow_per_node * k
			: s->mall->shrink_base + s->mall->shrink_per_node * k;

	return (int64_t)ceil(c - 1e-9);
}

/* j's work until s->t at its rate (none while a resize is in progress). */
static void progress(struct sim *s, struct sjob *j)
{
	if (s->t > j->wt) {
		j->work -= j->rate * (double)(s->t - j->wt);
		j->wt = s->t;
	}
	if (j->work < 0)
		j->work = 0;
}

/* After a resize of j to k_new nodes begun now and lasting c seconds: its
 * rate, its end (pushed), its limit moved out if the end passed it. */
static void respread(struct sim *s, uint32_t q, uint32_t k_new, int64_t c)
{
	struct sjob *j = &s->jobs[q];
	double eff = s->mall->efficiency > 0 ? s->mall->efficiency : 1.0;
	int64_t end;

	j->rate = (double)j->k0 + eff * ((double)k_new - (double)j->k0);
	j->wt = s->t + c;
	end = j->wt + (int64_t)ceil(j->work / j->rate - 1e-9);
	if (end > j->limit_end) { /* the daemon raises the limit with the work (doc) */
		sim_running_remove(s, q);
		j->limit_end = end;
		sim_running_add(s, q);
	}
	j->end = end;
	sim_heap_push(&s->ends, end, q);
	j->busy = s->t + c;
	j->last_resize = s->t;
	if (c > 0)
		sim_heap_push(&s->mdone, j->busy, q);
}

static void log_resize(struct sim *s, const struct sjob *j, uint32_t from, uint32_t to,
		       const uint32_t *nodes, uint32_t k, int64_t c)
{
	struct psiplace_sim_report *r = s->r;
	struct psiplace_sim_resize *nr;
	uint32_t *nn;

	r->res[j->trace].resizes++;
	if (!s->mall->log)
		return;
	if (!(nr = realloc(r->resizes, (r->nresizes + 1) * sizeof(*nr))) ||
	    !(r->resizes = nr,
	      nn = realloc(r->resize_nodes, (r->nresize_nodes + k + 1) * sizeof(*nn)))) {
		s->mall_failed = true;
		return;
	}
	r->resize_nodes = nn;
	r->resizes[r->nresizes++] = (struct psiplace_sim_resize){
		s->t, s->t + c, j->trace, from, to, r->nresize_nodes
	};
	memcpy(nn + r->nresize_nodes, nodes, k * sizeof(*nn));
	r->nresize_nodes += k;
}

/* Apply k nodes of j (sign +1 taken, -1 given back). */
static void apply_some(struct sim *s, const struct sjob *j, const uint32_t *nodes, uint32_t k,
		       int sign)
{
	struct sjob part = *j;

	part.k = k;
	part.mnodes = NULL;
	sim_apply(s, &part, nodes, sign);
}

static void grow(struct sim *s, uint32_t q, const uint32_t *nodes, uint32_t k)
{
	struct sjob *j = &s->jobs[q];
	int64_t c = cost(s, true, k);

	if (j->k + k > j->mmax) { /* the decision keeps to the range: a defect */
		s->mall_failed = true;
		return;
	}
	sim_account(s, j);
	progress(s, j);
	apply_some(s, j, nodes, k, +1);
	memcpy(j->mnodes + j->k, nodes, k * sizeof(*nodes));
	log_resize(s, j, j->k, j->k + k, nodes, k, c);
	j->k += k;
	s->r->grows++;
	respread(s, q, j->k, c);
}

/* The released nodes go last in j->mnodes, given back at completion. */
static void shrink(struct sim *s, uint32_t q, const uint32_t *nodes, uint32_t k)
{
	struct sjob *j = &s->jobs[q];
	int64_t c = cost(s, false, k);
	uint32_t w = 0, *tail = s->pick; /* scratch of n + 1 */
	size_t nt = 0;

	if (k >= j->k || j->k - k < j->mmin) {
		s->mall_failed = true;
		return;
	}
	for (uint32_t a = 0; a < j->k; a++) {
		bool drop = false;

		for (uint32_t b = 0; b < k && !drop; b++)
			drop = j->mnodes[a] == nodes[b];
		if (drop)
			tail[nt++] = j->mnodes[a];
		else
			j->mnodes[w++] = j->mnodes[a];
	}
	if (nt != k || w == 0) { /* not its nodes: a defect */
		s->mall_failed = true;
		memcpy(j->mnodes + w, tail, nt * sizeof(*tail));
		return;
	}
	memcpy(j->mnodes + w, tail, nt * sizeof(*tail));
	sim_account(s, j);
	progress(s, j);
	log_resize(s, j, j->k, j->k - k, nodes, k, c);
	j->mdrop = k;
	s->r->shrinks++;
	respread(s, q, j->k - k, c);
	if (c == 0)
		sim_mall_complete(s);
}

void sim_mall_complete(struct sim *s)
{
	while (s->mdone.n && s->mdone.key[0] <= s->t) {
		uint32_t q = s->mdone.val[0];
		struct sjob *j = &s->jobs[q];

		sim_heap_pop(&s->mdone);
		if (j->done || !j->mnodes || j->busy > s->t)
			continue;
		if (j->mdrop) {
			sim_account(s, j);
			apply_some(s, j, j->mnodes + j->k - j->mdrop, j->mdrop, -1);
			j->k -= j->mdrop;
			j->mdrop = 0;
			s->mall_freed = true;
		}
	}
	/* a zero-cost shrink has no completion event: it ends now */
	for (size_t i = 0; i < s->nmrun; i++) {
		struct sjob *j = &s->jobs[s->mrun[i]];

		if (j->mdrop && j->busy <= s->t) {
			sim_account(s, j);
			apply_some(s, j, j->mnodes + j->k - j->mdrop, j->mdrop, -1);
			j->k -= j->mdrop;
			j->mdrop = 0;
			s->mall_freed = true;
		}
	}
}

/* Node i into the decision's view. */
static uint32_t show(struct sim *s, uint32_t i)
{
	struct sim_rdec *rd = s->rd;

	if (rd->pos[i] == UINT32_MAX) {
		rd->pos[i] = (uint32_t)rd->n;
		rd->back[rd->n] = i;
		rd->nodes[rd->n] = (struct psiplace_rdec_node){ .node = s->now[i], .usable = true };
		rd->nodes[rd->n].node.power_state = PSIPLACE_POWER_UP;
		rd->n++;
	}
	return rd->pos[i];
}

static bool too_soon(const struct sim *s, const struct sjob *j)
{
	return j->last_resize != INT64_MIN && s->t - j->last_resize < s->mall->min_interval;
}

/* A job the decision may grow now. */
static bool may_grow(const struct sim *s, const struct sjob *j)
{
	return j->busy <= s->t && !too_soon(s, j) && j->k < j->mmax;
}

/* What a call may decide: ASK_SHRINK, a shrink may let the first waiting
 * job start (it does not fit the idle nodes, and the spare nodes of the
 * jobs that may be resized cover its deficit: a bound on what rule 2 may
 * take); ASK_GROW, an idle node may be granted: one that no plan holds
 * whose start is before the end of the growing job that ends first (rule
 * 3a protects a planned node from a grower ending after the plan's start;
 * every pending job shown has a plan or a start beyond every limit, so
 * rule 3b protects nothing).  Also schedules the tick at which a job's
 * minimum interval runs out, when one waits for that. */
enum { ASK_GROW = 1, ASK_SHRINK = 2 };

static int worth_asking(struct sim *s)
{
	uint32_t spare = 0, idle_planned = 0;
	int64_t wake = INT64_MAX, min_end = INT64_MAX;
	int ask = 0;

	for (size_t i = 0; i < s->nmrun; i++) {
		const struct sjob *j = &s->jobs[s->mrun[i]];

		if (j->busy > s->t)
			continue;
		if (too_soon(s, j)) {
			int64_t w = j->last_resize + s->mall->min_interval;

			wake = w < wake ? w : wake;
			continue;
		}
		spare += j->k - j->mmin;
		if (j->k < j->mmax && j->limit_end < min_end)
			min_end = j->limit_end;
	}
	if (wake < INT64_MAX) {
		int64_t at = tick(s, wake);

		s->next_dec = at < s->next_dec ? at : s->next_dec;
	}
	if (s->nq && spare > 0 && s->jobs[s->queue[0]].k > s->nidle &&
	    s->jobs[s->queue[0]].k - s->nidle <= spare)
		ask |= ASK_SHRINK;
	if (min_end == INT64_MAX || !s->nidle)
		return ask;
	if (s->opts->plan_all) {
		for (size_t p = 0; p < s->nplans; p++)
			for (uint32_t a = 0; a < s->plans[p].k && s->plans[p].t0 < min_end; a++) {
				uint32_t i = s->plan_nodes[s->plans[p].first + a];

				if (s->alloc[i] == 0 && s->now[i].power &&
				    s->rd->pos[i] == UINT32_MAX) {
					s->rd->pos[i] = 0; /* counted once */
					idle_planned++;
				}
			}
		for (size_t p = 0; p < s->nplans; p++)
			for (uint32_t a = 0; a < s->plans[p].k; a++)
				s->rd->pos[s->plan_nodes[s->plans[p].first + a]] = UINT32_MAX;
	} else if (s->resv.found && s->nq && s->resv.q == s->queue[0] && s->resv.t < min_end) {
		for (uint32_t a = 0; a < s->resv.k; a++)
			idle_planned +=
				s->alloc[s->resv.nodes[a]] == 0 && s->now[s->resv.nodes[a]].power;
	}
	if (s->nidle > idle_planned)
		ask |= ASK_GROW;
	return ask;
}

/* The pending jobs the last pass walked, with the plan it made. */
static bool build_pending(struct sim *s, size_t *np)
{
	struct sim_rdec *rd = s->rd;
	uint32_t depth = s->opts->bf_depth ? s->opts->bf_depth : 500;
	size_t n = s->nq < depth ? s->nq : depth, used = 0, need = 0, m = 0;
	struct psiplace_rdec_pending *p;

	if (!(p = realloc(rd->pend, (n + 1) * sizeof(*p))))
		return false;
	rd->pend = p;
	if (s->opts->plan_all) /* plans at other times may share nodes: more than n */
		for (size_t x = 0; x < s->nplans; x++)
			need += s->plans[x].k;
	else
		need = s->resv.k;
	if (need >= rd->pcap) {
		uint32_t *q = realloc(rd->pnodes, (need + 1) * sizeof(*q));

		if (!q)
			return false;
		rd->pnodes = q;
		rd->pcap = need + 1;
	}
	if (s->opts->plan_all)
		for (size_t x = 0; x < s->nplans; x++)
			rd->plan_of[s->plans[x].q] = (uint32_t)x + 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t q = s->queue[i];
		const struct sjob *j = &s->jobs[q];
		const uint32_t *pl = NULL;
		uint32_t pk = 0;
		int64_t start = NO_PLAN;

		if (s->opts->plan_all && rd->plan_of[q]) {
			const struct plan *x = &s->plans[rd->plan_of[q] - 1];

			pl = s->plan_nodes + x->first;
			pk = x->k;
			start = x->t0 + rd->off;
		} else if (!s->opts->plan_all && i == 0 && s->resv.found && s->resv.q == q) {
			pl = s->resv.nodes;
			pk = s->resv.k;
			start = s->resv.t + rd->off;
		}
		/* A job without a plan has a start beyond every limit: rule 3
		 * reads nothing of it, rule 2 only the first job: it is left out,
		 * the same answer at a fraction of the cost (rule 3 walks the
		 * pending jobs once per growing job). */
		if (i > 0 && !pk)
			continue;
		p[m++] = (struct psiplace_rdec_pending){
			.id = q,
			.nodes = j->k,
			.time_limit = j->limit,
			.planned_start = start,
			.planned = pk ? rd->pnodes + used : NULL,
			.nplanned = pk,
			.policy = { .policy = PSIPLACE_POLICY_NONE },
		};
		for (uint32_t a = 0; a < pk; a++)
			rd->pnodes[used++] = show(s, pl[a]);
	}
	if (s->opts->plan_all)
		for (size_t x = 0; x < s->nplans; x++)
			rd->plan_of[s->plans[x].q] = 0;
	*np = m;
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void apply_decisions(struct sim *s, const struct psiplace_rdec_result *res)
{
	struct sim_rdec *rd = s->rd;
	uint32_t *nodes = s->rel; /* scratch of n + 1; zero again after */

	for (size_t i = 0; i < res->n; i++) {
		const struct psiplace_rdec_decision *d = &res->d[i];

		if (d->action == PSIPLACE_RDEC_NOTHING) {
			if (d->why == PSIPLACE_RDEC_WHY_TOO_SOON) {
				int64_t at = tick(s, s->jobs[d->job].last_resize +
							     s->mall->min_interval);

				s->next_dec = at < s->next_dec ? at : s->next_dec;
			}
			continue;
		}
		for (uint32_t a = 0; a < d->k; a++)
			nodes[a] = rd->back[d->nodes[a]];
		qsort(nodes, d->k, sizeof(*nodes), cmp_u32); /* node order, not the view's */
		if (d->action == PSIPLACE_RDEC_GROW)
			grow(s, d->job, nodes, d->k);
		else
			shrink(s, d->job, nodes, d->k);
		memset(nodes, 0, d->k * sizeof(*nodes));
	}
}

void sim_mall_decide(struct sim *s)
{
	struct sim_rdec *rd = s->rd;
	struct psiplace_rdec_params par;
	struct psiplace_rdec_state st;
	struct psiplace_rdec_result res;
	psiplace_error_t err;
	size_t used = 0, np = 0, nr = 0;
	int ask;

	s->next_dec = INT64_MAX;
	if (!s->nmrun || !(ask = worth_asking(s)))
		return;
	rd->n = 0;
	for (size_t i = 0; i < s->nidle; i++)
		show(s, s->ilist[i]);
	for (size_t i = 0; i < s->nmrun; i++) {
		const struct sjob *j = &s->jobs[s->mrun[i]];

		/* With no shrink possible, the jobs that cannot grow now would
		 * only be told "nothing" (their nodes are not idle either way):
		 * the decision is shown the others alone, the same answer.  With
		 * no grow possible, a job is shown at its maximum (rule 3 ends at
		 * once; rule 2 reads the minimum alone): the same answer. */
		if (!(ask & ASK_SHRINK) && !may_grow(s, j))
			continue;
		rd->run[nr++] = (struct psiplace_rdec_running){
			.id = s->mrun[i],
			.nodes = rd->rnodes + used,
			.nnodes = j->k,
			.min = j->mmin,
			.max = ask & ASK_GROW ? j->mmax : j->k,
			.end = j->limit_end + rd->off,
			.last_resize = j->last_resize == INT64_MIN ? 0 : j->last_resize + rd->off,
			.in_progress = j->busy > s->t,
			.policy = { .policy = PSIPLACE_POLICY_NONE },
		};
		for (uint32_t a = 0; a < j->k; a++)
			rd->rnodes[used++] = show(s, j->mnodes[a]);
	}
	if (!build_pending(s, &np)) {
		s->mall_failed = true;
		return;
	}
	psiplace_rdec_params_init(&par);
	par.min_interval = s->mall->min_interval;
	par.cluster_policy.policy = s->opts->rank.policy;
	par.cluster_policy.priorityf = s->opts->rank.cluster_priorityf;
	par.policy_overrides_weight = s->opts->rank.policy_overrides_weight;
	st = (struct psiplace_rdec_state){
		.now = s->t + rd->off,
		.nodes = rd->nodes,
		.nnodes = rd->n,
		.running = rd->run,
		.nrunning = nr,
		.pending = rd->pend,
		.npending = np,
	};
	s->r->rdec_calls++;
	if (psiplace_rdec_decide(&st, &par, s->rdec_id + 1, &res, &err) < 0) {
		s->mall_failed = true; /* the replay's state is inconsistent: a defect */
	} else {
		for (size_t i = 0; i < res.n; i++)
			s->rdec_id += res.d[i].action != PSIPLACE_RDEC_NOTHING;
		apply_decisions(s, &res);
		psiplace_rdec_result_free(&res);
	}
	for (size_t i = 0; i < rd->n; i++)
		rd->pos[rd->back[i]] = UINT32_MAX;
}
