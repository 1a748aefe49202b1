/* libFuzzer: the per-node vector parser ("4,2,8", "72(x2),36") must give a
 * vector or an error for any bytes, and a vector must respect the bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		psiplace_intvec_free(&v);
	} else if (v.v || v.n || !memchr(err.text, '\0', sizeof(err.text)) || !err.text[0]) {
		abort();
	}
	free(s);
	return 0;
}
