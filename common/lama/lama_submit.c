/* LAMA over a known allocation (srun inside a job): the layout to ask
 * Slurm for rank by rank when LAMA's node order is neither block nor
 * cyclic.  Needs every node's topology, which only TopologyFile gives
 * away from the node. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psiplace/textparse.h"
#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/lama_launch.h"
#include "psiplace/plugstack_line.h"

void psiplace_lama_ask_free(struct psiplace_lama_ask *a)
{
	free(a->host);
	free(a->layout);
	psiplace_hostlist_free(&a->hosts);
	memset(a, 0, sizeof(*a));
}

/* Every node's topology from TopologyFile (each node its file when the
 * pattern has %n); 1 when one is missing or unreadable. */
static int load_topologies(const char *pattern, const struct psiplace_hostlist *hl,
			   struct psiplace_topo *t)
{
	char path[1024];
	psiplace_error_t e;
	size_t i;

	for (i = 0; pattern && *pattern && i < hl->n; i++) {
		if (psiplace_topology_path(pattern, hl->host[i], path, sizeof(path), &e) < 0 ||
		    (strstr(pattern, "%n") && access(path, R_OK) != 0) ||
		    psiplace_topo_load(path, NULL, &t[i], &e) < 0)
			break;
	}
	if (pattern && *pattern && i == hl->n)
		return 0;
	while (i--)
		psiplace_topo_free(&t[i]);
	return 1;
}

/* LAMA's layout over the loaded nodes into a (host and layout set) when it
 * is arbitrary and fits; *ask false otherwise (LAMA cannot map, it does not
 * fit, or block or cyclic serve: the step reports what applies).  -1 only
 * when out of memory. */
static int layout_over(const struct psiplace_lama_opts *o, const uint32_t *cpus, size_t ntasks,
		       const struct psiplace_topo *t, struct psiplace_lama_ask *a, bool *ask,
		       psiplace_error_t *err)
{
	const struct psiplace_topo **tp = calloc(a->hosts.n, sizeof(*tp));
	unsigned *seq = malloc(ntasks * sizeof(*seq));
	enum psiplace_lama_dist d;
	psiplace_error_t e;
	size_t i;
	int rc = 0;
	bool fits;

	*ask = false;
	if (!tp || !seq) {
		rc = psiplace_seterr(err, "LAMA: out of memory for %zu tasks", ntasks);
		goto out;
	}
	for (i = 0; i < a->hosts.n; i++)
		tp[i] = &t[i];
	if (psiplace_lama_alloc_layout(o, (unsigned)a->hosts.n, tp, (const unsigned *)cpus, ntasks,
				       &fits, &d, seq, &e) < 0 ||
	    !fits || d != PSIPLACE_LAMA_DIST_ARBITRARY)
		goto out;
	if (!(a->host = malloc(ntasks * sizeof(*a->host))) ||
	    !(a->layout = psiplace_lama_layout_format(seq, ntasks, (unsigned)a->hosts.n))) {
		rc = psiplace_seterr(err, "LAMA: out of memory for %zu tasks", ntasks);
		goto out;
	}
	for (i = 0; i < ntasks; i++)
		a->host[i] = a->hosts.host[seq[i]];
	a->ntasks = ntasks;
	*ask = true;
out:
	free(tp);
	free(seq);
	return rc;
}

int psiplace_lama_ask_load(const struct psiplace_lama_opts *o, long ntasks_given, long nnodes_given,
			   const char *topology_file, psiplace_getenv_fn get, void *arg,
			   struct psiplace_lama_ask *a, bool *ask, psiplace_error_t *err)
{
	const char *list = get("SLURM_JOB_NODELIST", arg), *cpn = get("SLURM_JOB_CPUS_PER_NODE", arg);
	const char *nt = get("SLURM_NTASKS", arg);
	uint64_t u;
	long ntasks = ntasks_given > 0 ? ntasks_given
		      : nt && psiplace_parse_u64(nt, strlen(nt), INT32_MAX, &u) ? (long)u : -1;
	struct psiplace_topo *t = NULL;
	uint32_t *cpus = NULL, ncpus = 0;
	psiplace_error_t e;
	size_t i;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	*ask = false;
	/* values Slurm gave that cannot be read: nothing to ask */
	if (!list || !cpn || ntasks <= 0 || ntasks > PSIPLACE_STEP_MAX_NODES ||
	    psiplace_hostlist_expand(list, "SLURM_JOB_NODELIST", &a->hosts, &e) < 0)
		return 0;
	if ((nnodes_given <= 0 || (size_t)nnodes_given == a->hosts.n) &&
	    psiplace_tasks_per_node_parse(cpn, "SLURM_JOB_CPUS_PER_NODE", &cpus, &ncpus, &e) == 0 &&
	    ncpus == a->hosts.n) {
		if (!(t = calloc(a->hosts.n, sizeof(*t))))
			rc = psiplace_seterr(err, "LAMA: out of memory for %zu nodes", a->hosts.n);
		else if (load_topologies(topology_file, &a->hosts, t) == 0) {
			rc = layout_over(o, cpus, (size_t)ntasks, t, a, ask, err);
			for (i = 0; i < a->hosts.n; i++)
				psiplace_topo_free(&t[i]);
		}
	}
	free(t);
	free(cpus);
	if (rc < 0 || !*ask) {
		psiplace_lama_ask_free(a);
		*ask = false;
	}
	return rc;
}
