/* The names of the expansion strategies and the shrink methods, as the
 * command line and the demo programs give them. */
#include <strings.h>

#include "mall_internal.h"

static const char *const shrink_names[] = { "ts", "baseline", "zombie" };

int psiplace_mall_shrink_method_parse(const char *s, const char *what,
				      enum psiplace_mall_shrink_method *out, psiplace_error_t *err)
{
	char q[64];
	size_t i;

	for (i = 0; s && i < sizeof(shrink_names) / sizeof(shrink_names[0]); i++)
		if (!strcasecmp(s, shrink_names[i])) {
			*out = (enum psiplace_mall_shrink_method)i;
			return 0;
		}
	psiplace_quote(q, sizeof(q), s ? s : "", 40);
	return psiplace_seterr(err, "%s: '%s' is not a shrink method; accepted: ts, baseline, zombie",
			       what, q);
}

static const char *const names[] = { "hypercube", "diffusive", "merge", "sequential" };

const char *psiplace_mall_strategy_name(enum psiplace_mall_strategy s)
{
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int psiplace_mall_strategy_parse(const char *s, const char *what,
				 enum psiplace_mall_strategy *out, psiplace_error_t *err)
{
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i])) {
			*out = (enum psiplace_mall_strategy)i;
			return 0;
		}
	char q[64];

	psiplace_quote(q, sizeof(q), s ? s : "", 40);
	return psiplace_seterr(err, "%s: '%s' is not a strategy; accepted: hypercube, diffusive, "
			       "merge, sequential", what, q);
}
