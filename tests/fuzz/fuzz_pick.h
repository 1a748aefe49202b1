/* For the targets that fuzz several parsers: the first byte of the input
 * picks the parser, the other bytes are its text (NUL-terminated; a NUL
 * inside ends the text early, as it would for the C string a parser gets). */
#ifndef PSIPLACE_FUZZ_PICK_H
#define PSIPLACE_FUZZ_PICK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*fuzz_parser_fn)(const char *text);

static inline int fuzz_pick(const uint8_t *data, size_t size, const fuzz_parser_fn *parsers,
			    unsigned n)
{
	char *s;

	if (!size || !(s = malloc(size)))
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	parsers[data[0] % n](s);
	free(s);
	return 0;
}

#endif
