/* psiplace — dry runs of the placement library: node ranking, step
 * binding maps, spawn plans, configuration checks. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "psiplace_version.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "check-config", cmd_check_config,
	  "check-config [PLUGSTACK.CONF] [--psiplace-conf FILE]  validate the site configuration as the plugins read it" },
	{ "spawn-plan", cmd_spawn_plan,
	  "spawn-plan [OPTIONS]            parallel spawn plan of a malleable MPI expansion" },
	{ "release", cmd_release,
	  "release [--job J] [--dry-run] [--allow-step S] [--wait-idle SECONDS] NODELIST  give a running job's nodes back to Slurm" },
	{ "map", cmd_map,
	  "map --topology DESC [--nodes N] -n NTASKS [--psi-* options] [--env] [--format plain|json|svg]  (see psiplace map --help)" },
	{ "rank", cmd_rank,
	  "rank --policy POLICY [--priority EXPR] --table TABLE.csv [--job nodes=K,cpus=C,mem=M] "
	  "[--seed N] [--explain]" },
	{ "simulate", cmd_simulate,
	  "simulate --trace FILE (--table TABLE.csv | --scontrol FILE) [--policy A,B,...] [OPTIONS]  "
	  "replay a workload under each policy (see psiplace simulate --help)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("psiplace: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int cli_getopt(int argc, char **argv, const struct option *longopts, int *longindex,
	       const char *cmd)
{
	int c;

	opterr = 0;
	if (longindex)
		*longindex = -1;
	c = getopt_long(argc, argv, ":h", longopts, longindex);
	if (c == 'h')
		return CLI_OPT_HELP;
	if (c == ':') {
		cli_usage_error("%s: option '%s' needs a value; see psiplace %s --help", cmd,
				argv[optind - 1], cmd);
		return CLI_OPT_BAD;
	}
	if (c == '?') {
		cli_usage_error("%s: unknown option '%s'; see psiplace %s --help", cmd,
				argv[optind - 1], cmd);
		return CLI_OPT_BAD;
	}
	return c;
}

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: psiplace COMMAND [OPTIONS]\ncommands:\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  psiplace %s\n", commands[i].usage);
	fputs("  psiplace --version\nSee psiplace(1) and psiplace(8).\n", f);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		/* The plugins beside it load only into this Slurm release. */
		printf("psiplace %s (built for Slurm %s)\n", PSIPLACE_VERSION,
		       PSIPLACE_SLURM_VERSION_STRING);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return cli_usage_error("unknown command '%s'; see psiplace --help", argv[1]);
}
