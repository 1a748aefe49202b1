/* libFuzzer: Slurm hostlist expansion must give names or an error for any
 * bytes; names are non-empty, bounded and made of host name characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int bad_name(const char *h)
{
	size_t n = strlen(h);

	return n == 0 || n > PSIPLACE_HOSTLIST_MAX_NAME ||
	       strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != n;
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
	} else if (h.n || h.host || !err.text[0]) {
		abort();
	}
	free(s);
	return 0;
}
