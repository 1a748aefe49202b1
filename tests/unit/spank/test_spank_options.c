/* The SPANK plugin registers every option of options.def, with the
 * table's name, argument and help text (what srun --help shows). */
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/options.h"
#include "spank_options.h"

static int cb_policy(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	(void)remote;
	return 0;
}

static int cb_psi(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	(void)remote;
	return 0;
}

Test(spank_options, every_table_entry_is_registered)
{
	struct spank_option opts[PSIPLACE_OPT_COUNT + 1];
	char usage[320];
	int i;

	memset(opts, 0xff, sizeof(opts));
	psiplace_spank_options_fill(opts, cb_policy, cb_psi);
	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];

		cr_assert_str_eq(opts[i].name, d->name);
		if (d->arg)
			cr_assert_str_eq(opts[i].arginfo, d->arg);
		else
			cr_assert_null(opts[i].arginfo);
		cr_assert_eq(opts[i].has_arg, d->arg != NULL, "%s", d->name);
		cr_assert_eq(opts[i].val, i, "%s", d->name);
		psiplace_opt_usage(i, usage, sizeof(usage));
		cr_assert_str_eq(opts[i].usage, usage);
		cr_assert_eq(opts[i].cb, i == PSIPLACE_OPT_ALLOC_POLICY ? cb_policy : cb_psi, "%s", d->name);
	}
	cr_assert_null(opts[PSIPLACE_OPT_COUNT].name, "the table ends");
}
