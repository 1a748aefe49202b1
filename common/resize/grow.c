/* The job's side of a resize ordered by the resource manager
 * (include/psiplace/resize.h): reading the job's record, writing its
 * Comment, and growing it by a helper allocation merged into it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "psiplace/hostlist.h"
#include "psiplace/resize.h"
#include "resize_internal.h"

static int count_cpus(const char *ids)
{
	int n = 0, a, b, used;

	while (*ids && *ids != ' ' && *ids != '\n') {
		if (sscanf(ids, "%d-%d%n", &a, &b, &used) == 2 && b >= a)
			n += b - a + 1;
		else if (sscanf(ids, "%d%n", &a, &used) == 1)
			n++;
		else
			return -1;
		ids += used;
		if (*ids == ',')
			ids++;
	}
	return n;
}

/* The per-node detail of `scontrol -o -d show job`: " Nodes=EXPR CPU_IDS=LIST"
 * (CPU_IDs= in 22.05, CPU_IDs= too in 26.05), in the NodeList's order. */
static int detail(const char *rec, struct psiplace_resize_job *j, psiplace_error_t *err)
{
	const char *p = rec;

	j->nnodes = 0;
	while ((p = strstr(p, " Nodes="))) {
		struct psiplace_hostlist h = { 0 };
		const char *ids = strstr(p, " CPU_IDs=");
		char expr[4096];
		size_t n = strcspn(p + 7, " \n"), i;
		int c;

		if (!ids || n >= sizeof(expr))
			return psiplace_seterr(err,
					       "resize: a job's detail line without CPU_IDs: "
					       "'%.120s'",
					       p);
		memcpy(expr, p + 7, n);
		expr[n] = 0;
		if ((c = count_cpus(ids + 9)) < 1)
			return psiplace_seterr(err,
					       "resize: a job's detail line with bad CPU_IDs: "
					       "'%.120s'",
					       ids);
		if (psiplace_hostlist_expand(expr, "a job's detail Nodes", &h, err) < 0)
			return -1;
		for (i = 0; i < h.n && j->nnodes < PSIPLACE_RESIZE_MAXNODES; i++) {
			snprintf(j->names[j->nnodes], sizeof(j->names[0]), "%s", h.host[i]);
			j->cpus[j->nnodes++] = c;
		}
		psiplace_hostlist_free(&h);
		p += 7 + n;
	}
	return 0;
}

int psiplace_resize_job_read(const char *job, const char *scontrol, struct psiplace_resize_job *j,
			     psiplace_error_t *err)
{
	char *argv[] = { (char *)(scontrol ? scontrol : "scontrol"),
			 "-o",
			 "-d",
			 "show",
			 "job",
			 (char *)job,
			 NULL };
	struct psiplace_resize_out out = { 0 };
	int status, rc = -1;

	memset(j, 0, sizeof(*j));
	if (psiplace_resize_run(argv, NULL, &out, &status, err) < 0)
		goto done;
	if (status) {
		psiplace_seterr(err, "resize: job '%s': %.200s", job, strtok(out.s, "\n"));
		goto done;
	}
	if (psiplace_resize_field(out.s, "JobState", j->state, sizeof(j->state)) < 0 ||
	    psiplace_resize_field(out.s, "Partition", j->partition, sizeof(j->partition)) < 0 ||
	    psiplace_resize_field(out.s, "NodeList", j->nodes, sizeof(j->nodes)) < 0) {
		psiplace_seterr(err,
				"resize: job %s: no JobState, Partition or NodeList in "
				"scontrol's answer",
				job);
		goto done;
	}
	if (psiplace_resize_field(out.s, "QOS", j->qos, sizeof(j->qos)) < 0)
		j->qos[0] = 0;
	/* AdminComment= holds no blank (the order's format has none) */
	if (psiplace_resize_field(out.s, "AdminComment", j->admin_comment,
				  sizeof(j->admin_comment)) < 0)
		j->admin_comment[0] = 0;
	if (!strcmp(j->nodes, "(null)"))
		j->nodes[0] = 0;
	rc = detail(out.s, j, err);
done:
	free(out.s);
	return rc;
}

/* Remove what scontrol left in dir (the resize scripts), then dir. */
static void clean_workdir(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

/* `scontrol update JobId=job WHAT` in dir; the first line of its answer
 * into out on failure. */
static int update(const char *sc, const char *dir, const char *job, const char *what,
		  struct psiplace_resize_out *out, psiplace_error_t *err)
{
	char a1[64], *a2 = strdup(what);
	char *argv[] = { (char *)sc, "update", a1, a2, NULL };
	int status;

	if (!a2)
		return psiplace_seterr(err, "resize: out of memory");
	snprintf(a1, sizeof(a1), "JobId=%s", job);
	if (psiplace_resize_run(argv, dir, out, &status, err) < 0) {
		free(a2);
		return -1;
	}
	free(a2);
	if (status)
		return psiplace_seterr(err,
				       "resize: scontrol update JobId=%s %.200s failed: %.200s",
				       job, what, strtok(out->s, "\n") ? out->s : "");
	return 0;
}

static int past(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end->tv_sec ||
	       (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec);
}

static long now_sec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)now.tv_sec;
}

int psiplace_resize_comment(const char *job, const char *text, const char *scontrol,
			    psiplace_error_t *err)
{
	struct psiplace_resize_out out = { 0 };
	struct timespec end, nap = { 0, 500 * 1000 * 1000 };
	char *what = malloc(strlen(text) + 16);
	int rc;

	if (!what)
		return psiplace_seterr(err, "resize: out of memory");
	sprintf(what, "Comment=%s", text);
	/* after a merge slurmctld refuses updates of the job until its new
	 * accounting record has an id ("try again in a bit"; 22.05 only, and
	 * without slurmdbd for as long as the job runs): retried for up to
	 * 120 s */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 120;
	while ((rc = update(scontrol ? scontrol : "scontrol", NULL, job, what, &out, err)) < 0 &&
	       strstr(err->text, "try again") && !past(&end))
		nanosleep(&nap, NULL);
	free(what);
	free(out.s);
	return rc;
}

/* The helper's id from salloc's "Granted job allocation H" (or "Pending job
 * allocation H"); 0 without one. */
static unsigned long helper_id(const char *s)
{
	const char *p = strstr(s, "job allocation ");

	return p ? strtoul(p + 15, NULL, 10) : 0;
}

/* One grow in flight: the job's record before it, the private directory,
 * the salloc running in the background (pid 0: none) and its deadline. */
struct psiplace_resize_grow_req {
	struct psiplace_resize_grow_opts o;
	char job[32];
	struct psiplace_resize_job *j;
	char *dir;
	pid_t pid;
	int wait;            /* seconds allowed, for the messages */
	struct timespec end; /* the wait's end */
	int attempt;         /* helpers requested after the first (at most 1) */
	unsigned long helper; /* granted, not yet merged */
	int cancelled;       /* this attempt's helper cancelled already */
	int merged;
};

/* Close every descriptor from lo up (in a forked child, before exec):
 * salloc runs for minutes and must not hold the caller's sockets. */
static void close_from(int lo)
{
	struct rlimit rl;
	long fd, hi = 65536;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (long)rl.rlim_cur < hi)
		hi = (long)rl.rlim_cur;
	for (fd = lo; fd < hi; fd++)
		close((int)fd);
}

/* Start salloc --no-shell for the helper in the background, its output
 * into dir/salloc.out, stdin from /dev/null, no other descriptor. */
static int spawn_salloc(struct psiplace_resize_grow_req *r, psiplace_error_t *err)
{
	const struct psiplace_resize_grow_opts *o = &r->o;
	const struct psiplace_resize_job *j = r->j;
	char name[96], nodes[32], dep[64], part[300], qos[300], excl[4200], path[4200];
	char *argv[16];
	int argc = 0, fd;
	pid_t pid, parent = getpid();

	snprintf(name, sizeof(name), "--job-name=psiplace-grow-%s-%llu", r->job, o->id);
	snprintf(nodes, sizeof(nodes), "--nodes=%u", o->k);
	snprintf(dep, sizeof(dep), "--dependency=expand:%s", r->job);
	snprintf(part, sizeof(part), "--partition=%s", j->partition);
	snprintf(qos, sizeof(qos), "--qos=%s", j->qos);
	snprintf(excl, sizeof(excl), "--exclude=%s", j->nodes);
	snprintf(path, sizeof(path), "%s/salloc.out", r->dir);
	argv[argc++] = (char *)(o->salloc ? o->salloc : "salloc");
	argv[argc++] = "--no-shell";
	argv[argc++] = nodes;
	argv[argc++] = name;
	argv[argc++] = dep;
	argv[argc++] = part;
	if (j->qos[0] && strcmp(j->qos, "(null)"))
		argv[argc++] = qos;
	/* new nodes: the helper could otherwise share the job's own (CR_Core) */
	argv[argc++] = excl;
	argv[argc] = NULL;
	r->helper = 0;
	r->cancelled = 0;
	if ((pid = fork()) < 0)
		return psiplace_seterr(err, "resize: fork: %s", strerror(errno));
	if (pid == 0) {
		/* the process that asked dying (killed, crashed) ends the
		 * request too: salloc revokes a pending one on TERM */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(125);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || chdir(r->dir) < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		if ((fd = open("/dev/null", O_RDONLY)) < 0)
			_exit(126);
		dup2(fd, 0);
		close_from(3);
		/* the helper is not malleable itself: the job's --psi-malleable
		 * (inherited SPANK option) would be checked against -N K */
		unsetenv("_SLURM_SPANK_OPTION_psiplace_psi-malleable");
		unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_psiplace_psi-malleable");
		unsetenv("PSIPLACE_MALLEABLE");
		execvp(argv[0], argv);
		_exit(127);
	}
	r->pid = pid;
	return 0;
}

/* `scancel --name=psiplace-grow-J-ID` (what is asked) or `scancel ID`. */
static void cancel(struct psiplace_resize_grow_req *r, unsigned long id)
{
	char what[96];
	char *argv[] = { (char *)(r->o.scancel ? r->o.scancel : "scancel"), what, NULL };
	struct psiplace_resize_out c = { 0 };
	psiplace_error_t e;
	int st;

	if (id)
		snprintf(what, sizeof(what), "%lu", id);
	else
		snprintf(what, sizeof(what), "--name=psiplace-grow-%s-%llu", r->job, r->o.id);
	psiplace_resize_run(argv, NULL, &c, &st, &e);
	free(c.s);
	r->cancelled = 1;
}

/* End the background salloc: TERM (a pending request is revoked), KILL
 * when it has not exited within 5 s; reaped either way. */
static void stop_salloc(struct psiplace_resize_grow_req *r)
{
	struct timespec end, nap = { 0, 20 * 1000 * 1000 };
	int st;

	if (r->pid <= 0)
		return;
	kill(r->pid, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	while (waitpid(r->pid, &st, WNOHANG) == 0) {
		if (past(&end)) {
			kill(r->pid, SIGKILL);
			while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		nanosleep(&nap, NULL);
	}
	r->pid = 0;
}

int psiplace_resize_grow_start(const struct psiplace_resize_grow_opts *o,
			       struct psiplace_resize_grow_req **out, psiplace_error_t *err)
{
	const char *sc = o->scontrol ? o->scontrol : "scontrol";
	const char *job = o->job ? o->job : getenv("SLURM_JOB_ID");
	struct psiplace_resize_grow_req *r;

	*out = NULL;
	if (!job || !*job)
		return psiplace_seterr(err, "resize: grow: no job (SLURM_JOB_ID)");
	if (o->k < 1)
		return psiplace_seterr(err, "resize: grow by %u nodes: 1 or more accepted", o->k);
	if (strlen(job) >= sizeof(r->job))
		return psiplace_seterr(err, "resize: grow: job id '%.80s' too long", job);
	if (!(r = calloc(1, sizeof(*r))) || !(r->j = malloc(sizeof(*r->j)))) {
		free(r);
		return psiplace_seterr(err, "resize: out of memory");
	}
	r->o = *o;
	snprintf(r->job, sizeof(r->job), "%s", job);
	r->o.job = r->job;
	r->wait = o->deadline > 0 ? o->deadline : 60;
	if (psiplace_resize_job_read(job, sc, r->j, err) < 0)
		goto fail;
	if (strcmp(r->j->state, "RUNNING")) {
		psiplace_seterr(err, "resize: grow: job %s is %s, not RUNNING", job, r->j->state);
		goto fail;
	}
	if (!(r->dir = psiplace_resize_workdir(err)))
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	r->end.tv_sec += r->wait;
	if (spawn_salloc(r, err) < 0)
		goto fail;
	*out = r;
	return 0;
fail:
	psiplace_resize_grow_end(r);
	return -1;
}

int psiplace_resize_grow_ready(struct psiplace_resize_grow_req *r, psiplace_error_t *err)
{
	char path[4200], *s;
	size_t len = 0;
	int st = 0;
	pid_t w;
	FILE *f;

	if (r->helper)
		return 1;
	if (r->pid <= 0)
		return psiplace_seterr(err, "resize: grow by %u: no helper requested", r->o.k);
	while ((w = waitpid(r->pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (w == 0) {
		if (!past(&r->end))
			return 0;
		stop_salloc(r);
		cancel(r, 0); /* whatever salloc did: no helper of this decision may stay */
		return psiplace_seterr(err,
				       "resize: grow by %u: the helper allocation was not granted "
				       "within %d s (cancelled)",
				       r->o.k, r->wait);
	}
	r->pid = 0;
	snprintf(path, sizeof(path), "%s/salloc.out", r->dir);
	if (!(s = malloc(8192)))
		return psiplace_seterr(err, "resize: out of memory");
	if ((f = fopen(path, "r"))) {
		len = fread(s, 1, 8191, f);
		fclose(f);
	}
	s[len] = 0;
	r->helper = helper_id(s);
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !r->helper) {
		r->helper = 0;
		cancel(r, 0);
		psiplace_seterr(err, "resize: grow by %u: salloc failed: %.200s", r->o.k,
				strtok(s, "\n") ? s : "");
		free(s);
		return -1;
	}
	free(s);
	/* found granted too late (the caller polled after the order's
	 * deadline): the order is withdrawn, the helper not merged */
	if (r->o.merge_by > 0 && (long long)time(NULL) >= r->o.merge_by) {
		unsigned long h = r->helper;

		cancel(r, h);
		r->helper = 0;
		return psiplace_seterr(err,
				       "resize: grow by %u: helper %lu granted, but found after "
				       "the order's deadline (cancelled)",
				       r->o.k, h);
	}
	return 1;
}

/* The granted helper's record read into *h and its nodes given to the
 * job (the helper ends).  A helper that cannot be merged is cancelled.
 * slurmctld keeps a pending helper's expand link in memory only:
 * restarted while the helper waited, it grants the helper but refuses
 * the merge ("Node count specification invalid"), so then a new helper
 * is requested once, within what is left of the wait: 1. */
static int merge_helper(struct psiplace_resize_grow_req *r, const char *sc,
			struct psiplace_resize_job *h, struct psiplace_resize_out *out,
			psiplace_error_t *err)
{
	char hid[32];

	snprintf(hid, sizeof(hid), "%lu", r->helper);
	/* the helper's CPUs per node, from its own record: after the merge
	 * the job's per-node detail can name the wrong nodes (22.05 prints
	 * "Nodes=n[2-3]" for NodeList=n[2-4] right after a merge) */
	if (psiplace_resize_job_read(hid, sc, h, err) == 0 &&
	    update(sc, r->dir, hid, "NumNodes=0", out, err) == 0) {
		r->merged = 1;
		return 0;
	}
	cancel(r, r->helper);
	r->helper = 0;
	if (r->attempt || !strstr(err->text, "Node count specification invalid") ||
	    r->end.tv_sec - 1 < now_sec())
		return -1;
	r->attempt++;
	return spawn_salloc(r, err) < 0 ? -1 : 1;
}

int psiplace_resize_grow_merge(struct psiplace_resize_grow_req *r,
			       struct psiplace_resize_job *after, unsigned long *helper,
			       psiplace_error_t *err)
{
	const char *sc = r->o.scontrol ? r->o.scontrol : "scontrol";
	struct psiplace_resize_out out = { 0 };
	struct timespec end, nap = { 0, 200 * 1000 * 1000 };
	struct psiplace_resize_job *h = NULL;
	struct psiplace_hostlist all = { 0 };
	size_t i;
	int rc = -1;

	*helper = r->helper;
	if (!r->helper || r->merged)
		return psiplace_seterr(err, "resize: grow by %u: no granted helper to merge",
				       r->o.k);
	if (!(h = malloc(sizeof(*h))))
		return psiplace_seterr(err, "resize: out of memory");
	if ((rc = merge_helper(r, sc, h, &out, err)) != 0)
		goto done;
	rc = -1;
	/* NumNodes=ALL writes the job's resize scripts; slurmctld may answer
	 * "try again in a bit" (the DB index of the new record) for a while */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 30;
	setenv("SLURM_JOBID", r->job, 0);
	/* it changes nothing in slurmctld (ALL is no value there): past the
	 * deadline of its retries the grow goes on without it */
	while (update(sc, r->dir, r->job, "NumNodes=ALL", &out, err) < 0) {
		if (!strstr(err->text, "try again"))
			goto done;
		if (past(&end))
			break;
		if (r->o.waiting)
			r->o.waiting(r->o.waiting_arg);
		nanosleep(&nap, NULL);
	}
	if (psiplace_resize_job_read(r->job, sc, after, err) < 0 ||
	    psiplace_hostlist_expand(after->nodes, "the job's NodeList", &all, err) < 0)
		goto done;
	/* every node of the job, with the helper's CPUs on the helper's nodes
	 * (0: a node the job had before) */
	after->nnodes = 0;
	for (i = 0; i < all.n && i < PSIPLACE_RESIZE_MAXNODES; i++) {
		size_t k;

		snprintf(after->names[i], sizeof(after->names[0]), "%s", all.host[i]);
		after->cpus[i] = 0;
		for (k = 0; k < h->nnodes; k++)
			if (!strcmp(h->names[k], all.host[i]))
				after->cpus[i] = h->cpus[k];
		after->nnodes++;
	}
	rc = 0;
done:
	psiplace_hostlist_free(&all);
	free(h);
	free(out.s);
	return rc;
}

void psiplace_resize_grow_end(struct psiplace_resize_grow_req *r)
{
	int asked;

	if (!r)
		return;
	asked = r->pid > 0 || r->helper;
	stop_salloc(r);
	/* a request salloc had not answered, or a helper granted but not
	 * merged: none of this decision may stay */
	if (asked && !r->merged && !r->cancelled)
		cancel(r, 0);
	if (r->dir)
		clean_workdir(r->dir);
	free(r->j);
	free(r);
}

int psiplace_resize_grow(const struct psiplace_resize_grow_opts *o,
			 struct psiplace_resize_job *after, unsigned long *helper,
			 psiplace_error_t *err)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	struct psiplace_resize_grow_req *r;
	int rc;

	*helper = 0;
	if (psiplace_resize_grow_start(o, &r, err) < 0)
		return -1;
	for (;;) {
		rc = psiplace_resize_grow_ready(r, err);
		if (rc > 0 && (rc = psiplace_resize_grow_merge(r, after, helper, err)) <= 0)
			break;
		if (rc < 0)
			break;
		if (o->waiting)
			o->waiting(o->waiting_arg);
		nanosleep(&nap, NULL);
	}
	psiplace_resize_grow_end(r);
	return rc;
}
