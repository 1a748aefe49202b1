/* Give nodes of a running job back to Slurm (include/psiplace/resize.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "psiplace/hostlist.h"
#include "psiplace/resize.h"

#define OUTMAX (1 << 16)

/* Run argv (no shell) in dir (NULL: here); stdout and stderr into out. */
static int run(char *const argv[], const char *dir, char *out, size_t outlen, int *status,
	       psiplace_error_t *err)
{
	int fd[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) < 0)
		return psiplace_seterr(err, "release: pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return psiplace_seterr(err, "release: fork: %s", strerror(errno));
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
	while ((n = read(fd[0], out + got, outlen - 1 - got)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && (got += (size_t)n) >= outlen - 1)
			break;
	out[got] = 0;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return psiplace_seterr(err, "release: waitpid: %s", strerror(errno));
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (*status == 127)
		return psiplace_seterr(err, "release: cannot run '%s'", argv[0]);
	return 0;
}

/* The value of KEY= in a one-line scontrol record (up to the next space). */
static int field(const char *line, const char *key, char *val, size_t len)
{
	size_t k = strlen(key), n;
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			n = strcspn(p, " \n");
			if (n >= len)
				return -1;
			memcpy(val, p, n);
			val[n] = 0;
			return 0;
		}
		p += k;
	}
	return -1;
}

static int in_list(const struct psiplace_hostlist *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->host[i], name))
			return 1;
	return 0;
}

static int job_nodes(const char *scontrol, const char *job, struct psiplace_hostlist *nodes,
		     char *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "job", (char *)job, NULL };
	char state[64], nl[OUTMAX / 4];
	int status;

	if (run(argv, NULL, out, OUTMAX, &status, err) < 0)
		return -1;
	if (status)
		return psiplace_seterr(err, "release: job '%s': %.200s", job, strtok(out, "\n"));
	if (field(out, "JobState", state, sizeof(state)) < 0 ||
	    field(out, "NodeList", nl, sizeof(nl)) < 0)
		return psiplace_seterr(err, "release: job %s: no JobState/NodeList in scontrol's "
				       "answer", job);
	if (strcmp(state, "RUNNING"))
		return psiplace_seterr(err, "release: job %s is %s, not RUNNING", job, state);
	return psiplace_hostlist_expand(nl, "the job's NodeList", nodes, err);
}

/* A step of the job (other than allow) on one of the nodes to release:
 * 1 (err says which), 0 none, -1 error. */
static int busy(const char *scontrol, const char *job, const char *allow,
		const struct psiplace_hostlist *rel, char *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "step", (char *)job, NULL };
	char id[64], nl[OUTMAX / 4], *line, *save = NULL;
	struct psiplace_hostlist h;
	size_t i;
	int status;

	if (run(argv, NULL, out, OUTMAX, &status, err) < 0)
		return -1;
	if (status) /* 22.05 exits 1 with "No steps in the system" */
		return 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *dot;

		if (field(line, "StepId", id, sizeof(id)) < 0 || field(line, "NodeList", nl, sizeof(nl)) < 0)
			continue;
		dot = strchr(id, '.');
		if (allow && dot && !strcmp(dot + 1, allow))
			continue;
		if (psiplace_hostlist_expand(nl, "a step's NodeList", &h, err) < 0)
			return -1;
		for (i = 0; i < rel->n; i++)
			if (in_list(&h, rel->host[i])) {
				psiplace_seterr(err, "release: node %s still runs step %s of job %s; "
						"end it first", rel->host[i], id, job);
				psiplace_hostlist_free(&h);
				return 1;
			}
		psiplace_hostlist_free(&h);
	}
	return 0;
}

/* busy(), polled every 100 ms for up to o->wait_steps seconds: the steps of
 * processes that just left (MPICH: one step per spawned group) end a little
 * after the processes do. */
static int wait_steps(const char *sc, const char *job, const struct psiplace_release_opts *o,
		      const struct psiplace_hostlist *rel, char *out, psiplace_error_t *err)
{
	struct timespec now, end, nap = { 0, 100 * 1000 * 1000 };
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += o && o->wait_steps > 0 ? o->wait_steps : 0;
	while ((rc = busy(sc, job, o ? o->allow_step : NULL, rel, out, err)) == 1) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		if (o->waiting)
			o->waiting(o->waiting_arg);
		nanosleep(&nap, NULL);
	}
	return rc;
}

static int update(const char *scontrol, const char *job, const char *kept, char *out,
		  psiplace_error_t *err)
{
	char dir[] = "/tmp/psiplace-release.XXXXXX", a1[64], *a2, path[sizeof(dir) + 64];
	char *argv[] = { (char *)scontrol, "update", a1, NULL, NULL };
	int status, rc;
	const char *ext[] = { "sh", "csh" };
	size_t i;

	if (!mkdtemp(dir))
		return psiplace_seterr(err, "release: mkdtemp: %s", strerror(errno));
	snprintf(a1, sizeof(a1), "JobId=%s", job);
	if (!(a2 = malloc(strlen(kept) + 16))) {
		rmdir(dir);
		return psiplace_seterr(err, "release: out of memory");
	}
	sprintf(a2, "NodeList=%s", kept);
	argv[3] = a2;
	rc = run(argv, dir, out, OUTMAX, &status, err);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/slurm_job_%s_resize.%s", dir, job, ext[i]);
		unlink(path);
	}
	if (rmdir(dir) < 0 && rc == 0)
		rc = psiplace_seterr(err, "release: scontrol left files in %s", dir);
	free(a2);
	if (rc == 0 && status)
		rc = psiplace_seterr(err, "release: scontrol update JobId=%s NodeList=%s failed: "
				     "%.200s", job, kept, strtok(out, "\n") ? out : "");
	return rc;
}

int psiplace_release_nodes(const char *nodes, const struct psiplace_release_opts *o, char *kept,
			   size_t keptlen, char *command, size_t commandlen, psiplace_error_t *err)
{
	const char *sc = o && o->scontrol ? o->scontrol : "scontrol";
	const char *job = o && o->job ? o->job : getenv("SLURM_JOB_ID");
	struct psiplace_hostlist rel = { 0 }, all = { 0 };
	char *out = malloc(OUTMAX), *keep = NULL;
	size_t i, len = 1, off = 0;
	int rc = -1;

	if (!out)
		return psiplace_seterr(err, "release: out of memory");
	if (!job || !*job) {
		psiplace_seterr(err, "release: no job: give --job or run inside a job (SLURM_JOB_ID)");
		goto out;
	}
	if (psiplace_hostlist_expand(nodes, "release: NODELIST", &rel, err) < 0 ||
	    job_nodes(sc, job, &all, out, err) < 0)
		goto out;
	for (i = 0; i < all.n; i++)
		len += strlen(all.host[i]) + 1;
	if (!(keep = malloc(len))) {
		psiplace_seterr(err, "release: out of memory");
		goto out;
	}
	for (i = 0; i < all.n; i++)
		off += (size_t)sprintf(keep + off, "%s%s", off ? "," : "", all.host[i]);
	for (i = 0; i < rel.n; i++)
		if (!in_list(&all, rel.host[i])) {
			psiplace_seterr(err, "release: node %s is not in job %s (its nodes: %.200s)",
					rel.host[i], job, keep);
			goto out;
		}
	off = 0;
	keep[0] = 0;
	for (i = 0; i < all.n; i++)
		if (!in_list(&rel, all.host[i]))
			off += (size_t)sprintf(keep + off, "%s%s", off ? "," : "", all.host[i]);
	if (!off) {
		psiplace_seterr(err, "release: %s would be every node of job %s; a job keeps at least "
				"one node (end it with scancel instead)", nodes, job);
		goto out;
	}
	if (wait_steps(sc, job, o, &rel, out, err) != 0)
		goto out;
	if (command)
		snprintf(command, commandlen, "%s update JobId=%s NodeList=%s", sc, job, keep);
	if (!(o && o->dry_run) && update(sc, job, keep, out, err) < 0)
		goto out;
	if (kept)
		snprintf(kept, keptlen, "%s", keep);
	rc = 0;
out:
	psiplace_hostlist_free(&rel);
	psiplace_hostlist_free(&all);
	free(keep);
	free(out);
	return rc;
}

static int all_idle(const char *sc, const struct psiplace_hostlist *h, char *out,
		    psiplace_error_t *err)
{
	char state[64];
	size_t i;
	int status;

	for (i = 0; i < h->n; i++) {
		char *argv[] = { (char *)sc, "-o", "show", "node", h->host[i], NULL };

		if (run(argv, NULL, out, OUTMAX, &status, err) < 0)
			return -1;
		if (status || field(out, "State", state, sizeof(state)) < 0 ||
		    strncmp(state, "IDLE", 4))
			return 0;
	}
	return 1;
}

int psiplace_release_wait_idle(const char *nodes, int seconds, const char *scontrol,
			       psiplace_error_t *err)
{
	const char *sc = scontrol ? scontrol : "scontrol";
	struct psiplace_hostlist h;
	struct timespec now, end, nap = { 0, 100 * 1000 * 1000 };
	char *out = malloc(OUTMAX);
	int rc;

	if (!out)
		return psiplace_seterr(err, "release: out of memory");
	if (psiplace_hostlist_expand(nodes, "release: NODELIST", &h, err) < 0) {
		free(out);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	for (;;) {
		if ((rc = all_idle(sc, &h, out, err)) != 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) {
			rc = psiplace_seterr(err, "release: %s not idle in Slurm after %d s", nodes,
					     seconds);
			break;
		}
		nanosleep(&nap, NULL);
	}
	psiplace_hostlist_free(&h);
	free(out);
	return rc < 0 ? -1 : 0;
}
