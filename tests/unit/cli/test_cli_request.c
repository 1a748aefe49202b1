/* psiplace map takes the --psi-* options as srun does: for a table of
 * requests, the request the CLI gathers equals the one built from the
 * same options delivered the SPANK way (option callbacks by registered
 * value, as slurmstepd gets them) and the srun way (the client's command
 * line scan of slurm_spank_init).  Its help lists every option. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "map_args.h"
#include "psiplace/options.h"
#include "psiplace/user_request.h"

static char usage_error[512];

/* cli/main.c's, recording the line instead. */
int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(usage_error, sizeof(usage_error), fmt, ap);
	va_end(ap);
	return 2;
}

static const char *real_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

struct req_case {
	const char *name;
	const char *words[8];   /* --psi-* words as srun gets them */
	const char *env[4];     /* NAME=value, set for the case (the CLI with --env) */
};

static const struct req_case cases[] = {
	{ "lama_simple", { "--psi-map-by=socket", "--psi-bind-to=core" }, { NULL } },
	{ "lama_expert", { "--psi-lama-map=scbnh", "--psi-lama-bind=2c", "--psi-lama-mppr=1:c,4:n",
			   "--psi-lama-order=s", "--psi-oversubscribe" }, { NULL } },
	{ "lama_option_beats_variable", { "--psi-lama-map=csbnh" },
	  { "OMPI_MCA_rmaps_lama_map=snbch", "OMPI_MCA_rmaps_lama_ordering=s" } },
	{ "lama_variables_only", { NULL }, { "OMPI_MCA_rmaps_lama_map=nsbch", "OMPI_MCA_rmaps_lama_bind=1s" } },
	{ "lama_map_by_beats_variable", { "--psi-map-by=numa" }, { "OMPI_MCA_rmaps_lama_map=snbch" } },
	{ "psi_tpp", { "--psi-tpp=2" }, { NULL } },
	{ "psi_cpumap_loop", { "--psi-cpumap=7-4", "--psi-loop-nodes-first", "--psi-no-bindmem" }, { NULL } },
	{ "psi_overbook_nopin", { "--psi-overbook", "--psi-no-pinproc" }, { NULL } },
	{ "psi_variables", { "--psi-tpp=3" }, { "PSI_TPP=2", "PSI_LOOP_NODES_FIRST=1", "__PSI_NO_MEMBIND=1" } },
	{ "psi_omp_threads", { "--psi-exclusive" }, { "OMP_NUM_THREADS=4" } },
	{ "node_choice_and_diagnostics", { "--psi-alloc-policy=minresource", "--psi-nodes-sort=load",
					   "--psi-hosts=n[1-2]", "--psi-wait", "--psi-verbose",
					   "--psi-dry-run" }, { NULL } },
	{ "nothing", { NULL }, { NULL } },
};

static void set_env(const struct req_case *c, bool set)
{
	char name[64];
	int i;

	for (i = 0; c->env[i]; i++) {
		size_t n = strcspn(c->env[i], "=");

		snprintf(name, sizeof(name), "%.*s", (int)n, c->env[i]);
		if (set)
			setenv(name, c->env[i] + n + 1, 1);
		else
			unsetenv(name);
	}
}

static void site_of_cli(struct psiplace_siteconf *site)
{
	char *av[] = { "AllowUserCpumap=yes" };
	psiplace_error_t err;

	psiplace_siteconf_init(site);
	cr_assert_eq(psiplace_siteconf_parse(1, av, site, &err), 0, "%s", err.text);
}

/* The CLI: psiplace map --topology ... -n 4 [--env] WORDS, the values of
 * every other option as a separate word (getopt_long's other form). */
static int cli_gather(const struct req_case *c, struct psiplace_user_request *r, psiplace_error_t *err)
{
	char *argv[32], split[8][128];
	struct map_args a;
	int argc = 0, i, rc;

	argv[argc++] = "map";
	argv[argc++] = "--topology";
	argv[argc++] = "pack:2 core:4 pu:2";
	argv[argc++] = "-n";
	argv[argc++] = "4";
	if (c->env[0])
		argv[argc++] = "--env";
	for (i = 0; c->words[i]; i++) {
		const char *eq = strchr(c->words[i], '=');

		if (eq && i % 2) {
			snprintf(split[i], sizeof(split[i]), "%.*s", (int)(eq - c->words[i]), c->words[i]);
			argv[argc++] = split[i];
			argv[argc++] = (char *)eq + 1;
		} else {
			argv[argc++] = (char *)c->words[i];
		}
	}
	argv[argc] = NULL;
	map_args_init(&a);
	rc = map_args_parse(&a, argc, argv);
	cr_assert_eq(rc, 0, "%s: %s", c->name, usage_error);
	rc = map_args_gather(&a, r, err);
	map_args_free(&a);
	return rc;
}

/* SPANK: each option's callback gets its registered value (the table
 * index, checked by test_spank_options) and its argument; the local
 * context checks it alone, slurmstepd gathers with the job's variables. */
static int spank_gather(const struct req_case *c, const struct psiplace_siteconf *site,
			struct psiplace_user_request *r, psiplace_error_t *err)
{
	struct psiplace_opts opts;
	struct psiplace_user_request_src src = { real_getenv, NULL, &opts, site, false };
	int i, rc;

	psiplace_opts_init(&opts);
	for (i = 0; c->words[i]; i++) {
		char name[64];
		const char *eq = strchr(c->words[i], '=');
		int val;

		snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - c->words[i] - 2 : 62), c->words[i] + 2);
		val = psiplace_opt_lookup(name);
		cr_assert_geq(val, 0, "%s", name);
		cr_assert_eq(psiplace_user_request_check_option(val, eq ? eq + 1 : NULL, site, err), 0,
			     "%s: %s", c->words[i], err->text);
		cr_assert_eq(psiplace_opts_set(&opts, val, eq ? eq + 1 : NULL), 0);
	}
	rc = psiplace_user_request_gather(&src, r, err);
	psiplace_opts_free(&opts);
	return rc;
}

/* srun: slurm_spank_init scans the client's own command line. */
static int srun_gather(const struct req_case *c, const struct psiplace_siteconf *site,
		       struct psiplace_user_request *r, psiplace_error_t *err)
{
	char *argv[16];
	struct psiplace_opts opts;
	struct psiplace_slurm_cmdline sl;
	struct psiplace_user_request_src src = { real_getenv, NULL, &opts, site, false };
	int argc = 0, i, rc;

	argv[argc++] = "srun";
	for (i = 0; c->words[i]; i++)
		argv[argc++] = (char *)c->words[i];
	argv[argc++] = "hostname";
	argv[argc] = NULL;
	psiplace_opts_init(&opts);
	cr_assert_eq(psiplace_cmdline_scan(argc, argv, &opts, &sl, err), 0, "%s", err->text);
	rc = psiplace_user_request_gather(&src, r, err);
	psiplace_opts_free(&opts);
	return rc;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

#define SAME_STR(f) cr_assert(str_same(a->f, b->f), "%s (%s): " #f " '%s' != '%s'", c, how, \
			      a->f ? a->f : "(null)", b->f ? b->f : "(null)")
#define SAME(f) cr_assert_eq(a->f, b->f, "%s (%s): " #f, c, how)

static void assert_same_request(const char *c, const char *how, const struct psiplace_user_request *a,
				const struct psiplace_user_request *b)
{
	size_t i;

	SAME(policy);
	SAME_STR(priority);
	SAME(nodeset);
	SAME_STR(nodeset_from);
	SAME(sort);
	SAME_STR(sort_from);
	SAME(psi_node_choice);
	SAME(exclusive);
	SAME(overbook);
	SAME(wait);
	SAME(place);
	SAME_STR(place_why);
	SAME(loop_nodes_first);
	SAME(tpp);
	SAME_STR(tpp_from);
	SAME(ncpumap);
	for (i = 0; i < a->ncpumap; i++)
		SAME(cpumap[i]);
	SAME_STR(cpumap_from);
	SAME(pin);
	SAME(bindmem);
	SAME(lama);
	SAME_STR(lama_strings.map_by);
	SAME_STR(lama_strings.map_by_from);
	SAME_STR(lama_strings.bind_to);
	SAME_STR(lama_strings.bind_to_from);
	SAME_STR(lama_strings.map);
	SAME_STR(lama_strings.map_from);
	SAME_STR(lama_strings.bind);
	SAME_STR(lama_strings.bind_from);
	SAME_STR(lama_strings.mppr);
	SAME_STR(lama_strings.mppr_from);
	SAME_STR(lama_strings.order);
	SAME_STR(lama_strings.order_from);
	SAME(lama_strings.oversubscribe);
	SAME(verbose);
	SAME(dry_run);
	SAME(nnotes);
	for (i = 0; i < a->nnotes; i++)
		cr_assert_str_eq(a->notes[i], b->notes[i], "%s (%s)", c, how);
	cr_assert_str_eq(a->warning, b->warning, "%s (%s)", c, how);
	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		SAME_STR(own.val[i]);
}

Test(cli_request, cli_gathers_what_the_plugin_gathers)
{
	struct psiplace_siteconf site;
	size_t k;

	site_of_cli(&site);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct req_case *c = &cases[k];
		struct psiplace_user_request cli, spank, srun;
		psiplace_error_t err;

		set_env(c, true);
		cr_assert_eq(cli_gather(c, &cli, &err), 0, "%s: %s", c->name, err.text);
		cr_assert_eq(spank_gather(c, &site, &spank, &err), 0, "%s: %s", c->name, err.text);
		cr_assert_eq(srun_gather(c, &site, &srun, &err), 0, "%s: %s", c->name, err.text);
		set_env(c, false);
		assert_same_request(c->name, "SPANK callbacks", &cli, &spank);
		assert_same_request(c->name, "srun command line", &cli, &srun);
		psiplace_user_request_free(&cli);
		psiplace_user_request_free(&spank);
		psiplace_user_request_free(&srun);
	}
	psiplace_siteconf_free(&site);
}

/* A spot check that the cases mean what they say. */
Test(cli_request, lama_option_beats_variable_in_the_cli)
{
	struct psiplace_user_request r;
	psiplace_error_t err;

	set_env(&cases[2], true);
	cr_assert_eq(cli_gather(&cases[2], &r, &err), 0, "%s", err.text);
	set_env(&cases[2], false);
	cr_assert(r.lama);
	cr_assert_str_eq(r.lama_strings.map, "csbnh");
	cr_assert_str_eq(r.lama_strings.map_from, "--psi-lama-map");
	cr_assert_str_eq(r.lama_strings.order_from, "OMPI_MCA_rmaps_lama_ordering");
	psiplace_user_request_free(&r);
}

Test(cli_request, same_errors_as_srun)
{
	struct psiplace_user_request r;
	psiplace_error_t err;
	const struct req_case bad = { "bad", { "--psi-tpp=2", "--psi-map-by=socket" }, { NULL } };
	char cli_text[sizeof(err.text)];

	cr_assert_eq(cli_gather(&bad, &r, &err), -1);
	snprintf(cli_text, sizeof(cli_text), "%s", err.text);
	cr_assert_eq(srun_gather(&bad, NULL, &r, &err), -1);
	cr_assert_str_eq(cli_text, err.text);
}

Test(cli_request, help_lists_every_option)
{
	char *text = NULL, usage[320], line[400];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	cr_assert_not_null(f);
	map_help(f);
	fclose(f);
	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? "=" : "", d->arg ? d->arg : "");
		psiplace_opt_usage(i, usage, sizeof(usage));
		snprintf(line, sizeof(line), "  %-30s %s\n", left, usage);
		cr_assert_not_null(strstr(text, line), "psiplace map --help lacks: %s", line);
	}
	for (i = 0; i < PSIPLACE_OPTGRP_COUNT; i++)
		cr_assert_not_null(strstr(text, psiplace_opt_group_name(i)));
	free(text);
}

Test(cli_request, every_table_option_is_parsed)
{
	int i, form;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		for (form = 0; form < 2; form++) {
			const struct psiplace_opt_desc *d = &psiplace_opt_table[i];
			struct map_args a;
			char word[128];
			char *argv[8] = { "map", "--topology", "pack:1 core:2 pu:1", "-n", "1", word, NULL, NULL };
			int argc = 6;

			/* values that pass the check done alone, without a topology */
			static const char *const value[PSIPLACE_OPT_COUNT] = {
				[PSIPLACE_OPT_ALLOC_POLICY] = "CPULOAD", [PSIPLACE_OPT_ALLOC_PRIORITY] = "SPEED",
				[PSIPLACE_OPT_MALLEABLE] = "1-2",
				[PSIPLACE_OPT_NODES] = "0", [PSIPLACE_OPT_HOSTS] = "n1",
				[PSIPLACE_OPT_HOSTFILE] = "/dev/null", [PSIPLACE_OPT_NODES_SORT] = "PROC",
				[PSIPLACE_OPT_TPP] = "1", [PSIPLACE_OPT_CPUMAP] = "0",
				[PSIPLACE_OPT_MAP_BY] = "core", [PSIPLACE_OPT_BIND_TO] = "core",
				[PSIPLACE_OPT_LAMA_MAP] = "cbsnh", [PSIPLACE_OPT_LAMA_BIND] = "1c",
				[PSIPLACE_OPT_LAMA_MPPR] = "1:c", [PSIPLACE_OPT_LAMA_ORDER] = "n",
				[PSIPLACE_OPT_PSET] = "a:0", [PSIPLACE_OPT_PSET_LEVELS] = "node",
			};

			cr_assert_eq(d->arg != NULL, value[i] != NULL, "%s: give a value here", d->name);
			if (d->arg && form) {
				snprintf(word, sizeof(word), "%s", d->dashed);
				argv[argc++] = (char *)value[i];
			} else if (d->arg) {
				snprintf(word, sizeof(word), "%s=%s", d->dashed, value[i]);
			} else {
				snprintf(word, sizeof(word), "%s", d->dashed);
			}
			map_args_init(&a);
			cr_assert_eq(map_args_parse(&a, argc, argv), 0, "%s: %s", word, usage_error);
			cr_assert_not_null(a.opts.val[i], "%s not parsed", word);
			cr_assert_str_eq(a.opts.val[i], d->arg ? value[i] : "");
			map_args_free(&a);
		}
}

Test(cli_request, flag_with_value_and_missing_value)
{
	struct map_args a;
	char *flag[] = { "map", "--psi-overbook=yes", NULL };
	char *missing[] = { "map", "--psi-tpp", NULL };

	map_args_init(&a);
	cr_assert_eq(map_args_parse(&a, 2, flag), 2);
	cr_assert_str_eq(usage_error, "--psi-overbook: takes no value (given 'yes')");
	cr_assert_eq(map_args_parse(&a, 2, missing), 2);
	cr_assert_str_eq(usage_error, "--psi-tpp: requires a value");
	map_args_free(&a);
}
