/* psiplace check-config: validate a plugstack.conf's psiplace line the way
 * both plugins will read it. */
#include <stdio.h>

#include "commands.h"
#include "psiplace/error.h"
#include "psiplace/siteconf.h"

int cmd_check_config(int argc, char **argv)
{
	struct psiplace_siteconf c;
	char err[PSIPLACE_ERRLEN];

	if (argc != 2)
		return cli_usage_error("check-config takes one argument, the plugstack.conf path");
	psiplace_siteconf_init(&c);
	if (psiplace_siteconf_read_plugstack(argv[1], &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err);
		return 1;
	}
	printf("NodeAllocationPolicy=%s\n", psiplace_policy_name(c.policy));
	printf("PriorityFunction=%s\n", c.priority_function ? c.priority_function : "");
	printf("NodesSort=%s\n", c.nodes_sort ? c.nodes_sort : "");
	printf("DefaultPlacement=%s\n", c.placement == PSIPLACE_PLACEMENT_PSI ? "psi" : "slurm");
	printf("PsiStrict=%s\n", c.psi_strict ? "yes" : "no");
	printf("PolicyOverridesWeight=%s\n", c.policy_overrides_weight ? "yes" : "no");
	printf("AllowUserCpumap=%s\n", c.allow_user_cpumap ? "yes" : "no");
	printf("TopologyFile=%s\n", c.topology_file ? c.topology_file : "");
	printf("Verbose=%s\n", c.verbose ? "yes" : "no");
	psiplace_siteconf_free(&c);
	return 0;
}
