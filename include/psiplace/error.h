/* psiplace — the library's one error model.
 *
 * Every function that can fail takes a `psiplace_error_t *err` as its
 * last argument and returns an int: 0 on success, -1 on failure with one
 * line in err->text (no trailing newline) that names the input, the value
 * (quoted, see psiplace_quote) and what is accepted, e.g.
 *   "--psi-tpp: '0' is not a positive integer"
 * Out of memory is a failure like any other ("out of memory ..."): no
 * function swallows it.  Functions with more than two outcomes never hide
 * them in the return value: they return 0/-1 and report the outcome
 * through an out-parameter (an enum or a count) documented in their header.
 * err may be NULL when the caller does not want the message.  Callers own
 * err (usually on their stack); the library never keeps a pointer to it.
 *
 * Ownership (the rule everywhere): a function named *_new, *_parse,
 * *_compile, *_load, *_gather or *_from_* returns memory the caller frees
 * with the matching *_free, which accepts NULL; on failure nothing is left
 * to free.  *_init fills a caller-owned struct, *_free releases what it
 * points to but not the struct itself.  Strings passed in are never kept
 * unless the header says so. */
#ifndef PSIPLACE_ERROR_H
#define PSIPLACE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size that always holds a message of this library. */
#define PSIPLACE_ERRLEN 512

typedef struct psiplace_error {
	char text[PSIPLACE_ERRLEN];
} psiplace_error_t;

/* Format a message into err (truncating safely) and return -1. */
int psiplace_seterr(psiplace_error_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append to the message already in err (a detail a caller knows). */
void psiplace_error_append(psiplace_error_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The common message of the list parsers, and -1:
 * "WHAT: 'INPUT': WHY at character POS+1; accepted: ACCEPTED" (INPUT quoted). */
int psiplace_seterr_at(psiplace_error_t *err, const char *what, const char *input, size_t pos,
		       const char *accepted, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The one shape of an error in a line of a file, and -1:
 * "FILE:LINE: MSG", with word "FILE:LINE: MSG 'WORD'" (WORD quoted). */
int psiplace_seterr_line(psiplace_error_t *err, const char *file, int line, const char *msg,
			 const char *word);
/* The same shape with a formatted message: "FILE:LINE: MESSAGE". */
int psiplace_seterr_linef(psiplace_error_t *err, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Quote an untrusted value for a message: at most max bytes, control and
 * non-ASCII bytes as \xHH, result always NUL-terminated. */
void psiplace_quote(char *dst, size_t dstlen, const char *src, size_t max);

#ifdef __cplusplus
}
#endif
#endif
