/* Per-node integer vectors: plain lists, Slurm's N(xK), and every error. */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"

static void parses(const char *s, const int *want, size_t n)
{
	struct psiplace_intvec v;
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_intvec_parse(s, "--cores", &v, &err), 0, "%s: %s", s, err.text);
	cr_assert_eq(v.n, n, "%s: %zu entries", s, v.n);
	cr_assert_arr_eq(v.v, want, n * sizeof(int), "%s", s);
	psiplace_intvec_free(&v);
	cr_assert_null(v.v);
}

static void fails(const char *s, const char *msg)
{
	struct psiplace_intvec v = { 7, (int *)&v };
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_intvec_parse(s, "--cores", &v, &err), -1, "%s", s);
	cr_assert_str_eq(err.text, msg);
	cr_assert_eq(v.n, 0);
	cr_assert_null(v.v);
}

#define ACC "accepted: non-negative integers separated by commas, N(xK) for K repeats of N"

Test(intvec, plain_list)
{
	static const int w[] = { 4, 2, 8, 12, 3, 3, 4, 4, 6, 3 };
	static const int z[] = { 0 };

	parses("4,2,8,12,3,3,4,4,6,3", w, 10);
	parses("0", z, 1);
}

Test(intvec, slurm_repetition_syntax)
{
	static const int w[] = { 72, 72, 36 };
	static const int x[] = { 4, 4, 4, 8, 2, 2 };

	parses("72(x2),36", w, 3);
	parses("4(x3),8,2(x2)", x, 6);
}

Test(intvec, bounds_accepted)
{
	static const int w[] = { 1000000, 0 };

	parses("1000000,0", w, 2);
	parses("000000001000000,0", w, 2);
}

Test(intvec, many_repeats_up_to_the_bound)
{
	struct psiplace_intvec v;
	psiplace_error_t err;

	cr_assert_eq(psiplace_intvec_parse("1(x1048575),9", "v", &v, &err), 0, "%s", err.text);
	cr_assert_eq(v.n, PSIPLACE_INTVEC_MAX_ENTRIES);
	cr_assert_eq(v.v[1048574], 1);
	cr_assert_eq(v.v[1048575], 9);
	psiplace_intvec_free(&v);
}

Test(intvec, errors)
{
	fails("", "--cores: empty value; " ACC);
	fails(NULL, "--cores: empty value; " ACC);
	fails("4,,2", "--cores: '4,,2': expected a number at character 3; " ACC);
	fails("4,", "--cores: '4,': expected a number, found the end at character 3; " ACC);
	fails(",4", "--cores: ',4': expected a number at character 1; " ACC);
	fails("4,-2", "--cores: '4,-2': negative value at character 3; " ACC);
	fails("4, 2", "--cores: '4, 2': expected a number at character 3; " ACC);
	fails("4;2", "--cores: '4;2': unexpected character at character 2; " ACC);
	fails("1000001", "--cores: '1000001': value larger than 1000000 at character 1; " ACC);
	fails("99999999999999999999999", "--cores: '99999999999999999999999': value larger than 1000000 at character 1; " ACC);
	fails("4(x0)", "--cores: '4(x0)': repeat count 0 at character 4; " ACC);
	fails("4(2)", "--cores: '4(2)': expected 'x' after '(' at character 3; " ACC);
	fails("4(x2", "--cores: '4(x2': expected ')' at character 5; " ACC);
	fails("4(x2)3", "--cores: '4(x2)3': unexpected character at character 6; " ACC);
	fails("4(x1048577)", "--cores: '4(x1048577)': value larger than 1048576 at character 4; " ACC);
	fails("1(x1048576),1", "--cores: '1(x1048576),1': more than 1048576 entries at character 13; " ACC);
	fails("4\x01", "--cores: '4\\x01': unexpected character at character 2; " ACC);
}

Test(intvec, too_long_input)
{
	static char big[PSIPLACE_INTVEC_MAX_INPUT + 2];
	size_t i;

	for (i = 0; i + 1 < sizeof(big); i += 2) {
		big[i] = '1';
		big[i + 1] = ',';
	}
	big[sizeof(big) - 1] = '\0';
	fails(big, "--cores: value longer than 1048576 bytes");
}
