/* Fuzz the LAMA bind string parser: any bytes give a value or a one-line error. */
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
		enum psiplace_level l;
		unsigned w = 0;

		if (psiplace_lama_parse_bind(s, "bind", &w, &l, &err) == 0) {
			if (w < 1 || w > PSIPLACE_LAMA_MAXWIDTH || (unsigned)l >= PSIPLACE_LEVEL_COUNT)
				abort();
		} else if (!err.text[0] || strchr(err.text, '\n')) {
			abort();
		}
	}
	return 0;
}
