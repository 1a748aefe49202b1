/* psiplace's hostlist code against libslurm's own (slurm_hostlist_*),
 * loaded with dlopen so that the library stays free of Slurm: for a table
 * of expressions and a few thousand generated ones, both expand to the
 * same names, and Slurm reads psiplace's compact form
 * (psiplace_names_format) back as the same names and writes the same compact
 * form (slurm_hostlist_ranged_string).  Where the two differ on
 * purpose the table says so and checks that difference. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/hostnames.h"

static struct {
	void *handle;
	void *(*create)(const char *);
	char *(*shift)(void *);
	void (*destroy)(void *);
	long (*ranged)(void *, size_t, char *);
} slurm;

static void load(void)
{
	static const char *const names[] = { "libslurm.so", "libslurm.so.42", "libslurm.so.41",
					     "libslurm.so.40", "libslurm.so.39", "libslurm.so.38" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !slurm.handle; i++)
		slurm.handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(slurm.handle, "libslurm not found (%s): install libslurm-dev", dlerror());
	slurm.create = (void *(*)(const char *))dlsym(slurm.handle, "slurm_hostlist_create");
	slurm.shift = (char *(*)(void *))dlsym(slurm.handle, "slurm_hostlist_shift");
	slurm.destroy = (void (*)(void *))dlsym(slurm.handle, "slurm_hostlist_destroy");
	slurm.ranged = (long (*)(void *, size_t, char *))dlsym(slurm.handle,
								"slurm_hostlist_ranged_string");
	cr_assert(slurm.create && slurm.shift && slurm.destroy && slurm.ranged,
		  "libslurm lacks slurm_hostlist_*");
}

/* Slurm's expansion, names joined by blanks; NULL when Slurm refuses. */
static char *slurm_expand(const char *s)
{
	void *h = slurm.create(s);
	size_t len = 0, cap = 256;
	char *out, *name;

	if (!h)
		return NULL;
	out = calloc(1, cap);
	cr_assert_not_null(out);
	while ((name = slurm.shift(h))) {
		size_t n = strlen(name);

		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			cr_assert_not_null(out = realloc(out, cap));
		}
		len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", name);
		free(name);
	}
	slurm.destroy(h);
	return out;
}

/* psiplace's expansion the same way; NULL on an error. */
static char *psiplace_expand(const char *s, struct psiplace_names *names)
{
	struct psiplace_hostlist h;
	psiplace_error_t err;
	size_t i, len = 0, cap = 256;
	char *out;

	if (psiplace_hostlist_expand(s, "test", &h, &err) < 0)
		return NULL;
	out = calloc(1, cap);
	cr_assert_not_null(out);
	for (i = 0; i < h.n; i++) {
		size_t n = strlen(h.host[i]);

		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			cr_assert_not_null(out = realloc(out, cap));
		}
		len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", h.host[i]);
		if (names)
			cr_assert_eq(psiplace_names_push(names, h.host[i], n, "test", &err), 0);
	}
	psiplace_hostlist_free(&h);
	return out;
}

/* Slurm's compact form of the names in s (blank-separated). */
static void slurm_compact(const char *s, char *buf, size_t len)
{
	void *h = slurm.create(s);

	cr_assert_not_null(h, "Slurm refuses '%s'", s);
	cr_assert_geq(slurm.ranged(h, len, buf), 0, "'%s' does not fit", s);
	slurm.destroy(h);
}

/* Both expand s alike, Slurm expands psiplace's compact form alike, and
 * both write the same compact form of those names. */
static void same(const char *s)
{
	struct psiplace_names names;
	char *ours, *theirs, *back, compact[8192];

	psiplace_names_init(&names);
	ours = psiplace_expand(s, &names);
	theirs = slurm_expand(s);
	cr_assert_not_null(ours, "psiplace refuses '%s', Slurm reads '%s'", s,
			   theirs ? theirs : "(refused too)");
	cr_assert_not_null(theirs, "Slurm refuses '%s', psiplace reads '%s'", s, ours);
	cr_assert_str_eq(ours, theirs, "'%s'", s);
	cr_assert_geq(psiplace_names_format(&names, compact, sizeof(compact)), 0);
	back = slurm_expand(compact);
	cr_assert_not_null(back, "Slurm refuses psiplace's compact form '%s' of '%s'", compact, s);
	cr_assert_str_eq(back, ours, "'%s' written as '%s'", s, compact);
	{
		char slurms[8192];

		slurm_compact(ours, slurms, sizeof(slurms));
		cr_expect_str_eq(compact, slurms, "'%s': psiplace writes '%s', Slurm '%s'", s, compact,
				 slurms);
	}
	free(ours);
	free(theirs);
	free(back);
	psiplace_names_free(&names);
}

TestSuite(hostlist_slurm, .init = load);

Test(hostlist_slurm, table_expands_alike)
{
	static const char *const table[] = {
		"n1", "n[1-3,5],x7", "n[08-10]", "n[01-3]", "n[0-0]", "n[9-11]",
		"rack[1-2]n[01-04]", "r[1-2]n[1-2]", "a b", "n1,,n2", "n1,n1,n1", "n[3,1,2]",
		"n[1-3],n[2-4]", "login,n[1-2]", "a-b_c.d[1-2]", "n[007-010]", "n[98-101]",
		"node[0-15]", "cn[0001-0003],gpu[1-2]",
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		same(table[i]);
}

/* Differences on purpose: psiplace refuses what Slurm 22.05 turns into
 * nonsense (an unclosed bracket gives the host "n]"), and reads a suffix
 * after brackets (as newer Slurm does for "n[1-2]-ib"), which 22.05's
 * libslurm refuses. */
Test(hostlist_slurm, deliberate_differences)
{
	char *ours, *theirs;

	ours = psiplace_expand("n[1-2", NULL);
	theirs = slurm_expand("n[1-2");
	cr_assert_null(ours);
	cr_assert(theirs == NULL || !strcmp(theirs, "n]"), "Slurm read 'n[1-2' as '%s'", theirs);
	free(theirs);
	ours = psiplace_expand("n[1-2]-ib", NULL);
	cr_assert_str_eq(ours, "n1-ib n2-ib");
	free(ours);
	/* both refuse a backward range (not asked of libslurm here: 22.05 leaks
	 * a string on that error path, which LeakSanitizer reports) */
	cr_assert_null(psiplace_expand("n[3-1]", NULL));
}

/* Generated: 1-3 terms of a prefix and 0-2 bracket groups of numbers and
 * ranges with random zero padding, separated by commas or blanks. */
Test(hostlist_slurm, generated_expand_alike)
{
	static const char *const prefixes[] = { "n", "node", "cn", "r", "gpu-", "a_b", "x1y" };
	char s[512];
	unsigned seed = 12345;
	int t;

	srand(seed);
	for (t = 0; t < 3000; t++) {
		size_t o = 0;
		int terms = 1 + rand() % 3, k;

		for (k = 0; k < terms; k++) {
			int groups = rand() % 3, g;

			if (k)
				o += (size_t)snprintf(s + o, sizeof(s) - o, "%s", rand() % 2 ? "," : " ");
			o += (size_t)snprintf(s + o, sizeof(s) - o, "%s",
					      prefixes[rand() % (int)(sizeof(prefixes) / sizeof(prefixes[0]))]);
			if (!groups) {
				o += (size_t)snprintf(s + o, sizeof(s) - o, "%d", rand() % 100);
				continue;
			}
			for (g = 0; g < groups; g++) {
				int items = 1 + rand() % 3, i, width = rand() % 3;

				o += (size_t)snprintf(s + o, sizeof(s) - o, "%s[", g ? "x" : "");
				for (i = 0; i < items; i++) {
					int lo = rand() % 120, hi = lo + rand() % 12;

					if (rand() % 2)
						o += (size_t)snprintf(s + o, sizeof(s) - o, "%s%0*d",
								      i ? "," : "", width, lo);
					else
						o += (size_t)snprintf(s + o, sizeof(s) - o,
								      "%s%0*d-%0*d", i ? "," : "",
								      width, lo, width, hi);
				}
				o += (size_t)snprintf(s + o, sizeof(s) - o, "]");
			}
		}
		same(s);
	}
}
