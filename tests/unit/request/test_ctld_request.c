/* The job environment as slurmctld sees it: policy, PRIORITYF, errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"

static int parse(const char *const *env, size_t n, struct psiplace_ctld_request *r, psiplace_error_t *err)
{
	return psiplace_ctld_request_from_env(env, n, r, err);
}

Test(ctld_request, policy_and_unrelated_entries)
{
	const char *env[] = { "FOO=bar", NULL, "PSIPLACE_ALLOC_POLICY=fastest" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 3, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FASTEST);
	cr_assert_str_eq(r.priority, "");
}

Test(ctld_request, priority_implies_priority_policy)
{
	const char *env[] = { "PSIPLACE_ALLOC_PRIORITY=SPEED - LOAD" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 1, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_PRIORITY);
	cr_assert_str_eq(r.priority, "SPEED - LOAD");
}

Test(ctld_request, priority_with_explicit_priority_policy_is_fine)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=CustomPriority", "PSIPLACE_ALLOC_PRIORITY=SPEED" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_PRIORITY);
}

Test(ctld_request, priority_with_other_policy_is_an_error)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_PRIORITY=SPEED" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY implies PRIORITY, but PSIPLACE_ALLOC_POLICY "
			      "is FASTEST; give only one of them");
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
}

Test(ctld_request, malformed_priority_resets_to_defaults)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_PRIORITY=2**LOAD" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY: position 3: expected a component after "
			      "'*' in '2**LOAD'");
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_str_eq(r.priority, "");
}

Test(ctld_request, duplicates_and_oversize_are_errors)
{
	const char *dup[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_POLICY=CPULOAD" };
	static char big[PSIPLACE_JOBENV_MAX_VALUE + 64];
	const char *env[] = { big };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(dup, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_POLICY: given twice");
	strcpy(big, "PSIPLACE_ALLOC_PRIORITY=");
	memset(big + strlen(big), 'A', PSIPLACE_JOBENV_MAX_VALUE + 1);
	cr_assert_eq(parse(env, 1, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY longer than 4096 bytes");
	cr_assert_eq(parse(env, PSIPLACE_JOBENV_MAX_ENTRIES + 1, &r, &err), -1);
}

Test(ctld_request, long_but_bounded_priority_rejected_by_compiler)
{
	static char v[1100 + 32];
	const char *env[] = { v };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	strcpy(v, "PSIPLACE_ALLOC_PRIORITY=");
	memset(v + strlen(v), ' ', 1100);
	cr_assert_eq(parse(env, 1, &r, &err), -1);
	cr_assert(strstr(err.text, "position 1025: expression longer than 1024 characters"), "%s", err.text);
}
