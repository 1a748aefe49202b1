/* psiplace-malleabled: the resource manager's half of malleability, a
 * daemon beside slurmctld (doc/psiplace-malleabled.8, doc/malleability.md).
 *
 * Every MalleableInterval seconds: one slurm_load_node, one
 * slurm_load_partitions and one slurm_load_jobs (three RPCs, whatever the
 * queue's length), the cycle of md_cycle.c on them, the state file
 * written, then the cycle's updates (one slurm_update_job per order
 * written or cleared, one slurm_kill_job per helper cancelled).  It runs
 * as SlurmUser (an operator: only operators may write AdminComment) and
 * never touches slurmctld otherwise; when slurmctld does not answer, the
 * cycle is logged and skipped. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "psiplace/error.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/priorityf.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/readfile.h"
#include "psiplace_version.h"
#include "md_model.h"

#define PROG "psiplace-malleabled"

/* 26.05 renamed slurm_free_ctl_conf (libslurm's errors are in errno in
 * every release: slurm_get_errno() is gone in 26.05). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
#define md_free_ctl_conf slurm_free_conf
#else
#define md_free_ctl_conf slurm_free_ctl_conf
#endif
#define STATE_NAME "psiplace-malleabled.state"

struct opts {
	bool once, foreground;
	const char *conf, *state;
	long interval; /* 0: psiplace.conf's */
};

struct ctx {
	struct opts o;
	struct psiplace_md_params p;
	/* psiplace.conf (nodes' attributes, PartitionName lines) and the
	 * plugstack line's PriorityFunction, which p points into */
	struct psiplace_psiconf pc;
	struct psiplace_rdec_partpolicy *parts;
	struct psiplace_priorityf *cluster_prio;
	struct psiplace_md_tracks T;
	char state_path[PATH_MAX];
	bool syslog;
	size_t skipped; /* the last cycle's, logged when it changes */
	size_t bad_policies; /* likewise */
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void logline(const struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void logline(const struct ctx *c, const char *fmt, ...)
{
	char msg[2048], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c && c->syslog) {
		syslog(LOG_INFO, "%s", msg);
		return;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s " PROG ": %s\n", stamp, msg);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: " PROG " [--once] [--foreground] [--conf FILE] [--interval SECONDS]\n"
		   "       [--state FILE] [--help] [--version]\n"
		   "Decides the resizes of malleable jobs (--psi-malleable) beside slurmctld and\n"
		   "writes each order into the job's AdminComment (run it as SlurmUser).\n"
		   "  --once            one cycle: print every decision, act on it, exit\n"
		   "  --foreground      stay in the foreground, log to stderr (else syslog)\n"
		   "  --conf FILE       psiplace.conf (default: beside slurm.conf)\n"
		   "  --interval S      seconds between cycles, 1-3600 (default MalleableInterval)\n"
		   "  --state FILE      state file (default StateSaveLocation/" STATE_NAME ")\n"
		   "  --help, --version\n");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "once", no_argument, NULL, '1' },     { "foreground", no_argument, NULL, 'f' },
		{ "conf", required_argument, NULL, 'c' }, { "interval", required_argument, NULL, 'i' },
		{ "state", required_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },  { NULL, 0, NULL, 0 }
	};
	int ch;
	char *end;

	memset(o, 0, sizeof(*o));
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case '1': o->once = true; break;
		case 'f': o->foreground = true; break;
		case 'c': o->conf = optarg; break;
		case 's': o->state = optarg; break;
		case 'i':
			errno = 0;
			o->interval = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->interval < 1 || o->interval > 3600) {
				fprintf(stderr, PROG ": --interval: '%s' is not whole seconds from 1 to 3600\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 1;
		case 'V':
			printf(PROG " %s (Slurm %s)\n", PSIPLACE_VERSION, PSIPLACE_SLURM_VERSION_STRING);
			return 1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'; accepted: the options of --help\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

/* The decision's policies as the select plugin's: the PartitionName
 * lines, the plugstack line's policy, function and PolicyOverridesWeight. */
static int load_policies(struct ctx *c, const struct psiplace_siteconf *site,
			 psiplace_error_t *err)
{
	c->p.rdec.cluster_policy.policy = site->policy;
	c->p.rdec.policy_overrides_weight = site->policy_overrides_weight;
	if (site->priority_function &&
	    psiplace_priorityf_compile(site->priority_function, "PriorityFunction",
				       &c->cluster_prio, err) < 0)
		return -1;
	c->p.rdec.cluster_policy.priorityf = c->cluster_prio;
	if (c->pc.nparts && !(c->parts = calloc(c->pc.nparts, sizeof(*c->parts))))
		return psiplace_seterr(err, "out of memory");
	for (size_t i = 0; i < c->pc.nparts; i++) {
		c->parts[i].name = c->pc.parts[i].name;
		c->parts[i].has_policy = c->pc.parts[i].has_policy;
		c->parts[i].policy = c->pc.parts[i].policy;
		c->parts[i].priorityf = c->pc.parts[i].priorityf;
	}
	c->p.rdec.parts = c->parts;
	c->p.rdec.nparts = c->pc.nparts;
	c->p.psiconf = &c->pc;
	return 0;
}

/* psiplace.conf (the Malleable* keys, the nodes' attributes and the
 * PartitionName lines) and the plugstack line's policy. */
static int load_conf(struct ctx *c, const slurm_conf_t *sc)
{
	struct psiplace_siteconf site;
	psiplace_error_t err;
	char path[PATH_MAX];
	const char *sconf = getenv("SLURM_CONF");

	if (c->o.conf) {
		snprintf(path, sizeof(path), "%s", c->o.conf);
	} else {
		const char *d = sconf && *sconf ? sconf : "/etc/slurm/slurm.conf";
		const char *slash = strrchr(d, '/');

		snprintf(path, sizeof(path), "%.*s/psiplace.conf", slash ? (int)(slash - d) : 1,
			 slash ? d : ".");
	}
	if (psiplace_psiconf_read_file(path, !c->o.conf, &c->pc, &err) < 0) {
		logline(NULL, "%s", err.text);
		return -1;
	}
	c->p.rdec = c->pc.malleable;
	c->p.ack_timeout = c->pc.mall_ack_timeout;
	c->p.hold_time = c->pc.mall_hold_time;
	if (!c->o.interval)
		c->o.interval = (long)c->pc.mall_interval;
	psiplace_siteconf_init(&site);
	if (sc->plugstack && psiplace_siteconf_read_plugstack(sc->plugstack, &site, &err) < 0) {
		logline(NULL, "%s", err.text);
		psiplace_siteconf_free(&site);
		return -1;
	}
	if (load_policies(c, &site, &err) < 0) {
		logline(NULL, "%s: %s", sc->plugstack ? sc->plugstack : "plugstack.conf", err.text);
		psiplace_siteconf_free(&site);
		return -1;
	}
	psiplace_siteconf_free(&site);
	return 0;
}

static void free_conf(struct ctx *c)
{
	free(c->parts);
	psiplace_priorityf_free(c->cluster_prio);
	psiplace_psiconf_free(&c->pc);
}

static void load_state(struct ctx *c)
{
	psiplace_error_t err;
	char *text;
	size_t len;
	int e = 0;

	psiplace_md_tracks_init(&c->T);
	if (psiplace_read_file(c->state_path, 1 << 24, PSIPLACE_READ_REGULAR, &text, &len, &e,
			       &err) < 0) {
		if (e != ENOENT)
			logline(c, "%s: unreadable, starting afresh: %s", c->state_path, err.text);
		return;
	}
	if (psiplace_md_tracks_parse(text, c->state_path, &c->T, &err) < 0)
		logline(c, "starting afresh: %s", err.text);
	else
		logline(c, "resumed from %s: next decision id %" PRIu64 ", %zu jobs tracked",
			c->state_path, c->T.next_id, c->T.n);
	free(text);
}

/* Written to a temporary file, synced, renamed over the old one. */
static int save_state(const struct ctx *c)
{
	char tmp[PATH_MAX + 8], *text;
	long len = psiplace_md_tracks_format(&c->T, &text);
	int fd, ok;

	if (len < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.new", c->state_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, text, (size_t)len) == len && fsync(fd) == 0;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	free(text);
	if (!ok || rename(tmp, c->state_path) < 0) {
		logline(c, "%s: cannot write the state file: %s", c->state_path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static enum psiplace_power_state power_of(uint32_t st)
{
	if (st & NODE_STATE_POWERING_UP)
		return PSIPLACE_POWERING_UP;
	if (st & (NODE_STATE_POWERED_DOWN | NODE_STATE_POWERING_DOWN))
		return PSIPLACE_POWERED_DOWN;
	return PSIPLACE_POWER_UP;
}

static void node_of(const node_info_t *ni, struct psiplace_md_node *n)
{
	uint32_t base = ni->node_state & NODE_STATE_BASE;

	n->name = ni->name;
	n->cpus = ni->cpus;
	n->allocated = base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED ||
		       (ni->node_state & NODE_STATE_COMPLETING);
	n->usable = base != NODE_STATE_DOWN && base != NODE_STATE_FUTURE &&
		    base != NODE_STATE_UNKNOWN &&
		    !(ni->node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND));
	n->power = power_of(ni->node_state);
	n->partitions = ni->partitions;
	n->weight = ni->weight;
}

static bool eligible(const slurm_job_info_t *j)
{
	switch (j->state_reason) {
	case WAIT_DEPENDENCY:
	case WAIT_DEP_INVALID:
	case WAIT_HELD:
	case WAIT_HELD_USER:
	case WAIT_TIME:
		return false;
	default: return j->priority != 0;
	}
}

static void job_of(const slurm_job_info_t *ji, struct psiplace_md_job *j)
{
	uint32_t st = ji->job_state & JOB_STATE_BASE;

	memset(j, 0, sizeof(*j));
	j->id = ji->job_id;
	j->user = ji->user_id;
	j->state = st == JOB_RUNNING ? PSIPLACE_MD_RUNNING
		 : st == JOB_PENDING ? PSIPLACE_MD_PENDING : PSIPLACE_MD_OTHER;
	j->eligible = eligible(ji);
	j->name = ji->name;
	j->partition = ji->partition;
	j->nodes = j->state == PSIPLACE_MD_RUNNING ? ji->nodes : ji->sched_nodes;
	j->batch_host = j->state == PSIPLACE_MD_RUNNING ? ji->batch_host : NULL;
	j->num_nodes = ji->num_nodes;
	j->priority = ji->priority;
	j->start = ji->start_time;
	j->time_limit = ji->time_limit == INFINITE || ji->time_limit == NO_VAL
				? PSIPLACE_RDEC_NEVER
				: (int64_t)ji->time_limit * 60;
	if (j->state == PSIPLACE_MD_RUNNING)
		j->end = j->time_limit == PSIPLACE_RDEC_NEVER || !ji->end_time ? PSIPLACE_RDEC_NEVER
									     : ji->end_time;
	j->admin_comment = ji->admin_comment;
	j->comment = ji->comment;
}

static int update_admin_comment(uint32_t job, const char *text)
{
	job_desc_msg_t d;
	job_array_resp_msg_t *resp = NULL;
	char id[16];
	int rc;

	slurm_init_job_desc_msg(&d);
	snprintf(id, sizeof(id), "%" PRIu32, job);
	d.job_id_str = id;
	d.admin_comment = (char *)text;
	rc = slurm_update_job2(&d, &resp);
	/* a single job: one answer, its error code the call's */
	if (rc == SLURM_SUCCESS && resp && resp->job_array_count && resp->error_code[0]) {
		errno = (int)resp->error_code[0];
		rc = SLURM_ERROR;
	}
	slurm_free_job_array_resp(resp);
	return rc;
}

static void carry_out(struct ctx *c, const struct psiplace_md_out *out)
{
	char id[16];

	for (size_t i = 0; i < out->n; i++) {
		const struct psiplace_md_action *a = &out->a[i];
		int rc;

		if (a->kind == PSIPLACE_MD_WRITE_ADMIN) {
			rc = update_admin_comment(a->job, a->text);
			if (rc != SLURM_SUCCESS)
				logline(c, "job %" PRIu32 ": AdminComment='%s' refused: %s (again next cycle)",
					a->job, a->text, slurm_strerror(errno));
		} else {
			snprintf(id, sizeof(id), "%" PRIu32, a->job);
			rc = slurm_kill_job2(id, SIGKILL, 0, NULL);
			if (rc != SLURM_SUCCESS && errno != ESLURM_ALREADY_DONE)
				logline(c, "scancel %" PRIu32 ": %s", a->job,
					slurm_strerror(errno));
		}
	}
}

/* One cycle; -1 when slurmctld did not answer or memory ran out. */
static int cycle(struct ctx *c)
{
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	job_info_msg_t *jobs = NULL;
	struct psiplace_md_node *mn = NULL;
	struct psiplace_md_part *mp = NULL;
	struct psiplace_md_job *mj = NULL;
	struct psiplace_md_input in;
	struct psiplace_md_out out;
	psiplace_error_t err;
	int rc = -1;

	psiplace_md_out_init(&out);
	if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS ||
	    slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS ||
	    slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS) {
		logline(c, "slurmctld: %s (next cycle in %ld s)", slurm_strerror(errno),
			c->o.interval);
		goto done;
	}
	slurm_populate_node_partitions(nodes, parts);
	mn = calloc(nodes->record_count + 1, sizeof(*mn));
	mp = calloc(parts->record_count + 1, sizeof(*mp));
	mj = calloc(jobs->record_count + 1, sizeof(*mj));
	if (!mn || !mp || !mj)
		goto done;
	memset(&in, 0, sizeof(in));
	in.now = time(NULL);
	for (uint32_t i = 0; i < nodes->record_count; i++)
		if (nodes->node_array[i].name)
			node_of(&nodes->node_array[i], &mn[in.nnodes++]);
	for (uint32_t i = 0; i < parts->record_count; i++) {
		const partition_info_t *pi = &parts->partition_array[i];

		mp[i].name = pi->name ? pi->name : "";
		mp[i].max_nodes = pi->max_nodes == INFINITE ? 0 : pi->max_nodes;
		mp[i].total_nodes = pi->total_nodes;
	}
	in.nparts = parts->record_count;
	for (uint32_t i = 0; i < jobs->record_count; i++)
		job_of(&jobs->job_array[i], &mj[i]);
	in.njobs = jobs->record_count;
	in.nodes = mn;
	in.parts = mp;
	in.jobs = mj;
	if (psiplace_md_cycle(&in, &c->p, &c->T, &out, &err) < 0) {
		logline(c, "%s", err.text);
		goto done;
	}
	for (size_t i = 0; i < out.nline; i++)
		logline(c, "%s", out.line[i]);
	if (out.skipped != c->skipped)
		logline(c, "%zu running jobs left out of the decision (a node Slurm did not list, or "
			   "a batch host another job holds)",
			out.skipped);
	c->skipped = out.skipped;
	if (out.bad_policies != c->bad_policies)
		logline(c, "%zu jobs with a malformed psiplace-policy= part in AdminComment: their "
			   "partition's or the cluster's policy is used for them",
			out.bad_policies);
	c->bad_policies = out.bad_policies;
	if (c->o.once)
		for (size_t i = 0; i < out.ndecision; i++)
			printf("%s\n", out.decision[i]);
	/* the ids are on disk before any job sees them */
	if (save_state(c) == 0)
		carry_out(c, &out);
	rc = 0;
done:
	psiplace_md_out_free(&out);
	free(mn);
	free(mp);
	free(mj);
	slurm_free_job_info_msg(jobs);
	slurm_free_partition_info_msg(parts);
	slurm_free_node_info_msg(nodes);
	return rc;
}

/* Sleeps s seconds unless a signal asks to stop. */
static void pause_for(long s)
{
	struct timespec t = { .tv_sec = s, .tv_nsec = 0 };

	while (!stop_flag && nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	struct ctx c;
	slurm_conf_t *sc = NULL;
	struct sigaction sa;
	int rc;

	memset(&c, 0, sizeof(c));
	if ((rc = parse_args(argc, argv, &c.o)))
		return rc == 1 ? 0 : 2;
	slurm_init(NULL);
	if (slurm_load_ctl_conf(0, &sc) != SLURM_SUCCESS) {
		fprintf(stderr, PROG ": slurmctld's configuration: %s\n",
			slurm_strerror(errno));
		return 1;
	}
	c.p.max_pending = PSIPLACE_MD_MAX_PENDING_DEFAULT;
	if (load_conf(&c, sc) < 0)
		return 1;
	if (c.o.state && c.o.state[0] != '/') { /* daemon() leaves the directory */
		char cwd[PATH_MAX / 2];

		if (!getcwd(cwd, sizeof(cwd)) || strlen(c.o.state) >= PATH_MAX / 2) {
			fprintf(stderr, PROG ": --state: '%s' relative to a directory too long\n",
				c.o.state);
			return 1;
		}
		snprintf(c.state_path, sizeof(c.state_path), "%s/%.*s", cwd, PATH_MAX / 2 - 1,
			 c.o.state);
	} else if (c.o.state)
		snprintf(c.state_path, sizeof(c.state_path), "%s", c.o.state);
	else
		snprintf(c.state_path, sizeof(c.state_path), "%s/" STATE_NAME,
			 sc->state_save_location ? sc->state_save_location : ".");
	md_free_ctl_conf(sc);
	if (!c.o.foreground && !c.o.once) {
		if (daemon(0, 0) < 0) {
			perror(PROG ": daemon");
			return 1;
		}
		openlog(PROG, LOG_PID, LOG_DAEMON);
		c.syslog = true;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	load_state(&c);
	if (!c.o.once)
		logline(&c, "started: every %ld s, acknowledgement within %" PRId64 " s, "
			    "holds at most %" PRId64 " s, state %s",
			c.o.interval, c.p.ack_timeout, c.p.hold_time, c.state_path);
	do {
		rc = cycle(&c);
		if (c.o.once)
			break;
		pause_for(c.o.interval);
	} while (!stop_flag);
	if (!c.o.once)
		logline(&c, "stopped");
	psiplace_md_tracks_free(&c.T);
	free_conf(&c);
	slurm_fini();
	return c.o.once && rc < 0 ? 1 : 0;
}
