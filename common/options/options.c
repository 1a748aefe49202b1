/* The --psi-* option table, expanded from options.def. */
#include <stdio.h>
#include <string.h>

#include "psiplace/options.h"

const struct psiplace_opt_desc psiplace_opt_table[PSIPLACE_OPT_COUNT] = {
#define PSIPLACE_OPTION(id, name, arg, group, lama, var1, var2, help)                       \
	[PSIPLACE_OPT_##id] = { name, "--" name, arg, PSIPLACE_OPTGRP_##group,              \
				PSIPLACE_LAMA_SET_##lama, { var1, var2, NULL }, help },
#include "psiplace/options.def"
#undef PSIPLACE_OPTION
};

const char *psiplace_opt_name(enum psiplace_opt o)
{
	return (unsigned)o < PSIPLACE_OPT_COUNT ? psiplace_opt_table[o].name : NULL;
}

bool psiplace_opt_has_arg(enum psiplace_opt o)
{
	return (unsigned)o < PSIPLACE_OPT_COUNT && psiplace_opt_table[o].arg;
}

int psiplace_opt_lookup(const char *name)
{
	int i;

	for (i = 0; name && i < PSIPLACE_OPT_COUNT; i++)
		if (!strcmp(name, psiplace_opt_table[i].name))
			return i;
	return -1;
}

const char *psiplace_opt_group_name(enum psiplace_opt_group g)
{
	static const char *const names[PSIPLACE_OPTGRP_COUNT] = {
		[PSIPLACE_OPTGRP_ALLOCATION] = "Node allocation",
		[PSIPLACE_OPTGRP_PLACEMENT] = "PSI task placement",
		[PSIPLACE_OPTGRP_LAMA] = "LAMA mapping",
		[PSIPLACE_OPTGRP_PSETS] = "PMIx process sets",
		[PSIPLACE_OPTGRP_DIAGNOSTICS] = "Diagnostics",
	};

	return (unsigned)g < PSIPLACE_OPTGRP_COUNT ? names[g] : NULL;
}

void psiplace_opt_usage(enum psiplace_opt o, char *buf, size_t len)
{
	const struct psiplace_opt_desc *d;
	size_t k;
	int i;

	if (!len)
		return;
	buf[0] = '\0';
	if ((unsigned)o >= PSIPLACE_OPT_COUNT)
		return;
	d = &psiplace_opt_table[o];
	k = (size_t)snprintf(buf, len, "%s", d->help);
	for (i = 0; d->vars[i] && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : d->vars[1] ? " (variables " : " (variable ",
				      d->vars[i]);
	if (i && k < len)
		snprintf(buf + k, len - k, ")");
}
