/* select/psiplace_cons_tres: the metrics file, read by a thread of its
 * own so that no decision ever waits for a file.  Internal to the plugin. */
#ifndef PSIPLACE_SELECT_METRICS_READER_H
#define PSIPLACE_SELECT_METRICS_READER_H

#include "psiplace/error.h"
#include "psiplace/metrics_file.h"

/* Start watching path (copied): a thread stats it when the directory
 * changes (inotify) and at least once a second, reads it bounded (regular
 * files only, PSIPLACE_METRICS_MAXBYTES) when its stamp changed, and
 * publishes the parsed result.  A file that cannot be read publishes an
 * empty result (its values are dropped), logged once per change. */
int metrics_reader_start(const char *path, psiplace_error_t *err);

/* Stop the thread and free what it published and nobody took (fini,
 * reconfigure to another path).  Safe when it never started. */
void metrics_reader_stop(void);

/* The newest result published since the last call, or NULL: one atomic
 * exchange, never a wait.  The caller owns it (metrics_reader_free). */
struct psiplace_metrics *metrics_reader_take(void);
void metrics_reader_free(struct psiplace_metrics *m);

/* Results published so far (tests, log lines). */
unsigned long metrics_reader_published(void);

#endif
