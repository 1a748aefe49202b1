/* psiplace — reading the inputs: a whole configuration or data file,
 * bounded, and variables through a lookup function. */
#ifndef PSIPLACE_READFILE_H
#define PSIPLACE_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* flags of psiplace_read_file */
enum {
	/* Only a regular file: a FIFO, device or directory is refused without
	 * blocking (the open is non-blocking).  Configuration and data files
	 * read inside Slurm's daemons always use it. */
	PSIPLACE_READ_REGULAR = 1 << 0,
};

/* Read a variable (of the environment, a job's or a step's); NULL when
 * undefined. */
typedef const char *(*psiplace_getenv_fn)(const char *name, void *arg);

/* Read at most max + 1 bytes of the file at path (one byte more than a
 * caller accepts, so that its parser can tell "too large" from "exactly
 * max"); a regular file larger than max is refused before reading.
 * Returns 0 with *text (malloc'd, NUL-terminated; free() it) and *len, or
 * -1 with err "PATH: reason" and *sys_errno (may be NULL) set to the
 * errno of the failure (EINVAL: not a regular file, EFBIG: too large). */
int psiplace_read_file(const char *path, size_t max, unsigned flags, char **text, size_t *len,
		       int *sys_errno, psiplace_error_t *err);

/* What identifies a version of a file: re-read only when it changes. */
struct psiplace_filestamp {
	int64_t mtime_sec, mtime_nsec;
	uint64_t size, ino;
	uint32_t mode;
	bool valid;
};

/* stat() the file and compare with *stamp, which is updated.  *changed:
 * the file differs from the stamp (reload now); a file that cannot be
 * stat'ed returns -1 with err, invalidates the stamp and counts as a
 * change when the stamp was valid (the file went away). */
int psiplace_file_changed(const char *path, struct psiplace_filestamp *stamp, bool *changed,
			  psiplace_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
