/* The entry points of a malleable job's processes: psiplace_mall_init,
 * for the processes the launcher started and, with the hidden argument,
 * for a spawned process, which takes its part in the expansion that
 * spawned it before it returns. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mall_internal.h"
#include "psiplace/hostlist.h"
#include "psiplace/intvec.h"

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
	MPI_Comm_get_parent(&parent);
	/* a spawned process takes the allocation from its spawner: its node
	 * may have come by a grow after the job started (not in the job's
	 * SLURM_JOB_NODELIST) */
	if (!(state = take_args(m, argc, argv, err)) ||
	    (parent == MPI_COMM_NULL && alloc_from_env(m, err) < 0))
		goto fail;
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
	if (mall_state_parse(state, &st, &alloc, err) < 0)
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
