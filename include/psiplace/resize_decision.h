/* psiplace — the resource manager's resize decision for malleable jobs
 * (issue 31, item 2; doc/malleability.md, "The resource manager's
 * decision").
 *
 * One pure function: from a snapshot of the cluster (nodes, running jobs
 * with their malleable ranges, the pending queue in priority order with
 * backfill's planned starts) and the site's parameters it says, for every
 * malleable running job, SHRINK k nodes (naming them), GROW k nodes
 * (naming them) or NOTHING (with the reason).  It reads no clock, keeps no
 * state and calls nothing outside the library: the daemon that will feed
 * it from slurmctld and the simulator call the same code.  The result is
 * deterministic: equal inputs give equal decisions, ties broken as
 * documented below and in the doc.
 *
 * Prefix psiplace_rdec_ ("resize decision").
 *
 * The rules, in the order they are applied:
 *  1. A job is malleable when its range has max >= 1; min == max is a
 *     range that cannot move (NOTHING, "fixed").  A job whose resize is in
 *     progress, or whose last resize is less than min_interval seconds
 *     ago, is left alone (NOTHING, "in progress" / "too soon").
 *  2. Shrink (when allow_shrink): only for the first pending job (the
 *     highest priority), only when it cannot start on the idle nodes of
 *     its partition, and only when the malleable jobs together can give it
 *     the whole deficit now (no partial shrink that would start nothing).
 *     A donor gives nodes of the pending job's partition, never its first
 *     node (the batch host), never so many that it falls below min.  The
 *     deficit's nodes are the ones the pending job's own node allocation
 *     policy ranks first among every donor's releasable nodes (rated as
 *     they will be once released: no CPU allocated), taken in that order
 *     while their donor still may give; so who gives first is the donor
 *     whose nodes the pending job's policy prefers (ties: node index).
 *  3. Grow: malleable jobs in priority order (higher `priority` first,
 *     then lower id) each take, up to max and max_grow nodes, idle
 *     powered-up usable nodes of their partition that no pending job may
 *     need before the growing job's end:
 *       a. a node in a pending job's planned node set whose planned start
 *          is before the growing job's end is protected;
 *       b. a pending job whose planned start is unknown, or known before
 *          the growing job's end but without a planned node set, reserves
 *          `nodes` of the still-unprotected idle nodes of its partition,
 *          the ones its own policy ranks first (pending jobs in queue
 *          order);
 *       c. nodes the shrink of rule 2 gives the first pending job, and
 *          nodes granted to an earlier grow of this call, are taken.
 *       d. a node held for a pending job (the state's holds: a shrink
 *          released it for that job, which has not started yet) is
 *          granted to no grow, and reserved for that job in b.
 *     The nodes granted are the ones the growing job's policy ranks first
 *     among the rest.  Since a grow's helper job ends with the growing
 *     job (Slurm cuts its time limit to the job's remainder), a node free
 *     of every planned start before that end delays no planned start.
 *
 * Whole nodes only: a node is idle when no CPU of it is allocated and no
 * running job lists it.  Drained, down or otherwise unusable nodes
 * (usable false) and powered-down or resuming nodes are never granted;
 * idle powered-down nodes count for a pending job (Slurm resumes them for
 * it), so no job is shrunk where booting a node would do.
 *
 * Holds: right after a shrink for pending job E the released nodes are
 * idle, but E starts only at the scheduler's next pass, and backfill's
 * plan for E may still be the old one (start at the shrunk job's end, on
 * its old nodes), which protects nothing from a grow (3a).  The caller
 * (the daemon, which saw the shrink acknowledged) passes such nodes as
 * held for E: rule 3 grants them to no job, and since they are idle they
 * still count for E in rule 2 (no second shrink for it).  A hold whose
 * job is not in pending[] (it started, ended, or waits for something
 * else than nodes and was left out) is ignored, so a stale hold cannot
 * block a grow; a node held for two jobs is held for the first. */
#ifndef PSIPLACE_RESIZE_DECISION_H
#define PSIPLACE_RESIZE_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A time Slurm does not know (a pending job backfill has not planned). */
#define PSIPLACE_RDEC_UNKNOWN INT64_MIN
/* A running job without a time limit ends at this time. */
#define PSIPLACE_RDEC_NEVER INT64_MAX

/* One node of the cluster.  node is what the policy engine rates (name,
 * index — the tie-break key —, cpus, alloc_cpus, power_state and the
 * fields the jobs' policies read); nodes[] positions are what the jobs'
 * node lists and the decisions name. */
struct psiplace_rdec_node {
	struct psiplace_node node;
	bool usable;            /* false: drained, down, failing: never granted or counted */
	const char *partitions; /* comma-separated partition names; NULL: every partition */
};

/* A job's node allocation policy, as select/psiplace_cons_tres applies
 * it: the job's own (--psi-alloc-policy, --psi-alloc-priority) wins over
 * its partition's PartitionName line of psiplace.conf, which wins over
 * the cluster's (the plugstack line); when all are NONE, node index
 * order.  PRIORITY's function: the job's own, else each node's own
 * (psiplace.conf), else the partition line's, else the cluster's. */
struct psiplace_rdec_policy {
	enum psiplace_policy policy;                /* NONE: the partition's, else the cluster's */
	const struct psiplace_priorityf *priorityf; /* the job's own function; NULL: none */
};

/* One PartitionName line of psiplace.conf. */
struct psiplace_rdec_partpolicy {
	const char *name;                           /* the partition, exactly as Slurm names it */
	bool has_policy;                            /* NodeAllocationPolicy= given: policy applies
						     * (NONE too: node index order, as cons_tres's) */
	enum psiplace_policy policy;
	const struct psiplace_priorityf *priorityf; /* its PriorityFunction; NULL: none */
};

struct psiplace_rdec_running {
	uint32_t id;
	uint32_t priority;       /* grow order: higher first (then lower id) */
	const uint32_t *nodes;   /* positions in the state's nodes[]; nodes[0] is the batch host */
	size_t nnodes;           /* >= 1 */
	uint32_t min, max;       /* --psi-malleable=MIN-MAX; max 0: not malleable */
	const char *partition;
	int64_t end;             /* start + time limit (seconds); PSIPLACE_RDEC_NEVER: none */
	int64_t last_resize;     /* when it was last resized; <= 0: never */
	bool in_progress;        /* a decision for it is not acknowledged yet */
	struct psiplace_rdec_policy policy;
};

struct psiplace_rdec_pending {
	uint32_t id;
	uint32_t nodes;          /* nodes it asks for (>= 1) */
	int64_t time_limit;      /* seconds; carried for the simulator, no rule reads it yet */
	int64_t planned_start;   /* backfill's StartTime; PSIPLACE_RDEC_UNKNOWN: none */
	const uint32_t *planned; /* backfill's SchedNodeList as positions; NULL: none */
	size_t nplanned;
	const char *partition;
	struct psiplace_rdec_policy policy;
};

/* Nodes a shrink released for pending job `job` (rule 3d). */
struct psiplace_rdec_hold {
	uint32_t job;
	const uint32_t *nodes;   /* positions in the state's nodes[] */
	size_t nnodes;
};

/* The snapshot a decision is made on.  pending[] is in priority order,
 * highest first. */
struct psiplace_rdec_state {
	int64_t now;
	const struct psiplace_rdec_node *nodes;
	size_t nnodes;
	const struct psiplace_rdec_running *running; /* every running job, malleable or not */
	size_t nrunning;
	const struct psiplace_rdec_pending *pending;
	size_t npending;
	const struct psiplace_rdec_hold *holds; /* NULL: none */
	size_t nholds;
};

/* The site's parameters (psiplace.conf; psiplace/psiplace_conf.h). */
struct psiplace_rdec_params {
	int64_t min_interval;  /* seconds between two resizes of one job (>= 0) */
	uint32_t max_grow;     /* nodes one grow may add; 0: up to the job's max */
	bool allow_shrink;
	/* the plugstack line's NodeAllocationPolicy and PriorityFunction */
	struct psiplace_rdec_policy cluster_policy;
	/* psiplace.conf's PartitionName lines (a job names one partition; a
	 * job with several, "a,b", gets none of them); NULL: none */
	const struct psiplace_rdec_partpolicy *parts;
	size_t nparts;
	bool policy_overrides_weight; /* PolicyOverridesWeight=yes */
};

#define PSIPLACE_RDEC_MIN_INTERVAL_DEFAULT 60
#define PSIPLACE_RDEC_MAX_GROW_DEFAULT 0
#define PSIPLACE_RDEC_ALLOW_SHRINK_DEFAULT true

void psiplace_rdec_params_init(struct psiplace_rdec_params *p);

enum psiplace_rdec_action { PSIPLACE_RDEC_NOTHING = 0, PSIPLACE_RDEC_SHRINK, PSIPLACE_RDEC_GROW };

enum psiplace_rdec_why {
	PSIPLACE_RDEC_WHY_NONE = 0,     /* SHRINK or GROW */
	PSIPLACE_RDEC_WHY_FIXED,        /* min == max */
	PSIPLACE_RDEC_WHY_IN_PROGRESS,
	PSIPLACE_RDEC_WHY_TOO_SOON,     /* within min_interval of its last resize */
	PSIPLACE_RDEC_WHY_AT_MAX,       /* holds max nodes, and no shrink was due */
	PSIPLACE_RDEC_WHY_NO_NODES,     /* no idle node may be granted to it */
};

struct psiplace_rdec_decision {
	uint32_t job;                   /* the running job's id */
	enum psiplace_rdec_action action;
	enum psiplace_rdec_why why;
	uint32_t k;                     /* nodes released or granted */
	uint32_t *nodes;                /* k positions in nodes[], ascending; NULL for NOTHING */
	uint32_t for_job;               /* SHRINK: the pending job it makes room for */
	uint64_t id;                    /* SHRINK, GROW: the decision's id; NOTHING: 0 */
};

struct psiplace_rdec_result {
	struct psiplace_rdec_decision *d; /* one per malleable running job, ascending job id */
	size_t n;
};

void psiplace_rdec_result_init(struct psiplace_rdec_result *r);
void psiplace_rdec_result_free(struct psiplace_rdec_result *r);

/* Decide.  SHRINK and GROW decisions are numbered first_id, first_id+1, ...
 * in the result's order (the caller keeps the counter, so an id is never
 * given twice).  -1 with err on an inconsistent state (a node position out
 * of range, a node held by two running jobs, a running job without nodes,
 * min > max, a pending job asking for no node, an unknown policy, a
 * partition line without a name, a hold naming no node) or out
 * of memory; out is then empty. */
int psiplace_rdec_decide(const struct psiplace_rdec_state *s, const struct psiplace_rdec_params *p,
			 uint64_t first_id, struct psiplace_rdec_result *out, psiplace_error_t *err);

/* One decision as a line, node names comma-separated:
 *   "job 12: shrink 2 (n3,n4) for job 20, decision 7"
 *   "job 12: grow 1 (n5), decision 8"
 *   "job 12: nothing (too soon)"
 * Returns the length, or -1 when buf (len bytes) is too short. */
long psiplace_rdec_format(const struct psiplace_rdec_state *s, const struct psiplace_rdec_decision *d,
			  char *buf, size_t len);

/* The word of a reason ("fixed", "in progress", "too soon", "at max",
 * "no free node"); "" for WHY_NONE. */
const char *psiplace_rdec_why_name(enum psiplace_rdec_why w);

#ifdef __cplusplus
}
#endif
#endif
