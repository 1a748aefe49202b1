/* psiplace — node allocation policies (Moab/Maui NODEALLOCATIONPOLICY).
 *
 * The engine rates every candidate node in one pass, orders them with one
 * total-order comparator (a partial selection when only the best k are
 * wanted) and the caller takes from the front; MAXBALANCE and CONTIGUOUS
 * choose a set instead.  The site's
 * weight tier (Slurm's node Weight) stays the major key unless the caller
 * asks the policy to override it. */
#ifndef PSIPLACE_POLICY_H
#define PSIPLACE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum psiplace_policy {
	PSIPLACE_POLICY_NONE = 0, /* not set: cons_tres's own order */
	PSIPLACE_POLICY_FIRSTAVAILABLE,
	PSIPLACE_POLICY_LASTAVAILABLE,
	PSIPLACE_POLICY_CPULOAD,
	PSIPLACE_POLICY_MINRESOURCE,
	PSIPLACE_POLICY_MAXBALANCE,
	PSIPLACE_POLICY_FASTEST,
	PSIPLACE_POLICY_CONTIGUOUS,
	PSIPLACE_POLICY_PRIORITY,
	PSIPLACE_POLICY_COUNT
};

/* Parse a policy name: the canonical names and Moab's long aliases,
 * case-insensitive, surrounding blanks not allowed.  `what` names the
 * option or key for the error line ("--psi-alloc-policy"). */
int psiplace_policy_parse(const char *s, const char *what,
			  enum psiplace_policy *out, psiplace_error_t *err);

/* Canonical upper-case name; "NONE" for PSIPLACE_POLICY_NONE. */
const char *psiplace_policy_name(enum psiplace_policy p);

/* The accepted values as one human-readable line (for error messages). */
const char *psiplace_policy_accepted(void);

/* True when p is one of the enum's values, NONE included (callers pass
 * what they decoded; the engine refuses anything else). */
bool psiplace_policy_valid(enum psiplace_policy p);

/* True for the policies that choose a set rather than an order
 * (MAXBALANCE, CONTIGUOUS): callers restrict the candidates to
 * psiplace_choose()'s set instead of only ordering them. */
bool psiplace_policy_is_set(enum psiplace_policy p);

/* The groups of node fields a policy reads (struct psiplace_node), so a
 * caller that fills nodes from a costly source (slurmctld's records) fills
 * only those.  The allocated CPUs and memory decide eligibility and are
 * read by every policy. */
enum psiplace_node_fields {
	PSIPLACE_FIELDS_ALLOC = 1 << 0,  /* alloc_cpus, alloc_memory */
	PSIPLACE_FIELDS_STATIC = 1 << 1, /* real_memory, tmp_disk, features, arch, os */
	PSIPLACE_FIELDS_CONF = 1 << 2,   /* psiplace.conf: speed, priority, cost, priorityf */
	PSIPLACE_FIELDS_LOAD = 1 << 3,   /* load*, jobs, suspended_jobs, metrics file */
	PSIPLACE_FIELDS_ALL = 0xf,
};
unsigned psiplace_policy_fields(enum psiplace_policy p);

struct psiplace_priorityf;

/* A generic metric of a node (metrics file gmetric.NAME=value). */
struct psiplace_gmetric {
	const char *name;
	double value;
};

/* A node's power-saving state as slurmctld keeps it (flags POWERED_DOWN,
 * POWERING_UP).  The engine ranks by `power` alone; the state only says
 * which "boot required" bits slurmctld put in the node's sched_weight
 * (psiplace_select_boot_bits). */
enum psiplace_power_state {
	PSIPLACE_POWER_UP = 0,
	PSIPLACE_POWERING_UP,  /* being resumed: counts as up */
	PSIPLACE_POWERED_DOWN, /* asleep: `power` is false unless a job holds it */
};

/* What the engine knows about one candidate node.  Index is the node's
 * 0-based position in slurm.conf (the tie-break key).  All pointers are
 * borrowed; zeroed optional fields mean "unknown/none". */
struct psiplace_node {
	const char *name;
	uint32_t index;
	uint64_t weight; /* site weight tier; lower is preferred */
	uint32_t cpus, alloc_cpus, threads;
	double load1, load5, load15;
	uint64_t real_memory, alloc_memory, tmp_disk; /* MB */
	double speed, priority, cost, usage, mtbf;
	uint32_t jobs, suspended_jobs;
	int64_t next_resv; /* seconds until the next reservation; <0: none */
	bool power;
	enum psiplace_power_state power_state;
	const char *features;  /* active features, comma-separated; NULL: none */
	const char *arch, *os; /* NULL: unknown */
	const struct psiplace_gmetric *gmetrics;
	size_t ngmetrics;
	double para_procs;   /* available processors of the job's partition */
	double rsv_affinity; /* +1 node in the job's reservation, 0 otherwise */
	const struct psiplace_priorityf *priorityf; /* node's own (psiplace.conf) */
};

/* The job being placed.  Zero fields mean "not constrained". */
struct psiplace_job {
	uint32_t nodes;    /* nodes wanted (K); 0: not given */
	uint32_t cpus;     /* free CPUs needed per node */
	uint64_t mem;      /* free memory needed per node, MB */
	int64_t duration;  /* seconds; <=0: unknown */
	int64_t start;     /* seconds from now of the earliest start known; 0: now */
	bool future;       /* planning a start that is not now (will-run, backfill):
			    * today's load says nothing then; also when start > 0 */
	uint64_t seed;     /* RANDOM's seed */
	const struct psiplace_priorityf *priorityf; /* the job's own function */
};

struct psiplace_rank_opts {
	enum psiplace_policy policy;
	bool policy_overrides_weight; /* PolicyOverridesWeight=yes */
	const struct psiplace_job *job; /* NULL: no job constraints */
	const struct psiplace_priorityf *cluster_priorityf; /* PriorityFunction= */
	/* PreferPoweredUp=no: a powered-down node is eligible and ranked by
	 * the policy with the others (node->power still feeds PRIORITYF's
	 * POWER term); by default powered-down nodes follow every eligible
	 * powered-up one */
	bool ignore_power;
};

/* Eligible for the job: powered, a free CPU, and the job's
 * per-node cpus and mem free. */
bool psiplace_node_eligible(const struct psiplace_node *node,
			    const struct psiplace_job *job);

/* As psiplace_node_eligible(), the power state only when the options
 * prefer powered-up nodes (opts->ignore_power false). */
bool psiplace_node_eligible_opts(const struct psiplace_rank_opts *opts,
				 const struct psiplace_node *node);

/* Order n nodes for a policy: order[0..n-1] receives indexes into
 * nodes[] (not node->index), best first.  With opts->job, eligible nodes
 * (psiplace_node_eligible) come first and the rest follow in index order;
 * without a job every node is a candidate (the caller has filtered).  Set
 * policies put their chosen set first (job->nodes, default 1), then the
 * other candidates by index.  Returns 0, or -1 with err filled. */
int psiplace_rank(const struct psiplace_rank_opts *opts,
		  const struct psiplace_node *nodes, size_t n, uint32_t *order,
		  psiplace_error_t *err);

/* As psiplace_rank(), but only order[0..k-1] (the best k candidates) is
 * ordered exactly; the other candidates follow in unspecified order, then
 * the non-candidates by index.  O(n + k log k): for the select plugin,
 * which gives distinct weights only to the first nodes and one tier to
 * the rest. */
int psiplace_rank_partial(const struct psiplace_rank_opts *opts,
			  const struct psiplace_node *nodes, size_t n, size_t k,
			  uint32_t *order, psiplace_error_t *err);

/* Choose the best k candidates (as psiplace_rank): out[0..k-1] receives indexes into
 * nodes[] in allocation order (set policies: ascending node index).  Sort
 * policies select partially (cost O(n + k log k)).  Returns k, or -1 with
 * err filled when fewer than k nodes (for CONTIGUOUS: no run of k) can be
 * chosen. */
int psiplace_choose(const struct psiplace_rank_opts *opts,
		    const struct psiplace_node *nodes, size_t n, size_t k,
		    uint32_t *out, psiplace_error_t *err);

/* A columnar copy of a node table (one array per field), for deciding
 * repeatedly or over many nodes: built once per node-table change for a
 * policy and function (opts), it holds the fields they read.  nodes[] is
 * borrowed and must outlive it (string fields, other policies). */
struct psiplace_nodecols;

int psiplace_nodecols_build(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n,
			    struct psiplace_nodecols **out, psiplace_error_t *err);
void psiplace_nodecols_free(struct psiplace_nodecols *c);

/* psiplace_choose() and psiplace_rank_partial() over the columns: the same
 * result; FIRSTAVAILABLE, FASTEST, CPULOAD (a start now) and PRIORITY with one
 * function for all nodes stream the columns and select the best k, the
 * other policies rank the node records. */
int psiplace_choose_cols(const struct psiplace_rank_opts *opts,
			 const struct psiplace_nodecols *c, size_t k, uint32_t *out,
			 psiplace_error_t *err);
int psiplace_rank_partial_cols(const struct psiplace_rank_opts *opts,
			       const struct psiplace_nodecols *c, size_t k,
			       uint32_t *order, psiplace_error_t *err);

/* The node's score under the policy as text (for --explain): the value
 * the policy orders by; see doc/policies.md.  Returns snprintf's count. */
int psiplace_node_score(const struct psiplace_rank_opts *opts,
			const struct psiplace_node *node, char *buf, size_t len);

/* What select/psiplace_cons_tres writes for cons_tres.  slurmctld's
 * sched_weight is Weight<<8 | a low byte (cons_tres: co-located GPUs) with
 * reboot/flex flags in bits 40-41; the plugin re-encodes it,
 * order-preserving:
 *   bits 62-63 flags | bits 30-61 Weight | bits 8-29 policy rank | low byte
 * (Weight zero with PolicyOverridesWeight=yes).  Only the first
 * psiplace_select_distinct() nodes of the order get distinct ranks; the
 * rest share the rank behind them (distinct weights on every node make
 * cons_tres's weight lists quadratic). */
#define PSIPLACE_SELECT_RANK_BITS 22
#define PSIPLACE_SELECT_RANK_MAX ((1u << PSIPLACE_SELECT_RANK_BITS) - 1)
#define PSIPLACE_SELECT_MIN_DISTINCT 16 /* distinct ranks beyond the nodes needed (default) */
#define PSIPLACE_SELECT_TIER_MAX 1000000 /* RankedTier's largest value */

/* Nodes with distinct ranks for a job needing `need` nodes out of
 * `candidates`, `margin` (RankedTier) beyond the need.  They are also the
 * ranked tier the select plugin offers cons_tres first. */
uint32_t psiplace_select_distinct(uint32_t need, uint32_t margin, uint32_t candidates);

/* The sched_weight for a node of slurmctld weight `orig` at `rank`. */
uint64_t psiplace_select_sched_weight(uint64_t orig, uint32_t rank, bool overrides);

/* Slurm releases as SLURM_VERSION_NUMBER gives them (0xMMmmuu). */
#define PSIPLACE_SLURM_VERSION_NUM(major, minor) (((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8))

/* The "boot required" bits slurmctld's _set_sched_weight() (node_scheduler.c)
 * sets for a node in state `st` on release `slurm_version`: up to 24.11
 * bit 41 for a powered-down node; from 25.05 bits 40 and 41 for a
 * powered-down node and bit 41 alone for one being resumed. */
uint64_t psiplace_select_boot_bits(enum psiplace_power_state st, uint32_t slurm_version);

/* slurmctld's sched_weight, before the plugin, of a node of Weight `weight`
 * (no FLEX reservation, cons_tres's low byte 0xff): Weight<<8 | 0xff | boot
 * bits; up to 22.05 a powered-down node carries the reboot weight
 * (INFINITE - 1) in place of its Weight. */
uint64_t psiplace_select_ctld_weight(uint32_t weight, enum psiplace_power_state st,
				     uint32_t slurm_version);

/* Does the plugin give the node its own Weight back and clear its boot
 * bits?  A powered-down node with PreferPoweredUp=no, or one a job already
 * holds (`powered`: its resume is on its way); from 25.05 a node being
 * resumed, which counts as up. */
bool psiplace_select_boot_dropped(enum psiplace_power_state st, bool powered,
				  bool prefer_powered_up, uint32_t slurm_version);

/* `orig` with the boot bits of `st` cleared and `weight` in place of the
 * weight slurmctld used (what the plugin ranks a dropped node with). */
uint64_t psiplace_select_drop_boot(uint64_t orig, uint32_t weight, enum psiplace_power_state st,
				   uint32_t slurm_version);

#ifdef __cplusplus
}
#endif
#endif
