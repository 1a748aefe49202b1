/* psiplace release: give nodes of a running job back to Slurm after its
 * processes left them (a malleable job's shrink).  The checks and the
 * scontrol call are the library's (psiplace_release_nodes). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "psiplace/resize.h"

enum { OPT_JOB = 256, OPT_DRY, OPT_ALLOW, OPT_WAIT };

static const struct option longopts[] = {
	{ "job", required_argument, NULL, OPT_JOB },
	{ "dry-run", no_argument, NULL, OPT_DRY },
	{ "allow-step", required_argument, NULL, OPT_ALLOW },
	{ "wait-idle", required_argument, NULL, OPT_WAIT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"usage: psiplace release [--job JOBID] [--dry-run] [--allow-step STEP] [--wait-idle SECONDS] NODELIST\n"
	"Shrink the running job (default: SLURM_JOB_ID) by the nodes of NODELIST (a Slurm hostlist)\n"
	"once no step of it runs there (--allow-step: except that one, e.g. the launcher's daemons);\n"
	"refuses, changing nothing, when scontrol's step list cannot be read in full.\n"
	"Prints the nodes the job keeps. See psiplace(1) and doc/malleability.md.\n";

static int seconds_arg(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 1 || v > 86400)
		return cli_usage_error("release: --wait-idle: '%s' is not a number of seconds; accepted: 1..86400", s);
	*out = (int)v;
	return 0;
}

int cmd_release(int argc, char **argv)
{
	struct psiplace_release_opts o = { 0 };
	char kept[4096], command[4400];
	psiplace_error_t err;
	int c, wait = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, longopts, NULL, "release")) != -1) {
		switch (c) {
		case CLI_OPT_HELP: fputs(usage_text, stdout); return 0;
		case CLI_OPT_BAD: return 2;
		case OPT_JOB: o.job = optarg; break;
		case OPT_DRY: o.dry_run = 1; break;
		case OPT_ALLOW: o.allow_step = optarg; break;
		case OPT_WAIT: if (seconds_arg(optarg, &wait)) return 2; break;
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("release: give exactly one NODELIST (a Slurm hostlist, e.g. n[3-4]); see psiplace release --help");
	if (o.job && (!*o.job || strspn(o.job, "0123456789") != strlen(o.job) || strlen(o.job) > 19 ||
		      strtoull(o.job, NULL, 10) == 0 || strtoull(o.job, NULL, 10) > 0xffffffffULL))
		return cli_usage_error("release: --job: '%s' is not a job id; accepted: a number 1..4294967295", o.job);
	if (psiplace_release_nodes(argv[optind], &o, kept, sizeof(kept), command, sizeof(command), &err) < 0 ||
	    (wait && !o.dry_run && psiplace_release_wait_idle(argv[optind], wait, NULL, &err) < 0)) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	if (o.dry_run)
		printf("would run: %s\n", command);
	printf("kept %s\n", kept);
	return 0;
}
