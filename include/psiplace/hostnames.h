/* psiplace — an ordered list of host names with repeats (PSI_HOSTS,
 * hostfile slots, the job's PSI node set), grown from Slurm hostlist
 * expressions (psiplace/hostlist.h) and written back compactly. */
#ifndef PSIPLACE_HOSTNAMES_H
#define PSIPLACE_HOSTNAMES_H

#include <stddef.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_NAMES_MAX 65536 /* names in one list */

struct psiplace_names {
	size_t n;
	char **name; /* malloc'd, each malloc'd */
};

void psiplace_names_init(struct psiplace_names *l);
void psiplace_names_free(struct psiplace_names *l);

/* Append a copy of name[0..len).  -1 with err when the list is full. */
int psiplace_names_push(struct psiplace_names *l, const char *name, size_t len, const char *what,
			psiplace_error_t *err);

/* Expand a hostlist expression (NUL-terminated; blanks or commas
 * separate names) and append its names.  On error l is unchanged. */
int psiplace_names_add_hostlist(struct psiplace_names *l, const char *expr, const char *what,
				psiplace_error_t *err);

/* Write l as a compact hostlist expression that expands to the same names
 * in the same order (adjacent names with one prefix share brackets,
 * consecutive numbers of one width become ranges).  Returns the length,
 * or -1 when it does not fit in buf. */
long psiplace_names_format(const struct psiplace_names *l, char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif
#endif
