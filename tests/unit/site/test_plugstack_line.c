/* The psiplace line of plugstack.conf: arguments and locating the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/plugstack_line.h"

static int parse(struct psiplace_siteconf *c, psiplace_error_t *err, int argc, ...)
{
	char *argv[32];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return psiplace_siteconf_parse(argc, argv, c, err);
}

Test(siteconf, defaults_without_arguments)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert_eq(parse(&c, &err, 0), 0);
	cr_assert_eq(c.policy, PSIPLACE_POLICY_NONE);
	cr_assert_eq(c.placement, PSIPLACE_PLACEMENT_SLURM);
	cr_assert(!c.psi_strict && !c.policy_overrides_weight && !c.allow_user_cpumap && !c.verbose);
	cr_assert_null(c.priority_function);
	psiplace_siteconf_free(&c);
}

Test(siteconf, every_key_case_insensitive)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert(c.prefer_powered_up, "PreferPoweredUp defaults to yes");
	cr_assert_eq(parse(&c, &err, 10, "nodeallocationpolicy=lastavailable", "PriorityFunction=SPEED",
			   "NodesSort=load", "DefaultPlacement=PSI", "PsiStrict=yes",
			   "PolicyOverridesWeight=true", "AllowUserCpumap=1", "TopologyFile=/t/%n.xml",
			   "preferpoweredup=no", "Verbose"),
		     0, "%s", err.text);
	cr_assert_eq(c.policy, PSIPLACE_POLICY_LASTAVAILABLE);
	cr_assert_str_eq(c.priority_function, "SPEED");
	cr_assert_str_eq(c.nodes_sort, "load");
	cr_assert_eq(c.placement, PSIPLACE_PLACEMENT_PSI);
	cr_assert(c.psi_strict && c.policy_overrides_weight && c.allow_user_cpumap && c.verbose);
	cr_assert(!c.prefer_powered_up);
	cr_assert_str_eq(c.topology_file, "/t/%n.xml");
	psiplace_siteconf_free(&c);
}

Test(siteconf, ranked_tier_default_range_and_errors)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert_eq(c.ranked_tier, PSIPLACE_SELECT_MIN_DISTINCT);
	cr_assert_eq(parse(&c, &err, 1, "rankedtier=0"), 0, "%s", err.text);
	cr_assert_eq(c.ranked_tier, 0);
	cr_assert_eq(parse(&c, &err, 1, "RankedTier=1000000"), 0, "%s", err.text);
	cr_assert_eq(c.ranked_tier, 1000000);
	/* refused with the option, the value and the range; c unchanged */
	cr_assert_lt(parse(&c, &err, 1, "RankedTier=1000001"), 0);
	cr_assert_str_eq(err.text, "RankedTier: '1000001' is not a number of nodes 0..1000000");
	cr_assert_lt(parse(&c, &err, 1, "RankedTier=-1"), 0);
	cr_assert_lt(parse(&c, &err, 1, "RankedTier=8x"), 0);
	cr_assert(strstr(err.text, "'8x'"), "%s", err.text);
	cr_assert_eq(c.ranked_tier, 1000000);
	psiplace_siteconf_free(&c);
	cr_assert_eq(psiplace_select_distinct(3, 0, 100), 3);
	cr_assert_eq(psiplace_select_distinct(3, 16, 100), 19);
	cr_assert_eq(psiplace_select_distinct(3, 16, 10), 10);
	cr_assert_eq(psiplace_select_distinct(UINT32_MAX, 1000000, UINT32_MAX), UINT32_MAX);
}

Test(siteconf, pset_query_on_by_default_off_with_no)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert(c.pset_query);
	cr_assert_eq(parse(&c, &err, 1, "psetquery=no"), 0, "%s", err.text);
	cr_assert(!c.pset_query);
	cr_assert_eq(parse(&c, &err, 1, "PsetQuery=yes"), 0, "%s", err.text);
	cr_assert(c.pset_query);
	cr_assert_lt(parse(&c, &err, 1, "PsetQuery=maybe"), 0);
	cr_assert(strstr(err.text, "PsetQuery"), "%s", err.text);
	psiplace_siteconf_free(&c);
}

Test(siteconf, quoted_value_split_by_spank_is_joined)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert_eq(parse(&c, &err, 5, "PriorityFunction=\"2*SPEED", "-", "LOAD\"", "Verbose=no",
			   "NodeAllocationPolicy=PRIORITY"),
		     0, "%s", err.text);
	cr_assert_str_eq(c.priority_function, "2*SPEED - LOAD");
	cr_assert_eq(c.policy, PSIPLACE_POLICY_PRIORITY);
	cr_assert(!c.verbose);
	psiplace_siteconf_free(&c);
}

Test(siteconf, errors_name_argument_value_and_accepted)
{
	static const struct {
		const char *arg, *msg;
	} cases[] = {
		{ "Bogus=1", "unknown argument 'Bogus'; accepted keys: NodeAllocationPolicy, PriorityFunction, NodesSort, DefaultPlacement, PsiStrict, PolicyOverridesWeight, AllowUserCpumap, TopologyFile, PsetQuery, RankedTier, PreferPoweredUp, Verbose" },
		{ "PsiStrict=maybe", "PsiStrict: 'maybe' is not yes or no" },
		{ "PreferPoweredUp=sometimes", "PreferPoweredUp: 'sometimes' is not yes or no" },
		{ "DefaultPlacement=lama", "DefaultPlacement: 'lama' is not slurm or psi" },
		{ "NodeAllocationPolicy=fast", "NodeAllocationPolicy: 'fast' is not a policy; accepted: FIRSTAVAILABLE, LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY (case-insensitive) or Moab's InReportedOrder, InReverseReportedOrder, ProcessorLoad, MinimumConfiguredResources, ProcessorSpeedBalance, NodeSpeed, CustomPriority" },
		{ "TopologyFile=", "TopologyFile: empty value" },
		{ "PsiStrict", "'PsiStrict' is not KEY=VALUE; accepted keys: NodeAllocationPolicy, PriorityFunction, NodesSort, DefaultPlacement, PsiStrict, PolicyOverridesWeight, AllowUserCpumap, TopologyFile, PsetQuery, RankedTier, PreferPoweredUp, Verbose" },
		{ "PriorityFunction=\"SPEED", "'PriorityFunction=\"SPEED': unterminated double quote" },
		{ "Verbose=\x01", "Verbose: '\\x01' is not yes or no" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct psiplace_siteconf c;
		psiplace_error_t err = { "" };

		psiplace_siteconf_init(&c);
		cr_assert_eq(parse(&c, &err, 1, cases[i].arg), -1, "%s accepted", cases[i].arg);
		cr_expect_str_eq(err.text, cases[i].msg);
		psiplace_siteconf_free(&c);
	}
}

Test(siteconf, error_leaves_previous_configuration)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert_eq(parse(&c, &err, 2, "NodeAllocationPolicy=FIRSTAVAILABLE", "PriorityFunction=LOAD"), 0);
	cr_assert_eq(parse(&c, &err, 2, "NodeAllocationPolicy=LASTAVAILABLE", "PsiStrict=x"), -1);
	cr_assert_eq(c.policy, PSIPLACE_POLICY_FIRSTAVAILABLE);
	cr_assert_str_eq(c.priority_function, "LOAD");
	psiplace_siteconf_free(&c);
}

static const char *write_tmp(const char *dir, const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

Test(siteconf, plugstack_line_found_with_comments_and_other_plugins)
{
	static const char text[] =
		"# cluster plugins\n"
		"optional /usr/lib/other.so a=b\n"
		"required   /opt/x/psiplace.so NodeAllocationPolicy=FASTEST  # the default\n"
		"required /opt/y/psiplace.so NodeAllocationPolicy=CPULOAD\n";
	psiplace_error_t err;
	char **argv;
	int argc, line;

	cr_assert_eq(psiplace_plugstack_scan(text, strlen(text), NULL, NULL, &argc, &argv, &line,
					     &err),
		     0);
	cr_assert_not_null(argv);
	cr_assert_eq(argc, 1);
	cr_assert_str_eq(argv[0], "NodeAllocationPolicy=FASTEST");
	cr_assert_eq(line, 3);
	psiplace_argv_free(argv);
}

Test(siteconf, plugstack_without_psiplace_gives_defaults)
{
	char dir[] = "/tmp/psiplace-siteconf-XXXXXX";
	psiplace_error_t err;
	struct psiplace_siteconf c;

	cr_assert_not_null(mkdtemp(dir));
	psiplace_siteconf_init(&c);
	cr_assert_eq(psiplace_siteconf_read_plugstack(
			     write_tmp(dir, "plugstack.conf", "optional /x/other.so\n"), &c, &err),
		     0);
	cr_assert_eq(c.policy, PSIPLACE_POLICY_NONE);
}

Test(siteconf, plugstack_include_relative_glob)
{
	char dir[] = "/tmp/psiplace-siteconf-XXXXXX", sub[600], top[600];
	psiplace_error_t err;
	struct psiplace_siteconf c;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/plugstack.conf.d", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	write_tmp(sub, "psiplace.conf", "\n\nrequired psiplace.so NodeAllocationPolicy=lastavailable\n");
	snprintf(top, sizeof(top), "%s", write_tmp(dir, "plugstack.conf", "include plugstack.conf.d/*.conf\n"));
	psiplace_siteconf_init(&c);
	cr_assert_eq(psiplace_siteconf_read_plugstack(top, &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.policy, PSIPLACE_POLICY_LASTAVAILABLE);
}

Test(siteconf, plugstack_bad_argument_reports_file_and_line)
{
	char dir[] = "/tmp/psiplace-siteconf-XXXXXX", want[700];
	psiplace_error_t err;
	struct psiplace_siteconf c;
	const char *path;

	cr_assert_not_null(mkdtemp(dir));
	path = write_tmp(dir, "plugstack.conf", "# x\nrequired /a/psiplace.so PsiStrict=perhaps\n");
	psiplace_siteconf_init(&c);
	cr_assert_eq(psiplace_siteconf_read_plugstack(path, &c, &err), -1);
	snprintf(want, sizeof(want), "%s:2: psiplace: PsiStrict: 'perhaps' is not yes or no", path);
	cr_assert_str_eq(err.text, want);
}

Test(siteconf, plugstack_self_include_is_bounded)
{
	char dir[] = "/tmp/psiplace-siteconf-XXXXXX";
	psiplace_error_t err;
	struct psiplace_siteconf c;
	const char *path;

	cr_assert_not_null(mkdtemp(dir));
	path = write_tmp(dir, "plugstack.conf", "include plugstack.conf\n");
	psiplace_siteconf_init(&c);
	cr_assert_eq(psiplace_siteconf_read_plugstack(path, &c, &err), -1);
	cr_assert(strstr(err.text, "includes nested deeper than 8"), "%s", err.text);
}

Test(siteconf, topology_path_replaces_every_percent_n)
{
	psiplace_error_t err;
	char buf[64];

	cr_assert_eq(psiplace_topology_path("/etc/topo/%n/%n.xml", "n3", buf, sizeof(buf), &err), 0);
	cr_assert_str_eq(buf, "/etc/topo/n3/n3.xml");
	cr_assert_eq(psiplace_topology_path("pack:2 core:4", "n3", buf, sizeof(buf), &err), 0);
	cr_assert_str_eq(buf, "pack:2 core:4");
	cr_assert_eq(psiplace_topology_path("pack:2 core:4", NULL, buf, sizeof(buf), &err), 0);
	cr_assert_str_eq(buf, "pack:2 core:4");
	cr_assert_eq(psiplace_topology_path("/t/%n.xml", "node-with-a-long-name", buf, 10, &err), -1);
	cr_assert_str_eq(buf, "");
	cr_assert_str_eq(err.text, "TopologyFile: the path for node 'node-with-a-long-name' is longer than 9 bytes");
}

/* %n comes from slurmd, yet a name never leads out of the directory
 * (issue 18 finding 7: "..", "../../tmp/x" were taken as they came). */
Test(siteconf, topology_path_refuses_names_leaving_the_directory)
{
	psiplace_error_t err;
	static const char *const bad[] = { "..", ".", "../../tmp/x", "a/b", "/etc/passwd", "" };
	char buf[64], want[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(psiplace_topology_path("/etc/topo/%n.xml", bad[i], buf, sizeof(buf), &err), -1,
			     "%s accepted", bad[i]);
		snprintf(want, sizeof(want),
			 "TopologyFile: node name '%s' is not accepted for %%n; accepted: a name without '/', not '.' or '..'",
			 bad[i]);
		cr_assert_str_eq(err.text, want);
		cr_assert_str_eq(buf, "");
	}
	cr_assert_eq(psiplace_topology_path("/etc/topo/%n.xml", NULL, buf, sizeof(buf), &err), -1);
	cr_assert_eq(psiplace_topology_path("/etc/topo/%n.xml", "..n1", buf, sizeof(buf), &err), 0);
	cr_assert_str_eq(buf, "/etc/topo/..n1.xml");
}
