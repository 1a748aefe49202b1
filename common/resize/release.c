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

/* The whole output of a command: a step list has no size bound (MPICH makes
 * a step per spawned group), and a check that read part of it would pass
 * a node whose step is listed later. */
struct output {
	char *s;
	size_t len, cap;
};

/* Append what fd gives until EOF. */
static int slurp(int fd, struct output *out, psiplace_error_t *err)
{
	ssize_t n;

	out->len = 0;
	for (;;) {
		if (out->cap - out->len < 4096) {
			size_t cap = out->cap ? 2 * out->cap : 1 << 16;
			char *s = realloc(out->s, cap);

			if (!s)
				return psiplace_seterr(err, "release: out of memory reading scontrol's "
						       "answer (%zu bytes so far)", out->len);
			out->s = s;
			out->cap = cap;
		}
		n = read(fd, out->s + out->len, out->cap - 1 - out->len);
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			return psiplace_seterr(err, "release: reading scontrol's answer: %s",
					       strerror(errno));
		if (n > 0)
			out->len += (size_t)n;
	}
	out->s[out->len] = 0;
	return 0;
}

/* Run argv (no shell) in dir (NULL: here); stdout and stderr into out.
 * *status: the exit code, or minus the signal that ended it. */
static int run(char *const argv[], const char *dir, struct output *out, int *status,
	       psiplace_error_t *err)
{
	int fd[2], st, rc;
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
	rc = slurp(fd[0], out, err);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return psiplace_seterr(err, "release: waitpid: %s", strerror(errno));
	if (rc < 0)
		return -1;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	if (*status == 127)
		return psiplace_seterr(err, "release: cannot run '%s'", argv[0]);
	return 0;
}

/* Where the value of KEY= starts in a one-line scontrol record, and its
 * length (up to the next space); NULL without one. */
static const char *field_at(const char *line, const char *key, size_t *len)
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
static int field(const char *line, const char *key, char *val, size_t len)
{
	size_t n;
	const char *p = field_at(line, key, &n);

	if (!p || n >= len)
		return -1;
	memcpy(val, p, n);
	val[n] = 0;
	return 0;
}

static int in_list(const struct psiplace_hostlist *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->host[i], name))
			return 1;
	return 0;
}

/* The Slurm hostlist of KEY= in line, expanded into h: 0, 1 without KEY=,
 * -1 on error (h empty). */
static int field_hosts(const char *line, const char *key, const char *what,
		       struct psiplace_hostlist *h, psiplace_error_t *err)
{
	size_t n;
	const char *p = field_at(line, key, &n);
	char *v;
	int rc;

	if (!p)
		return 1;
	if (!(v = strndup(p, n)))
		return psiplace_seterr(err, "release: out of memory");
	rc = psiplace_hostlist_expand(v, what, h, err);
	free(v);
	return rc < 0 ? -1 : 0;
}

static int job_nodes(const char *scontrol, const char *job, struct psiplace_hostlist *nodes,
		     struct output *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "job", (char *)job, NULL };
	char state[64];
	int status, rc;

	if (run(argv, NULL, out, &status, err) < 0)
		return -1;
	if (status)
		return psiplace_seterr(err, "release: job '%s': %.200s", job, strtok(out->s, "\n"));
	if (field(out->s, "JobState", state, sizeof(state)) < 0)
		return psiplace_seterr(err, "release: job %s: no JobState in scontrol's answer", job);
	if (strcmp(state, "RUNNING"))
		return psiplace_seterr(err, "release: job %s is %s, not RUNNING", job, state);
	if ((rc = field_hosts(out->s, "NodeList", "the job's NodeList", nodes, err)) == 1)
		return psiplace_seterr(err, "release: job %s: no NodeList in scontrol's answer", job);
	return rc;
}

/* Whether `scontrol -o show step JOB` answered that the job has no step,
 * the only answer that means none.  scontrol_print_step() (22.05 and 26.05
 * src/scontrol/info_job.c) prints this line alone on stdout and exits 1
 * when slurmctld lists no step of the job (the step id, NO_VAL, prints as
 * nothing; the job id as the number it parsed).  Its other failures exit 1
 * too, with another line: "slurm_get_job_steps error: Unable to contact
 * slurm controller ...", "... Invalid job id specified". */
static int no_steps(const char *job, int status, const char *out)
{
	char want[64], *end;
	unsigned long long id;

	if (status != 1 || !*job || strspn(job, "0123456789") != strlen(job))
		return 0;
	errno = 0;
	id = strtoull(job, &end, 10);
	if (errno || id > 0xffffffffULL)
		return 0;
	snprintf(want, sizeof(want), "Job step %llu. not found\n", id);
	return !strcmp(out, want);
}

/* The refusal when `show step` failed: its exit code and last line, or the
 * signal that ended it. */
static int step_failure(const char *sc, const char *job, int status, const char *out,
			psiplace_error_t *err)
{
	const char *end = out + strlen(out), *p;

	if (status < 0)
		return psiplace_seterr(err, "release: cannot check the steps of job %s: %s -o show "
				       "step %s was killed by signal %d", job, sc, job, -status);
	while (end > out && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = end; p > out && p[-1] != '\n'; p--)
		;
	return psiplace_seterr(err, "release: cannot check the steps of job %s: %s -o show step "
			       "%s exited %d%s%.*s", job, sc, job, status, p < end ? ": " : "",
			       (int)(end - p > 200 ? 200 : end - p), p);
}

/* A step of the job (other than allow) on one of the nodes to release:
 * 1 (err says which), 0 none, -1 error.  Any answer but a list of step
 * records or Slurm's "no steps" is an error: releasing on a guess would
 * let Slurm kill the steps there. */
static int busy(const char *scontrol, const char *job, const char *allow,
		const struct psiplace_hostlist *rel, struct output *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "step", (char *)job, NULL };
	char id[64], *line, *save = NULL;
	struct psiplace_hostlist h;
	size_t i;
	int status, rc, found = 0;

	if (run(argv, NULL, out, &status, err) < 0)
		return -1;
	if (status)
		return no_steps(job, status, out->s) ? 0 : step_failure(scontrol, job, status,
									 out->s, err);
	for (line = strtok_r(out->s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *dot;

		if (field(line, "StepId", id, sizeof(id)) < 0 ||
		    (rc = field_hosts(line, "NodeList", "a step's NodeList", &h, err)) == 1)
			return psiplace_seterr(err, "release: cannot read the steps of job %s: not a "
					       "step record: '%.200s'", job, line);
		if (rc < 0)
			return -1;
		found = 1;
		dot = strchr(id, '.');
		if (allow && dot && !strcmp(dot + 1, allow)) {
			psiplace_hostlist_free(&h);
			continue;
		}
		for (i = 0; i < rel->n; i++)
			if (in_list(&h, rel->host[i])) {
				psiplace_seterr(err, "release: node %s still runs step %s of job %s; "
						"end it first", rel->host[i], id, job);
				psiplace_hostlist_free(&h);
				return 1;
			}
		psiplace_hostlist_free(&h);
	}
	if (!found)
		return psiplace_seterr(err, "release: cannot read the steps of job %s: %s -o show "
				       "step %s printed nothing and exited 0", job, scontrol, job);
	return 0;
}

/* busy(), polled every 100 ms for up to o->wait_steps seconds: the steps of
 * processes that just left (MPICH: one step per spawned group) end a little
 * after the processes do. */
static int wait_steps(const char *sc, const char *job, const struct psiplace_release_opts *o,
		      const struct psiplace_hostlist *rel, struct output *out, psiplace_error_t *err)
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

/* The private directory scontrol runs in (it writes the job's resize
 * scripts into its working directory): under TMPDIR when set, else /tmp. */
static char *make_workdir(psiplace_error_t *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (!(dir = malloc(strlen(tmp) + sizeof("/psiplace-release.XXXXXX")))) {
		psiplace_seterr(err, "release: out of memory");
		return NULL;
	}
	sprintf(dir, "%s/psiplace-release.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		psiplace_seterr(err, "release: cannot make a directory in %s (TMPDIR): %s", tmp,
				strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

static int update(const char *scontrol, const char *job, const char *kept, struct output *out,
		  psiplace_error_t *err)
{
	char a1[64], *a2, *dir, *path;
	char *argv[] = { (char *)scontrol, "update", a1, NULL, NULL };
	int status, rc;
	const char *ext[] = { "sh", "csh" };
	size_t i;

	if (!(dir = make_workdir(err)))
		return -1;
	snprintf(a1, sizeof(a1), "JobId=%s", job);
	a2 = malloc(strlen(kept) + 16);
	path = malloc(strlen(dir) + strlen(job) + 32);
	if (!a2 || !path) {
		rmdir(dir);
		free(dir);
		free(a2);
		free(path);
		return psiplace_seterr(err, "release: out of memory");
	}
	sprintf(a2, "NodeList=%s", kept);
	argv[3] = a2;
	rc = run(argv, dir, out, &status, err);
	/* scontrol names them by the job id as the number it parsed: job is
	 * that number (psiplace_release_nodes normalises it). */
	for (i = 0; i < 2; i++) {
		sprintf(path, "%s/slurm_job_%s_resize.%s", dir, job, ext[i]);
		unlink(path);
	}
	if (rmdir(dir) < 0 && rc == 0)
		rc = psiplace_seterr(err, "release: scontrol left files in %s", dir);
	free(a2);
	free(path);
	free(dir);
	if (rc == 0 && status)
		rc = psiplace_seterr(err, "release: scontrol update JobId=%s NodeList=%s failed: "
				     "%.200s", job, kept, strtok(out->s, "\n") ? out->s : "");
	return rc;
}

/* A job id as Slurm prints it (042 -> 42): what scontrol answers with and
 * names its files by.  0 when it is not a job id. */
static int job_number(const char *s, char *buf, size_t len)
{
	unsigned long long v;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > 0xffffffffULL)
		return 0;
	snprintf(buf, len, "%llu", v);
	return 1;
}

int psiplace_release_nodes(const char *nodes, const struct psiplace_release_opts *o, char *kept,
			   size_t keptlen, char *command, size_t commandlen, psiplace_error_t *err)
{
	const char *sc = o && o->scontrol ? o->scontrol : "scontrol";
	const char *given = o && o->job ? o->job : getenv("SLURM_JOB_ID");
	struct psiplace_hostlist rel = { 0 }, all = { 0 };
	struct output out = { 0 };
	char *keep = NULL, job[24];
	size_t i, len = 1, off = 0;
	int rc = -1;

	if (!given || !*given) {
		psiplace_seterr(err, "release: no job: give --job or run inside a job (SLURM_JOB_ID)");
		goto out;
	}
	if (!job_number(given, job, sizeof(job))) {
		psiplace_seterr(err, "release: job '%.40s' is not a job id; accepted: a number "
				"1..4294967295", given);
		goto out;
	}
	if (psiplace_hostlist_expand(nodes, "release: NODELIST", &rel, err) < 0 ||
	    job_nodes(sc, job, &all, &out, err) < 0)
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
	if (wait_steps(sc, job, o, &rel, &out, err) != 0)
		goto out;
	if (command)
		snprintf(command, commandlen, "%s update JobId=%s NodeList=%s", sc, job, keep);
	if (!(o && o->dry_run) && update(sc, job, keep, &out, err) < 0)
		goto out;
	if (kept)
		snprintf(kept, keptlen, "%s", keep);
	rc = 0;
out:
	psiplace_hostlist_free(&rel);
	psiplace_hostlist_free(&all);
	free(keep);
	free(out.s);
	return rc;
}

static int all_idle(const char *sc, const struct psiplace_hostlist *h, struct output *out,
		    psiplace_error_t *err)
{
	char state[64];
	size_t i;
	int status;

	for (i = 0; i < h->n; i++) {
		char *argv[] = { (char *)sc, "-o", "show", "node", h->host[i], NULL };

		if (run(argv, NULL, out, &status, err) < 0)
			return -1;
		if (status || field(out->s, "State", state, sizeof(state)) < 0 ||
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
	struct output out = { 0 };
	int rc;

	if (psiplace_hostlist_expand(nodes, "release: NODELIST", &h, err) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	for (;;) {
		if ((rc = all_idle(sc, &h, &out, err)) != 0)
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
	free(out.s);
	return rc < 0 ? -1 : 0;
}
