/* The resource manager's resize decision (psiplace/resize_decision.h has
 * the rules; doc/malleability.md explains them against DMR, PRRTE, TUM's
 * plugin and LSF). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/resize_decision.h"

struct ctx {
	const struct psiplace_rdec_state *s;
	const struct psiplace_rdec_params *p;
	psiplace_error_t *err;
	int32_t *held;           /* per node: the running job holding it, -1: none */
	int32_t *hold_for;       /* per node: the pending job it is held for (rule 3d), -1: none */
	unsigned char *taken;    /* per node: given away by this call */
	unsigned char *prot;     /* per node: protected from the grow being decided */
	uint32_t *pset;          /* the positions prot marks (cleared by them, not by all nodes) */
	size_t npset;
	uint32_t *idle_pos;      /* the idle nodes' positions, ascending (idle() does not change
				  * during a call): what rule 3 scans, not every node */
	size_t nidle;
	uint32_t *cand, *order;  /* per node: scratch lists of positions */
	struct psiplace_node *scratch;
	struct psiplace_rdec_decision **dj; /* per running job; NULL: not malleable */
	bool *settled;           /* per running job: decided */
	bool top_placed;         /* rule 2 gave the first pending job its nodes */
};

void psiplace_rdec_params_init(struct psiplace_rdec_params *p)
{
	memset(p, 0, sizeof(*p));
	p->min_interval = PSIPLACE_RDEC_MIN_INTERVAL_DEFAULT;
	p->max_grow = PSIPLACE_RDEC_MAX_GROW_DEFAULT;
	p->allow_shrink = PSIPLACE_RDEC_ALLOW_SHRINK_DEFAULT;
	p->cluster_policy.policy = PSIPLACE_POLICY_NONE;
}

void psiplace_rdec_result_init(struct psiplace_rdec_result *r)
{
	memset(r, 0, sizeof(*r));
}

void psiplace_rdec_result_free(struct psiplace_rdec_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->d[i].nodes);
	free(r->d);
	psiplace_rdec_result_init(r);
}

const char *psiplace_rdec_why_name(enum psiplace_rdec_why w)
{
	switch (w) {
	case PSIPLACE_RDEC_WHY_FIXED:
		return "fixed";
	case PSIPLACE_RDEC_WHY_IN_PROGRESS:
		return "in progress";
	case PSIPLACE_RDEC_WHY_TOO_SOON:
		return "too soon";
	case PSIPLACE_RDEC_WHY_AT_MAX:
		return "at max";
	case PSIPLACE_RDEC_WHY_NO_NODES:
		return "no free node";
	default:
		return "";
	}
}

/* Is partition `part` one of the comma-separated `list` (NULL: all)? */
static bool in_partition(const char *list, const char *part)
{
	size_t n;

	if (!list || !part)
		return true;
	n = strlen(part);
	for (const char *s = list; *s;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (l == n && !strncmp(s, part, n))
			return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

static bool idle(const struct ctx *c, uint32_t q)
{
	const struct psiplace_rdec_node *n = &c->s->nodes[q];

	return n->usable && n->node.alloc_cpus == 0 && c->held[q] < 0;
}

/* Idle, powered up, not given away, not held for a pending job: a node a
 * grow may be given. */
static bool grantable(const struct ctx *c, uint32_t q)
{
	return idle(c, q) && !c->taken[q] && !c->prot[q] && c->hold_for[q] < 0 &&
	       c->s->nodes[q].node.power_state == PSIPLACE_POWER_UP;
}

/* The PartitionName line of partition `part`, or NULL. */
static const struct psiplace_rdec_partpolicy *part_line(const struct ctx *c, const char *part)
{
	for (size_t i = 0; part && i < c->p->nparts; i++)
		if (!strcmp(c->p->parts[i].name, part))
			return &c->p->parts[i];
	return NULL;
}

/* The select plugin's precedence: the job's own policy, else its
 * partition line's, else the cluster's; PRIORITY's function: the job's,
 * a node's own, the partition line's, the cluster's. */
static void policy_of(const struct ctx *c, const struct psiplace_rdec_policy *pol, const char *part,
		      struct psiplace_rank_opts *o, struct psiplace_job *job)
{
	const struct psiplace_rdec_partpolicy *pl = part_line(c, part);

	o->policy = pol->policy;
	if (o->policy == PSIPLACE_POLICY_NONE)
		o->policy = pl && pl->has_policy ? pl->policy : c->p->cluster_policy.policy;
	job->priorityf = pol->priorityf;
	o->cluster_priorityf = pl && pl->priorityf ? pl->priorityf : c->p->cluster_policy.priorityf;
	o->policy_overrides_weight = c->p->policy_overrides_weight;
}

/* Order cand[0..m-1] (positions) best first for `pol` of a job in
 * partition `part` wanting k nodes, each rated as a free powered node
 * (what it is, or will be once released); the order replaces cand[]. */
static int rank_cands(struct ctx *c, const struct psiplace_rdec_policy *pol, const char *part,
		      size_t m, size_t k)
{
	struct psiplace_job job = { .nodes = (uint32_t)k };
	struct psiplace_rank_opts o = { 0 };
	size_t i;

	if (m == 0)
		return 0;
	policy_of(c, pol, part, &o, &job);
	o.job = &job;
	for (i = 0; i < m; i++) {
		c->scratch[i] = c->s->nodes[c->cand[i]].node;
		c->scratch[i].alloc_cpus = 0;
		c->scratch[i].power = true;
		if (c->scratch[i].cpus == 0)
			c->scratch[i].cpus = 1;
	}
	if (psiplace_rank(&o, c->scratch, m, c->order, c->err) < 0)
		return -1;
	for (i = 0; i < m; i++)
		c->order[i] = c->cand[c->order[i]];
	memcpy(c->cand, c->order, m * sizeof(*c->cand));
	return 0;
}

static void prot_set(struct ctx *c, uint32_t q)
{
	if (!c->prot[q]) {
		c->prot[q] = 1;
		c->pset[c->npset++] = q;
	}
}

static void prot_clear(struct ctx *c)
{
	for (size_t i = 0; i < c->npset; i++)
		c->prot[c->pset[i]] = 0;
	c->npset = 0;
}

static int set_nodes(struct ctx *c, struct psiplace_rdec_decision *d, const unsigned char *mark,
		     int32_t owner)
{
	uint32_t k = 0;

	if (!(d->nodes = malloc(d->k * sizeof(*d->nodes))))
		return psiplace_seterr(c->err, "resize decision: out of memory");
	for (uint32_t q = 0; q < c->s->nnodes && k < d->k; q++)
		if (mark[q] && (owner < 0 || c->held[q] == owner))
			d->nodes[k++] = q;
	return 0;
}

static bool valid_policy(const struct psiplace_rdec_policy *p)
{
	return psiplace_policy_valid(p->policy);
}

static int check_positions(const struct ctx *c, const uint32_t *v, size_t n, const char *what,
			   uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] >= c->s->nnodes)
			return psiplace_seterr(c->err, "resize decision: job %u: %s node %u of %zu nodes",
					       id, what, v[i], c->s->nnodes);
	return 0;
}

static int check_running(struct ctx *c)
{
	const struct psiplace_rdec_state *s = c->s;

	for (size_t i = 0; i < s->nrunning; i++) {
		const struct psiplace_rdec_running *r = &s->running[i];

		if (!r->nnodes || !r->nodes)
			return psiplace_seterr(c->err, "resize decision: running job %u holds no node", r->id);
		if (r->max && (r->min < 1 || r->min > r->max))
			return psiplace_seterr(c->err,
					       "resize decision: job %u: range %u-%u (accepted: 1 <= MIN <= MAX)",
					       r->id, r->min, r->max);
		if (!valid_policy(&r->policy))
			return psiplace_seterr(c->err, "resize decision: job %u: unknown policy", r->id);
		if (check_positions(c, r->nodes, r->nnodes, "holds", r->id) < 0)
			return -1;
		for (size_t j = 0; j < r->nnodes; j++) {
			if (c->held[r->nodes[j]] >= 0)
				return psiplace_seterr(c->err,
						       "resize decision: node %u held by jobs %u and %u",
						       r->nodes[j], s->running[c->held[r->nodes[j]]].id, r->id);
			c->held[r->nodes[j]] = (int32_t)i;
		}
	}
	return 0;
}

static int check_state(struct ctx *c)
{
	const struct psiplace_rdec_state *s = c->s;

	if (c->p->min_interval < 0)
		return psiplace_seterr(c->err, "resize decision: negative minimum interval");
	if (!valid_policy(&c->p->cluster_policy))
		return psiplace_seterr(c->err, "resize decision: unknown cluster policy");
	if (c->p->nparts && !c->p->parts)
		return psiplace_seterr(c->err, "resize decision: missing array");
	for (size_t i = 0; i < c->p->nparts; i++) {
		const struct psiplace_rdec_partpolicy *pl = &c->p->parts[i];

		if (!pl->name)
			return psiplace_seterr(c->err, "resize decision: partition line %zu has no name",
					       i + 1);
		if (!psiplace_policy_valid(pl->policy))
			return psiplace_seterr(c->err, "resize decision: partition %s: unknown policy",
					       pl->name);
	}
	if ((s->nnodes && !s->nodes) || (s->nrunning && !s->running) || (s->npending && !s->pending) ||
	    (s->nholds && !s->holds))
		return psiplace_seterr(c->err, "resize decision: missing array");
	if (s->nnodes > INT32_MAX)
		return psiplace_seterr(c->err, "resize decision: %zu nodes (at most %d)", s->nnodes,
				       INT32_MAX);
	for (size_t i = 0; i < s->npending; i++) {
		const struct psiplace_rdec_pending *p = &s->pending[i];

		if (!p->nodes)
			return psiplace_seterr(c->err, "resize decision: pending job %u asks for no node",
					       p->id);
		if (!valid_policy(&p->policy))
			return psiplace_seterr(c->err, "resize decision: job %u: unknown policy", p->id);
		if (p->nplanned && !p->planned)
			return psiplace_seterr(c->err, "resize decision: job %u: missing planned nodes", p->id);
		if (check_positions(c, p->planned, p->nplanned, "planned on", p->id) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->nholds; i++) {
		const struct psiplace_rdec_hold *h = &s->holds[i];

		if (!h->nnodes || !h->nodes)
			return psiplace_seterr(c->err, "resize decision: hold for job %u names no node",
					       h->job);
		if (check_positions(c, h->nodes, h->nnodes, "held", h->job) < 0)
			return -1;
	}
	return check_running(c);
}

/* Rule 3d: the holds whose job is pending, each node for the first. */
static void apply_holds(struct ctx *c)
{
	const struct psiplace_rdec_state *s = c->s;

	for (size_t i = 0; i < s->nholds; i++) {
		const struct psiplace_rdec_hold *h = &s->holds[i];
		size_t k;

		for (k = 0; k < s->npending && s->pending[k].id != h->job; k++)
			;
		for (size_t j = 0; k < s->npending && j < h->nnodes; j++)
			if (c->hold_for[h->nodes[j]] < 0)
				c->hold_for[h->nodes[j]] = (int32_t)k;
	}
}

/* Rule 1: jobs that are not to be touched this time. */
static void settle_early(struct ctx *c)
{
	for (size_t i = 0; i < c->s->nrunning; i++) {
		const struct psiplace_rdec_running *r = &c->s->running[i];
		struct psiplace_rdec_decision *d = c->dj[i];

		if (!d)
			continue;
		if (r->min == r->max)
			d->why = PSIPLACE_RDEC_WHY_FIXED;
		else if (r->in_progress)
			d->why = PSIPLACE_RDEC_WHY_IN_PROGRESS;
		else if (r->last_resize > 0 && c->s->now - r->last_resize < c->p->min_interval)
			d->why = PSIPLACE_RDEC_WHY_TOO_SOON;
		c->settled[i] = d->why != PSIPLACE_RDEC_WHY_NONE;
	}
}

/* The nodes of the first pending job's partition running job i may
 * release (never its batch host) into c->cand from *m; returns how many
 * it may give without going below its minimum. */
static uint32_t releasable(struct ctx *c, size_t i, const char *part, size_t *m)
{
	const struct psiplace_rdec_running *r = &c->s->running[i];
	uint32_t n = 0, room = r->nnodes > r->min ? (uint32_t)(r->nnodes - r->min) : 0;

	for (size_t j = 1; j < r->nnodes && room; j++) {
		const struct psiplace_rdec_node *nd = &c->s->nodes[r->nodes[j]];

		if (nd->usable && in_partition(nd->partitions, part)) {
			c->cand[(*m)++] = r->nodes[j];
			n++;
		}
	}
	return n < room ? n : room;
}

/* Emit the SHRINK decisions of rule 2 from the nodes marked in c->prot
 * (borrowed as the chosen set) and give the first pending job its
 * nodes. */
static int emit_shrinks(struct ctx *c, const uint32_t *given, const char *part)
{
	const struct psiplace_rdec_pending *top = &c->s->pending[0];

	for (size_t i = 0; i < c->s->nrunning; i++) {
		struct psiplace_rdec_decision *d = c->dj[i];

		if (!given[i])
			continue;
		d->action = PSIPLACE_RDEC_SHRINK;
		d->k = given[i];
		d->for_job = top->id;
		c->settled[i] = true;
		if (set_nodes(c, d, c->prot, (int32_t)i) < 0)
			return -1;
	}
	for (uint32_t q = 0; q < c->s->nnodes; q++)
		if (c->prot[q] || (idle(c, q) && in_partition(c->s->nodes[q].partitions, part)))
			c->taken[q] = 1;
	prot_clear(c);
	c->top_placed = true;
	return 0;
}

/* Rule 2. */
static int plan_shrink(struct ctx *c)
{
	const struct psiplace_rdec_pending *top = &c->s->pending[0];
	size_t m = 0, i, deficit = top->nodes, free_now = 0, budget_sum = 0, got = 0;
	uint32_t *budget, *given;
	int rc;

	for (uint32_t q = 0; q < c->s->nnodes; q++)
		if (idle(c, q) && in_partition(c->s->nodes[q].partitions, top->partition))
			free_now++;
	if (free_now >= deficit)
		return 0; /* it waits for something else than nodes */
	deficit -= free_now;
	budget = calloc(c->s->nrunning + 1, sizeof(*budget));
	given = calloc(c->s->nrunning + 1, sizeof(*given));
	if (!budget || !given) {
		free(budget);
		free(given);
		return psiplace_seterr(c->err, "resize decision: out of memory");
	}
	for (i = 0; i < c->s->nrunning; i++)
		if (c->dj[i] && !c->settled[i])
			budget_sum += budget[i] = releasable(c, i, top->partition, &m);
	rc = 0;
	if (budget_sum >= deficit) {
		rc = rank_cands(c, &top->policy, top->partition, m, deficit);
		for (i = 0; rc == 0 && i < m && got < deficit; i++) {
			int32_t owner = c->held[c->cand[i]];

			if (given[owner] < budget[owner]) {
				given[owner]++;
				prot_set(c, c->cand[i]);
				got++;
			}
		}
		if (rc == 0)
			rc = emit_shrinks(c, given, top->partition);
	}
	free(budget);
	free(given);
	return rc;
}

static bool pending_counts(const struct ctx *c, size_t i)
{
	return !(i == 0 && c->top_placed);
}

/* Rule 3 a and b for a grow of a job ending at `end`: c->prot. */
static int protect_for(struct ctx *c, int64_t end)
{
	const struct psiplace_rdec_state *s = c->s;
	size_t i, j, m;

	prot_clear(c);
	for (i = 0; i < s->npending; i++) {
		const struct psiplace_rdec_pending *p = &s->pending[i];

		if (pending_counts(c, i) && p->planned_start != PSIPLACE_RDEC_UNKNOWN &&
		    p->nplanned && p->planned_start < end)
			for (j = 0; j < p->nplanned; j++)
				prot_set(c, p->planned[j]);
	}
	for (i = 0; i < s->npending; i++) {
		const struct psiplace_rdec_pending *p = &s->pending[i];
		bool unplaced = p->planned_start == PSIPLACE_RDEC_UNKNOWN ||
				(p->planned_start < end && !p->nplanned);

		size_t want = p->nodes;

		if (!pending_counts(c, i) || !unplaced)
			continue;
		for (m = 0, j = 0; j < c->nidle; j++) {
			uint32_t q = c->idle_pos[j];

			if (!in_partition(s->nodes[q].partitions, p->partition))
				continue;
			if (c->hold_for[q] == (int32_t)i && want) /* held for it: 3d keeps them */
				want--;
			else if (grantable(c, q))
				c->cand[m++] = q;
		}
		if (rank_cands(c, &p->policy, p->partition, m, want < m ? want : m) < 0)
			return -1;
		for (j = 0; j < m && j < want; j++)
			prot_set(c, c->cand[j]);
	}
	return 0;
}

static int grow_one(struct ctx *c, size_t i)
{
	const struct psiplace_rdec_running *r = &c->s->running[i];
	struct psiplace_rdec_decision *d = c->dj[i];
	size_t m = 0, k;

	if (r->nnodes >= r->max) {
		d->why = PSIPLACE_RDEC_WHY_AT_MAX;
		return 0;
	}
	k = r->max - r->nnodes;
	if (c->p->max_grow && k > c->p->max_grow)
		k = c->p->max_grow;
	if (protect_for(c, r->end) < 0)
		return -1;
	for (size_t j = 0; j < c->nidle; j++) {
		uint32_t q = c->idle_pos[j];

		if (grantable(c, q) && in_partition(c->s->nodes[q].partitions, r->partition))
			c->cand[m++] = q;
	}
	if (m == 0) {
		d->why = PSIPLACE_RDEC_WHY_NO_NODES;
		return 0;
	}
	if (k > m)
		k = m;
	if (rank_cands(c, &r->policy, r->partition, m, k) < 0)
		return -1;
	prot_clear(c);
	for (size_t j = 0; j < k; j++) {
		prot_set(c, c->cand[j]);
		c->taken[c->cand[j]] = 1;
	}
	d->action = PSIPLACE_RDEC_GROW;
	d->k = (uint32_t)k;
	return set_nodes(c, d, c->prot, -1);
}

/* The grow order of rule 3: higher priority first, then lower id. */
struct grow_key {
	uint32_t priority, id, idx;
};

static int cmp_grow(const void *x, const void *y)
{
	const struct grow_key *a = x, *b = y;

	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Rule 3, the jobs rules 1 and 2 left open. */
static int plan_grows(struct ctx *c)
{
	struct grow_key *key = malloc((c->s->nrunning + 1) * sizeof(*key));
	size_t n = 0, i;
	int rc = 0;

	if (!key)
		return psiplace_seterr(c->err, "resize decision: out of memory");
	for (i = 0; i < c->s->nrunning; i++)
		if (c->dj[i] && !c->settled[i])
			key[n++] = (struct grow_key){ c->s->running[i].priority, c->s->running[i].id,
						      (uint32_t)i };
	qsort(key, n, sizeof(*key), cmp_grow);
	for (i = 0; i < n && rc == 0; i++)
		rc = grow_one(c, key[i].idx);
	free(key);
	return rc;
}

static int cmp_decision(const void *x, const void *y)
{
	const struct psiplace_rdec_decision *a = x, *b = y;

	return a->job < b->job ? -1 : a->job > b->job;
}

static int alloc_ctx(struct ctx *c, struct psiplace_rdec_result *out)
{
	size_t nn = c->s->nnodes + 1, nr = c->s->nrunning + 1, i;

	c->held = malloc(nn * sizeof(*c->held));
	c->hold_for = malloc(nn * sizeof(*c->hold_for));
	c->taken = calloc(nn, 1);
	c->prot = calloc(nn, 1);
	c->pset = malloc(nn * sizeof(*c->pset));
	c->idle_pos = malloc(nn * sizeof(*c->idle_pos));
	c->cand = malloc(nn * sizeof(*c->cand));
	c->order = malloc(nn * sizeof(*c->order));
	c->scratch = malloc(nn * sizeof(*c->scratch));
	c->dj = calloc(nr, sizeof(*c->dj));
	c->settled = calloc(nr, sizeof(*c->settled));
	out->d = calloc(nr, sizeof(*out->d));
	if (!c->held || !c->hold_for || !c->taken || !c->prot || !c->pset || !c->idle_pos ||
	    !c->cand || !c->order || !c->scratch || !c->dj || !c->settled || !out->d)
		return psiplace_seterr(c->err, "resize decision: out of memory");
	for (i = 0; i < c->s->nnodes; i++)
		c->held[i] = c->hold_for[i] = -1;
	return 0;
}

static void free_ctx(struct ctx *c)
{
	free(c->held);
	free(c->hold_for);
	free(c->taken);
	free(c->prot);
	free(c->pset);
	free(c->idle_pos);
	free(c->cand);
	free(c->order);
	free(c->scratch);
	free(c->dj);
	free(c->settled);
}

static int decide(struct ctx *c, struct psiplace_rdec_result *out)
{
	const struct psiplace_rdec_state *s = c->s;

	if (alloc_ctx(c, out) < 0 || check_state(c) < 0)
		return -1;
	apply_holds(c);
	for (uint32_t q = 0; q < s->nnodes; q++) /* after check_state: held[] is known */
		if (idle(c, q))
			c->idle_pos[c->nidle++] = q;
	for (size_t i = 0; i < s->nrunning; i++) {
		if (!s->running[i].max)
			continue;
		c->dj[i] = &out->d[out->n++];
		c->dj[i]->job = s->running[i].id;
	}
	settle_early(c);
	if (c->p->allow_shrink && s->npending && plan_shrink(c) < 0)
		return -1;
	return plan_grows(c);
}

int psiplace_rdec_decide(const struct psiplace_rdec_state *s, const struct psiplace_rdec_params *p,
			 uint64_t first_id, struct psiplace_rdec_result *out, psiplace_error_t *err)
{
	struct ctx c = { .s = s, .p = p, .err = err };
	int rc;

	psiplace_rdec_result_init(out);
	rc = decide(&c, out);
	free_ctx(&c);
	if (rc < 0) {
		psiplace_rdec_result_free(out);
		return -1;
	}
	qsort(out->d, out->n, sizeof(*out->d), cmp_decision);
	for (size_t i = 0; i < out->n; i++)
		if (out->d[i].action != PSIPLACE_RDEC_NOTHING)
			out->d[i].id = first_id++;
	return 0;
}

/* snprintf at buf+*at, keeping *at; false when it does not fit. */
static bool put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *at)
		return false;
	*at += (size_t)n;
	return true;
}

long psiplace_rdec_format(const struct psiplace_rdec_state *s, const struct psiplace_rdec_decision *d,
			  char *buf, size_t len)
{
	size_t at = 0;
	bool ok;

	if (!buf || !len)
		return -1;
	if (d->action == PSIPLACE_RDEC_NOTHING)
		return put(buf, len, &at, "job %u: nothing (%s)", d->job, psiplace_rdec_why_name(d->why))
			       ? (long)at : -1;
	ok = put(buf, len, &at, "job %u: %s %u (", d->job,
		 d->action == PSIPLACE_RDEC_SHRINK ? "shrink" : "grow", d->k);
	for (uint32_t i = 0; ok && i < d->k; i++) {
		const char *name = d->nodes[i] < s->nnodes ? s->nodes[d->nodes[i]].node.name : NULL;

		ok = put(buf, len, &at, "%s%s", i ? "," : "", name ? name : "?");
	}
	if (ok && d->action == PSIPLACE_RDEC_SHRINK)
		ok = put(buf, len, &at, ") for job %u, decision %llu", d->for_job,
			 (unsigned long long)d->id);
	else if (ok)
		ok = put(buf, len, &at, "), decision %llu", (unsigned long long)d->id);
	return ok ? (long)at : -1;
}
