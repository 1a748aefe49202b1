/* psiplace SPANK plugin: the --psi-* registrations from options.def. */
#include "spank_options.h"

static char usage[PSIPLACE_OPT_COUNT][320];

void psiplace_spank_options_fill(struct spank_option *opts, spank_opt_cb_f alloc_policy_cb,
				 spank_opt_cb_f psi_cb)
{
	static const struct spank_option end = SPANK_OPTIONS_TABLE_END;
	int i;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];

		psiplace_opt_usage(i, usage[i], sizeof(usage[i]));
		opts[i] = (struct spank_option){
			.name = (char *)d->name,
			.arginfo = (char *)d->arg,
			.usage = usage[i],
			.has_arg = d->arg != NULL,
			.val = i,
			.cb = i == PSIPLACE_OPT_ALLOC_POLICY ? alloc_policy_cb : psi_cb,
		};
	}
	opts[PSIPLACE_OPT_COUNT] = end;
}
