/* The job's allocation request as slurmctld receives it: hostile input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/textparse.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"

void psiplace_ctld_request_init(struct psiplace_ctld_request *r)
{
	memset(r, 0, sizeof(*r));
	r->policy = PSIPLACE_POLICY_NONE;
	psiplace_names_init(&r->psi_hosts);
}

void psiplace_ctld_request_free(struct psiplace_ctld_request *r)
{
	free(r->psi_node_ids);
	psiplace_names_free(&r->psi_hosts);
	psiplace_ctld_request_init(r);
}

/* The value of NAME=value when entry names `name`, else NULL. */
static const char *match(const char *entry, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(entry, name, n) || entry[n] != '=')
		return NULL;
	return entry + n + 1;
}

int psiplace_ctld_request_set_policy(struct psiplace_ctld_request *r, const char *value, const char *what,
			       psiplace_error_t *err)
{
	if (r->policy != PSIPLACE_POLICY_NONE)
		return psiplace_seterr(err, "%s: given twice", what);
	return psiplace_policy_parse(value, what, &r->policy, err);
}

int psiplace_ctld_request_set_priority(struct psiplace_ctld_request *r, const char *value, const char *what,
				 psiplace_error_t *err)
{
	struct psiplace_priorityf *f;

	if (r->priority[0])
		return psiplace_seterr(err, "%s: given twice", what);
	if (psiplace_priorityf_compile(value, what, &f, err) < 0)
		return -1;
	psiplace_priorityf_free(f);
	/* compile bounds the length to PSIPLACE_PRIORITYF_MAXLEN */
	strcpy(r->priority, value);
	return 0;
}

static const char mall_accepted[] =
	"accepted: MIN-MAX, node counts with 1 <= MIN <= MAX, e.g. 1-4";

/* A node count of the range: digits only, at most PSIPLACE_MALLEABLE_MAX_NODES. */
static bool mall_count(const char *s, size_t n, uint32_t *out)
{
	uint64_t v;

	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	if (!psiplace_parse_u64(s, n, PSIPLACE_MALLEABLE_MAX_NODES, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

int psiplace_malleable_parse(const char *value, const char *what, uint32_t limit, uint32_t *min,
			     uint32_t *max, psiplace_error_t *err)
{
	const char *dash = value ? strchr(value, '-') : NULL;
	char q[96];
	uint32_t lo, hi;

	psiplace_quote(q, sizeof(q), value ? value : "", 64);
	if (!dash || !mall_count(value, (size_t)(dash - value), &lo) ||
	    !mall_count(dash + 1, strlen(dash + 1), &hi))
		return psiplace_seterr(err, "%s: '%s' is not MIN-MAX with node counts up to %d; %s",
				       what, q, PSIPLACE_MALLEABLE_MAX_NODES, mall_accepted);
	if (lo < 1)
		return psiplace_seterr(err, "%s: '%s': MIN is 0; %s", what, q, mall_accepted);
	if (lo > hi)
		return psiplace_seterr(err, "%s: '%s': MIN %u is above MAX %u; %s", what, q, lo, hi,
				       mall_accepted);
	if (limit && hi > limit)
		return psiplace_seterr(err, "%s: '%s': MAX %u is above the partition's %u nodes; %s",
				       what, q, hi, limit, mall_accepted);
	*min = lo;
	*max = hi;
	return 0;
}

int psiplace_ctld_request_set_malleable(struct psiplace_ctld_request *r, const char *value,
					const char *what, psiplace_error_t *err)
{
	if (r->mall_max)
		return psiplace_seterr(err, "%s: given twice", what);
	return psiplace_malleable_parse(value, what, 0, &r->mall_min, &r->mall_max, err);
}

int psiplace_ctld_request_finish(struct psiplace_ctld_request *r, const char *policy_what,
			   const char *priority_what, psiplace_error_t *err)
{
	if (!r->priority[0])
		return 0;
	if (r->policy == PSIPLACE_POLICY_NONE) {
		r->policy = PSIPLACE_POLICY_PRIORITY;
		return 0;
	}
	if (r->policy != PSIPLACE_POLICY_PRIORITY)
		return psiplace_seterr(err,
				       "%s implies PRIORITY, but %s is %s; give only one of them",
				       priority_what, policy_what, psiplace_policy_name(r->policy));
	return 0;
}

static int too_long(const char *v, const char *name, psiplace_error_t *err)
{
	if (strnlen(v, PSIPLACE_JOBENV_MAX_VALUE + 1) > PSIPLACE_JOBENV_MAX_VALUE)
		return psiplace_seterr(err, "%s longer than %d bytes", name,
				       PSIPLACE_JOBENV_MAX_VALUE);
	return 0;
}

/* The PSI node-choice entries; node lists may be long (compacted
 * hostlists).  1: not one of them. */
static int parse_psi_entry(struct psiplace_ctld_request *r, const char *entry, psiplace_error_t *err)
{
	const char *v;

	if ((v = match(entry, PSIPLACE_ENV_PSI))) {
		r->psi = true;
		return 0;
	}
	if ((v = match(entry, PSIPLACE_ENV_PSI_SORT))) {
		if (r->psi_sort != PSIPLACE_SORT_UNSET)
			return psiplace_seterr(err, "%s: given twice", PSIPLACE_ENV_PSI_SORT);
		if (too_long(v, PSIPLACE_ENV_PSI_SORT, err) < 0)
			return -1;
		return psiplace_nodes_sort_parse(v, PSIPLACE_ENV_PSI_SORT, &r->psi_sort, err);
	}
	if ((v = match(entry, PSIPLACE_ENV_PSI_NODES))) {
		if (r->psi_node_ids)
			return psiplace_seterr(err, "%s: given twice", PSIPLACE_ENV_PSI_NODES);
		if (strnlen(v, PSIPLACE_JOBENV_MAX_LIST + 1) > PSIPLACE_JOBENV_MAX_LIST)
			return psiplace_seterr(err, "%s longer than %d bytes",
					       PSIPLACE_ENV_PSI_NODES, PSIPLACE_JOBENV_MAX_LIST);
		return psiplace_psi_nodes_parse(v, PSIPLACE_ENV_PSI_NODES, &r->psi_node_ids,
						&r->npsi_node_ids, err);
	}
	if ((v = match(entry, PSIPLACE_ENV_PSI_HOSTS))) {
		if (r->psi_hosts.n)
			return psiplace_seterr(err, "%s: given twice", PSIPLACE_ENV_PSI_HOSTS);
		if (strnlen(v, PSIPLACE_JOBENV_MAX_LIST + 1) > PSIPLACE_JOBENV_MAX_LIST)
			return psiplace_seterr(err, "%s longer than %d bytes",
					       PSIPLACE_ENV_PSI_HOSTS, PSIPLACE_JOBENV_MAX_LIST);
		return psiplace_names_add_hostlist(&r->psi_hosts, v, PSIPLACE_ENV_PSI_HOSTS, err);
	}
	return 1;
}

/* PSIPLACE_REQUEST=N: decimal digits, 1 <= N <= PSIPLACE_REQUEST_VERSION_MAX. */
static int set_version(struct psiplace_ctld_request *r, const char *v, psiplace_error_t *err)
{
	uint64_t n = 0;
	size_t len = strnlen(v, 16), i;
	char q[48];

	if (r->version)
		return psiplace_seterr(err, "%s: given twice", PSIPLACE_ENV_REQUEST);
	for (i = 0; i < len; i++)
		if (v[i] < '0' || v[i] > '9')
			break;
	if (!len || i < len || v[len] || !psiplace_parse_u64(v, len, PSIPLACE_REQUEST_VERSION_MAX, &n) ||
	    n < 1) {
		psiplace_quote(q, sizeof(q), v, 16);
		return psiplace_seterr(err, "%s: '%s' is not a version number; accepted: 1 to %d",
				       PSIPLACE_ENV_REQUEST, q, PSIPLACE_REQUEST_VERSION_MAX);
	}
	r->version = (uint32_t)n;
	return 0;
}

/* A PSIPLACE_* entry this version does not know: counted, the first one named. */
static void note_unknown(struct psiplace_ctld_request *r, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
	char name[40];

	if (!r->nunknown++) {
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, entry, n);
		name[n] = '\0';
		psiplace_quote(r->unknown, sizeof(r->unknown), name, sizeof(name) - 1);
	}
}

/* One entry of the job environment; entries not named PSIPLACE_* are not psiplace's. */
static int parse_entry(struct psiplace_ctld_request *r, const char *entry, psiplace_error_t *err)
{
	const char *v;
	int rc;

	if (strncmp(entry, PSIPLACE_ENV_PREFIX, strlen(PSIPLACE_ENV_PREFIX)))
		return 0;
	r->nentries++;

	if ((v = match(entry, PSIPLACE_ENV_ALLOC_POLICY))) {
		if (too_long(v, PSIPLACE_ENV_ALLOC_POLICY, err) < 0)
			return -1;
		return psiplace_ctld_request_set_policy(r, v, PSIPLACE_ENV_ALLOC_POLICY, err);
	}
	if ((v = match(entry, PSIPLACE_ENV_ALLOC_PRIORITY))) {
		if (too_long(v, PSIPLACE_ENV_ALLOC_PRIORITY, err) < 0)
			return -1;
		return psiplace_ctld_request_set_priority(r, v, PSIPLACE_ENV_ALLOC_PRIORITY, err);
	}
	if ((v = match(entry, PSIPLACE_ENV_MALLEABLE))) {
		if (too_long(v, PSIPLACE_ENV_MALLEABLE, err) < 0)
			return -1;
		return psiplace_ctld_request_set_malleable(r, v, PSIPLACE_ENV_MALLEABLE, err);
	}
	if ((v = match(entry, PSIPLACE_ENV_REQUEST)))
		return set_version(r, v, err);
	rc = parse_psi_entry(r, entry, err);
	if (rc == 1)
		note_unknown(r, entry);
	return rc < 0 ? -1 : 0;
}

static int from_env(const char *const *env, size_t n, struct psiplace_ctld_request *r, bool keep_lists,
		    psiplace_error_t *err)
{
	size_t i;

	psiplace_ctld_request_init(r);
	if (!env)
		return 0;
	if (n > PSIPLACE_JOBENV_MAX_ENTRIES)
		return psiplace_seterr(err, "job environment has %zu entries (at most %d)",
				       n, PSIPLACE_JOBENV_MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		if (env[i] && parse_entry(r, env[i], err) < 0) {
			psiplace_ctld_request_free(r);
			return -1;
		}
	}
	if (psiplace_ctld_request_finish(r, PSIPLACE_ENV_ALLOC_POLICY, PSIPLACE_ENV_ALLOC_PRIORITY, err) < 0) {
		psiplace_ctld_request_free(r);
		return -1;
	}
	if (r->psi_node_ids || r->psi_hosts.n || r->psi_sort != PSIPLACE_SORT_UNSET)
		r->psi = true;
	if (!keep_lists) {
		/* Validated and noted (psi); the lists cost memory only when asked. */
		free(r->psi_node_ids);
		r->psi_node_ids = NULL;
		r->npsi_node_ids = 0;
		psiplace_names_free(&r->psi_hosts);
	}
	return 0;
}

int psiplace_ctld_request_from_env(const char *const *env, size_t n,
			     struct psiplace_ctld_request *r, psiplace_error_t *err)
{
	return from_env(env, n, r, false, err);
}

int psiplace_ctld_request_from_env_nodes(const char *const *env, size_t n, struct psiplace_ctld_request *r,
				   psiplace_error_t *err)
{
	return from_env(env, n, r, true, err);
}

int psiplace_ctld_request_env_of_request(const struct psiplace_user_request *req, const char *name[4],
				   char *value[4], size_t *n, psiplace_error_t *err)
{
	size_t k = 0, i;
	char *buf = NULL;
	long len = 0;

	*n = 0;
	if (!req->psi_node_choice)
		return 0;
	if (req->nodeset != PSIPLACE_NODESET_NONE) {
		if (!(buf = malloc(PSIPLACE_JOBENV_MAX_LIST + 1)))
			return psiplace_seterr(err, "%s: out of memory", req->nodeset_from);
		if (req->nodeset == PSIPLACE_NODESET_IDS) {
			name[k] = PSIPLACE_ENV_PSI_NODES;
			len = psiplace_idlist_format(req->node_ids, req->nnode_ids, buf,
						     PSIPLACE_JOBENV_MAX_LIST + 1);
		} else {
			name[k] = PSIPLACE_ENV_PSI_HOSTS;
			len = psiplace_names_format(&req->hosts, buf, PSIPLACE_JOBENV_MAX_LIST + 1);
		}
		if (len < 0) {
			free(buf);
			return psiplace_seterr(err,
					       "%s: the node list does not fit in %d bytes once compacted",
					       req->nodeset_from, PSIPLACE_JOBENV_MAX_LIST);
		}
		value[k++] = buf;
	}
	if (req->sort != PSIPLACE_SORT_UNSET) {
		name[k] = PSIPLACE_ENV_PSI_SORT;
		value[k++] = strdup(psiplace_nodes_sort_name(req->sort));
	}
	name[k] = PSIPLACE_ENV_PSI;
	value[k++] = strdup("1");
	for (i = 0; i < k; i++)
		if (!value[i]) {
			while (k--)
				free(value[k]);
			return psiplace_seterr(err, "job request: out of memory");
		}
	*n = k;
	return 0;
}
