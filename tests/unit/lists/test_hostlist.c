/* Slurm hostlist expressions: ranges, padding, products, and every error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"

/* want: the expected names joined by single blanks. */
static void expands(const char *s, const char *want, size_t n)
{
	struct psiplace_hostlist h;
	psiplace_error_t err = { "" };
	char got[4096] = "";
	size_t i;

	cr_assert_eq(psiplace_hostlist_expand(s, "SLURM_JOB_NODELIST", &h, &err), 0,
		     "%s: %s", s, err.text);
	cr_assert_eq(h.n, n, "%s: %zu hosts", s, h.n);
	for (i = 0; i < h.n && strlen(got) + strlen(h.host[i]) + 2 < sizeof(got); i++) {
		strcat(got, i ? " " : "");
		strcat(got, h.host[i]);
	}
	if (want)
		cr_assert_str_eq(got, want);
	psiplace_hostlist_free(&h);
	cr_assert_eq(h.n, 0);
}

static void fails(const char *s, const char *msg)
{
	struct psiplace_hostlist h;
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_hostlist_expand(s, "SLURM_JOB_NODELIST", &h, &err), -1, "%s", s);
	cr_assert_str_eq(err.text, msg);
	cr_assert_eq(h.n, 0);
	cr_assert_null(h.host);
}

#define ACC "accepted: host names and Slurm hostlist expressions like n[1-3,5],x7"

Test(hostlist, ranges_lists_and_plain_names)
{
	expands("n[1-3,5],x7", "n1 n2 n3 n5 x7", 5);
	expands("node1", "node1", 1);
	expands("a,b c\td\ne", "a b c d e", 5);
	expands(",, a ,", "a", 1);
	expands("n[7]", "n7", 1);
	expands("[1-3]", "1 2 3", 3);
}

Test(hostlist, width_of_low_bound_pads)
{
	expands("n[01-03,10]", "n01 n02 n03 n10", 4);
}

Test(hostlist, suffix_and_product_leftmost_slowest)
{
	expands("n[1-2]-ib", "n1-ib n2-ib", 2);
	expands("r[1-2]n[3-4]", "r1n3 r1n4 r2n3 r2n4", 4);
	expands("a[1,3]b[1-2]c[0]", "a1b1c0 a1b2c0 a3b1c0 a3b2c0", 4);
	expands("n[1-3],n2", "n1 n2 n3 n2", 4);
	expands("host-01.cluster_x", "host-01.cluster_x", 1);
}

Test(hostlist, large_range)
{
	expands("n[1-100000]", NULL, 100000);
	expands("n[0-262143]", NULL, 262144);
}

Test(hostlist, errors)
{
	fails("", "SLURM_JOB_NODELIST: no host names; " ACC);
	fails(NULL, "SLURM_JOB_NODELIST: no host names; " ACC);
	fails(" , ", "SLURM_JOB_NODELIST: no host names; " ACC);
	fails("n[1-3", "SLURM_JOB_NODELIST: 'n[1-3': unclosed '[' at character 2; " ACC);
	fails("n[", "SLURM_JOB_NODELIST: 'n[': unclosed '[' at character 2; " ACC);
	fails("n[]", "SLURM_JOB_NODELIST: 'n[]': expected a number at character 3; " ACC);
	fails("n[3-1]", "SLURM_JOB_NODELIST: 'n[3-1]': range 3-1 runs backwards at character 3; " ACC);
	fails("n[1-]", "SLURM_JOB_NODELIST: 'n[1-]': expected a number at character 5; " ACC);
	fails("n[a]", "SLURM_JOB_NODELIST: 'n[a]': expected a number at character 3; " ACC);
	fails("n[1 2]", "SLURM_JOB_NODELIST: 'n[1 2]': unexpected character in brackets at character 4; " ACC);
	fails("n[1,]", "SLURM_JOB_NODELIST: 'n[1,]': expected a number at character 5; " ACC);
	fails("n1]", "SLURM_JOB_NODELIST: 'n1]': ']' without '[' at character 3; " ACC);
	fails("n$1", "SLURM_JOB_NODELIST: 'n$1': unexpected character at character 2; " ACC);
	fails("n[1234567890]", "SLURM_JOB_NODELIST: 'n[1234567890]': number longer than 9 digits at character 3; " ACC);
	fails("n[1-262145]", "SLURM_JOB_NODELIST: 'n[1-262145]': range of more than 262144 hosts at character 3; " ACC);
	fails("a[1-1000]b[1-1000]", "SLURM_JOB_NODELIST: 'a[1-1000]b[1-1000]': more than 262144 hosts at character 19; " ACC);
	fails("a[1][1][1][1][1][1][1][1][1]", "SLURM_JOB_NODELIST: 'a[1][1][1][1][1][1][1][1][1]': more than 8 brackets in one name at character 26; " ACC);
}

Test(hostlist, name_length_bound)
{
	char s[300], msg[PSIPLACE_ERRLEN];

	memset(s, 'h', 255);
	s[255] = '\0';
	expands(s, NULL, 1);
	strcpy(s + 255, "x");
	snprintf(msg, sizeof(msg), "SLURM_JOB_NODELIST: '%.48s...': host name longer than 255 bytes at character 256; " ACC, s);
	fails(s, msg);
	memset(s, 'h', 254);
	strcpy(s + 254, "[10]");
	snprintf(msg, sizeof(msg), "SLURM_JOB_NODELIST: '%.48s...': host name longer than 255 bytes at character 255; " ACC, s);
	fails(s, msg);
}

Test(hostlist, too_long_input)
{
	static char big[PSIPLACE_HOSTLIST_MAX_INPUT + 2];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fails(big, "SLURM_JOB_NODELIST: value longer than 1048576 bytes");
}

Test(hostlist, total_name_bytes_bound)
{
	char s[400], msg[PSIPLACE_ERRLEN];

	/* 131072 names of 200 bytes: 26 MB of names, over the 16 MiB bound */
	memset(s, 'h', 194);
	strcpy(s + 194, "[100000-231071]");
	snprintf(msg, sizeof(msg), "SLURM_JOB_NODELIST: '%.48s...': host names longer than 16777216 bytes in all at character 210; " ACC, s);
	fails(s, msg);
}
