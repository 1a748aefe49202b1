/* Host name lists (common/lists/hostnames.c): compact formatting that
 * keeps the order, and the list left as it was on a bad expression. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/hostnames.h"

static psiplace_error_t err;

static void roundtrip(const char *expr, const char *want)
{
	struct psiplace_names l, back;
	char buf[256];
	size_t i;

	psiplace_names_init(&l);
	psiplace_names_init(&back);
	cr_assert_eq(psiplace_names_add_hostlist(&l, expr, "X", &err), 0, "%s", err.text);
	cr_assert_geq(psiplace_names_format(&l, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, want);
	cr_assert_eq(psiplace_names_add_hostlist(&back, buf, "X", &err), 0);
	cr_assert_eq(back.n, l.n);
	for (i = 0; i < l.n; i++)
		cr_assert_str_eq(back.name[i], l.name[i]);
	psiplace_names_free(&l);
	psiplace_names_free(&back);
}

Test(names, format_compacts_and_keeps_order)
{
	roundtrip("n1,n2,n3,n5,login,n7", "n[1-3,5],login,n7");
	/* as Slurm writes them: a lone name without brackets, and 0 is not
	 * zero padding */
	roundtrip("node[0-15]", "node[0-15]");
	roundtrip("n0,n01,n02,n3", "n[0,01-02,3]");
	roundtrip("n08,n09,n10,n9", "n[08-10,9]");
	roundtrip("n3,n1,n1", "n[3,1,1]");
	roundtrip("r[1-2]n[1-2]", "r1n[1-2],r2n[1-2]");
}

Test(names, add_hostlist_keeps_the_list_on_error)
{
	struct psiplace_names l;

	psiplace_names_init(&l);
	cr_assert_eq(psiplace_names_add_hostlist(&l, "a b", "X", &err), 0);
	cr_assert_eq(psiplace_names_add_hostlist(&l, "c n[1-", "X", &err), -1);
	cr_assert_eq(l.n, 2);
	psiplace_names_free(&l);
}
