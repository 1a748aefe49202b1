/* select/psiplace_cons_tres: the site's files (the plugstack.conf line,
 * psiplace.conf, the metrics file) read by a thread of its own, so that no
 * decision and no reconfigure under slurmctld's locks ever waits for a
 * file.  Internal to the plugin. */
#ifndef PSIPLACE_SELECT_SITE_READER_H
#define PSIPLACE_SELECT_SITE_READER_H

#include "psiplace/error.h"
#include "psiplace/metrics_file.h"

struct site;

/* Start the thread, watching metrics_path (copied; NULL: no metrics file).
 * It stats the file when its directory changes (inotify) and at least once
 * a second, reads it bounded (regular files only,
 * PSIPLACE_METRICS_MAXBYTES) when its stamp changed, and publishes the
 * parsed result.  A file that cannot be read publishes an empty result
 * (its values are dropped), logged once per change. */
int site_reader_start(const char *metrics_path, psiplace_error_t *err);

/* Stop the thread and free what it published and nobody took (fini).
 * Safe when it never started.  Waits at most 5 s: a thread stuck longer
 * (a hung file system) is detached and keeps its own generation (pipe,
 * path, pending results), which it frees when it returns; nothing it
 * publishes from then on is ever taken. */
void site_reader_stop(void);

/* Ask the thread to read the plugstack.conf line and psiplace.conf again
 * (paths copied; computed by the caller from slurm.conf, under its lock).
 * Never waits: reconfigure returns at once.  The thread publishes the new
 * configuration, or logs "keeping the previous configuration: ..." once
 * and publishes nothing; when psiplace.conf names another metrics file it
 * watches that one from then on.  Returns -1 when the thread is not
 * running (the caller reads the files itself). */
int site_reader_reload(const char *plugstack_path, const char *psiconf_path);

/* The newest configuration / metrics published since the last call by
 * the running generation, or NULL: one atomic exchange, never a wait.  The
 * caller owns it (site_reader_free_site / site_reader_free).  When a
 * configuration names another metrics file, the metrics published before
 * it are replaced by an empty result (published just before the
 * configuration), so that values of the old file are never installed
 * with or after the new configuration. */
struct site *site_reader_take_site(void);
struct psiplace_metrics *site_reader_take(void);
void site_reader_free(struct psiplace_metrics *m);
void site_reader_free_site(struct site *s);

/* Configurations and metrics results the running generation published
 * so far (tests, logs); 0 when none runs. */
unsigned long site_reader_published(void);

#endif
