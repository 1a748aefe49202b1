/* Names of the spawn strategies and methods, as the CLI and docs spell them. */
#include <strings.h>

#include "psiplace/error.h"
#include "psiplace/spawnplan.h"

const char *psiplace_spawn_strategy_name(enum psiplace_spawn_strategy s)
{
	return s == PSIPLACE_SPAWN_HYPERCUBE ? "hypercube" : "diffusive";
}

const char *psiplace_spawn_method_name(enum psiplace_spawn_method m)
{
	return m == PSIPLACE_SPAWN_BASELINE ? "baseline" : "merge";
}

int psiplace_spawn_strategy_parse(const char *s, const char *what,
				  enum psiplace_spawn_strategy *out, psiplace_error_t *err)
{
	char q[80];

	if (s && !strcasecmp(s, "diffusive")) {
		*out = PSIPLACE_SPAWN_DIFFUSIVE;
		return 0;
	}
	if (s && !strcasecmp(s, "hypercube")) {
		*out = PSIPLACE_SPAWN_HYPERCUBE;
		return 0;
	}
	psiplace_quote(q, sizeof(q), s ? s : "", 48);
	return psiplace_seterr(err, "%s: '%s' is not a spawn strategy; accepted: diffusive, hypercube",
			       what, q);
}

int psiplace_spawn_method_parse(const char *s, const char *what,
				enum psiplace_spawn_method *out, psiplace_error_t *err)
{
	char q[80];

	if (s && !strcasecmp(s, "merge")) {
		*out = PSIPLACE_SPAWN_MERGE;
		return 0;
	}
	if (s && !strcasecmp(s, "baseline")) {
		*out = PSIPLACE_SPAWN_BASELINE;
		return 0;
	}
	psiplace_quote(q, sizeof(q), s ? s : "", 48);
	return psiplace_seterr(err, "%s: '%s' is not a spawn method; accepted: merge, baseline",
			       what, q);
}
