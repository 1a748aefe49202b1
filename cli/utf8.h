/* UTF-8 validation shared by the command's JSON and SVG writers. */
#ifndef PSIPLACE_CLI_UTF8_H
#define PSIPLACE_CLI_UTF8_H

#include <stddef.h>

/* Length (1-4) of the valid UTF-8 sequence at s, or 0 when s starts with a
 * byte that is not UTF-8 (overlong, surrogate, above U+10FFFF, cut). */
size_t cli_utf8_len(const unsigned char *s);

#endif
