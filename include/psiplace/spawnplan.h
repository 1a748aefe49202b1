/* psiplace — parallel spawn plans for malleable MPI jobs.
 *
 * A malleable job (MaM, DMR, Flex-MPI) that grows over new nodes spawns
 * one MPI_COMM_WORLD per node, so that it can later shrink by terminating
 * whole groups and give those nodes back to Slurm.  Spawning the groups
 * one after the other is slow; in the parallel strategies of Martín-Álvarez,
 * Aliaga and Castillo ("Parallel Spawning Strategies for Dynamic-Aware MPI
 * Applications", section 4) every process that exists spawns at most one
 * group per step, so the number of spawners grows with every step.
 *
 * Inputs, one entry per node of the job's allocation, in node order:
 *   A  cores assigned to the job on the node (SLURM_JOB_CPUS_PER_NODE),
 *   R  processes of the job already running there (the sources),
 *   O  optional oversubscription: extra processes the node may take beyond
 *      its cores (capacity = A + O).
 * S = capacity - R (Merge) or S = capacity (Baseline) is what each node
 * gets.  Every node with S > 0 receives exactly one group of S processes;
 * groups are numbered 0, 1, ... in node order (the paper's group_id).
 * Step k (k >= 1) starts with T(k-1) processes (T(0) = sum of R) and
 * creates the next min(T(k-1), groups left) groups; the j-th group of the
 * step is spawned by the process with spawn rank j (below).  A node is new
 * when it had no running process.
 *
 * Spawn rank: sources are 0..NS-1 (their rank in their own communicator),
 * then the processes of group 0, group 1, ... in group order, each group's
 * rank 0 first.  With Merge this is exactly the rank in the merged
 * communicator (paper 4.5: sources first, then groups by id).  With
 * Baseline the sources leave after the redistribution and a spawned
 * process's merged rank is its spawn rank - NS.
 *
 * Hypercube is the same rule restricted to homogeneous allocations: every
 * non-zero capacity equal (C) and, with Merge, source nodes full, so every
 * group has C processes and the nodes grow by the factor C + 1 per step.
 * Anything else is an error that points to the diffusive strategy.
 *
 * A runtime builds the plan in every process from the same inputs (they
 * are small and deterministic), asks psiplace_spawn_child() in each step
 * whether it spawns and which group, calls MPI_Comm_spawn on MPI_COMM_SELF
 * with the MPI_Info key "host" set to that group's node, and reorders the
 * merged communicator with psiplace_spawn_merged_rank() as the key of
 * MPI_Comm_split.  See doc/spawn.md. */
#ifndef PSIPLACE_SPAWNPLAN_H
#define PSIPLACE_SPAWNPLAN_H

#include <stddef.h>

#include "psiplace/intvec.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most nodes in one plan. */
#define PSIPLACE_SPAWN_MAX_NODES (1u << 20)

enum psiplace_spawn_strategy {
	PSIPLACE_SPAWN_DIFFUSIVE = 0, /* Iterative Diffusive: any allocation */
	PSIPLACE_SPAWN_HYPERCUBE,     /* homogeneous allocations only */
};

enum psiplace_spawn_method {
	PSIPLACE_SPAWN_MERGE = 0, /* sources stay; spawn capacity - R */
	PSIPLACE_SPAWN_BASELINE,  /* sources are replaced; spawn capacity */
};

struct psiplace_spawn_request {
	size_t nnodes;
	const int *cores;    /* A, nnodes entries */
	const int *running;  /* R, nnodes entries */
	const int *oversub;  /* O, nnodes entries, or NULL for none */
	enum psiplace_spawn_strategy strategy;
	enum psiplace_spawn_method method;
};

struct psiplace_spawn_step {
	int step;        /* 0 is the state before spawning */
	int total;       /* processes existing at the end of the step */
	int generated;   /* processes spawned in the step (0 in step 0) */
	int nodes;       /* nodes occupied at the end of the step */
	int new_nodes;   /* nodes first occupied in the step (0 in step 0) */
	int first_group; /* the step's groups: first_group .. +ngroups-1 */
	int ngroups;
};

struct psiplace_spawn_group {
	int id;          /* paper's group_id: 0.. in node order */
	size_t node;     /* index into the request's vectors */
	int size;        /* processes in the group (its MPI_COMM_WORLD) */
	int step;        /* the step that spawns it, >= 1 */
	int spawner;     /* spawn rank of the process that spawns it */
	int parent;      /* group of that process; -1 for the sources */
	int parent_rank; /* its rank inside the parent (or the sources) */
	int first_rank;  /* merged-communicator rank of the group's rank 0 */
	int new_node;    /* 1 if its node had no running process */
};

struct psiplace_spawn_plan {
	enum psiplace_spawn_strategy strategy;
	enum psiplace_spawn_method method;
	int nsources;    /* NS = sum of R */
	int merged_size; /* processes in the merged communicator at the end */
	size_t nsteps;   /* steps[0] is the initial state */
	struct psiplace_spawn_step *steps;
	size_t ngroups;
	struct psiplace_spawn_group *groups; /* by id */
};

/* Compute the plan.  Errors (one line in err, plan left empty): empty
 * vectors, more than PSIPLACE_SPAWN_MAX_NODES nodes, negative or too large
 * entries, oversubscription on a node without cores, R > capacity with
 * Merge, no running process, nothing to spawn, more than INT_MAX
 * processes, and Hypercube on an allocation it cannot serve. */
int psiplace_spawn_plan_build(const struct psiplace_spawn_request *req,
			      struct psiplace_spawn_plan *plan, psiplace_error_t *err);

void psiplace_spawn_plan_free(struct psiplace_spawn_plan *plan);

/* Spawn rank of the process with rank local_rank in group (-1: the
 * sources); -1 if there is no such process. */
int psiplace_spawn_rank(const struct psiplace_spawn_plan *plan, int group,
			int local_rank);

/* Rank in the merged communicator (paper 4.5) of that process; -1 if
 * there is none or it leaves (a source under Baseline). */
int psiplace_spawn_merged_rank(const struct psiplace_spawn_plan *plan,
			       int group, int local_rank);

/* The group that process spawns in step (>= 1), or NULL if it spawns
 * none then.  O(1). */
const struct psiplace_spawn_group *
psiplace_spawn_child(const struct psiplace_spawn_plan *plan, int group,
		     int local_rank, int step);

/* Names: "diffusive", "hypercube"; "merge", "baseline" (case-insensitive
 * when parsing).  what names the input in messages. */
const char *psiplace_spawn_strategy_name(enum psiplace_spawn_strategy s);
const char *psiplace_spawn_method_name(enum psiplace_spawn_method m);
int psiplace_spawn_strategy_parse(const char *s, const char *what,
				  enum psiplace_spawn_strategy *out, psiplace_error_t *err);
int psiplace_spawn_method_parse(const char *s, const char *what,
				enum psiplace_spawn_method *out, psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
