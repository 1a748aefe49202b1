/* Resizes the resource manager orders: poll the job's AdminComment (rank
 * 0, at most once per interval), act (grow by a merged helper allocation
 * and a parallel expansion, shrink by TS and give exactly the named nodes
 * back), acknowledge in the job's Comment.  A grow does not block: act
 * starts the helper's request and returns 1, each later poll checks it
 * (waitpid, no scontrol) and hands the order out again once the helper is
 * granted, act then merges and expands.  Above mall_shrink.c and
 * mall_init.c; the Slurm side is common/resize/ (scontrol, salloc). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mall_internal.h"
#include "psiplace/hostlist.h"
#include "psiplace/resize.h"
#include "psiplace/resize_channel.h"

/* What rank 0 tells everyone after its part. */
struct verdict {
	int rc; /* 0 ok, -1 err */
	int pending; /* grow: the helper is requested, not granted yet */
	char err[PSIPLACE_ERRLEN];
	struct psiplace_mall_order order;
	char nodes[4096]; /* grow: "NAME:CORES,..." of the new nodes */
};

/* MPI_Bcast from rank 0 that sleeps while it waits: a blocking collective
 * busy-polls, and the others wait here while rank 0 talks to Slurm. */
static int sleepy_bcast(void *buf, int len, MPI_Comm comm)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	MPI_Request req;
	int done = 0, rc;

	rc = MPI_Ibcast(buf, len, MPI_BYTE, 0, comm, &req);
	while (rc == MPI_SUCCESS && !done) {
		rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (rc == MPI_SUCCESS && !done)
			nanosleep(&nap, NULL);
	}
	return rc;
}

static int share(psiplace_mall_t *m, struct verdict *v, psiplace_error_t *err)
{
	int rc = sleepy_bcast(v, (int)sizeof(*v), m->comm);

	if (rc != MPI_SUCCESS)
		return mall_mpi_err(err, rc, "malleable: sharing rank 0's answer");
	if (v->rc < 0)
		return psiplace_seterr(err, "%s", v->err);
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The order in AdminComment (the channel's codec, common/resize_channel/):
 * 1 order, 0 none (empty, the job's malleable range, other text), -1
 * malformed. */
static int order_parse(const char *s, struct psiplace_mall_order *o, psiplace_error_t *err)
{
	struct psiplace_rchan_order r;
	int rc;

	memset(o, 0, sizeof(*o));
	if ((rc = psiplace_rchan_order_parse(s, &r, err)) <= 0)
		return rc;
	o->kind = r.kind == PSIPLACE_RCHAN_GROW ? PSIPLACE_MALL_GROW : PSIPLACE_MALL_SHRINK;
	o->id = r.id;
	o->k = r.k;
	o->deadline = r.deadline;
	snprintf(o->nodes, sizeof(o->nodes), "%s", r.nodes);
	o->for_job = r.for_job;
	return 1;
}

static int ack_root(psiplace_mall_t *m, const struct psiplace_mall_order *o, int done,
		    const char *reason, psiplace_error_t *err);

/* Rank 0, a grow in flight: no order while its helper pends, the grow's
 * order again once it is granted (act merges it), the grow's failure
 * (acknowledged failed) once the wait is over.  Neither reads the job's
 * record: the daemon orders nothing new before the acknowledgement. */
static void poll_grow(psiplace_mall_t *m, struct verdict *v)
{
	psiplace_error_t err, e;
	int rc = psiplace_resize_grow_ready(m->grow, &err);

	if (rc == 0)
		return;
	if (rc > 0) {
		v->order = m->grow_order;
		return;
	}
	/* ack_root ends the request */
	v->rc = -1;
	snprintf(v->err, sizeof(v->err), "%s", err.text);
	if (ack_root(m, &m->grow_order, 0, err.text, &e) < 0)
		snprintf(m->ack_err, sizeof(m->ack_err), "%s", e.text);
}

/* Rank 0's part of a poll. */
static void poll_root(psiplace_mall_t *m, struct verdict *v)
{
	const char *iv = getenv("PSIPLACE_MALL_POLL_INTERVAL");
	double interval = iv && *iv ? atof(iv) : 2.0, t = now_s();
	struct psiplace_resize_job *j;
	psiplace_error_t err;
	const char *job = getenv("SLURM_JOB_ID");
	int rc;

	if (m->ack_err[0]) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "%s", m->ack_err);
		m->ack_err[0] = 0;
		return;
	}
	if (m->grow) {
		poll_grow(m, v);
		return;
	}
	if (m->poll_last > 0 && t - m->poll_last < interval)
		return;
	m->poll_last = t;
	if (!job) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "malleable: poll: SLURM_JOB_ID is not set");
		return;
	}
	if (!(j = malloc(sizeof(*j)))) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "malleable: poll: out of memory");
		return;
	}
	if (psiplace_resize_job_read(job, NULL, j, &err) < 0 ||
	    (rc = order_parse(j->admin_comment, &v->order, &err)) < 0) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "%s", err.text);
	} else if (rc == 0 || v->order.id <= m->done_id) {
		memset(&v->order, 0, sizeof(v->order));
	}
	free(j);
}

int psiplace_mall_poll(psiplace_mall_t *m, struct psiplace_mall_order *o, psiplace_error_t *err)
{
	struct verdict *v;
	int rank, rc;

	memset(o, 0, sizeof(*o));
	if (m->comm == MPI_COMM_NULL)
		return psiplace_seterr(err, "malleable: poll: this process has left the job");
	if (!(v = calloc(1, sizeof(*v))))
		return psiplace_seterr(err, "malleable: out of memory");
	MPI_Comm_rank(m->comm, &rank);
	if (rank == 0)
		poll_root(m, v);
	rc = share(m, v, err);
	if (rc == 0) {
		*o = v->order;
		rc = (int)o->kind;
	}
	free(v);
	return rc;
}

/* Rank 0: write the acknowledgement. */
static int ack_root(psiplace_mall_t *m, const struct psiplace_mall_order *o, int done,
		    const char *reason, psiplace_error_t *err)
{
	const char *job = getenv("SLURM_JOB_ID");
	struct psiplace_rchan_ack a = { 0 };
	char text[PSIPLACE_RCHAN_LINE_MAX];
	size_t i;

	m->done_id = o->id;
	/* an order answered: nothing of its grow may go on */
	if (m->grow && m->grow_order.id == o->id) {
		psiplace_resize_grow_end(m->grow);
		m->grow = NULL;
	}
	if (!job)
		return psiplace_seterr(err, "malleable: ack: SLURM_JOB_ID is not set");
	snprintf(a.reason, sizeof(a.reason), "%s", reason && *reason ? reason : "unknown");
	for (i = 0; a.reason[i]; i++)
		if (a.reason[i] == ';' || a.reason[i] == ' ' || (unsigned char)a.reason[i] < 0x20 ||
		    (unsigned char)a.reason[i] > 0x7e)
			a.reason[i] = '_'; /* the ack's separator; one word for scontrol -o */
	a.id = o->id;
	a.done = done != 0;
	a.size = (uint32_t)m->nalloc;
	if (done)
		a.reason[0] = 0;
	if (psiplace_rchan_ack_format(&a, text, sizeof(text)) < 0)
		return psiplace_seterr(err, "malleable: ack of order %llu: cannot format it",
				       o->id);
	return psiplace_resize_comment(job, text, NULL, err);
}

int psiplace_mall_ack(psiplace_mall_t *m, const struct psiplace_mall_order *o, int done,
		      const char *reason, psiplace_error_t *err)
{
	struct verdict *v = calloc(1, sizeof(*v));
	psiplace_error_t e;
	int rank, rc;

	if (!v)
		return psiplace_seterr(err, "malleable: out of memory");
	MPI_Comm_rank(m->comm, &rank);
	if (rank == 0 && ack_root(m, o, done, reason, &e) < 0) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "%s", e.text);
	}
	rc = share(m, v, err);
	free(v);
	return rc;
}

/* The MPI progress rank 0 drives while it waits for Slurm: nothing to do
 * (the others sleep in sleepy_bcast). */
static int grow_wait(const struct psiplace_mall_order *o)
{
	const char *s = getenv("PSIPLACE_MALL_GROW_WAIT");
	long long left = o->deadline - (long long)time(NULL) - 5;
	int w = s && atoi(s) > 0 ? atoi(s) : 60;

	/* acknowledge before the order's deadline */
	if (o->deadline > 0 && left < w)
		w = left > 1 ? (int)left : 1;
	return w;
}

static int in_alloc(const psiplace_mall_t *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nalloc; i++)
		if (!strcmp(m->hosts[i], name))
			return 1;
	return 0;
}

/* Rank 0: the helper of order o requested (the first act on it), or
 * merged once granted; v->pending while it is not.  Another grow still
 * in flight is given up first (acknowledged failed). */
static int grow_step(psiplace_mall_t *m, const struct psiplace_mall_order *o,
		     struct psiplace_resize_job *j, unsigned long *helper, struct verdict *v,
		     psiplace_error_t *err)
{
	struct psiplace_resize_grow_opts g = { .id = o->id,
					       .k = o->k,
					       .deadline = grow_wait(o),
					       .merge_by = (long long)o->deadline };
	psiplace_error_t e;
	int rc;

	if (m->grow && m->grow_order.id != o->id) {
		char why[64];

		snprintf(why, sizeof(why), "superseded by order %llu", o->id);
		if (ack_root(m, &m->grow_order, 0, why, &e) < 0)
			snprintf(m->ack_err, sizeof(m->ack_err), "%s", e.text);
	}
	if (!m->grow) {
		if (psiplace_resize_grow_start(&g, &m->grow, err) < 0)
			return -1;
		m->grow_order = *o;
	}
	/* ready: 0 pending, 1 granted; merge: 1 a new helper pending */
	if ((rc = psiplace_resize_grow_ready(m->grow, err)) <= 0) {
		v->pending = rc == 0;
		return rc;
	}
	rc = psiplace_resize_grow_merge(m->grow, j, helper, err);
	v->pending = rc > 0;
	return rc > 0 ? 0 : rc;
}

/* Rank 0's part of a grow: the helper allocation merged, the new nodes
 * with their CPUs into v->nodes; v->pending while it is not granted. */
static void grow_root(psiplace_mall_t *m, const struct psiplace_mall_order *o, struct verdict *v)
{
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper = 0;
	size_t i, off = 0;
	int rc;

	if (!j) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "malleable: out of memory");
		return;
	}
	rc = grow_step(m, o, j, &helper, v, &err);
	if (v->pending) {
		free(j);
		return;
	}
	/* merged or failed: the request is over either way */
	psiplace_resize_grow_end(m->grow);
	m->grow = NULL;
	if (rc < 0) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err), "%s", err.text);
		free(j);
		return;
	}
	for (i = 0; i < j->nnodes && off < sizeof(v->nodes) - 80; i++)
		if (!in_alloc(m, j->names[i]) && j->cpus[i] > 0)
			off += (size_t)snprintf(v->nodes + off, sizeof(v->nodes) - off, "%s%s:%d",
						off ? "," : "", j->names[i], j->cpus[i]);
	if (!off) {
		v->rc = -1;
		snprintf(v->err, sizeof(v->err),
			 "malleable: grow by %u: helper %lu merged, but the "
			 "job's nodes (%.200s) are not more than before",
			 o->k, helper, j->nodes);
	}
	free(j);
}

/* Everyone: add v->nodes ("NAME:CORES,...") to the allocation. */
static int add_granted(psiplace_mall_t *m, const char *list, char *names, size_t len,
		       psiplace_error_t *err)
{
	char *copy = strdup(list), *tok, *save = NULL, *name[PSIPLACE_RESIZE_MAXNODES];
	int cores[PSIPLACE_RESIZE_MAXNODES], rc;
	size_t n = 0, off = 0;

	if (!copy)
		return psiplace_seterr(err, "malleable: out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && n < PSIPLACE_RESIZE_MAXNODES;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');

		*colon = 0;
		name[n] = tok;
		cores[n++] = atoi(colon + 1);
		if (names && off < len)
			off += (size_t)snprintf(names + off, len - off, "%s%s", off ? "," : "",
						tok);
	}
	rc = mall_add_nodes(m, name, cores, n, err);
	free(copy);
	return rc;
}

static int act_grow(psiplace_mall_t *m, const struct psiplace_mall_order *o,
		    enum psiplace_mall_strategy strategy, char *nodes, size_t len,
		    psiplace_error_t *err)
{
	struct verdict *v = calloc(1, sizeof(*v));
	int rank, rc;

	if (!v)
		return psiplace_seterr(err, "malleable: out of memory");
	MPI_Comm_rank(m->comm, &rank);
	if (rank == 0)
		grow_root(m, o, v);
	rc = share(m, v, err);
	if (rc == 0 && v->pending) {
		free(v);
		return 1;
	}
	if (rc == 0)
		rc = add_granted(m, v->nodes, rank == 0 ? nodes : NULL, len, err);
	free(v);
	if (rc < 0)
		return -1;
	/* the nodes are the job's now: failing here leaves them unused */
	return psiplace_mall_expand(m, m->nalloc, strategy, PSIPLACE_SPAWN_MERGE, NULL, err);
}

/* Mark the nodes of the order: 0 when each is the job's and none is rank
 * 0's; the same on every process (no communication). */
static int mark_release(const psiplace_mall_t *m, const struct psiplace_mall_order *o, int *last,
			psiplace_error_t *err)
{
	struct psiplace_hostlist h = { 0 };
	size_t i, k;
	int rc = 0;

	if (psiplace_hostlist_expand(o->nodes, "the shrink order's NODES", &h, err) < 0)
		return -1;
	for (i = 0; i < h.n && !rc; i++) {
		for (k = 0; k < m->nalloc && strcmp(m->hosts[k], h.host[i]); k++)
			;
		if (k == m->nalloc)
			rc = psiplace_seterr(err,
					     "malleable: shrink order %llu: node %s is not the "
					     "job's",
					     o->id, h.host[i]);
		else if ((int)k == m->rank_node[0])
			rc = psiplace_seterr(err,
					     "malleable: shrink order %llu: node %s runs rank 0 "
					     "(the batch host stays)",
					     o->id, h.host[i]);
		else
			last[k] = 1;
	}
	if (!rc && h.n != o->k)
		rc = psiplace_seterr(err,
				     "malleable: shrink order %llu: K is %u but NODES names "
				     "%zu nodes",
				     o->id, o->k, h.n);
	if (!rc && h.n >= m->nalloc)
		rc = psiplace_seterr(err,
				     "malleable: shrink order %llu: it names every node of the "
				     "job",
				     o->id);
	psiplace_hostlist_free(&h);
	return rc;
}

/* MPI progress for the processes that left while rank 0 waits for their
 * steps to end (MPICH's ch3 finalize handshake). */
static void progress(void *comm)
{
	int flag;

	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, *(MPI_Comm *)comm, &flag, MPI_STATUS_IGNORE);
}

static int act_shrink(psiplace_mall_t *m, const struct psiplace_mall_order *o, char *nodes,
		      size_t len, psiplace_error_t *err)
{
	int *last = calloc(m->nalloc ? m->nalloc : 1, sizeof(int)), rank;
	size_t before = m->nalloc, keep;
	struct verdict *v;
	MPI_Comm comm;

	if (!last)
		return psiplace_seterr(err, "malleable: out of memory");
	if (mark_release(m, o, last, err) < 0 || mall_move_last(m, last) < 0) {
		free(last);
		return -1;
	}
	free(last);
	keep = m->nalloc - o->k;
	if (psiplace_mall_shrink(m, keep, err) < 0)
		return -1;
	if (m->leaving)
		return 0;
	if (!(v = calloc(1, sizeof(*v))))
		return psiplace_seterr(err, "malleable: out of memory");
	comm = m->comm;
	MPI_Comm_rank(comm, &rank);
	if (rank == 0) {
		struct psiplace_release_opts r = { .allow_step = getenv("SLURM_STEP_ID"),
						   .wait_steps = 60,
						   .waiting = progress,
						   .waiting_arg = &comm };
		char kept[4096];
		psiplace_error_t e;

		if (psiplace_release_nodes(o->nodes, &r, kept, sizeof(kept), NULL, 0, &e) < 0) {
			v->rc = -1;
			snprintf(v->err, sizeof(v->err), "%s", e.text);
		}
		if (nodes && len)
			snprintf(nodes, len, "%s", o->nodes);
	}
	if (share(m, v, err) < 0) {
		free(v);
		return -1;
	}
	free(v);
	return psiplace_mall_drop_nodes(m, keep, before, err);
}

int psiplace_mall_act(psiplace_mall_t *m, const struct psiplace_mall_order *o,
		      enum psiplace_mall_strategy strategy, char *nodes, size_t len,
		      psiplace_error_t *err)
{
	psiplace_error_t e;
	int rc, rank;

	if (m->comm == MPI_COMM_NULL)
		return psiplace_seterr(err, "malleable: act: this process has left the job");
	if (nodes && len)
		nodes[0] = 0;
	if (o->kind == PSIPLACE_MALL_GROW)
		rc = act_grow(m, o, strategy, nodes, len, err);
	else if (o->kind == PSIPLACE_MALL_SHRINK)
		rc = act_shrink(m, o, nodes, len, err);
	else
		return psiplace_seterr(err, "malleable: act: no order");
	if (m->leaving)
		return 0;
	if (rc > 0)
		return 1; /* a grow's helper pending: acknowledged once it is over */
	/* Rank 0 alone: after a grow the new processes are in the job's
	 * communicator but not here (they return from psiplace_mall_init), so
	 * no collective may follow; a failure to write the acknowledgement is
	 * the next poll's error, on every process. */
	MPI_Comm_rank(m->comm, &rank);
	if (rank == 0 && ack_root(m, o, rc == 0, rc == 0 ? NULL : err->text, &e) < 0)
		snprintf(m->ack_err, sizeof(m->ack_err), "%s", e.text);
	return rc;
}
