/* psiplace — ParaStation's PSI_* values: parsers and node sort ratings.
 *
 * Each parser takes `what`, the variable or option the value came from,
 * for its one-line error ("PSI_NODES: 'x' is not ...; accepted: ...").
 * Precedence between the variables lives in request.h. */
#ifndef PSIPLACE_PSI_VALUES_H
#define PSIPLACE_PSI_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/hostnames.h"
#include "psiplace/policy.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_PSI_NODES_MAX 65536     /* node ids in one PSI_NODES */
#define PSIPLACE_PSI_NODE_ID_MAX 0x7fffffffUL
#define PSIPLACE_PSI_TPP_MAX 4096        /* CPU slots per task */
#define PSIPLACE_CPUMAP_MAX 65536        /* entries of a cpumap */
#define PSIPLACE_CPUMAP_CPU_MAX 65535    /* largest slot target */
#define PSIPLACE_HOSTFILE_MAX (1 << 20)  /* bytes of a hostfile */
#define PSIPLACE_PSI_VALUE_MAX 65536     /* bytes of any PSI value */

enum psiplace_nodes_sort {
	PSIPLACE_SORT_UNSET = 0, /* not given: the site's NodesSort, else PROC */
	PSIPLACE_SORT_PROC,
	PSIPLACE_SORT_LOAD1,
	PSIPLACE_SORT_LOAD5,
	PSIPLACE_SORT_LOAD15,
	PSIPLACE_SORT_PROC_LOAD,
	PSIPLACE_SORT_NONE,
};

/* PSI_NODES: comma list of N or A-B (decimal, or hex with 0x), blanks
 * around items allowed.  *ids is malloc'd, in the given order, repeats
 * kept. */
int psiplace_psi_nodes_parse(const char *s, const char *what, uint32_t **ids, size_t *n,
			     psiplace_error_t *err);

/* PSI_HOSTS: names separated by blanks and/or commas, each may be a Slurm
 * hostlist expression.  Names are appended to hl. */
int psiplace_psi_hosts_parse(const char *s, const char *what, struct psiplace_names *hl,
			     psiplace_error_t *err);

/* PSI_HOSTFILE content: one host (or hostlist expression) per line, '#'
 * starts a comment, blank lines ignored; a host listed k times gives k
 * entries (slots).  `what` names the file for messages. */
int psiplace_psi_hostfile_parse(const char *text, size_t len, const char *what,
				struct psiplace_names *hl, psiplace_error_t *err);

/* Read and parse a hostfile with the caller's credentials (the SPANK
 * plugin calls it only in srun/sbatch/salloc, as the submitting user).
 * Only regular files up to PSIPLACE_HOSTFILE_MAX bytes. */
int psiplace_psi_hostfile_read(const char *path, const char *what, struct psiplace_names *hl,
			       psiplace_error_t *err);

/* PSI_NODES_SORT: PROC, LOAD (=LOAD1=LOAD_1), LOAD_5 (=LOAD5), LOAD_15
 * (=LOAD15), PROC+LOAD, NONE; case-insensitive. */
int psiplace_nodes_sort_parse(const char *s, const char *what, enum psiplace_nodes_sort *out,
			      psiplace_error_t *err);
const char *psiplace_nodes_sort_name(enum psiplace_nodes_sort m);

/* PSI_TPP / --psi-tpp: a positive decimal integer up to PSIPLACE_PSI_TPP_MAX. */
int psiplace_tpp_parse(const char *s, const char *what, unsigned *tpp, psiplace_error_t *err);

/* OMP_NUM_THREADS, OpenMP's variable: 0 when the value is a positive
 * integer up to PSIPLACE_PSI_TPP_MAX (*tpp = it); otherwise -1 with
 * *tpp = 1 and err saying so; callers show that as a warning, since the
 * variable is OpenMP's and never stops a job. */
int psiplace_omp_threads_tpp(const char *s, unsigned *tpp, psiplace_error_t *err);

/* __PSI_CPUMAP / --psi-cpumap: comma list of N or A-B, descending ranges
 * allowed ("3-0" = 3,2,1,0).  map[slot] = OS CPU index. */
int psiplace_cpumap_parse(const char *s, const char *what, unsigned **map, size_t *n,
			  psiplace_error_t *err);

/* Format ids as a compact comma list of N and A-B (ascending runs merged,
 * order kept).  Returns the length or -1 when buf is too small. */
long psiplace_idlist_format(const uint32_t *ids, size_t n, char *buf, size_t buflen);

/* The same for a list shown to people: when it does not fit, the items
 * that do and ",..." (a shown prefix), and -1. */
long psiplace_idlist_format_cut(const uint32_t *ids, size_t n, char *buf, size_t buflen);

/* The same for a CPU map (psiplace_cpumap_parse's inverse): runs that
 * descend by one are written A-B with A > B too. */
long psiplace_cpumap_format(const unsigned *map, size_t n, char *buf, size_t buflen);

/* Order candidate nodes by PSI_NODES_SORT: ascending rating per
 * hardware thread — PROC alloc_cpus, LOAD_x load_x, PROC+LOAD
 * alloc_cpus + load1 — then more hardware threads first, then node index;
 * NONE keeps the given order.  The site weight stays the major key unless
 * policy_overrides_weight.  order[0..n-1] holds indexes into nodes[] (the
 * candidates in PSI list order) and is sorted in place.  0, or -1 out of
 * memory (order untouched). */
int psiplace_psi_sort(enum psiplace_nodes_sort mode, bool policy_overrides_weight,
		      const struct psiplace_node *nodes, uint32_t *order, size_t n,
		      psiplace_error_t *err);

/* Rating of one node under a sort mode (0 for NONE). */
double psiplace_psi_rating(enum psiplace_nodes_sort mode, const struct psiplace_node *node);

#ifdef __cplusplus
}
#endif
#endif
