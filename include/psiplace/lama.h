/* psiplace — LAMA (Open MPI's Location Aware Mapping Algorithm) mapping,
 * binding, MPPR and rank ordering over psiplace topologies.
 *
 * Three steps, as in the LAMA changeset:
 *  - options: expert strings (map, bind, MPPR, order) or simple levels
 *    (--psi-map-by, --psi-bind-to), gathered from options and OMPI_MCA_*
 *    variables into struct psiplace_lama_opts, then checked as a whole;
 *  - mapping: nested loops over the map letters, the leftmost innermost,
 *    each task paired with a hardware thread and bound to K consecutive
 *    objects of the binding level, within the MPPR limits;
 *  - ordering: ranks in mapping order (natural) or hardware order
 *    (sequential).
 * Semantics and the fixes over Open MPI 1.8: doc/lama.md. */
#ifndef PSIPLACE_LAMA_H
#define PSIPLACE_LAMA_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>

#include "psiplace/topo.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_LAMA_DEFAULT_MAP "cL1L2L3sNbnh"
#define PSIPLACE_LAMA_DEFAULT_BIND "1c"
/* Longest accepted string of each kind (longer input is an error). */
#define PSIPLACE_LAMA_MAXSTR 256
/* Largest binding width and MPPR limit. */
#define PSIPLACE_LAMA_MAXWIDTH 999
#define PSIPLACE_LAMA_MAXLIMIT 1000000000u

/* Where a setting came from: options win over variables. */
enum psiplace_lama_src {
	PSIPLACE_LAMA_SRC_DEFAULT = 0,
	PSIPLACE_LAMA_SRC_VAR,    /* OMPI_MCA_rmaps_lama_* */
	PSIPLACE_LAMA_SRC_OPTION, /* --psi-* */
};

struct psiplace_lama_mppr {
	unsigned limit;
	enum psiplace_level level;
};

struct psiplace_lama_opts {
	/* Map: levels leftmost (innermost loop) first. */
	enum psiplace_level map[PSIPLACE_LEVEL_COUNT];
	unsigned map_len;
	char map_str[PSIPLACE_LAMA_MAXSTR + 1];
	enum psiplace_lama_src map_src;
	int map_simple; /* came from --psi-map-by (or the default) */
	/* Bind: width 0 = no binding (--psi-bind-to none). */
	unsigned bind_width;
	enum psiplace_level bind_level;
	enum psiplace_lama_src bind_src;
	/* MPPR, in the order given; nmppr 0 = none. */
	struct psiplace_lama_mppr mppr[PSIPLACE_LEVEL_COUNT];
	unsigned nmppr;
	enum psiplace_lama_src mppr_src;
	int sequential; /* 0 natural, 1 sequential */
	enum psiplace_lama_src order_src;
	int oversubscribe;
	/* Names that set map and bind, for messages ("--psi-map-by"...). */
	const char *map_from;
	const char *bind_from;
	int requested; /* any LAMA option or variable was applied */
};

/* Defaults: map cL1L2L3sNbnh, bind 1c, no MPPR, natural order. */
void psiplace_lama_opts_init(struct psiplace_lama_opts *o);

/* Apply one option or variable by name: --psi-lama-map, --psi-lama-bind,
 * --psi-lama-mppr, --psi-lama-order, --psi-map-by, --psi-bind-to,
 * --psi-oversubscribe (value ignored, may be NULL) and
 * OMPI_MCA_rmaps_lama_{map,bind,mppr,ordering}.  A variable never
 * overrides an option, in either order of application.
 * Returns 0 applied (or ignored because an option already set it); -1 on
 * a bad value, a conflict (--psi-map-by with --psi-lama-map) or a name
 * that is not one of these (o untouched), with err. */
int psiplace_lama_apply(struct psiplace_lama_opts *o, const char *name, const char *value,
			psiplace_error_t *err);

/* After all options: the checks that involve more than one string (the
 * map must contain the binding level).  A simple or default map lacking
 * the binding letter gets it right after its first letter. */
int psiplace_lama_finish(struct psiplace_lama_opts *o, psiplace_error_t *err);

/* The single parsers (total: every input yields a value or an error; err
 * names `what`, e.g. "--psi-lama-map", the position and the rule). */
int psiplace_lama_parse_map(const char *s, const char *what, enum psiplace_level *levels,
			    unsigned *n, psiplace_error_t *err);
int psiplace_lama_parse_bind(const char *s, const char *what, unsigned *width,
			     enum psiplace_level *level, psiplace_error_t *err);
int psiplace_lama_parse_mppr(const char *s, const char *what, struct psiplace_lama_mppr *m,
			     unsigned *n, psiplace_error_t *err);
int psiplace_lama_parse_order(const char *s, const char *what, int *sequential, psiplace_error_t *err);
/* Simple level (slot hwthread core l1cache l2cache l3cache socket numa
 * board node, case-insensitive) to its expert map string, or to its
 * binding (width 0 for "none", accepted only when allow_none). */
int psiplace_lama_simple_map(const char *s, const char *what, const char **map, psiplace_error_t *err);
int psiplace_lama_simple_bind(const char *s, const char *what, unsigned *width,
			      enum psiplace_level *level, psiplace_error_t *err);

/* "cL1L2L3sNbnh", "1c", "1:c,2:n" (or "none"), "n"/"s" into buf. */
void psiplace_lama_map_string(const struct psiplace_lama_opts *o, char *buf, size_t len);
void psiplace_lama_bind_string(const struct psiplace_lama_opts *o, char *buf, size_t len);
void psiplace_lama_mppr_string(const struct psiplace_lama_opts *o, char *buf, size_t len);

/* ---- mapping ---- */

struct psiplace_lama_task {
	unsigned node; /* 0-based node number */
	unsigned pu;   /* index into the node's topo->pus: the thread it was mapped to */
	int bind;      /* first binding object of the node (opaque), -1 unbound */
};

struct psiplace_lama_shape; /* one topology prepared for a map (opaque) */

struct psiplace_lama_map {
	size_t ntasks;
	struct psiplace_lama_task *task; /* by rank */
	unsigned nnodes;
	unsigned bind_width;
	const struct psiplace_topo **topo; /* per node, as given */
	struct psiplace_lama_shape **shape; /* per node (shared by nodes with one topology) */
	unsigned nshapes;
	struct psiplace_lama_shape **shapes; /* distinct, for freeing */
};

/* Map ntasks tasks over nnodes nodes, topo[i] being node i's (pointers
 * may repeat: identical nodes share their preparation).  Task counts per
 * node are LAMA's outcome.  On error m is empty and err tells why (the
 * no-progress and oversubscription messages show map, bind, MPPR, order).
 * The topologies must outlive m. */
int psiplace_lama_map(const struct psiplace_lama_opts *o, unsigned nnodes,
		      const struct psiplace_topo *const *topo, size_t ntasks,
		      struct psiplace_lama_map *m, psiplace_error_t *err);

/* The same with the task count of every node fixed by the step layout
 * (Slurm decides how many tasks each node runs; LAMA decides the order in
 * which nodes take them and the binding).  Ranks follow LAMA's order under
 * those counts: psiplace_lama_verify_layout() compares it with Slurm's. */
int psiplace_lama_map_counts(const struct psiplace_lama_opts *o, unsigned nnodes,
			     const struct psiplace_topo *const *topo, const unsigned *tasks_per_node,
			     struct psiplace_lama_map *m, psiplace_error_t *err);

/* Step launch on one node: bind the node's own ntasks tasks knowing only
 * its own topology.  bind[k] is the binding of the node's k-th task in
 * ascending global task id order: the same CPUs as the whole-step map
 * gives that task, whatever the other nodes look like.  cpus[k] and
 * mems[k] (allocated by the caller, may be NULL) receive CPU and NUMA
 * sets (OS indexes); an unbound task gets empty sets. */
int psiplace_lama_map_local(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			    unsigned ntasks, hwloc_bitmap_t *cpus, hwloc_bitmap_t *mems,
			    psiplace_error_t *err);

/* CPU set (OS indexes) and NUMA nodes of a rank; empty when unbound.
 * Returns 0, or -1 for a rank out of range. */
int psiplace_lama_task_sets(const struct psiplace_lama_map *m, size_t rank, hwloc_bitmap_t cpus,
			    hwloc_bitmap_t mems);

void psiplace_lama_map_free(struct psiplace_lama_map *m);

/* ---- step layout (Slurm's task distribution) ---- */

enum psiplace_lama_dist {
	PSIPLACE_LAMA_DIST_BLOCK,
	PSIPLACE_LAMA_DIST_CYCLIC,
	PSIPLACE_LAMA_DIST_ARBITRARY,
};

const char *psiplace_lama_dist_name(enum psiplace_lama_dist d);

/* Which distribution a node sequence (node_of_rank[0..n-1]) is: Slurm's
 * block or cyclic for the same per-node counts, or arbitrary. */
enum psiplace_lama_dist psiplace_lama_classify(const unsigned *node_of_rank, size_t n,
					       unsigned nnodes);

/* Slurm's block or cyclic layout for per-node task counts: the node of
 * every rank into node_of_rank (sum of counts long).  -1 for arbitrary. */
int psiplace_lama_slurm_layout(enum psiplace_lama_dist d, const unsigned *tasks_per_node,
			       unsigned nnodes, unsigned *node_of_rank);

/* The Slurm distribution that yields LAMA's node order for these per-node
 * task counts.  With topo (per node) it is exact; with topo NULL it is
 * decided from the strings alone: sequential order -> block; n the
 * innermost letter apart from b (hwloc knows no boards) -> cyclic; else
 * block (a node's tasks fit in one sweep of the letters left of n: what
 * psiplace_lama_verify_local() checks at launch).  With topo given and
 * the answer arbitrary, node_of_rank (may be NULL, else sum of counts
 * long) receives the layout to request. */
int psiplace_lama_choose_dist(const struct psiplace_lama_opts *o, unsigned nnodes,
			      const unsigned *tasks_per_node, const struct psiplace_topo *const *topo,
			      enum psiplace_lama_dist *dist, unsigned *node_of_rank, psiplace_error_t *err);

/* Does a layout (node_of_rank[0..n-1], n = sum of tasks_per_node) equal
 * LAMA's node order for its counts?  0 yes; -1 with one line showing
 * both sequences and the first difference. */
int psiplace_lama_verify_layout(const struct psiplace_lama_opts *o, unsigned nnodes,
				const struct psiplace_topo *const *topo,
				const unsigned *node_of_rank, size_t n, psiplace_error_t *err);

/* What one node can check alone: running ntasks tasks under a block or
 * cyclic layout matches LAMA's node order as far as this node decides it
 * (block: all of them in its first sweep of the letters left of n;
 * cyclic: exactly one per sweep).  If every node passes, the whole
 * layout matches.  Returns 0 with *matches; when it is false err holds
 * the reason (also for an arbitrary layout, which one node cannot judge,
 * unless sequential order rules it out: the caller checks those against
 * the whole layout).  -1 with err when LAMA cannot map the node (or out
 * of memory): then *matches is false and says nothing. */
int psiplace_lama_verify_local(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			       unsigned ntasks, enum psiplace_lama_dist dist, bool *matches,
			       psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
