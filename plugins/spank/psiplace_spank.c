/* psiplace SPANK plugin: --psi-* options and PSI_* variables in srun,
 * sbatch and salloc; the per-job allocation request for slurmctld; task
 * placement and binding in slurmstepd.
 *
 * A thin adapter: parsing and decisions live in libpsiplace.  This file
 * holds the entry points and the options, on top; it calls down into
 * spank_submit.c (the client side: local/allocator context) and
 * spank_step.c (the step side: remote, with spank_psets.c below it), which
 * share the state and the error line of spank_ctx.c at the bottom. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/textparse.h"
#include "psiplace/ctld_request.h"
#include "psiplace_version.h"
#include "spank_ctx.h"
#include "spank_options.h"

SPANK_PLUGIN(psiplace, 1);

#define ctx psiplace_spank

static int opt_alloc_policy(int val, const char *optarg, int remote)
{
	psiplace_error_t err;

	(void)val;
	(void)remote;
	if (psiplace_policy_parse(optarg, psiplace_opt_table[PSIPLACE_OPT_ALLOC_POLICY].dashed, &ctx.job_policy, &err) < 0) {
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

	if (o == PSIPLACE_OPT_VERBOSE)
		ctx.verbose = 1;
	/* Files are opened by the submitting client only, never in slurmstepd. */
	if (!remote && psiplace_user_request_check_option(o, optarg, &ctx.site, &err) < 0) {
		spank_user_error("%s", err.text);
		return -1;
	}
	/* slurmstepd gets the last value only, maybe more than once; the
	 * joined ones come in PSIPLACE_PSETS */
	if (remote)
		return psiplace_opts_set(&ctx.cbopts, o, optarg);
	return psiplace_opts_add(&ctx.cbopts, o, optarg);
}

/* Built from options.def in slurm_spank_init: Slurm ignores a static
 * spank_options table in allocator context (sbatch, salloc). */
static struct spank_option options[PSIPLACE_OPT_COUNT + 1];

/* The release of the Slurm running us, not the one we were built against:
 * the SPANK interface is stable 22.05-26.05, Slurm's input variables are not. */
static unsigned running_release(spank_t sp)
{
	char *major = NULL, *minor = NULL;
	uint64_t ma, mi;

	if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS || !major ||
	    !minor || !psiplace_parse_u64(major, strlen(major), 99, &ma) ||
	    !psiplace_parse_u64(minor, strlen(minor), 99, &mi))
		return PSIPLACE_SLURM_RELEASE(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
					      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	return PSIPLACE_SLURM_RELEASE((unsigned)ma, (unsigned)mi);
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
	/* slurmd's start-up line: a package must match the installed Slurm exactly. */
	if (c == S_CTX_SLURMD)
		slurm_info("psiplace: psiplace %s built for Slurm %s loaded", PSIPLACE_VERSION,
			   PSIPLACE_SLURM_VERSION_STRING);
	ctx.slurm_release = running_release(sp);
	psiplace_spank_options_fill(options, opt_alloc_policy, opt_psi);
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
	/* Every new job carries the request's version, options or not:
	 * slurmctld tells a job from a host without psiplace by its absence
	 * (doc/upgrade.md, "Submit hosts that differ"). */
	if (ctx.new_job) {
		char v[16];

		snprintf(v, sizeof(v), "%d", PSIPLACE_REQUEST_VERSION);
		if (spank_job_control_setenv(sp, PSIPLACE_ENV_REQUEST, v, 1) != ESPANK_SUCCESS) {
			spank_user_error("cannot pass psiplace's request (%s) to slurmctld",
					 PSIPLACE_ENV_REQUEST);
			return -1;
		}
	}
	if (ctx.job_policy != PSIPLACE_POLICY_NONE) {
		if (spank_job_control_setenv(sp, PSIPLACE_ENV_ALLOC_POLICY,
					     psiplace_policy_name(ctx.job_policy), 1) != ESPANK_SUCCESS) {
			spank_user_error("--psi-alloc-policy: cannot pass the request to slurmctld");
			return -1;
		}
		p = ctx.job_policy;
		source = psiplace_opt_table[PSIPLACE_OPT_ALLOC_POLICY].dashed;
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
