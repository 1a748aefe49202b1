/* psiplace — the one family of small total parsers: numbers (the
 * configuration, metrics and table readers, the command's options and
 * Slurm's variables) and configuration words. */
#ifndef PSIPLACE_TEXTPARSE_H
#define PSIPLACE_TEXTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"

/* A finite decimal number (sign, digits, '.', exponent) filling all of
 * s[0..n-1]; at most 64 bytes. */
bool psiplace_parse_double(const char *s, size_t n, double *out);

/* A decimal unsigned integer filling s[0..n-1], at most max. */
bool psiplace_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out);

/* Split a config line into at most max KEY=VALUE words at blanks outside
 * double quotes, cutting a '#' comment outside quotes.  The line is
 * modified in place; quotes are removed from values.  0 with the number
 * of words in *n, or -1 with err ("unterminated double quote", "more
 * than MAX words"). */
int psiplace_split_words(char *line, char **words, int max, int *n, psiplace_error_t *err);

#endif
