/* Running scontrol (and salloc, scancel) for the resize parts and reading
 * its one-line records (common/resize/resize_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "psiplace/hostlist.h"
#include "resize_internal.h"

/* The whole output of a command: a step list has no size bound (MPICH makes
 * a step per spawned group), and a check that read part of it would pass
 * a node whose step is listed later. */

/* Append what fd gives until EOF. */
static int slurp(int fd, struct psiplace_resize_out *out, psiplace_error_t *err)
{
	ssize_t n;

	out->len = 0;
	for (;;) {
		if (out->cap - out->len < 4096) {
			size_t cap = out->cap ? 2 * out->cap : 1 << 16;
			char *s = realloc(out->s, cap);

			if (!s)
				return psiplace_seterr(err,
						       "resize: out of memory reading scontrol's "
						       "answer (%zu bytes so far)",
						       out->len);
			out->s = s;
			out->cap = cap;
		}
		n = read(fd, out->s + out->len, out->cap - 1 - out->len);
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			return psiplace_seterr(err, "resize: reading scontrol's answer: %s",
					       strerror(errno));
		if (n > 0)
			out->len += (size_t)n;
	}
	out->s[out->len] = 0;
	return 0;
}

/* Run argv (no shell) in dir (NULL: here); stdout and stderr into out.
 * *status: the exit code, or minus the signal that ended it. */
int psiplace_resize_run(char *const argv[], const char *dir, struct psiplace_resize_out *out,
			int *status, psiplace_error_t *err)
{
	int fd[2], st, rc;
	pid_t pid;

	if (pipe(fd) < 0)
		return psiplace_seterr(err, "resize: pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return psiplace_seterr(err, "resize: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		if (dir && chdir(dir) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	rc = slurp(fd[0], out, err);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return psiplace_seterr(err, "resize: waitpid: %s", strerror(errno));
	if (rc < 0)
		return -1;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	if (*status == 127)
		return psiplace_seterr(err, "resize: cannot run '%s'", argv[0]);
	return 0;
}

/* Where the value of KEY= starts in a one-line scontrol record, and its
 * length (up to the next space); NULL without one. */
const char *psiplace_resize_field_at(const char *line, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			*len = strcspn(p + k + 1, " \n");
			return p + k + 1;
		}
		p += k;
	}
	return NULL;
}

/* The value of KEY= into val[len]; -1 without one or when it is longer. */
int psiplace_resize_field(const char *line, const char *key, char *val, size_t len)
{
	size_t n;
	const char *p = psiplace_resize_field_at(line, key, &n);

	if (!p || n >= len)
		return -1;
	memcpy(val, p, n);
	val[n] = 0;
	return 0;
}

/* The Slurm hostlist of KEY= in line, expanded into h: 0, 1 without KEY=,
 * -1 on error (h empty). */
int psiplace_resize_field_hosts(const char *line, const char *key, const char *what,
				struct psiplace_hostlist *h, psiplace_error_t *err)
{
	size_t n;
	const char *p = psiplace_resize_field_at(line, key, &n);
	char *v;
	int rc;

	if (!p)
		return 1;
	if (!(v = strndup(p, n)))
		return psiplace_seterr(err, "resize: out of memory");
	rc = psiplace_hostlist_expand(v, what, h, err);
	free(v);
	return rc < 0 ? -1 : 0;
}

/* The private directory scontrol runs in (it writes the job's resize
 * scripts into its working directory): under TMPDIR when set, else /tmp. */
char *psiplace_resize_workdir(psiplace_error_t *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (!(dir = malloc(strlen(tmp) + sizeof("/psiplace-resize.XXXXXX")))) {
		psiplace_seterr(err, "resize: out of memory");
		return NULL;
	}
	sprintf(dir, "%s/psiplace-resize.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		psiplace_seterr(err, "resize: cannot make a directory in %s (TMPDIR): %s", tmp,
				strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}
