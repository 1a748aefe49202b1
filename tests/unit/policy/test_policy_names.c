/* Policy names and the FIRST/LASTAVAILABLE orders of the ranking engine. */
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"

Test(policy, names_and_moab_aliases_case_insensitive)
{
	static const struct {
		const char *in;
		enum psiplace_policy p;
	} cases[] = {
		{ "FIRSTAVAILABLE", PSIPLACE_POLICY_FIRSTAVAILABLE },
		{ "firstavailable", PSIPLACE_POLICY_FIRSTAVAILABLE },
		{ "LastAvailable", PSIPLACE_POLICY_LASTAVAILABLE },
		{ "cpuload", PSIPLACE_POLICY_CPULOAD },
		{ "MINRESOURCE", PSIPLACE_POLICY_MINRESOURCE },
		{ "maxbalance", PSIPLACE_POLICY_MAXBALANCE },
		{ "Fastest", PSIPLACE_POLICY_FASTEST },
		{ "contiguous", PSIPLACE_POLICY_CONTIGUOUS },
		{ "priority", PSIPLACE_POLICY_PRIORITY },
		{ "InReportedOrder", PSIPLACE_POLICY_FIRSTAVAILABLE },
		{ "inreversereportedorder", PSIPLACE_POLICY_LASTAVAILABLE },
		{ "ProcessorLoad", PSIPLACE_POLICY_CPULOAD },
		{ "MinimumConfiguredResources", PSIPLACE_POLICY_MINRESOURCE },
		{ "ProcessorSpeedBalance", PSIPLACE_POLICY_MAXBALANCE },
		{ "NodeSpeed", PSIPLACE_POLICY_FASTEST },
		{ "CUSTOMPRIORITY", PSIPLACE_POLICY_PRIORITY },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum psiplace_policy p = PSIPLACE_POLICY_NONE;
		psiplace_error_t err;

		cr_assert_eq(psiplace_policy_parse(cases[i].in, "--x", &p, &err), 0, "%s", cases[i].in);
		cr_expect_eq(p, cases[i].p, "%s", cases[i].in);
	}
}

Test(policy, rejects_prefixes_blanks_and_empty)
{
	const char *bad[] = { "FIRST", "firstavailable ", " lastavailable", "", "LASTAVAILABLEX", "none" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum psiplace_policy p = PSIPLACE_POLICY_NONE;
		psiplace_error_t err;

		cr_assert_eq(psiplace_policy_parse(bad[i], "--psi-alloc-policy", &p, &err), -1,
			     "'%s' accepted", bad[i]);
		cr_assert(!strncmp(err.text, "--psi-alloc-policy: '", 21), "%s", err.text);
	}
}

Test(policy, error_message_exact)
{
	enum psiplace_policy p;
	psiplace_error_t err;

	psiplace_policy_parse("bo\ngus", "--psi-alloc-policy", &p, &err);
	cr_assert_str_eq(err.text, "--psi-alloc-policy: 'bo\\x0agus' is not a policy; accepted: FIRSTAVAILABLE, LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY (case-insensitive) or Moab's InReportedOrder, InReverseReportedOrder, ProcessorLoad, MinimumConfiguredResources, ProcessorSpeedBalance, NodeSpeed, CustomPriority");
}

Test(policy, canonical_names_round_trip)
{
	int p;

	for (p = PSIPLACE_POLICY_FIRSTAVAILABLE; p < PSIPLACE_POLICY_COUNT; p++) {
		enum psiplace_policy q;

		cr_assert_eq(psiplace_policy_parse(psiplace_policy_name(p), "x", &q, NULL), 0);
		cr_assert_eq((int)q, p);
	}
	cr_assert_str_eq(psiplace_policy_name(PSIPLACE_POLICY_NONE), "NONE");
}
