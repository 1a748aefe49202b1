/* PSI node choice in slurmctld: the job's node set resolved against the
 * cluster's nodes, then ordered.  Pure: the select plugin
 * passes its node table in. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/psi_values.h"

static int cmp_name(const void *a, const void *b, void *names)
{
	const char *const *nm = names;
	return strcmp(nm[*(const uint32_t *)a], nm[*(const uint32_t *)b]);
}

/* Index of name in the cluster via a name-sorted index; -1 if unknown. */
static long find_host(const char *name, const char *const *names, const uint32_t *by_name,
		      size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, names[by_name[mid]]);
		if (!c)
			return by_name[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int add_candidate(uint32_t idx, unsigned char *seen, uint32_t *cand, size_t *k)
{
	if (!seen[idx]) {
		seen[idx] = 1;
		cand[(*k)++] = idx;
	}
	return 0;
}

/* The names sorted once: the finder of callers without a name index. */
struct sorted_names {
	const char *const *names;
	uint32_t *by_name;
	size_t n;
};

static long find_sorted(const char *name, void *arg)
{
	const struct sorted_names *s = arg;

	return find_host(name, s->names, s->by_name, s->n);
}

int psiplace_ctld_request_candidates(const struct psiplace_ctld_request *r, const char *const *names,
				     size_t nnodes, const struct psiplace_node_finder *finder,
				     uint32_t **cand, size_t *ncand, psiplace_error_t *err)
{
	unsigned char *seen = calloc(nnodes ? nnodes : 1, 1);
	uint32_t *c = malloc((nnodes ? nnodes : 1) * sizeof(*c));
	struct sorted_names sorted = { names, NULL, nnodes };
	struct psiplace_node_finder own = { find_sorted, &sorted };
	size_t i, k = 0;
	char q[160];

	*cand = NULL;
	*ncand = 0;
	if (!seen || !c)
		goto oom;
	if (!r->psi_node_ids && !r->psi_hosts.n) {
		for (i = 0; i < nnodes; i++)
			c[k++] = (uint32_t)i;
	}
	for (i = 0; i < r->npsi_node_ids; i++) {
		if (r->psi_node_ids[i] >= nnodes) {
			free(seen);
			free(c);
			return psiplace_seterr(err, "%s: node id %u is beyond the cluster's %zu nodes (0-%zu)",
					       PSIPLACE_ENV_PSI_NODES, r->psi_node_ids[i], nnodes,
					       nnodes ? nnodes - 1 : 0);
		}
		add_candidate(r->psi_node_ids[i], seen, c, &k);
	}
	if (r->psi_hosts.n && !finder) {
		if (!names || !(sorted.by_name = malloc(nnodes * sizeof(*sorted.by_name) + 1)))
			goto oom;
		for (i = 0; i < nnodes; i++)
			sorted.by_name[i] = (uint32_t)i;
		qsort_r(sorted.by_name, nnodes, sizeof(*sorted.by_name), cmp_name, (void *)names);
		finder = &own;
	}
	for (i = 0; i < r->psi_hosts.n; i++) {
		long idx = finder->find(r->psi_hosts.name[i], finder->arg);

		if (idx < 0 || (size_t)idx >= nnodes) {
			psiplace_quote(q, sizeof(q), r->psi_hosts.name[i], 100);
			free(seen);
			free(c);
			free(sorted.by_name);
			return psiplace_seterr(err, "%s: '%s' is not a node of this cluster",
					       PSIPLACE_ENV_PSI_HOSTS, q);
		}
		add_candidate((uint32_t)idx, seen, c, &k);
	}
	free(sorted.by_name);
	free(seen);
	*cand = c;
	*ncand = k;
	return 0;
oom:
	free(seen);
	free(c);
	return psiplace_seterr(err, "PSI node set: out of memory");
}

int psiplace_ctld_request_psi_order(const struct psiplace_ctld_request *r,
				    const struct psiplace_siteconf *site,
				    const struct psiplace_node *nodes, size_t nnodes,
				    const struct psiplace_node_finder *finder, uint32_t **order,
				    size_t *norder, enum psiplace_policy *policy,
				    enum psiplace_psi_next *next, psiplace_error_t *err)
{
	const char **names;
	enum psiplace_nodes_sort sort = r->psi_sort;
	size_t i;
	int rc;

	*order = NULL;
	*norder = 0;
	*policy = r->policy != PSIPLACE_POLICY_NONE ? r->policy
		  : (site ? site->policy : PSIPLACE_POLICY_NONE);
	*next = *policy != PSIPLACE_POLICY_NONE ? PSIPLACE_PSI_NEXT_POLICY : PSIPLACE_PSI_NEXT_NONE;
	if (!r->psi)
		return 0;
	/* Names to sort only when the caller has no index of its own. */
	names = NULL;
	if (!finder && r->psi_hosts.n) {
		if (!(names = malloc((nnodes ? nnodes : 1) * sizeof(*names)))) {
			return psiplace_seterr(err, "PSI node set: out of memory");
		}
		for (i = 0; i < nnodes; i++)
			names[i] = nodes[i].name ? nodes[i].name : "";
	}
	rc = psiplace_ctld_request_candidates(r, names, nnodes, finder, order, norder, err);
	free(names);
	if (rc < 0)
		return -1;
	/* The job's policy, then its sort mode, then the cluster's policy,
	 * then NodesSort (PROC when unset). */
	*next = PSIPLACE_PSI_NEXT_POLICY;
	if (r->policy != PSIPLACE_POLICY_NONE)
		return 0;
	if (sort == PSIPLACE_SORT_UNSET && *policy != PSIPLACE_POLICY_NONE)
		return 0;
	if (sort == PSIPLACE_SORT_UNSET && site && site->nodes_sort &&
	    psiplace_nodes_sort_parse(site->nodes_sort, "NodesSort", &sort, err) < 0)
		goto fail;
	if (sort == PSIPLACE_SORT_UNSET)
		sort = PSIPLACE_SORT_PROC;
	if (psiplace_psi_sort(sort, site && site->policy_overrides_weight, nodes, *order, *norder,
			      err) < 0)
		goto fail;
	*policy = PSIPLACE_POLICY_NONE;
	*next = PSIPLACE_PSI_NEXT_DONE;
	return 0;
fail:
	free(*order);
	*order = NULL;
	*norder = 0;
	return -1;
}
