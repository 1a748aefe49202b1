/* psiplace — the per-job allocation request that travels from the SPANK
 * plugin (srun/sbatch/salloc) to select/psiplace_cons_tres through
 * spank_job_control_setenv().  In slurmctld it arrives in the job's
 * spank_job_env as NAME=value strings: untrusted, parsed again with
 * bounds. */
#ifndef PSIPLACE_CTLD_REQUEST_H
#define PSIPLACE_CTLD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/hostnames.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/psi_values.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variable names (without the SPANK_ prefix Slurm adds for prolog/epilog). */
#define PSIPLACE_ENV_ALLOC_POLICY "PSIPLACE_ALLOC_POLICY"
#define PSIPLACE_ENV_ALLOC_PRIORITY "PSIPLACE_ALLOC_PRIORITY"
#define PSIPLACE_ENV_PSI_NODES "PSIPLACE_PSI_NODES"   /* node ids: 0,2-5 */
#define PSIPLACE_ENV_PSI_HOSTS "PSIPLACE_PSI_HOSTS"   /* hostlist: n[1-4],m2 */
#define PSIPLACE_ENV_PSI_SORT "PSIPLACE_PSI_NODES_SORT" /* PROC, LOAD_1, ... */
#define PSIPLACE_ENV_PSI "PSIPLACE_PSI"               /* 1: PSI node choice used */
#define PSIPLACE_ENV_MALLEABLE "PSIPLACE_MALLEABLE"   /* MIN-MAX: --psi-malleable */
/* The request's format version, sent by the SPANK plugin with every new
 * job it sees (options or not), so that slurmctld can tell a job from a
 * psiplace host that asked for nothing from one whose submit host has no
 * psiplace (or one older than version 1, which sent entries only for
 * --psi-* options and no version).  A newer format may add entries: an
 * older slurmctld ignores those it does not know and says so. */
#define PSIPLACE_ENV_REQUEST "PSIPLACE_REQUEST"
#define PSIPLACE_REQUEST_VERSION 1
#define PSIPLACE_REQUEST_VERSION_MAX 1000000 /* larger values are malformed */
#define PSIPLACE_ENV_PREFIX "PSIPLACE_"

/* Bounds for the untrusted job environment. */
#define PSIPLACE_JOBENV_MAX_ENTRIES 4096
#define PSIPLACE_JOBENV_MAX_VALUE 4096
#define PSIPLACE_JOBENV_MAX_LIST 65536 /* node id and host lists */

struct psiplace_ctld_request {
	enum psiplace_policy policy; /* PSIPLACE_POLICY_NONE: not requested */
	/* The job's PRIORITYF as given (validated; compile it where it is
	 * used); empty: none.  A function implies PRIORITY. */
	char priority[PSIPLACE_PRIORITYF_MAXLEN + 1];
	/* PSI node choice: candidates restricted to node ids
	 * (0-based slurm.conf positions) or host names, in PSI list order;
	 * hostfile slots arrive as hosts (repeats kept). */
	bool psi;                      /* the job uses PSI node choice */
	uint32_t *psi_node_ids;        /* malloc'd; NULL: none */
	size_t npsi_node_ids;
	struct psiplace_names psi_hosts;
	enum psiplace_nodes_sort psi_sort; /* UNSET: site NodesSort, else PROC */
	/* --psi-malleable=MIN-MAX, node counts; max 0: not malleable */
	uint32_t mall_min, mall_max;
	/* What the request says of the plugin that sent it: its format
	 * version (PSIPLACE_REQUEST; 0: none), how many PSIPLACE_* entries it
	 * had (0 with version 0: no psiplace on the submit host), and the
	 * PSIPLACE_* entries this version does not know (ignored): how many,
	 * and the first one's name (quoted, "" none). */
	uint32_t version;
	size_t nentries, nunknown;
	char unknown[64];
};

void psiplace_ctld_request_init(struct psiplace_ctld_request *r);
/* Release what psiplace_ctld_request_from_env_nodes allocated. */
void psiplace_ctld_request_free(struct psiplace_ctld_request *r);

/* Set the policy or the function from one option or variable (`what`
 * names it for the error line).  Each may be called once per request. */
int psiplace_ctld_request_set_policy(struct psiplace_ctld_request *r, const char *value,
			       const char *what, psiplace_error_t *err);
int psiplace_ctld_request_set_priority(struct psiplace_ctld_request *r, const char *value,
				 const char *what, psiplace_error_t *err);

/* --psi-malleable's value: MIN-MAX, decimal digits only, 1 <= MIN <= MAX
 * <= PSIPLACE_MALLEABLE_MAX_NODES and, when limit is not 0, MAX <= limit
 * (a node limit; the SPANK plugin checks the partition's with
 * psiplace_user_request_check_malleable_limit, whose line names the
 * partition).  -1 with one line naming `what`, the value and what is
 * accepted. */
#define PSIPLACE_MALLEABLE_MAX_NODES 1048576
int psiplace_malleable_parse(const char *value, const char *what, uint32_t limit, uint32_t *min,
			     uint32_t *max, psiplace_error_t *err);
/* The same into r (once per request). */
int psiplace_ctld_request_set_malleable(struct psiplace_ctld_request *r, const char *value,
					const char *what, psiplace_error_t *err);

/* After the setters: a function implies PRIORITY; with another explicit
 * policy it is an error naming both. */
int psiplace_ctld_request_finish(struct psiplace_ctld_request *r, const char *policy_what,
			   const char *priority_what, psiplace_error_t *err);

/* Parse a job's spank environment (env[0..n-1], entries may be NULL):
 * PSIPLACE_REQUEST, PSIPLACE_ALLOC_POLICY, PSIPLACE_ALLOC_PRIORITY, PSIPLACE_MALLEABLE and
 * the PSI entries, each at most once; other PSIPLACE_* entries (a newer
 * plugin's) are counted in nunknown and otherwise ignored.  Returns 0 with r filled (fields not present stay at their
 * defaults), or -1 when something psiplace owns is malformed: r is then
 * reset to the defaults and err says what was wrong.  PSI node lists are
 * validated but not kept (psi says whether the job uses PSI node choice):
 * r owns no memory afterwards. */
int psiplace_ctld_request_from_env(const char *const *env, size_t n,
			     struct psiplace_ctld_request *r, psiplace_error_t *err);

/* The same, keeping the PSI node lists (psi_node_ids, psi_hosts) for
 * psiplace_ctld_request_candidates and psiplace_ctld_request_psi_order; release them
 * with psiplace_ctld_request_free(). */
int psiplace_ctld_request_from_env_nodes(const char *const *env, size_t n, struct psiplace_ctld_request *r,
				   psiplace_error_t *err);

/* The entries the SPANK plugin passes to spank_job_control_setenv for the
 * node-choice part of a request: name[i]=value[i], i < *n (at most 4).
 * value[] is malloc'd (free each).  -1 with err when a list does not fit
 * PSIPLACE_JOBENV_MAX_LIST bytes. */
struct psiplace_user_request;
int psiplace_ctld_request_env_of_request(const struct psiplace_user_request *req, const char *name[4],
				   char *value[4], size_t *n, psiplace_error_t *err);

/* How a caller that has a name index finds a node: find(name, arg) gives
 * the node's position in the caller's node array, or -1 when no node has
 * exactly that name.  slurmctld's is find_node_record's hash; without one
 * (finder NULL) the names are sorted once per call. */
struct psiplace_node_finder {
	long (*find)(const char *name, void *arg);
	void *arg;
};

/* The PSI candidate list of a job: indexes into the cluster's nodes
 * (names[0..nnodes-1] in slurm.conf order), duplicates dropped, in PSI list
 * order; *cand is malloc'd.  Node ids beyond the cluster and unknown host
 * names are errors (-1, err names the first one).  A job without a PSI
 * node set gives every node in index order.  Host names are looked up with
 * finder when given (names may then be NULL), else in names[]. */
int psiplace_ctld_request_candidates(const struct psiplace_ctld_request *r, const char *const *names,
				     size_t nnodes, const struct psiplace_node_finder *finder,
				     uint32_t **cand, size_t *ncand, psiplace_error_t *err);

/* What the select plugin does with a job after psiplace_ctld_request_psi_order. */
enum psiplace_psi_next {
	PSIPLACE_PSI_NEXT_NONE = 0, /* no policy, no PSI node choice: cons_tres's order */
	PSIPLACE_PSI_NEXT_DONE,     /* *order is final: candidates sorted by PSI_NODES_SORT */
	PSIPLACE_PSI_NEXT_POLICY,   /* rank with *policy (job's, else cluster's); when *order
				     * is not NULL, only those candidates */
};

/* PSI node choice of one job in one call, with the allocation precedence of
 * Precedence: job policy > job PSI_NODES_SORT > cluster NodeAllocationPolicy
 * > NodesSort (jobs using PSI node choice only; unset: PROC) > cons_tres.
 * nodes[0..nnodes-1] is the cluster in slurm.conf order (name, index,
 * weight, threads, alloc_cpus, loads filled); finder as for
 * psiplace_ctld_request_candidates.  *order (malloc'd) holds
 * indexes into nodes[]: the job's candidates, in PSI list order or sorted;
 * NULL when the job has no PSI node set and no sort was applied.  Returns
 * 0 with *next saying what to do, or -1 with err (an unusable node set,
 * out of memory; *order NULL): the caller logs it with the job id. */
int psiplace_ctld_request_psi_order(const struct psiplace_ctld_request *r,
				    const struct psiplace_siteconf *site,
				    const struct psiplace_node *nodes, size_t nnodes,
				    const struct psiplace_node_finder *finder, uint32_t **order,
				    size_t *norder, enum psiplace_policy *policy,
				    enum psiplace_psi_next *next, psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
