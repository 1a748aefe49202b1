/* Fuzz the LAMA simple level (--psi-map-by, --psi-bind-to) parser: any bytes give a value or a one-line error. */
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
		const char *map = NULL;
		unsigned w, k;

		if (psiplace_lama_simple_map(s, "--psi-map-by", &map, &err) == 0) {
			if (psiplace_lama_parse_map(map, "table", l, &k, &err) != 0)
				abort();
		} else if (!err.text[0] || strchr(err.text, '\n')) {
			abort();
		}
		if (psiplace_lama_simple_bind(s, "--psi-bind-to", &w, &l[0], &err) == 0 &&
		    w > 1)
			abort();
	}
	return 0;
}
