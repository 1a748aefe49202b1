/* psiplace — Slurm hostlist expressions ("n[1-3,5],x7", "rack[1-2]n[01-04]")
 * expanded into host names, without libslurm (the CLI and the library must
 * not depend on it for this).
 *
 * Syntax, as Slurm reads SLURM_JOB_NODELIST and node lists in general:
 * terms separated by commas or blanks (outside brackets); a term is host
 * name text (letters, digits, '-', '_', '.') with any number of bracket
 * groups up to PSIPLACE_HOSTLIST_MAX_BRACKETS; a bracket holds
 * comma-separated numbers and ranges "LO-HI" (LO <= HI).  A range keeps the
 * width of its LO ("n[08-10]" gives n08 n09 n10).  Several brackets in one
 * term expand as a product, the leftmost varying slowest.  Order and
 * duplicates are kept as written.
 *
 * The parser is total and bounded: input length, host count, name length
 * and total name bytes are limited, and anything else is a one-line error. */
#ifndef PSIPLACE_HOSTLIST_H
#define PSIPLACE_HOSTLIST_H

#include <stddef.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_HOSTLIST_MAX_INPUT (1u << 20)	/* bytes of input */
#define PSIPLACE_HOSTLIST_MAX_HOSTS (1u << 18)	/* hosts after expansion */
#define PSIPLACE_HOSTLIST_MAX_NAME 255		/* bytes of one host name */
#define PSIPLACE_HOSTLIST_MAX_BYTES (1u << 24)	/* all names together */
#define PSIPLACE_HOSTLIST_MAX_BRACKETS 8	/* bracket groups per term */

struct psiplace_hostlist {
	size_t n;    /* hosts, >= 1 after a successful expansion */
	char **host; /* n NUL-terminated names (pointing into buf) */
	char *buf;
};

/* Expand s.  what names the input in messages (e.g. "SLURM_JOB_NODELIST").
 * On success out owns memory to release with psiplace_hostlist_free();
 * on error out is empty. */
int psiplace_hostlist_expand(const char *s, const char *what,
			     struct psiplace_hostlist *out, psiplace_error_t *err);

void psiplace_hostlist_free(struct psiplace_hostlist *h);

#ifdef __cplusplus
}
#endif
#endif
