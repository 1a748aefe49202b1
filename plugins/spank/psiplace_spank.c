/* psiplace SPANK plugin: --psi-* options and PSI_* variables in srun,
 * sbatch and salloc; the per-job allocation request for slurmctld; task
 * placement and binding in slurmstepd.
 *
 * A thin adapter: parsing and decisions live in libpsiplace.  This file
 * holds the entry points and the options; spank_submit.c the client side
 * (local/allocator context), spank_step.c the step side (remote). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "spank_ctx.h"

SPANK_PLUGIN(psiplace, 1);

struct psiplace_spank_ctx psiplace_spank;
#define ctx psiplace_spank

void spank_user_error(const char *fmt, ...)
{
	psiplace_error_t msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg.text, sizeof(msg.text), fmt, ap);
	va_end(ap);
	if (spank_context() == S_CTX_REMOTE)
		slurm_error("psiplace: %s", msg.text);
	else
		fprintf(stderr, "psiplace: error: %s\n", msg.text);
}

static int opt_alloc_policy(int val, const char *optarg, int remote)
{
	psiplace_error_t err;

	(void)val;
	(void)remote;
	if (psiplace_policy_parse(optarg, "--psi-alloc-policy", &ctx.job_policy, &err) < 0) {
		spank_user_error("%s", err.text);
		return -1;
	}
	return psiplace_opts_set(&ctx.cbopts, PSIPLACE_OPT_ALLOC_POLICY, optarg);
}

/* Every other --psi-* option: validated alone here, combined with the
 * variables by psiplace_user_request_gather. */
static int opt_psi(int val, const char *optarg, int remote)
{
	psiplace_error_t err;
	enum psiplace_opt o = (enum psiplace_opt)val;

	(void)remote;
	if (o == PSIPLACE_OPT_VERBOSE)
		ctx.verbose = 1;
	/* Files are opened by the submitting client only, never in slurmstepd. */
	if (!remote && psiplace_user_request_check_option(o, optarg, &ctx.site, &err) < 0) {
		spank_user_error("%s", err.text);
		return -1;
	}
	return psiplace_opts_set(&ctx.cbopts, o, optarg);
}

#define PSI_OPT(name, arg, help, o) { name, arg, help, arg != NULL, o, opt_psi }

/* Registered in slurm_spank_init: Slurm ignores a static spank_options
 * table in allocator context (sbatch, salloc). */
static struct spank_option options[] = {
	{ "psi-alloc-policy", "POLICY",
	  "Node allocation policy for this job: FIRSTAVAILABLE, LASTAVAILABLE, "
	  "CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY "
	  "(or Moab's long names)",
	  1, PSIPLACE_OPT_ALLOC_POLICY, opt_alloc_policy },
	PSI_OPT("psi-alloc-priority", "EXPR", "Node priority function for this job (implies PRIORITY)",
		PSIPLACE_OPT_ALLOC_PRIORITY),
	PSI_OPT("psi-nodes", "LIST", "ParaStation node ids (PSI_NODES): 0,2-5,0x10", PSIPLACE_OPT_NODES),
	PSI_OPT("psi-hosts", "LIST", "Candidate hosts (PSI_HOSTS): blanks/commas, hostlists", PSIPLACE_OPT_HOSTS),
	PSI_OPT("psi-hostfile", "FILE", "Host file, one host per line, repeats = slots (PSI_HOSTFILE)",
		PSIPLACE_OPT_HOSTFILE),
	PSI_OPT("psi-nodes-sort", "MODE", "PROC, LOAD, LOAD_5, LOAD_15, PROC+LOAD, NONE (PSI_NODES_SORT)",
		PSIPLACE_OPT_NODES_SORT),
	PSI_OPT("psi-exclusive", NULL, "Whole nodes only (PSI_EXCLUSIVE)", PSIPLACE_OPT_EXCLUSIVE),
	PSI_OPT("psi-overbook", NULL, "More tasks than CPUs; implies exclusive (PSI_OVERBOOK)",
		PSIPLACE_OPT_OVERBOOK),
	PSI_OPT("psi-loop-nodes-first", NULL, "Consecutive ranks on different nodes (PSI_LOOP_NODES_FIRST)",
		PSIPLACE_OPT_LOOP_NODES_FIRST),
	PSI_OPT("psi-wait", NULL, "Queue when resources are busy (PSI_WAIT)", PSIPLACE_OPT_WAIT),
	PSI_OPT("psi-tpp", "N", "CPU slots per task (PSI_TPP, else OMP_NUM_THREADS)", PSIPLACE_OPT_TPP),
	PSI_OPT("psi-cpumap", "LIST", "Slot to CPU map, descending ranges allowed (__PSI_CPUMAP)",
		PSIPLACE_OPT_CPUMAP),
	PSI_OPT("psi-no-pinproc", NULL, "No CPU binding (__PSI_NO_PINPROC)", PSIPLACE_OPT_NO_PINPROC),
	PSI_OPT("psi-no-bindmem", NULL, "No memory binding (__PSI_NO_MEMBIND)", PSIPLACE_OPT_NO_BINDMEM),
	PSI_OPT("psi-map-by", "LEVEL", "LAMA simple level: slot, hwthread, core, l1cache, l2cache, "
		"l3cache, socket, numa, board, node", PSIPLACE_OPT_MAP_BY),
	PSI_OPT("psi-bind-to", "LEVEL", "Bind to one object of LEVEL; none = no binding", PSIPLACE_OPT_BIND_TO),
	PSI_OPT("psi-lama-map", "STR", "LAMA map string over h c s L1 L2 L3 N b n", PSIPLACE_OPT_LAMA_MAP),
	PSI_OPT("psi-lama-bind", "STR", "LAMA binding, e.g. 1c, 2s", PSIPLACE_OPT_LAMA_BIND),
	PSI_OPT("psi-lama-mppr", "STR", "LAMA max procs per resource, e.g. 1:c,2:n", PSIPLACE_OPT_LAMA_MPPR),
	PSI_OPT("psi-lama-order", "s|n", "LAMA rank order: sequential or natural", PSIPLACE_OPT_LAMA_ORDER),
	PSI_OPT("psi-oversubscribe", NULL, "Let LAMA exceed MPPR and cycle", PSIPLACE_OPT_OVERSUBSCRIBE),
	PSI_OPT("psi-verbose", NULL, "Report psiplace's decisions on stderr (PSI_VERBOSE)",
		PSIPLACE_OPT_VERBOSE),
	PSI_OPT("psi-dry-run", NULL, "Compute and report the binding, bind nothing", PSIPLACE_OPT_DRY_RUN),
	SPANK_OPTIONS_TABLE_END
};

/* The release of the Slurm running us, not the one we were built against:
 * the SPANK interface is stable 22.05-26.05, Slurm's input variables are not. */
static unsigned running_release(spank_t sp)
{
	char *major = NULL, *minor = NULL;

	if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS || !major || !minor)
		return PSIPLACE_SLURM_RELEASE(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
					      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	return PSIPLACE_SLURM_RELEASE((unsigned)atoi(major), (unsigned)atoi(minor));
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	psiplace_error_t err;
	spank_context_t c = spank_context();
	struct spank_option *o;

	psiplace_siteconf_free(&ctx.site);
	psiplace_opts_free(&ctx.cbopts);
	ctx.job_policy = PSIPLACE_POLICY_NONE;
	ctx.verbose = getenv("PSI_VERBOSE") != NULL;
	if (psiplace_siteconf_parse(ac, av, &ctx.site, &err) < 0) {
		spank_user_error("plugstack.conf psiplace line: %s", err.text);
		return -1;
	}
	if (ctx.site.verbose)
		ctx.verbose = 1;
	ctx.slurm_release = running_release(sp);
	for (o = options; o->name; o++) {
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			spank_user_error("cannot register option --%s", o->name);
			return -1;
		}
	}
	if (c == S_CTX_LOCAL || c == S_CTX_ALLOCATOR)
		return spank_submit_init(sp);
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t c = spank_context();
	const char *source = "cluster default";
	enum psiplace_policy p = ctx.site.policy;

	(void)ac;
	(void)av;
	if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR)
		return 0;
	if (spank_submit_post_opt(sp) < 0)
		return -1;
	if (ctx.job_policy != PSIPLACE_POLICY_NONE) {
		if (spank_job_control_setenv(sp, PSIPLACE_ENV_ALLOC_POLICY,
					     psiplace_policy_name(ctx.job_policy), 1) != ESPANK_SUCCESS) {
			spank_user_error("--psi-alloc-policy: cannot pass the request to slurmctld");
			return -1;
		}
		p = ctx.job_policy;
		source = "--psi-alloc-policy";
	}
	/* srun inside an allocation only starts a step: no node choice. */
	if (ctx.verbose && !(c == S_CTX_LOCAL && getenv("SLURM_JOB_ID")))
		fprintf(stderr, "psiplace: node allocation policy %s (%s)\n",
			p == PSIPLACE_POLICY_NONE ? "none: cons_tres order" : psiplace_policy_name(p),
			source);
	return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return spank_step_user_init(sp);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return spank_step_task_init(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_REMOTE)
		spank_step_exit();
	else
		spank_submit_exit();
	psiplace_opts_free(&ctx.cbopts);
	psiplace_siteconf_free(&ctx.site);
	return 0;
}
