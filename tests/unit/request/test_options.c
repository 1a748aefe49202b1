/* The --psi-* option table (options.def): every entry is consistent,
 * scanned on a client's command line, inherited from an allocation, read
 * from its variables by the gatherer, and LAMA's are applied by LAMA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/lama.h"
#include "psiplace/options.h"
#include "psiplace/user_request.h"
#include "sample_values.h"

static psiplace_error_t err;

static const char *one_var(const char *name, void *arg)
{
	const char *const *kv = arg;

	return !strcmp(name, kv[0]) ? kv[1] : NULL;
}

Test(options, table_entries_are_consistent)
{
	int i, k;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];

		cr_assert_not_null(d->name, "entry %d", i);
		cr_assert_eq(strncmp(d->name, "psi-", 4), 0, "%s", d->name);
		cr_assert_eq(strncmp(d->dashed, "--", 2), 0);
		cr_assert_str_eq(d->dashed + 2, d->name);
		cr_assert_eq(psiplace_opt_lookup(d->name), i, "%s", d->name);
		cr_assert_str_eq(psiplace_opt_name(i), d->name);
		cr_assert_eq(psiplace_opt_has_arg(i), d->arg != NULL);
		cr_assert(d->help && *d->help, "%s has no help", d->name);
		cr_assert_not_null(psiplace_opt_group_name(d->group), "%s", d->name);
		cr_assert_eq(d->lama != PSIPLACE_LAMA_SET_NONE, d->group == PSIPLACE_OPTGRP_LAMA,
			     "%s: LAMA setting and group disagree", d->name);
		cr_assert_eq(d->arg != NULL, sample_value[i] != NULL,
			     "%s: sample value in sample_values.h", d->name);
		for (k = 0; k < i; k++)
			cr_assert_str_neq(psiplace_opt_table[k].name, d->name);
	}
	cr_assert_eq(psiplace_opt_lookup("psi-frobnicate"), -1);
	cr_assert_null(psiplace_opt_name(PSIPLACE_OPT_COUNT));
}

Test(options, usage_names_help_and_variables)
{
	char buf[320];
	int i, v;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		psiplace_opt_usage(i, buf, sizeof(buf));
		cr_assert_eq(strncmp(buf, psiplace_opt_table[i].help, strlen(psiplace_opt_table[i].help)), 0,
			     "%s", buf);
		for (v = 0; psiplace_opt_table[i].vars[v]; v++)
			cr_assert_not_null(strstr(buf, psiplace_opt_table[i].vars[v]), "%s", buf);
	}
	psiplace_opt_usage(PSIPLACE_OPT_NO_BINDMEM, buf, sizeof(buf));
	cr_assert_str_eq(buf, "No memory binding (variables __PSI_NO_BINDMEM, __PSI_NO_MEMBIND)");
	psiplace_opt_usage(PSIPLACE_OPT_DRY_RUN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "Compute and report the binding, bind nothing");
}

/* srun's own command line, as slurm_spank_init scans it. */
Test(options, every_option_is_scanned_on_the_command_line)
{
	int i, form;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		for (form = 0; form < 2; form++) {
			const struct psiplace_opt_desc *d = &psiplace_opt_table[i];
			struct psiplace_opts o;
			struct psiplace_slurm_cmdline sl;
			char word[128];
			char *argv[5] = { "srun", word, NULL, NULL, NULL };
			int argc = 3;

			if (d->arg && form)
				snprintf(word, sizeof(word), "%s=%s", d->dashed, sample_value[i]);
			else
				snprintf(word, sizeof(word), "%s", d->dashed);
			if (d->arg && !form)
				argv[argc++ - 1] = (char *)sample_value[i];
			argv[argc - 1] = "hostname";
			psiplace_opts_init(&o);
			cr_assert_eq(psiplace_cmdline_scan(argc, argv, &o, &sl, &err), 0, "%s: %s", word, err.text);
			cr_assert_not_null(o.val[i], "%s not scanned", word);
			cr_assert_str_eq(o.val[i], d->arg ? sample_value[i] : "");
			cr_assert_eq(sl.operand, argc - 1);
			psiplace_opts_free(&o);
		}
}

/* sbatch/salloc export their options to the steps inside. */
Test(options, every_option_is_inherited_from_the_allocation)
{
	int i, k;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		char name[128];
		const char *kv[2] = { name, sample_value[i] ? sample_value[i] : "" };
		struct psiplace_opts o;

		snprintf(name, sizeof(name), "_SLURM_SPANK_OPTION_psiplace_%s", psiplace_opt_table[i].name);
		for (k = 0; name[k]; k++)
			if (name[k] == '-')
				name[k] = '_';
		psiplace_opts_init(&o);
		cr_assert_eq(psiplace_opts_from_inherited(one_var, kv, &o), 0);
		cr_assert_not_null(o.val[i], "%s not inherited", name);
		psiplace_opts_free(&o);
	}
}

/* Each variable of the table is read by the gatherer for its option. */
Test(options, every_variable_is_gathered)
{
	struct psiplace_siteconf site;
	int i, v;

	psiplace_siteconf_init(&site);
	site.allow_user_cpumap = true;
	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		for (v = 0; psiplace_opt_table[i].vars[v]; v++) {
			const char *kv[2] = { psiplace_opt_table[i].vars[v],
					      sample_value[i] ? sample_value[i] : "1" };
			struct psiplace_user_request_src src = { one_var, kv, NULL, &site, false };
			struct psiplace_user_request r;

			cr_assert_eq(psiplace_user_request_gather(&src, &r, &err), 0, "%s: %s", kv[0], err.text);
			cr_assert_not_null(r.own.val[i], "%s not read for %s", kv[0],
					   psiplace_opt_table[i].dashed);
			psiplace_user_request_free(&r);
		}
	psiplace_siteconf_free(&site);
}

/* LAMA takes its options and variables by the table's names. */
Test(options, every_lama_name_is_applied)
{
	struct psiplace_lama_opts o;
	int i, v;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];
		int want = d->lama == PSIPLACE_LAMA_SET_NONE ? -1 : 0;

		psiplace_lama_opts_init(&o);
		cr_assert_eq(psiplace_lama_apply(&o, d->dashed, sample_value[i], &err), want, "%s: %s",
			     d->dashed, err.text);
		cr_assert_eq(o.requested, !want);
		for (v = 0; d->vars[v]; v++) {
			psiplace_lama_opts_init(&o);
			cr_assert_eq(psiplace_lama_apply(&o, d->vars[v], sample_value[i], &err), want,
				     "%s: %s", d->vars[v], err.text);
		}
	}
}
