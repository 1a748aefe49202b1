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
#include "resize_internal.h"

static int in_list(const struct psiplace_hostlist *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->host[i], name))
			return 1;
	return 0;
}

static int job_nodes(const char *scontrol, const char *job, struct psiplace_hostlist *nodes,
		     struct psiplace_resize_out *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "job", (char *)job, NULL };
	char state[64];
	int status, rc;

	if (psiplace_resize_run(argv, NULL, out, &status, err) < 0)
		return -1;
	if (status)
		return psiplace_seterr(err, "release: job '%s': %.200s", job, strtok(out->s, "\n"));
	if (psiplace_resize_field(out->s, "JobState", state, sizeof(state)) < 0)
		return psiplace_seterr(err, "release: job %s: no JobState in scontrol's answer", job);
	if (strcmp(state, "RUNNING"))
		return psiplace_seterr(err, "release: job %s is %s, not RUNNING", job, state);
	if ((rc = psiplace_resize_field_hosts(out->s, "NodeList", "the job's NodeList", nodes, err)) == 1)
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
		const struct psiplace_hostlist *rel, struct psiplace_resize_out *out, psiplace_error_t *err)
{
	char *argv[] = { (char *)scontrol, "-o", "show", "step", (char *)job, NULL };
	char id[64], *line, *save = NULL;
	struct psiplace_hostlist h;
	size_t i;
	int status, rc, found = 0;

	if (psiplace_resize_run(argv, NULL, out, &status, err) < 0)
		return -1;
	if (status)
		return no_steps(job, status, out->s) ? 0 : step_failure(scontrol, job, status,
									 out->s, err);
	for (line = strtok_r(out->s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *dot;

		if (psiplace_resize_field(line, "StepId", id, sizeof(id)) < 0 ||
		    (rc = psiplace_resize_field_hosts(line, "NodeList", "a step's NodeList", &h, err)) == 1)
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
		      const struct psiplace_hostlist *rel, struct psiplace_resize_out *out, psiplace_error_t *err)
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

static int update(const char *scontrol, const char *job, const char *kept, struct psiplace_resize_out *out,
		  psiplace_error_t *err)
{
	char a1[64], *a2, *dir, *path;
	char *argv[] = { (char *)scontrol, "update", a1, NULL, NULL };
	struct timespec end;
	int status, rc;
	const char *ext[] = { "sh", "csh" };
	size_t i;

	if (!(dir = psiplace_resize_workdir(err)))
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
	/* Right after a grow merged a helper into the job, slurmctld answers
	 * "Job update not available right now, the DB index is being set, try
	 * again in a bit" (22.05; 15-40 s here without slurmdbd) until the new
	 * accounting record has its id: retried for up to 120 s. */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 120;
	while ((rc = psiplace_resize_run(argv, dir, out, &status, err)) == 0 && status &&
	       strstr(out->s, "try again")) {
		struct timespec now, nap = { 0, 200 * 1000 * 1000 };

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec >= end.tv_sec)
			break;
		nanosleep(&nap, NULL);
	}
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
	struct psiplace_resize_out out = { 0 };
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

static int all_idle(const char *sc, const struct psiplace_hostlist *h, struct psiplace_resize_out *out,
		    psiplace_error_t *err)
{
	char state[64];
	size_t i;
	int status;

	for (i = 0; i < h->n; i++) {
		char *argv[] = { (char *)sc, "-o", "show", "node", h->host[i], NULL };

		if (psiplace_resize_run(argv, NULL, out, &status, err) < 0)
			return -1;
		if (status || psiplace_resize_field(out->s, "State", state, sizeof(state)) < 0 ||
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
	struct psiplace_resize_out out = { 0 };
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
