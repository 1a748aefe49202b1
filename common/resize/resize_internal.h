/* Shared by the files of common/resize/: running a Slurm command and
 * reading the fields of its one-line (-o) records.  scontrol.c is the
 * bottom; release.c and grow.c use it. */
#ifndef PSIPLACE_RESIZE_INTERNAL_H
#define PSIPLACE_RESIZE_INTERNAL_H

#include <stddef.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"

/* The whole output of a command: a step list has no size bound (MPICH makes
 * a step per spawned group), and a check that read part of it would pass
 * a node whose step is listed later. */
struct psiplace_resize_out {
	char *s;
	size_t len, cap;
};

/* Run argv (no shell) in dir (NULL: here); stdout and stderr into out.
 * *status: the exit code, or minus the signal that ended it. */
int psiplace_resize_run(char *const argv[], const char *dir, struct psiplace_resize_out *out,
			int *status, psiplace_error_t *err);
/* Where the value of KEY= starts in a one-line record, and its length (up
 * to the next space); NULL without one. */
const char *psiplace_resize_field_at(const char *line, const char *key, size_t *len);
/* The value of KEY= into val[len]; -1 without one or when it is longer. */
int psiplace_resize_field(const char *line, const char *key, char *val, size_t len);
/* The Slurm hostlist of KEY= in line, expanded into h: 0, 1 without KEY=,
 * -1 on error (h empty). */
int psiplace_resize_field_hosts(const char *line, const char *key, const char *what,
				struct psiplace_hostlist *h, psiplace_error_t *err);
/* A private directory under TMPDIR (else /tmp) for scontrol, which writes
 * the job's resize scripts into its working directory. */
char *psiplace_resize_workdir(psiplace_error_t *err);

#endif
