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

#ifdef __cplusplus
}
#endif
#endif
