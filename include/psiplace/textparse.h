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

/* The one line reader: a text ('\n'-terminated lines; the last one may
 * lack it) one line at a time, counting lines from 1 for FILE:LINE
 * messages (psiplace_seterr_line). */
struct psiplace_lines {
	const char *text;
	size_t len, pos;
	int lineno; /* of the line last returned */
};
void psiplace_lines_init(struct psiplace_lines *it, const char *text, size_t len);
/* The next line: *line and its *n bytes without the '\n'; *complete (may
 * be NULL) is false for a last line without '\n' (a file being written).
 * false at the end of the text. */
bool psiplace_lines_next(struct psiplace_lines *it, const char **line, size_t *n, bool *complete);

/* The next blank-separated word of a line, without quoting (plugstack.conf
 * as Slurm splits it, the metrics file), cut in place; NULL at the end.
 * *cursor starts at the line and moves on. */
char *psiplace_next_word(char **cursor);

/* Split a config line into at most max KEY=VALUE words at blanks outside
 * double quotes, cutting a '#' comment outside quotes.  The line is
 * modified in place; quotes are removed from values.  0 with the number
 * of words in *n, or -1 with err ("unterminated double quote", "more
 * than MAX words"). */
int psiplace_split_words(char *line, char **words, int max, int *n, psiplace_error_t *err);

/* Whole-word membership in a comma-separated list (Slurm's features, a
 * job's partitions "a,b"); a NULL list has no word. */
bool psiplace_word_in_list(const char *list, const char *word);

#endif
