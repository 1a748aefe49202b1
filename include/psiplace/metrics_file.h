/* psiplace — the metrics file a site's monitoring writes:
 *
 *   NAME key=value ...      keys: load1 load5 load15 mtbf usage gmetric.NAME
 *
 * '#' starts a comment line.  A malformed line is skipped and reported
 * through the log callback, never fatal.  The last line counts only when
 * it ends with a newline (monitoring may be writing it as we read).  A
 * node on several lines: later values override earlier ones per key. */
#ifndef PSIPLACE_METRICS_FILE_H
#define PSIPLACE_METRICS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/policy.h"
#include "psiplace/error.h"
#include "psiplace/readfile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_METRICS_MAXBYTES (64u << 20) /* file size */
#define PSIPLACE_METRICS_MAXLINE 8192
#define PSIPLACE_METRICS_MAXGMETRICS 64      /* gmetric.NAME per node */
#define PSIPLACE_GMETRIC_NAMEMAX 64

enum {
	PSIPLACE_METRIC_LOAD1 = 1 << 0,
	PSIPLACE_METRIC_LOAD5 = 1 << 1,
	PSIPLACE_METRIC_LOAD15 = 1 << 2,
	PSIPLACE_METRIC_MTBF = 1 << 3,
	PSIPLACE_METRIC_USAGE = 1 << 4,
};

struct psiplace_metrics_node {
	char *name;
	int line;     /* the (last) line that named it */
	unsigned has; /* PSIPLACE_METRIC_* bits */
	double load1, load5, load15, mtbf, usage;
	struct psiplace_gmetric *gmetrics; /* names owned */
	size_t ngmetrics;
};

struct psiplace_metrics {
	struct psiplace_metrics_node *nodes; /* sorted by name, unique */
	size_t n;
	size_t skipped;     /* malformed lines skipped */
	bool partial;       /* an unterminated last line was ignored */
};

/* Called once per skipped line or unknown key with a one-line message
 * ("FILE:LINE: ..."). */
typedef void (*psiplace_log_fn)(void *arg, const char *msg);

void psiplace_metrics_init(struct psiplace_metrics *m);
void psiplace_metrics_free(struct psiplace_metrics *m);

/* Parse text; `file` names it in messages.  Returns 0, or -1 (err) only
 * when the text is too large or memory runs out. */
int psiplace_metrics_parse(const char *text, size_t len, const char *file,
			   struct psiplace_metrics *m, psiplace_log_fn log,
			   void *log_arg, psiplace_error_t *err);

int psiplace_metrics_read_file(const char *path, struct psiplace_metrics *m,
			       psiplace_log_fn log, void *log_arg, psiplace_error_t *err);

const struct psiplace_metrics_node *psiplace_metrics_node(const struct psiplace_metrics *m,
							  const char *name);

/* Overlay a node's metrics onto what slurmctld knows (load1 over
 * cpu_load, usage, mtbf, gmetrics).  The node borrows the gmetrics. */
void psiplace_metrics_apply(const struct psiplace_metrics_node *mn,
			    struct psiplace_node *node);

#ifdef __cplusplus
}
#endif
#endif
