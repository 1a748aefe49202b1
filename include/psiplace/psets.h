/* psiplace — PMIx process sets of a step (doc/psets.md).
 *
 * A set is a name and the sorted, unique ranks of its members in the
 * step's namespace.  A step gets, when it asks for sets:
 *   the user's sets            --psi-pset=NAME:RANKS[;NAME:RANKS...]
 *   psiplace://all             every rank
 *   psiplace://node/NODE       the ranks on each node of the step
 *   psiplace://node/NODE/LEVEL/I   the ranks on NODE whose first CPU lies
 *                              in the I-th LEVEL object (socket, numa, l3,
 *                              core; --psi-pset-levels), defined on NODE only
 * The step-wide sets are computed from the step layout alone, so every
 * node computes the same ones.  No PMIx, no Slurm. */
#ifndef PSIPLACE_PSETS_H
#define PSIPLACE_PSETS_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "psiplace/error.h"
#include "psiplace/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_PSET_NAME_MAX 63      /* bytes of a user's set name */
#define PSIPLACE_PSETS_USER_MAX 64     /* user sets per step */
#define PSIPLACE_PSET_RANK_MAX 16777215u /* largest rank a user set may name */
#define PSIPLACE_PSET_MEMBERS_MAX 1048576u /* members of all user sets together (bounds the work per step) */
#define PSIPLACE_PSET_PREFIX "psiplace://"

/* --psi-pset-levels */
enum {
	PSIPLACE_PSET_LEVEL_NODE = 1 << 0,
	PSIPLACE_PSET_LEVEL_SOCKET = 1 << 1,
	PSIPLACE_PSET_LEVEL_NUMA = 1 << 2,
	PSIPLACE_PSET_LEVEL_L3 = 1 << 3,
	PSIPLACE_PSET_LEVEL_CORE = 1 << 4,
};
#define PSIPLACE_PSET_NLEVELS 5

struct psiplace_pset {
	char *name;
	uint32_t *ranks; /* sorted, unique */
	size_t n;
};

struct psiplace_psets {
	struct psiplace_pset *set;
	size_t n;
};

void psiplace_psets_init(struct psiplace_psets *s);
void psiplace_psets_free(struct psiplace_psets *s);

/* Append the sets of one --psi-pset value ("NAME:RANKS[;NAME:RANKS...]",
 * RANKS in Slurm's range syntax "0-3,8") to s.  Names: 1 to
 * PSIPLACE_PSET_NAME_MAX bytes of letters, digits and "_-.:/", not
 * starting with the reserved "mpi://" or "psiplace://", unique; at most
 * PSIPLACE_PSETS_USER_MAX sets of PSIPLACE_PSET_MEMBERS_MAX members in
 * all.  from names the option or variable in
 * messages; on error s is unchanged. */
int psiplace_psets_parse(const char *value, const char *from, struct psiplace_psets *s,
			 psiplace_error_t *err);

/* --psi-pset-levels: "node[,socket,numa,l3,core]" -> PSIPLACE_PSET_LEVEL_*
 * bits (node is always included). */
int psiplace_pset_levels_parse(const char *value, const char *from, unsigned *levels,
			       psiplace_error_t *err);

/* The node index of every rank: tasks_per_node[nnodes] counts and
 * Slurm's distribution ("block", "cyclic", "plane=N" or NULL = block;
 * "arbitrary" needs layout).  layout, when not NULL, is psiplace's own
 * rank order ("0(x4),1(x6)": the node of each rank, N(xK) repeats) and
 * wins.  node_of has ntasks entries. */
int psiplace_psets_rank_nodes(const uint32_t *tasks_per_node, uint32_t nnodes, uint32_t ntasks,
			      const char *distribution, const char *layout, uint32_t *node_of,
			      psiplace_error_t *err);

/* The step-wide sets: the user's (each rank checked against ntasks),
 * psiplace://all and psiplace://node/NAME for every node (node_names[i]
 * of node index i; node_of from psiplace_psets_rank_nodes). */
int psiplace_psets_step(const struct psiplace_psets *user, uint32_t ntasks, uint32_t nnodes,
			const char *const *node_names, const uint32_t *node_of,
			struct psiplace_psets *out, psiplace_error_t *err);

/* The topology sets of one node: for every level bit in levels beyond
 * node, local task i (rank ranks[i]) belongs to psiplace://node/NODE/LEVEL/J
 * with J = obj[level index][i] (the node-wide logical index of the object
 * holding its first CPU; -1: none).  level index: 1 socket, 2 numa, 3 l3,
 * 4 core (obj[0] is unused).  Appended to out in name order. */
int psiplace_psets_node_levels(const char *node, unsigned levels, size_t nlocal,
			       const uint32_t *ranks, const int *const obj[PSIPLACE_PSET_NLEVELS],
			       struct psiplace_psets *out, psiplace_error_t *err);

/* obj[] for psiplace_psets_node_levels from a node's topology table:
 * for every level in levels beyond node, the logical index of the object
 * holding the first CPU of cpus[i] (NULL or empty: -1).  obj[lv] is
 * malloc'd for the levels asked, NULL for the others. */
int psiplace_psets_topo_objs(const struct psiplace_topo *t, const hwloc_const_bitmap_t *cpus,
			     size_t nlocal, unsigned levels, int *obj[PSIPLACE_PSET_NLEVELS],
			     psiplace_error_t *err);
void psiplace_psets_topo_objs_free(int *obj[PSIPLACE_PSET_NLEVELS]);

/* The names of the sets rank belongs to, in set order: *names (malloc'd
 * array of borrowed pointers), *n. */
int psiplace_psets_of_rank(const struct psiplace_psets *s, uint32_t rank, const char ***names,
			   size_t *n, psiplace_error_t *err);

/* A set's ranks in Slurm's range syntax ("0-3,8") into buf: 0, or -1 when
 * buf is too short (the text then ends with ",..."; a shown prefix, not
 * an error message). */
int psiplace_pset_ranks_string(const struct psiplace_pset *s, char *buf, size_t len);

/* The set of the processes a spawn plan's step adds ("psiplace://spawn/2");
 * step 0 (the processes before spawning) has none: -1. */
int psiplace_pset_spawn_name(int step, char *buf, size_t len);

/* A set by name, or NULL. */
const struct psiplace_pset *psiplace_psets_find(const struct psiplace_psets *s, const char *name);

#ifdef __cplusplus
}
#endif
#endif
