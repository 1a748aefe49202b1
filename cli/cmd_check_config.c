/* psiplace check-config: validate a site's psiplace configuration the way
 * the plugins read it — the psiplace line of plugstack.conf, psiplace.conf
 * and the metrics file it names — and print what they will use. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "psiplace/error.h"
#include "psiplace/metrics_file.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/plugstack_line.h"

static const char check_usage[] =
	"check-config [PLUGSTACK.CONF] [--psiplace-conf FILE]";

/* FILE beside slurm.conf ($SLURM_CONF, else /etc/slurm/slurm.conf), where
 * the plugins look for it. */
static void beside_slurm_conf(const char *file, char *out, size_t len)
{
	const char *conf = getenv("SLURM_CONF");
	char *copy = strdup(conf && *conf ? conf : "/etc/slurm/slurm.conf");

	snprintf(out, len, "%s/%s", copy ? dirname(copy) : "/etc/slurm", file);
	free(copy);
}

static void print_site(const struct psiplace_siteconf *c)
{
	printf("NodeAllocationPolicy=%s\n", psiplace_policy_name(c->policy));
	printf("PriorityFunction=%s\n", c->priority_function ? c->priority_function : "");
	printf("NodesSort=%s\n", c->nodes_sort ? c->nodes_sort : "");
	printf("DefaultPlacement=%s\n", c->placement == PSIPLACE_PLACEMENT_PSI ? "psi" : "slurm");
	printf("PsiStrict=%s\n", c->psi_strict ? "yes" : "no");
	printf("PolicyOverridesWeight=%s\n", c->policy_overrides_weight ? "yes" : "no");
	printf("AllowUserCpumap=%s\n", c->allow_user_cpumap ? "yes" : "no");
	printf("TopologyFile=%s\n", c->topology_file ? c->topology_file : "");
	printf("RankedTier=%u\n", c->ranked_tier);
	printf("PreferPoweredUp=%s\n", c->prefer_powered_up ? "yes" : "no");
	printf("Verbose=%s\n", c->verbose ? "yes" : "no");
}

static void warn_line(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "psiplace: warning: %s\n", msg);
}

/* psiplace.conf (optional) and the metrics file it names. */
static int check_psiconf(const char *path)
{
	struct psiplace_psiconf pc;
	struct psiplace_metrics m;
	psiplace_error_t err;

	if (psiplace_psiconf_read_file(path, true, &pc, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	printf("psiplace.conf=%s (%zu nodes)\n", path, pc.n);
	/* what a job tried in each partition gets unless it asks otherwise */
	for (size_t i = 0; i < pc.nparts; i++) {
		const struct psiplace_partconf *p = &pc.parts[i];

		printf("PartitionName=%s NodeAllocationPolicy=%s", p->name,
		       p->has_policy ? psiplace_policy_name(p->policy) : "(cluster default)");
		if (p->priority_function)
			printf(" PriorityFunction=\"%s\"", p->priority_function);
		printf("\n");
	}
	if (pc.metrics_file) {
		if (psiplace_metrics_read_file(pc.metrics_file, &m, warn_line, NULL, &err) < 0) {
			/* Not fatal for the daemons either: it is re-read when it appears. */
			fprintf(stderr, "psiplace: warning: MetricsFile: %s\n", err.text);
		} else {
			printf("MetricsFile=%s (%zu nodes, %zu lines skipped%s)\n", pc.metrics_file,
			       m.n, m.skipped, m.partial ? ", unterminated last line ignored" : "");
			psiplace_metrics_free(&m);
		}
	}
	psiplace_psiconf_free(&pc);
	return 0;
}

int cmd_check_config(int argc, char **argv)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;
	char plugstack[4096], psiconf[4096];
	static const struct option longopts[] = {
		{ "psiplace-conf", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *stack_arg = NULL, *conf_arg = NULL;
	int opt, rc;

	optind = 1;
	while ((opt = cli_getopt(argc, argv, longopts, NULL, "check-config")) != -1) {
		if (opt == CLI_OPT_HELP) {
			printf("usage: psiplace %s\n", check_usage);
			return 0;
		}
		if (opt == CLI_OPT_BAD)
			return 2;
		conf_arg = optarg;
	}
	if (optind < argc)
		stack_arg = argv[optind++];
	if (optind < argc)
		return cli_usage_error("check-config: unexpected '%s'; usage: psiplace %s",
				       argv[optind], check_usage);
	if (stack_arg)
		snprintf(plugstack, sizeof(plugstack), "%s", stack_arg);
	else
		beside_slurm_conf("plugstack.conf", plugstack, sizeof(plugstack));
	if (conf_arg)
		snprintf(psiconf, sizeof(psiconf), "%s", conf_arg);
	else
		beside_slurm_conf("psiplace.conf", psiconf, sizeof(psiconf));

	psiplace_siteconf_init(&c);
	if (psiplace_siteconf_read_plugstack(plugstack, &c, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	print_site(&c);
	psiplace_siteconf_free(&c);
	rc = check_psiconf(psiconf);
	return rc;
}
