/* libFuzzer: the per-node vector parser ("4,2,8", "72(x2),36") must give a
 * vector or an error for any bytes, a vector must respect the bounds, and
 * the N(xK) formatter must be its inverse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* format(parse(x)) parses to the same vector, and formatting that gives
 * the same text: the formatter is the parser's inverse. */
static void roundtrip(const struct psiplace_intvec *v)
{
	size_t len = v->n * 24 + 16;
	char *a = malloc(len), *b = malloc(len);
	struct psiplace_intvec back;
	psiplace_error_t err;

	if (!a || !b || psiplace_intvec_format(v->v, v->n, a, len) < 0 ||
	    psiplace_intvec_parse(a, "roundtrip", &back, &err) < 0)
		abort();
	if (back.n != v->n || memcmp(back.v, v->v, v->n * sizeof(*v->v)) ||
	    psiplace_intvec_format(back.v, back.n, b, len) < 0 || strcmp(a, b))
		abort();
	psiplace_intvec_free(&back);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	psiplace_error_t err;
	struct psiplace_intvec v;
	char *s = malloc(size + 1);
	size_t i;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (psiplace_intvec_parse(s, "fuzz", &v, &err) == 0) {
		if (v.n == 0 || v.n > PSIPLACE_INTVEC_MAX_ENTRIES)
			abort();
		for (i = 0; i < v.n; i++)
			if (v.v[i] < 0 || v.v[i] > PSIPLACE_INTVEC_MAX_VALUE)
				abort();
		roundtrip(&v);
		psiplace_intvec_free(&v);
	} else if (v.v || v.n || !memchr(err.text, '\0', sizeof(err.text)) || !err.text[0]) {
		abort();
	}
	free(s);
	return 0;
}
