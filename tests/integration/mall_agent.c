/* The job's side of the resize channel without MPI, for the fault tests
 * (test_mall_rm_faults.sh): a batch job that polls its AdminComment, acts
 * on an order with the library calls libpsiplace_mpi makes on rank 0
 * (the grow in steps: psiplace_resize_grow_start, then at each later poll
 * psiplace_resize_grow_ready without blocking and, once granted,
 * psiplace_resize_grow_merge; psiplace_release_nodes) and acknowledges it
 * in Comment (psiplace_resize_comment), with the grow's wait rule of
 * mall_rm.c (PSIPLACE_MALL_GROW_WAIT, default 60 s, never past the
 * order's deadline less 5 s).
 *
 *   mall_agent --run SECONDS [--hold FILE] [--stop FILE] [--refuse FILE]
 *
 * --hold FILE: while FILE exists a new order waits before it is carried
 * out (the job computing between two checkpoints), so that a test can
 * fill the free nodes or kill a daemon first.  --stop FILE: end (exit 0)
 * once FILE exists.  --refuse FILE: while FILE exists, a shrink order is
 * acknowledged failed without acting (a job that cannot give nodes back).  Prints one line per event: "order ID grow|shrink K",
 * "granted NODES", "released NODES", "ack ID done|failed SIZE[ REASON]",
 * "end size N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "psiplace/hostlist.h"
#include "psiplace/resize.h"
#include "psiplace/resize_channel.h"

struct agent {
	const char *job, *hold, *stop, *refuse;
	time_t end;
	uint64_t done_id;
	size_t size; /* nodes the job holds */
	struct psiplace_resize_grow_req *grow; /* a grow's helper requested */
	struct psiplace_rchan_order grow_order;
};

static void nap(void)
{
	struct timespec t = { 0, 200 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

static int exists(const char *f)
{
	return f && access(f, F_OK) == 0;
}

static size_t count_nodes(const char *list)
{
	struct psiplace_hostlist h = { 0 };
	size_t n;

	if (psiplace_hostlist_expand(list, "NodeList", &h, NULL) < 0)
		return 0;
	n = h.n;
	psiplace_hostlist_free(&h);
	return n;
}

static void ack(struct agent *a, const struct psiplace_rchan_order *o, int done,
		const char *reason)
{
	struct psiplace_rchan_ack k = { .id = o->id, .done = done != 0, .size = (uint32_t)a->size };
	char text[PSIPLACE_RCHAN_LINE_MAX];
	psiplace_error_t err;

	a->done_id = o->id;
	if (!done) {
		snprintf(k.reason, sizeof(k.reason), "%s", reason);
		for (char *p = k.reason; *p; p++)
			if (*p == ';' || *p == ' ' || *p < 0x20 || *p > 0x7e)
				*p = '_';
	}
	if (psiplace_rchan_ack_format(&k, text, sizeof(text)) < 0 ||
	    psiplace_resize_comment(a->job, text, NULL, &err) < 0) {
		printf("ack %llu not written: %s\n", (unsigned long long)o->id,
		       done ? "format" : err.text);
		return;
	}
	printf("ack %llu %s %zu%s%s\n", (unsigned long long)o->id, done ? "done" : "failed",
	       a->size, done ? "" : " ", done ? "" : k.reason);
}

/* A grow in flight: nothing while its helper pends; merged once granted
 * (or a new helper after a refused merge); acknowledged once over. */
static void grow_check(struct agent *a)
{
	const struct psiplace_rchan_order *o = &a->grow_order;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper = 0;
	char granted[4096] = "";
	size_t off = 0, before = a->size;
	int rc;

	if (!j) {
		rc = -1;
		snprintf(err.text, sizeof(err.text), "out of memory");
	} else if ((rc = psiplace_resize_grow_ready(a->grow, &err)) > 0) {
		rc = psiplace_resize_grow_merge(a->grow, j, &helper, &err);
	} else if (rc == 0) {
		rc = 1; /* pending */
	}
	if (rc > 0) { /* pending, or a new helper requested after a refused merge */
		free(j);
		return;
	}
	psiplace_resize_grow_end(a->grow);
	a->grow = NULL;
	if (rc < 0) {
		ack(a, o, 0, err.text);
		free(j);
		return;
	}
	for (size_t i = 0; i < j->nnodes; i++)
		if (j->cpus[i] > 0 && off < sizeof(granted) - 70)
			off += (size_t)snprintf(granted + off, sizeof(granted) - off, "%s%s",
						off ? "," : "", j->names[i]);
	a->size = count_nodes(j->nodes);
	printf("granted %s (helper %lu)\n", granted, helper);
	free(j);
	if (a->size <= before)
		ack(a, o, 0, "the helper was merged but the job is not larger");
	else
		ack(a, o, 1, NULL);
}

static void grow(struct agent *a, const struct psiplace_rchan_order *o)
{
	const char *s = getenv("PSIPLACE_MALL_GROW_WAIT");
	long long left = o->deadline - (long long)time(NULL) - 5;
	int w = s && atoi(s) > 0 ? atoi(s) : 60;
	struct psiplace_resize_grow_opts g = { .id = o->id, .k = o->k };
	psiplace_error_t err;

	if (left < w)
		w = left > 1 ? (int)left : 1;
	g.deadline = w;
	if (psiplace_resize_grow_start(&g, &a->grow, &err) < 0) {
		ack(a, o, 0, err.text);
		return;
	}
	a->grow_order = *o;
	grow_check(a);
}

static void shrink(struct agent *a, const struct psiplace_rchan_order *o)
{
	struct psiplace_release_opts r = { .job = a->job, .wait_steps = 30 };
	char kept[4096];
	psiplace_error_t err;

	if (psiplace_release_nodes(o->nodes, &r, kept, sizeof(kept), NULL, 0, &err) < 0) {
		ack(a, o, 0, err.text);
		return;
	}
	a->size = count_nodes(kept);
	printf("released %s\n", o->nodes);
	ack(a, o, 1, NULL);
}

/* One poll: the order in AdminComment, acted on once. */
static void poll_once(struct agent *a)
{
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	struct psiplace_rchan_order o;
	psiplace_error_t err;
	int rc;

	if (a->grow) {
		free(j);
		grow_check(a);
		return;
	}
	if (!j || psiplace_resize_job_read(a->job, NULL, j, &err) < 0) {
		printf("poll: %s\n", j ? err.text : "out of memory");
		free(j);
		return;
	}
	rc = psiplace_rchan_order_parse(j->admin_comment, &o, &err);
	free(j);
	if (rc != 1 || o.id <= a->done_id)
		return;
	printf("order %llu %s %u\n", (unsigned long long)o.id,
	       o.kind == PSIPLACE_RCHAN_GROW ? "grow" : "shrink", o.k);
	fflush(stdout);
	while (exists(a->hold) && time(NULL) < a->end)
		nap();
	if (o.kind == PSIPLACE_RCHAN_GROW)
		grow(a, &o);
	else if (exists(a->refuse))
		ack(a, &o, 0, "refused by the test");
	else
		shrink(a, &o);
}

int main(int argc, char **argv)
{
	struct agent a = { .job = getenv("SLURM_JOB_ID") };
	const char *nodes = getenv("SLURM_JOB_NODELIST");
	long run = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--run"))
			run = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold"))
			a.hold = argv[i + 1];
		else if (!strcmp(argv[i], "--stop"))
			a.stop = argv[i + 1];
		else if (!strcmp(argv[i], "--refuse"))
			a.refuse = argv[i + 1];
		else
			run = 0; /* the usage below */
	}
	if (run < 1 || !a.job || !nodes || argc % 2 == 0) {
		fprintf(stderr, "usage: mall_agent --run SECONDS [--hold FILE] [--stop FILE] "
				"[--refuse FILE], in a Slurm job\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	a.size = count_nodes(nodes);
	a.end = time(NULL) + run;
	while (time(NULL) < a.end && !exists(a.stop)) {
		poll_once(&a);
		for (int k = 0; k < 5 && !exists(a.stop); k++)
			nap();
	}
	psiplace_resize_grow_end(a.grow);
	printf("end size %zu\n", a.size);
	return 0;
}
