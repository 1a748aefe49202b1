/* libFuzzer: Slurm hostlist expansion must give names or an error for any
 * bytes; names are non-empty, bounded and made of host name characters; and
 * the compact writer (psiplace_names_format) is the expander's inverse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/hostnames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int bad_name(const char *h)
{
	size_t n = strlen(h);

	return n == 0 || n > PSIPLACE_HOSTLIST_MAX_NAME ||
	       strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != n;
}

/* format(parse(x)) expands to the same names in the same order, and
 * writing those again gives the same text. */
static void roundtrip(const char *s)
{
	struct psiplace_names l, back;
	psiplace_error_t err;
	size_t len = 1 << 20, i;
	char *a = malloc(len), *b = malloc(len);

	if (!a || !b)
		abort();
	psiplace_names_init(&l);
	psiplace_names_init(&back);
	if (psiplace_names_add_hostlist(&l, s, "fuzz", &err) == 0 &&
	    psiplace_names_format(&l, a, len) >= 0) {
		if (psiplace_names_add_hostlist(&back, a, "fuzz", &err) != 0 || back.n != l.n)
			abort();
		for (i = 0; i < l.n; i++)
			if (strcmp(l.name[i], back.name[i]))
				abort();
		if (psiplace_names_format(&back, b, len) < 0 || strcmp(a, b))
			abort();
	}
	free(a);
	free(b);
	psiplace_names_free(&l);
	psiplace_names_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	psiplace_error_t err;
	struct psiplace_hostlist h;
	char *s = malloc(size + 1);
	size_t i;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (psiplace_hostlist_expand(s, "fuzz", &h, &err) == 0) {
		if (h.n == 0 || h.n > PSIPLACE_HOSTLIST_MAX_HOSTS)
			abort();
		for (i = 0; i < h.n; i++)
			if (bad_name(h.host[i]))
				abort();
		psiplace_hostlist_free(&h);
		roundtrip(s);
	} else if (h.n || h.host || !err.text[0]) {
		abort();
	}
	free(s);
	return 0;
}
