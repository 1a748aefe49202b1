/* Fuzz the LAMA MPPR string parser: any bytes give a value or a one-line error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[PSIPLACE_LAMA_MAXSTR + 64];
	psiplace_error_t err;
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

	memcpy(s, data, n);
	s[n] = '\0';
	err.text[0] = '\0';
	{
		struct psiplace_lama_mppr m[PSIPLACE_LEVEL_COUNT];
		unsigned k, i;

		if (psiplace_lama_parse_mppr(s, "mppr", m, &k, &err) == 0) {
			if (k > PSIPLACE_LEVEL_COUNT)
				abort();
			for (i = 0; i < k; i++)
				if (m[i].limit < 1 || m[i].limit > PSIPLACE_LAMA_MAXLIMIT)
					abort();
		} else if (!err.text[0] || strchr(err.text, '\n')) {
			abort();
		}
	}
	return 0;
}
