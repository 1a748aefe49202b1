/* psiplace — a node table in CSV, the input of `psiplace rank`.
 *
 * A header row names the columns, in any order:
 *   name cpus alloc_cpus threads load1 load5 load15 real_memory alloc_memory
 *   tmp_disk speed priority cost features jobs suspended_jobs arch os power
 *   usage mtbf next_resv gmetric.NAME
 * and, beyond Moab's node attributes, weight (the site weight tier), paraprocs and
 * rsvaffinity.  Missing columns or empty cells take defaults: threads =
 * cpus, power = 1, speed = 1.0, next_resv = none, others 0 or empty.
 * features is ';'-separated.  Row order is the node index.  Cells are
 * trimmed of blanks; no quoting; '#' lines and blank lines are skipped. */
#ifndef PSIPLACE_NODETABLE_H
#define PSIPLACE_NODETABLE_H

#include <stddef.h>

#include "psiplace/policy.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_NODETABLE_MAXBYTES (256u << 20)
#define PSIPLACE_NODETABLE_MAXCOLS 128
#define PSIPLACE_NODETABLE_MAXROWS 4194304

struct psiplace_nodetable {
	struct psiplace_node *nodes;
	size_t n;
	char *text;                       /* the strings the nodes point into */
	struct psiplace_gmetric *gmetrics; /* n * ngm, node i at i * ngm */
	size_t ngm;
};

/* Parse CSV text (len bytes); `file` names it in "FILE:LINE: ..." errors. */
int psiplace_nodetable_parse(const char *text, size_t len, const char *file,
			     struct psiplace_nodetable *t, psiplace_error_t *err);

void psiplace_nodetable_free(struct psiplace_nodetable *t);

#ifdef __cplusplus
}
#endif
#endif
