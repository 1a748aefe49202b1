/* psiplace SPANK plugin: the one state struct shared by its files.
 * Slurm loads the plugin once per process (srun, sbatch, salloc or one
 * slurmstepd per step), so one instance is all there is. */
#ifndef PSIPLACE_SPANK_CTX_H
#define PSIPLACE_SPANK_CTX_H

#include <stdbool.h>

#include <hwloc.h>
#include <slurm/spank.h>

#include "psiplace/binding.h"
#include "psiplace/policy.h"
#include "psiplace/user_request.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/step_layout.h"
#include "psiplace/topo.h"
#include "psiplace/error.h"

/* A placement backend: bindings for the node's local tasks (out has
 * step->nlocal entries).  PSI's is spank_psi_backend, LAMA's
 * spank_lama_backend (spank_step.c). */
typedef int (*psiplace_backend_fn)(const struct psiplace_user_request *r, const struct psiplace_topo *t,
				   const struct psiplace_step *step, struct psiplace_binding *out,
				   psiplace_error_t *err);

struct psiplace_spank_ctx {
	struct psiplace_siteconf site;
	enum psiplace_policy job_policy; /* from --psi-alloc-policy */
	int verbose;

	/* Options as their callbacks delivered them (all contexts). */
	struct psiplace_opts cbopts;

	/* srun/sbatch/salloc */
	struct psiplace_user_request req;     /* gathered in slurm_spank_init */
	bool have_req;
	bool new_job;
	bool het;       /* a heterogeneous job or step (components split by ':') */
	unsigned slurm_release;           /* the running Slurm, PSIPLACE_SLURM_RELEASE(major, minor) */
	char hostfile[256];              /* temporary SLURM_HOSTFILE; "" none */
	char partition[256];             /* the job's -p (command line, env, script); "" default */

	/* slurmstepd */
	bool place;                      /* psiplace binds this step's tasks */
	bool dry_run, report;
	psiplace_error_t step_error; /* placement failed: tasks report and exit */
	bool quiet_error;                /* another stepd reports step_error */
	char note[PSIPLACE_ERRLEN];      /* backend's summary for --psi-verbose; "" none */
	char pset_note[PSIPLACE_ERRLEN]; /* process sets' summary for --psi-verbose; "" none */
	bool report_psets;               /* list the sets at launch (--psi-verbose) */
	hwloc_topology_t topo;
	struct psiplace_topo table;
	struct psiplace_step step;
	char node_name[256];
	struct psiplace_binding *bind;   /* [step.nlocal] */
	char *bind_list;                 /* SLURM_CPU_BIND_LIST of all local tasks */
	char *cpu_bind;                  /* SLURM_CPU_BIND: "quiet,mask_cpu:" bind_list */
	char getenv_buf[8][4096];        /* spank_getenv results for the request parser */
	unsigned getenv_next;
};

/* spank_ctx.c, the bottom of the plugin */
extern struct psiplace_spank_ctx psiplace_spank;

/* "psiplace: error: MSG" on the user's terminal (local) or Slurm's log. */
void spank_user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Local/allocator context (spank_submit.c). */
int spank_submit_init(spank_t sp);
int spank_submit_post_opt(spank_t sp);
void spank_submit_exit(void);

/* Remote context (spank_step.c). */
int spank_step_user_init(spank_t sp);
int spank_step_task_init(spank_t sp);
void spank_step_exit(void);

#endif
