/* psiplace — error reporting convention shared by the whole library.
 *
 * Functions that can fail return 0 on success or a negative value, and
 * write one line (no trailing newline) into a caller-provided buffer that
 * names the input and what was expected.  The buffer may be NULL. */
#ifndef PSIPLACE_ERROR_H
#define PSIPLACE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size that always holds a message of this library. */
#define PSIPLACE_ERRLEN 512

/* Format a message into err (truncating safely) and return -1. */
int psiplace_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The common message of the list parsers, and -1:
 * "WHAT: 'INPUT': WHY at character POS+1; accepted: ACCEPTED" (INPUT quoted). */
int psiplace_seterr_at(char *err, size_t errlen, const char *what, const char *input,
		       size_t pos, const char *accepted, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* Quote an untrusted value for a message: at most max bytes, control and
 * non-ASCII bytes as \xHH, result always NUL-terminated. */
void psiplace_quote(char *dst, size_t dstlen, const char *src, size_t max);

#ifdef __cplusplus
}
#endif
#endif
