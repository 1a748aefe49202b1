/* The malleable job's context: the allocation, the layout (node and
 * MPI_COMM_WORLD of every rank), the hidden argument of spawned processes,
 * the communicator helpers every operation uses.  The bottom of the part:
 * it calls no function of the files above it (doc/layout.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mall_internal.h"
#include "psiplace/hostlist.h"
#include "psiplace/intvec.h"
#include "psiplace/resize.h"

int mall_mpi_err(psiplace_error_t *err, int code, const char *fmt, ...)
{
	char msg[MPI_MAX_ERROR_STRING], what[PSIPLACE_ERRLEN];
	int len = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "MPI error %d", code);
	return psiplace_seterr(err, "%s: %s", what, msg);
}

void mall_disconnect(MPI_Comm *c)
{
	if (*c != MPI_COMM_NULL)
		MPI_Comm_disconnect(c);
	*c = MPI_COMM_NULL;
}

/* A communicator over several MPI_COMM_WORLDs.  MPI_Comm_disconnect is
 * the standard's way, but Open MPI 4.1.4's never returned here for a
 * communicator built by merges (the deadline ended it); Open MPI's
 * MPI_Finalize fences only a process's own job, so a barrier (everyone
 * got here) and MPI_Comm_free are enough there.  MPICH (ch3) needs the
 * disconnect: a connection to another MPI_COMM_WORLD holds one reference
 * more than its communicators, which only the disconnect of the last of
 * them drops, and a process that leaves waits (in its own disconnect or in
 * MPI_Finalize) until the other side has closed its end too.
 * PSIPLACE_MALL_DISCONNECT=1 asks for the disconnect with any MPI, =0 for
 * the free with any MPI. */
static int disconnects(void)
{
	const char *d = getenv("PSIPLACE_MALL_DISCONNECT");
#ifdef MPICH_VERSION
	return !d || strcmp(d, "0");
#else
	return d && !strcmp(d, "1");
#endif
}

void mall_drop_comm(MPI_Comm *c)
{
	if (*c == MPI_COMM_NULL)
		return;
	if (disconnects()) {
		MPI_Comm_disconnect(c);
	} else {
		MPI_Barrier(*c);
		MPI_Comm_free(c);
	}
	*c = MPI_COMM_NULL;
}

/* Since which of a process's communicators over a connection is the last
 * to go is not always plain, every communicator an expansion derives over
 * several MPI_COMM_WORLDs (merges, joins, the merged job) goes by the same
 * rule, without the barrier: under MPICH a freed one could be the last over
 * a connection to a replaced source and keep it open, and the source would
 * wait in MPI_Finalize until the job ends. */
void mall_release_comm(MPI_Comm *c)
{
	if (*c == MPI_COMM_NULL)
		return;
	if (disconnects())
		MPI_Comm_disconnect(c);
	else
		MPI_Comm_free(c);
	*c = MPI_COMM_NULL;
}

/* MPI_Comm_split(c, keep ? 0 : MPI_UNDEFINED, key), for a split that drops
 * processes of c which are to leave.  MPICH's ch3 gives a split whose
 * processes are the first ranks of c, in c's order, no table of
 * connections of its own: it shares c's (dup_vcrt), the leavers included.
 * After a TS shrink (the survivors keep ranks 0..k-1) the survivors' new
 * communicator then kept the connections to the leavers referenced, their
 * disconnect of c closed nothing, and the leavers waited for the close
 * forever.  A split in reverse order and one back to key's order make a
 * table with the kept processes only; one kept process takes MPI_COMM_SELF's. */
int mall_split(MPI_Comm c, int keep, int key, MPI_Comm *out)
{
#ifdef MPICH_VERSION
	MPI_Comm rev = MPI_COMM_NULL;
	int rc, n;

	*out = MPI_COMM_NULL;
	rc = MPI_Comm_split(c, keep ? 0 : MPI_UNDEFINED, -key, &rev);
	if (rc != MPI_SUCCESS || rev == MPI_COMM_NULL)
		return rc;
	MPI_Comm_size(rev, &n);
	if (n == 1)
		rc = MPI_Comm_dup(MPI_COMM_SELF, out);
	else
		rc = MPI_Comm_split(rev, 0, key, out);
	MPI_Comm_free(&rev);
	return rc;
#else
	return MPI_Comm_split(c, keep ? 0 : MPI_UNDEFINED, key, out);
#endif
}

MPI_Info mall_host_info(const char *host, int size)
{
	char v[PSIPLACE_HOSTLIST_MAX_NAME + 16];
	MPI_Info info;

	/* Open MPI counts "host=nX" as one slot; "nX:SIZE" asks for SIZE. */
	if (size > 1)
		snprintf(v, sizeof(v), "%s:%d", host, size);
	else
		snprintf(v, sizeof(v), "%s", host);
	MPI_Info_create(&info);
	MPI_Info_set(info, "host", v);
	return info;
}

/* Every rank's node and world, gathered over the job communicator. */
int mall_layout(psiplace_mall_t *m, psiplace_error_t *err)
{
	int mine[2] = { m->node, m->world }, *all, i, rc;

	MPI_Comm_size(m->comm, &m->size);
	if (!(all = malloc(2 * sizeof(int) * (size_t)m->size)))
		return psiplace_seterr(err, "malleable: out of memory");
	rc = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, m->comm);
	if (rc != MPI_SUCCESS) {
		free(all);
		return mall_mpi_err(err, rc, "malleable: gathering the layout");
	}
	free(m->rank_node);
	free(m->rank_world);
	m->rank_node = malloc(sizeof(int) * (size_t)m->size);
	m->rank_world = malloc(sizeof(int) * (size_t)m->size);
	if (!m->rank_node || !m->rank_world) {
		free(all);
		return psiplace_seterr(err, "malleable: out of memory");
	}
	for (i = 0; i < m->size; i++) {
		m->rank_node[i] = all[2 * i];
		m->rank_world[i] = all[2 * i + 1];
	}
	free(all);
	return 0;
}

/* Reorder the merged communicator by the plan and make it the job's. */
int mall_adopt(psiplace_mall_t *m, MPI_Comm merged, int key, int world, psiplace_error_t *err)
{
	MPI_Comm next = MPI_COMM_NULL, old = m->comm;
	int rc;

	rc = mall_split(merged, key >= 0, key < 0 ? 0 : key, &next);
	if (rc != MPI_SUCCESS)
		return mall_mpi_err(err, rc, "malleable: expand: reordering the ranks");
	m->comm = next;
	m->world = world;
	mall_drop_comm(&old);
	if (next == MPI_COMM_NULL) {
		m->leaving = 1; /* a source replaced under Baseline */
		return 0;
	}
	return mall_layout(m, err);
}

int mall_plan(const psiplace_mall_t *m, const struct mall_spawn_state *st,
	      struct psiplace_spawn_plan *plan, psiplace_error_t *err)
{
	struct psiplace_spawn_request req = {
		.nnodes = st->nnodes, .cores = m->cores, .running = st->running,
		.oversub = st->oversub,
		.strategy = st->strategy == PSIPLACE_MALL_HYPERCUBE ? PSIPLACE_SPAWN_HYPERCUBE
								    : PSIPLACE_SPAWN_DIFFUSIVE,
		.method = st->method,
	};

	return psiplace_spawn_plan_build(&req, plan, err);
}

static int append_vec(char *buf, size_t len, size_t *off, const int *v, size_t n)
{
	size_t i;
	int w;

	for (i = 0; i < n; i++) {
		w = snprintf(buf + *off, len - *off, "%s%d", i ? "," : "", v ? v[i] : 0);
		if (w < 0 || (size_t)w >= len - *off)
			return -1;
		*off += (size_t)w;
	}
	return 0;
}

/* "K;G;STRATEGY;METHOD;TIMEOUT;N;R,R,...;O,O,...|-;HOST,HOST,...;C,C,..."
 * (the allocation as the spawner sees it: nodes given back are gone). */
char *mall_state_format(const psiplace_mall_t *m, const struct mall_spawn_state *st)
{
	size_t len = 64 + st->nnodes * 24 + m->nalloc * 24, off, i;
	char *buf;
	int w;

	for (i = 0; i < m->nalloc; i++)
		len += strlen(m->hosts[i]);
	if (!(buf = malloc(len)))
		return NULL;
	w = snprintf(buf, len, "%d;%d;%d;%d;%d;%zu;", st->resize, st->group, (int)st->strategy,
		     (int)st->method, st->timeout, st->nnodes);
	off = (size_t)w;
	if (append_vec(buf, len, &off, st->running, st->nnodes) < 0)
		goto fail;
	if (off + 2 >= len)
		goto fail;
	buf[off++] = ';';
	buf[off] = 0;
	if (st->oversub ? append_vec(buf, len, &off, st->oversub, st->nnodes) < 0
			: snprintf(buf + off, len - off, "-") != 1)
		goto fail;
	off = strlen(buf);
	for (i = 0; i < m->nalloc; i++) {
		w = snprintf(buf + off, len - off, "%s%s", i ? "," : ";", m->hosts[i]);
		if (w < 0 || (size_t)w >= len - off)
			goto fail;
		off += (size_t)w;
	}
	if (off + 2 >= len)
		goto fail;
	buf[off++] = ';';
	buf[off] = 0;
	if (append_vec(buf, len, &off, m->cores, m->nalloc) < 0)
		goto fail;
	return buf;
fail:
	free(buf);
	return NULL;
}

static int parse_vec(const char *s, const char *what, size_t n, int **out, psiplace_error_t *err)
{
	struct psiplace_intvec v;

	if (psiplace_intvec_parse(s, what, &v, err) < 0)
		return -1;
	if (v.n != n) {
		psiplace_intvec_free(&v);
		return psiplace_seterr(err, "malleable: hidden argument: %s has %zu entries, not %zu",
				       what, v.n, n);
	}
	*out = v.v;
	return 0;
}

int mall_state_parse(const char *s, struct mall_spawn_state *st, const char **alloc,
		     psiplace_error_t *err)
{
	char run[PSIPLACE_INTVEC_MAX_INPUT / 16], over[PSIPLACE_INTVEC_MAX_INPUT / 16];
	int strategy, method, used = 0;

	memset(st, 0, sizeof(*st));
	if (strlen(s) >= sizeof(run) ||
	    sscanf(s, "%d;%d;%d;%d;%d;%zu;%[0-9,];%[0-9,-];%n", &st->resize, &st->group, &strategy,
		   &method, &st->timeout, &st->nnodes, run, over, &used) != 8 ||
	    !used || strategy < 0 || strategy > PSIPLACE_MALL_SEQUENTIAL || method < 0 ||
	    method > PSIPLACE_SPAWN_BASELINE || st->nnodes < 1 || st->timeout < 1)
		return psiplace_seterr(err, "malleable: hidden argument %s'%.80s' is malformed "
				       "(a process spawned by another psiplace version?)", MALL_ARG, s);
	st->strategy = (enum psiplace_mall_strategy)strategy;
	st->method = (enum psiplace_spawn_method)method;
	*alloc = s + used;
	if (parse_vec(run, "running", st->nnodes, &st->running, err) < 0)
		return -1;
	if (strcmp(over, "-") && parse_vec(over, "oversubscribe", st->nnodes, &st->oversub, err) < 0) {
		free(st->running);
		return -1;
	}
	return 0;
}

char **mall_child_argv(const psiplace_mall_t *m, const char *state)
{
	char **a = calloc((size_t)m->uargc + 2, sizeof(char *));
	size_t len = strlen(MALL_ARG) + strlen(state) + 1;
	int i;

	if (!a)
		return NULL;
	for (i = 0; i < m->uargc; i++)
		a[i] = m->uargv[i];
	if (!(a[i] = malloc(len))) {
		free(a);
		return NULL;
	}
	snprintf(a[i], len, "%s%s", MALL_ARG, state);
	return a;
}

void mall_free_argv(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i] && strncmp(argv[i], MALL_ARG, strlen(MALL_ARG)); i++)
		;
	free(argv[i]);
	free(argv);
}

void psiplace_mall_set_timeout(psiplace_mall_t *m, int seconds)
{
	if (seconds > 0)
		m->timeout = seconds;
}

MPI_Comm psiplace_mall_comm(const psiplace_mall_t *m) { return m->comm; }
int psiplace_mall_leaving(const psiplace_mall_t *m) { return m->leaving; }
int psiplace_mall_zombie(const psiplace_mall_t *m) { return m->zombie; }
int psiplace_mall_resizes(const psiplace_mall_t *m) { return m->resizes; }
int psiplace_mall_group(const psiplace_mall_t *m) { return m->group; }
const char *psiplace_mall_node(const psiplace_mall_t *m) { return m->hosts[m->node]; }

const char *psiplace_mall_host(const psiplace_mall_t *m, size_t i)
{
	return i < m->nalloc ? m->hosts[i] : NULL;
}

size_t psiplace_mall_nnodes(const psiplace_mall_t *m)
{
	size_t n = 0;
	int i;

	for (i = 0; i < m->size; i++)
		if ((size_t)m->rank_node[i] + 1 > n)
			n = (size_t)m->rank_node[i] + 1;
	return n;
}

int psiplace_mall_drop_nodes(psiplace_mall_t *m, size_t from, size_t to, psiplace_error_t *err)
{
	size_t i, n = to - from;
	int r;

	if (from >= to || to > m->nalloc)
		return psiplace_seterr(err, "malleable: drop nodes %zu..%zu of the allocation: it has "
				       "%zu nodes (a range 0 <= from < to <= %zu accepted)", from, to,
				       m->nalloc, m->nalloc);
	for (r = 0; r < m->size; r++)
		if ((size_t)m->rank_node[r] >= from && (size_t)m->rank_node[r] < to)
			return psiplace_seterr(err, "malleable: drop node %s: rank %d of the job "
					       "still runs there (shrink first)",
					       m->hosts[m->rank_node[r]], r);
	for (i = from; i < to; i++)
		free(m->hosts[i]);
	memmove(m->hosts + from, m->hosts + to, (m->nalloc - to) * sizeof(*m->hosts));
	memmove(m->cores + from, m->cores + to, (m->nalloc - to) * sizeof(*m->cores));
	m->nalloc -= n;
	for (r = 0; r < m->size; r++)
		if ((size_t)m->rank_node[r] >= to)
			m->rank_node[r] -= (int)n;
	if ((size_t)m->node >= to)
		m->node -= (int)n;
	return 0;
}

/* Ibarrier and a sleeping test loop: a zombie waits without taking a core
 * (MPI's blocking calls busy-poll). */
/* The zombies wait, idle, for the rest of the job at its end.  Everyone
 * tests the barrier every 20 ms (MPI progress without busy-polling); a
 * zombie waits as long as the job runs, every other process at most the
 * operation timeout: when a zombie cannot come (its node was given back
 * and the process died) the others leave without it, with one warning
 * line, instead of hanging at the end. */
void mall_zombies_meet(psiplace_mall_t *m)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 }, now, end;
	MPI_Request req;
	int done = 0;

	if (m->zombies == MPI_COMM_NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += m->timeout > 0 ? m->timeout : 60;
	if (MPI_Ibarrier(m->zombies, &req) == MPI_SUCCESS) {
		while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
			nanosleep(&ts, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!m->zombie && (now.tv_sec > end.tv_sec ||
					   (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))) {
				fprintf(stderr, "psiplace: warning: malleable: the job's zombies did not "
					"all meet at its end within %d s; leaving without them\n",
					m->timeout > 0 ? m->timeout : 60);
				/* the barrier stays pending: its communicator cannot be freed */
				m->zombies = MPI_COMM_NULL;
				return;
			}
		}
	}
	MPI_Comm_free(&m->zombies);
	m->zombies = MPI_COMM_NULL;
}

void psiplace_mall_free(psiplace_mall_t *m)
{
	size_t i;

	if (!m)
		return;
	/* a helper still pending: its salloc ended and reaped, the request
	 * cancelled (the daemon drops the order when the job ends) */
	psiplace_resize_grow_end(m->grow);
	m->grow = NULL;
	if (m->comm != MPI_COMM_NULL)
		MPI_Comm_free(&m->comm);
	mall_zombies_meet(m);
	for (i = 0; m->hosts && i < m->nalloc; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->cores);
	free(m->rank_node);
	free(m->rank_world);
	free(m->cmd);
	free(m->uargv);
	free(m);
}

int mall_add_nodes(psiplace_mall_t *m, char **names, const int *cores, size_t n,
		   psiplace_error_t *err)
{
	char **h = realloc(m->hosts, (m->nalloc + n) * sizeof(*h));
	int *c;
	size_t i;

	if (h)
		m->hosts = h;
	c = h ? realloc(m->cores, (m->nalloc + n) * sizeof(*c)) : NULL;
	if (!c)
		return psiplace_seterr(err, "malleable: out of memory");
	m->cores = c;
	for (i = 0; i < n; i++) {
		if (!(m->hosts[m->nalloc] = strdup(names[i])))
			return psiplace_seterr(err, "malleable: out of memory");
		m->cores[m->nalloc++] = cores[i];
	}
	return 0;
}

int mall_move_last(psiplace_mall_t *m, const int *last)
{
	size_t i, j = 0, n = m->nalloc;
	int *to = malloc(n * sizeof(int)), *cores = malloc(n * sizeof(int)), r, pass;
	char **hosts = malloc(n * sizeof(char *));

	if (!to || !cores || !hosts) {
		free(to);
		free(cores);
		free(hosts);
		return -1;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (!!last[i] == pass) {
				to[i] = (int)j;
				hosts[j] = m->hosts[i];
				cores[j++] = m->cores[i];
			}
	for (r = 0; r < m->size; r++)
		m->rank_node[r] = to[m->rank_node[r]];
	m->node = to[m->node];
	free(m->hosts);
	free(m->cores);
	m->hosts = hosts;
	m->cores = cores;
	free(to);
	return 0;
}
