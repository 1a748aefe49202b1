/* The malleable job's context: the allocation, the layout (node and
 * MPI_COMM_WORLD of every rank), the hidden argument of spawned processes. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mall_internal.h"
#include "psiplace/hostlist.h"
#include "psiplace/intvec.h"

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

static int alloc_from_env(psiplace_mall_t *m, psiplace_error_t *err)
{
	const char *nl = getenv("SLURM_JOB_NODELIST"), *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
	const char *me = getenv("SLURMD_NODENAME");
	struct psiplace_hostlist h = { 0 };
	struct psiplace_intvec v = { 0 };
	size_t i;

	if (!nl || !cpus || !me)
		return psiplace_seterr(err, "malleable: %s is not set: run the program with mpirun "
				       "inside a Slurm allocation", !nl ? "SLURM_JOB_NODELIST" :
				       !cpus ? "SLURM_JOB_CPUS_PER_NODE" : "SLURMD_NODENAME");
	if (psiplace_hostlist_expand(nl, "SLURM_JOB_NODELIST", &h, err) < 0)
		return -1;
	if (psiplace_intvec_parse(cpus, "SLURM_JOB_CPUS_PER_NODE", &v, err) < 0) {
		psiplace_hostlist_free(&h);
		return -1;
	}
	if (v.n != h.n) {
		psiplace_seterr(err, "malleable: SLURM_JOB_CPUS_PER_NODE has %zu entries but "
				"SLURM_JOB_NODELIST names %zu nodes", v.n, h.n);
		goto fail;
	}
	m->nalloc = h.n;
	m->hosts = calloc(h.n, sizeof(*m->hosts));
	m->cores = v.v;
	v.v = NULL;
	if (!m->hosts) {
		psiplace_seterr(err, "malleable: out of memory");
		goto fail;
	}
	m->node = -1;
	for (i = 0; i < h.n; i++) {
		if (!(m->hosts[i] = strdup(h.host[i]))) {
			psiplace_seterr(err, "malleable: out of memory");
			goto fail;
		}
		if (!strcmp(h.host[i], me))
			m->node = (int)i;
	}
	if (m->node < 0) {
		psiplace_seterr(err, "malleable: this process runs on '%s' (SLURMD_NODENAME), "
				"which is not in the job's SLURM_JOB_NODELIST '%s'", me, nl);
		goto fail;
	}
	psiplace_hostlist_free(&h);
	return 0;
fail:
	psiplace_hostlist_free(&h);
	psiplace_intvec_free(&v);
	return -1;
}

/* A spawned process takes the allocation from its spawner ("HOSTS;CORES" of
 * the hidden argument), not from the environment: nodes the job gave back
 * after it started (psiplace_mall_drop_nodes) are no longer in it. */
static int alloc_from_state(psiplace_mall_t *m, const char *s, psiplace_error_t *err)
{
	const char *me = getenv("SLURMD_NODENAME"), *semi = strchr(s, ';');
	struct psiplace_hostlist h = { 0 };
	struct psiplace_intvec v = { 0 };
	char *hosts;
	size_t i;

	if (!semi || semi == s)
		return psiplace_seterr(err, "malleable: hidden argument: no allocation in '%.80s'", s);
	if (!(hosts = strndup(s, (size_t)(semi - s))))
		return psiplace_seterr(err, "malleable: out of memory");
	if (psiplace_hostlist_expand(hosts, "hidden argument: allocation", &h, err) < 0) {
		free(hosts);
		return -1;
	}
	if (psiplace_intvec_parse(semi + 1, "hidden argument: cores", &v, err) < 0 || v.n != h.n) {
		if (v.v)
			psiplace_seterr(err, "malleable: hidden argument: %zu cores for %zu nodes",
					v.n, h.n);
		goto fail;
	}
	for (i = 0; i < m->nalloc; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->cores);
	m->cores = v.v;
	v.v = NULL;
	m->nalloc = 0;
	if (!(m->hosts = calloc(h.n, sizeof(*m->hosts)))) {
		psiplace_seterr(err, "malleable: out of memory");
		goto fail;
	}
	m->node = -1;
	for (m->nalloc = 0; m->nalloc < h.n; m->nalloc++) {
		if (!(m->hosts[m->nalloc] = strdup(h.host[m->nalloc]))) {
			psiplace_seterr(err, "malleable: out of memory");
			goto fail;
		}
		if (me && !strcmp(h.host[m->nalloc], me))
			m->node = (int)m->nalloc;
	}
	if (m->node < 0) {
		psiplace_seterr(err, "malleable: this process was spawned on '%s' (SLURMD_NODENAME), "
				"which is not in its spawner's allocation '%s'", me ? me : "?", hosts);
		goto fail;
	}
	free(hosts);
	psiplace_hostlist_free(&h);
	return 0;
fail:
	free(hosts);
	psiplace_hostlist_free(&h);
	psiplace_intvec_free(&v);
	return -1;
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

static int state_parse(const char *s, struct mall_spawn_state *st, const char **alloc,
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

/* Remove the hidden argument; keep the user's arguments for later spawns. */
static const char *take_args(psiplace_mall_t *m, int *argc, char ***argv, psiplace_error_t *err)
{
	const char *state = NULL;
	char exe[PATH_MAX];
	ssize_t n;
	int i, j;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		m->cmd = strdup(exe);
	} else {
		m->cmd = strdup(*argc > 0 ? (*argv)[0] : "");
	}
	m->uargv = calloc((size_t)*argc + 1, sizeof(char *));
	if (!m->cmd || !m->uargv) {
		psiplace_seterr(err, "malleable: out of memory");
		return NULL;
	}
	for (i = 1, j = 1; i < *argc; i++) {
		if (!strncmp((*argv)[i], MALL_ARG, strlen(MALL_ARG))) {
			state = (*argv)[i] + strlen(MALL_ARG);
			continue;
		}
		m->uargv[m->uargc++] = (*argv)[i];
		(*argv)[j++] = (*argv)[i];
	}
	if (*argc > 0) {
		(*argv)[j] = NULL;
		*argc = j;
	}
	return state ? state : "";
}

int psiplace_mall_init(int *argc, char ***argv, psiplace_mall_t **out, psiplace_error_t *err)
{
	psiplace_mall_t *m = calloc(1, sizeof(*m));
	struct mall_spawn_state st;
	struct mall_watchdog *w;
	const char *state, *alloc, *t = getenv("PSIPLACE_MALL_TIMEOUT");
	MPI_Comm parent;
	int rc;

	*out = NULL;
	if (!m)
		return psiplace_seterr(err, "malleable: out of memory");
	m->comm = MPI_COMM_NULL;
	m->zombies = MPI_COMM_NULL;
	m->group = -1;
	m->timeout = t && atoi(t) > 0 ? atoi(t) : 120;
	if (!(state = take_args(m, argc, argv, err)) || alloc_from_env(m, err) < 0)
		goto fail;
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		if (*state) {
			psiplace_seterr(err, "malleable: %s given, but this process was not spawned",
					MALL_ARG);
			goto fail;
		}
		MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
		if (mall_layout(m, err) < 0)
			goto fail;
		*out = m;
		return 0;
	}
	if (!*state) {
		psiplace_seterr(err, "malleable: spawned without the hidden argument %s", MALL_ARG);
		goto fail;
	}
	if (state_parse(state, &st, &alloc, err) < 0)
		goto fail;
	if (alloc_from_state(m, alloc, err) < 0) {
		free(st.running);
		free(st.oversub);
		goto fail;
	}
	m->timeout = st.timeout;
	w = mall_watchdog_arm("malleable: a spawned process's part of the expansion", m->timeout);
	rc = mall_expand_run(m, &st, parent, w, err);
	mall_watchdog_disarm(w);
	free(st.running);
	free(st.oversub);
	if (rc < 0)
		goto fail;
	*out = m;
	return 0;
fail:
	psiplace_mall_free(m);
	return -1;
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

void psiplace_mall_free(psiplace_mall_t *m)
{
	size_t i;

	if (!m)
		return;
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
