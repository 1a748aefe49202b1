/* Policy names and the FIRST/LASTAVAILABLE orders of the ranking engine. */
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
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

static void rank(enum psiplace_policy p, bool overrides, const struct psiplace_node *n, size_t k,
		 const uint32_t *want)
{
	struct psiplace_rank_opts o = { .policy = p, .policy_overrides_weight = overrides };
	uint32_t order[16];
	psiplace_error_t err;
	size_t i;

	cr_assert_eq(psiplace_rank(&o, n, k, order, &err), 0, "%s", err.text);
	for (i = 0; i < k; i++)
		cr_expect_eq(order[i], want[i], "position %zu: %u, want %u", i, order[i], want[i]);
}

Test(policy, firstavailable_index_ascending_within_weight_tier)
{
	/* positions 0..3 hold nodes 7, 2, 5, 3; node 5 is in a heavier tier */
	struct psiplace_node n[] = {
		{ .index = 7, .weight = 1 }, { .index = 2, .weight = 1 },
		{ .index = 5, .weight = 9 }, { .index = 3, .weight = 1 },
	};

	rank(PSIPLACE_POLICY_FIRSTAVAILABLE, false, n, 4, (uint32_t[]){ 1, 3, 0, 2 });
	rank(PSIPLACE_POLICY_FIRSTAVAILABLE, true, n, 4, (uint32_t[]){ 1, 3, 2, 0 });
}

Test(policy, lastavailable_index_descending_within_weight_tier)
{
	struct psiplace_node n[] = {
		{ .index = 7, .weight = 1 }, { .index = 2, .weight = 1 },
		{ .index = 5, .weight = 9 }, { .index = 3, .weight = 1 },
	};

	rank(PSIPLACE_POLICY_LASTAVAILABLE, false, n, 4, (uint32_t[]){ 0, 3, 1, 2 });
	rank(PSIPLACE_POLICY_LASTAVAILABLE, true, n, 4, (uint32_t[]){ 0, 2, 3, 1 });
}

Test(ctld_request, absent_request_keeps_defaults)
{
	const char *env[] = { "OTHER=1", NULL, "PSIPLACE_ALLOC_POLICYX=FASTEST" };
	struct psiplace_ctld_request r;

	cr_assert_eq(psiplace_ctld_request_from_env(env, 3, &r, NULL), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_eq(psiplace_ctld_request_from_env(NULL, 0, &r, NULL), 0);
}

Test(ctld_request, policy_is_read)
{
	const char *env[] = { "A=b", "PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE" };
	struct psiplace_ctld_request r;

	cr_assert_eq(psiplace_ctld_request_from_env(env, 2, &r, NULL), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FIRSTAVAILABLE);
}

Test(ctld_request, hostile_values_rejected_and_reset)
{
	static char big[PSIPLACE_JOBENV_MAX_VALUE + 40];
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE", big };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	memset(big, 'A', sizeof(big) - 1);
	memcpy(big, "PSIPLACE_ALLOC_POLICY=", 22);
	cr_assert_eq(psiplace_ctld_request_from_env(env, 2, &r, &err), -1);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_POLICY longer than 4096 bytes");
	cr_assert_eq(psiplace_ctld_request_from_env(env, PSIPLACE_JOBENV_MAX_ENTRIES + 1, &r, &err), -1);
	cr_assert_str_eq(err.text, "job environment has 4097 entries (at most 4096)");
}
