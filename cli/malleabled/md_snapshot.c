/* The resize decision's input (psiplace/resize_decision.h) from
 * slurmctld's records as md_model.h has them, and the daemon's tracks. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/hostlist.h"
#include "psiplace/resize_channel.h"
#include "md_model.h"

void psiplace_md_snapshot_init(struct psiplace_md_snapshot *s)
{
	memset(s, 0, sizeof(*s));
}

void psiplace_md_snapshot_free(struct psiplace_md_snapshot *s)
{
	for (size_t i = 0; i < s->nfns; i++)
		psiplace_priorityf_free(s->fns[i]);
	free(s->fns);
	free(s->nodes);
	free(s->running);
	free(s->pending);
	free(s->holds);
	free(s->positions);
	psiplace_md_snapshot_init(s);
}

struct names {
	const struct psiplace_md_input *in;
	uint32_t *by_name; /* node positions sorted by name */
	bool *held;        /* a running job of the snapshot lists the node */
};

static const struct psiplace_md_input *sort_in;

static int cmp_pos(const void *a, const void *b)
{
	return strcmp(sort_in->nodes[*(const uint32_t *)a].name,
		      sort_in->nodes[*(const uint32_t *)b].name);
}

static int find_node(const struct names *nm, const char *name)
{
	size_t lo = 0, hi = nm->in->nnodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(nm->in->nodes[nm->by_name[mid]].name, name);

		if (!c)
			return (int)nm->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The positions of hostlist s appended to s->positions; 0 with *n set, 1
 * when a name is not a node (or s is malformed), -1 out of memory. */
static int positions_of(struct psiplace_md_snapshot *s, const struct names *nm, const char *list,
			size_t *first, size_t *n)
{
	struct psiplace_hostlist h;
	uint32_t *p;

	*first = s->npositions;
	*n = 0;
	if (psiplace_hostlist_expand(list, "NodeList", &h, NULL) < 0)
		return 1;
	if (!(p = realloc(s->positions, (s->npositions + h.n) * sizeof(*p)))) {
		psiplace_hostlist_free(&h);
		return -1;
	}
	s->positions = p;
	for (size_t i = 0; i < h.n; i++) {
		int pos = find_node(nm, h.host[i]);

		if (pos < 0) {
			psiplace_hostlist_free(&h);
			return 1;
		}
		p[s->npositions + i] = (uint32_t)pos;
	}
	s->npositions += h.n;
	*n = h.n;
	psiplace_hostlist_free(&h);
	return 0;
}

static bool is_helper(const struct psiplace_md_job *j)
{
	return j->name && !strncmp(j->name, PSIPLACE_MD_HELPER_PREFIX,
				   strlen(PSIPLACE_MD_HELPER_PREFIX));
}

/* qsort has no argument for the array its indices point into. */
static const struct psiplace_md_job *sort_jobs;

static int cmp_pending(const void *a, const void *b)
{
	const struct psiplace_md_job *x = &sort_jobs[*(const size_t *)a];
	const struct psiplace_md_job *y = &sort_jobs[*(const size_t *)b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* MAX cut to the partition's MaxNodes and size; 0 (not malleable) when
 * that leaves less than MIN. */
static uint32_t cut_max(const struct psiplace_md_input *in, const char *part, uint32_t min,
			uint32_t max)
{
	for (size_t i = 0; part && i < in->nparts; i++) {
		if (strcmp(in->parts[i].name, part))
			continue;
		if (in->parts[i].max_nodes && max > in->parts[i].max_nodes)
			max = in->parts[i].max_nodes;
		if (in->parts[i].total_nodes && max > in->parts[i].total_nodes)
			max = in->parts[i].total_nodes;
	}
	return max < min ? 0 : max;
}

/* The job's own policy from the policy part of its AdminComment; NONE
 * (the partition's or cluster's) without one or when it is malformed.
 * -1: out of memory. */
static int job_policy(const struct psiplace_md_job *j, struct psiplace_md_snapshot *s,
		      struct psiplace_rdec_policy *pol)
{
	char fn[PSIPLACE_PRIORITYF_MAXLEN + 1];
	struct psiplace_priorityf *f = NULL, **v;
	psiplace_error_t err;
	int rc = psiplace_rchan_policy_parse(j->admin_comment, &pol->policy, fn, sizeof(fn), &err);

	pol->priorityf = NULL;
	if (rc == 0)
		return 0;
	if (rc < 0 || (fn[0] && psiplace_priorityf_compile(fn, "psiplace-policy", &f, &err) < 0)) {
		pol->policy = PSIPLACE_POLICY_NONE;
		s->bad_policies++;
		return 0;
	}
	if (!f)
		return 0;
	if (!(v = realloc(s->fns, (s->nfns + 1) * sizeof(*v)))) {
		psiplace_priorityf_free(f);
		return -1;
	}
	s->fns = v;
	s->fns[s->nfns++] = f;
	pol->priorityf = f;
	return 0;
}

static void fill_nodes(const struct psiplace_md_input *in, const struct psiplace_psiconf *pc,
		       struct psiplace_md_snapshot *s)
{
	for (size_t i = 0; i < in->nnodes; i++) {
		const struct psiplace_md_node *n = &in->nodes[i];
		struct psiplace_rdec_node *r = &s->nodes[i];

		r->node.name = n->name;
		r->node.index = (uint32_t)i;
		r->node.cpus = n->cpus;
		r->node.alloc_cpus = n->allocated ? n->cpus : 0;
		r->node.power_state = n->power;
		r->node.power = n->power != PSIPLACE_POWERED_DOWN;
		r->node.next_resv = -1;
		r->node.weight = n->weight;
		r->node.speed = 1.0; /* psiplace.conf's default, as the select plugin's */
		r->usable = n->usable;
		r->partitions = n->partitions ? n->partitions : "";
		if (pc)
			psiplace_psiconf_apply(psiplace_psiconf_node(pc, n->name), &r->node);
	}
}

static int add_running(const struct psiplace_md_input *in, const struct psiplace_md_tracks *T,
		       const struct names *nm, const struct psiplace_md_job *j,
		       struct psiplace_md_snapshot *s, size_t *first)
{
	struct psiplace_rdec_running *r = &s->running[s->state.nrunning];
	const struct psiplace_md_track *t = psiplace_md_track_of((struct psiplace_md_tracks *)T,
								 j->id, false);
	size_t n;
	int rc = j->nodes ? positions_of(s, nm, j->nodes, first, &n) : 1;

	if (rc)
		return rc;
	/* The batch host first: NodeList is in node order (after a merge too),
	 * the batch host is where the job started.  One that is not in NodeList
	 * leaves the list's order (and its first node) as it is. */
	if (j->batch_host && j->batch_host[0] && n > 1) {
		int b = find_node(nm, j->batch_host);

		for (size_t i = 1; b >= 0 && i < n; i++)
			if (s->positions[*first + i] == (uint32_t)b) {
				memmove(&s->positions[*first + 1], &s->positions[*first],
					i * sizeof(s->positions[0]));
				s->positions[*first] = (uint32_t)b;
				break;
			}
	}
	/* Nodes shared with a job already in the snapshot (CR_Core lets jobs
	 * share a node) stay that job's: the decision moves whole nodes.  A
	 * job whose batch host is such a node is left out this cycle. */
	if (!n || nm->held[s->positions[*first]]) {
		s->npositions = *first;
		return 1;
	}
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!nm->held[s->positions[*first + i]])
			s->positions[*first + k++] = s->positions[*first + i];
	n = k;
	s->npositions = *first + n;
	for (size_t i = 0; i < n; i++)
		nm->held[s->positions[*first + i]] = true;
	memset(r, 0, sizeof(*r));
	r->id = j->id;
	r->priority = j->priority;
	r->nnodes = n;
	r->partition = j->partition ? j->partition : "";
	r->end = j->end;
	if (job_policy(j, s, &r->policy) < 0)
		return -1;
	if (t && t->max) {
		r->min = t->min;
		r->max = cut_max(in, j->partition, t->min, t->max);
		if (!r->max)
			r->min = 0;
		r->last_resize = t->last_resize;
		r->in_progress = t->order.id != 0;
		/* within its shrink back-off it may grow, not shrink */
		if (r->max && in->now < t->no_shrink_until && r->min < n)
			r->min = (uint32_t)n < r->max ? (uint32_t)n : r->max;
	}
	s->state.nrunning++;
	return 0;
}

static int add_pending(const struct names *nm, const struct psiplace_md_job *j,
		       struct psiplace_md_snapshot *s, size_t *first, size_t *n)
{
	struct psiplace_rdec_pending *q = &s->pending[s->state.npending];
	int rc = 0;

	*n = 0;
	if (j->nodes && j->nodes[0] && (rc = positions_of(s, nm, j->nodes, first, n)) < 0)
		return -1;
	memset(q, 0, sizeof(*q));
	q->id = j->id;
	q->nodes = j->num_nodes ? j->num_nodes : 1;
	q->time_limit = j->time_limit;
	q->planned_start = j->start > 0 ? j->start : PSIPLACE_RDEC_UNKNOWN;
	q->nplanned = rc ? 0 : *n; /* a plan naming an unknown node: no plan */
	q->partition = j->partition ? j->partition : "";
	if (job_policy(j, s, &q->policy) < 0)
		return -1;
	s->state.npending++;
	return 0;
}

/* The tracks' holds; one naming a node Slurm does not list is left out. */
static int add_holds(const struct psiplace_md_tracks *T, const struct names *nm,
		     struct psiplace_md_snapshot *s, size_t *hfirst)
{
	for (size_t i = 0; i < T->nholds; i++) {
		struct psiplace_rdec_hold *h = &s->holds[s->state.nholds];
		size_t n;
		int rc = positions_of(s, nm, T->holds[i].nodes, &hfirst[s->state.nholds], &n);

		if (rc < 0)
			return -1;
		if (rc || !n) {
			s->npositions = hfirst[s->state.nholds];
			continue;
		}
		h->job = T->holds[i].job;
		h->nnodes = n;
		s->state.nholds++;
	}
	return 0;
}

static int build(const struct psiplace_md_input *in, const struct psiplace_md_tracks *T,
		 size_t max_pending, const struct psiplace_psiconf *pc, struct names *nm,
		 struct psiplace_md_snapshot *s, size_t *rfirst, size_t *pfirst, size_t *hfirst,
		 size_t *order)
{
	size_t np = 0, i;

	fill_nodes(in, pc, s);
	/* malleable jobs first, so that a node they share keeps them whole */
	for (int pass = 0; pass < 2; pass++)
		for (i = 0; i < in->njobs; i++) {
			const struct psiplace_md_job *j = &in->jobs[i];
			const struct psiplace_md_track *t;
			int rc;

			if (j->state != PSIPLACE_MD_RUNNING)
				continue;
			t = psiplace_md_track_of((struct psiplace_md_tracks *)T, j->id, false);
			if ((t && t->max) != (pass == 0))
				continue;
			rc = add_running(in, T, nm, j, s, &rfirst[s->state.nrunning]);
			if (rc < 0)
				return -1;
			s->skipped += (size_t)rc;
		}
	for (i = 0; i < in->njobs; i++) {
		const struct psiplace_md_job *j = &in->jobs[i];

		if (j->state == PSIPLACE_MD_PENDING && j->eligible && !is_helper(j))
			order[np++] = i;
	}
	sort_jobs = in->jobs;
	qsort(order, np, sizeof(*order), cmp_pending);
	if (np > max_pending)
		np = max_pending;
	for (i = 0; i < np; i++) {
		size_t n;

		if (add_pending(nm, &in->jobs[order[i]], s, &pfirst[i], &n) < 0)
			return -1;
	}
	if (add_holds(T, nm, s, hfirst) < 0)
		return -1;
	/* positions is final only now: point the lists into it */
	for (i = 0; i < s->state.nrunning; i++)
		s->running[i].nodes = s->positions + rfirst[i];
	for (i = 0; i < s->state.npending; i++)
		s->pending[i].planned = s->pending[i].nplanned ? s->positions + pfirst[i] : NULL;
	for (i = 0; i < s->state.nholds; i++)
		s->holds[i].nodes = s->positions + hfirst[i];
	return 0;
}

int psiplace_md_snapshot_build(const struct psiplace_md_input *in,
			       const struct psiplace_md_tracks *T, size_t max_pending,
			       const struct psiplace_psiconf *psiconf,
			       struct psiplace_md_snapshot *s, psiplace_error_t *err)
{
	struct names nm = { .in = in };
	size_t cnt = in->njobs ? in->njobs : 1, *rfirst = NULL, *pfirst = NULL, *order = NULL;
	size_t *hfirst = NULL;
	int rc = -1;

	psiplace_md_snapshot_init(s);
	s->nodes = calloc(in->nnodes ? in->nnodes : 1, sizeof(*s->nodes));
	s->running = calloc(cnt, sizeof(*s->running));
	s->pending = calloc(cnt, sizeof(*s->pending));
	s->holds = calloc(T->nholds + 1, sizeof(*s->holds));
	hfirst = calloc(T->nholds + 1, sizeof(*hfirst));
	nm.by_name = calloc(in->nnodes ? in->nnodes : 1, sizeof(*nm.by_name));
	nm.held = calloc(in->nnodes ? in->nnodes : 1, sizeof(*nm.held));
	rfirst = calloc(cnt, sizeof(*rfirst));
	pfirst = calloc(cnt, sizeof(*pfirst));
	order = calloc(cnt, sizeof(*order));
	if (s->nodes && s->running && s->pending && s->holds && nm.by_name && nm.held && rfirst &&
	    pfirst && hfirst && order) {
		for (size_t i = 0; i < in->nnodes; i++)
			nm.by_name[i] = (uint32_t)i;
		sort_in = in;
		qsort(nm.by_name, in->nnodes, sizeof(*nm.by_name), cmp_pos);
		rc = build(in, T, max_pending, psiconf, &nm, s, rfirst, pfirst, hfirst, order);
	}
	free(nm.by_name);
	free(nm.held);
	free(rfirst);
	free(pfirst);
	free(hfirst);
	free(order);
	if (rc < 0) {
		psiplace_md_snapshot_free(s);
		return psiplace_seterr(err, "psiplace-malleabled: out of memory building the snapshot");
	}
	s->state.now = in->now;
	s->state.nodes = s->nodes;
	s->state.nnodes = in->nnodes;
	s->state.running = s->running;
	s->state.pending = s->pending;
	s->state.holds = s->holds;
	return 0;
}

long psiplace_md_node_list(const struct psiplace_md_snapshot *s, const uint32_t *pos, size_t n,
			   char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *name = s->nodes[pos[i]].node.name;
		size_t l = strlen(name) + (i ? 1 : 0);

		if (used + l >= len)
			return -1;
		if (i)
			buf[used++] = ',';
		memcpy(buf + used, name, l - (i ? 1 : 0));
		used += l - (i ? 1 : 0);
		buf[used] = '\0';
	}
	return (long)used;
}
