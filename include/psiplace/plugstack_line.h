/* psiplace — the site configuration carried on the psiplace line of
 * plugstack.conf.  One line configures both plugins: the SPANK plugin
 * receives it as argc/argv, select/psiplace_cons_tres finds the line
 * itself through slurm.conf's PlugStackConfig. */
#ifndef PSIPLACE_PLUGSTACK_LINE_H
#define PSIPLACE_PLUGSTACK_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/policy.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_SITECONF_MAXARG 1024 /* bytes of one argument value */

enum psiplace_placement { PSIPLACE_PLACEMENT_SLURM = 0, PSIPLACE_PLACEMENT_PSI };

struct psiplace_siteconf {
	enum psiplace_policy policy;     /* NodeAllocationPolicy */
	char *priority_function;         /* PriorityFunction (owned) */
	char *nodes_sort;                /* NodesSort as given (owned; validated by the PSI parser) */
	enum psiplace_placement placement; /* DefaultPlacement */
	bool psi_strict;                 /* PsiStrict */
	bool policy_overrides_weight;    /* PolicyOverridesWeight */
	bool allow_user_cpumap;          /* AllowUserCpumap */
	bool pset_query;                 /* PsetQuery (default yes): answer PMIx pset queries */
	uint32_t ranked_tier;            /* RankedTier: distinct ranks beyond the nodes a job
					  * needs (default PSIPLACE_SELECT_MIN_DISTINCT) */
	char *topology_file;             /* TopologyFile (owned) */
	bool prefer_powered_up;          /* PreferPoweredUp (default yes): powered-up nodes
					  * before powered-down ones in every policy */
	bool verbose;                    /* Verbose */
};

/* Defaults: no policy, slurm placement, PsetQuery=yes, RankedTier=16,
 * PreferPoweredUp=yes, every other flag off. */
void psiplace_siteconf_init(struct psiplace_siteconf *c);
void psiplace_siteconf_free(struct psiplace_siteconf *c);

/* Parse the psiplace line's arguments (as SPANK passes them: the line split
 * at blanks, so a quoted value with blanks arrives in pieces and is joined
 * again here).  On error c is left as it was and err names the argument,
 * the value and what is accepted. */
int psiplace_siteconf_parse(int argc, char *const argv[],
			    struct psiplace_siteconf *c, psiplace_error_t *err);

/* Locate the psiplace line in a plugstack.conf text: the first
 * required/optional line whose plugin file name is psiplace.so.  Returns
 * 0, with *argv (malloc'd vector of malloc'd strings, NULL-terminated),
 * *argc and *lineno filled when the line is there and *argv NULL when it
 * is not; -1 on a malformed file (err).  include lines are handed to the
 * callback so that the caller, which does the file I/O, can recurse: it
 * returns 0 or -1 and sets *found when the line was in the included
 * file, which ends the scan. */
typedef int (*psiplace_include_cb)(const char *pattern, int lineno, void *arg, bool *found);
int psiplace_plugstack_scan(const char *text, size_t len,
			    psiplace_include_cb on_include, void *arg,
			    int *argc, char ***argv, int *lineno, psiplace_error_t *err);

/* Read plugstack.conf at path (following include lines, relative to the
 * including file's directory, glob patterns allowed, depth-bounded) and
 * parse the psiplace line into c.  Returns 0 (a file without the line
 * leaves c at its defaults), or -1 with err as "FILE:LINE: message". */
int psiplace_siteconf_read_plugstack(const char *path,
				     struct psiplace_siteconf *c, psiplace_error_t *err);

void psiplace_argv_free(char **argv);

/* TopologyFile for one node: every "%n" of pattern replaced by node's
 * name, into buf.  A name that would leave the pattern's directory (one
 * holding '/', ".", "..", empty or missing) is refused when the pattern
 * has %n, as is a path longer than len: -1 with one line in err. */
int psiplace_topology_path(const char *pattern, const char *node, char *buf, size_t len,
			   psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
