/* psiplace — give nodes of a running job back to Slurm.
 *
 * A malleable job that has shrunk (psiplace/malleable.h) no longer needs
 * some of its nodes; Slurm takes them back with
 * `scontrol update JobId=J NodeList=KEPT`, which kills whatever of the job
 * still runs there.  psiplace_release_nodes() first checks that the nodes
 * belong to the job, that at least one node stays, and that no step of the
 * job still runs on them (except one step the caller names: the launcher's
 * daemons, e.g. Open MPI's orted step), then shrinks the job.  It runs
 * scontrol in a temporary directory, because scontrol writes
 * slurm_job_J_resize.{sh,csh} into its current one.
 * Pure C over scontrol; no libslurm, no MPI. */
#ifndef PSIPLACE_RESIZE_H
#define PSIPLACE_RESIZE_H

#include <stddef.h>

#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct psiplace_release_opts {
	const char *job;        /* job id; NULL: SLURM_JOB_ID */
	const char *allow_step; /* step id (e.g. "0") that may still run there; NULL: none */
	int dry_run;            /* check only; *command tells what would run */
	const char *scontrol;   /* program; NULL: "scontrol" from PATH */
	int wait_steps;         /* seconds to wait for other steps on the nodes to end
				 * (0: refuse at once) */
	void (*waiting)(void *arg); /* called about every 100 ms while waiting (an MPI
				 * program drives its progress there: under MPICH the
				 * processes that left need it to finish MPI_Finalize) */
	void *waiting_arg;
};

/* Release the nodes of the Slurm hostlist expression nodes.  On success
 * kept (if not NULL) holds the job's remaining nodes, comma separated, and
 * command (if not NULL) the scontrol command line run (or, with dry_run,
 * that would run).  Errors: a node not in the job, every node of the job,
 * a node still used by a step, a job that does not run, scontrol failing
 * (the step list is read in full; only scontrol's answer for a job without
 * steps, "Job step J. not found" with exit 1, means none). */
int psiplace_release_nodes(const char *nodes, const struct psiplace_release_opts *o, char *kept,
			   size_t keptlen, char *command, size_t commandlen, psiplace_error_t *err);

/* Poll (every 100 ms, at most seconds) until every node of the expression
 * is idle in Slurm (State=IDLE, no job left on it). */
int psiplace_release_wait_idle(const char *nodes, int seconds, const char *scontrol,
			       psiplace_error_t *err);

/* The fields of a job's record that the job's side of a resize reads
 * (`scontrol -o -d show job J`).  nodes is Slurm's NodeList expression;
 * cpus[i] the CPUs the job has on the i-th node of its expansion (from the
 * per-node detail lines), ncpus of them. */
#define PSIPLACE_RESIZE_MAXNODES 1024
struct psiplace_resize_job {
	char state[32];
	char partition[256];
	char qos[256];
	char nodes[4096];
	char admin_comment[1600]; /* "" when unset */
	size_t nnodes;
	char names[PSIPLACE_RESIZE_MAXNODES][64];
	int cpus[PSIPLACE_RESIZE_MAXNODES];
};

/* Read job's record (scontrol NULL: "scontrol" from PATH). */
int psiplace_resize_job_read(const char *job, const char *scontrol, struct psiplace_resize_job *j,
			     psiplace_error_t *err);

/* Write text into the job's Comment (`scontrol update JobId=J Comment=TEXT`,
 * run as the job's user: only the job's user or an operator may). */
int psiplace_resize_comment(const char *job, const char *text, const char *scontrol,
			    psiplace_error_t *err);

/* Grow a running job by a helper allocation merged into it:
 *   salloc --no-shell -N K -J psiplace-grow-J-ID --dependency=expand:J
 *       -p PARTITION [-q QOS] -x NODES-OF-J
 * (no step ever runs in the helper: a helper with a step cannot be merged),
 * waited for at most deadline seconds (then cancelled: -1 with err), then
 * `scontrol update JobId=H NumNodes=0` and `scontrol update JobId=J
 * NumNodes=ALL` (retried while slurmctld answers "try again"), both in a
 * private directory under TMPDIR.  On success *after holds the job's record
 * after the merge and *helper the helper's job id. */
struct psiplace_resize_grow_opts {
	const char *job;      /* NULL: SLURM_JOB_ID */
	unsigned long long id; /* decision id, for the helper's name */
	unsigned k;           /* nodes to add */
	int deadline;         /* seconds to wait for the helper (<= 0: 60) */
	const char *scontrol, *salloc, *scancel; /* NULL: from PATH */
	void (*waiting)(void *arg); /* called about every 100 ms while waiting */
	void *waiting_arg;
	long long merge_by;   /* wall-clock time (time(NULL)) from which a helper
			       * found granted is no longer merged but cancelled
			       * (the order's deadline: the daemon has withdrawn
			       * it); 0: none */
};
int psiplace_resize_grow(const struct psiplace_resize_grow_opts *o, struct psiplace_resize_job *after,
			 unsigned long *helper, psiplace_error_t *err);

/* The same grow in steps, for a program that computes on while the helper
 * pends (libpsiplace_mpi's rank 0 checks at each checkpoint):
 *  - start: read the job (it must run), start salloc in the background
 *    (the deadline counts from here); 0 and *req, or -1 with err;
 *  - ready: does not block (waitpid WNOHANG): 0 still pending, 1 granted,
 *    -1 failed (salloc failed, or the deadline passed: salloc ended, the
 *    request cancelled by name; or a grant found at or after merge_by:
 *    the helper cancelled), with err;
 *  - merge (after ready's 1): as psiplace_resize_grow's merge; 0 merged
 *    (*after, *helper), 1 a new helper requested (a merge refused after a
 *    restart of slurmctld, once, within the deadline: call ready again),
 *    -1 failed (the helper cancelled);
 *  - end, on every path (NULL: nothing): salloc still running is ended by
 *    its PID (TERM, KILL after 5 s) and reaped, a request or helper of the
 *    decision not merged is cancelled, the private directory removed.
 * opts' strings must live until end; its waiting is called only by merge.
 * salloc runs with stdin from /dev/null and none of the caller's other
 * descriptors (an MPI process's sockets are not held by it), and gets TERM
 * when the thread that started it dies (the process exiting or killed
 * without end: a watchdog's _exit, MPI_Finalize without
 * psiplace_mall_free); a helper already granted then is left to the
 * daemon's sweep. */
struct psiplace_resize_grow_req;
int psiplace_resize_grow_start(const struct psiplace_resize_grow_opts *o,
			       struct psiplace_resize_grow_req **req, psiplace_error_t *err);
int psiplace_resize_grow_ready(struct psiplace_resize_grow_req *req, psiplace_error_t *err);
int psiplace_resize_grow_merge(struct psiplace_resize_grow_req *req,
			       struct psiplace_resize_job *after, unsigned long *helper,
			       psiplace_error_t *err);
void psiplace_resize_grow_end(struct psiplace_resize_grow_req *req);

#ifdef __cplusplus
}
#endif
#endif
