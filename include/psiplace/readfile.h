/* psiplace — reading a whole configuration or data file, bounded. */
#ifndef PSIPLACE_READFILE_H
#define PSIPLACE_READFILE_H

#include <stddef.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read at most max + 1 bytes of the file at path (one byte more than a
 * caller accepts, so that its parser can tell "too large" from "exactly
 * max").  Returns 0 with *text (malloc'd, NUL-terminated; free() it) and
 * *len, or -1 with err "PATH: reason" and *sys_errno (may be NULL) set to
 * the errno of the failure. */
int psiplace_read_file(const char *path, size_t max, char **text, size_t *len,
		       int *sys_errno, psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
