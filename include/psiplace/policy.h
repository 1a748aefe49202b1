/* psiplace — node allocation policies (Moab/Maui NODEALLOCATIONPOLICY).
 *
 * The engine rates every candidate node in one pass, sorts them with one
 * total-order comparator and the caller takes from the front.  The site's
 * weight tier (Slurm's node Weight) stays the major key unless the caller
 * asks the policy to override it. */
#ifndef PSIPLACE_POLICY_H
#define PSIPLACE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
			  enum psiplace_policy *out, char *err, size_t errlen);

/* Canonical upper-case name; "NONE" for PSIPLACE_POLICY_NONE. */
const char *psiplace_policy_name(enum psiplace_policy p);

/* The accepted values as one human-readable line (for error messages). */
const char *psiplace_policy_accepted(void);

/* True when select/psiplace_cons_tres can apply the policy today. */
bool psiplace_policy_supported(enum psiplace_policy p);

/* What the engine knows about one candidate node.  Index is the node's
 * 0-based position in slurm.conf (the tie-break key). */
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
};

struct psiplace_rank_opts {
	enum psiplace_policy policy;
	bool policy_overrides_weight; /* PolicyOverridesWeight=yes */
};

/* Order n nodes for a policy: order[0..n-1] receives indexes into
 * nodes[] (not node->index), best first.  Returns 0, or -1 with err
 * filled for an unsupported policy. */
int psiplace_rank(const struct psiplace_rank_opts *opts,
		  const struct psiplace_node *nodes, size_t n, uint32_t *order,
		  char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
