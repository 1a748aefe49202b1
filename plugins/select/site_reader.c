/* The site reader thread (see site_reader.h): the metrics file, and the
 * plugstack.conf line and psiplace.conf when reconfigure asks.
 *
 * Hand-over without locks: the thread publishes a result by exchanging it
 * into `pending` (metrics) or `pending_site` (configuration); a decision
 * (under slurmctld's node write lock, so one at a time) takes it by
 * exchanging NULL in.  Whoever gets a pointer out of the exchange owns it:
 * the thread frees a result nobody took, the decision frees the one it
 * replaces.  The thread never touches a result after publishing it.  The
 * one lock, `ask`, guards the paths a reload asks for; neither side holds
 * it while reading a file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"

#include "psiplace/readfile.h"
#include "site.h"
#include "site_reader.h"

#define READER_INTERVAL_MS 1000 /* NFS and writers that never close */
#define READER_LOGGED_LINES 5   /* bad lines logged per read, then a count */
#define READER_STOP_WAIT_S 5

static const char me[] = "select/psiplace_cons_tres";

static struct {
	bool running;
	pthread_t thread;
	int wake[2];  /* 'x' on wake[1] stops the thread, 'r' asks for a reload */
	char *path;   /* the metrics file; the thread's own once it runs */
	pthread_mutex_t ask;
	char *ask_plugstack, *ask_psiconf; /* a reload asked for, under `ask` */
	_Atomic(struct psiplace_metrics *) pending;
	_Atomic(struct site *) pending_site;
	atomic_ulong published;
} rd = { .wake = { -1, -1 }, .ask = PTHREAD_MUTEX_INITIALIZER };

void site_reader_free(struct psiplace_metrics *m)
{
	if (!m)
		return;
	psiplace_metrics_free(m);
	free(m);
}

void site_reader_free_site(struct site *s)
{
	if (!s)
		return;
	site_free(s);
	free(s);
}

struct read_log {
	unsigned logged;
};

static void log_line(void *arg, const char *msg)
{
	struct read_log *l = arg;

	if (l->logged++ < READER_LOGGED_LINES)
		info("%s: %s", me, msg);
}

static void publish(struct psiplace_metrics *m)
{
	site_reader_free(atomic_exchange(&rd.pending, m));
	atomic_fetch_add(&rd.published, 1);
}

/* One look at the file; `said` holds the last problem logged, so that a
 * problem is logged once per change, not once a second. */
static void check(struct psiplace_filestamp *stamp, char *said, size_t saidlen)
{
	struct psiplace_metrics *m;
	struct read_log l = { 0 };
	psiplace_error_t err;
	bool changed;
	int rc;

	if (!rd.path)
		return;
	rc = psiplace_file_changed(rd.path, stamp, &changed, &err);
	if (!changed)
		return;
	if (!(m = calloc(1, sizeof(*m)))) {
		error("%s: metrics file %s: out of memory, keeping the previous values", me, rd.path);
		stamp->valid = false; /* try again */
		return;
	}
	psiplace_metrics_init(m);
	if (rc == 0)
		rc = psiplace_metrics_read_file(rd.path, m, log_line, &l, &err);
	if (rc < 0) {
		psiplace_metrics_free(m);
		psiplace_metrics_init(m);
		if (strcmp(said, err.text)) {
			info("%s: metrics file: %s; its values are dropped until it can be read", me,
			     err.text);
			snprintf(said, saidlen, "%s", err.text);
		}
		publish(m);
		return;
	}
	said[0] = '\0';
	if (l.logged > READER_LOGGED_LINES)
		info("%s: metrics file %s: %u more problem lines not logged", me, rd.path,
		     l.logged - READER_LOGGED_LINES);
	verbose("%s: metrics file %s: %zu nodes, %zu lines skipped", me, rd.path, m->n, m->skipped);
	publish(m);
}

static int watch_dir(void)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	if (snprintf(dir, sizeof(dir), "%s", rd.path) >= (int)sizeof(dir))
		return -1;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -1;
	if (inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
				      IN_DELETE | IN_ATTRIB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the configuration a reconfigure asked for and publish it; switch
 * to its metrics file when it names another one. */
static void reload(struct psiplace_filestamp *stamp, char *said, int *ino)
{
	char *plugstack, *psiconf;
	const char *mpath;
	struct site *next;
	psiplace_error_t err;

	pthread_mutex_lock(&rd.ask);
	plugstack = rd.ask_plugstack;
	psiconf = rd.ask_psiconf;
	rd.ask_plugstack = rd.ask_psiconf = NULL;
	pthread_mutex_unlock(&rd.ask);
	if (!psiconf) /* a second wake-up for a reload already done */
		goto out;
	if (!(next = calloc(1, sizeof(*next)))) {
		error("%s: keeping the previous configuration: out of memory", me);
		goto out;
	}
	if (site_load_paths(next, plugstack, psiconf, &err) < 0) {
		error("%s: keeping the previous configuration: %s", me, err.text);
		free(next);
		goto out;
	}
	mpath = next->psiconf.metrics_file;
	if (!(mpath && rd.path && !strcmp(mpath, rd.path)) && (mpath || rd.path)) {
		free(rd.path);
		rd.path = mpath ? strdup(mpath) : NULL;
		if (*ino >= 0)
			close(*ino);
		*ino = rd.path ? watch_dir() : -1;
		*stamp = (struct psiplace_filestamp){ 0 };
		said[0] = '\0';
		if (!rd.path) { /* no metrics file any more: its values are dropped */
			struct psiplace_metrics *m = calloc(1, sizeof(*m));

			if (m) {
				psiplace_metrics_init(m);
				publish(m);
			}
		}
	}
	verbose("%s: configuration read again: NodeAllocationPolicy=%s", me,
		psiplace_policy_name(next->conf.policy));
	site_reader_free_site(atomic_exchange(&rd.pending_site, next));
	atomic_fetch_add(&rd.published, 1);
out:
	free(plugstack);
	free(psiconf);
}

static void *reader_main(void *arg)
{
	struct psiplace_filestamp stamp = { 0 };
	char said[PSIPLACE_ERRLEN] = "";
	char buf[4096];
	int ino = rd.path ? watch_dir() : -1;

	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { rd.wake[0], POLLIN, 0 }, { ino, POLLIN, 0 } };
		char cmd;

		check(&stamp, said, sizeof(said));
		if (poll(p, ino >= 0 ? 2 : 1, READER_INTERVAL_MS) < 0 && errno != EINTR)
			break;
		if (p[0].revents) {
			if (read(rd.wake[0], &cmd, 1) != 1 || cmd != 'r')
				break;
			reload(&stamp, said, &ino);
			continue;
		}
		if (ino >= 0 && p[1].revents)
			while (read(ino, buf, sizeof(buf)) > 0)
				;
	}
	if (ino >= 0)
		close(ino);
	return NULL;
}

int site_reader_start(const char *path, psiplace_error_t *err)
{
	sigset_t all, old;
	int rc;

	if (rd.running)
		site_reader_stop();
	/* Non-blocking writes: a full pipe means a wake-up is pending anyway. */
	if (pipe2(rd.wake, O_CLOEXEC) < 0 || fcntl(rd.wake[1], F_SETFL, O_NONBLOCK) < 0)
		return psiplace_seterr(err, "site reader: pipe: %s", strerror(errno));
	if (path && !(rd.path = strdup(path))) {
		site_reader_stop();
		return psiplace_seterr(err, "site reader: out of memory");
	}
	/* Signals stay with slurmctld's own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&rd.thread, NULL, reader_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		site_reader_stop();
		return psiplace_seterr(err, "site reader: pthread_create: %s", strerror(rc));
	}
	rd.running = true;
	return 0;
}

void site_reader_stop(void)
{
	if (rd.running) {
		struct timespec until;
		int rc;

		if (write(rd.wake[1], "x", 1) != 1)
			error("%s: cannot wake the site reader: %m", me);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += READER_STOP_WAIT_S;
		rc = pthread_timedjoin_np(rd.thread, NULL, &until);
		if (rc) {
			/* Stuck in a read of a hung file system: leave it. */
			error("%s: site reader did not stop within %d s, detached", me,
			      READER_STOP_WAIT_S);
			pthread_detach(rd.thread);
			/* its path and wake pipe stay with it */
			rd.path = NULL;
			rd.wake[0] = rd.wake[1] = -1;
		}
		rd.running = false;
	}
	free(rd.path);
	rd.path = NULL;
	if (rd.wake[0] >= 0)
		close(rd.wake[0]);
	if (rd.wake[1] >= 0)
		close(rd.wake[1]);
	rd.wake[0] = rd.wake[1] = -1;
	site_reader_free(atomic_exchange(&rd.pending, NULL));
	site_reader_free_site(atomic_exchange(&rd.pending_site, NULL));
	pthread_mutex_lock(&rd.ask);
	free(rd.ask_plugstack);
	free(rd.ask_psiconf);
	rd.ask_plugstack = rd.ask_psiconf = NULL;
	pthread_mutex_unlock(&rd.ask);
}

int site_reader_reload(const char *plugstack_path, const char *psiconf_path)
{
	char *a, *b;

	if (!rd.running)
		return -1;
	a = plugstack_path ? strdup(plugstack_path) : NULL;
	b = strdup(psiconf_path ? psiconf_path : "");
	if ((plugstack_path && !a) || !b) {
		free(a);
		free(b);
		return -1;
	}
	pthread_mutex_lock(&rd.ask);
	free(rd.ask_plugstack);
	free(rd.ask_psiconf);
	rd.ask_plugstack = a;
	rd.ask_psiconf = b;
	pthread_mutex_unlock(&rd.ask);
	if (write(rd.wake[1], "r", 1) != 1 && errno != EAGAIN)
		return -1;
	return 0;
}

struct site *site_reader_take_site(void)
{
	return atomic_exchange(&rd.pending_site, NULL);
}

struct psiplace_metrics *site_reader_take(void)
{
	return atomic_exchange(&rd.pending, NULL);
}

unsigned long site_reader_published(void)
{
	return atomic_load(&rd.published);
}
