/* psiplace_resize_grow() against a scripted scontrol, salloc and scancel:
 * a helper whose merge slurmctld refuses with "Node count specification
 * invalid" (what 22.05 answers for a helper that pended across a restart
 * of slurmctld) is cancelled and a new one requested, once.  The grow in
 * steps (start, ready, merge, end): ready does not block while salloc
 * pends, the deadline ends salloc and cancels the request, end ends a
 * pending salloc by its PID and reaps it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "psiplace/resize.h"

static char dir[] = "/tmp/psiplace-test-grow.XXXXXX";
static char sc[sizeof(dir) + 16], sa[sizeof(dir) + 16], scan[sizeof(dir) + 16];

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\nd=%s\n%s", dir, body);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
}

/* Job 7 runs on n1; salloc grants helpers 100, 101, ... on n2; the merge
 * of helper H fails with the text of $d/merge-H (no file: it succeeds). */
static void make_fakes(const char *refuse100, const char *refuse101)
{
	char f[sizeof(dir) + 32];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(sc, sizeof(sc), "%s/scontrol", dir);
	snprintf(sa, sizeof(sa), "%s/salloc", dir);
	snprintf(scan, sizeof(scan), "%s/scancel", dir);
	script(sc, "case \"$*\" in\n"
		   "'-o -d show job 7') if [ -e $d/merged ]; then\n"
		   "    echo 'JobId=7 JobState=RUNNING Partition=debug NodeList=n[1-2] Nodes=n1 "
		   "CPU_IDs=0 Mem=0 Nodes=n2 CPU_IDs=0-3 Mem=0'\n"
		   "  else echo 'JobId=7 JobState=RUNNING Partition=debug NodeList=n1 Nodes=n1 "
		   "CPU_IDs=0 Mem=0'; fi ;;\n"
		   "'-o -d show job '*) echo \"JobId=$6 JobState=RUNNING Partition=debug "
		   "NodeList=n2 Nodes=n2 CPU_IDs=0-3 Mem=0\" ;;\n"
		   "'update JobId=7 NumNodes=ALL') ;;\n"
		   "'update JobId='*' NumNodes=0') h=${2#JobId=}\n"
		   "  if [ -e $d/merge-$h ]; then cat $d/merge-$h; exit 1; fi; touch $d/merged ;;\n"
		   "*) echo \"unexpected: $*\"; exit 1 ;;\n"
		   "esac\n");
	script(sa, "n=$(cat $d/salloc-calls 2>/dev/null || echo 0); echo $((n + 1)) >$d/salloc-calls\n"
		   "echo \"$*\" >>$d/salloc-args\n"
		   "echo \"salloc: Granted job allocation $((100 + n))\"\n");
	script(scan, "echo \"$*\" >>$d/scancel.log\n");
	for (int h = 100; h <= 101; h++) {
		const char *say = h == 100 ? refuse100 : refuse101;
		FILE *m;

		if (!say)
			continue;
		snprintf(f, sizeof(f), "%s/merge-%d", dir, h);
		cr_assert_not_null(m = fopen(f, "w"));
		fprintf(m, "%s\n", say);
		fclose(m);
	}
}

static void cleanup(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	strcpy(dir, "/tmp/psiplace-test-grow.XXXXXX");
}

/* The file's lines joined by '|' ("" without it). */
static void slurp(const char *name, char *buf, size_t len)
{
	char p[sizeof(dir) + 32], line[512];
	FILE *f;

	buf[0] = 0;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "|" : "", line);
	}
	fclose(f);
}

static struct psiplace_resize_grow_opts opts(void)
{
	struct psiplace_resize_grow_opts o = { .job = "7", .id = 3, .k = 1, .deadline = 30 };

	o.scontrol = sc;
	o.salloc = sa;
	o.scancel = scan;
	return o;
}

#define REFUSED "slurm_update error: Node count specification invalid"

Test(grow, merge_refused_node_count_invalid_a_new_helper_merges)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper;
	char buf[1024];

	make_fakes(REFUSED, NULL);
	o = opts();
	cr_assert_eq(psiplace_resize_grow(&o, j, &helper, &err), 0, "%s", err.text);
	cr_assert_eq(helper, 101);
	cr_assert_str_eq(j->nodes, "n[1-2]");
	cr_assert_eq(j->nnodes, 2);
	cr_assert_eq(j->cpus[0], 0, "n1 was the job's");
	cr_assert_eq(j->cpus[1], 4, "n2's CPUs from the helper's record");
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100", "the refused helper is cancelled");
	slurp("salloc-args", buf, sizeof(buf));
	cr_assert_str_eq(buf, "--no-shell --nodes=1 --job-name=psiplace-grow-7-3 "
			      "--dependency=expand:7 --partition=debug --exclude=n1|"
			      "--no-shell --nodes=1 --job-name=psiplace-grow-7-3 "
			      "--dependency=expand:7 --partition=debug --exclude=n1");
	free(j);
	cleanup();
}

Test(grow, merge_refused_twice_fails_with_both_helpers_cancelled)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper;
	char buf[1024];

	make_fakes(REFUSED, REFUSED);
	o = opts();
	cr_assert_eq(psiplace_resize_grow(&o, j, &helper, &err), -1);
	cr_assert_str_eq(err.text, "resize: scontrol update JobId=101 NumNodes=0 failed: "
				   "slurm_update error: Node count specification invalid");
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100|101");
	slurp("salloc-calls", buf, sizeof(buf));
	cr_assert_str_eq(buf, "2", "one retry only");
	free(j);
	cleanup();
}

Test(grow, merge_refused_otherwise_is_not_retried)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper;
	char buf[1024];

	make_fakes("slurm_update error: Unspecified error", NULL);
	o = opts();
	cr_assert_eq(psiplace_resize_grow(&o, j, &helper, &err), -1);
	cr_assert_str_eq(err.text, "resize: scontrol update JobId=100 NumNodes=0 failed: "
				   "slurm_update error: Unspecified error");
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100");
	slurp("salloc-calls", buf, sizeof(buf));
	cr_assert_str_eq(buf, "1");
	free(j);
	cleanup();
}

/* salloc that pends until $d/grant exists, then is granted helper 100;
 * TERM: it notes it and exits 1 (as salloc does after revoking). */
#define PENDING_SALLOC                                                                 \
	"echo $$ >$d/salloc-pid\n"                                                     \
	"echo \"$*\" >>$d/salloc-args\n"                                               \
	"trap 'touch $d/salloc-term; exit 1' TERM\n"                                   \
	"echo 'salloc: Pending job allocation 100'\n"                                  \
	"while [ ! -e $d/grant ]; do sleep 0.05; done\n"                               \
	"echo 'salloc: Granted job allocation 100'\n"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void touch(const char *name)
{
	char p[sizeof(dir) + 32];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_not_null(f = fopen(p, "w"));
	fclose(f);
}

static int exists(const char *name)
{
	char p[sizeof(dir) + 32];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* ready() until it answers other than 0, at most seconds; its answer. */
static int ready_within(struct psiplace_resize_grow_req *r, double seconds, psiplace_error_t *err)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	double end = now() + seconds;
	int rc;

	while ((rc = psiplace_resize_grow_ready(r, err)) == 0 && now() < end)
		nanosleep(&nap, NULL);
	return rc;
}

/* The salloc script's pid, once it has written it. */
static pid_t salloc_pid(void)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	char buf[64];
	double end = now() + 5;

	/* the file is there before its line */
	while (slurp("salloc-pid", buf, sizeof(buf)), atol(buf) <= 0 && now() < end)
		nanosleep(&nap, NULL);
	cr_assert_gt(atol(buf), 0, "salloc wrote its pid");
	return (pid_t)atol(buf);
}

/* A grow started with a salloc that pends: its request in *r, salloc's pid. */
static pid_t start_pending(struct psiplace_resize_grow_opts *o, struct psiplace_resize_grow_req **r)
{
	psiplace_error_t err;

	make_fakes(NULL, NULL);
	script(sa, PENDING_SALLOC);
	cr_assert_eq(psiplace_resize_grow_start(o, r, &err), 0, "%s", err.text);
	return salloc_pid();
}

/* salloc pid got TERM and is reaped, and the request was cancelled by name. */
static void assert_salloc_ended(pid_t pid)
{
	char buf[1024];

	cr_assert(exists("salloc-term"), "salloc got TERM");
	cr_assert_eq(kill(pid, 0), -1, "salloc reaped");
	cr_assert_eq(errno, ESRCH);
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "--name=psiplace-grow-7-3");
}

Test(grow, ready_does_not_block_while_salloc_pends_then_merges_once_granted)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper;
	double t;
	char buf[1024];

	o = opts();
	start_pending(&o, &r);
	t = now();
	for (int i = 0; i < 10; i++)
		cr_assert_eq(psiplace_resize_grow_ready(r, &err), 0, "pending");
	cr_assert_lt(now() - t, 0.5, "10 checks of a pending salloc take no time");
	touch("grant");
	cr_assert_eq(ready_within(r, 5, &err), 1, "%s", err.text);
	cr_assert_eq(psiplace_resize_grow_ready(r, &err), 1, "granted stays granted");
	cr_assert_eq(psiplace_resize_grow_merge(r, j, &helper, &err), 0, "%s", err.text);
	cr_assert_eq(helper, 100);
	cr_assert_str_eq(j->nodes, "n[1-2]");
	cr_assert_eq(j->cpus[1], 4);
	psiplace_resize_grow_end(r);
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "", "a merged helper is not cancelled");
	cr_assert(!exists("salloc-term"));
	free(j);
	cleanup();
}

Test(grow, deadline_passed_salloc_ended_reaped_and_request_cancelled_by_name)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	psiplace_error_t err;
	pid_t pid;
	char buf[1024];

	o = opts();
	o.deadline = 1;
	pid = start_pending(&o, &r);
	cr_assert_eq(ready_within(r, 5, &err), -1);
	cr_assert_str_eq(err.text, "resize: grow by 1: the helper allocation was not granted "
				   "within 1 s (cancelled)");
	assert_salloc_ended(pid);
	psiplace_resize_grow_end(r);
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "--name=psiplace-grow-7-3", "cancelled once");
	cleanup();
}

Test(grow, end_while_pending_ends_salloc_by_pid_and_cancels_the_request)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	psiplace_error_t err;
	pid_t pid;

	o = opts();
	pid = start_pending(&o, &r);
	cr_assert_eq(psiplace_resize_grow_ready(r, &err), 0);
	psiplace_resize_grow_end(r);
	assert_salloc_ended(pid);
	cleanup();
}

Test(grow, salloc_deaf_to_term_is_killed)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	psiplace_error_t err;
	pid_t pid;
	double t;

	make_fakes(NULL, NULL);
	script(sa, "echo $$ >$d/salloc-pid\ntrap '' TERM\n"
		   "echo 'salloc: Pending job allocation 100'\n"
		   "while :; do sleep 0.05; done\n");
	o = opts();
	cr_assert_eq(psiplace_resize_grow_start(&o, &r, &err), 0, "%s", err.text);
	pid = salloc_pid();
	t = now();
	psiplace_resize_grow_end(r);
	cr_assert_geq(now() - t, 4.5, "TERM first, KILL after 5 s");
	cr_assert_eq(kill(pid, 0), -1, "salloc killed and reaped");
	cr_assert_eq(errno, ESRCH);
	cleanup();
}

Test(grow, steps_merge_refused_after_restart_requests_a_new_helper)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	struct psiplace_resize_job *j = malloc(sizeof(*j));
	psiplace_error_t err;
	unsigned long helper;
	char buf[1024];

	make_fakes(REFUSED, NULL);
	o = opts();
	cr_assert_eq(psiplace_resize_grow_start(&o, &r, &err), 0, "%s", err.text);
	cr_assert_eq(ready_within(r, 5, &err), 1, "%s", err.text);
	cr_assert_eq(psiplace_resize_grow_merge(r, j, &helper, &err), 1,
		     "a new helper requested: %s", err.text);
	cr_assert_eq(ready_within(r, 5, &err), 1, "%s", err.text);
	cr_assert_eq(psiplace_resize_grow_merge(r, j, &helper, &err), 0, "%s", err.text);
	cr_assert_eq(helper, 101);
	psiplace_resize_grow_end(r);
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100");
	free(j);
	cleanup();
}

/* salloc holds none of the caller's descriptors (an MPI process's sockets)
 * and reads nothing of its stdin. */
Test(grow, salloc_gets_no_descriptor_of_the_caller_and_stdin_from_dev_null)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	psiplace_error_t err;
	int p[2];
	char buf[1024];

	make_fakes(NULL, NULL);
	script(sa, "if [ -e /proc/$$/fd/57 ]; then echo leaked >$d/fds; else echo none >$d/fds; fi\n"
		   "readlink /proc/$$/fd/0 >$d/stdin\n"
		   "echo 'salloc: Granted job allocation 100'\n");
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(dup2(p[0], 57), 57, "a descriptor without close-on-exec");
	o = opts();
	cr_assert_eq(psiplace_resize_grow_start(&o, &r, &err), 0, "%s", err.text);
	cr_assert_eq(ready_within(r, 5, &err), 1, "%s", err.text);
	slurp("fds", buf, sizeof(buf));
	cr_assert_str_eq(buf, "none", "fd 57 not inherited by salloc");
	slurp("stdin", buf, sizeof(buf));
	cr_assert_str_eq(buf, "/dev/null");
	psiplace_resize_grow_end(r);
	close(57);
	close(p[0]);
	close(p[1]);
	cleanup();
}

/* The process that started the grow ends without psiplace_resize_grow_end
 * (the malleable library's watchdog _exits, a program finalizes without
 * psiplace_mall_free): its pending salloc gets TERM (and revokes). */
Test(grow, starter_dying_without_end_terms_pending_salloc)
{
	struct psiplace_resize_grow_opts o;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	psiplace_error_t err;
	pid_t child, pid;
	double end;
	int st;

	make_fakes(NULL, NULL);
	script(sa, PENDING_SALLOC);
	o = opts();
	cr_assert_geq(child = fork(), 0);
	if (child == 0) {
		struct psiplace_resize_grow_req *r;

		if (psiplace_resize_grow_start(&o, &r, &err) < 0)
			_exit(1);
		salloc_pid();
		_exit(70);
	}
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 70, "the starter started salloc and exited");
	pid = salloc_pid();
	end = now() + 5;
	while (!exists("salloc-term") && now() < end)
		nanosleep(&nap, NULL);
	if (!exists("salloc-term"))
		kill(pid, SIGKILL); /* not left behind by a failure */
	cr_assert(exists("salloc-term"), "salloc %ld got TERM when its starter died", (long)pid);
	cleanup();
}

/* A helper found granted at or after merge_by (the order's deadline: the
 * daemon withdrew the order) is cancelled, not merged. */
Test(grow, grant_found_after_the_orders_deadline_is_cancelled)
{
	struct psiplace_resize_grow_opts o;
	struct psiplace_resize_grow_req *r;
	psiplace_error_t err;
	char buf[1024];

	make_fakes(NULL, NULL);
	o = opts();
	o.merge_by = (long long)time(NULL) - 1;
	cr_assert_eq(psiplace_resize_grow_start(&o, &r, &err), 0, "%s", err.text);
	cr_assert_eq(ready_within(r, 5, &err), -1);
	cr_assert_str_eq(err.text, "resize: grow by 1: helper 100 granted, but found after the "
				   "order's deadline (cancelled)");
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100");
	psiplace_resize_grow_end(r);
	slurp("scancel.log", buf, sizeof(buf));
	cr_assert_str_eq(buf, "100", "cancelled once");
	cr_assert(!exists("merged"));
	cleanup();
}
