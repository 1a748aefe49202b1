/* One decision cycle of psiplace-malleabled on slurmctld's records
 * (md_model.h): the channel's bookkeeping, the decision, the orders. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_model.h"

void psiplace_md_out_init(struct psiplace_md_out *o)
{
	memset(o, 0, sizeof(*o));
}

void psiplace_md_out_free(struct psiplace_md_out *o)
{
	for (size_t i = 0; i < o->nline; i++)
		free(o->line[i]);
	for (size_t i = 0; i < o->ndecision; i++)
		free(o->decision[i]);
	free(o->line);
	free(o->decision);
	free(o->a);
	psiplace_md_out_init(o);
}

static int push_str(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return -1;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		char **nv = realloc(*v, c * sizeof(*nv));

		if (!nv) {
			free(d);
			return -1;
		}
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = d;
	return 0;
}

static int say(struct psiplace_md_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int say(struct psiplace_md_out *o, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return push_str(&o->line, &o->nline, &o->capline, line);
}

static int act(struct psiplace_md_out *o, enum psiplace_md_act kind, uint32_t job,
	       const char *text)
{
	if (o->n == o->cap) {
		size_t c = o->cap ? 2 * o->cap : 16;
		struct psiplace_md_action *a = realloc(o->a, c * sizeof(*a));

		if (!a)
			return -1;
		o->a = a;
		o->cap = c;
	}
	o->a[o->n].kind = kind;
	o->a[o->n].job = job;
	snprintf(o->a[o->n].text, sizeof(o->a[o->n].text), "%s", text ? text : "");
	o->n++;
	return 0;
}

/* AdminComment = text, then the job's policy part (a blank between). */
static int write_admin(struct psiplace_md_out *o, const struct psiplace_md_track *t,
		       const char *text)
{
	char all[PSIPLACE_RCHAN_ADMIN_MAX];

	if (t->policy_part && strlen(t->policy_part) < PSIPLACE_RCHAN_POLICY_MAX)
		snprintf(all, sizeof(all), "%s%s%s", text, text[0] ? " " : "", t->policy_part);
	else
		snprintf(all, sizeof(all), "%s", text);
	return act(o, PSIPLACE_MD_WRITE_ADMIN, t->job, all);
}

/* AdminComment without an order: the range when it is known, else empty
 * (the policy part kept). */
static int clear_order(struct psiplace_md_out *o, const struct psiplace_md_track *t)
{
	char range[64] = "";

	if (t->max)
		psiplace_rchan_range_format(t->min, t->max, range, sizeof(range));
	return write_admin(o, t, range);
}

/* The counter moves past an id a daemon gave (found in a job's fields). */
static void move_past(struct psiplace_md_tracks *T, uint64_t id)
{
	if (id >= T->next_id && id < PSIPLACE_MD_ID_MAX)
		T->next_id = id + 1;
}

/* Whether this cycle already cancels job id (an earlier action). */
static bool cancelling(const struct psiplace_md_out *o, uint32_t id)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->a[i].kind == PSIPLACE_MD_CANCEL && o->a[i].job == id)
			return true;
	return false;
}

/* Cancel job J's grow helper of decision ID, pending or running unmerged. */
static int cancel_helper(const struct psiplace_md_input *in, struct psiplace_md_out *o,
			 uint32_t job, uint64_t id)
{
	char name[96];

	snprintf(name, sizeof(name), PSIPLACE_MD_HELPER_PREFIX "%" PRIu32 "-%" PRIu64, job, id);
	for (size_t i = 0; i < in->njobs; i++) {
		const struct psiplace_md_job *h = &in->jobs[i];

		if (h->state == PSIPLACE_MD_OTHER || !h->name || strcmp(h->name, name) ||
		    cancelling(o, h->id))
			continue;
		if (act(o, PSIPLACE_MD_CANCEL, h->id, NULL) < 0 ||
		    say(o, "job %" PRIu32 ": cancelling its grow helper %" PRIu32 " (%s)", job,
			h->id, name) < 0)
			return -1;
	}
	return 0;
}

/* A shrink's outcome: refused (acknowledged failed, or withdrawn) starts
 * or doubles the job's shrink back-off, carried out ends it; so a job that
 * cannot give nodes back is not asked again every MalleableMinInterval. */
static int shrink_outcome(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
			  struct psiplace_md_out *o, struct psiplace_md_track *t, bool done)
{
	int64_t wait = p->rdec.min_interval > PSIPLACE_MD_BACKOFF_MIN ? p->rdec.min_interval
								      : PSIPLACE_MD_BACKOFF_MIN;

	if (t->order.kind != PSIPLACE_RCHAN_SHRINK)
		return 0;
	if (done) {
		t->refusals = 0;
		t->no_shrink_until = 0;
		return 0;
	}
	if (t->refusals < 32)
		t->refusals++;
	for (uint32_t i = 1; i < t->refusals && wait < PSIPLACE_MD_BACKOFF_MAX; i++)
		wait *= 2;
	if (wait > PSIPLACE_MD_BACKOFF_MAX)
		wait = PSIPLACE_MD_BACKOFF_MAX;
	t->no_shrink_until = in->now + wait;
	return say(o,
		   "job %" PRIu32 ": shrink refused %" PRIu32 " time%s in a row: no shrink "
		   "order for %" PRId64 " s",
		   t->job, t->refusals, t->refusals == 1 ? "" : "s", wait);
}

static int withdraw(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
		    struct psiplace_md_out *o, struct psiplace_md_track *t, const char *why)
{
	uint64_t id = t->order.id;
	bool grow = t->order.kind == PSIPLACE_RCHAN_GROW;

	if (say(o, "job %" PRIu32 ": decision %" PRIu64 " withdrawn (%s)", t->job, id, why) < 0 ||
	    shrink_outcome(in, p, o, t, false) < 0)
		return -1;
	memset(&t->order, 0, sizeof(t->order));
	t->last_resize = in->now; /* no new order at once: MalleableMinInterval */
	if (clear_order(o, t) < 0)
		return -1;
	return grow ? cancel_helper(in, o, t->job, id) : 0;
}

/* A shrink carried out for a pending job: its released nodes are idle
 * until the scheduler's next pass starts that job, and backfill's plan for
 * it may still name the shrunk job's nodes at that job's end, which
 * protects nothing from a grow: hold them for it. */
static int hold_released(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
			 struct psiplace_md_tracks *T, struct psiplace_md_out *o,
			 const struct psiplace_md_track *t)
{
	const struct psiplace_rchan_order *ord = &t->order;

	if (ord->kind != PSIPLACE_RCHAN_SHRINK || !ord->for_job || !ord->nodes[0] ||
	    p->hold_time <= 0)
		return 0;
	if (psiplace_md_hold_add(T, ord->for_job, in->now + p->hold_time, ord->nodes) < 0)
		return -1;
	return say(o, "job %" PRIu32 ": holding %s (released by job %" PRIu32 ", decision %" PRIu64
		      ") until it starts, at most %" PRId64 " s",
		   ord->for_job, ord->nodes, t->job, ord->id, p->hold_time);
}

/* Holds whose job left the pending queue (started, ended, cancelled) or
 * whose time is up are dropped. */
static int expire_holds(const struct psiplace_md_input *in, struct psiplace_md_tracks *T,
			struct psiplace_md_out *o)
{
	size_t k = 0;

	for (size_t i = 0; i < T->nholds; i++) {
		const struct psiplace_md_hold *h = &T->holds[i];
		const struct psiplace_md_job *j = NULL;
		const char *why = NULL;

		for (size_t n = 0; n < in->njobs && !j; n++)
			if (in->jobs[n].id == h->job)
				j = &in->jobs[n];
		if (!j || j->state == PSIPLACE_MD_OTHER)
			why = "it is no longer pending";
		else if (j->state == PSIPLACE_MD_RUNNING)
			why = "it started";
		else if (in->now >= h->until)
			why = "time is up";
		if (!why) {
			T->holds[k++] = *h;
			continue;
		}
		if (say(o, "job %" PRIu32 ": hold of %s ended: %s", h->job, h->nodes, why) < 0)
			return -1;
	}
	T->nholds = k;
	return 0;
}

/* An acknowledgement in Comment of the job's current order. */
static int take_ack(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
		    const struct psiplace_md_job *j, struct psiplace_md_tracks *T,
		    struct psiplace_md_out *o, struct psiplace_md_track *t)
{
	struct psiplace_rchan_ack a;
	psiplace_error_t err;
	int rc = psiplace_rchan_ack_parse(j->comment, &a, &err);

	if (rc < 0) {
		if (t->noted_ack == UINT64_MAX)
			return 0;
		t->noted_ack = UINT64_MAX;
		return say(o, "job %" PRIu32 ": ignoring its Comment: %s", j->id, err.text);
	}
	if (rc == 0)
		return 0;
	if (a.id != t->order.id) {
		if (t->noted_ack == a.id)
			return 0;
		t->noted_ack = a.id;
		return say(o, "job %" PRIu32 ": ignoring acknowledgement %" PRIu64
			      " (the outstanding decision is %" PRIu64 ")",
			   j->id, a.id, t->order.id);
	}
	t->noted_ack = a.id;
	if (say(o, "job %" PRIu32 ": decision %" PRIu64 " acknowledged %s, size %" PRIu32
		   " (Slurm: %" PRIu32 " nodes)%s%s",
		j->id, a.id, a.done ? "done" : "failed", a.size, j->num_nodes,
		a.done ? "" : ": ", a.done ? "" : a.reason) < 0)
		return -1;
	if (a.done && a.size != j->num_nodes &&
	    say(o, "job %" PRIu32 ": its acknowledged size %" PRIu32 " is not Slurm's %" PRIu32,
		j->id, a.size, j->num_nodes) < 0)
		return -1;
	t->last_resize = in->now;
	if (shrink_outcome(in, p, o, t, a.done) < 0 || (a.done && hold_released(in, p, T, o, t) < 0))
		return -1;
	if (!a.done && t->order.kind == PSIPLACE_RCHAN_GROW &&
	    cancel_helper(in, o, t->job, t->order.id) < 0)
		return -1;
	memset(&t->order, 0, sizeof(t->order));
	return clear_order(o, t);
}

/* One running job's AdminComment and Comment against its track. */
static int reconcile_job(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
			 const struct psiplace_md_job *j, struct psiplace_md_tracks *T,
			 struct psiplace_md_out *o)
{
	struct psiplace_rchan_order found;
	struct psiplace_rchan_ack ack;
	uint32_t min, max;
	psiplace_error_t err;
	struct psiplace_md_track *t = psiplace_md_track_of(T, j->id, false);
	int range = psiplace_rchan_range_parse(j->admin_comment, &min, &max, &err);
	int order = psiplace_rchan_order_parse(j->admin_comment, &found, &err);
	char text[PSIPLACE_RCHAN_LINE_MAX];

	if (!t && range != 1 && order != 1)
		return 0; /* not malleable, nothing outstanding */
	if (!t && !(t = psiplace_md_track_of(T, j->id, true)))
		return -1;
	t->seen = true;
	t->policy_part = psiplace_rchan_policy_find(j->admin_comment);
	if (range == 1) {
		t->min = min;
		t->max = max;
	}
	/* a daemon gave the id of an acknowledgement: one that lost its state
	 * file would otherwise count from 1 again, and the job's old
	 * acknowledgement would answer a new decision of the same id */
	if (j->comment && psiplace_rchan_ack_parse(j->comment, &ack, &err) == 1)
		move_past(T, ack.id);
	if (order == 1 && found.id != t->order.id) {
		move_past(T, found.id);
		if (!t->order.id) { /* our own order, from before a restart without state */
			t->order = found;
			if (say(o, "job %" PRIu32 ": adopting decision %" PRIu64 " found in its "
				   "AdminComment",
				j->id, found.id) < 0)
				return -1;
		}
	}
	if (!t->order.id)
		return 0;
	if (take_ack(in, p, j, T, o, t) < 0)
		return -1;
	if (!t->order.id)
		return 0;
	if (in->now > t->order.deadline)
		return withdraw(in, p, o, t, "not acknowledged by its deadline");
	/* slurmctld lost the write (unreachable, restarted) or someone
	 * overwrote it: write it again */
	if (order != 1 || found.id != t->order.id) {
		if (psiplace_rchan_order_format(&t->order, text, sizeof(text)) < 0)
			return withdraw(in, p, o, t, "its order cannot be written");
		return write_admin(o, t, text);
	}
	return 0;
}

static int reconcile(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
		     struct psiplace_md_tracks *T, struct psiplace_md_out *o)
{
	size_t i, k;

	for (i = 0; i < T->n; i++) {
		T->t[i].seen = false;
		T->t[i].policy_part = NULL;
	}
	for (i = 0; i < in->njobs; i++)
		if (in->jobs[i].state == PSIPLACE_MD_RUNNING &&
		    reconcile_job(in, p, &in->jobs[i], T, o) < 0)
			return -1;
	for (i = k = 0; i < T->n; i++) {
		struct psiplace_md_track *t = &T->t[i];

		if (!t->seen) {
			if (t->order.id && t->order.kind == PSIPLACE_RCHAN_GROW &&
			    cancel_helper(in, o, t->job, t->order.id) < 0)
				return -1;
			if (t->order.id && say(o, "job %" PRIu32 ": ended with decision %" PRIu64
						  " outstanding",
					       t->job, t->order.id) < 0)
				return -1;
			continue;
		}
		T->t[k++] = *t;
	}
	T->n = k;
	return expire_holds(in, T, o);
}

/* The job and decision a helper's name stands for (psiplace-grow-J-ID);
 * false when the rest of the name is not J-ID. */
static bool helper_name(const char *name, uint32_t *job, uint64_t *id)
{
	unsigned long long j, d;
	char back[64];

	name += strlen(PSIPLACE_MD_HELPER_PREFIX);
	/* exactly the text the job's side writes: plain decimals, one '-' */
	if (sscanf(name, "%llu-%llu", &j, &d) != 2 || !j || j > UINT32_MAX || !d ||
	    snprintf(back, sizeof(back), "%llu-%llu", j, d) >= (int)sizeof(back) ||
	    strcmp(back, name))
		return false;
	*job = (uint32_t)j;
	*id = d;
	return true;
}

/* Every grow helper, pending or running, that no outstanding grow order
 * stands for: one the job's side left (it died, or overstayed the
 * deadline), one of an order withdrawn or of a job that ended while the
 * daemon was down, one made by hand.  A merged helper has ended. */
static int sweep_helpers(const struct psiplace_md_input *in, struct psiplace_md_tracks *T,
			 struct psiplace_md_out *o)
{
	size_t plen = strlen(PSIPLACE_MD_HELPER_PREFIX);

	for (size_t i = 0; i < in->njobs; i++) {
		const struct psiplace_md_job *h = &in->jobs[i];
		const struct psiplace_md_track *t;
		uint32_t job;
		uint64_t id;

		if (h->state == PSIPLACE_MD_OTHER || !h->name ||
		    strncmp(h->name, PSIPLACE_MD_HELPER_PREFIX, plen) || cancelling(o, h->id))
			continue;
		if (helper_name(h->name, &job, &id) && (t = psiplace_md_track_of(T, job, false)) &&
		    t->order.id == id && t->order.kind == PSIPLACE_RCHAN_GROW)
			continue;
		if (act(o, PSIPLACE_MD_CANCEL, h->id, NULL) < 0 ||
		    say(o, "cancelling grow helper %" PRIu32 " (%s): no outstanding decision "
			   "stands for it",
			h->id, h->name) < 0)
			return -1;
	}
	return 0;
}

/* An order per SHRINK/GROW, written into the job's AdminComment. */
static int give_orders(const struct psiplace_md_snapshot *s, const struct psiplace_md_params *p,
		       const struct psiplace_rdec_result *r, struct psiplace_md_tracks *T,
		       struct psiplace_md_out *o)
{
	char line[4096], text[PSIPLACE_RCHAN_LINE_MAX];

	for (size_t i = 0; i < r->n; i++) {
		const struct psiplace_rdec_decision *d = &r->d[i];
		struct psiplace_md_track *t = psiplace_md_track_of(T, d->job, false);
		struct psiplace_rchan_order ord;

		if (psiplace_rdec_format(&s->state, d, line, sizeof(line)) < 0)
			snprintf(line, sizeof(line), "job %" PRIu32 ": (decision line too long)",
				 d->job);
		if (push_str(&o->decision, &o->ndecision, &o->capdecision, line) < 0)
			return -1;
		if (d->action == PSIPLACE_RDEC_NOTHING) {
			if (p->log_nothing && say(o, "%s", line) < 0)
				return -1;
			continue;
		}
		if (say(o, "%s", line) < 0)
			return -1;
		if (d->id >= T->next_id)
			T->next_id = d->id + 1;
		if (!t)
			continue; /* cannot be: only tracked jobs have a range */
		memset(&ord, 0, sizeof(ord));
		ord.id = d->id;
		ord.k = d->k;
		ord.deadline = s->state.now + p->ack_timeout;
		if (d->action == PSIPLACE_RDEC_SHRINK) {
			ord.kind = PSIPLACE_RCHAN_SHRINK;
			ord.for_job = d->for_job;
			if (psiplace_md_node_list(s, d->nodes, d->k, ord.nodes, sizeof(ord.nodes)) < 0) {
				if (say(o, "job %" PRIu32 ": decision %" PRIu64 " not given: its node "
					   "list does not fit an order",
					d->job, d->id) < 0)
					return -1;
				continue;
			}
		} else {
			ord.kind = PSIPLACE_RCHAN_GROW;
		}
		if (psiplace_rchan_order_format(&ord, text, sizeof(text)) < 0)
			continue;
		t->order = ord;
		if (write_admin(o, t, text) < 0)
			return -1;
	}
	return 0;
}

int psiplace_md_cycle(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
		      struct psiplace_md_tracks *T, struct psiplace_md_out *out,
		      psiplace_error_t *err)
{
	struct psiplace_md_snapshot s;
	struct psiplace_rdec_result r;
	psiplace_error_t derr;
	int rc;

	if (reconcile(in, p, T, out) < 0 || sweep_helpers(in, T, out) < 0)
		return psiplace_seterr(err, "psiplace-malleabled: out of memory");
	if (psiplace_md_snapshot_build(in, T, p->max_pending, p->psiconf, &s, err) < 0)
		return -1;
	out->skipped = s.skipped;
	out->bad_policies = s.bad_policies;
	psiplace_rdec_result_init(&r);
	if (psiplace_rdec_decide(&s.state, &p->rdec, T->next_id, &r, &derr) < 0) {
		rc = say(out, "no decision this cycle: %s", derr.text);
		psiplace_md_snapshot_free(&s);
		return rc < 0 ? psiplace_seterr(err, "psiplace-malleabled: out of memory") : 0;
	}
	rc = give_orders(&s, p, &r, T, out);
	psiplace_rdec_result_free(&r);
	psiplace_md_snapshot_free(&s);
	return rc < 0 ? psiplace_seterr(err, "psiplace-malleabled: out of memory") : 0;
}
