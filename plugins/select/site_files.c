/* The site's files read into a struct site: the part of site.c that the
 * reader thread runs.  Only libc and libpsiplace, nothing of slurmctld's:
 * the thread may outlive the plugin's fini (site_reader.c), and the unit
 * tests build it without Slurm. */
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "psiplace/error.h"
#include "site.h"

static int load_plugstack(struct site *s, const char *path, psiplace_error_t *err)
{
	int rc = 0;

	if (path && access(path, R_OK) == 0)
		rc = psiplace_siteconf_read_plugstack(path, &s->conf, err);
	if (rc == 0 && s->conf.priority_function &&
	    psiplace_priorityf_compile(s->conf.priority_function, "PriorityFunction",
				       &s->cluster_prio, err) < 0) {
		psiplace_error_t msg;

		msg = *err;
		rc = psiplace_seterr(err, "%s: %s", path, msg.text);
	}
	return rc;
}

/* Does a file `name` exist in the directory of `path`? */
static bool beside_exists(const char *path, const char *name)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char p[PATH_MAX];

	if (!slash || snprintf(p, sizeof(p), "%.*s/%s", (int)(slash - path), path, name) >=
			      (int)sizeof(p))
		return false;
	return access(p, F_OK) == 0;
}

int site_load_paths(struct site *s, const char *plugstack, const char *psiconf,
		    psiplace_error_t *err)
{
	memset(s, 0, sizeof(*s));
	psiplace_siteconf_init(&s->conf);
	psiplace_psiconf_init(&s->psiconf);
	s->indexed = 0;
	if (load_plugstack(s, plugstack, err) < 0 ||
	    psiplace_psiconf_read_file(psiconf, true, &s->psiconf, err) < 0) {
		site_files_free(s);
		return -1;
	}
	s->topology_yaml = beside_exists(psiconf, "topology.yaml");
	return 0;
}

void site_files_free(struct site *s)
{
	psiplace_siteconf_free(&s->conf);
	psiplace_priorityf_free(s->cluster_prio);
	psiplace_psiconf_free(&s->psiconf);
	if (s->metrics) {
		psiplace_metrics_free(s->metrics);
		free(s->metrics);
	}
	memset(s, 0, sizeof(*s));
}
