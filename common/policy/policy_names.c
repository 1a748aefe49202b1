/* Policy names: canonical names, Moab's long aliases, parsing. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"

static const struct {
	const char *name;
	enum psiplace_policy policy;
} names[] = {
	{ "FIRSTAVAILABLE", PSIPLACE_POLICY_FIRSTAVAILABLE },
	{ "LASTAVAILABLE", PSIPLACE_POLICY_LASTAVAILABLE },
	{ "CPULOAD", PSIPLACE_POLICY_CPULOAD },
	{ "MINRESOURCE", PSIPLACE_POLICY_MINRESOURCE },
	{ "MAXBALANCE", PSIPLACE_POLICY_MAXBALANCE },
	{ "FASTEST", PSIPLACE_POLICY_FASTEST },
	{ "CONTIGUOUS", PSIPLACE_POLICY_CONTIGUOUS },
	{ "PRIORITY", PSIPLACE_POLICY_PRIORITY },
	/* Moab's long names */
	{ "InReportedOrder", PSIPLACE_POLICY_FIRSTAVAILABLE },
	{ "InReverseReportedOrder", PSIPLACE_POLICY_LASTAVAILABLE },
	{ "ProcessorLoad", PSIPLACE_POLICY_CPULOAD },
	{ "MinimumConfiguredResources", PSIPLACE_POLICY_MINRESOURCE },
	{ "ProcessorSpeedBalance", PSIPLACE_POLICY_MAXBALANCE },
	{ "NodeSpeed", PSIPLACE_POLICY_FASTEST },
	{ "CustomPriority", PSIPLACE_POLICY_PRIORITY },
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

int psiplace_policy_parse(const char *s, const char *what,
			  enum psiplace_policy *out, psiplace_error_t *err)
{
	char q[80];
	size_t i;

	if (s) {
		for (i = 0; i < NNAMES; i++) {
			if (!strcasecmp(s, names[i].name)) {
				*out = names[i].policy;
				return 0;
			}
		}
	}
	psiplace_quote(q, sizeof(q), s ? s : "", 48);
	return psiplace_seterr(err, "%s: '%s' is not a policy; accepted: %s",
			       what, q, psiplace_policy_accepted());
}

const char *psiplace_policy_name(enum psiplace_policy p)
{
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (names[i].policy == p)
			return names[i].name;
	return "NONE";
}

const char *psiplace_policy_accepted(void)
{
	return "FIRSTAVAILABLE, LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, "
	       "FASTEST, CONTIGUOUS, PRIORITY (case-insensitive) or Moab's "
	       "InReportedOrder, InReverseReportedOrder, ProcessorLoad, "
	       "MinimumConfiguredResources, ProcessorSpeedBalance, NodeSpeed, "
	       "CustomPriority";
}
