/* psiplace map: the command line, with the --psi-* options of
 * options.def taken by getopt_long and checked one by one as the SPANK
 * option callbacks check them. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "map_args.h"
#include "psiplace/options.h"
#include "psiplace/textparse.h"

/* getopt_long values: the table's options from OPT_PSI on. */
enum {
	OPT_TOPOLOGY = 0x100,
	OPT_NODES,
	OPT_TPN,
	OPT_ENV,
	OPT_FORMAT,
	OPT_CORES,
	OPT_NODELIST,
	OPT_PSI = 0x200,
};

static const struct {
	struct option lo;
	const char *arg, *help;
} own_options[] = {
	{ { "topology", required_argument, NULL, OPT_TOPOLOGY }, "DESC",
	  "hwloc XML file or synthetic description of a node; repeat for the next nodes" },
	{ { "nodes", required_argument, NULL, OPT_NODES }, "N",
	  "number of nodes (default: one per --topology; the last one repeats)" },
	{ { "ntasks", required_argument, NULL, 'n' }, "NTASKS", "number of tasks" },
	{ { "tasks-per-node", required_argument, NULL, OPT_TPN }, "LIST",
	  "tasks on each node: one count, or one per node" },
	{ { "cores", required_argument, NULL, OPT_CORES }, "LIST",
	  "the step's cores on every node, Slurm's core ids (scontrol show job -d: CPU_IDs); default: whole nodes" },
	{ { "nodelist", required_argument, NULL, OPT_NODELIST }, "LIST",
	  "node names for the process sets (--psi-pset*), a Slurm hostlist such as n[1-4]; default: node0, node1, ..." },
	{ { "env", no_argument, NULL, OPT_ENV }, NULL,
	  "read the PSI_* and OMPI_MCA_rmaps_lama_* variables too" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, "plain|json|svg", "output format" },
	{ { "help", no_argument, NULL, 'h' }, NULL, "this text" },
};

#define NOWN (sizeof(own_options) / sizeof(own_options[0]))

static const char usage_line[] =
	"psiplace map --topology DESC [--topology DESC ...] [--nodes N] -n NTASKS "
	"[--tasks-per-node LIST] [--cores LIST] [--nodelist LIST] [--psi-* options] [--env] [--format plain|json|svg]";

void map_args_init(struct map_args *a)
{
	memset(a, 0, sizeof(*a));
	psiplace_opts_init(&a->opts);
	psiplace_siteconf_init(&a->site);
	a->site.allow_user_cpumap = true;
}

void map_args_free(struct map_args *a)
{
	psiplace_opts_free(&a->opts);
	psiplace_siteconf_free(&a->site);
}

static void help_line(FILE *f, char short_name, const char *name, const char *arg,
		      const char *text)
{
	char left[64], sn[8] = "";

	if (short_name)
		snprintf(sn, sizeof(sn), "-%c, ", short_name);
	snprintf(left, sizeof(left), "%s--%s%s%s", sn, name, arg ? "=" : "", arg ? arg : "");
	fprintf(f, "  %-30s %s\n", left, text);
}

void map_help(FILE *f)
{
	char text[320];
	size_t i;
	int g, o;

	fprintf(f, "usage: %s\n\n", usage_line);
	for (i = 0; i < NOWN; i++)
		help_line(f, own_options[i].lo.val < 0x80 ? (char)own_options[i].lo.val : 0,
			  own_options[i].lo.name, own_options[i].arg, own_options[i].help);
	for (g = 0; g < PSIPLACE_OPTGRP_COUNT; g++) {
		fprintf(f, "\n%s%s:\n", psiplace_opt_group_name(g),
			g == PSIPLACE_OPTGRP_ALLOCATION ? " (checked as srun checks them; no effect on one map)" : "");
		for (o = 0; o < PSIPLACE_OPT_COUNT; o++) {
			if ((int)psiplace_opt_table[o].group != g)
				continue;
			psiplace_opt_usage(o, text, sizeof(text));
			help_line(f, 0, psiplace_opt_table[o].name, psiplace_opt_table[o].arg, text);
		}
	}
}

static int parse_count(const char *opt, const char *s, unsigned long max, unsigned long *v)
{
	char q[80];
	uint64_t u;

	if (s && psiplace_parse_u64(s, strlen(s), max, &u) && u >= 1) {
		*v = (unsigned long)u;
		return 0;
	}
	psiplace_quote(q, sizeof(q), s ? s : "", 40);
	return cli_usage_error("%s: '%s' is not an integer from 1 to %lu", opt, q, max);
}

/* One --psi-* option, checked alone as the SPANK option callback does. */
static int psi_option(struct map_args *a, enum psiplace_opt o, const char *value)
{
	psiplace_error_t err;

	if (psiplace_user_request_check_option(o, value, &a->site, &err) < 0)
		return cli_usage_error("%s", err.text);
	if (psiplace_opts_add(&a->opts, o, value) < 0)
		return cli_usage_error("%s: too long or out of memory", psiplace_opt_table[o].dashed);
	return 0;
}

static int own_option(struct map_args *a, int c, const char *arg, const char *word)
{
	switch (c) {
	case OPT_TOPOLOGY:
		if (a->ntopo == MAP_MAX_TOPOLOGIES)
			return cli_usage_error("--topology: at most %d given", MAP_MAX_TOPOLOGIES);
		a->topo_desc[a->ntopo++] = arg;
		return 0;
	case OPT_NODES:
		return parse_count("--nodes", arg, MAP_MAX_NODES, &a->nodes);
	case 'n':
		a->have_ntasks = 1;
		return parse_count(word, arg, MAP_MAX_TASKS, &a->ntasks);
	case OPT_TPN:
		a->tpn = arg;
		return 0;
	case OPT_CORES:
		a->cores = arg;
		return 0;
	case OPT_NODELIST:
		a->nodelist = arg;
		return 0;
	case OPT_ENV:
		a->env = 1;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "plain"))
			a->format = MAP_FMT_PLAIN;
		else if (!strcmp(arg, "json"))
			a->format = MAP_FMT_JSON;
		else if (!strcmp(arg, "svg"))
			a->format = MAP_FMT_SVG;
		else
			return cli_usage_error("--format: '%s' is not a format; accepted: plain json svg", arg);
		return 0;
	}
	return cli_usage_error("map: unexpected option code %d", c);
}

/* The option word getopt_long just looked at, "--name" without "=value". */
static const char *word_of(char **argv, char *buf, size_t len)
{
	const char *w = argv[optind - 1];
	size_t n = strcspn(w, "=");

	psiplace_quote(buf, len, w, 40);
	if (n < strlen(buf))
		buf[n] = '\0';
	return buf;
}

static int getopt_error(int c, char **argv)
{
	char w[80];
	int o = optopt - OPT_PSI;

	if (c == ':' && optopt >= OPT_PSI)
		return cli_usage_error("%s: requires a value", psiplace_opt_table[o].dashed);
	if (c == ':')
		return cli_usage_error("%s: requires a value", word_of(argv, w, sizeof(w)));
	if (optopt >= OPT_PSI) {
		const char *eq = strchr(argv[optind - 1], '=');

		psiplace_quote(w, sizeof(w), eq ? eq + 1 : "", 40);
		return cli_usage_error("%s: takes no value (given '%s')", psiplace_opt_table[o].dashed, w);
	}
	if (optopt)
		return cli_usage_error("map: unknown option '-%c'; see psiplace map --help", optopt);
	return cli_usage_error("map: unknown option '%s'; see psiplace map --help",
			       word_of(argv, w, sizeof(w)));
}

static int check_counts(struct map_args *a)
{
	if (a->ntopo == 0)
		return cli_usage_error("map: --topology is required; usage: %s", usage_line);
	if (!a->have_ntasks && !a->tpn)
		return cli_usage_error("map: -n NTASKS is required; usage: %s", usage_line);
	if (!a->nodes)
		a->nodes = a->ntopo;
	if (a->nodes < a->ntopo)
		return cli_usage_error("--nodes %lu is less than the %u topologies given", a->nodes,
				       a->ntopo);
	return 0;
}

int map_args_parse(struct map_args *a, int argc, char **argv)
{
	struct option lo[NOWN + PSIPLACE_OPT_COUNT + 1];
	char w[80];
	size_t i;
	int c, o, li;

	for (i = 0; i < NOWN; i++)
		lo[i] = own_options[i].lo;
	for (o = 0; o < PSIPLACE_OPT_COUNT; o++)
		lo[NOWN + o] = (struct option){ psiplace_opt_table[o].name,
						psiplace_opt_has_arg(o) ? required_argument : no_argument,
						NULL, OPT_PSI + o };
	memset(&lo[NOWN + PSIPLACE_OPT_COUNT], 0, sizeof(lo[0]));
	optind = 0; /* glibc: start afresh (the tests parse many lines) */
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, "+:n:h", lo, &li)) != -1) {
		if (c == 'h') {
			map_help(stdout);
			return 3;
		}
		if (c == '?' || c == ':')
			return getopt_error(c, argv);
		if (c >= OPT_PSI && psi_option(a, c - OPT_PSI, optarg))
			return 2;
		snprintf(w, sizeof(w), "%s%s", li >= 0 ? "--" : "-", li >= 0 ? lo[li].name : "n");
		if (c < OPT_PSI && own_option(a, c, optarg, w))
			return 2;
	}
	if (optind < argc) {
		psiplace_quote(w, sizeof(w), argv[optind], 40);
		return cli_usage_error("map: unexpected argument '%s'; see psiplace map --help", w);
	}
	return check_counts(a);
}

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

int map_args_gather(const struct map_args *a, struct psiplace_user_request *r, psiplace_error_t *err)
{
	struct psiplace_user_request_src src = { a->env ? env_get : NULL, NULL, &a->opts, &a->site, false };

	return psiplace_user_request_gather(&src, r, err);
}
