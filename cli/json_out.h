/* The psiplace command's one JSON writer (jansson), for `map --format json`
 * and `spawn-plan --format json`. */
#ifndef PSIPLACE_CLI_JSON_OUT_H
#define PSIPLACE_CLI_JSON_OUT_H

#include <stdio.h>

#include <jansson.h>

/* A JSON string of s (NULL: null).  Bytes that are not valid UTF-8 become
 * U+FFFD, so the document is always valid JSON and UTF-8 passes through. */
json_t *cli_json_str(const char *s);

/* Set o's key / append to array a: v is consumed in every case; *bad
 * becomes 1 when o, a or v is missing or the call fails (out of memory),
 * so a document is built without a check per call and refused at the end. */
void cli_json_set(json_t *o, const char *key, json_t *v, int *bad);
void cli_json_append(json_t *a, json_t *v, int *bad);

/* Print a document: an object with one member per line; a member whose
 * value is an array of objects or arrays gets one element per line; all
 * else on one line with ", " and ": " between items (line-based tools and
 * diffs stay readable).  Consumes doc.  0, or -1 when out of memory. */
int cli_json_print(FILE *f, json_t *doc);

#endif
