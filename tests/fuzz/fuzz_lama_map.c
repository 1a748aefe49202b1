/* Fuzz the LAMA map string parser: any bytes give a value or a one-line error. */
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
		enum psiplace_level l[PSIPLACE_LEVEL_COUNT];
		struct psiplace_lama_opts o;
		unsigned k;

		if (psiplace_lama_parse_map(s, "map", l, &k, &err) == 0) {
			if (k == 0 || k > PSIPLACE_LEVEL_COUNT)
				abort();
			/* what parses must print back to itself */
			psiplace_lama_opts_init(&o);
			if (psiplace_lama_apply(&o, "--psi-lama-map", s, &err) != 0 ||
			    strcmp(o.map_str, s))
				abort();
			psiplace_lama_finish(&o, &err);
		} else if (!err.text[0] || strchr(err.text, '\n')) {
			abort();
		}
	}
	return 0;
}
