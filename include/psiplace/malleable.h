/* psiplace — malleable MPI jobs: expand a running job over the nodes of its
 * Slurm allocation by parallel spawning, shrink it by terminating whole
 * per-node groups (libpsiplace_mpi, built when an MPI compiler is found).
 *
 * The model is that of Martín-Álvarez, Aliaga and Castillo, "Parallel
 * Spawning Strategies for Dynamic-Aware MPI Applications", section 4 (see
 * doc/spawn.md for the plan, doc/malleability.md for this layer):
 *
 *  - expand: every process that exists spawns at most one group per step
 *    (MPI_Comm_spawn on MPI_COMM_SELF, info "host" = the group's node), as
 *    psiplace_spawn_child() says; the groups synchronise (upside/downside,
 *    4.3), connect in as many levels as the plan has steps (4.4: along the
 *    spawn tree, each group merged with its spawner, not over published
 *    ports as in the paper — see mall_expand.c for why), reorder (4.5) and
 *    join the sources.  The result is one intracommunicator in which every
 *    process's rank is the plan's merged rank.  Baselines: the plain Merge
 *    method (one spawn of all new processes, one MPI_COMM_WORLD over all new
 *    nodes) and the sequential strategy (one spawner, one group at a time).
 *  - shrink: the processes on the released nodes leave (disconnect,
 *    finalize, exit); the survivors keep their order.  A node can be
 *    released only together with every node of each MPI_COMM_WORLD on it
 *    (TS, paper 4.7); otherwise the shrink is refused (paper 4.6).
 *
 * Every process calls the same functions with the same arguments (they are
 * collective over psiplace_mall_comm()); every failure is one message,
 * the same on every process.  Spawns and connections run under a deadline:
 * a process that is still inside an operation then prints
 * "psiplace: error: malleable: ... did not finish within S s" and exits,
 * which ends the job, instead of hanging.
 *
 * Implementation neutral C over MPI-2 dynamic processes.  Open MPI 4.1 needs
 * mpirun --oversubscribe when a node gets more processes than Slurm slots,
 * and loses its daemon on a node Slurm takes back: there a shrink that
 * releases nodes must be the last resize. */
#ifndef PSIPLACE_MALLEABLE_H
#define PSIPLACE_MALLEABLE_H

#include <stddef.h>
#include <mpi.h>

#include "psiplace/error.h"
#include "psiplace/spawnplan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum psiplace_mall_strategy {
	PSIPLACE_MALL_HYPERCUBE = 0, /* parallel, homogeneous allocations */
	PSIPLACE_MALL_DIFFUSIVE,     /* parallel, any allocation */
	PSIPLACE_MALL_MERGE,         /* one spawn of all new processes */
	PSIPLACE_MALL_SEQUENTIAL,    /* one spawner, one group after the other */
};

typedef struct psiplace_mall psiplace_mall_t;

/* Call right after MPI_Init (MPI_THREAD_SINGLE is enough).
 * A process started by the launcher (a source) gets a context over a
 * duplicate of MPI_COMM_WORLD and the allocation from SLURM_JOB_NODELIST
 * and SLURM_JOB_CPUS_PER_NODE.  A process spawned by psiplace_mall_expand()
 * finds its hidden argument in *argv (removed from argc/argv), takes part in
 * the expansion that created it and returns in the same state as the
 * processes that called expand. */
int psiplace_mall_init(int *argc, char ***argv, psiplace_mall_t **out, psiplace_error_t *err);

/* Deadline of every later operation in seconds (default 120, or
 * PSIPLACE_MALL_TIMEOUT); spawned processes inherit it. */
void psiplace_mall_set_timeout(psiplace_mall_t *m, int seconds);

/* Grow the job to the first nnodes nodes of the allocation, up to the
 * cores Slurm gave on each (plus oversub[i] when not NULL). */
int psiplace_mall_expand(psiplace_mall_t *m, size_t nnodes, enum psiplace_mall_strategy strategy,
			 enum psiplace_spawn_method method, const int *oversub, psiplace_error_t *err);

/* Keep the first nnodes nodes of the job: the processes on the others
 * leave (psiplace_mall_leaving() becomes 1 for them). */
int psiplace_mall_shrink(psiplace_mall_t *m, size_t nnodes, psiplace_error_t *err);

/* Forget the allocation's nodes from..to-1 (indices as psiplace_mall_host)
 * once they are given back to Slurm after a shrink: later expansions count
 * the allocation without them, so a job that started with spare nodes can
 * expand again after giving some back.  Every process of the job calls it
 * with the same range (no communication); a node where a rank of the job
 * still runs is refused. */
int psiplace_mall_drop_nodes(psiplace_mall_t *m, size_t from, size_t to, psiplace_error_t *err);

/* How a shrink ends the processes on the released nodes:
 *  - TS (terminate, paper 4.7): they leave; their nodes can go back to
 *    Slurm.  Each MPI_COMM_WORLD must lie wholly on kept or on released
 *    nodes.
 *  - BASELINE (spawn shrinkage, SS): the kept nodes get a new set of
 *    processes (the allocation's cores there, spawned by the processes on
 *    the kept nodes with the given strategy, Baseline method) and every
 *    old process leaves.
 *  - ZOMBIE (ZS): they stay, idle, until the job ends (psiplace_mall_zombie()
 *    is 1 for them); their nodes cannot be returned.  The paper's
 *    reference point; any layout can shrink so. */
enum psiplace_mall_shrink_method {
	PSIPLACE_MALL_SHRINK_TS = 0,
	PSIPLACE_MALL_SHRINK_BASELINE,
	PSIPLACE_MALL_SHRINK_ZOMBIE,
};

/* psiplace_mall_shrink() with a method; strategy is used by BASELINE only
 * (hypercube, diffusive or sequential). */
int psiplace_mall_shrink_by(psiplace_mall_t *m, size_t nnodes, enum psiplace_mall_shrink_method how,
			    enum psiplace_mall_strategy strategy, psiplace_error_t *err);

/* 1 for a process a ZOMBIE shrink left idle: it leaves the job's work and
 * calls psiplace_mall_free(), which returns when every process of the
 * communicator it left has called psiplace_mall_free() too (it sleeps
 * meanwhile, not busy-polling), then MPI_Finalize(). */
int psiplace_mall_zombie(const psiplace_mall_t *m);

/* Names: "ts", "baseline", "zombie". */
int psiplace_mall_shrink_method_parse(const char *s, const char *what,
				      enum psiplace_mall_shrink_method *out, psiplace_error_t *err);

/* The job's communicator (MPI_COMM_NULL for a process that leaves). */
MPI_Comm psiplace_mall_comm(const psiplace_mall_t *m);
/* 1 when this process must leave: its node was released, or it was a
 * source replaced under the Baseline method.  It calls
 * psiplace_mall_free(), MPI_Finalize() and exits. */
int psiplace_mall_leaving(const psiplace_mall_t *m);
/* Resizes done (K), the group this process was spawned as in its resize
 * (-1: started by the launcher), its node, the nodes the job uses. */
int psiplace_mall_resizes(const psiplace_mall_t *m);
int psiplace_mall_group(const psiplace_mall_t *m);
const char *psiplace_mall_node(const psiplace_mall_t *m);
size_t psiplace_mall_nnodes(const psiplace_mall_t *m);
/* Name of node i of the allocation (NULL past its end). */
const char *psiplace_mall_host(const psiplace_mall_t *m, size_t i);

/* Names: "hypercube", "diffusive", "merge", "sequential". */
const char *psiplace_mall_strategy_name(enum psiplace_mall_strategy s);
int psiplace_mall_strategy_parse(const char *s, const char *what,
				 enum psiplace_mall_strategy *out, psiplace_error_t *err);

/* Collective over the processes a ZOMBIE shrink separated (survivors and
 * zombies): they meet here once more before MPI_Finalize. */
void psiplace_mall_free(psiplace_mall_t *m);

/* --- Resizes the resource manager orders (doc/malleability.md) ---
 * The daemon beside slurmctld writes an order into the job's AdminComment
 * (only operators can), the job's rank 0 reads it and acknowledges in the
 * job's Comment as the job's user. */
enum psiplace_mall_order_kind {
	PSIPLACE_MALL_NONE = 0,
	PSIPLACE_MALL_GROW,
	PSIPLACE_MALL_SHRINK,
};
struct psiplace_mall_order {
	enum psiplace_mall_order_kind kind;
	unsigned long long id;  /* the decision's id */
	unsigned k;             /* nodes to add or release */
	long long deadline;     /* Unix time by which to acknowledge */
	char nodes[1024];       /* shrink: the nodes to release (hostlist) */
	unsigned long for_job;  /* shrink: the pending job it makes room for */
};

/* Collective and cheap: rank 0 reads the job's record (scontrol) at most
 * once per PSIPLACE_MALL_POLL_INTERVAL seconds (default 2; 0: every call),
 * otherwise answers "none" at once; every process gets the same order.
 * An order already acted on is "none".  Returns the kind (0 none), or -1
 * with err (the same on every process) when the record cannot be read or
 * the order is malformed.  Waiting processes sleep, not busy-poll.
 * While a grow's helper pends (psiplace_mall_act returned 1) rank 0 reads
 * no record: it checks the helper's salloc without blocking at every call
 * and answers "none" while it pends, the grow's order again once it is
 * granted (call psiplace_mall_act with it: it merges and expands), or -1
 * with err once the wait is over (the helper cancelled, the order
 * acknowledged failed). */
int psiplace_mall_poll(psiplace_mall_t *m, struct psiplace_mall_order *o, psiplace_error_t *err);

/* Collective: carry out a polled order and acknowledge it (rank 0 writes
 * psiplace-ack=ID;done;SIZE or psiplace-ack=ID;failed;SIZE;REASON into the
 * job's Comment).
 *  - grow: rank 0 requests a helper allocation of K nodes named
 *    psiplace-grow-J-ID (salloc --no-shell --dependency=expand:J, the job's
 *    partition and QOS, the job's psiplace options inherited) in the
 *    background and act returns 1 at once, unacknowledged: the job
 *    computes on.  psiplace_mall_poll watches the request for at most
 *    PSIPLACE_MALL_GROW_WAIT seconds (default 60; then cancels it) and
 *    returns the order again once the helper is granted; act with it
 *    merges the helper into the job and everyone expands onto the new
 *    nodes with strategy; nodes (rank 0) gets the granted nodes.  A
 *    helper still pending is cancelled (its salloc ended and reaped) by
 *    psiplace_mall_ack for the order and by psiplace_mall_free.
 *  - shrink: the processes on the named nodes leave (TS; psiplace_mall_leaving()
 *    is 1 for them: they free and finalize), rank 0 gives exactly those nodes
 *    back (psiplace_release_nodes) and every survivor forgets them; nodes
 *    (rank 0) gets the released nodes.
 * 0: done; 1: a grow's helper pending (grow only; nothing changed yet);
 * -1: failed (err, the same on every process that stays; the job runs on
 * at the size it had, acknowledged failed). */
int psiplace_mall_act(psiplace_mall_t *m, const struct psiplace_mall_order *o,
		      enum psiplace_mall_strategy strategy, char *nodes, size_t len,
		      psiplace_error_t *err);

/* Rank 0 writes the acknowledgement itself (psiplace_mall_act does; for a
 * program that refuses an order: done 0 and a reason).  Collective, so that
 * every process returns the same. */
int psiplace_mall_ack(psiplace_mall_t *m, const struct psiplace_mall_order *o, int done,
		      const char *reason, psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
