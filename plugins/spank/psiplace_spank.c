/* psiplace SPANK plugin: --psi-* options and PSI_* variables in srun,
 * sbatch and salloc; the per-job allocation request for slurmctld.
 *
 * A thin adapter: parsing and decisions live in libpsiplace; this file
 * only talks to SPANK.  All state sits in one struct. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "psiplace/error.h"
#include "psiplace/jobreq.h"
#include "psiplace/policy.h"
#include "psiplace/siteconf.h"

SPANK_PLUGIN(psiplace, 1);

static struct {
	struct psiplace_siteconf site;
	enum psiplace_policy job_policy; /* from --psi-alloc-policy */
	int verbose;
} ctx;

/* A user's error: one line on stderr that starts "psiplace: error: ".
 * In slurmstepd (remote) stderr is not the user's: use Slurm's log. */
static void user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void user_error(const char *fmt, ...)
{
	char msg[PSIPLACE_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (spank_context() == S_CTX_REMOTE)
		slurm_error("psiplace: %s", msg);
	else
		fprintf(stderr, "psiplace: error: %s\n", msg);
}

static int opt_alloc_policy(int val, const char *optarg, int remote)
{
	char err[PSIPLACE_ERRLEN];

	(void)val;
	(void)remote;
	if (psiplace_policy_parse(optarg, "--psi-alloc-policy", &ctx.job_policy, err,
				  sizeof(err)) < 0) {
		user_error("%s", err);
		return -1;
	}
	if (!psiplace_policy_supported(ctx.job_policy)) {
		user_error("--psi-alloc-policy: '%s' (%s) is not yet supported by this psiplace build; supported: FIRSTAVAILABLE, LASTAVAILABLE",
			   optarg, psiplace_policy_name(ctx.job_policy));
		return -1;
	}
	return 0;
}

static int opt_verbose(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	(void)remote;
	ctx.verbose = 1;
	return 0;
}

/* Registered in slurm_spank_init: Slurm ignores a static spank_options
 * table in allocator context (sbatch, salloc). */
static struct spank_option options[] = {
	{ "psi-alloc-policy", "POLICY",
	  "Node allocation policy for this job: FIRSTAVAILABLE, LASTAVAILABLE, "
	  "CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY "
	  "(or Moab's long names)",
	  1, 0, opt_alloc_policy },
	{ "psi-verbose", NULL, "Report psiplace's decisions on stderr", 0, 0, opt_verbose },
	SPANK_OPTIONS_TABLE_END
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[PSIPLACE_ERRLEN];

	struct spank_option *o;

	psiplace_siteconf_free(&ctx.site);
	ctx.job_policy = PSIPLACE_POLICY_NONE;
	ctx.verbose = getenv("PSI_VERBOSE") != NULL;
	if (psiplace_siteconf_parse(ac, av, &ctx.site, err, sizeof(err)) < 0) {
		user_error("plugstack.conf psiplace line: %s", err);
		return -1;
	}
	if (!psiplace_policy_supported(ctx.site.policy)) {
		user_error("plugstack.conf psiplace line: NodeAllocationPolicy=%s is not yet supported by this psiplace build",
			   psiplace_policy_name(ctx.site.policy));
		return -1;
	}
	if (ctx.site.verbose)
		ctx.verbose = 1;
	for (o = options; o->name; o++) {
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			user_error("cannot register option --%s", o->name);
			return -1;
		}
	}
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
	if (ctx.job_policy != PSIPLACE_POLICY_NONE) {
		if (spank_job_control_setenv(sp, PSIPLACE_ENV_ALLOC_POLICY,
					     psiplace_policy_name(ctx.job_policy), 1) != ESPANK_SUCCESS) {
			user_error("--psi-alloc-policy: cannot pass the request to slurmctld");
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

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	psiplace_siteconf_free(&ctx.site);
	return 0;
}
